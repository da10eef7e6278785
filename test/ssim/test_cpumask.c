/* VmafConfiguration.cpumask switches SIMD variants off: with AVX2 and
 * AVX-512 masked, the plain C kernels run; with nothing masked, the best
 * variant this CPU has runs (the last one vmaf_ssim_kernels_get() gives). */
#include <stdio.h>
#include <string.h>

#include "libvmaf/libvmaf.h"

#include "cpu.h"
#include "feature/ssim/ssim.h"
#include "feature/ssim/ssim_kernels.h"

static int init_with(uint64_t mask)
{
    VmafContext *vmaf;
    VmafConfiguration cfg = { .cpumask = mask };
    if (vmaf_init(&vmaf, cfg))
        return -1;
    vmaf_close(vmaf);
    return 0;
}

int main(void)
{
    int fail = 0;
    if (init_with(VMAF_CPU_FLAG_AVX2 | VMAF_CPU_FLAG_AVX512)) {
        fprintf(stderr, "vmaf_init failed\n");
        return 1;
    }
    if (strcmp(vmaf_ssim_kernels_name(), "c")) {
        fprintf(stderr, "FAIL: masked AVX2|AVX512 but kernels are %s\n", vmaf_ssim_kernels_name());
        fail = 1;
    }
    if (init_with(VMAF_CPU_FLAG_AVX512)) {
        fprintf(stderr, "vmaf_init failed\n");
        return 1;
    }
    const char *k = vmaf_ssim_kernels_name();
    if (!strcmp(k, "avx512")) {
        fprintf(stderr, "FAIL: masked AVX512 but kernels are avx512\n");
        fail = 1;
    }
    if (init_with(0)) {
        fprintf(stderr, "vmaf_init failed\n");
        return 1;
    }
    /* The best variant: the last one this build and CPU can use. */
    const char *best = vmaf_ssim_kernels_name();
    const char *want = "c";
    for (int i = 0; i < vmaf_ssim_kernels_count(); i++)
        if (vmaf_ssim_kernels_get(i))
            want = vmaf_ssim_kernels_get(i)->name;
    if (strcmp(best, want)) {
        fprintf(stderr, "FAIL: nothing masked but kernels are %s, not %s\n", best, want);
        fail = 1;
    }
    printf("no mask: %s; AVX512 masked: %s\n", best, k);
    if (!fail)
        printf("cpumask: all checks passed\n");
    return fail;
}
