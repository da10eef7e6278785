/*
 * float_ssim_cuda: the CUDA twin of float_ssim, with the CPU's scores bit
 * for bit (docs/backends/cuda.md, docs/adr/0101-cuda-ssim-kernels.md).
 *
 * Frames go through a ring of VMAF_CUDA_FRAMES_IN_FLIGHT slots. The
 * context puts each pair on the device once for all its CUDA extractors
 * (cuda_internal.h, VmafCudaFrames); submit() makes the kernels' stream
 * wait for that upload, enqueues the kernels and the read-back of 32
 * bytes, and returns: the upload of the next frame overlaps the kernels of
 * this one. collect() harvests finished slots in order, appends their
 * scores and tells the frames that the slot's planes are free. Everything
 * is allocated in init(); nothing per frame.
 */
#include <errno.h>
#include <math.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "cuda/cuda_internal.h"
#include "cuda/cuda_state.h"
#include "feature/cuda/float_ssim_cuda.h"
#include "feature/cuda/float_ssim_cuda_kernels.h"
#include "feature/cuda/seq_sum_cuda.h"
#include "feature/feature_collector.h"
#include "feature/feature_extractor.h"
#include "feature/ssim/ssim.h"
#include "feature/ssim/ssim_feature.h"
#include "log.h"
#include "picture_internal.h"

#define NAME "float_ssim_cuda"
#define SLOTS VMAF_CUDA_FRAMES_IN_FLIGHT

enum SlotState { SLOT_FREE = 0, SLOT_SUBMITTED, SLOT_HARVESTED };

/* An executable graph of a frame's kernels and the planes it reads. */
typedef struct SlotGraph {
    cudaGraphExec_t exec;
    const void *src[2];
    size_t pitch[2];
    unsigned long long used; /* when it last served a frame */
} SlotGraph;

typedef struct Slot {
    enum SlotState state;
    unsigned index;
    const void *src[2];      /* the frame's luma planes, as the kernels read them */
    size_t src_pitch[2];
    unsigned place;          /* the frame's place in the context's frames */
    float *dec[2];           /* decimated planes (scale > 1) */
    double *partials;
    SsimCudaOut *dout;       /* device result */
    SsimCudaOut *hout;       /* pinned copy of it */
    cudaEvent_t done;
    bool events;
    double mean[4];          /* harvested */
    /* The frame's kernels as graphs, each for the planes it reads: on the
     * H200 a replay takes up to 1 us less GPU time a frame than launching
     * the kernels one by one (ADR 0114). Host pictures always land in the
     * slot's own buffers: one graph. Device pictures come from a
     * consumer's pool, whose pictures come round again: a few graphs a
     * slot, the least recently used one updated in place for new planes
     * (ADR 0116). */
    SlotGraph graph[VMAF_SSIM_CUDA_SLOT_GRAPHS];
    unsigned graph_tries;    /* failed captures: after two, one by one */
} Slot;

typedef struct Scores {
    unsigned index;
    double mean[4];
} Scores;

typedef struct FloatSsimCudaState {
    SsimOptions opt; /* first: float_ssim's option table points into it */
    int eff_scale;
    double max_db;
    struct VmafCudaState *cu;
    struct VmafCudaFrames *frames; /* the context's, where the frames are */
    SsimCudaPlan plan;
    cudaStream_t comp;
    cudaStream_t cap;   /* non-blocking: the graphs are captured on it */
    unsigned graph_frames; /* frames replayed from a graph (tests) */
    unsigned graph_captures; /* graphs made or updated (tests) */
    unsigned long long graph_clock; /* frames launched, for least recently used */
    Slot slot[SLOTS];
    unsigned next, inflight;
    Scores done[SLOTS]; /* harvested early to free a slot, not yet appended */
    unsigned ndone;
    size_t fpitch;
    double *terms;      /* per-pixel terms for the sequential redo */
    void *seq_work;     /* the device's sequential sum of them */
    VmafCudaSeqSum *seq_dout, *seq_hout; /* its result, on the device and pinned */
    cudaEvent_t redo_ev;
    bool redo_event;
    unsigned redo_count;
    bool submitted_any;
    int err;            /* sticky: the first failure stops the run */
} FloatSsimCudaState;

