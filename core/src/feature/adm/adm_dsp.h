/*
 * The inner loops of the ADM numerics, one row at a time, as a table of
 * function pointers (dav1d style). vmaf_adm_dsp_init() fills it with plain C,
 * then with the AVX2 and AVX-512 entries the CPU flags allow; those return
 * exactly the same bits for every input of the contract (not only for
 * plausible pictures): test/checkasm compares each entry with the C one.
 *
 * Conventions for every entry:
 * - Band rows are int32_t arrays indexed by band column. Scale-0 values are
 *   always in int16_t range (the reference stores them as int16_t), rows of
 *   scales 1..3 use the full int32_t range.
 * - "wrap" means two's complement modulo 2^32 (2^64 for 64-bit sums): the
 *   reference's int overflows, which gcc compiles as wrapping. Narrowing
 *   conversions like (int16_t)v keep the low bits.
 * - Entries taking x0, x1 process columns x0 <= x < x1 and may read the
 *   columns listed with them, nothing else.
 * - Sums over a row are returned, not accumulated; the caller rounds them.
 */
#ifndef LIBVMAF_SRC_FEATURE_ADM_ADM_DSP_H
#define LIBVMAF_SRC_FEATURE_ADM_ADM_DSP_H

#include <stdint.h>

#include "feature/adm/adm_plan.h"

/* The h, v, d bands of one row (b[0] = h, b[1] = v, b[2] = d). */
typedef struct AdmBandRows {
    int32_t *b[3];
} AdmBandRows;

/* Masking threshold inputs of one row c (see cm_0): sums of three
 * neighbouring weighted-band values up[x] (row c-1), mid[x] (row c),
 * down[x] (row c+1), f[x] and the centre term c[x] of row c. */
typedef struct AdmThrRows {
    const int32_t *up, *mid, *down, *f, *c;
} AdmThrRows;

