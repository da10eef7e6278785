/*
 * The vertical passes of the integer VIF (stat_v_8, stat_v_16, dec_v_8,
 * dec_v_16; vif_dsp.h) with AVX-512 (F, BW), 32 columns a step; the
 * arithmetic is vif_vfilter_avx2.c's (pairs of rows through pmaddwd, the
 * samples offset into int16, the offsets' share added back at the end).
 * The last columns are loaded and stored under a mask.
 */
#include <immintrin.h>
#include <stdint.h>

#include "feature/vif/vif_x86.h"

#define AINLINE inline __attribute__((always_inline))

/* Columns j .. j + 31 of a row, those at or past w masked (mask m). */
static AINLINE __m512i load8(const uint8_t *p, __mmask32 m)
{
    return _mm512_cvtepu8_epi16(_mm256_maskz_loadu_epi8(m, p));
}

static AINLINE __m512i load16(const uint16_t *p, __mmask32 m)
{
    return _mm512_maskz_loadu_epi16(m, p);
}

static AINLINE __m512i pair_coef(VifTapPair tp)
{
    return _mm512_set1_epi32((int)((uint32_t)(uint16_t)tp.c0 | (uint32_t)tp.c1 << 16));
}

/* Rounded shift of 32-bit sums to 16 bits (C's cast); lo and hi hold
 * columns 0-3, 8-11, ... and 4-7, 12-15, ...: the pack puts them in order. */
static AINLINE void round_store16(uint16_t *p, __mmask32 m, __m512i lo, __m512i hi, __m512i rnd,
                                  __m128i sh)
{
    const __m512i low = _mm512_set1_epi32(0xffff);
    lo = _mm512_and_si512(_mm512_srl_epi32(_mm512_add_epi32(lo, rnd), sh), low);
    hi = _mm512_and_si512(_mm512_srl_epi32(_mm512_add_epi32(hi, rnd), sh), low);
    _mm512_mask_storeu_epi16(p, m, _mm512_packus_epi32(lo, hi));
}

/* Two such halves of 32-bit values stored in column order. */
static AINLINE void store_halves32(uint32_t *p, __mmask32 m, __m512i lo, __m512i hi)
{
    const __m512i first = _mm512_setr_epi64(0, 1, 8, 9, 2, 3, 10, 11);
    const __m512i second = _mm512_setr_epi64(4, 5, 12, 13, 6, 7, 14, 15);
    _mm512_mask_storeu_epi32(p, (__mmask16)m, _mm512_permutex2var_epi64(lo, first, hi));
    _mm512_mask_storeu_epi32(p + 16, (__mmask16)(m >> 16),
                             _mm512_permutex2var_epi64(lo, second, hi));
}

/* --- statistic, 8-bit: sums of a - 128 (see vif_vfilter_avx2.c) ---------- */

typedef struct Sums8 {
    __m512i t1, t2, t11, t22, t12;
} Sums8;

static AINLINE void madd5(Sums8 *s, __m512i a, __m512i b, __m512i c)
{
    s->t1 = _mm512_add_epi32(s->t1, _mm512_madd_epi16(a, c));
    s->t2 = _mm512_add_epi32(s->t2, _mm512_madd_epi16(b, c));
    s->t11 = _mm512_add_epi32(s->t11, _mm512_madd_epi16(_mm512_mullo_epi16(a, a), c));
    s->t22 = _mm512_add_epi32(s->t22, _mm512_madd_epi16(_mm512_mullo_epi16(b, b), c));
    s->t12 = _mm512_add_epi32(s->t12, _mm512_madd_epi16(_mm512_mullo_epi16(a, b), c));
}

static AINLINE __m512i square_sum8(__m512i t11, __m512i linear, __m512i rnd, __m128i sh)
{
    const __m512i s = _mm512_add_epi32(_mm512_add_epi32(t11, linear), _mm512_set1_epi32(1 << 30));
    return _mm512_srl_epi32(_mm512_add_epi32(s, rnd), sh);
}

