/*
 * The vertical passes of the integer VIF (stat_v_8, stat_v_16, dec_v_8,
 * dec_v_16; vif_dsp.h) with AVX2, 16 columns a step. Rows are paired
 * (vif_v_pair) and interleaved so that pmaddwd adds two taps in 32 bits.
 * Samples are offset into int16 and the offsets' share is added back once
 * at the end: every sum is exact modulo 2^32 (means, 8-bit squares) or
 * 2^64 (16-bit squares) and the true value fits, so the bits are C's.
 * Widths that are not a multiple of 16 redo the last 16 columns; below 16
 * the C entry runs.
 */
#include <immintrin.h>
#include <stdint.h>

#include "feature/vif/vif_x86.h"

#define AINLINE inline __attribute__((always_inline))

static AINLINE __m256i load8(const uint8_t *p)
{
    return _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)p));
}

static AINLINE __m256i load16(const uint16_t *p)
{
    return _mm256_loadu_si256((const __m256i *)p);
}

static AINLINE __m256i pair_coef(VifTapPair tp)
{
    return _mm256_set1_epi32((int)((uint32_t)(uint16_t)tp.c0 | (uint32_t)tp.c1 << 16));
}

/* Rounded shift of 32-bit sums to 16 bits (C's cast), two halves of 16
 * columns whose lanes hold columns 0-3, 8-11 and 4-7, 12-15: the pack puts
 * them in order. */
static AINLINE __m256i round_pack16(__m256i lo, __m256i hi, __m256i rnd, __m128i sh)
{
    const __m256i m = _mm256_set1_epi32(0xffff);
    lo = _mm256_and_si256(_mm256_srl_epi32(_mm256_add_epi32(lo, rnd), sh), m);
    hi = _mm256_and_si256(_mm256_srl_epi32(_mm256_add_epi32(hi, rnd), sh), m);
    return _mm256_packus_epi32(lo, hi);
}

/* Two such halves of 32-bit values stored in column order. */
static AINLINE void store_halves32(uint32_t *p, __m256i lo, __m256i hi)
{
    _mm256_storeu_si256((__m256i *)p, _mm256_permute2x128_si256(lo, hi, 0x20));
    _mm256_storeu_si256((__m256i *)(p + 8), _mm256_permute2x128_si256(lo, hi, 0x31));
}

/* --- statistic, 8-bit ---------------------------------------------------- */

/* Sums of a' = a - 128 (in [-128, 127], so a'^2 and a'b' fit int16):
 * S1 = T1 + 2^23, S11 = T11 + 256 T1 + 2^30, S12 = T12 + 128 (T1 + T2) + 2^30,
 * exact in uint32 as the true sums are. */
typedef struct Sums8 {
    __m256i t1, t2, t11, t22, t12;
} Sums8;

static AINLINE void madd5(Sums8 *s, __m256i a, __m256i b, __m256i c)
{
    s->t1 = _mm256_add_epi32(s->t1, _mm256_madd_epi16(a, c));
    s->t2 = _mm256_add_epi32(s->t2, _mm256_madd_epi16(b, c));
    s->t11 = _mm256_add_epi32(s->t11, _mm256_madd_epi16(_mm256_mullo_epi16(a, a), c));
    s->t22 = _mm256_add_epi32(s->t22, _mm256_madd_epi16(_mm256_mullo_epi16(b, b), c));
    s->t12 = _mm256_add_epi32(s->t12, _mm256_madd_epi16(_mm256_mullo_epi16(a, b), c));
}

/* (T11 + linear + 2^30 + rnd) >> sh: linear is 256 T1 or 128 (T1 + T2). */
static AINLINE __m256i square_sum8(__m256i t11, __m256i linear, __m256i rnd, __m128i sh)
{
    const __m256i s = _mm256_add_epi32(_mm256_add_epi32(t11, linear), _mm256_set1_epi32(1 << 30));
    return _mm256_srl_epi32(_mm256_add_epi32(s, rnd), sh);
}

