#include <stdatomic.h>
#include <stdint.h>

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
