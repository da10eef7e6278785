/*
 * float_ssim's arithmetic on the device, operation for operation as the CPU
 * rounds it (docs/metrics/float_ssim_numerics.md): the samples as f32, the
 * per-pixel combine with its correctly rounded divisions and square root.
 *
 * Every floating-point operation is an explicit round-to-nearest intrinsic
 * (__fmul_rn, __dadd_rn, ...): those are never contracted into a fused
 * multiply-add, whatever the compiler flags, and the build adds -fmad=false
 * on top. The only FMAs in the machine code are inside the correctly
 * rounded division and square root sequences, which return the IEEE result
 * the CPU gets (test/cuda/check_sass.sh counts them against probe kernels
 * holding just those operations).
 *
 * The Gaussian sums widen their f32 products with widen() (device_math.cuh):
 * every non-zero product in them is at least 2^-64 (samples are multiples
 * of 2^-8, decimated values at least 2^-22; squares, taps >= 2^-10 and the
 * second pass bring that to 2^-64), so every scaled value and partial sum
 * is a normal f64 (>= 2^-960), and no value is negative, subnormal,
 * infinite or NaN: each scaled sum is exactly 2^-896 times the CPU's sum.
 * (Widening some chains by the conversion unit instead, to spread the work
 * over more pipes, measured slower.)
 */
#ifndef LIBVMAF_SRC_FEATURE_CUDA_FLOAT_SSIM_SSIM_EXACT_CUH
#define LIBVMAF_SRC_FEATURE_CUDA_FLOAT_SSIM_SSIM_EXACT_CUH

#include <cuda_runtime.h>

#include "cuda/device_math.cuh"
#include "feature/cuda/float_ssim/ssim_launch.h"
#include "feature/cuda/float_ssim_cuda_kernels.h"

