/*
 * The runtime every CUDA twin runs on (CUDA builds only): a ring of
 * VMAF_CUDA_FRAMES_IN_FLIGHT frame slots with their events and read-back
 * buffers, a graph cache a slot, the sticky first error, and the
 * reserve / submit / collect calls of VmafFeatureExtractor
 * (feature_extractor.h) on top of them. A twin is its numerics: an ops
 * table that makes its buffers, enqueues a frame's kernels and turns their
 * result into scores. docs/extractors.md, "The device twin", shows one.
 *
 * The twin's private struct begins with its CPU extractor's options and
 * holds a VmafCudaTwin; its entry points pass that to the calls below.
 */
#ifndef LIBVMAF_SRC_CUDA_TWIN_H
#define LIBVMAF_SRC_CUDA_TWIN_H

#include <stdbool.h>
#include <stddef.h>

#include <cuda_runtime_api.h>

#include "cuda/cuda_internal.h"
#include "cuda/cuda_state.h"
#include "feature/feature_collector.h"
#include "feature/feature_extractor.h"

/* Graphs a slot keeps: one for the frames' own upload buffers, or one for
 * each pair of device pictures that comes round again from a consumer's
 * pool (the library's pool, fetched and given back two pictures a frame,
 * makes this many pairs). */
#define VMAF_CUDA_TWIN_GRAPHS (VMAF_CUDA_POOL_PICTURES / 2)

/* The most scores a frame may have (adm's eighteen, for each of four
 * option sets one pass serves). */
#define VMAF_CUDA_TWIN_SCORES 72

/* What a twin does; the runtime calls it with the state given to
 * vmaf_cuda_twin_init() and the device context current. prepare, init and
 * harvest log their own failure (vmaf_cuda_twin_fail) and return its
 * negative errno; the runtime logs what init_slot and enqueue return (a
 * cudaError_t) and store's negative errno, naming the call. */
typedef struct VmafCudaTwinOps {
    const char *name;        /* the extractor, first word of every line */
    const char *launch_what; /* "launching the SSIM kernels": a failed submit's call */
    size_t result_bytes;     /* a frame's device result, read back after its kernels */

    /* Optional, first: loads the kernels ("loading the kernels"), since a
     * capture must not be the first to need one. */
    cudaError_t (*load_kernels)(void);
    /* Optional, before the slots: what their buffers depend on (the plan),
     * and kernels that need more than load_kernels. */
    int (*prepare)(void *state, long at);
    /* Optional: slot `slot`'s own device buffers ("allocating device
     * buffers"). */
    cudaError_t (*init_slot)(void *state, unsigned slot);
    /* Optional, after the slots: buffers the twin shares between them. */
    int (*init)(void *state, long at);

    /* A frame's kernels on stream s, from the planes to `result` (device,
     * result_bytes). Nothing else: it may be captured into a graph and
     * replayed for the same planes and slot. */
    cudaError_t (*enqueue)(void *state, unsigned slot, const VmafCudaPlanes *planes,
                           void *result, cudaStream_t s);
    /* After the kernels: the frame's scores from its read-back `result`
     * (pinned, writable), at most VMAF_CUDA_TWIN_SCORES. May enqueue more
     * work on s and wait for it (a redo); the planes stay readable until
     * it returns. */
    int (*harvest)(void *state, unsigned slot, const VmafCudaPlanes *planes, void *result,
                   cudaStream_t s, double *scores);
    /* Stores frame `index`'s scores: 0, or the collector's negative errno
     * (the runtime logs it). */
    int (*store)(void *state, unsigned index, const double *scores, VmafFeatureCollector *fc);

    /* Optional: frees what init_slot made; also called for slots never
     * made. */
    void (*free_slot)(void *state, unsigned slot);
    /* Optional: frees what prepare and init made, made or not. */
    void (*close)(void *state);
} VmafCudaTwinOps;

/* An executable graph of a frame's kernels and the planes it reads. */
typedef struct VmafCudaTwinGraph {
    cudaGraphExec_t exec;
    VmafCudaPlanes planes;   /* the pointers and pitches it was made for */
    unsigned long long used; /* when it last served a frame */
} VmafCudaTwinGraph;

typedef struct VmafCudaTwinSlot {
    int state;               /* free, submitted or harvested (twin.c) */
    unsigned index;          /* the frame, once submitted */
    VmafCudaPlanes planes;   /* what its kernels read (uploaded: NULL) */
    void *dresult, *hresult; /* device result, pinned copy */
    cudaEvent_t done;
    bool event;
    double scores[VMAF_CUDA_TWIN_SCORES]; /* harvested */
    VmafCudaTwinGraph graph[VMAF_CUDA_TWIN_GRAPHS];
    unsigned graph_tries;    /* failed captures: after two, one by one */
} VmafCudaTwinSlot;

/* Frames harvested early to free a slot, not yet stored. */
typedef struct VmafCudaTwinScores {
    unsigned index;
    double scores[VMAF_CUDA_TWIN_SCORES];
} VmafCudaTwinScores;

