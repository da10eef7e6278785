/*
 * MS-SSIM's decimation loop, compiled once per instruction set (meson
 * passes MS_SSIM_KERNEL_SUFFIX and the -m flags): each lane's sum keeps
 * its order, so the lanes may share vector registers. No contraction.
 */
#include <stddef.h>

#include "feature/ms_ssim/ms_ssim_kernels.h"

#ifndef MS_SSIM_KERNEL_SUFFIX
#error "MS_SSIM_KERNEL_SUFFIX must name the variant (c, avx2, ...)"
#endif
#define MS_SSIM_CAT2(a, b) a##_##b
#define MS_SSIM_CAT(a, b) MS_SSIM_CAT2(a, b)
#define KFN(name) MS_SSIM_CAT(name, MS_SSIM_KERNEL_SUFFIX)
#define MS_SSIM_STR2(x) #x
#define MS_SSIM_STR(x) MS_SSIM_STR2(x)

static void KFN(lpf_lanes)(const float *at, size_t w, float out[MS_SSIM_LANES])
{
    double sum[MS_SSIM_LANES] = { 0.0 };
    for (int v = 0; v < MS_SSIM_LPF_TAPS; v++, at += w)
        for (int u = 0; u < MS_SSIM_LPF_TAPS; u++) {
            const float tap = vmaf_ms_ssim_lpf[v][u];
            for (int k = 0; k < MS_SSIM_LANES; k++)
                sum[k] += at[2 * k + u] * tap;
        }
    for (int k = 0; k < MS_SSIM_LANES; k++)
        out[k] = (float)sum[k];
}

const VmafMsSsimKernels KFN(vmaf_ms_ssim_kernels) = {
    .name = MS_SSIM_STR(MS_SSIM_KERNEL_SUFFIX),
    .lpf_lanes = KFN(lpf_lanes),
};
