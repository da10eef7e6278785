#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "log.h"
#include "picture_pool.h"

typedef struct PoolEntry {
    struct VmafPicturePool *pool;
    void *mem;
    bool busy;
    /* References the library holds (vmaf_picture_pool_hold): they come
     * back when their frame is scored. A busy entry with none is the
     * caller's, however many references the caller keeps. */
    unsigned holds;
} PoolEntry;

struct VmafPicturePool {
    VmafPicturePoolMemory mem;
    const char *who;
    unsigned long long owner;
    enum VmafPixelFormat pix_fmt;
    unsigned bpc, w, h;
    unsigned planes;
    size_t stride[3], offset[3];
    size_t total; /* bytes of each entry's block */
    PoolEntry *entry;
    unsigned n, outstanding;
    /* Library references being dropped (vmaf_picture_pool_unhold): their
     * entry may already count no hold while its picture is still
     * referenced. A fetch waits for them, and they keep the pool alive. */
    unsigned unholding;
    bool closing;
    pthread_mutex_t lock;
    pthread_cond_t freed; /* an entry the library held came back */
};

static void pool_destroy(VmafPicturePool *p)
{
    void **blocks = calloc(p->n ? p->n : 1, sizeof(*blocks));
    for (unsigned i = 0; blocks && i < p->n; i++)
        blocks[i] = p->entry[i].mem;
    /* Out of memory here, the blocks one at a time rather than leaked. */
    for (unsigned i = 0; !blocks && i < p->n; i++)
        p->mem.release(p->mem.opaque, &p->entry[i].mem, 1);
    if (blocks)
        p->mem.release(p->mem.opaque, blocks, p->n);
    free(blocks);
    pthread_cond_destroy(&p->freed);
    pthread_mutex_destroy(&p->lock);
    free(p->entry);
    free(p);
}

/* With the pool's lock held, after a picture came back or the pool was
 * closed: wakes a waiting fetch, unlocks, and frees a closed pool once
 * nothing of it is in use. */
static void unlock_and_settle(VmafPicturePool *p)
{
    const bool unused = p->closing && p->outstanding == 0 && p->unholding == 0;
    pthread_cond_broadcast(&p->freed);
    pthread_mutex_unlock(&p->lock);
    if (unused)
        pool_destroy(p);
}

void vmaf_picture_pool_free(VmafPicturePool *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->lock);
    p->closing = true;
    unlock_and_settle(p);
}

static void pool_release(void *cookie, VmafPicture *pic)
{
    (void)pic;
    PoolEntry *e = cookie;
    VmafPicturePool *p = e->pool;
    pthread_mutex_lock(&p->lock);
    e->busy = false;
    e->holds = 0;
    p->outstanding--;
    unlock_and_settle(p);
}

/* The pool entry behind a picture, or NULL for any other picture. */
static PoolEntry *entry_of(const VmafPicture *pic)
{
    const VmafPicturePriv *priv = pic && pic->ref ? (const VmafPicturePriv *)pic->priv : NULL;
    return priv && priv->release == pool_release ? priv->cookie : NULL;
}

unsigned long long vmaf_picture_pool_owner(const VmafPicture *pic)
{
    const PoolEntry *e = entry_of(pic);
    return e ? e->pool->owner : 0;
}

void vmaf_picture_pool_hold(VmafPicture *dst, const VmafPicture *src)
{
    vmaf_picture_ref(dst, src);
    PoolEntry *e = entry_of(src);
    if (!e)
        return;
    pthread_mutex_lock(&e->pool->lock);
    e->holds++;
    pthread_mutex_unlock(&e->pool->lock);
}

typedef void (*PauseFn)(void);
static _Atomic(PauseFn) unhold_pause;

void vmaf_picture_pool_pause_unholds(void (*pause)(void))
{
    atomic_store(&unhold_pause, pause);
}

void vmaf_picture_pool_unhold(VmafPicture *pic)
{
    PoolEntry *e = entry_of(pic);
    if (!e) {
        vmaf_picture_unref(pic);
        return;
    }
    /* The hold goes before the reference, and between the two the entry
     * would look like the caller's to a fetch on another thread, which
     * would answer -EBUSY although the picture is about to come back. The
     * count of unholds in progress makes that fetch wait for the end, and
     * keeps the pool alive through an unreference that may be its last. */
    VmafPicturePool *p = e->pool;
    pthread_mutex_lock(&p->lock);
    if (e->holds)
        e->holds--;
    p->unholding++;
    pthread_mutex_unlock(&p->lock);
    const PauseFn pause = atomic_load(&unhold_pause);
    if (pause)
        pause();
    vmaf_picture_unref(pic);
    pthread_mutex_lock(&p->lock);
    p->unholding--;
    unlock_and_settle(p);
}

