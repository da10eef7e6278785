/* Where a report goes and whether it can go there: the path resolved (links
 * followed, a dangling one to the file it names), its directory checked,
 * the temporary file beside the target created. vmaf_output_path_check()
 * runs the same steps and removes what it made; see target.h. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libvmaf/libvmaf.h"

#include "log.h"
#include "output/target.h"

const char *vmaf_target_errstr(int err, char *buf, size_t size)
{
    /* GNU strerror_r (the build defines _GNU_SOURCE) returns the message. */
    return strerror_r(-err, buf, size);
}

/* One line, "report: cannot write "PATH": WHY", and err. */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static int refuse(const char *path, int err, const char *fmt, ...)
{
    char why[3 * PATH_MAX]; /* a directory, a temporary name and words */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof(why), fmt, ap);
    va_end(ap);
    vmaf_error("report: cannot write \"%s\": %s", path, why);
    return err;
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

/* The next path of a chain of links: `link` (n bytes) read from the link
 * at cur, relative to cur's directory unless absolute. NULL when out of
 * memory. */
static char *follow(const char *cur, const char *link, size_t n)
{
    const char *slash = strrchr(cur, '/');
    const size_t dir_len = link[0] == '/' || !slash ? 0 : (size_t)(slash - cur) + 1;
    char *next = malloc(dir_len + n + 1);
    if (next) {
        memcpy(next, cur, dir_len);
        memcpy(next + dir_len, link, n);
        next[dir_len + n] = '\0';
    }
    return next;
}

/* Where a report at `path`, which does not exist, is created: `path` itself,
 * or, for a dangling symlink, the file the chain of links ends at, so that
 * the link is kept as it is for a link to an existing file. *out is
 * malloc'd. 0 or negative errno. */
static int dangling_target(const char *path, char **out)
{
    char *cur = strdup(path);
    for (int hops = 0; cur; hops++) {
        struct stat st;
        if (lstat(cur, &st) || !S_ISLNK(st.st_mode)) {
            *out = cur;
            return 0;
        }
        /* The kernel's own limit on a chain of links (Linux's MAXSYMLINKS). */
        char link[PATH_MAX];
        const ssize_t n = hops == 40 ? -1 : readlink(cur, link, sizeof(link));
        if (n < 0 || (size_t)n >= sizeof(link)) {
            const int err = hops == 40 ? -ELOOP : n < 0 ? -errno : -ENAMETOOLONG;
            free(cur);
            return err;
        }
        char *next = follow(cur, link, (size_t)n);
        free(cur);
        cur = next;
    }
    return -ENOMEM;
}

/* An existing path: a device or FIFO is written in place, a regular file
 * is replaced (the file a link names, keeping its mode and owner). */
static int resolve_existing(VmafTarget *t, const char *path, const struct stat *st)
{
    char eb[128];
    if (S_ISDIR(st->st_mode))
        return refuse(path, -EISDIR, "it is a directory; give a file name for the report");
    if (S_ISSOCK(st->st_mode))
        return refuse(path, -ENXIO, "it is a socket, which cannot be opened as a file; "
                      "choose another output path");
    if (!S_ISREG(st->st_mode)) {
        t->kind = VMAF_TARGET_DIRECT;
        return 0;
    }
    /* Keep a read-only file read-only, as opening it for writing would. */
    if (access(path, W_OK)) {
        const int err = -errno;
        return refuse(path, err, "the file is not writable (%s); make it writable or choose "
                      "another output path", vmaf_target_errstr(err, eb, sizeof(eb)));
    }
    t->mode = st->st_mode & 07777;
    t->have_old = true;
    t->old_dev = st->st_dev;
    t->old_ino = st->st_ino;
    t->old_uid = st->st_uid;
    t->old_gid = st->st_gid;
    t->in_place = st->st_nlink > 1;
    t->final = realpath(path, NULL);
    if (!t->final) {
        const int err = -errno;
        return refuse(path, err, "cannot resolve it (%s); choose another output path",
                      vmaf_target_errstr(err, eb, sizeof(eb)));
    }
    t->kind = VMAF_TARGET_ATOMIC;
    return 0;
}

