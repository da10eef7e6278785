/* Preloaded into the vmaf tool by test_cli.py (LD_PRELOAD): records the
 * cpumask of every vmaf_init() call and, at each vmaf_read_pictures(),
 * writes the cpumask in effect then (that of the last vmaf_init(): the
 * library's mask is process-wide) to the file named by VMAF_CPUMASK_SPY,
 * one line each time it changes. The extractors read the mask when they
 * start, at the first picture, and may read it again at any frame. */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "libvmaf/libvmaf.h"

static uint64_t mask_now;
static int reads;
static uint64_t mask_said;

static void say(uint64_t mask)
{
    const char *path = getenv("VMAF_CPUMASK_SPY");
    FILE *f = path ? fopen(path, "a") : NULL;
    if (!f)
        return;
    fprintf(f, "%llu\n", (unsigned long long)mask);
    fclose(f);
}

int vmaf_init(VmafContext **vmaf, VmafConfiguration cfg)
{
    int (*real)(VmafContext **, VmafConfiguration);
    *(void **)&real = dlsym(RTLD_NEXT, "vmaf_init");
    if (!real)
        return -1;
    mask_now = cfg.cpumask;
    return real(vmaf, cfg);
}

int vmaf_read_pictures(VmafContext *vmaf, VmafPicture *ref, VmafPicture *dist, unsigned index)
{
    int (*real)(VmafContext *, VmafPicture *, VmafPicture *, unsigned);
    *(void **)&real = dlsym(RTLD_NEXT, "vmaf_read_pictures");
    if (!real)
        return -1;
    if (!reads++ || mask_now != mask_said)
        say(mask_now);
    mask_said = mask_now;
    return real(vmaf, ref, dist, index);
}
