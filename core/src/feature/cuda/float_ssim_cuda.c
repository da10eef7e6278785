/*
 * float_ssim_cuda: the CUDA twin of float_ssim, with the CPU's scores bit
 * for bit (docs/backends/cuda.md, docs/metrics/float_ssim_numerics.md).
 *
 * The frames, their slots, graphs and errors are the twin runtime's
 * (cuda/twin.h); this file is SSIM's part: the refusals, the plan and
 * buffers, a frame's kernels (decimation, then the Gaussian passes and the
 * frame means), and the harvest of the means, one of which the device
 * rarely cannot decide: that one is summed again in the CPU's order, on the
 * device. Everything is allocated in init(); nothing per frame.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "cuda/cuda_internal.h"
#include "cuda/cuda_state.h"
#include "cuda/twin.h"
#include "feature/cuda/float_ssim_cuda.h"
#include "feature/cuda/float_ssim_cuda_kernels.h"
#include "feature/cuda/float_ssim/ssim_redo.h"
#include "feature/feature_collector.h"
#include "feature/feature_extractor.h"
#include "feature/ssim/ssim.h"
#include "feature/ssim/ssim_feature.h"
#include "log.h"
#include "picture_internal.h"

#define NAME "float_ssim_cuda"
#define SLOTS VMAF_CUDA_FRAMES_IN_FLIGHT

/* A slot's own buffers, beside the runtime's. */
typedef struct SsimSlot {
    float *dec[2];     /* decimated planes (scale > 1) */
    double *partials;  /* the frame's totals and finished-blocks counter */
} SsimSlot;

typedef struct FloatSsimCudaState {
    SsimOptions opt; /* first: float_ssim's option table points into it */
    VmafCudaTwin twin;
    unsigned w, h, bpc;
    int eff_scale;
    double max_db;
    SsimCudaPlan plan;
    SsimSlot slot[SLOTS];
    size_t fpitch;
    SsimCudaRedo redo; /* for means only the CPU's order decides */
} FloatSsimCudaState;

static int check_context(const void *priv, unsigned w, unsigned h, unsigned bpc, char *why,
                         size_t why_len)
{
    const FloatSsimCudaState *st = priv;
    if (!vmaf_bpc_supported(bpc)) {
        snprintf(why, why_len, "%u bits per component is not supported", bpc);
        return -ENOTSUP;
    }
    const int s = ssim_effective_scale(st->opt.scale, w, h);
    if (s > SSIM_SCALE_MAX_EXACT) {
        snprintf(why, why_len,
                 "scale %d is above %d, where the decimation sums stop being exact and the "
                 "order of a parallel sum would change the bits",
                 s, SSIM_SCALE_MAX_EXACT);
        return -ENOTSUP;
    }
    if (ssim_geometry_check(w, h, s, why, why_len))
        return -ENOTSUP;
    if (!vmaf_ssim_decimate_axis_ok(w, s) || !vmaf_ssim_decimate_axis_ok(h, s)) {
        snprintf(why, why_len, "%ux%u is too small to decimate at scale %d", w, h, s);
        return -ENOTSUP;
    }
    return 0;
}

static int prepare(void *state, long at)
{
    FloatSsimCudaState *st = state;
    SsimCudaConsts k;
    vmaf_ssim_cuda_consts(&k);
    vmaf_ssim_cuda_plan(&st->plan, st->w, st->h, st->bpc, st->eff_scale, st->opt.enable_lcs,
                        st->twin.cu->sm_count, st->twin.cu->pdl, &k);
    const cudaError_t e = vmaf_ssim_cuda_prepare();
    if (e != cudaSuccess)
        return vmaf_cuda_twin_fail(&st->twin, e,
                                   "loading the kernels and granting them their shared memory",
                                   at);
    return 0;
}

static cudaError_t init_slot(void *state, unsigned slot)
{
    FloatSsimCudaState *st = state;
    SsimSlot *sl = &st->slot[slot];
    const size_t part = vmaf_ssim_cuda_partials_bytes();
    cudaError_t e = cudaMalloc((void **)&sl->partials, part);
    if (e == cudaSuccess) /* the frame totals and counter start at 0 */
        e = cudaMemset(sl->partials, 0, part);
    for (int i = 0; e == cudaSuccess && st->eff_scale > 1 && i < 2; i++)
        e = cudaMallocPitch((void **)&sl->dec[i], &st->fpitch,
                            (size_t)st->plan.W * sizeof(float), st->plan.H);
    return e;
}

/* The sequential redo's buffers, shared by the slots. */
static int init_redo(void *state, long at)
{
    FloatSsimCudaState *st = state;
    const size_t terms =
        (size_t)(st->plan.W - (SSIM_WINDOW - 1)) * (st->plan.H - (SSIM_WINDOW - 1));
    const int err = vmaf_ssim_cuda_redo_init(&st->redo, &st->twin, terms, at);
    if (err)
        return err;
    vmaf_debug(NAME ": %ux%u %u-bit, scale %d, planes %ux%u, %ux%u tiles of 32x%u outputs",
               st->w, st->h, st->bpc, st->eff_scale, st->plan.W, st->plan.H, st->plan.grid_x,
               st->plan.grid_y, st->plan.th);
    return 0;
}

