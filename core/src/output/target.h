/* Where a report is written, and the policy that gets it there whole: a
 * regular file (new or existing, a symbolic link's target included) is
 * written to a temporary file beside it (".NAME.XXXXXX", the umask's or the
 * old file's mode, the old file's owner) and renamed over it, or copied in
 * place where a rename must not or cannot replace it; a device or FIFO is
 * written directly; "-" is stdout. vmaf_output_path_check() asks the same
 * questions before a run. */
#ifndef LIBVMAF_SRC_OUTPUT_TARGET_H
#define LIBVMAF_SRC_OUTPUT_TARGET_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

enum VmafTargetKind {
    VMAF_TARGET_STDOUT,
    VMAF_TARGET_DIRECT, /* an existing device or FIFO, such as /dev/null or /dev/full */
    VMAF_TARGET_ATOMIC, /* a regular file, written through a temporary one */
};

typedef struct VmafTarget {
    enum VmafTargetKind kind;
    const char *path;   /* as the caller gave it, for messages */
    char *final;        /* where the report lands (symlinks resolved) */
    char *tmp;          /* the temporary file (VMAF_TARGET_ATOMIC) */
    FILE *f;
    mode_t mode;        /* the report's mode: the old file's, or 0666 & ~umask */
    /* The complete report is copied into the existing file instead of
     * renamed over it: a rename would cut its other hard links off, or
     * give it an owner it did not have. */
    bool in_place;
    int tmp_fd;         /* the temporary file, read back for that copy */
    bool have_old;      /* the target existed: its identity and owner */
    dev_t old_dev;
    ino_t old_ino;
    uid_t old_uid;
    gid_t old_gid;
} VmafTarget;

/* Opens the report's stream for `path` ("-": stdout). 0, or negative errno
 * with one logged line; nothing is left behind on failure. */
int vmaf_target_open(VmafTarget *t, const char *path);

/* Finishes the report: with err 0 flushes, syncs, closes and renames (or
 * copies in place); otherwise discards the temporary file. Returns the
 * first error, logged once. */
int vmaf_target_close(VmafTarget *t, int err);

/* What a failed report leaves behind, for error messages. */
const char *vmaf_target_outcome(const VmafTarget *t);

/* What to do about a failed write, by its cause (a negative errno). */
const char *vmaf_target_advice(int err);

/* strerror_r of a negative errno into buf. */
const char *vmaf_target_errstr(int err, char *buf, size_t size);

#endif /* LIBVMAF_SRC_OUTPUT_TARGET_H */
