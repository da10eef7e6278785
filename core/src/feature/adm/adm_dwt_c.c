/*
 * The wavelet transform (Daubechies 2, integer) in plain C: the scale-0
 * vertical pass once per sample type (adm_tmpl.c), the other passes on
 * 16-bit (scale 0) or 32-bit (scales 1..3) rows. Contracts: adm_dsp.h.
 */
#include <stdint.h>

#include "feature/adm/adm_dsp.h"
#include "feature/adm/adm_dsp_c.h"

#define pixel uint8_t
#define FN(name) name##_8
#include "feature/adm/adm_tmpl.c"
#undef pixel
#undef FN

#define pixel uint16_t
#define FN(name) name##_16
#include "feature/adm/adm_tmpl.c"
#undef pixel
#undef FN

void vmaf_adm_dwt_vert_8_c(const uint8_t *const s[4], unsigned w, int16_t *lo, int16_t *hi)
{
    dwt_vert_8(s, w, 8, lo, hi);
}

void vmaf_adm_dwt_vert_16_c(const uint16_t *const s[4], unsigned w, unsigned bpc, int16_t *lo,
                            int16_t *hi)
{
    dwt_vert_16(s, w, bpc, lo, hi);
}

/* The four taps of output x start at input 2x-1: the rows are padded. */
void vmaf_adm_dwt_horz_0_c(const int16_t *lo, const int16_t *hi, unsigned w, int32_t *a,
                           AdmBandRows *out)
{
    int32_t *bh = out->b[0], *bv = out->b[1], *bd = out->b[2];
    for (unsigned x = 0; x < (w + 1) / 2; x++) {
        const int16_t *l = lo + 2 * x - 1, *h = hi + 2 * x - 1;
        a[x] = (int16_t)((15826 * l[0] + 27411 * l[1] + 7345 * l[2] - 4240 * l[3] + 32768) >> 16);
        bv[x] = (int16_t)((27411 * l[2] - 4240 * l[0] - 7345 * l[1] - 15826 * l[3] + 32768) >> 16);
        bh[x] = (int16_t)((15826 * h[0] + 27411 * h[1] + 7345 * h[2] - 4240 * h[3] + 32768) >> 16);
        bd[x] = (int16_t)((27411 * h[2] - 4240 * h[0] - 7345 * h[1] - 15826 * h[3] + 32768) >> 16);
    }
}

static inline int64_t taps_lo(int64_t a, int64_t b, int64_t c, int64_t d)
{
    return 15826 * a + 27411 * b + 7345 * c - 4240 * d;
}

static inline int64_t taps_hi(int64_t a, int64_t b, int64_t c, int64_t d)
{
    return 27411 * c - 4240 * a - 7345 * b - 15826 * d;
}

void vmaf_adm_dwt_vert_s_c(const int32_t *const s[4], unsigned w, int32_t add, unsigned shift,
                           int32_t *lo, int32_t *hi)
{
    const int32_t *s0 = s[0], *s1 = s[1], *s2 = s[2], *s3 = s[3];
    for (unsigned x = 0; x < w; x++) {
        lo[x] = (int32_t)((taps_lo(s0[x], s1[x], s2[x], s3[x]) + add) >> shift);
        hi[x] = (int32_t)((taps_hi(s0[x], s1[x], s2[x], s3[x]) + add) >> shift);
    }
}

void vmaf_adm_dwt_horz_s_c(const int32_t *lo, const int32_t *hi, unsigned w, int32_t add,
                           unsigned shift, int32_t *a, AdmBandRows *out)
{
    int32_t *bh = out->b[0], *bv = out->b[1], *bd = out->b[2];
    for (unsigned x = 0; x < (w + 1) / 2; x++) {
        const int32_t *l = lo + 2 * x - 1, *h = hi + 2 * x - 1;
        a[x] = (int32_t)((taps_lo(l[0], l[1], l[2], l[3]) + add) >> shift);
        bv[x] = (int32_t)((taps_hi(l[0], l[1], l[2], l[3]) + add) >> shift);
        bh[x] = (int32_t)((taps_lo(h[0], h[1], h[2], h[3]) + add) >> shift);
        bd[x] = (int32_t)((taps_hi(h[0], h[1], h[2], h[3]) + add) >> shift);
    }
}

void vmaf_adm_dsp_init_dwt_c(AdmDsp *dsp)
{
    dsp->dwt_vert_8 = vmaf_adm_dwt_vert_8_c;
    dsp->dwt_vert_16 = vmaf_adm_dwt_vert_16_c;
    dsp->dwt_horz_0 = vmaf_adm_dwt_horz_0_c;
    dsp->dwt_vert_s = vmaf_adm_dwt_vert_s_c;
    dsp->dwt_horz_s = vmaf_adm_dwt_horz_s_c;
}
