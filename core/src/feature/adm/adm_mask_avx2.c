/*
 * CSF weighting and contrast masking with AVX2 (AdmDsp.csf_0/csf_s, sum3,
 * cm_0/cm_s; contracts in adm_dsp.h), the same bits as adm_mask_c.c; the
 * columns after the last full vector go to the C entries.
 *
 * 8 samples per step in 32-bit lanes; where the C widens to 64 bits, the
 * even and odd lanes go through pmuldq/pmuludq separately and come back
 * with a blend. The masking sums are int64 and wrap, so their order is free.
 */
#include <immintrin.h>
#include <stdint.h>

#include "feature/adm/adm_dsp.h"
#include "feature/adm/adm_dsp_c.h"
#include "feature/adm/adm_dsp_x86.h"

static inline __m256i load(const int32_t *p)
{
    return _mm256_loadu_si256((const __m256i *)p);
}

/* f and c of one scale-0 band from its weighted value y (int16): with
 * p = 4369*|y| = |pmaddwd(y, 4369)|, f = (int16)((p + 2048) >> 12) and
 * c = (int16)((2p + 2048) >> 12), each bits 12..27 of the sum, which shifting
 * left by 4 and arithmetically right by 16 takes and sign-extends. */
static inline void fc_0(__m256i y, __m256i *f, __m256i *c)
{
    const __m256i p = _mm256_abs_epi32(_mm256_madd_epi16(y, _mm256_set1_epi32(4369)));
    const __m256i r = _mm256_set1_epi32(2048 << 4);
    *f = _mm256_add_epi32(*f, _mm256_srai_epi32(_mm256_add_epi32(_mm256_slli_epi32(p, 4), r), 16));
    *c = _mm256_add_epi32(*c, _mm256_srai_epi32(_mm256_add_epi32(_mm256_slli_epi32(p, 5), r), 16));
}

/* y of the h and v bands: (int16)((q*s + 16384) >> 15), bits 15..30; of
 * the d band (q*s + 65535) >> 17, which fits int16 as it is. */
static inline __m256i weigh_0(__m256i v, int b)
{
    if (b == 2)
        return _mm256_srai_epi32(_mm256_add_epi32(v, _mm256_set1_epi32(65535)), 17);
    v = _mm256_add_epi32(v, _mm256_set1_epi32(16384));
    return _mm256_srai_epi32(_mm256_slli_epi32(v, 1), 16);
}

static void csf_0_avx2(const AdmBandRows *s, unsigned x0, unsigned x1, const uint32_t q[3],
                       int32_t *f, int32_t *c)
{
    unsigned x = x0;
    for (; x + 8 <= x1; x += 8) {
        __m256i fs = _mm256_setzero_si256(), cs = _mm256_setzero_si256();
        for (int b = 0; b < 3; b++) {
            const __m256i v = _mm256_mullo_epi32(load(s->b[b] + x),
                                                 _mm256_set1_epi32((int32_t)q[b]));
            fc_0(weigh_0(v, b), &fs, &cs);
        }
        _mm256_storeu_si256((__m256i *)(f + x), fs);
        _mm256_storeu_si256((__m256i *)(c + x), cs);
    }
    if (x < x1)
        vmaf_adm_csf_0_c(s, x, x1, q, f, c);
}

/* (int32)((q*s + 2^27) >> 28) with q unsigned: pmuldq reads q as signed,
 * which is q - 2^32 from 2^31 on; there (wide, qhi all ones) s*2^32 is
 * added back. The weights of the scales 1..3 are below 2^31 in practice. */
static inline __m256i weigh_s(__m256i s, __m256i q, __m256i qhi, int wide)
{
    const __m256i r = _mm256_set1_epi64x(1 << 27);
    const __m256i so = _mm256_srli_epi64(s, 32);
    __m256i e = _mm256_mul_epi32(s, q), o = _mm256_mul_epi32(so, q);
    if (wide) {
        e = _mm256_add_epi64(e, _mm256_and_si256(_mm256_slli_epi64(s, 32), qhi));
        o = _mm256_add_epi64(o, _mm256_and_si256(_mm256_slli_epi64(so, 32), qhi));
    }
    return _mm256_blend_epi32(_mm256_srli_epi64(_mm256_add_epi64(e, r), 28),
                              _mm256_slli_epi64(_mm256_add_epi64(o, r), 4), 0xaa);
}

