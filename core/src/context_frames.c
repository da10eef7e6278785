/*
 * Frames: pictures checked, handed to device extractors (one upload for
 * all) and to CPU extractors (in the caller's thread or on workers, with
 * the earlier reference pictures temporal extractors read), and the flush.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libvmaf/libvmaf.h"

#include "context.h"
#include "cuda/cuda_internal.h"
#include "log.h"
#include "picture_internal.h"
#include "picture_pool.h"
#include "util/row_copy.h"
#include "util/thread_pool.h"

static VmafFex *acquire(VmafContext *vmaf, VmafFeatureRequest *r, unsigned *slot)
{
    pthread_mutex_lock(&vmaf->lock);
    for (;;) {
        for (unsigned k = 0; k < r->n_inst; k++) {
            if (!r->inst_busy[k]) {
                r->inst_busy[k] = true;
                pthread_mutex_unlock(&vmaf->lock);
                *slot = k;
                return &r->inst[k];
            }
        }
        pthread_cond_wait(&vmaf->inst_free, &vmaf->lock);
    }
}

static void release(VmafContext *vmaf, VmafFeatureRequest *r, unsigned slot)
{
    pthread_mutex_lock(&vmaf->lock);
    r->inst_busy[slot] = false;
    pthread_cond_broadcast(&vmaf->inst_free);
    pthread_mutex_unlock(&vmaf->lock);
}

/* Scores one frame with every CPU extractor that sees it (all of them for
 * a frame n_subsample keeps, the temporal ones for any frame). */
static int extract_cpu(VmafContext *vmaf, const VmafFexFrame *frame)
{
    const bool kept = vmaf_context_extracted_at(vmaf, frame->index);
    for (unsigned i = 0; i < vmaf->req_cnt; i++) {
        VmafFeatureRequest *r = &vmaf->req[i];
        if (r->use->backend != VMAF_FEX_BACKEND_CPU || r->follows ||
            (!kept && !vmaf_fex_sees_every_frame(r->cpu)))
            continue;
        VmafFexFrame own = *frame;
        if (!(r->cpu->flags & VMAF_FEX_FLAG_PREV_REF))
            own.prev_ref[0] = own.prev_ref[1] = NULL;
        unsigned slot;
        VmafFex *f = acquire(vmaf, r, &slot);
        int err = f->fex->extract(f, &own, vmaf->fc);
        release(vmaf, r, slot);
        if (err)
            return err; /* the extractor logged why */
    }
    return 0;
}

typedef struct FrameJob {
    VmafContext *vmaf;
    VmafPicture ref, dist;
    VmafPicture prev_ref[2]; /* plain host pictures (keep_luma), or empty */
    unsigned index;
} FrameJob;

static void frame_job(void *arg)
{
    FrameJob *job = arg;
    /* After a failure the remaining frames are dropped, not scored. */
    if (!vmaf_context_sticky_error(job->vmaf)) {
        const VmafFexFrame frame = {
            .ref = &job->ref,
            .dist = &job->dist,
            .prev_ref = { job->prev_ref[0].ref ? &job->prev_ref[0] : NULL,
                          job->prev_ref[1].ref ? &job->prev_ref[1] : NULL },
            .index = job->index,
        };
        int err = extract_cpu(job->vmaf, &frame);
        if (err)
            vmaf_context_set_error(job->vmaf, err);
    }
    vmaf_picture_pool_unhold(&job->ref);
    vmaf_picture_pool_unhold(&job->dist);
    for (int k = 0; k < 2; k++)
        if (job->prev_ref[k].ref)
            vmaf_picture_unref(&job->prev_ref[k]);
    free(job);
}

/* A reference to a picture's luma that the context may keep for later
 * frames: the picture itself when the caller allocated it, a copy of its
 * luma when it belongs to a pool (kept, it would be missing from the pool
 * the caller fetches from, and a fetch could wait for ever). */
static int keep_luma(const VmafPicture *pic, VmafPicture *out)
{
    const VmafPicturePriv *priv = pic->priv;
    if (!priv || !priv->release)
        return vmaf_picture_ref(out, pic);
    int err = vmaf_picture_alloc(out, VMAF_PIX_FMT_YUV400P, pic->bpc, pic->w[0], pic->h[0]);
    if (err)
        return err;
    const VmafRowCopy plane = {
        .dst = out->data[0],
        .dst_stride = (size_t)out->stride[0],
        .src = pic->data[0],
        .src_stride = pic->stride[0],
        .row_bytes = (size_t)pic->w[0] * (pic->bpc > 8 ? 2 : 1),
        .rows = pic->h[0],
    };
    return vmaf_row_copy(NULL, &plane, 1);
}

/* After frame `index` went to the extractors: its reference becomes the
 * previous one of the next frame. */