void vmaf_ssim_cuda_consts(SsimCudaConsts *k)
{
    memset(k, 0, sizeof(*k));
    for (int i = 0; i < SSIM_WINDOW; i++)
        k->g[i] = vmaf_ssim_gauss[i];
    k->c1 = VMAF_SSIM_C1;
    k->c2 = VMAF_SSIM_C2;
    k->c3 = VMAF_SSIM_C3;
    k->c1d = (double)k->c1;
    k->c2d = (double)k->c2;
}

/* Test hooks (float_ssim_cuda.h). */
static atomic_bool force_redo;
static atomic_int force_shape = -1;
static atomic_long fail_frame = -1;
static atomic_long fail_harvest_frame = -1;
static atomic_bool fail_capture;
static atomic_bool fail_start;

/* Logs one failure naming the extractor, the frame and the call (unless
 * the frames or another call already said this error: vmaf_cuda_report);
 * records it as the sticky error. vmaf_cuda_errno() also consumes the
 * thread's last error, which a later launch check would otherwise report. */
static int fail(FloatSsimCudaState *st, cudaError_t e, const char *what, long frame)
{
    const int err = vmaf_cuda_errno(e);
    if (vmaf_cuda_report(st->cu, e)) {
        if (frame >= 0)
            vmaf_error(NAME ": frame %ld: %s failed: %s", frame, what, cudaGetErrorString(e));
        else
            vmaf_error(NAME ": %s failed: %s", what, cudaGetErrorString(e));
    }
    if (!st->err)
        st->err = err ? err : -EIO;
    return st->err;
}

static int check_context(const void *priv, unsigned w, unsigned h, unsigned bpc, char *why,
                         size_t why_len)
{
    const FloatSsimCudaState *st = priv;
    if (!vmaf_bpc_supported(bpc)) {
        snprintf(why, why_len, "%u bits per component is not supported", bpc);
        return -ENOTSUP;
    }
    const int s = ssim_effective_scale(st->opt.scale, w, h);
    if (s > SSIM_SCALE_MAX_EXACT) {
        snprintf(why, why_len,
                 "scale %d is above %d, where the decimation sums stop being exact and the "
                 "order of a parallel sum would change the bits",
                 s, SSIM_SCALE_MAX_EXACT);
        return -ENOTSUP;
    }
    if (ssim_geometry_check(w, h, s, why, why_len))
        return -ENOTSUP;
    if (!vmaf_ssim_decimate_axis_ok(w, s) || !vmaf_ssim_decimate_axis_ok(h, s)) {
        snprintf(why, why_len, "%ux%u is too small to decimate at scale %d", w, h, s);
        return -ENOTSUP;
    }
    return 0;
}

/* Frees everything; safe on a half-initialised state. The context must be
 * current. */
static void teardown(FloatSsimCudaState *st)
{
    if (st->comp)
        cudaStreamSynchronize(st->comp);
    for (int k = 0; k < SLOTS; k++) {
        Slot *sl = &st->slot[k];
        for (int i = 0; i < 2; i++)
            cudaFree(sl->dec[i]);
        cudaFree(sl->partials);
        cudaFree(sl->dout);
        cudaFreeHost(sl->hout);
        if (sl->events)
            cudaEventDestroy(sl->done);
        for (int j = 0; j < VMAF_SSIM_CUDA_SLOT_GRAPHS; j++)
            if (sl->graph[j].exec)
                cudaGraphExecDestroy(sl->graph[j].exec);
        memset(sl, 0, sizeof(*sl));
    }
    cudaFree(st->terms);
    cudaFree(st->seq_work);
    cudaFree(st->seq_dout);
    cudaFreeHost(st->seq_hout);
    if (st->redo_event)
        cudaEventDestroy(st->redo_ev);
    st->redo_event = false;
    st->terms = NULL;
    st->seq_work = NULL;
    st->seq_dout = st->seq_hout = NULL;
    if (st->comp)
        cudaStreamDestroy(st->comp);
    if (st->cap)
        cudaStreamDestroy(st->cap);
    st->comp = st->cap = NULL;
    /* After a device failure these calls fail too and leave their error
     * behind: nothing more is done with it here. */
    (void)cudaGetLastError();
}

