/*
 * Decoupling with AVX2 (AdmDsp.decouple_0 / decouple_s, contract in
 * adm_dsp.h), the same bits as adm_decouple_c.c; the columns after the last
 * full vector go to the C entries.
 *
 * 8 samples per step. Scale 0 stays in 32-bit lanes: its values are
 * 16-bit, so the angle test's dot products come from pmaddwd and the
 * quotient table times t is split at bit 15 to stay within 32 bits. Scales
 * 1..3 need the C's 64-bit products, done 4 at a time; AVX2 cannot convert
 * int64 to float, so that rounding is built from exact steps (i64_to_ps).
 * The quotient table is computed (adm_div30_x86.h). The angle test is
 * decided in float where that is safe, else in double as the C; the gain
 * limit is done in double unless the gain is an integer whose products are
 * exact in int32.
 */
#include <immintrin.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "feature/adm/adm_div30_x86.h"
#include "feature/adm/adm_dsp.h"
#include "feature/adm/adm_dsp_c.h"
#include "feature/adm/adm_dsp_x86.h"
#include "feature/adm/adm_tables.h"

/* dp >= 0 && dp*dp >= (c*oo)*tt on 4 lanes, the values as floats; the
 * result has all bits set in the 64-bit lanes where it holds. */
static inline __m256d within_4(__m128 dp, __m128 oo, __m128 tt)
{
    const __m256d c = _mm256_set1_pd((double)vmaf_adm_cos1deg_sq);
    const __m256d d = _mm256_cvtps_pd(dp);
    const __m256d rhs = _mm256_mul_pd(_mm256_mul_pd(c, _mm256_cvtps_pd(oo)), _mm256_cvtps_pd(tt));
    return _mm256_and_pd(_mm256_cmp_pd(_mm256_mul_pd(d, d), rhs, _CMP_GE_OQ),
                         _mm256_cmp_pd(d, _mm256_setzero_pd(), _CMP_GE_OQ));
}

/* 64-bit lane masks of a (lanes 0..3) and b (4..7) as 32-bit lane masks. */
static inline __m256i pack_masks(__m256d a, __m256d b)
{
    const __m256 p = _mm256_shuffle_ps(_mm256_castpd_ps(a), _mm256_castpd_ps(b),
                                       _MM_SHUFFLE(2, 0, 2, 0));
    return _mm256_permute4x64_epi64(_mm256_castps_si256(p), _MM_SHUFFLE(3, 1, 2, 0));
}

/* dp >= 0 && dp*dp >= (c*oo)*tt in double, as the C, on 8 lanes of floats.
 * Float products err by at most 2^-23 relative and the C's double one by
 * 2^-53 (dp*dp and c*oo are exact in double): where the float sides differ
 * by more than 2^-20 relative, float decides the same; the rest, rare
 * (angles within a hair of 1 degree), is done in double. */
static inline __m256i cone_8(__m256 dp, __m256 oo, __m256 tt)
{
    const __m256 lhs = _mm256_mul_ps(dp, dp);
    const __m256 rhs = _mm256_mul_ps(_mm256_mul_ps(_mm256_set1_ps(vmaf_adm_cos1deg_sq), oo), tt);
    const __m256 yes = _mm256_cmp_ps(lhs, _mm256_mul_ps(rhs, _mm256_set1_ps(1.0f + 0x1p-20f)),
                                     _CMP_GE_OQ);
    const __m256 no = _mm256_cmp_ps(lhs, _mm256_mul_ps(rhs, _mm256_set1_ps(1.0f - 0x1p-20f)),
                                    _CMP_LT_OQ);
    const __m256 nonneg = _mm256_cmp_ps(dp, _mm256_setzero_ps(), _CMP_GE_OQ);
    if (_mm256_movemask_ps(_mm256_andnot_ps(_mm256_or_ps(yes, no), nonneg)) == 0)
        return _mm256_castps_si256(_mm256_and_ps(yes, nonneg));
    const __m256d lo = within_4(_mm256_castps256_ps128(dp), _mm256_castps256_ps128(oo),
                                _mm256_castps256_ps128(tt));
    const __m256d hi = within_4(_mm256_extractf128_ps(dp, 1), _mm256_extractf128_ps(oo, 1),
                                _mm256_extractf128_ps(tt, 1));
    return pack_masks(lo, hi);
}

