/*
 * The adm twin's kernels as the host code sees them (adm/adm_frame.cu):
 * plain C declarations. Launchers only enqueue work on the given stream and
 * return the launch status; nothing here allocates.
 */
#ifndef LIBVMAF_SRC_FEATURE_CUDA_ADM_CUDA_KERNELS_H
#define LIBVMAF_SRC_FEATURE_CUDA_ADM_CUDA_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "feature/cuda/adm/adm_sample.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Loads the kernels (a graph capture must not be the first to need one). */
cudaError_t vmaf_adm_cuda_prepare(void);

/* A frame's sums into *out from the luma planes ref and dis (uint8 at 8
 * bits, uint16 above; pitches in bytes). */
cudaError_t vmaf_adm_cuda_frame(const AdmCudaFrame *f, const void *ref, size_t ref_pitch,
                                const void *dis, size_t dis_pitch, AdmCudaOut *out,
                                cudaStream_t s);

#ifdef __cplusplus
}
#endif

#endif /* LIBVMAF_SRC_FEATURE_CUDA_ADM_CUDA_KERNELS_H */
