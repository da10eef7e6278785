/* libFuzzer harness: the option parser on a NUL-separated argument list.
 * cli_parse must return (never exit or abort) and free what it allocated. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli_parse.h"

#define MAX_ARGS 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *buf = malloc(size + 1);
    if (!buf)
        return 0;
    memcpy(buf, data, size);
    buf[size] = '\0';
    /* Seed files written by hand end with a newline. */
    if (size && buf[size - 1] == '\n')
        buf[size - 1] = '\0';
    char *argv[MAX_ARGS + 2] = { "vmaf" };
    int argc = 1;
    for (char *p = buf; p < buf + size && argc <= MAX_ARGS;) {
        argv[argc++] = p;
        p += strlen(p) + 1;
    }
    argv[argc] = NULL;

    CliSettings s;
    char err[512];
    int r = cli_parse(argc, argv, &s, err, sizeof(err));
    if (r == -22 /* -EINVAL */ && (err[0] == '\0' || strncmp(err, "vmaf: ", 6) || strchr(err, '\n')))
        abort(); /* a usage error is one "vmaf: ..." line */
    if (r == CLI_PARSE_OK) {
        /* What the tool relies on after a successful parse. */
        if (!s.path_ref || !s.path_dist || (s.use_yuv && !(s.width && s.height && s.pix_fmt && s.bitdepth)))
            abort();
        for (unsigned i = 0; i < s.model_cnt; i++)
            if (!s.model[i].name || !s.model[i].version == !s.model[i].path)
                abort();
    }
    cli_settings_free(&s);
    free(buf);
    return 0;
}
