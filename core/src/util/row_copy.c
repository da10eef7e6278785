#include <errno.h>
#include <string.h>

#include "util/row_copy.h"
#include "util/team.h"

typedef struct Run {
    const VmafRowCopy *plane;
    unsigned nplanes;
    size_t total_rows;
} Run;

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

static void copy_member(void *arg, unsigned k, unsigned n)
{
    const Run *r = arg;
    copy_share(r->plane, r->nplanes, r->total_rows, k, n);
}

int vmaf_row_copy(VmafTeam *team, const VmafRowCopy *planes, unsigned n)
{
    if (n > VMAF_ROW_COPY_MAX || (n && !planes))
        return -EINVAL;
    Run r = {.plane = planes, .nplanes = n};
    size_t bytes = 0;
    for (unsigned i = 0; i < n; i++) {
        r.total_rows += planes[i].rows;
        bytes += planes[i].rows * planes[i].row_bytes;
    }
    vmaf_team_run(bytes >= VMAF_ROW_COPY_MIN_PARALLEL ? team : NULL, copy_member, &r);
    return 0;
}
