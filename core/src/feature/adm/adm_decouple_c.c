/*
 * Decoupling in plain C (AdmDsp.decouple_0 / decouple_s, contract in
 * adm_dsp.h): splits each distorted coefficient into the part explained by
 * the reference (restored, r) and the rest (additive impairment, a).
 *
 * Everything up to the gain limit depends only on the pictures; the gain
 * limits of all parameter groups are applied to the same intermediate.
 */
#include <stdbool.h>
#include <stdint.h>

#include "feature/adm/adm_dsp.h"
#include "feature/adm/adm_dsp_c.h"
#include "feature/adm/adm_int.h"
#include "feature/adm/adm_tables.h"

/* a*b + c*d in 64 bits, wrapping like the reference's int64 sums (which
 * overflow only for |values| near 2^31). */
static inline int64_t dot2(int32_t a, int32_t b, int32_t c, int32_t d)
{
    return (int64_t)((uint64_t)((int64_t)a * b) + (uint64_t)((int64_t)c * d));
}

/* Whether the (h, v) vectors of o and t are less than 1 degree apart. The
 * reference divides each float by 4096.0 first; powers of two scale the
 * double products exactly, so the comparison is the same without. */
static inline bool within_1deg(const int32_t o[3], const int32_t t[3])
{
    const double dp = (float)dot2(o[0], t[0], o[1], t[1]);
    const double oo = (float)dot2(o[0], o[0], o[1], o[1]);
    const double tt = (float)dot2(t[0], t[0], t[1], t[1]);
    return dp >= 0.0 && dp * dp >= (double)vmaf_adm_cos1deg_sq * oo * tt;
}

/* Restored value under a gain limit: the reference compares in double
 * (MIN/MAX of r0 * gain and t) and truncates the result. */
static inline int32_t limit_gain(int32_t r0, int32_t t, int sign, double gain)
{
    const double g = r0 * gain;
    if (sign > 0)
        return (int32_t)(g < t ? g : (double)t);
    return (int32_t)(g > t ? g : (double)t);
}

static inline int32_t clamp_k(int64_t k)
{
    return k < 0 ? 0 : k > 32768 ? 32768 : (int32_t)k;
}

/* One band of one sample at scale 0: k in Q15 from the 2^30/o table, r0 in
 * 16 bits; *sign is the sign of k*o (0 when no gain limit can apply). */
static inline int32_t restore_16(const int32_t *lut, int32_t o, int32_t t, int *sign)
{
    const int32_t k = o ? clamp_k(((int64_t)lut[o] * t + 16384) >> 15) : 32768;
    *sign = (o && k) ? (o > 0 ? 1 : -1) : 0;
    return (int16_t)((k * o + 16384) >> 15);
}

void vmaf_adm_decouple_0_c(const AdmBandRows *o, const AdmBandRows *t, unsigned x0,
                           unsigned x1, const double *gain, unsigned n, AdmBandRows *r,
                           AdmBandRows *a)
{
    const int32_t *lut = vmaf_adm_div_lut() + 32768;
    for (unsigned x = x0; x < x1; x++) {
        const int32_t ov[3] = {o->b[0][x], o->b[1][x], o->b[2][x]};
        const int32_t tv[3] = {t->b[0][x], t->b[1][x], t->b[2][x]};
        const bool aligned = within_1deg(ov, tv);
        for (int b = 0; b < 3; b++) {
            int sign;
            const int32_t r0 = restore_16(lut, ov[b], tv[b], &sign);
            for (unsigned g = 0; g < n; g++) {
                const int32_t rv = aligned && sign ? limit_gain(r0, tv[b], sign, gain[g]) : r0;
                r[g].b[b][x] = (int16_t)rv;
                a[g].b[b][x] = (int16_t)(tv[b] - (int16_t)rv);
            }
        }
    }
}

/* Scales 1..3: o above 15 bits is rounded to 15 significant bits and the
 * quotient shifted back; the reference's rounding term 1 << (14 + shift) is
 * an int, which wraps to -2^31 for the one value with shift 17. */
static inline int32_t restore_32(const int32_t *lut, int32_t o, int32_t t, int *sign)
{
    int64_t k = 32768;
    if (o) {
        const uint32_t mag = adm_mag(o);
        unsigned shift = 0;
        uint32_t top = mag;
        if (mag >= 32768) {
            shift = 17 - (unsigned)__builtin_clz(mag);
            top = (mag + (1u << (shift - 1))) >> shift;
        }
        const int64_t round = (int32_t)(1u << (14 + shift));
        const int64_t q = (int64_t)lut[top] * t * (o < 0 ? -1 : 1);
        k = clamp_k((q + round) >> (15 + shift));
    }
    *sign = (o && k) ? (o > 0 ? 1 : -1) : 0;
    return (int32_t)((k * o + 16384) >> 15);
}

void vmaf_adm_decouple_s_c(const AdmBandRows *o, const AdmBandRows *t, unsigned x0,
                           unsigned x1, const double *gain, unsigned n, AdmBandRows *r,
                           AdmBandRows *a)
{
    const int32_t *lut = vmaf_adm_div_lut() + 32768;
    for (unsigned x = x0; x < x1; x++) {
        const int32_t ov[3] = {o->b[0][x], o->b[1][x], o->b[2][x]};
        const int32_t tv[3] = {t->b[0][x], t->b[1][x], t->b[2][x]};
        const bool aligned = within_1deg(ov, tv);
        for (int b = 0; b < 3; b++) {
            int sign;
            const int32_t r0 = restore_32(lut, ov[b], tv[b], &sign);
            for (unsigned g = 0; g < n; g++) {
                const int32_t rv = aligned && sign ? limit_gain(r0, tv[b], sign, gain[g]) : r0;
                r[g].b[b][x] = rv;
                a[g].b[b][x] = (int32_t)((uint32_t)tv[b] - (uint32_t)rv);
            }
        }
    }
}

void vmaf_adm_dsp_init_decouple_c(AdmDsp *dsp)
{
    dsp->decouple_0 = vmaf_adm_decouple_0_c;
    dsp->decouple_s = vmaf_adm_decouple_s_c;
}
