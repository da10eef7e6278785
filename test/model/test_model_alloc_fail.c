/* Allocation-failure walk over the model code: the library's allocations go
 * through the wrappers below, which fail the N-th one of a run. jansson's own
 * are left alone: it reports some of its allocation failures as syntax
 * errors and asserts on others, so they cannot be walked meaningfully. For N = 1, 2, ... a session loads
 * a model from a file, a built-in model and a collection, overloads a
 * feature, imports features, predicts per frame and pooled, and uses a
 * model's features, until a run sees no injected failure. Each failing call
 * must return a negative errno, nothing may stay allocated after the
 * objects are freed, and a run that succeeds must give the undisturbed
 * run's scores. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libvmaf/libvmaf.h"
#include "libvmaf/model.h"

#include "log.h"

void *__real_malloc(size_t size);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t size);
void __real_free(void *p);
void *__wrap_malloc(size_t size);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t size);
void __wrap_free(void *p);

static long calls, fail_at, live;
static bool injected;

static bool should_fail(void)
{
    if (fail_at && ++calls == fail_at) {
        injected = true;
        return true;
    }
    if (!fail_at)
        calls++;
    return false;
}

void *__wrap_malloc(size_t size)
{
    if (should_fail())
        return NULL;
    void *p = __real_malloc(size);
    live += p != NULL;
    return p;
}

void *__wrap_calloc(size_t n, size_t size)
{
    if (should_fail())
        return NULL;
    void *p = __real_calloc(n, size);
    live += p != NULL;
    return p;
}

void *__wrap_realloc(void *p, size_t size)
{
    if (should_fail())
        return NULL;
    void *q = __real_realloc(p, size);
    live += q != NULL && p == NULL;
    return q;
}

void __wrap_free(void *p)
{
    live -= p != NULL;
    __real_free(p);
}

static const char *data_dir;

typedef struct Result {
    double score, neg, bagging, pooled;
} Result;

/* One consumer session; returns 0 or the first error. */
static int session(Result *r)
{
    char path[1024];
    snprintf(path, sizeof(path), "%s/ssim_svr_rbf.json", data_dir);
    VmafContext *v = NULL;
    VmafModel *file = NULL, *neg = NULL, *head = NULL;
    VmafModelCollection *mc = NULL;
    VmafFeatureDictionary *d = NULL;
    static const char *const feat[] = {
        "VMAF_integer_feature_adm2_score", "VMAF_integer_feature_motion2_score",
        "VMAF_integer_feature_vif_scale0_score", "VMAF_integer_feature_vif_scale1_score",
        "VMAF_integer_feature_vif_scale2_score", "VMAF_integer_feature_vif_scale3_score"};
    static const double val[] = {0.95, 3.5, 0.4, 0.9, 0.95, 0.97};
    /* The neg model's ADM and VIF features have enhn_gain_limit 1: it reads
     * them under the names the reference gives them with that option. */
    static const char *const egl[] = {"integer_adm2_egl_1", "integer_vif_scale0_egl_1",
                                      "integer_vif_scale1_egl_1", "integer_vif_scale2_egl_1",
                                      "integer_vif_scale3_egl_1"};
    static const double egl_val[] = {0.93, 0.35, 0.85, 0.9, 0.92};
    /* VMAF_TEST_LOG=1 shows the library's messages (to see what fails). */
    VmafConfiguration cfg = {.log_level = getenv("VMAF_TEST_LOG") ? VMAF_LOG_LEVEL_ERROR
                                                                  : VMAF_LOG_LEVEL_NONE};

    int err = vmaf_init(&v, cfg);
    if (!err)
        err = vmaf_model_load_from_path(&file, NULL, path);
    if (!err)
        err = vmaf_feature_dictionary_set(&d, "scale", "1");
    if (!err) {
        err = vmaf_model_feature_overload(file, "float_ssim", d);
        d = NULL;
    }
    if (!err)
        err = vmaf_use_features_from_model(v, file);
    VmafModelConfig ncfg = {.name = "neg"};
    if (!err)
        err = vmaf_model_load(&neg, &ncfg, "vmaf_v0.6.1neg");
    if (!err)
        err = vmaf_model_collection_load(&head, &mc, NULL, "vmaf_b_v0.6.3");
    for (unsigned f = 0; f < 2 && !err; f++)
        for (int i = 0; i < 6 && !err; i++)
            err = vmaf_import_feature_score(v, feat[i], val[i] + 0.01 * f, f);
    for (unsigned f = 0; f < 2 && !err; f++)
        for (int i = 0; i < 5 && !err; i++)
            err = vmaf_import_feature_score(v, egl[i], egl_val[i] + 0.01 * f, f);
    if (!err)
        err = vmaf_score_at_index(v, head, &r->score, 0);
    if (!err)
        err = vmaf_score_at_index(v, neg, &r->neg, 1);
    VmafModelCollectionScore cs;
    if (!err)
        err = vmaf_score_at_index_model_collection(v, mc, &cs, 1);
    if (!err)
        r->bagging = cs.bootstrap.bagging_score;
    if (!err)
        err = vmaf_score_pooled_model_collection(v, mc, VMAF_POOL_METHOD_MEAN, &cs, 0, 1);
    if (!err)
        r->pooled = cs.bootstrap.stddev;

    vmaf_feature_dictionary_free(&d);
    vmaf_model_collection_destroy(mc);
    vmaf_model_destroy(head);
    vmaf_model_destroy(neg);
    vmaf_model_destroy(file);
    vmaf_close(v);
    return err;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s model_data_dir\n", argv[0]);
        return 2;
    }
    data_dir = argv[1];

    Result want = {0};
    fail_at = 0;
    calls = 0;
    live = 0;
    if (session(&want) || live) {
        fprintf(stderr, "FAIL: the undisturbed session failed or leaked %ld\n", live);
        return 1;
    }
    const long total = calls;
    int fails = 0;
    long n;
    const long only = getenv("VMAF_TEST_FAIL_AT") ? atol(getenv("VMAF_TEST_FAIL_AT")) : 0;
    for (n = only ? only : 1;; n++) {
        Result got = {0};
        fail_at = n;
        calls = 0;
        live = 0;
        injected = false;
        const int err = session(&got);
        if (live) {
            fails++;
            fprintf(stderr, "FAIL: allocation %ld failed: %ld allocations leaked\n", n, live);
        }
        if (err > 0 || (err && err != -ENOMEM)) {
            fails++;
            fprintf(stderr, "FAIL: allocation %ld failed: error %d, want -ENOMEM\n", n, err);
        }
        if (!err && memcmp(&got, &want, sizeof(got))) {
            fails++;
            fprintf(stderr, "FAIL: allocation %ld failed but the session succeeded with other "
                    "scores\n", n);
        }
        if (!injected || only)
            break;
    }
    printf("model alloc fail: %ld allocations walked (undisturbed run: %ld), %d failures\n",
           n - 1, total, fails);
    return fails || n - 1 != total ? 1 : 0;
}
