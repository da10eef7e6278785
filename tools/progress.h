/* How far a run is, on stderr: a line updated in place on a terminal, or a
 * line every few seconds for a log (--progress); and the closing line that
 * says how long the run took. stdout is never written here: the report may
 * go there (-o -). */
#ifndef VMAF_TOOLS_PROGRESS_H
#define VMAF_TOOLS_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Seconds between two lines of the log form. */
#define PROGRESS_LOG_INTERVAL_S 5.0

enum ProgressMode {
    PROGRESS_OFF,
    PROGRESS_IN_PLACE, /* a terminal: one line, rewritten about ten times a second */
    PROGRESS_LOG,      /* not a terminal: a line of its own every interval */
};

typedef struct Progress {
    enum ProgressMode mode;
    double t0, last;
    int64_t total; /* frames expected; -1: unknown */
} Progress;

/* Monotonic seconds. */
double now_s(void);

/* The mode for stderr being a terminal or not, -q and --progress: -q
 * silences the in-place line unless --progress asks for it; the log form
 * is only ever shown when asked for. */
enum ProgressMode progress_mode(bool is_tty, bool quiet, bool asked);

/* Starts the clock of a run whose expected length is total (-1 unknown). */
void progress_start(Progress *p, enum ProgressMode mode, int64_t total);

/* Reports `done` frames. final: the run stopped reading (the in-place line
 * is then written one last time and ended). */
void progress_update(Progress *p, unsigned done, bool final);

/* Ends an in-place line left open, so that the next line on stderr starts
 * on a line of its own. Any thread may call it. */
void progress_end_line(void);

/* "frame 120/300, 55.3 fps, ETA 0:03" (no total: "frame 120, 55.3 fps"),
 * after `elapsed` seconds. */
void progress_format(char *buf, size_t n, unsigned done, int64_t total, double elapsed);

/* "240 frames in 3.21 s (74.8 fps)". */
void progress_format_closing(char *buf, size_t n, unsigned frames, double elapsed);

#endif /* VMAF_TOOLS_PROGRESS_H */
