/*
 * psnr: the PSNR of each plane, as libvmaf 3.2's `psnr` extractor
 * computes it, bit for bit (docs/metrics/psnr.md), with its MSE and, over
 * the whole video, its aggregate apsnr. Frames are scored in any order on
 * any thread: each instance sums the squared errors of the frames it gets,
 * and the flush adds the instances' sums (integers: exact in any order).
 * Like the reference's, it sees the frames n_subsample leaves out, which
 * count in apsnr.
 */
#include <errno.h>
#include <float.h>
#include <stdbool.h>
#include <stddef.h>

#include "feature/feature_collector.h"
#include "feature/feature_extractor.h"
#include "feature/psnr/psnr.h"
#include "feature/psnr/psnr_sse.h"
#include "log.h"

typedef struct PsnrState {
    PsnrOptions opt; /* first: the option table's offsets point into it */
    const VmafPsnrKernels *kernels;
    unsigned planes, peak;
    unsigned pw[PSNR_PLANES], ph[PSNR_PLANES];
    double max[PSNR_PLANES];
    uint64_t sse_sum[PSNR_PLANES], samples[PSNR_PLANES]; /* this instance's frames */
} PsnrState;

static const char *const chroma_features[] = { "psnr_cb", "psnr_cr", "mse_cb", "mse_cr", NULL };
static const char *const mse_features[] = { "mse_y", "mse_cb", "mse_cr", NULL };
static const char *const provided_features[] = { "psnr_y", "mse_y", "psnr_cb", "mse_cb",
                                                 "psnr_cr", "mse_cr", NULL };

static const VmafOption options[] = {
    { .name = "enable_chroma", .help = "also score the two chroma planes",
      .type = VMAF_OPT_TYPE_BOOL, .offset = offsetof(PsnrOptions, enable_chroma),
      .def.b = true, .flags = VMAF_OPT_FLAG_ADDS_OUTPUTS, .enables = chroma_features },
    { .name = "enable_mse", .help = "also report each plane's mean squared error",
      .type = VMAF_OPT_TYPE_BOOL, .offset = offsetof(PsnrOptions, enable_mse),
      .def.b = false, .flags = VMAF_OPT_FLAG_ADDS_OUTPUTS, .enables = mse_features },
    { .name = "enable_apsnr", .help = "also report apsnr, the PSNR of the whole video, in "
      "the report's aggregate metrics", .type = VMAF_OPT_TYPE_BOOL,
      .offset = offsetof(PsnrOptions, enable_apsnr), .def.b = false,
      .flags = VMAF_OPT_FLAG_ADDS_OUTPUTS },
    { .name = "reduced_hbd_peak", .help = "above 8 bits, take the 8-bit peak scaled "
      "(255 * 2^(bpc-8)) instead of 2^bpc - 1", .type = VMAF_OPT_TYPE_BOOL,
      .offset = offsetof(PsnrOptions, reduced_hbd_peak), .def.b = false },
    { .name = "min_sse", .help = "the least sum of squared errors a plane is taken to have: "
      "caps the PSNR at ceil(10 log10(peak^2 samples / min_sse)) instead of 6 bpc + 12 "
      "(0: no such cap)", .type = VMAF_OPT_TYPE_DOUBLE,
      .offset = offsetof(PsnrOptions, min_sse), .def.d = 0.0, .min = 0.0, .max = DBL_MAX },
    { NULL },
};

int vmaf_psnr_check_format(const VmafFex *fex, const PsnrOptions *o)
{
    if (o->enable_chroma && fex->pix_fmt == VMAF_PIX_FMT_YUV400P) {
        vmaf_error("%s: the pictures are 4:0:0 (luma only), and psnr_cb and psnr_cr need "
                   "chroma planes; give pictures with chroma, or set enable_chroma=false",
                   fex->fex->name);
        return -EINVAL;
    }
    return 0;
}

int vmaf_psnr_store_plane(const VmafFex *fex, VmafFeatureCollector *fc, const PsnrOptions *o,
                          unsigned p, double mse, unsigned peak, double max, unsigned index)
{
    int err = vmaf_fex_store(fex, fc, vmaf_psnr_feature[p], vmaf_psnr_db(mse, peak, max), index);
    if (!err && o->enable_mse)
        err = vmaf_fex_store(fex, fc, vmaf_mse_feature[p], mse, index);
    return err;
}

