/* The CUDA API of a build without CUDA: every entry point reports that no
 * device is available, so callers fall back to the CPU. NULL arguments are
 * -EINVAL first, as in a CUDA build (libvmaf_cuda.h), so that a caller's
 * bug reads the same in either build. */
#include <errno.h>

#include "libvmaf/libvmaf_cuda.h"

#include "cuda/cuda_internal.h"
#include "log.h"
#include "picture_internal.h"

#define NO_CUDA "this build of libvmaf has no CUDA support (rebuild it with -Dcuda=enabled)"

/* The reason every entry point below gives, once per call. */
static int no_cuda(const char *call)
{
    vmaf_error("cuda: %s: " NO_CUDA, call);
    return -ENODEV;
}

static int null_argument(const char *call)
{
    vmaf_error("cuda: %s: a required argument is NULL", call);
    return -EINVAL;
}

int vmaf_cuda_state_init(VmafCudaState **cu_state, VmafCudaConfiguration cfg)
{
    (void)cfg;
    if (!cu_state)
        return null_argument("vmaf_cuda_state_init");
    *cu_state = NULL;
    vmaf_warning("cuda: " NO_CUDA);
    return -ENODEV;
}

int vmaf_cuda_import_state(VmafContext *vmaf, VmafCudaState *cu_state)
{
    /* No state can exist in this build: any non-NULL one is not ours. */
    if (!vmaf || !cu_state)
        return null_argument("vmaf_cuda_import_state");
    return no_cuda("vmaf_cuda_import_state");
}

int vmaf_cuda_preallocate_pictures(VmafContext *vmaf, VmafCudaPictureConfiguration cfg)
{
    (void)cfg;
    if (!vmaf)
        return null_argument("vmaf_cuda_preallocate_pictures");
    return no_cuda("vmaf_cuda_preallocate_pictures");
}

int vmaf_cuda_fetch_preallocated_picture(VmafContext *vmaf, VmafPicture *pic)
{
    if (!vmaf || !pic)
        return null_argument("vmaf_cuda_fetch_preallocated_picture");
    return no_cuda("vmaf_cuda_fetch_preallocated_picture");
}

void vmaf_cuda_state_free(struct VmafCudaState *s)
{
    (void)s;
}

int vmaf_cuda_download(struct VmafCudaState *s, const VmafPicture *dev, VmafPicture *host,
                       unsigned index, bool chroma)
{
    (void)chroma;
    (void)s;
    (void)dev;
    (void)host;
    vmaf_error("frame %u: a device picture cannot be read: this build has no CUDA support",
               index);
    return -ENODEV;
}

unsigned vmaf_cuda_host_copies_made(struct VmafCudaState *s)
{
    (void)s;
    return 0;
}

int vmaf_cuda_frames_init(VmafCudaFrames **f, struct VmafCudaState *cu,
                          const VmafCudaFramesGeometry *g, unsigned users, const char *who,
                          unsigned index)
{
    (void)cu, (void)g, (void)users, (void)index;
    *f = NULL;
    vmaf_error("%s: " NO_CUDA, who);
    return -ENODEV;
}

int vmaf_cuda_frames_put(VmafCudaFrames *f, const VmafPicture *ref, const VmafPicture *dist,
                         unsigned index, VmafCudaPlanes *planes)
{
    (void)f, (void)ref, (void)dist, (void)index, (void)planes;
    return -ENODEV;
}

bool vmaf_cuda_frames_chroma(const VmafCudaFrames *f)
{
    (void)f;
    return false;
}

void vmaf_cuda_frames_done(VmafCudaFrames *f, unsigned slot)
{
    (void)f, (void)slot;
}

void vmaf_cuda_frames_free(VmafCudaFrames *f)
{
    (void)f;
}