static AINLINE void stat_v8_block(const uint8_t *const *ref, const uint8_t *const *dis,
                                  const unsigned f, unsigned j, __mmask32 m, __m512i rnd_mu,
                                  __m128i sh_mu, __m512i rnd_sq, __m128i sh_sq,
                                  const VifStatRow *out)
{
    const __m512i off = _mm512_set1_epi16(128);
    Sums8 lo = {0}, hi = {0};
    for (unsigned p = 0; p < VIF_V_PAIRS(f); p++) {
        const VifTapPair tp = vif_v_pair(f, p);
        const __m512i c = pair_coef(tp);
        const __m512i a0 = _mm512_sub_epi16(load8(ref[tp.at] + j, m), off);
        const __m512i a1 = _mm512_sub_epi16(load8(ref[tp.other] + j, m), off);
        const __m512i b0 = _mm512_sub_epi16(load8(dis[tp.at] + j, m), off);
        const __m512i b1 = _mm512_sub_epi16(load8(dis[tp.other] + j, m), off);
        madd5(&lo, _mm512_unpacklo_epi16(a0, a1), _mm512_unpacklo_epi16(b0, b1), c);
        madd5(&hi, _mm512_unpackhi_epi16(a0, a1), _mm512_unpackhi_epi16(b0, b1), c);
    }
    const __m512i m_off = _mm512_set1_epi32(1 << 23);
    round_store16(out->mu1 + j, m, _mm512_add_epi32(lo.t1, m_off), _mm512_add_epi32(hi.t1, m_off),
                  rnd_mu, sh_mu);
    round_store16(out->mu2 + j, m, _mm512_add_epi32(lo.t2, m_off), _mm512_add_epi32(hi.t2, m_off),
                  rnd_mu, sh_mu);
    store_halves32(out->xx + j, m,
                   square_sum8(lo.t11, _mm512_slli_epi32(lo.t1, 8), rnd_sq, sh_sq),
                   square_sum8(hi.t11, _mm512_slli_epi32(hi.t1, 8), rnd_sq, sh_sq));
    store_halves32(out->yy + j, m,
                   square_sum8(lo.t22, _mm512_slli_epi32(lo.t2, 8), rnd_sq, sh_sq),
                   square_sum8(hi.t22, _mm512_slli_epi32(hi.t2, 8), rnd_sq, sh_sq));
    const __m512i lo12 = _mm512_slli_epi32(_mm512_add_epi32(lo.t1, lo.t2), 7);
    const __m512i hi12 = _mm512_slli_epi32(_mm512_add_epi32(hi.t1, hi.t2), 7);
    store_halves32(out->xy + j, m, square_sum8(lo.t12, lo12, rnd_sq, sh_sq),
                   square_sum8(hi.t12, hi12, rnd_sq, sh_sq));
}

/* --- statistic, 16-bit: sums of a - 32768 (see vif_vfilter_avx2.c) ------- */

typedef struct Sums16 {
    __m512i t1, t2, q11e, q11o, q22e, q22o, q12e, q12o;
} Sums16;

static AINLINE void weigh64(__m512i *e, __m512i *o, __m512i v, __m512i c64, int is_signed)
{
    const __m512i vo = _mm512_srli_epi64(v, 32);
    if (is_signed) {
        *e = _mm512_add_epi64(*e, _mm512_mul_epi32(v, c64));
        *o = _mm512_add_epi64(*o, _mm512_mul_epi32(vo, c64));
    } else {
        *e = _mm512_add_epi64(*e, _mm512_mul_epu32(v, c64));
        *o = _mm512_add_epi64(*o, _mm512_mul_epu32(vo, c64));
    }
}

static AINLINE void stat16_pair(Sums16 *s, __m512i a, __m512i b, __m512i c, __m512i c64)
{
    s->t1 = _mm512_add_epi32(s->t1, _mm512_madd_epi16(a, c));
    s->t2 = _mm512_add_epi32(s->t2, _mm512_madd_epi16(b, c));
    weigh64(&s->q11e, &s->q11o, _mm512_madd_epi16(a, a), c64, 0);
    weigh64(&s->q22e, &s->q22o, _mm512_madd_epi16(b, b), c64, 0);
    weigh64(&s->q12e, &s->q12o, _mm512_sub_epi32(_mm512_madd_epi16(a, b), _mm512_set1_epi32(1)),
            c64, 1);
}

