/* The model API around prediction: built-in models, names and flags,
 * feature overloads, every kernel and the score transform against hand
 * computations written in libsvm's order of operations. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libvmaf/libvmaf.h"
#include "libvmaf/model.h"

#include "capture.h"
#include "check.h"
#include "feature/feature_collector.h"
#include "log.h"
#include "model/model_internal.h"

static void same(const char *what, double got, double want)
{
    CHECK(memcmp(&got, &want, sizeof(got)) == 0, "%s: got %.17g, by hand %.17g", what, got,
          want);
}

/* Frame 0 of p01 as the reference computed it (golden_models.json). */
static const struct {
    const char *name;
    double v;
} p01[] = {
    {"VMAF_integer_feature_adm2_score", 0.9458099286928937},
    {"VMAF_integer_feature_motion2_score", 0},
    {"VMAF_integer_feature_vif_scale0_score", 0.35178157687187195},
    {"VMAF_integer_feature_vif_scale1_score", 0.9455565214157104},
    {"VMAF_integer_feature_vif_scale2_score", 0.9790641069412231},
    {"VMAF_integer_feature_vif_scale3_score", 0.9903239011764526},
};
static const double p01_vmaf = 84.79113638617119;

static VmafContext *context_with_p01(void)
{
    VmafContext *v;
    VmafConfiguration cfg = {.log_level = VMAF_LOG_LEVEL_ERROR};
    if (vmaf_init(&v, cfg))
        exit(1);
    for (size_t i = 0; i < sizeof(p01) / sizeof(p01[0]); i++)
        CHECK(!vmaf_import_feature_score(v, p01[i].name, p01[i].v, 0), "import");
    return v;
}

