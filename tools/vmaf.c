/* The vmaf command line tool: reads a reference and a distorted video, scores
 * them with the requested features and models, prints the pooled scores and
 * writes a report. Uses the library only through its public API. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "libvmaf/libvmaf.h"
#include "libvmaf/libvmaf_cuda.h"

#include "cli_parse.h"
#include "one_line.h"
#include "input/input.h"
#include "input/pair.h"
#include "team.h"
#include "vmaf.h"

/* The first stop signal received (SIGINT, SIGTERM or SIGHUP), 0 before. */
static volatile sig_atomic_t interrupted;

static void on_stop_signal(int sig)
{
    if (!interrupted)
        interrupted = sig;
}

static const char *stop_signal_name(int sig)
{
    return sig == SIGTERM ? "SIGTERM" : sig == SIGHUP ? "SIGHUP" : "SIGINT";
}

/* Whether stderr ends in a progress line without its newline: any other
 * line written to stderr first ends it, so that the two are not glued. */
static atomic_bool progress_open;

static void end_progress_line(void)
{
    if (atomic_exchange(&progress_open, false))
        fputc('\n', stderr);
}

/* A failure is one line, "vmaf: what (where): why; fix". The library's
 * error messages are its detail: they are held here, from whichever thread
 * logs them, until the tool's line takes them as its "why" (lib_why()).
 * Warnings and lower go straight to stderr, as the library would write
 * them, unless a step asks for them as reasons too. (The library replaces
 * control characters, so each message is one line.) */
#define LIB_REASONS 4
static struct {
    pthread_mutex_t lock;
    char *reason[LIB_REASONS];
    unsigned n;
    bool hold_warnings;
} lib_log = { .lock = PTHREAD_MUTEX_INITIALIZER };

static void on_library_log(void *opaque, enum VmafLogLevel level, const char *msg)
{
    (void)opaque;
    pthread_mutex_lock(&lib_log.lock);
    if (level == VMAF_LOG_LEVEL_ERROR ||
        (level == VMAF_LOG_LEVEL_WARNING && lib_log.hold_warnings)) {
        /* The same reason from two calls (both model loaders, several
         * worker threads) is said once; the first few distinct ones are
         * enough to act on. Out of memory, one is lost. */
        bool seen = false;
        for (unsigned i = 0; i < lib_log.n && !seen; i++)
            seen = !strcmp(lib_log.reason[i], msg);
        if (!seen && lib_log.n < LIB_REASONS && (lib_log.reason[lib_log.n] = strdup(msg)))
            lib_log.n++;
    } else {
        end_progress_line();
        fprintf(stderr, "libvmaf: %s: %s\n",
                level == VMAF_LOG_LEVEL_WARNING ? "warning"
                : level == VMAF_LOG_LEVEL_INFO  ? "info"
                                                : "debug",
                msg);
    }
    pthread_mutex_unlock(&lib_log.lock);
}

/* While set, the library's warnings are held as reasons too. */
static void lib_hold_warnings(bool on)
{
    pthread_mutex_lock(&lib_log.lock);
    lib_log.hold_warnings = on;
    pthread_mutex_unlock(&lib_log.lock);
}

/* Whether every reason held starts with `prefix` (false when none is). */
static bool lib_held_all(const char *prefix)
{
    pthread_mutex_lock(&lib_log.lock);
    bool all = lib_log.n > 0;
    for (unsigned i = 0; i < lib_log.n; i++)
        all = all && !strncmp(lib_log.reason[i], prefix, strlen(prefix));
    pthread_mutex_unlock(&lib_log.lock);
    return all;
}

/* Takes the reasons the library gave since they were last taken, joined
 * by " / " (each may have a "; " of its own), or `fallback` when it gave
 * none (its level was NONE, or it had no words for the failure). The
 * result lasts until the next call: for the arguments of one report(). */
static const char *lib_why(const char *fallback)
{
    static char *why;
    free(why);
    why = NULL;
    pthread_mutex_lock(&lib_log.lock);
    size_t len = 0;
    for (unsigned i = 0; i < lib_log.n; i++)
        len += strlen(lib_log.reason[i]) + 3;
    if (len && (why = malloc(len + 1))) {
        why[0] = '\0';
        for (unsigned i = 0; i < lib_log.n; i++) {
            if (i)
                strcat(why, " / ");
            strcat(why, lib_log.reason[i]);
        }
    }
    for (unsigned i = 0; i < lib_log.n; i++)
        free(lib_log.reason[i]);
    lib_log.n = 0;
    pthread_mutex_unlock(&lib_log.lock);
    return why ? why : fallback;
}

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static int report(int status, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    const int n = vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    /* Long paths must not cut off the reason at the end of the line: a
     * longer message is formatted again into a buffer that fits it. */
    char *line = buf;
    if (n >= (int)sizeof(buf) && (line = malloc((size_t)n + 1))) {
        va_start(ap, fmt);
        vsnprintf(line, (size_t)n + 1, fmt, ap);
        va_end(ap);
    } else if (!line) {
        line = buf;
    }
    /* Paths and names are echoed in the message, which must stay one line. */
    one_line(line);
    end_progress_line();
    fprintf(stderr, "vmaf: %s\n", line);
    if (line != buf)
        free(line);
    /* What the library said before a failure is this line's business: a
     * reason the line did not take (it said the same in the tool's words)
     * must not turn up under a later one. */
    if (status)
        (void)lib_why(NULL);
    return status;
}

/* The end of the chain of symbolic links that starts at `path`, a dangling
 * link. 0, or -1 when a link cannot be read or the chain is too long. */
static int dangling_link_target(const char *path, char *buf, size_t sz)
{
    if (strlen(path) >= sz)
        return -1;
    strcpy(buf, path);
    for (int hops = 0; hops < 40; hops++) {
        struct stat ls;
        if (lstat(buf, &ls) || !S_ISLNK(ls.st_mode))
            return 0;
        char to[PATH_MAX];
        const ssize_t n = readlink(buf, to, sizeof(to) - 1);
        if (n < 0)
            return -1;
        to[n] = '\0';
        /* A relative target is relative to the link's directory. */
        const char *slash = strrchr(buf, '/');
        const size_t keep = to[0] == '/' || !slash ? 0 : (size_t)(slash - buf) + 1;
        if (keep + (size_t)n >= sz)
            return -1;
        memmove(buf + keep, to, (size_t)n + 1);
    }
    return -1;
}

