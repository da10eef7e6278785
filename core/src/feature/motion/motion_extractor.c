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
#include "feature/motion/motion.h"
#include "feature/motion/motion_sad.h"
#include "log.h"

typedef struct MotionState {
    MotionOptions opt; /* first: the option table's offsets point into it */
    const VmafMotionKernels *kernels;
    int32_t *row;
} MotionState;

static const char *const debug_features[] = { MOTION_FEATURE, NULL };
static const char *const provided_features[] = { MOTION_SAD_FEATURE, MOTION_FEATURE,
                                                 MOTION2_FEATURE, MOTION3_FEATURE, NULL };
static const char *const flushed_features[] = { MOTION2_FEATURE, MOTION3_FEATURE, NULL };

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
    { .name = "debug", .help = "also report " MOTION_FEATURE " (the SAD score again)",
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

/* The SAD score of one frame against the reference `prev`. */
static double sad_score(const MotionState *st, const VmafFex *fex, const VmafPicture *prev,
                        const VmafPicture *cur)
{
    const uint64_t sad = vmaf_motion_sad(st->kernels, prev->data[0], prev->stride[0],
                                         cur->data[0], cur->stride[0], fex->w, fex->h,
                                         fex->bpc, st->row);
    return vmaf_motion_sad_score(&st->opt, sad, fex->w, fex->h);
}

static int extract(VmafFex *fex, const VmafFexFrame *frame, VmafFeatureCollector *fc)
{
    MotionState *st = fex->priv;
    int err = vmaf_fex_check_frame(fex, frame);
    if (err)
        return err;
    double score = 0.;
    const unsigned back = vmaf_motion_back(&st->opt);
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
    return vmaf_motion_store(fex, &st->opt, fc, score, frame->index, "motion");
}

static int flush(VmafFex *fex, VmafFeatureCollector *fc)
{
    const MotionState *st = fex->priv;
    return vmaf_motion_flush_scores(fex, &st->opt, fc, "motion");
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
