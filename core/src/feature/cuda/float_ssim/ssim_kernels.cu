/*
 * float_ssim on CUDA: the CPU's bits, from one templated source for 8, 10,
 * 12 and 16 bit.
 *
 * Every floating-point operation is an explicit round-to-nearest intrinsic
 * (__fmul_rn, __dadd_rn, ...): those are never contracted into a fused
 * multiply-add, whatever the compiler flags, and the build adds -fmad=false
 * on top. The only FMAs in the machine code are inside the correctly
 * rounded division and square root sequences, which return the IEEE result
 * the CPU gets (a test counts them against a probe kernel holding just
 * those operations).
 *
 * Kernels:
 *   k_decimate  box low-pass + decimation (scale > 1), exact window sums.
 *   k_ssim      horizontal pass of each input row into an 11-row register
 *               ring, vertical pass, per-pixel combine, per-warp sums.
 *   k_hpass, k_vpass  the same two passes as separate kernels, one thread
 *               per output, for small planes.
 *   k_finalize  frame means, proven equal to the CPU's sequential sums
 *               (see docs/adr/0102-exact-frame-mean.md), or a redo flag.
 */
#include <stdint.h>

#include <cuda_runtime.h>

#include "feature/cuda/float_ssim_cuda_kernels.h"

namespace {

constexpr int WIN = 11;
constexpr int TILE = 32;          /* output columns per block (one warp) */
constexpr int FIN_THREADS = 256;  /* threads of the finalize kernel */
constexpr int PART = 3;           /* partials per quantity: sum, weighted and plain |sum| */

/* The f32 -> f64 widening of every product, without the conversion unit
 * (a quarter-rate unit that would bound the Gaussian passes): shifting the
 * bits of a non-negative f32 right by 3 within 64 bits gives the f64 whose
 * value is exactly f * 2^-896 (the exponent keeps its f32 bias), and 0
 * gives 0. Sums then run on values scaled by 2^-896. Every non-zero
 * product in these sums is at least 2^-64 (samples are multiples of 2^-8,
 * decimated values at least 2^-22; squares, taps >= 2^-10 and the second
 * pass bring that to 2^-64), so every scaled value and partial sum is a
 * normal f64 (>= 2^-960), where scaling by a power of two commutes with
 * rounding: each scaled sum is exactly 2^-896 times the CPU's sum, and
 * narrow() undoes the scale exactly before rounding to f32. No value here
 * is negative, subnormal, infinite or NaN. */
__device__ __forceinline__ double widen(float f)
{
    const unsigned b = __float_as_uint(f);
    return __hiloint2double((int)(b >> 3), (int)(b << 29));
}

__device__ __forceinline__ float narrow(double scaled_sum)
{
    return __double2float_rn(__dmul_rn(scaled_sum, 0x1p896));
}

/* Integer sample to f32, exact (p < 2^23): 2^23 + p then minus 2^23. */
__device__ __forceinline__ float sample_f32(uint8_t p)
{
    return __fsub_rn(__uint_as_float(0x4B000000u | p), 8388608.0f);
}
__device__ __forceinline__ float sample_f32(uint16_t p)
{
    return __fsub_rn(__uint_as_float(0x4B000000u | p), 8388608.0f);
}

/* One reflection without repeating the edge, as the CPU does. */
__device__ __forceinline__ int mirror(int i, int n)
{
    return i < 0 ? -1 - i : (i >= n ? 2 * n - 1 - i : i);
}

template <typename P>
__device__ __forceinline__ float load_x(const P *row, int i, float inv_d)
{
    return __fmul_rn(sample_f32(row[i]), inv_d);
}
template <>
__device__ __forceinline__ float load_x<float>(const float *row, int i, float inv_d)
{
    (void)inv_d;
    return row[i];
}

/* ---- decimation ------------------------------------------------------------ */

/* Output (X, Y) of plane blockIdx.z: the f32 products sample * k of the
 * s x s window summed in f64. Every product is a multiple of 2^-45 and any
 * partial sum stays below 2^8, so every sum is exact and its order free:
 * rows are summed on their own and added into two chains. (Measured on an
 * H200 against a variant that sums the columns of a block in shared memory
 * first: this one was faster, 21 against 24-27 us at 4K scale 8.) */
template <typename P>
__global__ void k_decimate(const P *__restrict__ r, size_t rp, const P *__restrict__ d,
                           size_t dp, int w, int h, int s, float inv_d, float k,
                           float *__restrict__ out_r, float *__restrict__ out_d, size_t op,
                           int W, int H)
{
    const int X = blockIdx.x * blockDim.x + threadIdx.x;
    const int Y = blockIdx.y * blockDim.y + threadIdx.y;
    if (X >= W || Y >= H)
        return;
    const P *src = blockIdx.z ? d : r;
    const size_t pitch = blockIdx.z ? dp : rp;
    float *out = blockIdx.z ? out_d : out_r;
    const int half = s / 2, x0 = X * s - half, y0 = Y * s - half;
    const bool inside = x0 >= 0 && x0 + s <= w;
    /* Two chains (even and odd window rows) halve the latency of the
     * dependent additions; the sums are exact, so the split changes no bit. */
    double acc[2] = {0.0, 0.0};
    for (int v = 0; v < s; v++) {
        const P *row = src + (size_t)mirror(y0 + v, h) * pitch;
        double part = 0.0;
        if (inside) {
#pragma unroll 8
            for (int u = 0; u < s; u++)
                part = __dadd_rn(part, widen(__fmul_rn(load_x(row, x0 + u, inv_d), k)));
        } else {
            for (int u = 0; u < s; u++)
                part = __dadd_rn(part,
                                 widen(__fmul_rn(load_x(row, mirror(x0 + u, w), inv_d), k)));
        }
        acc[v & 1] = __dadd_rn(acc[v & 1], part);
    }
    const double sum = __dadd_rn(acc[0], acc[1]);
    out[(size_t)Y * op + X] = narrow(sum);
}

/* ---- per-pixel combine ----------------------------------------------------- */

struct Terms {
    double t, l, c, s;
};

/* The correctly rounded library operations. PROBE swaps them for plain
 * multiplications: the machine-code test requires that a kernel built so
 * has no FMA at all, which proves that none comes from our arithmetic. */
template <bool PROBE>
__device__ __forceinline__ double div_d(double a, double b)
{
    return PROBE ? __dmul_rn(a, b) : __ddiv_rn(a, b);
}
template <bool PROBE>
__device__ __forceinline__ double sqrt_d(double a)
{
    return PROBE ? __dmul_rn(a, a) : __dsqrt_rn(a);
}
template <bool PROBE>
__device__ __forceinline__ float div_f(float a, float b)
{
    return PROBE ? __fmul_rn(a, b) : __fdiv_rn(a, b);
}

/* Step 4 of the numerics, operation for operation. */
template <bool PROBE>
__device__ __forceinline__ Terms combine(float mr, float md, float srr, float sdd, float srd,
                                         const SsimCudaConsts &k)
{
    const float mr2 = __fmul_rn(mr, mr), md2 = __fmul_rn(md, md), mrmd = __fmul_rn(mr, md);
    float vr = __fsub_rn(srr, mr2);
    float vd = __fsub_rn(sdd, md2);
    vr = vr < 0.0f ? 0.0f : vr;
    vd = vd < 0.0f ? 0.0f : vd;
    const float cov = __fsub_rn(srd, mrmd);
    const float sq = __double2float_rn(sqrt_d<PROBE>((double)__fmul_rn(vr, vd)));
    Terms o;
    o.l = div_d<PROBE>(__dadd_rn(__dmul_rn(__dmul_rn(2.0, (double)mr), (double)md), (double)k.c1),
                    (double)__fadd_rn(__fadd_rn(mr2, md2), k.c1));
    o.c = div_d<PROBE>(__dadd_rn(__dmul_rn(2.0, (double)sq), (double)k.c2),
                    (double)__fadd_rn(__fadd_rn(vr, vd), k.c2));
    const float cc = (cov < 0.0f && sq <= 0.0f) ? 0.0f : cov;
    o.s = (double)div_f<PROBE>(__fadd_rn(cc, k.c3), __fadd_rn(sq, k.c3));
    o.t = __dmul_rn(__dmul_rn(o.l, o.c), o.s);
    return o;
}

/* ---- frame sums -------------------------------------------------------------
 * Each quantity keeps three f64 sums: the terms; their magnitudes weighted
 * by how many partial sums of the CPU's sequential order they are part of
 * (n - i for the term at row-major index i), which bounds the rounding
 * error of that sequential sum; and their magnitudes, which bounds the
 * error of the parallel sum. See k_finalize. */

template <int NQ>
struct Acc {
    double sum[NQ], wsum[NQ], asum[NQ];
    __device__ void zero()
    {
#pragma unroll
        for (int q = 0; q < NQ; q++)
            sum[q] = wsum[q] = asum[q] = 0.0;
    }
    __device__ void add(int q, double v, double weight)
    {
        const double a = fabs(v);
        sum[q] = __dadd_rn(sum[q], v);
        asum[q] = __dadd_rn(asum[q], a);
        wsum[q] = __dadd_rn(wsum[q], __dmul_rn(a, weight));
    }
    /* Warp butterfly, then warp 0 of the block adds the NW warps' sums in
     * order (NW - 1 more additions on the path) and writes one record. */
    template <int NW>
    __device__ void store_block(double *partials, unsigned block)
    {
        __shared__ double sh[NW][NQ * PART];
        butterfly();
        const int lane = threadIdx.x & 31, warp = (threadIdx.y * blockDim.x + threadIdx.x) >> 5;
        if (lane == 0) {
#pragma unroll
            for (int q = 0; q < NQ; q++) {
                sh[warp][q * PART] = sum[q];
                sh[warp][q * PART + 1] = wsum[q];
                sh[warp][q * PART + 2] = asum[q];
            }
        }
        __syncthreads();
        if (warp == 0 && lane < NQ * PART) {
            double v = sh[0][lane];
            for (int k = 1; k < NW; k++)
                v = __dadd_rn(v, sh[k][lane]);
            partials[(size_t)block * NQ * PART + lane] = v;
        }
    }
    __device__ void butterfly()
    {
#pragma unroll
        for (int off = 16; off; off >>= 1) {
#pragma unroll
            for (int q = 0; q < NQ; q++) {
                sum[q] = __dadd_rn(sum[q], __shfl_xor_sync(0xffffffffu, sum[q], off));
                wsum[q] = __dadd_rn(wsum[q], __shfl_xor_sync(0xffffffffu, wsum[q], off));
                asum[q] = __dadd_rn(asum[q], __shfl_xor_sync(0xffffffffu, asum[q], off));
            }
        }
    }
    /* Butterfly over the warp; lane 0 writes the warp's partials. */
    __device__ void store(double *partials, unsigned block)
    {
        butterfly();
        if ((threadIdx.x & 31) == 0) {
#pragma unroll
            for (int q = 0; q < NQ; q++) {
                double *o = partials + ((size_t)block * NQ + q) * PART;
                o[0] = sum[q];
                o[1] = wsum[q];
                o[2] = asum[q];
            }
        }
    }
};

/* ---- the fused Gaussian passes --------------------------------------------- */

/* One warp computes TILE output columns of seg output rows. For each input
 * row it stages the TILE + 10 samples of both planes in shared memory,
 * computes the five horizontal sums of its column, keeps them in an
 * 11-row register ring (slots fixed at compile time by unrolling over 11
 * rows), and once 11 rows are in, the vertical sums, the combine and the
 * accumulation of the output pixel. Sums are f64 in ascending tap order,
 * each rounded to f32 once, like the CPU. */
template <typename P, int NQ, bool PROBE>
__global__ void __launch_bounds__(TILE, 16)
    k_ssim(const P *__restrict__ r, size_t rp, const P *__restrict__ d, size_t dp,
           float inv_d, int W, int H, int seg, const SsimCudaConsts k,
           double *__restrict__ partials, double *__restrict__ terms, int tq)
{
    __shared__ float sr[2][TILE + WIN - 1], sd[2][TILE + WIN - 1];
    const int lane = threadIdx.x;
    const int Wo = W - (WIN - 1), Ho = H - (WIN - 1);
    const int c0 = blockIdx.x * TILE;
    const int o0 = blockIdx.y * seg;
    const int o_end = min(o0 + seg, Ho);
    const int nrows = o_end - o0 + (WIN - 1);
    const int x = c0 + lane;
    const bool active = x < Wo;
    const int ca = min(c0 + lane, W - 1);
    const int cb = min(c0 + TILE + lane, W - 1);
    const bool has_b = lane < WIN - 1;
    const long long n = (long long)Wo * Ho;

    Acc<NQ> acc;
    acc.zero();
    float ring[WIN][5];

    /* Software pipelining: row i+1 is loaded while row i is computed. */
    float ra, rb = 0.0f, da, db = 0.0f;
    {
        const P *rrow = r + (size_t)o0 * rp, *drow = d + (size_t)o0 * dp;
        ra = load_x(rrow, ca, inv_d);
        da = load_x(drow, ca, inv_d);
        if (has_b) {
            rb = load_x(rrow, cb, inv_d);
            db = load_x(drow, cb, inv_d);
        }
    }

    for (int i0 = 0; i0 < nrows; i0 += WIN) {
#pragma unroll
        for (int j = 0; j < WIN; j++) {
            const int i = i0 + j;
            if (i >= nrows)
                break;
            const int buf = i & 1;
            sr[buf][lane] = ra;
            sd[buf][lane] = da;
            if (has_b) {
                sr[buf][TILE + lane] = rb;
                sd[buf][TILE + lane] = db;
            }
            __syncwarp();
            if (i + 1 < nrows) {
                const P *rrow = r + (size_t)(o0 + i + 1) * rp;
                const P *drow = d + (size_t)(o0 + i + 1) * dp;
                ra = load_x(rrow, ca, inv_d);
                da = load_x(drow, ca, inv_d);
                if (has_b) {
                    rb = load_x(rrow, cb, inv_d);
                    db = load_x(drow, cb, inv_d);
                }
            }

            double h0 = 0.0, h1 = 0.0, h2 = 0.0, h3 = 0.0, h4 = 0.0;
#pragma unroll
            for (int u = 0; u < WIN; u++) {
                const float a = sr[buf][lane + u], b = sd[buf][lane + u];
                const float g = k.g[u];
                h0 = __dadd_rn(h0, widen(__fmul_rn(a, g)));
                h1 = __dadd_rn(h1, widen(__fmul_rn(b, g)));
                h2 = __dadd_rn(h2, widen(__fmul_rn(__fmul_rn(a, a), g)));
                h3 = __dadd_rn(h3, widen(__fmul_rn(__fmul_rn(b, b), g)));
                h4 = __dadd_rn(h4, widen(__fmul_rn(__fmul_rn(a, b), g)));
            }
            ring[j][0] = narrow(h0);
            ring[j][1] = narrow(h1);
            ring[j][2] = narrow(h2);
            ring[j][3] = narrow(h3);
            ring[j][4] = narrow(h4);

            if (i >= WIN - 1) {
                double v0 = 0.0, v1 = 0.0, v2 = 0.0, v3 = 0.0, v4 = 0.0;
#pragma unroll
                for (int v = 0; v < WIN; v++) {
                    const int slot = (j + 1 + v) % WIN; /* row i - 10 + v */
                    const float g = k.g[v];
                    v0 = __dadd_rn(v0, widen(__fmul_rn(ring[slot][0], g)));
                    v1 = __dadd_rn(v1, widen(__fmul_rn(ring[slot][1], g)));
                    v2 = __dadd_rn(v2, widen(__fmul_rn(ring[slot][2], g)));
                    v3 = __dadd_rn(v3, widen(__fmul_rn(ring[slot][3], g)));
                    v4 = __dadd_rn(v4, widen(__fmul_rn(ring[slot][4], g)));
                }
                if (active) {
                    const Terms tm = combine<PROBE>(narrow(v0), narrow(v1), narrow(v2), narrow(v3),
                                             narrow(v4), k);
                    const int o = o0 + i - (WIN - 1);
                    const long long idx = (long long)o * Wo + x;
                    const double weight = (double)(n - idx);
                    acc.add(0, tm.t, weight);
                    if constexpr (NQ == 4) {
                        acc.add(1, tm.l, weight);
                        acc.add(2, tm.c, weight);
                        acc.add(3, tm.s, weight);
                    }
                    if (terms)
                        terms[idx] = tq == 0 ? tm.t : tq == 1 ? tm.l : tq == 2 ? tm.c : tm.s;
                }
            }
        }
    }
    acc.store(partials, blockIdx.y * gridDim.x + blockIdx.x);
}

/* ---- the split passes (small planes) ------------------------------------------
 * On small planes the fused kernel has too few warps to fill the GPU and
 * each warp walks a long chain of rows. Here every thread does one output
 * of one pass: the horizontal pass writes the five f32 planes (which stay in
 * L2 at these sizes), the vertical pass reads 11 rows of each and combines.
 * Same arithmetic, same order, same bits. */
template <typename P>
__global__ void __launch_bounds__(256)
    k_hpass(const P *__restrict__ r, size_t rp, const P *__restrict__ d, size_t dp,
            float inv_d, int W, int H, const SsimCudaConsts k, float *__restrict__ tmp,
            size_t tp)
{
    const int Wo = W - (WIN - 1);
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= Wo || y >= H)
        return;
    const P *rrow = r + (size_t)y * rp, *drow = d + (size_t)y * dp;
    double h0 = 0.0, h1 = 0.0, h2 = 0.0, h3 = 0.0, h4 = 0.0;
#pragma unroll
    for (int u = 0; u < WIN; u++) {
        const float a = load_x(rrow, x + u, inv_d), b = load_x(drow, x + u, inv_d);
        const float g = k.g[u];
        h0 = __dadd_rn(h0, widen(__fmul_rn(a, g)));
        h1 = __dadd_rn(h1, widen(__fmul_rn(b, g)));
        h2 = __dadd_rn(h2, widen(__fmul_rn(__fmul_rn(a, a), g)));
        h3 = __dadd_rn(h3, widen(__fmul_rn(__fmul_rn(b, b), g)));
        h4 = __dadd_rn(h4, widen(__fmul_rn(__fmul_rn(a, b), g)));
    }
    const size_t plane = (size_t)H * tp;
    float *o = tmp + (size_t)y * tp + x;
    o[0] = narrow(h0);
    o[plane] = narrow(h1);
    o[2 * plane] = narrow(h2);
    o[3 * plane] = narrow(h3);
    o[4 * plane] = narrow(h4);
}

