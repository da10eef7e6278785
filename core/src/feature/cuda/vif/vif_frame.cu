/*
 * The integer VIF on the device, with the CPU's bits
 * (docs/metrics/vif_numerics.md, whose sections the comments name). Per
 * frame: the statistic of scale 0, then for s = 0..2 the decimation into
 * scale s + 1 and its statistic. Every filter sum is an integer sum exact
 * in its type, so any order gives the CPU's value; the per-pixel f64 steps
 * are written out with _rn intrinsics in the CPU's order; the frame sums
 * are int64 additions, order-free. Kernels:
 *   k_vif_stat  a block makes TY x TX outputs of a scale: the vertical pass
 *               (section 3) of its rows for its columns and the halo into
 *               shared memory, then the horizontal pass and the per-pixel
 *               terms, summed over the block and added to the frame sums.
 *   k_vif_dec   one thread an output of the next scale (section 4): the
 *               vertical pass of its T columns, then the horizontal one.
 * Edges reflect periodically without repeating the edge sample (section
 * 2); the twin refuses planes whose scale 3 is one sample thick.
 */
#include <stdint.h>

#include <cuda_runtime.h>

#include "cuda/device_launch.cuh"
#include "cuda/launch_status.cuh"
#include "feature/cuda/vif_cuda_kernels.h"

