/* The library settings that are process-wide: the log level and the
 * cpumask. Every vmaf_init() sets both, the throw-away contexts the tool
 * makes to change the level included; so every context the tool makes is
 * configured here, with the run's cpumask, and none undoes --cpumask
 * before the extractors read it. */
#ifndef VMAF_TOOLS_LIB_SETTINGS_H
#define VMAF_TOOLS_LIB_SETTINGS_H

#include <stdint.h>

#include "libvmaf/libvmaf.h"

/* The run's cpumask (--cpumask; 0: every SIMD level), set once before any
 * context is made. */
void lib_settings_set_cpumask(uint64_t cpumask);

/* A configuration with `level` and the run's cpumask, nothing else. */
VmafConfiguration lib_settings_config(enum VmafLogLevel level);

/* Sets the library's log level, through a throw-away context. */
void lib_settings_log_level(enum VmafLogLevel level);

#endif /* VMAF_TOOLS_LIB_SETTINGS_H */
