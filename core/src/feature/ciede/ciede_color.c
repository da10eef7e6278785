/*
 * The colour arithmetic of ciede2000. Bits depend on every conversion
 * between float and double, on which libm function runs in which
 * precision and on the order of each sum, so each step keeps the
 * reference's types and order: the colour conversion in double with the
 * L*a*b* companding rounded to float, the difference in float variables
 * that store rounded double expressions, powf where the reference calls
 * it. Built with -ffp-contract=off.
 */
#include <math.h>

#include "feature/ciede/ciede.h"

#define PI 3.14159265358979323846

/* sRGB's transfer curve, inverted; `c` is non-linear R, G or B in 0..1. */
static double linear_of(double c)
{
    if (c > 10. / 255.)
        return pow((c + 0.055) * (1.0 / 1.055), 2.4);
    return c * (1.0 / 12.92);
}

/* CIELAB's companding of X/Xn, Y/Yn or Z/Zn, rounded to float as the
 * reference returns it. */
static float lab_of(double c)
{
    const double kappa = 24389.0 / 27.0;
    const double epsilon = 216.0 / 24389.0;
    if (c > epsilon)
        return pow(c, 1.0 / 3.0);
    return (kappa * c + 16.0) * (1.0 / 116.0);
}

CiedeLab vmaf_ciede_lab(double y, double u, double v, unsigned bpc)
{
    const double scale = 1 << (bpc - 8);
    y = (y - 16. * scale) * (1. / (219. * scale));
    u = (u - 128. * scale) * (1. / (224. * scale));
    v = (v - 128. * scale) * (1. / (224. * scale));
    /* BT.709 YCbCr to non-linear RGB */
    const double r = linear_of(y + 1.28033 * v);
    const double g = linear_of(y - 0.21482 * u - 0.38059 * v);
    const double b = linear_of(y + 2.12798 * u);
    const double x = lab_of((r * 0.4124564390896921 + g * 0.357576077643909 +
                             b * 0.18043748326639894) * (1.0 / 0.95047)); /* D65 white */
    const double yy = lab_of(r * 0.21267285140562248 + g * 0.715152155287818 +
                             b * 0.07217499330655958);
    const double z = lab_of((r * 0.019333895582329317 + g * 0.119192025881303 +
                             b * 0.9503040785363677) * (1.0 / 1.08883));
    return (CiedeLab){ .l = (116.0 * yy) - 16.0, .a = 500.0 * (x - yy), .b = 200.0 * (yy - z) };
}

/* The hue angle of (a', b) in [0, 2 pi), 0 for a grey. */
static float hue_of(float b, float a_prime)
{
    if (b == 0.0 && a_prime == 0.0)
        return 0.0;
    float h = atan2(b, a_prime);
    if (h < 0.0)
        h += 2. * PI;
    return h;
}

static float hue_difference(float c1, float c2, float h1, float h2)
{
    if (c1 == 0.0 || c2 == 0.0)
        return 0.0;
    if (fabsf(h1 - h2) <= PI)
        return h2 - h1;
    if (h2 <= h1)
        return h2 - h1 + 2. * PI;
    return h2 - h1 - 2. * PI;
}

static float mean_hue(float h1, float h2)
{
    return fabs((double)(h1 - h2)) > PI ? (h1 + h2 + 2.0 * PI) / 2.0 : (h1 + h2) / 2.0;
}

static float hue_weight_t(float h)
{
    return 1.0 - 0.17 * cos(h - PI / 6.0) + 0.24 * cos(2.0 * h) +
           0.32 * cos(3.0 * h + PI / 30.0) - 0.20 * cos(4.0 * h - 7.0 * PI / 20.0);
}

static float to_degrees(float radians)
{
    return radians * (180.0 / PI);
}

static float to_radians(float degrees)
{
    return degrees * (PI / 180.0);
}

/* The rotation term R_T. */
static float rotation(float c_bar_prime, float h_bar_prime)
{
    const float d = (to_degrees(h_bar_prime) - 275.0) * (1.0 / 25.0);
    const float c7 = powf(c_bar_prime, 7);
    return -2.0 * sqrt(c7 / (powf(c_bar_prime, 7) + powf(25., 7))) *
           sin(to_radians(60.0 * exp(-(powf(d, 2)))));
}

/* a' of one colour, from the mean chroma of both. */
static float a_prime_of(float a, float c_bar)
{
    return a + (a / 2) * (1 - sqrt(pow(c_bar, 7) / (pow(c_bar, 7) + pow(25, 7))));
}

float vmaf_ciede2000(CiedeLab c1, CiedeLab c2)
{
    const float k_l = 0.65, k_c = 1.0, k_h = 4.0;
    const float delta_l = c2.l - c1.l;
    const float l_bar = (c1.l + c2.l) / 2;
    const float chroma1 = sqrt(pow(c1.a, 2) + pow(c1.b, 2));
    const float chroma2 = sqrt(pow(c2.a, 2) + pow(c2.b, 2));
    const float c_bar = (chroma1 + chroma2) / 2;
    const float a1 = a_prime_of(c1.a, c_bar);
    const float a2 = a_prime_of(c2.a, c_bar);
    const float cp1 = sqrt(pow(a1, 2) + pow(c1.b, 2));
    const float cp2 = sqrt(pow(a2, 2) + pow(c2.b, 2));
    const float c_bar_prime = (cp1 + cp2) / 2;
    const float delta_c = cp2 - cp1;
    const float s_l = 1. + ((0.015 * pow(l_bar - 50, 2)) / sqrt(20 + pow(l_bar - 50, 2)));
    const float s_c = 1. + 0.045 * c_bar_prime;
    const float h1 = hue_of(c1.b, a1);
    const float h2 = hue_of(c2.b, a2);
    const float delta_h = hue_difference(chroma1, chroma2, h1, h2);
    const float delta_big_h = 2.0 * sqrt(cp1 * cp2) * sin(delta_h / 2.0);
    const float h_bar = mean_hue(h1, h2);
    const float s_h = 1.0 + 0.015 * c_bar_prime * hue_weight_t(h_bar);
    const float r_t = rotation(c_bar_prime, h_bar);
    const float lightness = delta_l / (k_l * s_l);
    const float chroma = delta_c / (k_c * s_c);
    const float hue = delta_big_h / (k_h * s_h);
    return sqrt(pow(lightness, 2) + pow(chroma, 2) + pow(hue, 2) + r_t * chroma * hue);
}
