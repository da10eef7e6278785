/*
 * Per-scale geometry and roundings. The reference computes its shifts as
 * (uint32_t)ceil(log2(n) - c) and its rounding constants as
 * (uint32_t)pow(2, shift - 1); here they are integers. Where the
 * reference's shift is 0 its pow(2, UINT32_MAX) converts to 0 on x86-64,
 * so the rounding constant is 0 then (only at picture widths up to 32).
 */
#include "feature/adm/adm_plan.h"

/* ceil(log2(n)) for n >= 1 */
static unsigned ceil_log2(unsigned n)
{
    unsigned k = 0;
    while (k < 32 && (1ull << k) < n)
        k++;
    return k;
}

static int64_t half_of(unsigned shift)
{
    return shift ? (int64_t)1 << (shift - 1) : 0;
}

/* The reference's border: (int)(n * 0.1 - 0.5), truncated toward zero. */
static int border(unsigned n)
{
    return (int)(n * 0.1 - 0.5);
}

static void plan_region(AdmScalePlan *p)
{
    p->left = border(p->w);
    p->top = border(p->h);
    p->right = (int)p->w - p->left;
    p->bottom = (int)p->h - p->top;
    p->work_x0 = p->left > 0 ? p->left - 1 : 0;
    p->work_y0 = p->top > 0 ? p->top - 1 : 0;
    p->work_x1 = p->right < (int)p->w ? p->right + 1 : (int)p->w;
    p->work_y1 = p->bottom < (int)p->h ? p->bottom + 1 : (int)p->h;
    p->area = (p->bottom - p->top) * (p->right - p->left);
}

/* Scale 0 works on 16-bit bands: Q21/Q23 weights, shifts tied to the band
 * width (ceil(log2(w)) - 4, - 3 for d) and height. */
static void plan_scale0(AdmScalePlan *p)
{
    const unsigned lw = ceil_log2(p->w);
    const unsigned hv = lw > 4 ? lw - 4 : 0, d = lw - 3;
    static const unsigned sub[3] = {10, 10, 12}, sq[3] = {29, 29, 30};
    for (int b = 0; b < 3; b++) {
        p->cm.sub[b] = sub[b];
        p->cm.sq_shift[b] = sq[b];
        p->cm.sq_add[b] = (int64_t)1 << (sq[b] - 1);
        p->cm.cub_shift[b] = b < 2 ? hv : d;
        p->cm.cub_add[b] = half_of(p->cm.cub_shift[b]);
    }
    p->cm_row_shift = ceil_log2(p->h);
    p->cm_row_add = half_of(p->cm_row_shift);
    p->cm_exp[0] = p->cm_exp[1] = 52 - (int)hv - (int)p->cm_row_shift;
    p->cm_exp[2] = 57 - (int)d - (int)p->cm_row_shift;
    const unsigned la = ceil_log2((unsigned)p->area);
    p->den_row_shift = la > 20 ? la - 20 : 0;
    p->den_row_add = (uint64_t)half_of(p->den_row_shift);
    p->den_exp = 18 - (int)p->den_row_shift;
}

/* Scales 1..3 work on 32-bit bands with Q32 weights. Note the denominator's
 * square rounding constant: 2^shift, not 2^(shift - 1), as in the reference. */
static void plan_scale123(AdmScalePlan *p, unsigned s)
{
    static const unsigned den_sq[3] = {31, 30, 31}, den_conv[3] = {32, 27, 23};
    static const int cm_conv[3] = {45, 39, 36};
    p->dwt_v_add = s == 1 ? 0 : 32768;
    p->dwt_v_shift = s == 1 ? 0 : 16;
    p->dwt_h_add = s == 2 ? 32768 : 16384;
    p->dwt_h_shift = s == 2 ? 16 : 15;
    const unsigned cub = ceil_log2(p->w);
    for (int b = 0; b < 3; b++) {
        p->cm.sub[b] = 0;
        p->cm.sq_shift[b] = 30;
        p->cm.sq_add[b] = (int64_t)1 << 29;
        p->cm.cub_shift[b] = cub;
        p->cm.cub_add[b] = half_of(cub);
    }
    p->cm_row_shift = ceil_log2(p->h);
    p->cm_row_add = half_of(p->cm_row_shift);
    for (int b = 0; b < 3; b++)
        p->cm_exp[b] = cm_conv[s - 1] - (int)cub - (int)p->cm_row_shift;
    p->den.sq_shift = den_sq[s - 1];
    p->den.sq_add = (uint64_t)1 << den_sq[s - 1];
    p->den.cub_shift = ceil_log2((unsigned)(p->right - p->left));
    p->den.cub_add = (uint64_t)half_of(p->den.cub_shift);
    p->den_row_shift = ceil_log2((unsigned)(p->bottom - p->top));
    p->den_row_add = (uint64_t)half_of(p->den_row_shift);
    p->den_exp = (int)den_conv[s - 1] - (int)p->den_row_shift - (int)p->den.cub_shift;
}

void vmaf_adm_plan(unsigned w, unsigned h, AdmScalePlan plan[4])
{
    for (unsigned s = 0; s < 4; s++) {
        AdmScalePlan *p = &plan[s];
        *p = (AdmScalePlan){0};
        p->in_w = s ? plan[s - 1].w : w;
        p->in_h = s ? plan[s - 1].h : h;
        p->w = (p->in_w + 1) / 2;
        p->h = (p->in_h + 1) / 2;
        plan_region(p);
        if (s)
            plan_scale123(p, s);
        else
            plan_scale0(p);
    }
}