template <int NQ, bool PROBE>
__global__ void __launch_bounds__(128)
    k_vpass(const float *__restrict__ tmp, size_t tp, int W, int H, const SsimCudaConsts k,
            double *__restrict__ partials, double *__restrict__ terms, int tq)
{
    const int Wo = W - (WIN - 1), Ho = H - (WIN - 1);
    const int x = blockIdx.x * TILE + threadIdx.x;
    const int o = blockIdx.y * blockDim.y + threadIdx.y;
    const long long n = (long long)Wo * Ho;
    Acc<NQ> acc;
    acc.zero();
    if (x < Wo && o < Ho) {
        const size_t plane = (size_t)H * tp;
        const float *t = tmp + (size_t)o * tp + x;
        double v0 = 0.0, v1 = 0.0, v2 = 0.0, v3 = 0.0, v4 = 0.0;
#pragma unroll
        for (int v = 0; v < WIN; v++) {
            const float *row = t + (size_t)v * tp;
            const float g = k.g[v];
            v0 = __dadd_rn(v0, widen(__fmul_rn(row[0], g)));
            v1 = __dadd_rn(v1, widen(__fmul_rn(row[plane], g)));
            v2 = __dadd_rn(v2, widen(__fmul_rn(row[2 * plane], g)));
            v3 = __dadd_rn(v3, widen(__fmul_rn(row[3 * plane], g)));
            v4 = __dadd_rn(v4, widen(__fmul_rn(row[4 * plane], g)));
        }
        const Terms tm =
            combine<PROBE>(narrow(v0), narrow(v1), narrow(v2), narrow(v3), narrow(v4), k);
        const long long idx = (long long)o * Wo + x;
        const double weight = (double)(n - idx);
        acc.add(0, tm.t, weight);
        if constexpr (NQ == 4) {
            acc.add(1, tm.l, weight);
            acc.add(2, tm.c, weight);
            acc.add(3, tm.s, weight);
        }
        if (terms)
            terms[idx] = tq == 0 ? tm.t : tq == 1 ? tm.l : tq == 2 ? tm.c : tm.s;
    }
    acc.template store_block<4>(partials, blockIdx.y * gridDim.x + blockIdx.x);
}

