/*
 * The luma planes of the frames in flight, on the device, for every CUDA
 * extractor of a context (cuda_internal.h): each frame is uploaded once,
 * whatever the number of device extractors reading it.
 *
 * A frame takes the next of VMAF_CUDA_FRAMES_IN_FLIGHT places. Host
 * pictures are copied into the place's pinned staging by the CUDA state's
 * copy team and uploaded from there; pinned pictures are uploaded directly
 * and held until every user is done; device pictures are only held. The
 * uploads run on a stream of their own and end with an event that users
 * make their kernels wait for, so that the upload of frame N+1 overlaps the
 * kernels of frame N. A place is taken again only once every user has
 * finished the frame it held (vmaf_cuda_frames_done): its kernels, which
 * waited for that upload, are then done, so the staging and the device
 * buffers are free.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "cuda/cuda_internal.h"
#include "cuda/cuda_state.h"
#include "log.h"
#include "picture_pool.h"
#include "picture_internal.h"
#include "util/row_copy.h"

#define PLACES VMAF_CUDA_FRAMES_IN_FLIGHT

typedef struct Place {
    void *dbuf[2];       /* uploaded luma (allocated on the first host picture) */
    void *stage[2];      /* pinned staging for pageable pictures (first use) */
    VmafPicture hold[2]; /* pinned or device pictures the users read */
    bool held[2];
    cudaEvent_t uploaded;
    bool event;
    unsigned pending;    /* users that have not finished this place's frame */
} Place;

struct VmafCudaFrames {
    struct VmafCudaState *cu;
    char who[128];       /* the users' names, for messages */
    unsigned w, h, bpc, users;
    size_t row_bytes, dpitch;
    cudaStream_t up;
    struct VmafTeam *copy_team;
    Place place[PLACES];
    unsigned next;
    int err;             /* sticky: the first failure stops the run */
};

static int fail(VmafCudaFrames *f, cudaError_t e, const char *what, long frame)
{
    const int err = vmaf_cuda_errno(e);
    if (vmaf_cuda_report(f->cu, e)) {
        if (frame >= 0)
            vmaf_error("%s: frame %ld: %s failed: %s", f->who, frame, what,
                       cudaGetErrorString(e));
        else
            vmaf_error("%s: %s failed: %s", f->who, what, cudaGetErrorString(e));
    }
    if (!f->err)
        f->err = err ? err : -EIO;
    return f->err;
}

static void release_holds(Place *p)
{
    for (int i = 0; i < 2; i++)
        if (p->held[i]) {
            vmaf_picture_pool_unhold(&p->hold[i]);
            p->held[i] = false;
        }
}

int vmaf_cuda_frames_init(VmafCudaFrames **out, struct VmafCudaState *cu, unsigned w, unsigned h,
                          unsigned bpc, unsigned users, const char *who, unsigned index)
{
    *out = NULL;
    if (!users) {
        /* A frame nobody reads would never be done, nor its pictures given
         * back. */
        vmaf_error("%s: device frames need at least one user", who);
        return -EINVAL;
    }
    VmafCudaFrames *f = calloc(1, sizeof(*f));
    if (!f) {
        vmaf_error("%s: out of memory", who);
        return -ENOMEM;
    }
    f->cu = cu;
    snprintf(f->who, sizeof(f->who), "%s", who);
    f->w = w;
    f->h = h;
    f->bpc = bpc;
    f->users = users;
    f->row_bytes = (size_t)w * (bpc > 8 ? 2 : 1);
    int err = vmaf_cuda_enter_for(cu, f->who, index);
    if (err) {
        free(f);
        return err;
    }
    cudaError_t e = cudaStreamCreateWithFlags(&f->up, cudaStreamNonBlocking);
    for (int k = 0; k < PLACES && e == cudaSuccess; k++) {
        e = cudaEventCreateWithFlags(&f->place[k].uploaded, cudaEventDisableTiming);
        f->place[k].event = e == cudaSuccess;
    }
    vmaf_cuda_leave(cu);
    if (e != cudaSuccess) {
        err = fail(f, e, "creating the upload stream and events", index);
        vmaf_cuda_frames_free(f);
        return err;
    }
    *out = f;
    return 0;
}

/* Device luma buffers of a place, on the first host picture, and its pinned
 * staging on the first pageable one. */
static int ensure_buffers(VmafCudaFrames *f, Place *p, bool staging, unsigned index)
{
    for (int i = 0; i < 2; i++) {
        if (!p->dbuf[i]) {
            size_t pitch = 0;
            cudaError_t e = cudaMallocPitch(&p->dbuf[i], &pitch, f->row_bytes, f->h);
            if (e != cudaSuccess)
                return fail(f, e, "allocating device luma buffers", index);
            f->dpitch = pitch;
        }
        if (staging && !p->stage[i]) {
            cudaError_t e = cudaHostAlloc(&p->stage[i], f->dpitch * f->h, cudaHostAllocDefault);
            if (e != cudaSuccess)
                return fail(f, e, "allocating pinned staging", index);
            if (!f->copy_team)
                f->copy_team = vmaf_cuda_copy_team(f->cu);
        }
    }
    return 0;
}

