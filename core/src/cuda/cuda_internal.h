/* What the rest of the library needs from the CUDA backend. In a build
 * without CUDA these are implemented by cuda_none.c. */
#ifndef LIBVMAF_SRC_CUDA_CUDA_INTERNAL_H
#define LIBVMAF_SRC_CUDA_CUDA_INTERNAL_H

#include "libvmaf/picture.h"

struct VmafCudaState;
struct VmafCudaPicturePool;

/* Frees the state after all its work has finished. NULL is a no-op. */
void vmaf_cuda_state_free(struct VmafCudaState *s);

/* Frees a preallocated picture pool (pictures still referenced are freed
 * when their last reference goes). NULL is a no-op. */
void vmaf_cuda_picture_pool_free(struct VmafCudaPicturePool *p);

/* Notes that vmaf_read_pictures() took a picture of the context's
 * preallocated pool: from then on the library, not the caller, holds it
 * until its frame is scored. Any other picture is ignored. */
struct VmafContext;
void vmaf_cuda_pool_handed_in(struct VmafContext *vmaf, const VmafPicture *pic);

/* Copies the luma plane of a device picture into a host picture of the
 * same format (chroma left unset), for CPU extractors that run beside the
 * GPU. The memory is pinned and comes back to the state for the next frame
 * when the picture's last reference goes. 0 or negative errno. */
int vmaf_cuda_download_luma(struct VmafCudaState *s, const VmafPicture *dev,
                            VmafPicture *host);

/* Host copies allocated so far by vmaf_cuda_download_luma (tests). */
unsigned vmaf_cuda_host_copies_made(struct VmafCudaState *s);

#endif /* LIBVMAF_SRC_CUDA_CUDA_INTERNAL_H */
