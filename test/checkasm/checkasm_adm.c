/*
 * checkasm: the ADM inner loops (core/src/feature/adm/adm_dsp.h), every
 * entry of each level's table that is not the C one. Inputs cover each
 * contract's whole domain (16-bit values where the contract says scale 0,
 * any int32 above), random, extreme and flat, plus vectors parallel and at
 * 1 degree for the decoupling's angle test. Inputs are allocated at exactly
 * the size an entry may read (the sanitizer build catches over-reads);
 * outputs have guard zones, compared too. The benchmark uses widths of
 * 1080p bands, the masking roundings of the plan and, for the decoupling,
 * the small values of pictures.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkasm.h"
#include "feature/adm/adm_dsp.h"

#define GUARD 32 /* output elements checked on each side */
#define MAXW 4097
#define OUTW (GUARD + MAXW + GUARD)
#define NGAIN 6
#define FILLS (CHECKASM_FILLS + 2)
#define FILL_PARALLEL CHECKASM_FILLS  /* decoupling: t is o scaled */
#define FILL_ANGLE (CHECKASM_FILLS + 1) /* decoupling: t is o turned by 1 degree */

/* The outputs of one call; out[0] is C's, out[1] the entry's. */
typedef struct Out {
    int16_t lo16[OUTW], hi16[OUTW];
    int32_t row[8][OUTW];
    int32_t r[NGAIN][3][OUTW], a[NGAIN][3][OUTW];
    int64_t s64[3];
    uint64_t u64[3];
} Out;

static Out out[2];

static void out_clear(void)
{
    memset(out, 0x5a, sizeof(out));
}

static AdmBandRows out_bands(Out *o, int first)
{
    return (AdmBandRows){{o->row[first] + GUARD, o->row[first + 1] + GUARD,
                          o->row[first + 2] + GUARD}};
}

static void out_compare(const char *what, unsigned w, int fill)
{
    if (memcmp(&out[0], &out[1], sizeof(Out)))
        checkasm_fail("%s, width %u, fill %d: outputs differ (or a write outside them)", what,
                      w, fill);
}

/* Input rows at exactly [lo, hi) around index 0; freed by inputs_free(). */
static void *allocs[64];
static unsigned n_allocs;

static void *in_alloc(int lo, int hi, size_t elem)
{
    char *p = malloc((size_t)(hi - lo) * elem);
    if (!p) {
        fprintf(stderr, "checkasm_adm: out of memory\n");
        exit(1);
    }
    allocs[n_allocs++] = p;
    return p - (ptrdiff_t)lo * (ptrdiff_t)elem;
}

static int32_t *in_i32(int lo, int hi, unsigned bits, int fill)
{
    int32_t *p = in_alloc(lo, hi, sizeof(int32_t));
    checkasm_fill_i32(p + lo, (size_t)(hi - lo), bits, (enum CheckasmFill)fill);
    return p;
}

static void inputs_free(void)
{
    while (n_allocs)
        free(allocs[--n_allocs]);
}

/* Three band rows of int32 readable at [lo, hi). */
static AdmBandRows in_bands(int lo, int hi, unsigned bits, int fill)
{
    AdmBandRows r;
    for (int b = 0; b < 3; b++)
        r.b[b] = in_i32(lo, hi, bits, fill < CHECKASM_FILLS ? fill : CHECKASM_RANDOM);
    return r;
}

/* The first column of a case: 1..4, so that rows start at any alignment
 * (and sum3 can read the column before). */
static unsigned start_of(void)
{
    return 1 + checkasm_rand() % 4;
}

/* One case: the inputs of an entry and the two tables it runs with. */
typedef struct Entry Entry;
typedef struct Case {
    const AdmDsp *dsp[2];
    const Entry *e;
    unsigned w, x0, x1, bpc, n, shift;
    int32_t add;
    const void *p[4];
    const int16_t *lo16, *hi16;
    const int32_t *lo32, *hi32, *f;
    AdmBandRows o, t;
    AdmThrRows thr;
    double gain[NGAIN];
    uint32_t q[3];
    AdmCmRound cm;
    AdmDenRound den;
} Case;

struct Entry {
    const char *name;
    size_t offset; /* of the function pointer in AdmDsp */
    void (*setup)(Case *c, int fill);
    void (*run)(const Case *c, int which);
    unsigned fills, bench_w;
};

