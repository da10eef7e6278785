/*
 * motion's SAD on the device: the 5x5 blur of the difference of two luma
 * planes, then the sum of its absolute values, in the integers of the CPU
 * code (feature/motion/motion_tmpl.c, motion_kernels.c), so the sum is the
 * CPU's. Every step is an integer operation; the sum has no rounding, and
 * its order is free: a row's sum stays below 2^32 (at most 65536 columns
 * of at most 65535), as the CPU's uint32 row sum, and the frame's below
 * 2^48.
 *
 * A block makes ROWS output rows of TX columns: for each row its threads
 * first blur the difference vertically for the TX + 4 columns the row's
 * horizontal taps read (mirrored at the picture's edges as the CPU
 * mirrors, reflect-101), into shared memory, then blur horizontally.
 */
#include <stdint.h>

#include <cuda_runtime.h>

#include "cuda/device_launch.cuh"
#include "cuda/launch_status.cuh"
#include "feature/cuda/motion_cuda_kernels.h"
#include "feature/motion/motion_sad.h"

namespace {

constexpr int TX = 128;  /* output columns a block */
constexpr int ROWS = 8;  /* output rows a block */
constexpr int RADIUS = 2;

/* The vertical pass at column x of the rows r[]: below 16 bits the sum
 * fits an int32 as on the CPU; at 16 bits it needs the int64. */
template <typename T, bool WIDE>
__device__ __forceinline__ int32_t blur_diff_col(const char *prev, size_t pp, const char *cur,
                                                 size_t cp, const int *r, int x,
                                                 const MotionCudaTaps &t, unsigned bpc)
{
    if (WIDE) {
        int64_t sum = 0;
        for (int k = 0; k < 5; k++) {
            const int p = ((const T *)(prev + r[k] * pp))[x];
            const int c = ((const T *)(cur + r[k] * cp))[x];
            sum += (int64_t)t.f[k] * (p - c);
        }
        return (int32_t)((sum + (1 << (bpc - 1))) >> bpc);
    }
    int32_t sum = 0;
    for (int k = 0; k < 5; k++) {
        const int p = ((const T *)(prev + r[k] * pp))[x];
        const int c = ((const T *)(cur + r[k] * cp))[x];
        sum += t.f[k] * (p - c);
    }
    return (sum + (1 << (bpc - 1))) >> bpc;
}

template <typename T, bool WIDE>
__global__ void __launch_bounds__(TX) k_motion_sad(const char *prev, size_t pp, const char *cur,
                                                   size_t cp, int w, int h, unsigned bpc,
                                                   MotionCudaTaps t, unsigned long long *sad)
{
    __shared__ int32_t y[TX + 2 * RADIUS];
    __shared__ unsigned long long warp_sum[TX / 32];
    const int x0 = blockIdx.x * TX, tx = threadIdx.x;
    const int r_end = min((int)(blockIdx.y + 1) * ROWS, h);
    unsigned long long acc = 0;
    for (int row = blockIdx.y * ROWS; row < r_end; row++) {
        int r[5];
        for (int k = 0; k < 5; k++)
            r[k] = vmaf_motion_mirror(row - RADIUS + k, h);
        for (int c = tx; c < TX + 2 * RADIUS; c += TX) {
            const int col = x0 - RADIUS + c;
            if (col < w + RADIUS)
                y[c] = blur_diff_col<T, WIDE>(prev, pp, cur, cp, r, vmaf_motion_mirror(col, w),
                                              t, bpc);
        }
        __syncthreads();
        if (x0 + tx < w) {
            int64_t s = 0;
            for (int k = 0; k < 5; k++)
                s += (int64_t)t.f[k] * y[tx + k];
            const int32_t v = (int32_t)((s + (1 << 15)) >> 16);
            acc += (unsigned)(v < 0 ? -v : v);
        }
        __syncthreads();
    }
    for (int d = 16; d > 0; d >>= 1)
        acc += __shfl_down_sync(0xffffffffu, acc, d);
    if ((tx & 31) == 0)
        warp_sum[tx / 32] = acc;
    __syncthreads();
    if (tx == 0) {
        unsigned long long total = 0;
        for (int i = 0; i < TX / 32; i++)
            total += warp_sum[i];
        if (total)
            atomicAdd(sad, total);
    }
}

template <typename T, bool WIDE>
cudaError_t launch(const void *prev, size_t pp, const void *cur, size_t cp, unsigned w,
                   unsigned h, unsigned bpc, const MotionCudaTaps *t, unsigned long long *sad,
                   cudaStream_t s)
{
    const dim3 grid(ceil_div(w, TX), ceil_div(h, ROWS));
    return launched([&] {
        k_motion_sad<T, WIDE><<<grid, TX, 0, s>>>((const char *)prev, pp, (const char *)cur, cp,
                                                  (int)w, (int)h, bpc, *t, sad);
    });
}

} // namespace

extern "C" {

cudaError_t vmaf_motion_cuda_prepare(void)
{
    cudaError_t e = load_kernel(k_motion_sad<uint8_t, false>, cudaSuccess);
    e = load_kernel(k_motion_sad<uint16_t, false>, e);
    return load_kernel(k_motion_sad<uint16_t, true>, e);
}

cudaError_t vmaf_motion_cuda_sad(const void *prev, size_t prev_pitch, const void *cur,
                                 size_t cur_pitch, unsigned w, unsigned h, unsigned bpc,
                                 const MotionCudaTaps *taps, unsigned long long *sad,
                                 cudaStream_t s)
{
    cudaError_t e = cudaMemsetAsync(sad, 0, sizeof(*sad), s);
    if (e != cudaSuccess)
        return e;
    if (bpc == 8)
        return launch<uint8_t, false>(prev, prev_pitch, cur, cur_pitch, w, h, bpc, taps, sad, s);
    if (bpc < 16)
        return launch<uint16_t, false>(prev, prev_pitch, cur, cur_pitch, w, h, bpc, taps, sad,
                                       s);
    return launch<uint16_t, true>(prev, prev_pitch, cur, cur_pitch, w, h, bpc, taps, sad, s);
}

} // extern "C"
