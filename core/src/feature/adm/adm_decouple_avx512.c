/*
 * Decoupling with AVX-512 (AdmDsp.decouple_0 / decouple_s, contract in
 * adm_dsp.h), the same bits as adm_decouple_c.c.
 *
 * Scale 0 runs 16 samples in 32-bit lanes: its values are 16-bit, so the
 * angle test's dot products come from pmaddwd and the quotient table times
 * t is split at bit 15 to stay within 32 bits. Scales 1..3 need the C's
 * 64-bit products, done 8 at a time. The quotient table is computed
 * (adm_div30_x86.h). The angle test is decided in float where that is
 * safe, else in double as the C; the gain limit is done in double unless
 * the gain is an integer whose products are exact in int32.
 */
#include <immintrin.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "feature/adm/adm_div30_x86.h"
#include "feature/adm/adm_dsp.h"
#include "feature/adm/adm_dsp_x86.h"
#include "feature/adm/adm_tables.h"

static inline __mmask16 tail16(unsigned n)
{
    return n >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << n) - 1);
}

/* dp >= 0 && dp*dp >= (c*oo)*tt on 8 lanes, the values as floats. */
static inline __mmask8 within_8(__m256 dp, __m256 oo, __m256 tt)
{
    const __m512d c = _mm512_set1_pd((double)vmaf_adm_cos1deg_sq);
    const __m512d d = _mm512_cvtps_pd(dp);
    const __m512d rhs = _mm512_mul_pd(_mm512_mul_pd(c, _mm512_cvtps_pd(oo)), _mm512_cvtps_pd(tt));
    return _mm512_cmp_pd_mask(_mm512_mul_pd(d, d), rhs, _CMP_GE_OQ) &
           _mm512_cmp_pd_mask(d, _mm512_setzero_pd(), _CMP_GE_OQ);
}

/* The float side of the test: where the float products differ by more than
 * 2^-20 relative, they decide as the C's double ones (those err by 2^-53
 * at most, dp*dp and c*oo being exact in double; the float ones by 2^-23).
 * *unsure: the lanes to do in double (angles within a hair of 1 degree). */
static inline __mmask16 cone_16(__m512 dp, __m512 oo, __m512 tt, __mmask16 *unsure)
{
    const __m512 lhs = _mm512_mul_ps(dp, dp);
    const __m512 rhs = _mm512_mul_ps(_mm512_mul_ps(_mm512_set1_ps(vmaf_adm_cos1deg_sq), oo), tt);
    const __mmask16 yes = _mm512_cmp_ps_mask(
        lhs, _mm512_mul_ps(rhs, _mm512_set1_ps(1.0f + 0x1p-20f)), _CMP_GE_OQ);
    const __mmask16 no = _mm512_cmp_ps_mask(
        lhs, _mm512_mul_ps(rhs, _mm512_set1_ps(1.0f - 0x1p-20f)), _CMP_LT_OQ);
    const __mmask16 nonneg = _mm512_cmp_ps_mask(dp, _mm512_setzero_ps(), _CMP_GE_OQ);
    *unsure = nonneg & ~(yes | no);
    return yes & nonneg;
}

/* The angle test at scale 0. pmaddwd of 16-bit pairs is exact except for
 * 2^31 (all four -32768), which it returns as -2^31: no true value is
 * -2^31, so the sums read as uint32 where dp >= 0 can hold. */
