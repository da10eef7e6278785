/* CPU feature levels: what the CPU has, and what VmafConfiguration.cpumask
 * switches off. The bit values are libvmaf's, so a mask written for it
 * means the same here. */
#ifndef LIBVMAF_SRC_CPU_H
#define LIBVMAF_SRC_CPU_H

#include <stdint.h>

enum VmafCpuFlag {
    VMAF_CPU_FLAG_SSE2 = 1 << 0,
    VMAF_CPU_FLAG_SSSE3 = 1 << 1,
    VMAF_CPU_FLAG_SSE41 = 1 << 2,
    VMAF_CPU_FLAG_AVX2 = 1 << 3,
    /* AVX-512 F, DQ, BW and VL together: what the kernels are built for. */
    VMAF_CPU_FLAG_AVX512 = 1 << 4,
    VMAF_CPU_FLAG_AVX512ICL = 1 << 5,
};

/* Process-wide like the reference's (the last vmaf_init() sets it): SIMD
 * variants whose flag is set here are not used. Every variant gives the
 * same bits, so this only changes speed. */
void vmaf_cpu_set_disabled(uint64_t mask);
uint64_t vmaf_cpu_disabled(void);

/* The levels this CPU has and this build has kernels for, whatever is
 * disabled (tests compare every level with the C code). */
unsigned vmaf_cpu_flags_detected(void);

/* The levels in use: detected, less those disabled. Each extractor's dsp
 * table is filled from it: C first, then each level it allows. */
unsigned vmaf_cpu_flags(void);

/* An extractor's kernel table built for one instruction set, and the
 * levels it needs (0 for plain C). */
typedef struct VmafKernelVariant {
    const void *table;
    unsigned cpu_flag;
} VmafKernelVariant;

/* From an extractor's variants, C first, then in order of preference:
 * variant i if this CPU has its level, else NULL (what checkasm compares
 * with C); and the last one vmaf_cpu_flags() allows. */
const void *vmaf_kernel_variant_get(const VmafKernelVariant *v, int n, int i);
const void *vmaf_kernel_variant_best(const VmafKernelVariant *v, int n);

#endif /* LIBVMAF_SRC_CPU_H */
