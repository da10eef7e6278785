/* The float_ssim CUDA twin, and what the tests read of a live one. */
#ifndef LIBVMAF_SRC_FEATURE_CUDA_FLOAT_SSIM_CUDA_H
#define LIBVMAF_SRC_FEATURE_CUDA_FLOAT_SSIM_CUDA_H

#include <stddef.h>

#include "cuda/twin.h"
#include "feature/feature_extractor.h"

extern const VmafFeatureExtractor vmaf_fex_float_ssim_cuda;

/* The twin runtime of an instance (its counts: vmaf_cuda_twin_counts; the
 * redos are means summed in the CPU's order). */
VmafCudaTwin *vmaf_float_ssim_cuda_twin(VmafFex *fex);

/* Where the decimated f32 planes of the last submitted frame are: device
 * memory, *W x *H floats in rows *pitch bytes apart, readable once that
 * frame is collected. -EINVAL at scale 1 (nothing is decimated) or before
 * any frame. */
int vmaf_float_ssim_cuda_decimated(VmafFex *fex, const float *plane[2], size_t *pitch,
                                   unsigned *W, unsigned *H);

#endif /* LIBVMAF_SRC_FEATURE_CUDA_FLOAT_SSIM_CUDA_H */
