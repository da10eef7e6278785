#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "picture_internal.h"

struct VmafRef {
    atomic_int cnt;
};

#define MAX_DIM 65536u

int vmaf_picture_plane_geometry(enum VmafPixelFormat pix_fmt, unsigned w, unsigned h,
                                unsigned pw[3], unsigned ph[3], unsigned *planes)
{
    if (!w || !h || w > MAX_DIM || h > MAX_DIM)
        return -EINVAL;
    unsigned ss_x, ss_y;
    switch (pix_fmt) {
    case VMAF_PIX_FMT_YUV420P: ss_x = 1, ss_y = 1; break;
    case VMAF_PIX_FMT_YUV422P: ss_x = 1, ss_y = 0; break;
    case VMAF_PIX_FMT_YUV444P: ss_x = 0, ss_y = 0; break;
    case VMAF_PIX_FMT_YUV400P: ss_x = 0, ss_y = 0; break;
    default: return -EINVAL;
    }
    *planes = pix_fmt == VMAF_PIX_FMT_YUV400P ? 1 : 3;
    pw[0] = w, ph[0] = h;
    for (int i = 1; i < 3; i++) {
        pw[i] = *planes == 3 ? (w + ss_x) >> ss_x : 0;
        ph[i] = *planes == 3 ? (h + ss_y) >> ss_y : 0;
    }
    return 0;
}


static int setup(VmafPicture *pic, enum VmafPixelFormat pix_fmt, unsigned bpc, unsigned w,
                 unsigned h, enum VmafPictureBufType buf_type)
{
    unsigned planes;
    if (!pic) {
        vmaf_error("picture: the VmafPicture pointer is NULL");
        return -EINVAL;
    }
    if (!vmaf_bpc_supported(bpc)) {
        vmaf_error("picture: %u bits per sample is not supported; give 8, 10, 12 or 16 "
                   "(samples of 10, 12 and 16 bits are 16-bit words)", bpc);
        return -EINVAL;
    }
    memset(pic, 0, sizeof(*pic));
    int err = vmaf_picture_plane_geometry(pix_fmt, w, h, pic->w, pic->h, &planes);
    if (err) {
        if (!w || !h || w > MAX_DIM || h > MAX_DIM)
            vmaf_error("picture: size %ux%u is out of range; width and height must be 1 to %u",
                       w, h, MAX_DIM);
        else
            vmaf_error("picture: pixel format %d is not one of VMAF_PIX_FMT_YUV420P, "
                       "YUV422P, YUV444P or YUV400P", (int)pix_fmt);
        return err;
    }
    pic->pix_fmt = pix_fmt;
    pic->bpc = bpc;
    VmafPicturePriv *priv = calloc(1, sizeof(*priv));
    VmafRef *ref = malloc(sizeof(*ref));
    if (!priv || !ref) {
        free(priv);
        free(ref);
        vmaf_error("out of memory allocating a %ux%u picture", w, h);
        return -ENOMEM;
    }
    atomic_init(&ref->cnt, 1);
    priv->buf_type = buf_type;
    pic->priv = priv;
    pic->ref = ref;
    return 0;
}

size_t vmaf_picture_plane_layout(unsigned planes, const unsigned pw[3], const unsigned ph[3],
                                 unsigned bpc, size_t align, size_t stride[3],
                                 size_t offset[3])
{
    const size_t bytes = bpc > 8 ? 2 : 1;
    size_t total = 0;
    for (unsigned i = 0; i < planes; i++) {
        /* At most 65536 * 2 bytes a row and 65536 rows: no overflow in size_t. */
        stride[i] = ((size_t)pw[i] * bytes + align - 1) & ~(align - 1);
        offset[i] = total;
        total += stride[i] * ph[i];
    }
    return total;
}

/* Host pictures whose last reference went, kept for the next allocation
 * of the same size. A program that allocates a picture a frame (FFmpeg's
 * filter, the vmaf tool) then reuses a few blocks instead of getting fresh
 * pages from the kernel every frame: their page faults, not the copy,
 * were most of a 4K frame's time in the library on some machines. Bounded
 * in count and bytes, and emptied when the last context closes (blocks
 * freed while no context is open wait for the next close). */
#define CACHE_SLOTS 32
/* 512 MiB of samples: a block also holds its alignment slack, so that a
 * picture of exactly 512 MiB is still kept. */
