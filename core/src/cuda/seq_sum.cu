/*
 * The CPU's sequential f64 sum on the device (seq_sum_cuda.h; the
 * arithmetic is in seq_sum.h). Five launches:
 *   k_seq_chunk_sums  each chunk's sum in any order: only a guess;
 *   k_seq_guess       their exclusive prefix sums, the binade in which the
 *                     running sum probably enters each chunk;
 *   k_seq_prepare     each chunk's record for that binade (one warp);
 *   k_seq_merge       the records of 32 chunks joined into one;
 *   k_seq_walk        one warp applies the records in order: up to 32
 *                     groups or 32 chunks a step while they need no tie
 *                     decided and stay in the binade, a chunk with ties by
 *                     itself, and any other chunk term by term.
 * A wrong guess costs time, never bits: a record is applied only after the
 * running sum is checked to be in its binade with room for every partial
 * sum.
 */
#include <stdint.h>

#include <cuda_runtime.h>

#include "cuda/launch_status.cuh"
#include "cuda/seq_sum.h"
#include "cuda/seq_sum_cuda.h"

namespace {

constexpr int L = VMAF_CUDA_SEQ_SUM_CHUNK;
constexpr int PER_LANE = L / 32;
constexpr unsigned FULL = 0xffffffffu;

static_assert(L == 32 * PER_LANE && L <= 1024, "seq_sum_prepare bounds a chunk to 1024 terms");

unsigned long long chunks_of(unsigned long long n)
{
    return (n + L - 1) / L;
}

/* The calling warp's index in the grid: the chunk or group it takes. */
__device__ __forceinline__ unsigned long long warp_index()
{
    return (unsigned long long)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
}

/* Terms of chunk c (L but for the last). */
__device__ __forceinline__ unsigned chunk_len(unsigned long long n, unsigned long long c)
{
    const unsigned long long base = c * L;
    return n - base < (unsigned long long)L ? (unsigned)(n - base) : (unsigned)L;
}

/* One warp a chunk: its sum, in any order (a guess of where the running
 * sum goes, nothing more). */
__global__ void k_seq_chunk_sums(const double *__restrict__ t, unsigned long long n,
                                 unsigned long long nch, double *__restrict__ sums)
{
    const unsigned long long c = warp_index();
    const int lane = threadIdx.x % 32;
    if (c >= nch)
        return;
    const unsigned long long base = c * L;
    double s = 0.0;
#pragma unroll 8
    for (int i = 0; i < PER_LANE; i++) {
        const unsigned long long k = base + (unsigned long long)i * 32 + lane;
        if (k < n)
            s = __dadd_rn(s, t[k]);
    }
#pragma unroll
    for (int d = 16; d; d >>= 1)
        s = __dadd_rn(s, __shfl_xor_sync(FULL, s, d));
    if (lane == 0)
        sums[c] = s;
}

/* One block: the exclusive prefix sums of the chunk sums (a thread a run
 * of chunks) and, for each chunk, the binade of the sum entering it. */
__global__ void __launch_bounds__(1024) k_seq_guess(const double *__restrict__ sums,
                                                    unsigned long long nch,
                                                    SeqSumChunk *__restrict__ ch)
{
    __shared__ double warp_tot[32];
    const unsigned tid = threadIdx.x, lane = tid % 32, wid = tid / 32;
    const unsigned long long seg = (nch + blockDim.x - 1) / blockDim.x;
    const unsigned long long c0 = tid * seg;
    const unsigned long long c1 = c0 + seg < nch ? c0 + seg : nch;
    double own = 0.0;
    for (unsigned long long c = c0; c < c1; c++)
        own = __dadd_rn(own, sums[c]);
    double incl = own;
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
        const double v = __shfl_up_sync(FULL, incl, d);
        if ((int)lane >= d)
            incl = __dadd_rn(incl, v);
    }
    if (lane == 31)
        warp_tot[wid] = incl;
    __syncthreads();
    double before = 0.0;
    for (unsigned w = 0; w < wid; w++)
        before = __dadd_rn(before, warp_tot[w]);
    double p = __dadd_rn(before, __dsub_rn(incl, own));
    for (unsigned long long c = c0; c < c1; c++) {
        ch[c].e = seq_sum_binade(p);
        p = __dadd_rn(p, sums[c]);
    }
}

__device__ __forceinline__ int64_t warp_min(int64_t v)
{
#pragma unroll
    for (int d = 16; d; d >>= 1) {
        const int64_t o = __shfl_xor_sync(FULL, v, d);
        v = o < v ? o : v;
    }
    return v;
}