static AINLINE void stat_v8_block(const uint8_t *const *ref, const uint8_t *const *dis,
                                  const unsigned f, unsigned j, __m256i rnd_mu, __m128i sh_mu,
                                  __m256i rnd_sq, __m128i sh_sq, const VifStatRow *out)
{
    const __m256i off = _mm256_set1_epi16(128);
    Sums8 lo = {0}, hi = {0};
    for (unsigned p = 0; p < VIF_V_PAIRS(f); p++) {
        const VifTapPair tp = vif_v_pair(f, p);
        const __m256i c = pair_coef(tp);
        const __m256i a0 = _mm256_sub_epi16(load8(ref[tp.at] + j), off);
        const __m256i a1 = _mm256_sub_epi16(load8(ref[tp.other] + j), off);
        const __m256i b0 = _mm256_sub_epi16(load8(dis[tp.at] + j), off);
        const __m256i b1 = _mm256_sub_epi16(load8(dis[tp.other] + j), off);
        madd5(&lo, _mm256_unpacklo_epi16(a0, a1), _mm256_unpacklo_epi16(b0, b1), c);
        madd5(&hi, _mm256_unpackhi_epi16(a0, a1), _mm256_unpackhi_epi16(b0, b1), c);
    }
    const __m256i m_off = _mm256_set1_epi32(1 << 23);
    _mm256_storeu_si256((__m256i *)(out->mu1 + j),
                        round_pack16(_mm256_add_epi32(lo.t1, m_off),
                                     _mm256_add_epi32(hi.t1, m_off), rnd_mu, sh_mu));
    _mm256_storeu_si256((__m256i *)(out->mu2 + j),
                        round_pack16(_mm256_add_epi32(lo.t2, m_off),
                                     _mm256_add_epi32(hi.t2, m_off), rnd_mu, sh_mu));
    store_halves32(out->xx + j, square_sum8(lo.t11, _mm256_slli_epi32(lo.t1, 8), rnd_sq, sh_sq),
                   square_sum8(hi.t11, _mm256_slli_epi32(hi.t1, 8), rnd_sq, sh_sq));
    store_halves32(out->yy + j, square_sum8(lo.t22, _mm256_slli_epi32(lo.t2, 8), rnd_sq, sh_sq),
                   square_sum8(hi.t22, _mm256_slli_epi32(hi.t2, 8), rnd_sq, sh_sq));
    const __m256i lo12 = _mm256_slli_epi32(_mm256_add_epi32(lo.t1, lo.t2), 7);
    const __m256i hi12 = _mm256_slli_epi32(_mm256_add_epi32(hi.t1, hi.t2), 7);
    store_halves32(out->xy + j, square_sum8(lo.t12, lo12, rnd_sq, sh_sq),
                   square_sum8(hi.t12, hi12, rnd_sq, sh_sq));
}

/* --- statistic, 16-bit --------------------------------------------------- */

/* Sums of a' = a - 32768: T1 = sum c a' (int32). For the squares each pair
 * gives V = a'_k^2 + a'_k'^2 (at most 2^31: exact as uint32), weighted in
 * 64-bit even and odd lanes; for the products V - 1 (the sum can reach
 * 2^31, one more than int32 holds), signed. Then
 * S11 = Q11 + 65536 T1 + 2^46 and S12 = Q12 + 32768 (1 + T1 + T2) + 2^46. */
typedef struct Sums16 {
    __m256i t1, t2, q11e, q11o, q22e, q22o, q12e, q12o;
} Sums16;

static AINLINE void weigh64(__m256i *e, __m256i *o, __m256i v, __m256i c64, int is_signed)
{
    const __m256i vo = _mm256_srli_epi64(v, 32);
    if (is_signed) {
        *e = _mm256_add_epi64(*e, _mm256_mul_epi32(v, c64));
        *o = _mm256_add_epi64(*o, _mm256_mul_epi32(vo, c64));
    } else {
        *e = _mm256_add_epi64(*e, _mm256_mul_epu32(v, c64));
        *o = _mm256_add_epi64(*o, _mm256_mul_epu32(vo, c64));
    }
}

static AINLINE void stat16_pair(Sums16 *s, __m256i a, __m256i b, __m256i c, __m256i c64)
{
    s->t1 = _mm256_add_epi32(s->t1, _mm256_madd_epi16(a, c));
    s->t2 = _mm256_add_epi32(s->t2, _mm256_madd_epi16(b, c));
    weigh64(&s->q11e, &s->q11o, _mm256_madd_epi16(a, a), c64, 0);
    weigh64(&s->q22e, &s->q22o, _mm256_madd_epi16(b, b), c64, 0);
    weigh64(&s->q12e, &s->q12o, _mm256_sub_epi32(_mm256_madd_epi16(a, b), _mm256_set1_epi32(1)),
            c64, 1);
}

