/* vmaf_write_output(): snapshot the context, then write the report to a
 * temporary file beside the target and rename it over the target only when
 * every write, the flush, the fsync and the close succeeded. A failed or
 * interrupted report therefore never leaves a partial file, and never
 * replaces an existing file (an input given as output by mistake included)
 * with half a report. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <locale.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "context.h"
#include "log.h"
#include "output/output.h"

/* Whether the directory, its first len bytes (0: "/"), is marked
 * append-only (chattr +a). statx() needs no read permission on it, as an
 * open() for FS_IOC_GETFLAGS would; file systems without the flag say no. */
static bool append_only_dir(const char *dir, int len)
{
    char d[PATH_MAX];
    if (len >= (int)sizeof(d))
        return false;
    if (!len) {
        dir = "/";
        len = 1;
    }
    snprintf(d, sizeof(d), "%.*s", len, dir);
    struct statx sx;
    return !statx(AT_FDCWD, d, 0, STATX_BASIC_STATS, &sx) &&
           (sx.stx_attributes_mask & STATX_ATTR_APPEND) &&
           (sx.stx_attributes & STATX_ATTR_APPEND);
}

static const VmafOutputWriter *const writers[] = {
    &vmaf_output_writer_xml,
    &vmaf_output_writer_json,
    &vmaf_output_writer_csv,
    &vmaf_output_writer_sub,
};

const char *const vmaf_output_pool_name[VMAF_POOL_METHOD_NB] = {
    [VMAF_POOL_METHOD_MIN] = "min",
    [VMAF_POOL_METHOD_MAX] = "max",
    [VMAF_POOL_METHOD_MEAN] = "mean",
    [VMAF_POOL_METHOD_HARMONIC_MEAN] = "harmonic_mean",
};

/* The reference writes these model-file feature names under short aliases;
 * reports list them the same way so that parsers find the same keys. */
static const struct {
    const char *name, *alias;
} aliases[] = {
    { "'VMAF_feature_adm2_score'", "adm2" },
    { "'VMAF_integer_feature_adm2_score'", "integer_adm2" },
    { "'VMAF_feature_adm_scale0_score'", "adm_scale0" },
    { "'VMAF_feature_adm_scale1_score'", "adm_scale1" },
    { "'VMAF_feature_adm_scale2_score'", "adm_scale2" },
    { "'VMAF_feature_adm_scale3_score'", "adm_scale3" },
    { "'VMAF_feature_motion_score'", "motion" },
    { "'VMAF_feature_motion2_score'", "motion2" },
    { "'VMAF_integer_feature_motion_score'", "integer_motion" },
    { "'VMAF_integer_feature_motion2_score'", "integer_motion2" },
    { "'VMAF_feature_vif_scale0_score'", "vif_scale0" },
    { "'VMAF_feature_vif_scale1_score'", "vif_scale1" },
    { "'VMAF_feature_vif_scale2_score'", "vif_scale2" },
    { "'VMAF_feature_vif_scale3_score'", "vif_scale3" },
    { "'VMAF_integer_feature_vif_scale0_score'", "integer_vif_scale0" },
    { "'VMAF_integer_feature_vif_scale1_score'", "integer_vif_scale1" },
    { "'VMAF_integer_feature_vif_scale2_score'", "integer_vif_scale2" },
    { "'VMAF_integer_feature_vif_scale3_score'", "integer_vif_scale3" },
};

static const char *output_name(const char *name)
{
    for (size_t i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++)
        if (!strcmp(name, aliases[i].name))
            return aliases[i].alias;
    return name;
}

bool vmaf_report_frame_used(const VmafReport *r, unsigned index)
{
    if (r->subsample > 1 && index % r->subsample)
        return false;
    double v;
    for (size_t j = 0; j < r->n_feature; j++)
        if (vmaf_report_value(r, j, index, &v))
            return true;
    return false;
}

bool vmaf_report_value(const VmafReport *r, size_t f, unsigned index, double *value)
{
    return vmaf_feature_collector_at(r->fc, r->feature[f].fc_index, index, value);
}

static double elapsed_fps(const VmafContext *vmaf)
{
    double secs = (double)(vmaf->t_end.tv_sec - vmaf->t_start.tv_sec) +
                  (double)(vmaf->t_end.tv_nsec - vmaf->t_start.tv_nsec) / 1e9;
    if (!vmaf->pic_cnt || !(secs > 0.0))
        return NAN;
    return vmaf->pic_cnt / secs;
}

