/* Copies of pitched planes spread over a few threads.
 *
 * One core copies from one buffer in DRAM to another several times slower
 * than the PCIe upload after it, so a single memcpy of a host picture into
 * pinned staging is what bounds a device extractor fed with ordinary host
 * pictures. The rows are split over the members of a thread team
 * (util/team.h). */
#ifndef LIBVMAF_SRC_UTIL_ROW_COPY_H
#define LIBVMAF_SRC_UTIL_ROW_COPY_H

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

/* The most planes one run takes: two pictures of three planes. */
#define VMAF_ROW_COPY_MAX 6

/* Below this many bytes a run copies in the calling thread alone: waking
 * the workers costs more than they save. */
#define VMAF_ROW_COPY_MIN_PARALLEL (1u << 20)

struct VmafTeam;

/* Copies n (<= VMAF_ROW_COPY_MAX) planes, their rows split evenly over the
 * team's members, and returns when every row is in place. team may be NULL
 * (the caller copies alone), as may a run of under
 * VMAF_ROW_COPY_MIN_PARALLEL bytes. Returns 0, or -EINVAL for n out of
 * range (and copies nothing). */
int vmaf_row_copy(struct VmafTeam *team, const VmafRowCopy *planes, unsigned n);

#endif /* LIBVMAF_SRC_UTIL_ROW_COPY_H */
