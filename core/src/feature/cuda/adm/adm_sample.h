/*
 * The adm twin's arithmetic, one sample at a time: what each kernel of
 * adm_frame.cu computes for its sample or row. Every stage is the contract
 * of the CPU's AdmDsp entries (feature/adm/adm_dsp.h). Plain C that nvcc
 * compiles for the device and a C compiler for the host, so that
 * test/adm/test_adm_sample.c runs the same functions on the CPU, sample by
 * sample in the kernels' order, against vmaf_adm_compute() (no GPU needed).
 *
 * The f32/f64 steps use CUDA's _rn/_rz intrinsics; on the host, the plain
 * operators they equal (the build has no contraction there either).
 */
#ifndef LIBVMAF_SRC_FEATURE_CUDA_ADM_ADM_SAMPLE_H
#define LIBVMAF_SRC_FEATURE_CUDA_ADM_ADM_SAMPLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "feature/adm/adm_plan.h"

#ifdef __CUDACC__
#define ADM_FN static __device__ __forceinline__
#define ADM_LDG(p) __ldg(p)
#else
#define ADM_FN static inline
#define ADM_LDG(p) (*(p))
#define __dmul_rn(a, b) ((a) * (b))
#define __ll2float_rn(v) ((float)(v))
#define __double2int_rz(d) ((int)(d))
#define __clz(v) __builtin_clz(v)
#endif

/* Groups of option sets one pass computes (VmafFex's variants at most). */
#define ADM_CUDA_GROUPS 4

/* Row sums a band row has: the three denominators, then per group the
 * three detail-loss and the three additive-impairment numerators. */
#define ADM_CUDA_ROW_SUMS (3 + 6 * ADM_CUDA_GROUPS)

/* A frame's integer sums, the CPU's AdmFrame.den and AdmGroup.dlm,
 * aim_sum: each row's sum rounded as the CPU rounds it, then added over
 * the rows (modulo 2^64, so in any order). */
typedef struct AdmCudaOut {
    uint64_t den[4][3];
    int64_t dlm[ADM_CUDA_GROUPS][4][3];
    int64_t aim[ADM_CUDA_GROUPS][4][3];
} AdmCudaOut;

/* What the kernels read: the CPU's plan and fixed-point weights, the gain
 * limits as the host's doubles, and the buffers of one pass (the twin's
 * frames all run on its one stream, in order, so they share them). */
typedef struct AdmCudaFrame {
    unsigned w, h, bpc;
    AdmScalePlan plan[4];
    unsigned n_groups;
    double gain[ADM_CUDA_GROUPS];
    uint32_t q[ADM_CUDA_GROUPS][4][3]; /* AdmWeights.q of each group */
    bool aim[ADM_CUDA_GROUPS];         /* whether a member reports the AIM */
    bool scale0;                       /* whether a member scores scale 0 */
    double cos1deg_sq;                 /* (double)vmaf_adm_cos1deg_sq */
    const int32_t *div_lut;            /* vmaf_adm_div_lut(), 2^30/v at v + 32768 */
    /* Scale-0 band sized, reused by every scale (row pitch: that scale's
     * band width): the h, v, d bands of ref and dis, the low bands
     * ([scale & 1][ref, dis]: the next scale's input), and each group's
     * per-sample sums of the weighted bands' f terms (fa from the additive
     * part, fr from the restored part). */
    int32_t *band[2][3];
    int32_t *low[2][2];
    int32_t *fa[ADM_CUDA_GROUPS], *fr[ADM_CUDA_GROUPS];
    /* ADM_CUDA_ROW_SUMS a band row, rows of scale s from row_base[s];
     * row_base[4]: rows in all. */
    uint64_t *rows;
    unsigned row_base[5];
} AdmCudaFrame;

struct AdmParams;
struct AdmWeights;

/* Fills f for w x h pictures of bpc bits and the n option sets params
 * (checked by vmaf_adm_check()): the plan, the row bases, the groups and
 * their weights; weights[i] and member[i] (set i's group) for the scoring.
 * The buffers are left NULL. 0, or -EINVAL for n outside 1..ADM_CUDA_GROUPS.
 * Host code (adm_sample_plan.c). */
