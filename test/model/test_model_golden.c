/* Prediction against the reference: the golden per-frame features of
 * golden_models.json are imported, and every model score the reference
 * printed (per frame and pooled, for the built-in models and for the same
 * models loaded from resource/models) must come out bit for bit (the
 * reference printed them with %.17g, which gives the double back exactly).
 *
 * The golden runs leave two paths untouched: no run enables the score
 * transform and no score reaches the clip bounds. So each golden run of a
 * model with a transform is scored again with VMAF_MODEL_FLAG_ENABLE_TRANSFORM
 * (with and without VMAF_MODEL_FLAG_DISABLE_CLIP), and every score is
 * compared with the reference's rules restated literally below from the
 * model file's parameters: transform then clip of each score; for a
 * collection, the statistics of the bags' raw scores with the mean and the
 * interval's ends through the first bag's transform and clip, and the
 * standard deviation times the transform's slope over the mean +- 0.01. */
#include <jansson.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libvmaf/libvmaf.h"
#include "libvmaf/model.h"

static unsigned n_cmp, n_same, n_bad;
static double max_diff;

static void compare(const char *what, double got, double want)
{
    const double d = fabs(got - want);
    n_cmp++;
    if (d > max_diff || isnan(d))
        max_diff = d;
    if (memcmp(&got, &want, sizeof(got)) == 0) {
        n_same++;
    } else {
        n_bad++;
        fprintf(stderr, "FAIL %s: got %.17g want %.17g (diff %.3g)\n", what, got, want, d);
    }
}

/* Model outputs in the golden frames, as opposed to features. */
static int is_score_key(const char *k)
{
    return !strncmp(k, "vmaf", 4) && (k[4] == '\0' || k[4] == '_');
}

static const char *const pool_name[] = {"min", "max", "mean", "harmonic_mean"};
static const enum VmafPoolingMethod pool_method[] = {
    VMAF_POOL_METHOD_MIN, VMAF_POOL_METHOD_MAX, VMAF_POOL_METHOD_MEAN,
    VMAF_POOL_METHOD_HARMONIC_MEAN};

static double num(const json_t *o, const char *k)
{
    const json_t *v = json_object_get(o, k);
    if (!json_is_number(v)) {
        fprintf(stderr, "golden file: no number %s\n", k);
        exit(1);
    }
    return json_number_value(v);
}

/* The golden frames' features, imported under the reference's own names:
 * the neg model must find integer_adm2_egl_1 through its feature options. */
static int import_features(VmafContext *vmaf, const json_t *frames)
{
    for (unsigned f = 0; f < json_array_size(frames); f++) {
        const char *k;
        json_t *v;
        json_object_foreach(json_array_get(frames, f), k, v) {
            if (is_score_key(k))
                continue;
            if (vmaf_import_feature_score(vmaf, k, json_number_value(v), f)) {
                fprintf(stderr, "FAIL import %s\n", k);
                return 1;
            }
        }
    }
    return 0;
}

