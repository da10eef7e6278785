/*
 * Choosing the integer VIF row functions: plain C first, then each
 * instruction-set variant the CPU has and the cpumask allows.
 */
#include <stddef.h>

#include "config.h"
#include "cpu.h"
#include "feature/vif/vif_dsp.h"

extern const VifDsp vmaf_vif_dsp_c;
#if HAVE_AVX2_KERNELS
extern const VifDsp vmaf_vif_dsp_avx2;
#endif
#if HAVE_AVX512_KERNELS
extern const VifDsp vmaf_vif_dsp_avx512;
#endif

static const struct {
    const VifDsp *dsp;
    unsigned cpu_flag;
} variants[] = {
    {&vmaf_vif_dsp_c, 0},
#if HAVE_AVX2_KERNELS
    {&vmaf_vif_dsp_avx2, VMAF_CPU_FLAG_AVX2},
#endif
#if HAVE_AVX512_KERNELS
    {&vmaf_vif_dsp_avx512, VMAF_CPU_FLAG_AVX512},
#endif
};
#define N_VARIANTS ((int)(sizeof(variants) / sizeof(variants[0])))

/* Takes the entries src has. */
static void merge(VifDsp *dsp, const VifDsp *src)
{
#define TAKE(field)                                                                        \
    if (src->field)                                                                        \
        dsp->field = src->field;
    TAKE(name)
    TAKE(stat_v_8)
    TAKE(stat_v_16)
    TAKE(stat_h)
    TAKE(stat_px)
    TAKE(dec_v_8)
    TAKE(dec_v_16)
    TAKE(dec_h)
#undef TAKE
}

void vmaf_vif_dsp_init(VifDsp *dsp, unsigned cpu_flags)
{
    *dsp = vmaf_vif_dsp_c;
    for (int i = 1; i < N_VARIANTS; i++)
        if ((cpu_flags & variants[i].cpu_flag) == variants[i].cpu_flag)
            merge(dsp, variants[i].dsp);
}

const VifDsp *vmaf_vif_dsp_variant(int i)
{
    if (i < 0 || i >= N_VARIANTS ||
        (vmaf_cpu_flags_detected() & variants[i].cpu_flag) != variants[i].cpu_flag)
        return NULL;
    return variants[i].dsp;
}
