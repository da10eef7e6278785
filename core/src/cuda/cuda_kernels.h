/* What the CUDA state needs from the backend's kernels (kernels_loadable.cu);
 * included by C and by the .cu files (CUDA builds only). */
#ifndef LIBVMAF_SRC_CUDA_CUDA_KERNELS_H
#define LIBVMAF_SRC_CUDA_CUDA_KERNELS_H

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Whether the device current on the calling thread can run this build's
 * kernels: cudaSuccess, or the error loading one of them gives
 * (cudaErrorNoKernelImageForDevice when the build holds neither machine
 * code for the device's architecture nor PTX it can compile,
 * cudaErrorUnsupportedPtxVersion when the driver is older than the PTX).
 * Every kernel is compiled for the same architectures, so one stands for
 * all. On success *ptx_arch is the virtual architecture the loaded code
 * was compiled for (90 for compute_90): below 90 the kernels hold no
 * programmatic-dependent-launch wait, whatever the device. The error is
 * left for the caller to consume. */
cudaError_t vmaf_cuda_kernels_loadable(int *ptx_arch);

#ifdef __cplusplus
}
#endif

#endif /* LIBVMAF_SRC_CUDA_CUDA_KERNELS_H */
