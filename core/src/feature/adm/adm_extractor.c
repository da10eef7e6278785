/*
 * adm: the integer Additive Detail Metric of libvmaf 3.2's `adm`
 * extractor, bit for bit on its C path (docs/metrics/vmaf.md); the
 * numerics are in adm.c. Requests that differ only in options that name
 * the scores (VMAF's and NEG's gain limits) run as one instance whose pass
 * shares the wavelet transform of both pictures.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "feature/adm/adm.h"
#include "feature/adm/adm_feature.h"
#include "feature/feature_collector.h"
#include "feature/feature_extractor.h"
#include "log.h"

typedef struct AdmState {
    AdmOptions opt; /* first: the option table's offsets point into it */
    void *scratch;
    size_t scratch_size;
} AdmState;

_Static_assert(VMAF_FEX_MAX_VARIANTS <= ADM_MAX_PARAM_SETS,
               "one adm pass computes every variant of an instance");

static const char *const scale_names[4] = { "integer_adm_scale0", "integer_adm_scale1",
                                            "integer_adm_scale2", "integer_adm_scale3" };
static const char *const num_names[4] = { "integer_adm_num_scale0", "integer_adm_num_scale1",
                                          "integer_adm_num_scale2", "integer_adm_num_scale3" };
static const char *const den_names[4] = { "integer_adm_den_scale0", "integer_adm_den_scale1",
                                          "integer_adm_den_scale2", "integer_adm_den_scale3" };

#define DEBUG_FEATURES                                                                      \
    "integer_adm", "integer_adm_num", "integer_adm_den", "integer_adm_num_scale0",          \
        "integer_adm_den_scale0", "integer_adm_num_scale1", "integer_adm_den_scale1",       \
        "integer_adm_num_scale2", "integer_adm_den_scale2", "integer_adm_num_scale3",       \
        "integer_adm_den_scale3"

static const char *const debug_features[] = { DEBUG_FEATURES, NULL };
static const char *const provided_features[] = {
    "integer_adm2",       "integer_aim",        "integer_adm3",       "integer_adm_scale0",
    "integer_adm_scale1", "integer_adm_scale2", "integer_adm_scale3", DEBUG_FEATURES,
    NULL,
};

#define NAMES VMAF_OPT_FLAG_NAMES_SCORE
#define DOUBLE_OPT(nm, al, hl, field, dflt, lo, hi)                                         \
    { .name = nm, .alias = al, .help = hl, .type = VMAF_OPT_TYPE_DOUBLE,                    \
      .offset = offsetof(AdmOptions, field), .def.d = dflt, .min = lo, .max = hi,           \
      .flags = NAMES }
static const VmafOption options[] = {
    { .name = "debug", .help = "also report integer_adm and the numerators and denominators",
      .type = VMAF_OPT_TYPE_BOOL, .offset = offsetof(AdmOptions, debug), .def.b = false,
      .flags = VMAF_OPT_FLAG_ADDS_OUTPUTS, .enables = debug_features },
    DOUBLE_OPT("adm_csf_scale", "scf", "scale of the horizontal and vertical CSF terms "
               "(Barten, adm_csf_mode 1)", csf_scale, 1.0, 0.0, 50.0),
    DOUBLE_OPT("adm_csf_diag_scale", "scfd", "scale of the diagonal CSF term (Barten, "
               "adm_csf_mode 1)", csf_diag_scale, 1.0, 0.0, 50.0),
    DOUBLE_OPT("adm_dlm_weight", "dlmw", "weight of DLM against AIM in integer_adm3 (1: DLM "
               "only)", dlm_weight, 0.5, 0.0, 1.0),
    DOUBLE_OPT("adm_enhn_gain_limit", "egl", "enhancement gain limit of ADM, 1 (no gain, "
               "VMAF NEG) to 100", enhn_gain_limit, 100.0, 1.0, 100.0),
    DOUBLE_OPT("adm_norm_view_dist", "nvd", "viewing distance over the display's height; "
               "times adm_ref_display_height at least 3240", norm_view_dist, 3.0, 0.75, 24.0),
    { .name = "adm_ref_display_height", .alias = "rdh", .help = "display height in pixels",
      .type = VMAF_OPT_TYPE_INT, .offset = offsetof(AdmOptions, ref_display_height),
      .def.i = 1080, .min = 1, .max = 4320, .flags = NAMES },
    { .name = "adm_csf_mode", .alias = "csf", .help = "contrast sensitivity function: 0 "
      "Watson, 1 Barten, 2 Barten-Watson blend, 3 blend fitted on MAE",
      .type = VMAF_OPT_TYPE_INT, .offset = offsetof(AdmOptions, csf_mode), .def.i = 0,
      .min = 0, .max = 3, .flags = NAMES },
    DOUBLE_OPT("adm_noise_weight", "nw", "weight of the noise floor in the denominators",
               noise_weight, 0.03125, 0.0, 1500.0),
    { .name = "adm_skip_aim", .help = "do not compute integer_aim (reported as 0)",
      .type = VMAF_OPT_TYPE_BOOL, .offset = offsetof(AdmOptions, skip_aim), .def.b = false },
    { .name = "adm_skip_scale0", .alias = "ssz", .help = "leave scale 0 out of the scores",
      .type = VMAF_OPT_TYPE_BOOL, .offset = offsetof(AdmOptions, skip_scale0), .def.b = false,
      .flags = NAMES },
    DOUBLE_OPT("adm_min_val", "min", "the smallest integer_adm3; below it, clipped",
               min_val, 0.0, 0.0, 1.0),
    { NULL },
};

