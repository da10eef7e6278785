/*
 * The integer ADM on the device, with the CPU's bits: every stage is the
 * contract of the CPU's AdmDsp entries (feature/adm/adm_dsp.h), per sample
 * instead of per row. Integer arithmetic is the same in any order; the few
 * f32/f64 steps of the decoupling use _rn intrinsics in the CPU's order;
 * every sum the CPU rounds per row is summed per row here too (two's
 * complement, any order), then rounded and added over the rows at the end.
 * Per scale:
 *   k_adm_dwt    one thread an output of the wavelet transform: the
 *                vertical pass of its four columns, then the horizontal
 *                one, for ref or dis (blockIdx.z): the low band (the next
 *                scale's input) and the h, v, d bands.
 *   k_adm_weigh  one thread a sample of the decoupled region: decoupling
 *                and CSF weighting, keeping per group the sum of the three
 *                bands' f terms, which masking reads around each sample.
 *   k_adm_mask   a block a row segment of the scored region: the
 *                denominators' terms, then per group the decoupling of the
 *                sample again, its masking threshold and the masked cubes;
 *                the row's sums are added to its row.
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

/* Samples -1 as 1, n as n-1, n+1 as n-2: the CPU's mirroring. */
__device__ __forceinline__ int mirror(int n, int len)
{
    if (n < 0)
        return -n;
    return n < len ? n : 2 * len - n - 1;
}

/* |v|, 2^31 for INT32_MIN (adm_int.h). */
__device__ __forceinline__ uint32_t mag(int32_t v)
{
    const uint32_t sign = (uint32_t)(v >> 31);
    return (v ^ sign) - sign;
}

/* ---- Transform (AdmDsp.dwt_*) ---- */

template <typename T>
__device__ __forceinline__ uint32_t px(const char *base, size_t pitch, int r, int c)
{
    return ((const T *)(base + (size_t)r * pitch))[c];
}

/* Scale 0, vertical: sums in uint32, which wrap as the reference's int32
 * do at 16 bits. */
template <typename T>
__device__ __forceinline__ void vert0(const char *in, size_t pitch, const int r[4], int c,
                                      unsigned bpc, int16_t &lo, int16_t &hi)
{
    const uint32_t half = 1u << (bpc - 1);
    const uint32_t lo_offset = 46342u * half - half;
    const uint32_t a = px<T>(in, pitch, r[0], c), b = px<T>(in, pitch, r[1], c);
    const uint32_t cc = px<T>(in, pitch, r[2], c), d = px<T>(in, pitch, r[3], c);
    const uint32_t l = 15826u * a + 27411u * b + 7345u * cc - 4240u * d;
    const uint32_t h = 27411u * cc - 4240u * a - 7345u * b - 15826u * d;
    lo = (int16_t)((int32_t)(l - lo_offset) >> bpc);
    hi = (int16_t)((int32_t)(h + half) >> bpc);
}

__device__ __forceinline__ int32_t horz0_lo(const int16_t *t)
{
    return (int16_t)((15826 * t[0] + 27411 * t[1] + 7345 * t[2] - 4240 * t[3] + 32768) >> 16);
}
__device__ __forceinline__ int32_t horz0_hi(const int16_t *t)
{
    return (int16_t)((27411 * t[2] - 4240 * t[0] - 7345 * t[1] - 15826 * t[3] + 32768) >> 16);
}

__device__ __forceinline__ int64_t taps_lo(int64_t a, int64_t b, int64_t c, int64_t d)
{
    return 15826 * a + 27411 * b + 7345 * c - 4240 * d;
}
__device__ __forceinline__ int64_t taps_hi(int64_t a, int64_t b, int64_t c, int64_t d)
{
    return 27411 * c - 4240 * a - 7345 * b - 15826 * d;
}
__device__ __forceinline__ int32_t round_s(int64_t v, int32_t add, unsigned shift)
{
    return (int32_t)((v + add) >> shift);
}