static bool same_file(const struct stat *a, const struct stat *b)
{
    return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

static bool is_stdout(const char *path)
{
    struct stat p, o;
    return !stat(path, &p) && !fstat(STDOUT_FILENO, &o) && same_file(&p, &o);
}

/* access() trusts the permission bits, and root passes it everywhere: in
 * /proc or on a root-squashed NFS export the report's temporary file could
 * only be refused after the whole run. So a file is created in dir first:
 * an unnamed one (O_TMPFILE) where the file system has them, which leaves
 * nothing behind whatever the directory allows; else a named one, removed
 * at once, its name no longer than the library's temporary name so that no
 * path the library accepts is refused here. */
static int probe_directory(const char *out, const char *dir, const char *target)
{
    /* The library names its temporary file dir/.BASE.XXXXXX, BASE cut to
     * 200 bytes: a path that cannot hold it fails only after scoring. */
    const char *slash = strrchr(target, '/');
    const size_t base = strlen(slash ? slash + 1 : target);
    if (strlen(dir) + 2 + (base < 200 ? base : 200) + 7 >= PATH_MAX)
        return report(VMAF_EXIT_OUTPUT, "cannot write report (%s): path too long for the "
                      "report's temporary file (at most %d bytes with it); give a shorter -o "
                      "path", out, PATH_MAX - 1);
    /* Append-only (chattr +a): files can be created, not renamed or
     * removed; the library refuses it too, but only when writing. statx()
     * needs no read permission on the directory. */
    struct statx sx;
    if (!statx(AT_FDCWD, dir, 0, STATX_BASIC_STATS, &sx) &&
        (sx.stx_attributes_mask & STATX_ATTR_APPEND) && (sx.stx_attributes & STATX_ATTR_APPEND))
        return report(VMAF_EXIT_OUTPUT, "cannot write report (%s): directory %s is "
                      "append-only (chattr +a), where the report's temporary file could not "
                      "be renamed or removed; give another -o path", out, dir);
#ifdef O_TMPFILE
    int fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
    if (fd >= 0) {
        close(fd);
        return 0;
    }
    if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL && errno != ENOENT)
        return report(VMAF_EXIT_OUTPUT, "cannot write report (%s): cannot create a file in "
                      "directory %s (%s); give another -o path", out, dir, strerror(errno));
#endif
    char probe[PATH_MAX]; /* shorter than the temporary name checked above */
    snprintf(probe, sizeof(probe), "%s/.vXXXXXX", dir);
    const int fd2 = mkstemp(probe);
    if (fd2 < 0)
        return report(VMAF_EXIT_OUTPUT, "cannot write report (%s): cannot create a file in "
                      "directory %s (%s); give another -o path", out, dir, strerror(errno));
    close(fd2);
    if (unlink(probe))
        return report(VMAF_EXIT_OUTPUT, "cannot write report (%s): directory %s lets files be "
                      "created but not removed (%s), and the report is written by renaming a "
                      "temporary file; remove %s and give another -o path", out, dir,
                      strerror(errno), probe);
    return 0;
}

/* Refuses, before any frame is scored, a report path that cannot work or
 * that would overwrite an input. */
static int check_output_path(const char *out, const char *const *inputs,
                             const char *const *what, unsigned n_inputs)
{
    if (!strcmp(out, "-")) {
        /* stdout appended to an input (vmaf ... -o - >> ref.y4m) */
        struct stat o, in;
        for (unsigned i = 0; i < n_inputs && !fstat(STDOUT_FILENO, &o) && S_ISREG(o.st_mode);
             i++)
            if (!stat(inputs[i], &in) && same_file(&in, &o))
                return report(VMAF_EXIT_OUTPUT, "refusing to write report (stdout): it is %s "
                              "(%s); send stdout elsewhere", what[i], inputs[i]);
        return 0;
    }
    const char *target = out; /* where the report lands: links followed */
    char real_out[PATH_MAX], link_target[PATH_MAX];
    struct stat st;
    const size_t out_len = strlen(out);
    if (out_len && out[out_len - 1] == '/')
        return report(VMAF_EXIT_OUTPUT, "cannot write report (%s): the path names a "
                      "directory (it ends in '/'); give a file name", out);
    if (stat(out, &st) == 0) {
        if (S_ISDIR(st.st_mode))
            return report(VMAF_EXIT_OUTPUT, "cannot write report (%s): it is a directory; "
                          "give a file name", out);
        const bool have_real = realpath(out, real_out) != NULL;
        for (unsigned i = 0; i < n_inputs; i++) {
            struct stat in;
            char real_in[PATH_MAX];
            bool same = stat(inputs[i], &in) == 0 && in.st_dev == st.st_dev &&
                        in.st_ino == st.st_ino;
            same = same || (have_real && realpath(inputs[i], real_in) &&
                            !strcmp(real_in, real_out));
            if (same)
                return report(VMAF_EXIT_OUTPUT, "refusing to write report (%s): it is %s; "
                              "give another -o path", out, what[i]);
        }
        if (S_ISSOCK(st.st_mode))
            return report(VMAF_EXIT_OUTPUT, "cannot write report (%s): it is a socket, which "
                          "cannot be opened as a file; give another -o path", out);
        if (!S_ISREG(st.st_mode)) {
            /* Devices and pipes are written in place; failures (such as
             * /dev/full) are caught when the report is written. */
            if (access(out, W_OK))
                return report(VMAF_EXIT_OUTPUT, "cannot write report (%s): %s", out,
                              strerror(errno));
            return 0;
        }
        /* The library keeps a read-only file read-only: it refuses it. */
        if (access(out, W_OK))
            return report(VMAF_EXIT_OUTPUT, "cannot write report (%s): the file is not "
                          "writable (%s); make it writable or give another -o path", out,
                          strerror(errno));
        /* A link's target is replaced, beside the target. */
        if (have_real)
            target = real_out;
    } else if (errno == ENOTDIR) {
        return report(VMAF_EXIT_OUTPUT, "cannot write report (%s): a part of the path before "
                      "the file name is a file, not a directory; give another -o path", out);
    } else if (errno != ENOENT) {
        return report(VMAF_EXIT_OUTPUT, "cannot write report (%s): %s; give another -o path",
                      out, strerror(errno));
    } else if (!lstat(out, &st) && S_ISLNK(st.st_mode)) {
        /* A dangling link: the library creates the file it points to. */
        if (dangling_link_target(out, link_target, sizeof(link_target)))
            return report(VMAF_EXIT_OUTPUT, "cannot write report (%s): it is a symbolic link "
                          "that cannot be followed; give another -o path", out);
        target = link_target;
    }
    /* The report is written to a temporary file beside the target and
     * renamed, so the directory itself must be writable. */
    const char *slash = strrchr(target, '/');
    char dir[PATH_MAX];
    if (!slash) {
        strcpy(dir, ".");
    } else {
        size_t n = slash == target ? 1 : (size_t)(slash - target);
        if (n >= sizeof(dir))
            return report(VMAF_EXIT_OUTPUT, "cannot write report (%s): path too long", out);
        memcpy(dir, target, n);
        dir[n] = '\0';
    }
    struct stat dst;
    if (stat(dir, &dst))
        return report(VMAF_EXIT_OUTPUT, "cannot write report (%s): directory %s does not "
                      "exist; create it or give another -o path", out, dir);
    if (!S_ISDIR(dst.st_mode))
        return report(VMAF_EXIT_OUTPUT, "cannot write report (%s): %s is not a directory; "
                      "give another -o path", out, dir);
    if (access(dir, W_OK | X_OK))
        return report(VMAF_EXIT_OUTPUT, "cannot write report (%s): directory %s is not "
                      "writable; give another -o path", out, dir);
    return probe_directory(out, dir, target);
}

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