static void free_slot(void *state, unsigned slot)
{
    FloatSsimCudaState *st = state;
    SsimSlot *sl = &st->slot[slot];
    for (int i = 0; i < 2; i++)
        cudaFree(sl->dec[i]);
    cudaFree(sl->partials);
    memset(sl, 0, sizeof(*sl));
}

static void close_redo(void *state)
{
    FloatSsimCudaState *st = state;
    vmaf_ssim_cuda_redo_free(&st->redo);
}

/* A frame's kernels, from its planes to its device result. */
static cudaError_t enqueue(void *state, unsigned slot, const VmafCudaPlanes *p, void *result,
                           cudaStream_t s)
{
    const FloatSsimCudaState *st = state;
    const SsimSlot *sl = &st->slot[slot];
    if (st->eff_scale <= 1)
        return vmaf_ssim_cuda_frame(&st->plan, p->luma[0], p->pitch[0], p->luma[1], p->pitch[1],
                                    0, sl->partials, result, s);
    cudaError_t e = vmaf_ssim_cuda_decimate(&st->plan, p->luma[0], p->pitch[0], p->luma[1],
                                            p->pitch[1], sl->dec[0], sl->dec[1], st->fpitch, s);
    if (e == cudaSuccess)
        e = vmaf_ssim_cuda_frame(&st->plan, sl->dec[0], st->fpitch, sl->dec[1], st->fpitch, 1,
                                 sl->partials, result, s);
    return e;
}

static int harvest(void *state, unsigned slot, const VmafCudaPlanes *p, void *result,
                   cudaStream_t s, double *scores)
{
    FloatSsimCudaState *st = state;
    const SsimSlot *sl = &st->slot[slot];
    SsimCudaOut *o = result;
    const bool dec = st->eff_scale > 1;
    const SsimCudaInput in = {
        .ref = dec ? (const void *)sl->dec[0] : p->luma[0],
        .dis = dec ? (const void *)sl->dec[1] : p->luma[1],
        .ref_pitch = dec ? st->fpitch : p->pitch[0],
        .dis_pitch = dec ? st->fpitch : p->pitch[1],
        .is_float = dec,
    };
    const int err = vmaf_ssim_cuda_settle(&st->redo, &st->twin, &st->plan, &in, sl->partials, 0,
                                          o, p->index, s);
    if (err)
        return err;
    for (int q = 0; q < 4; q++)
        scores[q] = q < (int)st->plan.nq ? (double)o->mean[q] : 0.0;
    return 0;
}

static int store(void *state, unsigned index, const double *scores, VmafFeatureCollector *fc)
{
    const FloatSsimCudaState *st = state;
    return ssim_store_scores(fc, index, scores, st->opt.enable_lcs, st->opt.enable_db,
                             st->max_db);
}

static const VmafCudaTwinOps ssim_ops = {
    .name = NAME,
    .launch_what = "launching the SSIM kernels",
    .result_bytes = sizeof(SsimCudaOut),
    .prepare = prepare,
    .init_slot = init_slot,
    .init = init_redo,
    .enqueue = enqueue,
    .harvest = harvest,
    .store = store,
    .free_slot = free_slot,
    .close = close_redo,
};

static int init(VmafFex *fex)
{
    FloatSsimCudaState *st = fex->priv;
    int err = vmaf_cuda_twin_check_context(fex);
    if (err)
        return err;
    st->w = fex->w;
    st->h = fex->h;
    st->bpc = fex->bpc;
    st->eff_scale = ssim_effective_scale(st->opt.scale, fex->w, fex->h);
    st->max_db = ssim_max_db(st->opt.clip_db, fex->bpc, fex->w, fex->h);
    return vmaf_cuda_twin_init(&st->twin, &ssim_ops, st, fex);
}

VmafCudaTwin *vmaf_float_ssim_cuda_twin(VmafFex *fex)
{
    return fex->twin;
}

int vmaf_float_ssim_cuda_decimated(VmafFex *fex, const float *plane[2], size_t *pitch,
                                   unsigned *W, unsigned *H)
{
    const FloatSsimCudaState *st = fex->priv;
    const int k = vmaf_cuda_twin_last_slot(&st->twin);
    if (!st->twin.cu || st->eff_scale <= 1 || k < 0)
        return -EINVAL;
    plane[0] = st->slot[k].dec[0];
    plane[1] = st->slot[k].dec[1];
    *pitch = st->fpitch;
    *W = st->plan.W;
    *H = st->plan.H;
    return 0;
}

extern const VmafFeatureExtractor vmaf_fex_float_ssim;

const VmafFeatureExtractor vmaf_fex_float_ssim_cuda = {
    .name = NAME,
    .backend = VMAF_FEX_BACKEND_CUDA,
    .twin_of = &vmaf_fex_float_ssim,
    .priv_size = sizeof(FloatSsimCudaState),
    .check_context = check_context,
    .init = init,
    VMAF_CUDA_TWIN_HOOKS,
};
