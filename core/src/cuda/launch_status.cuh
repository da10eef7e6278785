/* The status of a <<<>>> launch, for the .cu files. */
#ifndef LIBVMAF_SRC_CUDA_LAUNCH_STATUS_CUH
#define LIBVMAF_SRC_CUDA_LAUNCH_STATUS_CUH

#include <cuda_runtime_api.h>

/* cudaGetLastError() right after a launch also returns an older error left
 * unread on the thread (a failed allocation of the caller's, say), which
 * would fail a frame that had nothing wrong with it: that is cleared first.
 * A sticky error is not lost by this; it fails the launch itself. */
template <typename Launch>
static inline cudaError_t launched(Launch launch)
{
    (void)cudaGetLastError();
    launch();
    return cudaGetLastError();
}

#endif /* LIBVMAF_SRC_CUDA_LAUNCH_STATUS_CUH */
