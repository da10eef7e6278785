/*
 * Denominator terms in plain C (AdmDsp.den_0 / den_s, contract in
 * adm_dsp.h): the reference band's energy, cubed, per row.
 */
#include <stdint.h>

#include "feature/adm/adm_dsp.h"
#include "feature/adm/adm_dsp_c.h"
#include "feature/adm/adm_int.h"

static void den_0_c(const AdmBandRows *s, unsigned x0, unsigned x1, uint64_t sum[3])
{
    for (int b = 0; b < 3; b++) {
        const int32_t *row = s->b[b];
        uint64_t acc = 0;
        for (unsigned x = x0; x < x1; x++) {
            /* |x| <= 2^15: the square fits 32 bits, which lets this vectorise */
            const uint32_t m = adm_mag(row[x]);
            acc += (uint64_t)(m * m) * m;
        }
        sum[b] = acc;
    }
}

static void den_s_c(const AdmBandRows *s, unsigned x0, unsigned x1, const AdmDenRound *rnd,
                    uint64_t sum[3])
{
    for (int b = 0; b < 3; b++) {
        const int32_t *row = s->b[b];
        uint64_t acc = 0;
        for (unsigned x = x0; x < x1; x++) {
            const uint64_t m = adm_mag(row[x]);
            const uint64_t sq = (m * m + rnd->sq_add) >> rnd->sq_shift;
            acc += (sq * m + rnd->cub_add) >> rnd->cub_shift;
        }
        sum[b] = acc;
    }
}

void vmaf_adm_dsp_init_den_c(AdmDsp *dsp)
{
    dsp->den_0 = den_0_c;
    dsp->den_s = den_s_c;
}
