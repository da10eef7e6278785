#include <stdint.h>

#include "config.h"
#include "cpu.h"
#include "feature/psnr/psnr_sse.h"

extern const VmafPsnrKernels vmaf_psnr_kernels_c;
#if HAVE_AVX2_KERNELS
extern const VmafPsnrKernels vmaf_psnr_kernels_avx2;
#endif
#if HAVE_AVX512_KERNELS
extern const VmafPsnrKernels vmaf_psnr_kernels_avx512;
#endif

static const VmafKernelVariant variants[] = {
    { &vmaf_psnr_kernels_c, 0 },
#if HAVE_AVX2_KERNELS
    { &vmaf_psnr_kernels_avx2, VMAF_CPU_FLAG_AVX2 },
#endif
#if HAVE_AVX512_KERNELS
    { &vmaf_psnr_kernels_avx512, VMAF_CPU_FLAG_AVX512 },
#endif
};
#define N_VARIANTS ((int)(sizeof(variants) / sizeof(variants[0])))

const VmafPsnrKernels *vmaf_psnr_kernels_get(int i)
{
    return vmaf_kernel_variant_get(variants, N_VARIANTS, i);
}

const VmafPsnrKernels *vmaf_psnr_kernels_best(void)
{
    return vmaf_kernel_variant_best(variants, N_VARIANTS);
}

uint64_t vmaf_psnr_sse(const VmafPsnrKernels *k, const void *a, ptrdiff_t a_stride,
                       const void *b, ptrdiff_t b_stride, unsigned w, unsigned h,
                       unsigned bpc)
{
    const char *pa = a, *pb = b;
    uint64_t sse = 0;
    for (unsigned y = 0; y < h; y++, pa += a_stride, pb += b_stride)
        sse += bpc == 8 ? k->sse_row_8((const uint8_t *)pa, (const uint8_t *)pb, w)
                        : k->sse_row_16((const uint16_t *)pa, (const uint16_t *)pb, w);
    return sse;
}
