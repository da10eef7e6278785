/*
 * Motion inner loops. This one source is compiled once per instruction set
 * (meson passes MOTION_KERNEL_SUFFIX and the -m flags); motion_sad.c picks
 * a variant at run time. All integer arithmetic: every variant gives the
 * same sums, and test/checkasm compares them with the C build.
 */
#include <stdint.h>
#include <stdlib.h>

#include "feature/motion/motion_sad.h"

#ifndef MOTION_KERNEL_SUFFIX
#error "MOTION_KERNEL_SUFFIX must name the variant (c, avx2, ...)"
#endif
#define MOTION_CAT2(a, b) a##_##b
#define MOTION_CAT(a, b) MOTION_CAT2(a, b)
#define KFN(name) MOTION_CAT(name, MOTION_KERNEL_SUFFIX)
#define MOTION_STR2(x) #x
#define MOTION_STR(x) MOTION_STR2(x)

#define pixel uint8_t
#define FN(name) KFN(name##_8)
#include "feature/motion/motion_tmpl.c"
#undef pixel
#undef FN

#define pixel uint16_t
#define FN(name) KFN(name##_16)
#include "feature/motion/motion_tmpl.c"
#undef pixel
#undef FN

static void KFN(blur_diff_col_8_entry)(const uint8_t *const prev[MOTION_TAPS],
                                       const uint8_t *const cur[MOTION_TAPS], unsigned w,
                                       int32_t *y)
{
    KFN(blur_diff_col_8)(prev, cur, w, 8, y);
}

/* y holds the difference scaled to 16 bits (|y| < 2^16), so a tap sum
 * needs more than 32 bits, as in the reference's int64. */
static uint32_t KFN(blur_row_sad)(const int32_t *y, unsigned w)
{
    const uint16_t *f = vmaf_motion_filter;
    const int32_t *t = y - MOTION_RADIUS; /* t[x + k] is tap k of output x */
    uint32_t sad = 0;
    for (unsigned x = 0; x < w; x++) {
        const int64_t sum = (int64_t)f[0] * t[x] + (int64_t)f[1] * t[x + 1] +
                            (int64_t)f[2] * t[x + 2] + (int64_t)f[3] * t[x + 3] +
                            (int64_t)f[4] * t[x + 4];
        sad += (uint32_t)abs((int32_t)((sum + (1 << 15)) >> 16));
    }
    return sad;
}

const VmafMotionKernels KFN(vmaf_motion_kernels) = {
    .name = MOTION_STR(MOTION_KERNEL_SUFFIX),
    .blur_diff_col_8 = KFN(blur_diff_col_8_entry),
    .blur_diff_col_16 = KFN(blur_diff_col_16),
    .blur_row_sad = KFN(blur_row_sad),
};
