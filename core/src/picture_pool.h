/*
 * Preallocated pictures of one geometry that a caller fetches, fills and
 * hands to vmaf_read_pictures(), and that come back when their last
 * reference goes: the host pool of vmaf_preallocate_pictures() and the
 * CUDA backend's device, pinned or host pool share this one mechanism,
 * which differs only in where the memory comes from.
 */
#ifndef LIBVMAF_SRC_PICTURE_POOL_H
#define LIBVMAF_SRC_PICTURE_POOL_H

#include <stdbool.h>
#include <stddef.h>

#include "libvmaf/picture.h"

#include "picture_internal.h"

typedef struct VmafPicturePool VmafPicturePool;

/* Where a pool's blocks come from. */
typedef struct VmafPicturePoolMemory {
    enum VmafPictureBufType buf_type;
    /* Block i of n, of size bytes, aligned for the rows; NULL with the
     * reason in why (an errno in *err). */
    void *(*alloc)(void *opaque, size_t size, unsigned i, unsigned n, int *err, char *why,
                   size_t why_len);
    /* Frees every block (NULL entries included) and whatever opaque
     * holds, once, when the pool goes: at its free, at the last reference
     * of a picture still out, or when create fails (then n may be 0). */
    void (*release)(void *opaque, void *const *blocks, unsigned n);
    void *opaque;
} VmafPicturePoolMemory;

/* The most pictures one pool holds. */
#define VMAF_PICTURE_POOL_MAX 256

/* A pool of count pictures, rows aligned to row_align bytes (a power of
 * two), owned by `owner` (pictures of another owner's pool are refused by
 * the context). who names it in messages ("cuda", "vmaf"). The pool takes
 * mem->opaque over, also when it fails. 0, -EINVAL (logged: geometry or
 * count), or the allocator's error (logged). */
int vmaf_picture_pool_create(VmafPicturePool **out, const VmafPicturePoolMemory *mem,
                             enum VmafPixelFormat pix_fmt, unsigned bpc, unsigned w, unsigned h,
                             unsigned count, size_t row_align, unsigned long long owner,
                             const char *who);

/* Takes a free picture. When every one is out: drain(arg) first (device
 * work that holds pictures is collected on the caller's thread), then a
 * wait while the library holds any (a worker's frame gives it back); when
 * the caller holds them all, -EBUSY (logged) rather than a wait for ever. */
int vmaf_picture_pool_fetch(VmafPicturePool *p, VmafPicture *pic, void (*drain)(void *),
                            void *drain_arg);

/* The pool goes once no picture of it is referenced. NULL is a no-op. */
void vmaf_picture_pool_free(VmafPicturePool *p);

/* The library's own references to a pool picture (a queued frame's):
 * vmaf_picture_pool_hold() after taking one, vmaf_picture_pool_unhold()
 * in place of dropping it. A fetch from a dry pool waits only while such
 * references exist, since only they come back without the caller. Any
 * other picture is referenced and unreferenced plainly. */
void vmaf_picture_pool_hold(VmafPicture *dst, const VmafPicture *src);
void vmaf_picture_pool_unhold(VmafPicture *pic);

/* Tests only: unhold calls pause() between giving up its hold and
 * dropping its reference, so that a test can fetch in that instant; NULL
 * turns it off. Process-wide. */
void vmaf_picture_pool_pause_unholds(void (*pause)(void));

/* The owner of the pool a picture comes from; 0 for any other picture. */
unsigned long long vmaf_picture_pool_owner(const VmafPicture *pic);

#endif /* LIBVMAF_SRC_PICTURE_POOL_H */
