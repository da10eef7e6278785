/* Model-driven feature dispatch on the CPU, end to end: models written for
 * these tests (SVRs over float_ssim and float_ssim_l) choose the extractors,
 * a parity vector is scored, and each predicted score must equal, bit for
 * bit, the prediction computed here by hand from the extracted features.
 * Models whose features have no extractor fail in
 * vmaf_use_features_from_model with one error naming every missing one,
 * before any frame is read and without touching the context.
 * With the argument "cuda" the same runs on a context with CUDA state: the
 * models' float_ssim must run on its CUDA twin and give the same bits (SKIP,
 * exit 77, without a GPU). */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libvmaf/libvmaf.h"
#include "libvmaf/libvmaf_cuda.h"
#include "libvmaf/model.h"

#include "check.h"
#include "context.h"
#include "model/model_internal.h"

static const char *data_dir, *vec_dir;
static int use_cuda;

static VmafModel *load(const char *file, const char *name)
{
    char path[1024];
    snprintf(path, sizeof(path), "%s/%s", data_dir, file);
    VmafModelConfig cfg = {.name = name};
    VmafModel *m = NULL;
    int err = vmaf_model_load_from_path(&m, &cfg, path);
    CHECK(!err, "load %s: %d", path, err);
    return m;
}

/* A context, with CUDA state where `cuda`. */
static VmafContext *context_on(bool cuda)
{
    VmafContext *v = NULL;
    VmafConfiguration cfg = {.log_level = VMAF_LOG_LEVEL_ERROR};
    if (vmaf_init(&v, cfg)) {
        fprintf(stderr, "vmaf_init failed\n");
        exit(1);
    }
    if (cuda) {
        VmafCudaState *cu = NULL;
        VmafCudaConfiguration cc = {0};
        const int err = vmaf_cuda_state_init(&cu, cc);
        if (err == -ENODEV) {
            /* The GPU suite sets VMAF_TEST_REQUIRE_GPU: there, no GPU is a
             * failure, not a skip. */
            const char *req = getenv("VMAF_TEST_REQUIRE_GPU");
            const bool required = req && *req && strcmp(req, "0") != 0;
            printf("%s: no usable GPU (or a build without CUDA)%s\n", required ? "FAIL" : "SKIP",
                   required ? ", and VMAF_TEST_REQUIRE_GPU is set" : "");
            vmaf_close(v);
            exit(required ? 1 : 77);
        }
        if (err || vmaf_cuda_import_state(v, cu)) {
            fprintf(stderr, "CUDA state: %d\n", err);
            exit(1);
        }
    }
    return v;
}

/* A context on this run's backend. */
static VmafContext *context(void)
{
    return context_on(use_cuda);
}

/* Reads every frame of the p01 vector (576x324, 4:2:0, 8 bit) into the
 * context; returns the frame count. */
static unsigned score_vector(VmafContext *v)
{
    const unsigned w = 576, h = 324;
    char rp[1024], dp[1024];
    snprintf(rp, sizeof(rp), "%s/p01_ref_576x324_420p8.yuv", vec_dir);
    snprintf(dp, sizeof(dp), "%s/p01_dis_576x324_420p8.yuv", vec_dir);
    FILE *rf = fopen(rp, "rb"), *df = fopen(dp, "rb");
    if (!rf || !df) {
        fprintf(stderr, "cannot open %s or %s\n", rp, dp);
        exit(1);
    }
    unsigned n = 0;
    for (;; n++) {
        VmafPicture pic[2];
        FILE *f[2] = {rf, df};
        int ok = 1;
        for (int k = 0; k < 2; k++) {
            if (vmaf_picture_alloc(&pic[k], VMAF_PIX_FMT_YUV420P, 8, w, h))
                exit(1);
            for (int p = 0; p < 3; p++) {
                const unsigned pw = pic[k].w[p], ph = pic[k].h[p];
                for (unsigned y = 0; y < ph; y++)
                    ok &= fread((uint8_t *)pic[k].data[p] + y * pic[k].stride[p], 1, pw, f[k]) ==
                          pw;
            }
        }
        if (!ok) {
            vmaf_picture_unref(&pic[0]);
            vmaf_picture_unref(&pic[1]);
            break;
        }
        int err = vmaf_read_pictures(v, &pic[0], &pic[1], n);
        CHECK(!err, "vmaf_read_pictures frame %u: %d", n, err);
    }
    CHECK(!vmaf_read_pictures(v, NULL, NULL, 0), "flush");
    fclose(rf);
    fclose(df);
    CHECK(n >= 2, "p01 has only %u frames", n);
    return n;
}