static int report_init(VmafReport *r, VmafContext *vmaf, const char *score_format)
{
    memset(r, 0, sizeof(*r));
    r->fc = vmaf->fc;
    r->subsample = vmaf->cfg.n_subsample;
    r->width = vmaf->w;
    r->height = vmaf->h;
    r->fps = elapsed_fps(vmaf);
    r->version = vmaf_version();
    r->score_format = score_format;

    size_t n = vmaf_feature_collector_count(vmaf->fc);
    if (n) {
        r->feature = calloc(n, sizeof(*r->feature));
        if (!r->feature) {
            vmaf_error("report: out of memory listing %zu features", n);
            return -ENOMEM;
        }
    }
    for (size_t i = 0; i < n; i++) {
        VmafReportFeature *f = &r->feature[r->n_feature];
        f->name = vmaf_feature_collector_name(vmaf->fc, i);
        if (!f->name)
            continue;
        f->out_name = output_name(f->name);
        f->fc_index = i;
        unsigned cap = vmaf_feature_collector_capacity(vmaf->fc, i);
        if (cap > r->n_slots)
            r->n_slots = cap;
        r->n_feature++;
    }

    /* Pooled over the frames read, as the reference does; a context that
     * only holds imported scores pools over every frame that has one. A
     * feature missing at some frame of the range gets no pooled values. */
    unsigned n_frames = vmaf->pic_cnt ? vmaf->pic_cnt : r->n_slots;
    for (size_t j = 0; j < r->n_feature && n_frames; j++) {
        VmafReportFeature *f = &r->feature[j];
        for (int m = VMAF_POOL_METHOD_MIN; m < VMAF_POOL_METHOD_NB; m++)
            f->has_pooled[m] = !vmaf_feature_score_pooled(vmaf, f->name,
                                                          (enum VmafPoolingMethod)m,
                                                          &f->pooled[m], 0, n_frames - 1);
    }
    return 0;
}

static const char *errstr(int err, char *buf, size_t size)
{
    /* GNU strerror_r (the build defines _GNU_SOURCE) returns the message. */
    return strerror_r(-err, buf, size);
}

/* What to do about a failed write, by its cause. */
static const char *write_advice(int err)
{
    switch (-err) {
    case EPIPE:
        return "the reader closed the pipe early; let it read to the end";
    case EFBIG:
        return "the file size limit (ulimit -f) was reached; raise it or choose another "
               "output path";
    case ENOSPC:
#ifdef EDQUOT
    case EDQUOT:
#endif
        return "free space or choose another output path";
    default:
        return "choose another output path";
    }
}

/* The permissions a new file gets from open(..., 0666): 0666 & ~umask. The
 * umask is read from /proc because umask() can only be read by setting it,
 * which would race with other threads creating files. */
static mode_t new_file_mode(void)
{
    mode_t mode = 0600; /* mkstemp's: the safe choice if the umask is unknown */
    FILE *f = fopen("/proc/self/status", "re");
    if (!f)
        return mode;
    char line[256];
    while (fgets(line, sizeof(line), f)) {
        unsigned mask;
        if (sscanf(line, "Umask: %o", &mask) == 1) {
            mode = 0666 & ~(mode_t)mask;
            break;
        }
    }
    fclose(f);
    return mode;
}

enum TargetKind {
    TARGET_STDOUT,
    TARGET_DIRECT, /* an existing device or FIFO, such as /dev/null or /dev/full */
    TARGET_ATOMIC, /* a regular file, written through a temporary one */
};

typedef struct Target {
    enum TargetKind kind;
    const char *path;   /* as the caller gave it, for messages */
    char *final;        /* where the report lands (symlinks resolved) */
    char *tmp;          /* the temporary file (TARGET_ATOMIC) */
    FILE *f;
    /* The complete report is copied into the existing file instead of
     * renamed over it: a rename would cut its other hard links off, or
     * give it an owner it did not have. */
    bool in_place;
    int tmp_fd;         /* the temporary file, read back for that copy */
    bool have_old;      /* the target existed: its identity, for the copy */
    dev_t old_dev;
    ino_t old_ino;
} Target;

/* Where a report at `path`, which does not exist, is created: `path` itself,
 * or, for a dangling symlink, the file the link names (a relative target is
 * relative to the link's directory; chains are followed), so that the link
 * is kept as it is for a link to an existing file. *out is malloc'd. */
