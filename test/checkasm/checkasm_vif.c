/*
 * checkasm: the integer VIF row functions (core/src/feature/vif/vif_dsp.h),
 * every entry of each level's table that is not the C one, at every width
 * and filter, on random, extreme and flat data over each contract's whole
 * domain (any shifts it admits, 16-bit samples at full range, moments of
 * every kind), then whole frames of odd sizes through vmaf_vif_compute_dsp.
 * Inputs are allocated at exactly the size an entry may read (the
 * sanitizer build catches over-reads); outputs have guard zones, compared
 * too.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkasm.h"
#include "cpu.h"
#include "feature/vif/vif.h"
#include "feature/vif/vif_dsp.h"

#define GUARD 32
#define MAXW 4097
#define OUTW (GUARD + MAXW + GUARD)

/* The outputs of one call; out[0] is C's, out[1] the entry's. */
typedef struct Out {
    uint16_t r16[2][OUTW];
    uint32_t r32[5][OUTW];
    VifAccum acc;
} Out;

static Out out[2];

static VifStatRow out_row(Out *o)
{
    return (VifStatRow){o->r16[0] + GUARD, o->r16[1] + GUARD, o->r32[0] + GUARD,
                        o->r32[1] + GUARD, o->r32[2] + GUARD};
}

static VifMoments out_moments(Out *o)
{
    return (VifMoments){o->r32[0] + GUARD, o->r32[1] + GUARD, o->r32[2] + GUARD,
                        o->r32[3] + GUARD, o->r32[4] + GUARD};
}

static void out_clear(void)
{
    memset(out, 0x5a, sizeof(out));
}

static void out_compare(const char *what, unsigned w, unsigned f, int fill)
{
    if (memcmp(&out[0], &out[1], sizeof(Out)))
        checkasm_fail("%s, width %u, filter %u, fill %d: outputs differ (or a write outside "
                      "them)", what, w, f, fill);
}

/* Inputs at exactly [lo, hi) around index 0, freed by inputs_free(). */
static void *allocs[64];
static unsigned n_allocs;

static void *in_alloc(int lo, int hi, size_t elem)
{
    char *p = malloc((size_t)(hi - lo) * elem + 1);
    if (!p || n_allocs == sizeof(allocs) / sizeof(allocs[0])) {
        fprintf(stderr, "checkasm_vif: out of memory\n");
        exit(1);
    }
    allocs[n_allocs++] = p;
    return p - (ptrdiff_t)lo * (ptrdiff_t)elem;
}

static void inputs_free(void)
{
    while (n_allocs)
        free(allocs[--n_allocs]);
}

static uint16_t *in_u16(int lo, int hi, unsigned bits, int fill)
{
    uint16_t *p = in_alloc(lo, hi, sizeof(uint16_t));
    checkasm_fill_u16(p + lo, (size_t)(hi - lo), bits, (enum CheckasmFill)fill);
    return p;
}

static uint32_t *in_u32(int lo, int hi, int fill)
{
    uint32_t *p = in_alloc(lo, hi, sizeof(uint32_t));
    checkasm_fill_i32((int32_t *)p + lo, (size_t)(hi - lo), 32, (enum CheckasmFill)fill);
    return p;
}

/* One case: the inputs of an entry and the two tables it runs with. */
typedef struct Case {
    const VifDsp *dsp[2];
    unsigned w, f, bpc, sh_mu, sh_sq, j0, n;
    const void *ref[VIF_MAX_TAPS], *dis[VIF_MAX_TAPS];
    VifStatRow in;
    const uint32_t *mom[5];
    const uint16_t *in_ref, *in_dis;
    VifGain gain;
} Case;

/* --- vertical passes ----------------------------------------------------- */

/* The source rows of a vertical pass, w samples each; rows repeat now and
 * then, as at the picture's edges. */
