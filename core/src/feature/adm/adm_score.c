/*
 * From integer sums to the reported values, in the reference's floating
 * point: per band a cube root (powf) plus the noise floor, summed in float
 * per scale, then summed in double over the scales. The types and order of
 * every step are the reference's; do not regroup.
 */
#include <math.h>

#include "feature/adm/adm_frame.h"

/* powf of the noise floor: the region area times the weight, in double,
 * rounded to float for powf. */
static float noise_floor(const AdmScalePlan *p, double weight)
{
    return powf(p->area * weight, 1.0f / 3.0f);
}

static float den_scale(const AdmScalePlan *p, const uint64_t acc[3], const AdmWeights *w,
                       unsigned s, double noise_weight)
{
    const double shift = pow(2, p->den_exp);
    const float add = noise_floor(p, noise_weight);
    float band[3];
    for (int b = 0; b < 3; b++) {
        const double csf = (double)(acc[b] / shift) * w->cube[s][b == 2];
        band[b] = powf(csf, 1.0f / 3.0f) + add;
    }
    return band[0] + band[1] + band[2];
}

/* Scale 0 converts the sums in double, scales 1..3 in float (the reference
 * divides an int64 by a float there). csf_mode 1 scales the integer weights
 * by 2^-down, so the sums by 2^(-3 down). */
static float num_scale(const AdmScalePlan *p, const int64_t acc[3], const AdmWeights *w,
                       unsigned s, double noise_weight)
{
    const float add = noise_floor(p, noise_weight);
    const int down = 3 * (int)w->down[s];
    float band[3];
    for (int b = 0; b < 3; b++) {
        float v;
        if (s == 0) {
            v = (float)(acc[b] / pow(2, p->cm_exp[b] - down));
        } else {
            const float shift = pow(2, p->cm_exp[b] - down);
            v = (float)acc[b] / shift;
        }
        band[b] = powf(v, 1.0f / 3.0f) + add;
    }
    return band[0] + band[1] + band[2];
}

/* adm3 = MAX(adm2 * w + (1 - aim) * (1 - w), min_val), NaN giving min_val. */
static double adm3_of(double adm2, double aim, const AdmParams *p)
{
    const double v = adm2 * p->dlm_weight + (1 - aim) * (1 - p->dlm_weight);
    return v > p->min_val ? v : p->min_val;
}

void vmaf_adm_score(const AdmScalePlan plan[4], const AdmSums *sums, const AdmWeights *w,
                    const AdmParams *p, unsigned width, unsigned height, AdmScores *out)
{
    double num = 0, den = 0, aim = 0;
    for (unsigned s = 0; s < 4; s++) {
        float ns = 0.0f, ds = 0.0f, as = 0.0f;
        if (s == 0 && p->skip_scale0) {
            ds = 1e-10f; /* the reference's guard against 0/0 */
        } else {
            const AdmScalePlan *ps = &plan[s];
            ds = den_scale(ps, sums->den[s], w, s, p->noise_weight);
            ns = num_scale(ps, sums->dlm[s], w, s, p->noise_weight);
            if (!p->skip_aim)
                as = num_scale(ps, sums->aim[s], w, s, 0.0);
        }
        num += ns;
        den += ds;
        aim += as;
        out->num_scale[s] = ns;
        out->den_scale[s] = ds;
        out->scale[s] = out->num_scale[s] / out->den_scale[s];
    }
    const double limit = 1e-10 * (int)(width * height) / (1920.0 * 1080.0);
    num = num < limit ? 0 : num;
    den = den < limit ? 0 : den;
    /* den == 0 leaves the reference's AIM unset (stack garbage): 0 here */
    out->adm2 = den == 0.0 ? 1.0 : num / den;
    out->aim = den == 0.0 ? 0.0 : aim / den;
    out->adm3 = adm3_of(out->adm2, out->aim, p);
    out->adm = out->adm2;
    out->num = num;
    out->den = den;
}
