/*
 * The wavelet transform with AVX2 (AdmDsp.dwt_*, contracts in adm_dsp.h),
 * the same bits as adm_dwt_c.c; the columns after the last full vector go
 * to the C entries.
 *
 * Scale 0 multiplies 16-bit samples by the 16-bit taps with pmaddwd, two
 * taps at a time: interleaved rows for the vertical pass, the natural pairs
 * (x-1, x) and (x+1, x+2) of a row for the horizontal one. 16-bit samples
 * are made signed by subtracting 2^15; since the sum is modulo 2^32, adding
 * 2^15 times the taps' sum back gives the C's bits. Scales 1..3 need 64-bit
 * sums: pmuldq on the even and odd 32-bit lanes; but the vertical pass of
 * scale 1 (no rounding, 16-bit input) is done like scale 0 where the
 * samples are 16-bit, and its sums then fit 32 bits. The results keep bits
 * shift..shift+31 of the sum, which a logical shift gives as well as an
 * arithmetic one up to a shift of 32 (AVX2 has no 64-bit arithmetic shift);
 * larger shifts are left to C.
 */
#include <immintrin.h>
#include <stdint.h>

#include "feature/adm/adm_dsp.h"
#include "feature/adm/adm_dsp_c.h"
#include "feature/adm/adm_dsp_x86.h"

/* Two 16-bit taps (a for the even element, b for the odd) per 32-bit lane. */
#define TAPS(a, b) _mm256_set1_epi32((int32_t)((uint32_t)(uint16_t)(a) | ((uint32_t)(b) << 16)))

static inline __m256i dot4(__m256i p01, __m256i p23, __m256i t01, __m256i t23)
{
    return _mm256_add_epi32(_mm256_madd_epi16(p01, t01), _mm256_madd_epi16(p23, t23));
}

/* lo and hi of 16 columns from the four rows (16-bit, made signed). For
 * samples of bpc bits the sum before the shift lies within +-27411 * 2^bpc
 * (+-2^31 at 16 bits, where the C's sum wraps back into it), so the results
 * fit int16 and packssdw is exact. */
static inline void vert16(const __m256i s[4], __m256i lo_add, __m256i hi_add, __m128i sh,
                          int16_t *lo, int16_t *hi)
{
    const __m256i l01 = _mm256_unpacklo_epi16(s[0], s[1]), h01 = _mm256_unpackhi_epi16(s[0], s[1]);
    const __m256i l23 = _mm256_unpacklo_epi16(s[2], s[3]), h23 = _mm256_unpackhi_epi16(s[2], s[3]);
    const __m256i tl01 = TAPS(15826, 27411), tl23 = TAPS(7345, -4240);
    const __m256i th01 = TAPS(-4240, -7345), th23 = TAPS(27411, -15826);
    const __m256i r0 = _mm256_sra_epi32(_mm256_add_epi32(dot4(l01, l23, tl01, tl23), lo_add), sh);
    const __m256i r1 = _mm256_sra_epi32(_mm256_add_epi32(dot4(h01, h23, tl01, tl23), lo_add), sh);
    const __m256i r2 = _mm256_sra_epi32(_mm256_add_epi32(dot4(l01, l23, th01, th23), hi_add), sh);
    const __m256i r3 = _mm256_sra_epi32(_mm256_add_epi32(dot4(h01, h23, th01, th23), hi_add), sh);
    _mm256_storeu_si256((__m256i *)lo, _mm256_packs_epi32(r0, r1));
    _mm256_storeu_si256((__m256i *)hi, _mm256_packs_epi32(r2, r3));
}

