/*
 * The CSF (contrast sensitivity) weights of one parameter set, in every
 * form the pipeline uses: the reference's float weight, its cube for the
 * denominators, and the fixed-point weight of the integer stages.
 */
#ifndef LIBVMAF_SRC_FEATURE_ADM_ADM_CSF_H
#define LIBVMAF_SRC_FEATURE_ADM_ADM_CSF_H

#include <stdbool.h>
#include <stdint.h>

#include "feature/adm/adm.h"

typedef struct AdmWeights {
    float weight[4][2]; /* [scale][0: h and v bands, 1: d band] */
    double cube[4][2];  /* pow(weight, 3) */
    /* Fixed point per scale and band (h, v, d): scale 0 in Q21, Q21, Q23
     * (uint16 range), scales 1..3 in Q32. */
    uint32_t q[4][3];
    /* csf_mode 1 only: the integer stages use weight * 2^-down, and the
     * numerators are scaled back by 2^(3*down) (the reference overflows). */
    unsigned down[4];
} AdmWeights;

/* Fills w for p (p must have passed vmaf_adm_check): the generated
 * constants for the default geometry, the reference's formulas otherwise. */
void vmaf_adm_weights(const AdmParams *p, AdmWeights *w);

/* Whether a and b give the same integer work (fixed point and scaling). */
bool vmaf_adm_weights_same_integers(const AdmWeights *a, const AdmWeights *b);

/* The reference's formulas, evaluated with libm at run time
 * (adm_csf_ref.c). theta: 1 = h/v bands, 2 = d band. */
float vmaf_adm_watson_weight(int scale, int theta, double nvd, int rdh);
float vmaf_adm_barten_weight(int scale, double nvd, int rdh, double csf_scale);
/* The tabulated blend weight of mode 2 or 3 (diag: 0 = h/v, 1 = d);
 * -EINVAL for a geometry without a table. */
int vmaf_adm_blend_weight(int mode, int scale, int diag, double nvd, int rdh, float *out);
float vmaf_adm_cos1deg_sq_libm(void);

#endif /* LIBVMAF_SRC_FEATURE_ADM_ADM_CSF_H */
