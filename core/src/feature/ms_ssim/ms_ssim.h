/*
 * MS-SSIM as libvmaf 3.2's `float_ms_ssim` extractor computes it, bit for
 * bit (docs/metrics/float_ms_ssim.md): five scales, each the previous one
 * low-passed by a 9x9 wavelet filter and decimated by 2, SSIM's l, c and s
 * at each (float_ssim's window arithmetic), combined with Wang's weights.
 */
#ifndef LIBVMAF_SRC_FEATURE_MS_SSIM_MS_SSIM_H
#define LIBVMAF_SRC_FEATURE_MS_SSIM_MS_SSIM_H

#include <stddef.h>

#define MS_SSIM_SCALES 5

/* The smallest side: each of the five scales keeps at least 11 samples. */
#define MS_SSIM_MIN_SIDE 176u

typedef struct MsSsimResult {
    double score;
    double l[MS_SSIM_SCALES], c[MS_SSIM_SCALES], s[MS_SSIM_SCALES];
} MsSsimResult;

/* Bytes of scratch for w x h pictures (0 when too small). */
size_t vmaf_ms_ssim_scratch_size(unsigned w, unsigned h);

/* MS-SSIM of two w x h f32 luma planes (rows packed, 8-bit scale); both
 * are overwritten. 0, or -EINVAL (too small, scratch too small). */
int vmaf_ms_ssim_compute(float *ref, float *dis, unsigned w, unsigned h, void *scratch,
                         size_t scratch_size, MsSsimResult *res);

/* The next scale of a w x h f32 plane (rows packed): low-passed and every
 * other sample kept, ceil(w/2) x ceil(h/2) into dst. */
void vmaf_ms_ssim_decimate(const float *src, unsigned w, unsigned h, float *dst);

/* res->score from the l, c and s of the five scales (Wang's exponents,
 * pow() in double, the reference's order). */
void vmaf_ms_ssim_combine(MsSsimResult *res);

#endif /* LIBVMAF_SRC_FEATURE_MS_SSIM_MS_SSIM_H */
