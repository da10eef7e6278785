/*
 * The reference's CSF weight formulas, evaluated with libm at run time for
 * viewing geometries other than the default one (whose values are the
 * generated constants of adm_tables.c; test/adm compares the two).
 *
 * The bits depend on the C type of every intermediate: each float variable
 * below is a float in the reference too, and float*float products stay
 * float products. Built with -ffp-contract=off: no fused multiply-add.
 */
#include <errno.h>
#include <math.h>

#include "feature/adm/adm_csf.h"

#define ADM_PI 3.14159265358979323846

/* Watson, Yang, Solomon, Villasenor 1997: Y-channel threshold model and the
 * 7-9 wavelet basis amplitudes [scale][theta]. */
static const float watson_a = 0.495f, watson_k = 0.466f, watson_f0 = 0.401f;
static const float watson_g[4] = {1.501f, 1.0f, 0.534f, 1.0f};
static const float basis_amplitude[4][4] = {
    {0.62171f, 0.67234f, 0.72709f, 0.67234f},
    {0.34537f, 0.41317f, 0.49428f, 0.41317f},
    {0.18004f, 0.22727f, 0.28688f, 0.22727f},
    {0.091401f, 0.11792f, 0.15214f, 0.11792f},
};

float vmaf_adm_watson_weight(int scale, int theta, double nvd, int rdh)
{
    /* display resolution in pixels per degree of visual angle */
    const float r = nvd * rdh * ADM_PI / 180.0;
    const float temp = log10(pow(2.0, scale + 1) * watson_f0 * watson_g[theta] / r);
    const float expo = watson_k * temp * temp;
    const float q = 2.0 * watson_a * pow(10.0, expo) / basis_amplitude[scale][theta];
    return 1.0f / q;
}

/* Barten's CSF as simplified in HDR-VDP 2.2.1: parameters measured at six
 * luminance anchors (cd/m^2), interpolated in log luminance. */
static const float lum_anchor[6] = {0.002f, 0.02f, 0.2f, 2.0f, 20.0f, 150.0f};
static const float barten_p[6][5] = {
    {0.0160737f, 0.991265f, 3.74038f, 0.50722f, 4.46044f},
    {0.383873f, 0.800889f, 3.54104f, 0.682505f, 4.94958f},
    {0.929301f, 0.476505f, 4.37453f, 0.750315f, 5.28678f},
    {1.29776f, 0.405782f, 4.40602f, 0.935314f, 5.61425f},
    {1.49222f, 0.334278f, 3.79542f, 1.07327f, 6.4635f},
    {1.46213f, 0.394533f, 2.7755f, 1.16577f, 7.45665f},
};
static const float barten_sa[4] = {30.162f, 4.0627f, 1.6596f, 0.2712f};
static const float mtf_a[4] = {0.424838596301290f, 0.572435103936480f, 0.000167576239164937f,
                               0.00255872352306433f};
static const float mtf_b[4] = {0.028f, 0.37f, 37.0f, 360.0f};

static float lerp_f(float x0, float y0, float x1, float y1, float x)
{
    return y0 + ((y1 - y0) / (x1 - x0)) * (x - x0);
}

static float barten_mtf(float freq)
{
    float mtf = 0.0f;
    for (int i = 0; i < 4; i++)
        mtf = mtf + mtf_a[i] * exp(-mtf_b[i] * freq);
    return mtf;
}

static float barten_rod_cone(float lum)
{
    return barten_sa[0] * pow(pow(barten_sa[1] / lum, barten_sa[2]) + 1, -barten_sa[3]);
}

/* The luminance parameters p[0..3] at lum (the reference uses 100 cd/m^2). */
static void barten_params(double lum, float p[4])
{
    double l = lum > lum_anchor[5] ? lum_anchor[5] : lum < lum_anchor[0] ? lum_anchor[0] : lum;
    int i = 0;
    while (i < 4 && !(l >= lum_anchor[i] && l <= lum_anchor[i + 1]))
        i++;
    const float x0 = log10(lum_anchor[i]), x1 = log10(lum_anchor[i + 1]), x = log10(l);
    for (int k = 0; k < 4; k++)
        p[k] = lerp_f(x0, barten_p[i][k + 1], x1, barten_p[i + 1][k + 1], x);
}

