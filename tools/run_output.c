/* The report and the summary: checked before the run, written after it;
 * see run.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lib_log.h"
#include "message.h"
#include "report_path.h"
#include "run.h"
#include "stop_signal.h"
#include "summary.h"
#include "vmaf.h"

/* Nothing the run reads may be overwritten: the inputs and the model
 * files. */
static int check_report_path(const Run *r)
{
    const CliSettings *c = &r->c;
    const char *inputs[2 + CLI_MAX_MODELS], *what[2 + CLI_MAX_MODELS];
    unsigned n = 0;
    inputs[n] = c->path_ref, what[n++] = "the reference input";
    inputs[n] = c->path_dist, what[n++] = "the distorted input";
    for (unsigned i = 0; i < c->model_cnt; i++)
        if (c->model[i].path)
            inputs[n] = c->model[i].path, what[n++] = "a model file (-m path=)";
    return check_output_path(c->output_path, inputs, what, n);
}

int check_outputs(Run *r, bool stdout_closed)
{
    CliSettings *c = &r->c;
    /* A path that is this process's stdout is "-": written in place with
     * the summary on stderr. Replaced by a new file, it would lose what the
     * shell writes there before and after, and the summary would land
     * inside the report. */
    if (c->output_path && strcmp(c->output_path, "-") && is_stdout(c->output_path))
        c->output_path = "-";
    /* A closed stdout was given /dev/null: what was meant for it would be
     * lost without a word. */
    if (stdout_closed && (!c->output_path || !strcmp(c->output_path, "-")))
        return c->output_path
            ? report(VMAF_EXIT_OUTPUT, "cannot write report (%s): stdout is closed; give -o a "
                     "file, or run with stdout open", c->output_path)
            : report(VMAF_EXIT_OUTPUT, "cannot print the summary (stdout): stdout is closed "
                     "and there is no report; give -o FILE, or run with stdout open");
    return c->output_path ? check_report_path(r) : 0;
}

/* Ctrl-C while the report's open or write waited (a FIFO with no reader,
 * say) fails it with EINTR: an interruption. Ctrl-C after the report was
 * complete: it stays (removing it would also take what a hard link or a
 * bind mount sees), the summary is left out, and the closing line says
 * so. */
static int write_report(Run *r)
{
    const CliSettings *c = &r->c;
    const int err = vmaf_write_output_with_format(r->vmaf, c->output_path, c->output_fmt,
                                                  c->precision_fmt);
    if (err)
        return interrupted ? VMAF_EXIT_INTERRUPTED
                           : report(VMAF_EXIT_OUTPUT, "cannot write report (%s): %s",
                                    c->output_path, lib_why(strerror(-err)));
    r->report_written = true;
    return interrupted ? VMAF_EXIT_INTERRUPTED : 0;
}

/* The summary goes to stdout, unless the report itself does; -q leaves it
 * out only when there is a report, or the run's result would be lost (the
 * reference tool does the same). */
static int write_summary(const Run *r)
{
    const CliSettings *c = &r->c;
    FILE *sum = c->quiet && c->output_path ? NULL
              : c->output_path && !strcmp(c->output_path, "-") ? stderr : stdout;
    if (!sum)
        return 0;
    summary_print(sum, c, r->vmaf, r->models, r->model_score, r->coll_score, r->frames);
    if (!fflush(sum))
        return 0;
    /* Ctrl-C while the summary's write waits (a full pipe) fails it with
     * EINTR: an interruption, also once the report was written. */
    return interrupted ? VMAF_EXIT_INTERRUPTED
                       : report(VMAF_EXIT_OUTPUT, "cannot write the summary (%s): %s%s",
                                sum == stdout ? "stdout" : "stderr", strerror(errno),
                                c->output_path ? "; the report was written" : "");
}

/* The report before the summary: a stdout that cannot be written (its
 * reader gone) must not cost the report file. */
int write_outputs(Run *r)
{
    if (interrupted)
        return VMAF_EXIT_INTERRUPTED;
    int status = r->c.output_path ? write_report(r) : 0;
    return status ? status : write_summary(r);
}
