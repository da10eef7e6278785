/*
 * The MS-SSIM numerics. The decimation is the reference's per-pixel 2-D
 * filter: f32 products of sample and tap added into a double in row-major
 * tap order, rounded to f32, with symmetric edges; SSIM at each scale is
 * float_ssim's (vmaf_ssim_compute_float); the scales combine in double
 * with pow(), as the reference does. Built with -ffp-contract=off.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "config.h"
#include "cpu.h"
#include "feature/ms_ssim/ms_ssim.h"
#include "feature/ms_ssim/ms_ssim_kernels.h"
#include "feature/ssim/ssim.h"

#define LPF_TAPS MS_SSIM_LPF_TAPS
#define LPF_RADIUS 4

const float vmaf_ms_ssim_lpf[LPF_TAPS][LPF_TAPS] = {
    { 0.000714f, -0.000450f, -0.002090f, 0.007132f, 0.016114f, 0.007132f, -0.002090f,
      -0.000450f, 0.000714f },
    { -0.000450f, 0.000283f, 0.001316f, -0.004490f, -0.010146f, -0.004490f, 0.001316f,
      0.000283f, -0.000450f },
    { -0.002090f, 0.001316f, 0.006115f, -0.020867f, -0.047149f, -0.020867f, 0.006115f,
      0.001316f, -0.002090f },
    { 0.007132f, -0.004490f, -0.020867f, 0.071207f, 0.160885f, 0.071207f, -0.020867f,
      -0.004490f, 0.007132f },
    { 0.016114f, -0.010146f, -0.047149f, 0.160885f, 0.363505f, 0.160885f, -0.047149f,
      -0.010146f, 0.016114f },
    { 0.007132f, -0.004490f, -0.020867f, 0.071207f, 0.160885f, 0.071207f, -0.020867f,
      -0.004490f, 0.007132f },
    { -0.002090f, 0.001316f, 0.006115f, -0.020867f, -0.047149f, -0.020867f, 0.006115f,
      0.001316f, -0.002090f },
    { -0.000450f, 0.000283f, 0.001316f, -0.004490f, -0.010146f, -0.004490f, 0.001316f,
      0.000283f, -0.000450f },
    { 0.000714f, -0.000450f, -0.002090f, 0.007132f, 0.016114f, 0.007132f, -0.002090f,
      -0.000450f, 0.000714f },
};

extern const VmafMsSsimKernels vmaf_ms_ssim_kernels_c;
#if HAVE_AVX2_KERNELS
extern const VmafMsSsimKernels vmaf_ms_ssim_kernels_avx2;
#endif
#if HAVE_AVX512_KERNELS
extern const VmafMsSsimKernels vmaf_ms_ssim_kernels_avx512;
#endif

static const VmafKernelVariant variants[] = {
    { &vmaf_ms_ssim_kernels_c, 0 },
#if HAVE_AVX2_KERNELS
    { &vmaf_ms_ssim_kernels_avx2, VMAF_CPU_FLAG_AVX2 },
#endif
#if HAVE_AVX512_KERNELS
    { &vmaf_ms_ssim_kernels_avx512, VMAF_CPU_FLAG_AVX512 },
#endif
};
#define N_VARIANTS ((int)(sizeof(variants) / sizeof(variants[0])))

const VmafMsSsimKernels *vmaf_ms_ssim_kernels_get(int i)
{
    return vmaf_kernel_variant_get(variants, N_VARIANTS, i);
}

const VmafMsSsimKernels *vmaf_ms_ssim_kernels_best(void)
{
    return vmaf_kernel_variant_best(variants, N_VARIANTS);
}

/* Wang's exponents of l, c and s at each scale. */
static const float alpha[MS_SSIM_SCALES] = { 0.0000f, 0.0000f, 0.0000f, 0.0000f, 0.1333f };
static const float beta[MS_SSIM_SCALES] = { 0.0448f, 0.2856f, 0.3001f, 0.2363f, 0.1333f };
static const float gamma_[MS_SSIM_SCALES] = { 0.0448f, 0.2856f, 0.3001f, 0.2363f, 0.1333f };

static inline unsigned half_up(unsigned n)
{
    return n / 2 + (n & 1);
}

/* The low-passed sample at (x, y) of a w x h plane, mirrored at the edges
 * (inside, the mirror leaves coordinates as they are). */
