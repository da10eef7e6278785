/*
 * float_ssim's tile kernel, for planes below the strips' size: one
 * 32-column tile of output rows per block, the input tile, the horizontal
 * pass, the vertical pass and the combine in shared memory. Templates
 * only: ssim_frame.cu instantiates and launches them, the tests' kernels
 * their probe.
 */
#ifndef LIBVMAF_SRC_FEATURE_CUDA_FLOAT_SSIM_SSIM_TILE_CUH
#define LIBVMAF_SRC_FEATURE_CUDA_FLOAT_SSIM_SSIM_TILE_CUH

#include <stdint.h>

#include <cuda_runtime.h>

#include <type_traits>

#include "cuda/device_launch.cuh"
#include "cuda/device_math.cuh"
#include "feature/cuda/float_ssim/ssim_exact.cuh"
#include "feature/cuda/float_ssim/ssim_launch.h"
#include "feature/cuda/float_ssim/ssim_means.cuh"
#include "feature/cuda/float_ssim_cuda_kernels.h"

namespace {

constexpr int IW = TW + WIN - 1;  /* input columns of a tile */
constexpr int HP = 36;            /* horizontal-result row pitch (floats) */

/* ---- the Gaussian passes ---------------------------------------------------
 * N consecutive outputs of one pass from N + 10 consecutive inputs: output
 * j is the f64 sum over u = 0..10, in that order, of the f32 products
 * v[j + u] * g[u], rounded to f32 once by the caller (narrow). The taps
 * are symmetric (g[u] == g[10 - u], bit for bit; a test checks the table),
 * so v[i] * g[u] is also output i - 10 + u's product at tap 10 - u: it is
 * kept from tap u (< 5) and used again at tap 10 - u (the compiler does
 * not merge the two multiplications by itself). The first product starts
 * the sum: 0 + p = p for any p but -0, which no product is (a sample is
 * never -0). SIGNED: the samples may be negative (MS-SSIM's low-passed
 * planes overshoot), which widen() cannot take. */
template <int N, bool SIGNED>
__device__ __forceinline__ void gauss(const float *v, const float *g6, double *acc)
{
    double keep[5][N]; /* keep[c][j]: v[j + c] * g[c], made for tap u = c */
#pragma unroll
    for (int u = 0; u < WIN; u++) {
        const int c = u < 5 ? u : WIN - 1 - u;
#pragma unroll
        for (int j = 0; j < N; j++) {
            const int i = j + u;
            double p;
            if (u > 5 && i - c >= 0 && i - c < N)
                p = keep[c][i - c];
            else
                p = widen_as<SIGNED>(__fmul_rn(v[i], g6[c]));
            if (u < 5)
                keep[c][j] = p;
            acc[j] = u ? __dadd_rn(acc[j], p) : p;
        }
    }
}

/* NV float4 loads from shared memory. */
template <int NV>
__device__ __forceinline__ void ldsv(const float *p, float *v)
{
    const float4 *q = reinterpret_cast<const float4 *>(p);
#pragma unroll
    for (int i = 0; i < NV; i++) {
        const float4 t = q[i];
        v[4 * i] = t.x;
        v[4 * i + 1] = t.y;
        v[4 * i + 2] = t.z;
        v[4 * i + 3] = t.w;
    }
}

/* The tile kernel's pass items. hsums_to: the horizontal sums of CW
 * outputs from their CW + 10 samples v, rounded to f32, to o (16-byte
 * aligned). vsums_of: the vertical sums of R outputs from a column of
 * horizontal sums (pitch HP), rounded to f32, to out. */
template <int CW, bool SIGNED>
__device__ __forceinline__ void hsums_to(const float *v, const float *g6, float *o)
{
    double acc[CW];
    gauss<CW, SIGNED>(v, g6, acc);
    float4 *o4 = reinterpret_cast<float4 *>(o);
#pragma unroll
    for (int j = 0; j < CW / 4; j++)
        o4[j] = make_float4(narrow(acc[4 * j]), narrow(acc[4 * j + 1]), narrow(acc[4 * j + 2]),
                            narrow(acc[4 * j + 3]));
}
template <int R, bool SIGNED>
__device__ __forceinline__ void vsums_of(const float *col, const float *g6, float *out)
{
    float hv[R + WIN - 1];
#pragma unroll
    for (int i = 0; i < R + WIN - 1; i++)
        hv[i] = col[i * HP];
    double acc[R];
    gauss<R, SIGNED>(hv, g6, acc);
#pragma unroll
    for (int i = 0; i < R; i++)
        out[i] = narrow(acc[i]);
}

/* ---- the tile kernel ---------------------------------------------------------
 * A block computes the outputs of TW columns and TH rows. Phase 0 stages
 * the input tile. Phase 1, the horizontal pass: an item takes CW output
 * columns of one tile row, their CW + 10 samples from shared memory, and
 * writes the horizontal sums of R, D, R*R, D*D and R*D back to shared
 * memory. Phase 2, the vertical pass: an item takes R output rows of one
 * column and their R + 10 horizontal sums, then combines and accumulates.
 * Then the block's sums into the frame totals, and the frame means in
 * the last block. The launch shapes (TH, CW, R, threads, ...) are
 * SSIM_CUDA_SHAPES (ssim_launch.h). */
using Shape = SsimCudaShape;

__host__ __device__ constexpr size_t tile_smem(const Shape &sh)
{
    return (size_t)(2 * (sh.th + WIN - 1) * SP + 5 * (sh.th + WIN - 1) * HP +
                    (sh.qsplit ? 5 * sh.th * TW : 0)) *
           sizeof(float);
}

/* Four consecutive samples, loaded at once. */
template <typename P> struct Quad;
template <> struct Quad<float> {
    using T = float4;
    static __device__ T make(float a, float b, float c, float d)
    {
        return make_float4(a, b, c, d);
    }
};
template <> struct Quad<uint16_t> {
    using T = ushort4;
    static __device__ T make(uint16_t a, uint16_t b, uint16_t c, uint16_t d)
    {
        return make_ushort4(a, b, c, d);
    }
};
template <> struct Quad<uint8_t> {
    using T = uchar4;
    static __device__ T make(uint8_t a, uint8_t b, uint8_t c, uint8_t d)
    {
        return make_uchar4(a, b, c, d);
    }
};

/* Phase 0 where the rows allow loads of four samples (4, 8 or 16 bytes):
 * the (TH + 10) x 44 samples of both planes as whole quads (the tile's
 * first column is a multiple of 32; a quad past the plane's right edge is
 * read sample by sample, clamped), every load of a thread issued before
 * its first store, so that the block waits on memory once, not once a
 * row. */
template <typename P, int IH, int NT>
__device__ __forceinline__ void stage_quads(const P *__restrict__ r, size_t rp,
                                            const P *__restrict__ d, size_t dp, float inv_d,
                                            int W, int H, int c0, int o0, float *s_in)
{
    using T = typename Quad<P>::T;
    constexpr int Q = SP / 4, N = 2 * IH * Q, PER = (N + NT - 1) / NT;
    T v[PER];
#pragma unroll
    for (int k = 0; k < PER; k++) {
        const int i = (int)threadIdx.x + k * NT;
        if (i < N) {
            const int plane = i / (IH * Q), y = min(o0 + i / Q % IH, H - 1);
            const int x = c0 + 4 * (i % Q);
            const P *row = plane ? d + (size_t)y * dp : r + (size_t)y * rp;
            if (x + 3 < W)
                v[k] = *reinterpret_cast<const T *>(row + x);
            else
                v[k] = Quad<P>::make(row[min(x, W - 1)], row[min(x + 1, W - 1)],
                                     row[min(x + 2, W - 1)], row[min(x + 3, W - 1)]);
        }
    }
#pragma unroll
    for (int k = 0; k < PER; k++) {
        const int i = (int)threadIdx.x + k * NT;
        if (i < N) {
            float4 f;
            if constexpr (std::is_same<P, float>::value)
                f = v[k];
            else
                f = make_float4(__fmul_rn(int_f32(v[k].x), inv_d),
                                __fmul_rn(int_f32(v[k].y), inv_d),
                                __fmul_rn(int_f32(v[k].z), inv_d),
                                __fmul_rn(int_f32(v[k].w), inv_d));
            reinterpret_cast<float4 *>(s_in)[i] = f;
        }
    }
}

/* Phase 0: stages the (TH + 10) x 42 input samples of both planes as f32
 * (coordinates past the plane are clamped: they only feed outputs past it,
 * which are never used). */
template <typename P, int IH, int NT>
__device__ __forceinline__ void stage(const P *__restrict__ r, size_t rp,
                                      const P *__restrict__ d, size_t dp, float inv_d, int W,
                                      int H, int c0, int o0, float *s_in)
{
    if ((((uintptr_t)r | (uintptr_t)d | (rp * sizeof(P)) | (dp * sizeof(P))) %
         (4 * sizeof(P))) == 0) {
        stage_quads<P, IH, NT>(r, rp, d, dp, inv_d, W, H, c0, o0, s_in);
        return;
    }
    const int lane = threadIdx.x & 31;
    for (int rr = threadIdx.x >> 5; rr < IH; rr += NT / 32) {
        const int y = min(o0 + rr, H - 1);
        const P *rrow = r + (size_t)y * rp, *drow = d + (size_t)y * dp;
        for (int c = lane; c < SP; c += 32) {
            float a = 0.0f, b = 0.0f;
            if (c < IW) {
                const int x = min(c0 + c, W - 1);
                a = load_x(rrow, x, inv_d);
                b = load_x(drow, x, inv_d);
            }
            s_in[rr * SP + c] = a;
            s_in[(IH + rr) * SP + c] = b;
        }
    }
}

template <typename P, int NQ, int S, bool PROBE>
__global__ void __launch_bounds__(SSIM_CUDA_SHAPES[S].nt,
                                  min_blocks(SSIM_CUDA_SHAPES[S].nt, SSIM_CUDA_SHAPES[S].minb))
    k_tile(const P *__restrict__ r, size_t rp, const P *__restrict__ d, size_t dp, float inv_d,
           int W, int H, const SsimCudaConsts k, double depth, double *__restrict__ partials,
           unsigned *__restrict__ counter, SsimCudaOut *__restrict__ out,
           double *__restrict__ terms, int tq)
{
    constexpr Shape SH = SSIM_CUDA_SHAPES[S];
    constexpr int TH = SH.th, CW = SH.cw, R = SH.r, NT = SH.nt;
    constexpr int IH = TH + WIN - 1;
    constexpr int NV = (CW + WIN - 1 + 3) / 4; /* float4 loads of one item's inputs */
    /* f32 planes (decimated) may hold negative samples; pictures do not. */
    constexpr bool SG = std::is_same<P, float>::value;
    constexpr int N1 = IH * (TW / CW);         /* horizontal items per quantity */
    constexpr int N2 = TW * (TH / R);          /* vertical items per quantity */
    static_assert(TH % R == 0 && TW % CW == 0 && CW % 4 == 0, "whole items");
    static_assert((TW - CW) + 4 * NV <= SP, "item loads stay in the staged row");
    static_assert(NT % 32 == 0, "whole warps");
    extern __shared__ float4 smem4[];
    float *s_in = reinterpret_cast<float *>(smem4); /* [2][IH][SP] */
    float *s_h = s_in + 2 * IH * SP;                  /* [5][IH][HP] */
    float *s_v = s_h + 5 * IH * HP;                   /* [5][TH][TW] (qsplit) */
    const int lane = threadIdx.x & 31;
    const int Wo = W - (WIN - 1), Ho = H - (WIN - 1);
    const int c0 = blockIdx.x * TW, o0 = blockIdx.y * TH;
    const int x = c0 + lane;
    float g6[6];
#pragma unroll
    for (int i = 0; i < 6; i++)
        g6[i] = k.g[i];
    double sum[NQ], asum[NQ];
#pragma unroll
    for (int q = 0; q < NQ; q++)
        sum[q] = asum[q] = 0.0;

    wait_for_inputs();
    /* k_finalize_after, where it follows, may take its slot now and wait. */
    let_dependents_launch();
    stage<P, IH, NT>(r, rp, d, dp, inv_d, W, H, c0, o0, s_in);
    __syncthreads();

    if constexpr (SH.qsplit) {
        /* Phase 1: one quantity of CW columns of one row per item. The
         * source is a * b with (a, b) = (R, 1), (D, 1), (R, R), (D, D),
         * (R, D): times 1 is exact, and one code path serves all five. */
        for (int it = threadIdx.x; it < 5 * N1; it += NT) {
            const int q = it / N1, rest = it % N1;
            const int rr = rest / (TW / CW), kk = (rest % (TW / CW)) * CW;
            const float *ra = s_in + rr * SP + kk, *da = s_in + (IH + rr) * SP + kk;
            float a[4 * NV], b[4 * NV];
            ldsv<NV>(q == 1 || q == 3 ? da : ra, a);
            ldsv<NV>(q == 4 ? da : q == 1 || q == 3 ? da : ra, b);
            const bool one = q < 2;
#pragma unroll
            for (int i = 0; i < CW + WIN - 1; i++)
                a[i] = __fmul_rn(a[i], one ? 1.0f : b[i]);
            hsums_to<CW, SG>(a, g6, s_h + (q * IH + rr) * HP + kk);
        }
        __syncthreads();
        /* Phase 2: one quantity of R rows of one column per item. */
        for (int it = threadIdx.x; it < 5 * N2; it += NT) {
            const int q = it / N2, m = (it % N2) / TW;
            float mv[R];
            vsums_of<R, SG>(s_h + (q * IH + m * R) * HP + lane, g6, mv);
#pragma unroll
            for (int i = 0; i < R; i++)
                s_v[(q * TH + m * R + i) * TW + lane] = mv[i];
        }
        __syncthreads();
        /* Phase 3: combine, one output per item. */
        for (int it = threadIdx.x; it < TH * TW; it += NT) {
            const int i = it / TW, o = o0 + i;
            if (x < Wo && o < Ho) {
                const float *v = s_v + i * TW + lane;
                accumulate<NQ>(combine<PROBE>(v[0], v[TH * TW], v[2 * TH * TW], v[3 * TH * TW],
                                              v[4 * TH * TW], k),
                               sum, asum, terms, (long long)o * Wo + x, tq);
            }
        }
    } else {
        /* Phase 1: the five quantities of CW columns of one row per item. */
        for (int it = threadIdx.x; it < N1; it += NT) {
            const int rr = it / (TW / CW), kk = (it % (TW / CW)) * CW;
            const float *ra = s_in + rr * SP + kk, *da = s_in + (IH + rr) * SP + kk;
#pragma unroll
            for (int q = 0; q < 5; q++) {
                float v[4 * NV];
                ldsv<NV>(q == 1 || q == 3 ? da : ra, v);
                if (q == 2 || q == 3) {
#pragma unroll
                    for (int i = 0; i < CW + WIN - 1; i++)
                        v[i] = __fmul_rn(v[i], v[i]);
                } else if (q == 4) {
                    float b[4 * NV];
                    ldsv<NV>(da, b);
#pragma unroll
                    for (int i = 0; i < CW + WIN - 1; i++)
                        v[i] = __fmul_rn(v[i], b[i]);
                }
                hsums_to<CW, SG>(v, g6, s_h + (q * IH + rr) * HP + kk);
            }
        }
        __syncthreads();
        /* Phase 2: the vertical pass of R rows of one column, all five
         * quantities, then their combines. */
        for (int it = threadIdx.x; it < N2; it += NT) {
            const int m = it / TW;
            float mv[5][R];
#pragma unroll
            for (int q = 0; q < 5; q++)
                vsums_of<R, SG>(s_h + (q * IH + m * R) * HP + lane, g6, mv[q]);
#pragma unroll
            for (int i = 0; i < R; i++) {
                const int o = o0 + m * R + i;
                if (x < Wo && o < Ho)
                    accumulate<NQ>(combine<PROBE>(mv[0][i], mv[1][i], mv[2][i], mv[3][i],
                                                  mv[4][i], k),
                                   sum, asum, terms, (long long)o * Wo + x, tq);
            }
        }
    }

    const long long n = (long long)Wo * Ho;
    const double weight = (double)(n - ((long long)o0 * Wo + c0));
    const unsigned nb = gridDim.x * gridDim.y;
    if (out && add_block_sums_w<NQ, NT>(sum, asum, weight, partials, counter, nb)) {
        final_means<PROBE>(partials, NQ, (double)n, depth, out);
        if (threadIdx.x == 0)
            *counter = 0; /* ready for the next frame on this buffer */
    }
}

} // namespace

#endif /* LIBVMAF_SRC_FEATURE_CUDA_FLOAT_SSIM_SSIM_TILE_CUH */
