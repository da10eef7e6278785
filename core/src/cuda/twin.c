/*
 * The twin runtime (twin.h). Frames go through a ring of
 * VMAF_CUDA_FRAMES_IN_FLIGHT slots. The context puts each pair on the
 * device once for all its CUDA extractors (cuda_internal.h,
 * VmafCudaFrames); submit() makes the kernels' stream wait for that upload,
 * launches the twin's kernels (twin_graph.c), reads their result back and
 * records the slot's event, and returns: the upload of the next frame
 * overlaps the kernels of this one. collect() harvests finished slots in
 * order, stores their scores and tells the frames that the slot's planes
 * are free. Everything is allocated in init; nothing per frame.
 */
#include <errno.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "cuda/twin.h"
#include "cuda/twin_internal.h"
#include "log.h"

#define SLOTS VMAF_CUDA_FRAMES_IN_FLIGHT

enum { SLOT_FREE = 0, SLOT_SUBMITTED, SLOT_HARVESTED };

int vmaf_cuda_twin_fail(VmafCudaTwin *t, cudaError_t e, const char *what, long frame)
{
    /* vmaf_cuda_errno() also consumes the thread's last error, which a
     * later launch check would otherwise report. */
    const int err = vmaf_cuda_errno(e);
    if (vmaf_cuda_report(t->cu, e)) {
        if (frame >= 0)
            vmaf_error("%s: frame %ld: %s failed: %s", t->ops->name, frame, what,
                       cudaGetErrorString(e));
        else
            vmaf_error("%s: %s failed: %s", t->ops->name, what, cudaGetErrorString(e));
    }
    if (!t->err)
        t->err = err ? err : -EIO;
    return t->err;
}

/* Frees everything; safe on a half-made twin. The context must be
 * current. */
static void teardown(VmafCudaTwin *t)
{
    if (t->comp)
        cudaStreamSynchronize(t->comp);
    for (unsigned k = 0; k < SLOTS; k++) {
        VmafCudaTwinSlot *sl = &t->slot[k];
        if (t->ops->free_slot)
            t->ops->free_slot(t->state, k);
        cudaFree(sl->dresult);
        cudaFreeHost(sl->hresult);
        if (sl->event)
            cudaEventDestroy(sl->done);
        vmaf_cuda_twin_drop_graphs(sl);
        memset(sl, 0, sizeof(*sl));
    }
    if (t->ops->close)
        t->ops->close(t->state);
    if (t->comp)
        cudaStreamDestroy(t->comp);
    if (t->cap)
        cudaStreamDestroy(t->cap);
    t->comp = t->cap = NULL;
    /* After a device failure these calls fail too and leave their error
     * behind: nothing more is done with it here. */
    (void)cudaGetLastError();
}

/* The kernels' stream is a blocking one: it waits for work the caller
 * queued on the legacy default stream, such as a cudaMemcpy into a device
 * picture that returns before its DMA is done. The graphs are captured on
 * a non-blocking stream (twin_graph.c) and replayed on the kernels'
 * stream, in its order. */
static int make_streams(VmafCudaTwin *t, long at)
{
    cudaError_t e = cudaStreamCreateWithFlags(&t->comp, cudaStreamDefault);
    if (e == cudaSuccess)
        e = cudaStreamCreateWithFlags(&t->cap, cudaStreamNonBlocking);
    return e == cudaSuccess ? 0 : vmaf_cuda_twin_fail(t, e, "creating streams", at);
}

static int make_slot(VmafCudaTwin *t, unsigned k, long at)
{
    VmafCudaTwinSlot *sl = &t->slot[k];
    cudaError_t e = cudaEventCreateWithFlags(&sl->done, cudaEventDisableTiming);
    if (e != cudaSuccess)
        return vmaf_cuda_twin_fail(t, e, "creating events", at);
    sl->event = true;
    e = cudaMalloc(&sl->dresult, t->ops->result_bytes);
    if (e == cudaSuccess)
        e = cudaHostAlloc(&sl->hresult, t->ops->result_bytes, cudaHostAllocDefault);
    if (e == cudaSuccess && t->ops->init_slot)
        e = t->ops->init_slot(t->state, k);
    return e == cudaSuccess ? 0 : vmaf_cuda_twin_fail(t, e, "allocating device buffers", at);
}

