/*
 * The 8x8 integer DCT of PSNR-HVS: Daala's lifting-based type-II DCT
 * (od_bin_fdct8), which the reference's psnr_hvs applies to each block.
 * Its scores depend on every rounding of every lifting step, so the steps
 * below are the transform's own, in its order: each multiplies by a
 * dyadic approximation of a rotation constant and shifts, rounding half
 * up; halvings shift without bias towards zero.
 */
#include <stdint.h>

#include "feature/psnr_hvs/psnr_hvs.h"

/* a / 2^b rounded towards zero, for a 32-bit a. */
static inline int32_t half_towards_zero(int32_t a, int b)
{
    return (int32_t)(((uint32_t)a >> (32 - b)) + (uint32_t)a) >> b;
}

/* (a * c + 2^(s-1)) >> s: one lifting step. */
static inline int32_t lift(int32_t a, int32_t c, int s)
{
    return (a * c + (1 << (s - 1))) >> s;
}

/* One 8-point transform of x[0], x[stride], ..., x[7 stride] into y[0..7]. */
static void fdct8(int32_t y[8], const int32_t *x, int stride)
{
    /* the input in the transform's butterfly order */
    int32_t t0 = x[0], t4 = x[stride], t2 = x[2 * stride], t6 = x[3 * stride];
    int32_t t7 = x[4 * stride], t3 = x[5 * stride], t5 = x[6 * stride], t1 = x[7 * stride];
    /* +1/-1 butterflies */
    t1 = t0 - t1;
    const int32_t t1h = half_towards_zero(t1, 1);
    t0 -= t1h;
    t4 += t5;
    const int32_t t4h = half_towards_zero(t4, 1);
    t5 -= t4h;
    t3 = t2 - t3;
    t2 -= half_towards_zero(t3, 1);
    t6 += t7;
    const int32_t t6h = half_towards_zero(t6, 1);
    t7 = t6h - t7;
    /* the embedded 4-point DCT-II */
    t0 += t6h;
    t6 = t0 - t6;
    t2 = t4h - t2;
    t4 = t2 - t4;
    /* its 2-point DCT-II: rotation by pi/4 */
    t0 -= lift(t4, 13573, 15);
    t4 += lift(t0, 11585, 14);
    t0 -= lift(t4, 13573, 15);
    /* its 2-point DST-IV: rotation by 3 pi/8 */
    t6 -= lift(t2, 21895, 15);
    t2 += lift(t6, 15137, 14);
    t6 -= lift(t2, 21895, 15);
    /* the embedded 4-point DST-IV */
    t3 += lift(t5, 19195, 15);
    t5 += lift(t3, 11585, 14);
    t3 -= lift(t5, 7489, 13);
    t7 = half_towards_zero(t5, 1) - t7;
    t5 -= t7;
    t3 = t1h - t3;
    t1 -= t3;
    /* rotation by pi/16 */
    t7 += lift(t1, 3227, 15);
    t1 -= lift(t7, 6393, 15);
    t7 += lift(t1, 3227, 15);
    /* rotation by 3 pi/16 */
    t5 += lift(t3, 2485, 13);
    t3 -= lift(t5, 18205, 15);
    t5 += lift(t3, 2485, 13);
    y[0] = t0, y[1] = t1, y[2] = t2, y[3] = t3;
    y[4] = t4, y[5] = t5, y[6] = t6, y[7] = t7;
}

void vmaf_psnr_hvs_dct8x8(int32_t block[64])
{
    int32_t cols[64];
    for (int i = 0; i < 8; i++)
        fdct8(cols + 8 * i, block + i, 8); /* column i into row i of cols */
    for (int i = 0; i < 8; i++)
        fdct8(block + 8 * i, cols + i, 8);
}
