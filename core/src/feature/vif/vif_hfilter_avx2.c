/*
 * The horizontal passes of the integer VIF (stat_h, dec_h; vif_dsp.h) with
 * AVX2. pmaddwd adds two neighbouring columns times two taps (vif_h_step):
 * a load at column x gives the pairs (x + 2i, x + 2i + 1), so the even
 * outputs of 16 come from loads at the steps' columns and the odd ones
 * from those one further; the decimation's outputs are every other column
 * and come from one set of loads.
 *
 * stat_h first copies its run into int16 planes, offset by 32768: the two
 * means and the high and low halves of the three 32-bit moments. A moment
 * sum is then 65536 Sh + Sl with Sh, Sl exact in uint32, and
 * (65536 Sh + Sl + 32768) >> 16 = Sh + ((Sl + 32768) >> 16), wrapping as
 * C's cast to uint32 does. The offsets add 32768 * 65536 = 2^31 to every
 * sum (the taps sum to 65536).
 */
#include <immintrin.h>
#include <stdint.h>

#include "feature/vif/vif_x86.h"

#define AINLINE inline __attribute__((always_inline))
/* Outputs per copy of the run. */
#define RUN 256
/* Elements of a plane: the run, its taps either side, the reads past it. */
#define PLANE (RUN + 2 * VIF_MAX_HALF + 48)

/* Keeps sums in the order written: gcc otherwise turns the chains into
 * trees whose products it computes first and spills. */
#define CHAIN(a, b) __asm__("" : "+x"(a), "+x"(b))

static AINLINE __m256i pair_coef(VifTapPair tp)
{
    return _mm256_set1_epi32((int)((uint32_t)(uint16_t)tp.c0 | (uint32_t)tp.c1 << 16));
}

static AINLINE __m256i loadu(const void *p)
{
    return _mm256_loadu_si256((const __m256i *)p);
}

/* --- statistic ----------------------------------------------------------- */

enum { M1, M2, XH, XL, YH, YL, ZH, ZL, PLANES };

/* The last group of outputs reads up to 16 elements past the copy. */
static AINLINE void zero_past(int16_t *p, unsigned len)
{
    _mm256_storeu_si256((__m256i *)(p + len), _mm256_setzero_si256());
    _mm256_storeu_si256((__m256i *)(p + len + 16), _mm256_setzero_si256());
}

static AINLINE void copy16(int16_t *dst, const uint16_t *src, unsigned len)
{
    const __m256i off = _mm256_set1_epi16((short)0x8000);
    unsigned i = 0;
    for (; i + 16 <= len; i += 16)
        _mm256_store_si256((__m256i *)(dst + i), _mm256_xor_si256(loadu(src + i), off));
    for (; i < len; i++)
        dst[i] = (int16_t)(src[i] ^ 0x8000);
    zero_past(dst, len);
}

static AINLINE void copy32(int16_t *hi, int16_t *lo, const uint32_t *src, unsigned len)
{
    const __m256i off = _mm256_set1_epi16((short)0x8000), low = _mm256_set1_epi32(0xffff);
    unsigned i = 0;
    for (; i + 16 <= len; i += 16) {
        const __m256i x0 = loadu(src + i), x1 = loadu(src + i + 8);
        const __m256i l = _mm256_packus_epi32(_mm256_and_si256(x0, low), _mm256_and_si256(x1, low));
        const __m256i h = _mm256_packus_epi32(_mm256_srli_epi32(x0, 16), _mm256_srli_epi32(x1, 16));
        _mm256_store_si256((__m256i *)(lo + i),
                           _mm256_xor_si256(_mm256_permute4x64_epi64(l, 0xd8), off));
        _mm256_store_si256((__m256i *)(hi + i),
                           _mm256_xor_si256(_mm256_permute4x64_epi64(h, 0xd8), off));
    }
    for (; i < len; i++) {
        lo[i] = (int16_t)((src[i] & 0xffff) ^ 0x8000);
        hi[i] = (int16_t)((src[i] >> 16) ^ 0x8000);
    }
    zero_past(lo, len);
    zero_past(hi, len);
}

/* The even and odd outputs o, o + 2, ... and o + 1, o + 3, ... of a plane,
 * less the offsets' 2^31. The odd ones load one column further with the
 * same taps, so that these stay in registers. */
