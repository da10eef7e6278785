/*
 * The CPU's sequential f64 sum s = (((0 + t0) + t1) + t2) + ..., reproduced
 * chunk by chunk so that the chunks can be prepared in parallel.
 *
 * Within one binade, [2^e, 2^(e+1)) or its negative, every f64 is m q for
 * an integer m with 2^52 <= |m| < 2^53 and q = 2^(e-52). If s = m q and
 * the rounded sum stays in the binade, RN(s + t) = (m + r) q, where r is
 * t / q rounded to the nearest integer: the grid of the binade is q, and
 * adding the integer m moves nothing but the grid. Only a tie (t / q
 * exactly halfway between two integers) depends on s: it goes to the even
 * m + r. So a run of terms whose partial sums all stay in the binade adds
 * to m the sum R of the terms' quotients rounded down at ties, plus one for
 * each tie met at an odd position; R, the range of the partial sums and the
 * parity each tie would meet (relative to m) need no knowledge of s, and
 * applying them to s is a few integer operations.
 *
 * Plain C99 usable from CUDA device code (SEQ_SUM_FN); the host tests run
 * the same functions.
 */
#ifndef LIBVMAF_SRC_CUDA_SEQ_SUM_H
#define LIBVMAF_SRC_CUDA_SEQ_SUM_H

#include <stdint.h>
#include <string.h>

#ifdef __CUDACC__
#define SEQ_SUM_FN static __host__ __device__ __forceinline__
#else
#define SEQ_SUM_FN static inline
#endif

/* Ties a prepared chunk may hold (one bit each); a chunk with more is
 * summed term by term. */
#define SEQ_SUM_MAX_TIES 64
/* Binades with a representable scale 2^(52 - e) and grid 2^(e - 52), both
 * normal numbers. */
#define SEQ_SUM_E_MIN (-970)
#define SEQ_SUM_E_MAX 1023
#define SEQ_SUM_NO_BINADE (-100000)

/* A chunk prepared for binade e: what its terms add to m, wherever in the
 * binade the sum starts, as long as every partial sum stays inside. */
typedef struct SeqSumChunk {
    int64_t r;           /* sum of the terms' quotients, ties rounded down */
    int64_t lo, hi;      /* least and greatest partial sum of those (after each term) */
    uint64_t tie_bits;   /* tie j: parity of (quotients before it + its own, rounded down) */
    int32_t e;           /* the binade */
    int32_t nties;       /* -1: not prepared; the chunk is summed term by term */
} SeqSumChunk;

SEQ_SUM_FN uint64_t seq_sum_bits(double x)
{
    uint64_t b;
    memcpy(&b, &x, sizeof(b));
    return b;
}

SEQ_SUM_FN double seq_sum_double(uint64_t b)
{
    double x;
    memcpy(&x, &b, sizeof(x));
    return x;
}

/* e with |x| in [2^e, 2^(e+1)) for a normal x, else SEQ_SUM_NO_BINADE (zero,
 * subnormal, infinite or NaN). */
SEQ_SUM_FN int seq_sum_binade(double x)
{
    const int f = (int)((seq_sum_bits(x) >> 52) & 0x7FF);
    return f == 0 || f == 0x7FF ? SEQ_SUM_NO_BINADE : f - 1023;
}

/* t / 2^(e-52) rounded to the nearest integer in *r, halfway cases down.
 * Returns 1 for a halfway case, 0 otherwise, and -1 when the quotient is
 * not below 2^52 in magnitude or not finite: such a term leaves the binade
 * from anywhere inside it (|t| >= 2^e), so its chunk cannot be prepared. */
SEQ_SUM_FN int seq_sum_quotient(double t, int e, int64_t *r)
{
    /* 2^(52 - e), exact: SEQ_SUM_E_MIN <= e keeps it normal; the product is
     * exact unless it is far below 1/2 (then r is 0 either way). */
    const double scale = seq_sum_double((uint64_t)(1023 + 52 - e) << 52);
    const double x = t * scale;
    if (!(x < 0x1p52 && x > -0x1p52))
        return -1;
    /* floor by truncation: |x| < 2^52 fits an int64 exactly */
    int64_t k = (int64_t)x;
    if ((double)k > x)
        k -= 1;
    const double f = x - (double)k; /* exact: both are multiples of ulp(x), |f| < 1 */
    if (f > 0.5) {
        *r = k + 1;
        return 0;
    }
    *r = k;
    return f == 0.5;
}

/* Prepares len terms for binade e, one after the other (the device builds
 * the same record with a warp; the tests use this one). */