static int dangling_target(const char *path, char **out)
{
    char *cur = strdup(path);
    if (!cur)
        return -ENOMEM;
    for (int hops = 0;; hops++) {
        struct stat st;
        if (lstat(cur, &st) || !S_ISLNK(st.st_mode)) {
            *out = cur;
            return 0;
        }
        /* The kernel's own limit on a chain of links (Linux's MAXSYMLINKS). */
        if (hops == 40) {
            free(cur);
            return -ELOOP;
        }
        char link[PATH_MAX];
        const ssize_t n = readlink(cur, link, sizeof(link));
        if (n < 0 || (size_t)n >= sizeof(link)) {
            const int err = n < 0 ? -errno : -ENAMETOOLONG;
            free(cur);
            return err;
        }
        const char *slash = strrchr(cur, '/');
        const size_t dir_len = link[0] == '/' || !slash ? 0 : (size_t)(slash - cur) + 1;
        char *next = malloc(dir_len + (size_t)n + 1);
        if (next) {
            memcpy(next, cur, dir_len);
            memcpy(next + dir_len, link, (size_t)n);
            next[dir_len + (size_t)n] = '\0';
        }
        free(cur);
        if (!next)
            return -ENOMEM;
        cur = next;
    }
}

static int target_open(Target *t, const char *path)
{
    char eb[128];
    memset(t, 0, sizeof(*t));
    t->path = path;
    t->tmp_fd = -1;
    if (!strcmp(path, "-")) {
        t->kind = TARGET_STDOUT;
        t->f = stdout;
        return 0;
    }
    if (!*path) {
        vmaf_error("report: the output path is empty; give a file name, or \"-\" for stdout");
        return -EINVAL;
    }

    mode_t mode;
    struct stat st, old_owner;
    bool have_old = false;
    if (!stat(path, &st)) {
        if (S_ISDIR(st.st_mode)) {
            vmaf_error("report: \"%s\" is a directory; give a file name for the report", path);
            return -EISDIR;
        }
        if (!S_ISREG(st.st_mode)) {
            /* A device or FIFO cannot be replaced by a rename; write to it
             * directly (every write is still checked). */
            t->kind = TARGET_DIRECT;
            t->f = fopen(path, "we");
            if (!t->f) {
                int err = -errno;
                vmaf_error("report: cannot open \"%s\": %s; choose another output path", path,
                           errstr(err, eb, sizeof(eb)));
                return err;
            }
            return 0;
        }
        /* Keep a read-only file read-only, as opening it for writing would. */
        if (access(path, W_OK)) {
            int err = -errno;
            vmaf_error("report: \"%s\" is not writable: %s; choose another output path", path,
                       errstr(err, eb, sizeof(eb)));
            return err;
        }
        mode = st.st_mode & 07777;
        old_owner = st;
        have_old = true;
        t->have_old = true;
        t->old_dev = st.st_dev;
        t->old_ino = st.st_ino;
        t->in_place = st.st_nlink > 1;
        /* Replace the file a symlink points to, not the link. */
        t->final = realpath(path, NULL);
        if (!t->final) {
            int err = -errno;
            vmaf_error("report: cannot resolve \"%s\": %s; choose another output path", path,
                       errstr(err, eb, sizeof(eb)));
            return err;
        }
    } else if (errno == ENOENT) {
        mode = new_file_mode();
        int err = dangling_target(path, &t->final);
        if (err == -ENOMEM) {
            vmaf_error("report: out of memory preparing \"%s\"", path);
            return err;
        }
        if (err) {
            vmaf_error("report: cannot follow the symlink \"%s\": %s; choose another output "
                       "path", path, errstr(err, eb, sizeof(eb)));
            return err;
        }
    } else {
        int err = -errno;
        vmaf_error("report: cannot use \"%s\": %s; check the path or choose another one", path,
                   errstr(err, eb, sizeof(eb)));
        return err;
    }

    t->kind = TARGET_ATOMIC;
    const char *slash = strrchr(t->final, '/');
    int dir_len = slash ? (int)(slash - t->final) : 1;
    const char *dir = slash ? t->final : ".";
    const char *base = slash ? slash + 1 : t->final;
    if (slash == t->final)
        dir_len = 0; /* a file in "/" */
    /* Hidden and named after the target, so that a leftover (after a crash)
     * is recognisable; the base is cut so the name stays within NAME_MAX. */
    size_t tmp_size = (size_t)dir_len + strlen(base) + 16;
    t->tmp = malloc(tmp_size);
    if (!t->tmp) {
        vmaf_error("report: out of memory preparing \"%s\"", path);
        free(t->final);
        t->final = NULL;
        return -ENOMEM;
    }
    snprintf(t->tmp, tmp_size, "%.*s/.%.200s.XXXXXX", dir_len, dir, base);
    int err;
    if (append_only_dir(dir, dir_len)) {
        err = -EPERM;
        vmaf_error("report: the directory of \"%s\" is append-only (chattr +a): the report's "
                   "temporary file could be created there but not renamed or removed "
                   "afterwards; choose another output path", path);
        goto fail;
    }
    int fd = mkostemp(t->tmp, O_CLOEXEC);
    if (fd < 0) {
        err = -errno;
        vmaf_error("report: cannot create a temporary file beside \"%s\": %s; "
                   "the report's directory must exist and be writable",
                   path, errstr(err, eb, sizeof(eb)));
        goto fail;
    }
    /* A replaced file keeps its owner and group. Only root (or a group
     * member, for the group) may give the temporary file to them; where
     * that is refused, the report goes into the file itself at the end. */
    if (have_old && (old_owner.st_uid != geteuid() || old_owner.st_gid != getegid()) &&
        fchown(fd, old_owner.st_uid, old_owner.st_gid))
        t->in_place = true;
    /* A descriptor of its own reads the report back for an in-place copy:
     * the file's mode may not let it be opened again for reading, and its
     * name could be replaced in the meantime. */
    if (fchmod(fd, mode) || (t->tmp_fd = fcntl(fd, F_DUPFD_CLOEXEC, 3)) < 0 ||
        !(t->f = fdopen(fd, "w"))) {
        err = -errno;
        vmaf_error("report: cannot prepare the temporary file \"%s\": %s; "
                   "choose another output path", t->tmp, errstr(err, eb, sizeof(eb)));
        close(fd);
        if (t->tmp_fd >= 0)
            close(t->tmp_fd);
        t->tmp_fd = -1;
        unlink(t->tmp);
        goto fail;
    }
    return 0;
fail:
    free(t->tmp);
    free(t->final);
    t->tmp = t->final = NULL;
    return err;
}

