/*
 * motion: how much the reference video moves, as libvmaf 3.2's integer
 * `motion` extractor computes it, bit for bit (docs/metrics/vmaf.md).
 * Each frame's SAD compares its reference picture with the one read one
 * frame before (two with motion_five_frame_window), which the context
 * hands over (VMAF_FEX_FLAG_PREV_REF), so frames are scored in any order
 * on any thread; motion2 and motion3 need the next frame's SAD and are
 * derived at the flush from the stored SADs, as the reference does.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>

#include "feature/feature_collector.h"
#include "feature/feature_extractor.h"
#include "feature/motion/motion_sad.h"
#include "log.h"

typedef struct MotionOptions {
    bool force_zero;
    double blend_factor;
    double blend_offset;
    double fps_weight;
    double max_val;
    bool five_frame_window;
    bool moving_average;
    bool debug;
} MotionOptions;

typedef struct MotionState {
    MotionOptions opt; /* first: the option table's offsets point into it */
    const VmafMotionKernels *kernels;
    int32_t *row;
} MotionState;

#define SAD "VMAF_integer_feature_motion_sad_score"
#define MOTION "integer_motion"
#define MOTION2 "integer_motion2"
#define MOTION3 "integer_motion3"

static const char *const debug_features[] = { MOTION, NULL };
static const char *const provided_features[] = { SAD, MOTION, MOTION2, MOTION3, NULL };
static const char *const flushed_features[] = { MOTION2, MOTION3, NULL };

#define NAMES VMAF_OPT_FLAG_NAMES_SCORE
static const VmafOption options[] = {
    { .name = "motion_force_zero", .alias = "force_0", .help = "force every motion score to 0",
      .type = VMAF_OPT_TYPE_BOOL, .offset = offsetof(MotionOptions, force_zero),
      .def.b = false, .flags = NAMES },
    { .name = "motion_blend_factor", .alias = "mbf",
      .help = "weight of the SAD in motion3 against its value capped at motion_blend_offset",
      .type = VMAF_OPT_TYPE_DOUBLE, .offset = offsetof(MotionOptions, blend_factor),
      .def.d = 1.0, .min = 0.0, .max = 1.0, .flags = NAMES },
    { .name = "motion_blend_offset", .alias = "mbo",
      .help = "the value motion3 caps the SAD at before blending",
      .type = VMAF_OPT_TYPE_DOUBLE, .offset = offsetof(MotionOptions, blend_offset),
      .def.d = 40.0, .min = 0.0, .max = 1000.0, .flags = NAMES },
    { .name = "motion_fps_weight", .alias = "mfw",
      .help = "factor on every SAD, to correct for the frame rate",
      .type = VMAF_OPT_TYPE_DOUBLE, .offset = offsetof(MotionOptions, fps_weight),
      .def.d = 1.0, .min = 0.0, .max = 5.0, .flags = NAMES },
    { .name = "motion_max_val", .alias = "mmxv", .help = "the largest motion score; above it, "
      "scores are clipped", .type = VMAF_OPT_TYPE_DOUBLE,
      .offset = offsetof(MotionOptions, max_val), .def.d = 10000.0, .min = 0.0,
      .max = 10000.0, .flags = NAMES },
    { .name = "motion_five_frame_window", .alias = "mffw",
      .help = "compare each frame with the one two frames back, and take motion2 over frames "
              "i-1 and i+1 (the high-frame-rate models)",
      .type = VMAF_OPT_TYPE_BOOL, .offset = offsetof(MotionOptions, five_frame_window),
      .def.b = false, .flags = NAMES },
    { .name = "motion_moving_average", .alias = "mma",
      .help = "motion3 is the mean of this frame's and the previous frame's blended score",
      .type = VMAF_OPT_TYPE_BOOL, .offset = offsetof(MotionOptions, moving_average),
      .def.b = false, .flags = NAMES },
    { .name = "debug", .help = "also report " MOTION " (the SAD score again)",
      .type = VMAF_OPT_TYPE_BOOL, .offset = offsetof(MotionOptions, debug), .def.b = false,
      .flags = VMAF_OPT_FLAG_ADDS_OUTPUTS, .enables = debug_features },
    { NULL },
};

