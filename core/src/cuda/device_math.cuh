/*
 * Exact arithmetic helpers for the twins' kernels (.cu files only). Every
 * one is exact under the condition it states; a kernel that uses one says
 * why its values meet it.
 */
#ifndef LIBVMAF_SRC_CUDA_DEVICE_MATH_CUH
#define LIBVMAF_SRC_CUDA_DEVICE_MATH_CUH

#include <cuda_runtime.h>

namespace {

/* The f32 -> f64 widening without the conversion unit (a quarter-rate unit
 * that bounds a kernel made of widened products): the bits of a
 * non-negative f32 moved right by 3 within 64 bits are the f64 whose value
 * is exactly f * 2^-896 (the exponent keeps its f32 bias), and 0 gives 0.
 * Sums then run on values scaled by 2^-896. Where every non-zero value and
 * every partial sum stays a normal f64 (>= 2^-960), scaling by a power of
 * two commutes with rounding: each scaled sum is exactly 2^-896 times the
 * unscaled one, and narrow() undoes the scale exactly before rounding to
 * f32. Only for values that are not negative, subnormal, infinite or NaN. */
__device__ __forceinline__ double widen(float f)
{
    const unsigned b = __float_as_uint(f);
    return __hiloint2double((int)(b >> 3), (int)(b << 29));
}

/* widen() for negative values too (any f32 whose magnitude is normal or
 * zero): the magnitude moved as widen() moves it, the sign kept. Two more
 * integer operations, so only inputs that can be negative take it. */
__device__ __forceinline__ double widen_signed(float f)
{
    const unsigned b = __float_as_uint(f);
    return __hiloint2double((int)(((b & 0x7fffffffu) >> 3) | (b & 0x80000000u)), (int)(b << 29));
}

/* widen() or, for SIGNED, widen_signed(). */
template <bool SIGNED>
__device__ __forceinline__ double widen_as(float f)
{
    return SIGNED ? widen_signed(f) : widen(f);
}

__device__ __forceinline__ float narrow(double scaled_sum)
{
    return __double2float_rn(__dmul_rn(scaled_sum, 0x1p896));
}

/* The f32 p from the bits of the f32 2^23 + p (p < 2^23): exact. Samples
 * become f32 this way, without the conversion unit: their bits are put
 * under the exponent of 2^23 (0x4B000000), by an OR or a byte permutation. */
__device__ __forceinline__ float from_biased(unsigned bits)
{
    return __fsub_rn(__uint_as_float(bits), 8388608.0f);
}

/* Integer sample to f32, exact (p < 2^23). */
__device__ __forceinline__ float int_f32(unsigned p)
{
    return from_biased(0x4B000000u | p);
}

/* One reflection without repeating the edge (-1 -> 0, n -> n - 1), as the
 * CPU's vmaf_ssim_mirror(); the caller makes sure that one is enough. */
__device__ __forceinline__ int mirror(int i, int n)
{
    return i < 0 ? -1 - i : (i >= n ? 2 * n - 1 - i : i);
}

} // namespace

#endif /* LIBVMAF_SRC_CUDA_DEVICE_MATH_CUH */