static void dwt_vert_8_avx2(const uint8_t *const s[4], unsigned w, int16_t *lo, int16_t *hi)
{
    const uint32_t half = 1u << 7;
    const __m256i lo_add = _mm256_set1_epi32((int32_t)(half - 46342u * half));
    const __m256i hi_add = _mm256_set1_epi32((int32_t)half);
    const __m128i shift = _mm_cvtsi32_si128(8);
    unsigned x = 0;
    for (; x + 16 <= w; x += 16) {
        __m256i v[4];
        for (int k = 0; k < 4; k++)
            v[k] = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(s[k] + x)));
        vert16(v, lo_add, hi_add, shift, lo + x, hi + x);
    }
    if (x < w) {
        const uint8_t *const t[4] = {s[0] + x, s[1] + x, s[2] + x, s[3] + x};
        vmaf_adm_dwt_vert_8_c(t, w - x, lo + x, hi + x);
    }
}

static void dwt_vert_16_avx2(const uint16_t *const s[4], unsigned w, unsigned bpc, int16_t *lo,
                             int16_t *hi)
{
    const uint32_t half = 1u << (bpc - 1);
    /* the taps of the low band sum to 46342, of the high band to 0 */
    const __m256i lo_add = _mm256_set1_epi32((int32_t)(46342u * 32768u + half - 46342u * half));
    const __m256i hi_add = _mm256_set1_epi32((int32_t)half);
    const __m128i shift = _mm_cvtsi32_si128((int)bpc);
    const __m256i bias = _mm256_set1_epi16(INT16_MIN);
    unsigned x = 0;
    for (; x + 16 <= w; x += 16) {
        __m256i v[4];
        for (int k = 0; k < 4; k++)
            v[k] = _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)(s[k] + x)), bias);
        vert16(v, lo_add, hi_add, shift, lo + x, hi + x);
    }
    if (x < w) {
        const uint16_t *const t[4] = {s[0] + x, s[1] + x, s[2] + x, s[3] + x};
        vmaf_adm_dwt_vert_16_c(t, w - x, bpc, lo + x, hi + x);
    }
}

/* 8 outputs from row[2x-1 .. 2x+2]: |sum| < 2^31, and >> 16 fits int16. */
static inline void horz8(const int16_t *row, __m256i t01, __m256i t23, int32_t *out)
{
    const __m256i p0 = _mm256_loadu_si256((const __m256i *)(row - 1));
    const __m256i p1 = _mm256_loadu_si256((const __m256i *)(row + 1));
    const __m256i sum = _mm256_add_epi32(dot4(p0, p1, t01, t23), _mm256_set1_epi32(32768));
    _mm256_storeu_si256((__m256i *)out, _mm256_srai_epi32(sum, 16));
}

static void dwt_horz_0_avx2(const int16_t *lo, const int16_t *hi, unsigned w, int32_t *a,
                            AdmBandRows *out)
{
    const __m256i tl01 = TAPS(15826, 27411), tl23 = TAPS(7345, -4240);
    const __m256i th01 = TAPS(-4240, -7345), th23 = TAPS(27411, -15826);
    const unsigned n = (w + 1) / 2;
    unsigned x = 0;
    for (; x + 8 <= n; x += 8) {
        horz8(lo + 2 * x, tl01, tl23, a + x);
        horz8(lo + 2 * x, th01, th23, out->b[1] + x);
        horz8(hi + 2 * x, tl01, tl23, out->b[0] + x);
        horz8(hi + 2 * x, th01, th23, out->b[2] + x);
    }
    if (x < n) {
        AdmBandRows rest = {{out->b[0] + x, out->b[1] + x, out->b[2] + x}};
        vmaf_adm_dwt_horz_0_c(lo + 2 * x, hi + 2 * x, w - 2 * x, a + x, &rest);
    }
}

/* The taps as 64-bit multipliers for pmuldq. */
typedef struct Taps64 {
    __m256i l[4], h[4];
} Taps64;

static inline Taps64 taps64(void)
{
    static const int32_t l[4] = {15826, 27411, 7345, -4240}, h[4] = {-4240, -7345, 27411, -15826};
    Taps64 t;
    for (int k = 0; k < 4; k++) {
        t.l[k] = _mm256_set1_epi64x(l[k]);
        t.h[k] = _mm256_set1_epi64x(h[k]);
    }
    return t;
}