/* ssim_svr_rbf.json by hand: linear rescale, nu-SVR with an RBF kernel over
 * three sparse support vectors, rescale back, clip to [0, 100]. Each sum is
 * written in the order libsvm adds. */
static double hand_rbf(double ssim, double ssim_l)
{
    const double x1 = 2.0 * ssim + -1.0;
    const double x2 = 1.5 * ssim_l + -0.5;
    double s, d;

    s = 0.0;
    d = x1 - 0.9;
    s += d * d;
    d = x2 - 0.8;
    s += d * d;
    const double k1 = exp(-0.5 * s);

    s = 0.0;
    d = x1 - 0.2;
    s += d * d;
    s += x2 * x2;
    const double k2 = exp(-0.5 * s);

    s = 0.0;
    s += x1 * x1;
    d = x2 - 0.5;
    s += d * d;
    const double k3 = exp(-0.5 * s);

    double p = 0.0;
    p += 0.75 * k1;
    p += -0.5 * k2;
    p += 0.4 * k3;
    p -= -0.25;
    double score = (p - -0.5) / 0.02;
    if (score < 0.0)
        score = 0.0;
    if (score > 100.0)
        score = 100.0;
    return score;
}

/* ssim_svr_linear.json by hand: no normalisation, epsilon-SVR, linear kernel,
 * features in the order float_ssim_l, float_ssim. */
static double hand_linear(double ssim, double ssim_l)
{
    double k1 = 0.0;
    k1 += ssim_l * 0.5;
    k1 += ssim * 0.25;
    double k2 = 0.0;
    k2 += ssim * 1.0;
    double p = 0.0;
    p += 1.5 * k1;
    p += -0.75 * k2;
    p -= 0.125;
    return p;
}

static void same(const char *what, unsigned i, double got, double want)
{
    CHECK(memcmp(&got, &want, sizeof(got)) == 0, "%s frame %u: got %.17g, by hand %.17g", what,
          i, got, want);
}

static void test_end_to_end(void)
{
    VmafContext *v = context();
    VmafModel *rbf = load("ssim_svr_rbf.json", "ssim_rbf");
    VmafModel *lin = load("ssim_svr_linear.json", "ssim_lin");
    if (!rbf || !lin)
        return;
    /* Two models, three feature requests, one extractor: float_ssim with
     * enable_lcs (merged from the two entries of the first model). */
    CHECK(!vmaf_use_features_from_model(v, rbf), "use rbf");
    CHECK(!vmaf_use_features_from_model(v, lin), "use linear");
    CHECK(v->req_cnt == 1, "%u extractor requests, want 1", v->req_cnt);
    const unsigned n = score_vector(v);
    const enum VmafFexBackend want = use_cuda ? VMAF_FEX_BACKEND_CUDA : VMAF_FEX_BACKEND_CPU;
    CHECK(v->req_cnt == 1 && v->req[0].use && v->req[0].use->backend == want,
          "float_ssim ran on %s, want the %s", v->req_cnt && v->req[0].use ?
          v->req[0].use->name : "nothing", use_cuda ? "CUDA twin" : "CPU extractor");

    double sum = 0.0, lo = INFINITY;
    for (unsigned i = 0; i < n; i++) {
        double ssim, ssim_l, s;
        CHECK(!vmaf_feature_score_at_index(v, "float_ssim", &ssim, i), "float_ssim %u", i);
        CHECK(!vmaf_feature_score_at_index(v, "float_ssim_l", &ssim_l, i), "float_ssim_l %u", i);
        CHECK(!vmaf_score_at_index(v, rbf, &s, i), "score rbf %u", i);
        const double by_hand = hand_rbf(ssim, ssim_l);
        same("rbf", i, s, by_hand);
        CHECK(by_hand > 0.0 && by_hand < 100.0,
              "rbf score %g is clipped: the test would prove less", by_hand);
        printf("frame %u: float_ssim %.17g float_ssim_l %.17g -> rbf %.17g\n", i, ssim, ssim_l, s);
        /* Stored under the model's name for the reports. */
        double stored;
        CHECK(!vmaf_feature_score_at_index(v, "ssim_rbf", &stored, i), "stored rbf %u", i);
        same("stored rbf", i, stored, by_hand);
        sum += by_hand;
        lo = by_hand < lo ? by_hand : lo;

        CHECK(!vmaf_score_at_index(v, lin, &s, i), "score linear %u", i);
        same("linear", i, s, hand_linear(ssim, ssim_l));
    }
    double pooled;
    CHECK(!vmaf_score_pooled(v, rbf, VMAF_POOL_METHOD_MEAN, &pooled, 0, n - 1), "pool mean");
    same("pooled mean", 0, pooled, sum / n);
    CHECK(!vmaf_score_pooled(v, rbf, VMAF_POOL_METHOD_MIN, &pooled, 0, n - 1), "pool min");
    same("pooled min", 0, pooled, lo);

    /* Features are chosen before the first picture; later is one error. */
    Capture late;
    capture_start(&late);
    const int err_late = vmaf_use_features_from_model(v, lin);
    capture_stop(&late);
    CHECK(err_late == -EINVAL && capture_lines(&late) == 1 && strstr(late.text, "ssim_lin"),
          "model used after the first picture: %d, log: %s", err_late, late.text);

    /* A frame that was never read has no features: an error, not a score. */
    Capture c;
    capture_start(&c);
    double s;
    const int err = vmaf_score_at_index(v, rbf, &s, n + 5);
    capture_stop(&c);
    CHECK(err == -EINVAL && strstr(c.text, "float_ssim") && capture_lines(&c) == 1,
          "score beyond the last frame: %d, log: %s", err, c.text);

    vmaf_model_destroy(rbf);
    vmaf_model_destroy(lin);
    CHECK(!vmaf_close(v), "close");
}

