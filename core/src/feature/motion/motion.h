/*
 * What the motion extractor and its CUDA twin share: the options (the
 * CPU extractor's table points into MotionOptions; the twin inherits the
 * table), the score names, and the scores made from a frame's SAD, which
 * both compute from the same integer sum.
 */
#ifndef LIBVMAF_SRC_FEATURE_MOTION_MOTION_H
#define LIBVMAF_SRC_FEATURE_MOTION_MOTION_H

#include <stdbool.h>
#include <stdint.h>

#include "feature/feature_collector.h"
#include "feature/feature_extractor.h"

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

#define MOTION_SAD_FEATURE "VMAF_integer_feature_motion_sad_score"
#define MOTION_FEATURE "integer_motion"
#define MOTION2_FEATURE "integer_motion2"
#define MOTION3_FEATURE "integer_motion3"

/* The frames back a frame's SAD compares with: 1, or 2 with the five-frame
 * window. */
static inline unsigned vmaf_motion_back(const MotionOptions *o)
{
    return o->five_frame_window ? 2 : 1;
}

/* The SAD score of a w x h frame whose blurred-difference sum is sad. */
double vmaf_motion_sad_score(const MotionOptions *o, uint64_t sad, unsigned w, unsigned h);

/* Stores frame `index`'s SAD score (and integer_motion with debug); logs a
 * failure as one line naming ext (the extractor). */
int vmaf_motion_store(const VmafFex *fex, const MotionOptions *o, VmafFeatureCollector *fc,
                      double score, unsigned index, const char *ext);

/* At the flush: motion2 and motion3 of every frame from the stored SAD
 * scores, as the reference derives them. */
int vmaf_motion_flush_scores(const VmafFex *fex, const MotionOptions *o,
                             VmafFeatureCollector *fc, const char *ext);

#endif /* LIBVMAF_SRC_FEATURE_MOTION_MOTION_H */
