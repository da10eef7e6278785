#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "config.h"
#include "cpu.h"

static _Atomic uint64_t cpu_disabled;

void vmaf_cpu_set_disabled(uint64_t mask)
{
    atomic_store(&cpu_disabled, mask);
}

uint64_t vmaf_cpu_disabled(void)
{
    return atomic_load(&cpu_disabled);
}

static unsigned detected;
static pthread_once_t detect_once = PTHREAD_ONCE_INIT;

static void detect(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
#if HAVE_AVX2_KERNELS
    if (__builtin_cpu_supports("avx2"))
        detected |= VMAF_CPU_FLAG_AVX2;
#endif
#if HAVE_AVX512_KERNELS
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
        __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl"))
        detected |= VMAF_CPU_FLAG_AVX512;
#endif
#endif
}

unsigned vmaf_cpu_flags_detected(void)
{
    pthread_once(&detect_once, detect);
    return detected;
}

unsigned vmaf_cpu_flags(void)
{
    return vmaf_cpu_flags_detected() & ~(unsigned)vmaf_cpu_disabled();
}

const void *vmaf_kernel_variant_get(const VmafKernelVariant *v, int n, int i)
{
    if (i < 0 || i >= n || (vmaf_cpu_flags_detected() & v[i].cpu_flag) != v[i].cpu_flag)
        return NULL;
    return v[i].table;
}

const void *vmaf_kernel_variant_best(const VmafKernelVariant *v, int n)
{
    const unsigned flags = vmaf_cpu_flags();
    const void *best = v[0].table;
    for (int i = 1; i < n; i++)
        if ((flags & v[i].cpu_flag) == v[i].cpu_flag)
            best = v[i].table;
    return best;
}
