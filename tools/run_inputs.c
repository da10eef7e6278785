/* Opening, checking and skipping into the two inputs; see run.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "message.h"
#include "run.h"
#include "stop_signal.h"
#include "vmaf.h"

/* FFmpeg's name of a layout and depth, for the advice of check_pair. */
static const char *ffmpeg_pix_fmt(char *buf, size_t n, enum VmafPixelFormat fmt, unsigned bpc)
{
    const char *base = fmt == VMAF_PIX_FMT_YUV420P   ? "yuv420p"
                       : fmt == VMAF_PIX_FMT_YUV422P ? "yuv422p"
                       : fmt == VMAF_PIX_FMT_YUV444P ? "yuv444p"
                                                     : "gray";
    if (bpc == 8)
        snprintf(buf, n, "-pix_fmt %s", base);
    else
        snprintf(buf, n, "-pix_fmt %s%ule -strict -1", base, bpc);
    return buf;
}

static int check_pair(const InputContext *r, const InputContext *d)
{
    const InputInfo *a = &r->info, *b = &d->info;
    char how[64];
    if (a->w != b->w || a->h != b->h)
        return report(VMAF_EXIT_INPUT, "reference and distorted sizes differ (%s: %ux%u, %s: "
                      "%ux%u): scale one to the other's size first (ffmpeg: -vf "
                      "scale=%u:%u on the distorted input)", r->path, a->w, a->h, d->path, b->w,
                      b->h, a->w, a->h);
    if (a->bpc != b->bpc || a->pix_fmt != b->pix_fmt)
        return report(VMAF_EXIT_INPUT, "reference and distorted %s differ (%s: %s %u-bit, %s: "
                      "%s %u-bit): convert one to the other's first (ffmpeg: %s on the "
                      "distorted input)",
                      a->bpc != b->bpc ? "bit depths" : "pixel formats", r->path,
                      input_pix_fmt_name(a->pix_fmt), a->bpc, d->path,
                      input_pix_fmt_name(b->pix_fmt), b->bpc,
                      ffmpeg_pix_fmt(how, sizeof(how), a->pix_fmt, a->bpc));
    return 0;
}

/* Inputs of different lengths: the reference tool scores the frames they
 * have in common and says which ended first; so does this one, on stderr
 * even with -q, since it changes what the scores cover. */
void counts_differ(const InputContext *shorter, const InputContext *longer, unsigned common)
{
    (void)report(0, "warning: frame counts differ (%s ends after %u frame%s to score, %s has "
                 "more): scoring the first %u; align the inputs with "
                 "--frame_skip_ref/--frame_skip_dist, or set --frame_cnt, to silence this",
                 shorter->path, common, common == 1 ? "" : "s", longer->path, common);
}

/* Frames that will be scored, when both files tell: -1 if unknown. */
static int64_t expected_frames(const CliSettings *c, const InputContext *r, const InputContext *d)
{
    if (r->info.frame_cnt < 0 || d->info.frame_cnt < 0)
        return -1;
    int64_t a = r->info.frame_cnt - c->frame_skip_ref;
    int64_t b = d->info.frame_cnt - c->frame_skip_dist;
    int64_t n = a < b ? a : b;
    if (n < 0)
        n = 0;
    if (c->frame_cnt && n > c->frame_cnt)
        n = c->frame_cnt;
    return n;
}

/* A pipe, FIFO or device rather than a regular file (or a path that does
 * not exist: the open says why). */