static inline __mmask16 within_0(__m512i oh, __m512i ov, __m512i th, __m512i tv)
{
    const __m512i op = _mm512_mask_blend_epi16(0xaaaaaaaa, oh, _mm512_slli_epi32(ov, 16));
    const __m512i tp = _mm512_mask_blend_epi16(0xaaaaaaaa, th, _mm512_slli_epi32(tv, 16));
    const __m512i ot = _mm512_madd_epi16(op, tp);
    const __mmask16 nonneg = _mm512_cmple_epu32_mask(ot, _mm512_set1_epi32(INT32_MIN));
    const __m512 dp = _mm512_cvtepu32_ps(ot);
    const __m512 oo = _mm512_cvtepu32_ps(_mm512_madd_epi16(op, op));
    const __m512 tt = _mm512_cvtepu32_ps(_mm512_madd_epi16(tp, tp));
    __mmask16 unsure;
    const __mmask16 yes = cone_16(dp, oo, tt, &unsure);
    if (!(unsure & nonneg))
        return nonneg & yes;
    const __mmask8 lo = within_8(_mm512_castps512_ps256(dp), _mm512_castps512_ps256(oo),
                                 _mm512_castps512_ps256(tt));
    const __mmask8 hi = within_8(_mm512_extractf32x8_ps(dp, 1), _mm512_extractf32x8_ps(oo, 1),
                                 _mm512_extractf32x8_ps(tt, 1));
    return nonneg & _mm512_kunpackb(hi, lo);
}

/* Restored value of one band at scale 0; *lim: lanes with k*o != 0. With
 * T = 2^30/o = th*2^15 + tl, (T*t + 2^14) >> 15 = th*t + ((tl*t + 2^14) >> 15)
 * exactly, both terms within 2^30 for 16-bit t. */
static inline __m512i restore_0(__m512i o, __m512i t, __mmask16 *lim)
{
    const __m512i zero = _mm512_setzero_si512();
    __m512i q = adm_div30_16(_mm512_max_epi32(_mm512_abs_epi32(o), _mm512_set1_epi32(1)));
    q = _mm512_mask_sub_epi32(q, _mm512_cmplt_epi32_mask(o, zero), zero, q);
    const __m512i qh = _mm512_srai_epi32(q, 15);
    const __m512i ql = _mm512_and_si512(q, _mm512_set1_epi32(0x7fff));
    const __m512i low = _mm512_add_epi32(_mm512_mullo_epi32(ql, t), _mm512_set1_epi32(16384));
    __m512i k = _mm512_add_epi32(_mm512_mullo_epi32(qh, t), _mm512_srai_epi32(low, 15));
    k = _mm512_min_epi32(_mm512_max_epi32(k, _mm512_setzero_si512()), _mm512_set1_epi32(32768));
    const __mmask16 onz = _mm512_test_epi32_mask(o, o);
    k = _mm512_mask_mov_epi32(_mm512_set1_epi32(32768), onz, k);
    *lim = onz & _mm512_test_epi32_mask(k, k);
    /* |k*o| <= 2^30: the result is within int16 */
    return _mm512_srai_epi32(_mm512_add_epi32(_mm512_mullo_epi32(k, o), _mm512_set1_epi32(16384)),
                             15);
}

/* min(r0*gain, t) where pos, else max, in double, truncated; 8 lanes. */
static inline __m256i limit_pd(__m256i r0, __m256i t, __mmask8 pos, __m512d gain)
{
    const __m512d g = _mm512_mul_pd(_mm512_cvtepi32_pd(r0), gain);
    const __m512d td = _mm512_cvtepi32_pd(t);
    const __m512d lo = _mm512_mask_blend_pd(_mm512_cmp_pd_mask(g, td, _CMP_LT_OQ), td, g);
    const __m512d hi = _mm512_mask_blend_pd(_mm512_cmp_pd_mask(g, td, _CMP_GT_OQ), td, g);
    return _mm512_cvttpd_epi32(_mm512_mask_blend_pd(pos, hi, lo));
}

/* A gain as the C applies it; exact: an integer whose product with any
 * 16-bit r0 fits int32 (then exact in double and in int32); one: 1, where
 * r0 * gain is r0 at any scale (VMAF NEG's gain). */
typedef struct Gain {
    __m512d d;
    __m512i i;
    bool exact, one;
} Gain;

static inline Gain gain_of(double g)
{
    const bool exact = fabs(g) <= 65535.0 && g == (double)(int32_t)g;
    return (Gain){_mm512_set1_pd(g), _mm512_set1_epi32(exact ? (int32_t)g : 0), exact, g == 1.0};
}

