/**
 * @file libvmaf_cuda.h
 * CUDA state for GPU feature extraction, and pictures that live on the GPU
 * or in pinned host memory.
 *
 * Available in every build: when the library was built without CUDA, or no
 * usable GPU is present, vmaf_cuda_state_init() fails with -ENODEV and the
 * rest of the library works on the CPU.
 */
#ifndef LIBVMAF_LIBVMAF_CUDA_H
#define LIBVMAF_LIBVMAF_CUDA_H

#include "libvmaf/libvmaf.h"
#include "libvmaf/picture.h"
#include "libvmaf/version.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A CUDA device context, its streams and memory pools. */
typedef struct VmafCudaState VmafCudaState;

/** How a VmafCudaState is created. */
typedef struct VmafCudaConfiguration {
    void *cu_ctx; /**< A CUcontext to use, or NULL for the primary context of
                       device 0 (after CUDA_VISIBLE_DEVICES). */
} VmafCudaConfiguration;

/**
 * Create CUDA state.
 *
 * @param cu_state Receives the state. It is owned by the caller until handed
 *                 to vmaf_cuda_import_state(), which takes ownership (the
 *                 context frees it in vmaf_close()).
 * @param cfg      Optional CUcontext.
 * @return 0 on success, -ENODEV if the library has no CUDA support or no
 *         usable GPU is present, -ENOMEM or -EIO on a CUDA failure.
 */
VMAF_EXPORT int vmaf_cuda_state_init(VmafCudaState **cu_state, VmafCudaConfiguration cfg);

/**
 * Use this CUDA state for feature extraction in `vmaf`: features requested
 * afterwards, directly or through a model, run on their CUDA twins where one
 * exists and the picture geometry allows it (otherwise on the CPU, with one
 * warning). Takes ownership of `cu_state`, on success and on failure (the
 * context frees it in vmaf_close(); one state serves one context).
 *
 * @return 0 on success, -EINVAL on a NULL argument, if the context has CUDA
 *         state already, or after the first vmaf_read_pictures().
 */
VMAF_EXPORT int vmaf_cuda_import_state(VmafContext *vmaf, VmafCudaState *cu_state);

/** Where preallocated pictures live. */
enum VmafCudaPicturePreallocationMethod {
    VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_NONE = 0,    /**< No pool. */
    VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_DEVICE,      /**< Device memory: data[] are device pointers. */
    VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_HOST,        /**< Ordinary host memory. */
    VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_HOST_PINNED, /**< Page-locked host memory (fast upload). */
};

/** Geometry and memory kind of the preallocated picture pool. */
typedef struct VmafCudaPictureConfiguration {
    struct {
        unsigned w, h;                /**< Luma size. */
        unsigned bpc;                 /**< 8, 10, 12 or 16. */
        enum VmafPixelFormat pix_fmt; /**< Pixel format. */
    } pic_params;
    enum VmafCudaPicturePreallocationMethod pic_prealloc_method; /**< Memory kind. */
} VmafCudaPictureConfiguration;

/**
 * Allocate a pool of pictures once, to be reused for every frame.
 * Needs imported CUDA state.
 *
 * @return 0 on success, -EINVAL on bad parameters or missing CUDA state,
 *         -ENOMEM when out of (device or pinned) memory.
 */
VMAF_EXPORT int vmaf_cuda_preallocate_pictures(VmafContext *vmaf,
                                               VmafCudaPictureConfiguration cfg);

/**
 * Take a free picture from the pool (waits until the library has finished
 * with one). Hand it to vmaf_read_pictures(), which returns it to the pool.
 *
 * @return 0 on success, -EINVAL if no pool was allocated.
 */
VMAF_EXPORT int vmaf_cuda_fetch_preallocated_picture(VmafContext *vmaf, VmafPicture *pic);

#ifdef __cplusplus
}
#endif

#endif /* LIBVMAF_LIBVMAF_CUDA_H */
