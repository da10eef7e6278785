/*
 * ADM numerics without golden data: refusals and their reasons, the
 * smallest pictures (values must be finite and plausible; the reference
 * itself reads out of bounds there), strides, several parameter sets in one
 * call against one at a time, and the generated constants against libm.
 * Built into the ASan/UBSan configuration it must run clean; scratch and
 * pictures are allocated at their exact sizes so that overruns show.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "feature/adm/adm.h"
#include "feature/adm/adm_csf.h"
#include "feature/adm/adm_dsp.h"
#include "feature/adm/adm_tables.h"

static int failures;

#define CHECK(cond, ...)                                                                   \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                           \
            fprintf(stderr, __VA_ARGS__);                                                  \
            fprintf(stderr, "\n");                                                         \
            failures++;                                                                    \
        }                                                                                  \
    } while (0)

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint32_t rnd(void)
{
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return (uint32_t)((rng * 0x2545F4914F6CDD1Dull) >> 32);
}

/* ---- pictures ----------------------------------------------------------- */

typedef struct Pic {
    unsigned w, h, bpc;
    void *data; /* exactly w*h samples */
} Pic;

static Pic pic_new(unsigned w, unsigned h, unsigned bpc)
{
    Pic p = {w, h, bpc, malloc((size_t)w * h * (bpc > 8 ? 2 : 1))};
    return p;
}

static ptrdiff_t pic_stride(const Pic *p)
{
    return (ptrdiff_t)p->w * (p->bpc > 8 ? 2 : 1);
}

static void pic_set(Pic *p, size_t i, unsigned v)
{
    if (p->bpc > 8)
        ((uint16_t *)p->data)[i] = (uint16_t)v;
    else
        ((uint8_t *)p->data)[i] = (uint8_t)v;
}

/* A gradient with texture; dis = ref plus noise of the given amplitude. */
static void fill_pair(Pic *ref, Pic *dis, unsigned noise)
{
    const unsigned max = (1u << ref->bpc) - 1;
    for (unsigned y = 0; y < ref->h; y++) {
        for (unsigned x = 0; x < ref->w; x++) {
            const size_t i = (size_t)y * ref->w + x;
            const unsigned base = ((x * 7 + y * 5) % 64 + (rnd() % 32)) * max / 96;
            int d = (int)base + (noise ? (int)(rnd() % (2 * noise + 1)) - (int)noise : 0);
            pic_set(ref, i, base);
            pic_set(dis, i, d < 0 ? 0 : d > (int)max ? max : (unsigned)d);
        }
    }
}

static int score(const Pic *ref, const Pic *dis, const AdmParams *p, unsigned n, AdmScores *out)
{
    const size_t size = vmaf_adm_scratch_size(ref->w, ref->h, n);
    void *scratch = malloc(size);
    const int err = vmaf_adm_compute(ref->data, pic_stride(ref), dis->data, pic_stride(dis),
                                     ref->w, ref->h, ref->bpc, p, n, scratch, size, out);
    free(scratch);
    return err;
}

static int all_finite(const AdmScores *s)
{
    const double *v = (const double *)s;
    for (size_t i = 0; i < sizeof(*s) / sizeof(double); i++) {
        if (!isfinite(v[i]))
            return 0;
    }
    return 1;
}

/* ---- refusals ------------------------------------------------------------ */

static void expect_refused(unsigned w, unsigned h, unsigned bpc, const AdmParams *p,
                           const char *what)
{
    char why[256] = "";
    const int err = vmaf_adm_check(w, h, bpc, p, why, sizeof(why));
    CHECK(err == -EINVAL && why[0], "%s: not refused (%d, '%s')", what, err, why);
}

