/*
 * psnr beyond the golden runs (test/psnr/meson.build runs those through
 * the tool): every format, depth and small or odd size through the public
 * API against a literal model of the definition (docs/metrics/psnr.md),
 * worker threads, subsampling (psnr, like the reference's, sees every
 * frame and apsnr counts them all), the options, and the refusals.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libvmaf/libvmaf.h"

#include "check.h"
#include "test_picture.h"
#include "test_random.h"

#define FRAMES 4

static uint64_t rng = 0x2545F4914F6CDD1DULL;

static uint32_t next_random(void)
{
    return test_random(&rng);
}

typedef struct Case {
    enum VmafPixelFormat fmt;
    unsigned w, h, bpc;
    bool chroma, reduced, mse, apsnr;
    double min_sse;
    unsigned threads, subsample;
} Case;

static const char *const plane_name[3] = { "y", "cb", "cr" };

/* The definition, written out: the reference's chroma planes are the
 * luma sides halved rounding down; the peak is 255 at 8 bits, else
 * 2^bpc - 1 or 255 * 2^(bpc-8); PSNR is capped at 6 bpc + 12, or at
 * ceil(10 log10(peak^2 N / min_sse)). */
static void plane_size(const Case *c, int p, unsigned *w, unsigned *h)
{
    *w = p && c->fmt != VMAF_PIX_FMT_YUV444P ? c->w / 2 : c->w;
    *h = p && c->fmt == VMAF_PIX_FMT_YUV420P ? c->h / 2 : c->h;
}

static unsigned model_peak(const Case *c)
{
    if (c->bpc == 8)
        return 255;
    return c->reduced ? 255u << (c->bpc - 8) : (1u << c->bpc) - 1;
}

static double model_db(const Case *c, uint64_t sse, unsigned n)
{
    const double pp = (double)model_peak(c) * model_peak(c);
    const double max = c->min_sse > 0 ? ceil(10. * log10(pp / (c->min_sse / n)))
                                      : 6. * c->bpc + 12;
    const double mse = (double)sse / n;
    const double db = 10. * log10(pp / (mse > 1e-16 ? mse : 1e-16));
    return db < max ? db : max;
}

static uint64_t model_sse(const VmafPicture *a, const VmafPicture *b, int p, unsigned w,
                          unsigned h)
{
    uint64_t sse = 0;
    for (unsigned y = 0; y < h; y++)
        for (unsigned x = 0; x < w; x++) {
            const int64_t d = (int64_t)test_pixel(a, p, y, x) - test_pixel(b, p, y, x);
            sse += (uint64_t)(d * d);
        }
    return sse;
}

/* Random samples of a seed and frame (equal ones for equal seeds and
 * frames: the cap), extremes at every depth. */
static void fill(VmafPicture *pic, unsigned frame, uint64_t seed)
{
    const uint64_t saved = rng;
    rng = seed * 0x9E3779B97F4A7C15ULL + frame + 1;
    const unsigned max = (1u << pic->bpc) - 1;
    for (int p = 0; p < 3 && pic->data[p]; p++)
        for (unsigned y = 0; y < pic->h[p]; y++)
            for (unsigned x = 0; x < pic->w[p]; x++) {
                const uint32_t r = next_random();
                const unsigned v = r % 7 == 0 ? max : r % 7 == 1 ? 0 : r % (max + 1);
                test_set_pixel(pic, p, y, x, v);
            }
    rng = saved;
}

static void options_of(const Case *c, char *buf, size_t n)
{
    snprintf(buf, n, "enable_chroma=%s enable_mse=%s enable_apsnr=%s reduced_hbd_peak=%s "
             "min_sse=%g", c->chroma ? "true" : "false", c->mse ? "true" : "false",
             c->apsnr ? "true" : "false", c->reduced ? "true" : "false", c->min_sse);
}

static VmafFeatureDictionary *dict_of(const Case *c)
{
    VmafFeatureDictionary *d = NULL;
    char v[32];
    vmaf_feature_dictionary_set(&d, "enable_chroma", c->chroma ? "true" : "false");
    vmaf_feature_dictionary_set(&d, "enable_mse", c->mse ? "true" : "false");
    vmaf_feature_dictionary_set(&d, "enable_apsnr", c->apsnr ? "true" : "false");
    vmaf_feature_dictionary_set(&d, "reduced_hbd_peak", c->reduced ? "true" : "false");
    snprintf(v, sizeof(v), "%.17g", c->min_sse);
    vmaf_feature_dictionary_set(&d, "min_sse", v);
    return d;
}