/* Bits of the values of a scale-1..3 case: small ones reach the shifts of
 * the decoupling's 15-bit rounding from below, and 16-bit ones the
 * shortcuts of 16-bit rows. */
static unsigned bits_s(void)
{
    static const unsigned bits[] = { 16, 17, 18, 24, 32 };
    return bits[checkasm_rand() % 5];
}

/* --- transform ----------------------------------------------------------- */

static void setup_vert(Case *c, int fill)
{
    static const unsigned depths[] = { 9, 10, 12, 14, 15, 16 };
    c->bpc = c->e->offset == offsetof(AdmDsp, dwt_vert_8) ? 8 : depths[checkasm_rand() % 6];
    for (int k = 0; k < 4; k++) {
        if (c->bpc == 8) {
            uint8_t *p = in_alloc(0, (int)c->w, 1);
            checkasm_fill_u8(p, c->w, (enum CheckasmFill)fill);
            c->p[k] = p;
        } else {
            uint16_t *p = in_alloc(0, (int)c->w, 2);
            checkasm_fill_u16(p, c->w, c->bpc, (enum CheckasmFill)fill);
            c->p[k] = p;
        }
    }
}

static void run_vert_8(const Case *c, int which)
{
    c->dsp[which]->dwt_vert_8((const uint8_t *const *)c->p, c->w, out[which].lo16 + GUARD,
                              out[which].hi16 + GUARD);
}

static void run_vert_16(const Case *c, int which)
{
    c->dsp[which]->dwt_vert_16((const uint16_t *const *)c->p, c->w, c->bpc,
                               out[which].lo16 + GUARD, out[which].hi16 + GUARD);
}

/* The horizontal passes read [-1, w+1]. */
static void setup_horz_0(Case *c, int fill)
{
    int16_t *lo = in_alloc(-1, (int)c->w + 2, 2), *hi = in_alloc(-1, (int)c->w + 2, 2);
    checkasm_fill_i16(lo - 1, c->w + 3, 16, (enum CheckasmFill)fill);
    checkasm_fill_i16(hi - 1, c->w + 3, 16, (enum CheckasmFill)fill);
    c->lo16 = lo;
    c->hi16 = hi;
}

static void run_horz_0(const Case *c, int which)
{
    AdmBandRows b = out_bands(&out[which], 1);
    c->dsp[which]->dwt_horz_0(c->lo16, c->hi16, c->w, out[which].row[0] + GUARD, &b);
}

/* Scales 1..3: the plan's roundings, and others now and then. */
static void pick_round(Case *c, int32_t add0, unsigned shift0, int32_t add1, unsigned shift1)
{
    const uint32_t r = checkasm_rand() % 4;
    c->shift = r == 0 ? shift0 : r == 1 ? shift1 : checkasm_rand() % 24;
    c->add = r == 0 ? add0 : r == 1 ? add1 : c->shift ? (int32_t)(1u << (c->shift - 1)) : 0;
}

static void setup_vert_s(Case *c, int fill)
{
    const unsigned bits = bits_s();
    for (int k = 0; k < 4; k++)
        c->p[k] = in_i32(0, (int)c->w, bits, fill);
    pick_round(c, 0, 0, 32768, 16);
}

static void run_vert_s(const Case *c, int which)
{
    c->dsp[which]->dwt_vert_s((const int32_t *const *)c->p, c->w, c->add, c->shift,
                              out[which].row[6] + GUARD, out[which].row[7] + GUARD);
}

static void setup_horz_s(Case *c, int fill)
{
    const unsigned bits = bits_s();
    c->lo32 = in_i32(-1, (int)c->w + 2, bits, fill);
    c->hi32 = in_i32(-1, (int)c->w + 2, bits, fill);
    pick_round(c, 16384, 15, 32768, 16);
}

static void run_horz_s(const Case *c, int which)
{
    AdmBandRows b = out_bands(&out[which], 1);
    c->dsp[which]->dwt_horz_s(c->lo32, c->hi32, c->w, c->add, c->shift,
                              out[which].row[0] + GUARD, &b);
}

/* --- decoupling ---------------------------------------------------------- */

static const double gain_sets[][NGAIN] = {
    { 100.0 }, { 100.0, 1.0 }, { 1.0 }, { 37.5, 1.2, 100.0 },
    { 2.5, 1.0, 100.0, 7.25, 3.0 }, /* more than one pass of gains */
    { 70000.0, 65535.0, 65536.0, 0.999999, 1e-300, 50.0 },
};
static const unsigned gain_counts[] = { 1, 2, 1, 3, 5, 6 };

