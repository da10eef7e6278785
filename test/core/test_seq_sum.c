/*
 * The arithmetic of the device's sequential sum (cuda/seq_sum.h), run on
 * the host: chunk records prepared for a guessed binade and applied one
 * after the other, with the term-by-term sum for every chunk they cannot
 * take, must give the CPU's sum bit for bit on every term set of
 * test/seq_sum_cases.h, and take the fast path as often as each set says.
 * The CUDA suite runs the same sets through the device.
 */
#include <stdio.h>

#include "cuda/seq_sum.h"

#include "check.h"
#include "../seq_sum_cases.h"

#define CHUNK 1024

typedef struct Stats {
    size_t chunks, prepared, ties, groups;
} Stats;

/* The device's algorithm, serially: each chunk's record prepared for the
 * binade guessed from the chunks' own sums (in any order); then, at every
 * 32nd chunk, the join of the next 32 records applied if it may be, else
 * each record, else the chunk's terms one by one. */
static double emulate(const double *t, size_t n, int guess_shift, Stats *st)
{
    const size_t nch = (n + CHUNK - 1) / CHUNK;
    SeqSumChunk *rec = malloc(sizeof(*rec) * (nch ? nch : 1));
    if (!rec) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    double guess = 0.0;
    for (size_t c = 0; c < nch; c++) {
        const size_t base = c * CHUNK;
        const unsigned len = n - base < CHUNK ? (unsigned)(n - base) : CHUNK;
        int e = seq_sum_binade(guess);
        if (e != SEQ_SUM_NO_BINADE)
            e += guess_shift;
        seq_sum_prepare(&rec[c], t + base, len, e);
        double part = 0.0;
        for (unsigned i = len; i-- > 0;)
            part += t[base + i];
        guess += part;
    }
    memset(st, 0, sizeof(*st));
    st->chunks = nch;
    double s = 0.0;
    for (size_t c = 0; c < nch;) {
        if (c % 32 == 0) {
            SeqSumChunk g = rec[c];
            const size_t end = c + 32 < nch ? c + 32 : nch;
            for (size_t j = c + 1; j < end; j++)
                seq_sum_join(&g, &rec[j]);
            if (seq_sum_apply(&s, &g)) {
                st->prepared += end - c;
                st->groups++;
                c = end;
                continue;
            }
        }
        if (seq_sum_apply(&s, &rec[c])) {
            st->prepared++;
            st->ties += (size_t)rec[c].nties;
        } else {
            const size_t base = c * CHUNK;
            const size_t end = base + CHUNK < n ? base + CHUNK : n;
            for (size_t i = base; i < end; i++)
                s += t[i];
        }
        c++;
    }
    free(rec);
    return s;
}

static void test_quotient(void)
{
    int64_t r = 0;
    /* binade 0: the grid is 2^-52 */
    CHECK_INT(seq_sum_quotient(2.5 * 0x1p-52, 0, &r), 1);
    CHECK_INT(r, 2);
    CHECK_INT(seq_sum_quotient(-2.5 * 0x1p-52, 0, &r), 1);
    CHECK_INT(r, -3);
    CHECK_INT(seq_sum_quotient(2.5 * 0x1p-52 + 0x1p-80, 0, &r), 0);
    CHECK_INT(r, 3);
    CHECK_INT(seq_sum_quotient(2.5 * 0x1p-52 - 0x1p-80, 0, &r), 0);
    CHECK_INT(r, 2);
    CHECK_INT(seq_sum_quotient(-0.25 * 0x1p-52, 0, &r), 0);
    CHECK_INT(r, 0);
    CHECK_INT(seq_sum_quotient(0.75, 0, &r), 0);
    CHECK_INT(r, (int64_t)3 << 50);
    CHECK_INT(seq_sum_quotient(1.0, 0, &r), -1); /* leaves the binade from anywhere */
    CHECK_INT(seq_sum_quotient(NAN, 0, &r), -1);
    CHECK_INT(seq_sum_quotient(INFINITY, 0, &r), -1);
    CHECK_INT(seq_sum_quotient(0x1p-1074, 30, &r), 0);
    CHECK_INT(r, 0);
    /* binades at both ends of the range */
    CHECK_INT(seq_sum_quotient(0x1p-1022, SEQ_SUM_E_MIN, &r), 0);
    CHECK_INT(r, (int64_t)1 << 0);
    CHECK_INT(seq_sum_quotient(0x1p1000, SEQ_SUM_E_MAX, &r), 0);
    CHECK_INT(r, (int64_t)1 << 29);
}

/* Halfway cases go to the even neighbour of the running sum, whatever the
 * record says about them. */