/* The angle test at scale 0. pmaddwd of 16-bit pairs is exact except for
 * 2^31 (all four -32768), which it returns as -2^31: no true value is
 * -2^31, so |float| of it is right wherever dp >= 0 can hold. */
static inline __m256i within_0(__m256i oh, __m256i ov, __m256i th, __m256i tv)
{
    const __m256i op = _mm256_blend_epi16(oh, _mm256_slli_epi32(ov, 16), 0xaa);
    const __m256i tp = _mm256_blend_epi16(th, _mm256_slli_epi32(tv, 16), 0xaa);
    const __m256i ot = _mm256_madd_epi16(op, tp);
    const __m256i min = _mm256_set1_epi32(INT32_MIN);
    const __m256i nonneg = _mm256_or_si256(_mm256_cmpgt_epi32(ot, _mm256_set1_epi32(-1)),
                                           _mm256_cmpeq_epi32(ot, min));
    const __m256 abs = _mm256_castsi256_ps(_mm256_set1_epi32(INT32_MAX));
    const __m256 dp = _mm256_and_ps(_mm256_cvtepi32_ps(ot), abs);
    const __m256 oo = _mm256_and_ps(_mm256_cvtepi32_ps(_mm256_madd_epi16(op, op)), abs);
    const __m256 tt = _mm256_and_ps(_mm256_cvtepi32_ps(_mm256_madd_epi16(tp, tp)), abs);
    return _mm256_and_si256(nonneg, cone_8(dp, oo, tt));
}

/* Restored value of one band at scale 0; *lim: lanes with k*o != 0. With
 * T = 2^30/o = th*2^15 + tl, (T*t + 2^14) >> 15 = th*t + ((tl*t + 2^14) >> 15)
 * exactly, both terms within 2^30 for 16-bit t. */
static inline __m256i restore_0(__m256i o, __m256i t, __m256i *lim)
{
    const __m256i mag = _mm256_max_epi32(_mm256_abs_epi32(o), _mm256_set1_epi32(1));
    const __m256i q = _mm256_sign_epi32(adm_div30_8(mag), o);
    const __m256i qh = _mm256_srai_epi32(q, 15);
    const __m256i ql = _mm256_and_si256(q, _mm256_set1_epi32(0x7fff));
    const __m256i low = _mm256_add_epi32(_mm256_mullo_epi32(ql, t), _mm256_set1_epi32(16384));
    __m256i k = _mm256_add_epi32(_mm256_mullo_epi32(qh, t), _mm256_srai_epi32(low, 15));
    k = _mm256_min_epi32(_mm256_max_epi32(k, _mm256_setzero_si256()), _mm256_set1_epi32(32768));
    const __m256i oz = _mm256_cmpeq_epi32(o, _mm256_setzero_si256());
    k = _mm256_blendv_epi8(k, _mm256_set1_epi32(32768), oz);
    *lim = _mm256_andnot_si256(_mm256_or_si256(oz, _mm256_cmpeq_epi32(k, _mm256_setzero_si256())),
                               _mm256_set1_epi32(-1));
    /* |k*o| <= 2^30: the result is within int16 */
    return _mm256_srai_epi32(_mm256_add_epi32(_mm256_mullo_epi32(k, o), _mm256_set1_epi32(16384)),
                             15);
}

/* min(r0*gain, t) where pos, else max, in double, truncated; 4 lanes. */
static inline __m128i limit_pd(__m128i r0, __m128i t, __m256d pos, __m256d gain)
{
    const __m256d g = _mm256_mul_pd(_mm256_cvtepi32_pd(r0), gain);
    const __m256d td = _mm256_cvtepi32_pd(t);
    const __m256d lo = _mm256_blendv_pd(td, g, _mm256_cmp_pd(g, td, _CMP_LT_OQ));
    const __m256d hi = _mm256_blendv_pd(td, g, _mm256_cmp_pd(g, td, _CMP_GT_OQ));
    return _mm256_cvttpd_epi32(_mm256_blendv_pd(hi, lo, pos));
}