static int remember_ref(VmafContext *vmaf, const VmafPicture *ref, unsigned index)
{
    if (!vmaf->keep_prev_ref)
        return 0;
    VmafPicture kept = { 0 };
    int err = keep_luma(ref, &kept);
    if (err) {
        vmaf_error("frame %u: out of memory keeping the reference picture for the next frame",
                   index);
        return err;
    }
    if (vmaf->prev_ref[1].ref)
        vmaf_picture_unref(&vmaf->prev_ref[1]);
    vmaf->prev_ref[1] = vmaf->prev_ref[0];
    vmaf->prev_ref[0] = kept;
    return 0;
}

void vmaf_context_forget_refs(VmafContext *vmaf)
{
    for (int k = 0; k < 2; k++)
        if (vmaf->prev_ref[k].ref)
            vmaf_picture_unref(&vmaf->prev_ref[k]);
}

/* Queues one frame for the workers, with references to what it reads. */
static int queue_frame(VmafContext *vmaf, const VmafPicture *ref, const VmafPicture *dist,
                       unsigned index)
{
    FrameJob *job = calloc(1, sizeof(*job));
    if (!job) {
        vmaf_error("frame %u: out of memory queueing the frame", index);
        return -ENOMEM;
    }
    job->vmaf = vmaf;
    job->index = index;
    /* Held as the library's: a fetch from a dry pool waits for these
     * (cuda_internal.h). */
    vmaf_picture_pool_hold(&job->ref, ref);
    vmaf_picture_pool_hold(&job->dist, dist);
    for (int k = 0; k < 2; k++)
        if (vmaf->prev_ref[k].ref)
            (void)vmaf_picture_ref(&job->prev_ref[k], &vmaf->prev_ref[k]);
    int err = vmaf_thread_pool_enqueue(vmaf->pool, frame_job, job);
    if (err) {
        vmaf_error("frame %u: out of memory queueing the frame", index);
        vmaf_picture_pool_unhold(&job->ref);
        vmaf_picture_pool_unhold(&job->dist);
        for (int k = 0; k < 2; k++)
            if (job->prev_ref[k].ref)
                vmaf_picture_unref(&job->prev_ref[k]);
        free(job);
    }
    return err;
}

/* CPU extractors score the frame, on a worker or here. */
static int dispatch_cpu(VmafContext *vmaf, const VmafPicture *ref, const VmafPicture *dist,
                        unsigned index)
{
    int err;
    if (vmaf->pool) {
        err = queue_frame(vmaf, ref, dist, index);
    } else {
        const VmafFexFrame frame = {
            .ref = ref,
            .dist = dist,
            .prev_ref = { vmaf->prev_ref[0].ref ? &vmaf->prev_ref[0] : NULL,
                          vmaf->prev_ref[1].ref ? &vmaf->prev_ref[1] : NULL },
            .index = index,
        };
        err = extract_cpu(vmaf, &frame);
    }
    return err ? err : remember_ref(vmaf, ref, index);
}

/* A request served by a device extractor that has started. */
static bool device_running(const VmafFeatureRequest *r)
{
    return r->use && r->use->backend != VMAF_FEX_BACKEND_CPU && r->n_inst;
}

/* Every device extractor is collected, also after one has failed (each
 * keeps its own frames and pictures); the first error is returned. */
static int collect_devices(VmafContext *vmaf, bool wait)
{
    int first = 0;
    for (unsigned i = 0; i < vmaf->req_cnt; i++) {
        VmafFeatureRequest *r = &vmaf->req[i];
        if (device_running(r)) {
            int err = r->use->collect(&r->inst[0], wait, vmaf->fc);
            if (err && !first)
                first = err;
        }
    }
    return first;
}

/* After a device failure: every device extractor finishes or gives up
 * (a failed one, by contract of collect()) its frames in flight, so that
 * their pictures go back to their owner now, not at vmaf_close(). One
 * that fails while finishing gives up at its second call. Errors were
 * reported where they happened. */
static void release_device_frames(VmafContext *vmaf)
{
    for (unsigned i = 0; i < vmaf->req_cnt; i++) {
        VmafFeatureRequest *r = &vmaf->req[i];
        if (device_running(r) && r->use->collect(&r->inst[0], true, vmaf->fc))
            (void)r->use->collect(&r->inst[0], true, vmaf->fc);
    }
}

int vmaf_context_collect_devices(VmafContext *vmaf)
{
    if (!vmaf->started)
        return 0;
    const int err = collect_devices(vmaf, true);
    if (err) {
        /* As after a failed read: the failed extractor gives its frames
         * up, so that a fetch waiting on the pool is not kept waiting. */
        release_device_frames(vmaf);
        vmaf_context_set_error(vmaf, err);
    }
    return err;
}

