/*
 * float_ssim's frame means on the device: each block's sums go to the
 * frame's totals by f64 atomics, and the means are decided from them,
 * proven equal to the CPU's sequential sums or flagged for the redo.
 */
#ifndef LIBVMAF_SRC_FEATURE_CUDA_FLOAT_SSIM_SSIM_MEANS_CUH
#define LIBVMAF_SRC_FEATURE_CUDA_FLOAT_SSIM_SSIM_MEANS_CUH

#include <cuda/atomic>
#include <cuda_runtime.h>

#include "feature/cuda/float_ssim/ssim_exact.cuh"
#include "feature/cuda/float_ssim/ssim_launch.h"
#include "feature/cuda/float_ssim_cuda_kernels.h"

namespace {

constexpr int PART = SSIM_CUDA_PART; /* per quantity: sum, weighted and plain |sum| */
constexpr int REC = SSIM_CUDA_REC;   /* doubles of the frame totals */

/* ---- frame means ------------------------------------------------------------
 * Each block adds, for each quantity, three numbers to the frame's totals:
 * E_b the sum of its terms, A_b the sum of their magnitudes, and W_b >=
 * the sum of |t_i| (n - i) over its terms (i the row-major index). The
 * CPU's sequential sum S rounds at each of its n - 1 additions by at most
 * u = 2^-53 times the magnitude of that partial sum, and each partial sum
 * is at most (1 + gamma_n) times the sum of the magnitudes added so far: a
 * term at index i is in n - i of them at most, so |S - exact| <= u (1 +
 * gamma_n) Wt with Wt = sum of W_b. The parallel sum E took at most
 * `depth` additions on any path (the block's own, then one for each block
 * added to the total, in whatever order they finish), so |E - exact| <=
 * gamma_depth A. With n < 2^32 and depth < 2^20 both gammas' excess and the
 * rounding of Wt and A themselves stay far below the 2^-18 of slack, so the
 * interval E +- B, B = (u Wt + depth u A)(1 + 2^-18) rounded upwards and
 * applied outwards, holds S. mean = (f32)(S / n) is monotonic in S: if both
 * ends give the same f32, that is the CPU's value; otherwise the flag asks
 * for the sequential sum. The order of the blocks' additions can move E
 * by a few units in its last place, never the mean reported: either both
 * ends agree, and the mean is the CPU's, or the sequential sum decides. */
template <bool PROBE>
__device__ __forceinline__ float mean_of(double s, double n)
{
    return __double2float_rn(div_d<PROBE>(s, n));
}

/* The means from the frame's totals (thread q < nq takes quantity q), which
 * it then zeroes for the next frame. The totals are read through L2, where
 * the other blocks' atomic additions were made. */
template <bool PROBE>
__device__ void final_means(double *totals, int nq, double n, double depth, SsimCudaOut *out)
{
    const int q = threadIdx.x;
    if (q < nq) {
        const double e = __ldcg(totals + PART * q), wt = __ldcg(totals + PART * q + 1),
                     a = __ldcg(totals + PART * q + 2);
#pragma unroll
        for (int j = 0; j < PART; j++)
            totals[PART * q + j] = 0.0;
        const double u = 0x1p-53;
        const double b = __dmul_ru(__dadd_ru(__dmul_ru(wt, u), __dmul_ru(a, depth * u)),
                                   1.0 + 0x1p-18);
        const float lo = mean_of<PROBE>(__dsub_rd(e, b), n);
        const float hi = mean_of<PROBE>(__dadd_ru(e, b), n);
        out->mean[q] = lo;
        out->redo[q] = __float_as_uint(lo) != __float_as_uint(hi);
    }
}

/* Adds the block's sums to the frame's totals (all threads call it): sum,
 * asum and wsum, each thread's sums of the terms, of their magnitudes and
 * of their magnitudes weighted by n - i (upper bounds). wsum == NULL: every
 * term of the block has an index of at least i_b, and weight = n - i_b
 * bounds each term's n - i; the block's weighted sum is then its sum of
 * magnitudes times weight, rounded upwards, and only sum and asum cross
 * the block (a third fewer shuffles). Either way the weighted total is
 * within the rounding of its additions, which the slack of the interval
 * covers, of its exact value. Returns true in every thread of the block
 * that finished the frame last (counter != NULL), which then computes the
 * means. */
template <int NQ, int NT>
__device__ bool add_block_sums(const double *sum, const double *asum, const double *wsum,
                               double weight, double *totals, unsigned *counter,
                               unsigned nblocks)
{
    constexpr int NW = NT / 32;
    __shared__ double s_red[NW][PART * NQ];
    __shared__ int s_last;
    double sv[PART * NQ]; /* per quantity: sum, weighted sum, magnitudes */
#pragma unroll
    for (int q = 0; q < NQ; q++) {
        sv[PART * q] = sum[q];
        sv[PART * q + 1] = wsum ? wsum[q] : 0.0;
        sv[PART * q + 2] = asum[q];
    }
#pragma unroll
    for (int off = 16; off; off >>= 1)
#pragma unroll
        for (int i = 0; i < PART * NQ; i++)
            if (wsum || i % PART != 1)
                sv[i] = __dadd_rn(sv[i], __shfl_xor_sync(0xffffffffu, sv[i], off));
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0)
#pragma unroll
        for (int i = 0; i < PART * NQ; i++)
            s_red[warp][i] = sv[i];
    __syncthreads();
    const int i = threadIdx.x;
    if (i < PART * NQ && (wsum || i % PART != 1)) {
        double v = s_red[0][i];
        for (int k = 1; k < NW; k++)
            v = __dadd_rn(v, s_red[k][i]);
        atomicAdd(totals + i, v);
        if (!wsum && i % PART == 2) /* the block's weighted sum */
            atomicAdd(totals + i - 1, __dmul_ru(v, weight));
    }
    if (!counter)
        return false;
    /* The block's additions happen before thread 0's release (the barrier
     * orders them), so the block that counts last, acquiring, sees every
     * block's additions: one memory round trip, not a fence and then an
     * atomic. */
    __syncthreads();
    if (threadIdx.x == 0) {
        cuda::atomic_ref<unsigned, cuda::thread_scope_device> done(*counter);
        s_last = done.fetch_add(1u, cuda::memory_order_acq_rel) == nblocks - 1;
    }
    __syncthreads();
    return s_last;
}

