/*
 * The integer ADM on the device, with the CPU's bits. The arithmetic is
 * adm_sample.h's, one sample a thread; integer sums are the same in any
 * order, and every sum the CPU rounds per row is summed per row here too,
 * then rounded and added over the rows at the end. Per scale:
 *   k_adm_dwt    one thread an output of the wavelet transform of ref or
 *                dis (blockIdx.z): the low band (the next scale's input)
 *                and the h, v, d bands.
 *   k_adm_weigh  one thread a sample of the decoupled region: each group's
 *                f-sums, which masking reads around each sample.
 *   k_adm_mask   a block a row segment of the scored region: the
 *                denominators' and the masked numerators' terms, summed
 *                over the block and added to the row's sums.
 * Then k_adm_rows rounds and adds each row's sums.
 */
#include <stdint.h>

#include <cuda_runtime.h>

#include "cuda/device_launch.cuh"
#include "cuda/launch_status.cuh"
#include "feature/cuda/adm_cuda_kernels.h"

namespace {

constexpr int BX = 32, BY = 8;
constexpr int ROW_THREADS = 256;
constexpr int NQ = ADM_CUDA_ROW_SUMS;

/* The frame is a __grid_constant__: the kernels take its address, which
 * would otherwise copy its 1.4 KB into each thread's local memory. */
__global__ void __launch_bounds__(BX *BY)
    k_adm_dwt(const char *ref, size_t rp, const char *dis, size_t dp,
              const __grid_constant__ AdmCudaFrame f, int s)
{
    const int x = blockIdx.x * BX + threadIdx.x, y = blockIdx.y * BY + threadIdx.y;
    const int side = blockIdx.z;
    if (x >= (int)f.plan[s].w || y >= (int)f.plan[s].h)
        return;
    int32_t out[4];
    adm_dwt_sample(&f, s, side ? dis : ref, side ? dp : rp, x, y, out);
    adm_dwt_store(&f, s, side, x, y, out);
}

__global__ void __launch_bounds__(BX *BY)
    k_adm_weigh(const __grid_constant__ AdmCudaFrame f, int s)
{
    const AdmScalePlan &p = f.plan[s];
    const int x = p.work_x0 + (int)(blockIdx.x * BX + threadIdx.x);
    const int y = p.work_y0 + (int)(blockIdx.y * BY + threadIdx.y);
    if (x < p.work_x1 && y < p.work_y1)
        adm_weigh_sample(&f, s, x, y);
}

/* Every sum of the block's row segment, added to the row's sums (modulo
 * 2^64, so in any order). */
__device__ __forceinline__ void add_row_sums(const uint64_t *v, int nq, uint64_t *row)
{
    __shared__ uint64_t red[ROW_THREADS / 32][NQ];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    for (int k = 0; k < NQ; k++) {
        if (k >= nq)
            break;
        uint64_t x = v[k];
        for (int d = 16; d > 0; d >>= 1)
            x += __shfl_down_sync(0xffffffffu, x, d);
        if (!lane)
            red[warp][k] = x;
    }
    __syncthreads();
    if ((int)threadIdx.x < nq) {
        uint64_t t = 0;
        for (int i = 0; i < ROW_THREADS / 32; i++)
            t += red[i][threadIdx.x];
        if (t)
            atomicAdd((unsigned long long *)&row[threadIdx.x], (unsigned long long)t);
    }
}

__global__ void __launch_bounds__(ROW_THREADS)
    k_adm_mask(const __grid_constant__ AdmCudaFrame f, int s)
{
    const AdmScalePlan &p = f.plan[s];
    const int c = p.top + (int)blockIdx.y;
    const int x = p.left + (int)(blockIdx.x * ROW_THREADS + threadIdx.x);
    uint64_t v[NQ];
    for (int k = 0; k < NQ; k++)
        v[k] = 0;
    if (x < p.right)
        adm_mask_sample(&f, s, x, c, v);
    add_row_sums(v, 3 + 6 * (int)f.n_groups, f.rows + (size_t)(f.row_base[s] + c) * NQ);
}

/* Sum k (blockIdx.x) of scale blockIdx.y over the scored rows. */
__global__ void __launch_bounds__(ROW_THREADS)
    k_adm_rows(const __grid_constant__ AdmCudaFrame f, AdmCudaOut *out)
{
    const int k = blockIdx.x, s = blockIdx.y;
    uint64_t sum = 0;
    for (int y = f.plan[s].top + (int)threadIdx.x; y < f.plan[s].bottom; y += ROW_THREADS)
        sum += adm_row_rounded(&f, s, k, y);
    __shared__ uint64_t red[ROW_THREADS / 32];
    for (int d = 16; d > 0; d >>= 1)
        sum += __shfl_down_sync(0xffffffffu, sum, d);
    if (!(threadIdx.x & 31))
        red[threadIdx.x >> 5] = sum;
    __syncthreads();
    if (threadIdx.x)
        return;
    uint64_t t = 0;
    for (int i = 0; i < ROW_THREADS / 32; i++)
        t += red[i];
    adm_store_sum(out, s, k, t);
}

cudaError_t dwt(const AdmCudaFrame &f, int s, const void *ref, size_t rp, const void *dis,
                size_t dp, cudaStream_t st)
{
    const AdmScalePlan &p = f.plan[s];
    const dim3 grid(ceil_div(p.w, BX), ceil_div(p.h, BY), 2), block(BX, BY);
    return launched([&] {
        k_adm_dwt<<<grid, block, 0, st>>>((const char *)ref, rp, (const char *)dis, dp, f, s);
    });
}

/* Decoupling, weighting and masking of scale s. */
cudaError_t weigh_and_mask(const AdmCudaFrame &f, int s, cudaStream_t st)
{
    const AdmScalePlan &p = f.plan[s];
    const unsigned ww = (unsigned)(p.work_x1 - p.work_x0), wh = (unsigned)(p.work_y1 - p.work_y0);
    const unsigned mw = (unsigned)(p.right - p.left), mh = (unsigned)(p.bottom - p.top);
    if (!ww || !wh || !mw || !mh)
        return cudaSuccess;
    const dim3 wgrid(ceil_div(ww, BX), ceil_div(wh, BY)), wblock(BX, BY);
    cudaError_t e = launched([&] { k_adm_weigh<<<wgrid, wblock, 0, st>>>(f, s); });
    if (e != cudaSuccess)
        return e;
    const dim3 mgrid(ceil_div(mw, ROW_THREADS), mh);
    return launched([&] { k_adm_mask<<<mgrid, ROW_THREADS, 0, st>>>(f, s); });
}

} // namespace

