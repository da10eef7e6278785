/*
 * PSNR as libvmaf 3.2's `psnr` extractor computes it, bit for bit
 * (docs/metrics/psnr.md): the options, the score names, and the scores
 * made from a plane's sum of squared errors, which is an exact integer.
 */
#ifndef LIBVMAF_SRC_FEATURE_PSNR_PSNR_H
#define LIBVMAF_SRC_FEATURE_PSNR_PSNR_H

#include <stdbool.h>
#include <stdint.h>

#include "feature/feature_collector.h"
#include "feature/feature_extractor.h"

typedef struct PsnrOptions {
    bool enable_chroma;
    bool enable_mse;
    bool enable_apsnr;
    bool reduced_hbd_peak;
    double min_sse;
} PsnrOptions;

#define PSNR_PLANES 3

extern const char *const vmaf_psnr_feature[PSNR_PLANES];  /* psnr_y, psnr_cb, psnr_cr */
extern const char *const vmaf_mse_feature[PSNR_PLANES];   /* mse_y, ... */
extern const char *const vmaf_apsnr_feature[PSNR_PLANES]; /* apsnr_y, ... (aggregate) */

/* The peak sample value: 255 at 8 bits; above, 2^bpc - 1, or with
 * reduced_hbd_peak 255 * 2^(bpc - 8), the 8-bit peak scaled. */
unsigned vmaf_psnr_peak(const PsnrOptions *o, unsigned bpc);

/* The highest PSNR of a pw x ph plane: 6 bpc + 12, or with min_sse set
 * ceil(10 log10(peak^2 pw ph / min_sse)). */
double vmaf_psnr_max(const PsnrOptions *o, unsigned bpc, unsigned peak, unsigned pw,
                     unsigned ph);

/* The MSE and PSNR of a pw x ph plane whose squared errors sum to sse. */
double vmaf_psnr_mse(uint64_t sse, unsigned pw, unsigned ph);
double vmaf_psnr_db(double mse, unsigned peak, double max);

/* The PSNR of a whole video: `samples` samples whose squared errors sum to
 * sse, capped at ceil(10 log10(2 peak^2 samples)). */
double vmaf_apsnr_db(uint64_t sse, uint64_t samples, unsigned peak);

/* What psnr and its device twin share as extractors (psnr_extractor.c). */

/* 0 when the options can be scored on fex's pictures, else one error line
 * and -EINVAL (chroma asked of 4:0:0 pictures). */
int vmaf_psnr_check_format(const VmafFex *fex, const PsnrOptions *o);

/* Stores plane p's PSNR (and MSE with enable_mse) of frame `index` from
 * its MSE, capped at max. 0 or the collector's error. */
int vmaf_psnr_store_plane(const VmafFex *fex, VmafFeatureCollector *fc, const PsnrOptions *o,
                          unsigned p, double mse, unsigned peak, double max, unsigned index);

/* Stores apsnr of the first `planes` planes from the sums over every frame
 * read (nothing for a plane with no samples). 0, or the collector's error
 * after one line naming fex. */
int vmaf_psnr_store_apsnr(const VmafFex *fex, VmafFeatureCollector *fc, unsigned planes,
                          const uint64_t sse[PSNR_PLANES], const uint64_t samples[PSNR_PLANES],
                          unsigned peak);

#endif /* LIBVMAF_SRC_FEATURE_PSNR_PSNR_H */
