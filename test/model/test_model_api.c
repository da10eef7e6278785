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

#include "check.h"
#include "feature/feature_collector.h"
#include "log.h"
#include "model/model_internal.h"

static void same(const char *what, double got, double want)
{
    CHECK(memcmp(&got, &want, sizeof(got)) == 0, "%s: got %.17g, by hand %.17g", what, got,
          want);
}

/* vmaf_score_at_index, with what it logs captured in c. */
static int score_logged(VmafContext *v, VmafModel *m, unsigned index, double *s, Capture *c)
{
    capture_start(c);
    const int err = vmaf_score_at_index(v, m, s, index);
    capture_stop(c);
    return err;
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
    cfg = (VmafModelConfig){.name = "t2", .flags = VMAF_MODEL_FLAG_ENABLE_TRANSFORM |
                                                    VMAF_MODEL_FLAG_DISABLE_TRANSFORM};
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
    const char *const singles[] = {"vmaf_v0.6.1", "vmaf_v0.6.1neg", "vmaf_4k_v0.6.1",
                                   "vmaf_4k_v0.6.1neg"};
    for (int i = 0; i < 4; i++) {
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
    /* v already holds vmaf_v0.6.1's score "vmaf" at frame 0: another model
     * of that name must not replace it. */
    Capture cc;
    capture_start(&cc);
    int clash = vmaf_score_at_index(v, m, &s, 0);
    capture_stop(&cc);
    CHECK(clash == -EINVAL && strstr(cc.text, "already has another score named vmaf"),
          "a second model named vmaf on one context: %d, log: %s", clash, cc.text);
    CHECK(!vmaf_feature_score_at_index(v, "vmaf", &s, 0), "first score kept");
    same("first model's score kept", s, p01_vmaf);
    VmafContext *vb = context_with_p01();
    CHECK(!vmaf_score_at_index(vb, m, &s, 0), "model 0 after its collection is gone");
    same("model 0 of vmaf_b_v0.6.3", s, 83.27120898247603);
    CHECK(!vmaf_score_at_index(vb, m, &s, 0), "re-scoring a model replaces its own score");
    vmaf_model_destroy(m);
    CHECK(!vmaf_model_collection_load(&m, &mc, NULL, "vmaf_b_v0.6.3"), "load collection");
    vmaf_model_destroy(m);
    VmafModelCollectionScore cs;
    CHECK(!vmaf_score_at_index_model_collection(vb, mc, &cs, 0),
          "collection after model 0 is gone");
    same("bagging", cs.bootstrap.bagging_score, 82.33250459821208);
    CHECK(!vmaf_feature_score_at_index(vb, "vmaf", &s, 0), "collection stores model 0's score");
    same("model 0 stored", s, 83.27120898247603);
    vmaf_model_collection_destroy(mc);
    vmaf_close(vb);

    Capture c;
    capture_start(&c);
    int e1 = vmaf_model_load(&m, NULL, "vmaf_v9");
    int e2 = vmaf_model_load(&m, NULL, "vmaf_b_v0.6.3");
    int e3 = vmaf_model_collection_load(&m, &mc, NULL, "vmaf_v0.6.1");
    cfg = (VmafModelConfig){.name = ""};
    int e4 = vmaf_model_load(&m, &cfg, "vmaf_v0.6.1");
    int e5 = vmaf_model_load(NULL, NULL, "vmaf_v0.6.1");
    capture_stop(&c);
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
        capture_start(&c);
        const int err = vmaf_model_feature_overload(m, bad[i][0], d);
        capture_stop(&c);
        CHECK(err == -EINVAL && capture_lines(&c) == 1 && strstr(c.text, bad[i][1 + (i == 2 ? -1 : 0)]),
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

    /* By the reference's extractor names, as FFmpeg's
     * "motion.motion_force_zero=true" writes them. */
    CHECK(!vmaf_model_load(&m, NULL, "vmaf_v0.6.1"), "load");
    d = NULL;
    vmaf_feature_dictionary_set(&d, "motion_force_zero", "true");
    CHECK(!vmaf_model_feature_overload(m, "motion", d), "overload by extractor name motion");
    d = NULL;
    vmaf_feature_dictionary_set(&d, "vif_enhn_gain_limit", "1.5");
    CHECK(!vmaf_model_feature_overload(m, "vif", d), "overload by extractor name vif");
    unsigned motion = 0, vif = 0;
    for (unsigned i = 0; i < m->n_features; i++) {
        const char *f = vmaf_dict_get(m->feature[i].opts, "motion_force_zero");
        const char *g = vmaf_dict_get(m->feature[i].opts, "vif_enhn_gain_limit");
        motion += f && !strcmp(f, "true") && !strcmp(m->feature[i].feature, "integer_motion2");
        vif += g && !strcmp(g, "1.5") && !strncmp(m->feature[i].feature, "integer_vif", 11);
    }
    CHECK(motion == 1 && vif == 4, "extractor names: motion %u of 1, vif %u of 4", motion, vif);
    d = NULL;
    vmaf_feature_dictionary_set(&d, "vif_enhn_gain_limit", "1.5");
    capture_start(&c);
    const int wrong = vmaf_model_feature_overload(m, "float_vif", d);
    capture_stop(&c);
    CHECK(wrong == -EINVAL, "float_vif on a model of integer features: %d", wrong);
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

/* The reference's line through two knots at x: the slope first, then the
 * intercept through the first knot (the other algebraically equal forms
 * round differently). */
static double line_at(double x0, double y0, double x1, double y1, double x)
{
    const double alpha = (y1 - y0) / (x1 - x0);
    const double beta = y0 - x0 * alpha;
    return alpha * x + beta;
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
        /* Line through (50, 70) and (100, 100). */
        same("knots on a knot", predict(m, 50, 0), line_at(50, 70, 100, 100, 50));
        same("knots second", predict(m, 75, 0), line_at(50, 70, 100, 100, 75));
        same("knots above", predict(m, 150, 0), line_at(50, 70, 100, 100, 150));
        vmaf_model_destroy(m);
    }
    /* Knots whose line rounds differently in the two algebraically equal
     * forms: the slope-first form is the reference's (2.5 gives exactly
     * 5, the intercept-first form 5.000000000000001). */
    m = tiny("none", ident, "\"score_transform\": {\"knots\": [[1.3, 2.1], [3.7, 7.9]]},",
             VMAF_MODEL_FLAG_ENABLE_TRANSFORM);
    if (m) {
        same("knots slope first 2.5", predict(m, 2.5, 0), 5.0);
        same("knots slope first 2.0", predict(m, 2.0, 0), line_at(1.3, 2.1, 3.7, 7.9, 2.0));
        same("knots slope first 3.3", predict(m, 3.3, 0), line_at(1.3, 2.1, 3.7, 7.9, 3.3));
        vmaf_model_destroy(m);
    }
    /* Without ENABLE_TRANSFORM the transform is ignored. */
    m = tiny("none", ident, "\"score_transform\": {\"p1\": 2.0},", 0);
    if (m) {
        same("transform off", predict(m, 42, 0), 42.0);
        vmaf_model_destroy(m);
    }
    /* Rectification compares with the transform's input (the prediction
     * before the polynomial): 8 -> 4 is raised back to 8. */
    m = tiny("none", ident,
             "\"score_transform\": {\"p1\": 0.5, \"out_gte_in\": \"true\"},"
             " \"score_clip\": [0, 10],", VMAF_MODEL_FLAG_ENABLE_TRANSFORM);
    if (m) {
        same("gte_in without knots", predict(m, 8, 0), 8.0);
        same("gte_in without knots, 0.8", predict(m, 0.8, 0), 0.8);
        same("clip after transform", predict(m, 30, 0), 10.0);
        same("clip from below", predict(m, -5, 0), 0.0);
        vmaf_model_destroy(m);
    }
    /* On a knot shared by two segments the later segment decides: at 0.3
     * the line of [0.3, 1] gives 0.10000000000000003, that of [0, 0.3]
     * 0.1. */
    m = tiny("none", ident, "\"score_transform\": {\"knots\": [[0, 0], [0.3, 0.1], [1, 1]]},",
             VMAF_MODEL_FLAG_ENABLE_TRANSFORM);
    if (m) {
        const double later = line_at(0.3, 0.1, 1, 1, 0.3);
        same("shared knot: the later segment", predict(m, 0.3, 0), later);
        CHECK(later != 0.1, "the shared knot tells the segments apart");
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
    const int err = big ? score_logged(v, big, 4, &s, &c) : 0;
    CHECK(err == -ERANGE && capture_lines(&c) == 1, "non-finite: %d, log: %s", err, c.text);
    vmaf_model_destroy(big);
    vmaf_model_destroy(m);
    vmaf_close(v);
}


/* vmaf_4k_v0.6.1neg is vmaf_4k_v0.6.1 reading the scores made with the
 * enhancement-gain limits: given p01's values under those names, it
 * predicts what vmaf_4k_v0.6.1 predicts from them under the plain names. */
static void test_4k_neg(void)
{
    VmafModel *plain = NULL, *neg = NULL;
    CHECK(!vmaf_model_load(&plain, NULL, "vmaf_4k_v0.6.1"), "load 4k");
    VmafModelConfig cfg = {.name = "vmaf_neg"};
    CHECK(!vmaf_model_load(&neg, &cfg, "vmaf_4k_v0.6.1neg"), "load 4k neg");
    if (!plain || !neg) {
        vmaf_model_destroy(plain);
        vmaf_model_destroy(neg);
        return;
    }
    CHECK(neg->feature[0].lookup && !strcmp(neg->feature[0].lookup, "integer_adm2_egl_1") &&
              !neg->feature[1].lookup && neg->feature[5].lookup &&
              !strcmp(neg->feature[5].lookup, "integer_vif_scale3_egl_1"),
          "4k neg lookups: %s, %s", neg->feature[0].lookup ? neg->feature[0].lookup : "(none)",
          neg->feature[5].lookup ? neg->feature[5].lookup : "(none)");
    VmafContext *v = context_with_p01();
    static const char *const egl[] = {"integer_adm2_egl_1", NULL, "integer_vif_scale0_egl_1",
                                      "integer_vif_scale1_egl_1", "integer_vif_scale2_egl_1",
                                      "integer_vif_scale3_egl_1"};
    for (size_t i = 0; i < sizeof(p01) / sizeof(p01[0]); i++)
        if (egl[i])
            CHECK(!vmaf_import_feature_score(v, egl[i], p01[i].v, 0), "import %s", egl[i]);
    double a = -1, b = -2;
    CHECK(!vmaf_score_at_index(v, plain, &a, 0) && !vmaf_score_at_index(v, neg, &b, 0),
          "score 4k and 4k neg");
    CHECK(a == b && a > 0 && a < 100, "4k neg %.17g, 4k %.17g", b, a);
    vmaf_close(v);
    vmaf_model_destroy(plain);
    vmaf_model_destroy(neg);
}

/* Options that name scores: a feature is looked up under the name the
 * reference gives it with those options, and only there. */
static void test_option_names(void)
{
    VmafModel *m = NULL;
    CHECK(!vmaf_model_load(&m, NULL, "vmaf_v0.6.1neg"), "load neg");
    if (!m)
        return;
    CHECK(m->feature[0].lookup && !strcmp(m->feature[0].lookup, "integer_adm2_egl_1"),
          "adm2 with adm_enhn_gain_limit 1: %s", m->feature[0].lookup);
    CHECK(!m->feature[1].lookup, "motion2 without options keeps its names");
    CHECK(m->feature[2].lookup && !strcmp(m->feature[2].lookup, "integer_vif_scale0_egl_1"),
          "vif_scale0 with vif_enhn_gain_limit 1: %s", m->feature[2].lookup);

    /* The plain scores alone are other scores: an error naming the one
     * that is missing, not vmaf_v0.6.1's score. */
    VmafContext *v = context_with_p01();
    Capture c;
    double s;
    int err = score_logged(v, m, 0, &s, &c);
    CHECK(err == -EINVAL && strstr(c.text, "integer_adm2_egl_1"),
          "neg from plain features: %d, log: %s", err, c.text);

    /* Several options, in the order of the option names; a default value
     * names nothing; a bool adds its alias only; ints and doubles as the
     * reference prints them. */
    VmafFeatureDictionary *d = NULL;
    vmaf_feature_dictionary_set(&d, "adm_ref_display_height", "2160");
    vmaf_feature_dictionary_set(&d, "adm_norm_view_dist", "1.5");
    vmaf_feature_dictionary_set(&d, "adm_csf_mode", "0");
    CHECK(!vmaf_model_feature_overload(m, "integer_adm2", d), "overload adm2");
    CHECK(m->feature[0].lookup &&
              !strcmp(m->feature[0].lookup, "integer_adm2_egl_1_nvd_1.5_rdh_2160"),
          "adm2 name: %s", m->feature[0].lookup);
    d = NULL;
    vmaf_feature_dictionary_set(&d, "motion_force_zero", "true");
    CHECK(!vmaf_model_feature_overload(m, "integer_motion2", d), "overload motion2");
    CHECK(m->feature[1].lookup && !strcmp(m->feature[1].lookup, "integer_motion2_force_0"),
          "motion2 name: %s", m->feature[1].lookup);
    d = NULL;
    vmaf_feature_dictionary_set(&d, "vif_enhn_gain_limit", "100");
    CHECK(!vmaf_model_feature_overload(m, "integer_vif_scale1", d), "overload vif default");
    CHECK(!m->feature[3].lookup, "the default value names nothing: %s", m->feature[3].lookup);
    /* A value that is no number is refused, the model unchanged. */
    d = NULL;
    vmaf_feature_dictionary_set(&d, "adm_norm_view_dist", "far");
    capture_start(&c);
    err = vmaf_model_feature_overload(m, "integer_adm2", d);
    capture_stop(&c);
    CHECK(err == -EINVAL && strstr(c.text, "adm_norm_view_dist") &&
              !strcmp(m->feature[0].lookup, "integer_adm2_egl_1_nvd_1.5_rdh_2160"),
          "bad value: %d, log: %s", err, c.text);
    vmaf_model_destroy(m);

    /* Options of a feature that no extractor here provides and whose
     * naming options are not known: refused at load. */
    const char *json = "{\"model_dict\": {\"model_type\": \"LIBSVMNUSVR\", \"feature_names\": "
                       "[\"my_feature\"], \"feature_opts_dicts\": [{\"k\": 1}], "
                       "\"norm_type\": \"none\", \"model\": \"svm_type epsilon_svr\\n"
                       "kernel_type linear\\nnr_class 2\\ntotal_sv 1\\nrho 0\\nSV\\n1 1:1\\n\"}}";
    m = NULL;
    capture_start(&c);
    err = vmaf_model_load_from_buffer(&m, NULL, json, strlen(json), "test model");
    capture_stop(&c);
    CHECK(err == -EINVAL && !m && strstr(c.text, "feature_opts_dicts[0]") &&
              strstr(c.text, "my_feature"),
          "options of an unknown feature: %d, log: %s", err, c.text);
    vmaf_model_destroy(m);
    vmaf_close(v);
}

/* A model named like a feature must not replace the feature's scores. */
static void test_name_collision(void)
{
    VmafContext *v = context_with_p01();
    VmafModel *m = NULL;
    VmafModelConfig cfg = {.name = "VMAF_integer_feature_adm2_score"};
    CHECK(!vmaf_model_load(&m, &cfg, "vmaf_v0.6.1"), "load");
    Capture c;
    double s;
    int err = score_logged(v, m, 0, &s, &c);
    CHECK(err == -EINVAL && strstr(c.text, "VMAF_integer_feature_adm2_score"),
          "model named like a feature: %d, log: %s", err, c.text);
    CHECK(!vmaf_feature_score_at_index(v, "VMAF_integer_feature_adm2_score", &s, 0) &&
              s == p01[0].v, "the feature's score is kept: %.17g", s);
    vmaf_model_destroy(m);
    /* Another model still scores from the feature. */
    CHECK(!vmaf_model_load(&m, NULL, "vmaf_v0.6.1"), "load");
    CHECK(!vmaf_score_at_index(v, m, &s, 0), "score");
    same("vmaf_v0.6.1 after the refused model", s, p01_vmaf);
    vmaf_model_destroy(m);
    vmaf_close(v);
}

/* Model scores the caller imported under the model's name, with none of
 * the model's features: read and pooled as they are, as libvmaf v3 does.
 * With the features there, the model predicts, and a different score
 * stored under its name is refused. */
static void test_imported_model_scores(void)
{
    VmafContext *v;
    VmafConfiguration cfg = {.log_level = VMAF_LOG_LEVEL_ERROR};
    if (vmaf_init(&v, cfg))
        exit(1);
    VmafModel *m = NULL;
    CHECK(!vmaf_model_load(&m, NULL, "vmaf_v0.6.1"), "load");
    if (!m) {
        vmaf_close(v);
        return;
    }
    for (unsigned i = 0; i < 3; i++)
        CHECK(!vmaf_import_feature_score(v, "vmaf", 50.0 + i, i), "import");
    Capture c;
    double s = 0, mean = 0;
    capture_start(&c);
    const int e1 = vmaf_score_at_index(v, m, &s, 1);
    const int e2 = vmaf_score_pooled(v, m, VMAF_POOL_METHOD_MEAN, &mean, 0, 2);
    capture_stop(&c);
    CHECK(!e1 && !e2 && capture_lines(&c) == 0, "imported model scores: %d %d, log: %s", e1, e2,
          c.text);
    same("imported model score", s, 51.0);
    same("mean of imported model scores", mean, 51.0);
    vmaf_close(v);

    v = context_with_p01();
    CHECK(!vmaf_import_feature_score(v, "vmaf", 1.0, 0), "import");
    const int e3 = score_logged(v, m, 0, &s, &c);
    CHECK(e3 == -EINVAL && strstr(c.text, "already has another score"),
          "features and a different stored score: %d, log: %s", e3, c.text);
    vmaf_model_destroy(m);
    vmaf_close(v);
}

/* A collection overload refused at a later member changes no member. */
static void test_collection_overload_atomic(void)
{
    /* Member "2" views from 1.5 display heights of 2160 lines (3240, the
     * least ADM takes); the overload to 1080 lines is fine for the others
     * (3 x 1080) and refused for it. */
#define MEMBER(opts)                                                                         \
    "{\"model_dict\": {\"model_type\": \"BOOTSTRAP_LIBSVMNUSVR\", \"feature_names\": "        \
    "[\"VMAF_integer_feature_adm2_score\"], " opts "\"norm_type\": \"none\", \"model\": "    \
    "\"svm_type epsilon_svr\\nkernel_type linear\\nnr_class 2\\ntotal_sv 1\\nrho 0\\n"          \
    "SV\\n1 1:1\\n\"}}"
    const char *json = "{\"0\": " MEMBER("") ", \"1\": " MEMBER("") ", \"2\": "
        MEMBER("\"feature_opts_dicts\": [{\"adm_norm_view_dist\": 1.5, "
               "\"adm_ref_display_height\": 2160}], ") "}";
#undef MEMBER
    VmafModel *m = NULL;
    VmafModelCollection *mc = NULL;
    CHECK(!vmaf_model_collection_load_from_buffer(&m, &mc, NULL, json, strlen(json),
                                                  "test collection"), "load collection");
    if (!mc)
        return;
    VmafFeatureDictionary *d = NULL;
    vmaf_feature_dictionary_set(&d, "adm_ref_display_height", "1080");
    Capture c;
    capture_start(&c);
    int err = vmaf_model_collection_feature_overload(m, &mc, "adm", d);
    capture_stop(&c);
    CHECK(err == -EINVAL && strstr(c.text, "3240"), "overload refused: %d, log: %s", err,
          c.text);
    /* m is member "0", mc->model[] holds "1" and "2". */
    CHECK(!m->feature[0].opts && !mc->model[0]->feature[0].opts &&
              !strcmp(vmaf_dict_get(mc->model[1]->feature[0].opts, "adm_ref_display_height"),
                      "2160"),
          "a refused overload changed members before the refusing one");
    vmaf_model_collection_destroy(mc);
    vmaf_model_destroy(m);
}

/* A collection whose members transform and clip differently: model "0"
 * (the head) scores with its own, each bag stores its score through its
 * own, and the statistics of the bags' raw scores go through the first
 * bag's (member "1"), as in libvmaf. Each member scores a - rho. */
static void test_collection_member_transforms(void)
{
    static const struct {
        const char *rho, *post;
    } mem[4] = {
        {"0", "\"score_transform\": {\"p1\": 2.0}, \"score_clip\": [0, 100],"},
        {"-2", "\"score_transform\": {\"p0\": 1.0, \"p1\": 3.0}, \"score_clip\": [0, 50],"},
        {"1", "\"score_transform\": {\"p0\": -1.0, \"p1\": 0.5}, \"score_clip\": [0, 100],"},
        {"-5", "\"score_transform\": {\"p1\": 1.5}, \"score_clip\": [10, 40],"},
    };
    char json[4096];
    size_t len = (size_t)snprintf(json, sizeof(json), "{");
    for (int i = 0; i < 4; i++)
        len += (size_t)snprintf(json + len, sizeof(json) - len,
                                "%s\"%d\": {\"model_dict\": {\"model_type\": "
                                "\"BOOTSTRAP_LIBSVMNUSVR\", \"feature_names\": [\"a\", \"b\"], "
                                "\"norm_type\": \"none\", %s \"model\": \"svm_type epsilon_svr\\n"
                                "kernel_type linear\\nnr_class 2\\ntotal_sv 1\\nrho %s\\nSV\\n"
                                "1 1:1\\n\"}}",
                                i ? ", " : "", i, mem[i].post, mem[i].rho);
    snprintf(json + len, sizeof(json) - len, "}");
    VmafModel *head = NULL;
    VmafModelCollection *mc = NULL;
    VmafModelConfig cfg = {.name = "t", .flags = VMAF_MODEL_FLAG_ENABLE_TRANSFORM};
    CHECK(!vmaf_model_collection_load_from_buffer(&head, &mc, &cfg, json, strlen(json),
                                                  "test collection"),
          "collection with member transforms: %s", json);
    if (!mc)
        return;
    VmafFeatureCollector *fc;
    if (vmaf_feature_collector_init(&fc))
        exit(1);
    const double a = 12.0;
    vmaf_feature_collector_append(fc, "a", a, 0);
    vmaf_feature_collector_append(fc, "b", 0.0, 0);
    double s;
    CHECK(!vmaf_model_predict(head, fc, 0, 0, &s), "head predict");
    same("head: its own transform", s, 2.0 * (a - 0.0));
    VmafModelCollectionScore cs;
    CHECK(!vmaf_model_collection_predict(mc, fc, 0, &cs), "collection predict");
    /* The bags' raw scores a - rho: 14, 11, 17. */
    const double raw[3] = {a - -2.0, a - 1.0, a - -5.0};
    const double want_bag[3] = {1.0 + 3.0 * raw[0], /* 43, inside [0, 50] */
                                -1.0 + 0.5 * raw[1], /* 4.5 */
                                1.5 * raw[2]};       /* 25.5, inside [10, 40] */
    for (int i = 0; i < 3; i++) {
        char name[16];
        snprintf(name, sizeof(name), "t_%04d", i + 1);
        double got = NAN;
        CHECK(!vmaf_feature_collector_get(fc, name, &got, 0), "%s stored", name);
        same(name, got, want_bag[i]);
    }
    /* Statistics on the raw scores, then member "1"'s transform and clip. */
    const double mean = (raw[0] + raw[1] + raw[2]) / 3;
    double ssd = 0.0;
    for (int i = 0; i < 3; i++)
        ssd += pow(raw[i] - mean, 2);
    const double sorted[3] = {raw[1], raw[0], raw[2]};
    const double p_lo = 2.5 * 2 / 100., p_hi = 97.5 * 2 / 100.;
    const double lo = sorted[0] * (1 - p_lo) + sorted[1] * (p_lo - 0);
    const double hi = sorted[1] * (2 - p_hi) + sorted[2] * (p_hi - 1);
    const double t_lo = 1.0 + 3.0 * lo, t_hi = 1.0 + 3.0 * hi;
    const double slope = ((1.0 + 3.0 * (mean + 0.01)) - (1.0 + 3.0 * (mean - 0.01))) / (2.0 * 0.01);
    same("bagging through member 1", cs.bootstrap.bagging_score, 1.0 + 3.0 * mean);
    same("ci lo through member 1", cs.bootstrap.ci.p95.lo, t_lo);
    same("ci hi clipped by member 1", cs.bootstrap.ci.p95.hi, t_hi > 50.0 ? 50.0 : t_hi);
    same("stddev times member 1's slope", cs.bootstrap.stddev, sqrt(ssd / 3) * slope);
    CHECK(t_hi > 50.0, "the interval's top end reaches member 1's clip: %.17g", t_hi);
    vmaf_feature_collector_destroy(fc);
    vmaf_model_collection_destroy(mc);
    vmaf_model_destroy(head);
}

/* A null p0, p1, p2 or knots in score_transform counts as absent (model
 * files written by tools that serialise unset fields as null load, where
 * the reference's loader fails). Absent is not zero: with every
 * coefficient null the polynomial is skipped, so the knots map the
 * prediction itself (40 -> 20), where zeros would give 0. */
static void test_null_transform_keys(void)
{
    const char *ident = "svm_type epsilon_svr\\nkernel_type linear\\nnr_class 2\\ntotal_sv 1\\n"
                        "rho 0\\nSV\\n1 1:1\\n";
    VmafModel *m = tiny("none", ident,
                        "\"score_transform\": {\"p0\": null, \"p1\": null, \"p2\": null, "
                        "\"knots\": [[0, 0], [100, 50]]},", VMAF_MODEL_FLAG_ENABLE_TRANSFORM);
    if (m) {
        same("null coefficients: the knots alone", predict(m, 40, 0), 20.0);
        vmaf_model_destroy(m);
    }
    m = tiny("none", ident, "\"score_transform\": {\"p0\": null, \"p1\": 2.0, \"knots\": null},",
             VMAF_MODEL_FLAG_ENABLE_TRANSFORM);
    if (m) {
        same("null knots and p0: p1 alone", predict(m, 21, 0), 42.0);
        vmaf_model_destroy(m);
    }
}

/* The header lines libsvm writes for training or classification (label,
 * probA, probB, nr_sv, prob_density_marks) load and change nothing, so a
 * model saved by another libsvm build is read as the same regression. */
static void test_svm_metadata_lines(void)
{
    VmafModel *m = tiny("none", "svm_type epsilon_svr\\nkernel_type linear\\nnr_class 2\\n"
                        "total_sv 1\\nrho 0.5\\nlabel 1 2\\nprobA 0.25\\nprobB -3\\nnr_sv 1 0\\n"
                        "prob_density_marks 0.1 0.2 0.3\\nSV\\n2 1:1\\n", "", 0);
    if (m) {
        same("metadata lines ignored", predict(m, 7, 0), 2.0 * 7 - 0.5);
        vmaf_model_destroy(m);
    }
}

/* VmafModelConfig.name is copied at load: a caller may build it in a buffer
 * that it reuses or frees before scoring (FFmpeg's filter passes strings of
 * its option dictionary), and the scores must still be stored under the
 * name it had at load, for a model and for a collection's statistics. */
static void test_name_copied(void)
{
    char name[16];
    VmafModelConfig cfg = {.name = name};
    VmafModel *m = NULL, *head = NULL;
    VmafModelCollection *mc = NULL;
    snprintf(name, sizeof(name), "given");
    CHECK(!vmaf_model_load(&m, &cfg, "vmaf_v0.6.1"), "load named from a buffer");
    snprintf(name, sizeof(name), "coll");
    CHECK(!vmaf_model_collection_load(&head, &mc, &cfg, "vmaf_b_v0.6.3"),
          "load collection named from a buffer");
    snprintf(name, sizeof(name), "overwritten");
    if (!m || !mc) {
        vmaf_model_destroy(m);
        vmaf_model_destroy(head);
        vmaf_model_collection_destroy(mc);
        return;
    }
    VmafContext *v = context_with_p01();
    double s;
    VmafModelCollectionScore cs;
    CHECK(!vmaf_score_at_index(v, m, &s, 0), "score the model");
    CHECK(!vmaf_score_at_index_model_collection(v, mc, &cs, 0), "score the collection");
    static const char *const stored[] = {"given", "coll", "coll_0001", "coll_0020",
                                         "coll_bagging", "coll_stddev", "coll_ci_p95_hi"};
    for (size_t i = 0; i < sizeof(stored) / sizeof(stored[0]); i++)
        CHECK(!vmaf_feature_score_at_index(v, stored[i], &s, 0),
              "no score under %s, the name at load", stored[i]);
    CHECK(vmaf_feature_score_at_index(v, "overwritten", &s, 0) == -EINVAL &&
              vmaf_feature_score_at_index(v, "overwritten_bagging", &s, 0) == -EINVAL,
          "a score stored under what the caller's buffer holds now");
    vmaf_close(v);
    vmaf_model_destroy(m);
    vmaf_model_collection_destroy(mc);
    vmaf_model_destroy(head);
}

int main(void)
{
    vmaf_log_set_level(VMAF_LOG_LEVEL_ERROR);
    test_builtin_and_flags();
    test_overload();
    test_kernels();
    test_subsample_and_range();
    test_option_names();
    test_4k_neg();
    test_name_collision();
    test_imported_model_scores();
    test_collection_overload_atomic();
    test_collection_member_transforms();
    test_name_copied();
    test_null_transform_keys();
    test_svm_metadata_lines();
    return check_result("model api");
}
