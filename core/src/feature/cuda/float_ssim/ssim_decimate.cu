/*
 * float_ssim's decimation on the device (scale > 1): the box low-pass and
 * decimation of both luma planes into f32 planes, with the CPU's bits.
 * Kernels:
 *   k_decimate_vec  the scales 4 and 8: integer sums of the window (exact,
 *               as the CPU's f64 sum is); a thread reads the s samples of a
 *               row that start at its own output's column, in one aligned
 *               load, and sums their two halves; an output's window is its
 *               left neighbour's second halves and its own first halves.
 *   k_decimate_2  the scale 2, by vectors of eight samples.
 *   k_decimate  the same sums for the other power-of-two scales, and for
 *               rows that do not allow aligned loads: one thread walks an
 *               output's window in 32-bit words.
 *   k_decimate_cols  the other scales: f32 products widened and summed in
 *               f64 (exact, so in any order), column sums of the window
 *               rows first (coalesced loads, each sample once), then rows.
 *   k_decimate_vec, k_decimate_2 and k_decimate_cols read the pictures as a
 *   stream (__ldcs: cache, then evict first), since each sample is read
 *   once.
 * Each lets the SSIM kernel after it launch early (programmatic dependent
 * launch, compute capability 9 and up).
 */
#include <math.h>
#include <stdint.h>

#include <cuda_runtime.h>

#include <type_traits>

#include "cuda/device_launch.cuh"
#include "cuda/device_math.cuh"
#include "cuda/launch_status.cuh"
#include "feature/cuda/float_ssim_cuda_kernels.h"

