/* Library logger: one line per message on stderr, filtered by level. */
#ifndef LIBVMAF_SRC_LOG_H
#define LIBVMAF_SRC_LOG_H

#include "libvmaf/libvmaf.h"

/* The level is process-wide, like the reference: the last vmaf_init() sets it. */
void vmaf_log_set_level(enum VmafLogLevel level);
enum VmafLogLevel vmaf_log_get_level(void);

/* Writes "libvmaf: <level>: <message>\n" to stderr, or passes the message to
 * the callback of vmaf_set_log_callback(), when level is enabled. */
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
void vmaf_log(enum VmafLogLevel level, const char *fmt, ...);

#define vmaf_error(...) vmaf_log(VMAF_LOG_LEVEL_ERROR, __VA_ARGS__)
#define vmaf_warning(...) vmaf_log(VMAF_LOG_LEVEL_WARNING, __VA_ARGS__)
#define vmaf_info(...) vmaf_log(VMAF_LOG_LEVEL_INFO, __VA_ARGS__)
#define vmaf_debug(...) vmaf_log(VMAF_LOG_LEVEL_DEBUG, __VA_ARGS__)

#endif /* LIBVMAF_SRC_LOG_H */
