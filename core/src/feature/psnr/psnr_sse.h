/*
 * The sums of squared errors of PSNR: exact integers, equal in any order
 * of addition, so every instruction set's variant gives the same sums
 * (test/checkasm compares them with the C build).
 */
#ifndef LIBVMAF_SRC_FEATURE_PSNR_PSNR_SSE_H
#define LIBVMAF_SRC_FEATURE_PSNR_PSNR_SSE_H

#include <stddef.h>
#include <stdint.h>

/* The inner loops, one table per instruction set (psnr_kernels.c). */
typedef struct VmafPsnrKernels {
    const char *name;
    /* Sum over x < w of (a[x] - b[x])^2. A row of 8-bit samples fits a
     * uint32 up to w = 66051, past the 65536 a picture may have. */
    uint32_t (*sse_row_8)(const uint8_t *a, const uint8_t *b, unsigned w);
    uint64_t (*sse_row_16)(const uint16_t *a, const uint16_t *b, unsigned w);
} VmafPsnrKernels;

/* Variant i of this build (0 = plain C), or NULL when i is out of range or
 * the CPU lacks it; and the best one vmaf_cpu_flags() allows. */
const VmafPsnrKernels *vmaf_psnr_kernels_get(int i);
const VmafPsnrKernels *vmaf_psnr_kernels_best(void);

/* The sum of squared errors of two w x h planes (8-bit data is uint8_t,
 * deeper uint16_t; strides in bytes). */
uint64_t vmaf_psnr_sse(const VmafPsnrKernels *k, const void *a, ptrdiff_t a_stride,
                       const void *b, ptrdiff_t b_stride, unsigned w, unsigned h,
                       unsigned bpc);

#endif /* LIBVMAF_SRC_FEATURE_PSNR_PSNR_SSE_H */
