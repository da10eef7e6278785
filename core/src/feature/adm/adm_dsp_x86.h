/*
 * The x86 entries of AdmDsp: one setter per kernel file and instruction
 * set (adm_<stage>_avx2.c, adm_<stage>_avx512.c). Each entry gives the C
 * entry's bits for every input its contract admits; test/checkasm proves it.
 */
#ifndef LIBVMAF_SRC_FEATURE_ADM_ADM_DSP_X86_H
#define LIBVMAF_SRC_FEATURE_ADM_ADM_DSP_X86_H

#include "feature/adm/adm_dsp.h"

/* For row loops instantiated per constant flag. */
#define ADM_INLINE static inline __attribute__((always_inline))

/* Gain limits applied per pass over a row (more are done in passes). */
#define ADM_DSP_GAIN_CHUNK 4u

void vmaf_adm_dsp_init_dwt_avx2(AdmDsp *dsp);
void vmaf_adm_dsp_init_decouple_avx2(AdmDsp *dsp);
void vmaf_adm_dsp_init_mask_avx2(AdmDsp *dsp);
void vmaf_adm_dsp_init_den_avx2(AdmDsp *dsp);

void vmaf_adm_dsp_init_dwt_avx512(AdmDsp *dsp);
void vmaf_adm_dsp_init_decouple_avx512(AdmDsp *dsp);
void vmaf_adm_dsp_init_mask_avx512(AdmDsp *dsp);
void vmaf_adm_dsp_init_den_avx512(AdmDsp *dsp);

#endif /* LIBVMAF_SRC_FEATURE_ADM_ADM_DSP_X86_H */
