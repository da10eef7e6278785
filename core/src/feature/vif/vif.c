/*
 * Integer VIF: the scale pyramid, row streaming and the per-set results
 * (docs/metrics/vif_numerics.md). The row functions are in the VifDsp
 * table; this file only chooses rows, pads them and combines the sums.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cpu.h"
#include "feature/vif/vif.h"
#include "feature/vif/vif_pyramid.h"

VifParams vmaf_vif_params_default(void)
{
    const VifParams p = {.enhn_gain_limit = VMAF_VIF_EGL_DEFAULT, .skip_scale0 = false};
    return p;
}

int vmaf_vif_params_check(const VifParams *p)
{
    if (!p || !(p->enhn_gain_limit >= VMAF_VIF_EGL_MIN && p->enhn_gain_limit <= VMAF_VIF_EGL_MAX))
        return -EINVAL;
    return 0;
}

bool vmaf_vif_params_share_pass(const VifParams *a, const VifParams *b)
{
    return !vmaf_vif_params_check(a) && !vmaf_vif_params_check(b);
}

static int refuse(char *why, size_t len, const char *reason)
{
    if (why && len)
        snprintf(why, len, "%s", reason);
    return -EINVAL;
}

int vmaf_vif_check(unsigned w, unsigned h, char *why, size_t len)
{
    if (h < VMAF_VIF_MIN_SIDE)
        return refuse(why, len,
                      "vif needs at least 8 rows: its coarsest scale (height / 8) would be "
                      "empty, where the reference crashes");
    if (w < VMAF_VIF_MIN_SIDE)
        return refuse(why, len,
                      "vif needs at least 8 columns: its coarsest scale (width / 8) would be "
                      "empty (score 0/0) and the reference reads leftover scratch memory "
                      "for the scale above it");
    if (w > VMAF_VIF_MAX_SIDE || h > VMAF_VIF_MAX_SIDE)
        return refuse(why, len, "vif accepts planes of at most 32768 x 32768");
    if (why && len)
        why[0] = '\0';
    return 0;
}

size_t vmaf_vif_scratch_size(unsigned w, unsigned h)
{
    if (vmaf_vif_check(w, h, NULL, 0))
        return 0;
    return vif_scratch_layout(w, h, NULL, NULL);
}

/* The parameter sets as the statistic sees them: distinct gain limits, and
 * for each set the index of its limit. */
int vmaf_vif_gains(const VifParams *params, unsigned n, VifGain *gain, unsigned *slot,
                   bool *any_scale0)
{
    if (!params || n < 1 || n > VMAF_VIF_MAX_PARAMS)
        return -EINVAL;
    gain->n = 0;
    *any_scale0 = false;
    for (unsigned i = 0; i < n; i++) {
        if (vmaf_vif_params_check(&params[i]))
            return -EINVAL;
        *any_scale0 |= !params[i].skip_scale0;
        unsigned k = 0;
        while (k < gain->n && gain->limit[k] != params[i].enhn_gain_limit)
            k++;
        if (k == gain->n)
            gain->limit[gain->n++] = params[i].enhn_gain_limit;
        slot[i] = k;
    }
    gain->min = gain->limit[0];
    for (unsigned k = 1; k < gain->n; k++)
        gain->min = gain->limit[k] < gain->min ? gain->limit[k] : gain->min;
    return 0;
}

/* The reference's f64 expressions, each stored to f32. */
static void vif_scale_sums(const VifAccum *a, unsigned slot, float *num, float *den)
{
    *num = (float)(a->num_log[slot] / 2048.0 +
                   (a->den_non_log - (a->num_non_log / 16384.0) / 65025.0));
    *den = (float)(a->den_log / 2048.0 + a->den_non_log);
}

void vmaf_vif_scores_from_sums(const VifAccum acc[VIF_SCALES], unsigned slot, bool skip_scale0,
                               VifScores *out)
{
    float num[VIF_SCALES], den[VIF_SCALES];
    for (unsigned s = 0; s < VIF_SCALES; s++)
        vif_scale_sums(&acc[s], slot, &num[s], &den[s]);
    const unsigned first = skip_scale0 ? 1 : 0;
    double tnum = num[first], tden = den[first];
    for (unsigned s = first + 1; s < VIF_SCALES; s++) {
        tnum += num[s];
        tden += den[s];
    }
    for (unsigned s = 0; s < VIF_SCALES; s++) {
        out->scale[s] = num[s] / den[s]; /* an f32 quotient */
        out->num_scale[s] = num[s];
        out->den_scale[s] = den[s];
    }
    if (skip_scale0) {
        out->scale[0] = 0.0;
        out->num_scale[0] = 0.0;
        out->den_scale[0] = -1.0;
    }
    out->num = tnum;
    out->den = tden;
    out->vif = tden == 0.0 ? 1.0 : tnum / tden;
}

int vmaf_vif_compute_dsp(const VifDsp *dsp, const void *ref, ptrdiff_t ref_stride,
                         const void *dis, ptrdiff_t dis_stride, unsigned w, unsigned h,
                         unsigned bpc, const VifParams *params, unsigned n_params,
                         void *scratch, size_t scratch_size, VifScores *out)
{
    VifGain gain;
    unsigned slot[VMAF_VIF_MAX_PARAMS];
    bool any_scale0;
    if (!dsp || !ref || !dis || !scratch || !out || bpc < 8 || bpc > 16 ||
        vmaf_vif_check(w, h, NULL, 0) ||
        vmaf_vif_gains(params, n_params, &gain, slot, &any_scale0))
        return -EINVAL;
    VifWork wk;
    if (vif_scratch_layout(w, h, scratch, &wk) > scratch_size)
        return -EINVAL;

    const VifPlane src = {
        .ref = ref, .dis = dis, .ref_stride = ref_stride, .dis_stride = dis_stride,
        .w = w, .h = h, .bpc = bpc,
    };
    VifAccum acc[VIF_SCALES];
    memset(acc, 0, sizeof(acc));
    vif_pyramid(dsp, &wk, &src, any_scale0, &gain, acc);

    for (unsigned i = 0; i < n_params; i++)
        vmaf_vif_scores_from_sums(acc, slot[i], params[i].skip_scale0, &out[i]);
    return 0;
}

int vmaf_vif_compute(const void *ref, ptrdiff_t ref_stride, const void *dis,
                     ptrdiff_t dis_stride, unsigned w, unsigned h, unsigned bpc,
                     const VifParams *params, unsigned n_params, void *scratch,
                     size_t scratch_size, VifScores *out)
{
    VifDsp dsp;
    vmaf_vif_dsp_init(&dsp, vmaf_cpu_flags());
    return vmaf_vif_compute_dsp(&dsp, ref, ref_stride, dis, dis_stride, w, h, bpc, params,
                                n_params, scratch, scratch_size, out);
}
