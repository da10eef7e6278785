/* Runs library calls with stderr sent to a file, to check what they log. */
#ifndef TEST_MODEL_CAPTURE_H
#define TEST_MODEL_CAPTURE_H

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct Capture {
    char path[64];
    int saved;
    char text[8192];
} Capture;

static inline void capture_begin(Capture *c)
{
    snprintf(c->path, sizeof(c->path), "/tmp/vmaf_model_log_XXXXXX");
    const int fd = mkstemp(c->path);
    fflush(stderr);
    c->saved = dup(2);
    dup2(fd, 2);
    close(fd);
}

static inline const char *capture_end(Capture *c)
{
    fflush(stderr);
    dup2(c->saved, 2);
    close(c->saved);
    FILE *f = fopen(c->path, "r");
    size_t n = f ? fread(c->text, 1, sizeof(c->text) - 1, f) : 0;
    c->text[n] = '\0';
    if (f)
        fclose(f);
    unlink(c->path);
    return c->text;
}

static inline int capture_lines(const Capture *c)
{
    int n = 0;
    for (const char *s = c->text; *s; s++)
        n += *s == '\n';
    return n;
}

#endif /* TEST_MODEL_CAPTURE_H */
