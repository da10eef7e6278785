#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>

#include "util/thread_pool.h"

typedef struct Job {
    void (*fn)(void *arg);
    void *arg;
    struct Job *next;
} Job;

struct VmafThreadPool {
    pthread_mutex_t lock;
    pthread_cond_t work;  /* a job was queued, or stop */
    pthread_cond_t space; /* the queue shrank */
    pthread_cond_t idle;  /* nothing queued and nothing running */
    Job *head, *tail;
    unsigned queued, running, queue_max;
    bool stop;
    pthread_t *thread;
    unsigned n_threads;
};

static void *worker(void *p)
{
    VmafThreadPool *pool = p;
    pthread_mutex_lock(&pool->lock);
    for (;;) {
        while (!pool->head && !pool->stop)
            pthread_cond_wait(&pool->work, &pool->lock);
        if (!pool->head)
            break; /* stop, and the queue is drained */
        Job *job = pool->head;
        pool->head = job->next;
        if (!pool->head)
            pool->tail = NULL;
        pool->queued--;
        pool->running++;
        pthread_cond_signal(&pool->space);
        pthread_mutex_unlock(&pool->lock);

        job->fn(job->arg);
        free(job);

        pthread_mutex_lock(&pool->lock);
        pool->running--;
        if (!pool->head && !pool->running)
            pthread_cond_broadcast(&pool->idle);
    }
    pthread_mutex_unlock(&pool->lock);
    return NULL;
}

int vmaf_thread_pool_create(VmafThreadPool **out, unsigned n_threads, unsigned queue_max)
{
    if (!out || !n_threads || !queue_max)
        return -EINVAL;
    VmafThreadPool *pool = calloc(1, sizeof(*pool));
    if (!pool)
        return -ENOMEM;
    pool->thread = calloc(n_threads, sizeof(*pool->thread));
    if (!pool->thread) {
        free(pool);
        return -ENOMEM;
    }
    pool->queue_max = queue_max;
    pthread_mutex_init(&pool->lock, NULL);
    pthread_cond_init(&pool->work, NULL);
    pthread_cond_init(&pool->space, NULL);
    pthread_cond_init(&pool->idle, NULL);
    /* Workers block every signal (they inherit the mask in force at their
     * creation): a process-directed signal, such as a program's Ctrl-C,
     * belongs to the program's threads, one of which may be blocked in a
     * read the signal must interrupt. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    unsigned started = 0;
    while (started < n_threads && !pthread_create(&pool->thread[started], NULL, worker, pool))
        started++;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (started < n_threads) {
        pool->n_threads = started;
        vmaf_thread_pool_destroy(pool);
        return -EAGAIN;
    }
    pool->n_threads = n_threads;
    *out = pool;
    return 0;
}

int vmaf_thread_pool_enqueue(VmafThreadPool *pool, void (*fn)(void *arg), void *arg)
{
    Job *job = malloc(sizeof(*job));
    if (!job)
        return -ENOMEM;
    job->fn = fn;
    job->arg = arg;
    job->next = NULL;
    pthread_mutex_lock(&pool->lock);
    while (pool->queued >= pool->queue_max)
        pthread_cond_wait(&pool->space, &pool->lock);
    if (pool->tail)
        pool->tail->next = job;
    else
        pool->head = job;
    pool->tail = job;
    pool->queued++;
    pthread_cond_signal(&pool->work);
    pthread_mutex_unlock(&pool->lock);
    return 0;
}

void vmaf_thread_pool_wait(VmafThreadPool *pool)
{
    pthread_mutex_lock(&pool->lock);
    while (pool->head || pool->running)
        pthread_cond_wait(&pool->idle, &pool->lock);
    pthread_mutex_unlock(&pool->lock);
}

void vmaf_thread_pool_destroy(VmafThreadPool *pool)
{
    if (!pool)
        return;
    pthread_mutex_lock(&pool->lock);
    pool->stop = true;
    pthread_cond_broadcast(&pool->work);
    pthread_mutex_unlock(&pool->lock);
    for (unsigned i = 0; i < pool->n_threads; i++)
        pthread_join(pool->thread[i], NULL);
    pthread_cond_destroy(&pool->work);
    pthread_cond_destroy(&pool->space);
    pthread_cond_destroy(&pool->idle);
    pthread_mutex_destroy(&pool->lock);
    free(pool->thread);
    free(pool);
}
