/* Host pictures: every format and bit depth, odd sizes (chroma rounds up),
 * aligned strides and planes, argument checks, and reference counting. Every
 * byte of every plane is written so that ASan sees an undersized plane. */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "libvmaf/picture.h"
#include "picture_internal.h"

#include "check.h"

static const enum VmafPixelFormat fmts[] = { VMAF_PIX_FMT_YUV420P, VMAF_PIX_FMT_YUV422P,
                                             VMAF_PIX_FMT_YUV444P, VMAF_PIX_FMT_YUV400P };
static const unsigned bpcs[] = { 8, 10, 12, 16 };
static const unsigned sizes[][2] = { { 1, 1 },   { 2, 2 },     { 3, 5 },    { 5, 3 },
                                     { 11, 11 }, { 64, 64 },   { 65, 1 },   { 1, 65 },
                                     { 577, 325 }, { 576, 324 }, { 1921, 1081 } };

static void expect_plane(enum VmafPixelFormat fmt, unsigned w, unsigned h, int plane,
                         unsigned *pw, unsigned *ph)
{
    if (plane == 0 || fmt == VMAF_PIX_FMT_YUV444P) {
        *pw = w, *ph = h;
    } else if (fmt == VMAF_PIX_FMT_YUV400P) {
        *pw = 0, *ph = 0;
    } else if (fmt == VMAF_PIX_FMT_YUV422P) {
        *pw = (w + 1) / 2, *ph = h;
    } else {
        *pw = (w + 1) / 2, *ph = (h + 1) / 2;
    }
}

static void test_formats(void)
{
    for (size_t f = 0; f < sizeof(fmts) / sizeof(fmts[0]); f++)
        for (size_t b = 0; b < sizeof(bpcs) / sizeof(bpcs[0]); b++)
            for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
                const unsigned w = sizes[s][0], h = sizes[s][1], bpc = bpcs[b];
                const size_t bytes = bpc > 8 ? 2 : 1;
                VmafPicture pic;
                memset(&pic, 0x5a, sizeof(pic));
                int err = vmaf_picture_alloc(&pic, fmts[f], bpc, w, h);
                if (err) {
                    fprintf(stderr, "alloc fmt %d bpc %u %ux%u: %d\n", fmts[f], bpc, w, h, err);
                    check_failures++;
                    continue;
                }
                CHECK_INT(pic.pix_fmt, fmts[f]);
                CHECK_INT(pic.bpc, bpc);
                CHECK(pic.ref != NULL);
                for (int p = 0; p < 3; p++) {
                    unsigned pw, ph;
                    expect_plane(fmts[f], w, h, p, &pw, &ph);
                    if (pic.w[p] != pw || pic.h[p] != ph) {
                        fprintf(stderr, "fmt %d bpc %u %ux%u plane %d: %ux%u, expected %ux%u\n",
                                fmts[f], bpc, w, h, p, pic.w[p], pic.h[p], pw, ph);
                        check_failures++;
                    }
                    if (!pw) {
                        CHECK(pic.data[p] == NULL);
                        continue;
                    }
                    CHECK(pic.data[p] != NULL);
                    CHECK(pic.stride[p] >= (ptrdiff_t)(pw * bytes));
                    CHECK(pic.stride[p] % 64 == 0);
                    CHECK((uintptr_t)pic.data[p] % 64 == 0);
                    /* Rows must not overlap each other or another plane. */
                    if (pic.data[p] && pic.stride[p] >= (ptrdiff_t)(pw * bytes))
                        for (unsigned y = 0; y < ph; y++)
                            memset((uint8_t *)pic.data[p] + (size_t)y * (size_t)pic.stride[p],
                                   p + 1, pw * bytes);
                }
                for (int p = 0; p < 3; p++)
                    if (pic.w[p] && pic.data[p]) {
                        const uint8_t *last = (const uint8_t *)pic.data[p] +
                                              (size_t)(pic.h[p] - 1) * (size_t)pic.stride[p];
                        CHECK(((const uint8_t *)pic.data[p])[0] == p + 1);
                        CHECK(last[pic.w[p] * bytes - 1] == p + 1);
                    }
                CHECK_INT(vmaf_picture_unref(&pic), 0);
                /* Cleared, and a second unref is harmless. */
                CHECK(pic.ref == NULL && pic.data[0] == NULL);
                CHECK(vmaf_picture_unref(&pic) < 0);
            }
}

