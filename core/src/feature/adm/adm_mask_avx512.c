/*
 * CSF weighting and contrast masking with AVX-512 (AdmDsp.csf_0/csf_s,
 * sum3, cm_0/cm_s; contracts in adm_dsp.h), the same bits as adm_mask_c.c.
 *
 * 16 samples per step in 32-bit lanes; where the C widens to 64 bits, the
 * even and odd lanes go through pmuldq/pmuludq separately and come back
 * with a blend. The masking sums are int64 and wrap, so their order is free.
 */
#include <immintrin.h>
#include <stdint.h>

#include "feature/adm/adm_dsp.h"
#include "feature/adm/adm_dsp_x86.h"

static inline __mmask16 tail16(unsigned n)
{
    return n >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << n) - 1);
}

static inline __m512i load(__mmask16 m, const int32_t *p)
{
    return _mm512_maskz_loadu_epi32(m, p);
}

/* f and c of one scale-0 band from its weighted value y (int16): with
 * p = 4369*|y| = |pmaddwd(y, 4369)|, f = (int16)((p + 2048) >> 12) and
 * c = (int16)((2p + 2048) >> 12), each bits 12..27 of the sum, which shifting
 * left by 4 and arithmetically right by 16 takes and sign-extends. */
static inline void fc_0(__m512i y, __m512i *f, __m512i *c)
{
    const __m512i p = _mm512_abs_epi32(_mm512_madd_epi16(y, _mm512_set1_epi32(4369)));
    const __m512i r = _mm512_set1_epi32(2048 << 4);
    *f = _mm512_add_epi32(*f, _mm512_srai_epi32(_mm512_add_epi32(_mm512_slli_epi32(p, 4), r), 16));
    *c = _mm512_add_epi32(*c, _mm512_srai_epi32(_mm512_add_epi32(_mm512_slli_epi32(p, 5), r), 16));
}

/* y of the h and v bands: (int16)((q*s + 16384) >> 15), bits 15..30; of
 * the d band (q*s + 65535) >> 17, which fits int16 as it is. */
static inline __m512i weigh_0(__m512i v, int b)
{
    if (b == 2)
        return _mm512_srai_epi32(_mm512_add_epi32(v, _mm512_set1_epi32(65535)), 17);
    v = _mm512_add_epi32(v, _mm512_set1_epi32(16384));
    return _mm512_srai_epi32(_mm512_slli_epi32(v, 1), 16);
}

static void csf_0_avx512(const AdmBandRows *s, unsigned x0, unsigned x1, const uint32_t q[3],
                         int32_t *f, int32_t *c)
{
    for (unsigned x = x0; x < x1; x += 16) {
        const __mmask16 m = tail16(x1 - x);
        __m512i fs = _mm512_setzero_si512(), cs = _mm512_setzero_si512();
        for (int b = 0; b < 3; b++) {
            const __m512i v = _mm512_mullo_epi32(load(m, s->b[b] + x),
                                                 _mm512_set1_epi32((int32_t)q[b]));
            fc_0(weigh_0(v, b), &fs, &cs);
        }
        _mm512_mask_storeu_epi32(f + x, m, fs);
        _mm512_mask_storeu_epi32(c + x, m, cs);
    }
}

/* (int32)((q*s + 2^27) >> 28) with q unsigned: pmuldq reads q as signed,
 * which is q - 2^32 from 2^31 on; there (wide, qhi all ones) s*2^32 is
 * added back. The weights of the scales 1..3 are below 2^31 in practice. */
static inline __m512i weigh_s(__m512i s, __m512i q, __m512i qhi, int wide)
{
    const __m512i r = _mm512_set1_epi64(1 << 27);
    const __m512i so = _mm512_srli_epi64(s, 32);
    __m512i e = _mm512_mul_epi32(s, q), o = _mm512_mul_epi32(so, q);
    if (wide) {
        e = _mm512_add_epi64(e, _mm512_and_si512(_mm512_slli_epi64(s, 32), qhi));
        o = _mm512_add_epi64(o, _mm512_and_si512(_mm512_slli_epi64(so, 32), qhi));
    }
    return _mm512_mask_blend_epi32(0xaaaa, _mm512_srli_epi64(_mm512_add_epi64(e, r), 28),
                                   _mm512_slli_epi64(_mm512_add_epi64(o, r), 4));
}

