/*
 * The ADM inner-loop table, entry by entry (checkasm style): every table
 * vmaf_adm_dsp_init() can return must give the plain C entry's bits on
 * random rows and on extreme ones (the contracts hold for every input, so
 * the int16/int32 limits are part of the test). With only C built this
 * checks that C is deterministic and, in the sanitizer build, free of
 * undefined behaviour on extreme inputs.
 *
 * Usage: test_adm_dsp [seed]
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu.h"
#include "feature/adm/adm_dsp.h"

#define W 77 /* odd, wider than any unrolling, small enough to be quick */
#define PADDED (W + 8)

static uint64_t rng;
static int failures;

static uint32_t rnd(void)
{
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return (uint32_t)((rng * 0x2545F4914F6CDD1Dull) >> 32);
}

/* Mostly small values, with the extremes of the range mixed in. */
static int32_t value(int bits)
{
    const int32_t lo = (int32_t)(-(1ll << (bits - 1))), hi = (int32_t)((1ll << (bits - 1)) - 1);
    switch (rnd() % 8) {
    case 0: return lo;
    case 1: return hi;
    case 2: return 0;
    case 3: return (int32_t)(rnd() % 64) - 32;
    default: return (int32_t)((int64_t)lo + (int64_t)(rnd() % ((uint64_t)hi - lo + 1)));
    }
}

typedef struct Rows {
    int32_t buf[6][PADDED]; /* h, v, d of two pictures, one spare sample each side */
    AdmBandRows a, b;
} Rows;

static void rows_fill(Rows *r, int bits)
{
    for (int k = 0; k < 6; k++) {
        for (int x = 0; x < PADDED; x++)
            r->buf[k][x] = value(bits);
    }
    for (int k = 0; k < 3; k++) {
        r->a.b[k] = r->buf[k] + 1;
        r->b.b[k] = r->buf[3 + k] + 1;
    }
}

typedef struct Out {
    int32_t row[2 * 16][PADDED];
    int64_t s64[3];
    uint64_t u64[3], u64b[3];
} Out;

static void out_rows(Out *o, AdmBandRows *r, unsigned n)
{
    for (unsigned g = 0; g < n; g++) {
        for (int k = 0; k < 3; k++)
            r[g].b[k] = o->row[(3 * g + k) % 32] + 1;
    }
}

/* One entry on one input: the outputs land in o (zeroed first). */
typedef void (*Runner)(const AdmDsp *dsp, uint64_t seed, Out *o);

static void run_dwt(const AdmDsp *dsp, uint64_t seed, Out *o)
{
    rng = seed;
    const unsigned w = 3 + rnd() % (W - 4), bpc = 8 + rnd() % 9;
    uint8_t p8[4][W];
    uint16_t p16[4][W];
    int16_t lo16[PADDED], hi16[PADDED];
    const uint8_t *s8[4] = {p8[0], p8[1], p8[2], p8[3]};
    const uint16_t *s16[4] = {p16[0], p16[1], p16[2], p16[3]};
    for (int k = 0; k < 4; k++) {
        for (unsigned x = 0; x < W; x++) {
            p8[k][x] = (uint8_t)rnd();
            p16[k][x] = (uint16_t)(rnd() & ((1u << bpc) - 1));
        }
    }
    AdmBandRows out;
    out_rows(o, &out, 1);
    dsp->dwt_vert_8(s8, w, lo16 + 1, hi16 + 1);
    for (unsigned x = 0; x < w; x++)
        o->row[3][x] = lo16[x + 1] * 65536 + (uint16_t)hi16[x + 1];
    dsp->dwt_vert_16(s16, w, bpc, lo16 + 1, hi16 + 1);
    for (unsigned x = 0; x < w; x++)
        o->row[4][x] = lo16[x + 1] * 65536 + (uint16_t)hi16[x + 1];
    lo16[0] = lo16[2], lo16[w + 1] = lo16[w], lo16[w + 2] = lo16[w - 1];
    hi16[0] = hi16[2], hi16[w + 1] = hi16[w], hi16[w + 2] = hi16[w - 1];
    dsp->dwt_horz_0(lo16 + 1, hi16 + 1, w, o->row[5], &out);
    Rows in;
    rows_fill(&in, 32);
    const int32_t *s32[4] = {in.a.b[0], in.a.b[1], in.a.b[2], in.b.b[0]};
    const unsigned sc = 1 + rnd() % 3;
    const int32_t vadd = sc == 1 ? 0 : 32768, hadd = sc == 2 ? 32768 : 16384;
    dsp->dwt_vert_s(s32, w, vadd, sc == 1 ? 0 : 16, o->row[6] + 1, o->row[7] + 1);
    int32_t *lo = o->row[6] + 1, *hi = o->row[7] + 1;
    lo[-1] = lo[1], lo[w] = lo[w - 1], lo[w + 1] = lo[w - 2];
    hi[-1] = hi[1], hi[w] = hi[w - 1], hi[w + 1] = hi[w - 2];
    dsp->dwt_horz_s(lo, hi, w, hadd, sc == 2 ? 16 : 15, o->row[8], &out);
}