namespace {

/* The kernels' names for the geometry they share with the plan. */
constexpr int WIN = SSIM_CUDA_WIN;
constexpr int TW = SSIM_CUDA_TW;
constexpr int SP = SSIM_CUDA_SP;

/* A sample as the CPU's f32: an integer sample divided by 2^(bpc - 8) (the
 * divisor inv_d's inverse, a power of two), or a decimated f32 value. */
template <typename P>
__device__ __forceinline__ float load_x(const P *row, int i, float inv_d)
{
    return __fmul_rn(int_f32(row[i]), inv_d);
}
template <>
__device__ __forceinline__ float load_x<float>(const float *row, int i, float inv_d)
{
    (void)inv_d;
    return row[i];
}

/* ---- per-pixel combine ----------------------------------------------------- */

struct Terms {
    double t, l, c, s;
};

/* The correctly rounded library operations. PROBE swaps them for plain
 * multiplications: the machine-code test requires that a kernel built so
 * has no FMA at all, which proves that none comes from our arithmetic. */
template <bool PROBE>
__device__ __forceinline__ double div_d(double a, double b)
{
    return PROBE ? __dmul_rn(a, b) : __ddiv_rn(a, b);
}
/* a / b, correctly rounded, for |a| and b in [2^-64, 2^64] or a = 0 (the
 * steps below are symmetric in the sign of a): the combine's two f64
 * divisions. The library's division (div.rn.f64) is a seed from the
 * reciprocal unit (MUFU.RCP64H of b's high word, low word 1), two Newton
 * steps, the product and one correction, then a range check that sends
 * operands near underflow or overflow (a below ~2^-967, a quotient that is
 * not a normal number) to a slow path. Here: exactly those instructions
 * without the check, which is always passed in this range. The combine's
 * b is at least C1 = 6.5 and below 2^18 (samples are below 256); so is a,
 * but for MS-SSIM's negative samples (its low-pass overshoots), where
 * 2 mr md + C1 may cancel, to 0 or to a multiple of 2^-50. Without the check's branch the compiler interleaves the
 * two divisions of a pixel, which it cannot do across the branch and its
 * reconvergence. The multiply-adds are
 * the algorithm's, not contractions: they sit in one tagged assembly block
 * that the PTX check (test/cuda/check_ptx.sh) admits, seven at a time. A
 * GPU test compares this with __ddiv_rn on random operands beyond the
 * range (ssim_test_division_mismatches, test/cuda). */
__device__ __forceinline__ double div_in_range(double a, double b)
{
    double r0;
    asm("rcp.approx.ftz.f64 %0, %1;" : "=d"(r0) : "d"(b));
    r0 = __hiloint2double(__double2hiint(r0), 1);
    double q;
    asm("{\n\t"
        "// float_ssim: division fast path\n\t"
        ".reg .f64 nb, e, r1, r2, q0, rem;\n\t"
        "neg.f64 nb, %2;\n\t"
        "fma.rn.f64 e, nb, %3, 0d3FF0000000000000;\n\t" /* e = 1 - b r0 */
        "fma.rn.f64 e, e, e, e;\n\t"                    /* e + e^2 */
        "fma.rn.f64 r1, %3, e, %3;\n\t"                 /* r1 = r0 (1 + e + e^2) */
        "fma.rn.f64 e, nb, r1, 0d3FF0000000000000;\n\t" /* 1 - b r1 */
        "fma.rn.f64 r2, r1, e, r1;\n\t"                 /* r2 = r1 (1 + e) */
        "mul.rn.f64 q0, %1, r2;\n\t"                    /* q0 = a r2 */
        "fma.rn.f64 rem, nb, q0, %1;\n\t"               /* a - b q0, exact */
        "fma.rn.f64 %0, r2, rem, q0;\n\t"               /* q0 + r2 (a - b q0) */
        "}"
        : "=d"(q)
        : "d"(a), "d"(b), "d"(r0));
    return q;
}
template <bool PROBE>
__device__ __forceinline__ double div_combine(double a, double b)
{
    return PROBE ? __dmul_rn(a, b) : div_in_range(a, b);
}
/* sqrt(x), correctly rounded, for 0 <= x < 2^63: the combine's square
 * root. The library's (__fsqrt_rn) is a seed from the reciprocal square
 * root unit (MUFU.RSQ), s = x y, h = y / 2 and s + (x - s^2) h with two
 * FMAs, for x in [2^-101, 2^127); zero and smaller x take a slow path
 * behind a branch, which, as for the divisions (div_in_range), keeps the
 * compiler from overlapping it with the rest of the combine. Here x is
 * first scaled by 2^64 (exact: any non-zero x below 2^63, subnormals too,
 * lands in [2^-85, 2^127)), the fast path taken, and the result scaled by
 * 2^-32: the square root of x 2^64 is exactly 2^32 sqrt(x) and, both being
 * normal numbers, rounds to 2^32 times the rounded sqrt(x). Zero gives zero
 * by a select. The combine's x = vr vd is below 2^33. The two FMAs sit in a
 * tagged assembly block that the PTX check admits; a GPU test compares the
 * function with __fsqrt_rn on every float in [0, 2^63)
 * (ssim_test_sqrt_mismatches, test/cuda). */
__device__ __forceinline__ float sqrt_in_range(float x)
{
    const float xs = __fmul_rn(x, 0x1p64f);
    float q;
    asm("{\n\t"
        "// float_ssim: square root fast path\n\t"
        ".reg .f32 y, s, ns, h, r;\n\t"
        "rsqrt.approx.ftz.f32 y, %1;\n\t"
        "mul.rn.ftz.f32 s, %1, y;\n\t"         /* s = x y */
        "mul.rn.ftz.f32 h, y, 0f3F000000;\n\t" /* h = y / 2 */
        "neg.f32 ns, s;\n\t"
        "fma.rn.f32 r, ns, s, %1;\n\t" /* x - s^2 */
        "fma.rn.f32 %0, r, h, s;\n\t"  /* s + (x - s^2) h */
        "}"
        : "=f"(q)
        : "f"(xs));
    return x == 0.0f ? 0.0f : __fmul_rn(q, 0x1p-32f);
}
template <bool PROBE>
__device__ __forceinline__ float sqrt_f(float a)
{
    return PROBE ? __fmul_rn(a, a) : sqrt_in_range(a);
}
template <bool PROBE>
__device__ __forceinline__ float div_f(float a, float b)
{
    return PROBE ? __fmul_rn(a, b) : __fdiv_rn(a, b);
}

/* Step 4 of the numerics, operation for operation. */
template <bool PROBE>
__device__ __forceinline__ Terms combine(float mr, float md, float srr, float sdd, float srd,
                                         const SsimCudaConsts &k)
{
    const float mr2 = __fmul_rn(mr, mr), md2 = __fmul_rn(md, md), mrmd = __fmul_rn(mr, md);
    float vr = __fsub_rn(srr, mr2);
    float vd = __fsub_rn(sdd, md2);
    vr = vr < 0.0f ? 0.0f : vr;
    vd = vd < 0.0f ? 0.0f : vd;
    const float cov = __fsub_rn(srd, mrmd);
    /* The CPU rounds the f64 square root of the f32 product to f32. Rounding
     * twice is innocuous for the square root when the wider format has at
     * least 2p + 2 bits (53 >= 2 * 24 + 2; Figueroa, "When is double
     * rounding innocuous?", 1995), and the product widens exactly: the f32
     * square root, correctly rounded, is the same number. */
    const float sq = sqrt_f<PROBE>(__fmul_rn(vr, vd));
    Terms o;
    o.l = div_combine<PROBE>(
        __dadd_rn(__dmul_rn(__dmul_rn(2.0, (double)mr), (double)md), k.c1d),
        (double)__fadd_rn(__fadd_rn(mr2, md2), k.c1));
    o.c = div_combine<PROBE>(__dadd_rn(__dmul_rn(2.0, (double)sq), k.c2d),
                             (double)__fadd_rn(__fadd_rn(vr, vd), k.c2));
    const float cc = (cov < 0.0f && sq <= 0.0f) ? 0.0f : cov;
    o.s = (double)div_f<PROBE>(__fadd_rn(cc, k.c3), __fadd_rn(sq, k.c3));
    o.t = __dmul_rn(__dmul_rn(o.l, o.c), o.s);
    return o;
}

} // namespace

#endif /* LIBVMAF_SRC_FEATURE_CUDA_FLOAT_SSIM_SSIM_EXACT_CUH */
