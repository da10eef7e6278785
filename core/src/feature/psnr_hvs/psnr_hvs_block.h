/*
 * One 8x8 block of PSNR-HVS: its integer DCT, masking threshold and 64
 * weighted squared errors, in the reference's types and order. Plain C
 * that the CPU extractor (psnr_hvs.c) and the CUDA twin's kernel
 * (feature/cuda/psnr_hvs/psnr_hvs_terms.cu) both compile, so the two
 * cannot drift apart; the plane's sum of the terms, one float added in
 * block order, is the caller's.
 *
 * The DCT is Daala's lifting-based type-II DCT (od_bin_fdct8): its scores
 * depend on every rounding of every lifting step, so the steps are the
 * transform's own, in its order: each multiplies by a dyadic approximation
 * of a rotation constant and shifts, rounding half up; halvings shift
 * without bias towards zero.
 *
 * Divisions by powers of two are multiplications here (the same rounding
 * of the same value). The other divisions and the square root are the C
 * operators on the CPU and their integer twins on the device
 * (cuda/f32_int_math.h), whose results are the same: the device's own
 * are FMA sequences.
 */
#ifndef LIBVMAF_SRC_FEATURE_PSNR_HVS_PSNR_HVS_BLOCK_H
#define LIBVMAF_SRC_FEATURE_PSNR_HVS_PSNR_HVS_BLOCK_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#ifdef __CUDACC__
#define PSNR_HVS_FN static __host__ __device__ __forceinline__
#else
#define PSNR_HVS_FN static inline
#endif

/* PSNR_HVS_INT_OPS: the device's operations on the host, for the test
 * that holds them to the CPU's (test/psnr_hvs/test_psnr_hvs_block.c). */
#if defined(__CUDA_ARCH__) || defined(PSNR_HVS_INT_OPS)
#include "cuda/f32_int_math.h"
#define PSNR_HVS_DIV(a, b) f32_int_div(a, b)
#define PSNR_HVS_ROOT_32(x) (f32_int_sqrt(x) * (1.0f / 32))
#define PSNR_HVS_ABS(x) ((x) < 0 ? -(x) : (x))
#else
#define PSNR_HVS_DIV(a, b) ((a) / (b))
#define PSNR_HVS_ROOT_32(x) ((float)(sqrt(x) / 32.f))
#define PSNR_HVS_ABS(x) abs(x)
#endif

/* The blocks along a side of n samples: at 0, 7, 14, ... while the block
 * fits (x + 7 < n). */
PSNR_HVS_FN unsigned psnr_hvs_blocks(unsigned n)
{
    return n < 8 ? 0 : (n - 1) / 7;
}

/* a / 2^b rounded towards zero, for a 32-bit a. */
PSNR_HVS_FN int32_t psnr_hvs_half(int32_t a, int b)
{
    return (int32_t)(((uint32_t)a >> (32 - b)) + (uint32_t)a) >> b;
}

/* (a * c + 2^(s-1)) >> s: one lifting step. */
PSNR_HVS_FN int32_t psnr_hvs_lift(int32_t a, int32_t c, int s)
{
    return (a * c + (1 << (s - 1))) >> s;
}

/* One 8-point transform of x[0], x[stride], ..., x[7 stride] into y[0..7]. */
PSNR_HVS_FN void psnr_hvs_fdct8(int32_t y[8], const int32_t *x, int stride)
{
    /* the input in the transform's butterfly order */
    int32_t t0 = x[0], t4 = x[stride], t2 = x[2 * stride], t6 = x[3 * stride];
    int32_t t7 = x[4 * stride], t3 = x[5 * stride], t5 = x[6 * stride], t1 = x[7 * stride];
    /* +1/-1 butterflies */
    t1 = t0 - t1;
    const int32_t t1h = psnr_hvs_half(t1, 1);
    t0 -= t1h;
    t4 += t5;
    const int32_t t4h = psnr_hvs_half(t4, 1);
    t5 -= t4h;
    t3 = t2 - t3;
    t2 -= psnr_hvs_half(t3, 1);
    t6 += t7;
    const int32_t t6h = psnr_hvs_half(t6, 1);
    t7 = t6h - t7;
    /* the embedded 4-point DCT-II */
    t0 += t6h;
    t6 = t0 - t6;
    t2 = t4h - t2;
    t4 = t2 - t4;
    /* its 2-point DCT-II: rotation by pi/4 */
    t0 -= psnr_hvs_lift(t4, 13573, 15);
    t4 += psnr_hvs_lift(t0, 11585, 14);
    t0 -= psnr_hvs_lift(t4, 13573, 15);
    /* its 2-point DST-IV: rotation by 3 pi/8 */
    t6 -= psnr_hvs_lift(t2, 21895, 15);
    t2 += psnr_hvs_lift(t6, 15137, 14);
    t6 -= psnr_hvs_lift(t2, 21895, 15);
    /* the embedded 4-point DST-IV */
    t3 += psnr_hvs_lift(t5, 19195, 15);
    t5 += psnr_hvs_lift(t3, 11585, 14);
    t3 -= psnr_hvs_lift(t5, 7489, 13);
    t7 = psnr_hvs_half(t5, 1) - t7;
    t5 -= t7;
    t3 = t1h - t3;
    t1 -= t3;
    /* rotation by pi/16 */
    t7 += psnr_hvs_lift(t1, 3227, 15);
    t1 -= psnr_hvs_lift(t7, 6393, 15);
    t7 += psnr_hvs_lift(t1, 3227, 15);
    /* rotation by 3 pi/16 */
    t5 += psnr_hvs_lift(t3, 2485, 13);
    t3 -= psnr_hvs_lift(t5, 18205, 15);
    t5 += psnr_hvs_lift(t3, 2485, 13);
    y[0] = t0, y[1] = t1, y[2] = t2, y[3] = t3;
    y[4] = t4, y[5] = t5, y[6] = t6, y[7] = t7;
}

