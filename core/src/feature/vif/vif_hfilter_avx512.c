/*
 * The horizontal passes of the integer VIF (stat_h, dec_h; vif_dsp.h) with
 * AVX-512 (F, BW), 32 outputs a step; the arithmetic is
 * vif_hfilter_avx2.c's (int16 planes offset by 32768, two taps per
 * pmaddwd, 32-bit moments as a high and a low half). With 32 registers the
 * odd outputs share the even ones' loads: a load at column a gives them
 * the taps (a - 1, a). Ends are loaded and stored under masks.
 */
#include <immintrin.h>
#include <stdint.h>

#include "feature/vif/vif_x86.h"

#define AINLINE inline __attribute__((always_inline))
#define RUN 256
#define PLANE (RUN + 2 * VIF_MAX_HALF + 80)

/* Keeps sums in the order written (see vif_hfilter_avx2.c). */
#define CHAIN(a, b) __asm__("" : "+v"(a), "+v"(b))

static AINLINE __m512i pair_coef(VifTapPair tp)
{
    return _mm512_set1_epi32((int)((uint32_t)(uint16_t)tp.c0 | (uint32_t)tp.c1 << 16));
}

static AINLINE __m512i loadu(const void *p)
{
    return _mm512_loadu_si512(p);
}

static AINLINE __mmask32 mask32(unsigned n)
{
    return n >= 32 ? ~0u : (1u << n) - 1;
}

/* --- statistic ----------------------------------------------------------- */

enum { M1, M2, XH, XL, YH, YL, ZH, ZL, PLANES };

/* The last group of outputs reads up to 48 elements past the copy. */
static AINLINE void zero_past(int16_t *p, unsigned len)
{
    _mm512_storeu_si512(p + len, _mm512_setzero_si512());
    _mm512_storeu_si512(p + len + 32, _mm512_setzero_si512());
}

static AINLINE void copy16(int16_t *dst, const uint16_t *src, unsigned len)
{
    const __m512i off = _mm512_set1_epi16((short)0x8000);
    for (unsigned i = 0; i < len; i += 32) {
        const __mmask32 m = mask32(len - i);
        _mm512_mask_storeu_epi16(dst + i, m, _mm512_xor_si512(_mm512_maskz_loadu_epi16(m, src + i),
                                                              off));
    }
    zero_past(dst, len);
}

static AINLINE void copy32(int16_t *hi, int16_t *lo, const uint32_t *src, unsigned len)
{
    const __m512i off = _mm512_set1_epi16((short)0x8000);
    const __m512i even = _mm512_set_epi16(62, 60, 58, 56, 54, 52, 50, 48, 46, 44, 42, 40, 38, 36,
                                          34, 32, 30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8,
                                          6, 4, 2, 0);
    const __m512i odd = _mm512_add_epi16(even, _mm512_set1_epi16(1));
    for (unsigned i = 0; i < len; i += 32) {
        const __mmask32 m = mask32(len - i);
        const __m512i x0 = _mm512_maskz_loadu_epi32((__mmask16)m, src + i);
        const __m512i x1 = _mm512_maskz_loadu_epi32((__mmask16)(m >> 16), src + i + 16);
        _mm512_mask_storeu_epi16(lo + i, m,
                                 _mm512_xor_si512(_mm512_permutex2var_epi16(x0, even, x1), off));
        _mm512_mask_storeu_epi16(hi + i, m,
                                 _mm512_xor_si512(_mm512_permutex2var_epi16(x0, odd, x1), off));
    }
    zero_past(lo, len);
    zero_past(hi, len);
}

static AINLINE VifTapPair odd_step(const unsigned f, unsigned m)
{
    const unsigned t = vif_taps(f), a = 2 * m;
    const uint16_t *c = vif_filter[f];
    return (VifTapPair){a, a + 1, a ? c[a - 1] : 0, a < t ? c[a] : 0};
}

/* The even and odd outputs of 32 from o on, less the offsets' 2^31;
 * filter 3 (split centre tap) loads the odd ones apart. */
