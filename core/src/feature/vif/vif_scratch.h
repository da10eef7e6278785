/*
 * The working memory of one integer VIF call, carved from the caller's
 * scratch: the decimated planes of scales 1-3 and the row buffers of the
 * streaming passes. Nothing is allocated.
 */
#ifndef LIBVMAF_SRC_FEATURE_VIF_VIF_SCRATCH_H
#define LIBVMAF_SRC_FEATURE_VIF_VIF_SCRATCH_H

#include <stddef.h>
#include <stdint.h>

#include "feature/vif/vif_dsp.h"

/* Pixels per horizontal-pass call: the moments of a run stay in L1. */
#define VIF_CHUNK 256

typedef struct VifWork {
    /* scale s >= 1 planes (w >> s) x (h >> s), stride in elements */
    uint16_t *plane_ref[VIF_SCALES], *plane_dis[VIF_SCALES];
    size_t plane_stride[VIF_SCALES];
    VifStatRow vrow;             /* padded by VIF_ROW_PAD */
    uint16_t *dec_ref, *dec_dis; /* padded by VIF_ROW_PAD */
    VifMoments mom;              /* VIF_CHUNK elements each */
} VifWork;

/* Bytes needed for a w x h plane (sides already checked). With base, also
 * points wk into base (any alignment: the layout starts at the next 64-byte
 * boundary and the size counts the slack). */
size_t vif_scratch_layout(unsigned w, unsigned h, void *base, VifWork *wk);

#endif /* LIBVMAF_SRC_FEATURE_VIF_VIF_SCRATCH_H */
