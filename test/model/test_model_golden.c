/* Prediction against the reference: the golden per-frame features of
 * golden_models.json are imported, and every model score the reference
 * printed (per frame and pooled, for the built-in models and for the same
 * models loaded from resource/models) must come out within 1e-10; the
 * summary says how many are bit-identical. */
#include <jansson.h>
#include <math.h>
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
    if (memcmp(&got, &want, sizeof(got)) == 0)
        n_same++;
    if (d > max_diff)
        max_diff = d;
    if (!(d <= 1e-10)) {
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

    for (unsigned f = 0; f < n_frames; f++) {
        const char *k;
        json_t *v;
        json_object_foreach(json_array_get(frames, f), k, v) {
            if (is_score_key(k))
                continue;
            /* Under the reference's own names: the neg model must find
             * integer_adm2_egl_1 through its feature options. */
            if (vmaf_import_feature_score(vmaf, k, json_number_value(v), f)) {
                fprintf(stderr, "FAIL import %s\n", k);
                return 1;
            }
        }
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
        for (size_t r = 0; r < json_array_size(runs); r++)
            for (int from_path = 0; from_path < 2; from_path++, n_runs++)
                fails |= run(id, json_array_get(runs, r), argv[2], from_path);
    }
    json_decref(g);
    printf("golden models: %u runs, %u scores compared, %u bit-identical, largest difference "
           "%.3g, %u beyond 1e-10\n", n_runs, n_cmp, n_same, max_diff, n_bad);
    return (fails || n_bad || n_runs < 32 || n_cmp == 0) ? 1 : 0;
}