/* (int32)((k*a - 2^31) >> 32) for int32 a: the high halves. */
static inline __m256i mulhi_round(__m256i a, __m256i k)
{
    const __m256i r = _mm256_set1_epi64x(-2147483648ll);
    const __m256i e = _mm256_add_epi64(_mm256_mul_epi32(a, k), r);
    const __m256i o = _mm256_add_epi64(_mm256_mul_epi32(_mm256_srli_epi64(a, 32), k), r);
    return _mm256_blend_epi32(_mm256_srli_epi64(e, 32), o, 0xaa);
}

ADM_INLINE void csf_s_row(const AdmBandRows *s, unsigned x0, unsigned x1, const uint32_t q[3],
                          int32_t *f, int32_t *c, int wide)
{
    const __m256i kf = _mm256_set1_epi64x(143165577), kc = _mm256_set1_epi64x(286331153);
    unsigned x = x0;
    for (; x + 8 <= x1; x += 8) {
        __m256i fs = _mm256_setzero_si256(), cs = _mm256_setzero_si256();
        for (int b = 0; b < 3; b++) {
            const __m256i qv = _mm256_set1_epi64x((int32_t)q[b]);
            const __m256i qhi = _mm256_set1_epi64x(q[b] >> 31 ? -1 : 0);
            /* |INT32_MIN| stays negative, as in the C */
            const __m256i ay = _mm256_abs_epi32(weigh_s(load(s->b[b] + x), qv, qhi, wide));
            fs = _mm256_add_epi32(fs, mulhi_round(ay, kf));
            cs = _mm256_add_epi32(cs, mulhi_round(ay, kc));
        }
        _mm256_storeu_si256((__m256i *)(f + x), fs);
        _mm256_storeu_si256((__m256i *)(c + x), cs);
    }
    if (x < x1)
        vmaf_adm_csf_s_c(s, x, x1, q, f, c);
}

static void csf_s_avx2(const AdmBandRows *s, unsigned x0, unsigned x1, const uint32_t q[3],
                       int32_t *f, int32_t *c)
{
    if ((q[0] | q[1] | q[2]) >> 31)
        csf_s_row(s, x0, x1, q, f, c, 1);
    else
        csf_s_row(s, x0, x1, q, f, c, 0);
}

static void sum3_avx2(const int32_t *f, unsigned x0, unsigned x1, int32_t *out)
{
    unsigned x = x0;
    for (; x + 8 <= x1; x += 8) {
        const __m256i s = _mm256_add_epi32(load(f + x - 1), load(f + x));
        _mm256_storeu_si256((__m256i *)(out + x), _mm256_add_epi32(s, load(f + x + 1)));
    }
    if (x < x1)
        vmaf_adm_sum3_c(f, x, x1, out);
}

/* AVX2 has no 64-bit arithmetic shift. The squares are truncated to int32,
 * which a logical shift gives up to a shift of 32 (larger ones go to C).
 * The cubes are signed: with v + 2^63 in place of v, the logical shift
 * gives (v >> k) + 2^(63-k), and the sums lose that once per sample. */
typedef struct CubeRound {
    __m256i sq_add, cub_add;
    __m128i sub, sq_shift, cub_shift;
    uint64_t bias;
} CubeRound;

static inline int cube_rounds(const AdmCmRound *rnd, CubeRound r[3])
{
    int ok = 1;
    for (int b = 0; b < 3; b++) {
        ok &= rnd->sq_shift[b] <= 32;
        const uint64_t add = (uint64_t)rnd->cub_add[b] + (1ull << 63);
        r[b] = (CubeRound){_mm256_set1_epi64x(rnd->sq_add[b]), _mm256_set1_epi64x((int64_t)add),
                           _mm_cvtsi32_si128((int)rnd->sub[b]),
                           _mm_cvtsi32_si128((int)rnd->sq_shift[b]),
                           _mm_cvtsi32_si128((int)rnd->cub_shift[b]),
                           (1ull << 63) >> rnd->cub_shift[b]};
    }
    return ok;
}

static inline __m256i cube(__m256i x, const CubeRound *r)
{
    const __m256i sq = _mm256_srl_epi64(_mm256_add_epi64(_mm256_mul_epu32(x, x), r->sq_add),
                                        r->sq_shift);
    return _mm256_srl_epi64(_mm256_add_epi64(_mm256_mul_epi32(sq, x), r->cub_add), r->cub_shift);
}

