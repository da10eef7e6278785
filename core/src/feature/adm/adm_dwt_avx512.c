/*
 * The wavelet transform with AVX-512 (AdmDsp.dwt_*, contracts in
 * adm_dsp.h), the same bits as adm_dwt_c.c.
 *
 * Scale 0 multiplies 16-bit samples by the 16-bit taps with pmaddwd, two
 * taps at a time: interleaved rows for the vertical pass, the natural pairs
 * (x-1, x) and (x+1, x+2) of a row for the horizontal one. 16-bit samples
 * are made signed by subtracting 2^15; since the sum is modulo 2^32, adding
 * 2^15 times the taps' sum back gives the C's bits. Scales 1..3 need 64-bit
 * sums: pmuldq on the even and odd 32-bit lanes; but the vertical pass of
 * scale 1 (no rounding, 16-bit input) is done like scale 0 where the
 * samples are 16-bit, and its sums then fit 32 bits.
 */
#include <immintrin.h>
#include <stdint.h>

#include "feature/adm/adm_dsp.h"
#include "feature/adm/adm_dsp_x86.h"

/* Two 16-bit taps (a for the even element, b for the odd) per 32-bit lane. */
#define TAPS(a, b) _mm512_set1_epi32((int32_t)((uint32_t)(uint16_t)(a) | ((uint32_t)(b) << 16)))

static inline __m512i dot4(__m512i p01, __m512i p23, __m512i t01, __m512i t23)
{
    return _mm512_add_epi32(_mm512_madd_epi16(p01, t01), _mm512_madd_epi16(p23, t23));
}

/* lo and hi of 32 columns from the four rows (16-bit, made signed). For
 * samples of bpc bits the sum before the shift lies within +-27411 * 2^bpc
 * (+-2^31 at 16 bits, where the C's sum wraps back into it), so the results
 * fit int16 and packssdw is exact. */
static inline void vert32(const __m512i s[4], __m512i lo_add, __m512i hi_add, __m128i sh,
                          __m512i *lo, __m512i *hi)
{
    const __m512i l01 = _mm512_unpacklo_epi16(s[0], s[1]), h01 = _mm512_unpackhi_epi16(s[0], s[1]);
    const __m512i l23 = _mm512_unpacklo_epi16(s[2], s[3]), h23 = _mm512_unpackhi_epi16(s[2], s[3]);
    const __m512i tl01 = TAPS(15826, 27411), tl23 = TAPS(7345, -4240);
    const __m512i th01 = TAPS(-4240, -7345), th23 = TAPS(27411, -15826);
    const __m512i r0 = _mm512_sra_epi32(_mm512_add_epi32(dot4(l01, l23, tl01, tl23), lo_add), sh);
    const __m512i r1 = _mm512_sra_epi32(_mm512_add_epi32(dot4(h01, h23, tl01, tl23), lo_add), sh);
    const __m512i r2 = _mm512_sra_epi32(_mm512_add_epi32(dot4(l01, l23, th01, th23), hi_add), sh);
    const __m512i r3 = _mm512_sra_epi32(_mm512_add_epi32(dot4(h01, h23, th01, th23), hi_add), sh);
    *lo = _mm512_packs_epi32(r0, r1);
    *hi = _mm512_packs_epi32(r2, r3);
}

static inline __mmask32 tail32(unsigned n)
{
    return n >= 32 ? 0xffffffffu : (__mmask32)((1u << n) - 1);
}

static void dwt_vert_8_avx512(const uint8_t *const s[4], unsigned w, int16_t *lo, int16_t *hi)
{
    const uint32_t half = 1u << 7;
    const __m512i lo_add = _mm512_set1_epi32((int32_t)(half - 46342u * half));
    const __m512i hi_add = _mm512_set1_epi32((int32_t)half);
    const __m128i shift = _mm_cvtsi32_si128(8);
    for (unsigned x = 0; x < w; x += 32) {
        const __mmask32 m = tail32(w - x);
        __m512i v[4], l, h;
        for (int k = 0; k < 4; k++)
            v[k] = _mm512_cvtepu8_epi16(_mm256_maskz_loadu_epi8(m, s[k] + x));
        vert32(v, lo_add, hi_add, shift, &l, &h);
        _mm512_mask_storeu_epi16(lo + x, m, l);
        _mm512_mask_storeu_epi16(hi + x, m, h);
    }
}

