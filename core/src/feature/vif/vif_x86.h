/*
 * The hand-written x86 entries of VifDsp: one setter per kernel file and
 * instruction set (vif_<pass>_avx2.c, vif_<pass>_avx512.c), called by
 * vmaf_vif_dsp_init() after the C table is filled. Every entry returns the
 * C entry's bits for every input its contract admits (test/checkasm).
 */
#ifndef LIBVMAF_SRC_FEATURE_VIF_VIF_X86_H
#define LIBVMAF_SRC_FEATURE_VIF_VIF_X86_H

#include <stdint.h>

#include "feature/vif/vif_dsp.h"
#include "feature/vif/vif_tables.h"

/* The C table: entries fall back to it below their vector width. */
extern const VifDsp vmaf_vif_dsp_c;

/* The filters as pairs of taps for 16-bit multiply-add (pmaddwd), whose
 * coefficients must fit int16. Derived from vif_filter; with f and the
 * index constant, the compiler folds them. */
typedef struct VifTapPair {
    unsigned at, other; /* the two rows or columns, 0..T-1 */
    int c0, c1;         /* their coefficients */
} VifTapPair;

/* Vertical passes: row p with row T-1-p (equal taps), p < H, and as pair
 * H the centre row with itself at half its tap (every centre tap is even;
 * filter 3's, 43728, does not fit int16 whole). */
#define VIF_V_PAIRS(f) (vif_taps(f) / 2 + 1)
static inline __attribute__((always_inline)) VifTapPair vif_v_pair(unsigned f, unsigned p)
{
    const unsigned t = vif_taps(f), h = t / 2;
    const uint16_t *c = vif_filter[f];
    if (p < h)
        return (VifTapPair){p, t - 1 - p, c[p], c[p]};
    return (VifTapPair){h, h, c[h] / 2, c[h] / 2};
}

/* Horizontal passes: neighbouring columns (2m, 2m+1), the last one alone;
 * filter 3 as (c0, c1/2) at columns 0, 1 and (c1/2, c2) at columns 1, 2. */
#define VIF_H_STEPS(f) ((f) == 3 ? 2u : (vif_taps(f) + 1) / 2)
static inline __attribute__((always_inline)) VifTapPair vif_h_step(unsigned f, unsigned m)
{
    const unsigned t = vif_taps(f);
    const uint16_t *c = vif_filter[f];
    if (f == 3)
        return m ? (VifTapPair){1, 2, c[1] / 2, c[2]} : (VifTapPair){0, 1, c[0], c[1] / 2};
    return (VifTapPair){2 * m, 2 * m + 1, c[2 * m], 2 * m + 1 < t ? c[2 * m + 1] : 0};
}

void vmaf_vif_dsp_init_vfilter_avx2(VifDsp *dsp);
void vmaf_vif_dsp_init_hfilter_avx2(VifDsp *dsp);
void vmaf_vif_dsp_init_stat_avx2(VifDsp *dsp);

void vmaf_vif_dsp_init_vfilter_avx512(VifDsp *dsp);
void vmaf_vif_dsp_init_hfilter_avx512(VifDsp *dsp);
void vmaf_vif_dsp_init_stat_avx512(VifDsp *dsp);

#endif /* LIBVMAF_SRC_FEATURE_VIF_VIF_X86_H */
