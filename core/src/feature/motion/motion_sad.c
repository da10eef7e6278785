#include <stdint.h>

#include "config.h"
#include "cpu.h"
#include "feature/motion/motion_sad.h"

const uint16_t vmaf_motion_filter[MOTION_TAPS] = { 3571, 16004, 26386, 16004, 3571 };

extern const VmafMotionKernels vmaf_motion_kernels_c;
#if HAVE_AVX2_KERNELS
extern const VmafMotionKernels vmaf_motion_kernels_avx2;
#endif
#if HAVE_AVX512_KERNELS
extern const VmafMotionKernels vmaf_motion_kernels_avx512;
#endif

static const VmafKernelVariant variants[] = {
    { &vmaf_motion_kernels_c, 0 },
#if HAVE_AVX2_KERNELS
    { &vmaf_motion_kernels_avx2, VMAF_CPU_FLAG_AVX2 },
#endif
#if HAVE_AVX512_KERNELS
    { &vmaf_motion_kernels_avx512, VMAF_CPU_FLAG_AVX512 },
#endif
};
#define N_VARIANTS ((int)(sizeof(variants) / sizeof(variants[0])))

const VmafMotionKernels *vmaf_motion_kernels_get(int i)
{
    return vmaf_kernel_variant_get(variants, N_VARIANTS, i);
}

const VmafMotionKernels *vmaf_motion_kernels_best(void)
{
    return vmaf_kernel_variant_best(variants, N_VARIANTS);
}

/* Row pointers of the five taps around row i, mirrored at the edges. */
static void tap_rows(const void *base, ptrdiff_t stride, unsigned i, unsigned h,
                     const void *rows[MOTION_TAPS])
{
    for (int k = 0; k < MOTION_TAPS; k++) {
        const int r = vmaf_motion_mirror((int)i - MOTION_RADIUS + k, (int)h);
        rows[k] = (const char *)base + r * stride;
    }
}

uint64_t vmaf_motion_sad(const VmafMotionKernels *k, const void *prev, ptrdiff_t prev_stride,
                         const void *cur, ptrdiff_t cur_stride, unsigned w, unsigned h,
                         unsigned bpc, int32_t *scratch)
{
    int32_t *y = scratch + MOTION_RADIUS;
    uint64_t sad = 0;
    for (unsigned i = 0; i < h; i++) {
        const void *p[MOTION_TAPS], *c[MOTION_TAPS];
        tap_rows(prev, prev_stride, i, h, p);
        tap_rows(cur, cur_stride, i, h, c);
        if (bpc == 8)
            k->blur_diff_col_8((const uint8_t *const *)p, (const uint8_t *const *)c, w, y);
        else
            k->blur_diff_col_16((const uint16_t *const *)p, (const uint16_t *const *)c, w, bpc,
                                y);
        for (int d = 1; d <= MOTION_RADIUS; d++) {
            y[-d] = y[vmaf_motion_mirror(-d, (int)w)];
            y[(int)w - 1 + d] = y[vmaf_motion_mirror((int)w - 1 + d, (int)w)];
        }
        sad += k->blur_row_sad(y, w);
    }
    return sad;
}