static int alloc_entries(VmafPicturePool *p, unsigned count)
{
    p->entry = calloc(count, sizeof(*p->entry));
    if (!p->entry) {
        vmaf_error("%s: out of memory allocating the picture pool", p->who);
        return -ENOMEM;
    }
    for (unsigned i = 0; i < count; i++) {
        PoolEntry *e = &p->entry[i];
        e->pool = p;
        p->n = i + 1;
        int err = -ENOMEM;
        char why[256] = "out of memory";
        e->mem = p->mem.alloc(p->mem.opaque, p->total, i, count, &err, why, sizeof(why));
        if (!e->mem) {
            vmaf_error("%s: cannot allocate preallocated picture %u of %u (%zu bytes): %s; "
                       "preallocate fewer or smaller pictures", p->who, i + 1, count, p->total,
                       why);
            return err;
        }
    }
    return 0;
}

int vmaf_picture_pool_create(VmafPicturePool **out, const VmafPicturePoolMemory *mem,
                             enum VmafPixelFormat pix_fmt, unsigned bpc, unsigned w, unsigned h,
                             unsigned count, size_t row_align, unsigned long long owner,
                             const char *who)
{
    *out = NULL;
    unsigned pw[3], ph[3], planes;
    int err = 0;
    if (!vmaf_bpc_supported(bpc) ||
        vmaf_picture_plane_geometry(pix_fmt, w, h, pw, ph, &planes)) {
        vmaf_error("%s: cannot preallocate %ux%u %u-bit pictures of format %d; sizes are "
                   "1..65536, depths 8, 10, 12 or 16", who, w, h, bpc, (int)pix_fmt);
        err = -EINVAL;
    } else if (count < 1 || count > VMAF_PICTURE_POOL_MAX) {
        vmaf_error("%s: %u preallocated pictures asked for; give 1 to %d", who, count,
                   VMAF_PICTURE_POOL_MAX);
        err = -EINVAL;
    }
    VmafPicturePool *p = err ? NULL : calloc(1, sizeof(*p));
    if (!p) {
        if (!err)
            vmaf_error("%s: out of memory allocating the picture pool", who);
        mem->release(mem->opaque, NULL, 0); /* the memory's owner goes with the pool */
        return err ? err : -ENOMEM;
    }
    p->mem = *mem;
    p->who = who;
    p->owner = owner;
    p->pix_fmt = pix_fmt;
    p->bpc = bpc;
    p->w = w;
    p->h = h;
    p->planes = planes;
    p->total = vmaf_picture_plane_layout(planes, pw, ph, bpc, row_align, p->stride, p->offset);
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->freed, NULL);
    err = alloc_entries(p, count);
    if (err) {
        pool_destroy(p);
        return err;
    }
    *out = p;
    return 0;
}

/* With the lock held and every entry out: whether the library holds one
 * (so that waiting will bring it back). */
static bool library_holds(const VmafPicturePool *p)
{
    bool holds = p->unholding > 0;
    for (unsigned i = 0; i < p->n; i++)
        holds |= p->entry[i].busy && p->entry[i].holds;
    return holds;
}

/* Takes a free entry, or NULL after logging why none will come. */
static PoolEntry *take_entry(VmafPicturePool *p, void (*drain)(void *), void *drain_arg)
{
    pthread_mutex_lock(&p->lock);
    bool drained = !drain;
    for (;;) {
        for (unsigned i = 0; i < p->n; i++) {
            PoolEntry *e = &p->entry[i];
            if (!e->busy) {
                e->busy = true;
                p->outstanding++;
                pthread_mutex_unlock(&p->lock);
                return e;
            }
        }
        if (!drained) {
            /* Device extractors give their pictures back only when their
             * frames are collected, on this (the caller's) thread. */
            drained = true;
            pthread_mutex_unlock(&p->lock);
            drain(drain_arg);
            pthread_mutex_lock(&p->lock);
            continue;
        }
        /* The rest are held by CPU workers, which give theirs back when
         * their frame is scored, or by the caller, who gives none back
         * while it waits here. */
        if (library_holds(p)) {
            pthread_cond_wait(&p->freed, &p->lock);
            continue;
        }
        const unsigned held = p->outstanding;
        pthread_mutex_unlock(&p->lock);
        vmaf_error("%s: all %u preallocated pictures are held by the caller (fetched and not "
                   "yet given to vmaf_read_pictures()); hand one in or unreference it before "
                   "fetching another", p->who, held);
        return NULL;
    }
}

int vmaf_picture_pool_fetch(VmafPicturePool *p, VmafPicture *pic, void (*drain)(void *),
                            void *drain_arg)
{
    PoolEntry *e = take_entry(p, drain, drain_arg);
    if (!e)
        return -EBUSY;
    int err = vmaf_picture_wrap(pic, p->pix_fmt, p->bpc, p->w, p->h, p->mem.buf_type, e->mem,
                                p->total, pool_release, e);
    if (err) {
        pthread_mutex_lock(&p->lock);
        e->busy = false;
        p->outstanding--;
        pthread_mutex_unlock(&p->lock);
        return err; /* vmaf_picture_wrap() said why */
    }
    for (unsigned i = 0; i < p->planes; i++) {
        pic->data[i] = (char *)e->mem + p->offset[i];
        pic->stride[i] = (ptrdiff_t)p->stride[i];
    }
    return 0;
}
