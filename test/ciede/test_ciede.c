/*
 * ciede beyond the golden runs (test/ciede/meson.build runs those through
 * the tool): subsampled chroma is upsampled by repetition, so a 4:2:0 or
 * 4:2:2 pair scores exactly as the same pair with its chroma repeated
 * into 4:4:4, at every depth and at odd sizes (where the reference reads
 * outside its planes); identical pictures give +inf; worker threads give
 * the same bits; 4:0:0 and pictures without chroma are refused in one
 * line.
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

#define FRAMES 3

static uint64_t rng = 0x853C49E6748FEA9BULL;

static uint32_t next_random(void)
{
    return test_random(&rng);
}

static void fill(VmafPicture *p)
{
    const unsigned max = (1u << p->bpc) - 1;
    for (int k = 0; k < 3; k++)
        for (unsigned y = 0; y < p->h[k]; y++)
            for (unsigned x = 0; x < p->w[k]; x++)
                test_set_pixel(p, k, y, x, next_random() % (max + 1));
}

/* The same picture in 4:4:4, each chroma sample repeated over the luma
 * samples it covers. */
static void expand(const VmafPicture *in, VmafPicture *out, unsigned sx, unsigned sy)
{
    for (unsigned y = 0; y < in->h[0]; y++)
        for (unsigned x = 0; x < in->w[0]; x++) {
            test_set_pixel(out, 0, y, x, test_pixel(in, 0, y, x));
            for (int k = 1; k < 3; k++)
                test_set_pixel(out, k, y, x, test_pixel(in, k, y >> sy, x >> sx));
        }
}

/* The ciede2000 of FRAMES pairs, or NAN per frame on failure. */
static void score(VmafPicture *ref, VmafPicture *dis, unsigned threads, double *out)
{
    VmafContext *v = NULL;
    CHECK_INT(vmaf_init(&v, (VmafConfiguration){ .log_level = VMAF_LOG_LEVEL_ERROR,
                                                 .n_threads = threads }), 0);
    CHECK_INT(vmaf_use_feature(v, "ciede", NULL), 0);
    CHECK_INT(vmaf_chroma_in_use(v), 1);
    for (unsigned f = 0; f < FRAMES; f++)
        CHECK_INT(vmaf_read_pictures(v, &ref[f], &dis[f], f), 0);
    CHECK_INT(vmaf_read_pictures(v, NULL, NULL, 0), 0);
    for (unsigned f = 0; f < FRAMES; f++)
        if (vmaf_feature_score_at_index(v, "ciede2000", &out[f], f))
            out[f] = NAN;
    vmaf_close(v);
}

static void check_upsampling(enum VmafPixelFormat fmt, unsigned bpc, unsigned w, unsigned h,
                             unsigned threads)
{
    const unsigned sx = fmt != VMAF_PIX_FMT_YUV444P, sy = fmt == VMAF_PIX_FMT_YUV420P;
    VmafPicture ref[FRAMES], dis[FRAMES], ref444[FRAMES], dis444[FRAMES];
    for (unsigned f = 0; f < FRAMES; f++) {
        CHECK_INT(vmaf_picture_alloc(&ref[f], fmt, bpc, w, h), 0);
        CHECK_INT(vmaf_picture_alloc(&dis[f], fmt, bpc, w, h), 0);
        CHECK_INT(vmaf_picture_alloc(&ref444[f], VMAF_PIX_FMT_YUV444P, bpc, w, h), 0);
        CHECK_INT(vmaf_picture_alloc(&dis444[f], VMAF_PIX_FMT_YUV444P, bpc, w, h), 0);
        fill(&ref[f]);
        fill(&dis[f]);
        if (f == 1) /* an identical pair */
            for (int k = 0; k < 3; k++)
                for (unsigned y = 0; y < ref[f].h[k]; y++)
                    for (unsigned x = 0; x < ref[f].w[k]; x++)
                        test_set_pixel(&dis[f], k, y, x, test_pixel(&ref[f], k, y, x));
        expand(&ref[f], &ref444[f], sx, sy);
        expand(&dis[f], &dis444[f], sx, sy);
    }
    double sub[FRAMES], full[FRAMES];
    score(ref, dis, threads, sub);
    score(ref444, dis444, 0, full);
    for (unsigned f = 0; f < FRAMES; f++) {
        CHECK(sub[f] == full[f], "%ux%u %u-bit format %d, %u threads, frame %u: %.17g, as "
              "4:4:4 %.17g", w, h, bpc, (int)fmt, threads, f, sub[f], full[f]);
        CHECK(f == 1 ? isinf(sub[f]) && sub[f] > 0 : isfinite(sub[f]),
              "frame %u: %.17g", f, sub[f]);
    }
}

static void check_refusals(void)
{
    for (int how = 0; how < 2; how++) {
        VmafContext *v = NULL;
        CHECK_INT(vmaf_init(&v, (VmafConfiguration){ .log_level = VMAF_LOG_LEVEL_ERROR }), 0);
        CHECK_INT(vmaf_use_feature(v, "ciede", NULL), 0);
        const enum VmafPixelFormat fmt = how ? VMAF_PIX_FMT_YUV420P : VMAF_PIX_FMT_YUV400P;
        VmafPicture ref, dis;
        CHECK_INT(vmaf_picture_alloc(&ref, fmt, 8, 16, 16), 0);
        CHECK_INT(vmaf_picture_alloc(&dis, fmt, 8, 16, 16), 0);
        if (how)
            ref.data[1] = NULL;
        capture_begin();
        const int err = vmaf_read_pictures(v, &ref, &dis, 0);
        const char *said = capture_end();
        CHECK(err == -EINVAL && count_lines(said) == 1 && strstr(said, "ciede"),
              "%s: %d, %s", how ? "no chroma plane" : "4:0:0", err, said);
        vmaf_close(v);
    }
}

int main(int argc, char **argv)
{
    if (argc > 1)
        rng = strtoull(argv[1], NULL, 0);
    check_refusals();
    static const enum VmafPixelFormat fmts[2] = { VMAF_PIX_FMT_YUV420P, VMAF_PIX_FMT_YUV422P };
    static const unsigned depths[4] = { 8, 10, 12, 16 };
    for (unsigned i = 0; i < 24; i++)
        check_upsampling(fmts[i % 2], depths[(i / 2) % 4], 1 + next_random() % 37,
                         1 + next_random() % 29, i % 3);
    return check_result("ciede");
}
