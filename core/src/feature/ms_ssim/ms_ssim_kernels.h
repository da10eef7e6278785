/*
 * The inner loop of MS-SSIM's decimation, one table per instruction set
 * (ms_ssim_kernels.c); every table gives the same bits (test/checkasm).
 */
#ifndef LIBVMAF_SRC_FEATURE_MS_SSIM_MS_SSIM_KERNELS_H
#define LIBVMAF_SRC_FEATURE_MS_SSIM_MS_SSIM_KERNELS_H

#include <stddef.h>

#define MS_SSIM_LPF_TAPS 9
#define MS_SSIM_LANES 8

/* The 9/7 biorthogonal wavelet's low-pass filter, in two dimensions. */
extern const float vmaf_ms_ssim_lpf[MS_SSIM_LPF_TAPS][MS_SSIM_LPF_TAPS];

typedef struct VmafMsSsimKernels {
    const char *name;
    /* out[k] = the 9x9 window at at + 2k (rows w floats apart) filtered:
     * f32 products of sample and tap added into a double in row-major tap
     * order, rounded to f32; k < MS_SSIM_LANES. */
    void (*lpf_lanes)(const float *at, size_t w, float out[MS_SSIM_LANES]);
} VmafMsSsimKernels;

const VmafMsSsimKernels *vmaf_ms_ssim_kernels_get(int i);
const VmafMsSsimKernels *vmaf_ms_ssim_kernels_best(void);

#endif /* LIBVMAF_SRC_FEATURE_MS_SSIM_MS_SSIM_KERNELS_H */
