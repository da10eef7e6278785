/*
 * float_ms_ssim: MS-SSIM of the luma, as libvmaf 3.2's `float_ms_ssim`
 * computes it, bit for bit (docs/metrics/float_ms_ssim.md), with its
 * options (l, c and s of each scale; dB and its cap as float_ssim's).
 * Samples above 8 bits are scaled to 8 bits first, as float_ssim does.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>

#include "feature/feature_collector.h"
#include "feature/feature_extractor.h"
#include "feature/ms_ssim/ms_ssim.h"
#include "feature/ms_ssim/ms_ssim_feature.h"
#include "feature/ssim/ssim.h"
#include "feature/ssim/ssim_feature.h"
#include "log.h"

typedef struct MsSsimState {
    MsSsimOptions opt; /* first: the option table's offsets point into it */
    float *ref, *dis;  /* the luma as f32 */
    void *scratch;
    size_t scratch_size;
    double max_db;
} MsSsimState;

#define LCS(x) "float_ms_ssim_" x "_scale0", "float_ms_ssim_" x "_scale1", \
    "float_ms_ssim_" x "_scale2", "float_ms_ssim_" x "_scale3", "float_ms_ssim_" x "_scale4"
const char *const vmaf_ms_ssim_lcs_features[] = { LCS("l"), LCS("c"), LCS("s"), NULL };
static const char *const provided_features[] = { "float_ms_ssim", LCS("l"), LCS("c"), LCS("s"),
                                                 NULL };

static const VmafOption options[] = {
    { .name = "enable_lcs", .help = "also report l, c and s of each of the five scales",
      .type = VMAF_OPT_TYPE_BOOL, .offset = offsetof(MsSsimOptions, enable_lcs),
      .def.b = false, .flags = VMAF_OPT_FLAG_ADDS_OUTPUTS, .enables = vmaf_ms_ssim_lcs_features },
    { .name = "enable_db", .help = "report float_ms_ssim as -10 log10(1 - score)",
      .type = VMAF_OPT_TYPE_BOOL, .offset = offsetof(MsSsimOptions, enable_db),
      .def.b = false },
    { .name = "clip_db", .help = "with enable_db, cap the dB score at "
      "ceil(10 log10(peak^2 w h / 0.5))", .type = VMAF_OPT_TYPE_BOOL,
      .offset = offsetof(MsSsimOptions, clip_db), .def.b = false, .needs = "enable_db" },
    { NULL },
};

static void close_fex(VmafFex *fex);

static int init(VmafFex *fex)
{
    MsSsimState *st = fex->priv;
    st->scratch_size = vmaf_ms_ssim_scratch_size(fex->w, fex->h);
    if (!st->scratch_size) {
        vmaf_error("float_ms_ssim: %ux%u pictures: its five scales need at least %ux%u",
                   fex->w, fex->h, MS_SSIM_MIN_SIDE, MS_SSIM_MIN_SIDE);
        return -EINVAL;
    }
    const size_t plane = (size_t)fex->w * fex->h * sizeof(float);
    st->ref = malloc(plane);
    st->dis = malloc(plane);
    st->scratch = malloc(st->scratch_size);
    if (!st->ref || !st->dis || !st->scratch) {
        close_fex(fex);
        vmaf_error("float_ms_ssim: out of memory for %ux%u pictures", fex->w, fex->h);
        return -ENOMEM;
    }
    st->max_db = ssim_max_db(st->opt.clip_db, fex->bpc, fex->w, fex->h);
    return 0;
}

static int extract(VmafFex *fex, const VmafFexFrame *frame, VmafFeatureCollector *fc)
{
    MsSsimState *st = fex->priv;
    int err = vmaf_fex_check_frame(fex, frame);
    if (err)
        return err;
    const VmafPicture *a = frame->ref, *b = frame->dist;
    err = vmaf_ssim_plane_to_float(a->data[0], a->stride[0], fex->bpc, fex->w, fex->h, st->ref);
    if (!err)
        err = vmaf_ssim_plane_to_float(b->data[0], b->stride[0], fex->bpc, fex->w, fex->h,
                                       st->dis);
    MsSsimResult r;
    if (!err)
        err = vmaf_ms_ssim_compute(st->ref, st->dis, fex->w, fex->h, st->scratch,
                                   st->scratch_size, &r);
    if (err) {
        vmaf_error("float_ms_ssim: frame %u: MS-SSIM computation failed (%d): internal error, "
                   "please report", frame->index, err);
        return err;
    }
    err = ms_ssim_store_scores(fc, frame->index, &r, &st->opt, st->max_db);
    if (err)
        vmaf_error("float_ms_ssim: frame %u: could not store the scores (%d)", frame->index,
                   err);
    return err;
}

static void close_fex(VmafFex *fex)
{
    MsSsimState *st = fex->priv;
    free(st->ref);
    free(st->dis);
    free(st->scratch);
    st->ref = st->dis = NULL;
    st->scratch = NULL;
}

const VmafFeatureExtractor vmaf_fex_float_ms_ssim = {
    .name = "float_ms_ssim",
    .backend = VMAF_FEX_BACKEND_CPU,
    .options = options,
    .priv_size = sizeof(MsSsimState),
    .provided_features = provided_features,
    .flags = VMAF_FEX_FLAG_FRAME_PARALLEL,
    .init = init,
    .extract = extract,
    .close = close_fex,
};
