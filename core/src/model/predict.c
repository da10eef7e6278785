/* Prediction: features from the collector, normalisation, the SVM, then the
 * optional transform and clip, in the reference's order of operations so
 * that scores match it bit for bit. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libvmaf/model.h"

#include "feature/feature_collector.h"
#include "log.h"
#include "model/model_internal.h"
#include "model/svm.h"

/* A model feature's score. With options that name scores, only under the
 * name the reference gives it with those options ("integer_adm2_egl_1"):
 * the plain feature is another score. Otherwise under the name the model
 * file uses, or else under the extractor's feature name (what this
 * library's extractors emit). */
static int get_feature(const VmafModel *m, const VmafModelFeature *f, VmafFeatureCollector *fc,
                       unsigned index, double *v, bool quiet)
{
    if (f->lookup) {
        if (!vmaf_feature_collector_get(fc, f->lookup, v, index))
            return 0;
        if (!quiet)
            vmaf_error("model %s: no score of feature %s at frame %u (%s with the model's options "
                   "for it); import it under that name or use the model's features",
                   m->name, f->lookup, index, f->name);
        return -EINVAL;
    }
    if (!vmaf_feature_collector_get(fc, f->name, v, index))
        return 0;
    if (strcmp(f->name, f->feature) && !vmaf_feature_collector_get(fc, f->feature, v, index))
        return 0;
    if (quiet)
        return -EINVAL;
    if (strcmp(f->name, f->feature))
        vmaf_error("model %s: no score of feature %s (or %s) at frame %u; use the model's "
                   "features or import their scores before predicting",
                   m->name, f->feature, f->name, index);
    else
        vmaf_error("model %s: no score of feature %s at frame %u; use the model's features or "
                   "import their scores before predicting", m->name, f->name, index);
    return -EINVAL;
}

bool vmaf_model_features_present(const VmafModel *m, VmafFeatureCollector *fc, unsigned index)
{
    for (unsigned i = 0; i < m->n_features; i++) {
        double v;
        if (get_feature(m, &m->feature[i], fc, index, &v, true))
            return false;
    }
    return true;
}

/* The SVM's prediction, rescaled back to the score's range. */
static int predict_raw(const VmafModel *m, VmafFeatureCollector *fc, unsigned index,
                       double *out)
{
    double x[VMAF_MODEL_MAX_FEATURES];
    for (unsigned i = 0; i < m->n_features; i++) {
        const VmafModelFeature *f = &m->feature[i];
        double v;
        int err = get_feature(m, f, fc, index, &v, false);
        if (err)
            return err;
        if (m->norm == VMAF_MODEL_NORM_LINEAR_RESCALE)
            v = f->slope * v + f->intercept;
        x[i] = v;
    }
    double p = vmaf_svm_predict(m->svm, x, m->n_features);
    if (m->norm == VMAF_MODEL_NORM_LINEAR_RESCALE)
        p = (p - m->intercept) / m->slope;
    *out = p;
    return 0;
}

/* The straight line through two knots, as y = alpha * x + beta, computed
 * as the reference's current revision does (slope first, then the
 * intercept through the first knot), since the two algebraically equal
 * forms round differently. Knots on one point give the identity. */
static void line_through(VmafModelPoint a, VmafModelPoint b, double *alpha, double *beta)
{
    if (a.x == b.x && a.y == b.y) {
        *alpha = 1.0;
        *beta = 0.0;
    } else if (a.x == 0.0) {
        *beta = a.y;
        *alpha = (b.y - *beta) / b.x;
    } else {
        *alpha = (b.y - a.y) / (b.x - a.x);
        *beta = a.y - a.x * *alpha;
    }
}

/* Piecewise-linear through the knots; below the first and above the last
 * knot the end segments are extended. On a knot shared by two segments the
 * later segment decides, as in the reference. */
static double piecewise(const VmafModel *m, double x)
{
    const VmafModelPoint *k = m->st.knots;
    const unsigned n_seg = m->st.n_knots - 1;
    unsigned seg = 0;
    if (x > k[n_seg].x) {
        seg = n_seg - 1;
    } else if (x >= k[0].x) {
        for (unsigned s = 0; s < n_seg; s++)
            if (k[s].x <= x && x <= k[s + 1].x)
                seg = s;
    }
    if (k[seg].y == k[seg + 1].y)
        return k[seg].y;
    double alpha, beta;
    line_through(k[seg], k[seg + 1], &alpha, &beta);
    return alpha * x + beta;
}

void vmaf_model_transform(const VmafModel *m, double *score, uint64_t flags)
{
    if (!m->transform || (flags & VMAF_MODEL_FLAG_DISABLE_TRANSFORM))
        return;
    const double in = *score;
    double stage = in, out;
    if (m->st.p0_on || m->st.p1_on || m->st.p2_on) {
        out = 0.0;
        if (m->st.p0_on)
            out += m->st.p0;
        if (m->st.p1_on)
            out += m->st.p1 * stage;
        if (m->st.p2_on)
            out += m->st.p2 * stage * stage;
    } else {
        out = stage;
    }
    stage = out;
    if (m->st.n_knots)
        out = piecewise(m, stage);
    /* Rectification compares with the transform's input (the prediction
     * before the polynomial), as the reference's current revision does:
     * "output <= input" is about the whole transform. */
    if (m->st.out_lte_in && out > in)
        out = in;
    if (m->st.out_gte_in && out < in)
        out = in;
    *score = out;
}

