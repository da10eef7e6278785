/* The report's path, checked before any frame is scored: a path that
 * cannot work, or that would overwrite something the run reads, is refused
 * then, not after the whole run. */
#ifndef VMAF_TOOLS_REPORT_PATH_H
#define VMAF_TOOLS_REPORT_PATH_H

#include <stdbool.h>

/* Whether `path` is this process's stdout (/dev/stdout, /proc/self/fd/1,
 * or the file the shell redirected stdout to). */
bool is_stdout(const char *path);

/* 0 when a report can be written to `out` ("-": stdout) without touching
 * inputs[0..n_inputs-1] (what[i] names each in the message); else the
 * refusal's exit status, its line printed. Whether the path can take a
 * report at all is the library's answer (vmaf_output_path_check()). */
int check_output_path(const char *out, const char *const *inputs, const char *const *what,
                      unsigned n_inputs);

#endif /* VMAF_TOOLS_REPORT_PATH_H */
