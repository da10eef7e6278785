/*
 * PSNR-HVS as libvmaf 3.2's `psnr_hvs` extractor computes it, bit for bit
 * (docs/metrics/psnr_hvs.md): per plane, 8x8 blocks at a step of 7, the
 * DCT coefficients' errors weighted by a contrast sensitivity table and
 * reduced by a masking threshold, in the reference's float steps.
 */
#ifndef LIBVMAF_SRC_FEATURE_PSNR_HVS_PSNR_HVS_H
#define LIBVMAF_SRC_FEATURE_PSNR_HVS_PSNR_HVS_H

#include <stddef.h>
#include <stdint.h>

#include "feature/feature_collector.h"
#include "feature/feature_extractor.h"

/* The contrast sensitivity tables: luma, and the 4:2:0 Cb and Cr ones
 * the reference uses for chroma of every format. */
enum { PSNR_HVS_Y, PSNR_HVS_CB, PSNR_HVS_CR };
extern const float vmaf_psnr_hvs_csf[3][8][8];

/* The masking weights of sensitivity table `table`. */
void vmaf_psnr_hvs_mask(int table, float mask[8][8]);

/* A plane's error from the sum of its count terms (block by block, each
 * block's 64 row-major): the sum over count, over the squared peak. */
float vmaf_psnr_hvs_normalize(float sum, int count, unsigned bpc);

/* The mean weighted error of a w x h plane (samples of bpc bits, uint8_t
 * at 8 bits, else uint16_t; strides in bytes) over the sensitivity table
 * `table`, divided by the squared peak: 0 for equal planes; NaN when the
 * plane holds no 8x8 block. */
float vmaf_psnr_hvs_error(const void *ref, ptrdiff_t ref_stride, const void *dis,
                          ptrdiff_t dis_stride, unsigned w, unsigned h, unsigned bpc,
                          int table);

/* The extractor's, shared with its CUDA twin. The planes' sizes, in the
 * reference's rounding, after refusing what psnr_hvs cannot score (more
 * than 12 bits, 4:0:0, a plane without an 8x8 block): 0 or -EINVAL. */
int vmaf_psnr_hvs_planes(const VmafFex *fex, unsigned pw[3], unsigned ph[3]);

/* Stores the frame's scores from its three planes' errors. */
int vmaf_psnr_hvs_store(const VmafFex *fex, VmafFeatureCollector *fc, const double error[3],
                        unsigned index);

#endif /* LIBVMAF_SRC_FEATURE_PSNR_HVS_PSNR_HVS_H */