static inline __m512i limit_0(__m512i r0, __m512i t, __mmask16 pos, const Gain *g)
{
    if (g->exact) {
        const __m512i v = g->one ? r0 : _mm512_mullo_epi32(r0, g->i);
        return _mm512_mask_blend_epi32(pos, _mm512_max_epi32(v, t), _mm512_min_epi32(v, t));
    }
    const __m256i lo = limit_pd(_mm512_castsi512_si256(r0), _mm512_castsi512_si256(t),
                                (__mmask8)pos, g->d);
    const __m256i hi = limit_pd(_mm512_extracti64x4_epi64(r0, 1), _mm512_extracti64x4_epi64(t, 1),
                                (__mmask8)(pos >> 8), g->d);
    return _mm512_inserti64x4(_mm512_castsi256_si512(lo), hi, 1);
}

static inline __m512i trunc16(__m512i v)
{
    return _mm512_srai_epi32(_mm512_slli_epi32(v, 16), 16);
}

static void decouple16(const AdmBandRows *o, const AdmBandRows *t, unsigned x, __mmask16 m,
                       const Gain *gain, unsigned n, AdmBandRows *r, AdmBandRows *a)
{
    __m512i ov[3], tv[3];
    for (int b = 0; b < 3; b++) {
        ov[b] = _mm512_maskz_loadu_epi32(m, o->b[b] + x);
        tv[b] = _mm512_maskz_loadu_epi32(m, t->b[b] + x);
    }
    const __mmask16 aligned = within_0(ov[0], ov[1], tv[0], tv[1]);
    for (int b = 0; b < 3; b++) {
        __mmask16 lim;
        const __m512i r0 = restore_0(ov[b], tv[b], &lim);
        lim &= aligned;
        const __mmask16 pos = _mm512_cmpgt_epi32_mask(ov[b], _mm512_setzero_si512());
        for (unsigned g = 0; g < n; g++) {
            const __m512i rv = trunc16(_mm512_mask_mov_epi32(r0, lim, limit_0(r0, tv[b], pos,
                                                                              &gain[g])));
            _mm512_mask_storeu_epi32(r[g].b[b] + x, m, rv);
            _mm512_mask_storeu_epi32(a[g].b[b] + x, m, trunc16(_mm512_sub_epi32(tv[b], rv)));
        }
    }
}

static void decouple_0_avx512(const AdmBandRows *o, const AdmBandRows *t, unsigned x0,
                              unsigned x1, const double *gain, unsigned n, AdmBandRows *r,
                              AdmBandRows *a)
{
    for (unsigned g0 = 0; g0 < n; g0 += ADM_DSP_GAIN_CHUNK) {
        const unsigned k = n - g0 < ADM_DSP_GAIN_CHUNK ? n - g0 : ADM_DSP_GAIN_CHUNK;
        Gain g[ADM_DSP_GAIN_CHUNK];
        for (unsigned i = 0; i < k; i++)
            g[i] = gain_of(gain[g0 + i]);
        for (unsigned x = x0; x < x1; x += 16)
            decouple16(o, t, x, tail16(x1 - x), g, k, r + g0, a + g0);
    }
}

/* The dot products of the angle test at scales 1..3 on 8 samples: int64
 * (wrapping), each rounded to float once, as the C's conversion does. */
static inline void dots_s(__m256i oh, __m256i ov, __m256i th, __m256i tv, __m256 f[3])
{
    const __m512i h0 = _mm512_cvtepi32_epi64(oh), v0 = _mm512_cvtepi32_epi64(ov);
    const __m512i h1 = _mm512_cvtepi32_epi64(th), v1 = _mm512_cvtepi32_epi64(tv);
    f[0] = _mm512_cvtepi64_ps(_mm512_add_epi64(_mm512_mul_epi32(h0, h1), _mm512_mul_epi32(v0, v1)));
    f[1] = _mm512_cvtepi64_ps(_mm512_add_epi64(_mm512_mul_epi32(h0, h0), _mm512_mul_epi32(v0, v0)));
    f[2] = _mm512_cvtepi64_ps(_mm512_add_epi64(_mm512_mul_epi32(h1, h1), _mm512_mul_epi32(v1, v1)));
}