/* A path that does not exist yet, a dangling link's included. */
static int resolve_new(VmafTarget *t, const char *path)
{
    char eb[128];
    t->mode = new_file_mode();
    const int err = dangling_target(path, &t->final);
    if (err == -ENOMEM) {
        vmaf_error("report: out of memory preparing \"%s\"", path);
        return err;
    }
    if (err)
        return refuse(path, err, "it is a symbolic link that cannot be followed (%s); "
                      "choose another output path", vmaf_target_errstr(err, eb, sizeof(eb)));
    t->kind = VMAF_TARGET_ATOMIC;
    return 0;
}

/* What `path` is, into t (zeroed first). 0, or negative errno with one
 * logged line. */
static int target_resolve(VmafTarget *t, const char *path)
{
    char eb[128];
    memset(t, 0, sizeof(*t));
    t->path = path;
    t->tmp_fd = -1;
    if (!strcmp(path, "-")) {
        t->kind = VMAF_TARGET_STDOUT;
        return 0;
    }
    const size_t len = strlen(path);
    if (!len) {
        vmaf_error("report: the output path is empty; give a file name, or \"-\" for stdout");
        return -EINVAL;
    }
    if (path[len - 1] == '/')
        return refuse(path, -EISDIR, "the path names a directory (it ends in '/'); give a "
                      "file name");
    struct stat st;
    if (!stat(path, &st))
        return resolve_existing(t, path, &st);
    const int err = -errno;
    if (err == -ENOENT)
        return resolve_new(t, path);
    if (err == -ENOTDIR)
        return refuse(path, err, "a part of the path before the file name is a file, not a "
                      "directory; choose another output path");
    return refuse(path, err, "%s; check the path or choose another one",
                  vmaf_target_errstr(err, eb, sizeof(eb)));
}

/* Whether directory `dir` is marked append-only (chattr +a). statx()
 * needs no read permission on it, as an open() for FS_IOC_GETFLAGS would;
 * file systems without the flag say no. */
static bool append_only_dir(const char *dir)
{
    struct statx sx;
    return !statx(AT_FDCWD, dir, 0, STATX_BASIC_STATS, &sx) &&
           (sx.stx_attributes_mask & STATX_ATTR_APPEND) &&
           (sx.stx_attributes & STATX_ATTR_APPEND);
}

/* The directory of t->final, where the temporary file is made and renamed:
 * it must exist, be a writable directory and let files be renamed. */
static int check_directory(const VmafTarget *t, const char *dir)
{
    char eb[128];
    struct stat st;
    if (stat(dir, &st)) {
        const int err = -errno;
        return err == -ENOENT
                   ? refuse(t->path, err, "directory %s does not exist; create it or choose "
                            "another output path", dir)
                   : refuse(t->path, err, "directory %s cannot be used (%s); choose another "
                            "output path", dir, vmaf_target_errstr(err, eb, sizeof(eb)));
    }
    if (!S_ISDIR(st.st_mode))
        return refuse(t->path, -ENOTDIR, "%s is not a directory; choose another output path",
                      dir);
    if (access(dir, W_OK | X_OK)) {
        const int err = -errno;
        return refuse(t->path, err, "directory %s is not writable (%s); choose another "
                      "output path", dir, vmaf_target_errstr(err, eb, sizeof(eb)));
    }
    if (append_only_dir(dir))
        return refuse(t->path, -EPERM, "directory %s is append-only (chattr +a), where the "
                      "report's temporary file could be created but not renamed or removed; "
                      "choose another output path", dir);
    return 0;
}

/* Hidden and named after the target, so that a leftover (after a crash) is
 * recognisable; the base is cut so that the name stays within NAME_MAX.
 * Then the directory is checked, and the file created (its descriptor in
 * *fd). */
