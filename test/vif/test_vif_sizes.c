/*
 * Integer VIF sizes, refusals and geometry: the size check and its
 * reasons, every argument refused without a crash, and vmaf_vif_compute()
 * against the literal model (vif_model.c) on small, odd and single-pixel-
 * scale planes at every bit depth, with several pictures from smooth to
 * extreme, shared parameter sets, negative strides and unaligned scratch.
 * The scratch is allocated to the exact size asked for, so a build with
 * -Db_sanitize=address catches any access outside it.
 *
 * Usage: test_vif_sizes [seed]
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "feature/vif/vif.h"
#include "feature/vif/vif_tables.h"
#include "vif_model.h"

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

static uint64_t rng;

static uint32_t rnd(void)
{
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return (uint32_t)((rng * 0x2545F4914F6CDD1DULL) >> 32);
}

enum { PIC_NOISE, PIC_SMOOTH, PIC_ENHANCED, PIC_FLAT, PIC_CHECKER, PIC_KINDS };

static unsigned clampu(long v, unsigned max)
{
    return v < 0 ? 0 : v > (long)max ? max : (unsigned)v;
}

/* Sample (i, j) of picture kind k; which = 0 ref, 1 dis. */
static unsigned sample(int kind, int which, unsigned i, unsigned j, unsigned max)
{
    const long base = (long)((i * 7 + j * 3) % 97) * max / 97;
    switch (kind) {
    case PIC_NOISE: return rnd() % (max + 1);
    case PIC_SMOOTH: return clampu(base + (which ? (long)(rnd() % 9) - 4 : 0), max);
    case PIC_ENHANCED: return clampu(which ? 2 * base - (long)max / 2 : base, max);
    case PIC_FLAT: return which ? max / 3 : max / 2;
    default: return ((i ^ j) & 1) != (unsigned)which ? max : 0;
    }
}

static void fill(void *p, unsigned w, unsigned h, unsigned bpc, int kind, int which)
{
    const unsigned max = (1u << bpc) - 1;
    for (unsigned i = 0; i < h; i++)
        for (unsigned j = 0; j < w; j++) {
            const unsigned v = sample(kind, which, i, j, max);
            if (bpc > 8)
                ((uint16_t *)p)[(size_t)i * w + j] = (uint16_t)v;
            else
                ((uint8_t *)p)[(size_t)i * w + j] = (uint8_t)v;
        }
}

static bool same_f32(double a, float b)
{
    return (isnan(a) && isnan(b)) || (float)a == b;
}

/* The model gives f32 num/den per scale; the API's outputs follow from
 * them (checked against the golden data elsewhere). */
static void compare_with_model(const void *ref, const void *dis, unsigned w, unsigned h,
                               unsigned bpc, const VifParams *p, const VifScores *got,
                               const char *what)
{
    float num[4], den[4];
    if (vif_model(ref, dis, w, h, bpc, p->enhn_gain_limit, p->skip_scale0, num, den)) {
        CHECK(0, "model out of memory");
        return;
    }
    for (unsigned s = p->skip_scale0 ? 1 : 0; s < 4; s++) {
        CHECK(same_f32(got->num_scale[s], num[s]) && same_f32(got->den_scale[s], den[s]),
              "%s %ux%u %u-bit egl %g skip %d scale %u: num/den %.9g/%.9g, model %.9g/%.9g",
              what, w, h, bpc, p->enhn_gain_limit, p->skip_scale0, s, got->num_scale[s],
              got->den_scale[s], num[s], den[s]);
        const double score = (double)(num[s] / den[s]);
        CHECK(!memcmp(&score, &got->scale[s], sizeof(score)) || (isnan(score) && isnan(got->scale[s])),
              "%s %ux%u scale %u score", what, w, h, s);
    }
    if (p->skip_scale0)
        CHECK(got->scale[0] == 0 && got->num_scale[0] == 0 && got->den_scale[0] == -1,
              "%s: skipped scale 0 not reported as 0, 0/-1", what);
}