void vmaf_model_clip(const VmafModel *m, double *score, uint64_t flags)
{
    if (!m->clip || (flags & VMAF_MODEL_FLAG_DISABLE_CLIP))
        return;
    if (*score < m->clip_min)
        *score = m->clip_min;
    if (*score > m->clip_max)
        *score = m->clip_max;
}

static int check_finite(const VmafModel *m, unsigned index, double s)
{
    if (isfinite(s))
        return 0;
    vmaf_error("model %s (%s) predicted a non-finite score at frame %u; its features or "
               "coefficients are out of range", m->name, m->source, index);
    return -ERANGE;
}

int vmaf_model_predict(const VmafModel *m, VmafFeatureCollector *fc, unsigned index,
                       uint64_t flags, double *score)
{
    double s;
    int err = predict_raw(m, fc, index, &s);
    if (err)
        return err;
    vmaf_model_transform(m, &s, flags);
    vmaf_model_clip(m, &s, flags);
    err = check_finite(m, index, s);
    if (err)
        return err;
    *score = s;
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Linear interpolation between the closest ranks of sorted scores. */
static double percentile(const double *s, unsigned n, double perc)
{
    const double p = perc * (n - 1) / 100.;
    const int lo = (int)floor(p);
    const int hi = (int)ceil(p);
    return lo == hi ? s[lo] : s[lo] * (hi - p) + s[hi] * (p - lo);
}

int vmaf_model_store_score(VmafFeatureCollector *fc, const char *name, double value,
                           unsigned index, const char *who)
{
    double have;
    if (!vmaf_feature_collector_get(fc, name, &have, index)) {
        /* The same bits again: the model re-scored, nothing changes. */
        if (!memcmp(&have, &value, sizeof(value)))
            return 0;
        vmaf_error("model %s: frame %u already has another score named %s (a feature's or "
                   "another model's); a model's scores must not replace them, since other "
                   "models read them: give the model another name " VMAF_MODEL_RENAME_HINT,
                   who, index, name);
        return -EINVAL;
    }
    int err = vmaf_feature_collector_set(fc, name, value, index);
    if (err)
        vmaf_error("model %s: could not store score %s at frame %u", who, name, index);
    return err;
}

static int store(VmafFeatureCollector *fc, const char *base, const char *suffix, double v,
                 unsigned index, const char *who)
{
    char name[320];
    snprintf(name, sizeof(name), "%s%s", base, suffix);
    return vmaf_model_store_score(fc, name, v, index, who);
}

int vmaf_model_collection_predict(const VmafModelCollection *mc, VmafFeatureCollector *fc,
                                  unsigned index, VmafModelCollectionScore *score)
{
    const unsigned n = mc->cnt;
    double *s = malloc(sizeof(*s) * n);
    if (!s) {
        vmaf_error("model collection %s: out of memory at frame %u", mc->name, index);
        return -ENOMEM;
    }

    /* Model "0" is the collection's plain score, as a plain model. */
    double head;
    int err = vmaf_model_predict(mc->head, fc, index, 0, &head);
    if (!err)
        err = store(fc, mc->head->name, "", head, index, mc->name);

    /* The statistics use each bag's score before transform and clip; the
     * bag's own score, as stored, has both. */
    for (unsigned i = 0; i < n && !err; i++) {
        const VmafModel *m = mc->model[i];
        double raw;
        err = predict_raw(m, fc, index, &raw);
        if (!err)
            err = check_finite(m, index, raw);
        if (err)
            break;
        s[i] = raw;
        double out = raw;
        vmaf_model_transform(m, &out, 0);
        vmaf_model_clip(m, &out, 0);
        err = store(fc, m->name, "", out, index, mc->name);
    }
    if (err) {
        free(s);
        return err;
    }

    double sum = 0.0;
    for (unsigned i = 0; i < n; i++)
        sum += s[i];
    const double mean = sum / n;
    double ssd = 0.0;
    for (unsigned i = 0; i < n; i++)
        ssd += pow(s[i] - mean, 2);
    double stddev = sqrt(ssd / n);

    qsort(s, n, sizeof(*s), cmp_double);
    double lo = percentile(s, n, 2.5);
    double hi = percentile(s, n, 97.5);
    free(s);

    /* The interval bounds and the mean go through the first bag's transform
     * and clip; the stddev is scaled by the transform's local slope. */
    const double delta = 0.01;
    double bagging = mean, plus = mean + delta, minus = mean - delta;
    const VmafModel *m0 = mc->model[0];
    double *const v[] = {&bagging, &lo, &hi, &plus, &minus};
    for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
        vmaf_model_transform(m0, v[i], 0);
        vmaf_model_clip(m0, v[i], 0);
    }
    stddev *= (plus - minus) / (2.0 * delta);

    err = store(fc, mc->name, "_bagging", bagging, index, mc->name);
    if (!err)
        err = store(fc, mc->name, "_stddev", stddev, index, mc->name);
    if (!err)
        err = store(fc, mc->name, "_ci_p95_lo", lo, index, mc->name);
    if (!err)
        err = store(fc, mc->name, "_ci_p95_hi", hi, index, mc->name);
    if (err)
        return err;

    score->type = VMAF_MODEL_COLLECTION_SCORE_BOOTSTRAP;
    score->bootstrap.bagging_score = bagging;
    score->bootstrap.stddev = stddev;
    score->bootstrap.ci.p95.lo = lo;
    score->bootstrap.ci.p95.hi = hi;
    return 0;
}