static void test_bad_args(void)
{
    VmafPicture pic;
    CHECK_INT(vmaf_picture_alloc(NULL, VMAF_PIX_FMT_YUV420P, 8, 16, 16), -EINVAL);
    CHECK_INT(vmaf_picture_alloc(&pic, VMAF_PIX_FMT_UNKNOWN, 8, 16, 16), -EINVAL);
    CHECK_INT(vmaf_picture_alloc(&pic, (enum VmafPixelFormat)99, 8, 16, 16), -EINVAL);
    CHECK_INT(vmaf_picture_alloc(&pic, (enum VmafPixelFormat)-1, 8, 16, 16), -EINVAL);
    static const unsigned bad_bpc[] = { 0, 1, 7, 9, 11, 14, 15, 17, 32, 0xffffffffu };
    for (size_t i = 0; i < sizeof(bad_bpc) / sizeof(bad_bpc[0]); i++)
        CHECK_INT(vmaf_picture_alloc(&pic, VMAF_PIX_FMT_YUV420P, bad_bpc[i], 16, 16), -EINVAL);
    CHECK_INT(vmaf_picture_alloc(&pic, VMAF_PIX_FMT_YUV420P, 8, 0, 16), -EINVAL);
    CHECK_INT(vmaf_picture_alloc(&pic, VMAF_PIX_FMT_YUV420P, 8, 16, 0), -EINVAL);
    CHECK_INT(vmaf_picture_alloc(&pic, VMAF_PIX_FMT_YUV420P, 8, 65537, 16), -EINVAL);
    CHECK_INT(vmaf_picture_alloc(&pic, VMAF_PIX_FMT_YUV420P, 8, 16, 65537), -EINVAL);
    CHECK_INT(vmaf_picture_alloc(&pic, VMAF_PIX_FMT_YUV420P, 8, 0xffffffffu, 16), -EINVAL);
    CHECK_INT(vmaf_picture_alloc(&pic, VMAF_PIX_FMT_YUV444P, 16, 0x80000000u, 0x80000000u),
              -EINVAL);

    /* The largest allowed sizes, as thin pictures. */
    CHECK_INT(vmaf_picture_alloc(&pic, VMAF_PIX_FMT_YUV420P, 16, 65536, 1), 0);
    CHECK(pic.w[1] == 32768 && pic.h[1] == 1);
    CHECK_INT(vmaf_picture_unref(&pic), 0);
    CHECK_INT(vmaf_picture_alloc(&pic, VMAF_PIX_FMT_YUV400P, 8, 1, 65536), 0);
    CHECK_INT(vmaf_picture_unref(&pic), 0);

    CHECK_INT(vmaf_picture_unref(NULL), -EINVAL);
    VmafPicture zero;
    memset(&zero, 0, sizeof(zero));
    CHECK_INT(vmaf_picture_unref(&zero), -EINVAL);
}

static void test_refcount(void)
{
    VmafPicture a, b, c;
    CHECK_INT(vmaf_picture_alloc(&a, VMAF_PIX_FMT_YUV420P, 10, 33, 17), 0);
    CHECK_INT(vmaf_picture_ref(&b, &a), 0);
    CHECK_INT(vmaf_picture_ref(&c, &b), 0);
    CHECK(b.data[0] == a.data[0] && c.data[2] == a.data[2]);
    CHECK_INT(vmaf_picture_unref(&a), 0);
    /* Still alive through b and c (ASan would flag a use after free). */
    ((uint16_t *)b.data[0])[0] = 1023;
    CHECK_INT(vmaf_picture_unref(&b), 0);
    CHECK(((uint16_t *)c.data[0])[0] == 1023);
    CHECK_INT(vmaf_picture_unref(&c), 0);
    CHECK(vmaf_picture_unref(&c) < 0);
    CHECK_INT(vmaf_picture_ref(&b, NULL), -EINVAL);
    CHECK_INT(vmaf_picture_ref(NULL, &c), -EINVAL);
    CHECK_INT(vmaf_picture_ref(&b, &c), -EINVAL); /* c holds no reference any more */
}

static int released;
static void release(void *cookie, VmafPicture *pic)
{
    (void)pic;
    released += *(int *)cookie;
}

static void test_wrap(void)
{
    int cookie = 1;
    VmafPicture a, b;
    released = 0;
    CHECK_INT(vmaf_picture_wrap(&a, VMAF_PIX_FMT_YUV444P, 8, 7, 9, VMAF_PICTURE_BUF_DEVICE,
                                &cookie, sizeof(cookie), release, &cookie),
              0);
    CHECK(a.w[2] == 7 && a.h[2] == 9);
    CHECK_INT(vmaf_picture_buf_type(&a), VMAF_PICTURE_BUF_DEVICE);
    CHECK_INT(vmaf_picture_ref(&b, &a), 0);
    CHECK_INT(vmaf_picture_unref(&a), 0);
    CHECK_INT(released, 0);
    CHECK_INT(vmaf_picture_unref(&b), 0);
    CHECK_INT(released, 1);

    unsigned pw[3], ph[3], planes = 0;
    CHECK_INT(vmaf_picture_plane_geometry(VMAF_PIX_FMT_YUV420P, 5, 3, pw, ph, &planes), 0);
    CHECK(planes == 3 && pw[1] == 3 && ph[1] == 2);
    CHECK_INT(vmaf_picture_plane_geometry(VMAF_PIX_FMT_YUV400P, 5, 3, pw, ph, &planes), 0);
    CHECK(planes == 1 && pw[0] == 5 && ph[0] == 3);
    CHECK_INT(vmaf_picture_plane_geometry(VMAF_PIX_FMT_UNKNOWN, 5, 3, pw, ph, &planes), -EINVAL);
}

int main(void)
{
    test_formats();
    test_bad_args();
    test_refcount();
    test_wrap();
    return check_result("test_picture");
}