/* The report's apsnr of plane p, or NAN when it has none. */
static double report_apsnr(VmafContext *v, int p)
{
    char path[] = "/tmp/test_psnr_XXXXXX";
    const int fd = mkstemp(path);
    if (fd < 0)
        return NAN;
    close(fd);
    double value = NAN;
    if (!vmaf_write_output_with_format(v, path, VMAF_OUTPUT_FORMAT_JSON, "%.17g")) {
        static char text[1 << 16];
        FILE *f = fopen(path, "r");
        const size_t n = f ? fread(text, 1, sizeof(text) - 1, f) : 0;
        if (f)
            fclose(f);
        text[n] = '\0';
        char key[32];
        snprintf(key, sizeof(key), "\"apsnr_%s\": ", plane_name[p]);
        const char *at = strstr(text, key);
        if (at)
            value = strtod(at + strlen(key), NULL);
    }
    remove(path);
    return value;
}

static void check_case(const Case *c)
{
    char what[200];
    options_of(c, what, sizeof(what));
    VmafContext *v = NULL;
    VmafConfiguration cfg = { .log_level = VMAF_LOG_LEVEL_WARNING, .n_threads = c->threads,
                              .n_subsample = c->subsample };
    CHECK_INT(vmaf_init(&v, cfg), 0);
    CHECK_INT(vmaf_use_feature(v, "psnr", dict_of(c)), 0);
    CHECK_INT(vmaf_chroma_in_use(v), c->chroma ? 1 : 0);
    uint64_t total_sse[3] = { 0 }, total_n[3] = { 0 };
    double want[FRAMES][3];
    for (unsigned f = 0; f < FRAMES; f++) {
        VmafPicture ref, dis;
        CHECK_INT(vmaf_picture_alloc(&ref, c->fmt, c->bpc, c->w, c->h), 0);
        CHECK_INT(vmaf_picture_alloc(&dis, c->fmt, c->bpc, c->w, c->h), 0);
        fill(&ref, f, 1);
        fill(&dis, f == 2 ? f : f + 100, f == 2 ? 1 : 2);
        for (int p = 0; p < (c->chroma ? 3 : 1); p++) {
            unsigned w, h;
            plane_size(c, p, &w, &h);
            const uint64_t sse = model_sse(&ref, &dis, p, w, h);
            want[f][p] = model_db(c, sse, w * h);
            total_sse[p] += sse;
            total_n[p] += (uint64_t)w * h;
        }
        CHECK_INT(vmaf_read_pictures(v, &ref, &dis, f), 0);
    }
    CHECK_INT(vmaf_read_pictures(v, NULL, NULL, 0), 0);
    for (unsigned f = 0; f < FRAMES; f++)
        for (int p = 0; p < 3; p++) {
            char name[16];
            double got = NAN;
            snprintf(name, sizeof(name), "psnr_%s", plane_name[p]);
            const int err = vmaf_feature_score_at_index(v, name, &got, f);
            if (p && !c->chroma) {
                CHECK(err != 0, "%s: %s stored without chroma", what, name);
                continue;
            }
            CHECK(!err && got == want[f][p], "%s, %ux%u fmt %d %u-bit: frame %u %s = %.17g, "
                  "want %.17g", what, c->w, c->h, (int)c->fmt, c->bpc, f, name, got,
                  want[f][p]);
        }
    for (int p = 0; c->apsnr && p < (c->chroma ? 3 : 1); p++) {
        const double pp = (double)model_peak(c) * model_peak(c);
        const double db = 10 * (log10(pp) + log10((double)total_n[p]) -
                                log10((double)total_sse[p]));
        const double max = ceil(10 * log10(pp * (double)total_n[p] * 2));
        const double got = report_apsnr(v, p);
        CHECK(got == (db < max ? db : max), "%s: apsnr_%s %.17g, want %.17g", what,
              plane_name[p], got, db < max ? db : max);
    }
    vmaf_close(v);
}

static void random_cases(unsigned n)
{
    static const enum VmafPixelFormat fmts[3] = { VMAF_PIX_FMT_YUV420P, VMAF_PIX_FMT_YUV422P,
                                                  VMAF_PIX_FMT_YUV444P };
    static const unsigned depths[4] = { 8, 10, 12, 16 };
    for (unsigned i = 0; i < n; i++) {
        const uint32_t r = next_random();
        Case c = {
            .fmt = fmts[r % 3], .bpc = depths[(r >> 2) % 4],
            .w = 1 + next_random() % 67, .h = 1 + next_random() % 41,
            .chroma = (r >> 4) % 4 != 0, .reduced = (r >> 6) & 1, .mse = (r >> 7) & 1,
            .apsnr = (r >> 8) % 4 != 0, .min_sse = (r >> 10) % 3 ? 0.0 : 0.5,
            .threads = (r >> 12) % 3, .subsample = 1 + (r >> 14) % 3,
        };
        if (c.chroma && (c.w < 2 || (c.fmt == VMAF_PIX_FMT_YUV420P && c.h < 2)))
            c.w = c.h = 2; /* a chroma plane of no samples has no PSNR */
        check_case(&c);
    }
}

