/*
 * motion_cuda: the CUDA twin of motion, with the CPU's scores bit for bit
 * (docs/metrics/vmaf.md). Its options and outputs are motion's.
 *
 * Each slot keeps a copy of its frame's reference luma, so the next frame
 * (two on with motion_five_frame_window) compares with it on the device:
 * the frames run in the order they were read, on one stream, and a slot's
 * copy is overwritten only by a frame enqueued after every frame that
 * reads it (three slots, at most two frames back). The SAD is an exact
 * integer sum; the scores are made from it on the host by the CPU
 * extractor's own functions (motion_scores.c), and motion2 and motion3 at
 * the flush, as there.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>

#include <cuda_runtime_api.h>

#include "cuda/twin.h"
#include "feature/cuda/motion_cuda_kernels.h"
#include "feature/feature_collector.h"
#include "feature/feature_extractor.h"
#include "feature/motion/motion.h"
#include "feature/motion/motion_sad.h"
#include "log.h"

#define NAME "motion_cuda"
#define SLOTS VMAF_CUDA_FRAMES_IN_FLIGHT

_Static_assert(SLOTS >= 3, "a slot's reference copy must outlive the two frames after it");

typedef struct MotionCudaState {
    MotionOptions opt; /* first: motion's option table points into it */
    VmafCudaTwin twin;
    const VmafFex *fex; /* for the score names */
    unsigned w, h, bpc;
    MotionCudaTaps taps;
    void *kept[SLOTS];      /* each slot's frame's reference luma */
    size_t kept_pitch;
    unsigned submitted;     /* frames so far */
} MotionCudaState;

/* The SAD is an integer sum of integer steps: every geometry, depth and
 * option the CPU extractor takes is computed exactly. */
static int prepare(void *state, long at)
{
    MotionCudaState *st = state;
    for (int k = 0; k < MOTION_TAPS; k++)
        st->taps.f[k] = vmaf_motion_filter[k];
    const cudaError_t e = vmaf_motion_cuda_prepare();
    return e == cudaSuccess ? 0 : vmaf_cuda_twin_fail(&st->twin, e, "loading the kernels", at);
}

static size_t sample_bytes(const MotionCudaState *st)
{
    return st->bpc > 8 ? 2 : 1;
}

/* Zeroed, so that a frame without an earlier one reads defined memory (its
 * SAD is computed and never used). */
static cudaError_t init_slot(void *state, unsigned slot)
{
    MotionCudaState *st = state;
    const size_t row = (size_t)st->w * sample_bytes(st);
    cudaError_t e = cudaMallocPitch(&st->kept[slot], &st->kept_pitch, row, st->h);
    if (e == cudaSuccess)
        e = cudaMemset2D(st->kept[slot], st->kept_pitch, 0, row, st->h);
    return e;
}

static void free_slot(void *state, unsigned slot)
{
    MotionCudaState *st = state;
    cudaFree(st->kept[slot]);
    st->kept[slot] = NULL;
}

/* A frame's work: keep its reference, then its SAD against the one kept
 * `back` slots before (the frame read `back` frames before it). */
static cudaError_t enqueue(void *state, unsigned slot, const VmafCudaPlanes *p, void *result,
                           cudaStream_t s)
{
    const MotionCudaState *st = state;
    if (st->opt.force_zero)
        return cudaMemsetAsync(result, 0, sizeof(unsigned long long), s);
    const unsigned before = (slot + SLOTS - vmaf_motion_back(&st->opt)) % SLOTS;
    cudaError_t e = cudaMemcpy2DAsync(st->kept[slot], st->kept_pitch, p->luma[0], p->pitch[0],
                                      (size_t)st->w * sample_bytes(st), st->h,
                                      cudaMemcpyDeviceToDevice, s);
    if (e == cudaSuccess)
        e = vmaf_motion_cuda_sad(st->kept[before], st->kept_pitch, p->luma[0], p->pitch[0],
                                 st->w, st->h, st->bpc, &st->taps, result, s);
    return e;
}

static int harvest(void *state, unsigned slot, const VmafCudaPlanes *p, void *result,
                   cudaStream_t s, double *scores)
{
    (void)slot;
    (void)s;
    const MotionCudaState *st = state;
    const unsigned back = vmaf_motion_back(&st->opt);
    /* submit() refused a frame of this index without its earlier frames. */
    const bool compared = !st->opt.force_zero && p->index >= back;
    const unsigned long long sad = *(const unsigned long long *)result;
    scores[0] = compared ? vmaf_motion_sad_score(&st->opt, sad, st->w, st->h) : 0.;
    return 0;
}

static int store(void *state, unsigned index, const double *scores, VmafFeatureCollector *fc)
{
    const MotionCudaState *st = state;
    return vmaf_motion_store(st->fex, &st->opt, fc, scores[0], index, NAME);
}

static const VmafCudaTwinOps motion_ops = {
    .name = NAME,
    .launch_what = "launching the motion kernels",
    .result_bytes = sizeof(unsigned long long),
    .prepare = prepare,
    .init_slot = init_slot,
    .enqueue = enqueue,
    .harvest = harvest,
    .store = store,
    .free_slot = free_slot,
};

static int init(VmafFex *fex)
{
    MotionCudaState *st = fex->priv;
    st->fex = fex;
    st->w = fex->w;
    st->h = fex->h;
    st->bpc = fex->bpc;
    return vmaf_cuda_twin_init(&st->twin, &motion_ops, st, fex);
}

/* As the CPU extractor, a frame that should compare with an earlier one
 * the context never read is refused. */
static int submit(VmafFex *fex, const VmafCudaPlanes *planes)
{
    MotionCudaState *st = fex->priv;
    const unsigned back = vmaf_motion_back(&st->opt);
    if (!st->opt.force_zero && planes->index >= back && st->submitted < back) {
        vmaf_error(NAME ": frame %u: no reference picture %u frame%s back to compare with; "
                   "read the frames in order from index 0",
                   planes->index, back, back > 1 ? "s" : "");
        vmaf_cuda_frames_done(st->twin.frames, planes->slot);
        return -EINVAL;
    }
    const int err = vmaf_cuda_twin_submit(&st->twin, planes);
    if (!err)
        st->submitted++;
    return err;
}

static int flush(VmafFex *fex, VmafFeatureCollector *fc)
{
    MotionCudaState *st = fex->priv;
    const int err = vmaf_cuda_twin_collect(&st->twin, true, fc);
    return err ? err : vmaf_motion_flush_scores(fex, &st->opt, fc, NAME);
}

extern const VmafFeatureExtractor vmaf_fex_motion;

const VmafFeatureExtractor vmaf_fex_motion_cuda = {
    .name = NAME,
    .backend = VMAF_FEX_BACKEND_CUDA,
    .twin_of = &vmaf_fex_motion,
    .priv_size = sizeof(MotionCudaState),
    .check_context = vmaf_cuda_twin_takes_all,
    .init = init,
    VMAF_CUDA_TWIN_HOOKS_WITH(submit, flush),
};
