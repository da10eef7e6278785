/*
 * What a context accepts as a frame's pictures: allocated pictures whose
 * luma plane lies inside their memory (the chroma planes are checked by
 * the extractors that read them), both in host or both in device
 * memory, device ones only with CUDA state, none of another context's
 * pool, and the geometry of the first frame.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "libvmaf/libvmaf.h"

#include "context.h"
#include "log.h"
#include "picture_internal.h"
#include "picture_pool.h"

static const char *const which[2] = { "reference", "distorted" };

static int check_one(const VmafPicture *p, int i, unsigned index)
{
    if (!p->ref || !p->data[0] || !p->w[0] || !p->h[0] || !vmaf_bpc_supported(p->bpc) ||
        p->pix_fmt == VMAF_PIX_FMT_UNKNOWN || p->pix_fmt > VMAF_PIX_FMT_YUV400P) {
        vmaf_error("frame %u: the %s picture is not a valid allocated picture; allocate it "
                   "with vmaf_picture_alloc() (8, 10, 12 or 16 bits, a YUV format)", index,
                   which[i]);
        return -EINVAL;
    }
    if (!vmaf_picture_plane_fits(p, 0)) {
        vmaf_error("frame %u: the %s picture's luma plane (%ux%u, %u-bit, stride %td) does not "
                   "fit its memory; do not change a picture's size, depth or stride after "
                   "vmaf_picture_alloc() or vmaf_cuda_fetch_preallocated_picture()", index,
                   which[i], p->w[0], p->h[0], p->bpc, p->stride[0]);
        return -EINVAL;
    }
    return 0;
}

static int check_memory(const VmafContext *vmaf, const VmafPicture *const p[2], unsigned index)
{
    if ((vmaf_picture_buf_type(p[0]) == VMAF_PICTURE_BUF_DEVICE) !=
        (vmaf_picture_buf_type(p[1]) == VMAF_PICTURE_BUF_DEVICE)) {
        /* A CPU extractor would read a device pointer as host memory. */
        vmaf_error("frame %u: one picture is in device memory and the other in host memory; "
                   "give both from the same pool, or both in host memory", index);
        return -EINVAL;
    }
    for (int i = 0; i < 2; i++) {
        if (vmaf_picture_buf_type(p[i]) == VMAF_PICTURE_BUF_DEVICE && !vmaf->cuda) {
            vmaf_error("frame %u: the %s picture is in device memory, and this context has no "
                       "CUDA state; import one (vmaf_cuda_import_state) or give host pictures",
                       index, which[i]);
            return -EINVAL;
        }
        /* Another context's device pictures may lie on another device or
         * in another CUcontext, where the kernels would fault; its host
         * pictures would be held here until this context is collected,
         * while a fetch from their own pool, which collects only its own
         * context, waited for them. */
        const unsigned long long owner = vmaf_picture_pool_owner(p[i]);
        if (owner && owner != vmaf->serial) {
            vmaf_error("frame %u: the %s picture comes from another context's picture pool; "
                       "fetch pictures from this context's pool, or give it pictures of its "
                       "own (vmaf_picture_alloc)", index, which[i]);
            return -EINVAL;
        }
    }
    return 0;
}

static int check_geometry(const VmafContext *vmaf, const VmafPicture *ref,
                          const VmafPicture *dist, unsigned index)
{
    if (ref->w[0] != dist->w[0] || ref->h[0] != dist->h[0] || ref->bpc != dist->bpc ||
        ref->pix_fmt != dist->pix_fmt) {
        vmaf_error("frame %u: reference is %ux%u %u-bit and distorted is %ux%u %u-bit (format "
                   "%d vs %d); both must match", index, ref->w[0], ref->h[0], ref->bpc,
                   dist->w[0], dist->h[0], dist->bpc, (int)ref->pix_fmt, (int)dist->pix_fmt);
        return -EINVAL;
    }
    if (vmaf->started && (ref->w[0] != vmaf->w || ref->h[0] != vmaf->h ||
                          ref->bpc != vmaf->bpc || ref->pix_fmt != vmaf->pix_fmt)) {
        vmaf_error("frame %u: pictures are %ux%u %u-bit but earlier frames were %ux%u %u-bit; "
                   "one context scores one geometry, use a new context for another", index,
                   ref->w[0], ref->h[0], ref->bpc, vmaf->w, vmaf->h, vmaf->bpc);
        return -EINVAL;
    }
    return 0;
}

int vmaf_context_check_pictures(const VmafContext *vmaf, const VmafPicture *ref,
                                const VmafPicture *dist, unsigned index)
{
    const VmafPicture *const p[2] = { ref, dist };
    int err = check_one(ref, 0, index);
    if (!err)
        err = check_one(dist, 1, index);
    if (!err)
        err = check_memory(vmaf, p, index);
    return err ? err : check_geometry(vmaf, ref, dist, index);
}
