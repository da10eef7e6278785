/*
 * psnr_hvs_cuda: the CUDA twin of psnr_hvs, with the CPU's scores bit for
 * bit (docs/metrics/psnr_hvs.md). The device computes every block's 64
 * terms with the CPU's own block code (psnr_hvs/psnr_hvs_terms.cu); the
 * host adds them in the CPU's order, since each plane's error is one f32
 * sum whose every rounding counts, and stores the scores with the CPU
 * extractor's functions. It reads the chroma planes, which the frames then
 * carry (cuda_frames.c).
 */
#include <errno.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "cuda/twin.h"
#include "feature/cuda/psnr_hvs_cuda_kernels.h"
#include "feature/feature_collector.h"
#include "feature/feature_extractor.h"
#include "feature/psnr_hvs/psnr_hvs.h"
#include "feature/psnr_hvs/psnr_hvs_block.h"
#include "log.h"

#define NAME "psnr_hvs_cuda"
#define SLOTS VMAF_CUDA_FRAMES_IN_FLIGHT
#define PLANES 3

/* A slot's terms, on the device and read back into pinned memory. */
typedef struct PsnrHvsSlot {
    float *dterms, *hterms;
} PsnrHvsSlot;

typedef struct PsnrHvsCudaState {
    VmafCudaTwin twin;
    const VmafFex *fex;
    unsigned pw[PLANES], ph[PLANES], nbx[PLANES], nby[PLANES];
    size_t first[PLANES + 1]; /* plane p's terms: first[p] .. first[p + 1] - 1 */
    PsnrHvsCudaTables tables[PLANES];
    PsnrHvsSlot slot[SLOTS];
} PsnrHvsCudaState;

static cudaError_t init_slot(void *state, unsigned slot)
{
    PsnrHvsCudaState *st = state;
    PsnrHvsSlot *sl = &st->slot[slot];
    const size_t bytes = st->first[PLANES] * sizeof(float);
    cudaError_t e = cudaMalloc((void **)&sl->dterms, bytes);
    if (e == cudaSuccess)
        e = cudaHostAlloc((void **)&sl->hterms, bytes, cudaHostAllocDefault);
    return e;
}

static void free_slot(void *state, unsigned slot)
{
    PsnrHvsCudaState *st = state;
    PsnrHvsSlot *sl = &st->slot[slot];
    cudaFree(sl->dterms);
    cudaFreeHost(sl->hterms);
    memset(sl, 0, sizeof(*sl));
}

/* Each plane's terms, then all of them read back. */
static cudaError_t enqueue(void *state, unsigned slot, const VmafCudaPlanes *p, void *result,
                           cudaStream_t s)
{
    (void)result;
    const PsnrHvsCudaState *st = state;
    const PsnrHvsSlot *sl = &st->slot[slot];
    cudaError_t e = cudaSuccess;
    for (unsigned k = 0; k < PLANES && e == cudaSuccess; k++) {
        const PsnrHvsCudaPlane pl = {
            .ref = k ? p->chroma[0][k - 1] : p->luma[0],
            .dis = k ? p->chroma[1][k - 1] : p->luma[1],
            .ref_pitch = k ? p->chroma_pitch[0][k - 1] : p->pitch[0],
            .dis_pitch = k ? p->chroma_pitch[1][k - 1] : p->pitch[1],
            .nbx = st->nbx[k],
            .nby = st->nby[k],
            .bpc = st->fex->bpc,
        };
        e = vmaf_psnr_hvs_cuda_terms(&pl, &st->tables[k], sl->dterms + st->first[k], s);
    }
    if (e == cudaSuccess)
        e = cudaMemcpyAsync(sl->hterms, sl->dterms, st->first[PLANES] * sizeof(float),
                            cudaMemcpyDeviceToHost, s);
    return e;
}

/* scores[p]: plane p's error, its terms added as the CPU adds them. */
static int harvest(void *state, unsigned slot, const VmafCudaPlanes *p, void *result,
                   cudaStream_t s, double *scores)
{
    (void)p, (void)result, (void)s;
    const PsnrHvsCudaState *st = state;
    const float *t = st->slot[slot].hterms;
    for (unsigned k = 0; k < PLANES; k++) {
        float sum = 0;
        for (size_t i = st->first[k]; i < st->first[k + 1]; i++)
            sum += t[i];
        const int count = (int)(st->first[k + 1] - st->first[k]);
        scores[k] = vmaf_psnr_hvs_normalize(sum, count, st->fex->bpc);
    }
    return 0;
}

static int store(void *state, unsigned index, const double *scores, VmafFeatureCollector *fc)
{
    const PsnrHvsCudaState *st = state;
    return vmaf_psnr_hvs_store(st->fex, fc, scores, index);
}

static const VmafCudaTwinOps psnr_hvs_ops = {
    .name = NAME,
    .launch_what = "launching the PSNR-HVS kernel",
    .result_bytes = sizeof(double), /* unused: the terms have buffers of their own */
    .load_kernels = vmaf_psnr_hvs_cuda_prepare,
    .init_slot = init_slot,
    .enqueue = enqueue,
    .harvest = harvest,
    .store = store,
    .free_slot = free_slot,
};

/* The blocks of each plane (at a step of 7) and the weights they take. */
static void lay_out(PsnrHvsCudaState *st)
{
    st->first[0] = 0;
    for (unsigned k = 0; k < PLANES; k++) {
        st->nbx[k] = psnr_hvs_blocks(st->pw[k]);
        st->nby[k] = psnr_hvs_blocks(st->ph[k]);
        st->first[k + 1] = st->first[k] + (size_t)st->nbx[k] * st->nby[k] * 64;
        vmaf_psnr_hvs_mask((int)k, st->tables[k].mask);
        memcpy(st->tables[k].csf, vmaf_psnr_hvs_csf[k], sizeof(st->tables[k].csf));
    }
}

static int init(VmafFex *fex)
{
    PsnrHvsCudaState *st = fex->priv;
    int err = vmaf_cuda_twin_check_context(fex);
    if (!err)
        err = vmaf_psnr_hvs_planes(fex, st->pw, st->ph);
    if (err)
        return err;
    if (!vmaf_cuda_frames_chroma(fex->frames)) {
        /* The context makes them with chroma for this twin; a caller of
         * the internal API may not have. */
        vmaf_error(NAME ": the device frames carry no chroma planes; make them with "
                   "VmafCudaFramesGeometry.chroma set");
        return -EINVAL;
    }
    st->fex = fex;
    lay_out(st);
    return vmaf_cuda_twin_init(&st->twin, &psnr_hvs_ops, st, fex);
}

extern const VmafFeatureExtractor vmaf_fex_psnr_hvs;

const VmafFeatureExtractor vmaf_fex_psnr_hvs_cuda = {
    .name = NAME,
    .backend = VMAF_FEX_BACKEND_CUDA,
    .twin_of = &vmaf_fex_psnr_hvs,
    .priv_size = sizeof(PsnrHvsCudaState),
    .check_context = vmaf_cuda_twin_takes_all,
    .init = init,
    VMAF_CUDA_TWIN_HOOKS,
};