/* ---- frame means --------------------------------------------------------------
 * For each quantity, E is the parallel sum of the n terms, Wt the weighted
 * and A the plain magnitude sum. The CPU's sequential sum S rounds at each
 * of its n - 1 additions by at most u = 2^-53 times the magnitude of that
 * partial sum, and each partial sum is at most (1 + gamma_n) times the sum
 * of the magnitudes added so far, so |S - exact| <= u (1 + gamma_n) Wt. The
 * parallel sums took at most `depth` additions on any path, so
 * |E - exact| <= gamma_depth A. With n < 2^32 and depth < 2^20 both gammas'
 * excess and the rounding of Wt and A themselves stay far below the 2^-18
 * of slack, so the interval E +- B, B = (u Wt + depth u A)(1 + 2^-18)
 * rounded upwards and applied outwards, holds S. mean = (f32)(S / n) is
 * monotonic in S: if both ends give the same f32, that is the CPU's value;
 * otherwise the flag asks for the sequential sum. */
__device__ __forceinline__ float mean_of(double s, double n)
{
    return __double2float_rn(__ddiv_rn(s, n));
}

__global__ void __launch_bounds__(FIN_THREADS)
    k_finalize(const double *__restrict__ partials, unsigned nblocks, int nq, double n,
               double depth, SsimCudaOut *__restrict__ out)
{
    __shared__ double sh[FIN_THREADS][4 * PART];
    const int tid = threadIdx.x;
    const int nv = nq * PART;
    double v[4 * PART];
#pragma unroll
    for (int q = 0; q < 4 * PART; q++)
        v[q] = 0.0;
#pragma unroll 4
    for (unsigned b = tid; b < nblocks; b += FIN_THREADS) {
#pragma unroll
        for (int q = 0; q < 4 * PART; q++)
            if (q < nv)
                v[q] = __dadd_rn(v[q], partials[(size_t)b * nv + q]);
    }
#pragma unroll
    for (int q = 0; q < 4 * PART; q++)
        sh[tid][q] = v[q];
    __syncthreads();
    for (int half = FIN_THREADS / 2; half; half >>= 1) {
        if (tid < half)
            for (int q = 0; q < nv; q++)
                sh[tid][q] = __dadd_rn(sh[tid][q], sh[tid + half][q]);
        __syncthreads();
    }
    if (tid < nq) {
        const double e = sh[0][PART * tid], wt = sh[0][PART * tid + 1],
                     a = sh[0][PART * tid + 2];
        const double u = 0x1p-53;
        const double b = __dmul_ru(__dadd_ru(__dmul_ru(wt, u), __dmul_ru(a, depth * u)),
                                   1.0 + 0x1p-18);
        const float lo = mean_of(__dsub_rd(e, b), n);
        const float hi = mean_of(__dadd_ru(e, b), n);
        out->mean[tid] = lo;
        out->redo[tid] = __float_as_uint(lo) != __float_as_uint(hi);
    }
}