void vmaf_context_drain(void *vmaf)
{
    /* A failure there was logged and stays the context's error, which the
     * next read returns; its frames were given up, and their pictures are
     * back. */
    (void)vmaf_context_collect_devices(vmaf);
}

void vmaf_context_settle(VmafContext *vmaf)
{
    if (vmaf->pool && !vmaf->flushed)
        vmaf_thread_pool_wait(vmaf->pool);
    (void)vmaf_context_collect_devices(vmaf); /* a failure stays sticky */
}

/* quiet: from vmaf_close(), which reports no earlier failure again. */
int vmaf_context_flush(VmafContext *vmaf, bool quiet)
{
    vmaf->flushed = true;
    if (vmaf->pool)
        vmaf_thread_pool_wait(vmaf->pool);
    int err = quiet ? vmaf_context_sticky_error(vmaf) : vmaf_context_refuse_if_failed(vmaf, "flush");
    if (!vmaf->started)
        return err;
    int e = collect_devices(vmaf, true);
    if (!err)
        err = e;
    for (unsigned i = 0; i < vmaf->req_cnt; i++) {
        VmafFeatureRequest *r = &vmaf->req[i];
        if (r->n_inst && r->use->flush) {
            e = r->use->flush(&r->inst[0], vmaf->fc);
            if (!err)
                err = e;
        }
    }
    clock_gettime(CLOCK_MONOTONIC, &vmaf->t_end);
    vmaf_context_forget_refs(vmaf); /* no frame comes after the flush */
    if (err)
        vmaf_context_set_error(vmaf, err);
    return err;
}

static bool any_backend(VmafContext *vmaf, bool device)
{
    for (unsigned i = 0; i < vmaf->req_cnt; i++)
        if ((vmaf->req[i].use->backend != VMAF_FEX_BACKEND_CPU) == device)
            return true;
    return false;
}

/* A frame index is read once. Checked before any extractor runs: found by
 * an extractor's store it would come after a whole extraction and stop the
 * context (or, on a worker thread, surface only at the flush). The refusal
 * leaves the context usable, as libvmaf v3's -EINVAL does. */
static int mark_read(VmafContext *vmaf, unsigned index)
{
    if (vmaf_feature_collector_was_read(vmaf->fc, index)) {
        vmaf_error("frame %u was already read; give each frame its own index", index);
        return -EINVAL;
    }
    for (unsigned i = 0; i < vmaf->req_cnt; i++) {
        const VmafFeatureRequest *r = &vmaf->req[i];
        if (vmaf_context_sees_frame(vmaf, r->cpu, index)) {
            for (const char *const *p = r->cpu->provided_features; p && *p; p++) {
                double v;
                char name[512];
                vmaf_request_score_name(r, *p, name, sizeof(name));
                if (vmaf_request_emits_base(r, *p) && !vmaf_feature_collector_get(vmaf->fc, name, &v, index)) {
                    vmaf_error("frame %u: %s already has a score at this index (imported); "
                               "%s would score it again, read the frame under another index",
                               index, name, r->cpu->name);
                    return -EINVAL;
                }
            }
        }
    }
    /* Only the caller's thread marks frames, so -EEXIST cannot happen here. */
    int err = vmaf_feature_collector_mark_read(vmaf->fc, index);
    if (err)
        vmaf_error("frame %u: out of memory recording the frame", index);
    return err;
}

/* The device extractors' part of a frame: room in each, one upload for
 * all, each one's kernels; a frame n_subsample leaves out goes only to
 * the ones that see every frame (`kept` false). A failure was logged by what failed. */
static int submit_devices(VmafContext *vmaf, const VmafPicture *ref, const VmafPicture *dist,
                          unsigned index, bool kept)
{
    /* Room in every device extractor first: the place the pair goes to on
     * the device may still hold a frame one of them reads. */
    for (unsigned i = 0; i < vmaf->req_cnt; i++) {
        VmafFeatureRequest *r = &vmaf->req[i];
        int err = device_running(r) ? r->use->reserve(&r->inst[0]) : 0;
        if (err)
            return err;
    }
    VmafCudaPlanes planes;
    int err = vmaf_cuda_frames_put(vmaf->cuda_frames, ref, dist, index, &planes);
    if (err)
        return err;
    /* After a failure the other users give the frame up unseen: their work
     * would meet the same fault and report it again. */
    for (unsigned i = 0; i < vmaf->req_cnt; i++) {
        VmafFeatureRequest *r = &vmaf->req[i];
        if (!device_running(r)) /* CPU, or a follower its leader computes */
            continue;
        if (err || (!kept && !vmaf_fex_sees_every_frame(r->cpu)))
            vmaf_cuda_frames_done(vmaf->cuda_frames, planes.slot);
        else
            err = r->use->submit(&r->inst[0], &planes);
    }
    return err ? err : collect_devices(vmaf, false);
}