/* Scale s's transform of ref (z 0) or dis (z 1): T is the pixel type at
 * scale 0 and int32_t above (the previous low band, pitch 4 * in_w). */
template <typename T, bool S0>
__global__ void __launch_bounds__(BX *BY) k_adm_dwt(const char *ref, size_t rp, const char *dis,
                                                   size_t dp, AdmCudaFrame f, int s)
{
    const AdmScalePlan &p = f.plan[s];
    const int x = blockIdx.x * BX + threadIdx.x, y = blockIdx.y * BY + threadIdx.y;
    const int side = blockIdx.z;
    if (x >= (int)p.w || y >= (int)p.h)
        return;
    const char *in = side ? dis : ref;
    const size_t pitch = side ? dp : rp;
    int r[4];
    for (int k = 0; k < 4; k++)
        r[k] = mirror(2 * y - 1 + k, (int)p.in_h);
    int32_t a, bh, bv, bd;
    if (S0) {
        int16_t lo[4], hi[4];
        for (int k = 0; k < 4; k++)
            vert0<T>(in, pitch, r, mirror(2 * x - 1 + k, (int)p.in_w), f.bpc, lo[k], hi[k]);
        a = horz0_lo(lo);
        bv = horz0_hi(lo);
        bh = horz0_lo(hi);
        bd = horz0_hi(hi);
    } else {
        int32_t lo[4], hi[4];
        for (int k = 0; k < 4; k++) {
            const int c = mirror(2 * x - 1 + k, (int)p.in_w);
            const int64_t s0 = (int32_t)px<T>(in, pitch, r[0], c);
            const int64_t s1 = (int32_t)px<T>(in, pitch, r[1], c);
            const int64_t s2 = (int32_t)px<T>(in, pitch, r[2], c);
            const int64_t s3 = (int32_t)px<T>(in, pitch, r[3], c);
            lo[k] = round_s(taps_lo(s0, s1, s2, s3), p.dwt_v_add, p.dwt_v_shift);
            hi[k] = round_s(taps_hi(s0, s1, s2, s3), p.dwt_v_add, p.dwt_v_shift);
        }
        a = round_s(taps_lo(lo[0], lo[1], lo[2], lo[3]), p.dwt_h_add, p.dwt_h_shift);
        bv = round_s(taps_hi(lo[0], lo[1], lo[2], lo[3]), p.dwt_h_add, p.dwt_h_shift);
        bh = round_s(taps_lo(hi[0], hi[1], hi[2], hi[3]), p.dwt_h_add, p.dwt_h_shift);
        bd = round_s(taps_hi(hi[0], hi[1], hi[2], hi[3]), p.dwt_h_add, p.dwt_h_shift);
    }
    const size_t at = (size_t)y * p.w + x;
    if (s < 3)
        f.low[s & 1][side][at] = a;
    f.band[side][0][at] = bh;
    f.band[side][1][at] = bv;
    f.band[side][2][at] = bd;
}

/* ---- Decoupling (AdmDsp.decouple_*) ---- */

__device__ __forceinline__ int64_t dot2(int32_t a, int32_t b, int32_t c, int32_t d)
{
    return (int64_t)((uint64_t)((int64_t)a * b) + (uint64_t)((int64_t)c * d));
}

/* The (h, v) vectors within 1 degree: each product rounded to float, then
 * compared in double, in the CPU's order. */
__device__ __forceinline__ bool within_1deg(const int32_t *o, const int32_t *t, double cos1)
{
    const double dp = (double)__ll2float_rn(dot2(o[0], t[0], o[1], t[1]));
    const double oo = (double)__ll2float_rn(dot2(o[0], o[0], o[1], o[1]));
    const double tt = (double)__ll2float_rn(dot2(t[0], t[0], t[1], t[1]));
    return dp >= 0.0 && __dmul_rn(dp, dp) >= __dmul_rn(__dmul_rn(cos1, oo), tt);
}