/* For tests and benchmarks. */
typedef struct VmafCudaTwinCounts {
    unsigned graph_frames;   /* frames replayed from a slot's graph */
    unsigned graph_captures; /* graphs made, or updated in place */
    unsigned redos;          /* results the harvest recomputed */
} VmafCudaTwinCounts;

typedef struct VmafCudaTwin {
    const VmafCudaTwinOps *ops;
    void *state;
    struct VmafCudaState *cu;
    struct VmafCudaFrames *frames; /* the context's, where the frames are */
    cudaStream_t comp;             /* the kernels' stream (blocking) */
    cudaStream_t cap;              /* the captures' stream (non-blocking) */
    unsigned long long graph_clock; /* frames launched, for least recently used */
    VmafCudaTwinSlot slot[VMAF_CUDA_FRAMES_IN_FLIGHT];
    unsigned next, inflight;
    VmafCudaTwinScores done[VMAF_CUDA_FRAMES_IN_FLIGHT];
    unsigned ndone;
    bool submitted_any;
    VmafCudaTwinCounts counts;
    int err; /* sticky: the first failure stops the run */
} VmafCudaTwin;

/* A check_context() for a twin that computes exactly whatever its CPU
 * extractor accepts: 0 for every geometry and option (the CPU extractor's
 * init then gives its own refusals, and so does the twin's). */
int vmaf_cuda_twin_takes_all(const void *priv, unsigned w, unsigned h, unsigned bpc, char *why,
                             size_t why_len);

/* 0 when the twin's check_context() takes fex's geometry and options;
 * else one error line ("<twin>: cannot compute this input exactly: <why>;
 * use <CPU extractor> (CPU)") and -EINVAL. A twin's init() with a
 * check_context() calls it first: a context asks check_context() before
 * choosing a twin, a direct caller may not have. */
int vmaf_cuda_twin_check_context(const VmafFex *fex);

/* Starts t for the extractor fex (its CUDA state, frames and first frame,
 * which failure lines name): streams, then ops->prepare, the slots and
 * ops->init; then fex->twin = t. 0, or a negative errno, logged once, with
 * nothing left allocated. */
int vmaf_cuda_twin_init(VmafCudaTwin *t, const VmafCudaTwinOps *ops, void *state, VmafFex *fex);

/* VmafFeatureExtractor's reserve, submit, collect (flush: wait = true) for
 * the twin (feature_extractor.h has their contract). */
int vmaf_cuda_twin_reserve(VmafCudaTwin *t);
int vmaf_cuda_twin_submit(VmafCudaTwin *t, const VmafCudaPlanes *planes);
int vmaf_cuda_twin_collect(VmafCudaTwin *t, bool wait, VmafFeatureCollector *fc);

/* VmafFeatureExtractor's close: frees everything once its work is done.
 * Frames still in flight keep their pictures held: the context's frames
 * give them back when they are freed, after this. */
void vmaf_cuda_twin_close(VmafCudaTwin *t);

/* VmafFeatureExtractor's reserve, submit, collect, flush and close for a
 * twin whose init() ended in vmaf_cuda_twin_init(), which its table takes
 * from VMAF_CUDA_TWIN_HOOKS. */
int vmaf_cuda_twin_fex_reserve(VmafFex *fex);
int vmaf_cuda_twin_fex_submit(VmafFex *fex, const VmafCudaPlanes *planes);
int vmaf_cuda_twin_fex_collect(VmafFex *fex, bool wait, VmafFeatureCollector *fc);
int vmaf_cuda_twin_fex_flush(VmafFex *fex, VmafFeatureCollector *fc);
void vmaf_cuda_twin_fex_close(VmafFex *fex);

/* A twin's table entries for the runtime's hooks; _WITH for a twin that
 * wraps submit or flush (a temporal twin; psnr's apsnr at the flush). */
#define VMAF_CUDA_TWIN_HOOKS_WITH(submit_fn, flush_fn)                                     \
    .reserve = vmaf_cuda_twin_fex_reserve, .submit = (submit_fn),                           \
    .collect = vmaf_cuda_twin_fex_collect, .flush = (flush_fn),                             \
    .close = vmaf_cuda_twin_fex_close
#define VMAF_CUDA_TWIN_HOOKS                                                                \
    VMAF_CUDA_TWIN_HOOKS_WITH(vmaf_cuda_twin_fex_submit, vmaf_cuda_twin_fex_flush)

/* Logs a failed CUDA call as one line, "<name>: frame N: <what> failed:
 * <CUDA's message>" (no frame when negative), unless vmaf_cuda_report()
 * says this sticky error was logged for the state already; keeps the first
 * error and returns it, as a negative errno. */
int vmaf_cuda_twin_fail(VmafCudaTwin *t, cudaError_t e, const char *what, long frame);

/* The harvest recomputed one result (counted for the tests). */
void vmaf_cuda_twin_count_redo(VmafCudaTwin *t);

/* Tests and benchmarks: the counts so far, and the slot of the frame
 * submitted last (-1 before any). */
VmafCudaTwinCounts vmaf_cuda_twin_counts(const VmafCudaTwin *t);
int vmaf_cuda_twin_last_slot(const VmafCudaTwin *t);

#endif /* LIBVMAF_SRC_CUDA_TWIN_H */
