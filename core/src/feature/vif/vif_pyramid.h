/*
 * The integer VIF scale pyramid: for each of the four scales, the local
 * statistic of every pixel (summed into a VifAccum) and the filtered,
 * decimated planes of the next scale, streamed row by row.
 */
#ifndef LIBVMAF_SRC_FEATURE_VIF_VIF_PYRAMID_H
#define LIBVMAF_SRC_FEATURE_VIF_VIF_PYRAMID_H

#include <stdbool.h>
#include <stddef.h>

#include "feature/vif/vif_dsp.h"
#include "feature/vif/vif_scratch.h"

/* The input pair: uint8_t samples for bpc 8, uint16_t above; strides in
 * bytes. */
typedef struct VifPlane {
    const void *ref, *dis;
    ptrdiff_t ref_stride, dis_stride;
    unsigned w, h, bpc;
} VifPlane;

/* Sums of every scale into acc[0..3] (zeroed by the caller); scale 0's
 * statistic only when with_scale0. Sizes already checked. */
void vif_pyramid(const VifDsp *dsp, const VifWork *wk, const VifPlane *src, bool with_scale0,
                 const VifGain *gain, VifAccum acc[VIF_SCALES]);

#endif /* LIBVMAF_SRC_FEATURE_VIF_VIF_PYRAMID_H */