__device__ __forceinline__ int32_t clamp_k(int64_t k)
{
    return k < 0 ? 0 : k > 32768 ? 32768 : (int32_t)k;
}

__device__ __forceinline__ int32_t restore_16(const int32_t *lut, int32_t o, int32_t t, int &sign)
{
    const int32_t k = o ? clamp_k(((int64_t)__ldg(&lut[o + 32768]) * t + 16384) >> 15) : 32768;
    sign = (o && k) ? (o > 0 ? 1 : -1) : 0;
    return (int16_t)((k * o + 16384) >> 15);
}

/* o above 15 bits rounded to 15 significant bits; the rounding term is an
 * int that wraps to -2^31 at shift 17, as the reference's does. */
__device__ __forceinline__ int32_t restore_32(const int32_t *lut, int32_t o, int32_t t, int &sign)
{
    int64_t k = 32768;
    if (o) {
        const uint32_t m = mag(o);
        unsigned shift = 0;
        uint32_t top = m;
        if (m >= 32768) {
            shift = 17 - (unsigned)__clz(m);
            top = (m + (1u << (shift - 1))) >> shift;
        }
        const int64_t round = (int32_t)(1u << (14 + shift));
        const int64_t q = (int64_t)__ldg(&lut[top + 32768]) * t * (o < 0 ? -1 : 1);
        k = clamp_k((q + round) >> (15 + shift));
    }
    sign = (o && k) ? (o > 0 ? 1 : -1) : 0;
    return (int32_t)((k * o + 16384) >> 15);
}

/* min/max of r0 * gain and t in double, truncated. */
__device__ __forceinline__ int32_t limit_gain(int32_t r0, int32_t t, int sign, double gain)
{
    const double g = __dmul_rn((double)r0, gain);
    if (sign > 0)
        return __double2int_rz(g < t ? g : (double)t);
    return __double2int_rz(g > t ? g : (double)t);
}

/* What decoupling a sample computes before any gain limit. */
struct Decoupling {
    int32_t t[3], r0[3];
    int sign[3];
    bool aligned;
};

template <bool S0>
__device__ __forceinline__ Decoupling decouple(const AdmCudaFrame &f, size_t at)
{
    Decoupling d;
    int32_t o[3];
    for (int b = 0; b < 3; b++) {
        o[b] = f.band[0][b][at];
        d.t[b] = f.band[1][b][at];
    }
    d.aligned = within_1deg(o, d.t, f.cos1deg_sq);
    for (int b = 0; b < 3; b++)
        d.r0[b] = S0 ? restore_16(f.div_lut, o[b], d.t[b], d.sign[b])
                     : restore_32(f.div_lut, o[b], d.t[b], d.sign[b]);
    return d;
}

/* Restored r and additive a under one gain limit. */
template <bool S0>
__device__ __forceinline__ void split(const Decoupling &d, double gain, int32_t *r, int32_t *a)
{
    for (int b = 0; b < 3; b++) {
        const int32_t t = d.t[b];
        const int32_t rv =
            d.aligned && d.sign[b] ? limit_gain(d.r0[b], t, d.sign[b], gain) : d.r0[b];
        if (S0) {
            r[b] = (int16_t)rv;
            a[b] = (int16_t)(t - (int16_t)rv);
        } else {
            r[b] = rv;
            a[b] = (int32_t)((uint32_t)t - (uint32_t)rv);
        }
    }
}

/* ---- CSF weighting and masking (AdmDsp.csf_*, cm_*, den_*) ---- */

