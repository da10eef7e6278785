/*
 * What float_ms_ssim and its device twin share as extractors: the options
 * struct (the twin takes float_ms_ssim's option table and features through
 * the registry), the names of the per-scale outputs and the storing of a
 * frame's scores.
 */
#ifndef LIBVMAF_SRC_FEATURE_MS_SSIM_MS_SSIM_FEATURE_H
#define LIBVMAF_SRC_FEATURE_MS_SSIM_MS_SSIM_FEATURE_H

#include <math.h>
#include <stdbool.h>

#include "feature/feature_collector.h"
#include "feature/ms_ssim/ms_ssim.h"

/* The options of float_ms_ssim and its twin, the first member of each
 * one's private struct (the option table's offsets point into it). */
typedef struct MsSsimOptions {
    bool enable_lcs;
    bool enable_db;
    bool clip_db;
} MsSsimOptions;

/* l of every scale, then c, then s: "float_ms_ssim_l_scale0" ... */
extern const char *const vmaf_ms_ssim_lcs_features[3 * MS_SSIM_SCALES + 1];

/* Stores one frame's outputs: float_ms_ssim (in dB with enable_db, capped
 * at max_db: ssim_max_db()) and, with enable_lcs, l, c and s of every
 * scale. 0 or the collector's error. */
static inline int ms_ssim_store_scores(VmafFeatureCollector *fc, unsigned index,
                                       const MsSsimResult *r, const MsSsimOptions *opt,
                                       double max_db)
{
    double score = r->score;
    if (opt->enable_db) {
        const double db = -10.0 * log10(1.0 - score);
        score = db < max_db ? db : max_db;
    }
    int err = vmaf_feature_collector_append(fc, "float_ms_ssim", score, index);
    const double *lcs[3] = { r->l, r->c, r->s };
    for (int k = 0; k < 3 * MS_SSIM_SCALES && !err && opt->enable_lcs; k++)
        err = vmaf_feature_collector_append(fc, vmaf_ms_ssim_lcs_features[k],
                                            lcs[k / MS_SSIM_SCALES][k % MS_SSIM_SCALES], index);
    return err;
}

#endif /* LIBVMAF_SRC_FEATURE_MS_SSIM_MS_SSIM_FEATURE_H */
