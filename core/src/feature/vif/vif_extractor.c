/*
 * vif: the integer Visual Information Fidelity of libvmaf 3.2's `vif`
 * extractor, bit for bit (docs/metrics/vmaf.md); the numerics are in
 * vif.c. Requests that differ only in their gain limit (VMAF and NEG) run
 * as one instance whose pass computes every gain limit's scores.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>

#include "feature/feature_collector.h"
#include "feature/feature_extractor.h"
#include "feature/vif/vif.h"
#include "feature/vif/vif_feature.h"
#include "log.h"

typedef struct VifState {
    VifOptions opt; /* first: the option table's offsets point into it */
    void *scratch;
    size_t scratch_size;
} VifState;

static const char *const scale_names[4] = { "integer_vif_scale0", "integer_vif_scale1",
                                            "integer_vif_scale2", "integer_vif_scale3" };
static const char *const num_names[4] = { "integer_vif_num_scale0", "integer_vif_num_scale1",
                                          "integer_vif_num_scale2", "integer_vif_num_scale3" };
static const char *const den_names[4] = { "integer_vif_den_scale0", "integer_vif_den_scale1",
                                          "integer_vif_den_scale2", "integer_vif_den_scale3" };

#define DEBUG_FEATURES                                                                      \
    "integer_vif", "integer_vif_num", "integer_vif_den", "integer_vif_num_scale0",          \
        "integer_vif_den_scale0", "integer_vif_num_scale1", "integer_vif_den_scale1",       \
        "integer_vif_num_scale2", "integer_vif_den_scale2", "integer_vif_num_scale3",       \
        "integer_vif_den_scale3"

static const char *const debug_features[] = { DEBUG_FEATURES, NULL };
static const char *const provided_features[] = { "integer_vif_scale0", "integer_vif_scale1",
                                                 "integer_vif_scale2", "integer_vif_scale3",
                                                 DEBUG_FEATURES, NULL };

static const VmafOption options[] = {
    { .name = "vif_enhn_gain_limit", .alias = "egl",
      .help = "enhancement gain limit of VIF, 1 (no gain, VMAF NEG) to 100",
      .type = VMAF_OPT_TYPE_DOUBLE, .offset = offsetof(VifOptions, enhn_gain_limit),
      .def.d = VMAF_VIF_EGL_DEFAULT, .min = VMAF_VIF_EGL_MIN, .max = VMAF_VIF_EGL_MAX,
      .flags = VMAF_OPT_FLAG_NAMES_SCORE },
    { .name = "vif_skip_scale0", .alias = "ssclz",
      .help = "leave scale 0 out (scale0 0, its num 0 and den -1; totals over scales 1-3)",
      .type = VMAF_OPT_TYPE_BOOL, .offset = offsetof(VifOptions, skip_scale0), .def.b = false,
      .flags = VMAF_OPT_FLAG_NAMES_SCORE },
    { .name = "debug", .help = "also report integer_vif and the numerators and denominators",
      .type = VMAF_OPT_TYPE_BOOL, .offset = offsetof(VifOptions, debug), .def.b = false,
      .flags = VMAF_OPT_FLAG_ADDS_OUTPUTS, .enables = debug_features },
    { NULL },
};

_Static_assert(VMAF_FEX_MAX_VARIANTS <= VMAF_VIF_MAX_PARAMS,
               "one vif pass computes every variant of an instance");

static bool shares_pass(const void *a, const void *b)
{
    const VifParams pa = vmaf_vif_params_of(a), pb = vmaf_vif_params_of(b);
    return vmaf_vif_params_share_pass(&pa, &pb);
}

static int init(VmafFex *fex)
{
    VifState *st = fex->priv;
    char why[256];
    if (vmaf_vif_check(fex->w, fex->h, why, sizeof(why))) {
        vmaf_error("vif: %s", why);
        return -EINVAL;
    }
    st->scratch_size = vmaf_vif_scratch_size(fex->w, fex->h);
    st->scratch = malloc(st->scratch_size);
    if (!st->scratch) {
        vmaf_error("vif: out of memory allocating %zu bytes of scratch for %ux%u",
                   st->scratch_size, fex->w, fex->h);
        return -ENOMEM;
    }
    return 0;
}

int vmaf_vif_store_scores(const VmafFex *fex, unsigned v, const VifScores *s,
                          VmafFeatureCollector *fc, unsigned index)
{
    const bool debug = ((const VifOptions *)fex->variant[v])->debug;
    int err = 0;
    for (int k = 0; k < 4 && !err; k++)
        err = vmaf_fex_store_variant(fex, v, fc, scale_names[k], s->scale[k], index);
    if (!debug || err)
        return err;
    err = vmaf_fex_store_variant(fex, v, fc, "integer_vif", s->vif, index);
    if (!err)
        err = vmaf_fex_store_variant(fex, v, fc, "integer_vif_num", s->num, index);
    if (!err)
        err = vmaf_fex_store_variant(fex, v, fc, "integer_vif_den", s->den, index);
    for (int k = 0; k < 4 && !err; k++) {
        err = vmaf_fex_store_variant(fex, v, fc, num_names[k], s->num_scale[k], index);
        if (!err)
            err = vmaf_fex_store_variant(fex, v, fc, den_names[k], s->den_scale[k], index);
    }
    return err;
}

static int extract(VmafFex *fex, const VmafFexFrame *frame, VmafFeatureCollector *fc)
{
    VifState *st = fex->priv;
    int err = vmaf_fex_check_frame(fex, frame);
    if (err)
        return err;
    VifParams params[VMAF_FEX_MAX_VARIANTS];
    VifScores scores[VMAF_FEX_MAX_VARIANTS];
    for (unsigned v = 0; v < fex->n_variants; v++)
        params[v] = vmaf_vif_params_of(fex->variant[v]);
    err = vmaf_vif_compute(frame->ref->data[0], frame->ref->stride[0], frame->dist->data[0],
                           frame->dist->stride[0], fex->w, fex->h, fex->bpc, params,
                           fex->n_variants, st->scratch, st->scratch_size, scores);
    if (err) {
        vmaf_error("vif: frame %u: the computation failed (%d): internal error, please report",
                   frame->index, err);
        return err;
    }
    for (unsigned v = 0; v < fex->n_variants && !err; v++)
        err = vmaf_vif_store_scores(fex, v, &scores[v], fc, frame->index);
    if (err)
        vmaf_error("vif: frame %u: could not store the scores (%d)", frame->index, err);
    return err;
}

static void close_fex(VmafFex *fex)
{
    VifState *st = fex ? fex->priv : NULL;
    if (!st)
        return;
    free(st->scratch);
    st->scratch = NULL;
}

const VmafFeatureExtractor vmaf_fex_vif = {
    .name = "vif",
    .backend = VMAF_FEX_BACKEND_CPU,
    .options = options,
    .priv_size = sizeof(VifState),
    .provided_features = provided_features,
    .flags = VMAF_FEX_FLAG_FRAME_PARALLEL,
    .shares_pass = shares_pass,
    .init = init,
    .extract = extract,
    .close = close_fex,
};
