/*
 * The adm twin's kernels as the host code sees them (adm/adm_frame.cu):
 * plain C declarations. Launchers only enqueue work on the given stream and
 * return the launch status; nothing here allocates.
 */
#ifndef LIBVMAF_SRC_FEATURE_CUDA_ADM_CUDA_KERNELS_H
#define LIBVMAF_SRC_FEATURE_CUDA_ADM_CUDA_KERNELS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "feature/adm/adm_plan.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Groups of option sets one pass computes (VmafFex's variants at most). */
#define ADM_CUDA_GROUPS 4

/* Row sums a band row has: the three denominators, then per group the
 * three detail-loss and the three additive-impairment numerators. */
#define ADM_CUDA_ROW_SUMS (3 + 6 * ADM_CUDA_GROUPS)

/* A frame's integer sums, the CPU's AdmFrame.den and AdmGroup.dlm,
 * aim_sum: each row's sum rounded as the CPU rounds it, then added over
 * the rows (modulo 2^64, so in any order). */
typedef struct AdmCudaOut {
    uint64_t den[4][3];
    int64_t dlm[ADM_CUDA_GROUPS][4][3];
    int64_t aim[ADM_CUDA_GROUPS][4][3];
} AdmCudaOut;

/* What the kernels read: the CPU's plan and fixed-point weights, the gain
 * limits as the host's doubles, and the buffers of one pass (the twin's
 * frames all run on its one stream, in order, so they share them). */
typedef struct AdmCudaFrame {
    unsigned w, h, bpc;
    AdmScalePlan plan[4];
    unsigned n_groups;
    double gain[ADM_CUDA_GROUPS];
    uint32_t q[ADM_CUDA_GROUPS][4][3]; /* AdmWeights.q of each group */
    bool aim[ADM_CUDA_GROUPS];         /* whether a member reports the AIM */
    bool scale0;                       /* whether a member scores scale 0 */
    double cos1deg_sq;                 /* (double)vmaf_adm_cos1deg_sq */
    const int32_t *div_lut;            /* device copy of vmaf_adm_div_lut() */
    /* Scale-0 band sized, reused by every scale (row pitch: that scale's
     * band width): the h, v, d bands of ref and dis, the low bands
     * ([scale & 1][ref, dis]: the next scale's input), and each group's
     * per-sample sums of the weighted bands' f terms (fa from the additive
     * part, fr from the restored part). */
    int32_t *band[2][3];
    int32_t *low[2][2];
    int32_t *fa[ADM_CUDA_GROUPS], *fr[ADM_CUDA_GROUPS];
    /* ADM_CUDA_ROW_SUMS a band row, rows of scale s from row_base[s];
     * row_base[4]: rows in all. */
    uint64_t *rows;
    unsigned row_base[5];
} AdmCudaFrame;

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
