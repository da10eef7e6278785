#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

#include "util/team.h"

struct VmafTeam {
    pthread_mutex_t run_lock; /* one run at a time */
    pthread_mutex_t lock;     /* the fields below */
    pthread_cond_t go;        /* a new run (generation), or stop */
    pthread_cond_t done;      /* the last thread finished its share */
    VmafTeamFn fn;
    void *arg;
    unsigned long generation;
    unsigned pending; /* threads still working on this run */
    bool stop;
    unsigned nthreads;
    pthread_t *thread;
};

typedef struct Member {
    VmafTeam *team;
    unsigned k;
} Member;

static void *member_main(void *p)
{
    Member *m = p;
    VmafTeam *t = m->team;
    unsigned long seen = 0;
    pthread_mutex_lock(&t->lock);
    for (;;) {
        while (t->generation == seen && !t->stop)
            pthread_cond_wait(&t->go, &t->lock);
        if (t->stop)
            break;
        seen = t->generation;
        const VmafTeamFn fn = t->fn;
        void *arg = t->arg;
        pthread_mutex_unlock(&t->lock);
        fn(arg, m->k, t->nthreads + 1);
        pthread_mutex_lock(&t->lock);
        if (--t->pending == 0)
            pthread_cond_signal(&t->done);
    }
    pthread_mutex_unlock(&t->lock);
    free(m);
    return NULL;
}

int vmaf_team_create(VmafTeam **out, unsigned members)
{
    if (!out)
        return -EINVAL;
    *out = NULL;
    if (!members)
        return -EINVAL;
    VmafTeam *t = calloc(1, sizeof(*t));
    if (!t)
        return -ENOMEM;
    t->thread = calloc(members, sizeof(*t->thread));
    if (!t->thread) {
        free(t);
        return -ENOMEM;
    }
    pthread_mutex_init(&t->run_lock, NULL);
    pthread_mutex_init(&t->lock, NULL);
    pthread_cond_init(&t->go, NULL);
    pthread_cond_init(&t->done, NULL);
    /* The members' share count is fixed before the first of them starts. */
    t->nthreads = members - 1;
    int err = 0;
    unsigned started = 0;
    /* The members block every signal (they inherit the mask in force at
     * their creation): a process-directed signal, such as the tool's
     * Ctrl-C, goes to a thread of the caller's, which may be blocked in a
     * read that the signal must interrupt. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    for (unsigned k = 1; k < members; k++) {
        Member *m = malloc(sizeof(*m));
        if (!m) {
            err = -ENOMEM;
            break;
        }
        *m = (Member){.team = t, .k = k};
        if (pthread_create(&t->thread[started], NULL, member_main, m)) {
            free(m);
            err = -EAGAIN;
            break;
        }
        started++;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (err) {
        t->nthreads = started;
        vmaf_team_destroy(t);
        return err;
    }
    *out = t;
    return 0;
}

unsigned vmaf_team_default_members(void)
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

unsigned vmaf_team_members(const VmafTeam *t)
{
    return t ? t->nthreads + 1 : 1u;
}

void vmaf_team_run(VmafTeam *t, VmafTeamFn fn, void *arg)
{
    if (!t || !t->nthreads) {
        fn(arg, 0, 1);
        return;
    }
    pthread_mutex_lock(&t->run_lock);
    pthread_mutex_lock(&t->lock);
    t->fn = fn;
    t->arg = arg;
    t->pending = t->nthreads;
    t->generation++;
    pthread_cond_broadcast(&t->go);
    pthread_mutex_unlock(&t->lock);
    fn(arg, 0, t->nthreads + 1);
    pthread_mutex_lock(&t->lock);
    while (t->pending)
        pthread_cond_wait(&t->done, &t->lock);
    pthread_mutex_unlock(&t->lock);
    pthread_mutex_unlock(&t->run_lock);
}

void vmaf_team_destroy(VmafTeam *t)
{
    if (!t)
        return;
    pthread_mutex_lock(&t->lock);
    t->stop = true;
    pthread_cond_broadcast(&t->go);
    pthread_mutex_unlock(&t->lock);
    for (unsigned i = 0; i < t->nthreads; i++)
        pthread_join(t->thread[i], NULL);
    pthread_cond_destroy(&t->go);
    pthread_cond_destroy(&t->done);
    pthread_mutex_destroy(&t->lock);
    pthread_mutex_destroy(&t->run_lock);
    free(t->thread);
    free(t);
}