namespace {

constexpr int TX = 32, TY = 8;
constexpr unsigned SIGMA_NSQ = 131072u; /* 2.0 in 16.16 */
constexpr unsigned LOG2_FIRST = 32768u;

__constant__ uint16_t c_taps[4][17];

__host__ __device__ constexpr int taps_of(int f)
{
    return (17 >> f) | 1;
}

__device__ __forceinline__ unsigned rnd(unsigned s)
{
    return s ? 1u << (s - 1) : 0u;
}

template <typename T>
__device__ __forceinline__ unsigned sample(const char *base, size_t pitch, int r, int c)
{
    return ((const T *)(base + (size_t)r * pitch))[c];
}

/* log2(v) * 2048 from the table, for 2^16 <= v < 2^32 and for
 * 2^17 <= v < 2^48 (vif_kernels.c's vif_log2_32, vif_log2_64). */
__device__ __forceinline__ int log2_32(const uint16_t *t, uint32_t v)
{
    const int k = 16 - __clz(v);
    return (int)__ldg(&t[(v >> k) - LOG2_FIRST]) + 2048 * k;
}
__device__ __forceinline__ int log2_64(const uint16_t *t, uint64_t v)
{
    const int k = 48 - __clzll((long long)v);
    return (int)__ldg(&t[(v >> k) - LOG2_FIRST]) + 2048 * k;
}

/* One pixel's terms (section 3, "Per pixel"), added to s. */
__device__ __forceinline__ void pixel_terms(const VifCudaFrame &fr, uint32_t mu1, uint32_t mu2,
                                            uint32_t xx, uint32_t yy, uint32_t xy, VifAccum &s)
{
    const uint32_t mu1_sq = (uint32_t)(((uint64_t)mu1 * mu1 + 0x80000000u) >> 32);
    const uint32_t mu2_sq = (uint32_t)(((uint64_t)mu2 * mu2 + 0x80000000u) >> 32);
    const uint32_t mu12 = (uint32_t)(((uint64_t)mu1 * mu2 + 0x80000000u) >> 32);
    const int32_t sigma1_sq = (int32_t)(xx - mu1_sq);
    const int32_t sigma12 = (int32_t)(xy - mu12);
    int32_t sigma2_sq = (int32_t)(yy - mu2_sq);
    if (sigma2_sq < 0)
        sigma2_sq = 0;
    if (sigma1_sq < (int32_t)SIGMA_NSQ) {
        s.num_non_log += sigma2_sq;
        s.den_non_log++;
        return;
    }
    s.den_log += log2_32(fr.log2_table, (uint32_t)sigma1_sq + SIGMA_NSQ) - 2048 * 17;
    if (!(sigma12 > 0 && sigma2_sq > 0))
        return;
    const double g = __ddiv_rn((double)sigma12, __dadd_rn((double)sigma1_sq, fr.eps));
    const double sv = __dsub_rn((double)sigma2_sq, __dmul_rn(g, (double)sigma12));
    const uint32_t numer1 = (uint32_t)(sv > 0 ? __double2int_rz(sv) : 0) + SIGMA_NSQ;
    const int log_den = log2_64(fr.log2_table, numer1);
    for (unsigned p = 0; p < fr.n_gains; p++) {
        const double gl = g < fr.gain[p] ? g : fr.gain[p];
        const long long gain_part =
            __double2ll_rz(__dmul_rn(__dmul_rn(gl, gl), (double)sigma1_sq));
        s.num_log[p] += log2_64(fr.log2_table, (uint64_t)(gain_part + numer1)) - log_den;
    }
}

__device__ __forceinline__ long long block_sum(long long v, long long *red)
{
    for (int d = 16; d > 0; d >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, d);
    const int t = threadIdx.y * TX + threadIdx.x;
    __syncthreads();
    if ((t & 31) == 0)
        red[t >> 5] = v;
    __syncthreads();
    long long total = 0;
    if (t == 0)
        for (int i = 0; i < TX * TY / 32; i++)
            total += red[i];
    return total;
}

/* The block's total of v added to *to (modulo 2^64, so in any order). */
__device__ __forceinline__ void add_block_sum(long long v, int64_t *to, long long *red)
{
    v = block_sum(v, red);
    if (threadIdx.x == 0 && threadIdx.y == 0 && v)
        atomicAdd((unsigned long long *)to, (unsigned long long)v);
}

__device__ __forceinline__ void add_sums(const VifAccum &s, unsigned n_gains, VifAccum *out)
{
    __shared__ long long red[TX * TY / 32];
    add_block_sum(s.den_log, &out->den_log, red);
    add_block_sum(s.num_non_log, &out->num_non_log, red);
    add_block_sum(s.den_non_log, &out->den_non_log, red);
    for (unsigned p = 0; p < n_gains; p++)
        add_block_sum(s.num_log[p], &out->num_log[p], red);
}

/* Statistic of a w x h scale with filter F (section 3). T: the samples'
 * type; at scale 0 the shifts follow the bit depth, above they are 16. */
template <int F, typename T>
__global__ void __launch_bounds__(TX * TY) k_vif_stat(const char *ref, size_t rp, const char *dis,
                                                      size_t dp, int w, int h, unsigned sh_mu,
                                                      unsigned sh_sq, VifCudaFrame fr,
                                                      VifAccum *out)
{
    constexpr int TAPS = taps_of(F), HALF = TAPS / 2, COLS = TX + 2 * HALF;
    __shared__ uint32_t s_mu1[TY][COLS], s_mu2[TY][COLS];
    __shared__ uint32_t s_xx[TY][COLS], s_yy[TY][COLS], s_xy[TY][COLS];
    const int x0 = blockIdx.x * TX, y0 = blockIdx.y * TY;
    const int t = threadIdx.y * TX + threadIdx.x;

    /* Vertical pass: S1 and S2 exact in uint32, the squares in uint64. */
    for (int e = t; e < TY * COLS; e += TX * TY) {
        const int ry = e / COLS, cx = e % COLS;
        const int row = y0 + ry, col = x0 - HALF + cx;
        if (row >= h || col >= w + HALF)
            continue;
        const int c = vif_mirror(col, w);
        uint32_t s1 = 0, s2 = 0;
        uint64_t s11 = 0, s22 = 0, s12 = 0;
        for (int k = 0; k < TAPS; k++) {
            const int r = vif_mirror(row - HALF + k, h);
            const uint32_t a = sample<T>(ref, rp, r, c), b = sample<T>(dis, dp, r, c);
            const uint32_t ck = c_taps[F][k];
            const uint32_t ca = ck * a, cb = ck * b;
            s1 += ca;
            s2 += cb;
            s11 += (uint64_t)ca * a;
            s22 += (uint64_t)cb * b;
            s12 += (uint64_t)ca * b;
        }
        s_mu1[ry][cx] = (uint16_t)((s1 + rnd(sh_mu)) >> sh_mu);
        s_mu2[ry][cx] = (uint16_t)((s2 + rnd(sh_mu)) >> sh_mu);
        s_xx[ry][cx] = (uint32_t)((s11 + rnd(sh_sq)) >> sh_sq);
        s_yy[ry][cx] = (uint32_t)((s22 + rnd(sh_sq)) >> sh_sq);
        s_xy[ry][cx] = (uint32_t)((s12 + rnd(sh_sq)) >> sh_sq);
    }
    __syncthreads();

    /* Horizontal pass and the pixel's terms. */
    VifAccum s = {};
    const int ty = threadIdx.y, tx = threadIdx.x;
    if (y0 + ty < h && x0 + tx < w) {
        uint32_t mu1 = 0, mu2 = 0;
        uint64_t xx = 0, yy = 0, xy = 0;
        for (int k = 0; k < TAPS; k++) {
            const uint32_t ck = c_taps[F][k];
            mu1 += ck * s_mu1[ty][tx + k];
            mu2 += ck * s_mu2[ty][tx + k];
            xx += (uint64_t)ck * s_xx[ty][tx + k];
            yy += (uint64_t)ck * s_yy[ty][tx + k];
            xy += (uint64_t)ck * s_xy[ty][tx + k];
        }
        pixel_terms(fr, mu1, mu2, (uint32_t)((xx + 32768) >> 16), (uint32_t)((yy + 32768) >> 16),
                    (uint32_t)((xy + 32768) >> 16), s);
    }
    add_sums(s, fr.n_gains, out);
}

/* Output (i, j) of the next scale (section 4) with filter F from a
 * w x h scale; sh: the vertical pass's shift. */
template <int F, typename T>
__global__ void __launch_bounds__(TX * TY) k_vif_dec(const char *ref, size_t rp, const char *dis,
                                                     size_t dp, int w, int h, unsigned sh,
                                                     uint16_t *oref, uint16_t *odis, size_t op)
{
    constexpr int TAPS = taps_of(F), HALF = TAPS / 2;
    const int j = blockIdx.x * TX + threadIdx.x, i = blockIdx.y * TY + threadIdx.y;
    if (i >= h / 2 || j >= w / 2)
        return;
    uint32_t hr = 0, hd = 0;
    for (int kc = 0; kc < TAPS; kc++) {
        const int c = vif_mirror(2 * j - HALF + kc, w);
        uint32_t vr = 0, vd = 0;
        for (int k = 0; k < TAPS; k++) {
            const int r = vif_mirror(2 * i - HALF + k, h);
            const uint32_t ck = c_taps[F][k];
            vr += ck * sample<T>(ref, rp, r, c);
            vd += ck * sample<T>(dis, dp, r, c);
        }
        const uint32_t ck = c_taps[F][kc];
        hr += ck * (uint16_t)((vr + rnd(sh)) >> sh);
        hd += ck * (uint16_t)((vd + rnd(sh)) >> sh);
    }
    ((uint16_t *)((char *)oref + (size_t)i * op))[j] = (uint16_t)((hr + 32768) >> 16);
    ((uint16_t *)((char *)odis + (size_t)i * op))[j] = (uint16_t)((hd + 32768) >> 16);
}

template <int F, typename T>
cudaError_t stat(const VifCudaFrame &fr, const void *ref, size_t rp, const void *dis,
                 size_t dp, int w, int h, unsigned sh_mu, unsigned sh_sq, VifAccum *out,
                 cudaStream_t s)
{
    const dim3 grid(ceil_div(w, TX), ceil_div(h, TY)), block(TX, TY);
    return launched([&] {
        k_vif_stat<F, T><<<grid, block, 0, s>>>((const char *)ref, rp, (const char *)dis, dp, w,
                                                h, sh_mu, sh_sq, fr, out);
    });
}

template <int F, typename T>
cudaError_t dec(const void *ref, size_t rp, const void *dis, size_t dp, int w, int h,
                unsigned sh, uint16_t *oref, uint16_t *odis, size_t op, cudaStream_t s)
{
    const dim3 grid(ceil_div(w / 2, TX), ceil_div(h / 2, TY)), block(TX, TY);
    return launched([&] {
        k_vif_dec<F, T><<<grid, block, 0, s>>>((const char *)ref, rp, (const char *)dis, dp, w, h,
                                               sh, oref, odis, op);
    });
}

/* Scale 0 from the luma planes, in their sample type. */
template <typename T>
cudaError_t scale0(const VifCudaFrame &fr, const void *ref, size_t rp, const void *dis,
                   size_t dp, VifCudaOut *out, cudaStream_t s)
{
    const int w = (int)fr.w, h = (int)fr.h;
    const unsigned b = fr.bpc;
    cudaError_t e = stat<0, T>(fr, ref, rp, dis, dp, w, h, b, 2 * (b - 8), &out->scale[0], s);
    if (e == cudaSuccess)
        e = dec<1, T>(ref, rp, dis, dp, w, h, b, fr.plane[1][0], fr.plane[1][1],
                      fr.plane_pitch[1], s);
    return e;
}

} // namespace