int vmaf_cuda_frames_put(VmafCudaFrames *f, const VmafPicture *ref, const VmafPicture *dist,
                         unsigned index, VmafCudaPlanes *out)
{
    if (f->err)
        return f->err;
    const VmafPicture *pic[2] = {ref, dist};
    for (int i = 0; i < 2; i++) {
        if (!pic[i] || !pic[i]->data[0] || pic[i]->bpc != f->bpc || pic[i]->w[0] != f->w ||
            pic[i]->h[0] != f->h) {
            vmaf_error("%s: frame %u: pictures do not match the %ux%u %u-bit geometry the "
                       "extractors were set up for",
                       f->who, index, f->w, f->h, f->bpc);
            return f->err = -EINVAL;
        }
    }
    const unsigned k = f->next;
    Place *p = &f->place[k];
    if (p->pending) {
        /* The context makes every user finish the frame a place holds
         * before it is taken again; this is a caller out of step. */
        vmaf_error("%s: frame %u: the frame before it in the same place is not finished; "
                   "reserve room in every extractor first",
                   f->who, index);
        return f->err = -EBUSY;
    }
    int err = vmaf_cuda_enter_for(f->cu, f->who, index);
    if (err)
        return f->err = err;

    memset(out, 0, sizeof(*out));
    out->index = index;
    out->slot = k;
    bool uploaded = false;
    cudaError_t e = cudaSuccess;
    VmafRowCopy copy[2];
    int copied[2], ncopy = 0;
    for (int i = 0; i < 2 && e == cudaSuccess; i++) {
        const VmafPicture *q = pic[i];
        const enum VmafPictureBufType bt = vmaf_picture_buf_type(q);
        if (bt == VMAF_PICTURE_BUF_DEVICE) {
            /* Read where it is; kept alive until every user is done. */
            vmaf_picture_pool_hold(&p->hold[i], q);
            p->held[i] = true;
            out->luma[i] = q->data[0];
            out->pitch[i] = (size_t)q->stride[0];
            continue;
        }
        err = ensure_buffers(f, p, bt == VMAF_PICTURE_BUF_HOST, index);
        if (err)
            goto out;
        if (bt == VMAF_PICTURE_BUF_HOST_PINNED) {
            /* Asynchronous from the picture itself: held until done. */
            e = cudaMemcpy2DAsync(p->dbuf[i], f->dpitch, q->data[0], (size_t)q->stride[0],
                                  f->row_bytes, f->h, cudaMemcpyHostToDevice, f->up);
            if (e == cudaSuccess) {
                vmaf_picture_pool_hold(&p->hold[i], q);
                p->held[i] = true;
            }
        } else {
            /* Pageable: into the place's pinned staging (its last upload
             * ended before its users finished), both planes in one run of
             * the copy team's threads, then uploaded from there. */
            copy[ncopy] = (VmafRowCopy){.dst = p->stage[i],
                                        .dst_stride = f->dpitch,
                                        .src = q->data[0],
                                        .src_stride = q->stride[0],
                                        .row_bytes = f->row_bytes,
                                        .rows = f->h};
            copied[ncopy++] = i;
        }
        out->luma[i] = p->dbuf[i];
        out->pitch[i] = f->dpitch;
        uploaded = true;
    }
    if (ncopy && e == cudaSuccess) {
        vmaf_row_copy(f->copy_team, copy, (unsigned)ncopy);
        for (int n = 0; n < ncopy && e == cudaSuccess; n++)
            e = cudaMemcpyAsync(p->dbuf[copied[n]], p->stage[copied[n]], f->dpitch * f->h,
                                cudaMemcpyHostToDevice, f->up);
    }
    if (e == cudaSuccess && uploaded) {
        e = cudaEventRecord(p->uploaded, f->up);
        out->uploaded = p->uploaded;
    }
    if (e != cudaSuccess) {
        err = fail(f, e, "uploading the luma planes", index);
        goto out;
    }
    p->pending = f->users;
    f->next = (k + 1) % PLACES;
out:
    if (err) {
        /* An upload queued before the failure may still read a held
         * picture: let it end before the picture goes back to its owner. */
        cudaStreamSynchronize(f->up);
        (void)cudaGetLastError(); /* the failure is logged and recorded */
        release_holds(p);
        if (!f->err)
            f->err = err;
    }
    vmaf_cuda_leave(f->cu);
    return err;
}

void vmaf_cuda_frames_done(VmafCudaFrames *f, unsigned slot)
{
    if (!f || slot >= PLACES)
        return;
    Place *p = &f->place[slot];
    if (p->pending && !--p->pending) {
        /* The upload is long over when the users finished their kernels,
         * which waited for it; one that failed before may leave it
         * running, and it may still read a held picture. (The state's
         * context directly: a failure here has been reported already.) */
        if (p->event && f->cu->push(f->cu->ctx) == 0) {
            if (cudaEventSynchronize(p->uploaded) != cudaSuccess)
                (void)cudaGetLastError();
            void *prev = NULL;
            (void)f->cu->pop(&prev);
        }
        release_holds(p);
    }
}

void vmaf_cuda_frames_free(VmafCudaFrames *f)
{
    if (!f)
        return;
    /* The users are closed first: their kernels have ended. */
    const bool entered = !vmaf_cuda_enter_teardown(f->cu);
    if (entered && f->up)
        cudaStreamSynchronize(f->up);
    for (int k = 0; k < PLACES; k++) {
        Place *p = &f->place[k];
        release_holds(p);
        if (entered) {
            for (int i = 0; i < 2; i++) {
                cudaFree(p->dbuf[i]);
                cudaFreeHost(p->stage[i]);
            }
            if (p->event)
                cudaEventDestroy(p->uploaded);
        }
    }
    if (entered) {
        if (f->up)
            cudaStreamDestroy(f->up);
        /* After a device failure these calls fail too and leave their
         * error behind: nothing more is done with it here. */
        (void)cudaGetLastError();
        vmaf_cuda_leave(f->cu);
    }
    free(f);
}