static inline __m256i lo8(__m512i v)
{
    return _mm512_castsi512_si256(v);
}

static inline __m256i hi8(__m512i v)
{
    return _mm512_extracti64x4_epi64(v, 1);
}

static inline __m512 join8(__m256 lo, __m256 hi)
{
    return _mm512_insertf32x8(_mm512_castps256_ps512(lo), hi, 1);
}

static inline __mmask16 within_s(__m512i oh, __m512i ov, __m512i th, __m512i tv)
{
    __m256 lo[3], hi[3];
    dots_s(lo8(oh), lo8(ov), lo8(th), lo8(tv), lo);
    dots_s(hi8(oh), hi8(ov), hi8(th), hi8(tv), hi);
    __mmask16 unsure;
    const __mmask16 yes =
        cone_16(join8(lo[0], hi[0]), join8(lo[1], hi[1]), join8(lo[2], hi[2]), &unsure);
    if (!unsure)
        return yes;
    return _mm512_kunpackb(within_8(hi[0], hi[1], hi[2]), within_8(lo[0], lo[1], lo[2]));
}

/* 17 - clz(|o|) for |o| >= 2^15, else 0: the exponent of |o| >> 8 as a
 * float (exact, below 2^24), less 14. */
static inline __m512i top_shift(__m512i mag)
{
    const __m512 f = _mm512_cvtepi32_ps(_mm512_srli_epi32(mag, 8));
    const __m512i e = _mm512_srli_epi32(_mm512_castps_si512(f), 23);
    return _mm512_max_epi32(_mm512_sub_epi32(e, _mm512_set1_epi32(127 - 8 + 14)),
                            _mm512_setzero_si512());
}

/* k of 8 samples at scales 1..3 in 64-bit lanes from the 32-bit terms: the
 * quotient q of |o| rounded to 15 bits, the rounding term round, the
 * shift by and the signs neg; then (int32)((k*o + 2^14) >> 15). At o = 0,
 * that is 0 whatever k. */
static inline __m256i restore8(__m256i q, __m256i t, __m256i round, __m256i by, __mmask8 neg,
                               __m256i o, __mmask8 *kz)
{
    __m512i p = _mm512_mul_epi32(_mm512_cvtepi32_epi64(q), _mm512_cvtepi32_epi64(t));
    p = _mm512_mask_sub_epi64(p, neg, _mm512_setzero_si512(), p);
    p = _mm512_add_epi64(p, _mm512_cvtepi32_epi64(round));
    __m512i k = _mm512_srav_epi64(p, _mm512_cvtepi32_epi64(by));
    k = _mm512_min_epi64(_mm512_max_epi64(k, _mm512_setzero_si512()), _mm512_set1_epi64(32768));
    *kz = _mm512_testn_epi64_mask(k, k);
    const __m512i ko = _mm512_mul_epi32(k, _mm512_cvtepi32_epi64(o));
    return _mm512_cvtepi64_epi32(_mm512_srai_epi64(_mm512_add_epi64(ko, _mm512_set1_epi64(16384)),
                                                   15));
}