/* The CUDA state and the frames that the context lends a device extractor. */
static int check_lent(const VmafFex *fex, const char *name)
{
    if (!fex->cuda) {
        vmaf_error("%s: no CUDA state; import one with vmaf_cuda_import_state()", name);
        return -EINVAL;
    }
    if (!fex->frames) {
        vmaf_error("%s: no device frames to read; the context makes them "
                   "(vmaf_cuda_frames_init)",
                   name);
        return -EINVAL;
    }
    return 0;
}

int vmaf_cuda_twin_takes_all(const void *priv, unsigned w, unsigned h, unsigned bpc, char *why,
                             size_t why_len)
{
    (void)priv, (void)w, (void)h, (void)bpc, (void)why, (void)why_len;
    return 0;
}

int vmaf_cuda_twin_check_context(const VmafFex *fex)
{
    const VmafFeatureExtractor *fx = fex->fex;
    char why[256] = "";
    if (!fx->check_context || !fx->check_context(fex->priv, fex->w, fex->h, fex->bpc, why,
                                                 sizeof(why)))
        return 0;
    vmaf_error("%s: cannot compute this input exactly: %s; use %s (CPU)", fx->name, why,
               fx->twin_of ? fx->twin_of->name : "the CPU extractor");
    return -EINVAL;
}

int vmaf_cuda_twin_init(VmafCudaTwin *t, const VmafCudaTwinOps *ops, void *state, VmafFex *fex)
{
    int err = check_lent(fex, ops->name);
    if (err)
        return err;
    /* Failures name the frame whose arrival started the extractor. */
    const long at = fex->first_index;
    t->ops = ops;
    t->state = state;
    t->cu = fex->cuda;
    t->frames = fex->frames;
    err = vmaf_cuda_enter_for(t->cu, ops->name, at);
    if (err)
        return err;
    err = make_streams(t, at);
    if (!err && ops->load_kernels) {
        const cudaError_t e = ops->load_kernels();
        if (e != cudaSuccess)
            err = vmaf_cuda_twin_fail(t, e, "loading the kernels", at);
    }
    if (!err && ops->prepare)
        err = ops->prepare(state, at);
    for (unsigned k = 0; !err && k < SLOTS; k++)
        err = make_slot(t, k, at);
    if (!err && ops->init)
        err = ops->init(state, at);
    if (err)
        teardown(t);
    else
        fex->twin = t;
    vmaf_cuda_leave(t->cu);
    return err;
}

static unsigned oldest(const VmafCudaTwin *t)
{
    return (t->next + SLOTS - t->inflight) % SLOTS;
}

/* After the slot's event: the frame's scores, and its planes let go once
 * the twin's harvest (a redo, say) no longer reads them. */
static int harvest(VmafCudaTwin *t, unsigned k)
{
    VmafCudaTwinSlot *sl = &t->slot[k];
    const cudaError_t e = vmaf_cuda_twin_wait(sl->done, sl->index);
    if (e != cudaSuccess)
        return vmaf_cuda_twin_fail(t, e, "waiting for the kernels", sl->index);
    const int err =
        t->ops->harvest(t->state, k, &sl->planes, sl->hresult, t->comp, sl->scores);
    if (err)
        return err;
    vmaf_cuda_frames_done(t->frames, sl->planes.slot);
    sl->state = SLOT_HARVESTED;
    return 0;
}

static int store(VmafCudaTwin *t, unsigned index, const double *scores,
                 VmafFeatureCollector *fc)
{
    const int err = t->ops->store(t->state, index, scores, fc);
    if (err) {
        vmaf_error("%s: frame %u: could not store the scores (%d)", t->ops->name, index, err);
        if (!t->err)
            t->err = err;
    }
    return err;
}

/* After a failure: the frames in flight are given up, not harvested (the
 * run has failed), and their planes released, so that their pictures go
 * back to their owner (a pool that FFmpeg's CUDA filter fetches from) now,
 * not at vmaf_close(). Kernels already queued, which may still run after
 * an error that did not break the context, are let end first. (The
 * state's context directly: the failure has been reported already.) */
