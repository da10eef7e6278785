#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "input/pair.h"

struct PairReader {
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    InputContext *dist;
    volatile sig_atomic_t *interrupted;
    /* The job, while one is posted: read a frame into pic, open open_path
     * (with open_raw) into dist, or skip a frame. */
    VmafPicture *pic;
    const char *open_path;
    const InputRawParams *open_raw;
    bool skip;
    bool busy;        /* a job is posted or being read */
    bool quit;
    int result;
    pthread_t caller;   /* the thread that reads the reference */
    bool ref_busy;      /* the caller is reading the reference */
    bool kicked_caller; /* this job failed and interrupted the caller's read */
};

static void on_sigusr1(int sig)
{
    (void)sig; /* only there to make a blocked read return EINTR */
}

int pair_reader_signal_setup(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_sigusr1;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0; /* no SA_RESTART: the read returns EINTR */
    return sigaction(SIGUSR1, &sa, NULL) ? -errno : 0;
}

/* Waits on pr->cond (pr->lock held) for at most 20 ms. */
static void wait_a_little(PairReader *pr)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    t.tv_nsec += 20 * 1000 * 1000;
    if (t.tv_nsec >= 1000000000L) {
        t.tv_sec++;
        t.tv_nsec -= 1000000000L;
    }
    pthread_cond_timedwait(&pr->cond, &pr->lock, &t);
}

static void *reader_main(void *arg)
{
    PairReader *pr = arg;
    sigset_t mask;
    sigfillset(&mask);
    sigdelset(&mask, SIGUSR1);
    pthread_sigmask(SIG_SETMASK, &mask, NULL);
    pthread_mutex_lock(&pr->lock);
    for (;;) {
        while (!pr->pic && !pr->open_path && !pr->skip && !pr->quit)
            pthread_cond_wait(&pr->cond, &pr->lock);
        if (pr->quit)
            break;
        VmafPicture *pic = pr->pic;
        const char *path = pr->open_path;
        const InputRawParams *raw = pr->open_raw;
        const bool skip = pr->skip;
        pthread_mutex_unlock(&pr->lock);
        const int r = path ? input_open(pr->dist, path, "distorted", raw)
                      : skip ? input_skip_frame(pr->dist)
                             : input_read_frame(pr->dist, pic);
        pthread_mutex_lock(&pr->lock);
        pr->result = r;
        pr->pic = NULL;
        pr->open_path = NULL;
        pr->skip = false;
        pr->busy = false;
        pthread_cond_broadcast(&pr->cond);
        /* Both inputs may come from one writer that now waits for this
         * input to be drained before it writes the reference's next bytes:
         * the caller's read would wait forever. Interrupt it, again and
         * again, since one signal may come just before the read begins. */
        while (r < 0 && pr->ref_busy && !pr->pic && !pr->open_path && !pr->skip && !pr->quit) {
            pr->kicked_caller = true;
            pthread_kill(pr->caller, SIGUSR1);
            wait_a_little(pr);
        }
    }
    pthread_mutex_unlock(&pr->lock);
    return NULL;
}