/* The same where every term of the block has an index of at least i_b:
 * weight = n - i_b bounds each term's n - i. */
template <int NQ, int NT>
__device__ bool add_block_sums_w(const double *sum, const double *asum, double weight,
                                 double *partials, unsigned *counter, unsigned nblocks)
{
    return add_block_sums<NQ, NT>(sum, asum, nullptr, weight, partials, counter, nblocks);
}

/* The terms of one output into the per-thread sums (and the terms buffer). */
template <int NQ>
__device__ __forceinline__ void accumulate(const Terms &tm, double *sum, double *asum,
                                           double *terms, long long idx, int tq)
{
    sum[0] = __dadd_rn(sum[0], tm.t);
    asum[0] = __dadd_rn(asum[0], fabs(tm.t));
    if constexpr (NQ == 4) {
        sum[1] = __dadd_rn(sum[1], tm.l);
        asum[1] = __dadd_rn(asum[1], fabs(tm.l));
        sum[2] = __dadd_rn(sum[2], tm.c);
        asum[2] = __dadd_rn(asum[2], fabs(tm.c));
        sum[3] = __dadd_rn(sum[3], tm.s);
        asum[3] = __dadd_rn(asum[3], fabs(tm.s));
    }
    if (terms)
        terms[idx] = tq == 0 ? tm.t : tq == 1 ? tm.l : tq == 2 ? tm.c : tm.s;
}

} // namespace

#endif /* LIBVMAF_SRC_FEATURE_CUDA_FLOAT_SSIM_SSIM_MEANS_CUH */
