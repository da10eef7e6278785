/* Checks of the report's path, before any frame is scored; see
 * report_path.h. */
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libvmaf/libvmaf.h"

#include "lib_log.h"
#include "message.h"
#include "report_path.h"
#include "vmaf.h"

static bool same_file(const struct stat *a, const struct stat *b)
{
    return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

bool is_stdout(const char *path)
{
    struct stat p, o;
    return !stat(path, &p) && !fstat(STDOUT_FILENO, &o) && same_file(&p, &o);
}

/* "-": stdout appended to an input (vmaf ... -o - >> ref.y4m). */
static int check_stdout_report(const char *const *inputs, const char *const *what,
                               unsigned n_inputs)
{
    struct stat o, in;
    for (unsigned i = 0; i < n_inputs && !fstat(STDOUT_FILENO, &o) && S_ISREG(o.st_mode); i++)
        if (!stat(inputs[i], &in) && same_file(&in, &o))
            return report(VMAF_EXIT_OUTPUT, "refusing to write report (stdout): it is %s (%s); "
                          "send stdout elsewhere", what[i], inputs[i]);
    return 0;
}

/* Nothing the run reads may be overwritten: an existing `out` that is one
 * of the inputs (the same file, or the same path once links are resolved)
 * is refused. */
static int check_not_input(const char *out, const char *const *inputs, const char *const *what,
                           unsigned n_inputs)
{
    struct stat st;
    if (stat(out, &st))
        return 0;
    char real_out[PATH_MAX];
    const bool have_real = realpath(out, real_out) != NULL;
    for (unsigned i = 0; i < n_inputs; i++) {
        struct stat in;
        char real_in[PATH_MAX];
        bool same = stat(inputs[i], &in) == 0 && same_file(&in, &st);
        same = same || (have_real && realpath(inputs[i], real_in) && !strcmp(real_in, real_out));
        if (same)
            return report(VMAF_EXIT_OUTPUT, "refusing to write report (%s): it is %s; give "
                          "another -o path", out, what[i]);
    }
    return 0;
}

int check_output_path(const char *out, const char *const *inputs, const char *const *what,
                      unsigned n_inputs)
{
    if (!strcmp(out, "-"))
        return check_stdout_report(inputs, what, n_inputs);
    const int status = check_not_input(out, inputs, what, n_inputs);
    if (status)
        return status;
    /* Whether the report can be written there is the library's to say: it
     * writes it. */
    const int err = vmaf_output_path_check(out);
    if (err)
        return report(VMAF_EXIT_OUTPUT, "cannot write report (%s): %s", out,
                      lib_why(strerror(-err)));
    return 0;
}
