/*
 * One scale, row by row. For band row i: the transform of both pictures,
 * the denominator terms of the reference's bands, then per group the
 * decoupling and CSF weighting of row i and the masking of row i-1 (which
 * needs the weighted rows around it). Rows and columns outside the
 * reference's regions are not computed; the values it does use are the same.
 *
 * Mirroring: the transform reads input rows and columns -1 as 1 and n, n+1
 * as n-1, n-2; masking reads neighbours -1 as 1 and n as n-1, as the
 * reference's edge cases do.
 */
#include "feature/adm/adm_frame.h"

static unsigned mirror(int n, unsigned len)
{
    if (n < 0)
        return (unsigned)-n;
    return (unsigned)n < len ? (unsigned)n : 2 * len - (unsigned)n - 1;
}

static void pad16(int16_t *row, unsigned n)
{
    row[-1] = row[1];
    row[n] = row[n - 1];
    row[n + 1] = row[n - 2];
}

static void pad32(int32_t *row, unsigned n)
{
    row[-1] = row[1];
    row[n] = row[n - 1];
    row[n + 1] = row[n - 2];
}

static void transform_row0(AdmFrame *f, int side, unsigned i, int32_t *a)
{
    const AdmScalePlan *p = &f->plan[0];
    const uint8_t *base = side ? f->dis : f->ref;
    const ptrdiff_t stride = side ? f->dis_stride : f->ref_stride;
    const void *rows[4];
    for (int k = 0; k < 4; k++)
        rows[k] = base + (ptrdiff_t)mirror(2 * (int)i - 1 + k, p->in_h) * stride;
    if (f->bpc == 8)
        f->dsp.dwt_vert_8((const uint8_t *const *)rows, p->in_w, f->lo16, f->hi16);
    else
        f->dsp.dwt_vert_16((const uint16_t *const *)rows, p->in_w, f->bpc, f->lo16, f->hi16);
    pad16(f->lo16, p->in_w);
    pad16(f->hi16, p->in_w);
    f->dsp.dwt_horz_0(f->lo16, f->hi16, p->in_w, a, &f->band[side]);
}

static void transform_row(AdmFrame *f, unsigned s, int side, unsigned i, int32_t *a)
{
    const AdmScalePlan *p = &f->plan[s];
    const int32_t *in = f->plane[(s + 1) & 1][side];
    const int32_t *rows[4];
    for (int k = 0; k < 4; k++)
        rows[k] = in + (size_t)mirror(2 * (int)i - 1 + k, p->in_h) * p->in_w;
    f->dsp.dwt_vert_s(rows, p->in_w, p->dwt_v_add, p->dwt_v_shift, f->lo32, f->hi32);
    pad32(f->lo32, p->in_w);
    pad32(f->hi32, p->in_w);
    f->dsp.dwt_horz_s(f->lo32, f->hi32, p->in_w, p->dwt_h_add, p->dwt_h_shift, a,
                      &f->band[side]);
}

static void den_row(AdmFrame *f, unsigned s)
{
    const AdmScalePlan *p = &f->plan[s];
    uint64_t sum[3];
    if (s)
        f->dsp.den_s(&f->band[0], p->left, p->right, &p->den, sum);
    else
        f->dsp.den_0(&f->band[0], p->left, p->right, sum);
    for (int b = 0; b < 3; b++)
        f->den[s][b] += (sum[b] + p->den_row_add) >> p->den_row_shift;
}

static bool group_active(const AdmGroup *g, unsigned s)
{
    return s > 0 || g->scale0;
}

/* All groups' gain limits on the same intermediate, into slot i % 3. */
static void decouple_row(AdmFrame *f, unsigned s, unsigned i)
{
    const AdmScalePlan *p = &f->plan[s];
    double gain[ADM_MAX_PARAM_SETS];
    AdmBandRows r[ADM_MAX_PARAM_SETS], a[ADM_MAX_PARAM_SETS];
    unsigned n = 0;
    for (unsigned g = 0; g < f->n_groups; g++) {
        if (!group_active(&f->group[g], s))
            continue;
        gain[n] = f->group[g].gain;
        r[n] = f->group[g].ring.r[i % 3];
        a[n] = f->group[g].ring.a[i % 3];
        n++;
    }
    if (s)
        f->dsp.decouple_s(&f->band[0], &f->band[1], p->work_x0, p->work_x1, gain, n, r, a);
    else
        f->dsp.decouple_0(&f->band[0], &f->band[1], p->work_x0, p->work_x1, gain, n, r, a);
}

