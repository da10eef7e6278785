/* The tool's lines on stderr; see message.h. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "lib_log.h"
#include "message.h"
#include "one_line.h"
#include "progress.h"

int report(int status, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    const int n = vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    /* Long paths must not cut off the reason at the end of the line: a
     * longer message is formatted again into a buffer that fits it. */
    char *line = buf;
    if (n >= (int)sizeof(buf) && (line = malloc((size_t)n + 1))) {
        va_start(ap, fmt);
        vsnprintf(line, (size_t)n + 1, fmt, ap);
        va_end(ap);
    } else if (!line) {
        line = buf;
    }
    /* Paths and names are echoed in the message, which must stay one line. */
    one_line(line);
    progress_end_line();
    fprintf(stderr, "vmaf: %s\n", line);
    if (line != buf)
        free(line);
    /* What the library said before a failure is this line's business: a
     * reason the line did not take (it said the same in the tool's words)
     * must not turn up under a later one. */
    if (status)
        (void)lib_why(NULL);
    return status;
}
