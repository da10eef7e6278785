/*
 * psnr_cuda: the CUDA twin of psnr, with the CPU's scores bit for bit
 * (docs/metrics/psnr.md). A frame's kernel sums each plane's squared
 * errors (exact integers); the host turns them into scores with the CPU's
 * own functions and keeps the whole video's sums for apsnr. It reads the
 * chroma planes, which the frames then carry (cuda_frames.c), and sees
 * every frame, as the CPU extractor does.
 */
#include <errno.h>

#include <cuda_runtime_api.h>

#include "cuda/twin.h"
#include "feature/cuda/psnr_cuda_kernels.h"
#include "feature/feature_collector.h"
#include "feature/feature_extractor.h"
#include "feature/psnr/psnr.h"
#include "log.h"

#define NAME "psnr_cuda"

_Static_assert(PSNR_CUDA_PLANES == PSNR_PLANES, "the kernel's planes are the CPU's");

typedef struct PsnrCudaState {
    PsnrOptions opt; /* first: psnr's option table points into it */
    VmafCudaTwin twin;
    const VmafFex *fex; /* for the score names (vmaf_fex_store) */
    unsigned planes, peak, bpc;
    unsigned pw[PSNR_PLANES], ph[PSNR_PLANES];
    double max[PSNR_PLANES];
    uint64_t sse_sum[PSNR_PLANES], samples[PSNR_PLANES]; /* the frames harvested */
} PsnrCudaState;

static cudaError_t enqueue(void *state, unsigned slot, const VmafCudaPlanes *p, void *result,
                           cudaStream_t s)
{
    (void)slot;
    const PsnrCudaState *st = state;
    PsnrCudaPlanes pl = { .planes = st->planes, .bpc = st->bpc };
    for (unsigned k = 0; k < st->planes; k++) {
        pl.ref[k] = k ? p->chroma[0][k - 1] : p->luma[0];
        pl.dis[k] = k ? p->chroma[1][k - 1] : p->luma[1];
        pl.ref_pitch[k] = k ? p->chroma_pitch[0][k - 1] : p->pitch[0];
        pl.dis_pitch[k] = k ? p->chroma_pitch[1][k - 1] : p->pitch[1];
        pl.w[k] = st->pw[k];
        pl.h[k] = st->ph[k];
    }
    return vmaf_psnr_cuda_sse(&pl, result, s);
}

/* scores[p]: plane p's MSE, as the CPU computes it from the same sum. */
static int harvest(void *state, unsigned slot, const VmafCudaPlanes *p, void *result,
                   cudaStream_t s, double *scores)
{
    (void)slot, (void)p, (void)s;
    PsnrCudaState *st = state;
    const uint64_t *sse = result;
    for (unsigned k = 0; k < st->planes; k++) {
        st->sse_sum[k] += sse[k];
        st->samples[k] += st->pw[k] * st->ph[k];
        scores[k] = vmaf_psnr_mse(sse[k], st->pw[k], st->ph[k]);
    }
    return 0;
}

static int store(void *state, unsigned index, const double *scores, VmafFeatureCollector *fc)
{
    const PsnrCudaState *st = state;
    int err = 0;
    for (unsigned k = 0; k < st->planes && !err; k++)
        err = vmaf_psnr_store_plane(st->fex, fc, &st->opt, k, scores[k], st->peak, st->max[k],
                                    index);
    return err;
}

static const VmafCudaTwinOps psnr_ops = {
    .name = NAME,
    .launch_what = "launching the PSNR kernel",
    .result_bytes = PSNR_PLANES * sizeof(uint64_t), /* the sums: no slot buffers */
    .load_kernels = vmaf_psnr_cuda_prepare,
    .enqueue = enqueue,
    .harvest = harvest,
    .store = store,
};

static int init(VmafFex *fex)
{
    PsnrCudaState *st = fex->priv;
    int err = vmaf_cuda_twin_check_context(fex);
    if (!err)
        err = vmaf_psnr_check_format(fex, &st->opt);
    if (err)
        return err;
    st->fex = fex;
    st->bpc = fex->bpc;
    st->planes = st->opt.enable_chroma ? PSNR_PLANES : 1;
    if (st->planes > 1 && !vmaf_cuda_frames_chroma(fex->frames)) {
        /* The context makes them with chroma for this twin; a caller of
         * the internal API may not have. */
        vmaf_error(NAME ": the device frames carry no chroma planes; make them with "
                   "VmafCudaFramesGeometry.chroma set");
        return -EINVAL;
    }
    st->peak = vmaf_psnr_peak(&st->opt, fex->bpc);
    for (unsigned k = 0; k < st->planes; k++) {
        vmaf_fex_reference_plane_size(fex, k, &st->pw[k], &st->ph[k]);
        st->max[k] = vmaf_psnr_max(&st->opt, fex->bpc, st->peak, st->pw[k], st->ph[k]);
    }
    return vmaf_cuda_twin_init(&st->twin, &psnr_ops, st, fex);
}

/* Every frame collected, then apsnr from the whole video's sums. */
static int flush(VmafFex *fex, VmafFeatureCollector *fc)
{
    const PsnrCudaState *st = fex->priv;
    const int err = vmaf_cuda_twin_fex_flush(fex, fc);
    if (err || !st->opt.enable_apsnr)
        return err;
    return vmaf_psnr_store_apsnr(fex, fc, st->planes, st->sse_sum, st->samples, st->peak);
}

extern const VmafFeatureExtractor vmaf_fex_psnr;

const VmafFeatureExtractor vmaf_fex_psnr_cuda = {
    .name = NAME,
    .backend = VMAF_FEX_BACKEND_CUDA,
    .twin_of = &vmaf_fex_psnr,
    .priv_size = sizeof(PsnrCudaState),
    .check_context = vmaf_cuda_twin_takes_all,
    .init = init,
    VMAF_CUDA_TWIN_HOOKS_WITH(vmaf_cuda_twin_fex_submit, flush),
};
