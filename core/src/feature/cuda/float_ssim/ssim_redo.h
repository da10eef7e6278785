/*
 * The rare exact path of the SSIM twins (CUDA builds only): a frame mean
 * whose interval straddles an f32 rounding boundary (SsimCudaOut.redo) is
 * summed again from its per-pixel terms in the CPU's order, on the device
 * (cuda/seq_sum_cuda.h); only the sum crosses to the host. The buffers are
 * a twin's, shared by its slots: one frame is redone at a time, at its
 * harvest.
 */
#ifndef LIBVMAF_SRC_FEATURE_CUDA_FLOAT_SSIM_SSIM_REDO_H
#define LIBVMAF_SRC_FEATURE_CUDA_FLOAT_SSIM_SSIM_REDO_H

#include <stdbool.h>
#include <stddef.h>

#include <cuda_runtime_api.h>

#include "cuda/seq_sum_cuda.h"
#include "cuda/twin.h"
#include "feature/cuda/float_ssim_cuda_kernels.h"

typedef struct SsimCudaRedo {
    double *terms; /* the per-pixel terms of one mean */
    void *seq_work;
    VmafCudaSeqSum *dout, *hout; /* the sum, on the device and pinned */
    cudaEvent_t ev;
    bool event;
} SsimCudaRedo;

/* The SSIM planes whose means a plan's kernels compute, and how they are
 * read (vmaf_ssim_cuda_frame's arguments). */
typedef struct SsimCudaInput {
    const void *ref, *dis;
    size_t ref_pitch, dis_pitch;
    int is_float;
} SsimCudaInput;

/* Buffers for plans of up to max_terms per-pixel terms; on failure logs
 * one line through t (frame `at`) and returns its negative errno. */
int vmaf_ssim_cuda_redo_init(SsimCudaRedo *r, VmafCudaTwin *t, size_t max_terms, long at);
void vmaf_ssim_cuda_redo_free(SsimCudaRedo *r);

/* Settles every undecided mean of quantities q0 .. p->nq - 1 in o (read
 * back from the frame's kernels over `in`, with `partials` the buffer
 * they used), waiting for each sum on the redo's own event. 0, or the
 * negative errno of a failure, logged through t. */
int vmaf_ssim_cuda_settle(SsimCudaRedo *r, VmafCudaTwin *t, const SsimCudaPlan *p,
                          const SsimCudaInput *in, double *partials, unsigned q0,
                          SsimCudaOut *o, unsigned index, cudaStream_t s);

#endif /* LIBVMAF_SRC_FEATURE_CUDA_FLOAT_SSIM_SSIM_REDO_H */