static void give_up_frames(VmafCudaTwin *t)
{
    if (t->inflight && t->cu->push(t->cu->ctx) == 0) {
        if (cudaStreamSynchronize(t->comp) != cudaSuccess)
            (void)cudaGetLastError();
        void *prev = NULL;
        (void)t->cu->pop(&prev);
    }
    for (; t->inflight; t->inflight--) {
        VmafCudaTwinSlot *sl = &t->slot[oldest(t)];
        if (sl->state == SLOT_SUBMITTED) /* a harvested frame has let go already */
            vmaf_cuda_frames_done(t->frames, sl->planes.slot);
        sl->state = SLOT_FREE;
    }
    t->ndone = 0;
}

/* Makes room for the next frame: when every slot is in flight, the oldest
 * (the next frame's) is finished now and its scores kept until the next
 * collect, which also frees the frame's place in the context's frames. */
int vmaf_cuda_twin_reserve(VmafCudaTwin *t)
{
    if (t->err) {
        give_up_frames(t);
        return t->err;
    }
    if (t->inflight < SLOTS)
        return 0;
    VmafCudaTwinSlot *sl = &t->slot[t->next];
    if (t->ndone == SLOTS) {
        vmaf_error("%s: %d frames (the oldest frame %u) are waiting for collect(); the "
                   "caller must collect after each submit",
                   t->ops->name, SLOTS, sl->index);
        return t->err = -EBUSY;
    }
    int err = vmaf_cuda_enter_for(t->cu, t->ops->name, (long)sl->index);
    if (!err) {
        if (sl->state == SLOT_SUBMITTED)
            err = harvest(t, t->next);
        if (!err) {
            VmafCudaTwinScores *d = &t->done[t->ndone++];
            d->index = sl->index;
            memcpy(d->scores, sl->scores, sizeof(sl->scores));
            sl->state = SLOT_FREE;
            t->inflight--;
        }
        vmaf_cuda_leave(t->cu);
    }
    if (err) {
        if (!t->err)
            t->err = err;
        give_up_frames(t);
    }
    return err;
}

/* The frame's kernels, its read-back and the slot's event, on the kernels'
 * stream after the frame's upload. */
static int enqueue_frame(VmafCudaTwin *t, unsigned k, const VmafCudaPlanes *planes)
{
    VmafCudaTwinSlot *sl = &t->slot[k];
    cudaError_t e;
    if (planes->uploaded) {
        e = cudaStreamWaitEvent(t->comp, planes->uploaded, 0);
        if (e != cudaSuccess)
            return vmaf_cuda_twin_fail(t, e, "ordering upload and kernels", planes->index);
    }
    e = vmaf_cuda_twin_launch(t, k);
    if (e == cudaSuccess)
        e = cudaMemcpyAsync(sl->hresult, sl->dresult, t->ops->result_bytes,
                            cudaMemcpyDeviceToHost, t->comp);
    if (e == cudaSuccess)
        e = vmaf_cuda_twin_mark(sl->done, t->comp, planes->index);
    if (e != cudaSuccess)
        return vmaf_cuda_twin_fail(t, e, t->ops->launch_what, planes->index);
    return 0;
}

int vmaf_cuda_twin_submit(VmafCudaTwin *t, const VmafCudaPlanes *planes)
{
    const unsigned index = planes->index;
    if (t->err) {
        vmaf_cuda_frames_done(t->frames, planes->slot);
        return t->err;
    }
    if (t->inflight == SLOTS) {
        vmaf_error("%s: frame %u: no room; reserve() must come before each submit",
                   t->ops->name, index);
        vmaf_cuda_frames_done(t->frames, planes->slot);
        return t->err = -EBUSY;
    }
    int err = vmaf_cuda_enter_for(t->cu, t->ops->name, index);
    if (err) {
        vmaf_cuda_frames_done(t->frames, planes->slot);
        return t->err = err;
    }
    VmafCudaTwinSlot *sl = &t->slot[t->next];
    sl->planes = *planes;
    sl->planes.uploaded = NULL;
    err = enqueue_frame(t, t->next, planes);
    if (!err) {
        sl->state = SLOT_SUBMITTED;
        sl->index = index;
        t->next = (t->next + 1) % SLOTS;
        t->inflight++;
        t->submitted_any = true;
    } else {
        /* Kernels queued before the failure may still read the frame's
         * planes: let them end before its pictures can go back to their
         * owner, who may refill them. */
        cudaStreamSynchronize(t->comp);
        (void)cudaGetLastError(); /* the failure is logged and recorded */
        vmaf_cuda_frames_done(t->frames, planes->slot);
        if (!t->err)
            t->err = err;
    }
    vmaf_cuda_leave(t->cu);
    return err;
}