static int init(VmafFex *fex)
{
    FloatSsimCudaState *st = fex->priv;
    char why[256] = "";
    if (check_context(st, fex->w, fex->h, fex->bpc, why, sizeof(why))) {
        vmaf_error(NAME ": cannot compute this input exactly: %s; use float_ssim (CPU)", why);
        return -EINVAL;
    }
    if (!fex->cuda) {
        vmaf_error(NAME ": no CUDA state; import one with vmaf_cuda_import_state()");
        return -EINVAL;
    }
    if (!fex->frames) {
        vmaf_error(NAME ": no device frames to read; the context makes them "
                   "(vmaf_cuda_frames_init)");
        return -EINVAL;
    }
    /* Failures name the frame whose arrival started the extractor. */
    const long at = fex->first_index;
    st->cu = fex->cuda;
    st->frames = fex->frames;
    st->eff_scale = ssim_effective_scale(st->opt.scale, fex->w, fex->h);
    st->max_db = ssim_max_db(st->opt.clip_db, fex->bpc, fex->w, fex->h);

    SsimCudaConsts k;
    vmaf_ssim_cuda_consts(&k);
    vmaf_ssim_cuda_plan(&st->plan, fex->w, fex->h, fex->bpc, st->eff_scale, st->opt.enable_lcs,
                        st->cu->sm_count, st->cu->pdl, &k);
    const int forced = atomic_load(&force_shape);
    if (forced >= 0)
        (void)vmaf_ssim_cuda_plan_override(&st->plan, forced);

    int err = vmaf_cuda_enter_for(st->cu, NAME, at);
    if (err)
        return err;
    /* The kernels' stream is a blocking one: it waits for work the caller
     * queued on the legacy default stream, such as a cudaMemcpy into a
     * device picture that returns before its DMA is done. */
    cudaError_t e = cudaStreamCreateWithFlags(&st->comp, cudaStreamDefault);
    /* The graphs are captured on a non-blocking stream of their own: while
     * a blocking stream captures, the legacy default stream is unusable,
     * and the caller may be using it. They are replayed on the kernels'
     * stream, in its order. */
    if (e == cudaSuccess)
        e = cudaStreamCreateWithFlags(&st->cap, cudaStreamNonBlocking);
    if (e != cudaSuccess) {
        err = fail(st, e, "creating streams", at);
        goto out;
    }
    e = vmaf_ssim_cuda_prepare();
    if (e != cudaSuccess) {
        err = fail(st, e, "loading the kernels and granting them their shared memory", at);
        goto out;
    }
    const size_t part = vmaf_ssim_cuda_partials_bytes();
    for (int s = 0; s < SLOTS; s++) {
        Slot *sl = &st->slot[s];
        e = cudaEventCreateWithFlags(&sl->done, cudaEventDisableTiming);
        if (e != cudaSuccess) {
            err = fail(st, e, "creating events", at);
            goto out;
        }
        sl->events = true;
        e = cudaMalloc((void **)&sl->partials, part);
        if (e == cudaSuccess) /* the frame totals and counter start at 0 */
            e = cudaMemset(sl->partials, 0, part);
        if (e == cudaSuccess)
            e = cudaMalloc((void **)&sl->dout, sizeof(SsimCudaOut));
        if (e == cudaSuccess)
            e = cudaHostAlloc((void **)&sl->hout, sizeof(SsimCudaOut), cudaHostAllocDefault);
        for (int i = 0; e == cudaSuccess && st->eff_scale > 1 && i < 2; i++)
            e = cudaMallocPitch((void **)&sl->dec[i], &st->fpitch,
                                (size_t)st->plan.W * sizeof(float), st->plan.H);
        if (e == cudaSuccess && s == SLOTS - 1 && atomic_load(&fail_start))
            e = cudaErrorMemoryAllocation;
        if (e != cudaSuccess) {
            err = fail(st, e, "allocating device buffers", at);
            goto out;
        }
    }
    const size_t n = (size_t)(st->plan.W - (SSIM_WINDOW - 1)) * (st->plan.H - (SSIM_WINDOW - 1));
    e = cudaMalloc((void **)&st->terms, n * sizeof(double));
    if (e == cudaSuccess)
        e = cudaMalloc(&st->seq_work, vmaf_cuda_seq_sum_work_bytes(n));
    if (e == cudaSuccess)
        e = cudaMalloc((void **)&st->seq_dout, sizeof(*st->seq_dout));
    if (e == cudaSuccess)
        e = cudaHostAlloc((void **)&st->seq_hout, sizeof(*st->seq_hout), cudaHostAllocDefault);
    if (e == cudaSuccess) {
        e = cudaEventCreateWithFlags(&st->redo_ev, cudaEventDisableTiming);
        st->redo_event = e == cudaSuccess;
    }
    if (e != cudaSuccess) {
        err = fail(st, e, "allocating the buffers of the sequential sum", at);
        goto out;
    }
    vmaf_debug(NAME ": %ux%u %u-bit, scale %d, planes %ux%u, %ux%u tiles of 32x%u outputs",
               fex->w, fex->h, fex->bpc, st->eff_scale, st->plan.W, st->plan.H,
               st->plan.grid_x, st->plan.grid_y, st->plan.th);
out:
    if (err)
        teardown(st);
    vmaf_cuda_leave(st->cu);
    return err;
}

