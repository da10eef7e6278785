/*
 * The float_ms_ssim CUDA kernels as the host code sees them: the
 * decimation (ms_ssim/ms_ssim_decimate.cu). Each scale's SSIM is
 * float_ssim's kernels (float_ssim_cuda_kernels.h). The launcher only
 * enqueues work on the given stream and returns the launch status.
 */
#ifndef LIBVMAF_SRC_FEATURE_CUDA_MS_SSIM_CUDA_KERNELS_H
#define LIBVMAF_SRC_FEATURE_CUDA_MS_SSIM_CUDA_KERNELS_H

#include <stddef.h>

#include <cuda_runtime_api.h>

#include "feature/cuda/ms_ssim/ms_ssim_lpf_sample.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Loads the kernels on the current device (a graph capture must not be
 * the first to need one). */
cudaError_t vmaf_ms_ssim_cuda_prepare(void);

/* The next scale of both w x h planes, into ceil(w/2) x ceil(h/2) f32
 * planes dpitch bytes a row: the pictures' samples (bpc 8: u8, else u16;
 * pitches in bytes) or, with bpc 0, f32 planes. */
cudaError_t vmaf_ms_ssim_cuda_decimate(const void *ref, size_t ref_pitch, const void *dis,
                                       size_t dis_pitch, unsigned bpc, unsigned w, unsigned h,
                                       const MsSsimLpfTaps *taps, float *dref, float *ddis,
                                       size_t dpitch, cudaStream_t st);

#ifdef __cplusplus
}
#endif

#endif /* LIBVMAF_SRC_FEATURE_CUDA_MS_SSIM_CUDA_KERNELS_H */
