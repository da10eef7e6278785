/* The library's log, captured; see lib_log.h. (The library replaces
 * control characters, so each message is one line.) */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib_log.h"
#include "progress.h"

#define LIB_REASONS 4
static struct {
    pthread_mutex_t lock;
    char *reason[LIB_REASONS];
    unsigned n;
    bool hold_warnings;
} lib_log = { .lock = PTHREAD_MUTEX_INITIALIZER };

void on_library_log(void *opaque, enum VmafLogLevel level, const char *msg)
{
    (void)opaque;
    pthread_mutex_lock(&lib_log.lock);
    if (level == VMAF_LOG_LEVEL_ERROR ||
        (level == VMAF_LOG_LEVEL_WARNING && lib_log.hold_warnings)) {
        /* The same reason from two calls (both model loaders, several
         * worker threads) is said once; the first few distinct ones are
         * enough to act on. Out of memory, one is lost. */
        bool seen = false;
        for (unsigned i = 0; i < lib_log.n && !seen; i++)
            seen = !strcmp(lib_log.reason[i], msg);
        if (!seen && lib_log.n < LIB_REASONS && (lib_log.reason[lib_log.n] = strdup(msg)))
            lib_log.n++;
    } else {
        progress_end_line();
        fprintf(stderr, "libvmaf: %s: %s\n",
                level == VMAF_LOG_LEVEL_WARNING ? "warning"
                : level == VMAF_LOG_LEVEL_INFO  ? "info"
                                                : "debug",
                msg);
    }
    pthread_mutex_unlock(&lib_log.lock);
}

void lib_hold_warnings(bool on)
{
    pthread_mutex_lock(&lib_log.lock);
    lib_log.hold_warnings = on;
    pthread_mutex_unlock(&lib_log.lock);
}

/* Each reason may have a "; " of its own, hence " / " between them. A
 * level of NONE, or a failure the library had no words for, leaves none. */
const char *lib_why(const char *fallback)
{
    static char *why;
    free(why);
    why = NULL;
    pthread_mutex_lock(&lib_log.lock);
    size_t len = 0;
    for (unsigned i = 0; i < lib_log.n; i++)
        len += strlen(lib_log.reason[i]) + 3;
    if (len && (why = malloc(len + 1))) {
        why[0] = '\0';
        for (unsigned i = 0; i < lib_log.n; i++) {
            if (i)
                strcat(why, " / ");
            strcat(why, lib_log.reason[i]);
        }
    }
    for (unsigned i = 0; i < lib_log.n; i++)
        free(lib_log.reason[i]);
    lib_log.n = 0;
    pthread_mutex_unlock(&lib_log.lock);
    return why ? why : fallback;
}
