/**
 * @file libvmaf_cuda.h
 * CUDA state for GPU feature extraction, and pictures that live on the GPU
 * or in pinned host memory.
 *
 * Available in every build: when the library was built without CUDA, or no
 * usable GPU is present, vmaf_cuda_state_init() fails with -ENODEV and the
 * rest of the library works on the CPU. NULL arguments are -EINVAL in every
 * build; in a build without CUDA every other call returns -ENODEV.
 */
#ifndef LIBVMAF_LIBVMAF_CUDA_H
#define LIBVMAF_LIBVMAF_CUDA_H

#include "libvmaf/libvmaf.h"
#include "libvmaf/picture.h"
#include "libvmaf/version.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A CUDA device and the context the library works in (the extractors
 *  and the picture pool of the context it is imported into make their own
 *  streams and memory in it). */
typedef struct VmafCudaState VmafCudaState;

/** How a VmafCudaState is created. */
typedef struct VmafCudaConfiguration {
    void *cu_ctx; /**< A CUcontext to use, or NULL for the primary context of
                       device 0 (after CUDA_VISIBLE_DEVICES). It must live
                       until vmaf_close() of the context the state is
                       imported into: a destroyed CUcontext's handle
                       dangles, and the driver may crash on it. */
} VmafCudaConfiguration;

/**
 * Create CUDA state.
 *
 * @param cu_state Receives the state. It is owned by the caller until handed
 *                 to vmaf_cuda_import_state(), which takes ownership (the
 *                 context frees it in vmaf_close()). libvmaf v3 has no call
 *                 that frees a state; one that will not be used is released
 *                 by vmaf_cuda_import_state(NULL, cu_state), which takes it
 *                 and returns -EINVAL.
 * @param cfg      Optional CUcontext.
 * @return 0 on success, -EINVAL if `cu_state` is NULL, cfg.cu_ctx cannot
 *         be made current, or the environment variable VMAF_CUDA_DEVICE
 *         (which picks the device of the primary context) is not the index
 *         of a visible device, -ENODEV if the library has no CUDA support, no
 *         usable GPU is present, or the GPU's architecture is one this
 *         build has no kernels for (the log names the device and its
 *         compute capability; rebuild with -Dcuda-arch including it),
 *         -ENOMEM or -EIO on another CUDA failure.
 */
VMAF_EXPORT int vmaf_cuda_state_init(VmafCudaState **cu_state, VmafCudaConfiguration cfg);

/**
 * Use this CUDA state for feature extraction in `vmaf`: features requested
 * before or after it, directly or through a model, run on their CUDA twins
 * where one exists and the picture geometry allows it (otherwise on the
 * CPU, with one warning); the backends are chosen at the first
 * vmaf_read_pictures(). Takes ownership of `cu_state`, on success and on failure (the
 * context frees it in vmaf_close()), except when the state is already
 * owned: by this context, or by another one, which keeps it (one state
 * serves one context; create a state per context).
 *
 * @return 0 on success, -EINVAL on a NULL argument, if the context has CUDA
 *         state already, if `cu_state` was imported before (into this or
 *         another context), or after the first vmaf_read_pictures().
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
 * @return 0 on success, -EINVAL on bad parameters, missing CUDA state or a
 *         pool allocated already, -ENOMEM when out of device, pinned or host
 *         memory, -ENODEV or -EIO when the GPU fails otherwise (nothing is
 *         kept on failure: host pictures still work).
 */
VMAF_EXPORT int vmaf_cuda_preallocate_pictures(VmafContext *vmaf,
                                               VmafCudaPictureConfiguration cfg);

/**
 * Take a free picture from the pool, which holds 8. Hand it to
 * vmaf_read_pictures(), which returns it to the pool once scored (or once
 * the run has failed), or give it back unused with vmaf_picture_unref().
 *
 * When every picture is in use, the call collects the frames on the GPU,
 * and while CPU worker threads still hold pictures handed to
 * vmaf_read_pictures() it waits for the first to come back. It never waits
 * for pictures the caller holds: fetched and not yet handed in.
 *
 * Like vmaf_read_pictures(), call it from one thread at a time for a
 * given context, and not while vmaf_read_pictures() runs on another: it
 * may collect that context's frames.
 *
 * After a GPU failure the failed frames give their pictures back, and
 * the call hands one out as before; vmaf_read_pictures() reports the
 * failure.
 *
 * @return 0 on success, -EINVAL on a NULL argument or if no pool was
 *         allocated, -EBUSY (logged) when the caller holds every picture of
 *         the pool.
 */
VMAF_EXPORT int vmaf_cuda_fetch_preallocated_picture(VmafContext *vmaf, VmafPicture *pic);

#ifdef __cplusplus
}
#endif

#endif /* LIBVMAF_LIBVMAF_CUDA_H */