/* Half of 16 columns (high: the unpackhi lanes). */
static AINLINE void stat_v16_half(const uint16_t *const *ref, const uint16_t *const *dis,
                                  const unsigned f, unsigned j, int high, Sums16 *s)
{
    const __m256i off = _mm256_set1_epi16((short)0x8000);
    *s = (Sums16){0};
    for (unsigned p = 0; p < VIF_V_PAIRS(f); p++) {
        const VifTapPair tp = vif_v_pair(f, p);
        const __m256i a0 = _mm256_xor_si256(load16(ref[tp.at] + j), off);
        const __m256i a1 = _mm256_xor_si256(load16(ref[tp.other] + j), off);
        const __m256i b0 = _mm256_xor_si256(load16(dis[tp.at] + j), off);
        const __m256i b1 = _mm256_xor_si256(load16(dis[tp.other] + j), off);
        const __m256i a = high ? _mm256_unpackhi_epi16(a0, a1) : _mm256_unpacklo_epi16(a0, a1);
        const __m256i b = high ? _mm256_unpackhi_epi16(b0, b1) : _mm256_unpacklo_epi16(b0, b1);
        stat16_pair(s, a, b, pair_coef(tp), _mm256_set1_epi64x(tp.c0));
    }
}

/* (uint32)((Q + L + add) >> sh), L the linear term in even and odd lanes. */
static AINLINE __m256i square_sum16(__m256i qe, __m256i qo, __m256i le, __m256i lo,
                                    __m256i add, __m128i sh)
{
    const __m256i e = _mm256_srl_epi64(_mm256_add_epi64(_mm256_add_epi64(qe, le), add), sh);
    const __m256i o = _mm256_srl_epi64(_mm256_add_epi64(_mm256_add_epi64(qo, lo), add), sh);
    return _mm256_blend_epi32(e, _mm256_slli_epi64(o, 32), 0xaa);
}

/* k * t of int32 lanes t, as 64-bit even (odd = 0) or odd (1) lanes. */
static AINLINE __m256i scale64(__m256i t, int64_t k, int odd)
{
    return _mm256_mul_epi32(odd ? _mm256_srli_epi64(t, 32) : t, _mm256_set1_epi64x(k));
}

/* The three square sums of a half. */
static AINLINE void squares16(const Sums16 *s, __m256i rnd, __m128i sh, __m256i *xx,
                              __m256i *yy, __m256i *xy)
{
    const __m256i add = _mm256_add_epi64(_mm256_set1_epi64x(1ll << 46), rnd);
    *xx = square_sum16(s->q11e, s->q11o, scale64(s->t1, 65536, 0), scale64(s->t1, 65536, 1),
                       add, sh);
    *yy = square_sum16(s->q22e, s->q22o, scale64(s->t2, 65536, 0), scale64(s->t2, 65536, 1),
                       add, sh);
    const __m256i le = _mm256_add_epi64(scale64(s->t1, 32768, 0), scale64(s->t2, 32768, 0));
    const __m256i lo = _mm256_add_epi64(scale64(s->t1, 32768, 1), scale64(s->t2, 32768, 1));
    *xy = square_sum16(s->q12e, s->q12o, le, lo, _mm256_add_epi64(add, _mm256_set1_epi64x(32768)),
                       sh);
}

static AINLINE void stat_v16_block(const uint16_t *const *ref, const uint16_t *const *dis,
                                   const unsigned f, unsigned j, __m256i rnd_mu, __m128i sh_mu,
                                   __m256i rnd_sq, __m128i sh_sq, const VifStatRow *out)
{
    Sums16 lo, hi;
    __m256i xx[2], yy[2], xy[2];
    stat_v16_half(ref, dis, f, j, 0, &lo);
    squares16(&lo, rnd_sq, sh_sq, &xx[0], &yy[0], &xy[0]);
    stat_v16_half(ref, dis, f, j, 1, &hi);
    squares16(&hi, rnd_sq, sh_sq, &xx[1], &yy[1], &xy[1]);
    const __m256i m_off = _mm256_set1_epi32((int)0x80000000u);
    _mm256_storeu_si256((__m256i *)(out->mu1 + j),
                        round_pack16(_mm256_add_epi32(lo.t1, m_off),
                                     _mm256_add_epi32(hi.t1, m_off), rnd_mu, sh_mu));
    _mm256_storeu_si256((__m256i *)(out->mu2 + j),
                        round_pack16(_mm256_add_epi32(lo.t2, m_off),
                                     _mm256_add_epi32(hi.t2, m_off), rnd_mu, sh_mu));
    store_halves32(out->xx + j, xx[0], xx[1]);
    store_halves32(out->yy + j, yy[0], yy[1]);
    store_halves32(out->xy + j, xy[0], xy[1]);
}