/* Both halves of 32 columns in one pass (32 registers hold the sums). */
static AINLINE void stat_v16_sums(const uint16_t *const *ref, const uint16_t *const *dis,
                                  const unsigned f, unsigned j, __mmask32 m, Sums16 *lo,
                                  Sums16 *hi)
{
    const __m512i off = _mm512_set1_epi16((short)0x8000);
    *lo = *hi = (Sums16){0};
    for (unsigned p = 0; p < VIF_V_PAIRS(f); p++) {
        const VifTapPair tp = vif_v_pair(f, p);
        const __m512i c = pair_coef(tp), c64 = _mm512_set1_epi64(tp.c0);
        const __m512i a0 = _mm512_xor_si512(load16(ref[tp.at] + j, m), off);
        const __m512i a1 = _mm512_xor_si512(load16(ref[tp.other] + j, m), off);
        const __m512i b0 = _mm512_xor_si512(load16(dis[tp.at] + j, m), off);
        const __m512i b1 = _mm512_xor_si512(load16(dis[tp.other] + j, m), off);
        stat16_pair(lo, _mm512_unpacklo_epi16(a0, a1), _mm512_unpacklo_epi16(b0, b1), c, c64);
        stat16_pair(hi, _mm512_unpackhi_epi16(a0, a1), _mm512_unpackhi_epi16(b0, b1), c, c64);
    }
}

static AINLINE __m512i square_sum16(__m512i qe, __m512i qo, __m512i le, __m512i lo,
                                    __m512i add, __m128i sh)
{
    const __m512i e = _mm512_srl_epi64(_mm512_add_epi64(_mm512_add_epi64(qe, le), add), sh);
    const __m512i o = _mm512_srl_epi64(_mm512_add_epi64(_mm512_add_epi64(qo, lo), add), sh);
    return _mm512_mask_blend_epi32(0xaaaa, e, _mm512_slli_epi64(o, 32));
}

static AINLINE __m512i scale64(__m512i t, int64_t k, int odd)
{
    return _mm512_mul_epi32(odd ? _mm512_srli_epi64(t, 32) : t, _mm512_set1_epi64(k));
}

static AINLINE void squares16(const Sums16 *s, __m512i rnd, __m128i sh, __m512i *xx,
                              __m512i *yy, __m512i *xy)
{
    const __m512i add = _mm512_add_epi64(_mm512_set1_epi64(1ll << 46), rnd);
    *xx = square_sum16(s->q11e, s->q11o, scale64(s->t1, 65536, 0), scale64(s->t1, 65536, 1),
                       add, sh);
    *yy = square_sum16(s->q22e, s->q22o, scale64(s->t2, 65536, 0), scale64(s->t2, 65536, 1),
                       add, sh);
    const __m512i le = _mm512_add_epi64(scale64(s->t1, 32768, 0), scale64(s->t2, 32768, 0));
    const __m512i lo = _mm512_add_epi64(scale64(s->t1, 32768, 1), scale64(s->t2, 32768, 1));
    *xy = square_sum16(s->q12e, s->q12o, le, lo, _mm512_add_epi64(add, _mm512_set1_epi64(32768)),
                       sh);
}