/* The f and c terms of a sample's three weighted bands, summed. */
template <bool S0>
__device__ __forceinline__ void csf(const int32_t *v, const uint32_t *q, int32_t &f, int32_t &c)
{
    if (S0) {
        const int32_t add[3] = {16384, 16384, 65535};
        const unsigned shift[3] = {15, 15, 17};
        int32_t fs = 0, cs = 0;
        for (int b = 0; b < 3; b++) {
            const int32_t y = (int16_t)(((int32_t)q[b] * v[b] + add[b]) >> shift[b]);
            const int32_t ay = (int32_t)mag(y);
            fs += (int16_t)((4369 * ay + 2048) >> 12);
            cs += (int16_t)((8738 * ay + 2048) >> 12);
        }
        f = fs;
        c = cs;
    } else {
        uint32_t fs = 0, cs = 0;
        for (int b = 0; b < 3; b++) {
            const int32_t y = (int32_t)(((int64_t)q[b] * v[b] + (1 << 27)) >> 28);
            const int64_t ay = (int32_t)mag(y);
            fs += (uint32_t)(int32_t)((143165577 * ay - 2147483648ll) >> 32);
            cs += (uint32_t)(int32_t)((286331153 * ay - 2147483648ll) >> 32);
        }
        f = (int32_t)fs;
        c = (int32_t)cs;
    }
}

template <bool S0>
__global__ void __launch_bounds__(BX *BY) k_adm_weigh(AdmCudaFrame f, int s)
{
    const AdmScalePlan &p = f.plan[s];
    const int x = p.work_x0 + (int)(blockIdx.x * BX + threadIdx.x);
    const int y = p.work_y0 + (int)(blockIdx.y * BY + threadIdx.y);
    if (x >= p.work_x1 || y >= p.work_y1)
        return;
    const size_t at = (size_t)y * p.w + x;
    const Decoupling d = decouple<S0>(f, at);
    for (int g = 0; g < ADM_CUDA_GROUPS; g++) {
        if (g >= (int)f.n_groups)
            break;
        int32_t r[3], a[3], fv, cv;
        split<S0>(d, f.gain[g], r, a);
        csf<S0>(a, f.q[g][s], fv, cv);
        f.fa[g][at] = fv;
        if (f.aim[g]) {
            csf<S0>(r, f.q[g][s], fv, cv);
            f.fr[g][at] = fv;
        }
    }
}

/* The three-wide sum of f at row `row`, column x, mirrored at the band's
 * edges (modular int32). */
__device__ __forceinline__ uint32_t sum3(const int32_t *fp, unsigned w, int row, int x)
{
    const int32_t *r = fp + (size_t)row * w;
    return (uint32_t)r[mirror(x - 1, (int)w)] + (uint32_t)r[x] + (uint32_t)r[mirror(x + 1, (int)w)];
}

/* The masking threshold of (x, c) from the f plane and the centre's c. */
__device__ __forceinline__ uint32_t threshold(const int32_t *fp, const AdmScalePlan &p, int x,
                                              int c, int32_t centre_c)
{
    const int up = c ? c - 1 : 1, dn = c + 1 < (int)p.h ? c + 1 : c;
    return sum3(fp, p.w, up, x) + sum3(fp, p.w, c, x) + sum3(fp, p.w, dn, x) -
           (uint32_t)fp[(size_t)c * p.w + x] + (uint32_t)centre_c;
}

__device__ __forceinline__ int64_t masked_cube(uint32_t m, uint32_t thr, const AdmCmRound &rnd,
                                               int b)
{
    int32_t x = (int32_t)(m - (thr << rnd.sub[b]));
    if (x < 0)
        x = 0;
    const int32_t sq = (int32_t)(((int64_t)x * x + rnd.sq_add[b]) >> rnd.sq_shift[b]);
    return ((int64_t)sq * x + rnd.cub_add[b]) >> rnd.cub_shift[b];
}

/* A band's weighted value as masking sees it. */
template <bool S0>
__device__ __forceinline__ uint32_t weighted_mag(int32_t v, uint32_t q)
{
    if (S0)
        return mag(v * (int32_t)q);
    return mag((int32_t)(((int64_t)q * v + (1 << 27)) >> 28));
}

