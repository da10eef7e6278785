/*
 * What the adm extractor and its CUDA twin share: the options (the CPU
 * extractor's table points into AdmOptions; the twin inherits the table),
 * the parameter set they mean, and the storing of a set's scores under the
 * reference's names.
 */
#ifndef LIBVMAF_SRC_FEATURE_ADM_ADM_FEATURE_H
#define LIBVMAF_SRC_FEATURE_ADM_ADM_FEATURE_H

#include <stdbool.h>

#include "feature/adm/adm.h"
#include "feature/feature_collector.h"
#include "feature/feature_extractor.h"

typedef struct AdmOptions {
    bool debug;
    double csf_scale;
    double csf_diag_scale;
    double dlm_weight;
    double enhn_gain_limit;
    double norm_view_dist;
    int ref_display_height;
    int csf_mode;
    double noise_weight;
    bool skip_aim;
    bool skip_scale0;
    double min_val;
} AdmOptions;

static inline AdmParams vmaf_adm_params_of(const AdmOptions *o)
{
    return (AdmParams){
        .enhn_gain_limit = o->enhn_gain_limit,
        .norm_view_dist = o->norm_view_dist,
        .csf_scale = o->csf_scale,
        .csf_diag_scale = o->csf_diag_scale,
        .noise_weight = o->noise_weight,
        .dlm_weight = o->dlm_weight,
        .min_val = o->min_val,
        .ref_display_height = o->ref_display_height,
        .csf_mode = o->csf_mode,
        .skip_scale0 = o->skip_scale0,
        .skip_aim = o->skip_aim,
    };
}

/* Stores the scores of the instance's option set v (VmafFex.variant[v]) for
 * frame `index`: adm2, aim, adm3 and the four scales, and with debug the
 * totals and each scale's numerator and denominator. 0, or the collector's
 * error. */
int vmaf_adm_store_scores(const VmafFex *fex, unsigned v, const AdmScores *s,
                          VmafFeatureCollector *fc, unsigned index);

#endif /* LIBVMAF_SRC_FEATURE_ADM_ADM_FEATURE_H */
