/* Sample access for the C tests' pictures: plane k, row y, column x, as
 * uint8_t at 8 bits and uint16_t above, at the plane's stride in bytes. */
#ifndef TEST_TEST_PICTURE_H
#define TEST_TEST_PICTURE_H

#include <stddef.h>
#include <stdint.h>

#include "libvmaf/picture.h"

static inline unsigned test_pixel(const VmafPicture *p, int k, unsigned y, unsigned x)
{
    const char *row = (const char *)p->data[k] + (ptrdiff_t)y * p->stride[k];
    return p->bpc == 8 ? ((const uint8_t *)row)[x] : ((const uint16_t *)row)[x];
}

static inline void test_set_pixel(VmafPicture *p, int k, unsigned y, unsigned x, unsigned v)
{
    char *row = (char *)p->data[k] + (ptrdiff_t)y * p->stride[k];
    if (p->bpc == 8)
        ((uint8_t *)row)[x] = (uint8_t)v;
    else
        ((uint16_t *)row)[x] = (uint16_t)v;
}

#endif /* TEST_TEST_PICTURE_H */
