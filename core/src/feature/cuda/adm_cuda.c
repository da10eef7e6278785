/*
 * adm_cuda: the CUDA twin of adm, with the CPU's scores bit for bit
 * (docs/metrics/adm_numerics.md). Its options and outputs are adm's, and
 * like adm one instance computes every option set of the requests it
 * serves (VMAF's and NEG's gain limits) in one pass that shares the
 * wavelet transform.
 *
 * The device computes each scale's integer sums (adm/adm_frame.cu); the
 * host turns them into scores with the CPU's own function, so the f32 and
 * f64 steps of the scores are the CPU's code. Everything is allocated in
 * init(); nothing per frame.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <cuda_runtime_api.h>

#include "cuda/twin.h"
#include "feature/adm/adm.h"
#include "feature/adm/adm_csf.h"
#include "feature/adm/adm_dsp.h"
#include "feature/adm/adm_feature.h"
#include "feature/adm/adm_frame.h"
#include "feature/cuda/adm_cuda_kernels.h"
#include "feature/feature_collector.h"
#include "feature/feature_extractor.h"
#include "log.h"

#define NAME "adm_cuda"

_Static_assert(VMAF_FEX_MAX_VARIANTS <= ADM_CUDA_GROUPS,
               "one pass computes every variant of an instance");
_Static_assert(VMAF_FEX_MAX_VARIANTS * sizeof(AdmScores) <=
                   VMAF_CUDA_TWIN_SCORES * sizeof(double),
               "every set's scores fit a frame's scores");

#define DIV_LUT_ENTRIES 65537 /* vmaf_adm_div_lut(): -32768..32768 */

typedef struct AdmCudaState {
    AdmOptions opt; /* first: adm's option table points into it */
    VmafCudaTwin twin;
    const VmafFex *fex;
    AdmParams params[VMAF_FEX_MAX_VARIANTS];
    AdmWeights weights[VMAF_FEX_MAX_VARIANTS];
    unsigned member[VMAF_FEX_MAX_VARIANTS]; /* each set's group */
    AdmCudaFrame frame; /* the kernels' arguments and the shared buffers */
} AdmCudaState;

/* The device computes whatever the CPU extractor accepts; what it refuses
 * stays with it, to fail there with its own message. */
static int check_context(const void *priv, unsigned w, unsigned h, unsigned bpc, char *why,
                         size_t why_len)
{
    const AdmParams p = vmaf_adm_params_of(priv);
    return vmaf_adm_check(w, h, bpc, &p, why, why_len) ? -ENOTSUP : 0;
}

static cudaError_t alloc_plane(int32_t **p, size_t samples)
{
    return cudaMalloc((void **)p, samples * sizeof(int32_t));
}

/* Every buffer lives in the state, none in a slot: the slots' frames run
 * one after the other on the twin's stream. */
static cudaError_t alloc_buffers(AdmCudaFrame *f)
{
    const size_t n = (size_t)f->plan[0].w * f->plan[0].h;
    cudaError_t e = cudaSuccess;
    for (int side = 0; side < 2 && e == cudaSuccess; side++) {
        for (int b = 0; b < 3 && e == cudaSuccess; b++)
            e = alloc_plane(&f->band[side][b], n);
        for (int k = 0; k < 2 && e == cudaSuccess; k++)
            e = alloc_plane(&f->low[k][side], n);
    }
    for (unsigned g = 0; g < f->n_groups && e == cudaSuccess; g++) {
        e = alloc_plane(&f->fa[g], n);
        if (e == cudaSuccess && f->aim[g])
            e = alloc_plane(&f->fr[g], n);
    }
    if (e == cudaSuccess)
        e = cudaMalloc((void **)&f->rows,
                       (size_t)f->row_base[4] * ADM_CUDA_ROW_SUMS * sizeof(uint64_t));
    if (e == cudaSuccess)
        e = cudaMalloc((void **)&f->div_lut, DIV_LUT_ENTRIES * sizeof(int32_t));
    if (e == cudaSuccess)
        e = cudaMemcpy((void *)f->div_lut, vmaf_adm_div_lut(), DIV_LUT_ENTRIES * sizeof(int32_t),
                       cudaMemcpyHostToDevice);
    return e;
}

