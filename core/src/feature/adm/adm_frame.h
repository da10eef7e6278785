/*
 * The working state of one vmaf_adm_compute() call, shared by the files
 * that run it (adm.c, adm_layout.c, adm_scale.c, adm_score.c).
 *
 * Parameter sets are merged into groups that need the same integer work
 * (same gain limit and fixed-point weights); each group keeps three rows of
 * its intermediate bands in a ring, because masking row c needs the
 * weighted rows c-1, c and c+1.
 */
#ifndef LIBVMAF_SRC_FEATURE_ADM_ADM_FRAME_H
#define LIBVMAF_SRC_FEATURE_ADM_ADM_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "feature/adm/adm.h"
#include "feature/adm/adm_csf.h"
#include "feature/adm/adm_dsp.h"
#include "feature/adm/adm_plan.h"

/* Rows of one group, slot = band row % 3. */
typedef struct AdmRing {
    AdmBandRows r[3], a[3];            /* decoupled: restored, additive */
    int32_t *fa[3], *ca[3], *sa[3];    /* weighted a: f, c, sum3(f) (DLM) */
    int32_t *fr[3], *cr[3], *sr[3];    /* weighted r: the same (AIM) */
} AdmRing;

typedef struct AdmGroup {
    double gain;
    AdmWeights w;
    bool scale0, aim;      /* whether any member needs scale 0, the AIM */
    int64_t dlm[4][3];     /* numerator sums per scale and band (h, v, d) */
    int64_t aim_sum[4][3]; /* the same with the roles of r and a swapped */
    AdmRing ring;
} AdmGroup;

typedef struct AdmFrame {
    AdmDsp dsp;
    AdmScalePlan plan[4];
    unsigned bpc;
    const uint8_t *ref, *dis; /* luma planes */
    ptrdiff_t ref_stride, dis_stride;
    /* low bands (transform input of the next scale): [scale & 1][ref, dis] */
    int32_t *plane[2][2];
    int16_t *lo16, *hi16; /* scale-0 vertical pass, padded by one */
    int32_t *lo32, *hi32; /* vertical pass of scales 1..3 */
    int32_t *sink;        /* the low band of scale 3, unused */
    AdmBandRows band[2];  /* the current h, v, d rows of ref and dis */
    uint64_t den[4][3];   /* denominator sums per scale and band */
    AdmGroup group[ADM_MAX_PARAM_SETS];
    unsigned n_groups;
} AdmFrame;

/* Carves the buffers of f out of scratch (NULL: only measures); returns the
 * bytes used. Needs f->plan and f->n_groups. */
size_t vmaf_adm_layout(AdmFrame *f, void *scratch);

/* Runs scale s over all rows: transform, denominators, then per group
 * decoupling, weighting and masking. Scale s-1 must have run. */
void vmaf_adm_run_scale(AdmFrame *f, unsigned s);

/* Merges the n sets that need the same integer work into groups (at most
 * n; their rings left empty); member[i] = the group of set i. Returns the
 * number of groups. */
unsigned vmaf_adm_group_sets(const AdmParams *params, const AdmWeights *w, unsigned n,
                             AdmGroup *group, unsigned *member);

/* A group's integer sums for one frame, wherever they were computed. */
typedef struct AdmSums {
    const uint64_t (*den)[3]; /* [scale][band], shared by all groups */
    const int64_t (*dlm)[3];
    const int64_t (*aim)[3];
} AdmSums;

/* The scores of parameter set p (float weights w) from its group's sums,
 * for a width x height picture with the scales of plan. */
void vmaf_adm_score(const AdmScalePlan plan[4], const AdmSums *sums, const AdmWeights *w,
                    const AdmParams *p, unsigned width, unsigned height, AdmScores *out);

#endif /* LIBVMAF_SRC_FEATURE_ADM_ADM_FRAME_H */
