/* Reading and scoring the frames; see run.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "lib_log.h"
#include "message.h"
#include "run.h"
#include "stop_signal.h"
#include "vmaf.h"

/* A frame's rows are read by a few threads at once (positioned reads of
 * regular files): one thread reading through stdio was the limit of the
 * whole run, GPU or CPU. */
static void start_readers(Run *r)
{
    const unsigned n = vmaf_team_default_members();
    const int err = vmaf_team_create(&r->readers, n);
    if (err && !r->c.quiet)
        fprintf(stderr, "vmaf: warning: cannot start %u threads to read frames (%s): reading "
                "in one thread\n", n - 1, strerror(-err));
    r->ref.team = r->dist.team = r->readers;
}

/* The inputs ended (rr: each read's result, one of them 0) at frame
 * r->frames: 0 when the frames before are to be scored, else the status. */
static int inputs_ended(Run *r, const int rr[2])
{
    const CliSettings *c = &r->c;
    int status;
    if (!r->frames) {
        /* The skip took every frame: said as for raw files, whose counts
         * are checked before any work. */
        if ((status = ended_at_start(&r->ref, !rr[0], c->frame_skip_ref, "--frame_skip_ref")) ||
            (status = ended_at_start(&r->dist, !rr[1], c->frame_skip_dist, "--frame_skip_dist")))
            return status;
    }
    if (!rr[0] && !rr[1])
        return 0;
    const InputContext *done = rr[0] ? &r->dist : &r->ref, *more = rr[0] ? &r->ref : &r->dist;
    if (!r->frames)
        return report(VMAF_EXIT_INPUT, "no frames to score (%s): it holds no frames, %s has "
                      "some; give an input with frames", done->path, more->path);
    /* As the reference tool does: the common frames are scored and
     * reported, with a warning. */
    if (!r->counts_warned)
        counts_differ(done, more, r->frames);
    return 0;
}

static int hand_over(Run *r, VmafPicture *pr, VmafPicture *pd)
{
    const unsigned idx = r->frames;
    const int err = vmaf_read_pictures(r->vmaf, pr, pd, idx);
    if (err == -ENODEV)
        /* A GPU extractor asked for by name (float_ssim_cuda) with no
         * usable GPU: a GPU problem, not a scoring one. The library's
         * reason names the CPU feature. */
        return report(VMAF_EXIT_GPU, "scoring failed (frame %u): %s; ask for the CPU feature "
                      "(--backend picks its GPU twin when one is usable)", idx,
                      lib_why("a GPU feature has no usable CUDA device"));
    if (err)
        return report(VMAF_EXIT_SCORING, "scoring failed (frame %u): %s", idx,
                      lib_why(err == -EINVAL ? "a feature refused the pictures"
                                             : strerror(-err)));
    return 0;
}

/* Reads frame r->frames of both inputs and hands it to the library; *ended
 * when the inputs have no more. */
static int next_pair(Run *r, bool *ended)
{
    VmafPicture pr, pd;
    memset(&pr, 0, sizeof(pr));
    memset(&pd, 0, sizeof(pd));
    int err;
    if ((err = get_picture(&r->src, &pr)) || (err = get_picture(&r->src, &pd))) {
        if (pr.ref)
            vmaf_picture_unref(&pr);
        return report(VMAF_EXIT_SCORING, "cannot allocate a picture (frame %u, %ux%u %u-bit): "
                      "%s", r->frames, r->src.w, r->src.h, r->src.bpc, lib_why(strerror(-err)));
    }
    int rr[2];
    pair_read(r->pair, &r->ref, &pr, &r->dist, &pd, rr);
    if (rr[0] <= 0 || rr[1] <= 0) {
        vmaf_picture_unref(&pr);
        vmaf_picture_unref(&pd);
    }
    if (rr[0] < 0 || rr[1] < 0)
        /* -ECANCELED: interrupted because the other input failed. */
        return interrupted ? VMAF_EXIT_INTERRUPTED
                           : report(VMAF_EXIT_INPUT, "%s", rr[0] < 0 && rr[0] != -ECANCELED
                                                               ? r->ref.err : r->dist.err);
    *ended = !rr[0] || !rr[1];
    return *ended ? inputs_ended(r, rr) : hand_over(r, &pr, &pd);
}

static int read_all(Run *r)
{
    const CliSettings *c = &r->c;
    bool ended = false;
    for (r->frames = 0; !c->frame_cnt || r->frames < c->frame_cnt; r->frames++) {
        if (interrupted)
            break;
        const int status = next_pair(r, &ended);
        if (status || ended)
            return status;
        progress_update(&r->prog, r->frames + 1, false);
    }
    return 0;
}

/* Pooling also stores each model's per-frame predictions, which the report
 * then contains: it runs with -q too. A collection's model "0" is pooled
 * as a plain model too. */
static int pool_models(Run *r)
{
    const unsigned last = r->frames - 1;
    for (unsigned i = 0; i < r->c.model_cnt && !r->c.no_prediction; i++) {
        const LoadedModel *m = &r->models[i];
        int err = vmaf_score_pooled(r->vmaf, m->model, VMAF_POOL_METHOD_MEAN,
                                    &r->model_score[i], 0, last);
        if (!err && m->collection)
            err = vmaf_score_pooled_model_collection(r->vmaf, m->collection,
                                                     VMAF_POOL_METHOD_MEAN, &r->coll_score[i],
                                                     0, last);
        if (err)
            return report(VMAF_EXIT_SCORING, "cannot pool model scores (%s): %s", m->label,
                          lib_why(strerror(-err)));
    }
    return 0;
}

int score_frames(Run *r)
{
    start_readers(r);
    progress_start(&r->prog, progress_mode(isatty(STDERR_FILENO), r->c.quiet, r->c.progress),
                   r->total);
    int status = read_all(r);
    if (status)
        return status;
    progress_update(&r->prog, r->frames, true);
    if (interrupted)
        return VMAF_EXIT_INTERRUPTED;
    if (!r->frames)
        return report(VMAF_EXIT_INPUT, "no frames to score (%s, %s): the inputs hold no frames "
                      "after skipping", r->ref.path, r->dist.path);
    const int err = vmaf_read_pictures(r->vmaf, NULL, NULL, 0);
    if (err)
        return report(VMAF_EXIT_SCORING, "scoring failed (flush after frame %u): %s",
                      r->frames - 1, lib_why(strerror(-err)));
    return pool_models(r);
}