static AINLINE void taps16(const int16_t *p, const unsigned f, unsigned o, __m256i *even,
                           __m256i *odd)
{
    __m256i e = _mm256_setzero_si256(), d = e;
    for (unsigned m = 0; m < VIF_H_STEPS(f); m++) {
        const VifTapPair tp = vif_h_step(f, m);
        const __m256i c = pair_coef(tp);
        e = _mm256_add_epi32(e, _mm256_madd_epi16(loadu(p + o + tp.at), c));
        d = _mm256_add_epi32(d, _mm256_madd_epi16(loadu(p + o + tp.at + 1), c));
        CHAIN(e, d);
    }
    *even = e;
    *odd = d;
}

/* Even and odd lanes to 16 outputs in order; n < 16 stores n of them. */
static AINLINE void store_eo(uint32_t *out, __m256i e, __m256i d, unsigned n)
{
    const __m256i lo = _mm256_unpacklo_epi32(e, d), hi = _mm256_unpackhi_epi32(e, d);
    const __m256i a = _mm256_permute2x128_si256(lo, hi, 0x20);
    const __m256i b = _mm256_permute2x128_si256(lo, hi, 0x31);
    if (n >= 16) {
        _mm256_storeu_si256((__m256i *)out, a);
        _mm256_storeu_si256((__m256i *)(out + 8), b);
        return;
    }
    const __m256i idx = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const __m256i nn = _mm256_set1_epi32((int)n);
    _mm256_maskstore_epi32((int *)out, _mm256_cmpgt_epi32(nn, idx), a);
    _mm256_maskstore_epi32((int *)(out + 8),
                           _mm256_cmpgt_epi32(nn, _mm256_add_epi32(idx, _mm256_set1_epi32(8))), b);
}

static AINLINE void mean16(const int16_t *p, const unsigned f, unsigned o, uint32_t *out,
                           unsigned n)
{
    const __m256i off = _mm256_set1_epi32((int)0x80000000u);
    __m256i e, d;
    taps16(p, f, o, &e, &d);
    store_eo(out + o, _mm256_add_epi32(e, off), _mm256_add_epi32(d, off), n);
}

/* Sh + ((Sl + 32768) >> 16) with both offsets taken back: out holds
 * Sh + 2^31 from mean16 of the high plane. */
static AINLINE void add_low16(const int16_t *lo, const unsigned f, unsigned o, uint32_t *out,
                              unsigned n)
{
    const __m256i off = _mm256_set1_epi32((int)0x80008000u);
    __m256i e, d;
    taps16(lo, f, o, &e, &d);
    e = _mm256_srli_epi32(_mm256_add_epi32(e, off), 16);
    d = _mm256_srli_epi32(_mm256_add_epi32(d, off), 16);
    const __m256i lo4 = _mm256_unpacklo_epi32(e, d), hi4 = _mm256_unpackhi_epi32(e, d);
    const __m256i a = _mm256_permute2x128_si256(lo4, hi4, 0x20);
    const __m256i b = _mm256_permute2x128_si256(lo4, hi4, 0x31);
    if (n >= 16) {
        _mm256_storeu_si256((__m256i *)(out + o), _mm256_add_epi32(loadu(out + o), a));
        _mm256_storeu_si256((__m256i *)(out + o + 8), _mm256_add_epi32(loadu(out + o + 8), b));
        return;
    }
    const __m256i idx = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const __m256i nn = _mm256_set1_epi32((int)n);
    const __m256i ma = _mm256_cmpgt_epi32(nn, idx);
    const __m256i mb = _mm256_cmpgt_epi32(nn, _mm256_add_epi32(idx, _mm256_set1_epi32(8)));
    _mm256_maskstore_epi32((int *)(out + o), ma,
                           _mm256_add_epi32(_mm256_maskload_epi32((int *)(out + o), ma), a));
    _mm256_maskstore_epi32((int *)(out + o + 8), mb,
                           _mm256_add_epi32(_mm256_maskload_epi32((int *)(out + o + 8), mb), b));
}

/* One plane's outputs; a moment's low plane adds to its high plane's. */
static AINLINE void plane_means(const int16_t *p, const unsigned f, unsigned n, uint32_t *out)
{
    for (unsigned o = 0; o < n; o += 16)
        mean16(p, f, o, out, n - o);
}

