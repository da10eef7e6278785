/*
 * What float_ssim and its device twins share as extractors: the options
 * struct (the twins take float_ssim's option table and features through
 * the registry), the dB cap and the storing of a frame's scores.
 */
#ifndef LIBVMAF_SRC_FEATURE_SSIM_SSIM_FEATURE_H
#define LIBVMAF_SRC_FEATURE_SSIM_SSIM_FEATURE_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>

#include "feature/feature_collector.h"
#include "feature/feature_extractor.h"
#include "feature/ssim/ssim_geometry.h"

/* The options of float_ssim and its twins, the first member of each one's
 * private struct (the option table's offsets point into it). */
typedef struct SsimOptions {
    int scale;
    bool enable_lcs;
    bool enable_db;
    bool clip_db;
} SsimOptions;

/* The dB cap: +inf without clip_db; with it, the dB value of a squared
 * error of 0.5 over the whole ORIGINAL picture (it grows with size and
 * depth), computed in the reference's order of operations. */
static inline double ssim_max_db(bool clip_db, unsigned bpc, unsigned w, unsigned h)
{
    if (!clip_db)
        return INFINITY;
    const unsigned peak = (1u << bpc) - 1u;
    const double mse = 0.5 / (double)((double)w * (double)h);
    return ceil(10.0 * log10((double)(peak * peak) / mse));
}

/* Stores one frame's outputs: float_ssim (in dB with enable_db: min() as
 * the reference writes it, so identical frames give +inf, or max_db with
 * clip_db) and, with enable_lcs, the l, c and s means. 0 or the
 * collector's error. */
static inline int ssim_store_scores(VmafFeatureCollector *fc, unsigned index,
                                    const double mean[4], bool enable_lcs, bool enable_db,
                                    double max_db)
{
    double score = mean[0];
    if (enable_db) {
        const double db = -10.0 * log10(1.0 - score);
        score = db < max_db ? db : max_db;
    }
    int err = vmaf_feature_collector_append(fc, "float_ssim", score, index);
    if (!err && enable_lcs) {
        err = vmaf_feature_collector_append(fc, "float_ssim_l", mean[1], index);
        if (!err)
            err = vmaf_feature_collector_append(fc, "float_ssim_c", mean[2], index);
        if (!err)
            err = vmaf_feature_collector_append(fc, "float_ssim_s", mean[3], index);
    }
    return err;
}

#endif /* LIBVMAF_SRC_FEATURE_SSIM_SSIM_FEATURE_H */
