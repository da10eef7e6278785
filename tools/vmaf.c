/* The vmaf command line tool: reads a reference and a distorted video, scores
 * them with the requested features and models, prints the pooled scores and
 * writes a report. Uses the library only through its public API.
 *
 * main() runs the stages of run.h in turn; this file holds what comes
 * before them (the command line) and after them (the closing lines). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "libvmaf/libvmaf.h"

#include "cli_parse.h"
#include "lib_log.h"
#include "lib_settings.h"
#include "message.h"
#include "one_line.h"
#include "progress.h"
#include "run.h"
#include "stop_signal.h"
#include "vmaf.h"

/* A closed stdin, stdout or stderr (a daemon's, or `>&-`) would be taken by
 * the next file opened, the report's temporary file among them, and what
 * goes to stdout would land in the report: each gets /dev/null. Returns
 * whether stdout was closed. */
static bool reopen_std_fds(void)
{
    bool out_closed = false;
    for (int fd = 0; fd < 3; fd++) {
        if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
            continue;
        out_closed |= fd == STDOUT_FILENO;
        const int n = open("/dev/null", fd ? O_WRONLY : O_RDONLY);
        if (n >= 0 && n != fd) {
            dup2(n, fd);
            close(n);
        }
    }
    return out_closed;
}

/* Parses the command line into c. *finished when the tool is done (help,
 * version or a usage error); the status is then the exit status. */
static int parse_command_line(int argc, char *argv[], CliSettings *c, bool *finished)
{
    char perr[512];
    const int err = cli_parse(argc, argv, c, perr, sizeof(perr));
    *finished = err != CLI_PARSE_OK;
    if (err == CLI_PARSE_HELP || err == CLI_PARSE_VERSION) {
        if (err == CLI_PARSE_HELP)
            fputs(cli_usage(), stdout);
        else
            printf("%s\n", vmaf_version());
        if (!fflush(stdout))
            return VMAF_EXIT_OK;
        fprintf(stderr, "vmaf: cannot print the %s (stdout): %s\n",
                err == CLI_PARSE_HELP ? "help" : "version", strerror(errno));
        return VMAF_EXIT_OUTPUT;
    }
    if (err == -ENOMEM)
        fprintf(stderr, "vmaf: out of memory (command line)\n");
    else if (err)
        fprintf(stderr, "%s\n", perr);
    return err == -ENOMEM ? VMAF_EXIT_SCORING : err ? VMAF_EXIT_USAGE : VMAF_EXIT_OK;
}

/* XML is the default report format, as in the reference tool: a report
 * named for another format would hold XML, which its reader would meet
 * only later, in another program. */
static void warn_report_format(const CliSettings *c)
{
    static const char *const named[][2] = {
        {".json", "--json"}, {".csv", "--csv"}, {".sub", "--sub"}};
    if (!c->output_path || c->output_fmt_given || c->quiet)
        return;
    const char *dot = strrchr(c->output_path, '.');
    for (unsigned i = 0; dot && i < sizeof(named) / sizeof(named[0]); i++) {
        if (strcasecmp(dot, named[i][0]))
            continue;
        char shown[INPUT_PATH_SHOWN + 1];
        input_shorten_path(shown, c->output_path);
        one_line(shown);
        fprintf(stderr, "vmaf: warning: the report (%s) is written as XML, the default format; "
                "give %s for what its name says\n", shown, named[i][1]);
    }
}

/* Releases what the stages made; a failure to close the context is the
 * run's failure when nothing failed before. */
static int release_run(Run *r, int status)
{
    if (r->vmaf) {
        const int err = vmaf_close(r->vmaf);
        if (err && !status)
            status = report(VMAF_EXIT_SCORING, "scoring failed (closing): %s",
                            lib_why(strerror(-err)));
    }
    for (unsigned i = 0; i < r->c.model_cnt; i++)
        unload_model(&r->models[i]);
    pair_reader_stop(r->pair);
    input_close(&r->ref);
    input_close(&r->dist);
    vmaf_team_destroy(r->readers);
    return status;
}

/* The run's last line: how long it took, or that it was stopped. An error
 * the library logged in a run that went on (none is known) is still
 * shown; after a stop signal, the line says it all. */
static int finish_run(Run *r, int status)
{
    status = release_run(r, status);
    const bool closing = !r->c.quiet || r->c.progress;
    cli_settings_free(&r->c);
    const char *unsaid = lib_why(NULL);
    progress_end_line();
    if (unsaid && !status)
        fprintf(stderr, "libvmaf: error: %s\n", unsaid);
    if (status == VMAF_EXIT_INTERRUPTED) {
        const int sig = interrupted ? interrupted : SIGINT;
        fprintf(stderr, "vmaf: interrupted (%s, after %u frame%s): %s\n",
                stop_signal_name(sig), r->frames, r->frames == 1 ? "" : "s",
                r->report_written ? "the report was written, the summary was not"
                                  : "no report written");
        return 128 + sig; /* as shells report a death by that signal */
    }
    if (!status && closing) {
        char line[128];
        progress_format_closing(line, sizeof(line), r->frames, now_s() - r->t_start);
        fprintf(stderr, "vmaf: %s\n", line);
    }
    return status;
}

int main(int argc, char *argv[])
{
    static Run run; /* large (picture and model tables): not on the stack */
    run.t_start = now_s();
    run.total = run.counts_common = -1;
    const bool stdout_closed = reopen_std_fds();
    /* A closed stdout (vmaf ... | head) must end in a "cannot write" line
     * and status 5, not in a silent death by SIGPIPE: writes fail with
     * EPIPE instead, and every write to stdout is checked. Likewise a file
     * size limit (ulimit -f): the write fails with EFBIG, the report's
     * temporary file is removed and the line says why, instead of death by
     * SIGXFSZ with the temporary file left behind. */
    signal(SIGPIPE, SIG_IGN);
    signal(SIGXFSZ, SIG_IGN);
    vmaf_set_log_callback(on_library_log, NULL);
    bool finished;
    int status = parse_command_line(argc, argv, &run.c, &finished);
    if (finished) {
        cli_settings_free(&run.c);
        return status;
    }
    warn_report_format(&run.c);
    stop_signals_install();
    run.log_level = run.c.quiet ? VMAF_LOG_LEVEL_ERROR : VMAF_LOG_LEVEL_WARNING;
    /* Before any context is made: each one sets the process-wide mask. */
    lib_settings_set_cpumask(run.c.cpumask);
    if (!(status = open_inputs(&run)) && !(status = check_outputs(&run, stdout_closed)) &&
        !(status = set_up_scoring(&run)) && !(status = skip_to_first_frame(&run)) &&
        !(status = score_frames(&run)))
        status = write_outputs(&run);
    return finish_run(&run, status);
}