__device__ __forceinline__ int64_t warp_max(int64_t v)
{
#pragma unroll
    for (int d = 16; d; d >>= 1) {
        const int64_t o = __shfl_xor_sync(FULL, v, d);
        v = o > v ? o : v;
    }
    return v;
}

/* Least and greatest of the lanes up to this one. */
__device__ __forceinline__ int64_t warp_prefix_min(int64_t v, int lane)
{
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
        const int64_t o = __shfl_up_sync(FULL, v, d);
        if (lane >= d && o < v)
            v = o;
    }
    return v;
}

__device__ __forceinline__ int64_t warp_prefix_max(int64_t v, int lane)
{
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
        const int64_t o = __shfl_up_sync(FULL, v, d);
        if (lane >= d && o > v)
            v = o;
    }
    return v;
}

/* Inclusive prefix sum over the warp's lanes. */
template <typename T>
__device__ __forceinline__ T warp_scan(T v, int lane)
{
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
        const T o = __shfl_up_sync(FULL, v, d);
        if (lane >= d)
            v += o;
    }
    return v;
}

/* One warp a chunk, lane l taking its terms l * 32 .. l * 32 + 31 in order:
 * the record seq_sum_prepare makes, for the binade k_seq_guess chose. */
__global__ void k_seq_prepare(const double *__restrict__ t, unsigned long long n,
                              unsigned long long nch, SeqSumChunk *__restrict__ ch)
{
    const unsigned long long c = warp_index();
    const int lane = threadIdx.x % 32;
    if (c >= nch)
        return;
    const int e = ch[c].e;
    const unsigned long long base = c * L;
    const unsigned len = chunk_len(n, c);
    const unsigned first = (unsigned)lane * PER_LANE;
    const unsigned mine = first >= len ? 0u : (len - first < PER_LANE ? len - first : PER_LANE);
    bool ok = e >= SEQ_SUM_E_MIN && e <= SEQ_SUM_E_MAX;
    int64_t p = 0, lo = INT64_MAX, hi = INT64_MIN;
    uint64_t bits = 0;
    int nt = 0;
    for (unsigned i = 0; ok && i < mine; i++) {
        int64_t r;
        const int tie = seq_sum_quotient(t[base + first + i], e, &r);
        if (tie < 0 || (tie && nt == SEQ_SUM_MAX_TIES)) {
            ok = false;
            break;
        }
        if (tie)
            bits |= (uint64_t)((p + r) & 1) << nt++;
        p += r;
        lo = p < lo ? p : lo;
        hi = p > hi ? p : hi;
    }
    if (__any_sync(FULL, !ok)) {
        if (lane == 0)
            ch[c].nties = -1;
        return;
    }
    /* The lanes before this one shift its partial sums and the parity its
     * ties meet. */
    const int64_t excl = warp_scan(p, lane) - p;
    if (mine) {
        lo += excl;
        hi += excl;
        if (excl & 1)
            bits ^= nt == 64 ? ~(uint64_t)0 : (((uint64_t)1 << nt) - 1);
    }
    const int tie_end = warp_scan(nt, lane);
    const int pos = tie_end - nt;
    const int all_ties = __shfl_sync(FULL, tie_end, 31);
    lo = warp_min(lo);
    hi = warp_max(hi);
    uint64_t mask = nt && all_ties <= SEQ_SUM_MAX_TIES ? bits << pos : 0;
#pragma unroll
    for (int d = 16; d; d >>= 1)
        mask |= __shfl_xor_sync(FULL, mask, d);
    const int64_t total = __shfl_sync(FULL, excl + p, 31);
    if (lane == 0) {
        SeqSumChunk k;
        k.e = e;
        /* as seq_sum_prepare: more ties than bits, or a move of m by 2^52 */
        const int64_t wide = (int64_t)1 << 52;
        k.nties = all_ties <= SEQ_SUM_MAX_TIES && lo > -wide && hi < wide ? all_ties : -1;
        k.r = total;
        k.lo = lo;
        k.hi = hi;
        k.tie_bits = mask;
        ch[c] = k;
    }
}

/* One warp a group of 32 records: their join (seq_sum_join), a record of
 * up to 32 chunks that the walk applies in one step where no tie is
 * decided and the binade does not change. */
