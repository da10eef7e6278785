/*
 * The ADM entry points: checks, scratch size, and one frame for several
 * parameter sets (grouped by the integer work they need, scale by scale).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cpu.h"
#include "feature/adm/adm.h"
#include "feature/adm/adm_frame.h"

void vmaf_adm_params_default(AdmParams *p)
{
    *p = (AdmParams){
        .enhn_gain_limit = 100.0,
        .norm_view_dist = 3.0,
        .csf_scale = 1.0,
        .csf_diag_scale = 1.0,
        .noise_weight = 0.03125,
        .dlm_weight = 0.5,
        .min_val = 0.0,
        .ref_display_height = 1080,
        .csf_mode = ADM_CSF_WATSON,
    };
}

bool vmaf_adm_view_supported(double norm_view_dist, int ref_display_height)
{
    /* the reference's test, in its order of operations */
    return !(norm_view_dist * ref_display_height < 3.0 * 1080);
}

static int refuse(char *why, size_t len, const char *reason)
{
    if (why && len)
        snprintf(why, len, "%s", reason);
    return -EINVAL;
}

static bool in_range(double v, double lo, double hi)
{
    return v >= lo && v <= hi; /* false for NaN */
}

static int check_params(const AdmParams *p, char *why, size_t len)
{
    if (!in_range(p->enhn_gain_limit, 1.0, 100.0))
        return refuse(why, len, "adm_enhn_gain_limit must be in 1..100");
    if (!in_range(p->norm_view_dist, 0.75, 24.0))
        return refuse(why, len, "adm_norm_view_dist must be in 0.75..24");
    if (p->ref_display_height < 1 || p->ref_display_height > 4320)
        return refuse(why, len, "adm_ref_display_height must be in 1..4320");
    if (!in_range(p->csf_scale, 0.0, 50.0) || !in_range(p->csf_diag_scale, 0.0, 50.0))
        return refuse(why, len, "adm_csf_scale and adm_csf_diag_scale must be in 0..50");
    if (!in_range(p->noise_weight, 0.0, 1500.0))
        return refuse(why, len, "adm_noise_weight must be in 0..1500");
    if (!in_range(p->dlm_weight, 0.0, 1.0) || !in_range(p->min_val, 0.0, 1.0))
        return refuse(why, len, "adm_dlm_weight and adm_min_val must be in 0..1");
    if (p->csf_mode < ADM_CSF_WATSON || p->csf_mode > ADM_CSF_BLEND_MAE)
        return refuse(why, len, "adm_csf_mode must be 0..3");
    if (!vmaf_adm_view_supported(p->norm_view_dist, p->ref_display_height))
        return refuse(why, len,
                      "adm_norm_view_dist * adm_ref_display_height must be at least 3240 "
                      "(3 x 1080): the integer ADM cannot represent lower angular frequencies");
    float unused;
    if (p->csf_mode >= ADM_CSF_BLEND &&
        vmaf_adm_blend_weight(p->csf_mode, 0, 0, p->norm_view_dist, p->ref_display_height, &unused))
        return refuse(why, len,
                      "adm_csf_mode 2 and 3 have weights only for 1080 lines at 3 or 5 H, "
                      "2160 lines at 1.5, 3 or 5 H and 720 lines at 5 H");
    return 0;
}

int vmaf_adm_check(unsigned w, unsigned h, unsigned bpc, const AdmParams *params, char *why,
                   size_t len)
{
    if (w < ADM_MIN_SIZE || h < ADM_MIN_SIZE)
        return refuse(why, len,
                      "ADM needs pictures of at least 17x17 (its coarsest band must be two "
                      "samples wide)");
    if (w > ADM_MAX_SIZE || h > ADM_MAX_SIZE)
        return refuse(why, len, "ADM takes pictures of at most 16384x16384");
    if (bpc < 8 || bpc > 16)
        return refuse(why, len, "ADM takes 8 to 16 bits per sample");
    return params ? check_params(params, why, len) : 0;
}

bool vmaf_adm_params_share_pass(const AdmParams *a, const AdmParams *b)
{
    return a && b && !check_params(a, NULL, 0) && !check_params(b, NULL, 0);
}

