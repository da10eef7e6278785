/*
 * psnr_hvs on the device: one thread a block of one plane, computing its
 * 64 terms with the CPU's own code (feature/psnr_hvs/psnr_hvs_block.h),
 * whose divisions and square root are integer arithmetic here. The host
 * adds the terms in the CPU's order (psnr_hvs_cuda.c).
 */
#include <stdint.h>

#include <cuda_runtime.h>

#include "cuda/device_launch.cuh"
#include "cuda/launch_status.cuh"
#include "feature/cuda/psnr_hvs_cuda_kernels.h"
#include "feature/psnr_hvs/psnr_hvs_block.h"

namespace {

constexpr int THREADS = 128;

template <typename T>
__device__ __forceinline__ void load_block(const void *p, size_t pitch, unsigned y, unsigned x,
                                           int32_t b[64])
{
    for (int i = 0; i < 8; i++) {
        const T *row = (const T *)((const char *)p + (size_t)(y + i) * pitch);
        for (int j = 0; j < 8; j++)
            b[i * 8 + j] = row[x + j];
    }
}

template <typename T>
__global__ void __launch_bounds__(THREADS)
    k_psnr_hvs_terms(PsnrHvsCudaPlane pl, PsnrHvsCudaTables t, float *__restrict__ terms)
{
    const unsigned n = pl.nbx * pl.nby;
    const unsigned blk = blockIdx.x * THREADS + threadIdx.x;
    if (blk >= n)
        return;
    const unsigned by = blk / pl.nbx, bx = blk % pl.nbx;
    int32_t s[64], d[64];
    load_block<T>(pl.ref, pl.ref_pitch, 7 * by, 7 * bx, s);
    load_block<T>(pl.dis, pl.dis_pitch, 7 * by, 7 * bx, d);
    psnr_hvs_block_terms(s, d, t.mask, t.csf, terms + (size_t)blk * 64);
}

} // namespace

extern "C" {

cudaError_t vmaf_psnr_hvs_cuda_prepare(void)
{
    cudaError_t e = load_kernel(k_psnr_hvs_terms<uint8_t>, cudaSuccess);
    return load_kernel(k_psnr_hvs_terms<uint16_t>, e);
}

cudaError_t vmaf_psnr_hvs_cuda_terms(const PsnrHvsCudaPlane *pl, const PsnrHvsCudaTables *t,
                                     float *terms, cudaStream_t st)
{
    const unsigned n = pl->nbx * pl->nby;
    const unsigned grid = ceil_div(n, THREADS);
    return launched([&] {
        if (pl->bpc > 8)
            k_psnr_hvs_terms<uint16_t><<<grid, THREADS, 0, st>>>(*pl, *t, terms);
        else
            k_psnr_hvs_terms<uint8_t><<<grid, THREADS, 0, st>>>(*pl, *t, terms);
    });
}

} // extern "C"
