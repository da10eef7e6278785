/*
 * psnr's sums of squared errors on the device: blocks take rows of a plane
 * (blockIdx.y), threads columns; each thread sums its squared differences
 * in 64 bits, the block adds its threads' sums and adds the total to the
 * plane's sum atomically. Every value is an integer below 2^64, so any
 * order gives the CPU's sum.
 */
#include <stdint.h>

#include <cuda_runtime.h>

#include "cuda/device_launch.cuh"
#include "cuda/launch_status.cuh"
#include "feature/cuda/psnr_cuda_kernels.h"

namespace {

constexpr int NT = 256;
constexpr unsigned MAX_ROW_BLOCKS = 512; /* a few waves at most: each block then has rows */

template <typename T>
__global__ void __launch_bounds__(NT) k_psnr_sse(PsnrCudaPlanes pl, unsigned long long *sse)
{
    const unsigned p = blockIdx.y;
    const T *ref = (const T *)pl.ref[p], *dis = (const T *)pl.dis[p];
    const size_t rp = pl.ref_pitch[p] / sizeof(T), dp = pl.dis_pitch[p] / sizeof(T);
    unsigned long long sum = 0;
    for (unsigned y = blockIdx.x; y < pl.h[p]; y += gridDim.x)
        for (unsigned x = threadIdx.x; x < pl.w[p]; x += NT) {
            const int d = (int)__ldg(ref + y * rp + x) - (int)__ldg(dis + y * dp + x);
            const unsigned ad = (unsigned)(d < 0 ? -d : d); /* below 2^16: ad^2 fits 32 bits */
            sum += (unsigned long long)(ad * ad);
        }
    for (int o = 16; o > 0; o >>= 1)
        sum += __shfl_down_sync(0xffffffffu, sum, o);
    __shared__ unsigned long long warp_sum[NT / 32];
    if ((threadIdx.x & 31) == 0)
        warp_sum[threadIdx.x / 32] = sum;
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned long long total = 0;
        for (int k = 0; k < NT / 32; k++)
            total += warp_sum[k];
        if (total)
            atomicAdd(&sse[p], total);
    }
}

} // namespace

extern "C" {

cudaError_t vmaf_psnr_cuda_prepare(void)
{
    return load_kernel(k_psnr_sse<uint16_t>, load_kernel(k_psnr_sse<uint8_t>, cudaSuccess));
}

cudaError_t vmaf_psnr_cuda_sse(const PsnrCudaPlanes *pl, uint64_t *sse, cudaStream_t st)
{
    cudaError_t e = cudaMemsetAsync(sse, 0, PSNR_CUDA_PLANES * sizeof(*sse), st);
    if (e != cudaSuccess)
        return e;
    const unsigned rows = pl->h[0] < MAX_ROW_BLOCKS ? pl->h[0] : MAX_ROW_BLOCKS;
    const dim3 grid(rows, pl->planes);
    unsigned long long *out = (unsigned long long *)sse;
    return launched([&] {
        if (pl->bpc == 8)
            k_psnr_sse<uint8_t><<<grid, NT, 0, st>>>(*pl, out);
        else
            k_psnr_sse<uint16_t><<<grid, NT, 0, st>>>(*pl, out);
    });
}

} // extern "C"