/* The same extractor asked for with other options by a second model. */
static void test_option_conflict(void)
{
    VmafContext *v = context();
    VmafModel *rbf = load("ssim_svr_rbf.json", NULL);
    VmafModel *s2 = load("ssim_scale2.json", "s2");
    CHECK(!vmaf_use_features_from_model(v, rbf), "use rbf");
    Capture c;
    capture_start(&c);
    const int err = vmaf_use_features_from_model(v, s2);
    capture_stop(&c);
    CHECK(err == -EINVAL && strstr(c.text, "float_ssim") && capture_lines(&c) == 1,
          "conflicting options: %d, log: %s", err, c.text);
    CHECK(v->req_cnt == 1, "the refused model changed the requests: %u", v->req_cnt);
    vmaf_model_destroy(rbf);
    vmaf_model_destroy(s2);
    vmaf_close(v);

    /* One model asking one extractor for two values of an option (scale 2
     * for float_ssim, 3 for float_ssim_l): refused, nothing requested. */
    v = context();
    VmafModel *self = load("ssim_self_conflict.json", NULL);
    capture_start(&c);
    const int err_self = vmaf_use_features_from_model(v, self);
    capture_stop(&c);
    CHECK(err_self == -EINVAL && strstr(c.text, "scale=2") && strstr(c.text, "scale=3") &&
              capture_lines(&c) == 1,
          "conflicting options in one model: %d, log: %s", err_self, c.text);
    CHECK(v->req_cnt == 0, "the refused model left requests: %u", v->req_cnt);
    vmaf_model_destroy(self);
    vmaf_close(v);

    /* An invalid option value in the model is refused when used, not at load. */
    v = context();
    VmafModel *bad = load("ssim_bad_option.json", NULL);
    capture_start(&c);
    const int err2 = bad ? vmaf_use_features_from_model(v, bad) : -1;
    capture_stop(&c);
    CHECK(err2 == -EINVAL && strstr(c.text, "scale") && capture_lines(&c) == 1,
          "bad option: %d, log: %s", err2, c.text);
    CHECK(v->req_cnt == 0, "a refused model left %u requests", v->req_cnt);
    vmaf_model_destroy(bad);
    vmaf_close(v);
}