/* Test kernel: the production accumulation over given terms, seg terms per
 * thread, 32 threads per block. */
__global__ void k_terms_partials(const double *__restrict__ terms, unsigned long long n,
                                 int seg, double *__restrict__ partials)
{
    Acc<1> acc;
    acc.zero();
    for (int r = 0; r < seg; r++) {
        const unsigned long long idx =
            ((unsigned long long)blockIdx.x * seg + r) * TILE + threadIdx.x;
        if (idx < n)
            acc.add(0, terms[idx], (double)(long long)(n - idx));
    }
    acc.store(partials, blockIdx.x);
}

template <typename P, int NQ>
cudaError_t launch_ssim(const SsimCudaPlan *p, const void *ref, size_t ref_pitch,
                        const void *dist, size_t dist_pitch, float inv_d, float *tmp,
                        double *partials, double *terms, int tq, cudaStream_t st)
{
    if (p->split) {
        const dim3 hb(32, 8), hg((p->W - (WIN - 1) + 31) / 32, (p->H + 7) / 8);
        k_hpass<P><<<hg, hb, 0, st>>>((const P *)ref, ref_pitch / sizeof(P), (const P *)dist,
                                      dist_pitch / sizeof(P), inv_d, (int)p->W, (int)p->H,
                                      p->k, tmp, p->tpitch);
        const dim3 vb(TILE, 4), vg(p->grid_x, p->grid_y);
        k_vpass<NQ, false><<<vg, vb, 0, st>>>(tmp, p->tpitch, (int)p->W, (int)p->H, p->k,
                                              partials, terms, tq);
        return cudaGetLastError();
    }
    const dim3 grid(p->grid_x, p->grid_y);
    k_ssim<P, NQ, false><<<grid, TILE, 0, st>>>(
        (const P *)ref, ref_pitch / sizeof(P), (const P *)dist, dist_pitch / sizeof(P), inv_d,
        (int)p->W, (int)p->H, (int)p->seg, p->k, partials, terms, tq);
    return cudaGetLastError();
}