typedef struct AdmDsp {
    /* Scale-0 transform, vertical pass over x < w, from s[k] = input rows
     * 2i-1+k (k = 0..3, mirrored by the caller; samples of bpc bits), with
     * L = {15826, 27411, 7345, -4240}, H = {-4240, -7345, 27411, -15826},
     * half = 2^(bpc-1):
     *   lo[x] = (int16_t)((sum_k L[k]*s[k][x] - 46342*half + half) >> bpc)
     *   hi[x] = (int16_t)((sum_k H[k]*s[k][x] + half) >> bpc)
     * sums in 32 bits, wrap (they exceed it at 16 bits and wrap back). */
    void (*dwt_vert_8)(const uint8_t *const s[4], unsigned w, int16_t *lo, int16_t *hi);
    void (*dwt_vert_16)(const uint16_t *const s[4], unsigned w, unsigned bpc, int16_t *lo,
                        int16_t *hi);
    /* Scale-0 horizontal pass, output x < (w+1)/2 from taps t[k] = row[2x-1+k];
     * reads lo[-1 .. w+1], padded by the caller: [-1] = [1], [w] = [w-1],
     * [w+1] = [w-2]. With (p) = (sum_k p[k]*t[k] + 32768) >> 16, int16_t:
     *   a = (L)(lo), v = (H)(lo), h = (L)(hi), d = (H)(hi). */
    void (*dwt_horz_0)(const int16_t *lo, const int16_t *hi, unsigned w, int32_t *a,
                       AdmBandRows *out);
    /* Scales 1..3, the same passes on int32 rows with 64-bit sums:
     *   vertical:   (int32_t)((sum + add) >> shift) into lo, hi (x < w)
     *   horizontal: (int32_t)((sum + add) >> shift) into a, h, v, d */
    void (*dwt_vert_s)(const int32_t *const s[4], unsigned w, int32_t add, unsigned shift,
                       int32_t *lo, int32_t *hi);
    void (*dwt_horz_s)(const int32_t *lo, const int32_t *hi, unsigned w, int32_t add,
                       unsigned shift, int32_t *a, AdmBandRows *out);

    /* Decoupling of the distorted bands t into restored r = k*o and additive
     * a = t - r, for n gain limits gain[g] (out r[g], a[g]); o = reference.
     * Per band: k = clamp(t/o in Q15 via 2^30/o, 0, 1), r0 = round(k*o).
     * Where the (h, v) vectors of o and t are within 1 degree
     * ((double)(float)ot >= 0 and (double)(float)ot^2 >= (cos1^2 *
     * (float)oo) * (float)tt, in double) and k*o != 0, r = min(r0*gain, t)
     * for k*o > 0, max(r0*gain, t) for k*o < 0, in double, truncated. */
    void (*decouple_0)(const AdmBandRows *o, const AdmBandRows *t, unsigned x0, unsigned x1,
                       const double *gain, unsigned n, AdmBandRows *r, AdmBandRows *a);
    /* Scales 1..3: o beyond 15 bits is first rounded to its top 15 bits. */
    void (*decouple_s)(const AdmBandRows *o, const AdmBandRows *t, unsigned x0, unsigned x1,
                       const double *gain, unsigned n, AdmBandRows *r, AdmBandRows *a);

    /* CSF weighting of one row (q: fixed-point weights h, v, d), reduced to
     * what masking needs: per band y = weighted value,
     *   f = y/30, c = y/15 (fixed point, as below), f[x] = sum of the three
     *   bands' f, c[x] = sum of the three bands' c (wrap).
     * Scale 0: y = (int16_t)((q*s + {16384, 16384, 65535}) >> {15, 15, 17}),
     *   f = (int16_t)((4369*|y| + 2048) >> 12), c = (int16_t)((8738*|y| + 2048) >> 12).
     * Scales 1..3: y = (int32_t)((q*s + 2^27) >> 28),
     *   f = (int32_t)((143165577*|y| - 2^31) >> 32), c: 286331153 instead
     *   (the reference's rounding constant is -2^31). |INT32_MIN| wraps. */
    void (*csf_0)(const AdmBandRows *s, unsigned x0, unsigned x1, const uint32_t q[3],
                  int32_t *f, int32_t *c);
    void (*csf_s)(const AdmBandRows *s, unsigned x0, unsigned x1, const uint32_t q[3],
                  int32_t *f, int32_t *c);
    /* out[x] = f[x-1] + f[x] + f[x+1] (wrap); reads f[x0-1 .. x1]. */
    void (*sum3)(const int32_t *f, unsigned x0, unsigned x1, int32_t *out);

    /* Contrast masking of one row, returning per band the sum over x of
     *   x = |s*q| - (thr << sub) with thr = up + mid + down - f + c (wrap),
     *   clamped at 0, then ((x*x + sq_add) >> sq_shift) * x + cub_add,
     *   >> cub_shift (64-bit, wrap), with the squares truncated to int32.
     * Scale 0: s*q in 32 bits. Scales 1..3: (int32_t)((s*q + 2^27) >> 28). */
    void (*cm_0)(const AdmBandRows *s, const uint32_t q[3], const AdmThrRows *t, unsigned x0,
                 unsigned x1, const AdmCmRound *rnd, int64_t sum[3]);
    void (*cm_s)(const AdmBandRows *s, const uint32_t q[3], const AdmThrRows *t, unsigned x0,
                 unsigned x1, const AdmCmRound *rnd, int64_t sum[3]);

    /* Denominator terms of one row of the reference's bands, per band the
     * sum over x (uint64, wrap) of |s|^3 (scale 0) or of
     * ((|s|^2 + sq_add) >> sq_shift) * |s| + cub_add, >> cub_shift. */
    void (*den_0)(const AdmBandRows *s, unsigned x0, unsigned x1, uint64_t sum[3]);
    void (*den_s)(const AdmBandRows *s, unsigned x0, unsigned x1, const AdmDenRound *rnd,
                  uint64_t sum[3]);
} AdmDsp;

/* Fills dsp with the fastest entries cpu_flags allow (enum VmafCpuFlag bits
 * that are set mark instruction sets that may be used). */
void vmaf_adm_dsp_init(AdmDsp *dsp, unsigned cpu_flags);

/* The plain C table, for tests that compare variants. */
void vmaf_adm_dsp_init_c(AdmDsp *dsp);

/* 2^30 / v (truncated, sign of v) at index v + 32768, v in -32768..32768
 * (0 at v = 0); built once. */
const int32_t *vmaf_adm_div_lut(void);

#endif /* LIBVMAF_SRC_FEATURE_ADM_ADM_DSP_H */
