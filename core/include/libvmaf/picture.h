/**
 * @file picture.h
 * Reference-counted planar pictures handed to the library.
 */
#ifndef LIBVMAF_PICTURE_H
#define LIBVMAF_PICTURE_H

#include <stddef.h>

#include "libvmaf/version.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Planar pixel layouts. 4:0:0 has a luma plane only. */
enum VmafPixelFormat {
    VMAF_PIX_FMT_UNKNOWN, /**< Not set. */
    VMAF_PIX_FMT_YUV420P, /**< Chroma halved in both directions (rounded up). */
    VMAF_PIX_FMT_YUV422P, /**< Chroma halved horizontally (rounded up). */
    VMAF_PIX_FMT_YUV444P, /**< Full-resolution chroma. */
    VMAF_PIX_FMT_YUV400P, /**< Luma only (monochrome). */
};

/** Opaque reference counter owned by the library. */
typedef struct VmafRef VmafRef;

/**
 * A picture: up to three planes of unsigned samples.
 *
 * Samples are 8-bit (`uint8_t`) when `bpc == 8`, and 16-bit little-endian
 * host words (`uint16_t`) holding `bpc` significant bits when `bpc` is
 * 10, 12 or 16. Strides are in bytes. Plane sizes follow the pixel format,
 * with odd luma sizes rounding chroma up.
 */
typedef struct VmafPicture {
    enum VmafPixelFormat pix_fmt; /**< Layout of the planes. */
    unsigned bpc;                 /**< Bits per component: 8, 10, 12 or 16. */
    unsigned w[3], h[3];          /**< Width and height of each plane in samples. */
    ptrdiff_t stride[3];          /**< Bytes from one row to the next, per plane. */
    void *data[3];                /**< First sample of each plane (NULL if absent). */
    VmafRef *ref;                 /**< Library-owned reference count; do not touch. */
    void *priv;                   /**< Library-owned allocation details; do not touch. */
} VmafPicture;

/**
 * Allocate the planes of a picture in host memory.
 *
 * Rows are padded to a multiple of 64 bytes, and every byte starts at zero,
 * padding included, as in libvmaf. The picture holds one reference;
 * vmaf_read_pictures() takes it over, otherwise release it with
 * vmaf_picture_unref().
 *
 * @param pic     Picture to fill in; its previous contents are overwritten.
 * @param pix_fmt Any format but VMAF_PIX_FMT_UNKNOWN.
 * @param bpc     8, 10, 12 or 16.
 * @param w       Luma width, 1 to 65536.
 * @param h       Luma height, 1 to 65536.
 *
 * @return 0 on success, -EINVAL on a bad argument, -ENOMEM when out of memory.
 */
VMAF_EXPORT int vmaf_picture_alloc(VmafPicture *pic, enum VmafPixelFormat pix_fmt,
                                   unsigned bpc, unsigned w, unsigned h);

/**
 * Drop one reference; the planes are freed with the last one. The struct is
 * cleared so that a second call is harmless.
 *
 * @param pic Picture from vmaf_picture_alloc() or the CUDA picture pool.
 * @return 0 on success, -EINVAL if `pic` is NULL or holds no reference.
 */
VMAF_EXPORT int vmaf_picture_unref(VmafPicture *pic);

#ifdef __cplusplus
}
#endif

#endif /* LIBVMAF_PICTURE_H */
