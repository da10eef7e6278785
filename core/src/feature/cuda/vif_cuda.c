/*
 * vif_cuda: the CUDA twin of vif, with the CPU's scores bit for bit
 * (docs/metrics/vif_numerics.md). Its options and outputs are vif's, and
 * like vif one instance computes every gain limit of the requests it
 * serves (VMAF and NEG) in one pass.
 *
 * The device sums each scale's integer terms (vif/vif_frame.cu); the host
 * turns them into scores with the CPU's own function, so the f32 and f64
 * steps of the scores are the CPU's code. Everything is allocated in
 * init(); nothing per frame.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <cuda_runtime_api.h>

#include "cuda/twin.h"
#include "feature/cuda/vif_cuda_kernels.h"
#include "feature/feature_collector.h"
#include "feature/feature_extractor.h"
#include "feature/vif/vif.h"
#include "feature/vif/vif_feature.h"
#include "feature/vif/vif_tables.h"
#include "log.h"

#define NAME "vif_cuda"
#define SLOTS VMAF_CUDA_FRAMES_IN_FLIGHT

_Static_assert(VMAF_FEX_MAX_VARIANTS <= VMAF_VIF_MAX_PARAMS,
               "one pass computes every variant of an instance");

typedef struct VifCudaState {
    VifOptions opt; /* first: vif's option table points into it */
    VmafCudaTwin twin;
    const VmafFex *fex;
    VifParams params[VMAF_FEX_MAX_VARIANTS];
    unsigned gain_slot[VMAF_FEX_MAX_VARIANTS];
    VifCudaFrame frame[SLOTS]; /* the kernels' arguments, with each slot's planes */
    uint16_t *log2_table;      /* device copy, shared by the slots */
} VifCudaState;

/* The pyramid's one-sample-thick scale 3 (a side of 8..15) pads with data
 * left over from scale 2 on the CPU: that stays there. */
static int check_context(const void *priv, unsigned w, unsigned h, unsigned bpc, char *why,
                         size_t why_len)
{
    (void)priv;
    (void)bpc;
    if (vmaf_vif_check(w, h, why, why_len))
        return -ENOTSUP;
    if (w >> 3 < 2 || h >> 3 < 2) {
        snprintf(why, why_len,
                 "%ux%u leaves vif's scale 3 one sample thick, padded with data of scale 2 "
                 "(sides of at least 16 run on the GPU)",
                 w, h);
        return -ENOTSUP;
    }
    return 0;
}

static int prepare(void *state, long at)
{
    VifCudaState *st = state;
    vmaf_vif_tables_init();
    const cudaError_t e = vmaf_vif_cuda_prepare(vif_filter);
    return e == cudaSuccess ? 0 : vmaf_cuda_twin_fail(&st->twin, e, "loading the kernels", at);
}

static cudaError_t init_slot(void *state, unsigned slot)
{
    VifCudaState *st = state;
    VifCudaFrame *fr = &st->frame[slot];
    cudaError_t e = cudaSuccess;
    for (int s = 1; s < VIF_SCALES && e == cudaSuccess; s++)
        for (int p = 0; p < 2 && e == cudaSuccess; p++)
            e = cudaMallocPitch((void **)&fr->plane[s][p], &fr->plane_pitch[s],
                                (size_t)(fr->w >> s) * sizeof(uint16_t), fr->h >> s);
    return e;
}

static void free_slot(void *state, unsigned slot)
{
    VifCudaState *st = state;
    VifCudaFrame *fr = &st->frame[slot];
    for (int s = 1; s < VIF_SCALES; s++)
        for (int p = 0; p < 2; p++) {
            cudaFree(fr->plane[s][p]);
            fr->plane[s][p] = NULL;
        }
}

/* The log2 table, once for the slots, which init_slot() made already. */
static int init_table(void *state, long at)
{
    VifCudaState *st = state;
    const size_t bytes = sizeof(vmaf_vif_log2_table);
    cudaError_t e = cudaMalloc((void **)&st->log2_table, bytes);
    if (e == cudaSuccess)
        e = cudaMemcpy(st->log2_table, vmaf_vif_log2_table, bytes, cudaMemcpyHostToDevice);
    if (e != cudaSuccess)
        return vmaf_cuda_twin_fail(&st->twin, e, "copying the log2 table to the device", at);
    for (unsigned k = 0; k < SLOTS; k++)
        st->frame[k].log2_table = st->log2_table;
    return 0;
}

