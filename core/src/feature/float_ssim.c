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

typedef struct FloatSsimState {
    /* options (the offsets in the table below point here) */
    int scale;
    bool enable_lcs;
    bool enable_db;
    bool clip_db;
    /* state */
    int eff_scale;
    double max_db;
    void *scratch;
    size_t scratch_size;
} FloatSsimState;

static const VmafOption options[] = SSIM_OPTIONS(FloatSsimState);

static const char *const provided_features[] = SSIM_PROVIDED_FEATURES;

static int init(VmafFex *fex)
{
    FloatSsimState *st = fex->priv;
    char why[256];

    st->scratch = NULL;
    if (fex->bpc != 8 && fex->bpc != 10 && fex->bpc != 12 && fex->bpc != 16) {
        vmaf_error("float_ssim: %u bits per component is not supported; use 8, 10, 12 or 16",
                   fex->bpc);
        return -EINVAL;
    }
    st->eff_scale = ssim_effective_scale(st->scale, fex->w, fex->h);
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

    st->max_db = ssim_max_db(st->clip_db, fex->bpc, fex->w, fex->h);
    return 0;
}

static int extract(VmafFex *fex, const VmafPicture *ref, const VmafPicture *dist,
                   unsigned index, VmafFeatureCollector *fc)
{
    FloatSsimState *st = fex->priv;
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
    err = ssim_store_scores(fc, index, mean, st->enable_lcs, st->enable_db, st->max_db);
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