#ifdef __cplusplus
extern "C"
#endif
int vmaf_adm_sample_plan(AdmCudaFrame *f, unsigned w, unsigned h, unsigned bpc,
                         const struct AdmParams *params, unsigned n,
                         struct AdmWeights *weights, unsigned *member);

/* Samples -1 as 1, n as n-1, n+1 as n-2: the CPU's mirroring. */
ADM_FN int adm_mirror(int n, int len)
{
    if (n < 0)
        return -n;
    return n < len ? n : 2 * len - n - 1;
}

/* |v|, 2^31 for INT32_MIN (adm_int.h). */
ADM_FN uint32_t adm_abs(int32_t v)
{
    const uint32_t sign = (uint32_t)(v >> 31);
    return ((uint32_t)v ^ sign) - sign;
}

/* ---- Transform (AdmDsp.dwt_*) ---- */

/* Sample (r, c) of a plane: pixels at scale 0 (uint8 at 8 bits, uint16
 * above), the previous low band (int32) above. */
ADM_FN int32_t adm_in(const void *in, size_t pitch, int r, int c, int s, unsigned bpc)
{
    const char *row = (const char *)in + (size_t)r * pitch;
    if (s)
        return ((const int32_t *)row)[c];
    return bpc == 8 ? ((const uint8_t *)row)[c] : ((const uint16_t *)row)[c];
}

/* Scale 0, vertical: sums in uint32, which wrap as the reference's int32
 * do at 16 bits. */
ADM_FN void adm_vert0(const uint32_t v[4], unsigned bpc, int32_t *lo, int32_t *hi)
{
    const uint32_t half = 1u << (bpc - 1);
    const uint32_t lo_offset = 46342u * half - half;
    const uint32_t l = 15826u * v[0] + 27411u * v[1] + 7345u * v[2] - 4240u * v[3];
    const uint32_t h = 27411u * v[2] - 4240u * v[0] - 7345u * v[1] - 15826u * v[3];
    *lo = (int16_t)((int32_t)(l - lo_offset) >> bpc);
    *hi = (int16_t)((int32_t)(h + half) >> bpc);
}

ADM_FN int64_t adm_taps_lo(const int32_t *t)
{
    return 15826 * (int64_t)t[0] + 27411 * (int64_t)t[1] + 7345 * (int64_t)t[2] -
           4240 * (int64_t)t[3];
}
ADM_FN int64_t adm_taps_hi(const int32_t *t)
{
    return 27411 * (int64_t)t[2] - 4240 * (int64_t)t[0] - 7345 * (int64_t)t[1] -
           15826 * (int64_t)t[3];
}

/* Scale 0, horizontal, on int16 values: int arithmetic, as the CPU's. */
ADM_FN int32_t adm_horz0_lo(const int32_t *t)
{
    return (int16_t)((15826 * t[0] + 27411 * t[1] + 7345 * t[2] - 4240 * t[3] + 32768) >> 16);
}
ADM_FN int32_t adm_horz0_hi(const int32_t *t)
{
    return (int16_t)((27411 * t[2] - 4240 * t[0] - 7345 * t[1] - 15826 * t[3] + 32768) >> 16);
}

ADM_FN int32_t adm_round(int64_t v, int32_t add, unsigned shift)
{
    return (int32_t)((v + add) >> shift);
}

/* Output (x, y) of scale s's transform of one picture: out = low band,
 * h, v, d. Reads its 4x4 inputs, mirrored. */