SEQ_SUM_FN void seq_sum_prepare(SeqSumChunk *c, const double *t, unsigned len, int e)
{
    c->e = e;
    c->nties = -1;
    c->r = c->lo = c->hi = 0;
    c->tie_bits = 0;
    if (e < SEQ_SUM_E_MIN || e > SEQ_SUM_E_MAX || len > 1024)
        return;
    /* |quotient| < 2^52 and len <= 1024: the partial sums fit in 63 bits */
    int64_t p = 0, lo = INT64_MAX, hi = INT64_MIN;
    uint64_t bits = 0;
    int nt = 0;
    for (unsigned i = 0; i < len; i++) {
        int64_t r;
        const int tie = seq_sum_quotient(t[i], e, &r);
        if (tie < 0)
            return;
        if (tie) {
            if (nt == SEQ_SUM_MAX_TIES)
                return;
            bits |= (uint64_t)((p + r) & 1) << nt;
            nt++;
        }
        p += r;
        lo = p < lo ? p : lo;
        hi = p > hi ? p : hi;
    }
    /* A record applies only when every partial sum moves m by less than
     * 2^52 (the width of the binade): refusing the others here loses
     * nothing, and keeps sums of up to 2^10 records far from overflow. */
    if (!len || lo <= -((int64_t)1 << 52) || hi >= ((int64_t)1 << 52))
        return;
    c->r = p;
    c->lo = lo;
    c->hi = hi;
    c->tie_bits = bits;
    c->nties = nt;
}

/* Appends record b to record a (the chunk right after a's): both must be
 * prepared for the same binade with no tie; otherwise a becomes a record
 * that is never applied. */
SEQ_SUM_FN void seq_sum_join(SeqSumChunk *a, const SeqSumChunk *b)
{
    if (a->nties != 0 || b->nties != 0 || a->e != b->e) {
        a->nties = -1;
        return;
    }
    const int64_t lo = a->r + b->lo, hi = a->r + b->hi;
    a->lo = lo < a->lo ? lo : a->lo;
    a->hi = hi > a->hi ? hi : a->hi;
    a->r += b->r;
}

/* 2^52 + 1 <= |m| <= 2^53 - 1 for every partial sum m0 + [a, b]: each exact
 * sum is then more than half a grid step inside the binade, where rounding
 * to the grid q is the f64 rounding. */
SEQ_SUM_FN int seq_sum_inside(int64_t m0, int64_t a, int64_t b)
{
    const int64_t lo = ((int64_t)1 << 52) + 1, hi = ((int64_t)1 << 53) - 1;
    return m0 > 0 ? m0 + a >= lo && m0 + b <= hi : m0 + a >= -hi && m0 + b <= -lo;
}

/* m of s = m q in binade e (the caller checked seq_sum_binade(s) == e). */
SEQ_SUM_FN int64_t seq_sum_mantissa(double s)
{
    const uint64_t b = seq_sum_bits(s);
    const int64_t m = (int64_t)((b & (((uint64_t)1 << 52) - 1)) | ((uint64_t)1 << 52));
    return (b >> 63) ? -m : m;
}

/* m q, for 2^52 <= |m| < 2^53 and binade e. */
SEQ_SUM_FN double seq_sum_from_mantissa(int64_t m, int e)
{
    const uint64_t sign = m < 0 ? (uint64_t)1 << 63 : 0;
    const uint64_t mag = (uint64_t)(m < 0 ? -m : m);
    return seq_sum_double(sign | ((uint64_t)(e + 1023) << 52) |
                          (mag & (((uint64_t)1 << 52) - 1)));
}

/* Applies a prepared chunk to the running sum *s: returns 1 when done
 * (*s is then what the terms, added one by one, give), 0 when the chunk
 * must be summed term by term (not prepared, prepared for another binade,
 * or a partial sum could leave the binade). */
SEQ_SUM_FN int seq_sum_apply(double *s, const SeqSumChunk *c)
{
    if (c->nties < 0 || seq_sum_binade(*s) != c->e)
        return 0;
    int64_t m = seq_sum_mantissa(*s);
    /* each tie may add one to every partial sum after it */
    if (!seq_sum_inside(m, c->lo, c->hi + c->nties))
        return 0;
    int64_t up = 0;
    for (int j = 0; j < c->nties; j++)
        up += (m + up + (int64_t)((c->tie_bits >> j) & 1)) & 1;
    m += c->r + up;
    *s = seq_sum_from_mantissa(m, c->e);
    return 1;
}

#endif /* LIBVMAF_SRC_CUDA_SEQ_SUM_H */