/* What a failure leaves behind, for the error message. */
static const char *outcome(const Target *t)
{
    return t->kind == TARGET_STDOUT ? "the report on stdout is incomplete"
                                    : "no report was written";
}

/* Copies the finished temporary file into the target itself, for targets
 * a rename must not replace or cannot: hard links, another owner, a file
 * bind-mounted on its own (rename gives EBUSY). The target is opened by
 * the path resolved at the start, not through a link put there since, and
 * only written if it is still the file that was there. Only here can a
 * failure leave the target incomplete, and the message says so. */
static int copy_in_place(const Target *t)
{
    char eb[128];
    int err = 0;
    const char *what = "open";
    bool truncated = false;
    struct stat st;
    const int out = open(t->final, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
    if (out < 0 || fstat(out, &st)) {
        err = -errno;
    } else if (!t->have_old || st.st_dev != t->old_dev || st.st_ino != t->old_ino) {
        close(out);
        vmaf_error("report: \"%s\" was replaced by another file during the run; no report "
                   "was written, run again", t->path);
        return -ESTALE;
    } else {
        what = "write";
        truncated = true;
        if (ftruncate(out, 0))
            err = -errno;
        char buf[1 << 16];
        off_t off = 0;
        while (!err) {
            const ssize_t n = pread(t->tmp_fd, buf, sizeof(buf), off);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0) {
                if (n < 0)
                    err = -errno;
                break;
            }
            off += n;
            for (ssize_t done = 0; done < n && !err;) {
                const ssize_t w = write(out, buf + done, (size_t)(n - done));
                if (w < 0 && errno != EINTR)
                    err = -errno;
                else if (w > 0)
                    done += w;
            }
        }
        if (!err && fsync(out) && errno != EINVAL && errno != ENOTSUP && errno != EOPNOTSUPP) {
            err = -errno;
            what = "sync";
        }
    }
    if (out >= 0 && close(out) && !err) {
        err = -errno;
        what = "close";
    }
    if (err)
        vmaf_error("report: cannot %s \"%s\" in place: %s; %s; %s", what, t->path,
                   errstr(err, eb, sizeof(eb)),
                   truncated ? "the file may hold an incomplete report"
                             : "no report was written",
                   write_advice(err));
    return err;
}

/* Finishes the report: on success (err == 0) flushes, syncs, closes and
 * renames; on failure discards the temporary file. Returns the first error. */
