/*
 * What float_ssim and its device twins share as extractors: the option
 * table (instantiated over each one's own private struct, whose layouts
 * differ), the feature names, the dB cap and the storing of a frame's
 * scores. One definition, so the backends cannot drift apart; the registry
 * test still compares the resulting tables field by field.
 */
#ifndef LIBVMAF_SRC_FEATURE_SSIM_SSIM_FEATURE_H
#define LIBVMAF_SRC_FEATURE_SSIM_SSIM_FEATURE_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>

#include "feature/feature_collector.h"
#include "feature/feature_extractor.h"
#include "feature/ssim/ssim_geometry.h"

static const char *const ssim_lcs_features[] = { "float_ssim_l", "float_ssim_c", "float_ssim_s",
                                                  NULL };

/* State must have the fields: int scale; bool enable_lcs, enable_db, clip_db. */
#define SSIM_OPTIONS(State)                                                                  \
    {                                                                                        \
        {                                                                                    \
            .name = "scale",                                                                 \
            .help = "decimation scale, 0 = automatic from the picture size",                 \
            .type = VMAF_OPT_TYPE_INT,                                                       \
            .offset = offsetof(State, scale),                                                \
            .def.i = 0,                                                                      \
            .min = 0,                                                                        \
            .max = SSIM_SCALE_MAX_OPTION,                                                    \
        },                                                                                   \
        {                                                                                    \
            .name = "enable_lcs",                                                            \
            .help = "also report the luminance, contrast and structure terms "               \
                    "(float_ssim_l, float_ssim_c, float_ssim_s)",                            \
            .type = VMAF_OPT_TYPE_BOOL,                                                      \
            .offset = offsetof(State, enable_lcs),                                           \
            .def.b = false,                                                                  \
            .flags = VMAF_OPT_FLAG_ADDS_OUTPUTS,                                             \
            .enables = ssim_lcs_features,                                                    \
        },                                                                                   \
        {                                                                                    \
            .name = "enable_db",                                                             \
            .help = "report float_ssim in dB, -10*log10(1 - score); the l, c, s terms "      \
                    "stay linear",                                                           \
            .type = VMAF_OPT_TYPE_BOOL,                                                      \
            .offset = offsetof(State, enable_db),                                            \
            .def.b = false,                                                                  \
        },                                                                                   \
        {                                                                                    \
            .name = "clip_db",                                                               \
            .help = "with enable_db, cap the dB score at "                                   \
                    "ceil(10*log10(peak^2 * w * h / 0.5)), peak = 2^bpc - 1, so that "       \
                    "identical frames score a finite value",                                 \
            .type = VMAF_OPT_TYPE_BOOL,                                                      \
            .offset = offsetof(State, clip_db),                                              \
            .def.b = false,                                                                  \
            .needs = "enable_db",                                                            \
        },                                                                                   \
        { NULL },                                                                            \
    }

#define SSIM_PROVIDED_FEATURES                                                               \
    { "float_ssim", "float_ssim_l", "float_ssim_c", "float_ssim_s", NULL }

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
