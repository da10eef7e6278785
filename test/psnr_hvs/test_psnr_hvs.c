/*
 * psnr_hvs beyond the golden runs (test/psnr_hvs/meson.build runs those
 * through the tool): the same bits with worker threads and in every
 * format, +inf for identical pictures, and the refusals where the
 * reference fails or reports NaN (above 12 bits, 4:0:0, planes without
 * an 8x8 block), each in one line.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libvmaf/libvmaf.h"

#include "check.h"
#include "test_picture.h"
#include "test_random.h"

#define FRAMES 3

static const char *const names[4] = { "psnr_hvs_y", "psnr_hvs_cb", "psnr_hvs_cr", "psnr_hvs" };

static uint64_t rng = 0xDA3E39CB94B95BDBULL;

static uint32_t next_random(void)
{
    return test_random(&rng);
}

static void fill(VmafPicture *p, uint64_t seed)
{
    const uint64_t saved = rng;
    rng = seed;
    for (int k = 0; k < 3 && p->data[k]; k++)
        for (unsigned y = 0; y < p->h[k]; y++)
            for (unsigned x = 0; x < p->w[k]; x++)
                test_set_pixel(p, k, y, x, next_random() % (1u << p->bpc));
    rng = saved;
}

/* Scores of FRAMES pairs (frame 1 identical), or the error of the first
 * read, with what was logged in *said. */
static int run(enum VmafPixelFormat fmt, unsigned bpc, unsigned w, unsigned h,
               unsigned threads, double out[FRAMES][4], const char **said)
{
    VmafContext *v = NULL;
    CHECK_INT(vmaf_init(&v, (VmafConfiguration){ .log_level = VMAF_LOG_LEVEL_ERROR,
                                                 .n_threads = threads }), 0);
    CHECK_INT(vmaf_use_feature(v, "psnr_hvs", NULL), 0);
    int err = 0;
    capture_begin();
    for (unsigned f = 0; f < FRAMES && !err; f++) {
        VmafPicture ref, dis;
        CHECK_INT(vmaf_picture_alloc(&ref, fmt, bpc, w, h), 0);
        CHECK_INT(vmaf_picture_alloc(&dis, fmt, bpc, w, h), 0);
        fill(&ref, 10 + f);
        fill(&dis, f == 1 ? 11 : 20 + f);
        err = vmaf_read_pictures(v, &ref, &dis, f);
    }
    if (!err)
        err = vmaf_read_pictures(v, NULL, NULL, 0);
    *said = capture_end();
    for (unsigned f = 0; f < FRAMES && !err; f++)
        for (int k = 0; k < 4; k++)
            CHECK_INT(vmaf_feature_score_at_index(v, names[k], &out[f][k], f), 0);
    vmaf_close(v);
    return err;
}

static void check_scores(void)
{
    static const enum VmafPixelFormat fmts[3] = { VMAF_PIX_FMT_YUV420P, VMAF_PIX_FMT_YUV422P,
                                                  VMAF_PIX_FMT_YUV444P };
    static const unsigned depths[3] = { 8, 10, 12 };
    for (unsigned i = 0; i < 12; i++) {
        const enum VmafPixelFormat fmt = fmts[i % 3];
        const unsigned bpc = depths[(i / 3) % 3], w = 16 + next_random() % 40,
                       h = 16 + next_random() % 30;
        double one[FRAMES][4], two[FRAMES][4];
        const char *said;
        CHECK_INT(run(fmt, bpc, w, h, 0, one, &said), 0);
        CHECK_INT(run(fmt, bpc, w, h, 2, two, &said), 0);
        for (unsigned f = 0; f < FRAMES; f++)
            for (int k = 0; k < 4; k++) {
                CHECK(memcmp(&one[f][k], &two[f][k], sizeof(double)) == 0,
                      "%ux%u %u-bit fmt %d frame %u %s: %.17g, with threads %.17g", w, h, bpc,
                      (int)fmt, f, names[k], one[f][k], two[f][k]);
                CHECK(f == 1 ? isinf(one[f][k]) && one[f][k] > 0 : isfinite(one[f][k]),
                      "frame %u %s: %.17g", f, names[k], one[f][k]);
            }
    }
}

static void check_refusals(void)
{
    static const struct {
        enum VmafPixelFormat fmt;
        unsigned bpc, w, h;
        const char *needle;
    } cases[] = {
        { VMAF_PIX_FMT_YUV420P, 16, 64, 64, "12 bits" },
        { VMAF_PIX_FMT_YUV400P, 8, 64, 64, "4:0:0" },
        { VMAF_PIX_FMT_YUV420P, 8, 64, 15, "16x16" },
        { VMAF_PIX_FMT_YUV444P, 8, 7, 64, "8x8" },
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        double out[FRAMES][4];
        const char *said;
        const int err = run(cases[i].fmt, cases[i].bpc, cases[i].w, cases[i].h, 0, out, &said);
        CHECK(err == -EINVAL && count_lines(said) == 1 && strstr(said, cases[i].needle),
              "case %zu: %d, %s", i, err, said);
    }
}

int main(int argc, char **argv)
{
    if (argc > 1)
        rng = strtoull(argv[1], NULL, 0);
    check_refusals();
    check_scores();
    return check_result("psnr_hvs");
}
