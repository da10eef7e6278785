/*
 * Pinned host copies of device pictures, for the CPU extractors that run
 * beside the GPU (vmaf_cuda_download, cuda_internal.h). A copy holds a
 * reference to the state and goes back to the state's list when its
 * picture's last reference goes, so a run allocates as many copies as there
 * are frames in flight, once; they are freed with the state.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#include "cuda/cuda_internal.h"
#include "cuda/cuda_state.h"
#include "log.h"
#include "picture_internal.h"

/* Pinned memory for the luma of a device picture that CPU extractors read. */
typedef struct VmafCudaHostCopy {
    struct VmafCudaHostCopy *next;
    struct VmafCudaState *s;
    size_t bytes;
    void *mem;
} HostCopy;

static void keep_copy(struct VmafCudaState *s, HostCopy *c)
{
    pthread_mutex_lock(&s->copies_lock);
    c->next = s->free_copies;
    s->free_copies = c;
    pthread_mutex_unlock(&s->copies_lock);
}

static void host_copy_release(void *cookie, VmafPicture *pic)
{
    (void)pic;
    HostCopy *c = cookie;
    struct VmafCudaState *s = c->s;
    keep_copy(s, c);
    vmaf_cuda_state_free(s); /* the reference the copy held */
}

/* Frees a list of copies, with their pinned memory when `pinned` (the
 * state's context is then current). */
static void free_copies(HostCopy *c, bool pinned)
{
    while (c) {
        HostCopy *next = c->next;
        if (pinned)
            (void)vmaf_cuda_errno(cudaFreeHost(c->mem));
        free(c);
        c = next;
    }
}

/* A kept copy of `bytes`, else a new one; kept copies of another size (an
 * earlier geometry) are freed. The context is current. */
static int take_copy(struct VmafCudaState *s, size_t bytes, unsigned index, HostCopy **out)
{
    HostCopy *c = NULL, *stale = NULL;
    pthread_mutex_lock(&s->copies_lock);
    while (s->free_copies && !c) {
        HostCopy *k = s->free_copies;
        s->free_copies = k->next;
        if (k->bytes == bytes) {
            c = k;
        } else {
            k->next = stale;
            stale = k;
        }
    }
    pthread_mutex_unlock(&s->copies_lock);
    free_copies(stale, true);
    if (!c) {
        c = calloc(1, sizeof(*c));
        if (!c) {
            vmaf_error("cuda: frame %u: out of memory for a host copy of a device picture",
                       index);
            return -ENOMEM;
        }
        const cudaError_t e = cudaHostAlloc(&c->mem, bytes, cudaHostAllocDefault);
        if (e != cudaSuccess) {
            if (vmaf_cuda_report(s, e))
                vmaf_error("cuda: frame %u: cannot allocate %zu bytes of pinned host memory "
                           "for a copy of a device picture: %s",
                           index, bytes, cudaGetErrorString(e));
            free(c);
            return vmaf_cuda_errno(e);
        }
        c->s = s;
        c->bytes = bytes;
        pthread_mutex_lock(&s->copies_lock);
        s->copies_made++;
        pthread_mutex_unlock(&s->copies_lock);
    }
    *out = c;
    return 0;
}

/* Copies the planes of dev into the host layout of vmaf_picture_alloc(). */
static cudaError_t copy_planes(const VmafPicture *dev, void *mem, unsigned planes,
                               const unsigned *pw, const unsigned *ph, const size_t *stride,
                               const size_t *offset)
{
    const size_t sample = dev->bpc > 8 ? 2 : 1;
    cudaError_t e = cudaSuccess;
    for (unsigned i = 0; i < planes && e == cudaSuccess; i++)
        e = cudaMemcpy2D((char *)mem + offset[i], stride[i], dev->data[i],
                         (size_t)dev->stride[i], (size_t)pw[i] * sample, ph[i],
                         cudaMemcpyDeviceToHost);
    return e;
}

int vmaf_cuda_download(struct VmafCudaState *s, const VmafPicture *dev, VmafPicture *host,
                       unsigned index, bool chroma)
{
    /* Every failure below logs one line with the frame: the caller adds
     * none of its own. */
    if (!s || !dev || !host || !dev->data[0] || (chroma && dev->w[1] && !dev->data[2])) {
        vmaf_error("cuda: frame %u: no device picture to copy to the host", index);
        return -EINVAL;
    }
    /* Luma alone as a 4:0:0 picture unless an extractor on the CPU reads
     * chroma: pinned memory for planes nobody reads would be wasted, up to
     * a few copies a worker thread. */
    const enum VmafPixelFormat fmt = chroma ? dev->pix_fmt : VMAF_PIX_FMT_YUV400P;
    unsigned pw[3], ph[3], planes;
    int err = vmaf_picture_plane_geometry(fmt, dev->w[0], dev->h[0], pw, ph, &planes);
    if (err) {
        vmaf_error("cuda: frame %u: a %ux%u device picture has no valid plane layout", index,
                   dev->w[0], dev->h[0]);
        return err;
    }
    size_t stride[3], offset[3];
    const size_t total = vmaf_picture_plane_layout(planes, pw, ph, dev->bpc,
                                                   VMAF_PICTURE_ROW_ALIGN, stride, offset);
    err = vmaf_cuda_enter_for(s, "cuda", index);
    if (err)
        return err;
    HostCopy *c = NULL;
    err = take_copy(s, total, index, &c);
    if (err) {
        vmaf_cuda_leave(s);
        return err;
    }
    const cudaError_t e = copy_planes(dev, c->mem, planes, pw, ph, stride, offset);
    vmaf_cuda_leave(s);
    if (e != cudaSuccess) {
        if (vmaf_cuda_report(s, e))
            vmaf_error("cuda: frame %u: copying a %ux%u device picture to the host failed: %s",
                       index, dev->w[0], dev->h[0], cudaGetErrorString(e));
        keep_copy(s, c);
        return vmaf_cuda_errno(e);
    }
    err = vmaf_picture_wrap(host, fmt, dev->bpc, dev->w[0], dev->h[0],
                            VMAF_PICTURE_BUF_HOST_PINNED, c->mem, total, host_copy_release, c);
    if (err) {
        /* vmaf_picture_wrap() said why (its only failure here is memory). */
        keep_copy(s, c);
        return err;
    }
    vmaf_cuda_state_ref(s);
    for (unsigned i = 0; i < planes; i++) {
        host->data[i] = (char *)c->mem + offset[i];
        host->stride[i] = (ptrdiff_t)stride[i];
    }
    return 0;
}

unsigned vmaf_cuda_host_copies_made(struct VmafCudaState *s)
{
    pthread_mutex_lock(&s->copies_lock);
    const unsigned n = s->copies_made;
    pthread_mutex_unlock(&s->copies_lock);
    return n;
}


void vmaf_cuda_host_copies_free(struct VmafCudaState *s)
{
    /* Copies still referenced hold the state: these are all there are. */
    if (!s->free_copies)
        return;
    if (!vmaf_cuda_enter_teardown(s)) {
        free_copies(s->free_copies, true);
        vmaf_cuda_leave(s);
    } else {
        /* The context cannot be made current (its owner destroyed it,
         * which freed the pinned memory allocated in it): only the
         * bookkeeping is left. */
        free_copies(s->free_copies, false);
    }
    s->free_copies = NULL;
}
