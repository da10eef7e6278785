/*
 * The inner loops of the integer VIF as a table of row functions, filled
 * with plain C by vmaf_vif_dsp_init(); the x86 SIMD entries (vif_x86.h)
 * replace them and must return the same bits for every input the contract
 * allows (test/checkasm compares them function by function with C).
 *
 * Terms used in the contracts:
 *   f       filter index 0..3 (vif_filter[f], T = vif_taps(f) = 17/9/5/3
 *           taps, H = T / 2), see vif_tables.h.
 *   rnd(s)  1 << (s - 1), and 0 for s = 0.
 *   padded  a row readable at indices -H..n-1+H (the caller mirrors it);
 *           row buffers are allocated with VIF_ROW_PAD elements each side.
 * Every sum below is exact in the type named (no wrap for any input the
 * contract allows), so SIMD versions may add the taps in any order.
 */
#ifndef LIBVMAF_SRC_FEATURE_VIF_VIF_DSP_H
#define LIBVMAF_SRC_FEATURE_VIF_VIF_DSP_H

#include <stddef.h>
#include <stdint.h>

#include "feature/vif/vif_tables.h"

/* The CUDA twin's kernels mirror with the same function. */
#ifdef __CUDACC__
#define VIF_HOST_DEVICE __host__ __device__
#else
#define VIF_HOST_DEVICE
#endif

/* Index r of a side of n >= 2 samples as the reference's padding reads it:
 * it copies row f to -f and row n-1-f to n-1+f for f = 1, 2, ... in turn,
 * so an index reflects periodically (period 2n-2) without repeating the
 * edge. */
static inline VIF_HOST_DEVICE int vif_mirror(int r, int n)
{
    const int period = 2 * n - 2;
    int q = r % period;
    if (q < 0)
        q += period;
    return q < n ? q : period - q;
}

/* Padding in elements allocated on each side of a row buffer (>= the
 * largest H, rounded up so that column 0 stays 64-byte aligned). */
#define VIF_ROW_PAD 32

/* Most parameter sets one statistic call serves. */
#define VIF_MAX_SETS 8

/* One vertically filtered row of the statistic: the local means (16-bit
 * fixed point) and second moments of ref and dis. */
typedef struct VifStatRow {
    uint16_t *mu1, *mu2;
    uint32_t *xx, *yy, *xy;
} VifStatRow;

/* The horizontally filtered moments of a run of pixels. */
typedef struct VifMoments {
    uint32_t *mu1, *mu2; /* 32-bit means (16 fraction bits) */
    uint32_t *xx, *yy, *xy;
} VifMoments;

/* The gain limits of the parameter sets scored together; min is the
 * smallest of limit[0..n-1]. */
typedef struct VifGain {
    double limit[VIF_MAX_SETS];
    double min;
    unsigned n;
} VifGain;

/* Integer sums of one scale. num_log[i] belongs to gain limit i. */
typedef struct VifAccum {
    int64_t den_log;     /* sum of log terms of the denominator */
    int64_t num_non_log; /* sum of sigma2_sq where sigma1_sq < 2 */
    int64_t den_non_log; /* count of those pixels */
    int64_t num_log[VIF_MAX_SETS];
} VifAccum;

typedef struct VifDsp {
    const char *name; /* of the highest level that filled entries: "c", "avx2", ... */

    /* Statistic, vertical pass: ref[k], dis[k] (k < T) are the source
     * rows of the output row; for every column 0 <= j < w:
     *   mu1[j] = (uint16_t)((sum_k c[k]*ref[k][j] + rnd(sh_mu)) >> sh_mu)
     *   xx[j]  = (uint32_t)((sum_k c[k]*ref[k][j]^2 + rnd(sh_sq)) >> sh_sq)
     * and mu2, yy from dis, xy from ref*dis likewise. The mean sums are
     * uint32, the square sums uint64 (uint32 suffices at 8 bits).
     * 8 <= sh_mu <= 16, 0 <= sh_sq <= 16; out rows need w elements. */
    void (*stat_v_8)(const uint8_t *const *ref, const uint8_t *const *dis, unsigned f,
                     unsigned w, unsigned sh_mu, unsigned sh_sq, const VifStatRow *out);
    void (*stat_v_16)(const uint16_t *const *ref, const uint16_t *const *dis, unsigned f,
                      unsigned w, unsigned sh_mu, unsigned sh_sq, const VifStatRow *out);

    /* Statistic, horizontal pass over a padded row, output columns
     * j0..j0+n-1 to out[0..n-1]:
     *   mu1 = sum_k c[k]*in.mu1[j0+i-H+k]                     (uint32)
     *   xx  = (uint32_t)((sum_k c[k]*(uint64_t)in.xx[..] + 32768) >> 16)
     * and mu2, yy, xy likewise. */
    void (*stat_h)(const VifStatRow *in, unsigned f, unsigned j0, unsigned n,
                   const VifMoments *out);

    /* The per-pixel VIF terms of n pixels added to acc (docs/metrics/
     * vif_numerics.md, "Local statistic"); num_log[i] for every gain
     * limit i < gain->n. Integer sums only: any pixel order. */
    void (*stat_px)(const VifMoments *m, unsigned n, const VifGain *gain, VifAccum *acc);

    /* Decimation, vertical pass of filter f: for 0 <= j < w
     *   out_ref[j] = (uint16_t)((sum_k c[k]*ref[k][j] + rnd(sh)) >> sh)
     * (uint32 sum), out_dis from dis likewise. 8 <= sh <= 16. */
    void (*dec_v_8)(const uint8_t *const *ref, const uint8_t *const *dis, unsigned f,
                    unsigned w, unsigned sh, uint16_t *out_ref, uint16_t *out_dis);
    void (*dec_v_16)(const uint16_t *const *ref, const uint16_t *const *dis, unsigned f,
                     unsigned w, unsigned sh, uint16_t *out_ref, uint16_t *out_dis);

    /* Decimation, horizontal pass at even columns of padded rows of at
     * least 2n elements (readable at -H..2n-1+H):
     *   out[j] = (uint16_t)((sum_k c[k]*in[2j-H+k] + 32768) >> 16)
     * (uint32 sum) for 0 <= j < n, for ref and dis. */
    void (*dec_h)(const uint16_t *in_ref, const uint16_t *in_dis, unsigned f, unsigned n,
                  uint16_t *out_ref, uint16_t *out_dis);
} VifDsp;

/* Fills dsp with the plain C functions, then with the entries of each
 * instruction set that cpu_flags (VMAF_CPU_FLAG_* of cpu.h, e.g.
 * vmaf_cpu_flags()) allows, in order (AVX2, then AVX-512 on top of it). */
void vmaf_vif_dsp_init(VifDsp *dsp, unsigned cpu_flags);

/* The table of level i of this build (0 = plain C, then each instruction
 * set with those below it), or NULL when i is out of range or the CPU
 * lacks it: for benchmarks and tests that compare the levels. */
const VifDsp *vmaf_vif_dsp_variant(int i);

#endif /* LIBVMAF_SRC_FEATURE_VIF_VIF_DSP_H */
