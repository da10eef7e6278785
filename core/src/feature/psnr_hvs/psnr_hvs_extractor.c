/*
 * psnr_hvs: PSNR-HVS of each plane and their weighted combination, as
 * libvmaf 3.2's `psnr_hvs` extractor computes them, bit for bit
 * (docs/metrics/psnr_hvs.md). Planes are the reference's: chroma sides
 * halved rounding down.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>

#include "feature/feature_collector.h"
#include "feature/feature_extractor.h"
#include "feature/psnr_hvs/psnr_hvs.h"
#include "log.h"

typedef struct PsnrHvsState {
    unsigned pw[3], ph[3];
} PsnrHvsState;

static const char *const provided_features[] = { "psnr_hvs_y", "psnr_hvs_cb", "psnr_hvs_cr",
                                                 "psnr_hvs", NULL };

int vmaf_psnr_hvs_planes(const VmafFex *fex, unsigned pw[3], unsigned ph[3])
{
    if (fex->bpc > 12) {
        vmaf_error("psnr_hvs: %u-bit pictures: its integer transform is defined up to 12 "
                   "bits; convert the inputs to 12 bits or fewer", fex->bpc);
        return -EINVAL;
    }
    if (fex->pix_fmt == VMAF_PIX_FMT_YUV400P) {
        vmaf_error("psnr_hvs: the pictures are 4:0:0 (luma only), and psnr_hvs needs the "
                   "chroma planes; give pictures with chroma");
        return -EINVAL;
    }
    for (unsigned p = 0; p < 3; p++)
        vmaf_fex_reference_plane_size(fex, p, &pw[p], &ph[p]);
    /* Without one 8x8 block a plane's error is 0/0, which the reference
     * reports as NaN. */
    if (pw[1] < 8 || ph[1] < 8) {
        vmaf_error("psnr_hvs: %ux%u pictures have %ux%u chroma planes, and it needs an 8x8 "
                   "block in every plane: give pictures of at least %ux%u", fex->w, fex->h,
                   pw[1], ph[1], pw[1] < fex->w ? 16 : 8, ph[1] < fex->h ? 16 : 8);
        return -EINVAL;
    }
    return 0;
}

static int init(VmafFex *fex)
{
    PsnrHvsState *st = fex->priv;
    return vmaf_psnr_hvs_planes(fex, st->pw, st->ph);
}

static double to_db(double error)
{
    return 10 * (-1 * log10(1.0 * error));
}

int vmaf_psnr_hvs_store(const VmafFex *fex, VmafFeatureCollector *fc, const double error[3],
                        unsigned index)
{
    int err = 0;
    for (int p = 0; p < 3 && !err; p++)
        err = vmaf_fex_store(fex, fc, provided_features[p], to_db(error[p]), index);
    if (err)
        return err;
    const double combined = error[0] * .8 + .1 * (error[1] + error[2]);
    return vmaf_fex_store(fex, fc, "psnr_hvs", to_db(combined), index);
}

static int extract(VmafFex *fex, const VmafFexFrame *frame, VmafFeatureCollector *fc)
{
    const PsnrHvsState *st = fex->priv;
    int err = vmaf_fex_check_frame(fex, frame);
    if (!err)
        err = vmaf_fex_check_chroma(fex, frame, st->pw[1], st->ph[1]);
    if (err)
        return err;
    double error[3];
    for (int p = 0; p < 3; p++) {
        const VmafPicture *a = frame->ref, *b = frame->dist;
        error[p] = vmaf_psnr_hvs_error(a->data[p], a->stride[p], b->data[p], b->stride[p],
                                       st->pw[p], st->ph[p], fex->bpc, p);
    }
    return vmaf_psnr_hvs_store(fex, fc, error, frame->index);
}

static void close_fex(VmafFex *fex)
{
    (void)fex; /* nothing allocated */
}

const VmafFeatureExtractor vmaf_fex_psnr_hvs = {
    .name = "psnr_hvs",
    .backend = VMAF_FEX_BACKEND_CPU,
    .priv_size = sizeof(PsnrHvsState),
    .provided_features = provided_features,
    .flags = VMAF_FEX_FLAG_FRAME_PARALLEL | VMAF_FEX_FLAG_CHROMA,
    .init = init,
    .extract = extract,
    .close = close_fex,
};
