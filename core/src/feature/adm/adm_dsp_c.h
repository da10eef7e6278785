/* The plain C entries of AdmDsp, one setter per kernel file. */
#ifndef LIBVMAF_SRC_FEATURE_ADM_ADM_DSP_C_H
#define LIBVMAF_SRC_FEATURE_ADM_ADM_DSP_C_H

#include "feature/adm/adm_dsp.h"

void vmaf_adm_dsp_init_dwt_c(AdmDsp *dsp);
void vmaf_adm_dsp_init_decouple_c(AdmDsp *dsp);
void vmaf_adm_dsp_init_mask_c(AdmDsp *dsp);
void vmaf_adm_dsp_init_den_c(AdmDsp *dsp);

#endif /* LIBVMAF_SRC_FEATURE_ADM_ADM_DSP_C_H */