namespace {

/* ---- decimation ------------------------------------------------------------
 * Output (X, Y) is the f64 sum of the f32 products sample * k over its
 * s x s window. Every product is a multiple of 2^-45 and every partial sum
 * stays below 2^8, so every sum is exact and its order free.
 *
 * Power-of-two s (the automatic scales of 1080p, 4K): the products are
 * exact too (k = 2^-2m), so the sum is the integer sum of the samples,
 * rounded to f32 once at the end, as the CPU's exact f64 sum is; the
 * divisor d = 2^(bpc-8) is another power of two. k_decimate: one thread
 * per output reads each window row as aligned 32-bit words (several rows'
 * loads in flight) and sums them four bytes at a time by a byte dot
 * product with a 0/1 mask; at the left and right edges sample by sample
 * with mirrored columns. k_decimate_vec (below) for the scales 4 and 8,
 * k_decimate_2 for the scale 2, on rows that allow their aligned loads.
 *
 * Other s: each product is rounded to f32 as the CPU rounds it and widened
 * (see widen); k_decimate_cols sums the window rows column by column, then
 * the columns. */
template <typename P>
struct WinSum {
    static constexpr int SPW = 4 / (int)sizeof(P); /* samples per 32-bit word */
    unsigned i = 0u;
    /* The samples of word wd selected by sel: 8-bit, the byte mask of a
     * dot product; 16-bit, bit e for sample e. */
    __device__ void add_word(unsigned wd, unsigned sel)
    {
        if constexpr (sizeof(P) == 1) {
            i = __dp4a(wd, sel, i);
        } else {
            i += sel & 1u ? wd & 0xFFFFu : 0u;
            i += sel & 2u ? wd >> 16 : 0u;
        }
    }
    /* The selector of samples [lo, hi] of a word. */
    static __device__ unsigned select(int lo, int hi)
    {
        unsigned m = 0u;
#pragma unroll
        for (int e = 0; e < SPW; e++)
            if (e >= lo && e <= hi)
                m |= sizeof(P) == 1 ? 1u << (8 * e) : 1u << e;
        return m;
    }
};

/* Power-of-two s. NW > 0: at most NW words per window row, all taken
 * unrolled with their selectors made once; 0: any width, in a loop. */
template <typename P, int NW>
__global__ void __launch_bounds__(256, min_blocks(256, NW == 2 ? 8 : 4))
    k_decimate(const P *__restrict__ r, size_t rp, const P *__restrict__ d, size_t dp, int w,
               int h, int s_run, float post, int vec, float *__restrict__ out_r,
               float *__restrict__ out_d, size_t op, int W, int H)
{
    let_dependents_launch();
    using WS = WinSum<P>;
    constexpr int SPW = WS::SPW;
    constexpr int BATCH = 4; /* window rows whose loads are in flight together */
    const int s = s_run;
    const int X = blockIdx.x * 32 + threadIdx.x, Y = blockIdx.y * 8 + threadIdx.y;
    if (X >= W || Y >= H)
        return;
    const P *src = blockIdx.z ? d : r;
    const size_t pitch = blockIdx.z ? dp : rp;
    const int half = s / 2, x0 = X * s - half, y0 = Y * s - half;
    const bool rows_inside = y0 >= 0 && y0 + s <= h;
    WS acc;
    /* Whole words inside the row: never a byte past the picture's width. */
    if (vec && x0 >= 0 && ((x0 + s - 1) / SPW + 1) * SPW <= w) {
        const int wa = x0 / SPW, wb = (x0 + s - 1) / SPW, nw = wb - wa + 1;
        unsigned first = WS::select(x0 - wa * SPW, SPW - 1);
        const unsigned last = WS::select(0, x0 + s - 1 - wb * SPW);
        const unsigned all = WS::select(0, SPW - 1);
        if (nw == 1)
            first &= last;
        if constexpr (NW > 0) {
            unsigned sel[NW];
#pragma unroll
            for (int j = 0; j < NW; j++)
                sel[j] = j == 0 ? first : j == nw - 1 ? last : j < nw ? all : 0u;
            const unsigned *base = reinterpret_cast<const unsigned *>(src) + wa;
            const size_t wpitch = pitch / SPW; /* in words */
#pragma unroll 1 /* one batch of loads at a time: registers for 8 blocks */
            for (int v = 0; v < s; v += BATCH) {
                unsigned wd[BATCH][NW];
#pragma unroll
                for (int b = 0; b < BATCH; b++) {
                    const int yy = y0 + min(v + b, s - 1);
                    const unsigned *row =
                        base + (size_t)(rows_inside ? yy : mirror(yy, h)) * wpitch;
#pragma unroll
                    for (int j = 0; j < NW; j++)
                        wd[b][j] = v + b < s && j < nw ? row[j] : 0u;
                }
#pragma unroll
                for (int b = 0; b < BATCH; b++)
#pragma unroll
                    for (int j = 0; j < NW; j++)
                        acc.add_word(wd[b][j], sel[j]);
            }
        } else {
            for (int v = 0; v < s; v++) {
                const unsigned *row = reinterpret_cast<const unsigned *>(
                                          src + (size_t)mirror(y0 + v, h) * pitch) +
                                      wa;
                for (int j = 0; j < nw; j++)
                    acc.add_word(row[j], j == 0 ? first : j == nw - 1 ? last : all);
            }
        }
    } else {
        /* At the picture's left and right edges: mirrored columns (few
         * threads: kept small). */
#pragma unroll 1
        for (int v = 0; v < s; v++) {
            const P *row = src + (size_t)mirror(y0 + v, h) * pitch;
#pragma unroll 1
            for (int u = 0; u < s; u++)
                acc.i += row[mirror(x0 + u, w)];
        }
    }
    (blockIdx.z ? out_d : out_r)[(size_t)Y * op + X] = __fmul_rn(__uint2float_rn(acc.i), post);
}

/* The common automatic scales, 4 and 8 (1080p and 4K), on rows that allow
 * aligned loads of S samples (4 to 16 bytes). Output X's window covers
 * columns X * S - S / 2 .. X * S + S / 2 - 1: the second half of the S
 * samples from column (X - 1) * S and the first half of those from X * S.
 * So lane l of a warp loads, for each window row, the S samples from
 * column (X0 + l - 1) * S (consecutive lanes, consecutive addresses: one
 * load instruction a row), sums each half over the rows, and output
 * X0 + l - 1 takes its own first halves and, by a shuffle, lane l - 1's
 * second halves: a warp makes 31 outputs. Output 0's left half mirrors
 * onto its own first half (counted twice). Rows mirror at the top and
 * bottom. An odd width has one output more, X = w / S, whose window passes
 * the row's end: the grid's last column of blocks makes those, a warp an
 * output row, each lane loading one or two of the window's S * S samples
 * (mirrored) and the warp adding them up. (When the lane beside the last
 * vector walked that window itself, its warp waited for memory S times
 * over, which slowed the whole frame's decimation.)
 * The sums are exact integers, so their order is free. */
template <typename P, int S>
struct DecVec {
    static constexpr int BYTES = S * (int)sizeof(P);
    using T = typename std::conditional<
        BYTES == 4, unsigned, typename std::conditional<BYTES == 8, uint2, uint4>::type>::type;
};

/* The two 16-bit samples of a word. */
__device__ __forceinline__ unsigned pair_sum(unsigned wd)
{
    return (wd & 0xFFFFu) + (wd >> 16);
}

/* Adds the first S / 2 samples of v to f and the last S / 2 to g. */
template <typename P, int S>
__device__ __forceinline__ void half_sums(const typename DecVec<P, S>::T &v, unsigned &f,
                                          unsigned &g)
{
    if constexpr (sizeof(P) == 1 && S == 4) {
        f = __dp4a(v, 0x00000101u, f);
        g = __dp4a(v, 0x01010000u, g);
    } else if constexpr (sizeof(P) == 1) {
        f = __dp4a(v.x, 0x01010101u, f);
        g = __dp4a(v.y, 0x01010101u, g);
    } else if constexpr (S == 4) {
        f += pair_sum(v.x);
        g += pair_sum(v.y);
    } else {
        f += pair_sum(v.x) + pair_sum(v.y);
        g += pair_sum(v.z) + pair_sum(v.w);
    }
}

template <typename P, int S>
__global__ void __launch_bounds__(256, min_blocks(256, S * (int)sizeof(P) <= 8 ? 8 : 4))
    k_decimate_vec(const P *__restrict__ r, size_t rp, const P *__restrict__ d, size_t dp,
                   int w, int h, float post, float *__restrict__ out_r,
                   float *__restrict__ out_d, size_t op, int H)
{
    let_dependents_launch();
    using T = typename DecVec<P, S>::T;
    const int lane = threadIdx.x;
    const int Y = (int)(blockIdx.y * 8 + threadIdx.y);
    if (Y >= H)
        return; /* the whole warp */
    const P *src = blockIdx.z ? d : r;
    const size_t pitch = blockIdx.z ? dp : rp;
    const int nvec = w / S;
    const int y0 = Y * S - S / 2;
    if ((w & 1) && blockIdx.x == gridDim.x - 1) {
        /* The odd width's last output, X = nvec. */
        const int x0 = nvec * S - S / 2;
        unsigned sum = 0u;
#pragma unroll
        for (int k = lane; k < S * S; k += 32)
            sum += src[(size_t)mirror(y0 + k / S, h) * pitch + mirror(x0 + k % S, w)];
#pragma unroll
        for (int o = 16; o > 0; o >>= 1)
            sum += __shfl_xor_sync(0xffffffffu, sum, o);
        if (lane == 0)
            (blockIdx.z ? out_d : out_r)[(size_t)Y * op + nvec] =
                __fmul_rn(__uint2float_rn(sum), post);
        return;
    }
    const int X = (int)blockIdx.x * 31 + lane - 1;
    unsigned f = 0u, g = 0u;
    if (X >= 0 && X < nvec) {
        T v[S];
        if (y0 >= 0 && y0 + S <= h) {
            const P *q = src + (size_t)y0 * pitch;
#pragma unroll
            for (int i = 0; i < S; i++) {
                v[i] = __ldcs(reinterpret_cast<const T *>(q) + X);
                q += pitch;
            }
        } else {
#pragma unroll
            for (int i = 0; i < S; i++)
                v[i] = __ldcs(
                    reinterpret_cast<const T *>(src + (size_t)mirror(y0 + i, h) * pitch) + X);
        }
#pragma unroll
        for (int i = 0; i < S; i++)
            half_sums<P, S>(v[i], f, g);
    }
    const unsigned gl = __shfl_up_sync(0xffffffffu, g, 1);
    if (lane == 0 || X >= nvec)
        return;
    const unsigned sum = f + (X == 0 ? f : gl);
    (blockIdx.z ? out_d : out_r)[(size_t)Y * op + X] = __fmul_rn(__uint2float_rn(sum), post);
}

/* Other s (3 at 720p, 6 at 1440p, 17 at 8K, ...): each product sample * k
 * is rounded to f32 as the CPU rounds it, so the sums are not integer sums
 * of samples; they are still exact in f64, so their order is free. A block
 * makes one output row of one plane, DC_SPAN / s outputs wide, in two
 * phases. Phase 1 sums the s window rows column by column: thread t owns
 * DC_C adjacent columns and reads them with one aligned load a row
 * (coalesced across the warp; each sample read once; DC_ROWS rows' loads in
 * flight together). Phase 2 sums an output's s column sums from shared
 * memory. Rows and columns mirror as the CPU's do; a mirrored column is
 * always one of the block's own (it lies inside the same output's
 * unmirrored window), so it needs no second load. The sample's divisor d (a
 * power of two) scales the exact sum instead of each sample:
 * fl32((p / d) * k) == fl32(p * k) / d when nothing is subnormal, and
 * nothing is. (One thread an output walking its window, as before, issued
 * half again as many instructions and read each row as s scattered bytes
 * across a warp.) */
constexpr int DC_T = 128;            /* threads of a k_decimate_cols block */
constexpr int DC_C = 8;              /* columns of a thread: one 8- or 16-byte load */
constexpr int DC_SPAN = DC_T * DC_C; /* columns of a block */
constexpr int DC_ROWS = 4;           /* window rows whose loads are in flight together */
/* Blocks a multiprocessor: as many as the registers allow without spills
 * (48 a thread at 8 bits, 64 at 16; more blocks measured no faster). */
constexpr int DC_MINB8 = 10, DC_MINB16 = 8;

/* A thread's DC_C samples of one row: one load, then 32-bit words. */
template <typename P>
struct ColVec {
    using T = typename std::conditional<sizeof(P) == 1, uint2, uint4>::type;
    static constexpr int WORDS = (int)(sizeof(T) / 4);
};

__device__ __forceinline__ void unpack(uint2 v, unsigned (&w)[2])
{
    w[0] = v.x;
    w[1] = v.y;
}
__device__ __forceinline__ void unpack(uint4 v, unsigned (&w)[4])
{
    w[0] = v.x;
    w[1] = v.y;
    w[2] = v.z;
    w[3] = v.w;
}

/* Sample e of a thread's words as the bits of the f32 2^23 + p: one byte
 * permutation of the word and `bias` (0x4B000000: the sample's byte or
 * bytes, then 0x00s and 0x4B). bias arrives as a kernel argument so that it
 * sits in a register and the selectors stay immediates (with a literal
 * bias, the compiler moves each selector into a register first). */
template <typename P, int E>
__device__ __forceinline__ unsigned biased_sample(const unsigned (&wd)[ColVec<P>::WORDS],
                                                  unsigned bias)
{
    if constexpr (sizeof(P) == 1)
        return __byte_perm(wd[E / 4], bias, 0x7440u | (E & 3));
    else
        return __byte_perm(wd[E / 2], bias, E & 1 ? 0x7432u : 0x7410u);
}

template <typename P, int E = 0>
__device__ __forceinline__ void add_column_samples(const unsigned (&wd)[ColVec<P>::WORDS],
                                                   float k, unsigned bias,
                                                   double (&acc)[DC_C])
{
    if constexpr (E < DC_C) {
        const float x = from_biased(biased_sample<P, E>(wd, bias));
        acc[E] = __dadd_rn(acc[E], widen(__fmul_rn(x, k)));
        add_column_samples<P, E + 1>(wd, k, bias, acc);
    }
}

/* A row's samples c0 .. c0 + DC_C - 1 as words: one aligned load (WHOLE),
 * or sample by sample, zero past the width (the right edge, or rows that do
 * not allow aligned loads). */
template <typename P, bool WHOLE>
__device__ __forceinline__ void load_columns(const P *q, int room,
                                             unsigned (&wd)[ColVec<P>::WORDS])
{
    if constexpr (WHOLE) {
        unpack(__ldcs(reinterpret_cast<const typename ColVec<P>::T *>(q)), wd);
    } else {
        constexpr int SPW = 4 / (int)sizeof(P);
#pragma unroll
        for (int j = 0; j < ColVec<P>::WORDS; j++) {
            unsigned word = 0u;
#pragma unroll
            for (int e = 0; e < SPW; e++)
                if (j * SPW + e < room)
                    word |= (unsigned)q[j * SPW + e] << (8 * (int)sizeof(P) * e);
            wd[j] = word;
        }
    }
}

/* Window row v of an output row whose first window row is y0. INSIDE: all
 * the window's rows are in the picture and base is already row y0 (no
 * mirror to work out a row); else base is row 0 and rows mirror. */
template <typename P, bool INSIDE>
__device__ __forceinline__ const P *window_row(const P *base, size_t pitch, int y0, int v, int h)
{
    if constexpr (INSIDE)
        return base + (size_t)v * pitch;
    else
        return base + (size_t)mirror(y0 + v, h) * pitch;
}

/* Phase 1: the column sums of the s window rows from y0, batch by batch
 * (a batch's loads in flight together), then the rows left over. */
template <typename P, bool WHOLE, bool INSIDE>
__device__ __forceinline__ void column_sums(const P *base, size_t pitch, int y0, int s, int h,
                                            int room, float k, unsigned bias,
                                            double (&acc)[DC_C])
{
    constexpr int NR = DC_ROWS, NW = ColVec<P>::WORDS;
    int v = 0;
#pragma unroll 1
    for (; v + NR <= s; v += NR) {
        unsigned wd[NR][NW];
#pragma unroll
        for (int b = 0; b < NR; b++)
            load_columns<P, WHOLE>(window_row<P, INSIDE>(base, pitch, y0, v + b, h), room,
                                   wd[b]);
#pragma unroll
        for (int b = 0; b < NR; b++)
            add_column_samples<P>(wd[b], k, bias, acc);
    }
#pragma unroll 1
    for (; v < s; v++) {
        unsigned wd[NW];
        load_columns<P, WHOLE>(window_row<P, INSIDE>(base, pitch, y0, v, h), room, wd);
        add_column_samples<P>(wd, k, bias, acc);
    }
}

template <typename P, bool WHOLE>
__device__ __forceinline__ void column_sums(const P *base, size_t pitch, int y0, int s, int h,
                                            int room, float k, unsigned bias,
                                            double (&acc)[DC_C])
{
    if (y0 >= 0 && y0 + s <= h)
        column_sums<P, WHOLE, true>(base + (size_t)y0 * pitch, pitch, y0, s, h, room, k, bias,
                                    acc);
    else
        column_sums<P, WHOLE, false>(base, pitch, y0, s, h, room, k, bias, acc);
}

template <typename P>
__global__ void __launch_bounds__(DC_T, min_blocks(DC_T, sizeof(P) == 1 ? DC_MINB8 : DC_MINB16))
    k_decimate_cols(const P *__restrict__ r, size_t rp, const P *__restrict__ d, size_t dp,
                    int w, int h, int s, int per_block, float k, unsigned bias,
                    double unscale, int vec, float *__restrict__ out_r,
                    float *__restrict__ out_d, size_t op, int W, int H)
{
    let_dependents_launch();
    /* Column c of the block at (c % DC_C) * DC_T + c / DC_C: a warp's
     * stores of its threads' e-th columns are consecutive. */
    __shared__ double col[DC_SPAN];
    const P *src = blockIdx.z ? d : r;
    const size_t pitch = blockIdx.z ? dp : rp;
    float *out = blockIdx.z ? out_d : out_r;
    const int half = s / 2, X0 = (int)blockIdx.x * per_block;
    const int a = max(X0 * s - half, 0) & ~(DC_C - 1); /* the block's first column */
    const int c0 = a + (int)threadIdx.x * DC_C;
    const P *base = src + c0;
    for (int Y = (int)blockIdx.y; Y < H; Y += (int)gridDim.y) {
        const int y0 = Y * s - half;
        double acc[DC_C];
#pragma unroll
        for (int e = 0; e < DC_C; e++)
            acc[e] = 0.0;
        if (vec && c0 + DC_C <= w)
            column_sums<P, true>(base, pitch, y0, s, h, DC_C, k, bias, acc);
        else if (c0 < w)
            column_sums<P, false>(base, pitch, y0, s, h, w - c0, k, bias, acc);
        if (Y != (int)blockIdx.y)
            __syncthreads(); /* the previous row's phase 2 is done with col */
#pragma unroll
        for (int e = 0; e < DC_C; e++)
            col[e * DC_T + threadIdx.x] = acc[e];
        __syncthreads();
        /* Phase 2: each output sums its s columns; unscale undoes widen()'s
         * 2^-896 and divides by d, both exact. */
        for (int i = (int)threadIdx.x; i < per_block; i += DC_T) {
            const int X = X0 + i;
            if (X >= W)
                break;
            const int x0 = X * s - half;
            const bool inside = x0 >= 0 && x0 + s <= w;
            double sum = 0.0;
#pragma unroll 4
            for (int u = 0; u < s; u++) {
                const unsigned c = (unsigned)((inside ? x0 + u : mirror(x0 + u, w)) - a);
                sum = __dadd_rn(sum, col[(c % DC_C) * DC_T + c / DC_C]);
            }
            out[(size_t)Y * op + X] = __double2float_rn(__dmul_rn(sum, unscale));
        }
    }
}

/* Scale 2 on rows that allow aligned loads of 8 samples (8 or 16 bytes).
 * Output X's window is columns 2X - 1 and 2X. Lane L of a warp loads, for
 * each window row, the 8 samples from column 8L (consecutive lanes,
 * consecutive addresses) and makes outputs 4L .. 4L + 3: the first takes
 * its column 8L - 1 from lane L - 1 by a shuffle (lane 0 loads that sample
 * itself; at column 0 it mirrors onto column 0), the other three lie in the
 * lane's own samples, and its last sample goes to lane L + 1. A thread
 * makes two output rows, so four rows' loads are in flight together. (The
 * generic k_decimate takes one thread an output, two words a window row,
 * several times slower; here the f32 planes written cost about as much as
 * the samples read.) Rows
 * mirror only at the top (row -1 is row 0); at the bottom and right every
 * window lies inside the picture, odd sizes included (W = w / 2 + (w & 1)).
 * A vector that passes the row's end is read sample by sample. The sums are
 * exact integers, so their order is free. */
constexpr int D2_ROWS = 4; /* warps of a k_decimate_2 block: 8 output rows */

template <typename P>
struct Dec2 {
    using T = typename std::conditional<sizeof(P) == 1, uint2, uint4>::type;
    static constexpr int WORDS = (int)(sizeof(T) / 4);
    static constexpr int SPW = 4 / (int)sizeof(P);
};

/* One row's contribution: o[0] += column 0 of the lane's 8, o[1..3] += the
 * whole windows of outputs 1 to 3 (columns 1-2, 3-4, 5-6), last += column 7. */
template <typename P>
__device__ __forceinline__ void dec2_row(const unsigned (&wd)[Dec2<P>::WORDS], unsigned (&o)[4],
                                         unsigned &last)
{
    if constexpr (sizeof(P) == 1) {
        o[0] = __dp4a(wd[0], 0x00000001u, o[0]);
        o[1] = __dp4a(wd[0], 0x00010100u, o[1]);
        o[2] = __dp4a(wd[1], 0x00000001u, __dp4a(wd[0], 0x01000000u, o[2]));
        o[3] = __dp4a(wd[1], 0x00010100u, o[3]);
        last = __dp4a(wd[1], 0x01000000u, last);
    } else {
        o[0] += wd[0] & 0xFFFFu;
#pragma unroll
        for (int j = 1; j < 4; j++)
            o[j] += (wd[j - 1] >> 16) + (wd[j] & 0xFFFFu);
        last += wd[3] >> 16;
    }
}

template <typename P>
__global__ void __launch_bounds__(32 * D2_ROWS, min_blocks(32 * D2_ROWS, sizeof(P) == 1 ? 16 : 12))
    k_decimate_2(const P *__restrict__ r, size_t rp, const P *__restrict__ d, size_t dp, int w,
                 int h, float post, int vstore, float *__restrict__ out_r,
                 float *__restrict__ out_d, size_t op, int W, int H)
{
    let_dependents_launch();
    using D = Dec2<P>;
    using T = typename D::T;
    const int lane = (int)threadIdx.x;
    const int c0 = ((int)blockIdx.x * 32 + lane) * 8, X0 = c0 / 2;
    const int Y = ((int)blockIdx.y * D2_ROWS + (int)threadIdx.y) * 2;
    if (Y >= H)
        return; /* the whole warp */
    const P *src = blockIdx.z ? d : r;
    const size_t pitch = blockIdx.z ? dp : rp;
    const int rows = Y + 1 < H ? 4 : 2; /* window rows 2Y - 1 .. 2Y + rows - 2 */
    unsigned wd[4][D::WORDS];
    unsigned before[4] = {0u, 0u, 0u, 0u}; /* lane 0: column c0 - 1, mirrored */
#pragma unroll
    for (int i = 0; i < 4; i++) {
#pragma unroll
        for (int j = 0; j < D::WORDS; j++)
            wd[i][j] = 0u;
        if (i >= rows)
            continue;
        const P *q = src + (size_t)max(2 * Y - 1 + i, 0) * pitch;
        if (c0 + 8 <= w) {
            const T v = __ldcs(reinterpret_cast<const T *>(q + c0));
            unpack(v, wd[i]);
        } else {
#pragma unroll
            for (int e = 0; e < 8; e++)
                if (c0 + e < w)
                    wd[i][e / D::SPW] |= (unsigned)q[c0 + e] << (8 * sizeof(P) * (e % D::SPW));
        }
        if (lane == 0 && c0 < w)
            before[i] = q[c0 > 0 ? c0 - 1 : 0];
    }
    float *out = blockIdx.z ? out_d : out_r;
#pragma unroll
    for (int k = 0; k < 2; k++) {
        unsigned o[4] = {0u, 0u, 0u, 0u}, last = 0u;
        dec2_row<P>(wd[2 * k], o, last);
        dec2_row<P>(wd[2 * k + 1], o, last);
        const unsigned left = __shfl_up_sync(0xffffffffu, last, 1);
        o[0] += lane ? left : before[2 * k] + before[2 * k + 1];
        if (Y + k >= H || X0 >= W)
            continue;
        float v[4];
#pragma unroll
        for (int j = 0; j < 4; j++)
            v[j] = __fmul_rn(__uint2float_rn(o[j]), post);
        float *row = out + (size_t)(Y + k) * op + X0;
        if (vstore && X0 + 4 <= W) {
            *reinterpret_cast<float4 *>(row) = make_float4(v[0], v[1], v[2], v[3]);
        } else {
#pragma unroll
            for (int j = 0; j < 4; j++)
                if (X0 + j < W)
                    row[j] = v[j];
        }
    }
}

template <typename P, int NW>
void launch_decimate(const SsimCudaPlan *p, const void *ref, size_t rp, const void *dist,
                     size_t dp, int vec, float post, float *dref, float *ddist, size_t op,
                     cudaStream_t st)
{
    const dim3 block(32, 8);
    const dim3 grid(ceil_div(p->W, 32), ceil_div(p->H, 8), 2);
    k_decimate<P, NW><<<grid, block, 0, st>>>(
        (const P *)ref, rp / sizeof(P), (const P *)dist, dp / sizeof(P), (int)p->w, (int)p->h,
        p->scale, post, vec, dref, ddist, op, (int)p->W, (int)p->H);
}

/* Whether every row of both planes starts on a multiple of `bytes`. */
bool rows_aligned(const void *ref, size_t rp, const void *dist, size_t dp, size_t bytes)
{
    return (uintptr_t)ref % bytes == 0 && (uintptr_t)dist % bytes == 0 && rp % bytes == 0 &&
           dp % bytes == 0;
}

/* Power-of-two scales take the unrolled kernel with enough words for any
 * window row (windows start at X * s - s / 2: SPW consecutive X give every
 * alignment there is); the others the column sums of k_decimate_cols. */
template <typename P>
void launch_decimate_any(const SsimCudaPlan *p, const void *ref, size_t rp, const void *dist,
                         size_t dp, float *dref, float *ddist, size_t op, cudaStream_t st)
{
    constexpr int SPW = 4 / (int)sizeof(P);
    const int s = p->scale;
    const float inv_d = 1.0f / (float)(1u << (p->bpc - 8));
    const float k = 1.0f / (float)(s * s);
    if ((s & (s - 1)) != 0) {
        /* widen() scales by 2^-896; the sum is divided by d here too. */
        const double unscale = ldexp(1.0, 896 - (int)(p->bpc - 8));
        const int per_block = (DC_SPAN - (DC_C - 1)) / s;
        const int vec = rows_aligned(ref, rp, dist, dp, DC_C * sizeof(P));
        const dim3 grid(ceil_div(p->W, per_block), p->H < 65535u ? p->H : 65535u, 2);
        k_decimate_cols<P><<<grid, DC_T, 0, st>>>(
            (const P *)ref, rp / sizeof(P), (const P *)dist, dp / sizeof(P), (int)p->w,
            (int)p->h, s, per_block, k, 0x4B000000u, unscale, vec, dref, ddist, op, (int)p->W,
            (int)p->H);
        return;
    }
    const float post = inv_d * k; /* both powers of two */
    const int vec = rows_aligned(ref, rp, dist, dp, 4);
    int words = 0;
    for (int X = 1; X <= SPW; X++) {
        const int x0 = X * s - s / 2;
        const int nw = (x0 + s - 1) / SPW - x0 / SPW + 1;
        words = nw > words ? nw : words;
    }
    if (s == 2 && rows_aligned(ref, rp, dist, dp, 8 * sizeof(P))) {
        const dim3 block(32, D2_ROWS);
        const dim3 grid(ceil_div(p->W, 4 * 32), ceil_div(p->H, 2 * D2_ROWS), 2);
        const int vstore = (uintptr_t)dref % 16 == 0 && (uintptr_t)ddist % 16 == 0 && op % 4 == 0;
        k_decimate_2<P><<<grid, block, 0, st>>>((const P *)ref, rp / sizeof(P), (const P *)dist,
                                                 dp / sizeof(P), (int)p->w, (int)p->h, post,
                                                 vstore, dref, ddist, op, (int)p->W, (int)p->H);
        return;
    }
    /* one output's samples of a row in one load */
    if ((s == 4 || s == 8) && rows_aligned(ref, rp, dist, dp, (size_t)s * sizeof(P))) {
        const dim3 block(32, 8);
        /* an odd width's last output column: one more column of blocks */
        const dim3 grid(ceil_div(p->w / s, 31) + (p->w & 1), ceil_div(p->H, 8), 2);
        if (s == 4)
            k_decimate_vec<P, 4><<<grid, block, 0, st>>>(
                (const P *)ref, rp / sizeof(P), (const P *)dist, dp / sizeof(P), (int)p->w,
                (int)p->h, post, dref, ddist, op, (int)p->H);
        else
            k_decimate_vec<P, 8><<<grid, block, 0, st>>>(
                (const P *)ref, rp / sizeof(P), (const P *)dist, dp / sizeof(P), (int)p->w,
                (int)p->h, post, dref, ddist, op, (int)p->H);
    } else if (words <= 2)
        launch_decimate<P, 2>(p, ref, rp, dist, dp, vec, post, dref, ddist, op, st);
    else if (words <= 4)
        launch_decimate<P, 4>(p, ref, rp, dist, dp, vec, post, dref, ddist, op, st);
    else if (words <= 8)
        launch_decimate<P, 8>(p, ref, rp, dist, dp, vec, post, dref, ddist, op, st);
    else
        launch_decimate<P, 0>(p, ref, rp, dist, dp, vec, post, dref, ddist, op, st);
}

/* Every decimation kernel of sample type P, loaded now (load_kernel). */
template <typename P>
cudaError_t load_decimations(cudaError_t e)
{
    e = load_kernel(k_decimate<P, 0>, e);
    e = load_kernel(k_decimate<P, 2>, e);
    e = load_kernel(k_decimate<P, 4>, e);
    e = load_kernel(k_decimate<P, 8>, e);
    e = load_kernel(k_decimate_vec<P, 4>, e);
    e = load_kernel(k_decimate_vec<P, 8>, e);
    e = load_kernel(k_decimate_cols<P>, e);
    return load_kernel(k_decimate_2<P>, e);
}

} // namespace

extern "C" {

cudaError_t vmaf_ssim_cuda_load_decimations(void)
{
    const cudaError_t e = load_decimations<uint8_t>(cudaSuccess);
    return load_decimations<uint16_t>(e);
}

cudaError_t vmaf_ssim_cuda_decimate(const SsimCudaPlan *p, const void *ref, size_t ref_pitch,
                                    const void *dist, size_t dist_pitch, float *dref,
                                    float *ddist, size_t dpitch, cudaStream_t st)
{
    const size_t op = dpitch / sizeof(float);
    /* launch_decimate_any makes exactly one launch. */
    return launched([&] {
        if (p->bpc == 8)
            launch_decimate_any<uint8_t>(p, ref, ref_pitch, dist, dist_pitch, dref, ddist, op,
                                         st);
        else
            launch_decimate_any<uint16_t>(p, ref, ref_pitch, dist, dist_pitch, dref, ddist, op,
                                          st);
    });
}

} // extern "C"