static void test_builtin_and_flags(void)
{
    VmafContext *v = context_with_p01();
    VmafModel *m = NULL;
    double s;

    /* NULL config: the defaults, score name "vmaf". */
    CHECK(!vmaf_model_load(&m, NULL, "vmaf_v0.6.1"), "load with NULL cfg");
    CHECK(!vmaf_score_at_index(v, m, &s, 0), "score");
    same("vmaf_v0.6.1 frame 0", s, p01_vmaf);
    CHECK(!vmaf_feature_score_at_index(v, "vmaf", &s, 0), "stored as vmaf");
    vmaf_model_destroy(m);

    /* Another name, so two models can be reported side by side. */
    VmafModelConfig cfg = {.name = "my_vmaf"};
    CHECK(!vmaf_model_load(&m, &cfg, "vmaf_v0.6.1"), "load named");
    CHECK(!vmaf_score_at_index(v, m, &s, 0) && !vmaf_feature_score_at_index(v, "my_vmaf", &s, 0),
          "stored as my_vmaf");
    vmaf_model_destroy(m);

    /* ENABLE_TRANSFORM applies p0 + p1 x + p2 x^2, then the clip. */
    cfg = (VmafModelConfig){.name = "t", .flags = VMAF_MODEL_FLAG_ENABLE_TRANSFORM};
    CHECK(!vmaf_model_load(&m, &cfg, "vmaf_v0.6.1"), "load transform");
    CHECK(!vmaf_score_at_index(v, m, &s, 0), "score transform");
    double t = 0.0;
    t += 1.70674692;
    t += 1.72643844 * p01_vmaf;
    t += -0.00705305 * p01_vmaf * p01_vmaf;
    if (t > 100.0)
        t = 100.0;
    same("enable_transform", s, t);
    vmaf_model_destroy(m);

    /* DISABLE_TRANSFORM wins over ENABLE_TRANSFORM. */
    cfg.flags = VMAF_MODEL_FLAG_ENABLE_TRANSFORM | VMAF_MODEL_FLAG_DISABLE_TRANSFORM;
    CHECK(!vmaf_model_load(&m, &cfg, "vmaf_v0.6.1"), "load");
    CHECK(!vmaf_score_at_index(v, m, &s, 0), "score");
    same("disable_transform", s, p01_vmaf);
    vmaf_model_destroy(m);

    /* A flat picture pair scores above 100 before the clip: 4k model on
     * perfect features, with and without DISABLE_CLIP. */
    VmafContext *v2;
    VmafConfiguration vc = {.log_level = VMAF_LOG_LEVEL_ERROR};
    CHECK(!vmaf_init(&v2, vc), "init");
    for (size_t i = 0; i < sizeof(p01) / sizeof(p01[0]); i++)
        vmaf_import_feature_score(v2, p01[i].name, i == 1 ? 0.0 : 1.0, 0);
    double clipped, raw;
    cfg = (VmafModelConfig){.name = "c"};
    CHECK(!vmaf_model_load(&m, &cfg, "vmaf_4k_v0.6.1"), "load 4k");
    CHECK(!vmaf_score_at_index(v2, m, &clipped, 0), "score");
    vmaf_model_destroy(m);
    cfg = (VmafModelConfig){.name = "u", .flags = VMAF_MODEL_FLAG_DISABLE_CLIP};
    CHECK(!vmaf_model_load(&m, &cfg, "vmaf_4k_v0.6.1"), "load 4k unclipped");
    CHECK(!vmaf_score_at_index(v2, m, &raw, 0), "score");
    vmaf_model_destroy(m);
    CHECK(raw > 100.0 && clipped == 100.0, "clip: raw %.17g clipped %.17g", raw, clipped);
    vmaf_close(v2);

    /* Every built-in loads; unknown names and the wrong kind are errors. */
    const char *const singles[] = {"vmaf_v0.6.1", "vmaf_v0.6.1neg", "vmaf_4k_v0.6.1"};
    for (int i = 0; i < 3; i++) {
        CHECK(!vmaf_model_load(&m, NULL, singles[i]), "load %s", singles[i]);
        vmaf_model_destroy(m);
    }
    /* A name so long that derived score names would collide is refused. */
    char long_name[300];
    memset(long_name, 'n', sizeof(long_name) - 1);
    long_name[sizeof(long_name) - 1] = '\0';
    VmafModelConfig long_cfg = {.name = long_name};
    m = NULL;
    CHECK(vmaf_model_load(&m, &long_cfg, "vmaf_v0.6.1") == -EINVAL && !m,
          "a 299-character model name must be refused");
    VmafModelCollection *mc = NULL;
    CHECK(!vmaf_model_collection_load(&m, &mc, NULL, "vmaf_b_v0.6.3"), "load collection");
    CHECK(m && mc && mc->cnt == 20 && m == mc->head && !strcmp(m->name, "vmaf"),
          "collection: 1 + 20 models");
    CHECK(mc && !strcmp(mc->model[0]->name, "vmaf_0001") && !strcmp(mc->model[19]->name, "vmaf_0020"),
          "bag names");
    /* Programs written for libvmaf destroy model "0" and the collection, in
     * either order: each is freed once, and what is left stays usable. */
    vmaf_model_collection_destroy(mc);
    CHECK(!vmaf_score_at_index(v, m, &s, 0), "model 0 after its collection is gone");
    same("model 0 of vmaf_b_v0.6.3", s, 83.27120898247603);
    vmaf_model_destroy(m);
    CHECK(!vmaf_model_collection_load(&m, &mc, NULL, "vmaf_b_v0.6.3"), "load collection");
    vmaf_model_destroy(m);
    VmafModelCollectionScore cs;
    CHECK(!vmaf_score_at_index_model_collection(v, mc, &cs, 0), "collection after model 0 is gone");
    same("bagging", cs.bootstrap.bagging_score, 82.33250459821208);
    CHECK(!vmaf_feature_score_at_index(v, "vmaf", &s, 0), "collection stores model 0's score");
    same("model 0 stored", s, 83.27120898247603);
    vmaf_model_collection_destroy(mc);

    Capture c;
    capture_begin(&c);
    int e1 = vmaf_model_load(&m, NULL, "vmaf_v9");
    int e2 = vmaf_model_load(&m, NULL, "vmaf_b_v0.6.3");
    int e3 = vmaf_model_collection_load(&m, &mc, NULL, "vmaf_v0.6.1");
    cfg = (VmafModelConfig){.name = ""};
    int e4 = vmaf_model_load(&m, &cfg, "vmaf_v0.6.1");
    int e5 = vmaf_model_load(NULL, NULL, "vmaf_v0.6.1");
    capture_end(&c);
    CHECK(e1 == -EINVAL && e2 == -EINVAL && e3 == -EINVAL && e4 == -EINVAL && e5 == -EINVAL,
          "bad loads: %d %d %d %d %d", e1, e2, e3, e4, e5);
    /* The wrong kind (e2, e3) is a warning, below the context's level. */
    CHECK(strstr(c.text, "vmaf_v0.6.1neg") && capture_lines(&c) == 3, "messages: %s", c.text);
    vmaf_model_destroy(NULL);
    vmaf_model_collection_destroy(NULL);
    vmaf_close(v);
}

