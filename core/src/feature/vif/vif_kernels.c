/*
 * Row functions of the integer VIF (contracts in vif_dsp.h), plain C: the
 * table vmaf_vif_dsp_SUFFIX (meson passes VIF_KERNEL_SUFFIX=c), the
 * definition every hand-written SIMD entry is tested against. Integer sums
 * are exact in their types and the per-pixel f64 steps keep the
 * reference's order, so vectorising across pixels cannot change a bit.
 */
#include <stdint.h>

#include "feature/vif/vif_dsp.h"
#include "feature/vif/vif_tables.h"

#ifndef VIF_KERNEL_SUFFIX
#error "VIF_KERNEL_SUFFIX must name the variant (c, avx2, ...)"
#endif
#define VIF_CAT2(a, b) a##_##b
#define VIF_CAT(a, b) VIF_CAT2(a, b)
#define KFN(name) VIF_CAT(name, VIF_KERNEL_SUFFIX)
#define VIF_STR2(x) #x
#define VIF_STR(x) VIF_STR2(x)

#define VIF_ALWAYS_INLINE inline __attribute__((always_inline))
/* Columns per block of the vertical and horizontal passes: the sums of a
 * block stay in L1 (at most 5 x 64 x 8 bytes). */
#define VIF_BLOCK 64
/* The neural noise variance 2.0 in 16.16 fixed point. */
#define VIF_SIGMA_NSQ 131072u

#define pixel uint8_t
#define sqsum uint32_t
#define FN(name) KFN(name##_8)
#include "feature/vif/vif_tmpl.c"
#undef pixel
#undef sqsum
#undef FN

#define pixel uint16_t
#define sqsum uint64_t
#define FN(name) KFN(name##_16)
#include "feature/vif/vif_tmpl.c"
#undef pixel
#undef sqsum
#undef FN

static VIF_ALWAYS_INLINE void stat_h_taps(const VifStatRow *in, const unsigned f, unsigned j0,
                                          unsigned n, const VifMoments *out)
{
    const unsigned taps = vif_taps(f);
    const uint16_t *c = vif_filter[f];
    const ptrdiff_t first = (ptrdiff_t)j0 - (ptrdiff_t)(taps / 2);
    for (unsigned i0 = 0; i0 < n; i0 += VIF_BLOCK) {
        const unsigned m = n - i0 < VIF_BLOCK ? n - i0 : VIF_BLOCK;
        uint32_t s1[VIF_BLOCK], s2[VIF_BLOCK];
        uint64_t s11[VIF_BLOCK], s22[VIF_BLOCK], s12[VIF_BLOCK];
        for (unsigned i = 0; i < m; i++)
            s1[i] = s2[i] = 0, s11[i] = s22[i] = s12[i] = 0;
        for (unsigned k = 0; k < taps; k++) {
            const ptrdiff_t at = first + (ptrdiff_t)(i0 + k);
            const uint16_t *restrict m1 = in->mu1 + at, *restrict m2 = in->mu2 + at;
            const uint32_t *restrict xx = in->xx + at, *restrict yy = in->yy + at;
            const uint32_t *restrict xy = in->xy + at;
            const uint32_t ck = c[k];
            for (unsigned i = 0; i < m; i++) {
                s1[i] += ck * m1[i];
                s2[i] += ck * m2[i];
                s11[i] += ck * (uint64_t)xx[i];
                s22[i] += ck * (uint64_t)yy[i];
                s12[i] += ck * (uint64_t)xy[i];
            }
        }
        uint32_t *restrict o1 = out->mu1 + i0, *restrict o2 = out->mu2 + i0;
        uint32_t *restrict oxx = out->xx + i0, *restrict oyy = out->yy + i0;
        uint32_t *restrict oxy = out->xy + i0;
        for (unsigned i = 0; i < m; i++) {
            o1[i] = s1[i];
            o2[i] = s2[i];
            oxx[i] = (uint32_t)((s11[i] + 32768) >> 16);
            oyy[i] = (uint32_t)((s22[i] + 32768) >> 16);
            oxy[i] = (uint32_t)((s12[i] + 32768) >> 16);
        }
    }
}

static void KFN(stat_h)(const VifStatRow *in, unsigned f, unsigned j0, unsigned n,
                        const VifMoments *out)
{
    switch (f) {
    case 0: stat_h_taps(in, 0, j0, n, out); break;
    case 1: stat_h_taps(in, 1, j0, n, out); break;
    case 2: stat_h_taps(in, 2, j0, n, out); break;
    default: stat_h_taps(in, 3, j0, n, out); break;
    }
}

/* log2(v) * 2048 for 2^16 <= v < 2^32: the top 16 bits index the table. */
static inline int32_t vif_log2_32(uint32_t v)
{
    const int k = 16 - __builtin_clz(v);
    return vmaf_vif_log2_table[(v >> k) - VIF_LOG2_FIRST] + 2048 * k;
}

/* log2(v) * 2048 for 2^17 <= v < 2^48 (the statistic stays below 2^45). */
static inline int32_t vif_log2_64(uint64_t v)
{
    const int k = 48 - __builtin_clzll(v);
    return vmaf_vif_log2_table[(v >> k) - VIF_LOG2_FIRST] + 2048 * k;
}

/* The log term of the numerator for one gain g (already limited). */
static inline int32_t vif_num_term(double g, int32_t sigma1_sq, uint32_t numer1)
{
    const int64_t gain_part = (int64_t)(g * g * sigma1_sq);
    return vif_log2_64((uint64_t)(gain_part + numer1));
}