#define CACHE_MAX_BYTES (((size_t)512 << 20) + VMAF_PICTURE_ROW_ALIGN)
static struct {
    pthread_mutex_t lock;
    unsigned n;
    size_t bytes;
    struct {
        void *mem;
        size_t size;
    } e[CACHE_SLOTS];
} cache = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* Under AddressSanitizer a kept block is poisoned, so that a write through
 * a picture after its last unref is still reported, as a use after free
 * would be. */
#if defined(__SANITIZE_ADDRESS__)
#define PICTURE_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PICTURE_ASAN 1
#endif
#endif
#ifdef PICTURE_ASAN
#include <sanitizer/asan_interface.h>
#define CACHE_POISON(m, n) ASAN_POISON_MEMORY_REGION(m, n)
#define CACHE_UNPOISON(m, n) ASAN_UNPOISON_MEMORY_REGION(m, n)
#else
#define CACHE_POISON(m, n) ((void)(m), (void)(n))
#define CACHE_UNPOISON(m, n) ((void)(m), (void)(n))
#endif

/* The newest block of that size; entries stay oldest first. */
static void *cache_take(size_t size)
{
    void *mem = NULL;
    pthread_mutex_lock(&cache.lock);
    for (unsigned i = cache.n; i-- > 0;) {
        if (cache.e[i].size == size) {
            mem = cache.e[i].mem;
            cache.bytes -= size;
            memmove(&cache.e[i], &cache.e[i + 1], sizeof(cache.e[0]) * (cache.n - i - 1));
            cache.n--;
            break;
        }
    }
    pthread_mutex_unlock(&cache.lock);
    if (mem)
        CACHE_UNPOISON(mem, size);
    return mem;
}

/* Keeps mem for reuse, or frees it (the oldest entry makes room). A kept
 * block is zeroed here, by whoever drops the last reference (with worker
 * threads, the worker that scored the frame), so that the next allocation,
 * on the reading thread, costs no pass over the frame. */
static void cache_put(void *mem, size_t size)
{
    void *drop = NULL;
    if (size <= CACHE_MAX_BYTES)
        memset(mem, 0, size);
    pthread_mutex_lock(&cache.lock);
    if (size > CACHE_MAX_BYTES) {
        drop = mem;
    } else {
        while (cache.n && (cache.n == CACHE_SLOTS || cache.bytes + size > CACHE_MAX_BYTES)) {
            /* The oldest goes; one free at a time, under the lock, is rare. */
            CACHE_UNPOISON(cache.e[0].mem, cache.e[0].size);
            free(cache.e[0].mem);
            cache.bytes -= cache.e[0].size;
            memmove(&cache.e[0], &cache.e[1], sizeof(cache.e[0]) * --cache.n);
        }
        CACHE_POISON(mem, size);
        cache.e[cache.n].mem = mem;
        cache.e[cache.n].size = size;
        cache.n++;
        cache.bytes += size;
    }
    pthread_mutex_unlock(&cache.lock);
    free(drop);
}

void vmaf_picture_cache_drain(void)
{
    pthread_mutex_lock(&cache.lock);
    for (unsigned i = 0; i < cache.n; i++) {
        CACHE_UNPOISON(cache.e[i].mem, cache.e[i].size);
        free(cache.e[i].mem);
    }
    cache.n = 0;
    cache.bytes = 0;
    pthread_mutex_unlock(&cache.lock);
}

