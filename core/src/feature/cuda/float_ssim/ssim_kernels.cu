/*
 * float_ssim on CUDA: the CPU's bits, from one templated source for 8, 10,
 * 12 and 16 bit.
 *
 * Every floating-point operation is an explicit round-to-nearest intrinsic
 * (__fmul_rn, __dadd_rn, ...): those are never contracted into a fused
 * multiply-add, whatever the compiler flags, and the build adds -fmad=false
 * on top. The only FMAs in the machine code are inside the correctly
 * rounded division and square root sequences, which return the IEEE result
 * the CPU gets (a test counts them against probe kernels holding just
 * those operations).
 *
 * Kernels (docs/adr/0103-cuda-tile-kernel.md, docs/adr/0104-cuda-strip-kernel.md):
 *   k_decimate_vec  box low-pass + decimation (scale > 1) at the scales 4
 *               and 8: integer sums of the window (exact, as the CPU's f64
 *               sum is); a thread reads the s samples of a row that start
 *               at its own output's column, in one aligned load, and sums
 *               their two halves; an output's window is its left
 *               neighbour's second halves and its own first halves.
 *   k_decimate  the same sums for the other power-of-two scales, and for
 *               rows that do not allow aligned loads: one thread walks an
 *               output's window in 32-bit words.
 *   k_decimate_cols  the other scales: f32 products widened and summed in
 *               f64 (exact, so in any order), column sums of the window
 *               rows first (coalesced loads, each sample once), then rows.
 *   k_decimate_vec and k_decimate_cols read the pictures as a stream
 *   (__ldcs: cache, then evict first), since each sample is read once: 0.3-0.6
 *   us a frame faster at 4K, about 1 us at 8K, other sizes within 0.2 us
 *   (ADR 0108).
 *   k_strip     large planes: a block walks 32-column strips in 30-row
 *               chunks, each horizontal sum made once; one warp a quantity
 *               streams both Gaussian passes; then the per-pixel combine.
 *   k_tile      smaller planes: one 32-column tile of output rows per block
 *               (input tile, horizontal pass, vertical pass and combine in
 *               shared memory).
 *   Both end by adding each block's sums to the frame's totals (f64
 *   atomics) and, in the last block to finish, the frame means, proven
 *   equal to the CPU's sequential sums (docs/adr/0102-exact-frame-mean.md,
 *   docs/adr/0105-frame-totals-by-atomics.md) or a redo flag; both start, on
 *   compute capability 9 and up, while the decimation before them ends.
 *   k_finalize_after  the small tiles' means, on compute capability 9 and
 *               up: a one-block kernel that waits for the tile grid, so that
 *               no tile block waits to be counted (ADR 0115).
 *   k_finalize, k_terms_partials  the same reduction on given terms (tests).
 */
#include <math.h>
#include <stdint.h>

#include <cuda/atomic>
#include <cuda_runtime.h>

#include <type_traits>

#include "cuda/cuda_kernels.h"
#include "cuda/launch_status.cuh"
#include "feature/cuda/float_ssim_cuda_kernels.h"

