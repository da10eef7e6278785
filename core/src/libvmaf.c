/*
 * The scoring context: its life (init, close), its sticky error, its
 * scores (per frame and pooled) and its host picture pool. Requests,
 * the start at the first frame and the frames themselves are in
 * context_requests.c, context_start.c and context_frames.c.
 */
#include <errno.h>
#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libvmaf/libvmaf.h"
#include "libvmaf/libvmaf_cuda.h"

#include "config.h"
#include "context.h"
#include "cpu.h"
#include "cuda/cuda_internal.h"
#include "log.h"
#include "picture_internal.h"
#include "picture_pool.h"
#include "util/thread_pool.h"

const char *vmaf_version(void)
{
    return VMAF_VERSION;
}

void vmaf_context_set_error(VmafContext *vmaf, int err)
{
    pthread_mutex_lock(&vmaf->lock);
    if (!vmaf->err)
        vmaf->err = err;
    pthread_mutex_unlock(&vmaf->lock);
}

int vmaf_context_sticky_error(VmafContext *vmaf)
{
    pthread_mutex_lock(&vmaf->lock);
    int err = vmaf->err;
    pthread_mutex_unlock(&vmaf->lock);
    return err;
}

/* A call returns err to the caller: if it is the context's stopping
 * failure, the caller now knows it, and later calls say they are refused. */
int vmaf_context_handed_back(VmafContext *vmaf, int err)
{
    if (err) {
        pthread_mutex_lock(&vmaf->lock);
        if (vmaf->err == err)
            vmaf->err_told = true;
        pthread_mutex_unlock(&vmaf->lock);
    }
    return err;
}

/* The sticky error, for a call that fails because of it. Its reason was
 * logged where it happened (perhaps on a worker thread), and the first call
 * to hand it back adds nothing; each later one says why it is refused, so
 * that a caller who kept going still gets a line for every failed call. */
int vmaf_context_refuse_if_failed(VmafContext *vmaf, const char *call)
{
    pthread_mutex_lock(&vmaf->lock);
    const int err = vmaf->err;
    const bool told = vmaf->err_told;
    vmaf->err_told = err != 0;
    pthread_mutex_unlock(&vmaf->lock);
    if (err && told)
        vmaf_error("%s: refused, the context stopped at an earlier failure (error %d, "
                   "logged then); close it, and use a new context to go on", call, err);
    return err;
}

/* Contexts alive: when the last one closes, the picture blocks kept for
 * reuse are freed. */
static atomic_uint live_contexts;
static atomic_ullong context_serials;

unsigned long long vmaf_context_serial(const VmafContext *vmaf)
{
    return vmaf->serial;
}

int vmaf_init(VmafContext **out, VmafConfiguration cfg)
{
    if (!out) {
        vmaf_error("vmaf_init: the context pointer is NULL");
        return -EINVAL;
    }
    *out = NULL;
    if ((unsigned)cfg.log_level > VMAF_LOG_LEVEL_DEBUG) {
        vmaf_error("vmaf_init: log level %d is out of range 0..4", (int)cfg.log_level);
        return -EINVAL;
    }
    vmaf_log_set_level(cfg.log_level);
    /* More workers than frames in flight could use only cost memory; a
     * consumer passing a large count through (FFmpeg takes any int) still
     * gets a context, as with libvmaf. */
    if (cfg.n_threads > 1024) {
        vmaf_warning("vmaf_init: %u threads requested; using 1024, the most supported",
                     cfg.n_threads);
        cfg.n_threads = 1024;
    }
    vmaf_cpu_set_disabled(cfg.cpumask);
    VmafContext *vmaf = calloc(1, sizeof(*vmaf));
    if (!vmaf) {
        vmaf_error("vmaf_init: out of memory");
        return -ENOMEM;
    }
    vmaf->cfg = cfg;
    vmaf->serial = atomic_fetch_add(&context_serials, 1) + 1;
    int err = vmaf_feature_collector_init(&vmaf->fc);
    if (err) {
        vmaf_error("vmaf_init: out of memory");
        free(vmaf);
        return err;
    }
    pthread_mutex_init(&vmaf->lock, NULL);
    pthread_cond_init(&vmaf->inst_free, NULL);
    atomic_fetch_add(&live_contexts, 1); /* vmaf_close() takes it off */
    if (cfg.n_threads > 0) {
        err = vmaf_thread_pool_create(&vmaf->pool, cfg.n_threads, 2 * cfg.n_threads);
        if (err) {
            vmaf_error("vmaf_init: could not start %u worker threads; ask for fewer, or for 0 "
                       "to score in the calling thread", cfg.n_threads);
            vmaf_close(vmaf);
            return err;
        }
    }
    *out = vmaf;
    return 0;
}

int vmaf_feature_score_at_index(VmafContext *vmaf, const char *feature_name, double *score,
                                unsigned index)
{
    if (!vmaf || !feature_name || !score) {
        vmaf_error("vmaf_feature_score_at_index: the context, the feature name and the score "
                   "pointer must not be NULL");
        return -EINVAL;
    }
    /* A score that is not there is the answer to a question, not a failure
     * to report: callers ask to find out (the tool does). */
    return vmaf_feature_collector_get(vmaf->fc, feature_name, score, index);
}

