/*
 * The public CUDA picture pool (vmaf_cuda_preallocate_pictures): the
 * picture pool of picture_pool.c on device, pinned or host memory, each
 * block made and freed in the CUDA state's context.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "libvmaf/libvmaf_cuda.h"

#include "context.h"
#include "cuda/cuda_internal.h"
#include "cuda/cuda_state.h"
#include "log.h"
#include "picture_internal.h"
#include "picture_pool.h"

/* The pool's memory: device, pinned or host blocks, made and freed in the
 * state's context. */
typedef struct PoolMemory {
    struct VmafCudaState *cu;
    enum VmafCudaPicturePreallocationMethod method;
} PoolMemory;

static void *pool_alloc(void *opaque, size_t size, unsigned i, unsigned n, int *err, char *why,
                        size_t why_len)
{
    (void)i, (void)n;
    const PoolMemory *pm = opaque;
    if (pm->method == VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_HOST) {
        /* 256-byte rows suit both coalesced device reads and aligned copies. */
        void *m = aligned_alloc(256, (size + 255) / 256 * 256);
        *err = -ENOMEM;
        snprintf(why, why_len, "out of host memory");
        return m;
    }
    if ((*err = vmaf_cuda_enter(pm->cu))) {
        snprintf(why, why_len, "the CUDA context cannot be made current");
        return NULL;
    }
    void *m = NULL;
    const cudaError_t ce = pm->method == VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_DEVICE
                               ? cudaMalloc(&m, size)
                               : cudaHostAlloc(&m, size, cudaHostAllocPortable);
    if (ce != cudaSuccess) {
        snprintf(why, why_len, "%s memory: %s",
                 pm->method == VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_DEVICE ? "device"
                                                                             : "pinned",
                 cudaGetErrorString(ce));
        /* -ENOMEM when out of memory, -ENODEV or -EIO when the device
         * failed otherwise (and the error is consumed). */
        *err = vmaf_cuda_errno(ce);
        m = NULL;
    }
    vmaf_cuda_leave(pm->cu);
    return m;
}

static void pool_release(void *opaque, void *const *blocks, unsigned n)
{
    PoolMemory *pm = opaque;
    /* Device and pinned memory are freed in the state's context. When it
     * cannot be made current, it is gone (its owner destroyed it, which
     * freed every allocation made in it): nothing is left to free but host
     * memory. */
    const bool host = pm->method == VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_HOST;
    const bool entered = !host && !vmaf_cuda_enter_teardown(pm->cu);
    for (unsigned i = 0; i < n; i++) {
        if (!blocks[i])
            continue;
        if (host)
            free(blocks[i]);
        else if (entered && pm->method == VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_DEVICE)
            (void)vmaf_cuda_errno(cudaFree(blocks[i]));
        else if (entered)
            (void)vmaf_cuda_errno(cudaFreeHost(blocks[i]));
    }
    if (entered)
        vmaf_cuda_leave(pm->cu);
    vmaf_cuda_state_free(pm->cu);
    free(pm);
}

int vmaf_cuda_preallocate_pictures(VmafContext *vmaf, VmafCudaPictureConfiguration cfg)
{
    if (!vmaf || !vmaf->cuda) {
        vmaf_error("cuda: vmaf_cuda_preallocate_pictures needs a context with imported CUDA "
                   "state (vmaf_cuda_import_state)");
        return -EINVAL;
    }
    if (vmaf->cuda_pool) {
        vmaf_error("cuda: pictures were preallocated already for this context");
        return -EINVAL;
    }
    const enum VmafCudaPicturePreallocationMethod m = cfg.pic_prealloc_method;
    if (m == VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_NONE)
        return 0;
    if (m != VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_DEVICE &&
        m != VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_HOST &&
        m != VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_HOST_PINNED) {
        vmaf_error("cuda: unknown picture preallocation method %d", (int)m);
        return -EINVAL;
    }
    PoolMemory *pm = calloc(1, sizeof(*pm));
    if (!pm) {
        vmaf_error("cuda: out of memory allocating the picture pool");
        return -ENOMEM;
    }
    pm->cu = vmaf->cuda;
    pm->method = m;
    vmaf_cuda_state_ref(pm->cu); /* the pool may outlive the context */
    const VmafPicturePoolMemory mem = {
        .buf_type = m == VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_DEVICE ? VMAF_PICTURE_BUF_DEVICE
                    : m == VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_HOST_PINNED
                        ? VMAF_PICTURE_BUF_HOST_PINNED
                        : VMAF_PICTURE_BUF_HOST,
        .alloc = pool_alloc,
        .release = pool_release,
        .opaque = pm,
    };
    const int err = vmaf_picture_pool_create(&vmaf->cuda_pool, &mem, cfg.pic_params.pix_fmt,
                                             cfg.pic_params.bpc, cfg.pic_params.w,
                                             cfg.pic_params.h, VMAF_CUDA_POOL_PICTURES, 256,
                                             vmaf_context_serial(vmaf), "cuda");
    /* A pool that was made owns pm; one that failed released it. */
    return err;
}

int vmaf_cuda_fetch_preallocated_picture(VmafContext *vmaf, VmafPicture *pic)
{
    if (!vmaf || !pic || !vmaf->cuda_pool) {
        vmaf_error("cuda: no preallocated pictures; call vmaf_cuda_preallocate_pictures "
                   "first");
        return -EINVAL;
    }
    return vmaf_picture_pool_fetch(vmaf->cuda_pool, pic, vmaf_context_drain, vmaf);
}