float vmaf_adm_barten_weight(int scale, double nvd, int rdh, double csf_scale)
{
    const double lum = 100.0;
    const float r = nvd * rdh * ADM_PI / 180.0;
    const float freq = r / pow(2, scale + 1);
    float p[4];
    barten_params(lum, p);
    const float a = 1.0f + pow(p[0] * freq, p[1]);
    const float b = 1.0f / pow(1 - exp(-pow(freq / 7, 2)), p[2]);
    const float csf = p[3] / pow(a * b, 0.5);
    return csf * barten_mtf(freq) * barten_rod_cone(lum) * csf_scale;
}

/* Barten-Watson blend weights [mode - 2][geometry][theta][scale]. */
static const float blend[2][8][2][4] = {
    {
        {{0.01183f, 0.025026f, 0.04295f, 0.058621f}, {0.004302f, 0.011778f, 0.023918f, 0.035901f}},
        {{0.004212f, 0.014809f, 0.029642f, 0.047464f}, {0.000984f, 0.005852f, 0.0146f, 0.027574f}},
        {{0.00226f, 0.01183f, 0.025026f, 0.04295f}, {0.000479f, 0.004302f, 0.011778f, 0.023918f}},
        {{0.000092f, 0.004212f, 0.014809f, 0.029642f}, {0.000050f, 0.000984f, 0.005852f, 0.0146f}},
        {{0.018715f, 0.035637f, 0.052798f, 0.061509f}, {0.007999f, 0.018396f, 0.031851f, 0.037718f}},
        {{0.010144f, 0.022561f, 0.040309f, 0.05672f}, {0.003463f, 0.010282f, 0.021839f, 0.034641f}},
        {{0.027961f, 0.045875f, 0.060275f, 0.056234f}, {0.013572f, 0.026277f, 0.036959f, 0.034511f}},
        {{0.016781f, 0.032822f, 0.05032f, 0.061594f}, {0.00691f, 0.016545f, 0.029917f, 0.037777f}},
    },
    {
        {{0.011249f, 0.022606f, 0.035930f, 0.045673f}, {0.004097f, 0.010921f, 0.021430f, 0.031313f}},
        {{0.004052f, 0.013939f, 0.026298f, 0.038833f}, {0.000927f, 0.005544f, 0.013415f, 0.024515f}},
        {{0.002166f, 0.011249f, 0.022606f, 0.035930f}, {0.000447f, 0.004097f, 0.010921f, 0.021430f}},
        {{0.000077f, 0.004052f, 0.013939f, 0.026298f}, {0.000045f, 0.000927f, 0.005544f, 0.013415f}},
        {{0.017329f, 0.030870f, 0.042134f, 0.047410f}, {0.007509f, 0.016707f, 0.028072f, 0.032722f}},
        {{0.009689f, 0.020577f, 0.034162f, 0.044523f}, {0.003302f, 0.009579f, 0.019661f, 0.030318f}},
        {{0.024969f, 0.037825f, 0.046676f, 0.043974f}, {0.012511f, 0.023424f, 0.032139f, 0.030166f}},
        {{0.015665f, 0.028766f, 0.040612f, 0.047483f}, {0.006514f, 0.015107f, 0.026476f, 0.032776f}},
    },
};

/* Table index of a geometry; 2160 lines at 1.5H has the pixels per degree of
 * 1080 at 3H and uses its table. */
static int blend_geometry(double nvd, int rdh)
{
    static const struct { int rdh; double nvd; int table; } known[] = {
        {1080, 3.0, 0}, {1080, 5.0, 1}, {2160, 1.5, 0}, {2160, 3.0, 2}, {2160, 5.0, 3},
        {720, 3.0, 4},  {720, 5.0, 5},  {480, 3.0, 6},  {480, 5.0, 7},
    };
    for (unsigned i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
        if (known[i].rdh == rdh && known[i].nvd == nvd)
            return known[i].table;
    }
    return -1;
}

int vmaf_adm_blend_weight(int mode, int scale, int diag, double nvd, int rdh, float *out)
{
    const int g = blend_geometry(nvd, rdh);
    if (g < 0 || mode < ADM_CSF_BLEND || mode > ADM_CSF_BLEND_MAE || scale < 0 || scale > 3)
        return -EINVAL;
    *out = blend[mode - ADM_CSF_BLEND][g][diag ? 1 : 0][scale];
    return 0;
}

float vmaf_adm_cos1deg_sq_libm(void)
{
    return cos(1.0 * ADM_PI / 180.0) * cos(1.0 * ADM_PI / 180.0);
}
