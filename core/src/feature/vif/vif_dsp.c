/*
 * Choosing the integer VIF row functions (dav1d style): the plain C table
 * first, then the hand-written entries of each instruction set that the
 * flags allow, in order (vif_x86.h).
 */
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "cpu.h"
#include "feature/vif/vif_dsp.h"
#include "feature/vif/vif_x86.h"

void vmaf_vif_dsp_init(VifDsp *dsp, unsigned cpu_flags)
{
    vmaf_vif_tables_init();
    *dsp = vmaf_vif_dsp_c;
#if HAVE_AVX2_KERNELS
    if (!(cpu_flags & VMAF_CPU_FLAG_AVX2))
        return;
    vmaf_vif_dsp_init_vfilter_avx2(dsp);
    vmaf_vif_dsp_init_hfilter_avx2(dsp);
    vmaf_vif_dsp_init_stat_avx2(dsp);
    dsp->name = "avx2";
#endif
#if HAVE_AVX512_KERNELS
    if (!(cpu_flags & VMAF_CPU_FLAG_AVX512))
        return;
    vmaf_vif_dsp_init_vfilter_avx512(dsp);
    vmaf_vif_dsp_init_hfilter_avx512(dsp);
    vmaf_vif_dsp_init_stat_avx512(dsp);
    dsp->name = "avx512";
#endif
    (void)cpu_flags;
}

/* The levels vmaf_vif_dsp_variant() numbers, in order. */
static const unsigned variant_flags[] = {
    0,
#if HAVE_AVX2_KERNELS
    VMAF_CPU_FLAG_AVX2,
#endif
#if HAVE_AVX512_KERNELS
    VMAF_CPU_FLAG_AVX2 | VMAF_CPU_FLAG_AVX512,
#endif
};
#define N_VARIANTS ((int)(sizeof(variant_flags) / sizeof(variant_flags[0])))

static VifDsp variants[N_VARIANTS];
static pthread_once_t variants_once = PTHREAD_ONCE_INIT;

static void variants_fill(void)
{
    for (int i = 0; i < N_VARIANTS; i++)
        vmaf_vif_dsp_init(&variants[i], variant_flags[i]);
}

const VifDsp *vmaf_vif_dsp_variant(int i)
{
    if (i < 0 || i >= N_VARIANTS ||
        (vmaf_cpu_flags_detected() & variant_flags[i]) != variant_flags[i])
        return NULL;
    pthread_once(&variants_once, variants_fill);
    return &variants[i];
}