int vmaf_feature_score_pooled(VmafContext *vmaf, const char *feature_name,
                              enum VmafPoolingMethod pool_method, double *score,
                              unsigned index_low, unsigned index_high)
{
    if (!vmaf || !feature_name || !score) {
        vmaf_error("vmaf_feature_score_pooled: the context, the feature name and the score "
                   "pointer must not be NULL");
        return -EINVAL;
    }
    if (index_low > index_high ||
        pool_method <= VMAF_POOL_METHOD_UNKNOWN || pool_method >= VMAF_POOL_METHOD_NB) {
        vmaf_error("vmaf_feature_score_pooled: %s", index_low > index_high
                   ? "index_low is above index_high" : "unknown pooling method; give "
                   "VMAF_POOL_METHOD_MIN, MAX, MEAN or HARMONIC_MEAN");
        return -EINVAL;
    }
    /* As for vmaf_feature_score_at_index, a score missing in the range is
     * an answer and not logged. */
    double min = 0.0, max = 0.0, sum = 0.0, inv_sum = 0.0;
    unsigned n = 0;
    for (unsigned i = index_low; i <= index_high; i++) {
        /* Frames left out by subsampling are left out of the pool, as the
         * reference does. */
        if (vmaf->cfg.n_subsample > 1 && i % vmaf->cfg.n_subsample)
            goto next;
        double v;
        int err = vmaf_feature_collector_get(vmaf->fc, feature_name, &v, i);
        if (err)
            return err;
        /* Seeded from the first frame counted, as libvmaf v3 does: a NaN
         * there stays the result (no comparison replaces it), and all-NaN
         * gives NaN, not an infinity that no frame had. */
        if (!n || v < min)
            min = v;
        if (!n || v > max)
            max = v;
        sum += v;
        inv_sum += 1.0 / (v + 1.0);
        n++;
    next:
        if (i == 0xffffffffu)
            break;
    }
    if (!n)
        return -EINVAL;
    switch (pool_method) {
    case VMAF_POOL_METHOD_MIN: *score = min; break;
    case VMAF_POOL_METHOD_MAX: *score = max; break;
    case VMAF_POOL_METHOD_MEAN: *score = sum / n; break;
    case VMAF_POOL_METHOD_HARMONIC_MEAN: *score = n / inv_sum - 1.0; break;
    default: return -EINVAL;
    }
    return 0;
}

static void *host_block(void *opaque, size_t size, unsigned i, unsigned n, int *err, char *why,
                        size_t why_len)
{
    (void)opaque, (void)i, (void)n;
    *err = -ENOMEM;
    snprintf(why, why_len, "out of memory");
    void *m = aligned_alloc(VMAF_PICTURE_ROW_ALIGN,
                           (size + VMAF_PICTURE_ROW_ALIGN - 1) / VMAF_PICTURE_ROW_ALIGN *
                               VMAF_PICTURE_ROW_ALIGN);
    if (m)
        memset(m, 0, size); /* as vmaf_picture_alloc()'s, padding included */
    return m;
}

static void free_host_blocks(void *opaque, void *const *blocks, unsigned n)
{
    (void)opaque;
    for (unsigned i = 0; i < n; i++)
        free(blocks[i]);
}

int vmaf_preallocate_pictures(VmafContext *vmaf, VmafPictureConfiguration cfg)
{
    if (!vmaf || vmaf->host_pool) {
        vmaf_error("vmaf_preallocate_pictures: %s", vmaf ? "pictures were preallocated "
                   "already for this context" : "the context must not be NULL");
        return -EINVAL;
    }
    const VmafPicturePoolMemory mem = { .buf_type = VMAF_PICTURE_BUF_HOST,
                                        .alloc = host_block,
                                        .release = free_host_blocks };
    return vmaf_picture_pool_create(&vmaf->host_pool, &mem, cfg.pic_params.pix_fmt,
                                    cfg.pic_params.bpc, cfg.pic_params.w, cfg.pic_params.h,
                                    cfg.pic_cnt, VMAF_PICTURE_ROW_ALIGN, vmaf->serial,
                                    "vmaf_preallocate_pictures");
}

int vmaf_fetch_preallocated_picture(VmafContext *vmaf, VmafPicture *pic)
{
    if (!vmaf || !pic || !vmaf->host_pool) {
        vmaf_error("vmaf_fetch_preallocated_picture: %s",
                   vmaf && pic ? "no preallocated pictures; call vmaf_preallocate_pictures "
                                 "first"
                               : "the context and the picture must not be NULL");
        return -EINVAL;
    }
    return vmaf_picture_pool_fetch(vmaf->host_pool, pic, vmaf_context_drain, vmaf);
}

int vmaf_close(VmafContext *vmaf)
{
    if (!vmaf)
        return 0;
    int err = 0;
    if (vmaf->started && !vmaf->flushed)
        err = vmaf_context_flush(vmaf, true);
    vmaf_thread_pool_destroy(vmaf->pool);
    for (unsigned i = 0; i < vmaf->req_cnt; i++) {
        vmaf_request_close(&vmaf->req[i]);
        vmaf_feature_dictionary_free(&vmaf->req[i].opts);
    }
    free(vmaf->req);
    vmaf_context_forget_refs(vmaf);
    for (unsigned i = 0; i < vmaf->score_name_cnt; i++)
        free(vmaf->score_name[i].name);
    free(vmaf->score_name);
    /* After the extractors that read them: their kernels have ended. */
    vmaf_cuda_frames_free(vmaf->cuda_frames);
    vmaf_feature_collector_destroy(vmaf->fc);
    vmaf_picture_pool_free(vmaf->cuda_pool);
    vmaf_picture_pool_free(vmaf->host_pool);
    vmaf_cuda_state_free(vmaf->cuda);
    pthread_cond_destroy(&vmaf->inst_free);
    pthread_mutex_destroy(&vmaf->lock);
    free(vmaf);
    if (atomic_fetch_sub(&live_contexts, 1) == 1)
        vmaf_picture_cache_drain();
    return err;
}
