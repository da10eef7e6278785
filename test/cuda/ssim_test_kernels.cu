/*
 * Kernels only the tests run, never part of the library: the combine's
 * division and square root against the CUDA library's, the frame means on
 * given terms, and the probes that test/cuda/check_sass.sh measures the
 * library's correctly rounded sequences by. Built with the library's nvcc
 * flags (the generator of core/src/cuda/meson.build), so that the probes'
 * machine code is what those sequences compile to in the library.
 */
#include <stdint.h>

#include <cuda_runtime.h>

#include "cuda/device_launch.cuh"
#include "cuda/launch_status.cuh"
#include "feature/cuda/float_ssim/ssim_exact.cuh"
#include "feature/cuda/float_ssim/ssim_means.cuh"
#include "feature/cuda/float_ssim/ssim_strip.cuh"
#include "feature/cuda/float_ssim/ssim_tile.cuh"
#include "ssim_test_kernels.h"

namespace {

/* Test kernel: div_in_range against __ddiv_rn on pairs drawn from a seed.
 * Pair k: k % 4 == 0, the combine's operands (a any f64 in [4, 2^18), b an
 * f32 value there); 1, b any f64 there too; 2, both any f64 in [2^-64,
 * 2^64); 3, exact quotients (b an f32 value, a = b * m for an integer m
 * below 2^20, so that a / b = m). Counts the mismatches and keeps the first
 * (a, b, got, want). */
__device__ __forceinline__ unsigned long long mix64(unsigned long long z)
{
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
__device__ __forceinline__ double draw_f64(unsigned long long x, int e0, int span, bool f32)
{
    const unsigned long long mant = (x & 0xFFFFFFFFFFFFFull) & (f32 ? ~0x1FFFFFFFull : ~0ull);
    const long long e = 1023 + e0 + (long long)((x >> 52) % (unsigned)span);
    return __longlong_as_double(e << 52 | (long long)mant);
}
__global__ void k_division_check(unsigned long long seed, unsigned long long pairs,
                                 unsigned long long *__restrict__ bad, double *__restrict__ first)
{
    const unsigned long long step = (unsigned long long)gridDim.x * blockDim.x;
    for (unsigned long long k = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
         k < pairs; k += step) {
        const unsigned long long x = mix64(seed ^ (2 * k)), y = mix64(seed ^ (2 * k + 1));
        const int kind = (int)(k & 3);
        double a, b;
        if (kind == 2) {
            a = draw_f64(x, -64, 128, false);
            b = draw_f64(y, -64, 128, false);
        } else {
            b = draw_f64(y, 2, 16, kind != 1);
            a = kind == 3 ? __dmul_rn(b, (double)(1 + (x >> 44))) : draw_f64(x, 2, 16, false);
        }
        const double got = div_in_range(a, b), want = __ddiv_rn(a, b);
        if (__double_as_longlong(got) != __double_as_longlong(want) &&
            atomicAdd(bad, 1ull) == 0) {
            first[0] = a;
            first[1] = b;
            first[2] = got;
            first[3] = want;
        }
    }
}

/* Test kernel: sqrt_in_range against __fsqrt_rn on every float in [0, 2^63)
 * (bit patterns 0 .. 0x5EFFFFFF). */
__global__ void k_sqrt_check(unsigned long long *__restrict__ bad, float *__restrict__ first)
{
    const unsigned step = gridDim.x * blockDim.x;
    for (unsigned b = blockIdx.x * blockDim.x + threadIdx.x; b < 0x5F000000u; b += step) {
        const float x = __uint_as_float(b);
        const float got = sqrt_in_range(x), want = __fsqrt_rn(x);
        if (__float_as_uint(got) != __float_as_uint(want) && atomicAdd(bad, 1ull) == 0) {
            first[0] = x;
            first[1] = got;
            first[2] = want;
        }
    }
}

/* Runs a check kernel (launch(bad, first)) on zeroed device counters and
 * copies its mismatch count and first example back. */
template <typename Launch>
cudaError_t count_mismatches(Launch launch, unsigned long long *mismatches, void *first,
                             size_t first_bytes)
{
    unsigned long long *d_bad = NULL;
    void *d_first = NULL;
    cudaError_t e = cudaMalloc((void **)&d_bad, sizeof(*d_bad));
    if (e == cudaSuccess)
        e = cudaMalloc(&d_first, first_bytes);
    if (e == cudaSuccess)
        e = cudaMemset(d_bad, 0, sizeof(*d_bad));
    if (e == cudaSuccess)
        e = cudaMemset(d_first, 0, first_bytes);
    if (e == cudaSuccess)
        e = launched([&] { launch(d_bad, d_first); });
    if (e == cudaSuccess)
        e = cudaMemcpy(mismatches, d_bad, sizeof(*d_bad), cudaMemcpyDeviceToHost);
    if (e == cudaSuccess)
        e = cudaMemcpy(first, d_first, first_bytes, cudaMemcpyDeviceToHost);
    cudaFree(d_bad);
    cudaFree(d_first);
    return e;
}

/* Test kernels: the production totals and means over given terms, seg
 * terms per thread, 32 threads per block. */
__global__ void k_terms_partials(const double *__restrict__ terms, unsigned long long n,
                                 int seg, double *__restrict__ partials)
{
    double sum[1] = {0.0}, asum[1] = {0.0};
    const unsigned long long first = (unsigned long long)blockIdx.x * seg * TW;
    for (int r = 0; r < seg; r++) {
        const unsigned long long idx = first + (unsigned long long)r * TW + threadIdx.x;
        if (idx < n) {
            sum[0] = __dadd_rn(sum[0], terms[idx]);
            asum[0] = __dadd_rn(asum[0], fabs(terms[idx]));
        }
    }
    add_block_sums_w<1, 32>(sum, asum, (double)(long long)(n - first), partials, nullptr, 0);
}

__global__ void k_finalize(double *__restrict__ totals, int nq, double n, double depth,
                           SsimCudaOut *__restrict__ out)
{
    final_means<false>(totals, nq, n, depth, out);
}

} // namespace

/* Probes for the machine-code test (test/cuda/check_sass.sh), never
 * launched: each holds exactly the correctly rounded operations of one
 * production kernel and nothing else, so that its FMA count is what those
 * library sequences need. A kernel with more FMAs than its probes allow had
 * a multiply-add contracted. combine(): two f64 divisions (div_in_range),
 * one f32 division, one f32 square root (sqrt_in_range). final_means(): two
 * means. */
extern "C" __global__ void ssim_fma_probe_combine(const double *__restrict__ a,
                                                  float *__restrict__ f,
                                                  double *__restrict__ o)
{
    const int i = threadIdx.x;
    o[4 * i] = div_in_range(a[4 * i], a[4 * i + 1]);
    o[4 * i + 1] = div_in_range(a[4 * i + 2], a[4 * i + 3]);
    f[i] = __fdiv_rn(f[i], f[i + 32]);
    f[i + 64] = sqrt_in_range(f[i + 64]);
}

extern "C" __global__ void ssim_fma_probe_finalize(const double *__restrict__ a,
                                                   float *__restrict__ f)
{
    const int i = threadIdx.x;
    f[2 * i] = mean_of<false>(a[3 * i], a[3 * i + 2]);
    f[2 * i + 1] = mean_of<false>(a[3 * i + 1], a[3 * i + 2]);
}

extern "C" {

/* Never called: takes the addresses of the probe instances so that they
 * are compiled (test/cuda/check_sass.sh reads them). */
void *ssim_test_probe_kernels(void)
{
    static void *const probes[] = {(void *)k_tile<uint16_t, 4, 1, true>,
                                   (void *)k_strip<uint16_t, 4, true>};
    return (void *)probes;
}

size_t ssim_test_terms_partials_bytes(unsigned long long n, unsigned seg)
{
    (void)n;
    (void)seg;
    return (size_t)REC * sizeof(double);
}

cudaError_t ssim_test_mean_of_terms(const double *terms, unsigned long long n,
                                         unsigned seg, double *partials, SsimCudaOut *out,
                                         cudaStream_t st)
{
    const unsigned nblocks = ceil_div(n, (unsigned long long)seg * TW);
    cudaError_t e = cudaMemsetAsync(partials, 0, REC * sizeof(double), st);
    if (e != cudaSuccess)
        return e;
    e = launched([&] { k_terms_partials<<<nblocks, TW, 0, st>>>(terms, n, (int)seg, partials); });
    if (e != cudaSuccess)
        return e;
    const double depth = (double)seg + 5.0 + (double)nblocks + 2.0;
    return launched([&] { k_finalize<<<1, 32, 0, st>>>(partials, 1, (double)n, depth, out); });
}

cudaError_t ssim_test_division_mismatches(unsigned long long seed,
                                               unsigned long long pairs,
                                               unsigned long long *mismatches, double first[4])
{
    return count_mismatches(
        [=](unsigned long long *bad, void *f) {
            k_division_check<<<1024, 256>>>(seed, pairs, bad, static_cast<double *>(f));
        },
        mismatches, first, 4 * sizeof(double));
}

cudaError_t ssim_test_sqrt_mismatches(unsigned long long *mismatches, float first[3])
{
    return count_mismatches(
        [](unsigned long long *bad, void *f) {
            k_sqrt_check<<<1024, 256>>>(bad, static_cast<float *>(f));
        },
        mismatches, first, 3 * sizeof(float));
}

} // extern "C"
