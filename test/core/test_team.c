/* The thread team: every member 0 .. n-1 runs exactly once per run, the
 * caller as member 0, with n the team's size; runs from two threads take
 * turns; a NULL team runs the function in the caller alone; the members
 * block signals and the caller's mask is left as it was; creation and
 * destruction over and over (the sanitizer builds check threads and memory). */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>

#include "check.h"
#include "util/team.h"

typedef struct Tally {
    pthread_mutex_t lock;
    unsigned count[16];
    unsigned n_seen;
    int wrong_n;
    pthread_t caller;
    int caller_not_0;
} Tally;

static void count_member(void *arg, unsigned k, unsigned n)
{
    Tally *t = arg;
    pthread_mutex_lock(&t->lock);
    if (k < 16)
        t->count[k]++;
    if (n != t->n_seen)
        t->wrong_n++;
    if (k == 0 && !pthread_equal(pthread_self(), t->caller))
        t->caller_not_0++;
    pthread_mutex_unlock(&t->lock);
}

static int runs(VmafTeam *team, unsigned n, int times)
{
    Tally t = {.n_seen = n, .caller = pthread_self()};
    pthread_mutex_init(&t.lock, NULL);
    for (int r = 0; r < times; r++)
        vmaf_team_run(team, count_member, &t);
    int bad = t.wrong_n + t.caller_not_0;
    for (unsigned k = 0; k < 16; k++)
        bad += t.count[k] != (k < n ? (unsigned)times : 0u);
    pthread_mutex_destroy(&t.lock);
    return bad;
}

/* Members other than the caller must block SIGINT: member k sets bit k. */
static void mask_member(void *arg, unsigned k, unsigned n)
{
    (void)n;
    sigset_t cur;
    pthread_sigmask(SIG_BLOCK, NULL, &cur);
    if (k && sigismember(&cur, SIGINT))
        __atomic_fetch_or((unsigned *)arg, 1u << k, __ATOMIC_SEQ_CST);
}

static void *runner(void *arg)
{
    VmafTeam *team = arg;
    return (void *)(intptr_t)runs(team, vmaf_team_members(team), 200);
}

int main(void)
{
    for (unsigned m = 1; m <= 9; m++) {
        VmafTeam *team = NULL;
        CHECK_INT(vmaf_team_create(&team, m), 0);
        CHECK_INT(vmaf_team_members(team), m);
        CHECK_INT(runs(team, m, 100), 0);
        vmaf_team_destroy(team);
    }
    CHECK_INT(runs(NULL, 1, 3), 0);
    CHECK_INT(vmaf_team_members(NULL), 1);

    VmafTeam *team = NULL;
    CHECK_INT(vmaf_team_create(&team, 5), 0);
    CHECK_INT(check_in_two_threads(runner, team), 0);
    vmaf_team_destroy(team);

    {
        sigset_t before, after;
        pthread_sigmask(SIG_BLOCK, NULL, &before);
        CHECK_INT(vmaf_team_create(&team, 4), 0);
        pthread_sigmask(SIG_BLOCK, NULL, &after);
        CHECK(sigismember(&before, SIGINT) == sigismember(&after, SIGINT));
        CHECK(sigismember(&before, SIGTERM) == sigismember(&after, SIGTERM));
        unsigned blocked = 0;
        vmaf_team_run(team, mask_member, &blocked);
        CHECK_INT(blocked, 0xEu); /* members 1, 2 and 3 */
        vmaf_team_destroy(team);
    }

    team = (VmafTeam *)&team;
    CHECK_INT(vmaf_team_create(&team, 0), -EINVAL);
    CHECK(team == NULL);
    CHECK_INT(vmaf_team_create(NULL, 2), -EINVAL);
    vmaf_team_destroy(NULL);

    for (int r = 0; r < 50; r++) {
        CHECK_INT(vmaf_team_create(&team, 1 + (unsigned)r % 8), 0);
        if (r % 3 == 0)
            CHECK_INT(runs(team, vmaf_team_members(team), 2), 0);
        vmaf_team_destroy(team);
    }
    const unsigned d = vmaf_team_default_members();
    CHECK(d >= 1 && d <= 8);
    return check_result("team");
}