int vmaf_psnr_store_apsnr(const VmafFex *fex, VmafFeatureCollector *fc, unsigned planes,
                          const uint64_t sse[PSNR_PLANES], const uint64_t samples[PSNR_PLANES],
                          unsigned peak)
{
    for (unsigned p = 0; p < planes; p++) {
        if (!samples[p])
            continue; /* no frame was read */
        int err = vmaf_feature_collector_set_aggregate(fc, vmaf_apsnr_feature[p],
                                                       vmaf_apsnr_db(sse[p], samples[p], peak));
        if (err) {
            vmaf_error("%s: out of memory storing %s", fex->fex->name, vmaf_apsnr_feature[p]);
            return err;
        }
    }
    return 0;
}

static int init(VmafFex *fex)
{
    PsnrState *st = fex->priv;
    int err = vmaf_psnr_check_format(fex, &st->opt);
    if (err)
        return err;
    st->kernels = vmaf_psnr_kernels_best();
    st->planes = st->opt.enable_chroma ? PSNR_PLANES : 1;
    st->peak = vmaf_psnr_peak(&st->opt, fex->bpc);
    for (unsigned p = 0; p < st->planes; p++) {
        vmaf_fex_reference_plane_size(fex, p, &st->pw[p], &st->ph[p]);
        st->max[p] = vmaf_psnr_max(&st->opt, fex->bpc, st->peak, st->pw[p], st->ph[p]);
    }
    return 0;
}

static int extract(VmafFex *fex, const VmafFexFrame *frame, VmafFeatureCollector *fc)
{
    PsnrState *st = fex->priv;
    int err = vmaf_fex_check_frame(fex, frame);
    if (!err && st->planes > 1)
        err = vmaf_fex_check_chroma(fex, frame, st->pw[1], st->ph[1]);
    for (unsigned p = 0; p < st->planes && !err; p++) {
        const VmafPicture *a = frame->ref, *b = frame->dist;
        const uint64_t sse = vmaf_psnr_sse(st->kernels, a->data[p], a->stride[p], b->data[p],
                                           b->stride[p], st->pw[p], st->ph[p], fex->bpc);
        st->sse_sum[p] += sse;
        st->samples[p] += st->pw[p] * st->ph[p];
        err = vmaf_psnr_store_plane(fex, fc, &st->opt, p, vmaf_psnr_mse(sse, st->pw[p], st->ph[p]),
                                    st->peak, st->max[p], frame->index);
    }
    return err;
}

/* apsnr over every frame read, from the sums of every instance. */
static int flush(VmafFex *fex, VmafFeatureCollector *fc)
{
    const PsnrState *st = fex->priv;
    if (!st->opt.enable_apsnr)
        return 0;
    uint64_t sse[PSNR_PLANES] = { 0 }, samples[PSNR_PLANES] = { 0 };
    for (unsigned k = 0; k < fex->n_peers; k++) {
        const PsnrState *peer = fex->peer[k].priv;
        for (unsigned p = 0; p < st->planes; p++) {
            sse[p] += peer->sse_sum[p];
            samples[p] += peer->samples[p];
        }
    }
    return vmaf_psnr_store_apsnr(fex, fc, st->planes, sse, samples, st->peak);
}

static bool reads_chroma(const void *priv)
{
    const PsnrOptions *o = priv;
    return o->enable_chroma;
}

static void close_fex(VmafFex *fex)
{
    (void)fex; /* nothing allocated */
}

const VmafFeatureExtractor vmaf_fex_psnr = {
    .name = "psnr",
    .backend = VMAF_FEX_BACKEND_CPU,
    .options = options,
    .priv_size = sizeof(PsnrState),
    .provided_features = provided_features,
    .flags = VMAF_FEX_FLAG_FRAME_PARALLEL | VMAF_FEX_FLAG_EVERY_FRAME | VMAF_FEX_FLAG_CHROMA,
    .reads_chroma = reads_chroma,
    .init = init,
    .extract = extract,
    .flush = flush,
    .close = close_fex,
};
