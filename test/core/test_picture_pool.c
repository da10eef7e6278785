/* The host picture pool of vmaf_preallocate_pictures(): refusals, pictures
 * that come back when scored (also with worker threads and a temporal
 * extractor that keeps earlier frames), a caller that holds every picture
 * told so instead of a wait for ever, and pictures of another context's
 * pool refused. */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "libvmaf/libvmaf.h"

#include "check.h"

#define W 48
#define H 32
#define FRAMES 9

static VmafPictureConfiguration pool_cfg(unsigned cnt)
{
    VmafPictureConfiguration c = { .pic_cnt = cnt };
    c.pic_params.w = W;
    c.pic_params.h = H;
    c.pic_params.bpc = 8;
    c.pic_params.pix_fmt = VMAF_PIX_FMT_YUV420P;
    return c;
}

static VmafContext *context(unsigned threads)
{
    VmafContext *v = NULL;
    VmafConfiguration cfg = { .log_level = VMAF_LOG_LEVEL_WARNING, .n_threads = threads };
    CHECK_INT(vmaf_init(&v, cfg), 0);
    CHECK_INT(vmaf_use_feature(v, "motion", NULL), 0);
    CHECK_INT(vmaf_use_feature(v, "float_ssim", NULL), 0);
    return v;
}

static void fill(VmafPicture *p, unsigned seed)
{
    for (unsigned y = 0; y < H; y++)
        for (unsigned x = 0; x < W; x++)
            ((unsigned char *)p->data[0])[y * p->stride[0] + x] =
                (unsigned char)((x * 7 + y * 3 + seed * 11) & 0xff);
}

/* Scores FRAMES frames from the pool (pool != 0) or from vmaf_picture_alloc,
 * and returns the motion SAD of the last frame. */
static double score(unsigned threads, bool pool)
{
    VmafContext *v = context(threads);
    if (pool)
        CHECK_INT(vmaf_preallocate_pictures(v, pool_cfg(3)), 0);
    for (unsigned f = 0; f < FRAMES; f++) {
        VmafPicture r, d;
        if (pool) {
            CHECK_INT(vmaf_fetch_preallocated_picture(v, &r), 0);
            CHECK_INT(vmaf_fetch_preallocated_picture(v, &d), 0);
        } else {
            CHECK_INT(vmaf_picture_alloc(&r, VMAF_PIX_FMT_YUV420P, 8, W, H), 0);
            CHECK_INT(vmaf_picture_alloc(&d, VMAF_PIX_FMT_YUV420P, 8, W, H), 0);
        }
        fill(&r, f);
        fill(&d, f + 1);
        CHECK_INT(vmaf_read_pictures(v, &r, &d, f), 0);
    }
    CHECK_INT(vmaf_read_pictures(v, NULL, NULL, 0), 0);
    double sad = -1.0, motion2 = -1.0;
    CHECK_INT(vmaf_feature_score_at_index(v, "VMAF_integer_feature_motion_sad_score", &sad,
                                          FRAMES - 1), 0);
    CHECK_INT(vmaf_feature_score_at_index(v, "integer_motion2", &motion2, FRAMES - 1), 0);
    CHECK(sad > 0 && motion2 == sad);
    vmaf_close(v);
    return sad;
}

static void refusals(void)
{
    VmafContext *v = context(0);
    VmafPicture p;
    capture_begin();
    CHECK_INT(vmaf_fetch_preallocated_picture(v, &p), -EINVAL);
    VmafPictureConfiguration bad = pool_cfg(3);
    bad.pic_params.bpc = 9;
    CHECK_INT(vmaf_preallocate_pictures(v, bad), -EINVAL);
    CHECK_INT(vmaf_preallocate_pictures(v, pool_cfg(0)), -EINVAL);
    CHECK_INT(vmaf_preallocate_pictures(NULL, pool_cfg(3)), -EINVAL);
    const char *log = capture_end();
    CHECK(strstr(log, "call vmaf_preallocate_pictures first") && strstr(log, "9-bit") &&
          strstr(log, "0 preallocated pictures"));
    CHECK_INT(count_lines(log), 4);
    CHECK_INT(vmaf_preallocate_pictures(v, pool_cfg(2)), 0);
    capture_begin();
    CHECK_INT(vmaf_preallocate_pictures(v, pool_cfg(2)), -EINVAL);
    log = capture_end();
    CHECK(strstr(log, "already"));
    vmaf_close(v);
}

static void caller_holds_all(void)
{
    VmafContext *v = context(2);
    CHECK_INT(vmaf_preallocate_pictures(v, pool_cfg(2)), 0);
    VmafPicture a, b, c;
    CHECK_INT(vmaf_fetch_preallocated_picture(v, &a), 0);
    CHECK_INT(vmaf_fetch_preallocated_picture(v, &b), 0);
    capture_begin();
    CHECK_INT(vmaf_fetch_preallocated_picture(v, &c), -EBUSY);
    const char *log = capture_end();
    CHECK(strstr(log, "held by the caller") && count_lines(log) == 1);
    /* One back, one out again. */
    CHECK_INT(vmaf_picture_unref(&a), 0);
    CHECK_INT(vmaf_fetch_preallocated_picture(v, &c), 0);
    /* A picture still out when the context closes is freed at its last
     * reference (AddressSanitizer sees a leak or a use after free). */
    vmaf_close(v);
    CHECK_INT(vmaf_picture_unref(&b), 0);
    CHECK_INT(vmaf_picture_unref(&c), 0);
}

static void another_contexts_pictures(void)
{
    VmafContext *owner = context(0), *other = context(0);
    CHECK_INT(vmaf_preallocate_pictures(owner, pool_cfg(2)), 0);
    VmafPicture r, d;
    CHECK_INT(vmaf_fetch_preallocated_picture(owner, &r), 0);
    CHECK_INT(vmaf_fetch_preallocated_picture(owner, &d), 0);
    capture_begin();
    CHECK_INT(vmaf_read_pictures(other, &r, &d, 0), -EINVAL);
    const char *log = capture_end();
    CHECK(strstr(log, "another context's picture pool"));
    /* The refused pictures went back to their pool: both come out again. */
    CHECK_INT(vmaf_fetch_preallocated_picture(owner, &r), 0);
    CHECK_INT(vmaf_fetch_preallocated_picture(owner, &d), 0);
    vmaf_picture_unref(&r);
    vmaf_picture_unref(&d);
    vmaf_close(owner);
    vmaf_close(other);
}

int main(void)
{
    refusals();
    const double plain = score(0, false);
    CHECK(score(0, true) == plain);
    CHECK(score(2, true) == plain);
    caller_holds_all();
    another_contexts_pictures();
    return check_result("test_picture_pool");
}
