/*
 * The ADM inner-loop table (dav1d style): plain C first, then the entries
 * of each instruction set the flags allow, each proven equal to C by
 * test/checkasm. Also the division table the decoupling uses, built once
 * (exact integer arithmetic).
 */
#include <pthread.h>
#include <stdint.h>

#include "config.h"
#include "cpu.h"
#include "feature/adm/adm_dsp.h"
#include "feature/adm/adm_dsp_c.h"
#include "feature/adm/adm_dsp_x86.h"

void vmaf_adm_dsp_init_c(AdmDsp *dsp)
{
    vmaf_adm_dsp_init_dwt_c(dsp);
    vmaf_adm_dsp_init_decouple_c(dsp);
    vmaf_adm_dsp_init_mask_c(dsp);
    vmaf_adm_dsp_init_den_c(dsp);
}

void vmaf_adm_dsp_init(AdmDsp *dsp, unsigned cpu_flags)
{
    vmaf_adm_dsp_init_c(dsp);
#if HAVE_AVX2_KERNELS
    if (!(cpu_flags & VMAF_CPU_FLAG_AVX2))
        return;
    vmaf_adm_dsp_init_dwt_avx2(dsp);
    vmaf_adm_dsp_init_decouple_avx2(dsp);
    vmaf_adm_dsp_init_mask_avx2(dsp);
    vmaf_adm_dsp_init_den_avx2(dsp);
#endif
#if HAVE_AVX512_KERNELS
    if (!(cpu_flags & VMAF_CPU_FLAG_AVX512))
        return;
    vmaf_adm_dsp_init_dwt_avx512(dsp);
    vmaf_adm_dsp_init_decouple_avx512(dsp);
    vmaf_adm_dsp_init_mask_avx512(dsp);
    vmaf_adm_dsp_init_den_avx512(dsp);
#endif
    (void)cpu_flags;
}

static int32_t div_lut[65537];
static pthread_once_t div_lut_once = PTHREAD_ONCE_INIT;

static void div_lut_build(void)
{
    for (int32_t v = 1; v <= 32768; v++) {
        div_lut[32768 + v] = (1 << 30) / v;
        div_lut[32768 - v] = -((1 << 30) / v);
    }
}

const int32_t *vmaf_adm_div_lut(void)
{
    pthread_once(&div_lut_once, div_lut_build);
    return div_lut;
}