cudaError_t launch_frame(const SsimCudaPlan *p, const void *ref, size_t ref_pitch,
                         const void *dist, size_t dist_pitch, int is_float, float *tmp,
                         double *partials, double *terms, int tq, cudaStream_t st)
{
    const float inv_d = 1.0f / (float)(1u << (p->bpc - 8));
    const bool lcs = p->nq == 4 || terms;
    if (is_float)
        return lcs ? launch_ssim<float, 4>(p, ref, ref_pitch, dist, dist_pitch, 1.0f, tmp,
                                           partials, terms, tq, st)
                   : launch_ssim<float, 1>(p, ref, ref_pitch, dist, dist_pitch, 1.0f, tmp,
                                           partials, terms, tq, st);
    if (p->bpc == 8)
        return lcs ? launch_ssim<uint8_t, 4>(p, ref, ref_pitch, dist, dist_pitch, inv_d, tmp,
                                             partials, terms, tq, st)
                   : launch_ssim<uint8_t, 1>(p, ref, ref_pitch, dist, dist_pitch, inv_d, tmp,
                                             partials, terms, tq, st);
    return lcs ? launch_ssim<uint16_t, 4>(p, ref, ref_pitch, dist, dist_pitch, inv_d, tmp,
                                          partials, terms, tq, st)
               : launch_ssim<uint16_t, 1>(p, ref, ref_pitch, dist, dist_pitch, inv_d, tmp,
                                          partials, terms, tq, st);
}

