#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "log.h"

static atomic_int log_level = VMAF_LOG_LEVEL_ERROR;

/* The lock is held across the callback: calls never overlap, and once
 * vmaf_set_log_callback() returns no thread is still in the old one. */
static pthread_mutex_t sink_lock = PTHREAD_MUTEX_INITIALIZER;
static VmafLogCallback sink;
static void *sink_opaque;

void vmaf_log_set_level(enum VmafLogLevel level)
{
    atomic_store(&log_level, (int)level);
}

enum VmafLogLevel vmaf_log_get_level(void)
{
    return (enum VmafLogLevel)atomic_load(&log_level);
}

void vmaf_set_log_callback(VmafLogCallback callback, void *opaque)
{
    pthread_mutex_lock(&sink_lock);
    sink = callback;
    sink_opaque = opaque;
    pthread_mutex_unlock(&sink_lock);
}

void vmaf_log(enum VmafLogLevel level, const char *fmt, ...)
{
    static const char *const names[] = { "", "error", "warning", "info", "debug" };
    if (level <= VMAF_LOG_LEVEL_NONE || level > VMAF_LOG_LEVEL_DEBUG ||
        (int)level > atomic_load(&log_level))
        return;
    /* Formatted once, written with one call: lines from worker threads
     * never interleave. A long message (a long path) is formatted again
     * into a buffer that fits it rather than cut. */
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    const int n = vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    char *msg = buf;
    if (n >= (int)sizeof(buf) && (msg = malloc((size_t)n + 1))) {
        va_start(ap, fmt);
        vsnprintf(msg, (size_t)n + 1, fmt, ap);
        va_end(ap);
    } else if (!msg) {
        msg = buf;
    }
    /* Names and paths from callers are echoed: a message stays one line. */
    for (char *c = msg; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            *c = '?';
    pthread_mutex_lock(&sink_lock);
    if (sink)
        sink(sink_opaque, level, msg);
    else
        fprintf(stderr, "libvmaf: %s: %s\n", names[level], msg);
    pthread_mutex_unlock(&sink_lock);
    if (msg != buf)
        free(msg);
}