/* (int32)((k*a - 2^31) >> 32) for int32 a: the high halves. */
static inline __m512i mulhi_round(__m512i a, __m512i k)
{
    const __m512i r = _mm512_set1_epi64(-2147483648ll);
    const __m512i e = _mm512_add_epi64(_mm512_mul_epi32(a, k), r);
    const __m512i o = _mm512_add_epi64(_mm512_mul_epi32(_mm512_srli_epi64(a, 32), k), r);
    return _mm512_mask_blend_epi32(0xaaaa, _mm512_srli_epi64(e, 32), o);
}

ADM_INLINE void csf_s_row(const AdmBandRows *s, unsigned x0, unsigned x1, const uint32_t q[3],
                          int32_t *f, int32_t *c, int wide)
{
    const __m512i kf = _mm512_set1_epi64(143165577), kc = _mm512_set1_epi64(286331153);
    for (unsigned x = x0; x < x1; x += 16) {
        const __mmask16 m = tail16(x1 - x);
        __m512i fs = _mm512_setzero_si512(), cs = _mm512_setzero_si512();
        for (int b = 0; b < 3; b++) {
            const __m512i qv = _mm512_set1_epi64((int32_t)q[b]);
            const __m512i qhi = _mm512_set1_epi64(q[b] >> 31 ? -1 : 0);
            /* |INT32_MIN| stays negative, as in the C */
            const __m512i ay = _mm512_abs_epi32(weigh_s(load(m, s->b[b] + x), qv, qhi, wide));
            fs = _mm512_add_epi32(fs, mulhi_round(ay, kf));
            cs = _mm512_add_epi32(cs, mulhi_round(ay, kc));
        }
        _mm512_mask_storeu_epi32(f + x, m, fs);
        _mm512_mask_storeu_epi32(c + x, m, cs);
    }
}

static void csf_s_avx512(const AdmBandRows *s, unsigned x0, unsigned x1, const uint32_t q[3],
                         int32_t *f, int32_t *c)
{
    if ((q[0] | q[1] | q[2]) >> 31)
        csf_s_row(s, x0, x1, q, f, c, 1);
    else
        csf_s_row(s, x0, x1, q, f, c, 0);
}

static void sum3_avx512(const int32_t *f, unsigned x0, unsigned x1, int32_t *out)
{
    for (unsigned x = x0; x < x1; x += 16) {
        const __mmask16 m = tail16(x1 - x);
        const __m512i s = _mm512_add_epi32(load(m, f + x - 1), load(m, f + x));
        _mm512_mask_storeu_epi32(out + x, m, _mm512_add_epi32(s, load(m, f + x + 1)));
    }
}

typedef struct CubeRound {
    __m512i sq_add, cub_add;
    __m128i sub, sq_shift, cub_shift;
} CubeRound;

static inline void cube_rounds(const AdmCmRound *rnd, CubeRound r[3])
{
    for (int b = 0; b < 3; b++) {
        r[b] = (CubeRound){_mm512_set1_epi64(rnd->sq_add[b]), _mm512_set1_epi64(rnd->cub_add[b]),
                           _mm_cvtsi32_si128((int)rnd->sub[b]),
                           _mm_cvtsi32_si128((int)rnd->sq_shift[b]),
                           _mm_cvtsi32_si128((int)rnd->cub_shift[b])};
    }
}

/* One lane set's ((x*x + sq_add) >> sq_shift, truncated to int32) * x,
 * + cub_add, >> cub_shift, from the low halves of the 64-bit lanes. */
static inline __m512i cube(__m512i x, const CubeRound *r)
{
    const __m512i sq = _mm512_sra_epi64(_mm512_add_epi64(_mm512_mul_epu32(x, x), r->sq_add),
                                        r->sq_shift);
    return _mm512_sra_epi64(_mm512_add_epi64(_mm512_mul_epi32(sq, x), r->cub_add), r->cub_shift);
}

/* Adds the masked cubes of one band (mag = |s*q|) to acc; me, mo: the
 * even and odd lanes within the row. */
static inline __m512i mask_band(__m512i acc, __m512i mag, __m512i thr, const CubeRound *r,
                                __mmask8 me, __mmask8 mo)
{
    const __m512i x = _mm512_max_epi32(_mm512_sub_epi32(mag, _mm512_sll_epi32(thr, r->sub)),
                                       _mm512_setzero_si512());
    acc = _mm512_mask_add_epi64(acc, me, acc, cube(x, r));
    return _mm512_mask_add_epi64(acc, mo, acc, cube(_mm512_srli_epi64(x, 32), r));
}

