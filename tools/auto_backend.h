/* --backend auto's choice for short runs: the CPU, without touching CUDA,
 * where the CPU would finish the work a GPU twin could take before CUDA
 * has even started. No library calls, so the unit tests check it. */
#ifndef VMAF_TOOLS_AUTO_BACKEND_H
#define VMAF_TOOLS_AUTO_BACKEND_H

#include <stdbool.h>
#include <stdint.h>

#include "cli_parse.h"

/* What a CUDA run pays before its first frame: the driver's context, the
 * kernels' modules and the twins' buffers (docs/backends/cuda.md has the
 * measured figures behind it). */
#define AUTO_CUDA_STARTUP_S 0.3

typedef struct AutoWork {
    int64_t frames;     /* to score; < 0: not known before reading (a pipe) */
    unsigned w, h;      /* luma */
    unsigned threads;   /* CPU workers; 0: the reading thread scores */
    unsigned subsample; /* features every Nth frame; 0 or 1: every frame */
} AutoWork;

/* One CPU thread's nanoseconds a luma pixel for the features of c that
 * have a GPU twin: each model's (motion, VIF, ADM; counted once, as the
 * library computes them once) and each --feature's. Negative when a twin
 * is asked for by name ("..._cuda"): that run wants the GPU. */
double auto_twin_cost_ns(const CliSettings *c);

/* The estimated CPU seconds of that work, or a negative value where the
 * frame count is unknown or a twin was asked for by name. Workers score
 * whole frames, so a run of fewer frames than workers uses fewer. */
double auto_cpu_seconds(const AutoWork *w, double ns_per_px);

/* Whether auto takes the CPU without trying CUDA: the estimate is known
 * and below AUTO_CUDA_STARTUP_S. */
bool auto_prefers_cpu(double cpu_seconds);

#endif /* VMAF_TOOLS_AUTO_BACKEND_H */