/* sum_k t[k]*v[k] in 64 bits from the low 32 bits of each 64-bit lane. */
static inline __m256i sum64(const __m256i v[4], const __m256i t[4])
{
    const __m256i a = _mm256_add_epi64(_mm256_mul_epi32(v[0], t[0]), _mm256_mul_epi32(v[1], t[1]));
    const __m256i b = _mm256_add_epi64(_mm256_mul_epi32(v[2], t[2]), _mm256_mul_epi32(v[3], t[3]));
    return _mm256_add_epi64(a, b);
}

/* (int32)((sum + add) >> shift) of the even (e) and odd (o) lanes, back in
 * their 32-bit lanes. */
static inline __m256i round_eo(__m256i e, __m256i o, __m256i add, __m128i shift)
{
    e = _mm256_srl_epi64(_mm256_add_epi64(e, add), shift);
    o = _mm256_srl_epi64(_mm256_add_epi64(o, add), shift);
    return _mm256_blend_epi32(e, _mm256_slli_epi64(o, 32), 0xaa);
}

/* Whether all of 8 samples of the four rows are 16-bit. */
static inline int short8(const __m256i v[4])
{
    const __m256i h = _mm256_set1_epi32(32768);
    const __m256i a = _mm256_or_si256(_mm256_add_epi32(v[0], h), _mm256_add_epi32(v[1], h));
    const __m256i b = _mm256_or_si256(_mm256_add_epi32(v[2], h), _mm256_add_epi32(v[3], h));
    return _mm256_testz_si256(_mm256_or_si256(a, b), _mm256_set1_epi32((int32_t)0xffff0000u));
}

/* The sums of 16-bit samples fit 32 bits: with no rounding (scale 1, whose
 * input is scale 0's 16-bit low band) they are the results. */
static inline void vert8_short(const __m256i v[4], int32_t *lo, int32_t *hi)
{
    const __m256i p01 = _mm256_blend_epi16(v[0], _mm256_slli_epi32(v[1], 16), 0xaa);
    const __m256i p23 = _mm256_blend_epi16(v[2], _mm256_slli_epi32(v[3], 16), 0xaa);
    _mm256_storeu_si256((__m256i *)lo, dot4(p01, p23, TAPS(15826, 27411), TAPS(7345, -4240)));
    _mm256_storeu_si256((__m256i *)hi, dot4(p01, p23, TAPS(-4240, -7345), TAPS(27411, -15826)));
}

static void dwt_vert_s_avx2(const int32_t *const s[4], unsigned w, int32_t add, unsigned shift,
                            int32_t *lo, int32_t *hi)
{
    const Taps64 t = taps64();
    const __m256i va = _mm256_set1_epi64x(add);
    const __m128i sh = _mm_cvtsi32_si128((int)shift);
    const int exact = !add && !shift;
    unsigned x = 0;
    for (; shift <= 32 && x + 8 <= w; x += 8) {
        __m256i e[4], o[4];
        for (int k = 0; k < 4; k++)
            e[k] = _mm256_loadu_si256((const __m256i *)(s[k] + x));
        if (exact && short8(e)) {
            vert8_short(e, lo + x, hi + x);
            continue;
        }
        for (int k = 0; k < 4; k++)
            o[k] = _mm256_srli_epi64(e[k], 32);
        _mm256_storeu_si256((__m256i *)(lo + x), round_eo(sum64(e, t.l), sum64(o, t.l), va, sh));
        _mm256_storeu_si256((__m256i *)(hi + x), round_eo(sum64(e, t.h), sum64(o, t.h), va, sh));
    }
    if (x < w) {
        const int32_t *const r[4] = {s[0] + x, s[1] + x, s[2] + x, s[3] + x};
        vmaf_adm_dwt_vert_s_c(r, w - x, add, shift, lo + x, hi + x);
    }
}