static int make_dict(const CliKeyVal *kv, unsigned n, VmafFeatureDictionary **dict)
{
    *dict = NULL;
    for (unsigned i = 0; i < n; i++) {
        if (vmaf_feature_dictionary_set(dict, kv[i].key, kv[i].val)) {
            vmaf_feature_dictionary_free(dict);
            return -ENOMEM;
        }
    }
    return 0;
}

/* The library's log level is process-wide and set by vmaf_init(); a
 * throw-away context sets it while no real one exists yet. */
static void set_library_log_level(enum VmafLogLevel level)
{
    VmafContext *tmp = NULL;
    VmafConfiguration cfg = { .log_level = level };
    if (!vmaf_init(&tmp, cfg))
        vmaf_close(tmp);
}

typedef struct LoadedModel {
    VmafModel *model;
    VmafModelCollection *collection;
    const char *label;
} LoadedModel;

static int load_model(const CliModel *m, LoadedModel *lm, enum VmafLogLevel level)
{
    VmafModelConfig cfg = { .name = m->name, .flags = m->flags };
    lm->label = m->name && strcmp(m->name, "vmaf") ? m->name : m->version ? m->version : m->path;
    /* A -m may name a model or a model collection, as in the reference. Both
     * loaders are tried quietly; when both refuse, both run again with
     * errors on and warnings off: the loader of the other kind only warns
     * that it is the other kind, so the reason held is that of the loader
     * that matches (a collection's bad member key, an over-long name). */
    set_library_log_level(VMAF_LOG_LEVEL_NONE);
    int err = m->version ? vmaf_model_load(&lm->model, &cfg, m->version)
                         : vmaf_model_load_from_path(&lm->model, &cfg, m->path);
    if (err) {
        lm->model = NULL;
        VmafModel *first = NULL;
        err = m->version ? vmaf_model_collection_load(&first, &lm->collection, &cfg, m->version)
                         : vmaf_model_collection_load_from_path(&first, &lm->collection, &cfg,
                                                                m->path);
        if (err)
            lm->collection = NULL;
        else
            lm->model = first;
    }
    if (err && err != -ENOENT && err != -EACCES && err != -ENOMEM) {
        /* The loaders run again with errors on, so that the library says
         * why; a reason both give (a JSON syntax error) is held once. */
        (void)lib_why(NULL);
        set_library_log_level(VMAF_LOG_LEVEL_ERROR);
        VmafModel *again = NULL;
        VmafModelCollection *again_mc = NULL;
        if (!(m->version ? vmaf_model_load(&again, &cfg, m->version)
                         : vmaf_model_load_from_path(&again, &cfg, m->path)))
            vmaf_model_destroy(again);
        again = NULL;
        if (!(m->version ? vmaf_model_collection_load(&again, &again_mc, &cfg, m->version)
                         : vmaf_model_collection_load_from_path(&again, &again_mc, &cfg,
                                                                m->path))) {
            vmaf_model_collection_destroy(again_mc);
            vmaf_model_destroy(again);
        }
    }
    set_library_log_level(level);
    const char *kind = m->version ? "version=" : "path=";
    const char *what = m->version ? m->version : m->path;
    if (err && m->version && lib_held_all("no built-in ")) {
        /* Each loader names the built-ins of its kind: said once here. */
        return report(VMAF_EXIT_MODEL, "cannot load model (version=%s): no built-in model or "
                      "model collection has that name; use one of vmaf_v0.6.1, vmaf_v0.6.1neg, "
                      "vmaf_4k_v0.6.1, vmaf_4k_v0.6.1neg, vmaf_b_v0.6.3, a model file with -m "
                      "path=FILE, or -n for none", m->version);
    }
    if (err == -ENOENT)
        return report(VMAF_EXIT_MODEL, "cannot load model (path=%s): no such file; pass an "
                      "existing model file with -m path=FILE, a built-in with -m version=NAME, "
                      "or -n for none", m->path);
    if (err == -EACCES)
        return report(VMAF_EXIT_MODEL, "cannot load model (path=%s): permission denied; make "
                      "the file readable for this user, or pass another model", m->path);
    /* Otherwise the library's reason says what to fix (the file, a name
     * too long, a file too large). */
    if (err)
        return report(VMAF_EXIT_MODEL, "cannot load model (%s%s): %s", kind, what,
                      lib_why(err == -ENOMEM ? "out of memory" : "not a model"));
    for (unsigned j = 0; j < m->overload_cnt; j++) {
        VmafFeatureDictionary *dict;
        if (make_dict(m->overload[j].opt, m->overload[j].opt_cnt, &dict))
            return report(VMAF_EXIT_SCORING, "out of memory (model %s)", lm->label);
        err = lm->collection
            ? vmaf_model_collection_feature_overload(lm->model, &lm->collection,
                                                     m->overload[j].feature, dict)
            : vmaf_model_feature_overload(lm->model, m->overload[j].feature, dict);
        if (err)
            return report(VMAF_EXIT_MODEL, "bad feature overload (model %s, feature %s): %s",
                          lm->label, m->overload[j].feature,
                          lib_why("the model has no such feature or the option is invalid"));
    }
    return 0;
}

