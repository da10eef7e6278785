/*
 * A deliberately literal integer VIF for tests: the reference's data flow
 * as docs/metrics/vif_numerics.md describes it, with its buffers kept
 * whole: one padded frame buffer per plane reused by every scale, full
 * resolution filtering before each decimation, padding by copying rows and
 * elements in the reference's order, and row buffers shared by all scales.
 * Nothing is optimised, so it checks the streaming code's geometry (row
 * mirroring, even-row/column decimation, single-row and single-column
 * scales) independently. One parameter set per call.
 */
#ifndef TEST_VIF_VIF_MODEL_H
#define TEST_VIF_VIF_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Per-scale f32 num and den of the reference (num/den of skipped scale 0
 * are left 0). ref/dis packed (w samples a row), uint8_t at 8 bits,
 * uint16_t above. 0, or -ENOMEM. */
int vif_model(const void *ref, const void *dis, unsigned w, unsigned h, unsigned bpc,
              double egl, bool skip_scale0, float num[4], float den[4]);

/* The sums of one scale, and the per-pixel step that adds to them (from
 * the horizontally filtered moments), for one gain limit. */
typedef struct VifModelSums {
    int64_t num_log, den_log, num_non_log, den_non_log;
} VifModelSums;
void vif_model_pixel(uint32_t mu1, uint32_t mu2, uint32_t xx, uint32_t yy, uint32_t xy,
                     double egl, VifModelSums *s);

#endif /* TEST_VIF_VIF_MODEL_H */
