/*
 * CSF weighting and contrast masking in plain C (AdmDsp.csf_0/csf_s, sum3,
 * cm_0/cm_s; contracts in adm_dsp.h).
 *
 * The reference builds each sample's masking threshold from a 3x3
 * neighbourhood of every band (27 terms). Its sum is modular int32
 * arithmetic, so it is regrouped here without changing a bit: per row the
 * three bands are summed once (f, c), then three-wide horizontal sums (sum3)
 * of three rows make up the neighbourhood.
 */
#include <stddef.h>
#include <stdint.h>

#include "feature/adm/adm_dsp.h"
#include "feature/adm/adm_dsp_c.h"
#include "feature/adm/adm_int.h"

void vmaf_adm_csf_0_c(const AdmBandRows *s, unsigned x0, unsigned x1, const uint32_t q[3],
                      int32_t *f, int32_t *c)
{
    static const int32_t add[3] = {16384, 16384, 65535};
    static const unsigned shift[3] = {15, 15, 17};
    for (unsigned x = x0; x < x1; x++) {
        int32_t fs = 0, cs = 0;
        for (int b = 0; b < 3; b++) {
            const int32_t y = (int16_t)(((int32_t)q[b] * s->b[b][x] + add[b]) >> shift[b]);
            const int32_t ay = (int32_t)adm_mag(y);
            fs += (int16_t)((4369 * ay + 2048) >> 12);
            cs += (int16_t)((8738 * ay + 2048) >> 12);
        }
        f[x] = fs;
        c[x] = cs;
    }
}

void vmaf_adm_csf_s_c(const AdmBandRows *s, unsigned x0, unsigned x1, const uint32_t q[3],
                      int32_t *f, int32_t *c)
{
    for (unsigned x = x0; x < x1; x++) {
        uint32_t fs = 0, cs = 0;
        for (int b = 0; b < 3; b++) {
            const int32_t y = (int32_t)(((int64_t)q[b] * s->b[b][x] + (1 << 27)) >> 28);
            const int64_t ay = (int32_t)adm_mag(y); /* |INT32_MIN| stays negative */
            fs += (uint32_t)(int32_t)((143165577 * ay - 2147483648ll) >> 32);
            cs += (uint32_t)(int32_t)((286331153 * ay - 2147483648ll) >> 32);
        }
        f[x] = (int32_t)fs;
        c[x] = (int32_t)cs;
    }
}

void vmaf_adm_sum3_c(const int32_t *f, unsigned x0, unsigned x1, int32_t *out)
{
    for (unsigned x = x0; x < x1; x++)
        out[x] = (int32_t)((uint32_t)f[(ptrdiff_t)x - 1] + (uint32_t)f[x] + (uint32_t)f[x + 1]);
}

static inline uint32_t threshold(const AdmThrRows *t, unsigned x)
{
    return (uint32_t)t->up[x] + (uint32_t)t->mid[x] + (uint32_t)t->down[x] - (uint32_t)t->f[x] +
           (uint32_t)t->c[x];
}

/* One band's masked term: the reference's int32 x, squared into int32. */
static inline int64_t masked_cube(uint32_t mag, uint32_t thr, const AdmCmRound *rnd, int b)
{
    int32_t x = (int32_t)(mag - (thr << rnd->sub[b]));
    if (x < 0)
        x = 0;
    const int32_t sq = (int32_t)(((int64_t)x * x + rnd->sq_add[b]) >> rnd->sq_shift[b]);
    return ((int64_t)sq * x + rnd->cub_add[b]) >> rnd->cub_shift[b];
}

void vmaf_adm_cm_0_c(const AdmBandRows *s, const uint32_t q[3], const AdmThrRows *t,
                     unsigned x0, unsigned x1, const AdmCmRound *rnd, int64_t sum[3])
{
    uint64_t acc[3] = {0, 0, 0};
    for (unsigned x = x0; x < x1; x++) {
        const uint32_t thr = threshold(t, x);
        for (int b = 0; b < 3; b++) {
            const int32_t v = s->b[b][x] * (int32_t)q[b];
            acc[b] += (uint64_t)masked_cube(adm_mag(v), thr, rnd, b);
        }
    }
    for (int b = 0; b < 3; b++)
        sum[b] = (int64_t)acc[b];
}

void vmaf_adm_cm_s_c(const AdmBandRows *s, const uint32_t q[3], const AdmThrRows *t,
                     unsigned x0, unsigned x1, const AdmCmRound *rnd, int64_t sum[3])
{
    uint64_t acc[3] = {0, 0, 0};
    for (unsigned x = x0; x < x1; x++) {
        const uint32_t thr = threshold(t, x);
        for (int b = 0; b < 3; b++) {
            const int32_t v = (int32_t)(((int64_t)q[b] * s->b[b][x] + (1 << 27)) >> 28);
            acc[b] += (uint64_t)masked_cube(adm_mag(v), thr, rnd, b);
        }
    }
    for (int b = 0; b < 3; b++)
        sum[b] = (int64_t)acc[b];
}

void vmaf_adm_dsp_init_mask_c(AdmDsp *dsp)
{
    dsp->csf_0 = vmaf_adm_csf_0_c;
    dsp->csf_s = vmaf_adm_csf_s_c;
    dsp->sum3 = vmaf_adm_sum3_c;
    dsp->cm_0 = vmaf_adm_cm_0_c;
    dsp->cm_s = vmaf_adm_cm_s_c;
}