/* The low 32 bits of the 64-bit lanes of a (outputs 0..3) and b (4..7). */
static inline __m256i pack64(__m256i a, __m256i b)
{
    const __m256 p = _mm256_shuffle_ps(_mm256_castsi256_ps(a), _mm256_castsi256_ps(b),
                                       _MM_SHUFFLE(2, 0, 2, 0));
    return _mm256_permute4x64_epi64(_mm256_castps_si256(p), _MM_SHUFFLE(3, 1, 2, 0));
}

/* The four taps of outputs x..x+3, from row[2x-1 .. 2x+6]. */
static inline void taps_of(const int32_t *row, __m256i v[4])
{
    v[0] = _mm256_loadu_si256((const __m256i *)(row - 1));
    v[1] = _mm256_srli_epi64(v[0], 32);
    v[2] = _mm256_loadu_si256((const __m256i *)(row + 1));
    v[3] = _mm256_srli_epi64(v[2], 32);
}

static inline __m256i horz4(const __m256i v[4], const __m256i t[4], __m256i add, __m128i shift)
{
    return _mm256_srl_epi64(_mm256_add_epi64(sum64(v, t), add), shift);
}

/* 8 outputs of each band from row pair lo, hi (already offset by 2x). */
static inline void horz8_s(const int32_t *lo, const int32_t *hi, const Taps64 *t, __m256i add,
                           __m128i shift, int32_t *a, int32_t *const b[3])
{
    __m256i l0[4], l1[4], h0[4], h1[4];
    taps_of(lo, l0);
    taps_of(lo + 8, l1);
    taps_of(hi, h0);
    taps_of(hi + 8, h1);
    _mm256_storeu_si256((__m256i *)a,
                        pack64(horz4(l0, t->l, add, shift), horz4(l1, t->l, add, shift)));
    _mm256_storeu_si256((__m256i *)b[1],
                        pack64(horz4(l0, t->h, add, shift), horz4(l1, t->h, add, shift)));
    _mm256_storeu_si256((__m256i *)b[0],
                        pack64(horz4(h0, t->l, add, shift), horz4(h1, t->l, add, shift)));
    _mm256_storeu_si256((__m256i *)b[2],
                        pack64(horz4(h0, t->h, add, shift), horz4(h1, t->h, add, shift)));
}

static void dwt_horz_s_avx2(const int32_t *lo, const int32_t *hi, unsigned w, int32_t add,
                            unsigned shift, int32_t *a, AdmBandRows *out)
{
    const Taps64 t = taps64();
    const __m256i va = _mm256_set1_epi64x(add);
    const __m128i sh = _mm_cvtsi32_si128((int)shift);
    const unsigned n = (w + 1) / 2;
    unsigned x = 0;
    for (; shift <= 32 && x + 8 <= n; x += 8) {
        int32_t *const b[3] = {out->b[0] + x, out->b[1] + x, out->b[2] + x};
        horz8_s(lo + 2 * x, hi + 2 * x, &t, va, sh, a + x, b);
    }
    if (x < n) {
        AdmBandRows rest = {{out->b[0] + x, out->b[1] + x, out->b[2] + x}};
        vmaf_adm_dwt_horz_s_c(lo + 2 * x, hi + 2 * x, w - 2 * x, add, shift, a + x, &rest);
    }
}

void vmaf_adm_dsp_init_dwt_avx2(AdmDsp *dsp)
{
    dsp->dwt_vert_8 = dwt_vert_8_avx2;
    dsp->dwt_vert_16 = dwt_vert_16_avx2;
    dsp->dwt_horz_0 = dwt_horz_0_avx2;
    dsp->dwt_vert_s = dwt_vert_s_avx2;
    dsp->dwt_horz_s = dwt_horz_s_avx2;
}