__global__ void k_seq_merge(const SeqSumChunk *__restrict__ ch, unsigned long long nch,
                            unsigned long long ngroups, SeqSumChunk *__restrict__ grp)
{
    const unsigned long long g = warp_index();
    const int lane = threadIdx.x % 32;
    if (g >= ngroups)
        return;
    const unsigned long long i = g * 32 + lane;
    const bool in = i < nch;
    SeqSumChunk k = {};
    if (in)
        k = ch[i];
    const int e = __shfl_sync(FULL, k.e, 0);
    if (!__all_sync(FULL, !in || (k.nties == 0 && k.e == e))) {
        if (lane == 0) {
            SeqSumChunk m = {};
            m.e = e;
            m.nties = -1;
            grp[g] = m;
        }
        return;
    }
    const int64_t r = in ? k.r : 0;
    const int64_t incl = warp_scan(r, lane), excl = incl - r;
    const int64_t lo = warp_min(in ? excl + k.lo : INT64_MAX);
    const int64_t hi = warp_max(in ? excl + k.hi : INT64_MIN);
    const int64_t total = __shfl_sync(FULL, incl, 31);
    if (lane == 0) {
        SeqSumChunk m = {};
        m.r = total;
        m.lo = lo;
        m.hi = hi;
        m.e = e;
        m.nties = 0;
        grp[g] = m;
    }
}

/* The longest run of the warp's records, from lane 0, that may be applied
 * at once to a sum with mantissa m in binade e: prepared for e, no tie,
 * every partial sum inside. Returns its length (0 .. limit) and, in *r,
 * what it adds to m. */
__device__ __forceinline__ int applicable_run(const SeqSumChunk &k, bool valid, int e, int64_t m,
                                              int limit, int lane, int64_t *r)
{
    const bool plain = valid && lane < limit && k.nties == 0 && k.e == e;
    const unsigned stop = __ballot_sync(FULL, !plain);
    const int nb = stop ? __ffs((int)stop) - 1 : 32;
    if (nb == 0)
        return 0;
    const bool in = lane < nb;
    const int64_t v = in ? k.r : 0;
    const int64_t incl = warp_scan(v, lane), excl = incl - v;
    const int64_t a = warp_prefix_min(in ? excl + k.lo : INT64_MAX, lane);
    const int64_t b = warp_prefix_max(in ? excl + k.hi : INT64_MIN, lane);
    const unsigned leave = __ballot_sync(FULL, !(in && seq_sum_inside(m, a, b)));
    const int ok = leave ? __ffs((int)leave) - 1 : 32;
    if (ok > 0)
        *r = __shfl_sync(FULL, incl, ok - 1);
    return ok;
}

/* Records staged in shared memory at a time by the walk: its steps then
 * wait on shared memory, not on a global load each. */
constexpr int WINDOW = 512;
constexpr unsigned REC_WORDS = sizeof(SeqSumChunk) / 8;
static_assert(sizeof(SeqSumChunk) % 8 == 0, "records are copied as 8-byte words");