namespace {

constexpr int WIN = 11;

unsigned ceil_div(unsigned long long a, unsigned long long b)
{
    return (unsigned)((a + b - 1) / b);
}

/* Resident threads a multiprocessor holds, for the minimum-blocks hints of
 * the launch bounds (asking for more than the architecture has draws a
 * warning and is ignored). */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 750
constexpr int SM_THREADS = 1024;
#elif defined(__CUDA_ARCH__) && (__CUDA_ARCH__ == 860 || __CUDA_ARCH__ == 870 || __CUDA_ARCH__ == 890)
constexpr int SM_THREADS = 1536;
#else
constexpr int SM_THREADS = 2048;
#endif
constexpr int min_blocks(int nt, int want)
{
    return want * nt <= SM_THREADS ? want : SM_THREADS / nt;
}

constexpr int TW = 32;            /* output columns of a tile: one warp wide */
constexpr int IW = TW + WIN - 1;  /* input columns of a tile */
constexpr int SP = 44;            /* staged input row pitch (floats): 16-byte rows */
constexpr int HP = 36;            /* horizontal-result row pitch (floats) */
constexpr int SHP = 32;           /* the strip kernel's, swizzled (swz) */
constexpr int PART = 3;           /* per quantity: sum, weighted and plain |sum| */
constexpr int REC = 4 * PART;     /* doubles of the frame totals */

/* The f32 -> f64 widening of every product, without the conversion unit
 * (a quarter-rate unit that would bound the Gaussian passes): the bits of a
 * non-negative f32 moved right by 3 within 64 bits are the f64 whose value
 * is exactly f * 2^-896 (the exponent keeps its f32 bias), and 0 gives 0.
 * Sums then run on values scaled by 2^-896. Every non-zero product in these
 * sums is at least 2^-64 (samples are multiples of 2^-8, decimated values
 * at least 2^-22; squares, taps >= 2^-10 and the second pass bring that to
 * 2^-64), so every scaled value and partial sum is a normal f64 (>= 2^-960),
 * where scaling by a power of two commutes with rounding: each scaled sum
 * is exactly 2^-896 times the CPU's sum, and narrow() undoes the scale
 * exactly before rounding to f32. No value here is negative, subnormal,
 * infinite or NaN. (Widening some chains by the conversion unit instead,
 * to spread the work over more pipes, measured slower.) */
__device__ __forceinline__ double widen(float f)
{
    const unsigned b = __float_as_uint(f);
    return __hiloint2double((int)(b >> 3), (int)(b << 29));
}

__device__ __forceinline__ float narrow(double scaled_sum)
{
    return __double2float_rn(__dmul_rn(scaled_sum, 0x1p896));
}

/* The f32 p from the bits of the f32 2^23 + p (p < 2^23): exact. Samples
 * become f32 this way, without the conversion unit: their bits are put
 * under the exponent of 2^23 (0x4B000000), by an OR or a byte permutation. */
__device__ __forceinline__ float from_biased(unsigned bits)
{
    return __fsub_rn(__uint_as_float(bits), 8388608.0f);
}

/* Integer sample to f32, exact (p < 2^23). */
__device__ __forceinline__ float int_f32(unsigned p)
{
    return from_biased(0x4B000000u | p);
}

/* Programmatic dependent launch (compute capability 9 and up): the SSIM
 * kernels wait here until the decimation before them has finished and its
 * writes are visible (at once when launched without the attribute), and the
 * decimation lets them launch as soon as its own blocks are all running. */
__device__ __forceinline__ void wait_for_inputs()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    cudaGridDependencySynchronize();
#endif
}
__device__ __forceinline__ void let_dependents_launch()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    cudaTriggerProgrammaticLaunchCompletion();
#endif
}

/* One reflection without repeating the edge, as the CPU does. */
__device__ __forceinline__ int mirror(int i, int n)
{
    return i < 0 ? -1 - i : (i >= n ? 2 * n - 1 - i : i);
}

template <typename P>
__device__ __forceinline__ float load_x(const P *row, int i, float inv_d)
{
    return __fmul_rn(int_f32(row[i]), inv_d);
}
template <>
__device__ __forceinline__ float load_x<float>(const float *row, int i, float inv_d)
{
    (void)inv_d;
    return row[i];
}

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
 * over, and at 4K 8-bit the frame's decimation took 11 us instead of 8.)
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
 * across a warp: docs/adr/0111-decimation-by-column-sums.md.) */
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
 * generic k_decimate took one thread an output, two words a window row:
 * 35 us at 4K 8-bit against 10.5 here, where the 16.6 MB of f32 planes
 * written cost about as much as the 16.6 MB read.) Rows
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
/* a / b, correctly rounded, for a and b in [2^-64, 2^64]: the combine's two
 * f64 divisions. The library's division (div.rn.f64) is a seed from the
 * reciprocal unit (MUFU.RCP64H of b's high word, low word 1), two Newton
 * steps, the product and one correction, then a range check that sends
 * operands near underflow or overflow (a below ~2^-967, a quotient that is
 * not a normal number) to a slow path. Here: exactly those instructions
 * without the check, which is always passed in this range. The combine's
 * operands are at least C1 = 6.5 and below 2^18 (samples are below 256),
 * far inside it. Without the check's branch the compiler interleaves the
 * two divisions of a pixel, which it cannot do across the branch and its
 * reconvergence (docs/adr/0107-combine-division.md). The multiply-adds are
 * the algorithm's, not contractions: they sit in one tagged assembly block
 * that the PTX check (test/cuda/check_ptx.sh) admits, seven at a time. A
 * GPU test compares this with __ddiv_rn on random operands beyond the
 * range (vmaf_ssim_cuda_division_mismatches). */