static void setup_rows(Case *c, int fill)
{
    const unsigned taps = vif_taps(c->f);
    for (unsigned k = 0; k < taps; k++) {
        for (int s = 0; s < 2; s++) {
            const void **row = s ? &c->dis[k] : &c->ref[k];
            if (k && checkasm_rand() % 5 == 0) {
                *row = s ? c->dis[checkasm_rand() % k] : c->ref[checkasm_rand() % k];
            } else if (c->bpc == 8) {
                uint8_t *p = in_alloc(0, (int)c->w, 1);
                checkasm_fill_u8(p, c->w, (enum CheckasmFill)fill);
                *row = p;
            } else {
                *row = in_u16(0, (int)c->w, c->bpc, fill);
            }
        }
    }
}

/* The pyramid's shifts (bpc and 2(bpc - 8) at scale 0, 16 above), and any
 * the contract admits now and then. */
static void pick_shifts(Case *c, int dec)
{
    const int any = checkasm_rand() % 3 == 0;
    c->sh_mu = any ? 8 + checkasm_rand() % 9 : c->f ? 16 : c->bpc;
    c->sh_sq = any ? checkasm_rand() % 17 : c->f ? 16 : 2 * (c->bpc - 8);
    if (dec) /* scale 0 decimates with filter 1 */
        c->sh_mu = any ? c->sh_mu : c->f == 1 ? c->bpc : 16;
}

static void run_stat_v(const Case *c, int which)
{
    const VifStatRow o = out_row(&out[which]);
    if (c->bpc == 8)
        c->dsp[which]->stat_v_8((const uint8_t *const *)c->ref, (const uint8_t *const *)c->dis,
                                c->f, c->w, c->sh_mu, c->sh_sq, &o);
    else
        c->dsp[which]->stat_v_16((const uint16_t *const *)c->ref,
                                 (const uint16_t *const *)c->dis, c->f, c->w, c->sh_mu,
                                 c->sh_sq, &o);
}

static void run_dec_v(const Case *c, int which)
{
    uint16_t *r = out[which].r16[0] + GUARD, *d = out[which].r16[1] + GUARD;
    if (c->bpc == 8)
        c->dsp[which]->dec_v_8((const uint8_t *const *)c->ref, (const uint8_t *const *)c->dis,
                               c->f, c->w, c->sh_mu, r, d);
    else
        c->dsp[which]->dec_v_16((const uint16_t *const *)c->ref,
                                (const uint16_t *const *)c->dis, c->f, c->w, c->sh_mu, r, d);
}

/* --- horizontal passes --------------------------------------------------- */

/* A padded statistic row readable at exactly [j0 - H, j0 + n + H). */
static void setup_stat_h(Case *c, int fill)
{
    const int half = (int)vif_taps(c->f) / 2;
    c->j0 = checkasm_rand() % 2 ? 0 : checkasm_rand() % 37;
    const int lo = (int)c->j0 - half, hi = (int)(c->j0 + c->w) + half;
    c->n = c->w;
    c->in.mu1 = in_u16(lo, hi, 16, fill);
    c->in.mu2 = in_u16(lo, hi, 16, fill);
    c->in.xx = in_u32(lo, hi, fill);
    c->in.yy = in_u32(lo, hi, fill);
    c->in.xy = in_u32(lo, hi, fill);
}

static void run_stat_h(const Case *c, int which)
{
    const VifMoments m = out_moments(&out[which]);
    c->dsp[which]->stat_h(&c->in, c->f, c->j0, c->n, &m);
}

/* Decimation rows of 2n or 2n + 1 samples, padded: [-H, len + H). */
static void setup_dec_h(Case *c, int fill)
{
    const int half = (int)vif_taps(c->f) / 2;
    const int len = (int)(2 * c->w + checkasm_rand() % 2);
    c->n = c->w;
    c->in_ref = in_u16(-half, len + half, 16, fill);
    c->in_dis = in_u16(-half, len + half, 16, fill);
}

static void run_dec_h(const Case *c, int which)
{
    c->dsp[which]->dec_h(c->in_ref, c->in_dis, c->f, c->n, out[which].r16[0] + GUARD,
                         out[which].r16[1] + GUARD);
}

/* --- per-pixel statistic ------------------------------------------------- */

