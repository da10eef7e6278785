/* Process-wide library settings; see lib_settings.h. */
#include "lib_settings.h"

static uint64_t run_cpumask;

void lib_settings_set_cpumask(uint64_t cpumask)
{
    run_cpumask = cpumask;
}

VmafConfiguration lib_settings_config(enum VmafLogLevel level)
{
    return (VmafConfiguration){ .log_level = level, .cpumask = run_cpumask };
}

void lib_settings_log_level(enum VmafLogLevel level)
{
    VmafContext *tmp = NULL;
    if (!vmaf_init(&tmp, lib_settings_config(level)))
        vmaf_close(tmp);
}
