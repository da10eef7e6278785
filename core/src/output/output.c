/* vmaf_write_output(): snapshot the context, pick the format's writer and
 * stream the report into its target (target.h), which renames it over the
 * target only when every write, the flush, the fsync and the close
 * succeeded. A failed or interrupted report therefore never leaves a
 * partial file, and never replaces an existing file (an input given as
 * output by mistake included) with half a report. */
#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "context.h"
#include "log.h"
#include "output/output.h"
#include "output/target.h"

static const VmafOutputWriter *const writers[] = {
    &vmaf_output_writer_xml,
    &vmaf_output_writer_json,
    &vmaf_output_writer_csv,
    &vmaf_output_writer_sub,
};

const char *const vmaf_output_pool_name[VMAF_POOL_METHOD_NB] = {
    [VMAF_POOL_METHOD_MIN] = "min",
    [VMAF_POOL_METHOD_MAX] = "max",
    [VMAF_POOL_METHOD_MEAN] = "mean",
    [VMAF_POOL_METHOD_HARMONIC_MEAN] = "harmonic_mean",
};

/* The reference writes these model-file feature names under short aliases;
 * reports list them the same way so that parsers find the same keys. */
static const struct {
    const char *name, *alias;
} aliases[] = {
    { "'VMAF_feature_adm2_score'", "adm2" },
    { "'VMAF_integer_feature_adm2_score'", "integer_adm2" },
    { "'VMAF_feature_adm_scale0_score'", "adm_scale0" },
    { "'VMAF_feature_adm_scale1_score'", "adm_scale1" },
    { "'VMAF_feature_adm_scale2_score'", "adm_scale2" },
    { "'VMAF_feature_adm_scale3_score'", "adm_scale3" },
    { "'VMAF_feature_motion_score'", "motion" },
    { "'VMAF_feature_motion2_score'", "motion2" },
    { "'VMAF_integer_feature_motion_score'", "integer_motion" },
    { "'VMAF_integer_feature_motion2_score'", "integer_motion2" },
    { "'VMAF_feature_vif_scale0_score'", "vif_scale0" },
    { "'VMAF_feature_vif_scale1_score'", "vif_scale1" },
    { "'VMAF_feature_vif_scale2_score'", "vif_scale2" },
    { "'VMAF_feature_vif_scale3_score'", "vif_scale3" },
    { "'VMAF_integer_feature_vif_scale0_score'", "integer_vif_scale0" },
    { "'VMAF_integer_feature_vif_scale1_score'", "integer_vif_scale1" },
    { "'VMAF_integer_feature_vif_scale2_score'", "integer_vif_scale2" },
    { "'VMAF_integer_feature_vif_scale3_score'", "integer_vif_scale3" },
};

static const char *output_name(const char *name)
{
    for (size_t i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++)
        if (!strcmp(name, aliases[i].name))
            return aliases[i].alias;
    return name;
}

bool vmaf_report_frame_used(const VmafReport *r, unsigned index)
{
    if (r->subsample > 1 && index % r->subsample)
        return false;
    double v;
    for (size_t j = 0; j < r->n_feature; j++)
        if (vmaf_report_value(r, j, index, &v))
            return true;
    return false;
}

bool vmaf_report_value(const VmafReport *r, size_t f, unsigned index, double *value)
{
    return vmaf_feature_collector_at(r->fc, r->feature[f].fc_index, index, value);
}

static double elapsed_fps(const VmafContext *vmaf)
{
    double secs = (double)(vmaf->t_end.tv_sec - vmaf->t_start.tv_sec) +
                  (double)(vmaf->t_end.tv_nsec - vmaf->t_start.tv_nsec) / 1e9;
    if (!vmaf->pic_cnt || !(secs > 0.0))
        return NAN;
    return vmaf->pic_cnt / secs;
}