static int run(const char *vec, const json_t *r, const char *models_dir, int from_path)
{
    const char *model_name = json_string_value(json_object_get(r, "model"));
    const json_t *frames = json_object_get(r, "frames");
    const json_t *pooled = json_object_get(r, "pooled");
    const unsigned n_frames = (unsigned)json_array_size(frames);
    const int is_coll = !strcmp(model_name, "vmaf_b_v0.6.3");
    char what[256], path[1024];

    VmafContext *vmaf;
    VmafConfiguration cfg = {.log_level = VMAF_LOG_LEVEL_ERROR};
    if (vmaf_init(&vmaf, cfg))
        return 1;
    VmafModel *model = NULL;
    VmafModelCollection *mc = NULL;
    VmafModelConfig mcfg = {.name = "vmaf"};
    int err;
    snprintf(path, sizeof(path), "%s/%s.json", models_dir, model_name);
    if (is_coll)
        err = from_path ? vmaf_model_collection_load_from_path(&model, &mc, &mcfg, path)
                        : vmaf_model_collection_load(&model, &mc, &mcfg, model_name);
    else
        err = from_path ? vmaf_model_load_from_path(&model, &mcfg, path)
                        : vmaf_model_load(&model, &mcfg, model_name);
    if (err) {
        fprintf(stderr, "FAIL loading %s: %d\n", model_name, err);
        vmaf_close(vmaf);
        return 1;
    }

    if (import_features(vmaf, frames)) {
        vmaf_model_collection_destroy(mc);
        vmaf_model_destroy(model);
        vmaf_close(vmaf);
        return 1;
    }

    const char *src = from_path ? "path" : "built-in";
    int fails = 0;
    for (unsigned f = 0; f < n_frames; f++) {
        const json_t *fr = json_array_get(frames, f);
        double s;
        snprintf(what, sizeof(what), "%s %s (%s) frame %u vmaf", vec, model_name, src, f);
        if (is_coll) {
            VmafModelCollectionScore cs;
            /* Model "0" is scored as a plain model, as libvmaf's tool does. */
            fails |= vmaf_score_at_index(vmaf, model, &s, f);
            compare(what, s, num(fr, "vmaf"));
            fails |= vmaf_feature_score_at_index(vmaf, "vmaf", &s, f);
            compare(what, s, num(fr, "vmaf"));
            fails |= vmaf_score_at_index_model_collection(vmaf, mc, &cs, f);
            fails |= cs.type != VMAF_MODEL_COLLECTION_SCORE_BOOTSTRAP;
            const double got[4] = {cs.bootstrap.bagging_score, cs.bootstrap.stddev,
                                   cs.bootstrap.ci.p95.lo, cs.bootstrap.ci.p95.hi};
            const char *key[4] = {"vmaf_bagging", "vmaf_stddev", "vmaf_ci_p95_lo",
                                  "vmaf_ci_p95_hi"};
            for (int i = 0; i < 4; i++) {
                snprintf(what, sizeof(what), "%s %s (%s) frame %u %s", vec, model_name, src, f,
                         key[i]);
                compare(what, got[i], num(fr, key[i]));
                fails |= vmaf_feature_score_at_index(vmaf, key[i], &s, f);
                compare(what, s, num(fr, key[i]));
            }
            for (unsigned b = 1;; b++) {
                char key_b[32];
                snprintf(key_b, sizeof(key_b), "vmaf_%04u", b);
                if (!json_object_get(fr, key_b))
                    break;
                snprintf(what, sizeof(what), "%s %s (%s) frame %u %s", vec, model_name, src, f,
                         key_b);
                fails |= vmaf_feature_score_at_index(vmaf, key_b, &s, f);
                compare(what, s, num(fr, key_b));
            }
        } else {
            fails |= vmaf_score_at_index(vmaf, model, &s, f);
            compare(what, s, num(fr, "vmaf"));
        }
    }

    for (int p = 0; p < 4; p++) {
        double s;
        snprintf(what, sizeof(what), "%s %s (%s) pooled %s vmaf", vec, model_name, src,
                 pool_name[p]);
        fails |= vmaf_score_pooled(vmaf, model, pool_method[p], &s, 0, n_frames - 1);
        compare(what, s, num(json_object_get(pooled, "vmaf"), pool_name[p]));
        if (!is_coll)
            continue;
        VmafModelCollectionScore cs;
        fails |= vmaf_score_pooled_model_collection(vmaf, mc, pool_method[p], &cs, 0,
                                                    n_frames - 1);
        const double got[4] = {cs.bootstrap.bagging_score, cs.bootstrap.stddev,
                               cs.bootstrap.ci.p95.lo, cs.bootstrap.ci.p95.hi};
        const char *key[4] = {"vmaf_bagging", "vmaf_stddev", "vmaf_ci_p95_lo",
                              "vmaf_ci_p95_hi"};
        for (int i = 0; i < 4; i++) {
            snprintf(what, sizeof(what), "%s %s (%s) pooled %s %s", vec, model_name, src,
                     pool_name[p], key[i]);
            compare(what, got[i], num(json_object_get(pooled, key[i]), pool_name[p]));
        }
        snprintf(what, sizeof(what), "%s %s (%s) pooled %s vmaf_0001", vec, model_name, src,
                 pool_name[p]);
        fails |= vmaf_feature_score_pooled(vmaf, "vmaf_0001", pool_method[p], &s, 0,
                                           n_frames - 1);
        compare(what, s, num(json_object_get(pooled, "vmaf_0001"), pool_name[p]));
    }
    if (fails)
        fprintf(stderr, "FAIL %s %s (%s): a scoring call failed\n", vec, model_name, src);

    vmaf_model_collection_destroy(mc);
    vmaf_model_destroy(model);
    vmaf_close(vmaf);
    return fails ? 1 : 0;
}