/* The CPU's sum, one term after the other, of the n terms the device
 * wrote, computed there (seq_sum_cuda.h): only its result crosses to the
 * host. Waits for it on its own event, not for later frames' kernels. */
static int sequential_sum(FloatSsimCudaState *st, size_t n, unsigned index, double *sum)
{
    cudaError_t e = vmaf_cuda_seq_sum(st->terms, n, st->seq_work, st->seq_dout, st->comp);
    if (e == cudaSuccess)
        e = cudaMemcpyAsync(st->seq_hout, st->seq_dout, sizeof(*st->seq_hout),
                            cudaMemcpyDeviceToHost, st->comp);
    if (e == cudaSuccess)
        e = cudaEventRecord(st->redo_ev, st->comp);
    if (e == cudaSuccess)
        e = cudaEventSynchronize(st->redo_ev);
    if (e != cudaSuccess)
        return fail(st, e, "the sequential sum of the per-pixel terms", index);
    *sum = st->seq_hout->sum;
    return 0;
}

void vmaf_float_ssim_cuda_force_redo(bool on)
{
    atomic_store(&force_redo, on);
}

void vmaf_float_ssim_cuda_fail_at(long frame)
{
    atomic_store(&fail_frame, frame);
}

void vmaf_float_ssim_cuda_fail_harvest_at(long frame)
{
    atomic_store(&fail_harvest_frame, frame);
}

void vmaf_float_ssim_cuda_fail_start(bool on)
{
    atomic_store(&fail_start, on);
}

void vmaf_float_ssim_cuda_fail_captures(bool on)
{
    atomic_store(&fail_capture, on);
}

void vmaf_float_ssim_cuda_force_shape(int shape)
{
    atomic_store(&force_shape, shape);
}

