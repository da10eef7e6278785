/*
 * Geometry and rounding of each of the four scales: band sizes, the scored
 * region, and every shift the reference derives from the sizes (it uses
 * ceil(log2(n)) and pow(2, k); these are the same numbers in integers).
 */
#ifndef LIBVMAF_SRC_FEATURE_ADM_ADM_PLAN_H
#define LIBVMAF_SRC_FEATURE_ADM_ADM_PLAN_H

#include <stdint.h>

/* Contrast masking: per band (h, v, d), x = max(|x| - (thr << sub), 0),
 * then ((x*x + sq_add) >> sq_shift) * x, + cub_add, >> cub_shift. */
typedef struct AdmCmRound {
    unsigned sub[3];
    unsigned sq_shift[3];
    int64_t sq_add[3];
    unsigned cub_shift[3];
    int64_t cub_add[3];
} AdmCmRound;

/* Denominator terms of scales 1..3: ((h*h + sq_add) >> sq_shift) * h,
 * + cub_add, >> cub_shift (scale 0 cubes exactly). */
typedef struct AdmDenRound {
    unsigned sq_shift;
    uint64_t sq_add;
    unsigned cub_shift;
    uint64_t cub_add;
} AdmDenRound;

typedef struct AdmScalePlan {
    unsigned in_w, in_h; /* transform input */
    unsigned w, h;       /* bands */
    /* Scored region [top, bottom) x [left, right): the band minus a border
     * of about a tenth; the decoupled and weighted region one sample more
     * on each side, clipped to the band. */
    int left, top, right, bottom;
    int work_x0, work_x1, work_y0, work_y1;
    int area; /* (bottom - top) * (right - left) */
    /* transform rounding of scales 1..3 (scale 0 has its own, fixed) */
    int32_t dwt_v_add, dwt_h_add;
    unsigned dwt_v_shift, dwt_h_shift;
    /* numerator: row sums rounded by row_shift, then the sum over rows
     * is divided by 2^cm_exp[band] (before csf_mode-1 scaling) */
    AdmCmRound cm;
    unsigned cm_row_shift;
    int64_t cm_row_add;
    int cm_exp[3];
    /* denominator: the same with den_row_shift and 2^den_exp */
    AdmDenRound den;
    unsigned den_row_shift;
    uint64_t den_row_add;
    int den_exp;
} AdmScalePlan;

/* Fills the plan of each scale for a w x h picture (sizes checked by the
 * caller: ADM_MIN_SIZE..ADM_MAX_SIZE). */
void vmaf_adm_plan(unsigned w, unsigned h, AdmScalePlan plan[4]);

#endif /* LIBVMAF_SRC_FEATURE_ADM_ADM_PLAN_H */