/* ---- the transform and the clip, restated ------------------------------- */

/* A model's score_transform (polynomial and rectification; none of these
 * models has knots) and score_clip, read from its file. */
typedef struct Post {
    bool on[3];
    double p[3];
    bool gte, lte;
    bool clip;
    double lo, hi;
} Post;

static bool flag_true(const json_t *v)
{
    return json_is_true(v) || (json_is_string(v) && !strcmp(json_string_value(v), "true"));
}

static bool post_of(const json_t *model_dict, Post *t)
{
    const json_t *st = json_object_get(model_dict, "score_transform");
    memset(t, 0, sizeof(*t));
    if (!json_is_object(st))
        return false;
    if (json_object_get(st, "knots")) {
        fprintf(stderr, "FAIL: this test does not restate knots\n");
        exit(1);
    }
    static const char *const pk[3] = {"p0", "p1", "p2"};
    for (int i = 0; i < 3; i++) {
        const json_t *v = json_object_get(st, pk[i]);
        t->on[i] = json_is_number(v);
        t->p[i] = t->on[i] ? json_number_value(v) : 0.0;
    }
    t->gte = flag_true(json_object_get(st, "out_gte_in"));
    t->lte = flag_true(json_object_get(st, "out_lte_in"));
    const json_t *c = json_object_get(model_dict, "score_clip");
    t->clip = json_array_size(c) == 2;
    if (t->clip) {
        t->lo = json_number_value(json_array_get(c, 0));
        t->hi = json_number_value(json_array_get(c, 1));
    }
    return true;
}

/* The polynomial, summed from 0 in the order p0, p1 x, p2 x x, then the
 * rectification against the transform's input. */
static double transformed(const Post *t, double x)
{
    double y = x;
    if (t->on[0] || t->on[1] || t->on[2]) {
        y = 0.0;
        if (t->on[0])
            y += t->p[0];
        if (t->on[1])
            y += t->p[1] * x;
        if (t->on[2])
            y += t->p[2] * x * x;
    }
    if (t->lte && y > x)
        y = x;
    if (t->gte && y < x)
        y = x;
    return y;
}

static unsigned n_clipped; /* compared scores the clip changed: must not stay 0 */

/* The transform and the clip of x; `counted`: x becomes a compared score
 * (not one of the slope's two probes). */
static double post_of_x(const Post *t, bool clip_off, double x, bool counted)
{
    double y = transformed(t, x);
    if (!t->clip || clip_off)
        return y;
    const double c = y < t->lo ? t->lo : y > t->hi ? t->hi : y;
    n_clipped += counted && c != y;
    return c;
}

static double post(const Post *t, bool clip_off, double x)
{
    return post_of_x(t, clip_off, x, true);
}

static double rank_percentile(const double *s, unsigned n, double perc)
{
    const double p = perc * (n - 1) / 100.;
    const int lo = (int)floor(p), hi = (int)ceil(p);
    return lo == hi ? s[lo] : s[lo] * (hi - p) + s[hi] * (p - lo);
}

