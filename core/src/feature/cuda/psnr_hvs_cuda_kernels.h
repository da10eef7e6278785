/*
 * The psnr_hvs CUDA kernel as the host code sees it
 * (psnr_hvs/psnr_hvs_terms.cu): every 8x8 block's 64 terms of one plane,
 * computed as the CPU computes them (feature/psnr_hvs/psnr_hvs_block.h),
 * for the host to add in the CPU's order. The launcher only enqueues work
 * on the given stream.
 */
#ifndef LIBVMAF_SRC_FEATURE_CUDA_PSNR_HVS_CUDA_KERNELS_H
#define LIBVMAF_SRC_FEATURE_CUDA_PSNR_HVS_CUDA_KERNELS_H

#include <stddef.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A plane's weights, passed with the launch. */
typedef struct PsnrHvsCudaTables {
    float mask[8][8], csf[8][8];
} PsnrHvsCudaTables;

/* One plane: w x h samples (u8 at 8 bits, else u16) of ref and dis, rows
 * pitch bytes apart; blocks at a step of 7, nbx x nby of them. */
typedef struct PsnrHvsCudaPlane {
    const void *ref, *dis;
    size_t ref_pitch, dis_pitch;
    unsigned nbx, nby, bpc;
} PsnrHvsCudaPlane;

/* Loads the kernel on the current device (before a graph capture). */
cudaError_t vmaf_psnr_hvs_cuda_prepare(void);

/* terms[(by * nbx + bx) * 64 + k]: term k (row-major) of block (bx, by),
 * in device memory. */
cudaError_t vmaf_psnr_hvs_cuda_terms(const PsnrHvsCudaPlane *pl, const PsnrHvsCudaTables *t,
                                     float *terms, cudaStream_t st);

#ifdef __cplusplus
}
#endif

#endif /* LIBVMAF_SRC_FEATURE_CUDA_PSNR_HVS_CUDA_KERNELS_H */