/* A gain as the C applies it; exact: an integer whose product with any
 * 16-bit r0 fits int32 (then exact in double and in int32); one: 1, where
 * r0 * gain is r0 at any scale (VMAF NEG's gain). */
typedef struct Gain {
    __m256d d;
    __m256i i;
    bool exact, one;
} Gain;

static inline Gain gain_of(double g)
{
    const bool exact = fabs(g) <= 65535.0 && g == (double)(int32_t)g;
    return (Gain){_mm256_set1_pd(g), _mm256_set1_epi32(exact ? (int32_t)g : 0), exact, g == 1.0};
}

static inline __m256i limit_0(__m256i r0, __m256i t, __m256i pos, const Gain *g)
{
    if (g->exact) {
        const __m256i v = g->one ? r0 : _mm256_mullo_epi32(r0, g->i);
        return _mm256_blendv_epi8(_mm256_max_epi32(v, t), _mm256_min_epi32(v, t), pos);
    }
    const __m256i p64 = _mm256_cvtepi32_epi64(_mm256_castsi256_si128(pos));
    const __m256i q64 = _mm256_cvtepi32_epi64(_mm256_extracti128_si256(pos, 1));
    const __m128i lo = limit_pd(_mm256_castsi256_si128(r0), _mm256_castsi256_si128(t),
                                _mm256_castsi256_pd(p64), g->d);
    const __m128i hi = limit_pd(_mm256_extracti128_si256(r0, 1), _mm256_extracti128_si256(t, 1),
                                _mm256_castsi256_pd(q64), g->d);
    return _mm256_inserti128_si256(_mm256_castsi128_si256(lo), hi, 1);
}

static inline __m256i trunc16(__m256i v)
{
    return _mm256_srai_epi32(_mm256_slli_epi32(v, 16), 16);
}

static inline __m256i load8(const int32_t *p)
{
    return _mm256_loadu_si256((const __m256i *)p);
}

static void decouple8(const AdmBandRows *o, const AdmBandRows *t, unsigned x, const Gain *gain,
                      unsigned n, AdmBandRows *r, AdmBandRows *a)
{
    __m256i ov[3], tv[3];
    for (int b = 0; b < 3; b++) {
        ov[b] = load8(o->b[b] + x);
        tv[b] = load8(t->b[b] + x);
    }
    const __m256i aligned = within_0(ov[0], ov[1], tv[0], tv[1]);
    for (int b = 0; b < 3; b++) {
        __m256i lim;
        const __m256i r0 = restore_0(ov[b], tv[b], &lim);
        lim = _mm256_and_si256(lim, aligned);
        const __m256i pos = _mm256_cmpgt_epi32(ov[b], _mm256_setzero_si256());
        for (unsigned g = 0; g < n; g++) {
            const __m256i rv =
                trunc16(_mm256_blendv_epi8(r0, limit_0(r0, tv[b], pos, &gain[g]), lim));
            _mm256_storeu_si256((__m256i *)(r[g].b[b] + x), rv);
            _mm256_storeu_si256((__m256i *)(a[g].b[b] + x), trunc16(_mm256_sub_epi32(tv[b], rv)));
        }
    }
}

static void decouple_0_avx2(const AdmBandRows *o, const AdmBandRows *t, unsigned x0,
                            unsigned x1, const double *gain, unsigned n, AdmBandRows *r,
                            AdmBandRows *a)
{
    unsigned x = x0;
    for (unsigned g0 = 0; g0 < n; g0 += ADM_DSP_GAIN_CHUNK) {
        const unsigned k = n - g0 < ADM_DSP_GAIN_CHUNK ? n - g0 : ADM_DSP_GAIN_CHUNK;
        Gain g[ADM_DSP_GAIN_CHUNK];
        for (unsigned i = 0; i < k; i++)
            g[i] = gain_of(gain[g0 + i]);
        for (x = x0; x + 8 <= x1; x += 8)
            decouple8(o, t, x, g, k, r + g0, a + g0);
    }
    if (x < x1)
        vmaf_adm_decouple_0_c(o, t, x, x1, gain, n, r, a);
}