static int target_close(Target *t, int err)
{
    char eb[128];
    const char *what = NULL;
    if (!err) {
        errno = 0;
        if (fflush(t->f)) {
            err = errno ? -errno : -EIO;
            what = "write";
        }
    }
    /* EINVAL/ENOTSUP mean the file system has no fsync, not that data was lost. */
    if (!err && t->kind == TARGET_ATOMIC && fsync(fileno(t->f)) && errno != EINVAL &&
        errno != ENOTSUP && errno != EOPNOTSUPP) {
        err = -errno;
        what = "sync";
    }
    if (t->kind != TARGET_STDOUT) {
        errno = 0;
        if (fclose(t->f) && !err) {
            err = errno ? -errno : -EIO;
            what = "close";
        }
    }
    t->f = NULL;
    if (!err && t->kind == TARGET_ATOMIC) {
        if (t->in_place) {
            err = copy_in_place(t);
        } else if (rename(t->tmp, t->final)) {
            err = -errno;
            what = "rename the temporary file over";
            /* A file mounted on its own (a container's -v host/file:/file)
             * or on another file system cannot be renamed over. */
            if (err == -EBUSY || err == -EXDEV) {
                t->in_place = true;
                err = copy_in_place(t);
                what = NULL;
            }
        }
    }
    if (err && what)
        vmaf_error("report: cannot %s \"%s\": %s; %s; %s", what,
                   t->kind == TARGET_STDOUT ? "stdout" : t->path, errstr(err, eb, sizeof(eb)),
                   outcome(t), write_advice(err));
    if (t->kind == TARGET_ATOMIC) {
        if (err || t->in_place) {
            unlink(t->tmp);
        } else {
            /* Make the rename itself durable; the report is complete either
             * way, so a directory that cannot be synced is not an error. */
            char *slash = strrchr(t->final, '/');
            if (slash)
                *slash = '\0';
            int dfd = open(slash ? (slash == t->final ? "/" : t->final) : ".",
                           O_RDONLY | O_DIRECTORY | O_CLOEXEC);
            if (dfd >= 0) {
                (void)fsync(dfd);
                close(dfd);
            }
        }
    }
    if (t->tmp_fd >= 0)
        close(t->tmp_fd);
    free(t->tmp);
    free(t->final);
    return err;
}

int vmaf_write_output_with_format(VmafContext *vmaf, const char *output_path,
                                  enum VmafOutputFormat fmt, const char *score_format)
{
    if (!vmaf || !output_path) {
        vmaf_error("report: %s is NULL; pass a context and an output path",
                   !vmaf ? "the context" : "the output path");
        return -EINVAL;
    }
    if (!score_format)
        score_format = VMAF_OUTPUT_DEFAULT_SCORE_FORMAT;
    if (vmaf_output_check_score_format(score_format)) {
        vmaf_error("report: score format \"%s\" is not one printf conversion "
                   "%%[flags][width][.precision](e|f|g) (width and precision at most 99), "
                   "such as \"%%.6f\" or \"%%.17g\"", score_format);
        return -EINVAL;
    }
    const VmafOutputWriter *w = NULL;
    for (size_t i = 0; i < sizeof(writers) / sizeof(writers[0]); i++)
        if (writers[i]->fmt == fmt)
            w = writers[i];
    if (!w) {
        vmaf_error("report: unknown output format %d for \"%s\"; use XML (%d), JSON (%d), "
                   "CSV (%d) or SUB (%d)", (int)fmt, output_path, VMAF_OUTPUT_FORMAT_XML,
                   VMAF_OUTPUT_FORMAT_JSON, VMAF_OUTPUT_FORMAT_CSV, VMAF_OUTPUT_FORMAT_SUB);
        return -EINVAL;
    }

    vmaf_context_settle(vmaf);
    VmafReport r;
    int err = report_init(&r, vmaf, score_format);
    if (!err && w->check)
        err = w->check(&r);
    if (err) {
        free(r.feature);
        return err;
    }

    /* Numbers are written with '.' whatever locale the application chose:
     * a decimal comma would break every format. */
    locale_t c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
    if (!c_locale) {
        vmaf_error("report: cannot create the C locale for \"%s\": out of memory", output_path);
        free(r.feature);
        return -ENOMEM;
    }

    Target t;
    err = target_open(&t, output_path);
    if (!err) {
        locale_t old = uselocale(c_locale);
        VmafOutSink s = { .f = t.f, .err = 0 };
        w->write(&r, &s);
        uselocale(old);
        err = s.err;
        if (err) {
            char eb[128];
            vmaf_error("report: cannot write %s to \"%s\": %s; %s; %s", w->name,
                       t.kind == TARGET_STDOUT ? "stdout" : output_path,
                       errstr(err, eb, sizeof(eb)), outcome(&t), write_advice(err));
        }
        err = target_close(&t, err);
    }
    freelocale(c_locale);
    free(r.feature);
    return err;
}

int vmaf_write_output(VmafContext *vmaf, const char *output_path, enum VmafOutputFormat fmt)
{
    return vmaf_write_output_with_format(vmaf, output_path, fmt, NULL);
}
