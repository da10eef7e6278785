/* Progress lines on stderr; see progress.h. */
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>

#include "progress.h"

/* Whether stderr ends in an in-place line without its newline: any other
 * line written to stderr first ends it, so that the two are not glued. */
static atomic_bool line_open;

double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

enum ProgressMode progress_mode(bool is_tty, bool quiet, bool asked)
{
    if (is_tty)
        return quiet && !asked ? PROGRESS_OFF : PROGRESS_IN_PLACE;
    return asked ? PROGRESS_LOG : PROGRESS_OFF;
}

void progress_start(Progress *p, enum ProgressMode mode, int64_t total)
{
    p->mode = mode;
    p->t0 = now_s();
    /* The in-place line shows the first frame at once; the log's first
     * line comes after one interval. */
    p->last = mode == PROGRESS_LOG ? p->t0 : 0;
    p->total = total;
}

void progress_end_line(void)
{
    if (atomic_exchange(&line_open, false))
        fputc('\n', stderr);
}

void progress_format(char *buf, size_t n, unsigned done, int64_t total, double elapsed)
{
    const double fps = elapsed > 0 ? done / elapsed : 0;
    if (total > 0) {
        const double eta = fps > 0 && total > done ? (double)(total - done) / fps : 0;
        snprintf(buf, n, "frame %u/%lld, %.1f fps, ETA %d:%02d", done, (long long)total, fps,
                 (int)eta / 60, (int)eta % 60);
    } else {
        snprintf(buf, n, "frame %u, %.1f fps", done, fps);
    }
}

void progress_format_closing(char *buf, size_t n, unsigned frames, double elapsed)
{
    snprintf(buf, n, "%u frame%s in %.2f s (%.1f fps)", frames, frames == 1 ? "" : "s",
             elapsed, elapsed > 0 ? frames / elapsed : 0.0);
}

void progress_update(Progress *p, unsigned done, bool final)
{
    if (p->mode == PROGRESS_OFF || (final && p->mode == PROGRESS_LOG))
        return; /* a log's last word is the closing line, or the failure's */
    const double t = now_s();
    const double every = p->mode == PROGRESS_LOG ? PROGRESS_LOG_INTERVAL_S : 0.1;
    if (!final && t - p->last < every)
        return;
    p->last = t;
    char line[128];
    progress_format(line, sizeof(line), done, p->total, t - p->t0);
    if (p->mode == PROGRESS_LOG) {
        fprintf(stderr, "vmaf: %s\n", line);
    } else {
        /* Said before the line is written: a warning from another thread
         * in between then starts a line of its own. */
        atomic_store(&line_open, !final);
        fprintf(stderr, "\rvmaf: %s\033[K%s", line, final ? "\n" : "");
    }
    fflush(stderr);
}