static void test_refusals(void)
{
    AdmParams p;
    vmaf_adm_params_default(&p);
    CHECK(!vmaf_adm_check(17, 17, 8, &p, NULL, 0), "17x17 refused");
    CHECK(!vmaf_adm_check(16384, 17, 16, &p, NULL, 0), "16384x17 refused");
    expect_refused(1, 1, 8, &p, "1x1");
    expect_refused(16, 17, 8, &p, "16x17");
    expect_refused(17, 16, 8, &p, "17x16");
    expect_refused(16385, 17, 8, &p, "16385x17");
    expect_refused(64, 64, 7, &p, "bpc 7");
    expect_refused(64, 64, 17, &p, "bpc 17");
    AdmParams q = p;
    q.norm_view_dist = 1.0;
    expect_refused(64, 64, 8, &q, "adm_norm_view_dist 1.0");
    q = p;
    q.ref_display_height = 720; /* 3 x 720 < 3240 */
    expect_refused(64, 64, 8, &q, "rdh 720 at 3H");
    q = p;
    q.csf_mode = ADM_CSF_BLEND;
    q.norm_view_dist = 4.0;
    expect_refused(64, 64, 8, &q, "blend weights at 4H");
    q = p;
    q.enhn_gain_limit = NAN;
    expect_refused(64, 64, 8, &q, "NaN gain limit");
    q = p;
    q.enhn_gain_limit = 0.5;
    expect_refused(64, 64, 8, &q, "gain limit 0.5");
    q = p;
    q.csf_mode = 4;
    expect_refused(64, 64, 8, &q, "csf mode 4");
    q = p;
    q.noise_weight = 1501;
    expect_refused(64, 64, 8, &q, "noise weight 1501");
    CHECK(vmaf_adm_view_supported(1.5, 2160), "1.5 x 2160 unsupported");
    CHECK(!vmaf_adm_view_supported(1.0, 1080), "1.0 x 1080 supported");
    CHECK(!vmaf_adm_scratch_size(16, 64, 1) && !vmaf_adm_scratch_size(64, 64, 0) &&
              !vmaf_adm_scratch_size(64, 64, ADM_MAX_PARAM_SETS + 1),
          "scratch size for a refused call");
    CHECK(vmaf_adm_params_share_pass(&p, &p), "default sets cannot share");
    q = p;
    q.norm_view_dist = 1.0;
    CHECK(!vmaf_adm_params_share_pass(&p, &q), "an invalid set shares");
}

static void test_call_refusals(void)
{
    Pic ref = pic_new(32, 32, 8), dis = pic_new(32, 32, 8);
    fill_pair(&ref, &dis, 3);
    AdmParams p;
    vmaf_adm_params_default(&p);
    const size_t size = vmaf_adm_scratch_size(32, 32, 1);
    void *scratch = malloc(size);
    AdmScores out, untouched;
    memset(&out, 0x5a, sizeof(out));
    untouched = out;
#define REFUSED(call) CHECK((call) == -EINVAL && !memcmp(&out, &untouched, sizeof(out)), #call)
    REFUSED(vmaf_adm_compute(NULL, 32, dis.data, 32, 32, 32, 8, &p, 1, scratch, size, &out));
    REFUSED(vmaf_adm_compute(ref.data, 31, dis.data, 32, 32, 32, 8, &p, 1, scratch, size, &out));
    REFUSED(vmaf_adm_compute(ref.data, 32, dis.data, -31, 32, 32, 8, &p, 1, scratch, size, &out));
    REFUSED(vmaf_adm_compute(ref.data, 32, dis.data, 32, 32, 32, 8, &p, 1, scratch, size - 1,
                             &out));
    REFUSED(vmaf_adm_compute(ref.data, 32, dis.data, 32, 32, 32, 8, &p, 0, scratch, size, &out));
    REFUSED(vmaf_adm_compute(ref.data, 32, dis.data, 32, 16, 32, 8, &p, 1, scratch, size, &out));
    REFUSED(vmaf_adm_compute(ref.data, 32, dis.data, 32, 32, 32, 10, &p, 1, scratch, size, &out));
    AdmParams bad = p;
    bad.norm_view_dist = 1.0;
    REFUSED(vmaf_adm_compute(ref.data, 32, dis.data, 32, 32, 32, 8, &bad, 1, scratch, size, &out));
#undef REFUSED
    free(scratch);
    free(ref.data);
    free(dis.data);
}

/* ---- small and odd pictures ------------------------------------------------ */

