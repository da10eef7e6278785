/*
 * The planes of the frames in flight, on the device, for every CUDA
 * extractor of a context (cuda_internal.h): each frame is uploaded once,
 * whatever the number of device extractors reading it; its luma, and its
 * chroma only where a device extractor reads chroma.
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
#include <stdint.h>
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

/* Planes a side may have: luma, U, V. */
#define PLANES 3

typedef struct Place {
    void *dbuf[2][PLANES];  /* uploaded planes (allocated on the first host picture) */
    void *stage[2][PLANES]; /* pinned staging for pageable pictures (first use) */
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
    enum VmafPixelFormat fmt;
    unsigned planes;              /* 1: luma; 3: with chroma */
    unsigned pw[PLANES], ph[PLANES]; /* each plane's samples, as the pictures have them */
    size_t row_bytes[PLANES], dpitch[PLANES];
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

/* The geometry of plane j of w x h pictures of format fmt, as
 * vmaf_picture_alloc() makes it (chroma sides rounding up). */
static void plane_size(enum VmafPixelFormat fmt, unsigned w, unsigned h, unsigned j,
                       unsigned *pw, unsigned *ph)
{
    const bool halve_w = j && fmt != VMAF_PIX_FMT_YUV444P;
    const bool halve_h = j && fmt == VMAF_PIX_FMT_YUV420P;
    *pw = halve_w ? (w + 1) / 2 : w;
    *ph = halve_h ? (h + 1) / 2 : h;
}

int vmaf_cuda_frames_init(VmafCudaFrames **out, struct VmafCudaState *cu,
                          const VmafCudaFramesGeometry *g, unsigned users, const char *who,
                          unsigned index)
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
    f->w = g->w;
    f->h = g->h;
    f->bpc = g->bpc;
    f->fmt = g->fmt;
    f->users = users;
    f->planes = g->chroma && g->fmt != VMAF_PIX_FMT_YUV400P ? PLANES : 1;
    for (unsigned j = 0; j < f->planes; j++) {
        plane_size(g->fmt, g->w, g->h, j, &f->pw[j], &f->ph[j]);
        f->row_bytes[j] = (size_t)f->pw[j] * (g->bpc > 8 ? 2 : 1);
    }
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

/* Device buffers of a place's planes, on the first host picture, and its
 * pinned staging on the first pageable one. */
static int ensure_buffers(VmafCudaFrames *f, Place *p, bool staging, unsigned index)
{
    for (int i = 0; i < 2; i++) {
        for (unsigned j = 0; j < f->planes; j++) {
            if (!p->dbuf[i][j]) {
                size_t pitch = 0;
                cudaError_t e = cudaMallocPitch(&p->dbuf[i][j], &pitch, f->row_bytes[j], f->ph[j]);
                if (e != cudaSuccess)
                    return fail(f, e, "allocating device plane buffers", index);
                f->dpitch[j] = pitch;
            }
            if (staging && !p->stage[i][j]) {
                cudaError_t e = cudaHostAlloc(&p->stage[i][j], f->dpitch[j] * f->ph[j],
                                              cudaHostAllocDefault);
                if (e != cudaSuccess)
                    return fail(f, e, "allocating pinned staging", index);
                if (!f->copy_team)
                    f->copy_team = vmaf_cuda_copy_team(f->cu);
            }
        }
    }
    return 0;
}

/* Whether pictures a and b have what the users read: the geometry, and
 * with chroma the context's format and chroma planes inside their memory. */
static bool pictures_fit(const VmafCudaFrames *f, const VmafPicture *pic[2])
{
    for (int i = 0; i < 2; i++) {
        const VmafPicture *q = pic[i];
        if (!q || !q->data[0] || q->bpc != f->bpc || q->w[0] != f->w || q->h[0] != f->h)
            return false;
        for (unsigned j = 1; j < f->planes; j++)
            if (q->pix_fmt != f->fmt || !vmaf_picture_plane_fits(q, (int)j) ||
                q->w[j] != f->pw[j] || q->h[j] != f->ph[j])
                return false;
    }
    return true;
}

/* Whether the kernels can read device picture q where it is: rows top
 * down, and 16-bit samples at even addresses (a misaligned load faults,
 * and the fault ends the device context). */
static bool device_readable(const VmafCudaFrames *f, const VmafPicture *q)
{
    for (unsigned j = 0; j < f->planes; j++)
        if (q->stride[j] < 0 ||
            (f->bpc > 8 && (((uintptr_t)q->data[j] | (uintptr_t)q->stride[j]) & 1)))
            return false;
    return true;
}

/* Whether a pinned picture's planes can be uploaded straight from it (a
 * 2-D copy takes rows top down only); else it is staged as pageable. */
static bool uploadable(const VmafCudaFrames *f, const VmafPicture *q)
{
    for (unsigned j = 0; j < f->planes; j++)
        if (q->stride[j] < 0)
            return false;
    return true;
}

/* Where the users read plane j of side i. */
static void set_plane(VmafCudaPlanes *out, int i, unsigned j, const void *data, size_t pitch)
{
    if (!j) {
        out->luma[i] = data;
        out->pitch[i] = pitch;
    } else {
        out->chroma[i][j - 1] = data;
        out->chroma_pitch[i][j - 1] = pitch;
    }
}

int vmaf_cuda_frames_put(VmafCudaFrames *f, const VmafPicture *ref, const VmafPicture *dist,
                         unsigned index, VmafCudaPlanes *out)
{
    if (f->err)
        return f->err;
    const VmafPicture *pic[2] = {ref, dist};
    if (!pictures_fit(f, pic)) {
        vmaf_error("%s: frame %u: pictures do not match the %ux%u %u-bit geometry%s the "
                   "extractors were set up for",
                   f->who, index, f->w, f->h, f->bpc, f->planes > 1 ? " and format" : "");
        return f->err = -EINVAL;
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
    VmafRowCopy copy[2 * PLANES];
    void *copy_to[2 * PLANES];
    size_t copy_bytes[2 * PLANES];
    int ncopy = 0;
    for (int i = 0; i < 2 && e == cudaSuccess; i++) {
        const VmafPicture *q = pic[i];
        enum VmafPictureBufType bt = vmaf_picture_buf_type(q);
        if (bt == VMAF_PICTURE_BUF_HOST_PINNED && !uploadable(f, q))
            bt = VMAF_PICTURE_BUF_HOST;
        if (bt == VMAF_PICTURE_BUF_DEVICE && !device_readable(f, q)) {
            vmaf_error("%s: frame %u: the %s picture is in device memory bottom up or with "
                       "%u-bit rows at odd addresses, which the kernels cannot read; give "
                       "device pictures with top-down rows at even addresses",
                       f->who, index, i ? "distorted" : "reference", f->bpc);
            err = f->err = -EINVAL;
            goto out;
        }
        if (bt == VMAF_PICTURE_BUF_DEVICE) {
            /* Read where it is; kept alive until every user is done. */
            vmaf_picture_pool_hold(&p->hold[i], q);
            p->held[i] = true;
            for (unsigned j = 0; j < f->planes; j++)
                set_plane(out, i, j, q->data[j], (size_t)q->stride[j]);
            continue;
        }
        err = ensure_buffers(f, p, bt == VMAF_PICTURE_BUF_HOST, index);
        if (err)
            goto out;
        for (unsigned j = 0; j < f->planes && e == cudaSuccess; j++) {
            if (bt == VMAF_PICTURE_BUF_HOST_PINNED) {
                /* Asynchronous from the picture itself: held until done. */
                e = cudaMemcpy2DAsync(p->dbuf[i][j], f->dpitch[j], q->data[j],
                                      (size_t)q->stride[j], f->row_bytes[j], f->ph[j],
                                      cudaMemcpyHostToDevice, f->up);
            } else {
                /* Pageable: into the place's pinned staging (its last
                 * upload ended before its users finished), every plane in
                 * one run of the copy team's threads, then uploaded from
                 * there. */
                copy[ncopy] = (VmafRowCopy){.dst = p->stage[i][j],
                                            .dst_stride = f->dpitch[j],
                                            .src = q->data[j],
                                            .src_stride = q->stride[j],
                                            .row_bytes = f->row_bytes[j],
                                            .rows = f->ph[j]};
                copy_to[ncopy] = p->dbuf[i][j];
                copy_bytes[ncopy++] = f->dpitch[j] * f->ph[j];
            }
            set_plane(out, i, j, p->dbuf[i][j], f->dpitch[j]);
        }
        if (e == cudaSuccess && bt == VMAF_PICTURE_BUF_HOST_PINNED) {
            vmaf_picture_pool_hold(&p->hold[i], q);
            p->held[i] = true;
        }
        uploaded = true;
    }
    if (ncopy && e == cudaSuccess) {
        vmaf_row_copy(f->copy_team, copy, (unsigned)ncopy);
        for (int n = 0; n < ncopy && e == cudaSuccess; n++)
            e = cudaMemcpyAsync(copy_to[n], copy[n].dst, copy_bytes[n], cudaMemcpyHostToDevice,
                                f->up);
    }
    if (e == cudaSuccess && uploaded) {
        e = cudaEventRecord(p->uploaded, f->up);
        out->uploaded = p->uploaded;
    }
    if (e != cudaSuccess) {
        err = fail(f, e, f->planes > 1 ? "uploading the planes" : "uploading the luma planes",
                   index);
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

bool vmaf_cuda_frames_chroma(const VmafCudaFrames *f)
{
    return f && f->planes > 1;
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
            for (int i = 0; i < 2; i++)
                for (int j = 0; j < PLANES; j++) {
                    cudaFree(p->dbuf[i][j]);
                    cudaFreeHost(p->stage[i][j]);
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