static int init(VmafFex *fex)
{
    MotionState *st = fex->priv;
    st->kernels = vmaf_motion_kernels_best();
    st->row = malloc(vmaf_motion_scratch_len(fex->w) * sizeof(*st->row));
    if (!st->row) {
        vmaf_error("motion: out of memory allocating a row of %u samples", fex->w);
        return -ENOMEM;
    }
    return 0;
}

static double min_d(double a, double b)
{
    return a < b ? a : b;
}

/* The SAD score of one frame against the reference `prev`. */
static double sad_score(const MotionState *st, const VmafFex *fex, const VmafPicture *prev,
                        const VmafPicture *cur)
{
    const uint64_t sad = vmaf_motion_sad(st->kernels, prev->data[0], prev->stride[0],
                                         cur->data[0], cur->stride[0], fex->w, fex->h,
                                         fex->bpc, st->row);
    /* w * h in unsigned arithmetic, then double, as the reference's. */
    const unsigned pixels = fex->w * fex->h;
    return min_d((double)sad / 256. / pixels * st->opt.fps_weight, st->opt.max_val);
}

static int extract(VmafFex *fex, const VmafFexFrame *frame, VmafFeatureCollector *fc)
{
    MotionState *st = fex->priv;
    int err = vmaf_fex_check_frame(fex, frame);
    if (err)
        return err;
    double score = 0.;
    const unsigned back = st->opt.five_frame_window ? 2 : 1;
    if (!st->opt.force_zero && frame->index >= back) {
        const VmafPicture *prev = frame->prev_ref[back - 1];
        if (!prev) {
            vmaf_error("motion: frame %u: no reference picture %u frame%s back to compare "
                       "with; read the frames in order from index 0",
                       frame->index, back, back > 1 ? "s" : "");
            return -EINVAL;
        }
        score = sad_score(st, fex, prev, frame->ref);
    }
    err = vmaf_fex_store(fex, fc, SAD, score, frame->index);
    if (!err && st->opt.debug)
        err = vmaf_fex_store(fex, fc, MOTION, score, frame->index);
    if (err)
        vmaf_error("motion: frame %u: could not store the scores (%d)", frame->index, err);
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
    (void)vmaf_fex_load(fex, fc, SAD, &sad_i, i);
    if (i < back)
        return 0.;
    if (i + 1 >= n || vmaf_fex_load(fex, fc, SAD, &hi, i + 1))
        return sad_i;
    /* The five-frame window looks one frame further back: frame i - 1. */
    const unsigned lo_idx = i - (back - 1);
    if (lo_idx < back)
        return hi;
    (void)vmaf_fex_load(fex, fc, SAD, &lo, lo_idx);
    return lo < hi ? lo : hi;
}

static int flush(VmafFex *fex, VmafFeatureCollector *fc)
{
    const MotionState *st = fex->priv;
    const MotionOptions *o = &st->opt;
    const unsigned back = o->five_frame_window ? 2 : 1;
    /* The frames from 0 up to the first one without a SAD, as the
     * reference counts them. */
    unsigned n = 0;
    double v;
    while (!vmaf_fex_load(fex, fc, SAD, &v, n))
        n++;
    /* Frames before the first comparison get the first blended SAD. */
    double stamp = 0.;
    if (n > back && !vmaf_fex_load(fex, fc, SAD, &v, back))
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
        int err = vmaf_fex_store(fex, fc, MOTION2, motion2, i);
        if (!err)
            err = vmaf_fex_store(fex, fc, MOTION3, motion3, i);
        if (err) {
            vmaf_error("motion: frame %u: could not store motion2 and motion3 (%d)", i, err);
            return err;
        }
    }
    return 0;
}

static void close_fex(VmafFex *fex)
{
    MotionState *st = fex ? fex->priv : NULL;
    if (!st)
        return;
    free(st->row);
    st->row = NULL;
}

const VmafFeatureExtractor vmaf_fex_motion = {
    .name = "motion",
    .backend = VMAF_FEX_BACKEND_CPU,
    .options = options,
    .priv_size = sizeof(MotionState),
    .provided_features = provided_features,
    .flushed_features = flushed_features,
    .flags = VMAF_FEX_FLAG_FRAME_PARALLEL | VMAF_FEX_FLAG_PREV_REF,
    .init = init,
    .extract = extract,
    .flush = flush,
    .close = close_fex,
};