static void expect_missing(const char *what, VmafContext *v, int err, const Capture *c,
                           const char *const *names, const char *const *absent)
{
    CHECK(err == -EINVAL, "%s: vmaf_use_features_from_model returned %d", what, err);
    CHECK(capture_lines(c) == 1, "%s: want one error line, got: %s", what, c->text);
    for (; *names; names++)
        CHECK(strstr(c->text, *names), "%s: %s not named in: %s", what, *names, c->text);
    for (; absent && *absent; absent++)
        CHECK(!strstr(c->text, *absent), "%s: %s wrongly named in: %s", what, *absent, c->text);
    CHECK(v->req_cnt == 0, "%s: the context gained %u requests", what, v->req_cnt);
}

/* The extractors a context was asked for, in order, as "a,b,c". */
static void requested(const VmafContext *v, char *buf, size_t len)
{
    buf[0] = '\0';
    for (unsigned i = 0; i < v->req_cnt; i++)
        snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", i ? "," : "", v->req[i].cpu->name);
}

/* VMAF and NEG in one context score p01 into scores[model][frame]: NEG's
 * adm and vif requests follow VMAF's (one pass computes both option sets),
 * on the twins as on the CPU. Returns the frame count. */
#define P01_MAX_FRAMES 16
static unsigned score_vmaf_and_neg(bool cuda, double scores[2][P01_MAX_FRAMES])
{
    VmafContext *v = context_on(cuda);
    VmafModel *m[2] = {NULL, NULL};
    VmafModelConfig cfg[2] = {{0}, {.name = "vmaf_neg"}};
    const char *const version[2] = {"vmaf_v0.6.1", "vmaf_v0.6.1neg"};
    for (int k = 0; k < 2; k++)
        CHECK(!vmaf_model_load(&m[k], &cfg[k], version[k]) &&
                  !vmaf_use_features_from_model(v, m[k]),
              "use %s", version[k]);
    const unsigned n = score_vector(v);
    const enum VmafFexBackend want = cuda ? VMAF_FEX_BACKEND_CUDA : VMAF_FEX_BACKEND_CPU;
    CHECK(v->req_cnt == 5 && v->req[3].follows && v->req[3].leader == 0 &&
              v->req[4].follows && v->req[4].leader == 2 && v->req[0].use->backend == want &&
              v->req[2].use->backend == want,
          "%s: NEG's adm and vif do not follow VMAF's", cuda ? "CUDA" : "CPU");
    for (int k = 0; k < 2; k++)
        for (unsigned f = 0; f < n && f < P01_MAX_FRAMES; f++)
            CHECK(!vmaf_score_at_index(v, m[k], &scores[k][f], f), "%s frame %u", version[k], f);
    vmaf_model_destroy(m[0]);
    vmaf_model_destroy(m[1]);
    vmaf_close(v);
    return n;
}

/* With CUDA state, VMAF and NEG on the grouped twins predict the CPU's
 * bits. */
static void test_vmaf_and_neg(void)
{
    double cpu[2][P01_MAX_FRAMES] = {{0}}, gpu[2][P01_MAX_FRAMES] = {{0}};
    const unsigned n = score_vmaf_and_neg(false, cpu);
    if (!use_cuda)
        return;
    CHECK(score_vmaf_and_neg(true, gpu) == n, "frame counts");
    for (int k = 0; k < 2; k++)
        for (unsigned f = 0; f < n && f < P01_MAX_FRAMES; f++)
            CHECK(!memcmp(&cpu[k][f], &gpu[k][f], sizeof(double)),
                  "%s frame %u: CPU %.17g, twins %.17g", k ? "NEG" : "VMAF", f, cpu[k][f],
                  gpu[k][f]);
}

/* The shipped models dispatch to motion, vif and adm; NEG beside VMAF asks
 * vif and adm again under its own score names (egl 1), not a conflict. */
