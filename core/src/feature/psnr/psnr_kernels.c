/*
 * PSNR inner loops, compiled once per instruction set (meson passes
 * PSNR_KERNEL_SUFFIX and the -m flags); psnr_sse.c picks one at run time.
 */
#include <stdint.h>

#include "feature/psnr/psnr_sse.h"

#ifndef PSNR_KERNEL_SUFFIX
#error "PSNR_KERNEL_SUFFIX must name the variant (c, avx2, ...)"
#endif
#define PSNR_CAT2(a, b) a##_##b
#define PSNR_CAT(a, b) PSNR_CAT2(a, b)
#define KFN(name) PSNR_CAT(name, PSNR_KERNEL_SUFFIX)
#define PSNR_STR2(x) #x
#define PSNR_STR(x) PSNR_STR2(x)

/* |d| < 2^8, so d^2 < 2^16 and the row sum stays below 2^32. */
static uint32_t KFN(sse_row_8)(const uint8_t *restrict a, const uint8_t *restrict b,
                               unsigned w)
{
    uint32_t sum = 0;
    for (unsigned x = 0; x < w; x++) {
        const int32_t d = (int32_t)a[x] - (int32_t)b[x];
        sum += (uint32_t)(d * d);
    }
    return sum;
}

/* |d| < 2^16: d^2 fits a uint32, the row sum needs 64 bits. */
static uint64_t KFN(sse_row_16)(const uint16_t *restrict a, const uint16_t *restrict b,
                                unsigned w)
{
    uint64_t sum = 0;
    for (unsigned x = 0; x < w; x++) {
        const uint32_t d = a[x] > b[x] ? (uint32_t)(a[x] - b[x]) : (uint32_t)(b[x] - a[x]);
        sum += d * d;
    }
    return sum;
}

const VmafPsnrKernels KFN(vmaf_psnr_kernels) = {
    .name = PSNR_STR(PSNR_KERNEL_SUFFIX),
    .sse_row_8 = KFN(sse_row_8),
    .sse_row_16 = KFN(sse_row_16),
};
