/*
 * Faults of the twin runtime by link-time wrapping (cuda_faults.h): each
 * __wrap_ function stands for the call of the same name without the prefix
 * wherever the library or the test calls it, and passes it on to the real
 * one (__real_) while its switch is off.
 */
#include <stdatomic.h>
#include <stddef.h>

#include <cuda_runtime_api.h>

#include "cuda_faults.h"

static atomic_long fail_submit = -1;
static atomic_long fail_harvest = -1;
static atomic_bool fail_capture;
static atomic_int allocs_left = -1;

void cuda_fault_submit_at(long frame)
{
    atomic_store(&fail_submit, frame);
}

void cuda_fault_harvest_at(long frame)
{
    atomic_store(&fail_harvest, frame);
}

void cuda_fault_captures(bool on)
{
    atomic_store(&fail_capture, on);
}

void cuda_fault_allocations(int n)
{
    atomic_store(&allocs_left, n);
}

cudaError_t __real_vmaf_cuda_twin_mark(cudaEvent_t done, cudaStream_t s, unsigned frame);
cudaError_t __wrap_vmaf_cuda_twin_mark(cudaEvent_t done, cudaStream_t s, unsigned frame);
cudaError_t __real_vmaf_cuda_twin_wait(cudaEvent_t done, unsigned frame);
cudaError_t __wrap_vmaf_cuda_twin_wait(cudaEvent_t done, unsigned frame);
cudaError_t __real_cudaStreamBeginCapture(cudaStream_t s, enum cudaStreamCaptureMode mode);
cudaError_t __wrap_cudaStreamBeginCapture(cudaStream_t s, enum cudaStreamCaptureMode mode);
cudaError_t __real_cudaMalloc(void **p, size_t bytes);
cudaError_t __wrap_cudaMalloc(void **p, size_t bytes);

/* The frame's end is recorded after its launches: where a faulting kernel
 * surfaces first. */
cudaError_t __wrap_vmaf_cuda_twin_mark(cudaEvent_t done, cudaStream_t s, unsigned frame)
{
    const cudaError_t e = __real_vmaf_cuda_twin_mark(done, s, frame);
    return e == cudaSuccess && (long)frame == atomic_load(&fail_submit) ? cudaErrorLaunchFailure
                                                                          : e;
}

cudaError_t __wrap_vmaf_cuda_twin_wait(cudaEvent_t done, unsigned frame)
{
    const cudaError_t e = __real_vmaf_cuda_twin_wait(done, frame);
    return e == cudaSuccess && (long)frame == atomic_load(&fail_harvest)
               ? cudaErrorLaunchFailure
               : e;
}

cudaError_t __wrap_cudaStreamBeginCapture(cudaStream_t s, enum cudaStreamCaptureMode mode)
{
    if (atomic_load(&fail_capture))
        return cudaErrorStreamCaptureInvalidated;
    return __real_cudaStreamBeginCapture(s, mode);
}

cudaError_t __wrap_cudaMalloc(void **p, size_t bytes)
{
    int left = atomic_load(&allocs_left);
    while (left > 0 && !atomic_compare_exchange_weak(&allocs_left, &left, left - 1))
        ;
    if (left == 0)
        return cudaErrorMemoryAllocation;
    return __real_cudaMalloc(p, bytes);
}