/* Restored value of one band at scales 1..3; *lim: lanes with k*o != 0. */
static inline __m512i restore_s(__m512i o, __m512i t, __mmask16 *lim)
{
    const __m512i mag = _mm512_abs_epi32(o);
    const __m512i sh = top_shift(mag);
    const __m512i half = _mm512_srli_epi32(_mm512_sllv_epi32(_mm512_set1_epi32(1), sh), 1);
    const __m512i top = _mm512_srlv_epi32(_mm512_add_epi32(mag, half), sh);
    const __m512i q = adm_div30_16(_mm512_max_epi32(top, _mm512_set1_epi32(1)));
    /* (int32_t)(1u << (14 + sh)): -2^31 at sh = 17 */
    const __m512i round = _mm512_sllv_epi32(_mm512_set1_epi32(1 << 14), sh);
    const __m512i by = _mm512_add_epi32(sh, _mm512_set1_epi32(15));
    const __mmask16 neg = _mm512_cmplt_epi32_mask(o, _mm512_setzero_si512());
    __mmask8 kz0, kz1;
    const __m256i r0 = restore8(lo8(q), lo8(t), lo8(round), lo8(by), (__mmask8)neg, lo8(o), &kz0);
    const __m256i r1 =
        restore8(hi8(q), hi8(t), hi8(round), hi8(by), (__mmask8)(neg >> 8), hi8(o), &kz1);
    *lim = _mm512_test_epi32_mask(o, o) & ~_mm512_kunpackb(kz1, kz0);
    return _mm512_inserti64x4(_mm512_castsi256_si512(r0), r1, 1);
}

/* The gain limit at scales 1..3, in double unless the gain is 1. */
static inline __m512i limit_s(__m512i r0, __m512i t, __mmask16 pos, const Gain *g)
{
    if (g->one)
        return _mm512_mask_blend_epi32(pos, _mm512_max_epi32(r0, t), _mm512_min_epi32(r0, t));
    const __m256i lo = limit_pd(lo8(r0), lo8(t), (__mmask8)pos, g->d);
    const __m256i hi = limit_pd(hi8(r0), hi8(t), (__mmask8)(pos >> 8), g->d);
    return _mm512_inserti64x4(_mm512_castsi256_si512(lo), hi, 1);
}

static void decouple16_s(const AdmBandRows *o, const AdmBandRows *t, unsigned x, __mmask16 m,
                         const Gain *gain, unsigned n, AdmBandRows *r, AdmBandRows *a)
{
    __m512i ov[3], tv[3];
    for (int b = 0; b < 3; b++) {
        ov[b] = _mm512_maskz_loadu_epi32(m, o->b[b] + x);
        tv[b] = _mm512_maskz_loadu_epi32(m, t->b[b] + x);
    }
    const __mmask16 aligned = within_s(ov[0], ov[1], tv[0], tv[1]);
    for (int b = 0; b < 3; b++) {
        __mmask16 lim;
        const __m512i r0 = restore_s(ov[b], tv[b], &lim);
        lim &= aligned;
        const __mmask16 pos = _mm512_cmpgt_epi32_mask(ov[b], _mm512_setzero_si512());
        for (unsigned g = 0; g < n; g++) {
            const __m512i rv = _mm512_mask_mov_epi32(r0, lim, limit_s(r0, tv[b], pos, &gain[g]));
            _mm512_mask_storeu_epi32(r[g].b[b] + x, m, rv);
            _mm512_mask_storeu_epi32(a[g].b[b] + x, m, _mm512_sub_epi32(tv[b], rv));
        }
    }
}

static void decouple_s_avx512(const AdmBandRows *o, const AdmBandRows *t, unsigned x0,
                              unsigned x1, const double *gain, unsigned n, AdmBandRows *r,
                              AdmBandRows *a)
{
    for (unsigned g0 = 0; g0 < n; g0 += ADM_DSP_GAIN_CHUNK) {
        const unsigned k = n - g0 < ADM_DSP_GAIN_CHUNK ? n - g0 : ADM_DSP_GAIN_CHUNK;
        Gain g[ADM_DSP_GAIN_CHUNK];
        for (unsigned i = 0; i < k; i++)
            g[i] = gain_of(gain[g0 + i]);
        for (unsigned x = x0; x < x1; x += 16)
            decouple16_s(o, t, x, tail16(x1 - x), g, k, r + g0, a + g0);
    }
}

void vmaf_adm_dsp_init_decouple_avx512(AdmDsp *dsp)
{
    dsp->decouple_0 = decouple_0_avx512;
    dsp->decouple_s = decouple_s_avx512;
}
