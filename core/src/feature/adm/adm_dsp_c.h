/*
 * The plain C entries of AdmDsp, one setter per kernel file. The entries
 * themselves are exported too: SIMD entries hand them the columns left over
 * after their last full vector.
 */
#ifndef LIBVMAF_SRC_FEATURE_ADM_ADM_DSP_C_H
#define LIBVMAF_SRC_FEATURE_ADM_ADM_DSP_C_H

#include "feature/adm/adm_dsp.h"

void vmaf_adm_dsp_init_dwt_c(AdmDsp *dsp);
void vmaf_adm_dsp_init_decouple_c(AdmDsp *dsp);
void vmaf_adm_dsp_init_mask_c(AdmDsp *dsp);
void vmaf_adm_dsp_init_den_c(AdmDsp *dsp);

void vmaf_adm_dwt_vert_8_c(const uint8_t *const s[4], unsigned w, int16_t *lo, int16_t *hi);
void vmaf_adm_dwt_vert_16_c(const uint16_t *const s[4], unsigned w, unsigned bpc, int16_t *lo,
                            int16_t *hi);
void vmaf_adm_dwt_horz_0_c(const int16_t *lo, const int16_t *hi, unsigned w, int32_t *a,
                           AdmBandRows *out);
void vmaf_adm_dwt_vert_s_c(const int32_t *const s[4], unsigned w, int32_t add, unsigned shift,
                           int32_t *lo, int32_t *hi);
void vmaf_adm_dwt_horz_s_c(const int32_t *lo, const int32_t *hi, unsigned w, int32_t add,
                           unsigned shift, int32_t *a, AdmBandRows *out);
void vmaf_adm_decouple_0_c(const AdmBandRows *o, const AdmBandRows *t, unsigned x0,
                           unsigned x1, const double *gain, unsigned n, AdmBandRows *r,
                           AdmBandRows *a);
void vmaf_adm_decouple_s_c(const AdmBandRows *o, const AdmBandRows *t, unsigned x0,
                           unsigned x1, const double *gain, unsigned n, AdmBandRows *r,
                           AdmBandRows *a);
void vmaf_adm_csf_0_c(const AdmBandRows *s, unsigned x0, unsigned x1, const uint32_t q[3],
                      int32_t *f, int32_t *c);
void vmaf_adm_csf_s_c(const AdmBandRows *s, unsigned x0, unsigned x1, const uint32_t q[3],
                      int32_t *f, int32_t *c);
void vmaf_adm_sum3_c(const int32_t *f, unsigned x0, unsigned x1, int32_t *out);
void vmaf_adm_cm_0_c(const AdmBandRows *s, const uint32_t q[3], const AdmThrRows *t,
                     unsigned x0, unsigned x1, const AdmCmRound *rnd, int64_t sum[3]);
void vmaf_adm_cm_s_c(const AdmBandRows *s, const uint32_t q[3], const AdmThrRows *t,
                     unsigned x0, unsigned x1, const AdmCmRound *rnd, int64_t sum[3]);

#endif /* LIBVMAF_SRC_FEATURE_ADM_ADM_DSP_C_H */
