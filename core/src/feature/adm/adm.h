/*
 * ADM (integer Additive Detail Metric) numerics: every value of libvmaf
 * 3.2's `adm` extractor (its plain C code path), bit for bit. What each
 * stage computes is in docs/metrics/adm_numerics.md.
 *
 * One call scores one frame for one or more parameter sets. Everything that
 * depends only on the pictures (the wavelet transform of both, the
 * denominators' sums, the first half of the decoupling) is computed once per
 * call; sets whose CSF weights and gain limit are equal share everything
 * but the final arithmetic.
 */
#ifndef LIBVMAF_SRC_FEATURE_ADM_ADM_H
#define LIBVMAF_SRC_FEATURE_ADM_ADM_H

#include <stdbool.h>
#include <stddef.h>

/* Picture sizes accepted. Below 17 the reference crashes (its coarsest band
 * would be one sample wide); the upper bound keeps every intermediate shift
 * and exponent of the reference in range. */
#define ADM_MIN_SIZE 17u
#define ADM_MAX_SIZE 16384u
#define ADM_MAX_PARAM_SETS 16u

enum AdmCsfMode {
    ADM_CSF_WATSON = 0,
    ADM_CSF_BARTEN = 1,
    ADM_CSF_BLEND = 2,     /* Barten-Watson blend, tabulated */
    ADM_CSF_BLEND_MAE = 3, /* the same, fitted on MAE */
};

/* The options of the reference's `adm` extractor (debug only selects
 * outputs, so it is not here). */
typedef struct AdmParams {
    double enhn_gain_limit; /* adm_enhn_gain_limit, 1..100 */
    double norm_view_dist;  /* adm_norm_view_dist, 0.75..24 */
    double csf_scale;       /* adm_csf_scale, 0..50 (Barten only) */
    double csf_diag_scale;  /* adm_csf_diag_scale, 0..50 (Barten only) */
    double noise_weight;    /* adm_noise_weight, 0..1500 */
    double dlm_weight;      /* adm_dlm_weight, 0..1 */
    double min_val;         /* adm_min_val, 0..1 */
    int ref_display_height; /* adm_ref_display_height, 1..4320 */
    int csf_mode;           /* adm_csf_mode, enum AdmCsfMode */
    bool skip_scale0;       /* adm_skip_scale0 */
    bool skip_aim;          /* adm_skip_aim */
} AdmParams;

/* Every output value, as the reference stores it (double). With debug the
 * reference also reports adm (= adm2), num, den and the per-scale num/den. */
typedef struct AdmScores {
    double adm2, aim, adm3;
    double scale[4];
    double adm, num, den;
    double num_scale[4], den_scale[4];
} AdmScores;

/* The reference's defaults. */
void vmaf_adm_params_default(AdmParams *p);

/* Whether the viewing geometry is one the integer pipeline supports:
 * norm_view_dist * ref_display_height >= 3 * 1080 (the reference fails every
 * frame below). */
bool vmaf_adm_view_supported(double norm_view_dist, int ref_display_height);

/* 0 if a w x h picture of bpc bits (8..16) can be scored with params (NULL:
 * check the picture only); else -EINVAL and, when why is not NULL, a
 * one-line reason in why (at most len bytes, NUL-terminated). */
int vmaf_adm_check(unsigned w, unsigned h, unsigned bpc, const AdmParams *params, char *why,
                   size_t len);

/* Whether two parameter sets can go in one vmaf_adm_compute() call: any two
 * valid sets can (the transform of the pictures is always shared). */
bool vmaf_adm_params_share_pass(const AdmParams *a, const AdmParams *b);

/* Bytes of scratch vmaf_adm_compute() needs for a w x h picture and up to
 * n_params parameter sets; 0 if the size or count is out of range. The
 * scratch needs no alignment and no initialisation. */
size_t vmaf_adm_scratch_size(unsigned w, unsigned h, unsigned n_params);

/* Scores one frame: out[i] for params[i], i < n_params. ref and dis point
 * at the luma planes, strides in bytes (may be negative); samples are
 * uint8_t at bpc 8 and uint16_t (native endianness) at bpc 9..16. Returns 0,
 * or -EINVAL (sizes, strides, parameters, scratch too small) and leaves out
 * untouched. Thread-safe with one scratch per concurrent call. */
int vmaf_adm_compute(const void *ref, ptrdiff_t ref_stride, const void *dis, ptrdiff_t dis_stride,
                     unsigned w, unsigned h, unsigned bpc, const AdmParams *params,
                     unsigned n_params, void *scratch, size_t scratch_size, AdmScores *out);

/* vmaf_adm_compute() runs the inner loops of the CPU levels in use
 * (vmaf_cpu_flags()); this one runs those of dsp (vmaf_adm_dsp_init() of
 * adm_dsp.h), so that tests can compare levels. Same results. */
struct AdmDsp;
int vmaf_adm_compute_dsp(const struct AdmDsp *dsp, const void *ref, ptrdiff_t ref_stride,
                         const void *dis, ptrdiff_t dis_stride, unsigned w, unsigned h,
                         unsigned bpc, const AdmParams *params, unsigned n_params, void *scratch,
                         size_t scratch_size, AdmScores *out);

#endif /* LIBVMAF_SRC_FEATURE_ADM_ADM_H */
