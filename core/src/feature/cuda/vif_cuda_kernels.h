/*
 * The vif twin's kernels as the host code sees them (vif/vif_frame.cu):
 * plain C declarations. Launchers only enqueue work on the given stream and
 * return the launch status; nothing here allocates.
 */
#ifndef LIBVMAF_SRC_FEATURE_CUDA_VIF_CUDA_KERNELS_H
#define LIBVMAF_SRC_FEATURE_CUDA_VIF_CUDA_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "feature/vif/vif_dsp.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Each scale's integer sums, the CPU's VifAccum, added by every block of
 * the statistic in any order: two's complement int64 additions. */
typedef struct VifCudaOut {
    VifAccum scale[VIF_SCALES];
} VifCudaOut;

/* What the kernels read besides the planes: the filters and the log2
 * table come from the CPU code (vif_tables.h), the gain limits and eps
 * from the host's doubles, so both sides use the very same numbers. */
typedef struct VifCudaFrame {
    unsigned w, h, bpc;
    unsigned n_gains;
    double gain[VIF_MAX_SETS];
    double eps;                 /* 65536 * 1.0e-10, as the CPU spells it */
    const uint16_t *log2_table; /* device copy of vmaf_vif_log2_table */
    uint16_t *plane[VIF_SCALES][2]; /* scales 1..3: decimated ref, dis */
    size_t plane_pitch[VIF_SCALES];  /* bytes */
} VifCudaFrame;


/* Loads the kernels (a graph capture must not be the first to need one)
 * and copies the filters to the device. */
cudaError_t vmaf_vif_cuda_prepare(const uint16_t taps[4][17]);

/* A frame's sums into *out (zeroed first): the statistic of every scale
 * and the decimations between them, from the luma planes ref and dis
 * (uint8 at 8 bits, uint16 above; pitches in bytes). */
cudaError_t vmaf_vif_cuda_frame(const VifCudaFrame *f, const void *ref, size_t ref_pitch,
                                const void *dis, size_t dis_pitch, VifCudaOut *out,
                                cudaStream_t s);

#ifdef __cplusplus
}
#endif

#endif /* LIBVMAF_SRC_FEATURE_CUDA_VIF_CUDA_KERNELS_H */