static bool is_stream(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

/* The exit status for one input's skip of frame k of n (input_skip_frame's
 * result r): 0 to go on, also for -ECANCELED, a skip interrupted because
 * the other input failed (whose status reports it). */
static int skip_status(const InputContext *in, int r, const char *opt, unsigned n, unsigned k)
{
    if (r < 0 && r != -ECANCELED)
        return interrupted ? VMAF_EXIT_INTERRUPTED : report(VMAF_EXIT_INPUT, "%s", in->err);
    if (r == 0)
        return report(VMAF_EXIT_INPUT, "not enough frames to skip (%s, %s %u): the file "
                      "has only %u frames", in->path, opt, n, k);
    return 0;
}

/* Skips frames from..n - 1 of one input (the first `from` are skipped). */
static int skip_frames(InputContext *in, unsigned from, unsigned n, const char *opt)
{
    for (unsigned k = from; k < n; k++) {
        if (interrupted)
            return VMAF_EXIT_INTERRUPTED;
        const int status = skip_status(in, input_skip_frame(in), opt, n, k);
        if (status)
            return status;
    }
    return 0;
}

/* An input that ended before the first frame to score: 0 when it did not
 * (or when nothing was skipped: "no frames to score" then says it). */
int ended_at_start(const InputContext *in, bool ended, unsigned skip, const char *opt)
{
    if (!ended || !skip)
        return 0;
    return report(VMAF_EXIT_INPUT, "not enough frames to skip (%s, %s %u): the file has only "
                  "%llu frames", in->path, opt, skip, (unsigned long long)in->frames_read);
}

/* One pipe given as both inputs: each frame would be half of one and half
 * of the next, scored without complaint. Regular files are fine (each open
 * has its own position). */
static int refuse_same_stream(const char *ref, const char *dist)
{
    struct stat sr, sd;
    if (!stat(ref, &sr) && !stat(dist, &sd) && sr.st_dev == sd.st_dev &&
        sr.st_ino == sd.st_ino && !S_ISREG(sr.st_mode))
        return report(VMAF_EXIT_INPUT, "the reference and the distorted input are the same "
                      "stream (%s): a pipe is read once; give each input its own", ref);
    return 0;
}

/* With a pipe among the inputs, the distorted input is opened, skipped and
 * read on a thread of its own (the pair reader) while this one does the
 * reference, so that both writers (decoders, or one program feeding both)
 * keep going. Pairs of regular files need none. */
static void start_pair_reader(Run *r)
{
    if (!is_stream(r->c.path_ref) && !is_stream(r->c.path_dist))
        return;
    int err = pair_reader_signal_setup();
    if (!err)
        err = pair_reader_start(&r->pair, &r->dist, &interrupted);
    if (err && !r->c.quiet)
        fprintf(stderr, "vmaf: warning: cannot start a thread to read the distorted input "
                "(%s): reading the inputs one after the other\n", strerror(-err));
}

/* Both counts known from the file sizes: a mismatch is reported before any
 * work. Y4M counts assume bare FRAME lines, so only raw files are judged
 * here; Y4M mismatches surface while reading. */
static int check_raw_counts(Run *r)
{
    const CliSettings *c = &r->c;
    const InputContext *ref = &r->ref, *dist = &r->dist;
    if (ref->info.frame_cnt < 0 || dist->info.frame_cnt < 0)
        return 0;
    if (c->frame_skip_ref >= ref->info.frame_cnt && c->use_yuv)
        return report(VMAF_EXIT_INPUT, "not enough frames to skip (%s, --frame_skip_ref %u): "
                      "the file has only %lld frames", ref->path, c->frame_skip_ref,
                      (long long)ref->info.frame_cnt);
    if (c->frame_skip_dist >= dist->info.frame_cnt && c->use_yuv)
        return report(VMAF_EXIT_INPUT, "not enough frames to skip (%s, --frame_skip_dist %u): "
                      "the file has only %lld frames", dist->path, c->frame_skip_dist,
                      (long long)dist->info.frame_cnt);
    const int64_t a = ref->info.frame_cnt - c->frame_skip_ref;
    const int64_t b = dist->info.frame_cnt - c->frame_skip_dist;
    /* Said once the run is set up: a refused model or report path would
     * make it a warning about frames never scored. */
    if (c->use_yuv && a != b && (!c->frame_cnt || c->frame_cnt > (a < b ? a : b)))
        r->counts_common = a < b ? a : b;
    return 0;
}

int open_inputs(Run *r)
{
    CliSettings *c = &r->c;
    /* "-" is stdin, as for most tools that read video. */
    if (!strcmp(c->path_ref, "-"))
        c->path_ref = "/dev/stdin";
    if (!strcmp(c->path_dist, "-"))
        c->path_dist = "/dev/stdin";
    int status = refuse_same_stream(c->path_ref, c->path_dist);
    if (status)
        return status;
    start_pair_reader(r);
    /* Ctrl-C while a FIFO's open waits for its writer, or while a header
     * is read, fails the open or read with EINTR: an interruption, not a
     * bad input. */
    const InputRawParams raw = { c->width, c->height, c->pix_fmt, c->bitdepth };
    int ro[2];
    pair_open(r->pair, &r->ref, c->path_ref, &r->dist, c->path_dist, c->use_yuv ? &raw : NULL,
              ro);
    if (ro[0] < 0 || ro[1] < 0) {
        /* -ECANCELED: interrupted because the other input failed. */
        const InputContext *bad = ro[0] < 0 && ro[0] != -ECANCELED ? &r->ref : &r->dist;
        return interrupted ? VMAF_EXIT_INTERRUPTED : report(VMAF_EXIT_INPUT, "%s", bad->err);
    }
    if ((status = check_pair(&r->ref, &r->dist)))
        return status;
    r->total = expected_frames(c, &r->ref, &r->dist);
    return check_raw_counts(r);
}

/* The frames both inputs skip are skipped in pairs, as frames are read
 * (one writer may feed both pipes in turn); the rest of the larger skip
 * then on its own. */
int skip_to_first_frame(Run *r)
{
    const CliSettings *c = &r->c;
    const unsigned both = c->frame_skip_ref < c->frame_skip_dist ? c->frame_skip_ref
                                                                 : c->frame_skip_dist;
    int status;
    for (unsigned k = 0; k < both; k++) {
        if (interrupted)
            return VMAF_EXIT_INTERRUPTED;
        int rs[2];
        pair_skip(r->pair, &r->ref, &r->dist, rs);
        if ((status = skip_status(&r->ref, rs[0], "--frame_skip_ref", c->frame_skip_ref, k)) ||
            (status = skip_status(&r->dist, rs[1], "--frame_skip_dist", c->frame_skip_dist, k)))
            return status;
    }
    if (both && interrupted)
        return VMAF_EXIT_INTERRUPTED;
    if ((status = skip_frames(&r->ref, both, c->frame_skip_ref, "--frame_skip_ref")))
        return status;
    return skip_frames(&r->dist, both, c->frame_skip_dist, "--frame_skip_dist");
}
