/*
 * float_ssim: SSIM of the luma planes, bit for bit the scores of the
 * reference libvmaf extractor (see docs/metrics/float_ssim.md). The numerics
 * live in ssim/; this file holds the options, the per-instance scratch and
 * the conversion to dB.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>

#include "feature/feature_collector.h"
#include "feature/feature_extractor.h"
#include "feature/ssim/ssim.h"
#include "feature/ssim/ssim_feature.h"
#include "log.h"
#include "picture_internal.h"

typedef struct FloatSsimState {
    SsimOptions opt; /* first: the option table's offsets point into it */
    int eff_scale;
    double max_db;
    void *scratch;
    size_t scratch_size;
} FloatSsimState;

static const char *const lcs_features[] = { "float_ssim_l", "float_ssim_c", "float_ssim_s",
                                            NULL };

static const VmafOption options[] = {
    {
        .name = "scale",
        .help = "decimation scale, 0 = automatic from the picture size",
        .type = VMAF_OPT_TYPE_INT,
        .offset = offsetof(SsimOptions, scale),
        .def.i = 0,
        .min = 0,
        .max = SSIM_SCALE_MAX_OPTION,
    },
    {
        .name = "enable_lcs",
        .help = "also report the luminance, contrast and structure terms "
                "(float_ssim_l, float_ssim_c, float_ssim_s)",
        .type = VMAF_OPT_TYPE_BOOL,
        .offset = offsetof(SsimOptions, enable_lcs),
        .def.b = false,
        .flags = VMAF_OPT_FLAG_ADDS_OUTPUTS,
        .enables = lcs_features,
    },
    {
        .name = "enable_db",
        .help = "report float_ssim in dB, -10*log10(1 - score); the l, c, s terms stay linear",
        .type = VMAF_OPT_TYPE_BOOL,
        .offset = offsetof(SsimOptions, enable_db),
        .def.b = false,
    },
    {
        .name = "clip_db",
        .help = "with enable_db, cap the dB score at ceil(10*log10(peak^2 * w * h / 0.5)), "
                "peak = 2^bpc - 1, so that identical frames score a finite value",
        .type = VMAF_OPT_TYPE_BOOL,
        .offset = offsetof(SsimOptions, clip_db),
        .def.b = false,
        .needs = "enable_db",
    },
    { NULL },
};

static const char *const provided_features[] = { "float_ssim", "float_ssim_l", "float_ssim_c",
                                                 "float_ssim_s", NULL };

static int init(VmafFex *fex)
{
    FloatSsimState *st = fex->priv;
    char why[256];

    st->scratch = NULL;
    if (!vmaf_bpc_supported(fex->bpc)) {
        vmaf_error("float_ssim: %u bits per component is not supported; use 8, 10, 12 or 16",
                   fex->bpc);
        return -EINVAL;
    }
    st->eff_scale = ssim_effective_scale(st->opt.scale, fex->w, fex->h);
    if (ssim_geometry_check(fex->w, fex->h, st->eff_scale, why, sizeof(why))) {
        vmaf_error("float_ssim: %s", why);
        return -EINVAL;
    }
    st->scratch_size = vmaf_ssim_scratch_size(fex->w, fex->h, st->eff_scale);
    if (!st->scratch_size) {
        vmaf_error("float_ssim: %ux%u at scale %d is too small to decimate; use a smaller "
                   "scale",
                   fex->w, fex->h, st->eff_scale);
        return -EINVAL;
    }
    st->scratch = malloc(st->scratch_size);
    if (!st->scratch) {
        vmaf_error("float_ssim: out of memory allocating %zu bytes of scratch for %ux%u",
                   st->scratch_size, fex->w, fex->h);
        return -ENOMEM;
    }

    st->max_db = ssim_max_db(st->opt.clip_db, fex->bpc, fex->w, fex->h);
    return 0;
}

static int extract(VmafFex *fex, const VmafFexFrame *frame, VmafFeatureCollector *fc)
{
    FloatSsimState *st = fex->priv;
    const VmafPicture *ref = frame->ref, *dist = frame->dist;
    const unsigned index = frame->index;
    if (!ref || !dist || !ref->data[0] || !dist->data[0]) {
        vmaf_error("float_ssim: frame %u: a picture without a luma plane", index);
        return -EINVAL;
    }
    if (ref->bpc != fex->bpc || dist->bpc != fex->bpc || ref->w[0] != fex->w ||
        ref->h[0] != fex->h || dist->w[0] != fex->w || dist->h[0] != fex->h) {
        vmaf_error("float_ssim: frame %u: pictures are %ux%u %u-bit (reference) and %ux%u "
                   "%u-bit (distorted), the extractor was set up for %ux%u %u-bit",
                   index, ref->w[0], ref->h[0], ref->bpc, dist->w[0], dist->h[0], dist->bpc,
                   fex->w, fex->h, fex->bpc);
        return -EINVAL;
    }

    VmafSsimResult r;
    int err = vmaf_ssim_compute(ref->data[0], ref->stride[0], dist->data[0], dist->stride[0],
                                fex->bpc, fex->w, fex->h, st->eff_scale, st->scratch,
                                st->scratch_size, &r);
    if (err) {
        vmaf_error("float_ssim: frame %u: SSIM computation failed (%d): internal error, "
                   "please report", index, err);
        return err;
    }

    const double mean[4] = { r.score, r.l, r.c, r.s };
    err = ssim_store_scores(fc, index, mean, st->opt.enable_lcs, st->opt.enable_db, st->max_db);
    if (err)
        vmaf_error("float_ssim: frame %u: could not store the scores (%d)", index, err);
    return err;
}

static void close_fex(VmafFex *fex)
{
    FloatSsimState *st = fex ? fex->priv : NULL;
    if (!st)
        return;
    free(st->scratch);
    st->scratch = NULL;
}

const VmafFeatureExtractor vmaf_fex_float_ssim = {
    .name = "float_ssim",
    .backend = VMAF_FEX_BACKEND_CPU,
    .options = options,
    .priv_size = sizeof(FloatSsimState),
    .provided_features = provided_features,
    .flags = VMAF_FEX_FLAG_FRAME_PARALLEL,
    .init = init,
    .extract = extract,
    .close = close_fex,
};