/* (float)v for int64 v, rounded once as cvtsi2ss does: |v| below 2^52
 * converts to double exactly; above, its low 12 bits only matter as a
 * sticky bit, kept in bit 0, and 2^12 * that is exact in double too. The
 * double then rounds to float as v would (53 bits leave room for the
 * rounding and sticky bits of a 24-bit result). */
static inline __m128 i64_to_ps(__m256i v)
{
    const __m256i zero = _mm256_setzero_si256();
    const __m256i sign = _mm256_cmpgt_epi64(zero, v);
    const __m256i mag = _mm256_sub_epi64(_mm256_xor_si256(v, sign), sign);
    const __m256i big = _mm256_cmpgt_epi64(_mm256_srli_epi64(mag, 52), zero);
    const __m256i low = _mm256_and_si256(mag, _mm256_set1_epi64x(0xfff));
    const __m256i sticky = _mm256_srli_epi64(_mm256_add_epi64(low, _mm256_set1_epi64x(0xfff)), 12);
    const __m256i shrunk = _mm256_or_si256(_mm256_srli_epi64(mag, 12), sticky);
    const __m256i m = _mm256_blendv_epi8(mag, shrunk, big);
    /* m < 2^52: 2^52 + m as a double's bits, less 2^52 */
    const __m256d two52 = _mm256_set1_pd(4503599627370496.0);
    __m256d d = _mm256_sub_pd(_mm256_castsi256_pd(_mm256_or_si256(m, _mm256_castpd_si256(two52))),
                              two52);
    d = _mm256_mul_pd(d, _mm256_blendv_pd(_mm256_set1_pd(1.0), _mm256_set1_pd(4096.0),
                                          _mm256_castsi256_pd(big)));
    d = _mm256_or_pd(d, _mm256_castsi256_pd(_mm256_slli_epi64(sign, 63)));
    return _mm256_cvtpd_ps(d);
}

/* The dot products of the angle test at scales 1..3 on 4 samples: int64
 * (wrapping), each rounded to float once. */
static inline void dots_s(__m128i oh, __m128i ov, __m128i th, __m128i tv, __m128 f[3])
{
    /* Below 2^25 (the values of pictures), the dot products are below 2^51
     * and exact in double: one rounding to float, as from int64. */
    const __m128i any = _mm_or_si128(_mm_or_si128(_mm_abs_epi32(oh), _mm_abs_epi32(ov)),
                                     _mm_or_si128(_mm_abs_epi32(th), _mm_abs_epi32(tv)));
    if (_mm_testz_si128(any, _mm_set1_epi32(~((1 << 25) - 1)))) {
        const __m256d h0 = _mm256_cvtepi32_pd(oh), v0 = _mm256_cvtepi32_pd(ov);
        const __m256d h1 = _mm256_cvtepi32_pd(th), v1 = _mm256_cvtepi32_pd(tv);
        f[0] = _mm256_cvtpd_ps(_mm256_add_pd(_mm256_mul_pd(h0, h1), _mm256_mul_pd(v0, v1)));
        f[1] = _mm256_cvtpd_ps(_mm256_add_pd(_mm256_mul_pd(h0, h0), _mm256_mul_pd(v0, v0)));
        f[2] = _mm256_cvtpd_ps(_mm256_add_pd(_mm256_mul_pd(h1, h1), _mm256_mul_pd(v1, v1)));
        return;
    }
    const __m256i h0 = _mm256_cvtepi32_epi64(oh), v0 = _mm256_cvtepi32_epi64(ov);
    const __m256i h1 = _mm256_cvtepi32_epi64(th), v1 = _mm256_cvtepi32_epi64(tv);
    f[0] = i64_to_ps(_mm256_add_epi64(_mm256_mul_epi32(h0, h1), _mm256_mul_epi32(v0, v1)));
    f[1] = i64_to_ps(_mm256_add_epi64(_mm256_mul_epi32(h0, h0), _mm256_mul_epi32(v0, v0)));
    f[2] = i64_to_ps(_mm256_add_epi64(_mm256_mul_epi32(h1, h1), _mm256_mul_epi32(v1, v1)));
}

