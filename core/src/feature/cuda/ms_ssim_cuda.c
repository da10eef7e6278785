/*
 * float_ms_ssim_cuda: the CUDA twin of float_ms_ssim, with the CPU's
 * scores bit for bit (docs/metrics/float_ms_ssim.md).
 *
 * The frames, their slots, graphs and errors are the twin runtime's
 * (cuda/twin.h). A frame's kernels are, for each of the five scales,
 * float_ssim's SSIM kernels with l, c and s (the very ones float_ssim_cuda
 * runs on its planes) and the decimation to the next scale; the scales'
 * planes are the slot's, since a mean the device cannot decide is summed
 * again from them at the harvest (float_ssim/ssim_redo.h). The host
 * combines the fifteen means with the CPU's own vmaf_ms_ssim_combine().
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "cuda/cuda_state.h"
#include "cuda/twin.h"
#include "feature/cuda/float_ssim/ssim_redo.h"
#include "feature/cuda/float_ssim_cuda_kernels.h"
#include "feature/cuda/ms_ssim_cuda_kernels.h"
#include "feature/feature_collector.h"
#include "feature/feature_extractor.h"
#include "feature/ms_ssim/ms_ssim.h"
#include "feature/ms_ssim/ms_ssim_feature.h"
#include "feature/ms_ssim/ms_ssim_kernels.h"
#include "feature/ssim/ssim.h"
#include "feature/ssim/ssim_feature.h"
#include "log.h"

#define NAME "float_ms_ssim_cuda"
#define SLOTS VMAF_CUDA_FRAMES_IN_FLIGHT
#define SCALES MS_SSIM_SCALES

_Static_assert(MS_SSIM_CUDA_TAPS == MS_SSIM_LPF_TAPS, "the kernel's filter is the CPU's");

/* A slot's own buffers: the planes of the scales after the first (the
 * first is the frame's pictures) and each scale's totals. */
typedef struct MsSsimSlot {
    float *plane[SCALES][2];
    double *partials[SCALES];
} MsSsimSlot;

typedef struct MsSsimCudaState {
    MsSsimOptions opt; /* first: float_ms_ssim's option table points into it */
    VmafCudaTwin twin;
    unsigned w[SCALES], h[SCALES], bpc;
    double max_db;
    SsimCudaPlan plan[SCALES];
    size_t fpitch[SCALES]; /* row pitch of the f32 planes, bytes */
    MsSsimLpfTaps taps;
    MsSsimSlot slot[SLOTS];
    SsimCudaRedo redo; /* for means only the CPU's order decides */
} MsSsimCudaState;

static int prepare(void *state, long at)
{
    MsSsimCudaState *st = state;
    SsimCudaConsts k;
    vmaf_ssim_cuda_consts(&k);
    memcpy(st->taps.t, vmaf_ms_ssim_lpf, sizeof(st->taps.t));
    for (int s = 0; s < SCALES; s++)
        vmaf_ssim_cuda_plan(&st->plan[s], st->w[s], st->h[s], st->bpc, 1, 1,
                            st->twin.cu->sm_count, st->twin.cu->pdl, &k);
    cudaError_t e = vmaf_ssim_cuda_prepare();
    if (e == cudaSuccess)
        e = vmaf_ms_ssim_cuda_prepare();
    if (e != cudaSuccess)
        return vmaf_cuda_twin_fail(&st->twin, e,
                                   "loading the kernels and granting them their shared memory",
                                   at);
    return 0;
}

static cudaError_t init_slot(void *state, unsigned slot)
{
    MsSsimCudaState *st = state;
    MsSsimSlot *sl = &st->slot[slot];
    const size_t part = vmaf_ssim_cuda_partials_bytes();
    cudaError_t e = cudaSuccess;
    for (int s = 0; s < SCALES && e == cudaSuccess; s++) {
        e = cudaMalloc((void **)&sl->partials[s], part);
        if (e == cudaSuccess) /* the totals and counter start at 0 */
            e = cudaMemset(sl->partials[s], 0, part);
        for (int i = 0; e == cudaSuccess && s > 0 && i < 2; i++)
            e = cudaMallocPitch((void **)&sl->plane[s][i], &st->fpitch[s],
                                (size_t)st->w[s] * sizeof(float), st->h[s]);
    }
    return e;
}

static int init_redo(void *state, long at)
{
    MsSsimCudaState *st = state;
    const size_t terms = (size_t)(st->w[0] - (SSIM_WINDOW - 1)) * (st->h[0] - (SSIM_WINDOW - 1));
    const int err = vmaf_ssim_cuda_redo_init(&st->redo, &st->twin, terms, at);
    if (!err)
        vmaf_debug(NAME ": %ux%u %u-bit, five scales down to %ux%u", st->w[0], st->h[0],
                   st->bpc, st->w[SCALES - 1], st->h[SCALES - 1]);
    return err;
}

static void free_slot(void *state, unsigned slot)
{
    MsSsimCudaState *st = state;
    MsSsimSlot *sl = &st->slot[slot];
    for (int s = 0; s < SCALES; s++) {
        cudaFree(sl->plane[s][0]);
        cudaFree(sl->plane[s][1]);
        cudaFree(sl->partials[s]);
    }
    memset(sl, 0, sizeof(*sl));
}

static void close_redo(void *state)
{
    MsSsimCudaState *st = state;
    vmaf_ssim_cuda_redo_free(&st->redo);
}