static AINLINE void taps32(const int16_t *p, const unsigned f, unsigned o, __m512i *even,
                           __m512i *odd)
{
    __m512i e = _mm512_setzero_si512(), d = e;
    for (unsigned m = 0; m < VIF_H_STEPS(f); m++) {
        const VifTapPair tp = vif_h_step(f, m);
        const __m512i x = loadu(p + o + tp.at);
        e = _mm512_add_epi32(e, _mm512_madd_epi16(x, pair_coef(tp)));
        if (f < 3)
            d = _mm512_add_epi32(d, _mm512_madd_epi16(x, pair_coef(odd_step(f, m))));
        else
            d = _mm512_add_epi32(d, _mm512_madd_epi16(loadu(p + o + tp.at + 1), pair_coef(tp)));
        CHAIN(e, d);
    }
    *even = e;
    *odd = d;
}

/* Even and odd lanes to 32 outputs in order, n of them (n < 32: masked). */
static AINLINE void store_eo(uint32_t *out, __m512i e, __m512i d, unsigned n)
{
    const __m512i lo = _mm512_unpacklo_epi32(e, d), hi = _mm512_unpackhi_epi32(e, d);
    const __m512i first = _mm512_setr_epi64(0, 1, 8, 9, 2, 3, 10, 11);
    const __m512i second = _mm512_setr_epi64(4, 5, 12, 13, 6, 7, 14, 15);
    const __mmask32 m = mask32(n);
    _mm512_mask_storeu_epi32(out, (__mmask16)m, _mm512_permutex2var_epi64(lo, first, hi));
    _mm512_mask_storeu_epi32(out + 16, (__mmask16)(m >> 16),
                             _mm512_permutex2var_epi64(lo, second, hi));
}

static AINLINE void mean32(const int16_t *p, const unsigned f, unsigned o, uint32_t *out,
                           unsigned n)
{
    const __m512i off = _mm512_set1_epi32((int)0x80000000u);
    __m512i e, d;
    taps32(p, f, o, &e, &d);
    store_eo(out + o, _mm512_add_epi32(e, off), _mm512_add_epi32(d, off), n);
}

/* Sh + 2^31 + ((Sl + 2^31 + 32768) >> 16). */
static AINLINE __m512i moment(__m512i sh, __m512i sl)
{
    const __m512i lo = _mm512_srli_epi32(_mm512_add_epi32(sl, _mm512_set1_epi32((int)0x80008000u)),
                                         16);
    return _mm512_add_epi32(_mm512_add_epi32(sh, _mm512_set1_epi32((int)0x80000000u)), lo);
}

static AINLINE void moment32(const int16_t *hi, const int16_t *lo, const unsigned f, unsigned o,
                             uint32_t *out, unsigned n)
{
    __m512i he, hd, le, ld;
    taps32(hi, f, o, &he, &hd);
    taps32(lo, f, o, &le, &ld);
    store_eo(out + o, moment(he, le), moment(hd, ld), n);
}

static AINLINE void stat_h_run(const VifStatRow *in, const unsigned f, unsigned j0, unsigned n,
                               const VifMoments *out, int16_t (*pl)[PLANE])
{
    const unsigned half = vif_taps(f) / 2, len = n + 2 * half;
    const ptrdiff_t first = (ptrdiff_t)j0 - (ptrdiff_t)half;
    copy16(pl[M1], in->mu1 + first, len);
    copy16(pl[M2], in->mu2 + first, len);
    copy32(pl[XH], pl[XL], in->xx + first, len);
    copy32(pl[YH], pl[YL], in->yy + first, len);
    copy32(pl[ZH], pl[ZL], in->xy + first, len);
    for (unsigned o = 0; o < n; o += 32)
        mean32(pl[M1], f, o, out->mu1, n - o);
    for (unsigned o = 0; o < n; o += 32)
        mean32(pl[M2], f, o, out->mu2, n - o);
    for (unsigned o = 0; o < n; o += 32)
        moment32(pl[XH], pl[XL], f, o, out->xx, n - o);
    for (unsigned o = 0; o < n; o += 32)
        moment32(pl[YH], pl[YL], f, o, out->yy, n - o);
    for (unsigned o = 0; o < n; o += 32)
        moment32(pl[ZH], pl[ZL], f, o, out->xy, n - o);
}