static void test_vmaf_models(void)
{
    VmafContext *v = context();
    VmafModel *m = NULL, *neg = NULL;
    VmafModelConfig cfg = {0}, neg_cfg = {.name = "vmaf_neg"};
    char got[128];
    CHECK(!vmaf_model_load(&m, &cfg, "vmaf_v0.6.1"), "load vmaf_v0.6.1");
    CHECK(!vmaf_use_features_from_model(v, m), "use vmaf_v0.6.1");
    requested(v, got, sizeof(got));
    CHECK(!strcmp(got, "adm,motion,vif"), "vmaf_v0.6.1 asks for %s", got);
    CHECK(!vmaf_model_load(&neg, &neg_cfg, "vmaf_v0.6.1neg"), "load vmaf_v0.6.1neg");
    CHECK(!vmaf_use_features_from_model(v, neg), "use vmaf_v0.6.1neg beside vmaf_v0.6.1");
    requested(v, got, sizeof(got));
    CHECK(!strcmp(got, "adm,motion,vif,adm,vif"), "with neg: %s", got);
    CHECK(v->req_cnt == 5 && !strcmp(v->req[3].name_suffix, "_egl_1") &&
              !strcmp(v->req[4].name_suffix, "_egl_1"), "neg's requests are not named _egl_1");
    vmaf_model_destroy(m);
    vmaf_model_destroy(neg);
    vmaf_close(v);

    /* The collection: 21 models, one request of each extractor. */
    v = context();
    VmafModelCollection *mc = NULL;
    CHECK(!vmaf_model_collection_load(&m, &mc, &cfg, "vmaf_b_v0.6.3"), "load vmaf_b_v0.6.3");
    CHECK(!vmaf_use_features_from_model_collection(v, mc), "use vmaf_b_v0.6.3");
    requested(v, got, sizeof(got));
    CHECK(!strcmp(got, "adm,motion,vif"), "vmaf_b_v0.6.3 asks for %s", got);
    vmaf_model_collection_destroy(mc);
    vmaf_model_destroy(m);
    vmaf_close(v);
}

/* A model mixing features that exist with ones that do not: only the
 * missing ones are named, in one line, and nothing is requested. */
static void test_missing(void)
{
    static const char *const missing[] = {"adm2", "float_psnr_y", NULL};
    static const char *const present[] = {"float_ssim,", "float_ssim;", "integer_vif_scale0",
                                          NULL};
    Capture c;
    VmafContext *v = context();
    VmafModel *m = load("ssim_plus_missing.json", NULL);
    capture_start(&c);
    int err = m ? vmaf_use_features_from_model(v, m) : -1;
    capture_stop(&c);
    expect_missing("ssim_plus_missing", v, err, &c, missing, present);
    vmaf_model_destroy(m);
    vmaf_close(v);
}

/* A linear model "score = sum of its features" over the given features,
 * with the given options dictionaries (NULL: none). */
static VmafModel *sum_model(const char *name, const char *features, const char *opts,
                            const char *sv)
{
    char json[1024];
    snprintf(json, sizeof(json),
             "{\"model_dict\": {\"model_type\": \"LIBSVMNUSVR\", \"feature_names\": [%s], %s%s%s"
             "\"norm_type\": \"none\", \"model\": \"svm_type epsilon_svr\\nkernel_type linear\\n"
             "nr_class 2\\ntotal_sv 1\\nrho 0\\nSV\\n1 %s\\n\"}}",
             features, opts ? "\"feature_opts_dicts\": [" : "", opts ? opts : "",
             opts ? "], " : "", sv);
    VmafModel *m = NULL;
    VmafModelConfig cfg = {.name = name};
    CHECK(!vmaf_model_load_from_buffer(&m, &cfg, json, strlen(json), "test model"),
          "load %s", json);
    return m;
}

/* Every feature of a model turns its extractor's enabling option on,
 * whatever the order of the features. */
static void test_feature_order(void)
{
    const char *const order[2] = {"\"float_ssim\", \"float_ssim_l\"",
                                  "\"float_ssim_l\", \"float_ssim\""};
    for (int k = 0; k < 2; k++) {
        VmafContext *v = context();
        VmafModel *m = sum_model("sum", order[k], NULL, "1:1 2:1");
        if (!m)
            return;
        CHECK(!vmaf_use_features_from_model(v, m), "use %s", order[k]);
        CHECK(v->req_cnt == 1 && !strcmp(vmaf_dict_get(v->req[0].opts, "enable_lcs"), "true"),
              "order %s: float_ssim without enable_lcs", order[k]);
        const unsigned n = score_vector(v);
        for (unsigned i = 0; i < n; i++) {
            double a = 0, b = 0, s = 0;
            CHECK(!vmaf_feature_score_at_index(v, "float_ssim", &a, i) &&
                      !vmaf_feature_score_at_index(v, "float_ssim_l", &b, i),
                  "features of frame %u (order %s)", i, order[k]);
            CHECK(!vmaf_score_at_index(v, m, &s, i), "score frame %u (order %s)", i, order[k]);
            same("sum", i, s, a + b);
        }
        vmaf_model_destroy(m);
        vmaf_close(v);
    }

    /* The model itself switching the output off is refused at dispatch. */
    for (int k = 0; k < 2; k++) {
        VmafContext *v = context();
        VmafModel *m = sum_model("off", order[k], "{\"enable_lcs\": false}, {}", "1:1 2:1");
        Capture c;
        capture_start(&c);
        const int err = m ? vmaf_use_features_from_model(v, m) : -1;
        capture_stop(&c);
        CHECK(err == -EINVAL && strstr(c.text, "enable_lcs") && strstr(c.text, "off") &&
                  v->req_cnt == 0,
              "enable_lcs=false with float_ssim_l (order %s): %d, log: %s", order[k], err,
              c.text);
        vmaf_model_destroy(m);
        vmaf_close(v);
    }
}

