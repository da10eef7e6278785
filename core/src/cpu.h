/* CPU feature levels that VmafConfiguration.cpumask can switch off. The bit
 * values are libvmaf's, so a mask written for it means the same here. */
#ifndef LIBVMAF_SRC_CPU_H
#define LIBVMAF_SRC_CPU_H

#include <stdint.h>

enum VmafCpuFlag {
    VMAF_CPU_FLAG_SSE2 = 1 << 0,
    VMAF_CPU_FLAG_SSSE3 = 1 << 1,
    VMAF_CPU_FLAG_SSE41 = 1 << 2,
    VMAF_CPU_FLAG_AVX2 = 1 << 3,
    VMAF_CPU_FLAG_AVX512 = 1 << 4,
    VMAF_CPU_FLAG_AVX512ICL = 1 << 5,
};

/* Process-wide like the reference's (the last vmaf_init() sets it): SIMD
 * variants whose flag is set here are not used. Every variant gives the
 * same bits, so this only changes speed. */
void vmaf_cpu_set_disabled(uint64_t mask);
uint64_t vmaf_cpu_disabled(void);

#endif /* LIBVMAF_SRC_CPU_H */