/* 4:0:0 pictures have no chroma: psnr refuses unless it is switched off. */
static void check_gray(void)
{
    for (int chroma = 0; chroma < 2; chroma++) {
        VmafContext *v = NULL;
        CHECK_INT(vmaf_init(&v, (VmafConfiguration){ .log_level = VMAF_LOG_LEVEL_ERROR }), 0);
        VmafFeatureDictionary *d = NULL;
        vmaf_feature_dictionary_set(&d, "enable_chroma", chroma ? "true" : "false");
        CHECK_INT(vmaf_use_feature(v, "psnr", d), 0);
        VmafPicture ref, dis;
        CHECK_INT(vmaf_picture_alloc(&ref, VMAF_PIX_FMT_YUV400P, 8, 16, 16), 0);
        CHECK_INT(vmaf_picture_alloc(&dis, VMAF_PIX_FMT_YUV400P, 8, 16, 16), 0);
        fill(&ref, 0, 3);
        fill(&dis, 0, 4);
        capture_begin();
        const int err = vmaf_read_pictures(v, &ref, &dis, 0);
        const char *said = capture_end();
        if (chroma)
            CHECK(err == -EINVAL && count_lines(said) == 1 && strstr(said, "enable_chroma=false"),
                  "4:0:0 with chroma: %d, %s", err, said);
        else
            CHECK(err == 0 && !*said, "4:0:0 without chroma: %d, %s", err, said);
        vmaf_close(v);
    }
}

/* A picture whose chroma plane is missing or changed is refused in one
 * line, the context's other checks reading luma only. */
static void check_missing_chroma(void)
{
    for (int how = 0; how < 2; how++) {
        VmafContext *v = NULL;
        CHECK_INT(vmaf_init(&v, (VmafConfiguration){ .log_level = VMAF_LOG_LEVEL_ERROR }), 0);
        CHECK_INT(vmaf_use_feature(v, "psnr", NULL), 0);
        VmafPicture ref, dis;
        CHECK_INT(vmaf_picture_alloc(&ref, VMAF_PIX_FMT_YUV420P, 8, 16, 16), 0);
        CHECK_INT(vmaf_picture_alloc(&dis, VMAF_PIX_FMT_YUV420P, 8, 16, 16), 0);
        void *saved = dis.data[2];
        if (how)
            dis.stride[2] = 1000000; /* rows past the picture's memory */
        else
            dis.data[2] = NULL;
        capture_begin();
        const int err = vmaf_read_pictures(v, &ref, &dis, 0);
        const char *said = capture_end();
        CHECK(err == -EINVAL && count_lines(said) == 1 && strstr(said, "distorted"),
              "chroma plane %s: %d, %s", how ? "too long" : "missing", err, said);
        dis.data[2] = saved;
        vmaf_close(v);
    }
}

/* Asking for an output by name switches its options on; asking for
 * mse_cb with enable_chroma=false is a contradiction. */
static void check_names(void)
{
    VmafContext *v = NULL;
    CHECK_INT(vmaf_init(&v, (VmafConfiguration){ .log_level = VMAF_LOG_LEVEL_ERROR }), 0);
    CHECK_INT(vmaf_chroma_in_use(v), 0);
    CHECK_INT(vmaf_use_feature(v, "mse_cr", NULL), 0);
    CHECK_INT(vmaf_chroma_in_use(v), 1);
    CHECK_INT(vmaf_chroma_in_use(NULL), -EINVAL);
    VmafFeatureDictionary *d = NULL;
    vmaf_feature_dictionary_set(&d, "enable_chroma", "false");
    capture_begin();
    CHECK_INT(vmaf_use_feature(v, "mse_cb", d), -EINVAL);
    const char *said = capture_end();
    CHECK(count_lines(said) == 1 && strstr(said, "enable_chroma=true"), "%s", said);
    d = NULL;
    vmaf_feature_dictionary_set(&d, "min_sse", "-1");
    capture_begin();
    CHECK_INT(vmaf_use_feature(v, "psnr", d), -EINVAL);
    said = capture_end();
    CHECK(count_lines(said) == 1 && strstr(said, "min_sse"), "%s", said);
    VmafPicture ref, dis;
    CHECK_INT(vmaf_picture_alloc(&ref, VMAF_PIX_FMT_YUV420P, 10, 8, 6), 0);
    CHECK_INT(vmaf_picture_alloc(&dis, VMAF_PIX_FMT_YUV420P, 10, 8, 6), 0);
    fill(&ref, 0, 5);
    fill(&dis, 0, 6);
    CHECK_INT(vmaf_read_pictures(v, &ref, &dis, 0), 0);
    CHECK_INT(vmaf_read_pictures(v, NULL, NULL, 0), 0);
    double s;
    CHECK_INT(vmaf_feature_score_at_index(v, "mse_cr", &s, 0), 0);
    CHECK_INT(vmaf_feature_score_at_index(v, "psnr_cr", &s, 0), 0);
    vmaf_close(v);
}

int main(int argc, char **argv)
{
    if (argc > 1)
        rng = strtoull(argv[1], NULL, 0);
    check_gray();
    check_missing_chroma();
    check_names();
    random_cases(120);
    return check_result("psnr");
}