static const double gain_sets[][VIF_MAX_SETS] = {
    { 100.0 }, { 100.0, 1.0 }, { 1.0 }, { 1.0, 100.0 }, { 2.5, 100.0, 1.0, 7.25 },
    { 100.0, 1.0, 1.5, 1.0, 3.0, 100.0, 1.25, 50.0 }, /* repeats, a set of every size */
};
static const unsigned gain_counts[] = { 1, 2, 1, 2, 4, 8 };

static void pick_gains(Case *c)
{
    const unsigned set = checkasm_rand() % 6;
    c->gain.n = gain_counts[set];
    memcpy(c->gain.limit, gain_sets[set], sizeof(c->gain.limit));
    c->gain.min = c->gain.limit[0];
    for (unsigned p = 1; p < c->gain.n; p++)
        c->gain.min = c->gain.limit[p] < c->gain.min ? c->gain.limit[p] : c->gain.min;
}

static uint32_t round_product(uint32_t a, uint32_t b)
{
    return (uint32_t)(((uint64_t)a * b + 0x80000000u) >> 32);
}

/* A variance as the statistic sees them: near the 2.0 threshold (both
 * sides, negative too), small, or up to the top of int32. */
static int32_t some_variance(void)
{
    switch (checkasm_rand() % 4) {
    case 0: return 131072 + (int32_t)(checkasm_rand() % 4096) - 3072;
    case 1: return (int32_t)(checkasm_rand() >> (checkasm_rand() % 32));
    default: return (int32_t)(checkasm_rand() >> (1 + checkasm_rand() % 14));
    }
}

/* Moments of pixels: means and variances such that dis is ref scaled by a
 * gain around the limits (g below and above 1, 100 now and then), with
 * noise; for the other fills, the raw values as they come. */
static void plausible_moments(uint32_t *m[5], unsigned n)
{
    static const double gains[] = { 0.0, 0.5, 0.99, 1.0, 1.01, 1.7, 3.0, 99.0, 150.0, -0.8 };
    for (unsigned i = 0; i < n; i++) {
        const uint32_t mu1 = checkasm_rand(), mu2 = checkasm_rand() >> (checkasm_rand() % 2);
        const int32_t s1 = some_variance();
        const double g = gains[checkasm_rand() % 10];
        const int64_t s12 = (int64_t)(g * s1) + (int32_t)(checkasm_rand() % 64) - 32;
        const int64_t s2 = (int64_t)(g * g * s1) + (int32_t)(checkasm_rand() % 256) - 64;
        m[0][i] = mu1;
        m[1][i] = mu2;
        m[2][i] = round_product(mu1, mu1) + (uint32_t)s1;
        m[3][i] = round_product(mu2, mu2) + (uint32_t)s2;
        m[4][i] = round_product(mu1, mu2) + (uint32_t)s12;
    }
}

static void setup_stat_px(Case *c, int fill)
{
    uint32_t *m[5];
    for (int q = 0; q < 5; q++)
        m[q] = in_u32(0, (int)c->w, fill);
    if (fill == CHECKASM_RANDOM && checkasm_rand() % 4)
        plausible_moments(m, c->w);
    memcpy(c->mom, m, sizeof(m));
    c->n = c->w;
    pick_gains(c);
}

static void run_stat_px(const Case *c, int which)
{
    const VifMoments m = {(uint32_t *)c->mom[0], (uint32_t *)c->mom[1], (uint32_t *)c->mom[2],
                          (uint32_t *)c->mom[3], (uint32_t *)c->mom[4]};
    VifAccum *acc = &out[which].acc;
    memset(acc, 0, sizeof(*acc)); /* the call adds to what is there */
    acc->den_log = 7;
    acc->num_non_log = -3;
    for (unsigned p = 0; p < VIF_MAX_SETS; p++)
        acc->num_log[p] = (int64_t)p - 5;
    c->dsp[which]->stat_px(&m, c->n, &c->gain, acc);
}

/* --- the entries --------------------------------------------------------- */

static void setup_stat_v(Case *c, int fill)
{
    setup_rows(c, fill);
    pick_shifts(c, 0);
}

static void setup_dec_v(Case *c, int fill)
{
    setup_rows(c, fill);
    pick_shifts(c, 1);
}