static void test_overload(void)
{
    VmafModel *m = NULL;
    VmafFeatureDictionary *d = NULL;
    Capture c;
    CHECK(!vmaf_model_load_from_path(&m, NULL, MODEL_DATA_DIR "/ssim_svr_rbf.json"), "load");
    if (!m)
        return;

    vmaf_feature_dictionary_set(&d, "scale", "1");
    CHECK(!vmaf_model_feature_overload(m, "float_ssim", d), "overload scale=1");
    CHECK(!strcmp(vmaf_dict_get(m->feature[0].opts, "scale"), "1") &&
              !strcmp(vmaf_dict_get(m->feature[1].opts, "scale"), "1") &&
              !strcmp(vmaf_dict_get(m->feature[1].opts, "enable_lcs"), "true"),
          "overload merged into both features, keeping enable_lcs");

    /* Bad value, unknown key, unknown feature: refused, model unchanged. */
    const char *bad[][3] = {{"float_ssim", "scale", "0.5"},
                            {"float_ssim", "no_such_option", "1"},
                            {"integer_vif", "vif_enhn_gain_limit", "1"}};
    for (int i = 0; i < 3; i++) {
        d = NULL;
        vmaf_feature_dictionary_set(&d, bad[i][1], bad[i][2]);
        capture_begin(&c);
        const int err = vmaf_model_feature_overload(m, bad[i][0], d);
        capture_end(&c);
        CHECK(err == -EINVAL && capture_lines(&c) >= 1 && strstr(c.text, bad[i][1 + (i == 2 ? -1 : 0)]),
              "overload %s %s=%s: %d, log: %s", bad[i][0], bad[i][1], bad[i][2], err, c.text);
        CHECK(!strcmp(vmaf_dict_get(m->feature[0].opts, "scale"), "1"), "model changed");
    }
    vmaf_model_destroy(m);

    /* The shipped model's features have no extractor yet; overloading them
     * by feature name still works (checked when they are used). */
    CHECK(!vmaf_model_load(&m, NULL, "vmaf_v0.6.1neg"), "load neg");
    d = NULL;
    vmaf_feature_dictionary_set(&d, "vif_enhn_gain_limit", "1.2");
    CHECK(!vmaf_model_feature_overload(m, "integer_vif_scale2", d), "overload by feature name");
    CHECK(!strcmp(vmaf_dict_get(m->feature[4].opts, "vif_enhn_gain_limit"), "1.2") &&
              !strcmp(vmaf_dict_get(m->feature[5].opts, "vif_enhn_gain_limit"), "1"),
          "only that feature changed");
    vmaf_model_destroy(m);

    VmafModelCollection *mc = NULL;
    CHECK(!vmaf_model_collection_load(&m, &mc, NULL, "vmaf_b_v0.6.3"), "load collection");
    d = NULL;
    vmaf_feature_dictionary_set(&d, "adm_enhn_gain_limit", "1.0");
    CHECK(!vmaf_model_collection_feature_overload(m, &mc, "integer_adm2", d), "overload all");
    CHECK(!strcmp(vmaf_dict_get(m->feature[0].opts, "adm_enhn_gain_limit"), "1.0") &&
              !strcmp(vmaf_dict_get(mc->model[19]->feature[0].opts, "adm_enhn_gain_limit"), "1.0"),
          "every model of the collection");
    vmaf_model_collection_destroy(mc);
    vmaf_model_destroy(m);
}

