/* Finishing a report: every write, the flush, the fsync and the close must
 * succeed before the temporary file is renamed over the target (or copied
 * into it); otherwise it is removed and the target is left as it was. See
 * target.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"
#include "output/target.h"

const char *vmaf_target_advice(int err)
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

const char *vmaf_target_outcome(const VmafTarget *t)
{
    return t->kind == VMAF_TARGET_STDOUT ? "the report on stdout is incomplete"
                                         : "no report was written";
}

/* EINVAL/ENOTSUP mean the file system has no fsync, not that data was lost. */
static bool sync_failed(int fd)
{
    return fsync(fd) && errno != EINVAL && errno != ENOTSUP && errno != EOPNOTSUPP;
}

/* Copies the temporary file (read through t->tmp_fd) into out from the
 * start. 0 or negative errno. */
static int copy_into(const VmafTarget *t, int out)
{
    char buf[1 << 16];
    off_t off = 0;
    for (;;) {
        const ssize_t n = pread(t->tmp_fd, buf, sizeof(buf), off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return n < 0 ? -errno : 0;
        off += n;
        for (ssize_t done = 0; done < n;) {
            const ssize_t w = write(out, buf + done, (size_t)(n - done));
            if (w < 0 && errno != EINTR)
                return -errno;
            if (w > 0)
                done += w;
        }
    }
}

/* Copies the finished temporary file into the target itself, for targets
 * a rename must not replace or cannot: hard links, another owner, a file
 * bind-mounted on its own (rename gives EBUSY). The target is opened by
 * the path resolved at the start, not through a link put there since, and
 * only written if it is still the file that was there. Only here can a
 * failure leave the target incomplete, and the message says so. */
static int copy_in_place(const VmafTarget *t)
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
        err = ftruncate(out, 0) ? -errno : copy_into(t, out);
        if (!err && sync_failed(out)) {
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
                   vmaf_target_errstr(err, eb, sizeof(eb)),
                   truncated ? "the file may hold an incomplete report" : "no report was written",
                   vmaf_target_advice(err));
    return err;
}

/* The stream's last steps: flush, sync (a file), close (not stdout). The
 * first failure and the step that failed. */
static int finish_stream(VmafTarget *t, const char **what)
{
    int err = 0;
    errno = 0;
    if (fflush(t->f)) {
        err = errno ? -errno : -EIO;
        *what = "write";
    }
    if (!err && t->kind == VMAF_TARGET_ATOMIC && sync_failed(fileno(t->f))) {
        err = -errno;
        *what = "sync";
    }
    if (t->kind != VMAF_TARGET_STDOUT) {
        errno = 0;
        if (fclose(t->f) && !err) {
            err = errno ? -errno : -EIO;
            *what = "close";
        }
    }
    t->f = NULL;
    return err;
}

/* Puts the complete temporary file in the target's place: a rename, or a
 * copy where a rename must not or cannot replace it. A file mounted on its
 * own (a container's -v host/file:/file) or on another file system cannot
 * be renamed over. */
static int commit(VmafTarget *t, const char **what)
{
    if (t->in_place)
        return copy_in_place(t);
    if (!rename(t->tmp, t->final))
        return 0;
    const int err = -errno;
    *what = "rename the temporary file over";
    if (err != -EBUSY && err != -EXDEV)
        return err;
    t->in_place = true;
    *what = NULL; /* copy_in_place says why itself */
    return copy_in_place(t);
}

/* Makes the rename itself durable; the report is complete either way, so a
 * directory that cannot be synced is not an error. */
static void sync_directory(char *final)
{
    char *slash = strrchr(final, '/');
    if (slash)
        *slash = '\0';
    const int dfd = open(slash ? (slash == final ? "/" : final) : ".",
                         O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        (void)fsync(dfd);
        close(dfd);
    }
}

int vmaf_target_close(VmafTarget *t, int err)
{
    char eb[128];
    const char *what = NULL;
    if (err) {
        if (t->kind != VMAF_TARGET_STDOUT)
            fclose(t->f);
        t->f = NULL;
    } else {
        err = finish_stream(t, &what);
    }
    if (!err && t->kind == VMAF_TARGET_ATOMIC)
        err = commit(t, &what);
    if (err && what)
        vmaf_error("report: cannot %s \"%s\": %s; %s; %s", what,
                   t->kind == VMAF_TARGET_STDOUT ? "stdout" : t->path,
                   vmaf_target_errstr(err, eb, sizeof(eb)), vmaf_target_outcome(t),
                   vmaf_target_advice(err));
    if (t->kind == VMAF_TARGET_ATOMIC) {
        if (err || t->in_place)
            unlink(t->tmp);
        else
            sync_directory(t->final);
    }
    if (t->tmp_fd >= 0)
        close(t->tmp_fd);
    free(t->tmp);
    free(t->final);
    t->tmp = t->final = NULL;
    return err;
}