static int32_t clamp_bits(int64_t v, unsigned bits)
{
    const int64_t hi = ((int64_t)1 << (bits - 1)) - 1;
    return (int32_t)(v > hi ? hi : v < -hi - 1 ? -hi - 1 : v);
}

/* t = o * m / 8 per sample (the same m in all three bands), now and then
 * off by one: the angle test passes and the gain limit applies. */
static void make_parallel(Case *c, unsigned bits)
{
    for (unsigned x = c->x0; x < c->x1; x++) {
        const int64_t m = checkasm_rand() % 13;
        const int64_t noise = checkasm_rand() % 4 == 0 ? (int64_t)(checkasm_rand() % 3) - 1 : 0;
        for (int b = 0; b < 3; b++)
            c->t.b[b][x] = clamp_bits(c->o.b[b][x] * m / 8 + noise, bits);
    }
}

/* t = o turned by +-1 degree and scaled: the angle test's threshold, which
 * integer rounding puts on either side and within a float's precision. */
static void make_angle(Case *c, unsigned bits)
{
    const double cs = 0.99984769515639124, sn = 0.017452406437283512; /* 1 degree */
    for (unsigned x = c->x0; x < c->x1; x++) {
        const double scale = 0.5 + (checkasm_rand() % 1024) / 683.0;
        const double turn = checkasm_rand() % 2 ? sn : -sn;
        const double h = c->o.b[0][x], v = c->o.b[1][x];
        c->t.b[0][x] = clamp_bits((int64_t)(scale * (cs * h - turn * v)), bits);
        c->t.b[1][x] = clamp_bits((int64_t)(scale * (turn * h + cs * v)), bits);
        c->t.b[2][x] = clamp_bits((int64_t)(scale * c->o.b[2][x]), bits);
    }
}

static void setup_decouple(Case *c, int fill, unsigned bits)
{
    c->x0 = start_of();
    c->x1 = c->x0 + c->w;
    c->o = in_bands((int)c->x0, (int)c->x1, bits, fill);
    c->t = in_bands((int)c->x0, (int)c->x1, bits, fill);
    if (fill == FILL_PARALLEL)
        make_parallel(c, bits);
    if (fill == FILL_ANGLE)
        make_angle(c, bits);
    const unsigned set = checkasm_rand() % 6;
    c->n = gain_counts[set];
    memcpy(c->gain, gain_sets[set], sizeof(c->gain));
}

static void setup_decouple_0(Case *c, int fill)
{
    setup_decouple(c, fill, 16);
}

static void setup_decouple_s(Case *c, int fill)
{
    setup_decouple(c, fill, bits_s());
}

/* Band values of pictures are mostly small (the decoupling's table lookups
 * then stay in cache): the benchmark's. */
static void plausible(Case *c)
{
    for (unsigned x = c->x0; x < c->x1; x++) {
        for (int b = 0; b < 3; b++) {
            c->o.b[b][x] /= 128;
            c->t.b[b][x] = c->o.b[b][x] * (int32_t)(checkasm_rand() % 9) / 8 +
                           (int32_t)(checkasm_rand() % 65) - 32;
        }
    }
}

static void run_decouple(const Case *c, int which)
{
    AdmBandRows r[NGAIN], a[NGAIN];
    for (unsigned g = 0; g < NGAIN; g++) {
        for (int b = 0; b < 3; b++) {
            r[g].b[b] = out[which].r[g][b] + GUARD;
            a[g].b[b] = out[which].a[g][b] + GUARD;
        }
    }
    if (c->e->offset == offsetof(AdmDsp, decouple_0))
        c->dsp[which]->decouple_0(&c->o, &c->t, c->x0, c->x1, c->gain, c->n, r, a);
    else
        c->dsp[which]->decouple_s(&c->o, &c->t, c->x0, c->x1, c->gain, c->n, r, a);
}

/* --- weighting and masking ----------------------------------------------- */

static void pick_q(Case *c, int scale0)
{
    static const uint32_t q0[3] = { 36453, 36453, 49417 };
    const uint32_t how = checkasm_rand() % 4;
    for (int b = 0; b < 3; b++) {
        if (scale0)
            c->q[b] = how == 0 ? q0[b] : how == 1 ? 65535 : checkasm_rand() & 0xffff;
        else if (how < 2)
            c->q[b] = how == 0 ? 0xffffffffu : 0x80000000u >> (b * 3);
        else /* below 2^31 as the weights of pictures are, or any */
            c->q[b] = how == 2 ? checkasm_rand() >> 1 : checkasm_rand();
    }
}