static int by_value(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

#define MAX_BAGS 64

/* Per frame: the head model's score ("vmaf") and, for a collection, each
 * bag's ("vmaf_0001", ...), with the model (collection) loaded under
 * flags from path and the golden features imported. */
typedef struct Scored {
    double head[8];
    double bag[8][MAX_BAGS];
    VmafModelCollectionScore cs[8];
    double pooled[3]; /* min, max, mean of "vmaf" (bagging for a collection) */
} Scored;

static int score_run(const json_t *frames, const char *path, bool coll, unsigned n_bags,
                     uint64_t flags, Scored *out)
{
    const unsigned n = (unsigned)json_array_size(frames);
    VmafContext *vmaf;
    VmafConfiguration cfg = {.log_level = VMAF_LOG_LEVEL_ERROR};
    if (n > 8 || vmaf_init(&vmaf, cfg))
        return 1;
    VmafModel *model = NULL;
    VmafModelCollection *mc = NULL;
    VmafModelConfig mcfg = {.name = "vmaf", .flags = flags};
    int err = coll ? vmaf_model_collection_load_from_path(&model, &mc, &mcfg, path)
                   : vmaf_model_load_from_path(&model, &mcfg, path);
    if (!err)
        err = import_features(vmaf, frames);
    for (unsigned f = 0; f < n && !err; f++) {
        err = vmaf_score_at_index(vmaf, model, &out->head[f], f);
        if (!err && coll)
            err = vmaf_score_at_index_model_collection(vmaf, mc, &out->cs[f], f);
        for (unsigned b = 0; b < n_bags && !err; b++) {
            char key[32];
            snprintf(key, sizeof(key), "vmaf_%04u", b + 1);
            err = vmaf_feature_score_at_index(vmaf, key, &out->bag[f][b], f);
        }
    }
    static const enum VmafPoolingMethod pm[3] = {VMAF_POOL_METHOD_MIN, VMAF_POOL_METHOD_MAX,
                                                 VMAF_POOL_METHOD_MEAN};
    for (int p = 0; p < 3 && !err; p++) {
        if (coll) {
            VmafModelCollectionScore cs;
            err = vmaf_score_pooled_model_collection(vmaf, mc, pm[p], &cs, 0, n - 1);
            out->pooled[p] = cs.bootstrap.bagging_score;
        } else {
            err = vmaf_score_pooled(vmaf, model, pm[p], &out->pooled[p], 0, n - 1);
        }
    }
    if (err)
        fprintf(stderr, "FAIL scoring %s with flags %llu: %d\n", path,
                (unsigned long long)flags, err);
    vmaf_model_collection_destroy(mc);
    vmaf_model_destroy(model);
    vmaf_close(vmaf);
    return err ? 1 : 0;
}

/* The run's model scored with the transform enabled, clipped and not,
 * against the restated rules applied to its raw scores (clip disabled,
 * no transform: the golden scores themselves, since none is clipped). */
static int run_transform(const char *vec, const json_t *r, const char *models_dir)
{
    const char *model_name = json_string_value(json_object_get(r, "model"));
    const json_t *frames = json_object_get(r, "frames");
    const unsigned n = (unsigned)json_array_size(frames);
    const bool coll = !strcmp(model_name, "vmaf_b_v0.6.3");
    char path[1024], what[320];
    snprintf(path, sizeof(path), "%s/%s.json", models_dir, model_name);
    json_error_t je;
    json_t *file = json_load_file(path, JSON_DECODE_INT_AS_REAL, &je);
    if (!file) {
        fprintf(stderr, "FAIL %s: %s\n", path, je.text);
        return 1;
    }
    /* A collection's members "0" (the head, scored as a plain model) and
     * "1".."N" (the bags); a plain model's file is its one member. */
    Post head, bag[MAX_BAGS];
    unsigned n_bags = 0;
    bool has;
    if (coll) {
        has = post_of(json_object_get(json_object_get(file, "0"), "model_dict"), &head);
        for (char k[16]; snprintf(k, sizeof(k), "%u", n_bags + 1),
                         json_object_get(file, k) && n_bags < MAX_BAGS;
             n_bags++)
            has &= post_of(json_object_get(json_object_get(file, k), "model_dict"),
                           &bag[n_bags]);
    } else {
        has = post_of(json_object_get(file, "model_dict"), &head);
    }
    json_decref(file);
    if (!has)
        return 0; /* no transform to check (vmaf_4k_v0.6.1) */
    if (n > 8 || (coll && n_bags < 2)) {
        fprintf(stderr, "FAIL %s %s: unexpected shape\n", vec, model_name);
        return 1;
    }

    static Scored raw, got;
    if (score_run(frames, path, coll, n_bags, VMAF_MODEL_FLAG_DISABLE_CLIP, &raw))
        return 1;
    for (unsigned f = 0; f < n; f++) {
        snprintf(what, sizeof(what), "%s %s frame %u raw vmaf", vec, model_name, f);
        compare(what, raw.head[f], num(json_array_get(frames, f), "vmaf"));
    }
    for (int clip_off = 0; clip_off < 2; clip_off++) {
        const uint64_t flags =
            VMAF_MODEL_FLAG_ENABLE_TRANSFORM | (clip_off ? VMAF_MODEL_FLAG_DISABLE_CLIP : 0);
        if (score_run(frames, path, coll, n_bags, flags, &got))
            return 1;
        const char *how = clip_off ? "transform, no clip" : "transform";
        double want_pool[3] = {INFINITY, -INFINITY, 0.0};
        for (unsigned f = 0; f < n; f++) {
            double want = post(&head, clip_off, raw.head[f]);
            snprintf(what, sizeof(what), "%s %s frame %u vmaf (%s)", vec, model_name, f, how);
            compare(what, got.head[f], want);
            if (coll) {
                double s[MAX_BAGS], sum = 0.0, ssd = 0.0;
                for (unsigned b = 0; b < n_bags; b++) {
                    s[b] = raw.bag[f][b];
                    snprintf(what, sizeof(what), "%s %s frame %u vmaf_%04u (%s)", vec,
                             model_name, f, b + 1, how);
                    compare(what, got.bag[f][b], post(&bag[b], clip_off, s[b]));
                    sum += s[b];
                }
                const double mean = sum / n_bags;
                for (unsigned b = 0; b < n_bags; b++)
                    ssd += pow(s[b] - mean, 2);
                qsort(s, n_bags, sizeof(s[0]), by_value);
                const double slope = (post_of_x(&bag[0], clip_off, mean + 0.01, false) -
                                      post_of_x(&bag[0], clip_off, mean - 0.01, false)) /
                                     (2.0 * 0.01);
                const double w[4] = {post(&bag[0], clip_off, mean), sqrt(ssd / n_bags) * slope,
                                     post(&bag[0], clip_off, rank_percentile(s, n_bags, 2.5)),
                                     post(&bag[0], clip_off, rank_percentile(s, n_bags, 97.5))};
                const VmafModelCollectionScore *cs = &got.cs[f];
                const double g[4] = {cs->bootstrap.bagging_score, cs->bootstrap.stddev,
                                     cs->bootstrap.ci.p95.lo, cs->bootstrap.ci.p95.hi};
                static const char *const key[4] = {"bagging", "stddev", "ci_p95_lo",
                                                   "ci_p95_hi"};
                for (int i = 0; i < 4; i++) {
                    snprintf(what, sizeof(what), "%s %s frame %u vmaf_%s (%s)", vec,
                             model_name, f, key[i], how);
                    compare(what, g[i], w[i]);
                }
                want = w[0];
            }
            want_pool[0] = want < want_pool[0] ? want : want_pool[0];
            want_pool[1] = want > want_pool[1] ? want : want_pool[1];
            want_pool[2] += want;
        }
        want_pool[2] /= n;
        static const char *const pn[3] = {"min", "max", "mean"};
        for (int p = 0; p < 3; p++) {
            snprintf(what, sizeof(what), "%s %s pooled %s (%s)", vec, model_name, pn[p], how);
            compare(what, got.pooled[p], want_pool[p]);
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s golden_models.json models_dir\n", argv[0]);
        return 2;
    }
    json_error_t je;
    json_t *g = json_load_file(argv[1], JSON_DECODE_INT_AS_REAL, &je);
    if (!g) {
        fprintf(stderr, "%s: %s\n", argv[1], je.text);
        return 1;
    }
    int fails = 0;
    unsigned n_runs = 0;
    const json_t *vectors = json_object_get(g, "vectors");
    for (size_t v = 0; v < json_array_size(vectors); v++) {
        const json_t *vec = json_array_get(vectors, v);
        const char *id = json_string_value(json_object_get(vec, "id"));
        const json_t *runs = json_object_get(vec, "runs");
        for (size_t r = 0; r < json_array_size(runs); r++) {
            for (int from_path = 0; from_path < 2; from_path++, n_runs++)
                fails |= run(id, json_array_get(runs, r), argv[2], from_path);
            fails |= run_transform(id, json_array_get(runs, r), argv[2]);
        }
    }
    json_decref(g);
    printf("golden models: %u runs, %u scores compared, %u bit-identical, %u different "
           "(largest difference %.3g); the clip changed %u transformed scores\n", n_runs, n_cmp,
           n_same, n_bad, max_diff, n_clipped);
    /* No clipped score would mean the clip went untested. */
    return (fails || n_bad || n_runs < 32 || n_cmp == 0 || n_clipped == 0) ? 1 : 0;
}
