/*
 * Term sets for the tests of the sequential sum (cuda/seq_sum.h on the
 * host, seq_sum_cuda.h on the device): each set aims at one part of the
 * argument (prepared chunks, ties decided by parity, partial sums leaving a
 * binade, sign changes, special values), and says what share of its chunks
 * must be prepared and how many ties must be met, so that a test fails when
 * the fast path is broken or silently never taken.
 */
#ifndef TEST_SEQ_SUM_CASES_H
#define TEST_SEQ_SUM_CASES_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct SeqSumCase {
    char name[64];
    size_t n;
    double *t;
    double min_prepared; /* share of the chunks applied from records */
    unsigned min_ties;   /* ties decided by parity, at least */
} SeqSumCase;

static inline uint64_t seq_case_rng(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Uniform in [0, 1), 53 random bits. */
static inline double seq_case_unit(uint64_t *s)
{
    return (double)(seq_case_rng(s) >> 11) * 0x1p-53;
}

/* Terms like SSIM's: mostly in [0.5, 1), one in 50 in (-1, 0]. */
static inline void seq_sum_ssim_like(double *t, size_t n, uint64_t *r)
{
    for (size_t i = 0; i < n; i++) {
        const double u = seq_case_unit(r);
        t[i] = (seq_case_rng(r) % 50) ? 0.5 + 0.5 * u : -u;
    }
}

/* The CPU's sum, the reference of every test. */
static inline double seq_sum_reference(const double *t, size_t n)
{
    double s = 0.0;
    for (size_t i = 0; i < n; i++)
        s += t[i];
    return s;
}

/* Same bits, or both NaN (the payload is not part of the contract). */
static inline int seq_sum_same(double a, double b)
{
    if (isnan(a) || isnan(b))
        return isnan(a) && isnan(b);
    return !memcmp(&a, &b, sizeof(a));
}

#define SEQ_SUM_CASES 16

/* Fills case k (0 .. SEQ_SUM_CASES - 1); big scales the sizes of the large
 * sets (1 on the host in CI, more on a GPU). Returns 0, or -1 when out of
 * memory. The caller frees c->t. */
static inline int seq_sum_case(int k, uint64_t seed, size_t big, SeqSumCase *c)
{
    static const size_t small_n[] = {1, 2, 31, 1023, 1024, 1025, 2049};
    uint64_t r = seed ^ (0x1234567ull * (uint64_t)(k + 1));
    memset(c, 0, sizeof(*c));
    size_t n = 0;
    switch (k) {
    case 0: case 1: case 2: case 3: case 4: case 5: case 6:
        n = small_n[k];
        break;
    case 7: n = 300000 * big; break;
    case 8: n = 200000 * big; break;
    case 9: n = 60000; break;
    case 10: n = 40000; break;
    case 11: n = 100000 * big; break;
    case 12: n = 50000; break;
    case 13: n = 20000; break;
    case 14: n = 100000; break;
    case 15: n = 1u << 20; break;
    default: return -1;
    }
    c->n = n;
    c->t = malloc(sizeof(double) * n);
    if (!c->t)
        return -1;
    double *t = c->t;
    switch (k) {
    case 0: case 1: case 2: case 3: case 4: case 5: case 6: case 7:
        /* SSIM-like: mostly (0.5, 1], some small negative terms. */
        snprintf(c->name, sizeof(c->name), "ssim-like, %zu terms", n);
        seq_sum_ssim_like(t, n, &r);
        /* the first chunk crosses every binade up to about 2^9, and one
         * chunk each binade after it */
        c->min_prepared = n > 100000 ? 0.9 : 0.0;
        break;
    case 8:
        /* Short dyadic terms (an integer below 2^16 times 2^-b): once the
         * sum is large, many are exactly halfway between two grid points. */
        snprintf(c->name, sizeof(c->name), "dyadic, ties, %zu terms", n);
        for (size_t i = 0; i < n; i++)
            t[i] = ldexp((double)(1 + seq_case_rng(&r) % 65536), -(int)(10 + seq_case_rng(&r) % 31));
        c->min_prepared = 0.8;
        c->min_ties = 1000;
        break;
    case 9:
        /* A random walk around zero: the sign and the binade change all the
         * time. */
        snprintf(c->name, sizeof(c->name), "walk around zero, %zu terms", n);
        for (size_t i = 0; i < n; i++)
            t[i] = (seq_case_rng(&r) & 1 ? 1.0 : -1.0) * (1.0 + seq_case_unit(&r));
        break;
    case 10:
        /* Hovering at 2^20: the partial sums cross the binade boundary
         * back and forth. */
        snprintf(c->name, sizeof(c->name), "hovering at 2^20, %zu terms", n);
        t[0] = 0x1p20;
        for (size_t i = 1; i < n; i++)
            t[i] = (seq_case_rng(&r) & 1 ? 1.0 : -1.0) * seq_case_unit(&r) * 0x1p-6;
        break;
    case 11:
        /* Negative sums: the binades of negative numbers. */
        snprintf(c->name, sizeof(c->name), "negative, %zu terms", n);
        for (size_t i = 0; i < n; i++)
            t[i] = -(0.5 + 0.5 * seq_case_unit(&r));
        c->min_prepared = 0.9;
        break;
    case 12:
        /* Every magnitude, zeros and subnormals. */
        snprintf(c->name, sizeof(c->name), "all magnitudes, %zu terms", n);
        for (size_t i = 0; i < n; i++) {
            const uint64_t v = seq_case_rng(&r);
            if (v % 17 == 0)
                t[i] = 0.0;
            else if (v % 17 == 1)
                t[i] = ldexp((double)(v >> 40), -1074);
            else
                t[i] = (v & 1 ? 1.0 : -1.0) * ldexp(0.5 + 0.5 * seq_case_unit(&r),
                                                    (int)(seq_case_rng(&r) % 2000) - 1000);
        }
        break;
    case 13:
        /* Special values: the sum becomes infinite, then NaN. */
        snprintf(c->name, sizeof(c->name), "infinities and NaN, %zu terms", n);
        for (size_t i = 0; i < n; i++)
            t[i] = 0x1p1020 * (1.0 + seq_case_unit(&r));
        t[n / 2] = -INFINITY;
        t[n - 10] = NAN;
        break;
    case 14:
        /* More than 64 ties a chunk (odd multiples of 2^-33 on a sum near
         * 2^20): those chunks go term by term. */
        snprintf(c->name, sizeof(c->name), "tie-dense, %zu terms", n);
        t[0] = 0x1p20;
        for (size_t i = 1; i < n; i++)
            t[i] = ldexp((double)(2 * (seq_case_rng(&r) % 1024) + 1), -33);
        break;
    case 15:
        /* One large term and many an eighth of its grid step: the CPU's sum
         * loses every small term (each rounds to nothing). */
        snprintf(c->name, sizeof(c->name), "absorbed terms, %zu terms", n);
        t[0] = (1.0 + 0x1p-24) * (double)n;
        for (size_t i = 1; i < n; i++)
            t[i] = ldexp(1.0, ilogb(t[0]) - 52 - 3);
        c->min_prepared = 0.99;
        break;
    }
    return 0;
}

#endif /* TEST_SEQ_SUM_CASES_H */
