/*
 * The motion scores made from SAD sums, for the CPU extractor and its CUDA
 * twin alike: the per-frame SAD score, and motion2 and motion3, which need
 * the next frame's score and are derived at the flush from the stored
 * scores, as the reference (libvmaf 3.2's integer motion) does.
 */
#include "feature/motion/motion.h"

#include "log.h"

static double min_d(double a, double b)
{
    return a < b ? a : b;
}

double vmaf_motion_sad_score(const MotionOptions *o, uint64_t sad, unsigned w, unsigned h)
{
    /* w * h in unsigned arithmetic, then double, as the reference's. */
    const unsigned pixels = w * h;
    return min_d((double)sad / 256. / pixels * o->fps_weight, o->max_val);
}

int vmaf_motion_store(const VmafFex *fex, const MotionOptions *o, VmafFeatureCollector *fc,
                      double score, unsigned index, const char *ext)
{
    int err = vmaf_fex_store(fex, fc, MOTION_SAD_FEATURE, score, index);
    if (!err && o->debug)
        err = vmaf_fex_store(fex, fc, MOTION_FEATURE, score, index);
    if (err)
        vmaf_error("%s: frame %u: could not store the scores (%d)", ext, index, err);
    return err;
}

static double blend(const MotionOptions *o, double score)
{
    return score * o->blend_factor + (1 - o->blend_factor) * min_d(o->blend_offset, score);
}

/* motion2 of frame i from the stored SADs (n of them, from frame 0 on):
 * the smaller of the SADs on both sides of it, the frame's own where
 * there is no next one. */
static double motion2_at(const VmafFex *fex, VmafFeatureCollector *fc, unsigned i, unsigned n,
                         unsigned back)
{
    double sad_i = 0., lo, hi;
    (void)vmaf_fex_load(fex, fc, MOTION_SAD_FEATURE, &sad_i, i);
    if (i < back)
        return 0.;
    if (i + 1 >= n || vmaf_fex_load(fex, fc, MOTION_SAD_FEATURE, &hi, i + 1))
        return sad_i;
    /* The five-frame window looks one frame further back: frame i - 1. */
    const unsigned lo_idx = i - (back - 1);
    if (lo_idx < back)
        return hi;
    (void)vmaf_fex_load(fex, fc, MOTION_SAD_FEATURE, &lo, lo_idx);
    return lo < hi ? lo : hi;
}

int vmaf_motion_flush_scores(const VmafFex *fex, const MotionOptions *o,
                             VmafFeatureCollector *fc, const char *ext)
{
    const unsigned back = vmaf_motion_back(o);
    /* The frames from 0 up to the first one without a SAD, as the
     * reference counts them. */
    unsigned n = 0;
    double v;
    while (!vmaf_fex_load(fex, fc, MOTION_SAD_FEATURE, &v, n))
        n++;
    /* Frames before the first comparison get the first blended SAD. */
    double stamp = 0.;
    if (n > back && !vmaf_fex_load(fex, fc, MOTION_SAD_FEATURE, &v, back))
        stamp = min_d(blend(o, v), o->max_val);
    double prev = 0.;
    for (unsigned i = 0; i < n; i++) {
        const double motion2 = motion2_at(fex, fc, i, n, back);
        double motion3 = stamp;
        if (i < back) {
            prev = stamp;
        } else {
            const double processed = min_d(blend(o, motion2), o->max_val);
            motion3 = o->moving_average ? (processed + prev) / 2.0 : processed;
            prev = processed;
        }
        int err = vmaf_fex_store(fex, fc, MOTION2_FEATURE, motion2, i);
        if (!err)
            err = vmaf_fex_store(fex, fc, MOTION3_FEATURE, motion3, i);
        if (err) {
            vmaf_error("%s: frame %u: could not store motion2 and motion3 (%d)", ext, i, err);
            return err;
        }
    }
    return 0;
}
