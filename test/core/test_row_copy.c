/* The parallel row copy: every byte of every row where it belongs, no byte
 * outside the rows touched, for any number of planes, rows, strides and
 * team members (more than rows, too), runs from two threads at once on one
 * team, and teams made and ended between runs (the sanitizer builds check
 * the threads and the memory). The team itself: test_team.c. */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "check.h"
#include "util/row_copy.h"
#include "util/team.h"

static _Thread_local uint64_t rng = 0x9E3779B97F4A7C15ull; /* one stream a thread */
static unsigned rnd(unsigned n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (unsigned)(rng % n);
}

typedef struct Case {
    VmafRowCopy p[VMAF_ROW_COPY_MAX];
    unsigned n;
    unsigned char *src[VMAF_ROW_COPY_MAX], *dst[VMAF_ROW_COPY_MAX];
    size_t src_bytes[VMAF_ROW_COPY_MAX], dst_bytes[VMAF_ROW_COPY_MAX];
} Case;

/* n planes; big: enough bytes for the workers to take part. */
static void make_case(Case *c, unsigned n, bool big)
{
    memset(c, 0, sizeof(*c));
    c->n = n;
    for (unsigned i = 0; i < n; i++) {
        const size_t row = big ? 1000 + rnd(3000) : rnd(200);
        const unsigned rows = big ? 300 + rnd(300) : rnd(40);
        const size_t sstride = row + rnd(70), dstride = row + rnd(70);
        const bool up = rnd(4) == 0; /* bottom-up source */
        c->src_bytes[i] = sstride * rows + 1;
        c->dst_bytes[i] = dstride * rows + 1;
        c->src[i] = malloc(c->src_bytes[i]);
        c->dst[i] = malloc(c->dst_bytes[i]);
        for (size_t k = 0; k < c->src_bytes[i]; k++)
            c->src[i][k] = (unsigned char)rnd(256);
        memset(c->dst[i], 0xA5, c->dst_bytes[i]);
        c->p[i] = (VmafRowCopy){
            .dst = c->dst[i],
            .dst_stride = dstride,
            .src = up && rows ? c->src[i] + sstride * (rows - 1) : c->src[i],
            .src_stride = up ? -(ptrdiff_t)sstride : (ptrdiff_t)sstride,
            .row_bytes = row,
            .rows = rows,
        };
    }
}

/* Rows in place, and the bytes between and after them still 0xA5. */
static int check_case(const Case *c)
{
    int bad = 0;
    for (unsigned i = 0; i < c->n; i++) {
        const VmafRowCopy *p = &c->p[i];
        for (size_t k = 0; k < c->dst_bytes[i]; k++) {
            const size_t y = k / p->dst_stride, x = k % p->dst_stride;
            const unsigned char want =
                y < p->rows && x < p->row_bytes
                    ? ((const unsigned char *)p->src)[(ptrdiff_t)y * p->src_stride + (ptrdiff_t)x]
                    : 0xA5;
            bad += c->dst[i][k] != want;
        }
    }
    return bad;
}

static void free_case(Case *c)
{
    for (unsigned i = 0; i < c->n; i++) {
        free(c->src[i]);
        free(c->dst[i]);
    }
}

static void *run_cases(void *arg)
{
    VmafTeam *cp = arg;
    int bad = 0;
    for (int r = 0; r < 6; r++) {
        Case c;
        make_case(&c, 2, true);
        bad += vmaf_row_copy(cp, c.p, c.n) != 0;
        bad += check_case(&c) != 0;
        free_case(&c);
    }
    return (void *)(intptr_t)bad;
}

int main(void)
{
    /* every participant count, small and large runs, 0 to 4 planes */
    for (unsigned t = 1; t <= 9; t++) {
        VmafTeam *cp = NULL;
        CHECK_INT(vmaf_team_create(&cp, t), 0);
        CHECK(cp != NULL);
        CHECK_INT(vmaf_team_members(cp), t);
        for (int r = 0; r < 12; r++) {
            Case c;
            make_case(&c, (unsigned)r % (VMAF_ROW_COPY_MAX + 1), r % 3 != 0);
            CHECK_INT(vmaf_row_copy(cp, c.p, c.n), 0);
            CHECK_INT(check_case(&c), 0);
            free_case(&c);
        }
        vmaf_team_destroy(cp);
    }

    /* more participants than rows: some shares are empty */
    {
        VmafTeam *cp = NULL;
        CHECK_INT(vmaf_team_create(&cp, 8), 0);
        Case c;
        make_case(&c, 1, true);
        c.p[0].rows = 3;
        c.p[0].row_bytes = 1u << 20; /* three rows of 1 MiB: the workers take part */
        free(c.src[0]);
        free(c.dst[0]);
        c.src_bytes[0] = 3u << 20;
        c.dst_bytes[0] = (3u << 20) + 16;
        c.src[0] = malloc(c.src_bytes[0]);
        c.dst[0] = malloc(c.dst_bytes[0]);
        for (size_t k = 0; k < c.src_bytes[0]; k++)
            c.src[0][k] = (unsigned char)(k * 7 + 1);
        memset(c.dst[0], 0xA5, c.dst_bytes[0]);
        c.p[0].src = c.src[0];
        c.p[0].src_stride = 1 << 20;
        c.p[0].dst = c.dst[0];
        c.p[0].dst_stride = 1 << 20;
        CHECK_INT(vmaf_row_copy(cp, c.p, 1), 0);
        CHECK_INT(check_case(&c), 0);
        free_case(&c);
        vmaf_team_destroy(cp);
    }

    /* two threads copying with one team take turns */
    {
        VmafTeam *cp = NULL;
        CHECK_INT(vmaf_team_create(&cp, 4), 0);
        CHECK_INT(check_in_two_threads(run_cases, cp), 0);
        vmaf_team_destroy(cp);
    }

    /* no team: the caller copies alone */
    {
        Case c;
        make_case(&c, 2, true);
        CHECK_INT(vmaf_row_copy(NULL, c.p, c.n), 0);
        CHECK_INT(check_case(&c), 0);
        free_case(&c);
    }

    /* refusals */
    {
        VmafRowCopy too_many[VMAF_ROW_COPY_MAX + 1] = {{0}};
        CHECK_INT(vmaf_row_copy(NULL, too_many, VMAF_ROW_COPY_MAX + 1), -EINVAL);
        CHECK_INT(vmaf_row_copy(NULL, NULL, 1), -EINVAL);
        CHECK_INT(vmaf_row_copy(NULL, NULL, 0), 0);
    }

    /* teams made and ended again and again, some with a copy between */
    for (int r = 0; r < 40; r++) {
        VmafTeam *cp = NULL;
        CHECK_INT(vmaf_team_create(&cp, 1 + (unsigned)r % 8), 0);
        if (r % 4 == 0) {
            Case c;
            make_case(&c, 1, true);
            CHECK_INT(vmaf_row_copy(cp, c.p, c.n), 0);
            CHECK_INT(check_case(&c), 0);
            free_case(&c);
        }
        vmaf_team_destroy(cp);
    }

    return check_result("row_copy");
}
