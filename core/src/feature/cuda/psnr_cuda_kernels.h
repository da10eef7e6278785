/*
 * The psnr CUDA kernel as the host code sees it (psnr/psnr_sse.cu): each
 * plane's sum of squared errors, an exact integer, so the same in any
 * order of addition. The launcher only enqueues work on the given stream.
 */
#ifndef LIBVMAF_SRC_FEATURE_CUDA_PSNR_CUDA_KERNELS_H
#define LIBVMAF_SRC_FEATURE_CUDA_PSNR_CUDA_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PSNR_CUDA_PLANES 3

/* The planes a frame's sums read: plane p is w[p] x h[p] samples (u8 at 8
 * bits, else u16) of ref[p] and dis[p], rows pitch bytes apart. */
typedef struct PsnrCudaPlanes {
    const void *ref[PSNR_CUDA_PLANES], *dis[PSNR_CUDA_PLANES];
    size_t ref_pitch[PSNR_CUDA_PLANES], dis_pitch[PSNR_CUDA_PLANES];
    unsigned w[PSNR_CUDA_PLANES], h[PSNR_CUDA_PLANES];
    unsigned planes, bpc;
} PsnrCudaPlanes;

/* Loads the kernels on the current device (before a graph capture). */
cudaError_t vmaf_psnr_cuda_prepare(void);

/* sse[p] = the sum of squared errors of plane p, p < planes (device
 * memory, zeroed here first). */
cudaError_t vmaf_psnr_cuda_sse(const PsnrCudaPlanes *pl, uint64_t *sse, cudaStream_t st);

#ifdef __cplusplus
}
#endif

#endif /* LIBVMAF_SRC_FEATURE_CUDA_PSNR_CUDA_KERNELS_H */