/* The masked cubes of src's bands against thr, added to acc[0..2]. */
template <bool S0>
__device__ __forceinline__ void mask_terms(const int32_t *src, const uint32_t *q, uint32_t thr,
                                           const AdmCmRound &rnd, uint64_t *acc)
{
    for (int b = 0; b < 3; b++)
        acc[b] += (uint64_t)masked_cube(weighted_mag<S0>(src[b], q[b]), thr, rnd, b);
}

template <bool S0>
__device__ __forceinline__ void den_terms(const AdmCudaFrame &f, const AdmScalePlan &p, size_t at,
                                          uint64_t *acc)
{
    for (int b = 0; b < 3; b++) {
        const uint32_t m = mag(f.band[0][b][at]);
        if (S0) {
            acc[b] = (uint64_t)(m * m) * m; /* |x| <= 2^15: the square fits */
        } else {
            const uint64_t m64 = m;
            const uint64_t sq = (m64 * m64 + p.den.sq_add) >> p.den.sq_shift;
            acc[b] = (sq * m64 + p.den.cub_add) >> p.den.cub_shift;
        }
    }
}

/* Every sum of the block's row segment, added to the row's sums (each
 * value once per block; modulo 2^64, so in any order). */
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
    if (threadIdx.x < nq) {
        uint64_t t = 0;
        for (int i = 0; i < ROW_THREADS / 32; i++)
            t += red[i][threadIdx.x];
        if (t)
            atomicAdd((unsigned long long *)&row[threadIdx.x], (unsigned long long)t);
    }
}

template <bool S0>
__global__ void __launch_bounds__(ROW_THREADS) k_adm_mask(AdmCudaFrame f, int s)
{
    const AdmScalePlan &p = f.plan[s];
    const int c = p.top + (int)blockIdx.y;
    const int x = p.left + (int)(blockIdx.x * ROW_THREADS + threadIdx.x);
    const int nq = 3 + 6 * (int)f.n_groups;
    uint64_t v[NQ];
    for (int k = 0; k < NQ; k++)
        v[k] = 0;
    if (x < p.right) {
        const size_t at = (size_t)c * p.w + x;
        den_terms<S0>(f, p, at, v);
        const Decoupling d = decouple<S0>(f, at);
        for (int g = 0; g < ADM_CUDA_GROUPS; g++) {
            if (g >= (int)f.n_groups)
                break;
            const uint32_t *q = f.q[g][s];
            int32_t r[3], a[3], fv, cv;
            split<S0>(d, f.gain[g], r, a);
            csf<S0>(a, q, fv, cv);
            mask_terms<S0>(r, q, threshold(f.fa[g], p, x, c, cv), p.cm, &v[3 + 6 * g]);
            if (f.aim[g]) {
                csf<S0>(r, q, fv, cv);
                mask_terms<S0>(a, q, threshold(f.fr[g], p, x, c, cv), p.cm, &v[6 + 6 * g]);
            }
        }
    }
    add_row_sums(v, nq, f.rows + (size_t)(f.row_base[s] + c) * NQ);
}

/* Sum k (blockIdx.x) of scale blockIdx.y: each row's sum rounded as the
 * CPU rounds it, added over the scored rows. */
__global__ void __launch_bounds__(ROW_THREADS) k_adm_rows(AdmCudaFrame f, AdmCudaOut *out)
{
    const int k = blockIdx.x, s = blockIdx.y;
    const AdmScalePlan &p = f.plan[s];
    uint64_t sum = 0;
    for (int y = p.top + (int)threadIdx.x; y < p.bottom; y += ROW_THREADS) {
        const uint64_t r = f.rows[(size_t)(f.row_base[s] + y) * NQ + k];
        if (k < 3)
            sum += (r + p.den_row_add) >> p.den_row_shift;
        else
            sum += (uint64_t)(((int64_t)r + p.cm_row_add) >> p.cm_row_shift);
    }
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
    if (k < 3) {
        out->den[s][k] = t;
        return;
    }
    const int g = (k - 3) / 6, j = (k - 3) % 6;
    if (j < 3)
        out->dlm[g][s][j] = (int64_t)t;
    else
        out->aim[g][s][j - 3] = (int64_t)t;
}