extern "C" {

cudaError_t vmaf_adm_cuda_prepare(void)
{
    cudaError_t e = load_kernel(k_adm_dwt, cudaSuccess);
    e = load_kernel(k_adm_weigh, e);
    e = load_kernel(k_adm_mask, e);
    return load_kernel(k_adm_rows, e);
}

cudaError_t vmaf_adm_cuda_frame(const AdmCudaFrame *f, const void *ref, size_t ref_pitch,
                                const void *dis, size_t dis_pitch, AdmCudaOut *out,
                                cudaStream_t s)
{
    cudaError_t e = cudaMemsetAsync(f->rows, 0, (size_t)f->row_base[4] * NQ * sizeof(uint64_t), s);
    if (e == cudaSuccess)
        e = dwt(*f, 0, ref, ref_pitch, dis, dis_pitch, s);
    if (e == cudaSuccess && f->scale0)
        e = weigh_and_mask(*f, 0, s);
    for (int sc = 1; e == cudaSuccess && sc < 4; sc++) {
        const size_t pitch = (size_t)f->plan[sc].in_w * sizeof(int32_t);
        const int32_t *const *in = f->low[(sc - 1) & 1];
        e = dwt(*f, sc, in[0], pitch, in[1], pitch, s);
        if (e == cudaSuccess)
            e = weigh_and_mask(*f, sc, s);
    }
    if (e == cudaSuccess)
        e = launched([&] {
            k_adm_rows<<<dim3(3 + 6 * f->n_groups, 4), ROW_THREADS, 0, s>>>(*f, out);
        });
    return e;
}

} // extern "C"
