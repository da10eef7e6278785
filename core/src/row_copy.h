/* Copies of pitched planes spread over a few threads.
 *
 * One core moves about 6 to 12 GB/s from one buffer in DRAM to another, so
 * a single memcpy of a host picture into pinned staging, not the PCIe
 * upload after it (about 50 GB/s), is what bounds a device extractor fed
 * with ordinary host pictures (docs/adr/0112-parallel-staging-copy.md).
 * A copier holds its worker threads from creation to destruction; they
 * sleep between runs. */
#ifndef LIBVMAF_SRC_ROW_COPY_H
#define LIBVMAF_SRC_ROW_COPY_H

#include <stddef.h>

/* rows rows of row_bytes bytes each, from src (rows src_stride bytes apart,
 * possibly negative) to dst (dst_stride apart). */
typedef struct VmafRowCopy {
    void *dst;
    size_t dst_stride;
    const void *src;
    ptrdiff_t src_stride;
    size_t row_bytes;
    unsigned rows;
} VmafRowCopy;

/* The most planes one run takes. */
#define VMAF_ROW_COPY_MAX 4

/* Below this many bytes a run copies in the calling thread alone: waking
 * the workers costs more than they save. */
#define VMAF_ROW_COPY_MIN_PARALLEL (1u << 20)

typedef struct VmafRowCopier VmafRowCopier;

/* A copier with `threads` participants, the caller included (so threads - 1
 * workers; 1 makes none). 0 or negative errno; on failure *c is NULL. */
int vmaf_row_copier_create(VmafRowCopier **c, unsigned threads);

/* Participants a new copier gets by default: half the CPUs this process may
 * run on, at least 1 and at most 8 (the memory, not the cores, is the
 * limit beyond that). */
unsigned vmaf_row_copier_default_threads(void);

/* Participants of c (1 for NULL). */
unsigned vmaf_row_copier_threads(const VmafRowCopier *c);

/* Copies n (<= VMAF_ROW_COPY_MAX) planes and returns when every row is in
 * place. c may be NULL (the caller copies alone). Runs from several threads
 * on one copier take turns. Returns 0, or -EINVAL for n out of range (and
 * copies nothing). */
int vmaf_row_copier_run(VmafRowCopier *c, const VmafRowCopy *planes, unsigned n);

/* Joins the workers and frees c. NULL is a no-op. */
void vmaf_row_copier_destroy(VmafRowCopier *c);

#endif /* LIBVMAF_SRC_ROW_COPY_H */