template <typename T, bool S0>
cudaError_t dwt(const AdmCudaFrame &f, int s, const void *ref, size_t rp, const void *dis,
                size_t dp, cudaStream_t st)
{
    const AdmScalePlan &p = f.plan[s];
    const dim3 grid(ceil_div(p.w, BX), ceil_div(p.h, BY), 2), block(BX, BY);
    return launched([&] {
        k_adm_dwt<T, S0><<<grid, block, 0, st>>>((const char *)ref, rp, (const char *)dis, dp, f,
                                                 s);
    });
}

/* Decoupling, weighting and masking of scale s. */
template <bool S0>
cudaError_t weigh_and_mask(const AdmCudaFrame &f, int s, cudaStream_t st)
{
    const AdmScalePlan &p = f.plan[s];
    const unsigned ww = (unsigned)(p.work_x1 - p.work_x0), wh = (unsigned)(p.work_y1 - p.work_y0);
    const unsigned mw = (unsigned)(p.right - p.left), mh = (unsigned)(p.bottom - p.top);
    if (!ww || !wh || !mw || !mh)
        return cudaSuccess;
    const dim3 wgrid(ceil_div(ww, BX), ceil_div(wh, BY)), wblock(BX, BY);
    cudaError_t e = launched([&] { k_adm_weigh<S0><<<wgrid, wblock, 0, st>>>(f, s); });
    if (e != cudaSuccess)
        return e;
    const dim3 mgrid(ceil_div(mw, ROW_THREADS), mh);
    return launched([&] { k_adm_mask<S0><<<mgrid, ROW_THREADS, 0, st>>>(f, s); });
}

} // namespace

extern "C" {

cudaError_t vmaf_adm_cuda_prepare(void)
{
    cudaError_t e = load_kernel(k_adm_dwt<uint8_t, true>, cudaSuccess);
    e = load_kernel(k_adm_dwt<uint16_t, true>, e);
    e = load_kernel(k_adm_dwt<int32_t, false>, e);
    e = load_kernel(k_adm_weigh<true>, e);
    e = load_kernel(k_adm_weigh<false>, e);
    e = load_kernel(k_adm_mask<true>, e);
    e = load_kernel(k_adm_mask<false>, e);
    return load_kernel(k_adm_rows, e);
}

cudaError_t vmaf_adm_cuda_frame(const AdmCudaFrame *f, const void *ref, size_t ref_pitch,
                                const void *dis, size_t dis_pitch, AdmCudaOut *out,
                                cudaStream_t s)
{
    cudaError_t e = cudaMemsetAsync(f->rows, 0, (size_t)f->row_base[4] * NQ * sizeof(uint64_t), s);
    if (e == cudaSuccess)
        e = f->bpc == 8 ? dwt<uint8_t, true>(*f, 0, ref, ref_pitch, dis, dis_pitch, s)
                        : dwt<uint16_t, true>(*f, 0, ref, ref_pitch, dis, dis_pitch, s);
    if (e == cudaSuccess && f->scale0)
        e = weigh_and_mask<true>(*f, 0, s);
    for (int sc = 1; e == cudaSuccess && sc < 4; sc++) {
        const size_t pitch = (size_t)f->plan[sc].in_w * sizeof(int32_t);
        const int32_t *const *in = f->low[(sc - 1) & 1];
        e = dwt<int32_t, false>(*f, sc, in[0], pitch, in[1], pitch, s);
        if (e == cudaSuccess)
            e = weigh_and_mask<false>(*f, sc, s);
    }
    if (e == cudaSuccess)
        e = launched([&] {
            k_adm_rows<<<dim3(3 + 6 * f->n_groups, 4), ROW_THREADS, 0, s>>>(*f, out);
        });
    return e;
}

} // extern "C"