/* The CPU extractors' part of a frame. They read host memory: device
 * pictures are brought back once. *device_err: a failure of that copy. */
static int score_on_cpu(VmafContext *vmaf, const VmafPicture *ref, const VmafPicture *dist,
                        unsigned index, bool *device_err)
{
    VmafPicture host[2] = { { 0 } };
    *device_err = false;
    if (vmaf_picture_buf_type(ref) == VMAF_PICTURE_BUF_DEVICE) {
        const bool chroma = vmaf->cpu_chroma;
        int err = vmaf_cuda_download(vmaf->cuda, ref, &host[0], index, chroma);
        if (!err)
            err = vmaf_cuda_download(vmaf->cuda, dist, &host[1], index, chroma);
        if (err) {
            if (host[0].ref)
                vmaf_picture_unref(&host[0]);
            *device_err = true;
            return err;
        }
        ref = &host[0];
        dist = &host[1];
    }
    const int err = dispatch_cpu(vmaf, ref, dist, index);
    if (host[0].ref) {
        vmaf_picture_unref(&host[0]);
        vmaf_picture_unref(&host[1]);
    }
    return err;
}

/* The checks before a frame is scored, and the start at the first one. */
static int admit(VmafContext *vmaf, const VmafPicture *ref, const VmafPicture *dist,
                 unsigned index, const char *call)
{
    int err = vmaf_context_check_pictures(vmaf, ref, dist, index);
    if (!err)
        err = vmaf_context_refuse_if_failed(vmaf, call);
    if (!err)
        err = mark_read(vmaf, index);
    if (err)
        return err;
    if (!vmaf->started && (err = vmaf_context_start(vmaf, ref, index))) {
        vmaf_context_set_error(vmaf, err);
        return err;
    }
    return vmaf_context_refuse_if_failed(vmaf, call);
}

static int read_pair(VmafContext *vmaf, VmafPicture *ref, VmafPicture *dist, unsigned index)
{
    char call[40];
    snprintf(call, sizeof(call), "frame %u", index);
    int err = admit(vmaf, ref, dist, index, call);
    if (err)
        return err;
    vmaf->pic_cnt++;
    if (index + 1 > vmaf->max_index_plus1)
        vmaf->max_index_plus1 = index + 1;
    const bool kept = vmaf_context_extracted_at(vmaf, index);
    if (!kept && !vmaf->cpu_every_frame && !vmaf->device_every_frame)
        return 0;
    bool device_err = true;
    if ((kept || vmaf->device_every_frame) && any_backend(vmaf, true))
        err = submit_devices(vmaf, ref, dist, index, kept);
    if (!err && (kept || vmaf->cpu_every_frame) && any_backend(vmaf, false))
        err = score_on_cpu(vmaf, ref, dist, index, &device_err);
    if (!err)
        return 0;
    /* What failed has logged its one line, with the extractor and the
     * frame; a second, vaguer line here would only repeat it. */
    vmaf_context_set_error(vmaf, err);
    if (device_err)
        release_device_frames(vmaf);
    return err;
}

int vmaf_read_pictures(VmafContext *vmaf, VmafPicture *ref, VmafPicture *dist, unsigned index)
{
    if (!vmaf) {
        vmaf_error("vmaf_read_pictures: the context must not be NULL");
        if (ref && ref->ref)
            vmaf_picture_unref(ref);
        if (dist && dist->ref)
            vmaf_picture_unref(dist);
        return -EINVAL;
    }
    if (!ref && !dist) {
        /* libvmaf v3 answers -EINVAL once flushed; a second flush has
         * nothing to do, and a caller that flushes twice has lost track. */
        if (vmaf->flushed) {
            vmaf_error("vmaf_read_pictures: the context was already flushed; flush once, "
                       "after the last picture");
            return -EINVAL;
        }
        return vmaf_context_handed_back(vmaf, vmaf_context_flush(vmaf, false));
    }
    int err;
    if (!ref || !dist) {
        vmaf_error("frame %u: vmaf_read_pictures needs both pictures (or both NULL to flush)",
                   index);
        err = -EINVAL;
    } else if (vmaf->flushed) {
        vmaf_error("frame %u: pictures read after the flush; read every picture first, "
                   "or use a new context", index);
        err = -EINVAL;
    } else if (index >= VMAF_FEATURE_COLLECTOR_MAX_INDEX) {
        vmaf_error("frame index %u is too large; indices must be below %u", index,
                   VMAF_FEATURE_COLLECTOR_MAX_INDEX);
        err = -EINVAL;
    } else {
        err = read_pair(vmaf, ref, dist, index);
    }
    /* The context owns both references, on success and on failure. */
    if (ref && ref->ref)
        vmaf_picture_unref(ref);
    if (dist && dist->ref)
        vmaf_picture_unref(dist);
    return vmaf_context_handed_back(vmaf, err);
}
