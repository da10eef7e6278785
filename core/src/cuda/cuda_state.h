/* The CUDA device context as the extractors see it (CUDA builds only).
 *
 * Every entry point that touches the device brackets its work with
 * vmaf_cuda_enter() / vmaf_cuda_leave(), which make the state's CUcontext
 * current on the calling thread, so that the library works whichever
 * context the caller (FFmpeg, say) has current, and from any thread. */
#ifndef LIBVMAF_SRC_CUDA_CUDA_STATE_H
#define LIBVMAF_SRC_CUDA_CUDA_STATE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include <cuda_runtime_api.h>

#include "libvmaf/libvmaf_cuda.h"

/* Frames a device extractor keeps in flight (upload of one overlapping the
 * kernels of another). A picture pool holds enough pictures for the
 * extractor to keep this many pairs and the caller to fill one more. */
#define VMAF_CUDA_FRAMES_IN_FLIGHT 3
#define VMAF_CUDA_POOL_PICTURES (2 * (VMAF_CUDA_FRAMES_IN_FLIGHT + 1))

/* Driver API entry points, reached through cudart so that the library does
 * not link libcuda (a machine without a driver still loads it). */
typedef int (*VmafCuCtxPushCurrent)(void *ctx);
typedef int (*VmafCuCtxPopCurrent)(void **ctx);
typedef int (*VmafCuCtxGetDevice)(int *dev);
typedef int (*VmafCuDevicePrimaryCtxRetain)(void **ctx, int dev);
typedef int (*VmafCuDevicePrimaryCtxRelease)(int dev);
typedef int (*VmafCuDeviceGet)(int *dev, int ordinal);

struct VmafCudaState {
    atomic_int refs;   /* the owner, plus one per live picture pool and host copy in use */
    atomic_bool imported; /* owned by a context (vmaf_cuda_import_state) */
    atomic_bool lost;     /* its context could not be made current (a teardown says it once) */
    atomic_int reported;  /* the sticky cudaError_t logged last (vmaf_cuda_report) */
    void *ctx;         /* CUcontext pushed around every use */
    int device;        /* runtime ordinal (after CUDA_VISIBLE_DEVICES) */
    int cu_device;     /* driver CUdevice of ctx */
    bool own_primary;  /* ctx is the retained primary context */
    char name[300];    /* device name, for messages */
    int sm_count;
    /* Programmatic dependent launch: the device has it (compute capability
     * 9 and up) and so do the kernels it runs (compiled for compute_90 and
     * up; a build for older architectures, JIT-compiled here, has no wait
     * for the decimation's writes in its SSIM kernels). */
    bool pdl;
    VmafCuCtxPushCurrent push;
    VmafCuCtxPopCurrent pop;
    VmafCuDevicePrimaryCtxRelease primary_release;
    /* Pinned host copies of device pictures for CPU extractors
     * (vmaf_cuda_download), kept for reuse once released. */
    pthread_mutex_t copies_lock;
    struct VmafCudaHostCopy *free_copies;
    unsigned copies_made; /* allocations, for tests */
    /* Threads that copy host pictures into pinned staging (under
     * copies_lock: made on first use, shared by the extractors). */
    struct VmafTeam *copy_team;
    bool copy_team_tried;
};

/* Whether a failed call's error e is to be logged: not when e is a sticky
 * error (an illegal address, a launch failure, an uncorrectable ECC error)
 * already logged for this state. Such an error fails every later call
 * with the same code, in the frames' uploads and the extractors' waits
 * alike: the first says it, so that a failure stays one line. Other
 * errors (out of memory) are logged each time. s may be NULL (true). */
bool vmaf_cuda_report(struct VmafCudaState *s, cudaError_t e);

/* Makes the state's context current. 0 or negative errno (logged). */
int vmaf_cuda_enter(struct VmafCudaState *s);
/* The same, with the failure's line naming `who` and, when `frame` is not
 * negative, the frame: the caller then logs nothing more. */
int vmaf_cuda_enter_for(struct VmafCudaState *s, const char *who, long frame);
/* As vmaf_cuda_enter(), for freeing: a lost context is logged once for
 * all the parts freed after it. */
int vmaf_cuda_enter_teardown(struct VmafCudaState *s);
/* Restores the context that was current before vmaf_cuda_enter(). */
void vmaf_cuda_leave(struct VmafCudaState *s);

/* Maps a CUDA error to a negative errno: -ENOMEM for allocations,
 * -ENODEV for a missing or unusable device/driver, -EIO otherwise (0 for
 * cudaSuccess). For an error it also clears the calling thread's last
 * error (cudaGetLastError), which the failed call set: every caller is
 * handling that failure, and a launch checked with cudaGetLastError()
 * later on the thread must not report it again. */
int vmaf_cuda_errno(cudaError_t e);

/* The thread team that copies host pictures into pinned staging
 * (row_copy.h), made on the first call; NULL, which copies in the calling
 * thread, where no thread could be started. */
struct VmafTeam *vmaf_cuda_copy_team(struct VmafCudaState *s);

/* An extra reference for objects that outlive the context (picture pools). */
void vmaf_cuda_state_ref(struct VmafCudaState *s);

/* Frees the pinned host copies kept for reuse (cuda_host_copy.c), as the
 * state goes: every copy still in use holds a reference to it. */
void vmaf_cuda_host_copies_free(struct VmafCudaState *s);

#endif /* LIBVMAF_SRC_CUDA_CUDA_STATE_H */