static int harvest(FloatSsimCudaState *st, Slot *sl)
{
    cudaError_t e = cudaEventSynchronize(sl->done);
    if (e == cudaSuccess && (long)sl->index == atomic_load(&fail_harvest_frame))
        e = cudaErrorLaunchFailure;
    if (e != cudaSuccess)
        return fail(st, e, "waiting for the kernels", sl->index);
    SsimCudaOut *o = sl->hout;
    const bool dec = st->eff_scale > 1;
    const size_t n =
        (size_t)(st->plan.W - (SSIM_WINDOW - 1)) * (st->plan.H - (SSIM_WINDOW - 1));
    const bool force = atomic_load(&force_redo);
    for (unsigned q = 0; q < st->plan.nq; q++) {
        if (!o->redo[q] && !force)
            continue;
        /* The mean sits so close to an f32 rounding boundary that only the
         * CPU's own order of additions decides it. */
        st->redo_count++;
        vmaf_debug(NAME ": frame %u: mean %u next to an f32 rounding boundary, summing in "
                   "order",
                   sl->index, q);
        e = vmaf_ssim_cuda_terms(&st->plan, dec ? sl->dec[0] : sl->src[0],
                                 dec ? st->fpitch : sl->src_pitch[0],
                                 dec ? sl->dec[1] : sl->src[1],
                                 dec ? st->fpitch : sl->src_pitch[1], dec, (int)q, st->terms,
                                 sl->partials, st->comp);
        if (e != cudaSuccess)
            return fail(st, e, "the per-pixel terms for the sequential sum", sl->index);
        double sum = 0.0;
        int err = sequential_sum(st, n, sl->index, &sum);
        if (err)
            return err;
        o->mean[q] = (float)(sum / (double)n);
        o->redo[q] = 0;
    }
    for (int q = 0; q < 4; q++)
        sl->mean[q] = q < (int)st->plan.nq ? (double)o->mean[q] : 0.0;
    /* Nothing reads the frame's planes any more (the redo above was the
     * last): its place may go to another frame once every user is done. */
    vmaf_cuda_frames_done(st->frames, sl->place);
    sl->state = SLOT_HARVESTED;
    return 0;
}

static int append(FloatSsimCudaState *st, unsigned index, const double mean[4],
                  VmafFeatureCollector *fc)
{
    const int err = ssim_store_scores(fc, index, mean, st->opt.enable_lcs, st->opt.enable_db, st->max_db);
    if (err) {
        vmaf_error(NAME ": frame %u: could not store the scores (%d)", index, err);
        if (!st->err)
            st->err = err;
    }
    return err;
}

/* A frame's kernels, from the slot's planes to its device result. */
static cudaError_t enqueue_kernels(const FloatSsimCudaState *st, const Slot *sl,
                                   cudaStream_t s)
{
    if (st->eff_scale <= 1)
        return vmaf_ssim_cuda_frame(&st->plan, sl->src[0], sl->src_pitch[0], sl->src[1],
                                    sl->src_pitch[1], 0, sl->partials, sl->dout, s);
    cudaError_t e = vmaf_ssim_cuda_decimate(&st->plan, sl->src[0], sl->src_pitch[0], sl->src[1],
                                            sl->src_pitch[1], sl->dec[0], sl->dec[1],
                                            st->fpitch, s);
    if (e == cudaSuccess)
        e = vmaf_ssim_cuda_frame(&st->plan, sl->dec[0], st->fpitch, sl->dec[1], st->fpitch, 1,
                                 sl->partials, sl->dout, s);
    return e;
}

/* The slot's graph for the planes it reads now, or NULL. */
static SlotGraph *graph_for_sources(Slot *sl)
{
    for (int j = 0; j < VMAF_SSIM_CUDA_SLOT_GRAPHS; j++) {
        SlotGraph *g = &sl->graph[j];
        if (g->exec && g->src[0] == sl->src[0] && g->src[1] == sl->src[1] &&
            g->pitch[0] == sl->src_pitch[0] && g->pitch[1] == sl->src_pitch[1])
            return g;
    }
    return NULL;
}

/* Gives the slot a graph of its kernels for the planes it reads now: one
 * it has, or a new capture, instantiated in a free place or, when all are
 * taken, updating the least recently used graph in place (the slot's last
 * frame has finished, so no launch of it is pending) or replacing it where
 * the update is refused (a device picture whose alignment picks another
 * kernel, say). A failure (another thread of the process synchronizing
 * the device during the capture, say) only means launching one by one: it
 * is logged at debug level and cleared, never an error of the run; after
 * two the slot stops capturing. */