/* One warp, every lane holding the same running sum. */
__global__ void __launch_bounds__(32) k_seq_walk(const double *__restrict__ t, unsigned long long n,
                                                 unsigned long long nch,
                                                 const SeqSumChunk *__restrict__ ch,
                                                 unsigned long long ngroups,
                                                 const SeqSumChunk *__restrict__ grp,
                                                 VmafCudaSeqSum *__restrict__ out)
{
    __shared__ SeqSumChunk rec[WINDOW];
    __shared__ double terms[L];
    const int lane = threadIdx.x;
    double s = 0.0;
    unsigned prepared = 0, by_term = 0, ties = 0;
    unsigned long long c = 0, wbase = 0, wend = 0;
    while (c < nch) {
        const int e = seq_sum_binade(s);
        const int64_t m = e == SEQ_SUM_NO_BINADE ? 0 : seq_sum_mantissa(s);
        int64_t r = 0;
        if (e != SEQ_SUM_NO_BINADE && c % 32 == 0) {
            /* Up to 32 groups of 32 chunks in one step. */
            const unsigned long long g = c / 32 + lane;
            SeqSumChunk k = {};
            if (g < ngroups)
                k = grp[g];
            const int ok = applicable_run(k, g < ngroups, e, m, 32, lane, &r);
            if (ok > 0) {
                s = seq_sum_from_mantissa(m + r, e);
                const unsigned long long next = c + 32ull * (unsigned)ok;
                prepared += (unsigned)((next < nch ? next : nch) - c);
                c = next < nch ? next : nch;
                continue;
            }
        }
        if (c + 32 > wend && wend < nch) {
            /* The next window, from chunk c, as 8-byte words: 16 loads a
             * lane in flight at a time, not one round trip a record. */
            __syncwarp();
            wbase = c;
            wend = c + WINDOW < nch ? c + WINDOW : nch;
            const unsigned words = (unsigned)(wend - wbase) * REC_WORDS;
            const unsigned long long *src =
                reinterpret_cast<const unsigned long long *>(ch + wbase);
            unsigned long long *dst = reinterpret_cast<unsigned long long *>(rec);
            for (unsigned j0 = 0; j0 < words; j0 += 16 * 32) {
                unsigned long long v[16];
#pragma unroll
                for (int k = 0; k < 16; k++) {
                    const unsigned j = j0 + (unsigned)k * 32 + (unsigned)lane;
                    v[k] = j < words ? src[j] : 0ull;
                }
#pragma unroll
                for (int k = 0; k < 16; k++) {
                    const unsigned j = j0 + (unsigned)k * 32 + (unsigned)lane;
                    if (j < words)
                        dst[j] = v[k];
                }
            }
            __syncwarp();
        }
        if (e != SEQ_SUM_NO_BINADE) {
            /* Chunks up to the next group boundary (where groups may take
             * over again) in one step, as far as they may go. */
            const unsigned long long i = c + lane;
            SeqSumChunk k = {};
            if (i < wend)
                k = rec[i - wbase];
            const int ok = applicable_run(k, i < wend, e, m, 32 - (int)(c % 32), lane, &r);
            if (ok > 0) {
                s = seq_sum_from_mantissa(m + r, e);
                c += (unsigned long long)ok;
                prepared += (unsigned)ok;
                continue;
            }
        }
        /* Chunk c by itself: its record (deciding its ties), or its terms,
         * staged by the warp and added by lane 0 in order. */
        SeqSumChunk k = rec[c - wbase];
        if (seq_sum_apply(&s, &k)) {
            prepared++;
            ties += (unsigned)k.nties;
        } else {
            const unsigned long long base = c * L;
            const unsigned len = chunk_len(n, c);
            double v[PER_LANE];
#pragma unroll
            for (int k = 0; k < PER_LANE; k++) {
                const unsigned j = (unsigned)(k * 32 + lane);
                v[k] = j < len ? t[base + j] : 0.0;
            }
            __syncwarp(); /* lane 0 is done with the last chunk it added */
#pragma unroll
            for (int k = 0; k < PER_LANE; k++)
                terms[k * 32 + lane] = v[k];
            __syncwarp();
            if (lane == 0) {
                unsigned j = 0;
                for (; j + 8 <= len; j += 8) {
                    double w[8];
#pragma unroll
                    for (int k = 0; k < 8; k++)
                        w[k] = terms[j + k];
#pragma unroll
                    for (int k = 0; k < 8; k++)
                        s = __dadd_rn(s, w[k]);
                }
                for (; j < len; j++)
                    s = __dadd_rn(s, terms[j]);
            }
            s = __shfl_sync(FULL, s, 0);
            by_term++;
        }
        c++;
    }
    if (lane == 0) {
        out->sum = s;
        out->prepared = prepared;
        out->term_by_term = by_term;
        out->ties = ties;
        out->chunks = (unsigned)nch;
    }
}

} // namespace

extern "C" size_t vmaf_cuda_seq_sum_work_bytes(unsigned long long n)
{
    const unsigned long long nch = chunks_of(n), ngroups = (nch + 31) / 32;
    return (size_t)((nch + ngroups) * sizeof(SeqSumChunk) + nch * sizeof(double));
}

extern "C" cudaError_t vmaf_cuda_seq_sum(const double *terms, unsigned long long n, void *work,
                                         VmafCudaSeqSum *out, cudaStream_t st)
{
    const unsigned long long nch = chunks_of(n), ngroups = (nch + 31) / 32;
    /* The records, the groups' records, then the chunk sums. */
    SeqSumChunk *ch = static_cast<SeqSumChunk *>(work);
    SeqSumChunk *grp = ch + nch;
    double *sums = reinterpret_cast<double *>(grp + ngroups);
    cudaError_t e = cudaSuccess;
    if (nch) {
        constexpr unsigned WARPS = 8;
        const unsigned blocks = (unsigned)((nch + WARPS - 1) / WARPS);
        e = launched([&] { k_seq_chunk_sums<<<blocks, 32 * WARPS, 0, st>>>(terms, n, nch, sums); });
        if (e == cudaSuccess)
            e = launched([&] { k_seq_guess<<<1, 1024, 0, st>>>(sums, nch, ch); });
        if (e == cudaSuccess)
            e = launched([&] { k_seq_prepare<<<blocks, 32 * WARPS, 0, st>>>(terms, n, nch, ch); });
        if (e == cudaSuccess)
            e = launched([&] {
                k_seq_merge<<<(unsigned)((ngroups + WARPS - 1) / WARPS), 32 * WARPS, 0, st>>>(
                    ch, nch, ngroups, grp);
            });
    }
    if (e == cudaSuccess)
        e = launched([&] { k_seq_walk<<<1, 32, 0, st>>>(terms, n, nch, ch, ngroups, grp, out); });
    return e;
}