static int create_tmp(VmafTarget *t, int *fd)
{
    char eb[128];
    const char *slash = strrchr(t->final, '/');
    const char *base = slash ? slash + 1 : t->final;
    const char *dir_at = slash ? t->final : ".";
    /* The first dir_len bytes of dir_at name the directory: none for "/". */
    const int dir_len = !slash ? 1 : (int)(slash - t->final);
    const size_t size = (size_t)dir_len + strlen(base) + 16;
    char *dir = malloc(size);
    t->tmp = malloc(size);
    if (!dir || !t->tmp) {
        free(dir);
        vmaf_error("report: out of memory preparing \"%s\"", t->path);
        return -ENOMEM;
    }
    snprintf(dir, size, "%.*s", dir_len ? dir_len : 1, dir_len ? dir_at : "/");
    snprintf(t->tmp, size, "%.*s/.%.200s.XXXXXX", dir_len, dir_at, base);
    int err = check_directory(t, dir);
    if (!err && (*fd = mkostemp(t->tmp, O_CLOEXEC)) < 0) {
        err = -errno;
        if (err == -ENAMETOOLONG)
            refuse(t->path, err, "path too long for the report's temporary file beside it "
                   "(%zu bytes with it, at most %d); give a shorter output path",
                   strlen(t->tmp), PATH_MAX - 1);
        else
            refuse(t->path, err, "cannot create a file in directory %s (%s); choose another "
                   "output path", dir, vmaf_target_errstr(err, eb, sizeof(eb)));
    }
    free(dir);
    return err;
}

/* The temporary file's stream, with the report's mode and owner. A replaced
 * file keeps its owner and group; only root (or a group member, for the
 * group) may give the temporary file to them, and where that is refused
 * the report goes into the file itself at the end. A descriptor of its own
 * reads the report back for an in-place copy: the file's mode may not let
 * it be opened again for reading, and its name could be replaced in the
 * meantime. */
static int open_tmp(VmafTarget *t, int fd)
{
    char eb[128];
    if (t->have_old && (t->old_uid != geteuid() || t->old_gid != getegid()) &&
        fchown(fd, t->old_uid, t->old_gid))
        t->in_place = true;
    if (fchmod(fd, t->mode) || (t->tmp_fd = fcntl(fd, F_DUPFD_CLOEXEC, 3)) < 0 ||
        !(t->f = fdopen(fd, "w"))) {
        const int err = -errno;
        vmaf_error("report: cannot prepare the temporary file \"%s\": %s; "
                   "choose another output path", t->tmp, vmaf_target_errstr(err, eb, sizeof(eb)));
        close(fd);
        if (t->tmp_fd >= 0)
            close(t->tmp_fd);
        t->tmp_fd = -1;
        unlink(t->tmp);
        return err;
    }
    return 0;
}

static void target_free(VmafTarget *t)
{
    free(t->tmp);
    free(t->final);
    t->tmp = t->final = NULL;
}

int vmaf_target_open(VmafTarget *t, const char *path)
{
    char eb[128];
    int err = target_resolve(t, path);
    if (!err && t->kind == VMAF_TARGET_STDOUT)
        t->f = stdout;
    if (!err && t->kind == VMAF_TARGET_DIRECT && !(t->f = fopen(path, "we"))) {
        /* A device or FIFO cannot be replaced by a rename: written directly
         * (every write is still checked). */
        err = -errno;
        vmaf_error("report: cannot open \"%s\": %s; choose another output path", path,
                   vmaf_target_errstr(err, eb, sizeof(eb)));
    }
    int fd = -1;
    if (!err && t->kind == VMAF_TARGET_ATOMIC && !(err = create_tmp(t, &fd)))
        err = open_tmp(t, fd);
    if (err)
        target_free(t);
    return err;
}

int vmaf_output_path_check(const char *output_path)
{
    char eb[128];
    if (!output_path) {
        vmaf_error("report: vmaf_output_path_check: the output path is NULL");
        return -EINVAL;
    }
    VmafTarget t;
    int err = target_resolve(&t, output_path);
    /* A FIFO is not opened here: that would wait for its reader. */
    if (!err && t.kind == VMAF_TARGET_DIRECT && access(output_path, W_OK)) {
        err = -errno;
        refuse(output_path, err, "%s; choose another output path",
               vmaf_target_errstr(err, eb, sizeof(eb)));
    }
    int fd = -1;
    if (!err && t.kind == VMAF_TARGET_ATOMIC && !(err = create_tmp(&t, &fd))) {
        close(fd);
        if (unlink(t.tmp)) {
            err = -errno;
            refuse(output_path, err, "its directory lets files be created but not removed "
                   "(%s), and the report is written by renaming a temporary file; remove %s "
                   "and choose another output path", vmaf_target_errstr(err, eb, sizeof(eb)),
                   t.tmp);
        }
    }
    target_free(&t);
    return err;
}
