/*
 * The motion numerics: the sum of absolute values of the 5x5-blurred
 * difference of two luma planes, in the integers of the reference's
 * `motion` extractor (libvmaf 3.2), so the sum is exact and equal to its.
 * docs/metrics/vmaf.md ("Extractors, options, outputs": motion) says what
 * is computed and why.
 */
#ifndef LIBVMAF_SRC_FEATURE_MOTION_MOTION_SAD_H
#define LIBVMAF_SRC_FEATURE_MOTION_MOTION_SAD_H

#include <stddef.h>
#include <stdint.h>

/* The separable 5-tap blur; the taps sum to 2^16. */
#define MOTION_TAPS 5
#define MOTION_RADIUS 2
extern const uint16_t vmaf_motion_filter[MOTION_TAPS];

/* The inner loops, one table per instruction set (motion_kernels.c); every
 * table gives the same results. */
typedef struct VmafMotionKernels {
    const char *name;
    /* y[x] = (sum_k filter[k] * (prev[k][x] - cur[k][x]) + 2^(bpc-1)) >> bpc
     * for x < w: the vertical pass over the difference, rounded half up
     * with an arithmetic shift (floor for negative sums). prev[k] and
     * cur[k] are the five source rows, already mirrored at the edges;
     * 8-bit samples shift by 8. */
    void (*blur_diff_col_8)(const uint8_t *const prev[MOTION_TAPS],
                            const uint8_t *const cur[MOTION_TAPS], unsigned w, int32_t *y);
    void (*blur_diff_col_16)(const uint16_t *const prev[MOTION_TAPS],
                             const uint16_t *const cur[MOTION_TAPS], unsigned w, unsigned bpc,
                             int32_t *y);
    /* The horizontal pass and the sum of one row: sum over x < w of
     * |(sum_k filter[k] * y[x - 2 + k] + 2^15) >> 16|, in uint32 arithmetic
     * as the reference sums a row. y[-2] .. y[w + 1] must be readable, the
     * mirrored values of the row; |y| < 2^16. */
    uint32_t (*blur_row_sad)(const int32_t *y, unsigned w);
} VmafMotionKernels;

/* Variant i of this build (0 = plain C), or NULL when i is out of range or
 * the CPU lacks it; and the best one vmaf_cpu_flags() allows. */
const VmafMotionKernels *vmaf_motion_kernels_get(int i);
const VmafMotionKernels *vmaf_motion_kernels_best(void);

/* Scratch for one call, in int32 elements: a padded row. */
static inline size_t vmaf_motion_scratch_len(unsigned w)
{
    return (size_t)w + 2 * MOTION_RADIUS;
}

/* The SAD of two planes (8-bit data is uint8_t, deeper uint16_t; strides
 * in bytes): the sum of every row's blur_row_sad(), in uint64. Picture
 * edges mirror without repeating the edge sample (reflect-101), as the
 * reference does for any side of 3 or more samples; below that it reads
 * outside the picture, and here the reflection folds back into it. */
uint64_t vmaf_motion_sad(const VmafMotionKernels *k, const void *prev, ptrdiff_t prev_stride,
                         const void *cur, ptrdiff_t cur_stride, unsigned w, unsigned h,
                         unsigned bpc, int32_t *scratch);

/* The CUDA twin's kernels mirror with the same function. */
#ifdef __CUDACC__
#define MOTION_HOST_DEVICE __host__ __device__
#else
#define MOTION_HOST_DEVICE
#endif

/* The mirrored index of i in [0, n), n > 0: reflect-101, folded again
 * until it lies inside (only sides below 3 need the folding). */
static inline MOTION_HOST_DEVICE int vmaf_motion_mirror(int i, int n)
{
    if (n == 1)
        return 0;
    for (;;) {
        if (i < 0)
            i = -i;
        else if (i >= n)
            i = 2 * n - i - 2;
        else
            return i;
    }
}

#endif /* LIBVMAF_SRC_FEATURE_MOTION_MOTION_SAD_H */