static void test_size(unsigned w, unsigned h, unsigned bpc)
{
    Pic ref = pic_new(w, h, bpc), dis = pic_new(w, h, bpc);
    AdmParams p;
    vmaf_adm_params_default(&p);
    AdmScores same, noisy;
    fill_pair(&ref, &dis, 0);
    CHECK(!score(&ref, &ref, &p, 1, &same), "%ux%u@%u: identical refused", w, h, bpc);
    CHECK(all_finite(&same) && fabs(same.adm2 - 1.0) < 1e-3 && same.aim == 0.0,
          "%ux%u@%u: identical pictures give adm2 %.17g, aim %.17g", w, h, bpc, same.adm2,
          same.aim);
    fill_pair(&ref, &dis, 1u << (bpc - 4));
    CHECK(!score(&ref, &dis, &p, 1, &noisy), "%ux%u@%u: refused", w, h, bpc);
    CHECK(all_finite(&noisy) && noisy.adm2 > 0.0 && noisy.adm2 < 1.0 && noisy.aim > 0.0,
          "%ux%u@%u: noise gives adm2 %.17g, aim %.17g", w, h, bpc, noisy.adm2, noisy.aim);
    free(ref.data);
    free(dis.data);
}

static void test_small_sizes(void)
{
    static const unsigned sizes[][2] = {{17, 17}, {18, 40}, {40, 18}, {17, 33}, {31, 19},
                                        {32, 32}, {33, 35}, {39, 41}, {48, 48}, {65, 17},
                                        {16384, 17}, {17, 16384}};
    static const unsigned depths[] = {8, 10, 12, 16};
    for (unsigned i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        for (unsigned d = 0; d < 4; d++)
            test_size(sizes[i][0], sizes[i][1], depths[d]);
    }
}

/* A bottom-up picture (negative stride) is the same picture. */
static void test_negative_stride(void)
{
    const unsigned w = 45, h = 37;
    Pic ref = pic_new(w, h, 10), dis = pic_new(w, h, 10), flip = pic_new(w, h, 10);
    fill_pair(&ref, &dis, 20);
    for (unsigned y = 0; y < h; y++)
        memcpy((uint16_t *)flip.data + (size_t)(h - 1 - y) * w,
               (uint16_t *)dis.data + (size_t)y * w, w * 2);
    AdmParams p;
    vmaf_adm_params_default(&p);
    AdmScores a, b;
    const size_t size = vmaf_adm_scratch_size(w, h, 1);
    void *scratch = malloc(size);
    const uint16_t *last = (const uint16_t *)flip.data + (size_t)(h - 1) * w;
    CHECK(!score(&ref, &dis, &p, 1, &a), "top-down refused");
    CHECK(!vmaf_adm_compute(ref.data, 2 * w, last, -2 * (ptrdiff_t)w, w, h, 10, &p, 1, scratch,
                            size, &b),
          "bottom-up refused");
    CHECK(!memcmp(&a, &b, sizeof(a)), "bottom-up dis gives other values");
    free(scratch);
    free(ref.data);
    free(dis.data);
    free(flip.data);
}

/* ---- several sets in one call ---------------------------------------------- */

static AdmParams random_set(void)
{
    static const double gains[] = {1.0, 1.2, 37.5, 100.0};
    static const double views[][2] = {{3.0, 1080}, {1.5, 2160}, {5.0, 1080}, {3.0, 2160}};
    AdmParams p;
    vmaf_adm_params_default(&p);
    p.enhn_gain_limit = gains[rnd() % 4];
    p.csf_mode = (int)(rnd() % 4);
    const unsigned v = rnd() % 4;
    p.norm_view_dist = views[v][0];
    p.ref_display_height = (int)views[v][1];
    p.csf_scale = (rnd() % 3) * 0.75;
    p.csf_diag_scale = (rnd() % 3) * 0.5;
    p.noise_weight = (rnd() % 3) * 0.02;
    p.dlm_weight = (rnd() % 5) * 0.25;
    p.min_val = (rnd() % 2) * 0.5;
    p.skip_scale0 = rnd() % 4 == 0;
    p.skip_aim = rnd() % 4 == 0;
    return p;
}

