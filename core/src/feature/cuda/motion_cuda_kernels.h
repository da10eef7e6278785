/*
 * The motion twin's kernels as the host code sees them (motion/motion_sad.cu):
 * plain C declarations. The launcher only enqueues work on the given stream
 * and returns the launch status; nothing here allocates.
 */
#ifndef LIBVMAF_SRC_FEATURE_CUDA_MOTION_CUDA_KERNELS_H
#define LIBVMAF_SRC_FEATURE_CUDA_MOTION_CUDA_KERNELS_H

#include <stddef.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The blur's five taps, handed over from the CPU's table
 * (vmaf_motion_filter) so that both sides use the very same numbers. */
typedef struct MotionCudaTaps {
    int f[5];
} MotionCudaTaps;

/* Loads the kernels (a graph capture must not be the first to need one). */
cudaError_t vmaf_motion_cuda_prepare(void);

/* *sad = the SAD of two w x h luma planes (uint8 at 8 bits, uint16 above;
 * pitches in bytes) as vmaf_motion_sad() computes it: zeroed, then summed
 * on stream s. */
cudaError_t vmaf_motion_cuda_sad(const void *prev, size_t prev_pitch, const void *cur,
                                 size_t cur_pitch, unsigned w, unsigned h, unsigned bpc,
                                 const MotionCudaTaps *taps, unsigned long long *sad,
                                 cudaStream_t s);

#ifdef __cplusplus
}
#endif

#endif /* LIBVMAF_SRC_FEATURE_CUDA_MOTION_CUDA_KERNELS_H */