/* Adds the (biased) masked cubes of one band, mag = |s*q|, to acc. */
static inline __m256i mask_band(__m256i acc, __m256i mag, __m256i thr, const CubeRound *r)
{
    const __m256i x = _mm256_max_epi32(_mm256_sub_epi32(mag, _mm256_sll_epi32(thr, r->sub)),
                                       _mm256_setzero_si256());
    acc = _mm256_add_epi64(acc, cube(x, r));
    return _mm256_add_epi64(acc, cube(_mm256_srli_epi64(x, 32), r));
}

static inline __m256i threshold(const AdmThrRows *t, unsigned x)
{
    const __m256i s = _mm256_add_epi32(_mm256_add_epi32(load(t->up + x), load(t->mid + x)),
                                       load(t->down + x));
    return _mm256_add_epi32(_mm256_sub_epi32(s, load(t->f + x)), load(t->c + x));
}

/* The sums of acc less the bias of n samples, plus those of the C tail. */
static inline void finish(const __m256i acc[3], const CubeRound r[3], unsigned n,
                          const int64_t tail[3], int64_t sum[3])
{
    for (int b = 0; b < 3; b++) {
        const __m128i s = _mm_add_epi64(_mm256_castsi256_si128(acc[b]),
                                        _mm256_extracti128_si256(acc[b], 1));
        const uint64_t v = (uint64_t)_mm_cvtsi128_si64(s) + (uint64_t)_mm_extract_epi64(s, 1);
        sum[b] = (int64_t)(v - r[b].bias * n + (uint64_t)tail[b]);
    }
}

static void cm_0_avx2(const AdmBandRows *s, const uint32_t q[3], const AdmThrRows *t,
                      unsigned x0, unsigned x1, const AdmCmRound *rnd, int64_t sum[3])
{
    CubeRound r[3];
    unsigned x = x0;
    __m256i acc[3] = {_mm256_setzero_si256(), _mm256_setzero_si256(), _mm256_setzero_si256()};
    for (int ok = cube_rounds(rnd, r); ok && x + 8 <= x1; x += 8) {
        const __m256i thr = threshold(t, x);
        for (int b = 0; b < 3; b++) {
            const __m256i v = _mm256_mullo_epi32(load(s->b[b] + x),
                                                 _mm256_set1_epi32((int32_t)q[b]));
            acc[b] = mask_band(acc[b], _mm256_abs_epi32(v), thr, &r[b]);
        }
    }
    int64_t tail[3] = {0, 0, 0};
    if (x < x1)
        vmaf_adm_cm_0_c(s, q, t, x, x1, rnd, tail);
    finish(acc, r, x - x0, tail, sum);
}

ADM_INLINE void cm_s_row(const AdmBandRows *s, const uint32_t q[3], const AdmThrRows *t,
                         unsigned x0, unsigned x1, const AdmCmRound *rnd, int64_t sum[3],
                         int wide)
{
    CubeRound r[3];
    __m256i qv[3], qhi[3];
    for (int b = 0; b < 3; b++) {
        qv[b] = _mm256_set1_epi64x((int32_t)q[b]);
        qhi[b] = _mm256_set1_epi64x(q[b] >> 31 ? -1 : 0);
    }
    unsigned x = x0;
    __m256i acc[3] = {_mm256_setzero_si256(), _mm256_setzero_si256(), _mm256_setzero_si256()};
    for (int ok = cube_rounds(rnd, r); ok && x + 8 <= x1; x += 8) {
        const __m256i thr = threshold(t, x);
        for (int b = 0; b < 3; b++) {
            const __m256i v = weigh_s(load(s->b[b] + x), qv[b], qhi[b], wide);
            acc[b] = mask_band(acc[b], _mm256_abs_epi32(v), thr, &r[b]);
        }
    }
    int64_t tail[3] = {0, 0, 0};
    if (x < x1)
        vmaf_adm_cm_s_c(s, q, t, x, x1, rnd, tail);
    finish(acc, r, x - x0, tail, sum);
}

static void cm_s_avx2(const AdmBandRows *s, const uint32_t q[3], const AdmThrRows *t,
                      unsigned x0, unsigned x1, const AdmCmRound *rnd, int64_t sum[3])
{
    if ((q[0] | q[1] | q[2]) >> 31)
        cm_s_row(s, q, t, x0, x1, rnd, sum, 1);
    else
        cm_s_row(s, q, t, x0, x1, rnd, sum, 0);
}

void vmaf_adm_dsp_init_mask_avx2(AdmDsp *dsp)
{
    dsp->csf_0 = csf_0_avx2;
    dsp->csf_s = csf_s_avx2;
    dsp->sum3 = sum3_avx2;
    dsp->cm_0 = cm_0_avx2;
    dsp->cm_s = cm_s_avx2;
}