static void close_table(void *state)
{
    VifCudaState *st = state;
    cudaFree(st->log2_table);
    st->log2_table = NULL;
}

static cudaError_t enqueue(void *state, unsigned slot, const VmafCudaPlanes *p, void *result,
                           cudaStream_t s)
{
    const VifCudaState *st = state;
    return vmaf_vif_cuda_frame(&st->frame[slot], p->luma[0], p->pitch[0], p->luma[1],
                               p->pitch[1], result, s);
}

/* The scores of every option set, as doubles in the order store() reads
 * them: each set's VifScores. */
static int harvest(void *state, unsigned slot, const VmafCudaPlanes *p, void *result,
                   cudaStream_t s, double *scores)
{
    (void)slot;
    (void)p;
    (void)s;
    const VifCudaState *st = state;
    const VifCudaOut *o = result;
    VifScores *out = (VifScores *)(void *)scores;
    for (unsigned v = 0; v < st->fex->n_variants; v++)
        vmaf_vif_scores_from_sums(o->scale, st->gain_slot[v], st->params[v].skip_scale0,
                                  &out[v]);
    return 0;
}

static int store(void *state, unsigned index, const double *scores, VmafFeatureCollector *fc)
{
    const VifCudaState *st = state;
    const VifScores *s = (const VifScores *)(const void *)scores;
    int err = 0;
    for (unsigned v = 0; v < st->fex->n_variants && !err; v++)
        err = vmaf_vif_store_scores(st->fex, v, &s[v], fc, index);
    return err;
}

static const VmafCudaTwinOps vif_ops = {
    .name = NAME,
    .launch_what = "launching the VIF kernels",
    .result_bytes = sizeof(VifCudaOut),
    .prepare = prepare,
    .init_slot = init_slot,
    .init = init_table,
    .enqueue = enqueue,
    .harvest = harvest,
    .store = store,
    .free_slot = free_slot,
    .close = close_table,
};

_Static_assert(VMAF_FEX_MAX_VARIANTS * sizeof(VifScores) <=
                   VMAF_CUDA_TWIN_SCORES * sizeof(double),
               "every set's scores fit a frame's scores");

static int init(VmafFex *fex)
{
    VifCudaState *st = fex->priv;
    int err = vmaf_cuda_twin_check_context(fex);
    if (err)
        return err;
    st->fex = fex;
    for (unsigned v = 0; v < fex->n_variants; v++)
        st->params[v] = vmaf_vif_params_of(fex->variant[v]);
    VifGain gain;
    bool any_scale0;
    if (vmaf_vif_gains(st->params, fex->n_variants, &gain, st->gain_slot, &any_scale0)) {
        vmaf_error(NAME ": the option sets could not be grouped by gain limit (%u sets): "
                   "internal error, please report", fex->n_variants);
        return -EINVAL;
    }
    for (unsigned k = 0; k < SLOTS; k++) {
        VifCudaFrame *fr = &st->frame[k];
        fr->w = fex->w;
        fr->h = fex->h;
        fr->bpc = fex->bpc;
        fr->n_gains = gain.n;
        for (unsigned g = 0; g < gain.n; g++)
            fr->gain[g] = gain.limit[g];
        fr->eps = 65536 * 1.0e-10; /* spelt as the CPU's and the reference's */
    }
    return vmaf_cuda_twin_init(&st->twin, &vif_ops, st, fex);
}

extern const VmafFeatureExtractor vmaf_fex_vif;

const VmafFeatureExtractor vmaf_fex_vif_cuda = {
    .name = NAME,
    .backend = VMAF_FEX_BACKEND_CUDA,
    .twin_of = &vmaf_fex_vif,
    .priv_size = sizeof(VifCudaState),
    .check_context = check_context,
    .init = init,
    VMAF_CUDA_TWIN_HOOKS,
};