static AINLINE void stat_v16_block(const uint16_t *const *ref, const uint16_t *const *dis,
                                   const unsigned f, unsigned j, __mmask32 m, __m512i rnd_mu,
                                   __m128i sh_mu, __m512i rnd_sq, __m128i sh_sq,
                                   const VifStatRow *out)
{
    Sums16 lo, hi;
    __m512i xx[2], yy[2], xy[2];
    stat_v16_sums(ref, dis, f, j, m, &lo, &hi);
    squares16(&lo, rnd_sq, sh_sq, &xx[0], &yy[0], &xy[0]);
    squares16(&hi, rnd_sq, sh_sq, &xx[1], &yy[1], &xy[1]);
    const __m512i m_off = _mm512_set1_epi32((int)0x80000000u);
    round_store16(out->mu1 + j, m, _mm512_add_epi32(lo.t1, m_off), _mm512_add_epi32(hi.t1, m_off),
                  rnd_mu, sh_mu);
    round_store16(out->mu2 + j, m, _mm512_add_epi32(lo.t2, m_off), _mm512_add_epi32(hi.t2, m_off),
                  rnd_mu, sh_mu);
    store_halves32(out->xx + j, m, xx[0], xx[1]);
    store_halves32(out->yy + j, m, yy[0], yy[1]);
    store_halves32(out->xy + j, m, xy[0], xy[1]);
}

/* --- decimation ---------------------------------------------------------- */

static AINLINE void dec_v8_block(const uint8_t *const *ref, const uint8_t *const *dis,
                                 const unsigned f, unsigned j, __mmask32 m, __m512i rnd,
                                 __m128i sh, uint16_t *out_ref, uint16_t *out_dis)
{
    __m512i r[2] = {_mm512_setzero_si512(), _mm512_setzero_si512()};
    __m512i d[2] = {r[0], r[0]};
    for (unsigned p = 0; p < VIF_V_PAIRS(f); p++) {
        const VifTapPair tp = vif_v_pair(f, p);
        const __m512i c = pair_coef(tp);
        const __m512i a0 = load8(ref[tp.at] + j, m), a1 = load8(ref[tp.other] + j, m);
        const __m512i b0 = load8(dis[tp.at] + j, m), b1 = load8(dis[tp.other] + j, m);
        r[0] = _mm512_add_epi32(r[0], _mm512_madd_epi16(_mm512_unpacklo_epi16(a0, a1), c));
        r[1] = _mm512_add_epi32(r[1], _mm512_madd_epi16(_mm512_unpackhi_epi16(a0, a1), c));
        d[0] = _mm512_add_epi32(d[0], _mm512_madd_epi16(_mm512_unpacklo_epi16(b0, b1), c));
        d[1] = _mm512_add_epi32(d[1], _mm512_madd_epi16(_mm512_unpackhi_epi16(b0, b1), c));
    }
    round_store16(out_ref + j, m, r[0], r[1], rnd, sh);
    round_store16(out_dis + j, m, d[0], d[1], rnd, sh);
}

static AINLINE void dec_v16_block(const uint16_t *const *ref, const uint16_t *const *dis,
                                  const unsigned f, unsigned j, __mmask32 m, __m512i rnd,
                                  __m128i sh, uint16_t *out_ref, uint16_t *out_dis)
{
    const __m512i off = _mm512_set1_epi16((short)0x8000);
    const __m512i sum_off = _mm512_set1_epi32((int)0x80000000u);
    __m512i r[2] = {sum_off, sum_off}, d[2] = {sum_off, sum_off};
    for (unsigned p = 0; p < VIF_V_PAIRS(f); p++) {
        const VifTapPair tp = vif_v_pair(f, p);
        const __m512i c = pair_coef(tp);
        const __m512i a0 = _mm512_xor_si512(load16(ref[tp.at] + j, m), off);
        const __m512i a1 = _mm512_xor_si512(load16(ref[tp.other] + j, m), off);
        const __m512i b0 = _mm512_xor_si512(load16(dis[tp.at] + j, m), off);
        const __m512i b1 = _mm512_xor_si512(load16(dis[tp.other] + j, m), off);
        r[0] = _mm512_add_epi32(r[0], _mm512_madd_epi16(_mm512_unpacklo_epi16(a0, a1), c));
        r[1] = _mm512_add_epi32(r[1], _mm512_madd_epi16(_mm512_unpackhi_epi16(a0, a1), c));
        d[0] = _mm512_add_epi32(d[0], _mm512_madd_epi16(_mm512_unpacklo_epi16(b0, b1), c));
        d[1] = _mm512_add_epi32(d[1], _mm512_madd_epi16(_mm512_unpackhi_epi16(b0, b1), c));
    }
    round_store16(out_ref + j, m, r[0], r[1], rnd, sh);
    round_store16(out_dis + j, m, d[0], d[1], rnd, sh);
}

