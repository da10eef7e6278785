/*
 * Denominator terms in plain C (AdmDsp.den_0 / den_s, contract in
 * adm_dsp.h): the reference band's energy, cubed, per row.
 *
 * The compiler vectorises these loops well, so this file is also built once
 * per x86 instruction set (meson passes ADM_KERNEL_SUFFIX and the -m flags):
 * the same source gives the C entries and the AVX2 and AVX-512 ones.
 */
#include <stdint.h>

#include "feature/adm/adm_dsp.h"
#include "feature/adm/adm_dsp_c.h"
#include "feature/adm/adm_dsp_x86.h"
#include "feature/adm/adm_int.h"

#ifndef ADM_KERNEL_SUFFIX
#define ADM_KERNEL_SUFFIX c
#endif
#define ADM_CAT2(a, b) a##_##b
#define ADM_CAT(a, b) ADM_CAT2(a, b)
#define KFN(name) ADM_CAT(name, ADM_KERNEL_SUFFIX)

static void KFN(den_0)(const AdmBandRows *s, unsigned x0, unsigned x1, uint64_t sum[3])
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

static void KFN(den_s)(const AdmBandRows *s, unsigned x0, unsigned x1, const AdmDenRound *rnd,
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

void KFN(vmaf_adm_dsp_init_den)(AdmDsp *dsp)
{
    dsp->den_0 = KFN(den_0);
    dsp->den_s = KFN(den_s);
}