static void dwt_vert_16_avx512(const uint16_t *const s[4], unsigned w, unsigned bpc, int16_t *lo,
                               int16_t *hi)
{
    const uint32_t half = 1u << (bpc - 1);
    /* the taps of the low band sum to 46342, of the high band to 0 */
    const __m512i lo_add = _mm512_set1_epi32((int32_t)(46342u * 32768u + half - 46342u * half));
    const __m512i hi_add = _mm512_set1_epi32((int32_t)half);
    const __m128i shift = _mm_cvtsi32_si128((int)bpc);
    const __m512i bias = _mm512_set1_epi16(INT16_MIN);
    for (unsigned x = 0; x < w; x += 32) {
        const __mmask32 m = tail32(w - x);
        __m512i v[4], l, h;
        for (int k = 0; k < 4; k++)
            v[k] = _mm512_xor_si512(_mm512_maskz_loadu_epi16(m, s[k] + x), bias);
        vert32(v, lo_add, hi_add, shift, &l, &h);
        _mm512_mask_storeu_epi16(lo + x, m, l);
        _mm512_mask_storeu_epi16(hi + x, m, h);
    }
}

/* Output x from row[2x-1 .. 2x+2]: |sum| < 2^31, and >> 16 fits int16. */
static inline __m512i horz16(__m512i p0, __m512i p1, __m512i t01, __m512i t23)
{
    const __m512i sum = _mm512_add_epi32(dot4(p0, p1, t01, t23), _mm512_set1_epi32(32768));
    return _mm512_srai_epi32(sum, 16);
}

static void dwt_horz_0_avx512(const int16_t *lo, const int16_t *hi, unsigned w, int32_t *a,
                              AdmBandRows *out)
{
    const __m512i tl01 = TAPS(15826, 27411), tl23 = TAPS(7345, -4240);
    const __m512i th01 = TAPS(-4240, -7345), th23 = TAPS(27411, -15826);
    const unsigned n = (w + 1) / 2;
    for (unsigned x = 0; x < n; x += 16) {
        const unsigned left = n - x;
        const __mmask32 m2 = left >= 16 ? 0xffffffffu : (__mmask32)((1u << (2 * left)) - 1);
        const __mmask16 m = left >= 16 ? 0xffff : (__mmask16)((1u << left) - 1);
        const __m512i l0 = _mm512_maskz_loadu_epi16(m2, lo + 2 * x - 1);
        const __m512i l1 = _mm512_maskz_loadu_epi16(m2, lo + 2 * x + 1);
        const __m512i h0 = _mm512_maskz_loadu_epi16(m2, hi + 2 * x - 1);
        const __m512i h1 = _mm512_maskz_loadu_epi16(m2, hi + 2 * x + 1);
        _mm512_mask_storeu_epi32(a + x, m, horz16(l0, l1, tl01, tl23));
        _mm512_mask_storeu_epi32(out->b[1] + x, m, horz16(l0, l1, th01, th23));
        _mm512_mask_storeu_epi32(out->b[0] + x, m, horz16(h0, h1, tl01, tl23));
        _mm512_mask_storeu_epi32(out->b[2] + x, m, horz16(h0, h1, th01, th23));
    }
}

/* The taps as 64-bit multipliers for pmuldq. */
typedef struct Taps64 {
    __m512i l[4], h[4];
} Taps64;

static inline Taps64 taps64(void)
{
    static const int32_t l[4] = {15826, 27411, 7345, -4240}, h[4] = {-4240, -7345, 27411, -15826};
    Taps64 t;
    for (int k = 0; k < 4; k++) {
        t.l[k] = _mm512_set1_epi64(l[k]);
        t.h[k] = _mm512_set1_epi64(h[k]);
    }
    return t;
}

/* sum_k t[k]*v[k] in 64 bits from the low 32 bits of each 64-bit lane. */
static inline __m512i sum64(const __m512i v[4], const __m512i t[4])
{
    const __m512i a = _mm512_add_epi64(_mm512_mul_epi32(v[0], t[0]), _mm512_mul_epi32(v[1], t[1]));
    const __m512i b = _mm512_add_epi64(_mm512_mul_epi32(v[2], t[2]), _mm512_mul_epi32(v[3], t[3]));
    return _mm512_add_epi64(a, b);
}

/* (int32)((sum + add) >> shift) of the even (e) and odd (o) lanes, back in
 * their 32-bit lanes. */
static inline __m512i round_eo(__m512i e, __m512i o, __m512i add, __m128i shift)
{
    e = _mm512_sra_epi64(_mm512_add_epi64(e, add), shift);
    o = _mm512_sra_epi64(_mm512_add_epi64(o, add), shift);
    return _mm512_mask_blend_epi32(0xaaaa, e, _mm512_slli_epi64(o, 32));
}

/* Whether all of 16 samples of the four rows are 16-bit. */
static inline int short16(const __m512i v[4])
{
    const __m512i h = _mm512_set1_epi32(32768);
    const __m512i a = _mm512_or_si512(_mm512_add_epi32(v[0], h), _mm512_add_epi32(v[1], h));
    const __m512i b = _mm512_or_si512(_mm512_add_epi32(v[2], h), _mm512_add_epi32(v[3], h));
    return !_mm512_test_epi32_mask(_mm512_or_si512(a, b), _mm512_set1_epi32((int32_t)0xffff0000u));
}