unsigned vmaf_adm_group_sets(const AdmParams *params, const AdmWeights *w, unsigned n,
                             AdmGroup *group, unsigned *member)
{
    unsigned n_groups = 0;
    for (unsigned i = 0; i < n; i++) {
        unsigned g = 0;
        while (g < n_groups && !(group[g].gain == params[i].enhn_gain_limit &&
                                 vmaf_adm_weights_same_integers(&group[g].w, &w[i])))
            g++;
        if (g == n_groups) {
            group[g] = (AdmGroup){.gain = params[i].enhn_gain_limit, .w = w[i]};
            n_groups++;
        }
        group[g].scale0 |= !params[i].skip_scale0;
        group[g].aim |= !params[i].skip_aim;
        member[i] = g;
    }
    return n_groups;
}

size_t vmaf_adm_scratch_size(unsigned w, unsigned h, unsigned n_params)
{
    if (vmaf_adm_check(w, h, 8, NULL, NULL, 0) || !n_params || n_params > ADM_MAX_PARAM_SETS)
        return 0;
    AdmFrame f = {0};
    vmaf_adm_plan(w, h, f.plan);
    f.n_groups = n_params;
    return vmaf_adm_layout(&f, NULL);
}

static bool stride_ok(const void *p, ptrdiff_t stride, unsigned w, unsigned bpc)
{
    const ptrdiff_t row = (ptrdiff_t)w * (bpc > 8 ? 2 : 1);
    return p && (stride >= row || stride <= -row);
}

static int check_call(const void *ref, ptrdiff_t ref_stride, const void *dis,
                      ptrdiff_t dis_stride, unsigned w, unsigned h, unsigned bpc,
                      const AdmParams *params, unsigned n_params, const void *scratch,
                      size_t scratch_size, const AdmScores *out)
{
    if (!params || !out || !scratch || !n_params || n_params > ADM_MAX_PARAM_SETS)
        return -EINVAL;
    if (vmaf_adm_check(w, h, bpc, NULL, NULL, 0))
        return -EINVAL;
    if (!stride_ok(ref, ref_stride, w, bpc) || !stride_ok(dis, dis_stride, w, bpc))
        return -EINVAL;
    for (unsigned i = 0; i < n_params; i++) {
        if (check_params(&params[i], NULL, 0))
            return -EINVAL;
    }
    return scratch_size < vmaf_adm_scratch_size(w, h, n_params) ? -EINVAL : 0;
}

int vmaf_adm_compute_dsp(const AdmDsp *dsp, const void *ref, ptrdiff_t ref_stride,
                         const void *dis, ptrdiff_t dis_stride, unsigned w, unsigned h,
                         unsigned bpc, const AdmParams *params, unsigned n_params, void *scratch,
                         size_t scratch_size, AdmScores *out)
{
    int err = check_call(ref, ref_stride, dis, dis_stride, w, h, bpc, params, n_params, scratch,
                         scratch_size, out);
    if (err || !dsp)
        return err ? err : -EINVAL;
    AdmFrame f;
    memset(&f, 0, sizeof(f));
    f.dsp = *dsp;
    vmaf_adm_plan(w, h, f.plan);
    f.bpc = bpc;
    f.ref = ref;
    f.dis = dis;
    f.ref_stride = ref_stride;
    f.dis_stride = dis_stride;
    AdmWeights weights[ADM_MAX_PARAM_SETS];
    unsigned member[ADM_MAX_PARAM_SETS];
    for (unsigned i = 0; i < n_params; i++)
        vmaf_adm_weights(&params[i], &weights[i]);
    f.n_groups = vmaf_adm_group_sets(params, weights, n_params, f.group, member);
    vmaf_adm_layout(&f, scratch);
    for (unsigned s = 0; s < 4; s++)
        vmaf_adm_run_scale(&f, s);
    for (unsigned i = 0; i < n_params; i++) {
        const AdmGroup *g = &f.group[member[i]];
        const AdmSums sums = {f.den, g->dlm, g->aim_sum};
        vmaf_adm_score(f.plan, &sums, &weights[i], &params[i], w, h, &out[i]);
    }
    return 0;
}

int vmaf_adm_compute(const void *ref, ptrdiff_t ref_stride, const void *dis, ptrdiff_t dis_stride,
                     unsigned w, unsigned h, unsigned bpc, const AdmParams *params,
                     unsigned n_params, void *scratch, size_t scratch_size, AdmScores *out)
{
    AdmDsp dsp;
    vmaf_adm_dsp_init(&dsp, vmaf_cpu_flags());
    return vmaf_adm_compute_dsp(&dsp, ref, ref_stride, dis, dis_stride, w, h, bpc, params,
                                n_params, scratch, scratch_size, out);
}