static SlotGraph *make_graph(FloatSsimCudaState *st, Slot *sl, unsigned index)
{
    SlotGraph *sg = graph_for_sources(sl);
    if (sg || sl->graph_tries >= 2)
        return sg;
    sg = &sl->graph[0];
    for (int j = 1; j < VMAF_SSIM_CUDA_SLOT_GRAPHS && sg->exec; j++)
        if (!sl->graph[j].exec || sl->graph[j].used < sg->used)
            sg = &sl->graph[j];
    cudaGraph_t g = NULL;
    cudaError_t e = atomic_load(&fail_capture)
                        ? cudaErrorStreamCaptureInvalidated
                        : cudaStreamBeginCapture(st->cap, cudaStreamCaptureModeThreadLocal);
    if (e == cudaSuccess) {
        e = enqueue_kernels(st, sl, st->cap);
        const cudaError_t end = cudaStreamEndCapture(st->cap, &g);
        if (e == cudaSuccess)
            e = end;
    }
    if (e == cudaSuccess && sg->exec) {
        cudaGraphExecUpdateResultInfo info;
        if (cudaGraphExecUpdate(sg->exec, g, &info) != cudaSuccess) {
            (void)cudaGetLastError();
            cudaGraphExecDestroy(sg->exec);
            sg->exec = NULL;
        }
    }
    if (e == cudaSuccess && !sg->exec) {
        cudaGraphExec_t x = NULL;
        e = cudaGraphInstantiate(&x, g, 0);
        if (e == cudaSuccess)
            sg->exec = x;
    }
    if (g)
        cudaGraphDestroy(g);
    if (e != cudaSuccess) {
        /* The slot's graphs keep serving the planes they were made for. */
        vmaf_debug(NAME ": frame %u launched kernel by kernel (no graph: %s)", index,
                   cudaGetErrorString(e));
        (void)cudaGetLastError();
        sl->graph_tries++;
        return NULL;
    }
    for (int i = 0; i < 2; i++) {
        sg->src[i] = sl->src[i];
        sg->pitch[i] = sl->src_pitch[i];
    }
    st->graph_captures++;
    return sg;
}

static cudaError_t launch_kernels(FloatSsimCudaState *st, Slot *sl, unsigned index)
{
    SlotGraph *g = make_graph(st, sl, index);
    if (!g)
        return enqueue_kernels(st, sl, st->comp);
    g->used = ++st->graph_clock;
    st->graph_frames++;
    return cudaGraphLaunch(g->exec, st->comp);
}

static unsigned oldest(const FloatSsimCudaState *st)
{
    return (st->next + SLOTS - st->inflight) % SLOTS;
}

/* After a failure: the frames in flight are given up, not harvested (the
 * run has failed), and their planes released, so that their pictures go
 * back to their owner (a pool that FFmpeg's CUDA filter fetches from) now,
 * not at vmaf_close(). Kernels already queued, which may still run after
 * an error that did not break the context, are let end first. (The
 * state's context directly: the failure has been reported already.) */
static void give_up_frames(FloatSsimCudaState *st)
{
    if (st->inflight && st->cu->push(st->cu->ctx) == 0) {
        if (cudaStreamSynchronize(st->comp) != cudaSuccess)
            (void)cudaGetLastError();
        void *prev = NULL;
        (void)st->cu->pop(&prev);
    }
    for (; st->inflight; st->inflight--) {
        Slot *sl = &st->slot[oldest(st)];
        if (sl->state == SLOT_SUBMITTED) /* a harvested frame has let go already */
            vmaf_cuda_frames_done(st->frames, sl->place);
        sl->state = SLOT_FREE;
    }
    st->ndone = 0;
}

/* Makes room for the next frame: when every slot is in flight, the oldest
 * (the next frame's) is finished now and its scores kept until the next
 * collect, which also frees the frame's place in the context's frames. */
