/*
 * float_ssim inner loops. This one source is compiled once per instruction
 * set (meson passes SSIM_KERNEL_SUFFIX and the -m flags); ssim.c picks a
 * variant at run time. Every variant must return the bits of the plain C
 * build: test/ssim compares them all against a literal implementation.
 * -ffp-contract=off is essential here (a fused a*b+c rounds once).
 */
#include <math.h>
#include <stdint.h>

#include "feature/ssim/ssim.h"
#include "feature/ssim/ssim_kernels.h"

#ifndef SSIM_KERNEL_SUFFIX
#error "SSIM_KERNEL_SUFFIX must name the variant (c, avx2, ...)"
#endif
#define SSIM_CAT2(a, b) a##_##b
#define SSIM_CAT(a, b) SSIM_CAT2(a, b)
#define KFN(name) SSIM_CAT(name, SSIM_KERNEL_SUFFIX)
#define SSIM_STR2(x) #x
#define SSIM_STR(x) SSIM_STR2(x)

#define pixel uint8_t
#define FN(name) KFN(name##_8)
#include "feature/ssim/ssim_tmpl.c"
#undef pixel
#undef FN

#define pixel uint16_t
#define FN(name) KFN(name##_16)
#include "feature/ssim/ssim_tmpl.c"
#undef pixel
#undef FN

/* One output row of the 11-tap Gaussian: out[x] = (f32) sum_v (f64)(f32)
 * (src[v][x] * g[v]), taps added in ascending order from 0. The horizontal
 * pass passes src[v] = in + v, the vertical pass the 11 rows of the window;
 * either way each sum stays in a register and the loads are contiguous, so
 * the compiler vectorises across x without touching the order of a sum. */
static void KFN(filter11)(const float *const src[SSIM_WINDOW], unsigned n,
                          float *restrict out)
{
    const float *g = vmaf_ssim_gauss;
    const float *restrict s0 = src[0], *restrict s1 = src[1], *restrict s2 = src[2],
                          *restrict s3 = src[3], *restrict s4 = src[4], *restrict s5 = src[5],
                          *restrict s6 = src[6], *restrict s7 = src[7], *restrict s8 = src[8],
                          *restrict s9 = src[9], *restrict s10 = src[10];
    for (unsigned x = 0; x < n; x++) {
        double sum = 0.0;
        sum += (double)(s0[x] * g[0]);
        sum += (double)(s1[x] * g[1]);
        sum += (double)(s2[x] * g[2]);
        sum += (double)(s3[x] * g[3]);
        sum += (double)(s4[x] * g[4]);
        sum += (double)(s5[x] * g[5]);
        sum += (double)(s6[x] * g[6]);
        sum += (double)(s7[x] * g[7]);
        sum += (double)(s8[x] * g[8]);
        sum += (double)(s9[x] * g[9]);
        sum += (double)(s10[x] * g[10]);
        out[x] = (float)sum;
    }
}

static void KFN(products)(const float *restrict r, const float *restrict d, unsigned n,
                          float *restrict rr, float *restrict dd, float *restrict rd)
{
    for (unsigned x = 0; x < n; x++) {
        rr[x] = r[x] * r[x];
        dd[x] = d[x] * d[x];
        rd[x] = r[x] * d[x];
    }
}

/* Per-pixel SSIM terms; each line is one step of the numerics document. */
static void KFN(combine)(const float *restrict mr_, const float *restrict md_,
                         const float *restrict srr_, const float *restrict sdd_,
                         const float *restrict srd_, unsigned n, double *restrict t_,
                         double *restrict l_, double *restrict c_, double *restrict s_)
{
    const float C1 = VMAF_SSIM_C1, C2 = VMAF_SSIM_C2, C3 = VMAF_SSIM_C3;
    for (unsigned x = 0; x < n; x++) {
        const float mr = mr_[x], md = md_[x];
        const float mr2 = mr * mr, md2 = md * md, mrmd = mr * md;
        float vr = srr_[x] - mr2;
        float vd = sdd_[x] - md2;
        vr = vr < 0.0f ? 0.0f : vr;
        vd = vd < 0.0f ? 0.0f : vd;
        const float cov = srd_[x] - mrmd;
        const float sq = (float)sqrt((double)(vr * vd));
        const double l = (((2.0 * (double)mr) * (double)md) + (double)C1) /
                         (double)((mr2 + md2) + C1);
        const double c = ((2.0 * (double)sq) + (double)C2) / (double)((vr + vd) + C2);
        /* cc = (cov < 0 && sq <= 0) ? 0 : cov, written as two selects (the
         * same value for every input, NaN included) because gcc does not
         * vectorise the && */
        const float cov_pos = cov < 0.0f ? 0.0f : cov;
        const float cc = sq <= 0.0f ? cov_pos : cov;
        const double s = (double)((cc + C3) / (sq + C3));
        t_[x] = (l * c) * s;
        l_[x] = l;
        c_[x] = c;
        s_[x] = s;
    }
}

const VmafSsimKernels KFN(vmaf_ssim_kernels) = {
    .name = SSIM_STR(SSIM_KERNEL_SUFFIX),
    .convert_row_8 = KFN(convert_row_8),
    .convert_row_16 = KFN(convert_row_16),
    .accumulate_row_8 = KFN(accumulate_row_8),
    .accumulate_row_16 = KFN(accumulate_row_16),
    .filter11 = KFN(filter11),
    .products = KFN(products),
    .combine = KFN(combine),
};