__device__ __forceinline__ double div_in_range(double a, double b)
{
    double r0;
    asm("rcp.approx.ftz.f64 %0, %1;" : "=d"(r0) : "d"(b));
    r0 = __hiloint2double(__double2hiint(r0), 1);
    double q;
    asm("{\n\t"
        "// float_ssim: division fast path\n\t"
        ".reg .f64 nb, e, r1, r2, q0, rem;\n\t"
        "neg.f64 nb, %2;\n\t"
        "fma.rn.f64 e, nb, %3, 0d3FF0000000000000;\n\t" /* e = 1 - b r0 */
        "fma.rn.f64 e, e, e, e;\n\t"                    /* e + e^2 */
        "fma.rn.f64 r1, %3, e, %3;\n\t"                 /* r1 = r0 (1 + e + e^2) */
        "fma.rn.f64 e, nb, r1, 0d3FF0000000000000;\n\t" /* 1 - b r1 */
        "fma.rn.f64 r2, r1, e, r1;\n\t"                 /* r2 = r1 (1 + e) */
        "mul.rn.f64 q0, %1, r2;\n\t"                    /* q0 = a r2 */
        "fma.rn.f64 rem, nb, q0, %1;\n\t"               /* a - b q0, exact */
        "fma.rn.f64 %0, r2, rem, q0;\n\t"               /* q0 + r2 (a - b q0) */
        "}"
        : "=d"(q)
        : "d"(a), "d"(b), "d"(r0));
    return q;
}
template <bool PROBE>
__device__ __forceinline__ double div_combine(double a, double b)
{
    return PROBE ? __dmul_rn(a, b) : div_in_range(a, b);
}
/* sqrt(x), correctly rounded, for 0 <= x < 2^63: the combine's square
 * root. The library's (__fsqrt_rn) is a seed from the reciprocal square
 * root unit (MUFU.RSQ), s = x y, h = y / 2 and s + (x - s^2) h with two
 * FMAs, for x in [2^-101, 2^127); zero and smaller x take a slow path
 * behind a branch, which, as for the divisions (div_in_range), keeps the
 * compiler from overlapping it with the rest of the combine. Here x is
 * first scaled by 2^64 (exact: any non-zero x below 2^63, subnormals too,
 * lands in [2^-85, 2^127)), the fast path taken, and the result scaled by
 * 2^-32: the square root of x 2^64 is exactly 2^32 sqrt(x) and, both being
 * normal numbers, rounds to 2^32 times the rounded sqrt(x). Zero gives zero
 * by a select. The combine's x = vr vd is below 2^33. The two FMAs sit in a
 * tagged assembly block that the PTX check admits; a GPU test compares the
 * function with __fsqrt_rn on every float in [0, 2^63)
 * (vmaf_ssim_cuda_sqrt_mismatches). */
__device__ __forceinline__ float sqrt_in_range(float x)
{
    const float xs = __fmul_rn(x, 0x1p64f);
    float q;
    asm("{\n\t"
        "// float_ssim: square root fast path\n\t"
        ".reg .f32 y, s, ns, h, r;\n\t"
        "rsqrt.approx.ftz.f32 y, %1;\n\t"
        "mul.rn.ftz.f32 s, %1, y;\n\t"         /* s = x y */
        "mul.rn.ftz.f32 h, y, 0f3F000000;\n\t" /* h = y / 2 */
        "neg.f32 ns, s;\n\t"
        "fma.rn.f32 r, ns, s, %1;\n\t" /* x - s^2 */
        "fma.rn.f32 %0, r, h, s;\n\t"  /* s + (x - s^2) h */
        "}"
        : "=f"(q)
        : "f"(xs));
    return x == 0.0f ? 0.0f : __fmul_rn(q, 0x1p-32f);
}
template <bool PROBE>
__device__ __forceinline__ float sqrt_f(float a)
{
    return PROBE ? __fmul_rn(a, a) : sqrt_in_range(a);
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
    /* The CPU rounds the f64 square root of the f32 product to f32. Rounding
     * twice is innocuous for the square root when the wider format has at
     * least 2p + 2 bits (53 >= 2 * 24 + 2; Figueroa, "When is double
     * rounding innocuous?", 1995), and the product widens exactly: the f32
     * square root, correctly rounded, is the same number. */
    const float sq = sqrt_f<PROBE>(__fmul_rn(vr, vd));
    Terms o;
    o.l = div_combine<PROBE>(
        __dadd_rn(__dmul_rn(__dmul_rn(2.0, (double)mr), (double)md), k.c1d),
        (double)__fadd_rn(__fadd_rn(mr2, md2), k.c1));
    o.c = div_combine<PROBE>(__dadd_rn(__dmul_rn(2.0, (double)sq), k.c2d),
                             (double)__fadd_rn(__fadd_rn(vr, vd), k.c2));
    const float cc = (cov < 0.0f && sq <= 0.0f) ? 0.0f : cov;
    o.s = (double)div_f<PROBE>(__fadd_rn(cc, k.c3), __fadd_rn(sq, k.c3));
    o.t = __dmul_rn(__dmul_rn(o.l, o.c), o.s);
    return o;
}

