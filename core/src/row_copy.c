#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "row_copy.h"

struct VmafRowCopier {
    pthread_mutex_t run_lock; /* one run at a time */
    pthread_mutex_t lock;     /* the fields below */
    pthread_cond_t go;        /* a new run (generation), or stop */
    pthread_cond_t done;      /* the last worker finished its share */
    VmafRowCopy plane[VMAF_ROW_COPY_MAX];
    unsigned nplanes;
    size_t total_rows;
    unsigned long generation;
    unsigned pending; /* workers still copying this run */
    bool stop;
    unsigned nworkers;
    pthread_t *thread;
};

typedef struct Worker {
    VmafRowCopier *c;
    unsigned k; /* participant number: 0 is the caller */
} Worker;

/* Participant k of n copies rows [total k / n, total (k + 1) / n) of the
 * planes taken one after the other: contiguous spans of memory each. */
static void copy_share(const VmafRowCopy *plane, unsigned nplanes, size_t total, unsigned k,
                       unsigned n)
{
    const size_t first = total * k / n, end = total * (k + 1) / n;
    size_t base = 0; /* the first row of plane i in the sequence */
    for (unsigned i = 0; i < nplanes; base += plane[i].rows, i++) {
        if (end <= base)
            break;
        const VmafRowCopy *p = &plane[i];
        const size_t lo = first > base ? first - base : 0;
        const size_t hi = end - base < p->rows ? end - base : p->rows;
        for (size_t y = lo; y < hi; y++)
            memcpy((char *)p->dst + y * p->dst_stride,
                   (const char *)p->src + (ptrdiff_t)y * p->src_stride, p->row_bytes);
    }
}

static void *worker(void *arg)
{
    Worker *w = arg;
    VmafRowCopier *c = w->c;
    unsigned long seen = 0;
    pthread_mutex_lock(&c->lock);
    for (;;) {
        while (c->generation == seen && !c->stop)
            pthread_cond_wait(&c->go, &c->lock);
        if (c->stop)
            break;
        seen = c->generation;
        pthread_mutex_unlock(&c->lock);
        /* the run's planes stay put until every worker has reported */
        copy_share(c->plane, c->nplanes, c->total_rows, w->k, c->nworkers + 1);
        pthread_mutex_lock(&c->lock);
        if (--c->pending == 0)
            pthread_cond_signal(&c->done);
    }
    pthread_mutex_unlock(&c->lock);
    free(w);
    return NULL;
}

static void stop_workers(VmafRowCopier *c)
{
    pthread_mutex_lock(&c->lock);
    c->stop = true;
    pthread_cond_broadcast(&c->go);
    pthread_mutex_unlock(&c->lock);
    for (unsigned i = 0; i < c->nworkers; i++)
        pthread_join(c->thread[i], NULL);
    c->nworkers = 0;
}

int vmaf_row_copier_create(VmafRowCopier **out, unsigned threads)
{
    if (!out)
        return -EINVAL;
    *out = NULL;
    if (!threads)
        return -EINVAL;
    VmafRowCopier *c = calloc(1, sizeof(*c));
    if (!c)
        return -ENOMEM;
    c->thread = calloc(threads, sizeof(*c->thread));
    if (!c->thread) {
        free(c);
        return -ENOMEM;
    }
    pthread_mutex_init(&c->run_lock, NULL);
    pthread_mutex_init(&c->lock, NULL);
    pthread_cond_init(&c->go, NULL);
    pthread_cond_init(&c->done, NULL);
    int err = 0;
    for (unsigned k = 1; k < threads && !err; k++) {
        Worker *w = malloc(sizeof(*w));
        if (!w) {
            err = -ENOMEM;
            break;
        }
        *w = (Worker){.c = c, .k = k};
        if (pthread_create(&c->thread[c->nworkers], NULL, worker, w)) {
            free(w);
            err = -EAGAIN;
            break;
        }
        c->nworkers++;
    }
    if (err) {
        vmaf_row_copier_destroy(c);
        return err;
    }
    *out = c;
    return 0;
}

unsigned vmaf_row_copier_default_threads(void)
{
    long n = 0;
    cpu_set_t set;
    if (!sched_getaffinity(0, sizeof(set), &set))
        n = CPU_COUNT(&set);
    if (n <= 0)
        n = sysconf(_SC_NPROCESSORS_ONLN);
    n /= 2;
    return n < 1 ? 1u : n > 8 ? 8u : (unsigned)n;
}

unsigned vmaf_row_copier_threads(const VmafRowCopier *c)
{
    return c ? c->nworkers + 1 : 1u;
}

int vmaf_row_copier_run(VmafRowCopier *c, const VmafRowCopy *planes, unsigned n)
{
    if (n > VMAF_ROW_COPY_MAX || (n && !planes))
        return -EINVAL;
    size_t rows = 0, bytes = 0;
    for (unsigned i = 0; i < n; i++) {
        rows += planes[i].rows;
        bytes += planes[i].rows * planes[i].row_bytes;
    }
    if (!c || !c->nworkers || bytes < VMAF_ROW_COPY_MIN_PARALLEL) {
        copy_share(planes, n, rows, 0, 1);
        return 0;
    }
    pthread_mutex_lock(&c->run_lock);
    pthread_mutex_lock(&c->lock);
    memcpy(c->plane, planes, n * sizeof(*planes));
    c->nplanes = n;
    c->total_rows = rows;
    c->pending = c->nworkers;
    c->generation++;
    pthread_cond_broadcast(&c->go);
    pthread_mutex_unlock(&c->lock);
    copy_share(c->plane, n, rows, 0, c->nworkers + 1);
    pthread_mutex_lock(&c->lock);
    while (c->pending)
        pthread_cond_wait(&c->done, &c->lock);
    pthread_mutex_unlock(&c->lock);
    pthread_mutex_unlock(&c->run_lock);
    return 0;
}

void vmaf_row_copier_destroy(VmafRowCopier *c)
{
    if (!c)
        return;
    stop_workers(c);
    pthread_cond_destroy(&c->go);
    pthread_cond_destroy(&c->done);
    pthread_mutex_destroy(&c->lock);
    pthread_mutex_destroy(&c->run_lock);
    free(c->thread);
    free(c);
}