/* A model whose score would take a feature's name is refused at dispatch,
 * naming both. */
static void test_score_name_collision(void)
{
    VmafContext *v = context();
    VmafModel *m = sum_model("float_ssim_l", "\"float_ssim\"", NULL, "1:1");
    Capture c;
    capture_start(&c);
    int err = m ? vmaf_use_features_from_model(v, m) : -1;
    capture_stop(&c);
    CHECK(err == -EINVAL && strstr(c.text, "float_ssim_l") && strstr(c.text, "float_ssim") &&
              v->req_cnt == 0,
          "model named like an extractor's feature: %d, log: %s", err, c.text);
    vmaf_model_destroy(m);

    m = sum_model("x", "\"x\"", NULL, "1:1");
    capture_start(&c);
    err = m ? vmaf_use_features_from_model(v, m) : -1;
    capture_stop(&c);
    CHECK(err == -EINVAL && strstr(c.text, "feature x of model x"),
          "model named like its own feature: %d, log: %s", err, c.text);
    vmaf_model_destroy(m);
    vmaf_close(v);

    /* Two models put into use by separate calls under one name: the second
     * is refused at once (its scores would only clash at pooling, after
     * every frame), and the context is left as it was. The same model
     * twice is no clash. */
    v = context();
    VmafModel *a = load("ssim_svr_rbf.json", "a"), *a2 = load("ssim_svr_linear.json", "a");
    CHECK(a && !vmaf_use_features_from_model(v, a), "first model a");
    CHECK(a && !vmaf_use_features_from_model(v, a), "model a again");
    const unsigned reqs = v->req_cnt;
    capture_start(&c);
    err = a2 ? vmaf_use_features_from_model(v, a2) : -1;
    capture_stop(&c);
    CHECK(err == -EINVAL && strstr(c.text, "score a is already the score of model a") &&
              v->req_cnt == reqs,
          "second model named a: %d, log: %s", err, c.text);
    /* A model that takes a collection's derived name first, then the
     * collection (checked before its missing features). */
    VmafModel *cb = load("ssim_svr_linear.json", "c_bagging"), *head = NULL;
    VmafModelCollection *mc = NULL;
    VmafModelConfig ccfg = {.name = "c"};
    CHECK(cb && !vmaf_use_features_from_model(v, cb), "model c_bagging");
    CHECK(!vmaf_model_collection_load(&head, &mc, &ccfg, "vmaf_b_v0.6.3"), "collection c");
    capture_start(&c);
    err = mc ? vmaf_use_features_from_model_collection(v, mc) : -1;
    capture_stop(&c);
    CHECK(err == -EINVAL && strstr(c.text, "score c_bagging is already the score of model "
                                           "c_bagging"),
          "collection c after model c_bagging: %d, log: %s", err, c.text);
    vmaf_model_collection_destroy(mc);
    vmaf_model_destroy(head);
    vmaf_model_destroy(cb);
    vmaf_model_destroy(a2);
    vmaf_model_destroy(a);
    vmaf_close(v);
}

int main(int argc, char **argv)
{
    if (argc != 3 && !(argc == 4 && !strcmp(argv[3], "cuda"))) {
        fprintf(stderr, "usage: %s model_data_dir vector_dir [cuda]\n", argv[0]);
        return 2;
    }
    data_dir = argv[1];
    vec_dir = argv[2];
    use_cuda = argc == 4;
    test_end_to_end();
    test_option_conflict();
    test_vmaf_models();
    test_vmaf_and_neg();
    test_missing();
    test_feature_order();
    test_score_name_collision();
    return check_result("dispatch");
}
