/* What the rest of the library needs from the CUDA backend. In a build
 * without CUDA these are implemented by cuda_none.c. */
#ifndef LIBVMAF_SRC_CUDA_CUDA_INTERNAL_H
#define LIBVMAF_SRC_CUDA_CUDA_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "libvmaf/picture.h"

struct VmafCudaState;
struct CUevent_st; /* cudaEvent_t's target */

/* Frees the state after all its work has finished. NULL is a no-op. */
void vmaf_cuda_state_free(struct VmafCudaState *s);

/* Copies a device picture into a host picture of the same size and
 * depth, for CPU extractors that run beside the GPU: its luma alone, as
 * 4:0:0, or with `chroma` every plane in its own format. The memory is
 * pinned and comes back to the state for the next frame when the
 * picture's last reference goes. 0 or negative errno; a failure is logged
 * once, with frame `index`. */
int vmaf_cuda_download(struct VmafCudaState *s, const VmafPicture *dev, VmafPicture *host,
                       unsigned index, bool chroma);

/* Host copies allocated so far by vmaf_cuda_download (tests). */
unsigned vmaf_cuda_host_copies_made(struct VmafCudaState *s);

/* The frames in flight on the device, for every CUDA extractor of a
 * context (cuda_frames.c): each pair is uploaded once, or read where it is
 * when it is on the device already, and every extractor reads it there. */
typedef struct VmafCudaFrames VmafCudaFrames;

/* One frame's planes on the device, as its users read them. */
typedef struct VmafCudaPlanes {
    unsigned index;              /* the frame */
    unsigned slot;               /* its place, for vmaf_cuda_frames_done() */
    const void *luma[2];         /* reference and distorted luma, device memory */
    size_t pitch[2];             /* their row pitches, in bytes */
    /* [side][0] U, [side][1] V, as the pictures have them (chroma sides
     * rounding up), where the frames carry chroma; else NULL. */
    const void *chroma[2][2];
    size_t chroma_pitch[2][2];
    struct CUevent_st *uploaded; /* wait for it before reading; NULL: nothing uploaded */
} VmafCudaPlanes;

/* What the frames carry: w x h pictures of bpc bits in format fmt, their
 * chroma too where `chroma` is set (a device extractor reads it; 4:0:0 has
 * none). */
typedef struct VmafCudaFramesGeometry {
    unsigned w, h, bpc;
    enum VmafPixelFormat fmt;
    bool chroma;
} VmafCudaFramesGeometry;

/* For `users` extractors (named by `who` in messages) of pictures of
 * geometry g, made when frame `index` arrives. 0 or negative errno
 * (logged, naming that frame). */
int vmaf_cuda_frames_init(VmafCudaFrames **f, struct VmafCudaState *cu,
                          const VmafCudaFramesGeometry *g, unsigned users, const char *who,
                          unsigned index);

/* Places frame `index` on the device and describes it in *planes. Every
 * user must have finished the frame that its place held before (the
 * extractors' reserve()); the pictures may be dropped after the call. 0 or
 * negative errno, logged with the frame; a failure is sticky. */
int vmaf_cuda_frames_put(VmafCudaFrames *f, const VmafPicture *ref, const VmafPicture *dist,
                         unsigned index, VmafCudaPlanes *planes);

/* Whether the frames carry chroma (VmafCudaPlanes.chroma). */
bool vmaf_cuda_frames_chroma(const VmafCudaFrames *f);

/* One user is done with the frame in place `slot` (its kernels ended, or
 * it gave the frame up): after the last, the pictures held for it go back
 * to their owner. */
void vmaf_cuda_frames_done(VmafCudaFrames *f, unsigned slot);

/* Frees everything, after the users were closed. NULL is a no-op. */
void vmaf_cuda_frames_free(VmafCudaFrames *f);

#endif /* LIBVMAF_SRC_CUDA_CUDA_INTERNAL_H */