/* CSF weighting of one decoupled row into f, c and their 3-wide sums. */
static void weigh(const AdmFrame *f, unsigned s, const AdmBandRows *src, const uint32_t q[3],
                  int32_t *fs, int32_t *cs, int32_t *sum)
{
    const AdmScalePlan *p = &f->plan[s];
    if (s)
        f->dsp.csf_s(src, p->work_x0, p->work_x1, q, fs, cs);
    else
        f->dsp.csf_0(src, p->work_x0, p->work_x1, q, fs, cs);
    if (p->work_x0 == 0)
        fs[-1] = fs[1];
    if (p->work_x1 == (int)p->w)
        fs[p->w] = fs[p->w - 1];
    f->dsp.sum3(fs, p->left, p->right, sum);
}

static void weigh_row(const AdmFrame *f, AdmGroup *g, unsigned s, unsigned i)
{
    AdmRing *r = &g->ring;
    const unsigned k = i % 3;
    weigh(f, s, &r->a[k], g->w.q[s], r->fa[k], r->ca[k], r->sa[k]);
    if (g->aim)
        weigh(f, s, &r->r[k], g->w.q[s], r->fr[k], r->cr[k], r->sr[k]);
}

static void mask(const AdmFrame *f, unsigned s, const AdmBandRows *src, const uint32_t q[3],
                 const AdmThrRows *t, int64_t acc[3])
{
    const AdmScalePlan *p = &f->plan[s];
    int64_t sum[3];
    if (s)
        f->dsp.cm_s(src, q, t, p->left, p->right, &p->cm, sum);
    else
        f->dsp.cm_0(src, q, t, p->left, p->right, &p->cm, sum);
    for (int b = 0; b < 3; b++)
        acc[b] += (sum[b] + p->cm_row_add) >> p->cm_row_shift;
}

/* Masking of row c: the detail loss (r against the masking by a) and the
 * additive impairment (a against the masking by r). */
static void mask_row(const AdmFrame *f, AdmGroup *g, unsigned s, unsigned c)
{
    const unsigned h = f->plan[s].h;
    const unsigned up = (c ? c - 1 : 1) % 3, mid = c % 3, dn = (c + 1 < h ? c + 1 : c) % 3;
    const AdmRing *r = &g->ring;
    const AdmThrRows by_a = {r->sa[up], r->sa[mid], r->sa[dn], r->fa[mid], r->ca[mid]};
    mask(f, s, &r->r[mid], g->w.q[s], &by_a, g->dlm[s]);
    if (g->aim) {
        const AdmThrRows by_r = {r->sr[up], r->sr[mid], r->sr[dn], r->fr[mid], r->cr[mid]};
        mask(f, s, &r->a[mid], g->w.q[s], &by_r, g->aim_sum[s]);
    }
}

static void group_rows(AdmFrame *f, unsigned s, unsigned i)
{
    const AdmScalePlan *p = &f->plan[s];
    const bool mask_prev = i > 0 && (int)i - 1 >= p->top && (int)i - 1 < p->bottom;
    const bool mask_last = i + 1 == p->h && (int)i < p->bottom;
    for (unsigned g = 0; g < f->n_groups; g++) {
        AdmGroup *grp = &f->group[g];
        if (!group_active(grp, s))
            continue;
        weigh_row(f, grp, s, i);
        if (mask_prev)
            mask_row(f, grp, s, i - 1);
        if (mask_last)
            mask_row(f, grp, s, i);
    }
}

void vmaf_adm_run_scale(AdmFrame *f, unsigned s)
{
    const AdmScalePlan *p = &f->plan[s];
    bool active = s > 0;
    for (unsigned g = 0; g < f->n_groups; g++)
        active = active || f->group[g].scale0;
    for (unsigned i = 0; i < p->h; i++) {
        int32_t *a_ref = s < 3 ? f->plane[s & 1][0] + (size_t)i * p->w : f->sink;
        int32_t *a_dis = s < 3 ? f->plane[s & 1][1] + (size_t)i * p->w : f->sink;
        if (s) {
            transform_row(f, s, 0, i, a_ref);
            transform_row(f, s, 1, i, a_dis);
        } else {
            transform_row0(f, 0, i, a_ref);
            transform_row0(f, 1, i, a_dis);
        }
        if (!active)
            continue;
        if ((int)i >= p->top && (int)i < p->bottom)
            den_row(f, s);
        if ((int)i >= p->work_y0 && (int)i < p->work_y1) {
            decouple_row(f, s, i);
            group_rows(f, s, i);
        }
    }
}
