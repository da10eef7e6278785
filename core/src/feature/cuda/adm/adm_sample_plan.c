/*
 * The adm twin's view of a frame, filled on the host: the CPU's plan, the
 * option sets grouped as the CPU groups them and their fixed-point
 * weights. Plain C in every build: the twin calls it, and so does the CPU
 * check of the twin's arithmetic (test/adm/test_adm_sample.c).
 */
#include <errno.h>
#include <string.h>

#include "feature/adm/adm_csf.h"
#include "feature/adm/adm_frame.h"
#include "feature/adm/adm_tables.h"
#include "feature/cuda/adm/adm_sample.h"

int vmaf_adm_sample_plan(AdmCudaFrame *f, unsigned w, unsigned h, unsigned bpc,
                         const AdmParams *params, unsigned n, AdmWeights *weights,
                         unsigned *member)
{
    if (!n || n > ADM_CUDA_GROUPS)
        return -EINVAL;
    memset(f, 0, sizeof(*f));
    f->w = w;
    f->h = h;
    f->bpc = bpc;
    vmaf_adm_plan(w, h, f->plan);
    for (int s = 0; s < 4; s++)
        f->row_base[s + 1] = f->row_base[s] + f->plan[s].h;
    f->cos1deg_sq = vmaf_adm_cos1deg_sq;
    AdmGroup group[ADM_MAX_PARAM_SETS];
    for (unsigned v = 0; v < n; v++)
        vmaf_adm_weights(&params[v], &weights[v]);
    f->n_groups = vmaf_adm_group_sets(params, weights, n, group, member);
    for (unsigned g = 0; g < f->n_groups; g++) {
        f->gain[g] = group[g].gain;
        f->aim[g] = group[g].aim;
        f->scale0 = f->scale0 || group[g].scale0;
        memcpy(f->q[g], group[g].w.q, sizeof(f->q[g]));
    }
    return 0;
}