typedef struct Entry {
    const char *name;
    size_t offset; /* of the function pointer in VifDsp */
    unsigned bpc[3], n_bpc, filters, repeats, bench_w, bench_f;
    void (*setup)(Case *c, int fill);
    void (*run)(const Case *c, int which);
} Entry;

static const Entry entries[] = {
    { "vif_stat_v_8", offsetof(VifDsp, stat_v_8), { 8 }, 1, 4, 1, 1920, 0, setup_stat_v,
      run_stat_v },
    { "vif_stat_v_16", offsetof(VifDsp, stat_v_16), { 10, 12, 16 }, 3, 4, 1, 1920, 0,
      setup_stat_v, run_stat_v },
    { "vif_stat_h", offsetof(VifDsp, stat_h), { 16 }, 1, 4, 1, 256, 0, setup_stat_h,
      run_stat_h },
    { "vif_stat_px", offsetof(VifDsp, stat_px), { 16 }, 1, 1, 4, 256, 0, setup_stat_px,
      run_stat_px },
    { "vif_dec_v_8", offsetof(VifDsp, dec_v_8), { 8 }, 1, 4, 1, 1920, 1, setup_dec_v,
      run_dec_v },
    { "vif_dec_v_16", offsetof(VifDsp, dec_v_16), { 10, 12, 16 }, 3, 4, 1, 1920, 1,
      setup_dec_v, run_dec_v },
    { "vif_dec_h", offsetof(VifDsp, dec_h), { 16 }, 1, 4, 1, 960, 1, setup_dec_h, run_dec_h },
};

static const void *entry_of(const VifDsp *dsp, const Entry *e)
{
    const void *impl;
    memcpy(&impl, (const char *)dsp + e->offset, sizeof(impl));
    return impl;
}

static const Entry *bench_entry;

static void bench_c(void *arg)
{
    bench_entry->run(arg, 0);
}

static void bench_opt(void *arg)
{
    bench_entry->run(arg, 1);
}

static void bench(const Entry *e, const CheckasmLevel *level, Case *c)
{
    c->w = e->bench_w;
    c->f = e->bench_f;
    c->bpc = e->bpc[0];
    e->setup(c, CHECKASM_RANDOM);
    c->sh_mu = c->bpc; /* scale 0's */
    c->sh_sq = 2 * (c->bpc - 8);
    char name[64];
    snprintf(name, sizeof(name), "%s%s", e->name, c->bpc == 10 ? " (10 bit)" : "");
    bench_entry = e;
    if (e->run == run_stat_px) {
        c->gain = (VifGain){.limit = {100.0}, .min = 100.0, .n = 1};
        checkasm_bench(name, level, bench_c, bench_opt, c);
        c->gain = (VifGain){.limit = {100.0, 1.0}, .min = 1.0, .n = 2};
        snprintf(name, sizeof(name), "%s (gains 100, 1)", e->name);
    }
    checkasm_bench(name, level, bench_c, bench_opt, c);
    inputs_free();
}

static void check_entry(const Entry *e, const CheckasmLevel *level, const VifDsp *dsp[2])
{
    if (!checkasm_should_check(e->name, level, entry_of(dsp[1], e), entry_of(dsp[0], e)))
        return;
    Case c = {.dsp = {dsp[0], dsp[1]}};
    for (const unsigned *w = checkasm_widths(); *w && !checkasm_failures_here(); w++)
        for (unsigned f = 0; f < e->filters; f++)
            for (int fill = 0; fill < CHECKASM_FILLS; fill++)
                for (unsigned r = 0; r < e->n_bpc * e->repeats; r++) {
                    c.w = *w;
                    c.f = f;
                    c.bpc = e->bpc[r % e->n_bpc];
                    e->setup(&c, fill);
                    out_clear();
                    e->run(&c, 0);
                    e->run(&c, 1);
                    out_compare(e->name, c.w, f, fill);
                    inputs_free();
                }
    if (checkasm_benching())
        bench(e, level, &c);
}

/* --- whole frames -------------------------------------------------------- */

/* A textured picture with flat patches; dis is ref scaled, shifted and
 * noisy, so that every branch of the statistic is taken. */