ADM_FN void adm_dwt_sample(const AdmCudaFrame *f, int s, const void *in, size_t pitch, int x,
                           int y, int32_t out[4])
{
    const AdmScalePlan *p = &f->plan[s];
    int r[4];
    for (int k = 0; k < 4; k++)
        r[k] = adm_mirror(2 * y - 1 + k, (int)p->in_h);
    int32_t lo[4], hi[4];
    for (int k = 0; k < 4; k++) {
        const int c = adm_mirror(2 * x - 1 + k, (int)p->in_w);
        if (s == 0) {
            uint32_t v[4];
            for (int j = 0; j < 4; j++)
                v[j] = (uint32_t)adm_in(in, pitch, r[j], c, 0, f->bpc);
            adm_vert0(v, f->bpc, &lo[k], &hi[k]);
        } else {
            int32_t v[4];
            for (int j = 0; j < 4; j++)
                v[j] = adm_in(in, pitch, r[j], c, s, f->bpc);
            lo[k] = adm_round(adm_taps_lo(v), p->dwt_v_add, p->dwt_v_shift);
            hi[k] = adm_round(adm_taps_hi(v), p->dwt_v_add, p->dwt_v_shift);
        }
    }
    if (s == 0) {
        out[0] = adm_horz0_lo(lo);
        out[1] = adm_horz0_lo(hi);
        out[2] = adm_horz0_hi(lo);
        out[3] = adm_horz0_hi(hi);
    } else {
        out[0] = adm_round(adm_taps_lo(lo), p->dwt_h_add, p->dwt_h_shift);
        out[1] = adm_round(adm_taps_lo(hi), p->dwt_h_add, p->dwt_h_shift);
        out[2] = adm_round(adm_taps_hi(lo), p->dwt_h_add, p->dwt_h_shift);
        out[3] = adm_round(adm_taps_hi(hi), p->dwt_h_add, p->dwt_h_shift);
    }
}

/* Stores adm_dwt_sample's out for picture `side` at (x, y). */
ADM_FN void adm_dwt_store(const AdmCudaFrame *f, int s, int side, int x, int y,
                          const int32_t out[4])
{
    const size_t at = (size_t)y * f->plan[s].w + x;
    if (s < 3)
        f->low[s & 1][side][at] = out[0];
    for (int b = 0; b < 3; b++)
        f->band[side][b][at] = out[1 + b];
}

/* ---- Decoupling (AdmDsp.decouple_*) ---- */

ADM_FN int64_t adm_dot2(int32_t a, int32_t b, int32_t c, int32_t d)
{
    return (int64_t)((uint64_t)((int64_t)a * b) + (uint64_t)((int64_t)c * d));
}

/* The (h, v) vectors within 1 degree: each product rounded to float, then
 * compared in double, in the CPU's order. */
ADM_FN bool adm_within_1deg(const int32_t *o, const int32_t *t, double cos1)
{
    const double dp = (double)__ll2float_rn(adm_dot2(o[0], t[0], o[1], t[1]));
    const double oo = (double)__ll2float_rn(adm_dot2(o[0], o[0], o[1], o[1]));
    const double tt = (double)__ll2float_rn(adm_dot2(t[0], t[0], t[1], t[1]));
    return dp >= 0.0 && __dmul_rn(dp, dp) >= __dmul_rn(__dmul_rn(cos1, oo), tt);
}

ADM_FN int32_t adm_clamp_k(int64_t k)
{
    return k < 0 ? 0 : k > 32768 ? 32768 : (int32_t)k;
}

ADM_FN int32_t adm_restore_16(const int32_t *lut, int32_t o, int32_t t, int *sign)
{
    const int32_t k =
        o ? adm_clamp_k(((int64_t)ADM_LDG(&lut[o + 32768]) * t + 16384) >> 15) : 32768;
    *sign = (o && k) ? (o > 0 ? 1 : -1) : 0;
    return (int16_t)((k * o + 16384) >> 15);
}

/* o above 15 bits rounded to 15 significant bits; the rounding term is an
 * int that wraps to -2^31 at shift 17, as the reference's does. */
ADM_FN int32_t adm_restore_32(const int32_t *lut, int32_t o, int32_t t, int *sign)
{
    int64_t k = 32768;
    if (o) {
        const uint32_t m = adm_abs(o);
        unsigned shift = 0;
        uint32_t top = m;
        if (m >= 32768) {
            shift = 17 - (unsigned)__clz(m);
            top = (m + (1u << (shift - 1))) >> shift;
        }
        const int64_t round = (int32_t)(1u << (14 + shift));
        const int64_t q = (int64_t)ADM_LDG(&lut[top + 32768]) * t * (o < 0 ? -1 : 1);
        k = adm_clamp_k((q + round) >> (15 + shift));
    }
    *sign = (o && k) ? (o > 0 ? 1 : -1) : 0;
    return (int32_t)((k * o + 16384) >> 15);
}

/* min/max of r0 * gain and t in double, truncated (in int32 range: the
 * result lies between 0 and t). */