static inline __m256i within_s(__m256i oh, __m256i ov, __m256i th, __m256i tv)
{
    __m128 lo[3], hi[3];
    dots_s(_mm256_castsi256_si128(oh), _mm256_castsi256_si128(ov), _mm256_castsi256_si128(th),
           _mm256_castsi256_si128(tv), lo);
    dots_s(_mm256_extracti128_si256(oh, 1), _mm256_extracti128_si256(ov, 1),
           _mm256_extracti128_si256(th, 1), _mm256_extracti128_si256(tv, 1), hi);
    return cone_8(_mm256_set_m128(hi[0], lo[0]), _mm256_set_m128(hi[1], lo[1]),
                  _mm256_set_m128(hi[2], lo[2]));
}

/* 17 - clz(|o|) for |o| >= 2^15, else 0: the exponent of |o| >> 8 as a
 * float (exact, below 2^24), less 14. */
static inline __m256i top_shift(__m256i mag)
{
    const __m256 f = _mm256_cvtepi32_ps(_mm256_srli_epi32(mag, 8));
    const __m256i e = _mm256_srli_epi32(_mm256_castps_si256(f), 23);
    return _mm256_max_epi32(_mm256_sub_epi32(e, _mm256_set1_epi32(127 - 8 + 14)),
                            _mm256_setzero_si256());
}

/* The 32-bit terms of k at scales 1..3: the quotient of |o| rounded to 15
 * bits, the rounding term (int32_t)(1u << (14 + sh)) (-2^31 at sh = 17),
 * the shift 15 + sh and the sign of o. */
typedef struct Quot {
    __m256i q, round, by, neg;
} Quot;

static inline Quot quot_of(__m256i o)
{
    const __m256i mag = _mm256_abs_epi32(o);
    const __m256i sh = top_shift(mag);
    const __m256i half = _mm256_srli_epi32(_mm256_sllv_epi32(_mm256_set1_epi32(1), sh), 1);
    const __m256i top = _mm256_srlv_epi32(_mm256_add_epi32(mag, half), sh);
    return (Quot){adm_div30_8(_mm256_max_epi32(top, _mm256_set1_epi32(1))),
                  _mm256_sllv_epi32(_mm256_set1_epi32(1 << 14), sh),
                  _mm256_add_epi32(sh, _mm256_set1_epi32(15)),
                  _mm256_cmpgt_epi32(_mm256_setzero_si256(), o)};
}

static inline __m256i half64(__m256i v, int h)
{
    return _mm256_cvtepi32_epi64(h ? _mm256_extracti128_si256(v, 1) : _mm256_castsi256_si128(v));
}

/* k of samples 4h..4h+3 in 64-bit lanes, and (k*o + 2^14) >> 15 in the low
 * halves of *r0. A negative sum clamps to 0 whatever the shift, so the
 * shift can be logical. At o = 0, r0 is 0 whatever k. */
static inline __m256i quotient4(const Quot *u, __m256i o, __m256i t, int h, __m256i *r0)
{
    const __m256i neg = half64(u->neg, h);
    __m256i p = _mm256_mul_epi32(half64(u->q, h), half64(t, h));
    p = _mm256_add_epi64(_mm256_sub_epi64(_mm256_xor_si256(p, neg), neg), half64(u->round, h));
    __m256i k = _mm256_andnot_si256(_mm256_cmpgt_epi64(_mm256_setzero_si256(), p),
                                    _mm256_srlv_epi64(p, half64(u->by, h)));
    const __m256i max = _mm256_set1_epi64x(32768);
    k = _mm256_blendv_epi8(k, max, _mm256_cmpgt_epi64(k, max));
    const __m256i ko = _mm256_mul_epi32(k, half64(o, h));
    *r0 = _mm256_srli_epi64(_mm256_add_epi64(ko, _mm256_set1_epi64x(16384)), 15);
    return k;
}

/* The low 32 bits of the 64-bit lanes of a (samples 0..3) and b (4..7). */
static inline __m256i pack64(__m256i a, __m256i b)
{
    return pack_masks(_mm256_castsi256_pd(a), _mm256_castsi256_pd(b));
}

