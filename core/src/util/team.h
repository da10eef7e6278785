/* A fixed team of threads that run one function together, for work that is
 * split into equal shares and is over in a fraction of a millisecond (a
 * copy, a read): the caller takes part, the other members sleep between
 * runs, and nothing is allocated per run. Self-contained (pthreads only),
 * so the command line tool links it too (util/meson.build). */
#ifndef LIBVMAF_SRC_UTIL_TEAM_H
#define LIBVMAF_SRC_UTIL_TEAM_H

typedef struct VmafTeam VmafTeam;

/* fn(arg, k, n) runs once in each member k = 0 .. n - 1 of a run; k == 0 is
 * the caller. */
typedef void (*VmafTeamFn)(void *arg, unsigned k, unsigned n);

/* A team of `members`, the caller included (so members - 1 threads; 1
 * starts none). 0 or negative errno; on failure *team is NULL. */
int vmaf_team_create(VmafTeam **team, unsigned members);

/* Members a team gets by default: half the CPUs this process may run on, at
 * least 1 and at most 8 (past that, memory bandwidth is the limit of the
 * copies a team makes, not cores). */
unsigned vmaf_team_default_members(void);

/* Members of team (1 for NULL). */
unsigned vmaf_team_members(const VmafTeam *team);

/* Runs fn in every member and returns when all have returned. NULL team:
 * fn(arg, 0, 1) in the caller. Runs from several threads on one team take
 * turns. */
void vmaf_team_run(VmafTeam *team, VmafTeamFn fn, void *arg);

/* Joins the threads and frees team. NULL is a no-op. */
void vmaf_team_destroy(VmafTeam *team);

#endif /* LIBVMAF_SRC_UTIL_TEAM_H */