static int report_init(VmafReport *r, VmafContext *vmaf, const char *score_format)
{
    memset(r, 0, sizeof(*r));
    r->fc = vmaf->fc;
    r->subsample = vmaf->cfg.n_subsample;
    r->width = vmaf->w;
    r->height = vmaf->h;
    r->fps = elapsed_fps(vmaf);
    r->version = vmaf_version();
    r->score_format = score_format;

    size_t n = vmaf_feature_collector_count(vmaf->fc);
    if (n) {
        r->feature = calloc(n, sizeof(*r->feature));
        if (!r->feature) {
            vmaf_error("report: out of memory listing %zu features", n);
            return -ENOMEM;
        }
    }
    for (size_t i = 0; i < n; i++) {
        VmafReportFeature *f = &r->feature[r->n_feature];
        f->name = vmaf_feature_collector_name(vmaf->fc, i);
        if (!f->name)
            continue;
        f->out_name = output_name(f->name);
        f->fc_index = i;
        unsigned cap = vmaf_feature_collector_capacity(vmaf->fc, i);
        if (cap > r->n_slots)
            r->n_slots = cap;
        r->n_feature++;
    }

    /* Pooled over the frames read, as the reference does; a context that
     * only holds imported scores pools over every frame that has one. A
     * feature missing at some frame of the range gets no pooled values. */
    unsigned n_frames = vmaf->pic_cnt ? vmaf->pic_cnt : r->n_slots;
    for (size_t j = 0; j < r->n_feature && n_frames; j++) {
        VmafReportFeature *f = &r->feature[j];
        for (int m = VMAF_POOL_METHOD_MIN; m < VMAF_POOL_METHOD_NB; m++)
            f->has_pooled[m] = !vmaf_feature_score_pooled(vmaf, f->name,
                                                          (enum VmafPoolingMethod)m,
                                                          &f->pooled[m], 0, n_frames - 1);
    }
    return 0;
}

int vmaf_write_output_with_format(VmafContext *vmaf, const char *output_path,
                                  enum VmafOutputFormat fmt, const char *score_format)
{
    if (!vmaf || !output_path) {
        vmaf_error("report: %s is NULL; pass a context and an output path",
                   !vmaf ? "the context" : "the output path");
        return -EINVAL;
    }
    if (!score_format)
        score_format = VMAF_OUTPUT_DEFAULT_SCORE_FORMAT;
    if (vmaf_output_check_score_format(score_format)) {
        vmaf_error("report: score format \"%s\" is not one printf conversion "
                   "%%[flags][width][.precision](e|f|g) (width and precision at most 99), "
                   "such as \"%%.6f\" or \"%%.17g\"", score_format);
        return -EINVAL;
    }
    const VmafOutputWriter *w = NULL;
    for (size_t i = 0; i < sizeof(writers) / sizeof(writers[0]); i++)
        if (writers[i]->fmt == fmt)
            w = writers[i];
    if (!w) {
        vmaf_error("report: unknown output format %d for \"%s\"; use XML (%d), JSON (%d), "
                   "CSV (%d) or SUB (%d)", (int)fmt, output_path, VMAF_OUTPUT_FORMAT_XML,
                   VMAF_OUTPUT_FORMAT_JSON, VMAF_OUTPUT_FORMAT_CSV, VMAF_OUTPUT_FORMAT_SUB);
        return -EINVAL;
    }

    vmaf_context_settle(vmaf);
    VmafReport r;
    int err = report_init(&r, vmaf, score_format);
    if (!err && w->check)
        err = w->check(&r);
    if (err) {
        free(r.feature);
        return err;
    }

    /* Numbers are written with '.' whatever locale the application chose:
     * a decimal comma would break every format. */
    locale_t c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
    if (!c_locale) {
        vmaf_error("report: cannot create the C locale for \"%s\": out of memory", output_path);
        free(r.feature);
        return -ENOMEM;
    }

    VmafTarget t;
    err = vmaf_target_open(&t, output_path);
    if (!err) {
        locale_t old = uselocale(c_locale);
        VmafOutSink s = { .f = t.f, .err = 0 };
        w->write(&r, &s);
        uselocale(old);
        err = s.err;
        if (err) {
            char eb[128];
            vmaf_error("report: cannot write %s to \"%s\": %s; %s; %s", w->name,
                       t.kind == VMAF_TARGET_STDOUT ? "stdout" : output_path,
                       vmaf_target_errstr(err, eb, sizeof(eb)), vmaf_target_outcome(&t),
                       vmaf_target_advice(err));
        }
        err = vmaf_target_close(&t, err);
    }
    freelocale(c_locale);
    free(r.feature);
    return err;
}

int vmaf_write_output(VmafContext *vmaf, const char *output_path, enum VmafOutputFormat fmt)
{
    return vmaf_write_output_with_format(vmaf, output_path, fmt, NULL);
}