static inline __m512i threshold(const AdmThrRows *t, unsigned x, __mmask16 m)
{
    const __m512i s = _mm512_add_epi32(_mm512_add_epi32(load(m, t->up + x), load(m, t->mid + x)),
                                       load(m, t->down + x));
    return _mm512_add_epi32(_mm512_sub_epi32(s, load(m, t->f + x)), load(m, t->c + x));
}

/* The sum of the 64-bit lanes, wrapping (gcc's _mm512_reduce_add_epi64
 * adds as signed). */
static inline int64_t sum_lanes(__m512i v)
{
    const __m256i a = _mm256_add_epi64(_mm512_castsi512_si256(v), _mm512_extracti64x4_epi64(v, 1));
    const __m128i b = _mm_add_epi64(_mm256_castsi256_si128(a), _mm256_extracti128_si256(a, 1));
    return (int64_t)((uint64_t)_mm_cvtsi128_si64(b) + (uint64_t)_mm_extract_epi64(b, 1));
}

static inline void lanes_of(unsigned left, __mmask8 *me, __mmask8 *mo)
{
    *me = left >= 16 ? 0xff : (__mmask8)((1u << ((left + 1) / 2)) - 1);
    *mo = left >= 16 ? 0xff : (__mmask8)((1u << (left / 2)) - 1);
}

static void cm_0_avx512(const AdmBandRows *s, const uint32_t q[3], const AdmThrRows *t,
                        unsigned x0, unsigned x1, const AdmCmRound *rnd, int64_t sum[3])
{
    CubeRound r[3];
    cube_rounds(rnd, r);
    __m512i acc[3] = {_mm512_setzero_si512(), _mm512_setzero_si512(), _mm512_setzero_si512()};
    for (unsigned x = x0; x < x1; x += 16) {
        const __mmask16 m = tail16(x1 - x);
        __mmask8 me, mo;
        lanes_of(x1 - x, &me, &mo);
        const __m512i thr = threshold(t, x, m);
        for (int b = 0; b < 3; b++) {
            const __m512i v = _mm512_mullo_epi32(load(m, s->b[b] + x),
                                                 _mm512_set1_epi32((int32_t)q[b]));
            acc[b] = mask_band(acc[b], _mm512_abs_epi32(v), thr, &r[b], me, mo);
        }
    }
    for (int b = 0; b < 3; b++)
        sum[b] = sum_lanes(acc[b]);
}

ADM_INLINE void cm_s_row(const AdmBandRows *s, const uint32_t q[3], const AdmThrRows *t,
                         unsigned x0, unsigned x1, const AdmCmRound *rnd, int64_t sum[3],
                         int wide)
{
    CubeRound r[3];
    cube_rounds(rnd, r);
    __m512i qv[3], qhi[3];
    for (int b = 0; b < 3; b++) {
        qv[b] = _mm512_set1_epi64((int32_t)q[b]);
        qhi[b] = _mm512_set1_epi64(q[b] >> 31 ? -1 : 0);
    }
    __m512i acc[3] = {_mm512_setzero_si512(), _mm512_setzero_si512(), _mm512_setzero_si512()};
    for (unsigned x = x0; x < x1; x += 16) {
        const __mmask16 m = tail16(x1 - x);
        __mmask8 me, mo;
        lanes_of(x1 - x, &me, &mo);
        const __m512i thr = threshold(t, x, m);
        for (int b = 0; b < 3; b++) {
            const __m512i v = weigh_s(load(m, s->b[b] + x), qv[b], qhi[b], wide);
            acc[b] = mask_band(acc[b], _mm512_abs_epi32(v), thr, &r[b], me, mo);
        }
    }
    for (int b = 0; b < 3; b++)
        sum[b] = sum_lanes(acc[b]);
}

static void cm_s_avx512(const AdmBandRows *s, const uint32_t q[3], const AdmThrRows *t,
                        unsigned x0, unsigned x1, const AdmCmRound *rnd, int64_t sum[3])
{
    if ((q[0] | q[1] | q[2]) >> 31)
        cm_s_row(s, q, t, x0, x1, rnd, sum, 1);
    else
        cm_s_row(s, q, t, x0, x1, rnd, sum, 0);
}

void vmaf_adm_dsp_init_mask_avx512(AdmDsp *dsp)
{
    dsp->csf_0 = csf_0_avx512;
    dsp->csf_s = csf_s_avx512;
    dsp->sum3 = sum3_avx512;
    dsp->cm_0 = cm_0_avx512;
    dsp->cm_s = cm_s_avx512;
}