ADM_FN int32_t adm_limit_gain(int32_t r0, int32_t t, int sign, double gain)
{
    const double g = __dmul_rn((double)r0, gain);
    if (sign > 0)
        return __double2int_rz(g < t ? g : (double)t);
    return __double2int_rz(g > t ? g : (double)t);
}

/* What decoupling a sample computes before any gain limit. */
typedef struct AdmDecoupling {
    int32_t t[3], r0[3];
    int sign[3];
    bool aligned;
} AdmDecoupling;

ADM_FN AdmDecoupling adm_decouple(const AdmCudaFrame *f, int s, size_t at)
{
    AdmDecoupling d;
    int32_t o[3];
    for (int b = 0; b < 3; b++) {
        o[b] = f->band[0][b][at];
        d.t[b] = f->band[1][b][at];
    }
    d.aligned = adm_within_1deg(o, d.t, f->cos1deg_sq);
    for (int b = 0; b < 3; b++)
        d.r0[b] = s == 0 ? adm_restore_16(f->div_lut, o[b], d.t[b], &d.sign[b])
                         : adm_restore_32(f->div_lut, o[b], d.t[b], &d.sign[b]);
    return d;
}

/* Restored r and additive a under one gain limit. */
ADM_FN void adm_split(const AdmDecoupling *d, int s, double gain, int32_t *r, int32_t *a)
{
    for (int b = 0; b < 3; b++) {
        const int32_t t = d->t[b];
        const int32_t rv = d->aligned && d->sign[b]
                               ? adm_limit_gain(d->r0[b], t, d->sign[b], gain)
                               : d->r0[b];
        if (s == 0) {
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
ADM_FN void adm_csf(int s, const int32_t *v, const uint32_t *q, int32_t *f, int32_t *c)
{
    uint32_t fs = 0, cs = 0;
    for (int b = 0; b < 3; b++) {
        if (s == 0) {
            const int32_t add = b < 2 ? 16384 : 65535;
            const unsigned shift = b < 2 ? 15 : 17;
            const int32_t y = (int16_t)(((int32_t)q[b] * v[b] + add) >> shift);
            const int32_t ay = (int32_t)adm_abs(y);
            fs += (uint32_t)(int16_t)((4369 * ay + 2048) >> 12);
            cs += (uint32_t)(int16_t)((8738 * ay + 2048) >> 12);
        } else {
            const int32_t y = (int32_t)(((int64_t)q[b] * v[b] + (1 << 27)) >> 28);
            const int64_t ay = (int32_t)adm_abs(y);
            fs += (uint32_t)(int32_t)((143165577 * ay - 2147483648ll) >> 32);
            cs += (uint32_t)(int32_t)((286331153 * ay - 2147483648ll) >> 32);
        }
    }
    *f = (int32_t)fs;
    *c = (int32_t)cs;
}

/* Sample (x, y) of the decoupled region: each group's f-sums. */
ADM_FN void adm_weigh_sample(const AdmCudaFrame *f, int s, int x, int y)
{
    const size_t at = (size_t)y * f->plan[s].w + x;
    const AdmDecoupling d = adm_decouple(f, s, at);
    for (unsigned g = 0; g < ADM_CUDA_GROUPS && g < f->n_groups; g++) {
        int32_t r[3], a[3], fv, cv;
        adm_split(&d, s, f->gain[g], r, a);
        adm_csf(s, a, f->q[g][s], &fv, &cv);
        f->fa[g][at] = fv;
        if (f->aim[g]) {
            adm_csf(s, r, f->q[g][s], &fv, &cv);
            f->fr[g][at] = fv;
        }
    }
}

/* The three-wide sum of f at row `row`, column x, mirrored at the band's
 * edges (modular int32). */
ADM_FN uint32_t adm_sum3(const int32_t *fp, unsigned w, int row, int x)
{
    const int32_t *r = fp + (size_t)row * w;
    return (uint32_t)r[adm_mirror(x - 1, (int)w)] + (uint32_t)r[x] +
           (uint32_t)r[adm_mirror(x + 1, (int)w)];
}

/* The masking threshold of (x, c) from an f plane and the centre's c term:
 * rows -1 and h read as 1 and h-1. */
ADM_FN uint32_t adm_threshold(const int32_t *fp, const AdmScalePlan *p, int x, int c,
                              int32_t centre_c)
{
    const int up = c ? c - 1 : 1, dn = c + 1 < (int)p->h ? c + 1 : c;
    return adm_sum3(fp, p->w, up, x) + adm_sum3(fp, p->w, c, x) + adm_sum3(fp, p->w, dn, x) -
           (uint32_t)fp[(size_t)c * p->w + x] + (uint32_t)centre_c;
}

ADM_FN int64_t adm_masked_cube(uint32_t m, uint32_t thr, const AdmCmRound *rnd, int b)
{
    int32_t x = (int32_t)(m - (thr << rnd->sub[b]));
    if (x < 0)
        x = 0;
    const int32_t sq = (int32_t)(((int64_t)x * x + rnd->sq_add[b]) >> rnd->sq_shift[b]);
    return ((int64_t)sq * x + rnd->cub_add[b]) >> rnd->cub_shift[b];
}

/* The masked cubes of src's bands against thr, added to acc[0..2]. */
ADM_FN void adm_mask_terms(int s, const int32_t *src, const uint32_t *q, uint32_t thr,
                           const AdmCmRound *rnd, uint64_t *acc)
{
    for (int b = 0; b < 3; b++) {
        const int32_t v = s == 0 ? (int32_t)((uint32_t)src[b] * q[b])
                                 : (int32_t)(((int64_t)q[b] * src[b] + (1 << 27)) >> 28);
        acc[b] += (uint64_t)adm_masked_cube(adm_abs(v), thr, rnd, b);
    }
}

/* The denominators' terms of the reference's bands at `at`. */
ADM_FN void adm_den_terms(const AdmCudaFrame *f, int s, size_t at, uint64_t *acc)
{
    const AdmDenRound *rnd = &f->plan[s].den;
    for (int b = 0; b < 3; b++) {
        const uint32_t m = adm_abs(f->band[0][b][at]);
        if (s == 0) {
            acc[b] += (uint64_t)(m * m) * m; /* |x| <= 2^15: the square fits */
        } else {
            const uint64_t m64 = m;
            const uint64_t sq = (m64 * m64 + rnd->sq_add) >> rnd->sq_shift;
            acc[b] += (sq * m64 + rnd->cub_add) >> rnd->cub_shift;
        }
    }
}

/* Every row sum's term of scored sample (x, c), added to v[0 ..
 * ADM_CUDA_ROW_SUMS). */
ADM_FN void adm_mask_sample(const AdmCudaFrame *f, int s, int x, int c, uint64_t *v)
{
    const AdmScalePlan *p = &f->plan[s];
    const size_t at = (size_t)c * p->w + x;
    adm_den_terms(f, s, at, v);
    const AdmDecoupling d = adm_decouple(f, s, at);
    for (unsigned g = 0; g < ADM_CUDA_GROUPS && g < f->n_groups; g++) {
        const uint32_t *q = f->q[g][s];
        int32_t r[3], a[3], fv, cv;
        adm_split(&d, s, f->gain[g], r, a);
        adm_csf(s, a, q, &fv, &cv);
        adm_mask_terms(s, r, q, adm_threshold(f->fa[g], p, x, c, cv), &p->cm, &v[3 + 6 * g]);
        if (f->aim[g]) {
            adm_csf(s, r, q, &fv, &cv);
            adm_mask_terms(s, a, q, adm_threshold(f->fr[g], p, x, c, cv), &p->cm,
                           &v[6 + 6 * g]);
        }
    }
}

/* Row y's sum k of scale s, rounded as the CPU rounds a row's sum. */
ADM_FN uint64_t adm_row_rounded(const AdmCudaFrame *f, int s, int k, int y)
{
    const AdmScalePlan *p = &f->plan[s];
    const uint64_t r = f->rows[(size_t)(f->row_base[s] + y) * ADM_CUDA_ROW_SUMS + k];
    if (k < 3)
        return (r + p->den_row_add) >> p->den_row_shift;
    return (uint64_t)(((int64_t)r + p->cm_row_add) >> p->cm_row_shift);
}

/* Stores sum k of scale s, the rounded rows added up, into out. */
ADM_FN void adm_store_sum(AdmCudaOut *out, int s, int k, uint64_t t)
{
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

#endif /* LIBVMAF_SRC_FEATURE_CUDA_ADM_ADM_SAMPLE_H */
