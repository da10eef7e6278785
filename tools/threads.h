/* The number of scoring workers when --threads is not given. The
 * extractors are frame-parallel, and their scores are the same for every
 * count; each worker keeps about three frames in flight (the one it scores
 * and two queued), so large frames get fewer workers. */
#ifndef VMAF_TOOLS_THREADS_H
#define VMAF_TOOLS_THREADS_H

#include <stdint.h>

/* What the pictures in flight may hold when the tool picks the count. */
#define THREADS_PICTURE_BUDGET ((uint64_t)1 << 30)

/* The CPUs this process may run on (its affinity mask), at least 1. */
unsigned threads_cpus_available(void);

/* One worker per CPU, at most as many as keep the luma of the frame pairs
 * in flight (about 3 per worker, and 2 more: the one being read and the
 * previous reference) under THREADS_PICTURE_BUDGET; 0 (score in the
 * reading thread) where even one worker would not. */
unsigned threads_default(unsigned cpus, unsigned w, unsigned h, unsigned bpc);

#endif /* VMAF_TOOLS_THREADS_H */