/* --- decimation ---------------------------------------------------------- */

/* 8-bit samples fit int16 as they are; 16-bit ones are offset by 32768,
 * which adds 2^31 to the sum. */
static AINLINE void dec_v8_block(const uint8_t *const *ref, const uint8_t *const *dis,
                                 const unsigned f, unsigned j, __m256i rnd, __m128i sh,
                                 uint16_t *out_ref, uint16_t *out_dis)
{
    __m256i r[2] = {_mm256_setzero_si256(), _mm256_setzero_si256()};
    __m256i d[2] = {r[0], r[0]};
    for (unsigned p = 0; p < VIF_V_PAIRS(f); p++) {
        const VifTapPair tp = vif_v_pair(f, p);
        const __m256i c = pair_coef(tp);
        const __m256i a0 = load8(ref[tp.at] + j), a1 = load8(ref[tp.other] + j);
        const __m256i b0 = load8(dis[tp.at] + j), b1 = load8(dis[tp.other] + j);
        r[0] = _mm256_add_epi32(r[0], _mm256_madd_epi16(_mm256_unpacklo_epi16(a0, a1), c));
        r[1] = _mm256_add_epi32(r[1], _mm256_madd_epi16(_mm256_unpackhi_epi16(a0, a1), c));
        d[0] = _mm256_add_epi32(d[0], _mm256_madd_epi16(_mm256_unpacklo_epi16(b0, b1), c));
        d[1] = _mm256_add_epi32(d[1], _mm256_madd_epi16(_mm256_unpackhi_epi16(b0, b1), c));
    }
    _mm256_storeu_si256((__m256i *)(out_ref + j), round_pack16(r[0], r[1], rnd, sh));
    _mm256_storeu_si256((__m256i *)(out_dis + j), round_pack16(d[0], d[1], rnd, sh));
}

static AINLINE void dec_v16_block(const uint16_t *const *ref, const uint16_t *const *dis,
                                  const unsigned f, unsigned j, __m256i rnd, __m128i sh,
                                  uint16_t *out_ref, uint16_t *out_dis)
{
    const __m256i off = _mm256_set1_epi16((short)0x8000);
    const __m256i sum_off = _mm256_set1_epi32((int)0x80000000u);
    __m256i r[2] = {sum_off, sum_off}, d[2] = {sum_off, sum_off};
    for (unsigned p = 0; p < VIF_V_PAIRS(f); p++) {
        const VifTapPair tp = vif_v_pair(f, p);
        const __m256i c = pair_coef(tp);
        const __m256i a0 = _mm256_xor_si256(load16(ref[tp.at] + j), off);
        const __m256i a1 = _mm256_xor_si256(load16(ref[tp.other] + j), off);
        const __m256i b0 = _mm256_xor_si256(load16(dis[tp.at] + j), off);
        const __m256i b1 = _mm256_xor_si256(load16(dis[tp.other] + j), off);
        r[0] = _mm256_add_epi32(r[0], _mm256_madd_epi16(_mm256_unpacklo_epi16(a0, a1), c));
        r[1] = _mm256_add_epi32(r[1], _mm256_madd_epi16(_mm256_unpackhi_epi16(a0, a1), c));
        d[0] = _mm256_add_epi32(d[0], _mm256_madd_epi16(_mm256_unpacklo_epi16(b0, b1), c));
        d[1] = _mm256_add_epi32(d[1], _mm256_madd_epi16(_mm256_unpackhi_epi16(b0, b1), c));
    }
    _mm256_storeu_si256((__m256i *)(out_ref + j), round_pack16(r[0], r[1], rnd, sh));
    _mm256_storeu_si256((__m256i *)(out_dis + j), round_pack16(d[0], d[1], rnd, sh));
}

/* --- entries ------------------------------------------------------------- */

static __m256i rounding(unsigned sh)
{
    return _mm256_set1_epi64x(sh ? 1ll << (sh - 1) : 0);
}