/* The name a feature's score is stored under: a GPU twin ("float_ssim_cuda")
 * writes the outputs of the extractor it stands in for ("float_ssim"). */
static const char *summary_name(const char *feature, char *buf, size_t n)
{
    static const char twin[] = "_cuda";
    const size_t len = strlen(feature), t = sizeof(twin) - 1;
    const size_t keep = len > t && !strcmp(feature + len - t, twin) ? len - t : len;
    snprintf(buf, n, "%.*s", (int)keep, feature);
    return buf;
}

/* `fmt` is one of the conversions cli_parse builds (%.6f, %.17g, %.Nf). */
static void put_score(FILE *f, const char *fmt, double v)
{
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
#endif
    fprintf(f, fmt, v);
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* A name in the summary, as "NAME: ": control characters the caller put
 * into a model's name= would split the line or drive the terminal. */
static void put_label(FILE *f, const char *name)
{
    for (const char *c = name; *c; c++)
        fputc(one_line_char(*c), f);
    fputs(": ", f);
}

typedef struct Progress {
    bool on;
    double t0, last;
    int64_t total; /* -1: unknown */
} Progress;

static void progress_update(Progress *p, unsigned done, bool final)
{
    if (!p->on)
        return;
    const double t = now_s();
    if (!final && t - p->last < 0.1)
        return;
    p->last = t;
    const double el = t - p->t0;
    const double fps = el > 0 ? done / el : 0;
    /* Said before the line is written: a warning from another thread in
     * between then starts a line of its own. */
    atomic_store(&progress_open, !final);
    if (p->total > 0) {
        const double eta = fps > 0 && p->total > done ? (double)(p->total - done) / fps : 0;
        fprintf(stderr, "\rvmaf: frame %u/%lld, %.1f fps, ETA %d:%02d\033[K", done,
                (long long)p->total, fps, (int)eta / 60, (int)eta % 60);
    } else {
        fprintf(stderr, "\rvmaf: frame %u, %.1f fps\033[K", done, fps);
    }
    if (final)
        fputc('\n', stderr);
    fflush(stderr);
}

/* Inputs of different lengths: the reference tool scores the frames they
 * have in common and says which ended first; so does this one, on stderr
 * even with -q, since it changes what the scores cover. */
static void counts_differ(const InputContext *shorter, const InputContext *longer,
                          unsigned common)
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
static int ended_at_start(const InputContext *in, bool ended, unsigned skip, const char *opt)
{
    if (!ended || !skip)
        return 0;
    return report(VMAF_EXIT_INPUT, "not enough frames to skip (%s, %s %u): the file has only "
                  "%llu frames", in->path, opt, skip, (unsigned long long)in->frames_read);
}

typedef struct PicSource {
    VmafContext *vmaf;
    bool pool;
    unsigned w, h, bpc;
} PicSource;

static int get_picture(const PicSource *src, VmafPicture *pic)
{
    if (src->pool)
        return vmaf_cuda_fetch_preallocated_picture(src->vmaf, pic);
    /* Every feature in use reads luma only: chroma is skipped while reading. */
    return vmaf_picture_alloc(pic, VMAF_PIX_FMT_YUV400P, src->bpc, src->w, src->h);
}

/* Whether `name` is a GPU twin's name: NAME_cuda where this build knows
 * NAME. Asked of a context of its own, with nothing logged. */
static bool is_gpu_twin(const char *name)
{
    const size_t n = strlen(name);
    char base[128];
    if (n <= 5 || n - 5 >= sizeof(base) || strcmp(name + n - 5, "_cuda"))
        return false;
    memcpy(base, name, n - 5);
    base[n - 5] = '\0';
    VmafContext *probe = NULL;
    VmafConfiguration cfg = { .log_level = VMAF_LOG_LEVEL_NONE };
    if (vmaf_init(&probe, cfg))
        return false;
    const bool known = !vmaf_use_feature(probe, base, NULL);
    vmaf_close(probe);
    return known;
}

/* Chooses the backend; for --backend auto, `note` receives the line that
 * says which one, printed once the run is set up. */
static int setup_backend(const CliSettings *c, VmafContext *vmaf, bool *cuda, char *note,
                         size_t note_sz)
{
    *cuda = false;
    note[0] = '\0';
    if (c->backend == CLI_BACKEND_CPU)
        return 0;
    VmafCudaState *cu = NULL;
    VmafCudaConfiguration ccfg = { .cu_ctx = NULL };
    /* The library's warnings of this step are its reasons for finding no
     * GPU: held for the tool's one line. --backend auto prints that line
     * once the run is set up (finding no GPU is an answer there, not a
     * problem); --backend cuda makes it the error. */
    (void)lib_why(NULL);
    lib_hold_warnings(true);
    set_library_log_level(VMAF_LOG_LEVEL_WARNING);
    int err = vmaf_cuda_state_init(&cu, ccfg);
    if (!err)
        err = vmaf_cuda_import_state(vmaf, cu);
    set_library_log_level(c->quiet ? VMAF_LOG_LEVEL_ERROR : VMAF_LOG_LEVEL_WARNING);
    lib_hold_warnings(false);
    const char *why = lib_why(NULL);
    if (!VMAF_TOOL_BUILT_WITH_CUDA)
        why = "this build has no CUDA support"; /* said in the tool's words */
    else if (err && !why)
        why = err == -ENODEV ? "no usable CUDA device" : strerror(-err);
    if (err) {
        if (c->backend == CLI_BACKEND_CUDA)
            return report(VMAF_EXIT_GPU, "CUDA backend unavailable (--backend cuda): %s; use "
                          "--backend cpu or auto", why);
        snprintf(note, note_sz, "vmaf: backend: cpu (CUDA not used: %s)", why);
        return 0;
    }
    /* Warnings of a state that works (pinned staging that could not get
     * its copy threads, say) are still shown, after the step. */
    if (why && !c->quiet)
        fprintf(stderr, "libvmaf: warning: %s\n", why);
    *cuda = true;
    if (c->backend == CLI_BACKEND_AUTO)
        snprintf(note, note_sz, "vmaf: backend: cuda");
    return 0;
}

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

int main(int argc, char *argv[])
{
    CliSettings c;
    char perr[512];
    int status = VMAF_EXIT_OK;
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
    int err = cli_parse(argc, argv, &c, perr, sizeof(perr));
    if (err == CLI_PARSE_HELP || err == CLI_PARSE_VERSION) {
        if (err == CLI_PARSE_HELP)
            fputs(cli_usage(), stdout);
        else
            printf("%s\n", vmaf_version());
        cli_settings_free(&c);
        if (!fflush(stdout))
            return VMAF_EXIT_OK;
        fprintf(stderr, "vmaf: cannot print the %s (stdout): %s\n",
                err == CLI_PARSE_HELP ? "help" : "version", strerror(errno));
        return VMAF_EXIT_OUTPUT;
    }
    if (err) {
        if (err == -ENOMEM)
            fprintf(stderr, "vmaf: out of memory (command line)\n");
        else
            fprintf(stderr, "%s\n", perr);
        cli_settings_free(&c);
        return err == -ENOMEM ? VMAF_EXIT_SCORING : VMAF_EXIT_USAGE;
    }

    /* XML is the default report format, as in the reference tool: a report
     * named for another format would hold XML, which its reader would meet
     * only later, in another program. */
    if (c.output_path && !c.output_fmt_given && !c.quiet) {
        static const char *const named[][2] = {
            {".json", "--json"}, {".csv", "--csv"}, {".sub", "--sub"}};
        const char *dot = strrchr(c.output_path, '.');
        for (unsigned i = 0; dot && i < sizeof(named) / sizeof(named[0]); i++) {
            if (strcasecmp(dot, named[i][0]))
                continue;
            char shown[INPUT_PATH_SHOWN + 1];
            input_shorten_path(shown, c.output_path);
            one_line(shown);
            fprintf(stderr, "vmaf: warning: the report (%s) is written as XML, the default "
                    "format; give %s for what its name says\n", shown, named[i][1]);
        }
    }

    /* Ctrl-C, and the SIGTERM of timeout(1), systemd or docker, and the
     * SIGHUP of a closed terminal, all stop the run the same way: after
     * the frame in progress, no report, or the report kept when it was
     * complete. A second signal of a kind kills at once; blocking reads
     * return EINTR so that a stalled pipe does not hold up the first. A
     * signal the parent left ignored stays ignored: nohup's SIGHUP, the
     * SIGINT of a background job in a script. */
    static const int stop_signals[3] = { SIGINT, SIGTERM, SIGHUP };
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    for (int i = 0; i < 3; i++)
        sigaddset(&sa.sa_mask, stop_signals[i]);
    sa.sa_flags = SA_RESETHAND;
    for (int i = 0; i < 3; i++) {
        struct sigaction old;
        if (!sigaction(stop_signals[i], NULL, &old) && old.sa_handler != SIG_IGN)
            sigaction(stop_signals[i], &sa, NULL);
    }

    const enum VmafLogLevel log_level = c.quiet ? VMAF_LOG_LEVEL_ERROR : VMAF_LOG_LEVEL_WARNING;
    InputContext ref, dist;
    memset(&ref, 0, sizeof(ref));
    memset(&dist, 0, sizeof(dist));
    LoadedModel models[CLI_MAX_MODELS];
    memset(models, 0, sizeof(models));
    VmafContext *vmaf = NULL;
    VmafTeam *readers = NULL;
    PairReader *pair = NULL;
    unsigned idx = 0;
    bool counts_warned = false, report_written = false;
    int64_t counts_common = -1; /* raw inputs of different lengths: their common count */

    /* "-" is stdin, as for most tools that read video. */
    if (!strcmp(c.path_ref, "-"))
        c.path_ref = "/dev/stdin";
    if (!strcmp(c.path_dist, "-"))
        c.path_dist = "/dev/stdin";
    const InputRawParams raw = { c.width, c.height, c.pix_fmt, c.bitdepth };
    /* One pipe given as both inputs: each frame would be half of one and
     * half of the next, scored without complaint. Regular files are fine
     * (each open has its own position). */
    struct stat sr, sd;
    if (!stat(c.path_ref, &sr) && !stat(c.path_dist, &sd) && sr.st_dev == sd.st_dev &&
        sr.st_ino == sd.st_ino && !S_ISREG(sr.st_mode)) {
        status = report(VMAF_EXIT_INPUT, "the reference and the distorted input are the same "
                        "stream (%s): a pipe is read once; give each input its own", c.path_ref);
        goto end;
    }
    /* With a pipe among the inputs, the distorted input is opened, skipped
     * and read on a thread of its own (the pair reader) while this one does
     * the reference, so that both writers (decoders, or one program feeding
     * both) keep going. Pairs of regular files need none. */
    if (is_stream(c.path_ref) || is_stream(c.path_dist)) {
        int pair_err = pair_reader_signal_setup();
        if (!pair_err)
            pair_err = pair_reader_start(&pair, &dist, &interrupted);
        if (pair_err && !c.quiet)
            fprintf(stderr, "vmaf: warning: cannot start a thread to read the distorted "
                    "input (%s): reading the inputs one after the other\n",
                    strerror(-pair_err));
    }
    /* Ctrl-C while a FIFO's open waits for its writer, or while a header
     * is read, fails the open or read with EINTR: an interruption, not a
     * bad input. */
    int ro[2];
    pair_open(pair, &ref, c.path_ref, &dist, c.path_dist, c.use_yuv ? &raw : NULL, ro);
    if (ro[0] < 0 || ro[1] < 0) {
        /* -ECANCELED: interrupted because the other input failed. */
        const InputContext *bad = ro[0] < 0 && ro[0] != -ECANCELED ? &ref : &dist;
        status = interrupted ? VMAF_EXIT_INTERRUPTED : report(VMAF_EXIT_INPUT, "%s", bad->err);
        goto end;
    }
    if ((status = check_pair(&ref, &dist)))
        goto end;
    const int64_t total = expected_frames(&c, &ref, &dist);
    if (ref.info.frame_cnt >= 0 && dist.info.frame_cnt >= 0) {
        /* Both counts are known from the file sizes: a mismatch is reported
         * before any work. Y4M counts assume bare FRAME lines, so only raw
         * files are judged here; Y4M mismatches surface while reading. */
        if (c.frame_skip_ref >= ref.info.frame_cnt && c.use_yuv) {
            status = report(VMAF_EXIT_INPUT, "not enough frames to skip (%s, --frame_skip_ref "
                            "%u): the file has only %lld frames", ref.path, c.frame_skip_ref,
                            (long long)ref.info.frame_cnt);
            goto end;
        }
        if (c.frame_skip_dist >= dist.info.frame_cnt && c.use_yuv) {
            status = report(VMAF_EXIT_INPUT, "not enough frames to skip (%s, --frame_skip_dist "
                            "%u): the file has only %lld frames", dist.path, c.frame_skip_dist,
                            (long long)dist.info.frame_cnt);
            goto end;
        }
        const int64_t a = ref.info.frame_cnt - c.frame_skip_ref;
        const int64_t b = dist.info.frame_cnt - c.frame_skip_dist;
        /* Said once the run is set up: a refused model or report path
         * would make it a warning about frames never scored. */
        if (c.use_yuv && a != b && (!c.frame_cnt || c.frame_cnt > (a < b ? a : b)))
            counts_common = a < b ? a : b;
    }
    /* A path that is this process's stdout (/dev/stdout, /proc/self/fd/1,
     * or the file the shell redirected stdout to) is "-": written in
     * place with the summary on stderr. Replaced by a new file, it would
     * lose what the shell writes there before and after, and the summary
     * would land inside the report. */
    if (c.output_path && strcmp(c.output_path, "-") && is_stdout(c.output_path))
        c.output_path = "-";
    /* A closed stdout was given /dev/null: what was meant for it would be
     * lost without a word. */
    if (stdout_closed && (!c.output_path || !strcmp(c.output_path, "-"))) {
        status = c.output_path
            ? report(VMAF_EXIT_OUTPUT, "cannot write report (%s): stdout is closed; give -o a "
                     "file, or run with stdout open", c.output_path)
            : report(VMAF_EXIT_OUTPUT, "cannot print the summary (stdout): stdout is closed "
                     "and there is no report; give -o FILE, or run with stdout open");
        goto end;
    }
    if (c.output_path) {
        /* Nothing the run reads may be overwritten: the inputs and the
         * model files. */
        const char *inputs[2 + CLI_MAX_MODELS], *what[2 + CLI_MAX_MODELS];
        unsigned n = 0;
        inputs[n] = c.path_ref, what[n++] = "the reference input";
        inputs[n] = c.path_dist, what[n++] = "the distorted input";
        for (unsigned i = 0; i < c.model_cnt; i++)
            if (c.model[i].path)
                inputs[n] = c.model[i].path, what[n++] = "a model file (-m path=)";
        if ((status = check_output_path(c.output_path, inputs, what, n)))
            goto end;
    }

    for (unsigned i = 0; i < c.model_cnt; i++)
        if ((status = load_model(&c.model[i], &models[i], log_level)))
            goto end;

    VmafConfiguration cfg = {
        .log_level = log_level,
        .n_threads = c.threads,
        .n_subsample = c.subsample,
        .cpumask = c.cpumask,
        .gpumask = c.backend == CLI_BACKEND_CPU ? 1 : 0,
    };
    err = vmaf_init(&vmaf, cfg);
    if (err) {
        vmaf = NULL;
        status = report(VMAF_EXIT_SCORING, "cannot create the scoring context (%s): %s",
                        "vmaf_init", lib_why(strerror(-err)));
        goto end;
    }
    bool cuda;
    char backend_note[4096];
    if ((status = setup_backend(&c, vmaf, &cuda, backend_note, sizeof(backend_note))))
        goto end;

    for (unsigned i = 0; i < c.model_cnt; i++) {
        err = models[i].collection
            ? vmaf_use_features_from_model_collection(vmaf, models[i].collection)
            : vmaf_use_features_from_model(vmaf, models[i].model);
        if (err) {
            const char *why = lib_why(strerror(-err));
            if (c.model[i].is_default)
                status = report(VMAF_EXIT_MODEL, "cannot use the default model (vmaf_v0.6.1): "
                                "%s (with this tool: -n and --feature NAME, or another model "
                                "with -m)", why);
            else if (c.no_prediction)
                status = report(VMAF_EXIT_MODEL, "cannot use model (%s): %s (with -n a model's "
                                "features are still extracted: drop this -m)", models[i].label,
                                why);
            else
                status = report(VMAF_EXIT_MODEL, "cannot use model (%s): %s", models[i].label,
                                why);
            goto end;
        }
    }
    for (unsigned i = 0; i < c.feature_cnt; i++) {
        VmafFeatureDictionary *dict;
        if (make_dict(c.feature[i].opt, c.feature[i].opt_cnt, &dict)) {
            status = report(VMAF_EXIT_SCORING, "out of memory (--feature %s)",
                            c.feature[i].name);
            goto end;
        }
        err = vmaf_use_feature(vmaf, c.feature[i].name, dict);
        if (err && !VMAF_TOOL_BUILT_WITH_CUDA && is_gpu_twin(c.feature[i].name)) {
            /* A GPU twin by name: a GPU problem, as with no usable GPU. */
            status = report(VMAF_EXIT_GPU, "cannot use feature (--feature %s): this build has "
                            "no CUDA support; ask for the CPU feature, or rebuild with "
                            "-Dcuda=enabled", c.feature[i].name);
            goto end;
        }
        if (err) {
            status = err == -ENOMEM
                ? report(VMAF_EXIT_SCORING, "out of memory (--feature %s)", c.feature[i].name)
                : report(VMAF_EXIT_USAGE, "cannot use feature (--feature %s): %s",
                         c.feature[i].name, lib_why("the library refused it"));
            goto end;
        }
    }

    PicSource src = { vmaf, false, ref.info.w, ref.info.h, ref.info.bpc };
    if (cuda) {
        VmafCudaPictureConfiguration pcfg = {
            .pic_params = { .w = ref.info.w, .h = ref.info.h, .bpc = ref.info.bpc,
                            .pix_fmt = VMAF_PIX_FMT_YUV400P },
            .pic_prealloc_method = VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_HOST_PINNED,
        };
        err = vmaf_cuda_preallocate_pictures(vmaf, pcfg);
        const char *why = lib_why(strerror(-err)); /* a reason taken here, shown or not */
        if (err && !c.quiet)
            fprintf(stderr, "vmaf: warning: no pinned picture pool (%s): reading into ordinary "
                    "memory, uploads are slower\n", why);
        src.pool = !err;
    }

    if (backend_note[0] && !c.quiet)
        fprintf(stderr, "%s\n", backend_note);
    if (counts_common >= 0) {
        const bool ref_short = ref.info.frame_cnt - c.frame_skip_ref == counts_common;
        counts_differ(ref_short ? &ref : &dist, ref_short ? &dist : &ref,
                      (unsigned)counts_common);
        counts_warned = true;
    }
    /* The frames both inputs skip are skipped in pairs, as frames are read
     * (one writer may feed both pipes in turn); the rest of the larger
     * skip then on its own. */
    const unsigned both = c.frame_skip_ref < c.frame_skip_dist ? c.frame_skip_ref
                                                               : c.frame_skip_dist;
    for (unsigned k = 0; k < both; k++) {
        if (interrupted) {
            status = VMAF_EXIT_INTERRUPTED;
            goto end;
        }
        int rs[2];
        pair_skip(pair, &ref, &dist, rs);
        if ((status = skip_status(&ref, rs[0], "--frame_skip_ref", c.frame_skip_ref, k)) ||
            (status = skip_status(&dist, rs[1], "--frame_skip_dist", c.frame_skip_dist, k)))
            goto end;
    }
    if (both && interrupted) {
        status = VMAF_EXIT_INTERRUPTED;
        goto end;
    }
    if ((status = skip_frames(&ref, both, c.frame_skip_ref, "--frame_skip_ref")) ||
        (status = skip_frames(&dist, both, c.frame_skip_dist, "--frame_skip_dist")))
        goto end;

    /* A frame's rows are read by a few threads at once (positioned reads
     * of regular files): one thread reading through stdio was the limit of
     * the whole run, GPU or CPU. */
    const unsigned nreaders = vmaf_team_default_members();
    const int team_err = vmaf_team_create(&readers, nreaders);
    if (team_err && !c.quiet)
        fprintf(stderr, "vmaf: warning: cannot start %u threads to read frames (%s): reading "
                "in one thread\n", nreaders - 1, strerror(-team_err));
    ref.team = dist.team = readers;

    Progress prog = { .on = isatty(STDERR_FILENO) && !c.quiet, .t0 = now_s(), .total = total };
    for (idx = 0; !c.frame_cnt || idx < c.frame_cnt; idx++) {
        if (interrupted)
            break;
        VmafPicture pr, pd;
        memset(&pr, 0, sizeof(pr));
        memset(&pd, 0, sizeof(pd));
        if ((err = get_picture(&src, &pr)) || (err = get_picture(&src, &pd))) {
            if (pr.ref)
                vmaf_picture_unref(&pr);
            status = report(VMAF_EXIT_SCORING, "cannot allocate a picture (frame %u, %ux%u "
                            "%u-bit): %s", idx, src.w, src.h, src.bpc, lib_why(strerror(-err)));
            goto end;
        }
        int rr[2];
        pair_read(pair, &ref, &pr, &dist, &pd, rr);
        const int r1 = rr[0], r2 = rr[1];
        if (r1 <= 0 || r2 <= 0) {
            vmaf_picture_unref(&pr);
            vmaf_picture_unref(&pd);
        }
        if (r1 < 0 || r2 < 0) {
            /* -ECANCELED: interrupted because the other input failed. */
            status = interrupted ? VMAF_EXIT_INTERRUPTED
                                 : report(VMAF_EXIT_INPUT, "%s", r1 < 0 && r1 != -ECANCELED
                                                                     ? ref.err : dist.err);
            goto end;
        }
        if (!idx && (!r1 || !r2)) {
            /* The skip took every frame: said as for raw files, whose
             * counts are checked before any work. */
            if ((status = ended_at_start(&ref, !r1, c.frame_skip_ref, "--frame_skip_ref")) ||
                (status = ended_at_start(&dist, !r2, c.frame_skip_dist, "--frame_skip_dist")))
                goto end;
        }
        if (!r1 && !r2)
            break;
        if (!r1 || !r2) {
            const InputContext *done = r1 ? &dist : &ref, *more = r1 ? &ref : &dist;
            if (!idx) {
                status = report(VMAF_EXIT_INPUT, "no frames to score (%s): it holds no frames, "
                                "%s has some; give an input with frames", done->path,
                                more->path);
                goto end;
            }
            /* As the reference tool does: the common frames are scored and
             * reported, with a warning. */
            if (!counts_warned)
                counts_differ(done, more, idx);
            break;
        }
        err = vmaf_read_pictures(vmaf, &pr, &pd, idx);
        if (err == -ENODEV) {
            /* A GPU extractor asked for by name (float_ssim_cuda) with no
             * usable GPU: a GPU problem, not a scoring one. */
            status = report(VMAF_EXIT_GPU, "scoring failed (frame %u): %s; ask for the CPU "
                            "feature (float_ssim: --backend picks its GPU twin when one is "
                            "usable)", idx, lib_why("a GPU feature has no usable CUDA device"));
            goto end;
        }
        if (err) {
            status = report(VMAF_EXIT_SCORING, "scoring failed (frame %u): %s", idx,
                            lib_why(err == -EINVAL ? "a feature refused the pictures"
                                                   : strerror(-err)));
            goto end;
        }
        progress_update(&prog, idx + 1, false);
    }
    if (interrupted) {
        progress_update(&prog, idx, true);
        status = VMAF_EXIT_INTERRUPTED;
        goto end;
    }
    progress_update(&prog, idx, true);
    if (!idx) {
        status = report(VMAF_EXIT_INPUT, "no frames to score (%s, %s): the inputs hold no "
                        "frames after skipping", ref.path, dist.path);
        goto end;
    }
    err = vmaf_read_pictures(vmaf, NULL, NULL, 0);
    if (err) {
        status = report(VMAF_EXIT_SCORING, "scoring failed (flush after frame %u): %s",
                        idx - 1, lib_why(strerror(-err)));
        goto end;
    }

    /* Pooling also stores each model's per-frame predictions, which the
     * report then contains: it runs with -q too. */
    double model_score[CLI_MAX_MODELS];
    VmafModelCollectionScore coll_score[CLI_MAX_MODELS];
    memset(coll_score, 0, sizeof(coll_score));
    for (unsigned i = 0; i < c.model_cnt && !c.no_prediction; i++) {
        /* A collection's model "0" is pooled as a plain model too. */
        err = vmaf_score_pooled(vmaf, models[i].model, VMAF_POOL_METHOD_MEAN, &model_score[i], 0,
                                idx - 1);
        if (!err && models[i].collection)
            err = vmaf_score_pooled_model_collection(vmaf, models[i].collection,
                                                     VMAF_POOL_METHOD_MEAN, &coll_score[i], 0,
                                                     idx - 1);
        if (err) {
            status = report(VMAF_EXIT_SCORING, "cannot pool model scores (%s): %s",
                            models[i].label, lib_why(strerror(-err)));
            goto end;
        }
    }

    if (interrupted) {
        status = VMAF_EXIT_INTERRUPTED;
        goto end;
    }
    /* The report before the summary: a stdout that cannot be written (its
     * reader gone) must not cost the report file. */
    if (c.output_path) {
        err = vmaf_write_output_with_format(vmaf, c.output_path, c.output_fmt, c.precision_fmt);
        if (err) {
            /* Ctrl-C while the report's open or write waited (a FIFO with
             * no reader, say) fails it with EINTR: an interruption. */
            status = interrupted ? VMAF_EXIT_INTERRUPTED
                                 : report(VMAF_EXIT_OUTPUT, "cannot write report (%s): %s",
                                          c.output_path, lib_why(strerror(-err)));
            goto end;
        }
        report_written = true;
        /* Ctrl-C after the report was complete: it stays (removing it would
         * also take what a hard link or a bind mount sees), the summary is
         * left out, and the closing line says so. */
        if (interrupted) {
            status = VMAF_EXIT_INTERRUPTED;
            goto end;
        }
    }

    /* The summary goes to stdout, unless the report itself does; -q leaves
     * it out only when there is a report, or the run's result would be
     * lost (the reference tool does the same). */
    FILE *sum = c.quiet && c.output_path ? NULL
              : c.output_path && !strcmp(c.output_path, "-") ? stderr : stdout;
    /* As the reference prints them: every model's pooled score (a
     * collection's model "0" included), then each collection's bagging
     * score with its interval and deviation. */
    for (unsigned i = 0; sum && i < c.model_cnt && !c.no_prediction; i++) {
        put_label(sum, models[i].label);
        put_score(sum, c.precision_fmt, model_score[i]);
        fputc('\n', sum);
    }
    for (unsigned i = 0; sum && i < c.model_cnt && !c.no_prediction; i++) {
        const VmafModelCollectionScore *cs = &coll_score[i];
        if (!models[i].collection || cs->type != VMAF_MODEL_COLLECTION_SCORE_BOOTSTRAP)
            continue;
        put_label(sum, models[i].label);
        put_score(sum, c.precision_fmt, cs->bootstrap.bagging_score);
        fputs(", ci.p95: [", sum);
        put_score(sum, c.precision_fmt, cs->bootstrap.ci.p95.lo);
        fputs(", ", sum);
        put_score(sum, c.precision_fmt, cs->bootstrap.ci.p95.hi);
        fputs("], stddev: ", sum);
        put_score(sum, c.precision_fmt, cs->bootstrap.stddev);
        fputc('\n', sum);
    }
    for (unsigned i = 0; sum && i < c.feature_cnt; i++) {
        double score;
        char name[128], other[128];
        summary_name(c.feature[i].name, name, sizeof(name));
        /* A feature given twice (or as itself and as its GPU twin) has one
         * score under its name: one line. */
        bool seen = false;
        for (unsigned j = 0; j < i && !seen; j++)
            seen = !strcmp(summary_name(c.feature[j].name, other, sizeof(other)), name);
        if (seen)
            continue;
        /* Features whose output is named differently from the extractor
         * are in the report only. */
        if (vmaf_feature_score_pooled(vmaf, name, VMAF_POOL_METHOD_MEAN, &score, 0, idx - 1))
            continue;
        put_label(sum, name);
        put_score(sum, c.precision_fmt, score);
        fputc('\n', sum);
    }
    if (sum && fflush(sum)) {
        /* Ctrl-C while the summary's write waits (a full pipe) fails it with
         * EINTR: an interruption, also once the report was written. */
        status = interrupted ? VMAF_EXIT_INTERRUPTED
                             : report(VMAF_EXIT_OUTPUT, "cannot write the summary (%s): %s%s",
                                      sum == stdout ? "stdout" : "stderr", strerror(errno),
                                      c.output_path ? "; the report was written" : "");
        goto end;
    }

end:
    if (vmaf) {
        err = vmaf_close(vmaf);
        if (err && !status)
            status = report(VMAF_EXIT_SCORING, "scoring failed (closing): %s",
                            lib_why(strerror(-err)));
    }
    /* A collection and its model "0" are released separately, as with libvmaf. */
    for (unsigned i = 0; i < c.model_cnt; i++) {
        vmaf_model_collection_destroy(models[i].collection);
        vmaf_model_destroy(models[i].model);
    }
    pair_reader_stop(pair);
    input_close(&ref);
    input_close(&dist);
    vmaf_team_destroy(readers);
    cli_settings_free(&c);
    /* An error the library logged in a run that went on (none is known)
     * is still shown; after SIGINT, the line below says it all. */
    const char *unsaid = lib_why(NULL);
    end_progress_line();
    if (unsaid && !status)
        fprintf(stderr, "libvmaf: error: %s\n", unsaid);
    if (status == VMAF_EXIT_INTERRUPTED) {
        const int sig = interrupted ? interrupted : SIGINT;
        fprintf(stderr, "vmaf: interrupted (%s, after %u frame%s): %s\n",
                stop_signal_name(sig), idx, idx == 1 ? "" : "s",
                report_written ? "the report was written, the summary was not"
                               : "no report written");
        return 128 + sig; /* as shells report a death by that signal */
    }
    return status;
}