unsigned ceil_div(unsigned long long a, unsigned long long b)
{
    return (unsigned)((a + b - 1) / b);
}

} // namespace

/* Probes for the machine-code test (test/cuda/check_sass.sh), never
 * launched: each holds exactly the correctly rounded operations of one
 * production kernel and nothing else, so that its FMA count is what those
 * library sequences need. A kernel with more FMAs than its probe had a
 * multiply-add contracted. combine(): two f64 divisions, one f32 division,
 * one f64 square root. k_finalize: two means. */
extern "C" __global__ void ssim_fma_probe_combine(const double *__restrict__ a,
                                                  float *__restrict__ f,
                                                  double *__restrict__ o)
{
    const int i = threadIdx.x;
    o[4 * i] = __ddiv_rn(a[4 * i], a[4 * i + 1]);
    o[4 * i + 1] = __ddiv_rn(a[4 * i + 2], a[4 * i + 3]);
    o[4 * i + 2] = (double)__double2float_rn(__dsqrt_rn(a[4 * i + 2]));
    f[i] = __fdiv_rn(f[i], f[i + 32]);
}

extern "C" __global__ void ssim_fma_probe_finalize(const double *__restrict__ a,
                                                   float *__restrict__ f)
{
    const int i = threadIdx.x;
    f[2 * i] = mean_of(a[3 * i], a[3 * i + 2]);
    f[2 * i + 1] = mean_of(a[3 * i + 1], a[3 * i + 2]);
}