/* Restored value of one band at scales 1..3; *lim: lanes with k*o != 0. */
static inline __m256i restore_s(__m256i o, __m256i t, __m256i *lim)
{
    const Quot u = quot_of(o);
    __m256i r0[2];
    const __m256i k0 = quotient4(&u, o, t, 0, &r0[0]), k1 = quotient4(&u, o, t, 1, &r0[1]);
    const __m256i zero = _mm256_setzero_si256();
    const __m256i kz = pack64(_mm256_cmpeq_epi64(k0, zero), _mm256_cmpeq_epi64(k1, zero));
    *lim = _mm256_andnot_si256(_mm256_or_si256(kz, _mm256_cmpeq_epi32(o, zero)),
                               _mm256_set1_epi32(-1));
    return pack64(r0[0], r0[1]);
}

/* The gain limit of 8 samples at scales 1..3, in double unless it is 1. */
static inline __m256i limit_s(__m256i r0, __m256i t, __m256i pos, const Gain *g)
{
    if (g->one)
        return _mm256_blendv_epi8(_mm256_max_epi32(r0, t), _mm256_min_epi32(r0, t), pos);
    const __m128i lo = limit_pd(_mm256_castsi256_si128(r0), _mm256_castsi256_si128(t),
                                _mm256_castsi256_pd(half64(pos, 0)), g->d);
    const __m128i hi = limit_pd(_mm256_extracti128_si256(r0, 1), _mm256_extracti128_si256(t, 1),
                                _mm256_castsi256_pd(half64(pos, 1)), g->d);
    return _mm256_inserti128_si256(_mm256_castsi128_si256(lo), hi, 1);
}

static void decouple8_s(const AdmBandRows *o, const AdmBandRows *t, unsigned x, const Gain *gain,
                        unsigned n, AdmBandRows *r, AdmBandRows *a)
{
    __m256i ov[3], tv[3];
    for (int b = 0; b < 3; b++) {
        ov[b] = load8(o->b[b] + x);
        tv[b] = load8(t->b[b] + x);
    }
    const __m256i aligned = within_s(ov[0], ov[1], tv[0], tv[1]);
    for (int b = 0; b < 3; b++) {
        __m256i lim;
        const __m256i r0 = restore_s(ov[b], tv[b], &lim);
        const __m256i use = _mm256_and_si256(lim, aligned);
        const __m256i pos = _mm256_cmpgt_epi32(ov[b], _mm256_setzero_si256());
        for (unsigned g = 0; g < n; g++) {
            const __m256i rv = _mm256_blendv_epi8(r0, limit_s(r0, tv[b], pos, &gain[g]), use);
            _mm256_storeu_si256((__m256i *)(r[g].b[b] + x), rv);
            _mm256_storeu_si256((__m256i *)(a[g].b[b] + x), _mm256_sub_epi32(tv[b], rv));
        }
    }
}

static void decouple_s_avx2(const AdmBandRows *o, const AdmBandRows *t, unsigned x0,
                            unsigned x1, const double *gain, unsigned n, AdmBandRows *r,
                            AdmBandRows *a)
{
    unsigned x = x0;
    for (unsigned g0 = 0; g0 < n; g0 += ADM_DSP_GAIN_CHUNK) {
        const unsigned k = n - g0 < ADM_DSP_GAIN_CHUNK ? n - g0 : ADM_DSP_GAIN_CHUNK;
        Gain g[ADM_DSP_GAIN_CHUNK];
        for (unsigned i = 0; i < k; i++)
            g[i] = gain_of(gain[g0 + i]);
        for (x = x0; x + 8 <= x1; x += 8)
            decouple8_s(o, t, x, g, k, r + g0, a + g0);
    }
    if (x < x1)
        vmaf_adm_decouple_s_c(o, t, x, x1, gain, n, r, a);
}

void vmaf_adm_dsp_init_decouple_avx2(AdmDsp *dsp)
{
    dsp->decouple_0 = decouple_0_avx2;
    dsp->decouple_s = decouple_s_avx2;
}