static int reserve(VmafFex *fex)
{
    FloatSsimCudaState *st = fex->priv;
    if (st->err) {
        give_up_frames(st);
        return st->err;
    }
    if (st->inflight < SLOTS)
        return 0;
    Slot *sl = &st->slot[st->next];
    if (st->ndone == SLOTS) {
        vmaf_error(NAME ": %d frames (the oldest frame %u) are waiting for collect(); the "
                   "caller must collect after each submit",
                   SLOTS, sl->index);
        return st->err = -EBUSY;
    }
    int err = vmaf_cuda_enter_for(st->cu, NAME, (long)sl->index);
    if (!err) {
        if (sl->state == SLOT_SUBMITTED)
            err = harvest(st, sl);
        if (!err) {
            st->done[st->ndone].index = sl->index;
            memcpy(st->done[st->ndone].mean, sl->mean, sizeof(sl->mean));
            st->ndone++;
            sl->state = SLOT_FREE;
            st->inflight--;
        }
        vmaf_cuda_leave(st->cu);
    }
    if (err) {
        if (!st->err)
            st->err = err;
        give_up_frames(st);
    }
    return err;
}

static int submit(VmafFex *fex, const VmafCudaPlanes *planes)
{
    FloatSsimCudaState *st = fex->priv;
    const unsigned index = planes->index;
    if (st->err) {
        vmaf_cuda_frames_done(st->frames, planes->slot);
        return st->err;
    }
    if (st->inflight == SLOTS) {
        vmaf_error(NAME ": frame %u: no room; reserve() must come before each submit", index);
        vmaf_cuda_frames_done(st->frames, planes->slot);
        return st->err = -EBUSY;
    }
    int err = vmaf_cuda_enter_for(st->cu, NAME, index);
    if (err) {
        vmaf_cuda_frames_done(st->frames, planes->slot);
        return st->err = err;
    }
    Slot *sl = &st->slot[st->next];
    for (int i = 0; i < 2; i++) {
        sl->src[i] = planes->luma[i];
        sl->src_pitch[i] = planes->pitch[i];
    }
    sl->place = planes->slot;
    cudaError_t e = cudaSuccess;
    if (planes->uploaded) {
        e = cudaStreamWaitEvent(st->comp, planes->uploaded, 0);
        if (e != cudaSuccess) {
            err = fail(st, e, "ordering upload and kernels", index);
            goto out;
        }
    }
    e = launch_kernels(st, sl, index);
    if (e == cudaSuccess)
        e = cudaMemcpyAsync(sl->hout, sl->dout, sizeof(*sl->hout), cudaMemcpyDeviceToHost,
                            st->comp);
    if (e == cudaSuccess)
        e = cudaEventRecord(sl->done, st->comp);
    if (e == cudaSuccess && (long)index == atomic_load(&fail_frame))
        e = cudaErrorLaunchFailure;
    if (e != cudaSuccess) {
        err = fail(st, e, "launching the SSIM kernels", index);
        goto out;
    }
    sl->state = SLOT_SUBMITTED;
    sl->index = index;
    st->next = (st->next + 1) % SLOTS;
    st->inflight++;
    st->submitted_any = true;
out:
    if (err) {
        /* Kernels queued before the failure may still read the frame's
         * planes: let them end before its pictures can go back to their
         * owner, who may refill them. */
        cudaStreamSynchronize(st->comp);
        (void)cudaGetLastError(); /* the failure is logged and recorded */
        vmaf_cuda_frames_done(st->frames, planes->slot);
        if (!st->err)
            st->err = err;
    }
    vmaf_cuda_leave(st->cu);
    return err;
}