static const VifParams sets[3] = {
    {.enhn_gain_limit = 100.0}, {.enhn_gain_limit = 1.0}, {.enhn_gain_limit = 1.2, .skip_scale0 = true},
};

/* One size and bit depth: every picture kind, all sets in one call and
 * each alone, against the model. */
static void check_size(unsigned w, unsigned h, unsigned bpc)
{
    const size_t bps = bpc > 8 ? 2 : 1, size = vmaf_vif_scratch_size(w, h);
    void *ref = malloc((size_t)w * h * bps), *dis = malloc((size_t)w * h * bps);
    void *scratch = malloc(size);
    CHECK(size && ref && dis && scratch, "%ux%u: no scratch size or memory", w, h);
    for (int kind = 0; size && ref && dis && scratch && kind < PIC_KINDS; kind++) {
        fill(ref, w, h, bpc, kind, 0);
        fill(dis, w, h, bpc, kind, 1);
        VifScores all[3], one;
        int err = vmaf_vif_compute(ref, (ptrdiff_t)(w * bps), dis, (ptrdiff_t)(w * bps), w, h,
                                   bpc, sets, 3, scratch, size, all);
        CHECK(!err, "%ux%u %u-bit: compute failed (%d)", w, h, bpc, err);
        for (unsigned k = 0; !err && k < 3; k++) {
            err = vmaf_vif_compute(ref, (ptrdiff_t)(w * bps), dis, (ptrdiff_t)(w * bps), w, h,
                                   bpc, &sets[k], 1, scratch, size, &one);
            CHECK(!err && !memcmp(&one, &all[k], sizeof(one)),
                  "%ux%u %u-bit kind %d set %u: shared pass differs", w, h, bpc, kind, k);
            compare_with_model(ref, dis, w, h, bpc, &sets[k], &all[k], "picture");
        }
    }
    free(ref);
    free(dis);
    free(scratch);
}

static void check_refusals(void)
{
    char why[256];
    const unsigned bad[][2] = {{0, 0}, {1, 1}, {7, 64}, {64, 7}, {7, 7}, {32769, 64}, {64, 32769}};
    for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        why[0] = '\0';
        CHECK(vmaf_vif_check(bad[i][0], bad[i][1], why, sizeof(why)) == -EINVAL && why[0],
              "%ux%u not refused with a reason", bad[i][0], bad[i][1]);
        CHECK(vmaf_vif_scratch_size(bad[i][0], bad[i][1]) == 0, "%ux%u has a scratch size",
              bad[i][0], bad[i][1]);
    }
    CHECK(vmaf_vif_check(8, 8, why, sizeof(why)) == 0 && !why[0], "8x8 refused");
    CHECK(vmaf_vif_check(32768, 8, NULL, 0) == 0, "32768x8 refused");
    CHECK(vmaf_vif_check(7, 64, why, 4) == -EINVAL && strlen(why) == 3, "reason not truncated");

    enum { W = 16, H = 16 };
    uint8_t pic[W * H] = {0};
    const size_t size = vmaf_vif_scratch_size(W, H);
    void *scratch = malloc(size);
    VifScores out;
    const VifParams ok = vmaf_vif_params_default();
    const VifParams egl_low = {.enhn_gain_limit = 0.5}, egl_high = {.enhn_gain_limit = 101},
                    egl_nan = {.enhn_gain_limit = NAN};
    CHECK(vmaf_vif_params_check(&ok) == 0, "default params refused");
    CHECK(vmaf_vif_params_check(&egl_low) && vmaf_vif_params_check(&egl_high) &&
              vmaf_vif_params_check(&egl_nan) && vmaf_vif_params_check(NULL),
          "bad params accepted");
    CHECK(vmaf_vif_params_share_pass(&ok, &sets[2]) && !vmaf_vif_params_share_pass(&ok, &egl_nan),
          "share_pass");