/* The reference fails every frame below this viewing geometry; here the
 * options are refused when they are given. */
static int check_options(const void *opts, char *why, size_t why_len)
{
    const AdmOptions *o = opts;
    if (vmaf_adm_view_supported(o->norm_view_dist, o->ref_display_height))
        return 0;
    snprintf(why, why_len, "adm_norm_view_dist x adm_ref_display_height = %g x %d is below "
             "3 x 1080 (3240), which the integer ADM does not support; raise either",
             o->norm_view_dist, o->ref_display_height);
    return -EINVAL;
}

static bool shares_pass(const void *a, const void *b)
{
    const AdmParams pa = vmaf_adm_params_of(a), pb = vmaf_adm_params_of(b);
    return vmaf_adm_params_share_pass(&pa, &pb);
}

static int init(VmafFex *fex)
{
    AdmState *st = fex->priv;
    char why[256];
    const AdmParams p = vmaf_adm_params_of(&st->opt);
    if (vmaf_adm_check(fex->w, fex->h, fex->bpc, &p, why, sizeof(why))) {
        vmaf_error("adm: %s", why);
        return -EINVAL;
    }
    st->scratch_size = vmaf_adm_scratch_size(fex->w, fex->h, fex->n_variants);
    st->scratch = st->scratch_size ? malloc(st->scratch_size) : NULL;
    if (!st->scratch) {
        vmaf_error("adm: out of memory allocating %zu bytes of scratch for %ux%u",
                   st->scratch_size, fex->w, fex->h);
        return -ENOMEM;
    }
    return 0;
}

int vmaf_adm_store_scores(const VmafFex *fex, unsigned v, const AdmScores *s,
                          VmafFeatureCollector *fc, unsigned index)
{
    const bool debug = ((const AdmOptions *)fex->variant[v])->debug;
    int err = vmaf_fex_store_variant(fex, v, fc, "integer_adm2", s->adm2, index);
    if (!err)
        err = vmaf_fex_store_variant(fex, v, fc, "integer_aim", s->aim, index);
    if (!err)
        err = vmaf_fex_store_variant(fex, v, fc, "integer_adm3", s->adm3, index);
    for (int k = 0; k < 4 && !err; k++)
        err = vmaf_fex_store_variant(fex, v, fc, scale_names[k], s->scale[k], index);
    if (!debug || err)
        return err;
    err = vmaf_fex_store_variant(fex, v, fc, "integer_adm", s->adm, index);
    if (!err)
        err = vmaf_fex_store_variant(fex, v, fc, "integer_adm_num", s->num, index);
    if (!err)
        err = vmaf_fex_store_variant(fex, v, fc, "integer_adm_den", s->den, index);
    for (int k = 0; k < 4 && !err; k++) {
        err = vmaf_fex_store_variant(fex, v, fc, num_names[k], s->num_scale[k], index);
        if (!err)
            err = vmaf_fex_store_variant(fex, v, fc, den_names[k], s->den_scale[k], index);
    }
    return err;
}

static int extract(VmafFex *fex, const VmafFexFrame *frame, VmafFeatureCollector *fc)
{
    AdmState *st = fex->priv;
    int err = vmaf_fex_check_frame(fex, frame);
    if (err)
        return err;
    AdmParams params[VMAF_FEX_MAX_VARIANTS];
    AdmScores scores[VMAF_FEX_MAX_VARIANTS];
    for (unsigned v = 0; v < fex->n_variants; v++)
        params[v] = vmaf_adm_params_of(fex->variant[v]);
    err = vmaf_adm_compute(frame->ref->data[0], frame->ref->stride[0], frame->dist->data[0],
                           frame->dist->stride[0], fex->w, fex->h, fex->bpc, params,
                           fex->n_variants, st->scratch, st->scratch_size, scores);
    if (err) {
        vmaf_error("adm: frame %u: the computation failed (%d): internal error, please report",
                   frame->index, err);
        return err;
    }
    for (unsigned v = 0; v < fex->n_variants && !err; v++)
        err = vmaf_adm_store_scores(fex, v, &scores[v], fc, frame->index);
    if (err)
        vmaf_error("adm: frame %u: could not store the scores (%d)", frame->index, err);
    return err;
}

static void close_fex(VmafFex *fex)
{
    AdmState *st = fex ? fex->priv : NULL;
    if (!st)
        return;
    free(st->scratch);
    st->scratch = NULL;
}

const VmafFeatureExtractor vmaf_fex_adm = {
    .name = "adm",
    .backend = VMAF_FEX_BACKEND_CPU,
    .options = options,
    .priv_size = sizeof(AdmState),
    .provided_features = provided_features,
    .flags = VMAF_FEX_FLAG_FRAME_PARALLEL,
    .check_options = check_options,
    .shares_pass = shares_pass,
    .init = init,
    .extract = extract,
    .close = close_fex,
};