static void setup_csf(Case *c, int fill)
{
    const int scale0 = c->e->offset == offsetof(AdmDsp, csf_0);
    c->x0 = start_of();
    c->x1 = c->x0 + c->w;
    c->o = in_bands((int)c->x0, (int)c->x1, scale0 ? 16 : bits_s(), fill);
    pick_q(c, scale0);
}

static void run_csf(const Case *c, int which)
{
    int32_t *f = out[which].row[2] + GUARD, *cc = out[which].row[3] + GUARD;
    if (c->e->offset == offsetof(AdmDsp, csf_0))
        c->dsp[which]->csf_0(&c->o, c->x0, c->x1, c->q, f, cc);
    else
        c->dsp[which]->csf_s(&c->o, c->x0, c->x1, c->q, f, cc);
}

static void setup_sum3(Case *c, int fill)
{
    c->x0 = start_of();
    c->x1 = c->x0 + c->w;
    c->f = in_i32((int)c->x0 - 1, (int)c->x1 + 1, checkasm_rand() % 2 ? 32 : 20, fill);
}

static void run_sum3(const Case *c, int which)
{
    c->dsp[which]->sum3(c->f, c->x0, c->x1, out[which].row[4] + GUARD);
}

static int64_t half_of(unsigned shift)
{
    return shift ? (int64_t)1 << (shift - 1) : 0;
}

/* The plan's roundings (cube shifts up to those of 16384-wide pictures),
 * and any others now and then. */
static void pick_cm_round(AdmCmRound *r, int scale0, int any)
{
    static const unsigned sub0[3] = { 10, 10, 12 }, sq0[3] = { 29, 29, 30 };
    for (int b = 0; b < 3; b++) {
        r->sub[b] = any ? checkasm_rand() % 16 : scale0 ? sub0[b] : 0;
        r->sq_shift[b] = any ? checkasm_rand() % 41 : scale0 ? sq0[b] : 30;
        r->sq_add[b] = half_of(r->sq_shift[b]);
        r->cub_shift[b] = checkasm_rand() % (any ? 41 : 15);
        r->cub_add[b] = half_of(r->cub_shift[b]);
    }
}

static void setup_cm(Case *c, int fill)
{
    const int scale0 = c->e->offset == offsetof(AdmDsp, cm_0);
    static const unsigned thr_bits[] = { 12, 20, 32 };
    const unsigned tb = thr_bits[checkasm_rand() % 3];
    c->x0 = start_of();
    c->x1 = c->x0 + c->w;
    c->o = in_bands((int)c->x0, (int)c->x1, scale0 ? 16 : bits_s(), fill);
    c->thr.up = in_i32((int)c->x0, (int)c->x1, tb, fill);
    c->thr.mid = in_i32((int)c->x0, (int)c->x1, tb, fill);
    c->thr.down = in_i32((int)c->x0, (int)c->x1, tb, fill);
    c->thr.f = in_i32((int)c->x0, (int)c->x1, tb, fill);
    c->thr.c = in_i32((int)c->x0, (int)c->x1, tb, fill);
    pick_q(c, scale0);
    pick_cm_round(&c->cm, scale0, checkasm_rand() % 8 == 0);
}

static void run_cm(const Case *c, int which)
{
    if (c->e->offset == offsetof(AdmDsp, cm_0))
        c->dsp[which]->cm_0(&c->o, c->q, &c->thr, c->x0, c->x1, &c->cm, out[which].s64);
    else
        c->dsp[which]->cm_s(&c->o, c->q, &c->thr, c->x0, c->x1, &c->cm, out[which].s64);
}

/* --- denominators -------------------------------------------------------- */

static void setup_den(Case *c, int fill)
{
    const int scale0 = c->e->offset == offsetof(AdmDsp, den_0);
    c->x0 = start_of();
    c->x1 = c->x0 + c->w;
    c->o = in_bands((int)c->x0, (int)c->x1, scale0 ? 16 : bits_s(), fill);
    c->den.sq_shift = 30 + checkasm_rand() % 2;
    c->den.sq_add = (uint64_t)1 << c->den.sq_shift;
    c->den.cub_shift = checkasm_rand() % 15;
    c->den.cub_add = (uint64_t)half_of(c->den.cub_shift);
}

