/* The frame workers' pool: every job runs once, the queue's bound holds
 * the producer back instead of failing, wait returns only when every job
 * is done, and the workers block signals (a program's Ctrl-C must reach
 * the program's own threads, one of which may wait in a read that the
 * signal is to interrupt) while the caller's mask is left as it was. */
#include <pthread.h>
#include <signal.h>

#include "check.h"
#include "util/thread_pool.h"

typedef struct Count {
    pthread_mutex_t lock;
    unsigned done, sigint_open;
} Count;

static void job(void *arg)
{
    Count *c = arg;
    sigset_t cur;
    pthread_sigmask(SIG_BLOCK, NULL, &cur);
    pthread_mutex_lock(&c->lock);
    c->done++;
    c->sigint_open += !sigismember(&cur, SIGINT) || !sigismember(&cur, SIGTERM);
    pthread_mutex_unlock(&c->lock);
}

int main(void)
{
    for (unsigned threads = 1; threads <= 4; threads++) {
        sigset_t before, after;
        pthread_sigmask(SIG_BLOCK, NULL, &before);
        VmafThreadPool *pool = NULL;
        CHECK_INT(vmaf_thread_pool_create(&pool, threads, 2), 0);
        pthread_sigmask(SIG_BLOCK, NULL, &after);
        CHECK(sigismember(&before, SIGINT) == sigismember(&after, SIGINT));
        CHECK(sigismember(&before, SIGTERM) == sigismember(&after, SIGTERM));
        Count c = {.done = 0};
        pthread_mutex_init(&c.lock, NULL);
        for (int i = 0; i < 100; i++)
            CHECK_INT(vmaf_thread_pool_enqueue(pool, job, &c), 0);
        vmaf_thread_pool_wait(pool);
        pthread_mutex_lock(&c.lock);
        CHECK_INT(c.done, 100);
        CHECK_INT(c.sigint_open, 0);
        pthread_mutex_unlock(&c.lock);
        vmaf_thread_pool_destroy(pool);
        pthread_mutex_destroy(&c.lock);
    }
    vmaf_thread_pool_destroy(NULL);
    return check_result("thread_pool");
}