/* Every block of 16 columns; the last one ends at w (w >= 16). */
#define FOR_BLOCKS(w, j, body)                                                             \
    do {                                                                                   \
        unsigned j;                                                                        \
        for (j = 0; j + 16 <= (w); j += 16)                                                \
            body;                                                                          \
        if (j < (w)) {                                                                     \
            j = (w) - 16;                                                                  \
            body;                                                                          \
        }                                                                                  \
    } while (0)

/* The entries switch on f so that each instance has constant taps. */
#define BY_FILTER(f, call)                                                                 \
    switch (f) {                                                                           \
    case 0: call(0); break;                                                                \
    case 1: call(1); break;                                                                \
    case 2: call(2); break;                                                                \
    default: call(3); break;                                                               \
    }

static void stat_v_8_avx2(const uint8_t *const *ref, const uint8_t *const *dis, unsigned f,
                          unsigned w, unsigned sh_mu, unsigned sh_sq, const VifStatRow *out)
{
    if (w < 16) {
        vmaf_vif_dsp_c.stat_v_8(ref, dis, f, w, sh_mu, sh_sq, out);
        return;
    }
    const __m256i rnd_mu = _mm256_set1_epi32(1 << (sh_mu - 1));
    const __m256i rnd_sq = _mm256_set1_epi32(sh_sq ? 1 << (sh_sq - 1) : 0);
    const __m128i shm = _mm_cvtsi32_si128((int)sh_mu), shq = _mm_cvtsi32_si128((int)sh_sq);
#define STAT8(F) FOR_BLOCKS(w, j, stat_v8_block(ref, dis, F, j, rnd_mu, shm, rnd_sq, shq, out))
    BY_FILTER(f, STAT8)
#undef STAT8
}

static void stat_v_16_avx2(const uint16_t *const *ref, const uint16_t *const *dis, unsigned f,
                           unsigned w, unsigned sh_mu, unsigned sh_sq, const VifStatRow *out)
{
    if (w < 16) {
        vmaf_vif_dsp_c.stat_v_16(ref, dis, f, w, sh_mu, sh_sq, out);
        return;
    }
    const __m256i rnd_mu = _mm256_set1_epi32(1 << (sh_mu - 1)), rnd_sq = rounding(sh_sq);
    const __m128i shm = _mm_cvtsi32_si128((int)sh_mu), shq = _mm_cvtsi32_si128((int)sh_sq);
#define STAT16(F) FOR_BLOCKS(w, j, stat_v16_block(ref, dis, F, j, rnd_mu, shm, rnd_sq, shq, out))
    BY_FILTER(f, STAT16)
#undef STAT16
}

static void dec_v_8_avx2(const uint8_t *const *ref, const uint8_t *const *dis, unsigned f,
                         unsigned w, unsigned sh, uint16_t *out_ref, uint16_t *out_dis)
{
    if (w < 16) {
        vmaf_vif_dsp_c.dec_v_8(ref, dis, f, w, sh, out_ref, out_dis);
        return;
    }
    const __m256i rnd = _mm256_set1_epi32(1 << (sh - 1));
    const __m128i s = _mm_cvtsi32_si128((int)sh);
#define DEC8(F) FOR_BLOCKS(w, j, dec_v8_block(ref, dis, F, j, rnd, s, out_ref, out_dis))
    BY_FILTER(f, DEC8)
#undef DEC8
}

static void dec_v_16_avx2(const uint16_t *const *ref, const uint16_t *const *dis, unsigned f,
                          unsigned w, unsigned sh, uint16_t *out_ref, uint16_t *out_dis)
{
    if (w < 16) {
        vmaf_vif_dsp_c.dec_v_16(ref, dis, f, w, sh, out_ref, out_dis);
        return;
    }
    const __m256i rnd = _mm256_set1_epi32(1 << (sh - 1));
    const __m128i s = _mm_cvtsi32_si128((int)sh);
#define DEC16(F) FOR_BLOCKS(w, j, dec_v16_block(ref, dis, F, j, rnd, s, out_ref, out_dis))
    BY_FILTER(f, DEC16)
#undef DEC16
}

void vmaf_vif_dsp_init_vfilter_avx2(VifDsp *dsp)
{
    dsp->stat_v_8 = stat_v_8_avx2;
    dsp->stat_v_16 = stat_v_16_avx2;
    dsp->dec_v_8 = dec_v_8_avx2;
    dsp->dec_v_16 = dec_v_16_avx2;
}
