/* Checks of the report's path, before any frame is scored; see
 * report_path.h. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "message.h"
#include "report_path.h"
#include "vmaf.h"

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

bool is_stdout(const char *path)
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

/* "-": stdout appended to an input (vmaf ... -o - >> ref.y4m). */
static int check_stdout_report(const char *const *inputs, const char *const *what,
                               unsigned n_inputs)
{
    struct stat o, in;
    for (unsigned i = 0; i < n_inputs && !fstat(STDOUT_FILENO, &o) && S_ISREG(o.st_mode); i++)
        if (!stat(inputs[i], &in) && same_file(&in, &o))
            return report(VMAF_EXIT_OUTPUT, "refusing to write report (stdout): it is %s (%s); "
                          "send stdout elsewhere", what[i], inputs[i]);
    return 0;
}

/* An existing path `out` (st, its stat): 0 with *done set when nothing
 * more is to be checked (a device or pipe), else 0 with real_out filled
 * (empty when realpath() failed), or the refusal's status. */
static int check_existing(const char *out, const struct stat *st, const char *const *inputs,
                          const char *const *what, unsigned n_inputs, char *real_out,
                          bool *done)
{
    *done = false;
    if (S_ISDIR(st->st_mode))
        return report(VMAF_EXIT_OUTPUT, "cannot write report (%s): it is a directory; give a "
                      "file name", out);
    const bool have_real = realpath(out, real_out) != NULL;
    if (!have_real)
        real_out[0] = '\0';
    for (unsigned i = 0; i < n_inputs; i++) {
        struct stat in;
        char real_in[PATH_MAX];
        bool same = stat(inputs[i], &in) == 0 && same_file(&in, st);
        same = same || (have_real && realpath(inputs[i], real_in) && !strcmp(real_in, real_out));
        if (same)
            return report(VMAF_EXIT_OUTPUT, "refusing to write report (%s): it is %s; give "
                          "another -o path", out, what[i]);
    }
    if (S_ISSOCK(st->st_mode))
        return report(VMAF_EXIT_OUTPUT, "cannot write report (%s): it is a socket, which "
                      "cannot be opened as a file; give another -o path", out);
    if (!S_ISREG(st->st_mode)) {
        /* Devices and pipes are written in place; failures (such as
         * /dev/full) are caught when the report is written. */
        *done = true;
        if (access(out, W_OK))
            return report(VMAF_EXIT_OUTPUT, "cannot write report (%s): %s", out,
                          strerror(errno));
        return 0;
    }
    /* The library keeps a read-only file read-only: it refuses it. */
    if (access(out, W_OK))
        return report(VMAF_EXIT_OUTPUT, "cannot write report (%s): the file is not writable "
                      "(%s); make it writable or give another -o path", out, strerror(errno));
    return 0;
}

/* The report is written to a temporary file beside `target` (where it
 * lands, links followed) and renamed, so that directory must be
 * writable. */
static int check_target_directory(const char *out, const char *target)
{
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

int check_output_path(const char *out, const char *const *inputs, const char *const *what,
                      unsigned n_inputs)
{
    if (!strcmp(out, "-"))
        return check_stdout_report(inputs, what, n_inputs);
    const char *target = out; /* where the report lands: links followed */
    char real_out[PATH_MAX], link_target[PATH_MAX];
    struct stat st;
    const size_t out_len = strlen(out);
    if (out_len && out[out_len - 1] == '/')
        return report(VMAF_EXIT_OUTPUT, "cannot write report (%s): the path names a "
                      "directory (it ends in '/'); give a file name", out);
    if (stat(out, &st) == 0) {
        bool done;
        const int status = check_existing(out, &st, inputs, what, n_inputs, real_out, &done);
        if (status || done)
            return status;
        /* A link's target is replaced, beside the target. */
        if (real_out[0])
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
    return check_target_directory(out, target);
}