/* --- entries ------------------------------------------------------------- */

/* Every block of 32 columns, the last one under a mask. */
#define FOR_BLOCKS(w, j, m, body)                                                          \
    for (unsigned j = 0; j < (w); j += 32) {                                               \
        const __mmask32 m = (w) - j >= 32 ? ~0u : (1u << ((w) - j)) - 1;                   \
        body;                                                                              \
    }

#define BY_FILTER(f, call)                                                                 \
    switch (f) {                                                                           \
    case 0: call(0); break;                                                                \
    case 1: call(1); break;                                                                \
    case 2: call(2); break;                                                                \
    default: call(3); break;                                                               \
    }

static void stat_v_8_avx512(const uint8_t *const *ref, const uint8_t *const *dis, unsigned f,
                            unsigned w, unsigned sh_mu, unsigned sh_sq, const VifStatRow *out)
{
    const __m512i rnd_mu = _mm512_set1_epi32(1 << (sh_mu - 1));
    const __m512i rnd_sq = _mm512_set1_epi32(sh_sq ? 1 << (sh_sq - 1) : 0);
    const __m128i shm = _mm_cvtsi32_si128((int)sh_mu), shq = _mm_cvtsi32_si128((int)sh_sq);
#define STAT8(F)                                                                           \
    FOR_BLOCKS(w, j, m, stat_v8_block(ref, dis, F, j, m, rnd_mu, shm, rnd_sq, shq, out))
    BY_FILTER(f, STAT8)
#undef STAT8
}

static void stat_v_16_avx512(const uint16_t *const *ref, const uint16_t *const *dis, unsigned f,
                             unsigned w, unsigned sh_mu, unsigned sh_sq, const VifStatRow *out)
{
    const __m512i rnd_mu = _mm512_set1_epi32(1 << (sh_mu - 1));
    const __m512i rnd_sq = _mm512_set1_epi64(sh_sq ? 1ll << (sh_sq - 1) : 0);
    const __m128i shm = _mm_cvtsi32_si128((int)sh_mu), shq = _mm_cvtsi32_si128((int)sh_sq);
#define STAT16(F)                                                                          \
    FOR_BLOCKS(w, j, m, stat_v16_block(ref, dis, F, j, m, rnd_mu, shm, rnd_sq, shq, out))
    BY_FILTER(f, STAT16)
#undef STAT16
}

static void dec_v_8_avx512(const uint8_t *const *ref, const uint8_t *const *dis, unsigned f,
                           unsigned w, unsigned sh, uint16_t *out_ref, uint16_t *out_dis)
{
    const __m512i rnd = _mm512_set1_epi32(1 << (sh - 1));
    const __m128i s = _mm_cvtsi32_si128((int)sh);
#define DEC8(F) FOR_BLOCKS(w, j, m, dec_v8_block(ref, dis, F, j, m, rnd, s, out_ref, out_dis))
    BY_FILTER(f, DEC8)
#undef DEC8
}

static void dec_v_16_avx512(const uint16_t *const *ref, const uint16_t *const *dis, unsigned f,
                            unsigned w, unsigned sh, uint16_t *out_ref, uint16_t *out_dis)
{
    const __m512i rnd = _mm512_set1_epi32(1 << (sh - 1));
    const __m128i s = _mm_cvtsi32_si128((int)sh);
#define DEC16(F) FOR_BLOCKS(w, j, m, dec_v16_block(ref, dis, F, j, m, rnd, s, out_ref, out_dis))
    BY_FILTER(f, DEC16)
#undef DEC16
}

void vmaf_vif_dsp_init_vfilter_avx512(VifDsp *dsp)
{
    dsp->stat_v_8 = stat_v_8_avx512;
    dsp->stat_v_16 = stat_v_16_avx512;
    dsp->dec_v_8 = dec_v_8_avx512;
    dsp->dec_v_16 = dec_v_16_avx512;
}