static float filtered_edge(const float *p, unsigned w, unsigned h, int x, int y)
{
    double sum = 0.0;
    for (int v = -LPF_RADIUS; v <= LPF_RADIUS; v++) {
        const float *row = p + (size_t)vmaf_ssim_mirror(y + v, (int)h) * w;
        for (int u = -LPF_RADIUS; u <= LPF_RADIUS; u++)
            sum += row[vmaf_ssim_mirror(x + u, (int)w)] *
                   vmaf_ms_ssim_lpf[v + LPF_RADIUS][u + LPF_RADIUS];
    }
    return (float)sum;
}

/* The next scale: every other sample of the low-passed plane. */
static void decimate(const VmafMsSsimKernels *k, const float *src, unsigned w, unsigned h,
                     float *dst)
{
    const unsigned dw = half_up(w), dh = half_up(h);
    for (unsigned y = 0; y < dh; y++) {
        const unsigned cy = 2 * y;
        const bool rows_inside = cy >= LPF_RADIUS && cy + LPF_RADIUS < h;
        const float *top = src + (size_t)(rows_inside ? cy - LPF_RADIUS : 0) * w;
        float *out = dst + (size_t)y * dw;
        for (unsigned x = 0; x < dw;) {
            const unsigned cx = 2 * x;
            const bool inside = rows_inside && cx >= LPF_RADIUS;
            /* eight neighbouring outputs at once, each summed in its order */
            if (inside && cx + 2 * (MS_SSIM_LANES - 1) + LPF_RADIUS < w) {
                k->lpf_lanes(top + cx - LPF_RADIUS, w, out + x);
                x += MS_SSIM_LANES;
            } else {
                out[x++] = filtered_edge(src, w, h, (int)cx, (int)cy);
            }
        }
    }
}

void vmaf_ms_ssim_decimate(const float *src, unsigned w, unsigned h, float *dst)
{
    decimate(vmaf_ms_ssim_kernels_best(), src, w, h, dst);
}

void vmaf_ms_ssim_combine(MsSsimResult *res)
{
    double score = 1.0;
    for (int k = 0; k < MS_SSIM_SCALES; k++)
        score *= pow(res->l[k], alpha[k]) * pow(res->c[k], beta[k]) * pow(res->s[k], gamma_[k]);
    res->score = score;
}

size_t vmaf_ms_ssim_scratch_size(unsigned w, unsigned h)
{
    if (w < MS_SSIM_MIN_SIDE || h < MS_SSIM_MIN_SIDE)
        return 0;
    /* two decimated planes, then the SSIM scratch of the largest scale */
    return 2 * (size_t)half_up(w) * half_up(h) * sizeof(float) +
           vmaf_ssim_float_scratch_size(w, h);
}

int vmaf_ms_ssim_compute(float *ref, float *dis, unsigned w, unsigned h, void *scratch,
                         size_t scratch_size, MsSsimResult *res)
{
    if (!ref || !dis || !scratch || !res || scratch_size < vmaf_ms_ssim_scratch_size(w, h) ||
        !vmaf_ms_ssim_scratch_size(w, h))
        return -EINVAL;
    /* Each scale is decimated into the other buffer of its pair. */
    float *next_ref = scratch;
    float *next_dis = next_ref + (size_t)half_up(w) * half_up(h);
    void *ssim_scratch = next_dis + (size_t)half_up(w) * half_up(h);
    const size_t ssim_size = vmaf_ssim_float_scratch_size(w, h);
    const VmafMsSsimKernels *kernels = vmaf_ms_ssim_kernels_best();
    for (int k = 0; k < MS_SSIM_SCALES; k++) {
        VmafSsimResult r;
        int err = vmaf_ssim_compute_float(ref, w, dis, w, w, h, ssim_scratch, ssim_size, &r);
        if (err)
            return err;
        res->l[k] = r.l;
        res->c[k] = r.c;
        res->s[k] = r.s;
        if (k + 1 == MS_SSIM_SCALES)
            break;
        decimate(kernels, ref, w, h, next_ref);
        decimate(kernels, dis, w, h, next_dis);
        w = half_up(w);
        h = half_up(h);
        float *const done_ref = ref, *const done_dis = dis;
        ref = next_ref, dis = next_dis;
        next_ref = done_ref, next_dis = done_dis;
    }
    vmaf_ms_ssim_combine(res);
    return 0;
}