int vmaf_picture_alloc(VmafPicture *pic, enum VmafPixelFormat pix_fmt, unsigned bpc,
                       unsigned w, unsigned h)
{
    int err = setup(pic, pix_fmt, bpc, w, h, VMAF_PICTURE_BUF_HOST);
    if (err)
        return err;
    const unsigned planes = pic->w[1] ? 3 : 1;
    size_t stride[3], offset[3];
    const size_t total = vmaf_picture_plane_layout(planes, pic->w, pic->h, bpc,
                                                   VMAF_PICTURE_ROW_ALIGN, stride, offset);
    for (unsigned i = 0; i < planes; i++)
        pic->stride[i] = (ptrdiff_t)stride[i];
    /* Zeroed as libvmaf's are: a caller that leaves samples unwritten (say,
     * copies w bytes of a 16-bit row instead of 2w) then gets the same
     * scores on every run, not scores of a picture freed before. A kept
     * block was zeroed when it was kept; a fresh one comes from calloc(),
     * whose large blocks are new pages that the kernel zeroes as they are
     * first written: no pass over memory the caller is about to fill, and
     * none at all over pages it never writes (a stream that promised a
     * huge frame and ended costs only what arrived). The block is aligned
     * by hand, hence the extra row alignment. */
    const size_t size = total + VMAF_PICTURE_ROW_ALIGN;
    uint8_t *block = cache_take(size);
    if (!block)
        block = calloc(1, size);
    if (!block) {
        vmaf_error("out of memory allocating a %ux%u %u-bit picture (%zu bytes)", w, h, bpc,
                   total);
        free(pic->priv);
        free(pic->ref);
        memset(pic, 0, sizeof(*pic));
        return -ENOMEM;
    }
    const uintptr_t a = VMAF_PICTURE_ROW_ALIGN;
    uint8_t *mem = block + ((a - (uintptr_t)block % a) % a);
    for (unsigned i = 0; i < planes; i++)
        pic->data[i] = mem + offset[i];
    VmafPicturePriv *priv = pic->priv;
    priv->block = block;
    priv->size = size;
    return 0;
}

int vmaf_picture_wrap(VmafPicture *pic, enum VmafPixelFormat pix_fmt, unsigned bpc,
                      unsigned w, unsigned h, enum VmafPictureBufType buf_type,
                      const void *mem, size_t mem_size,
                      void (*release)(void *cookie, VmafPicture *pic), void *cookie)
{
    int err = setup(pic, pix_fmt, bpc, w, h, buf_type);
    if (err)
        return err;
    VmafPicturePriv *priv = pic->priv;
    priv->release = release;
    priv->cookie = cookie;
    priv->block = (void *)mem;
    priv->size = mem_size;
    return 0;
}

int vmaf_picture_ref(VmafPicture *dst, const VmafPicture *src)
{
    if (!dst || !src || !src->ref)
        return -EINVAL;
    atomic_fetch_add(&src->ref->cnt, 1);
    *dst = *src;
    return 0;
}

int vmaf_picture_unref(VmafPicture *pic)
{
    if (!pic || !pic->ref) {
        vmaf_error("vmaf_picture_unref: %s", pic ? "the picture holds no reference (never "
                   "allocated, or already unreferenced)" : "the picture pointer is NULL");
        return -EINVAL;
    }
    if (atomic_fetch_sub(&pic->ref->cnt, 1) == 1) {
        VmafPicturePriv *priv = pic->priv;
        if (priv && priv->release)
            priv->release(priv->cookie, pic);
        else if (priv && priv->block)
            cache_put(priv->block, priv->size);
        free(priv);
        free(pic->ref);
    }
    memset(pic, 0, sizeof(*pic));
    return 0;
}

/* A caller who changed a picture's size, depth or stride after it was
 * allocated would have the extractors read past its block: a plane they
 * read must lie inside the memory it was given. In integers, and without
 * overflow: a bad picture's rows may point anywhere (for a device picture,
 * anywhere on the device, where the kernels would fault). */
bool vmaf_picture_plane_fits(const VmafPicture *p, int i)
{
    const VmafPicturePriv *priv = p->priv;
    const size_t row = (size_t)p->w[i] * (p->bpc > 8 ? 2 : 1);
    const ptrdiff_t sd = p->stride[i];
    const size_t stride = sd == PTRDIFF_MIN ? 0 : (size_t)(sd < 0 ? -sd : sd);
    if (stride < row || !stride || !p->data[i] || !p->h[i])
        return false;
    if (!priv)
        return true;
    const uintptr_t lo = (uintptr_t)priv->block, hi = lo + priv->size;
    const uintptr_t at = (uintptr_t)p->data[i];
    unsigned long long span;
    const bool down = sd < 0; /* rows run towards lower addresses */
    return !__builtin_mul_overflow((unsigned long long)(p->h[i] - 1),
                                   (unsigned long long)stride, &span) &&
           at >= lo && at < hi && row <= hi - lo &&
           (down ? span <= at - lo && row <= hi - at
                 : span <= hi - at && row <= hi - at - span);
}
