/*
 * The inner loops of float_ssim, compiled once per instruction set from one
 * source (ssim_kernels.c) and chosen at run time. Every variant returns the
 * same bits: the loops vectorise across pixels only, never across the terms
 * of a sum, and no variant may contract a*b+c.
 */
#ifndef LIBVMAF_SRC_FEATURE_SSIM_SSIM_KERNELS_H
#define LIBVMAF_SRC_FEATURE_SSIM_SSIM_KERNELS_H

#include <stdint.h>

#include "feature/ssim/ssim_geometry.h"

typedef struct VmafSsimKernels {
    const char *name;
    /* dst[x] = (f32)src[x] * inv_d (the reciprocal of a power of two) */
    void (*convert_row_8)(const uint8_t *src, unsigned w, float inv_d, float *dst);
    void (*convert_row_16)(const uint16_t *src, unsigned w, float inv_d, float *dst);
    /* acc[x] (+)= (f64)((f32)src[x] * kk); first != 0 starts the sums */
    void (*accumulate_row_8)(const uint8_t *src, unsigned w, float kk, double *acc,
                             int first);
    void (*accumulate_row_16)(const uint16_t *src, unsigned w, float kk, double *acc,
                              int first);
    /* out[x] = (f32) sum_v (f64)(f32)(src[v][x] * g[v]), v ascending */
    void (*filter11)(const float *const src[SSIM_WINDOW], unsigned n, float *out);
    /* rr = r*r, dd = d*d, rd = r*d (f32) */
    void (*products)(const float *r, const float *d, unsigned n, float *rr, float *dd,
                     float *rd);
    /* per-pixel t, l, c, s from the filtered means and products */
    void (*combine)(const float *mr, const float *md, const float *srr, const float *sdd,
                    const float *srd, unsigned n, double *t, double *l, double *c, double *s);
} VmafSsimKernels;

extern const VmafSsimKernels vmaf_ssim_kernels_c;
extern const VmafSsimKernels vmaf_ssim_kernels_avx2;   /* when HAVE_AVX2_KERNELS */
extern const VmafSsimKernels vmaf_ssim_kernels_avx512; /* when HAVE_AVX512_KERNELS */

/* Variant i of this build (0 = plain C), or NULL when i is out of range or
 * the CPU cannot run it. For tests that compare the variants function by
 * function. */
const VmafSsimKernels *vmaf_ssim_kernels_get(int i);

#endif /* LIBVMAF_SRC_FEATURE_SSIM_SSIM_KERNELS_H */