/* The sums of 16-bit samples fit 32 bits: with no rounding (scale 1, whose
 * input is scale 0's 16-bit low band) they are the results. */
static inline void vert16_short(const __m512i v[4], int32_t *lo, int32_t *hi, __mmask16 m)
{
    const __m512i p01 = _mm512_mask_blend_epi16(0xaaaaaaaa, v[0], _mm512_slli_epi32(v[1], 16));
    const __m512i p23 = _mm512_mask_blend_epi16(0xaaaaaaaa, v[2], _mm512_slli_epi32(v[3], 16));
    _mm512_mask_storeu_epi32(lo, m, dot4(p01, p23, TAPS(15826, 27411), TAPS(7345, -4240)));
    _mm512_mask_storeu_epi32(hi, m, dot4(p01, p23, TAPS(-4240, -7345), TAPS(27411, -15826)));
}

static void dwt_vert_s_avx512(const int32_t *const s[4], unsigned w, int32_t add, unsigned shift,
                              int32_t *lo, int32_t *hi)
{
    const Taps64 t = taps64();
    const __m512i va = _mm512_set1_epi64(add);
    const __m128i sh = _mm_cvtsi32_si128((int)shift);
    const int exact = !add && !shift;
    for (unsigned x = 0; x < w; x += 16) {
        const __mmask16 m = w - x >= 16 ? 0xffff : (__mmask16)((1u << (w - x)) - 1);
        __m512i e[4], o[4];
        for (int k = 0; k < 4; k++)
            e[k] = _mm512_maskz_loadu_epi32(m, s[k] + x);
        if (exact && short16(e)) {
            vert16_short(e, lo + x, hi + x, m);
            continue;
        }
        for (int k = 0; k < 4; k++)
            o[k] = _mm512_srli_epi64(e[k], 32);
        _mm512_mask_storeu_epi32(lo + x, m, round_eo(sum64(e, t.l), sum64(o, t.l), va, sh));
        _mm512_mask_storeu_epi32(hi + x, m, round_eo(sum64(e, t.h), sum64(o, t.h), va, sh));
    }
}

/* Output x of 8 from row[2x-1 .. 2x+2]: two loads hold the four taps in
 * the low and high halves of each 64-bit lane. */
static inline __m256i horz8(const __m512i v[4], const __m512i t[4], __m512i add, __m128i shift)
{
    return _mm512_cvtepi64_epi32(_mm512_sra_epi64(_mm512_add_epi64(sum64(v, t), add), shift));
}

static inline void taps_of(const int32_t *row, __mmask16 m, __m512i v[4])
{
    v[0] = _mm512_maskz_loadu_epi32(m, row - 1);
    v[1] = _mm512_srli_epi64(v[0], 32);
    v[2] = _mm512_maskz_loadu_epi32(m, row + 1);
    v[3] = _mm512_srli_epi64(v[2], 32);
}

static void dwt_horz_s_avx512(const int32_t *lo, const int32_t *hi, unsigned w, int32_t add,
                              unsigned shift, int32_t *a, AdmBandRows *out)
{
    const Taps64 t = taps64();
    const __m512i va = _mm512_set1_epi64(add);
    const __m128i sh = _mm_cvtsi32_si128((int)shift);
    const unsigned n = (w + 1) / 2;
    for (unsigned x = 0; x < n; x += 8) {
        const unsigned left = n - x;
        const __mmask8 m = left >= 8 ? 0xff : (__mmask8)((1u << left) - 1);
        const __mmask16 m2 = left >= 8 ? 0xffff : (__mmask16)((1u << (2 * left)) - 1);
        __m512i l[4], h[4];
        taps_of(lo + 2 * x, m2, l);
        taps_of(hi + 2 * x, m2, h);
        _mm256_mask_storeu_epi32(a + x, m, horz8(l, t.l, va, sh));
        _mm256_mask_storeu_epi32(out->b[1] + x, m, horz8(l, t.h, va, sh));
        _mm256_mask_storeu_epi32(out->b[0] + x, m, horz8(h, t.l, va, sh));
        _mm256_mask_storeu_epi32(out->b[2] + x, m, horz8(h, t.h, va, sh));
    }
}

void vmaf_adm_dsp_init_dwt_avx512(AdmDsp *dsp)
{
    dsp->dwt_vert_8 = dwt_vert_8_avx512;
    dsp->dwt_vert_16 = dwt_vert_16_avx512;
    dsp->dwt_horz_0 = dwt_horz_0_avx512;
    dsp->dwt_vert_s = dwt_vert_s_avx512;
    dsp->dwt_horz_s = dwt_horz_s_avx512;
}