static void free_buffers(void *state)
{
    AdmCudaFrame *f = &((AdmCudaState *)state)->frame;
    for (int side = 0; side < 2; side++) {
        for (int b = 0; b < 3; b++)
            cudaFree(f->band[side][b]);
        for (int k = 0; k < 2; k++)
            cudaFree(f->low[k][side]);
    }
    for (int g = 0; g < ADM_CUDA_GROUPS; g++) {
        cudaFree(f->fa[g]);
        cudaFree(f->fr[g]);
    }
    cudaFree(f->rows);
    cudaFree((void *)f->div_lut);
    AdmCudaFrame empty = {0};
    *f = empty;
}

static int init_buffers(void *state, long at)
{
    AdmCudaState *st = state;
    const cudaError_t e = alloc_buffers(&st->frame);
    return e == cudaSuccess ? 0
                            : vmaf_cuda_twin_fail(&st->twin, e, "allocating device buffers", at);
}

static cudaError_t enqueue(void *state, unsigned slot, const VmafCudaPlanes *p, void *result,
                           cudaStream_t s)
{
    (void)slot;
    const AdmCudaState *st = state;
    return vmaf_adm_cuda_frame(&st->frame, p->luma[0], p->pitch[0], p->luma[1], p->pitch[1],
                               result, s);
}

/* The scores of every option set, as doubles in the order store() reads
 * them: each set's AdmScores. */
static int harvest(void *state, unsigned slot, const VmafCudaPlanes *p, void *result,
                   cudaStream_t s, double *scores)
{
    (void)slot;
    (void)p;
    (void)s;
    const AdmCudaState *st = state;
    const AdmCudaOut *o = result;
    AdmScores *out = (AdmScores *)(void *)scores;
    for (unsigned v = 0; v < st->fex->n_variants; v++) {
        const unsigned g = st->member[v];
        const AdmSums sums = {o->den, o->dlm[g], o->aim[g]};
        vmaf_adm_score(st->frame.plan, &sums, &st->weights[v], &st->params[v], st->fex->w,
                       st->fex->h, &out[v]);
    }
    return 0;
}

static int store(void *state, unsigned index, const double *scores, VmafFeatureCollector *fc)
{
    const AdmCudaState *st = state;
    const AdmScores *s = (const AdmScores *)(const void *)scores;
    int err = 0;
    for (unsigned v = 0; v < st->fex->n_variants && !err; v++)
        err = vmaf_adm_store_scores(st->fex, v, &s[v], fc, index);
    return err;
}

static const VmafCudaTwinOps adm_ops = {
    .name = NAME,
    .launch_what = "launching the ADM kernels",
    .result_bytes = sizeof(AdmCudaOut),
    .load_kernels = vmaf_adm_cuda_prepare,
    .init = init_buffers,
    .enqueue = enqueue,
    .harvest = harvest,
    .store = store,
    .close = free_buffers,
};

static int init(VmafFex *fex)
{
    AdmCudaState *st = fex->priv;
    int err = vmaf_cuda_twin_check_context(fex);
    if (err)
        return err;
    st->fex = fex;
    for (unsigned v = 0; v < fex->n_variants; v++)
        st->params[v] = vmaf_adm_params_of(fex->variant[v]);
    err = vmaf_adm_sample_plan(&st->frame, fex->w, fex->h, fex->bpc, st->params,
                               fex->n_variants, st->weights, st->member);
    if (err) {
        vmaf_error(NAME ": %u option sets in one instance, at most %d: internal error, "
                   "please report", fex->n_variants, ADM_CUDA_GROUPS);
        return err;
    }
    return vmaf_cuda_twin_init(&st->twin, &adm_ops, st, fex);
}

extern const VmafFeatureExtractor vmaf_fex_adm;

const VmafFeatureExtractor vmaf_fex_adm_cuda = {
    .name = NAME,
    .backend = VMAF_FEX_BACKEND_CUDA,
    .twin_of = &vmaf_fex_adm,
    .priv_size = sizeof(AdmCudaState),
    .check_context = check_context,
    .init = init,
    VMAF_CUDA_TWIN_HOOKS,
};
