/*
 * A frame's end on a twin's stream (twin_internal.h). A kernel's fault
 * surfaces at one of these two calls, so they take the frame they serve
 * and live in a file of their own, apart from their callers: a test
 * program wraps them at link time (-Wl,--wrap) to fail a chosen frame.
 */
#include <cuda_runtime_api.h>

#include "cuda/twin_internal.h"

cudaError_t vmaf_cuda_twin_mark(cudaEvent_t done, cudaStream_t s, unsigned frame)
{
    (void)frame;
    return cudaEventRecord(done, s);
}

cudaError_t vmaf_cuda_twin_wait(cudaEvent_t done, unsigned frame)
{
    (void)frame;
    return cudaEventSynchronize(done);
}