/* Harvests and stores finished frames in order, all of them when wait. */
static int collect_slots(VmafCudaTwin *t, bool wait, VmafFeatureCollector *fc)
{
    int err = 0;
    while (t->inflight && !err) {
        const unsigned k = oldest(t);
        VmafCudaTwinSlot *sl = &t->slot[k];
        if (sl->state == SLOT_SUBMITTED) {
            if (!wait) {
                const cudaError_t q = cudaEventQuery(sl->done);
                if (q == cudaErrorNotReady)
                    break;
                if (q != cudaSuccess) {
                    err = vmaf_cuda_twin_fail(t, q, "the kernels", sl->index);
                    break;
                }
            }
            err = harvest(t, k);
            if (err)
                break;
        }
        err = store(t, sl->index, sl->scores, fc);
        sl->state = SLOT_FREE;
        t->inflight--;
    }
    return err;
}

int vmaf_cuda_twin_collect(VmafCudaTwin *t, bool wait, VmafFeatureCollector *fc)
{
    if (t->err) {
        give_up_frames(t);
        return t->err;
    }
    int err = 0;
    for (unsigned i = 0; i < t->ndone && !err; i++)
        err = store(t, t->done[i].index, t->done[i].scores, fc);
    t->ndone = 0;
    if (err || !t->inflight) {
        if (t->err)
            give_up_frames(t);
        return err;
    }
    err = vmaf_cuda_enter_for(t->cu, t->ops->name, (long)t->slot[oldest(t)].index);
    if (err) {
        t->err = err;
        give_up_frames(t);
        return err;
    }
    err = collect_slots(t, wait, fc);
    vmaf_cuda_leave(t->cu);
    if (err && !t->err)
        t->err = err;
    if (t->err)
        give_up_frames(t); /* failed just now: its pictures go back at once */
    return err;
}

void vmaf_cuda_twin_close(VmafCudaTwin *t)
{
    if (!t->cu)
        return;
    if (!vmaf_cuda_enter_teardown(t->cu)) {
        teardown(t);
        vmaf_cuda_leave(t->cu);
    }
    t->cu = NULL;
}

void vmaf_cuda_twin_count_redo(VmafCudaTwin *t)
{
    t->counts.redos++;
}

VmafCudaTwinCounts vmaf_cuda_twin_counts(const VmafCudaTwin *t)
{
    return t->counts;
}

int vmaf_cuda_twin_last_slot(const VmafCudaTwin *t)
{
    return t->submitted_any ? (int)((t->next + SLOTS - 1) % SLOTS) : -1;
}

int vmaf_cuda_twin_fex_reserve(VmafFex *fex)
{
    return vmaf_cuda_twin_reserve(fex->twin);
}

int vmaf_cuda_twin_fex_submit(VmafFex *fex, const VmafCudaPlanes *planes)
{
    return vmaf_cuda_twin_submit(fex->twin, planes);
}

int vmaf_cuda_twin_fex_collect(VmafFex *fex, bool wait, VmafFeatureCollector *fc)
{
    return vmaf_cuda_twin_collect(fex->twin, wait, fc);
}

int vmaf_cuda_twin_fex_flush(VmafFex *fex, VmafFeatureCollector *fc)
{
    return vmaf_cuda_twin_collect(fex->twin, true, fc);
}

void vmaf_cuda_twin_fex_close(VmafFex *fex)
{
    if (fex && fex->twin)
        vmaf_cuda_twin_close(fex->twin);
}