static void run_decouple(const AdmDsp *dsp, uint64_t seed, Out *o)
{
    rng = seed;
    static const double gains[] = {1.0, 1.2, 37.5, 100.0};
    const int s123 = rnd() % 2;
    const unsigned x0 = rnd() % 8, x1 = W - rnd() % 8, n = 1 + rnd() % 4;
    Rows in;
    rows_fill(&in, s123 ? 32 : 16);
    if (rnd() % 2) /* aligned vectors: the gain limit applies */
        memcpy(in.buf[3], in.buf[0], sizeof(in.buf[0]) * 3);
    double gain[4];
    AdmBandRows r[4], a[4];
    for (unsigned g = 0; g < n; g++)
        gain[g] = gains[(g + rnd()) % 4];
    out_rows(o, r, n);
    for (unsigned g = 0; g < n; g++) {
        for (int k = 0; k < 3; k++)
            a[g].b[k] = o->row[16 + 3 * g + k] + 1;
    }
    if (s123)
        dsp->decouple_s(&in.a, &in.b, x0, x1, gain, n, r, a);
    else
        dsp->decouple_0(&in.a, &in.b, x0, x1, gain, n, r, a);
}

static void run_mask(const AdmDsp *dsp, uint64_t seed, Out *o)
{
    rng = seed;
    const int s123 = rnd() % 2;
    const unsigned x0 = 1 + rnd() % 8, x1 = W - 1 - rnd() % 8;
    Rows in, thr;
    rows_fill(&in, s123 ? 32 : 16);
    rows_fill(&thr, s123 ? 32 : 20);
    const uint32_t q[3] = {s123 ? rnd() : rnd() % 65536, s123 ? rnd() : rnd() % 65536,
                           s123 ? rnd() : rnd() % 65536};
    (s123 ? dsp->csf_s : dsp->csf_0)(&in.a, x0, x1, q, o->row[0] + 1, o->row[1] + 1);
    dsp->sum3(thr.buf[0] + 1, x0, x1, o->row[2] + 1);
    const AdmThrRows t = {thr.buf[1] + 1, thr.buf[2] + 1, thr.buf[3] + 1, thr.buf[4] + 1,
                          thr.buf[5] + 1};
    AdmCmRound rnd_cm;
    for (int b = 0; b < 3; b++) {
        rnd_cm.sub[b] = s123 ? 0 : (b < 2 ? 10 : 12);
        rnd_cm.sq_shift[b] = s123 ? 30 : (b < 2 ? 29 : 30);
        rnd_cm.sq_add[b] = (int64_t)1 << (rnd_cm.sq_shift[b] - 1);
        rnd_cm.cub_shift[b] = rnd() % 12;
        rnd_cm.cub_add[b] = rnd_cm.cub_shift[b] ? (int64_t)1 << (rnd_cm.cub_shift[b] - 1) : 0;
    }
    (s123 ? dsp->cm_s : dsp->cm_0)(&in.a, q, &t, x0, x1, &rnd_cm, o->s64);
}

static void run_den(const AdmDsp *dsp, uint64_t seed, Out *o)
{
    rng = seed;
    const unsigned x0 = rnd() % 8, x1 = W - rnd() % 8;
    Rows in;
    rows_fill(&in, 32);
    const AdmDenRound r = {30 + rnd() % 2, 1ull << 31, 1 + rnd() % 10, 1ull << 5};
    dsp->den_s(&in.a, x0, x1, &r, o->u64);
    rows_fill(&in, 16);
    dsp->den_0(&in.a, x0, x1, o->u64b);
}

static void compare(const char *name, Runner run, const AdmDsp *c, const AdmDsp *v,
                    const char *variant, unsigned trials)
{
    static Out a, b;
    for (unsigned t = 0; t < trials; t++) {
        const uint64_t seed = rng * 0x9e3779b97f4a7c15ull + t + 1;
        memset(&a, 0, sizeof(a));
        memset(&b, 0, sizeof(b));
        run(c, seed, &a);
        run(v, seed, &b);
        if (memcmp(&a, &b, sizeof(a))) {
            fprintf(stderr, "FAIL %s (%s) differs from C, seed 0x%016" PRIx64 "\n", name, variant,
                    seed);
            failures++;
            return;
        }
    }
}

int main(int argc, char **argv)
{
    const uint64_t seed = argc > 1 ? strtoull(argv[1], NULL, 0) : 0x5eedadd5eedadd5ull;
    printf("test_adm_dsp: seed 0x%016" PRIx64 "\n", seed);
    AdmDsp c;
    vmaf_adm_dsp_init_c(&c);
    static const struct {
        const char *name;
        unsigned flags;
    } variants[] = {
        {"c (init with no flags)", 0},
        {"avx2", VMAF_CPU_FLAG_AVX2},
        {"avx512", VMAF_CPU_FLAG_AVX2 | VMAF_CPU_FLAG_AVX512},
    };
    for (unsigned i = 0; i < sizeof(variants) / sizeof(variants[0]); i++) {
        AdmDsp v;
        vmaf_adm_dsp_init(&v, variants[i].flags);
        rng = seed;
        compare("dwt", run_dwt, &c, &v, variants[i].name, 300);
        compare("decouple", run_decouple, &c, &v, variants[i].name, 300);
        compare("csf, sum3, cm", run_mask, &c, &v, variants[i].name, 300);
        compare("den", run_den, &c, &v, variants[i].name, 300);
    }
    if (!failures)
        printf("adm dsp: every table equals plain C\n");
    return failures != 0;
}