static void test_ties(void)
{
    volatile double half = 0x1p-53; /* half the grid of binade 0 */
    const double starts[] = {1.25, 1.25 + 0x1p-52, 1.5, 1.5 + 0x1p-52, -1.25 - 0x1p-52, -1.75};
    for (size_t i = 0; i < sizeof(starts) / sizeof(starts[0]); i++) {
        const double t[4] = {half, 3 * half, -half, 5 * half};
        double want = starts[i];
        for (int j = 0; j < 4; j++)
            want += t[j];
        SeqSumChunk k;
        seq_sum_prepare(&k, t, 4, 0);
        CHECK_INT(k.nties, 4);
        double s = starts[i];
        CHECK_INT(seq_sum_apply(&s, &k), 1);
        CHECK(seq_sum_same(s, want));
        if (!seq_sum_same(s, want))
            fprintf(stderr, "  start %a: got %a, want %a\n", starts[i], s, want);
    }
    /* A record for another binade, and one whose partial sums would leave
     * the binade, are refused. */
    const double up[2] = {0.25, 0.25};
    SeqSumChunk k;
    seq_sum_prepare(&k, up, 2, 0);
    double s = 1.75;
    CHECK_INT(seq_sum_apply(&s, &k), 0);
    CHECK(s == 1.75);
    s = 2.5;
    CHECK_INT(seq_sum_apply(&s, &k), 0);
    s = 1.25;
    CHECK_INT(seq_sum_apply(&s, &k), 1);
    CHECK(s == 1.75);
    s = 0.0;
    CHECK_INT(seq_sum_apply(&s, &k), 0);
    /* Joined records: the second one's partial sums count from the end of
     * the first one's. */
    const double quarter[1] = {0.25};
    SeqSumChunk g, q;
    seq_sum_prepare(&q, quarter, 1, 0);
    g = q;
    seq_sum_join(&g, &q);
    s = 1.25;
    CHECK_INT(seq_sum_apply(&s, &g), 1);
    CHECK(s == 1.75);
    seq_sum_join(&g, &q); /* 1.25 + 0.75 reaches 2: leaves binade 0 */
    s = 1.25;
    CHECK_INT(seq_sum_apply(&s, &g), 0);
    SeqSumChunk other;
    seq_sum_prepare(&other, quarter, 1, 1);
    g = q;
    seq_sum_join(&g, &other);
    CHECK_INT(g.nties, -1);
    /* Just below 2^e the grid halves: 1 + 2^-52 - 1.4 * 2^-52 rounds to
     * 1 - 2^-53, not to the 1 the grid of binade 0 would give. */
    const double down[1] = {-1.4 * 0x1p-52};
    seq_sum_prepare(&k, down, 1, 0);
    s = 1.0 + 0x1p-52;
    CHECK_INT(seq_sum_apply(&s, &k), 0);
    CHECK(1.0 + 0x1p-52 + down[0] == 1.0 - 0x1p-53);
}

static void test_sets(uint64_t seed)
{
    size_t groups = 0;
    for (int k = 0; k < SEQ_SUM_CASES; k++) {
        SeqSumCase c;
        if (seq_sum_case(k, seed, 1, &c)) {
            fprintf(stderr, "out of memory\n");
            exit(1);
        }
        const double want = seq_sum_reference(c.t, c.n);
        Stats st;
        const double got = emulate(c.t, c.n, 0, &st);
        CHECK(seq_sum_same(got, want));
        if (!seq_sum_same(got, want))
            fprintf(stderr, "  %s: got %a, want %a\n", c.name, got, want);
        const double share = st.chunks ? (double)st.prepared / (double)st.chunks : 0.0;
        groups += st.groups;
        CHECK(share >= c.min_prepared);
        CHECK(st.ties >= c.min_ties);
        printf("%-36s %6zu chunks, %5.1f%% prepared (%zu groups of 32), %6zu ties\n", c.name,
               st.chunks, 100.0 * share, st.groups, st.ties);
        if (share < c.min_prepared || st.ties < c.min_ties)
            fprintf(stderr, "  %s: %.3f prepared (want %.2f), %zu ties (want %u)\n", c.name,
                    share, c.min_prepared, st.ties, c.min_ties);
        /* Wrong guesses cost time, never bits. */
        for (int shift = -1; shift <= 1; shift += 2) {
            const double g = emulate(c.t, c.n, shift, &st);
            CHECK(seq_sum_same(g, want));
            CHECK(c.n < 100000 || st.prepared < st.chunks / 2);
        }
        free(c.t);
    }
    /* the joined records of 32 chunks were taken too */
    CHECK(groups >= 30);
}

int main(int argc, char **argv)
{
    const uint64_t seed = argc > 1 ? strtoull(argv[1], NULL, 0) : 0x5eed5u;
    test_quotient();
    test_ties();
    for (uint64_t i = 0; i < 4; i++)
        test_sets(seed + i);
    return check_result("seq_sum");
}