/* The numerator's log terms of a pixel with sigma1_sq >= 2, sigma12 > 0 and
 * sigma2_sq > 0: into *shared when no gain limit applies (then every set has
 * the same term), else into each set's sum. */
static inline void vif_num_log(int32_t sigma1_sq, int32_t sigma2_sq, int32_t sigma12,
                               const VifGain *gain, int64_t *shared, VifAccum *acc)
{
    const double eps = 65536 * 1.0e-10; /* spelt as the reference does */
    const double g = sigma12 / (sigma1_sq + eps);
    const double sv = sigma2_sq - g * sigma12;
    /* f64 -> int32 truncates; negative values clamp to 0 */
    const uint32_t numer1 = (uint32_t)(sv > 0 ? (int32_t)sv : 0) + VIF_SIGMA_NSQ;
    const int32_t log_den = vif_log2_64(numer1);
    if (g <= gain->min) {
        *shared += vif_num_term(g, sigma1_sq, numer1) - log_den;
        return;
    }
    for (unsigned p = 0; p < gain->n; p++) {
        const double gl = g < gain->limit[p] ? g : gain->limit[p];
        acc->num_log[p] += vif_num_term(gl, sigma1_sq, numer1) - log_den;
    }
}

static void KFN(stat_px)(const VifMoments *m, unsigned n, const VifGain *gain, VifAccum *acc)
{
    int64_t den_log = 0, num_non_log = 0, den_non_log = 0, num_shared = 0;
    for (unsigned i = 0; i < n; i++) {
        const uint32_t mu1 = m->mu1[i], mu2 = m->mu2[i];
        const uint32_t mu1_sq = (uint32_t)(((uint64_t)mu1 * mu1 + 0x80000000u) >> 32);
        const uint32_t mu2_sq = (uint32_t)(((uint64_t)mu2 * mu2 + 0x80000000u) >> 32);
        const uint32_t mu12 = (uint32_t)(((uint64_t)mu1 * mu2 + 0x80000000u) >> 32);
        /* the differences wrap in 32 bits and are read as signed, as in the
         * reference (a huge variance turns negative there too) */
        const int32_t sigma1_sq = (int32_t)(m->xx[i] - mu1_sq);
        const int32_t sigma12 = (int32_t)(m->xy[i] - mu12);
        int32_t sigma2_sq = (int32_t)(m->yy[i] - mu2_sq);
        if (sigma2_sq < 0)
            sigma2_sq = 0;
        if (sigma1_sq < (int32_t)VIF_SIGMA_NSQ) {
            num_non_log += sigma2_sq;
            den_non_log++;
            continue;
        }
        den_log += vif_log2_32((uint32_t)sigma1_sq + VIF_SIGMA_NSQ) - 2048 * 17;
        if (sigma12 > 0 && sigma2_sq > 0)
            vif_num_log(sigma1_sq, sigma2_sq, sigma12, gain, &num_shared, acc);
    }
    acc->den_log += den_log;
    acc->num_non_log += num_non_log;
    acc->den_non_log += den_non_log;
    for (unsigned p = 0; p < gain->n; p++)
        acc->num_log[p] += num_shared;
}

static VIF_ALWAYS_INLINE void dec_h_taps(const uint16_t *in_ref, const uint16_t *in_dis,
                                         const unsigned f, unsigned n, uint16_t *out_ref,
                                         uint16_t *out_dis)
{
    const unsigned taps = vif_taps(f);
    const uint16_t *c = vif_filter[f];
    for (unsigned j0 = 0; j0 < n; j0 += VIF_BLOCK) {
        const unsigned m = n - j0 < VIF_BLOCK ? n - j0 : VIF_BLOCK;
        uint32_t s1[VIF_BLOCK], s2[VIF_BLOCK];
        for (unsigned j = 0; j < m; j++)
            s1[j] = s2[j] = 0;
        for (unsigned k = 0; k < taps; k++) {
            const ptrdiff_t at = 2 * (ptrdiff_t)j0 + (ptrdiff_t)k - (ptrdiff_t)(taps / 2);
            const uint16_t *restrict r = in_ref + at, *restrict d = in_dis + at;
            const uint32_t ck = c[k];
            for (unsigned j = 0; j < m; j++) {
                s1[j] += ck * r[2 * j];
                s2[j] += ck * d[2 * j];
            }
        }
        uint16_t *restrict r = out_ref + j0, *restrict d = out_dis + j0;
        for (unsigned j = 0; j < m; j++) {
            r[j] = (uint16_t)((s1[j] + 32768) >> 16);
            d[j] = (uint16_t)((s2[j] + 32768) >> 16);
        }
    }
}

static void KFN(dec_h)(const uint16_t *in_ref, const uint16_t *in_dis, unsigned f,
                       unsigned n, uint16_t *out_ref, uint16_t *out_dis)
{
    switch (f) {
    case 0: dec_h_taps(in_ref, in_dis, 0, n, out_ref, out_dis); break;
    case 1: dec_h_taps(in_ref, in_dis, 1, n, out_ref, out_dis); break;
    case 2: dec_h_taps(in_ref, in_dis, 2, n, out_ref, out_dis); break;
    default: dec_h_taps(in_ref, in_dis, 3, n, out_ref, out_dis); break;
    }
}

const VifDsp KFN(vmaf_vif_dsp) = {
    .name = VIF_STR(VIF_KERNEL_SUFFIX),
    .stat_v_8 = KFN(stat_v_8),
    .stat_v_16 = KFN(stat_v_16),
    .stat_h = KFN(stat_h),
    .stat_px = KFN(stat_px),
    .dec_v_8 = KFN(dec_v_8),
    .dec_v_16 = KFN(dec_v_16),
    .dec_h = KFN(dec_h),
};