extern "C" {

cudaError_t vmaf_vif_cuda_prepare(const uint16_t taps[4][17])
{
    cudaError_t e = cudaMemcpyToSymbol(c_taps, taps, sizeof(c_taps));
    e = load_kernel(k_vif_stat<0, uint8_t>, e);
    e = load_kernel(k_vif_stat<0, uint16_t>, e);
    e = load_kernel(k_vif_stat<1, uint16_t>, e);
    e = load_kernel(k_vif_stat<2, uint16_t>, e);
    e = load_kernel(k_vif_stat<3, uint16_t>, e);
    e = load_kernel(k_vif_dec<1, uint8_t>, e);
    e = load_kernel(k_vif_dec<1, uint16_t>, e);
    e = load_kernel(k_vif_dec<2, uint16_t>, e);
    return load_kernel(k_vif_dec<3, uint16_t>, e);
}

cudaError_t vmaf_vif_cuda_frame(const VifCudaFrame *f, const void *ref, size_t ref_pitch,
                                const void *dis, size_t dis_pitch, VifCudaOut *out,
                                cudaStream_t s)
{
    cudaError_t e = cudaMemsetAsync(out, 0, sizeof(*out), s);
    if (e == cudaSuccess)
        e = f->bpc == 8 ? scale0<uint8_t>(*f, ref, ref_pitch, dis, dis_pitch, out, s)
                        : scale0<uint16_t>(*f, ref, ref_pitch, dis, dis_pitch, out, s);
    /* Scales 1..3 are uint16 planes, shifted by 16 whatever the depth. */
    for (int sc = 1; e == cudaSuccess && sc < VIF_SCALES; sc++) {
        const int w = (int)(f->w >> sc), h = (int)(f->h >> sc);
        const void *r = f->plane[sc][0], *d = f->plane[sc][1];
        const size_t p = f->plane_pitch[sc];
        VifAccum *o = &out->scale[sc];
        if (sc == 1)
            e = stat<1, uint16_t>(*f, r, p, d, p, w, h, 16, 16, o, s);
        else if (sc == 2)
            e = stat<2, uint16_t>(*f, r, p, d, p, w, h, 16, 16, o, s);
        else
            e = stat<3, uint16_t>(*f, r, p, d, p, w, h, 16, 16, o, s);
        if (e != cudaSuccess || sc == VIF_SCALES - 1)
            break;
        uint16_t *nr = f->plane[sc + 1][0], *nd = f->plane[sc + 1][1];
        const size_t np = f->plane_pitch[sc + 1];
        e = sc == 1 ? dec<2, uint16_t>(r, p, d, p, w, h, 16, nr, nd, np, s)
                    : dec<3, uint16_t>(r, p, d, p, w, h, 16, nr, nd, np, s);
    }
    return e;
}

} // extern "C"
