/*
 * CSF weights of a parameter set: the float weights (generated constants or
 * the reference's formulas), then the fixed-point forms the integer stages
 * use, derived exactly as the reference derives them.
 */
#include <math.h>
#include <string.h>

#include "feature/adm/adm_csf.h"
#include "feature/adm/adm_tables.h"

/* Whether the float weights of p are those of the generated table: the
 * Watson and Barten weights depend on the product of the viewing distance
 * and the display height (computed in this order by the reference), the
 * blend tables on the pair, Barten also on the CSF scales. */
static bool is_default_geometry(const AdmParams *p)
{
    const bool same_ppd = p->norm_view_dist * p->ref_display_height == 3.0 * 1080;
    switch (p->csf_mode) {
    case ADM_CSF_WATSON:
        return same_ppd;
    case ADM_CSF_BARTEN:
        return same_ppd && p->csf_scale == 1.0 && p->csf_diag_scale == 1.0;
    default:
        return (p->ref_display_height == 1080 && p->norm_view_dist == 3.0) ||
               (p->ref_display_height == 2160 && p->norm_view_dist == 1.5);
    }
}

static float weight_at(const AdmParams *p, int scale, int diag)
{
    const double nvd = p->norm_view_dist;
    const int rdh = p->ref_display_height;
    float w = 0.0f;
    switch (p->csf_mode) {
    case ADM_CSF_WATSON:
        return vmaf_adm_watson_weight(scale, diag ? 2 : 1, nvd, rdh);
    case ADM_CSF_BARTEN:
        return vmaf_adm_barten_weight(scale, nvd, rdh, diag ? p->csf_diag_scale : p->csf_scale);
    default:
        /* geometry checked by vmaf_adm_check(); 0 keeps an unchecked call finite */
        if (vmaf_adm_blend_weight(p->csf_mode, scale, diag, nvd, rdh, &w))
            w = 0.0f;
        return w;
    }
}

static void float_weights(const AdmParams *p, AdmWeights *w)
{
    if (is_default_geometry(p)) {
        const AdmCsfTable *t = &vmaf_adm_csf_default[p->csf_mode];
        memcpy(w->weight, t->weight, sizeof(w->weight));
        memcpy(w->cube, t->cube, sizeof(w->cube));
        return;
    }
    for (int s = 0; s < 4; s++) {
        for (int d = 0; d < 2; d++) {
            w->weight[s][d] = weight_at(p, s, d);
            w->cube[s][d] = pow(w->weight[s][d], 3);
        }
    }
}

/* csf_mode 1: the smallest power-of-two reduction that brings the weights of
 * a scale down to the default Watson weights, for which the reference's
 * integer formats were designed. 0 whenever they already fit. */
static unsigned barten_down(const AdmWeights *w, int s)
{
    const float *limit = vmaf_adm_csf_default[ADM_CSF_WATSON].weight[s];
    unsigned m = 0;
    while (m < 64 && (ldexp(w->weight[s][0], -(int)m) > limit[0] ||
                      ldexp(w->weight[s][1], -(int)m) > limit[1]))
        m++;
    return m;
}

/* Truncation toward zero as a C conversion does; the bounds only guard
 * parameter sets that skipped vmaf_adm_check() (converting an out-of-range
 * double is undefined). */
static uint32_t truncate_to(double v, double max)
{
    return v >= 0.0 && v <= max ? (uint32_t)v : v > max ? (uint32_t)max : 0;
}

/* The reference truncates weight * 2^21 (2^23 for d) to uint16 at scale 0,
 * and weight * 2^32 to uint32 at scales 1..3; with the Watson CSF at the
 * default pixels per degree it uses fixed scale-0 values instead. */
static void fixed_point(const AdmParams *p, AdmWeights *w)
{
    for (int s = 0; s < 4; s++) {
        const unsigned m = p->csf_mode == ADM_CSF_BARTEN ? barten_down(w, s) : 0;
        const int e_hv = (s ? 32 : 21) - (int)m, e_d = (s ? 32 : 23) - (int)m;
        const double hv = w->weight[s][0] * ldexp(1.0, e_hv);
        const double d = w->weight[s][1] * ldexp(1.0, e_d);
        w->down[s] = m;
        if (s == 0) {
            w->q[0][0] = w->q[0][1] = truncate_to(hv, UINT16_MAX);
            w->q[0][2] = truncate_to(d, UINT16_MAX);
        } else {
            w->q[s][0] = w->q[s][1] = truncate_to(hv, UINT32_MAX);
            w->q[s][2] = truncate_to(d, UINT32_MAX);
        }
    }
    const double ppd = p->norm_view_dist * p->ref_display_height;
    if (p->csf_mode == ADM_CSF_WATSON && fabs(ppd - 3.0 * 1080) < 1.0e-8) {
        w->q[0][0] = w->q[0][1] = 36453;
        w->q[0][2] = 49417;
    }
}

void vmaf_adm_weights(const AdmParams *p, AdmWeights *w)
{
    memset(w, 0, sizeof(*w));
    float_weights(p, w);
    fixed_point(p, w);
}

bool vmaf_adm_weights_same_integers(const AdmWeights *a, const AdmWeights *b)
{
    return !memcmp(a->q, b->q, sizeof(a->q)) && !memcmp(a->down, b->down, sizeof(a->down));
}
