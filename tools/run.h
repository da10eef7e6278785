/* One run of the tool, from the command line to the summary, and the
 * stages main() calls in turn. Each stage returns 0 to go on, or the exit
 * status (docs/errors.md) with its line printed; finish_run() releases
 * what the stages made, whichever stopped the run. */
#ifndef VMAF_TOOLS_RUN_H
#define VMAF_TOOLS_RUN_H

#include <stdbool.h>
#include <stdint.h>

#include "libvmaf/libvmaf.h"
#include "libvmaf/model.h"

#include "backend.h"
#include "cli_parse.h"
#include "input/input.h"
#include "input/pair.h"
#include "models.h"
#include "progress.h"
#include "team.h"

typedef struct Run {
    CliSettings c;
    enum VmafLogLevel log_level;
    double t_start;            /* when main() began: the closing line's clock */
    InputContext ref, dist;
    PairReader *pair;          /* NULL: the inputs are read one after the other */
    VmafTeam *readers;         /* the threads that read a frame's rows */
    int64_t total;             /* frames to score, when both inputs tell; else -1 */
    int64_t counts_common;     /* raw inputs of different lengths: their common count, else -1 */
    bool counts_warned;
    LoadedModel models[CLI_MAX_MODELS];
    VmafContext *vmaf;
    bool cuda;
    PicSource src;
    char backend_note[4096];   /* --backend auto's line, printed once set up */
    Progress prog;
    unsigned frames;           /* frame pairs read and handed to the library */
    double model_score[CLI_MAX_MODELS];
    VmafModelCollectionScore coll_score[CLI_MAX_MODELS];
    bool report_written;
} Run;

/* run_inputs.c: opens and checks both inputs; then skips the frames
 * --frame_skip_ref and --frame_skip_dist leave out. */
int open_inputs(Run *r);
int skip_to_first_frame(Run *r);

/* Inputs of different lengths: said once, on stderr even with -q. */
void counts_differ(const InputContext *shorter, const InputContext *longer, unsigned common);

/* An input that ended before the first frame to score, after skipping. */
int ended_at_start(const InputContext *in, bool ended, unsigned skip, const char *opt);

/* run_output.c: refuses, before any frame is read, a report or summary
 * that could not be written; after scoring, writes them. */
int check_outputs(Run *r, bool stdout_closed);
int write_outputs(Run *r);

/* run_setup.c: models, the scoring context, its backend and features. */
int set_up_scoring(Run *r);

/* run_score.c: reads and scores every frame, flushes, pools the models. */
int score_frames(Run *r);

#endif /* VMAF_TOOLS_RUN_H */