/* ---- the Gaussian passes ---------------------------------------------------
 * N consecutive outputs of one pass from N + 10 consecutive inputs: output
 * j is the f64 sum over u = 0..10, in that order, of the f32 products
 * v[j + u] * g[u], rounded to f32 once by the caller (narrow). The taps
 * are symmetric (g[u] == g[10 - u], bit for bit; a test checks the table),
 * so v[i] * g[u] is also output i - 10 + u's product at tap 10 - u: it is
 * kept from tap u (< 5) and used again at tap 10 - u (the compiler does
 * not merge the two multiplications by itself). The
 * first product starts the sum: 0 + p = p for the non-negative p here. */
template <int N>
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
                p = widen(__fmul_rn(v[i], g6[c]));
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

/* The tile kernel's pass items. hsums_to: the horizontal sums of CW
 * outputs from their CW + 10 samples v, rounded to f32, to o (16-byte
 * aligned). vsums_of: the vertical sums of R outputs from a column of
 * horizontal sums (pitch HP), rounded to f32, to out. */
template <int CW>
__device__ __forceinline__ void hsums_to(const float *v, const float *g6, float *o)
{
    double acc[CW];
    gauss<CW>(v, g6, acc);
    float4 *o4 = reinterpret_cast<float4 *>(o);
#pragma unroll
    for (int j = 0; j < CW / 4; j++)
        o4[j] = make_float4(narrow(acc[4 * j]), narrow(acc[4 * j + 1]), narrow(acc[4 * j + 2]),
                            narrow(acc[4 * j + 3]));
}
template <int R>
__device__ __forceinline__ void vsums_of(const float *col, const float *g6, float *out)
{
    float hv[R + WIN - 1];
#pragma unroll
    for (int i = 0; i < R + WIN - 1; i++)
        hv[i] = col[i * HP];
    double acc[R];
    gauss<R>(hv, g6, acc);
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
 * the last block.
 *
 * Launch shapes: TH, CW, R, threads, minimum blocks per multiprocessor,
 * the widening's instructions, and whether an item does one quantity
 * (qsplit: five times the items, each a fifth as long, the vertical sums
 * going through shared memory to a third phase that combines one output
 * per item) or all five. Shape 0 (short tiles, split items, many threads)
 * is for small planes, where the time is the latency of one block's chain
 * of work; shape 1 (tall tiles: fewer halo rows) for large planes, where
 * it is throughput. The others are kept for the benchmark's comparison
 * (8-bit pictures and f32 planes without l, c, s; elsewhere they are
 * refused). */
struct Shape {
    int th, cw, r, nt, minb;
    bool qsplit; /* one quantity per item in the passes, the combine a third phase */
};
constexpr Shape SHAPES[] = {
    {16, 8, 8, 544, 2, true},  /* 0 small planes */
    {48, 8, 6, 256, 2, false}, /* 1 larger planes */
};
constexpr int NSHAPES = sizeof(SHAPES) / sizeof(SHAPES[0]);

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
 * row (docs/adr/0109-tile-kernel-latency.md). */
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

template <typename P, int NQ, int S, bool PROBE>
__global__ void __launch_bounds__(SHAPES[S].nt, min_blocks(SHAPES[S].nt, SHAPES[S].minb))
    k_tile(const P *__restrict__ r, size_t rp, const P *__restrict__ d, size_t dp, float inv_d,
           int W, int H, const SsimCudaConsts k, double depth, double *__restrict__ partials,
           unsigned *__restrict__ counter, SsimCudaOut *__restrict__ out,
           double *__restrict__ terms, int tq)
{
    constexpr Shape SH = SHAPES[S];
    constexpr int TH = SH.th, CW = SH.cw, R = SH.r, NT = SH.nt;
    constexpr int IH = TH + WIN - 1;
    constexpr int NV = (CW + WIN - 1 + 3) / 4; /* float4 loads of one item's inputs */
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
            hsums_to<CW>(a, g6, s_h + (q * IH + rr) * HP + kk);
        }
        __syncthreads();
        /* Phase 2: one quantity of R rows of one column per item. */
        for (int it = threadIdx.x; it < 5 * N2; it += NT) {
            const int q = it / N2, m = (it % N2) / TW;
            float mv[R];
            vsums_of<R>(s_h + (q * IH + m * R) * HP + lane, g6, mv);
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
                hsums_to<CW>(v, g6, s_h + (q * IH + rr) * HP + kk);
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
                vsums_of<R>(s_h + (q * IH + m * R) * HP + lane, g6, mv[q]);
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

/* ---- streamed Gaussian passes (the strip kernel's) -----------------------------
 * A thread takes a whole row (horizontal) or column (vertical) of outputs of
 * one quantity and walks its inputs in order. Each input is multiplied by
 * each of the six distinct taps once (g[u] == g[10 - u]) and every product
 * goes to the outputs that use it: 6 + 30 / N products an output instead of
 * 11, and at most 11 sums live. */

/* One pass over N consecutive outputs: input i (src(i), ascending) goes to
 * the outputs i - u, u = 0..10, at tap u, so each output still adds its taps
 * in ascending order; output j is complete, and given to emit(j, f32), once
 * input j + 10 is in. The first product starts the sum (0 + p = p for the
 * non-negative p here). */
template <int N, typename Src, typename Emit>
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
                p[c] = widen(__fmul_rn(v, g6[c]));
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
template <int N>
__device__ __forceinline__ void hrow(const float *a, const float *b, float *h, int row,
                                     const float *g6)
{
    RowSrc src{reinterpret_cast<const float4 *>(a), reinterpret_cast<const float4 *>(b), {}};
    RowEmit emit{h + row * SHP, (row & 7) << 2, {}};
    stream_pass<N>(src, emit, g6);
}
/* Vertical sums of column x of h, written over its first N rows. */
template <int N>
__device__ __forceinline__ void vcol(float *h, int x, const float *g6)
{
    ColSrc src{h, x};
    ColEmit emit{h, x};
    stream_pass<N>(src, emit, g6);
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
constexpr int CH = 30;            /* output rows of a chunk: 960 combines, 6 a thread */
constexpr int WR = CH + WIN - 1;  /* rows of a chunk's window */
constexpr int SNT = 160;          /* five warps: one a quantity */
constexpr int SBLOCKS = 6;        /* blocks a multiprocessor holds (36.3 KB, 64 registers) */

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
                hrow<TW>(pa + lane * SP, pb + lane * pbs, hq, (pass ? WIN - 1 : CH) + lane, g6);
            if (!pass)
                __syncthreads(); /* the staging of pass 1 reuses s_in */
        }
        fresh = false;
        __syncwarp();
        vcol<CH>(hq, lane, g6);
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

/* The means after a tile grid launched without a counter: it waits for
 * the whole grid and its additions (cudaGridDependencySynchronize), where
 * the last block used to learn it was last from a counter that every block
 * had to update and wait for. */
__global__ void k_finalize_after(double *__restrict__ totals, int nq, double n, double depth,
                                 SsimCudaOut *__restrict__ out)
{
    wait_for_inputs();
    final_means<false>(totals, nq, n, depth, out);
}

/* Loads a kernel now: with lazy loading (the default since CUDA 12.2) a
 * kernel first launched inside a stream capture is loaded there, which
 * drivers before CUDA 12.3's refuse, failing the capture. */
template <typename K>
cudaError_t load_kernel(K *kernel, cudaError_t e)
{
    cudaFuncAttributes a;
    return e == cudaSuccess ? cudaFuncGetAttributes(&a, kernel) : e;
}

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

/* The SSIM kernels' launch: with programmatic dependent launch (compute
 * capability 9 and up) the blocks start while the decimation before them
 * finishes, and wait for its writes in the kernel
 * (cudaGridDependencySynchronize). */
cudaLaunchConfig_t launch_config(const SsimCudaPlan *p, dim3 grid, unsigned threads, size_t smem,
                                 cudaStream_t st, cudaLaunchAttribute *attr)
{
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = grid;
    cfg.blockDim = dim3(threads);
    cfg.dynamicSmemBytes = smem;
    cfg.stream = st;
    if (p->pdl) {
        attr->id = cudaLaunchAttributeProgrammaticStreamSerialization;
        attr->val.programmaticStreamSerializationAllowed = 1;
        cfg.attrs = attr;
        cfg.numAttrs = 1;
    }
    return cfg;
}

template <typename P, int NQ, int S>
cudaError_t launch_tile_shape(const SsimCudaPlan *p, const void *ref, size_t rp,
                              const void *dist, size_t dp, float inv_d, double *partials,
                              SsimCudaOut *out, double *terms, int tq, cudaStream_t st)
{
    unsigned *counter = reinterpret_cast<unsigned *>(partials + REC);
    cudaLaunchAttribute attr;
    const cudaLaunchConfig_t cfg =
        launch_config(p, dim3(p->grid_x, p->grid_y), SHAPES[S].nt, tile_smem(SHAPES[S]), st, &attr);
    /* The small tiles (the automatic scales) hand the means to a kernel of
     * their own where PDL lets it start with them: 0.1-0.3 us a frame on
     * the H200 (ADR 0115). The others keep the last-block counter. */
    const bool sep = S == 0 && out && !terms && p->pdl;
    cudaError_t e = cudaLaunchKernelEx(&cfg, k_tile<P, NQ, S, false>, (const P *)ref,
                                       rp / sizeof(P), (const P *)dist, dp / sizeof(P), inv_d,
                                       (int)p->W, (int)p->H, p->k, p->depth, partials,
                                       sep ? nullptr : counter, out, terms, tq);
    if (e != cudaSuccess || !sep)
        return e;
    cudaLaunchAttribute a2;
    const cudaLaunchConfig_t c2 = launch_config(p, dim3(1), 32, 0, st, &a2);
    const double n = (double)(p->W - (WIN - 1)) * (double)(p->H - (WIN - 1));
    return cudaLaunchKernelEx(&c2, k_finalize_after, partials, NQ, n, p->depth, out);
}

template <typename P, int NQ>
cudaError_t launch_strip(const SsimCudaPlan *p, const void *ref, size_t rp,
                               const void *dist, size_t dp, float inv_d, double *partials,
                               SsimCudaOut *out, double *terms, int tq, cudaStream_t st)
{
    unsigned *counter = reinterpret_cast<unsigned *>(partials + REC);
    const size_t q = 4 * sizeof(P); /* a staged quad */
    const int vec = (uintptr_t)ref % q == 0 && (uintptr_t)dist % q == 0 && rp % q == 0 &&
                    dp % q == 0;
    cudaLaunchAttribute attr;
    const cudaLaunchConfig_t cfg =
        launch_config(p, dim3(p->grid_x), SNT, strip_smem(), st, &attr);
    return cudaLaunchKernelEx(&cfg, k_strip<P, NQ, false>, (const P *)ref, rp / sizeof(P),
                              (const P *)dist, dp / sizeof(P), inv_d, vec, (int)p->W, (int)p->H,
                              p->units, p->cps, p->k, p->depth, partials, counter, out, terms,
                              tq);
}

template <typename P, int NQ>
cudaError_t launch_tile(const SsimCudaPlan *p, const void *ref, size_t rp, const void *dist,
                        size_t dp, float inv_d, double *partials, SsimCudaOut *out,
                        double *terms, int tq, cudaStream_t st)
{
#define SSIM_LAUNCH(S)                                                                     \
    launch_tile_shape<P, NQ, S>(p, ref, rp, dist, dp, inv_d, partials, out, terms, tq, st)
    if (p->shape == 0)
        return SSIM_LAUNCH(0);
    if (p->shape == 1)
        return SSIM_LAUNCH(1);
    return launch_strip<P, NQ>(p, ref, rp, dist, dp, inv_d, partials, out, terms, tq, st);
#undef SSIM_LAUNCH
}

template <typename P, int NQ, int S>
cudaError_t allow_smem()
{
    return cudaFuncSetAttribute(k_tile<P, NQ, S, false>,
                                cudaFuncAttributeMaxDynamicSharedMemorySize,
                                (int)tile_smem(SHAPES[S]));
}

template <typename P, int NQ>
cudaError_t prepare_kernels()
{
    cudaError_t e = allow_smem<P, NQ, 0>();
    if (e == cudaSuccess)
        e = allow_smem<P, NQ, 1>();
    if (e == cudaSuccess)
        e = cudaFuncSetAttribute(k_strip<P, NQ, false>,
                                 cudaFuncAttributeMaxDynamicSharedMemorySize, (int)strip_smem());
    return e;
}

cudaError_t launch_frame(const SsimCudaPlan *p, const void *ref, size_t ref_pitch,
                         const void *dist, size_t dist_pitch, int is_float, double *partials,
                         SsimCudaOut *out, double *terms, int tq, cudaStream_t st)
{
    const float inv_d = 1.0f / (float)(1u << (p->bpc - 8));
    const bool lcs = p->nq == 4 || terms;
    if (is_float)
        return lcs ? launch_tile<float, 4>(p, ref, ref_pitch, dist, dist_pitch, 1.0f, partials,
                                           out, terms, tq, st)
                   : launch_tile<float, 1>(p, ref, ref_pitch, dist, dist_pitch, 1.0f, partials,
                                           out, terms, tq, st);
    if (p->bpc == 8)
        return lcs ? launch_tile<uint8_t, 4>(p, ref, ref_pitch, dist, dist_pitch, inv_d,
                                             partials, out, terms, tq, st)
                   : launch_tile<uint8_t, 1>(p, ref, ref_pitch, dist, dist_pitch, inv_d,
                                             partials, out, terms, tq, st);
    return lcs ? launch_tile<uint16_t, 4>(p, ref, ref_pitch, dist, dist_pitch, inv_d, partials,
                                          out, terms, tq, st)
               : launch_tile<uint16_t, 1>(p, ref, ref_pitch, dist, dist_pitch, inv_d, partials,
                                          out, terms, tq, st);
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

static void shape(SsimCudaPlan *p, int s)
{
    const unsigned Wo = p->W - (WIN - 1), Ho = p->H - (WIN - 1);
    unsigned nt, per_thread;
    p->shape = s;
    if (s < NSHAPES) {
        const Shape sh = SHAPES[s];
        nt = (unsigned)sh.nt;
        p->th = (unsigned)sh.th;
        p->grid_x = ceil_div(Wo, TW);
        p->grid_y = ceil_div(Ho, p->th);
        p->units = p->cps = 0;
        /* one combine item takes R outputs, or one with split items */
        const unsigned items = sh.qsplit ? p->th * TW : TW * (p->th / (unsigned)sh.r);
        per_thread = ceil_div(items, nt) * (sh.qsplit ? 1u : (unsigned)sh.r);
    } else {
        /* Chunks strip by strip, dealt in equal runs to the blocks of one
         * full wave (or fewer blocks on small planes). */
        nt = SNT;
        p->th = CH;
        p->cps = ceil_div(Ho, CH);
        p->units = ceil_div(Wo, TW) * p->cps;
        const unsigned slots = (unsigned)p->sm_count * SBLOCKS;
        p->grid_x = p->units < slots ? p->units : slots;
        p->grid_y = 1;
        per_thread = ceil_div(CH * TW, nt) * ceil_div(p->units, p->grid_x);
    }
    p->nparts = p->grid_x * p->grid_y;
    /* Longest chain of additions a term goes through: its thread's terms,
     * the 5-level warp butterfly, the other warps of the block one after
     * the other, one addition to the frame total for each block, and
     * slack. */
    p->depth = (double)per_thread + 5.0 + (double)(nt / 32 - 1) + (double)p->nparts + 2.0;
}

void vmaf_ssim_cuda_plan(SsimCudaPlan *p, unsigned w, unsigned h, unsigned bpc, int scale,
                         int lcs, int sm_count, int pdl, const SsimCudaConsts *k)
{
    p->pdl = pdl != 0;
    p->w = w;
    p->h = h;
    p->bpc = bpc;
    p->scale = scale;
    p->W = scale > 1 ? w / (unsigned)scale + (w & 1u) : w;
    p->H = scale > 1 ? h / (unsigned)scale + (h & 1u) : h;
    p->nq = lcs ? 4 : 1;
    p->k = *k;
    p->sm_count = sm_count > 0 ? sm_count : 1;
    /* Large planes: strips, where every horizontal sum is made once and the
     * chunks deal out evenly (at least 8 to a block: one more on some
     * blocks costs at most an eighth). Then tall tiles (10 halo rows each),
     * and small tiles for small planes, where the time is latency, not
     * work. The decimated planes take tall tiles only where they give
     * every multiprocessor two blocks. Pictures (scale 1) take them from
     * three quarters of a tile a multiprocessor: measured on the H200
     * (132 multiprocessors), tall against small tiles at 8 bits, 50 tall
     * tiles (320x240) 11.9 against 10.1 us, 65 (426x240) 11.6 against
     * 10.2, 120 (480x360) 11.7 against 13.6, 126 (576x324) 11.9 against
     * 13.9, 250 (800x450) 16.2 against 22.4; after the decimation, small
     * tiles won at every such size (640x360 planes: 21.2 against 25.5). */
    const unsigned Wo = p->W - (WIN - 1), Ho = p->H - (WIN - 1);
    const unsigned long long chunks = (unsigned long long)ceil_div(Wo, TW) * ceil_div(Ho, CH);
    const unsigned long long tall = (unsigned long long)ceil_div(Wo, TW) * ceil_div(Ho, 48);
    const unsigned long long sms = (unsigned)p->sm_count;
    if (chunks >= 8ull * SBLOCKS * sms)
        shape(p, NSHAPES);
    else
        shape(p, tall >= (scale > 1 ? 2ull * sms : (3ull * sms + 3) / 4) ? 1 : 0);
}

int vmaf_ssim_cuda_plan_override(SsimCudaPlan *p, int s)
{
    if (s < 0 || s > NSHAPES)
        return -1;
    shape(p, s);
    return 0;
}

int vmaf_ssim_cuda_shapes(void)
{
    return NSHAPES + 1; /* the tile shapes, then the strips */
}

size_t vmaf_ssim_cuda_partials_bytes(void)
{
    /* the frame totals, then the finished-blocks counter */
    return (size_t)REC * sizeof(double) + 2 * sizeof(double);
}

cudaError_t vmaf_ssim_cuda_prepare(void)
{
    cudaError_t e = load_decimations<uint8_t>(cudaSuccess);
    e = load_decimations<uint16_t>(e);
    e = load_kernel(k_finalize_after, e);
    if (e == cudaSuccess)
        e = prepare_kernels<uint8_t, 1>();
    if (e == cudaSuccess)
        e = prepare_kernels<uint8_t, 4>();
    if (e == cudaSuccess)
        e = prepare_kernels<uint16_t, 1>();
    if (e == cudaSuccess)
        e = prepare_kernels<uint16_t, 4>();
    if (e == cudaSuccess)
        e = prepare_kernels<float, 1>();
    if (e == cudaSuccess)
        e = prepare_kernels<float, 4>();
    return e;
}

cudaError_t vmaf_cuda_kernels_loadable(int *ptx_arch)
{
    /* Loads the kernel's module for the current device, where lazy
     * loading would otherwise wait for its first launch. */
    cudaFuncAttributes a;
    const cudaError_t e = cudaFuncGetAttributes(&a, k_tile<uint8_t, 1, 0, false>);
    *ptx_arch = e == cudaSuccess ? a.ptxVersion : 0;
    return e;
}

/* Never called: takes the addresses of the probe instances so that they
 * are compiled (test/cuda/check_sass.sh reads them). */
void *vmaf_ssim_cuda_probe_kernels(void)
{
    static void *const probes[] = {(void *)k_tile<uint16_t, 4, 1, true>,
                                   (void *)k_strip<uint16_t, 4, true>};
    return (void *)probes;
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

cudaError_t vmaf_ssim_cuda_frame(const SsimCudaPlan *p, const void *ref, size_t ref_pitch,
                                 const void *dist, size_t dist_pitch, int is_float,
                                 double *partials, SsimCudaOut *out, cudaStream_t st)
{
    return launch_frame(p, ref, ref_pitch, dist, dist_pitch, is_float, partials, out, NULL, 0,
                        st);
}

cudaError_t vmaf_ssim_cuda_terms(const SsimCudaPlan *p, const void *ref, size_t ref_pitch,
                                 const void *dist, size_t dist_pitch, int is_float, int q,
                                 double *terms, double *partials, cudaStream_t st)
{
    return launch_frame(p, ref, ref_pitch, dist, dist_pitch, is_float, partials, NULL, terms, q,
                        st);
}

size_t vmaf_ssim_cuda_terms_partials_bytes(unsigned long long n, unsigned seg)
{
    (void)n;
    (void)seg;
    return (size_t)REC * sizeof(double);
}

cudaError_t vmaf_ssim_cuda_mean_of_terms(const double *terms, unsigned long long n,
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

cudaError_t vmaf_ssim_cuda_division_mismatches(unsigned long long seed,
                                               unsigned long long pairs,
                                               unsigned long long *mismatches, double first[4])
{
    return count_mismatches(
        [=](unsigned long long *bad, void *f) {
            k_division_check<<<1024, 256>>>(seed, pairs, bad, static_cast<double *>(f));
        },
        mismatches, first, 4 * sizeof(double));
}

cudaError_t vmaf_ssim_cuda_sqrt_mismatches(unsigned long long *mismatches, float first[3])
{
    return count_mismatches(
        [](unsigned long long *bad, void *f) {
            k_sqrt_check<<<1024, 256>>>(bad, static_cast<float *>(f));
        },
        mismatches, first, 3 * sizeof(float));
}

} // extern "C"
