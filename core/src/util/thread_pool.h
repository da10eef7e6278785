/* A fixed set of worker threads with a bounded job queue. The bound gives
 * back-pressure: a producer that reads frames faster than they are scored
 * waits instead of holding the whole video in memory. */
#ifndef LIBVMAF_SRC_UTIL_THREAD_POOL_H
#define LIBVMAF_SRC_UTIL_THREAD_POOL_H

typedef struct VmafThreadPool VmafThreadPool;

/* n_threads workers, at most queue_max jobs waiting. 0 or negative errno. */
int vmaf_thread_pool_create(VmafThreadPool **pool, unsigned n_threads, unsigned queue_max);

/* Queues fn(arg); blocks while the queue is full. fn owns arg. */
int vmaf_thread_pool_enqueue(VmafThreadPool *pool, void (*fn)(void *arg), void *arg);

/* Returns once every queued job has finished. */
void vmaf_thread_pool_wait(VmafThreadPool *pool);

/* Finishes queued jobs, joins the workers, frees the pool. NULL is a no-op. */
void vmaf_thread_pool_destroy(VmafThreadPool *pool);

#endif /* LIBVMAF_SRC_UTIL_THREAD_POOL_H */