/* A model over two features "a" and "b" with the given libsvm text. */
static VmafModel *tiny(const char *norm, const char *svm, const char *extra, uint64_t flags)
{
    char json[2048];
    snprintf(json, sizeof(json),
             "{\"model_dict\": {\"model_type\": \"LIBSVMNUSVR\", \"feature_names\": [\"a\", \"b\"],"
             " \"norm_type\": \"%s\", \"slopes\": [0.5, 2.0, 3.0], \"intercepts\": [0.25, -1.0, 0.5],"
             " %s \"model\": \"%s\"}}", norm, extra, svm);
    VmafModel *m = NULL;
    VmafModelConfig cfg = {.name = "t", .flags = flags};
    int err = vmaf_model_load_from_buffer(&m, &cfg, json, strlen(json), "test model");
    CHECK(!err, "tiny model: %s", json);
    return m;
}

static double predict(const VmafModel *m, double a, double b)
{
    VmafFeatureCollector *fc;
    if (vmaf_feature_collector_init(&fc))
        exit(1);
    vmaf_feature_collector_append(fc, "a", a, 0);
    vmaf_feature_collector_append(fc, "b", b, 0);
    double s = NAN;
    CHECK(!vmaf_model_predict(m, fc, 0, 0, &s), "predict");
    vmaf_feature_collector_destroy(fc);
    return s;
}

static void test_kernels(void)
{
    const double a = 0.3, b = 0.7;
    VmafModel *m;

    /* Polynomial, epsilon-SVR, no normalisation. degree 3 by squaring:
     * ret = base, then ret *= base * base. */
    m = tiny("none",
             "svm_type epsilon_svr\\nkernel_type polynomial\\ndegree 3\\ngamma 0.5\\ncoef0 1\\n"
             "nr_class 2\\ntotal_sv 2\\nrho 0.1\\nSV\\n2 1:1 2:-1\\n-1 2:0.5\\n", "", 0);
    if (m) {
        double d1 = 0.0;
        d1 += a * 1.0;
        d1 += b * -1.0;
        double b1 = 0.5 * d1 + 1.0;
        double d2 = 0.0;
        d2 += b * 0.5;
        double b2 = 0.5 * d2 + 1.0;
        double p = 0.0;
        p += 2.0 * (b1 * (b1 * b1));
        p += -1.0 * (b2 * (b2 * b2));
        p -= 0.1;
        same("polynomial", predict(m, a, b), p);
        vmaf_model_destroy(m);
    }

    /* Sigmoid with linear rescale. */
    m = tiny("linear_rescale",
             "svm_type nu_svr\\nkernel_type sigmoid\\ngamma 0.25\\ncoef0 -0.5\\n"
             "nr_class 2\\ntotal_sv 2\\nrho -0.3\\nSV\\n1.5 1:0.5\\n-0.5 1:1 2:1\\n", "", 0);
    if (m) {
        const double x1 = 2.0 * a + -1.0, x2 = 3.0 * b + 0.5;
        double d1 = 0.0;
        d1 += x1 * 0.5;
        double d2 = 0.0;
        d2 += x1 * 1.0;
        d2 += x2 * 1.0;
        double p = 0.0;
        p += 1.5 * tanh(0.25 * d1 + -0.5);
        p += -0.5 * tanh(0.25 * d2 + -0.5);
        p -= -0.3;
        same("sigmoid", predict(m, a, b), (p - 0.25) / 0.5);
        vmaf_model_destroy(m);
    }

    /* Linear with a piecewise-linear transform (knots) enabled: the score
     * is the feature a itself (one support vector 1*a, rho 0), mapped
     * through the knots; below, between, on and above them. */
    const char *ident = "svm_type epsilon_svr\\nkernel_type linear\\nnr_class 2\\ntotal_sv 1\\n"
                        "rho 0\\nSV\\n1 1:1\\n";
    m = tiny("none", ident,
             "\"score_transform\": {\"knots\": [[0, 0], [50, 70], [100, 100]]},",
             VMAF_MODEL_FLAG_ENABLE_TRANSFORM);
    if (m) {
        same("knots below", predict(m, -10, 0), 1.4 * -10.0 + 0.0);
        same("knots first", predict(m, 25, 0), 1.4 * 25.0 + 0.0);
        /* Line through (50, 70) and (100, 100): beta = (100*50 - 70*100) / (50 - 100). */
        const double beta = (100.0 * 50.0 - 70.0 * 100.0) / (50.0 - 100.0);
        const double alpha = (70.0 - beta) / 50.0;
        same("knots on a knot", predict(m, 50, 0), alpha * 50.0 + beta);
        same("knots second", predict(m, 75, 0), alpha * 75.0 + beta);
        same("knots above", predict(m, 150, 0), alpha * 150.0 + beta);
        vmaf_model_destroy(m);
    }
    /* Without ENABLE_TRANSFORM the transform is ignored. */
    m = tiny("none", ident, "\"score_transform\": {\"p1\": 2.0},", 0);
    if (m) {
        same("transform off", predict(m, 42, 0), 42.0);
        vmaf_model_destroy(m);
    }
    /* Rectification compares with the polynomial's output, so without knots
     * it changes nothing (the reference behaves the same). */
    m = tiny("none", ident,
             "\"score_transform\": {\"p1\": 0.5, \"out_gte_in\": \"true\"},"
             " \"score_clip\": [0, 10],", VMAF_MODEL_FLAG_ENABLE_TRANSFORM);
    if (m) {
        same("gte_in without knots", predict(m, 8, 0), 0.5 * 8.0);
        same("clip after transform", predict(m, 30, 0), 10.0);
        vmaf_model_destroy(m);
    }
    /* With knots that pull the score down, out_gte_in keeps the polynomial's. */
    m = tiny("none", ident,
             "\"score_transform\": {\"knots\": [[0, 0], [100, 50]], \"out_gte_in\": \"true\"},",
             VMAF_MODEL_FLAG_ENABLE_TRANSFORM);
    if (m) {
        same("gte_in with knots", predict(m, 40, 0), 40.0);
        vmaf_model_destroy(m);
    }
}

