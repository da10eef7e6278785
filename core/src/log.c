#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>

#include "log.h"

static atomic_int log_level = VMAF_LOG_LEVEL_ERROR;

void vmaf_log_set_level(enum VmafLogLevel level)
{
    atomic_store(&log_level, (int)level);
}

enum VmafLogLevel vmaf_log_get_level(void)
{
    return (enum VmafLogLevel)atomic_load(&log_level);
}

void vmaf_log(enum VmafLogLevel level, const char *fmt, ...)
{
    static const char *const names[] = { "", "error", "warning", "info", "debug" };
    if (level == VMAF_LOG_LEVEL_NONE || (int)level > atomic_load(&log_level))
        return;
    /* Format into one buffer so that lines from worker threads never interleave. */
    char line[1024];
    int n = snprintf(line, sizeof(line), "libvmaf: %s: ", names[level]);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line + n, sizeof(line) - (size_t)n, fmt, ap);
    va_end(ap);
    fprintf(stderr, "%s\n", line);
}