extern "C" {

static void shape(SsimCudaPlan *p, int split, unsigned seg)
{
    const unsigned Wo = p->W - (WIN - 1), Ho = p->H - (WIN - 1);
    p->split = split;
    p->grid_x = ceil_div(Wo, TILE);
    if (split) {
        p->seg = 1;
        p->grid_y = ceil_div(Ho, 4);
        p->tpitch = (Wo + 31u) & ~31u;
    } else {
        p->seg = seg;
        p->grid_y = ceil_div(Ho, seg);
        p->tpitch = 0;
    }
    p->nparts = p->grid_x * p->grid_y;
    /* Longest chain of additions a term goes through: its thread's seg
     * terms, the 5-level warp butterfly, the 3 additions of the warps of a
     * split-pass block, the strided and the 8-level tree sums of
     * k_finalize, and slack. */
    p->depth = (double)p->seg + 5.0 + (split ? 3.0 : 0.0) +
               (double)ceil_div(p->nparts, FIN_THREADS) + 8.0 + 2.0;
}

void vmaf_ssim_cuda_plan(SsimCudaPlan *p, unsigned w, unsigned h, unsigned bpc, int scale,
                         int lcs, int sm_count, const SsimCudaConsts *k)
{
    p->w = w;
    p->h = h;
    p->bpc = bpc;
    p->scale = scale;
    p->W = scale > 1 ? w / (unsigned)scale + (w & 1u) : w;
    p->H = scale > 1 ? h / (unsigned)scale + (h & 1u) : h;
    p->nq = lcs ? 4 : 1;
    p->k = *k;
    p->sm_count = sm_count > 0 ? sm_count : 1;
    const unsigned Wo = p->W - (WIN - 1), Ho = p->H - (WIN - 1);
    /* Small planes: one thread per output and pass (the intermediates stay
     * in L2). Large planes: the fused kernel, tall segments wasting the
     * least (10 extra input rows each), shorter ones while the grid would
     * leave multiprocessors idle. */
    const unsigned long long px = (unsigned long long)Wo * Ho;
    const int split = px <= SSIM_CUDA_SPLIT_MAX_PIXELS;
    const unsigned want = 16u * (unsigned)p->sm_count;
    unsigned seg = 64;
    while (seg > 4 && (unsigned long long)ceil_div(Wo, TILE) * ceil_div(Ho, seg) < want)
        seg /= 2;
    shape(p, split, seg);
}

void vmaf_ssim_cuda_plan_override(SsimCudaPlan *p, int split, unsigned seg)
{
    shape(p, split, seg ? seg : 64);
}

size_t vmaf_ssim_cuda_partials_bytes(const SsimCudaPlan *p)
{
    return (size_t)p->nparts * PART * 4 * sizeof(double);
}

size_t vmaf_ssim_cuda_tmp_bytes(const SsimCudaPlan *p)
{
    const unsigned Wo = p->W - (WIN - 1);
    return (size_t)5 * p->H * ((Wo + 31u) & ~31u) * sizeof(float);
}

/* Never called: takes the addresses of the probe instances so that they
 * are compiled (test/cuda/check_sass.sh reads them). */
void *vmaf_ssim_cuda_probe_kernels(int i)
{
    return i ? (void *)k_vpass<4, true> : (void *)k_ssim<uint16_t, 4, true>;
}

cudaError_t vmaf_ssim_cuda_decimate(const SsimCudaPlan *p, const void *ref, size_t ref_pitch,
                                    const void *dist, size_t dist_pitch, float *dref,
                                    float *ddist, size_t dpitch, cudaStream_t st)
{
    const dim3 block(32, 8);
    const dim3 grid(ceil_div(p->W, 32), ceil_div(p->H, 8), 2);
    const float inv_d = 1.0f / (float)(1u << (p->bpc - 8));
    const float k = 1.0f / (float)(p->scale * p->scale);
    if (p->bpc == 8)
        k_decimate<uint8_t><<<grid, block, 0, st>>>(
            (const uint8_t *)ref, ref_pitch, (const uint8_t *)dist, dist_pitch, (int)p->w,
            (int)p->h, p->scale, inv_d, k, dref, ddist, dpitch / sizeof(float), (int)p->W,
            (int)p->H);
    else
        k_decimate<uint16_t><<<grid, block, 0, st>>>(
            (const uint16_t *)ref, ref_pitch / 2, (const uint16_t *)dist, dist_pitch / 2,
            (int)p->w, (int)p->h, p->scale, inv_d, k, dref, ddist, dpitch / sizeof(float),
            (int)p->W, (int)p->H);
    return cudaGetLastError();
}

cudaError_t vmaf_ssim_cuda_frame(const SsimCudaPlan *p, const void *ref, size_t ref_pitch,
                                 const void *dist, size_t dist_pitch, int is_float, float *tmp,
                                 double *partials, SsimCudaOut *out, cudaStream_t st)
{
    cudaError_t e = launch_frame(p, ref, ref_pitch, dist, dist_pitch, is_float, tmp, partials,
                                 NULL, 0, st);
    if (e != cudaSuccess)
        return e;
    const unsigned Wo = p->W - (WIN - 1), Ho = p->H - (WIN - 1);
    k_finalize<<<1, FIN_THREADS, 0, st>>>(partials, p->nparts, (int)p->nq,
                                          (double)Wo * (double)Ho, p->depth, out);
    return cudaGetLastError();
}

cudaError_t vmaf_ssim_cuda_terms(const SsimCudaPlan *p, const void *ref, size_t ref_pitch,
                                 const void *dist, size_t dist_pitch, int is_float, int q,
                                 float *tmp, double *terms, double *partials, cudaStream_t st)
{
    return launch_frame(p, ref, ref_pitch, dist, dist_pitch, is_float, tmp, partials, terms, q,
                        st);
}

size_t vmaf_ssim_cuda_terms_partials_bytes(unsigned long long n, unsigned seg)
{
    return (size_t)ceil_div(n, (unsigned long long)seg * TILE) * PART * sizeof(double);
}

cudaError_t vmaf_ssim_cuda_mean_of_terms(const double *terms, unsigned long long n,
                                         unsigned seg, double *partials, SsimCudaOut *out,
                                         cudaStream_t st)
{
    const unsigned nblocks = ceil_div(n, (unsigned long long)seg * TILE);
    k_terms_partials<<<nblocks, TILE, 0, st>>>(terms, n, (int)seg, partials);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess)
        return e;
    const double depth = (double)seg + 5.0 + (double)ceil_div(nblocks, FIN_THREADS) + 8.0 + 2.0;
    k_finalize<<<1, FIN_THREADS, 0, st>>>(partials, nblocks, 1, (double)n, depth, out);
    return cudaGetLastError();
}

} // extern "C"