/* The 2-D transform of an 8x8 block (row-major), in place. */
PSNR_HVS_FN void psnr_hvs_dct8x8(int32_t block[64])
{
    int32_t cols[64];
    for (int i = 0; i < 8; i++)
        psnr_hvs_fdct8(cols + 8 * i, block + i, 8); /* column i into row i of cols */
    for (int i = 0; i < 8; i++)
        psnr_hvs_fdct8(block + 8 * i, cols + i, 8);
}

/* Which 4x4 quarter of the block sample (i, j) lies in. */
PSNR_HVS_FN int psnr_hvs_quarter(int i, int j)
{
    return ((i & 12) >> 2) + ((j & 12) >> 1);
}

/* The block's variance spread: the sum of its quarters' variances over
 * its whole variance (that whole variance when it is 0). */
PSNR_HVS_FN float psnr_hvs_variance_ratio(const int32_t b[64])
{
    float mean = 0, qmean[4] = { 0, 0, 0, 0 }, var = 0, qvar[4] = { 0, 0, 0, 0 };
    for (int k = 0; k < 64; k++) {
        mean += b[k];
        qmean[psnr_hvs_quarter(k / 8, k % 8)] += b[k];
    }
    mean *= 1.0f / 64;
    for (int q = 0; q < 4; q++)
        qmean[q] *= 1.0f / 16;
    for (int k = 0; k < 64; k++) {
        const int q = psnr_hvs_quarter(k / 8, k % 8);
        var += (b[k] - mean) * (b[k] - mean);
        qvar[q] += (b[k] - qmean[q]) * (b[k] - qmean[q]);
    }
    var *= 1 / 63.f * 64; /* constants, folded at compile time */
    for (int q = 0; q < 4; q++)
        qvar[q] *= 1 / 15.f * 16;
    if (var > 0)
        var = PSNR_HVS_DIV(qvar[0] + qvar[1] + qvar[2] + qvar[3], var);
    return var;
}

/* The masking threshold of a transformed block: its AC energy weighted by
 * the mask, times the variance ratio, square-rooted, over 32. */
PSNR_HVS_FN float psnr_hvs_threshold(const int32_t dct[64], const float mask[8][8],
                                     float ratio)
{
    float energy = 0;
    for (int i = 0; i < 8; i++)
        for (int j = i == 0; j < 8; j++)
            energy += dct[i * 8 + j] * dct[i * 8 + j] * mask[i][j];
    return PSNR_HVS_ROOT_32(energy * ratio);
}

/* The 64 terms a block adds to its plane's sum, row-major, from its
 * reference and distorted samples s and d (overwritten by their DCTs). */
PSNR_HVS_FN void psnr_hvs_block_terms(int32_t s[64], int32_t d[64], const float mask[8][8],
                                      const float csf[8][8], float terms[64])
{
    const float s_ratio = psnr_hvs_variance_ratio(s), d_ratio = psnr_hvs_variance_ratio(d);
    psnr_hvs_dct8x8(s);
    psnr_hvs_dct8x8(d);
    float limit = psnr_hvs_threshold(s, mask, s_ratio);
    const float d_limit = psnr_hvs_threshold(d, mask, d_ratio);
    if (d_limit > limit)
        limit = d_limit;
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 8; j++) {
            float err = PSNR_HVS_ABS(s[i * 8 + j] - d[i * 8 + j]);
            if (i != 0 || j != 0) {
                const float masked = PSNR_HVS_DIV(limit, mask[i][j]);
                err = err < masked ? 0 : err - masked;
            }
            terms[i * 8 + j] = (err * csf[i][j]) * (err * csf[i][j]);
        }
}

#endif /* LIBVMAF_SRC_FEATURE_PSNR_HVS_PSNR_HVS_BLOCK_H */