static int collect(VmafFex *fex, bool wait, VmafFeatureCollector *fc)
{
    FloatSsimCudaState *st = fex->priv;
    if (st->err) {
        give_up_frames(st);
        return st->err;
    }
    int err = 0;
    for (unsigned i = 0; i < st->ndone && !err; i++)
        err = append(st, st->done[i].index, st->done[i].mean, fc);
    st->ndone = 0;
    if (err || !st->inflight) {
        if (st->err)
            give_up_frames(st);
        return err;
    }
    err = vmaf_cuda_enter_for(st->cu, NAME, (long)st->slot[oldest(st)].index);
    if (err) {
        st->err = err;
        give_up_frames(st);
        return err;
    }
    while (st->inflight && !err) {
        Slot *sl = &st->slot[oldest(st)];
        if (sl->state == SLOT_SUBMITTED) {
            if (!wait) {
                const cudaError_t q = cudaEventQuery(sl->done);
                if (q == cudaErrorNotReady)
                    break;
                if (q != cudaSuccess) {
                    err = fail(st, q, "the kernels", sl->index);
                    break;
                }
            }
            err = harvest(st, sl);
            if (err)
                break;
        }
        err = append(st, sl->index, sl->mean, fc);
        sl->state = SLOT_FREE;
        st->inflight--;
    }
    vmaf_cuda_leave(st->cu);
    if (err && !st->err)
        st->err = err;
    if (st->err)
        give_up_frames(st); /* failed just now: its pictures go back at once */
    return err;
}

static int flush(VmafFex *fex, VmafFeatureCollector *fc)
{
    return collect(fex, true, fc);
}

static void close_fex(VmafFex *fex)
{
    FloatSsimCudaState *st = fex ? fex->priv : NULL;
    if (!st || !st->cu)
        return;
    /* Frames still in flight keep their pictures held: the context's frames
     * give them back when they are freed, after this. */
    if (!vmaf_cuda_enter_teardown(st->cu)) {
        teardown(st);
        vmaf_cuda_leave(st->cu);
    }
    st->cu = NULL;
}

int vmaf_float_ssim_cuda_debug_planes(VmafFex *fex, float *ref, float *dist, unsigned *W,
                                      unsigned *H)
{
    FloatSsimCudaState *st = fex->priv;
    if (!st->cu || st->eff_scale <= 1 || !st->submitted_any)
        return -EINVAL;
    const Slot *sl = &st->slot[(st->next + SLOTS - 1) % SLOTS];
    *W = st->plan.W;
    *H = st->plan.H;
    int err = vmaf_cuda_enter(st->cu);
    if (err)
        return err;
    cudaError_t e = cudaStreamSynchronize(st->comp);
    for (int i = 0; i < 2 && e == cudaSuccess; i++)
        e = cudaMemcpy2D(i ? dist : ref, (size_t)st->plan.W * sizeof(float), sl->dec[i],
                         st->fpitch, (size_t)st->plan.W * sizeof(float), st->plan.H,
                         cudaMemcpyDeviceToHost);
    vmaf_cuda_leave(st->cu);
    return e == cudaSuccess ? 0 : fail(st, e, "reading the decimated planes", -1);
}

unsigned vmaf_float_ssim_cuda_graph_frames(const VmafFex *fex)
{
    const FloatSsimCudaState *st = fex->priv;
    return st->graph_frames;
}

unsigned vmaf_float_ssim_cuda_graph_captures(const VmafFex *fex)
{
    const FloatSsimCudaState *st = fex->priv;
    return st->graph_captures;
}

unsigned vmaf_float_ssim_cuda_redo_count(const VmafFex *fex)
{
    const FloatSsimCudaState *st = fex->priv;
    return st->redo_count;
}

extern const VmafFeatureExtractor vmaf_fex_float_ssim;

const VmafFeatureExtractor vmaf_fex_float_ssim_cuda = {
    .name = NAME,
    .backend = VMAF_FEX_BACKEND_CUDA,
    .twin_of = &vmaf_fex_float_ssim,
    .priv_size = sizeof(FloatSsimCudaState),
    .check_context = check_context,
    .init = init,
    .reserve = reserve,
    .submit = submit,
    .collect = collect,
    .flush = flush,
    .close = close_fex,
};
