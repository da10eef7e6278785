/* The CUDA API of a build without CUDA: every entry point reports that no
 * device is available, so callers fall back to the CPU. */
#include <errno.h>

#include "libvmaf/libvmaf_cuda.h"

#include "cuda/cuda_internal.h"
#include "log.h"

int vmaf_cuda_state_init(VmafCudaState **cu_state, VmafCudaConfiguration cfg)
{
    (void)cfg;
    if (cu_state)
        *cu_state = NULL;
    vmaf_info("this build of libvmaf has no CUDA support (rebuild with -Dcuda=enabled)");
    return -ENODEV;
}

int vmaf_cuda_import_state(VmafContext *vmaf, VmafCudaState *cu_state)
{
    (void)vmaf;
    (void)cu_state;
    return -ENODEV;
}

int vmaf_cuda_preallocate_pictures(VmafContext *vmaf, VmafCudaPictureConfiguration cfg)
{
    (void)vmaf;
    (void)cfg;
    return -ENODEV;
}

int vmaf_cuda_fetch_preallocated_picture(VmafContext *vmaf, VmafPicture *pic)
{
    (void)vmaf;
    (void)pic;
    return -ENODEV;
}

void vmaf_cuda_state_free(struct VmafCudaState *s)
{
    (void)s;
}

void vmaf_cuda_picture_pool_free(struct VmafCudaPicturePool *p)
{
    (void)p;
}

int vmaf_cuda_download_luma(struct VmafCudaState *s, const VmafPicture *dev, VmafPicture *host)
{
    (void)s;
    (void)dev;
    (void)host;
    return -ENODEV;
}

unsigned vmaf_cuda_host_copies_made(struct VmafCudaState *s)
{
    (void)s;
    return 0;
}
