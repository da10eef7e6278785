/* What the library keeps behind VmafPicture.ref and VmafPicture.priv. */
#ifndef LIBVMAF_SRC_PICTURE_INTERNAL_H
#define LIBVMAF_SRC_PICTURE_INTERNAL_H

#include <stddef.h>

#include "libvmaf/picture.h"

#include <stdbool.h>

/* The sample depths the library scores, the reference's. One answer for
 * every check (pictures, pools, extractors). */
static inline bool vmaf_bpc_supported(unsigned bpc)
{
    return bpc == 8 || bpc == 10 || bpc == 12 || bpc == 16;
}

enum VmafPictureBufType {
    VMAF_PICTURE_BUF_HOST = 0,
    VMAF_PICTURE_BUF_HOST_PINNED,
    VMAF_PICTURE_BUF_DEVICE,
};

typedef struct VmafPicturePriv {
    enum VmafPictureBufType buf_type;
    /* Called instead of freeing the planes when the last reference goes
     * (pooled pictures go back to their pool). */
    void (*release)(void *cookie, VmafPicture *pic);
    void *cookie;
    /* The block every plane lies in, host or device memory: a picture
     * handed in must keep its luma plane inside, whatever the caller
     * changed since. Without release, it is vmaf_picture_alloc()'s host
     * block, kept for reuse at the last unref. */
    void *block;
    size_t size; /* its length */
} VmafPicturePriv;

/* Frees the host picture blocks kept for reuse (the last vmaf_close()). */
void vmaf_picture_cache_drain(void);

/* Planes of a picture whose storage someone else owns, the block of
 * mem_size bytes at mem (host or device memory): sets up the reference
 * count and priv so that the last unref calls release(cookie), which must
 * be given. The caller then points the planes into that block. */
int vmaf_picture_wrap(VmafPicture *pic, enum VmafPixelFormat pix_fmt, unsigned bpc,
                      unsigned w, unsigned h, enum VmafPictureBufType buf_type,
                      const void *mem, size_t mem_size,
                      void (*release)(void *cookie, VmafPicture *pic), void *cookie);

/* Plane sizes of a format: 0 or -EINVAL. Chroma sizes round up. */
int vmaf_picture_plane_geometry(enum VmafPixelFormat pix_fmt, unsigned w, unsigned h,
                                unsigned pw[3], unsigned ph[3], unsigned *planes);

/* Row alignment of vmaf_picture_alloc()'s planes, in bytes. */
#define VMAF_PICTURE_ROW_ALIGN 64

/* One block holding the planes pw x ph of bpc-bit samples one after
 * another, each row starting a multiple of align bytes (a power of two)
 * after the block: sets each plane's stride and offset, returns the block's
 * size in bytes. */
size_t vmaf_picture_plane_layout(unsigned planes, const unsigned pw[3], const unsigned ph[3],
                                 unsigned bpc, size_t align, size_t stride[3],
                                 size_t offset[3]);

/* dst becomes another reference to src's planes. */
int vmaf_picture_ref(VmafPicture *dst, const VmafPicture *src);

/* Whether plane i (present: data, size, stride) lies inside the memory
 * the picture was given, rows of w[i] samples h[i] times. */
bool vmaf_picture_plane_fits(const VmafPicture *p, int i);

static inline enum VmafPictureBufType vmaf_picture_buf_type(const VmafPicture *pic)
{
    const VmafPicturePriv *p = (const VmafPicturePriv *)pic->priv;
    return p ? p->buf_type : VMAF_PICTURE_BUF_HOST;
}

#endif /* LIBVMAF_SRC_PICTURE_INTERNAL_H */