/* Pooling with n_subsample predicts and pools only the frames scored; a
 * non-finite prediction is an error, not a score. */
static void test_subsample_and_range(void)
{
    VmafContext *v;
    VmafConfiguration cfg = {.log_level = VMAF_LOG_LEVEL_ERROR, .n_subsample = 2};
    if (vmaf_init(&v, cfg))
        exit(1);
    VmafModel *m = tiny("none", "svm_type epsilon_svr\\nkernel_type linear\\nnr_class 2\\n"
                        "total_sv 1\\nrho 0\\nSV\\n1 1:1\\n", "", 0);
    if (!m)
        return;
    /* Features only on frames 0 and 2: frames 1 and 3 must not be predicted. */
    for (unsigned f = 0; f < 4; f += 2) {
        vmaf_import_feature_score(v, "a", 10.0 + f, f);
        vmaf_import_feature_score(v, "b", 0.0, f);
    }
    double s;
    CHECK(!vmaf_score_pooled(v, m, VMAF_POOL_METHOD_MEAN, &s, 0, 3), "pooled with subsample");
    same("subsampled mean", s, (10.0 + 12.0) / 2);

    /* Within the model's limits, but a feature of 1e300 overflows. */
    VmafModel *big = tiny("none", "svm_type epsilon_svr\\nkernel_type linear\\nnr_class 2\\n"
                          "total_sv 1\\nrho 0\\nSV\\n1e10 1:1e10\\n", "", 0);
    vmaf_import_feature_score(v, "a", 1e300, 4);
    vmaf_import_feature_score(v, "b", 0.0, 4);
    Capture c;
    capture_begin(&c);
    const int err = big ? vmaf_score_at_index(v, big, &s, 4) : 0;
    capture_end(&c);
    CHECK(err == -ERANGE && capture_lines(&c) == 1, "non-finite: %d, log: %s", err, c.text);
    vmaf_model_destroy(big);
    vmaf_model_destroy(m);
    vmaf_close(v);
}

int main(void)
{
    vmaf_log_set_level(VMAF_LOG_LEVEL_ERROR);
    test_builtin_and_flags();
    test_overload();
    test_kernels();
    test_subsample_and_range();
    printf("model api: %d failures\n", fails);
    return fails ? 1 : 0;
}
