/*
 * float_ssim's strip kernel, for large planes (4K and 8K at scale 1): a
 * block walks 32-column strips in 30-row chunks, each horizontal sum made
 * once; one warp a quantity streams both Gaussian passes; then the
 * per-pixel combine. Templates only: ssim_frame.cu instantiates and
 * launches them, the tests' kernels their probe.
 */
#ifndef LIBVMAF_SRC_FEATURE_CUDA_FLOAT_SSIM_SSIM_STRIP_CUH
#define LIBVMAF_SRC_FEATURE_CUDA_FLOAT_SSIM_SSIM_STRIP_CUH

#include <cuda_runtime.h>

#include <type_traits>

#include "cuda/device_launch.cuh"
#include "cuda/device_math.cuh"
#include "feature/cuda/float_ssim/ssim_exact.cuh"
#include "feature/cuda/float_ssim/ssim_launch.h"
#include "feature/cuda/float_ssim/ssim_means.cuh"
#include "feature/cuda/float_ssim_cuda_kernels.h"

namespace {

constexpr int SHP = 32; /* horizontal-sum row pitch (floats), swizzled (swz) */

/* ---- streamed Gaussian passes (the strip kernel's) -----------------------------
 * A thread takes a whole row (horizontal) or column (vertical) of outputs of
 * one quantity and walks its inputs in order. Each input is multiplied by
 * each of the six distinct taps once (g[u] == g[10 - u]) and every product
 * goes to the outputs that use it: 6 + 30 / N products an output instead of
 * 11, and at most 11 sums live. */

/* One pass over N consecutive outputs: input i (src(i), ascending) goes to
 * the outputs i - u, u = 0..10, at tap u, so each output still adds its taps
 * in ascending order; output j is complete, and given to emit(j, f32), once
 * input j + 10 is in. The first product starts the sum (0 + p = p for any
 * p but -0, which no product is). SIGNED: as for gauss() (ssim_tile.cuh). */
template <int N, bool SIGNED, typename Src, typename Emit>
__device__ __forceinline__ void stream_pass(Src &src, Emit &emit, const float *g6)
{
    double acc[N];
#pragma unroll
    for (int i = 0; i < N + WIN - 1; i++) {
        const float v = src(i);
        double p[6];
#pragma unroll
        for (int c = 0; c < 6; c++) {
            p[c] = 0.0;
            if ((i - c >= 0 && i - c < N) || (i - (WIN - 1 - c) >= 0 && i - (WIN - 1 - c) < N))
                p[c] = widen_as<SIGNED>(__fmul_rn(v, g6[c]));
        }
#pragma unroll
        for (int u = 0; u < WIN; u++) {
            const int j = i - u;
            if (j >= 0 && j < N)
                acc[j] = u == 0 ? p[0] : __dadd_rn(acc[j], p[u < 6 ? u : WIN - 1 - u]);
        }
        if (i >= WIN - 1)
            emit(i - (WIN - 1), narrow(acc[i - (WIN - 1)]));
    }
}

/* Horizontal source: a[i] * b[i] from two staged rows, four at a time (b is
 * a row of ones for R and D: times 1 is exact). */
struct RowSrc {
    const float4 *a, *b;
    float cur[4];
    __device__ __forceinline__ float operator()(int i)
    {
        if ((i & 3) == 0) {
            const float4 x = a[i >> 2], y = b[i >> 2];
            cur[0] = __fmul_rn(x.x, y.x);
            cur[1] = __fmul_rn(x.y, y.y);
            cur[2] = __fmul_rn(x.z, y.z);
            cur[3] = __fmul_rn(x.w, y.w);
        }
        return cur[i & 3];
    }
};
/* The strip kernel's horizontal sums: rows of SHP = 32 floats, each row's
 * groups of four columns permuted by the row (column c of row r at
 * c ^ 4 (r mod 8)), so that a warp writing four consecutive columns of 32
 * consecutive rows (the horizontal pass, lane = row) and a warp reading one
 * row (the vertical pass and the combine, lane = column) both meet every
 * bank once, without the padding of an unpermuted layout. */
__device__ __forceinline__ int swz(int row, int col)
{
    return row * SHP + (col ^ ((row & 7) << 2));
}
struct RowEmit {
    float *o;  /* the row */
    int key;   /* 4 (row mod 8) */
    float buf[4];
    __device__ __forceinline__ void operator()(int j, float v)
    {
        buf[j & 3] = v;
        if ((j & 3) == 3)
            *reinterpret_cast<float4 *>(o + ((j & ~3) ^ key)) =
                make_float4(buf[0], buf[1], buf[2], buf[3]);
    }
};
/* Vertical: column x of the horizontal sums, row i (the row is known to
 * the compiler in the unrolled pass, so the permutation costs one XOR). */
struct ColSrc {
    const float *h;
    int x;
    __device__ __forceinline__ float operator()(int i) { return h[swz(i, x)]; }
};
struct ColEmit {
    float *h;
    int x;
    __device__ __forceinline__ void operator()(int j, float v) { h[swz(j, x)] = v; }
};

/* Horizontal sums of row `row` of h from two staged rows a, b. */
template <int N, bool SIGNED>
__device__ __forceinline__ void hrow(const float *a, const float *b, float *h, int row,
                                     const float *g6)
{
    RowSrc src{reinterpret_cast<const float4 *>(a), reinterpret_cast<const float4 *>(b), {}};
    RowEmit emit{h + row * SHP, (row & 7) << 2, {}};
    stream_pass<N, SIGNED>(src, emit, g6);
}
/* Vertical sums of column x of h, written over its first N rows. */
template <int N, bool SIGNED>
__device__ __forceinline__ void vcol(float *h, int x, const float *g6)
{
    ColSrc src{h, x};
    ColEmit emit{h, x};
    stream_pass<N, SIGNED>(src, emit, g6);
}

/* Stages nrows input rows of both planes from picture row y on (rows past
 * the picture clamped to its last), columns c0 .. c0 + SP - 1 (clamped), as
 * f32 into s_in[plane][row][SP], planes rows_cap rows apart. Four samples a
 * step: one aligned load when they lie inside the row and vec says that
 * pointers and pitches allow it. */
template <typename P, int NT>
__device__ __forceinline__ void stage_rows(const P *__restrict__ r, size_t rp,
                                           const P *__restrict__ d, size_t dp, float inv_d,
                                           int vec, int W, int H, int c0, int y, int nrows,
                                           int rows_cap, float *s_in)
{
    constexpr int QW = SP / 4; /* quads of a staged row */
    for (int t = threadIdx.x; t < 2 * nrows * QW; t += NT) {
        const int rowplane = t / QW, kq = t - rowplane * QW;
        const int plane = rowplane & 1, row = rowplane >> 1;
        const P *src = plane ? d : r;
        const P *rowp = src + (size_t)min(y + row, H - 1) * (plane ? dp : rp);
        const int x = c0 + 4 * kq;
        float v[4];
        if (vec && x + 3 < W) {
            if constexpr (sizeof(P) == 1) {
                const unsigned wd = *reinterpret_cast<const unsigned *>(rowp + x);
#pragma unroll
                for (int e = 0; e < 4; e++)
                    v[e] = from_biased(__byte_perm(wd, 0x4B000000u, 0x7540u + e));
            } else if constexpr (sizeof(P) == 2) {
                const uint2 wd = *reinterpret_cast<const uint2 *>(rowp + x);
                v[0] = from_biased(__byte_perm(wd.x, 0x4B000000u, 0x7410u));
                v[1] = from_biased(__byte_perm(wd.x, 0x4B000000u, 0x7432u));
                v[2] = from_biased(__byte_perm(wd.y, 0x4B000000u, 0x7410u));
                v[3] = from_biased(__byte_perm(wd.y, 0x4B000000u, 0x7432u));
#pragma unroll
                for (int e = 0; e < 4; e++)
                    v[e] = __fmul_rn(v[e], inv_d);
            } else {
                const float4 f = *reinterpret_cast<const float4 *>(rowp + x);
                v[0] = f.x;
                v[1] = f.y;
                v[2] = f.z;
                v[3] = f.w;
            }
        } else {
#pragma unroll
            for (int e = 0; e < 4; e++)
                v[e] = load_x(rowp, min(x + e, W - 1), inv_d);
        }
        reinterpret_cast<float4 *>(s_in + (plane * rows_cap + row) * SP)[kq] =
            make_float4(v[0], v[1], v[2], v[3]);
    }
}

/* ---- the strip kernel ----------------------------------------------------------
 * A block walks down strips of TW output columns, CH output rows (a chunk)
 * at a time, keeping the last ten rows of horizontal sums of each chunk for
 * the next: every horizontal sum of the strip is computed once. Warp q owns
 * quantity q (R, D, R*R, D*D, R*D): it computes the horizontal sums of the
 * chunk's CH new rows (lane = row, a streamed pass over the row) and then
 * their vertical sums (lane = column, a streamed pass down the column's
 * 40-row window, outputs written over inputs already taken), so only the
 * staging and the combine need the whole block. The frame's chunks, strip by
 * strip, are dealt out in equal runs to one wave of blocks. */
constexpr int CH = SSIM_CUDA_CH;           /* output rows of a chunk */
constexpr int WR = CH + WIN - 1;           /* rows of a chunk's window */
constexpr int SNT = SSIM_CUDA_SNT;         /* five warps: one a quantity */
constexpr int SBLOCKS = SSIM_CUDA_SBLOCKS; /* blocks a multiprocessor holds */

__host__ __device__ constexpr size_t strip_smem()
{
    return (size_t)(2 * CH * SP + SP + 5 * WR * SHP) * sizeof(float);
}

/* n - i as f64, exact for n - i < 2^52: the integer in a mantissa. */
__device__ __forceinline__ double weight_of(long long v)
{
    return __dsub_rn(__longlong_as_double(0x4330000000000000ll | v), 0x1p52);
}

template <typename P, int NQ, bool PROBE>
__global__ void __launch_bounds__(SNT, min_blocks(SNT, SBLOCKS))
    k_strip(const P *__restrict__ r, size_t rp, const P *__restrict__ d, size_t dp,
            float inv_d, int vec, int W, int H, unsigned units, unsigned cps,
            const SsimCudaConsts k, double depth, double *__restrict__ partials,
            unsigned *__restrict__ counter, SsimCudaOut *__restrict__ out,
            double *__restrict__ terms, int tq)
{
    extern __shared__ float4 smem4[];
    float *s_in = reinterpret_cast<float *>(smem4); /* [2][CH][SP] */
    float *s_one = s_in + 2 * CH * SP;                /* [SP] ones */
    float *s_h = s_one + SP;                          /* [5][WR][SHP], swizzled */
    const int lane = threadIdx.x & 31, q = threadIdx.x >> 5;
    const int Wo = W - (WIN - 1), Ho = H - (WIN - 1);
    const long long n = (long long)Wo * Ho;
    /* f32 planes (decimated) may hold negative samples; pictures do not. */
    constexpr bool SG = std::is_same<P, float>::value;
    float g6[6];
#pragma unroll
    for (int i = 0; i < 6; i++)
        g6[i] = k.g[i];
    double sum[NQ], asum[NQ], wsum[NQ];
#pragma unroll
    for (int i = 0; i < NQ; i++)
        sum[i] = asum[i] = wsum[i] = 0.0;
    for (int c = threadIdx.x; c < SP; c += SNT)
        s_one[c] = 1.0f;
    /* quantity q = a * b: (R, 1), (D, 1), (R, R), (D, D), (R, D) */
    float *hq = s_h + q * WR * SHP;
    const float *pa = s_in + (q == 1 || q == 3 ? CH * SP : 0);
    const float *pb = q < 2 ? s_one : s_in + (q == 2 ? 0 : CH * SP);
    const int pbs = q < 2 ? 0 : SP;

    const unsigned u0 = (unsigned)((unsigned long long)blockIdx.x * units / gridDim.x);
    const unsigned u1 = (unsigned)((unsigned long long)(blockIdx.x + 1) * units / gridDim.x);
    wait_for_inputs();
    int strip = (int)(u0 / cps), ch = (int)(u0 - (unsigned)strip * cps);
    bool fresh = true; /* the window's first ten rows are still to be made */
    for (unsigned u = u0; u < u1; u++) {
        const int c0 = strip * TW, y0 = ch * CH;
        /* Pass 0, on a new strip: the horizontal sums of its first ten
         * window rows, into the rows that the copy moves to the top. Pass
         * 1: the chunk's CH new rows. */
        for (int pass = fresh ? 0 : 1; pass < 2; pass++) {
            const int nrows = pass ? CH : WIN - 1;
            stage_rows<P, SNT>(r, rp, d, dp, inv_d, vec, W, H, c0, y0 + (pass ? WIN - 1 : 0),
                               nrows, CH, s_in);
            __syncthreads();
            if (pass) {
                /* The window's first ten rows: the last ten of the one before. */
#pragma unroll
                for (int i = 0; i < WIN - 1; i++)
                    hq[swz(i, lane)] = hq[swz(CH + i, lane)];
                __syncwarp();
            }
            if (lane < nrows)
                hrow<TW, SG>(pa + lane * SP, pb + lane * pbs, hq, (pass ? WIN - 1 : CH) + lane, g6);
            if (!pass)
                __syncthreads(); /* the staging of pass 1 reuses s_in */
        }
        fresh = false;
        __syncwarp();
        vcol<CH, SG>(hq, lane, g6);
        __syncthreads();
        /* Combine: warp q takes the chunk rows q, q + 5, ..., lane the
         * column. The weights: every output of the chunk has an index of
         * at least y0 * Wo + c0, so the chunk's magnitudes times n minus
         * that bound their terms' |t_i| (n - i) (loose by at most the
         * chunk's 30 rows against n, far inside the slack). */
        double csum[NQ];
#pragma unroll
        for (int i = 0; i < NQ; i++)
            csum[i] = 0.0;
        const int x = c0 + lane;
#pragma unroll 1
        for (int j = q; j < CH; j += SNT / 32) {
            const int o = y0 + j;
            if (x < Wo && o < Ho) {
                const float *v = s_h + swz(j, lane);
                const Terms tm = combine<PROBE>(v[0], v[WR * SHP], v[2 * WR * SHP],
                                                v[3 * WR * SHP], v[4 * WR * SHP], k);
                accumulate<NQ>(tm, sum, csum, terms, (long long)o * Wo + x, tq);
            }
        }
        const double wc = weight_of(n - ((long long)y0 * Wo + c0));
#pragma unroll
        for (int i = 0; i < NQ; i++) {
            wsum[i] = __dadd_ru(wsum[i], __dmul_ru(csum[i], wc));
            asum[i] = __dadd_rn(asum[i], csum[i]);
        }
        if (++ch == (int)cps) {
            ch = 0;
            strip++;
            fresh = true;
        }
    }

    const unsigned nb = gridDim.x;
    if (out && add_block_sums<NQ, SNT>(sum, asum, wsum, 0.0, partials, counter, nb)) {
        final_means<PROBE>(partials, NQ, (double)n, depth, out);
        if (threadIdx.x == 0)
            *counter = 0; /* ready for the next frame on this buffer */
    }
}

} // namespace

#endif /* LIBVMAF_SRC_FEATURE_CUDA_FLOAT_SSIM_SSIM_STRIP_CUH */