/* The planes of scale s: the frame's pictures, then the slot's f32 planes. */
static SsimCudaInput scale_input(const MsSsimCudaState *st, const MsSsimSlot *sl,
                                 const VmafCudaPlanes *p, int s)
{
    if (!s)
        return (SsimCudaInput){ .ref = p->luma[0], .dis = p->luma[1], .ref_pitch = p->pitch[0],
                                .dis_pitch = p->pitch[1], .is_float = 0 };
    return (SsimCudaInput){ .ref = sl->plane[s][0], .dis = sl->plane[s][1],
                            .ref_pitch = st->fpitch[s], .dis_pitch = st->fpitch[s],
                            .is_float = 1 };
}

/* A frame's kernels: each scale's SSIM means into result[s], and the
 * decimation to the next scale. */
static cudaError_t enqueue(void *state, unsigned slot, const VmafCudaPlanes *p, void *result,
                           cudaStream_t str)
{
    const MsSsimCudaState *st = state;
    const MsSsimSlot *sl = &st->slot[slot];
    SsimCudaOut *out = result;
    cudaError_t e = cudaSuccess;
    for (int s = 0; s < SCALES && e == cudaSuccess; s++) {
        const SsimCudaInput in = scale_input(st, sl, p, s);
        e = vmaf_ssim_cuda_frame(&st->plan[s], in.ref, in.ref_pitch, in.dis, in.dis_pitch,
                                 in.is_float, sl->partials[s], &out[s], str);
        if (e == cudaSuccess && s + 1 < SCALES)
            e = vmaf_ms_ssim_cuda_decimate(in.ref, in.ref_pitch, in.dis, in.dis_pitch,
                                           in.is_float ? 0 : st->bpc, st->w[s], st->h[s],
                                           &st->taps, sl->plane[s + 1][0],
                                           sl->plane[s + 1][1], st->fpitch[s + 1], str);
    }
    return e;
}

/* A frame's scores are its MsSsimResult, laid in the runtime's doubles as
 * adm_cuda lays its AdmScores. */
_Static_assert(sizeof(MsSsimResult) <= VMAF_CUDA_TWIN_SCORES * sizeof(double),
               "a frame's result fits a frame's scores");

static int harvest(void *state, unsigned slot, const VmafCudaPlanes *p, void *result,
                   cudaStream_t str, double *scores)
{
    MsSsimCudaState *st = state;
    const MsSsimSlot *sl = &st->slot[slot];
    SsimCudaOut *out = result;
    MsSsimResult *r = (MsSsimResult *)(void *)scores;
    for (int s = 0; s < SCALES; s++) {
        /* l, c and s only: MS-SSIM never reads a scale's SSIM itself. */
        const SsimCudaInput in = scale_input(st, sl, p, s);
        const int err = vmaf_ssim_cuda_settle(&st->redo, &st->twin, &st->plan[s], &in,
                                              sl->partials[s], 1, &out[s], p->index, str);
        if (err)
            return err;
        r->l[s] = (double)out[s].mean[1];
        r->c[s] = (double)out[s].mean[2];
        r->s[s] = (double)out[s].mean[3];
    }
    vmaf_ms_ssim_combine(r);
    return 0;
}

static int store(void *state, unsigned index, const double *scores, VmafFeatureCollector *fc)
{
    const MsSsimCudaState *st = state;
    const MsSsimResult *r = (const MsSsimResult *)(const void *)scores;
    return ms_ssim_store_scores(fc, index, r, &st->opt, st->max_db);
}

static const VmafCudaTwinOps ms_ssim_ops = {
    .name = NAME,
    .launch_what = "launching the MS-SSIM kernels",
    .result_bytes = SCALES * sizeof(SsimCudaOut),
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
    MsSsimCudaState *st = fex->priv;
    const int err = vmaf_cuda_twin_check_context(fex);
    if (err)
        return err;
    /* Too small for five scales: the CPU extractor's refusal, here too
     * (a fallback warning would only precede the same error). */
    if (!vmaf_ms_ssim_scratch_size(fex->w, fex->h)) {
        vmaf_error(NAME ": %ux%u pictures: its five scales need at least %ux%u", fex->w,
                   fex->h, MS_SSIM_MIN_SIDE, MS_SSIM_MIN_SIDE);
        return -EINVAL;
    }
    st->w[0] = fex->w;
    st->h[0] = fex->h;
    for (int s = 1; s < SCALES; s++) {
        st->w[s] = (st->w[s - 1] + 1) / 2;
        st->h[s] = (st->h[s - 1] + 1) / 2;
    }
    st->bpc = fex->bpc;
    st->max_db = ssim_max_db(st->opt.clip_db, fex->bpc, fex->w, fex->h);
    return vmaf_cuda_twin_init(&st->twin, &ms_ssim_ops, st, fex);
}

extern const VmafFeatureExtractor vmaf_fex_float_ms_ssim;

const VmafFeatureExtractor vmaf_fex_float_ms_ssim_cuda = {
    .name = NAME,
    .backend = VMAF_FEX_BACKEND_CUDA,
    .twin_of = &vmaf_fex_float_ms_ssim,
    .priv_size = sizeof(MsSsimCudaState),
    .check_context = vmaf_cuda_twin_takes_all,
    .init = init,
    VMAF_CUDA_TWIN_HOOKS,
};
