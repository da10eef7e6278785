/*
 * The float_ms_ssim twin's decimation, one output at a time: what
 * k_ms_ssim_lpf (ms_ssim_decimate.cu) computes for its sample. Plain C
 * that nvcc compiles for the device and a C compiler for the host, so that
 * test/ms_ssim/test_ms_ssim_sample.c checks it against the CPU's
 * vmaf_ms_ssim_decimate() without a GPU.
 *
 * The CPU's contract (ms_ssim_kernels.h): f32 products of sample and tap,
 * added into a double in row-major tap order, rounded to f32; edges
 * mirrored about the sample boundary, the edge sample taken twice. The f32/f64 steps use CUDA's
 * _rn intrinsics on the device (no contraction whatever the flags); on the
 * host, the plain operators they equal (the build has no contraction).
 */
#ifndef LIBVMAF_SRC_FEATURE_CUDA_MS_SSIM_MS_SSIM_LPF_SAMPLE_H
#define LIBVMAF_SRC_FEATURE_CUDA_MS_SSIM_MS_SSIM_LPF_SAMPLE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __CUDACC__
#define MS_SSIM_FN static __device__ __forceinline__
#define MS_SSIM_LDG(p) __ldg(p)
#define MS_SSIM_FMUL(a, b) __fmul_rn(a, b)
#define MS_SSIM_DADD(a, b) __dadd_rn(a, b)
#else
#define MS_SSIM_FN static inline
#define MS_SSIM_LDG(p) (*(p))
#define MS_SSIM_FMUL(a, b) ((a) * (b))
#define MS_SSIM_DADD(a, b) ((a) + (b))
#endif

#define MS_SSIM_CUDA_TAPS 9
#define MS_SSIM_CUDA_RADIUS 4

/* The CPU's filter (vmaf_ms_ssim_lpf), passed to the kernel by value. */
typedef struct MsSsimLpfTaps {
    float t[MS_SSIM_CUDA_TAPS][MS_SSIM_CUDA_TAPS];
} MsSsimLpfTaps;

/* i mirrored into 0 .. n-1 about the sample boundary (-1 -> 0, n -> n-1),
 * as vmaf_ssim_mirror(); n > MS_SSIM_CUDA_RADIUS. */
MS_SSIM_FN int ms_ssim_mirror(int i, int n)
{
    return i < 0 ? -1 - i : i >= n ? 2 * n - 1 - i : i;
}

/* Low-passed sample (x, y) of a w x h plane of T, rows `pitch` samples
 * apart, each sample read as (float)v * mul (mul: 2^-(bpc-8) for the
 * picture, as vmaf_ssim_plane_to_float() converts it; 1 for f32 planes). */
#define MS_SSIM_LPF_AT(NAME, T)                                                             \
    MS_SSIM_FN float NAME(const T *src, size_t pitch, float mul, int w, int h, int x, int y,  \
                          const MsSsimLpfTaps *k)                                           \
    {                                                                                       \
        double sum = 0.0;                                                                   \
        for (int v = 0; v < MS_SSIM_CUDA_TAPS; v++) {                                        \
            const T *row = src + (size_t)ms_ssim_mirror(y + v - MS_SSIM_CUDA_RADIUS, h) * pitch; \
            for (int u = 0; u < MS_SSIM_CUDA_TAPS; u++) {                                    \
                const int xi = ms_ssim_mirror(x + u - MS_SSIM_CUDA_RADIUS, w);              \
                const float a = MS_SSIM_FMUL((float)MS_SSIM_LDG(row + xi), mul);            \
                sum = MS_SSIM_DADD(sum, (double)MS_SSIM_FMUL(a, k->t[v][u]));                \
            }                                                                               \
        }                                                                                   \
        return (float)sum;                                                                  \
    }

MS_SSIM_LPF_AT(ms_ssim_lpf_at_u8, uint8_t)
MS_SSIM_LPF_AT(ms_ssim_lpf_at_u16, uint16_t)
MS_SSIM_LPF_AT(ms_ssim_lpf_at_f32, float)

#endif /* LIBVMAF_SRC_FEATURE_CUDA_MS_SSIM_MS_SSIM_LPF_SAMPLE_H */
