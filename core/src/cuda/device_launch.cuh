/*
 * Launch helpers for the twins' kernels (.cu files only): grid sizes,
 * occupancy hints, programmatic dependent launch, and loading a kernel
 * before a graph capture needs it.
 */
#ifndef LIBVMAF_SRC_CUDA_DEVICE_LAUNCH_CUH
#define LIBVMAF_SRC_CUDA_DEVICE_LAUNCH_CUH

#include <cuda_runtime.h>

namespace {

inline unsigned ceil_div(unsigned long long a, unsigned long long b)
{
    return (unsigned)((a + b - 1) / b);
}

/* Resident threads a multiprocessor holds, for the minimum-blocks hints of
 * the launch bounds (asking for more than the architecture has draws a
 * warning and is ignored). */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 750
constexpr int SM_THREADS = 1024;
#elif defined(__CUDA_ARCH__) && (__CUDA_ARCH__ == 860 || __CUDA_ARCH__ == 870 || __CUDA_ARCH__ == 890)
constexpr int SM_THREADS = 1536;
#else
constexpr int SM_THREADS = 2048;
#endif
constexpr int min_blocks(int nt, int want)
{
    return want * nt <= SM_THREADS ? want : SM_THREADS / nt;
}

/* Programmatic dependent launch (compute capability 9 and up): a kernel
 * launched with the attribute waits here until the kernel before it has
 * finished and its writes are visible (at once when launched without it),
 * and that kernel lets it launch as soon as its own blocks are all
 * running. */
__device__ __forceinline__ void wait_for_inputs()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    cudaGridDependencySynchronize();
#endif
}
__device__ __forceinline__ void let_dependents_launch()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    cudaTriggerProgrammaticLaunchCompletion();
#endif
}

/* Loads a kernel now, after an earlier failure e passes it on: with lazy
 * loading (the default since CUDA 12.2) a kernel first launched inside a
 * stream capture is loaded there, which drivers before CUDA 12.3's refuse,
 * failing the capture. */
template <typename K>
cudaError_t load_kernel(K *kernel, cudaError_t e)
{
    cudaFuncAttributes a;
    return e == cudaSuccess ? cudaFuncGetAttributes(&a, kernel) : e;
}

} // namespace

#endif /* LIBVMAF_SRC_CUDA_DEVICE_LAUNCH_CUH */