#define REFUSED(...) CHECK(vmaf_vif_compute(__VA_ARGS__) == -EINVAL, "accepted: %s", #__VA_ARGS__)
    REFUSED(pic, W, pic, W, W, H, 8, &ok, 1, scratch, size - 1, &out);
    REFUSED(pic, W, pic, W, W, H, 7, &ok, 1, scratch, size, &out);
    REFUSED(pic, W, pic, W, W, H, 17, &ok, 1, scratch, size, &out);
    REFUSED(pic, W, pic, W, 7, H, 8, &ok, 1, scratch, size, &out);
    REFUSED(pic, W, pic, W, W, H, 8, &ok, 0, scratch, size, &out);
    REFUSED(pic, W, pic, W, W, H, 8, &ok, VMAF_VIF_MAX_PARAMS + 1, scratch, size, &out);
    REFUSED(pic, W, pic, W, W, H, 8, &egl_low, 1, scratch, size, &out);
    REFUSED(pic, W, pic, W, W, H, 8, NULL, 1, scratch, size, &out);
    REFUSED(NULL, W, pic, W, W, H, 8, &ok, 1, scratch, size, &out);
    REFUSED(pic, W, NULL, W, W, H, 8, &ok, 1, scratch, size, &out);
    REFUSED(pic, W, pic, W, W, H, 8, &ok, 1, NULL, size, &out);
    REFUSED(pic, W, pic, W, W, H, 8, &ok, 1, scratch, size, NULL);
#undef REFUSED
    CHECK(vmaf_vif_compute(pic, W, pic, W, W, H, 8, &ok, 1, scratch, size, &out) == 0,
          "16x16 refused");
    free(scratch);
}

/* Bottom-up rows with a negative stride, and scratch at an odd address,
 * give the same bits as the plain call. */
static void check_layouts(void)
{
    enum { W = 37, H = 29 };
    uint16_t ref[W * H], dis[W * H], up_ref[W * H], up_dis[W * H];
    fill(ref, W, H, 10, PIC_SMOOTH, 0);
    fill(dis, W, H, 10, PIC_SMOOTH, 1);
    for (unsigned i = 0; i < H; i++) {
        memcpy(up_ref + (H - 1 - i) * W, ref + i * W, sizeof(uint16_t) * W);
        memcpy(up_dis + (H - 1 - i) * W, dis + i * W, sizeof(uint16_t) * W);
    }
    const size_t size = vmaf_vif_scratch_size(W, H);
    uint8_t *scratch = malloc(size + 1);
    VifScores a, b;
    const VifParams p = vmaf_vif_params_default();
    const ptrdiff_t s = W * sizeof(uint16_t);
    CHECK(scratch && !vmaf_vif_compute(ref, s, dis, s, W, H, 10, &p, 1, scratch, size, &a) &&
              !vmaf_vif_compute(up_ref + (H - 1) * W, -s, up_dis + (H - 1) * W, -s, W, H, 10, &p,
                                1, scratch + 1, size, &b) &&
              !memcmp(&a, &b, sizeof(a)),
          "negative stride or unaligned scratch changes the scores");
    free(scratch);
}

int main(int argc, char **argv)
{
    rng = argc > 1 ? strtoull(argv[1], NULL, 0) : 0x9E3779B97F4A7C15ULL;
    printf("seed 0x%016llx\n", (unsigned long long)rng);
    vmaf_vif_tables_init(); /* the model reads the table directly */
    check_refusals();
    check_layouts();
    /* every side from the smallest to past the single-pixel coarsest scale,
     * then odd and even sides around the filter widths */
    static const unsigned sides[] = {8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 23, 24,
                                     31, 32, 33, 34, 35, 47, 64, 67, 71};
    const unsigned n = sizeof(sides) / sizeof(sides[0]);
    unsigned cases = 0;
    for (unsigned a = 0; a < n; a++)
        for (unsigned b = 0; b < n; b++) {
            check_size(sides[a], sides[b], 8);
            cases++;
            if ((a + b) % 3 == 0) {
                check_size(sides[a], sides[b], 10 + 2 * ((a + b) % 2));
                check_size(sides[a], sides[b], 16);
                cases += 2;
            }
        }
    check_size(176, 144, 8);
    check_size(339, 225, 16);
    printf("%u sizes checked, %d failures\n", cases + 2, failures);
    return failures ? 1 : 0;
}