static AINLINE void plane_lows(const int16_t *p, const unsigned f, unsigned n, uint32_t *out)
{
    for (unsigned o = 0; o < n; o += 16)
        add_low16(p, f, o, out, n - o);
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
    /* a plane at a time: its taps and sums stay in registers */
    plane_means(pl[M1], f, n, out->mu1);
    plane_means(pl[M2], f, n, out->mu2);
    plane_means(pl[XH], f, n, out->xx);
    plane_lows(pl[XL], f, n, out->xx);
    plane_means(pl[YH], f, n, out->yy);
    plane_lows(pl[YL], f, n, out->yy);
    plane_means(pl[ZH], f, n, out->xy);
    plane_lows(pl[ZL], f, n, out->xy);
}

static AINLINE void stat_h_taps(const VifStatRow *in, const unsigned f, unsigned j0, unsigned n,
                                const VifMoments *out)
{
    _Alignas(32) int16_t planes[PLANES][PLANE];
    for (unsigned i = 0; i < n; i += RUN) {
        const VifMoments o = {out->mu1 + i, out->mu2 + i, out->xx + i, out->yy + i, out->xy + i};
        stat_h_run(in, f, j0 + i, n - i < RUN ? n - i : RUN, &o, planes);
    }
}

static void stat_h_avx2(const VifStatRow *in, unsigned f, unsigned j0, unsigned n,
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

/* Outputs j .. j + 7 of a padded row: 32-bit sums less the offsets' 2^31. */
static AINLINE __m256i dec8(const uint16_t *in, const unsigned f, unsigned j)
{
    const __m256i off = _mm256_set1_epi16((short)0x8000);
    const uint16_t *p = in + 2 * (ptrdiff_t)j - (ptrdiff_t)(vif_taps(f) / 2);
    __m256i s = _mm256_setzero_si256();
    for (unsigned m = 0; m < VIF_H_STEPS(f); m++) {
        const VifTapPair tp = vif_h_step(f, m);
        s = _mm256_add_epi32(s, _mm256_madd_epi16(_mm256_xor_si256(loadu(p + tp.at), off),
                                                  pair_coef(tp)));
    }
    return _mm256_srli_epi32(_mm256_add_epi32(s, _mm256_set1_epi32((int)0x80008000u)), 16);
}

static AINLINE void dec16(const uint16_t *in, const unsigned f, unsigned j, uint16_t *out)
{
    const __m256i v = _mm256_packus_epi32(dec8(in, f, j), dec8(in, f, j + 8));
    _mm256_storeu_si256((__m256i *)(out + j), _mm256_permute4x64_epi64(v, 0xd8));
}

static AINLINE void dec_h_taps(const uint16_t *in_ref, const uint16_t *in_dis, const unsigned f,
                               unsigned n, uint16_t *out_ref, uint16_t *out_dis)
{
    unsigned j = 0;
    for (; j + 16 <= n; j += 16) {
        dec16(in_ref, f, j, out_ref);
        dec16(in_dis, f, j, out_dis);
    }
    if (j < n) { /* the last 16 again */
        dec16(in_ref, f, n - 16, out_ref);
        dec16(in_dis, f, n - 16, out_dis);
    }
}

static void dec_h_avx2(const uint16_t *in_ref, const uint16_t *in_dis, unsigned f, unsigned n,
                       uint16_t *out_ref, uint16_t *out_dis)
{
    if (n < 16) {
        vmaf_vif_dsp_c.dec_h(in_ref, in_dis, f, n, out_ref, out_dis);
        return;
    }
    switch (f) {
    case 0: dec_h_taps(in_ref, in_dis, 0, n, out_ref, out_dis); break;
    case 1: dec_h_taps(in_ref, in_dis, 1, n, out_ref, out_dis); break;
    case 2: dec_h_taps(in_ref, in_dis, 2, n, out_ref, out_dis); break;
    default: dec_h_taps(in_ref, in_dis, 3, n, out_ref, out_dis); break;
    }
}

void vmaf_vif_dsp_init_hfilter_avx2(VifDsp *dsp)
{
    dsp->stat_h = stat_h_avx2;
    dsp->dec_h = dec_h_avx2;
}