static void run_den(const Case *c, int which)
{
    if (c->e->offset == offsetof(AdmDsp, den_0))
        c->dsp[which]->den_0(&c->o, c->x0, c->x1, out[which].u64);
    else
        c->dsp[which]->den_s(&c->o, c->x0, c->x1, &c->den, out[which].u64);
}

/* --- driver -------------------------------------------------------------- */

#define ENTRY(field, setup, run, fills, bench_w) \
    { "adm_" #field, offsetof(AdmDsp, field), setup, run, fills, bench_w }

static const Entry entries[] = {
    ENTRY(dwt_vert_8, setup_vert, run_vert_8, CHECKASM_FILLS, 1920),
    ENTRY(dwt_vert_16, setup_vert, run_vert_16, CHECKASM_FILLS, 1920),
    ENTRY(dwt_horz_0, setup_horz_0, run_horz_0, CHECKASM_FILLS, 1920),
    ENTRY(dwt_vert_s, setup_vert_s, run_vert_s, CHECKASM_FILLS, 960),
    ENTRY(dwt_horz_s, setup_horz_s, run_horz_s, CHECKASM_FILLS, 960),
    ENTRY(decouple_0, setup_decouple_0, run_decouple, FILLS, 960),
    ENTRY(decouple_s, setup_decouple_s, run_decouple, FILLS, 480),
    ENTRY(csf_0, setup_csf, run_csf, CHECKASM_FILLS, 960),
    ENTRY(csf_s, setup_csf, run_csf, CHECKASM_FILLS, 480),
    ENTRY(sum3, setup_sum3, run_sum3, CHECKASM_FILLS, 960),
    ENTRY(cm_0, setup_cm, run_cm, CHECKASM_FILLS, 960),
    ENTRY(cm_s, setup_cm, run_cm, CHECKASM_FILLS, 480),
    ENTRY(den_0, setup_den, run_den, CHECKASM_FILLS, 960),
    ENTRY(den_s, setup_den, run_den, CHECKASM_FILLS, 480),
};

static const void *impl_of(const AdmDsp *d, size_t offset)
{
    void (*fn)(void);
    memcpy(&fn, (const char *)d + offset, sizeof(fn));
    return (const void *)fn;
}

static void bench_c(void *arg)
{
    const Case *c = arg;
    c->e->run(c, 0);
}

static void bench_opt(void *arg)
{
    const Case *c = arg;
    c->e->run(c, 1);
}

static void check_entry(const Entry *e, const CheckasmLevel *level, const AdmDsp *c,
                        const AdmDsp *v)
{
    if (!checkasm_should_check(e->name, level, impl_of(v, e->offset), impl_of(c, e->offset)))
        return;
    Case cs = { .dsp = { c, v }, .e = e };
    for (const unsigned *w = checkasm_widths(); *w && !checkasm_failures_here(); w++) {
        for (unsigned fill = 0; fill < e->fills; fill++) {
            cs.w = *w;
            e->setup(&cs, (int)fill);
            out_clear();
            e->run(&cs, 0);
            e->run(&cs, 1);
            out_compare(e->name, *w, (int)fill);
            inputs_free();
        }
    }
    if (checkasm_benching()) {
        cs.w = e->bench_w;
        e->setup(&cs, CHECKASM_RANDOM);
        if (e->setup == setup_decouple_0 || e->setup == setup_decouple_s) {
            cs.n = 1;
            cs.gain[0] = 100.0;
            plausible(&cs);
        }
        if (e->setup == setup_cm)
            pick_cm_round(&cs.cm, e->offset == offsetof(AdmDsp, cm_0), 0);
        checkasm_bench(e->name, level, bench_c, bench_opt, &cs);
        inputs_free();
    }
}

void checkasm_check_adm(void)
{
    AdmDsp c;
    vmaf_adm_dsp_init_c(&c);
    for (unsigned l = 0; l < checkasm_level_count(); l++) {
        const CheckasmLevel *level = checkasm_level(l);
        AdmDsp v;
        vmaf_adm_dsp_init(&v, level->flags);
        for (size_t i = 0; i < sizeof(entries) / sizeof(entries[0]); i++)
            check_entry(&entries[i], level, &c, &v);
    }
}
