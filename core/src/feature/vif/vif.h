/*
 * Integer VIF numerics (internal): the scores of libvmaf 3.2's `vif`
 * extractor on its plain C path, bit for bit, for one pair of luma planes.
 * docs/metrics/vif_numerics.md states the arithmetic stage by stage.
 *
 * Several parameter sets can be scored in one call: every stage that a
 * parameter does not change (filtering, decimation, local statistics) runs
 * once, and only the per-pixel terms that the gain limit touches are
 * computed per set.
 */
#ifndef LIBVMAF_SRC_FEATURE_VIF_VIF_H
#define LIBVMAF_SRC_FEATURE_VIF_VIF_H

#include <float.h>
#include <stdbool.h>
#include <stddef.h>

#include "feature/vif/vif_dsp.h"

/* The final divisions are f32 and f64 operations whose roundings are part
 * of the scores: refuse to build where intermediates are kept wider. */
#if !defined(FLT_EVAL_METHOD) || FLT_EVAL_METHOD != 0
#error "integer VIF needs FLT_EVAL_METHOD == 0 (on 32-bit x86: -msse2 -mfpmath=sse)"
#endif

/* Option defaults and ranges of the reference (vif_enhn_gain_limit). */
#define VMAF_VIF_EGL_DEFAULT 100.0
#define VMAF_VIF_EGL_MIN 1.0
#define VMAF_VIF_EGL_MAX 100.0

/* Most parameter sets one call scores together. */
#define VMAF_VIF_MAX_PARAMS VIF_MAX_SETS

/* Smallest and largest accepted plane sides (see vmaf_vif_check). */
#define VMAF_VIF_MIN_SIDE 8u
#define VMAF_VIF_MAX_SIDE 32768u

typedef struct VifParams {
    double enhn_gain_limit; /* 1..100; 1 disables the enhancement gain */
    bool skip_scale0;       /* scale 0 not scored (reported as 0, 0/-1) */
} VifParams;

/* Every output of the reference for one frame, as it stores them: the
 * per-scale num/den are f32 values, each scale score an f32 quotient, the
 * totals f64. With skip_scale0: scale[0] = 0, num_scale[0] = 0,
 * den_scale[0] = -1 and num/den/vif summed over scales 1-3. */
typedef struct VifScores {
    double scale[4];     /* integer_vif_scale0..3 */
    double vif;          /* integer_vif (debug): num/den, 1 when den is 0 */
    double num, den;     /* integer_vif_num, integer_vif_den (debug) */
    double num_scale[4]; /* integer_vif_num_scale0..3 (debug) */
    double den_scale[4]; /* integer_vif_den_scale0..3 (debug) */
} VifScores;

/* The default parameters (egl 100, scale 0 scored). */
VifParams vmaf_vif_params_default(void);

/* 0 if p is a valid parameter set, else -EINVAL. */
int vmaf_vif_params_check(const VifParams *p);

/* Whether two (valid) parameter sets can be scored in one call sharing
 * every common stage. True for any two valid sets of this version; kept
 * so that callers group sets through it rather than by their own rule. */
bool vmaf_vif_params_share_pass(const VifParams *a, const VifParams *b);

/* 0 if a w x h plane can be scored, else -EINVAL with the reason in why
 * (NUL-terminated, truncated to len; why may be NULL). Accepted:
 * 8 <= w, h <= 32768. Smaller planes are refused: below 8 rows the
 * reference crashes, below 8 columns its coarsest scale is empty (0/0) and
 * the scale above it reads leftover scratch memory. Sides of 8..15 leave
 * scale 3 one pixel thick, where the reference pads with data left over
 * from scale 2 (always of the same frame): that is reproduced. */
int vmaf_vif_check(unsigned w, unsigned h, char *why, size_t len);

/* Bytes of scratch vmaf_vif_compute() needs for a w x h plane (any bit
 * depth); 0 when vmaf_vif_check() refuses the size. */
size_t vmaf_vif_scratch_size(unsigned w, unsigned h);

/* Scores ref against dis (same size and bpc: 8, 10, 12 or 16; uint8_t
 * samples at 8 bits, uint16_t above; strides in bytes, may be negative)
 * for n_params parameter sets (1..VMAF_VIF_MAX_PARAMS): out[i] belongs to
 * params[i]. scratch: at least vmaf_vif_scratch_size(w, h) bytes, any
 * alignment; nothing is allocated. Samples above the bit depth are used as
 * they are (the reference does not mask them either).
 * 0, or -EINVAL (bad size, bpc, parameter or scratch; out untouched). */
int vmaf_vif_compute(const void *ref, ptrdiff_t ref_stride, const void *dis,
                     ptrdiff_t dis_stride, unsigned w, unsigned h, unsigned bpc,
                     const VifParams *params, unsigned n_params, void *scratch,
                     size_t scratch_size, VifScores *out);

/* The parameter sets as the statistic sees them: the distinct gain limits
 * (gain), for each set the index of its limit (slot[i]), and whether any
 * set scores scale 0. 0, or -EINVAL for a bad set or count. */
int vmaf_vif_gains(const VifParams *params, unsigned n, VifGain *gain, unsigned *slot,
                   bool *any_scale0);

/* A set's scores from the integer sums of the four scales (every pass,
 * CPU or device, ends here): slot is the set's gain limit index. */
void vmaf_vif_scores_from_sums(const VifAccum acc[VIF_SCALES], unsigned slot, bool skip_scale0,
                               VifScores *out);

/* The same with an explicit kernel table (tests and benchmarks compare the
 * variants); vmaf_vif_compute() uses the best one the CPU and the cpumask
 * allow. */
int vmaf_vif_compute_dsp(const VifDsp *dsp, const void *ref, ptrdiff_t ref_stride,
                         const void *dis, ptrdiff_t dis_stride, unsigned w, unsigned h,
                         unsigned bpc, const VifParams *params, unsigned n_params,
                         void *scratch, size_t scratch_size, VifScores *out);

#endif /* LIBVMAF_SRC_FEATURE_VIF_VIF_H */