int pair_reader_start(PairReader **out, InputContext *dist, volatile sig_atomic_t *interrupted)
{
    *out = NULL;
    PairReader *pr = calloc(1, sizeof(*pr));
    if (!pr)
        return -ENOMEM;
    pr->dist = dist;
    pr->interrupted = interrupted;
    pthread_mutex_init(&pr->lock, NULL);
    pthread_cond_init(&pr->cond, NULL);
    /* Created with every signal blocked; the thread then opens SIGUSR1. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    const int e = pthread_create(&pr->thread, NULL, reader_main, pr);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (e) {
        pthread_cond_destroy(&pr->cond);
        pthread_mutex_destroy(&pr->lock);
        free(pr);
        return -e;
    }
    *out = pr;
    return 0;
}

/* The reference's part of a job, in the calling thread. */
typedef struct RefJob {
    InputContext *ref;
    VmafPicture *pic;   /* read a frame into it, or */
    const char *path;   /* open this path, or */
    const InputRawParams *raw;
    bool skip;          /* skip a frame */
} RefJob;

static int ref_job(const RefJob *j)
{
    return j->path ? input_open(j->ref, j->path, "reference", j->raw)
           : j->skip ? input_skip_frame(j->ref)
                     : input_read_frame(j->ref, j->pic);
}

/* Posts the distorted input's job, does the reference's, and waits for
 * both, interrupting the other side's blocked read when one side fails. */
static void pair_run(PairReader *pr, const RefJob *rj, VmafPicture *dist_pic,
                     const char *dist_path, const InputRawParams *raw, int r[2])
{
    pthread_mutex_lock(&pr->lock);
    pr->pic = dist_pic;
    pr->open_path = dist_path;
    pr->open_raw = raw;
    pr->skip = rj->skip;
    pr->busy = true;
    pr->caller = pthread_self();
    pr->ref_busy = true;
    pr->kicked_caller = false;
    pthread_cond_broadcast(&pr->cond);
    pthread_mutex_unlock(&pr->lock);

    r[0] = ref_job(rj);

    pthread_mutex_lock(&pr->lock);
    pr->ref_busy = false;
    pthread_cond_broadcast(&pr->cond);
    bool kicked = false;
    while (pr->busy) {
        if (*pr->interrupted || r[0] < 0) {
            /* Its read may be blocked on a stalled pipe, or on one whose
             * writer waits for the failed reference to be drained:
             * interrupt it, again and again, since one signal may come
             * just before the read begins. */
            kicked = r[0] < 0;
            pthread_kill(pr->thread, SIGUSR1);
        }
        wait_a_little(pr);
    }
    r[1] = pr->result;
    /* The input that failed first has the reason; the other's read was
     * interrupted on its account. */
    if (pr->kicked_caller && r[0] < 0 && r[1] < 0)
        r[0] = -ECANCELED;
    else if (kicked && r[1] < 0)
        r[1] = -ECANCELED;
    pthread_mutex_unlock(&pr->lock);
}

void pair_read(PairReader *pr, InputContext *ref, VmafPicture *ref_pic, InputContext *dist,
               VmafPicture *dist_pic, int r[2])
{
    if (!pr) {
        r[0] = input_read_frame(ref, ref_pic);
        r[1] = r[0] < 0 ? 0 : input_read_frame(dist, dist_pic);
        return;
    }
    const RefJob rj = {.ref = ref, .pic = ref_pic};
    pair_run(pr, &rj, dist_pic, NULL, NULL, r);
}

void pair_skip(PairReader *pr, InputContext *ref, InputContext *dist, int r[2])
{
    if (!pr) {
        r[0] = input_skip_frame(ref);
        r[1] = r[0] < 0 ? 0 : input_skip_frame(dist);
        return;
    }
    const RefJob rj = {.ref = ref, .skip = true};
    pair_run(pr, &rj, NULL, NULL, NULL, r);
}

void pair_open(PairReader *pr, InputContext *ref, const char *ref_path, InputContext *dist,
               const char *dist_path, const InputRawParams *raw, int r[2])
{
    if (!pr) {
        r[0] = input_open(ref, ref_path, "reference", raw);
        r[1] = r[0] < 0 ? 0 : input_open(dist, dist_path, "distorted", raw);
        return;
    }
    const RefJob rj = {.ref = ref, .path = ref_path, .raw = raw};
    pair_run(pr, &rj, NULL, dist_path, raw, r);
}

void pair_reader_stop(PairReader *pr)
{
    if (!pr)
        return;
    pthread_mutex_lock(&pr->lock);
    pr->quit = true;
    pthread_cond_broadcast(&pr->cond);
    pthread_mutex_unlock(&pr->lock);
    pthread_join(pr->thread, NULL);
    pthread_cond_destroy(&pr->cond);
    pthread_mutex_destroy(&pr->lock);
    free(pr);
}
