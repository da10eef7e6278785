/*
 * float_ms_ssim beyond the golden runs (test/ms_ssim/meson.build runs
 * those through the tool): the same bits with worker threads, l, c and s
 * of each scale with enable_lcs (l and c of identical pictures are 1),
 * and the refusal below 176 pixels a side, where the reference fails
 * every frame, in one line.
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

#define FRAMES 2

static uint64_t rng = 0x6A09E667F3BCC909ULL;

static uint32_t next_random(void)
{
    return test_random(&rng);
}

static void fill(VmafPicture *p, uint64_t seed)
{
    const uint64_t saved = rng;
    rng = seed;
    for (unsigned y = 0; y < p->h[0]; y++)
        for (unsigned x = 0; x < p->w[0]; x++) {
            /* a gradient with noise: SSIM well inside (0, 1) */
            const unsigned v = ((x + y) * 3 + next_random() % 40) % (1u << p->bpc);
            test_set_pixel(p, 0, y, x, v);
        }
    rng = saved;
}

/* Frame 0 a distorted pair, frame 1 identical. */
static int run(unsigned bpc, unsigned w, unsigned h, unsigned threads, double score[FRAMES],
               double l0[FRAMES], const char **said)
{
    VmafContext *v = NULL;
    CHECK_INT(vmaf_init(&v, (VmafConfiguration){ .log_level = VMAF_LOG_LEVEL_ERROR,
                                                 .n_threads = threads }), 0);
    VmafFeatureDictionary *d = NULL;
    vmaf_feature_dictionary_set(&d, "enable_lcs", "true");
    CHECK_INT(vmaf_use_feature(v, "float_ms_ssim", d), 0);
    CHECK_INT(vmaf_chroma_in_use(v), 0);
    int err = 0;
    capture_begin();
    for (unsigned f = 0; f < FRAMES && !err; f++) {
        VmafPicture ref, dis;
        CHECK_INT(vmaf_picture_alloc(&ref, VMAF_PIX_FMT_YUV420P, bpc, w, h), 0);
        CHECK_INT(vmaf_picture_alloc(&dis, VMAF_PIX_FMT_YUV420P, bpc, w, h), 0);
        fill(&ref, 1);
        fill(&dis, f ? 1 : 2);
        err = vmaf_read_pictures(v, &ref, &dis, f);
    }
    if (!err)
        err = vmaf_read_pictures(v, NULL, NULL, 0);
    *said = capture_end();
    for (unsigned f = 0; f < FRAMES && !err; f++) {
        CHECK_INT(vmaf_feature_score_at_index(v, "float_ms_ssim", &score[f], f), 0);
        CHECK_INT(vmaf_feature_score_at_index(v, "float_ms_ssim_l_scale0", &l0[f], f), 0);
        double s4;
        CHECK_INT(vmaf_feature_score_at_index(v, "float_ms_ssim_s_scale4", &s4, f), 0);
    }
    vmaf_close(v);
    return err;
}

int main(int argc, char **argv)
{
    if (argc > 1)
        rng = strtoull(argv[1], NULL, 0);
    static const unsigned depths[4] = { 8, 10, 12, 16 };
    for (unsigned i = 0; i < 4; i++) {
        const unsigned w = 176 + next_random() % 50, h = 176 + next_random() % 20;
        double a[FRAMES], b[FRAMES], la[FRAMES], lb[FRAMES];
        const char *said;
        CHECK_INT(run(depths[i], w, h, 0, a, la, &said), 0);
        CHECK_INT(run(depths[i], w, h, 2, b, lb, &said), 0);
        CHECK(!memcmp(a, b, sizeof(a)) && !memcmp(la, lb, sizeof(la)),
              "%ux%u %u-bit: threads change the scores", w, h, depths[i]);
        CHECK(a[0] > 0 && a[0] < 1 && la[1] == 1.0, "%ux%u %u-bit: %.17g, l %.17g", w, h,
              depths[i], a[0], la[1]);
    }
    double a[FRAMES], l[FRAMES];
    const char *said;
    const int err = run(8, 176, 175, 0, a, l, &said);
    CHECK(err == -EINVAL && count_lines(said) == 1 && strstr(said, "176x176"), "%d %s", err,
          said);
    return check_result("float_ms_ssim");
}