static AINLINE void stat_h_taps(const VifStatRow *in, const unsigned f, unsigned j0, unsigned n,
                                const VifMoments *out)
{
    _Alignas(64) int16_t planes[PLANES][PLANE];
    for (unsigned i = 0; i < n; i += RUN) {
        const VifMoments o = {out->mu1 + i, out->mu2 + i, out->xx + i, out->yy + i, out->xy + i};
        stat_h_run(in, f, j0 + i, n - i < RUN ? n - i : RUN, &o, planes);
    }
}

static void stat_h_avx512(const VifStatRow *in, unsigned f, unsigned j0, unsigned n,
                          const VifMoments *out)
{
    switch (f) {
    case 0: stat_h_taps(in, 0, j0, n, out); break;
    case 1: stat_h_taps(in, 1, j0, n, out); break;
    case 2: stat_h_taps(in, 2, j0, n, out); break;
    default: stat_h_taps(in, 3, j0, n, out); break;
    }
}

/* --- decimation ---------------------------------------------------------- */

/* Outputs j .. j + 15 of a padded row (those from n on masked): 32-bit
 * sums less the offsets' 2^31. */
static AINLINE __m512i dec16(const uint16_t *in, const unsigned f, unsigned j, unsigned n)
{
    const __m512i off = _mm512_set1_epi16((short)0x8000);
    const uint16_t *p = in + 2 * (ptrdiff_t)j - (ptrdiff_t)(vif_taps(f) / 2);
    const __mmask32 m = j < n ? mask32(2 * (n - j)) : 0;
    __m512i s = _mm512_setzero_si512();
    for (unsigned k = 0; k < VIF_H_STEPS(f); k++) {
        const VifTapPair tp = vif_h_step(f, k);
        const __m512i x = _mm512_xor_si512(_mm512_maskz_loadu_epi16(m, p + tp.at), off);
        s = _mm512_add_epi32(s, _mm512_madd_epi16(x, pair_coef(tp)));
    }
    return _mm512_srli_epi32(_mm512_add_epi32(s, _mm512_set1_epi32((int)0x80008000u)), 16);
}

static AINLINE void dec32(const uint16_t *in, const unsigned f, unsigned j, unsigned n,
                          uint16_t *out)
{
    const __m512i v = _mm512_packus_epi32(dec16(in, f, j, n), dec16(in, f, j + 16, n));
    const __m512i order = _mm512_setr_epi64(0, 2, 4, 6, 1, 3, 5, 7);
    _mm512_mask_storeu_epi16(out + j, mask32(n - j), _mm512_permutexvar_epi64(order, v));
}

static AINLINE void dec_h_taps(const uint16_t *in_ref, const uint16_t *in_dis, const unsigned f,
                               unsigned n, uint16_t *out_ref, uint16_t *out_dis)
{
    for (unsigned j = 0; j < n; j += 32) {
        dec32(in_ref, f, j, n, out_ref);
        dec32(in_dis, f, j, n, out_dis);
    }
}

static void dec_h_avx512(const uint16_t *in_ref, const uint16_t *in_dis, unsigned f, unsigned n,
                         uint16_t *out_ref, uint16_t *out_dis)
{
    switch (f) {
    case 0: dec_h_taps(in_ref, in_dis, 0, n, out_ref, out_dis); break;
    case 1: dec_h_taps(in_ref, in_dis, 1, n, out_ref, out_dis); break;
    case 2: dec_h_taps(in_ref, in_dis, 2, n, out_ref, out_dis); break;
    default: dec_h_taps(in_ref, in_dis, 3, n, out_ref, out_dis); break;
    }
}

void vmaf_vif_dsp_init_hfilter_avx512(VifDsp *dsp)
{
    dsp->stat_h = stat_h_avx512;
    dsp->dec_h = dec_h_avx512;
}