static void make_frame(void *ref, void *dis, unsigned w, unsigned h, unsigned bpc, int fill)
{
    const uint32_t max = (1u << bpc) - 1;
    for (unsigned i = 0; i < w * h; i++) {
        const unsigned x = i % w, y = i / w;
        uint32_t a = checkasm_rand() & max, b = checkasm_rand() & max;
        if (fill == CHECKASM_RANDOM) {
            const int flat = ((x / 7) ^ (y / 5)) & 1;
            a = flat ? (max / 3) : ((x * 37 + y * 11) * max / (w * 37 + h * 11)) ^ (a >> 3);
            b = flat ? a + (checkasm_rand() % 2) : a / 2 + (b >> 4) + (a >> 2);
            b = b > max ? max : b;
        } else if (fill == CHECKASM_EXTREME) {
            a = a & 1 ? max : 0;
            b = b & 1 ? max : 0;
        } else {
            a = b = max / 2 + (x & 1);
        }
        if (bpc == 8) {
            ((uint8_t *)ref)[i] = (uint8_t)a;
            ((uint8_t *)dis)[i] = (uint8_t)b;
        } else {
            ((uint16_t *)ref)[i] = (uint16_t)a;
            ((uint16_t *)dis)[i] = (uint16_t)b;
        }
    }
}

static void compare_frame(const VifDsp *dsp[2], unsigned w, unsigned h, unsigned bpc, int fill)
{
    static const VifParams params[3] = {
        { .enhn_gain_limit = 100.0 }, { .enhn_gain_limit = 1.0 },
        { .enhn_gain_limit = 100.0, .skip_scale0 = true },
    };
    const size_t bytes = (size_t)w * h * (bpc > 8 ? 2 : 1), size = vmaf_vif_scratch_size(w, h);
    void *ref = malloc(bytes), *dis = malloc(bytes), *scratch = malloc(size);
    VifScores s[2][3];
    if (!ref || !dis || !scratch) {
        fprintf(stderr, "checkasm_vif: out of memory\n");
        exit(1);
    }
    make_frame(ref, dis, w, h, bpc, fill);
    memset(s, 0, sizeof(s));
    const ptrdiff_t stride = (ptrdiff_t)(bytes / h);
    for (int k = 0; k < 2; k++)
        if (vmaf_vif_compute_dsp(dsp[k], ref, stride, dis, stride, w, h, bpc, params, 3,
                                 scratch, size, s[k]))
            checkasm_fail("frame %ux%u %u bits: refused", w, h, bpc);
    if (memcmp(s[0], s[1], sizeof(s[0])))
        checkasm_fail("frame %ux%u %u bits, fill %d: scores differ", w, h, bpc, fill);
    free(ref);
    free(dis);
    free(scratch);
}

static void check_frames(const CheckasmLevel *level, const VifDsp *dsp[2])
{
    static const unsigned sizes[][2] = {
        { 8, 8 }, { 9, 11 }, { 15, 8 }, { 8, 15 }, { 16, 17 }, { 33, 19 }, { 64, 9 },
        { 100, 37 }, { 257, 13 }, { 300, 23 }, { 533, 21 }, { 1031, 11 }, { 12, 301 },
        { 1920, 17 },
    };
    static const unsigned depths[] = { 8, 10, 12, 16 };
    if (!checkasm_should_check("vif_frame", level, dsp[1], dsp[0]))
        return;
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
        for (int d = 0; d < 4; d++)
            for (int fill = 0; fill < CHECKASM_FILLS; fill++)
                compare_frame(dsp, sizes[i][0], sizes[i][1], depths[d], fill);
}

void checkasm_check_vif(void)
{
    static VifDsp tables[9];
    vmaf_vif_dsp_init(&tables[0], 0);
    for (unsigned l = 0; l < checkasm_level_count() && l < 8; l++) {
        const CheckasmLevel *level = checkasm_level(l);
        VifDsp *t = &tables[l + 1];
        vmaf_vif_dsp_init(t, level->flags);
        const VifDsp *dsp[2] = { &tables[0], t };
        for (size_t e = 0; e < sizeof(entries) / sizeof(entries[0]); e++)
            check_entry(&entries[e], level, dsp);
        check_frames(level, dsp);
    }
}
