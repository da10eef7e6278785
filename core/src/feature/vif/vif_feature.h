/*
 * What the vif extractor and its CUDA twin share: the options (the CPU
 * extractor's table points into VifOptions; the twin inherits the table),
 * the parameter set they mean, and the storing of a set's scores under
 * the reference's names.
 */
#ifndef LIBVMAF_SRC_FEATURE_VIF_VIF_FEATURE_H
#define LIBVMAF_SRC_FEATURE_VIF_VIF_FEATURE_H

#include <stdbool.h>

#include "feature/feature_collector.h"
#include "feature/feature_extractor.h"
#include "feature/vif/vif.h"

typedef struct VifOptions {
    double enhn_gain_limit;
    bool skip_scale0;
    bool debug;
} VifOptions;

static inline VifParams vmaf_vif_params_of(const VifOptions *o)
{
    return (VifParams){ .enhn_gain_limit = o->enhn_gain_limit, .skip_scale0 = o->skip_scale0 };
}

/* Stores the scores of the instance's option set v (VmafFex.variant[v]) for
 * frame `index`: the four scales, and with debug the totals and each
 * scale's numerator and denominator. 0, or the collector's error. */
int vmaf_vif_store_scores(const VmafFex *fex, unsigned v, const VifScores *s,
                          VmafFeatureCollector *fc, unsigned index);

#endif /* LIBVMAF_SRC_FEATURE_VIF_VIF_FEATURE_H */