static void test_shared_sets(void)
{
    for (unsigned round = 0; round < 12; round++) {
        const unsigned w = 17 + rnd() % 120, h = 17 + rnd() % 90, bpc = round % 2 ? 8 : 12;
        const unsigned n = 1 + rnd() % ADM_MAX_PARAM_SETS;
        Pic ref = pic_new(w, h, bpc), dis = pic_new(w, h, bpc);
        fill_pair(&ref, &dis, 1u << (bpc - 5));
        AdmParams set[ADM_MAX_PARAM_SETS];
        AdmScores all[ADM_MAX_PARAM_SETS], one;
        for (unsigned i = 0; i < n; i++)
            set[i] = random_set();
        CHECK(!score(&ref, &dis, set, n, all), "%u sets refused", n);
        for (unsigned i = 0; i < n; i++) {
            CHECK(!score(&ref, &dis, &set[i], 1, &one) && !memcmp(&one, &all[i], sizeof(one)),
                  "%ux%u: set %u of %u differs alone", w, h, i, n);
            CHECK(all_finite(&all[i]), "%ux%u: set %u (csf %d) not finite", w, h, i,
                  set[i].csf_mode);
        }
        free(ref.data);
        free(dis.data);
    }
}

/* ---- constants ----------------------------------------------------------- */

static int same_float(float a, float b)
{
    return !memcmp(&a, &b, sizeof(a));
}

static int same_double(double a, double b)
{
    return !memcmp(&a, &b, sizeof(a));
}

static void test_constants(void)
{
    for (int mode = 0; mode < 4; mode++) {
        for (int s = 0; s < 4; s++) {
            for (int d = 0; d < 2; d++) {
                float w = 0.0f;
                if (mode == ADM_CSF_WATSON)
                    w = vmaf_adm_watson_weight(s, d ? 2 : 1, 3.0, 1080);
                else if (mode == ADM_CSF_BARTEN)
                    w = vmaf_adm_barten_weight(s, 3.0, 1080, 1.0);
                else
                    vmaf_adm_blend_weight(mode, s, d, 3.0, 1080, &w);
                const AdmCsfTable *t = &vmaf_adm_csf_default[mode];
                CHECK(same_float(t->weight[s][d], w), "mode %d scale %d band %d: weight %a, libm %a",
                      mode, s, d, t->weight[s][d], w);
                CHECK(same_double(t->cube[s][d], pow(w, 3)), "mode %d scale %d: cube %a, libm %a",
                      mode, s, t->cube[s][d], pow(w, 3));
            }
        }
    }
    CHECK(same_float(vmaf_adm_cos1deg_sq, vmaf_adm_cos1deg_sq_libm()), "cos(1 deg)^2 %a, libm %a",
          vmaf_adm_cos1deg_sq, vmaf_adm_cos1deg_sq_libm());
    /* the table and the run-time path give the same weights */
    AdmParams p;
    vmaf_adm_params_default(&p);
    AdmWeights table, runtime;
    vmaf_adm_weights(&p, &table);
    p.norm_view_dist = 1.5;
    p.ref_display_height = 2160;
    vmaf_adm_weights(&p, &runtime);
    CHECK(!memcmp(&table, &runtime, sizeof(table)), "1.5 x 2160 differs from 3 x 1080");
    CHECK(table.q[0][0] == 36453 && table.q[0][2] == 49417, "scale-0 fixed point");
    const int32_t *lut = vmaf_adm_div_lut();
    CHECK(lut[32768 + 1] == 1 << 30 && lut[32768 - 3] == -357913941 && lut[65536] == 32768,
          "division table");
}

int main(void)
{
    test_refusals();
    test_call_refusals();
    test_small_sizes();
    test_negative_stride();
    test_shared_sets();
    test_constants();
    if (failures)
        fprintf(stderr, "%d check(s) failed\n", failures);
    else
        printf("adm numerics: all checks passed\n");
    return failures != 0;
}
