/*
 * Whether the current device can run this build's kernels
 * (cuda_kernels.h): loading a kernel of the backend's own answers it, since
 * every .cu file is compiled for the same architectures (the nvcc
 * generator of meson.build).
 */
#include <cuda_runtime.h>

#include "cuda/cuda_kernels.h"

namespace {

/* Never launched: only loaded. */
__global__ void k_loadable() {}

} // namespace

extern "C" cudaError_t vmaf_cuda_kernels_loadable(int *ptx_arch)
{
    /* Loads the kernel's module for the current device, where lazy
     * loading would otherwise wait for its first launch. */
    cudaFuncAttributes a;
    const cudaError_t e = cudaFuncGetAttributes(&a, k_loadable);
    *ptx_arch = e == cudaSuccess ? a.ptxVersion : 0;
    return e;
}
