/* Bad model files: each is refused at load with -EINVAL (or the errno of
 * the failed open) and one error line that names the file and the
 * offending key. The cases are the shipped vmaf_v0.6.1 / vmaf_b_v0.6.3
 * models with one thing broken. */
#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libvmaf/libvmaf.h"
#include "libvmaf/model.h"

#include "check.h"
#include "log.h"

static char tmp_dir[256];
static char model_path[512], coll_path[512];
static int n_fail, n_case;

/* Runs the load with stderr captured; what was logged is in `captured`. */
static Capture capture;
static const char *captured = "";

static int load(const char *path, int collection)
{
    capture_start(&capture);
    VmafModelConfig cfg = {.name = NULL};
    int err;
    if (collection) {
        VmafModel *m = NULL;
        VmafModelCollection *mc = NULL;
        err = vmaf_model_collection_load_from_path(&m, &mc, &cfg, path);
        if (!err && (!m || !mc))
            err = 12345;
        if (err && (m || mc))
            err = 54321; /* outputs must stay NULL on failure */
        vmaf_model_destroy(m);
        vmaf_model_collection_destroy(mc);
    } else {
        VmafModel *m = NULL;
        err = vmaf_model_load_from_path(&m, &cfg, path);
        if (err && m)
            err = 54321;
        vmaf_model_destroy(m);
    }
    captured = capture_stop(&capture);
    return err;
}

/* Writes text as the case's model file and checks the refusal. */
static void expect_text(const char *name, const char *text, size_t len, int collection,
                        int want_err, const char *want_key)
{
    /* A neutral file name, so that only the message can match the key. */
    char path[600];
    snprintf(path, sizeof(path), "%s/case%d.json", tmp_dir, n_case);
    FILE *f = fopen(path, "wb");
    fwrite(text, 1, len, f);
    fclose(f);
    n_case++;
    const int err = load(path, collection);
    int ok = err == want_err;
    ok &= strstr(captured, path) != NULL;
    const char *after_path = strstr(captured, path);
    ok &= !want_key || (after_path && strstr(after_path + strlen(path), want_key) != NULL);
    ok &= count_lines(captured) == 1;
    if (getenv("VMAF_TEST_VERBOSE"))
        printf("%-26s %s", name, captured);
    if (!ok) {
        n_fail++;
        fprintf(stderr, "FAIL %s: err %d (want %d), log:\n%s(want the path and '%s' in one line)\n",
                name, err, want_err, captured, want_key ? want_key : "");
    }
    unlink(path);
}

static void expect_json(const char *name, json_t *root, int collection, const char *want_key)
{
    char *s = json_dumps(root, JSON_REAL_PRECISION(17));
    json_decref(root);
    expect_text(name, s, strlen(s), collection, -EINVAL, want_key);
    free(s);
}

/* The other side of a limit: root, written as the case's model file, loads
 * (a limit that refused its own value would pass every refusal above). */
static void expect_loads(const char *name, json_t *root)
{
    char path[600];
    snprintf(path, sizeof(path), "%s/case%d.json", tmp_dir, n_case);
    n_case++;
    const int dumped = json_dump_file(root, path, JSON_REAL_PRECISION(17));
    json_decref(root);
    const int err = dumped ? -EIO : load(path, 0);
    if (err) {
        n_fail++;
        fprintf(stderr, "FAIL %s: err %d, want it to load; log:\n%s", name, err, captured);
    }
    unlink(path);
}

static json_t *base(const char *path)
{
    json_error_t je;
    json_t *r = json_load_file(path, 0, &je);
    if (!r) {
        fprintf(stderr, "%s: %s\n", path, je.text);
        exit(1);
    }
    return r;
}

static json_t *md(json_t *root)
{
    return json_object_get(root, "model_dict");
}

/* The model with one replacement made in its libsvm text. */
static json_t *svm_edit(const char *from, const char *to)
{
    json_t *r = base(model_path);
    const char *t = json_string_value(json_object_get(md(r), "model"));
    const char *at = strstr(t, from);
    if (!at) {
        fprintf(stderr, "test bug: '%s' not in the model text\n", from);
        exit(1);
    }
    const size_t n = strlen(t) - strlen(from) + strlen(to) + 1;
    char *s = malloc(n);
    snprintf(s, n, "%.*s%s%s", (int)(at - t), t, to, at + strlen(from));
    json_object_set_new(md(r), "model", json_string(s));
    free(s);
    return r;
}

static json_t *with(const char *key, json_t *val)
{
    json_t *r = base(model_path);
    json_object_set_new(md(r), key, val);
    return r;
}

static json_t *without(const char *key)
{
    json_t *r = base(model_path);
    json_object_del(md(r), key);
    return r;
}

/* The shipped model with n features f0.. (its support vectors use the
 * first six): n + 1 slopes and intercepts, entry 0 the shipped one. */
static json_t *with_features(int n)
{
    json_t *r = base(model_path);
    json_t *names = json_array(), *slopes = json_array(), *icpts = json_array();
    json_array_append(slopes, json_array_get(json_object_get(md(r), "slopes"), 0));
    json_array_append(icpts, json_array_get(json_object_get(md(r), "intercepts"), 0));
    for (int i = 0; i < n; i++) {
        char f[32];
        snprintf(f, sizeof(f), "f%d", i);
        json_array_append_new(names, json_string(f));
        json_array_append_new(slopes, json_real(1.0));
        json_array_append_new(icpts, json_real(0.0));
    }
    json_object_set_new(md(r), "feature_names", names);
    json_object_set_new(md(r), "slopes", slopes);
    json_object_set_new(md(r), "intercepts", icpts);
    return r;
}

/* The shipped model with a transform of n knots on the diagonal. */
static json_t *with_knots(int n)
{
    json_t *knots = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(knots, json_pack("[f,f]", 100.0 * i / n, 100.0 * i / n));
    return with("score_transform", json_pack("{s:o}", "knots", knots));
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    *len = fread(s, 1, (size_t)n, f);
    s[*len] = '\0';
    fclose(f);
    return s;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s vmaf_v0.6.1.json vmaf_b_v0.6.3.json\n", argv[0]);
        return 2;
    }
    snprintf(model_path, sizeof(model_path), "%s", argv[1]);
    snprintf(coll_path, sizeof(coll_path), "%s", argv[2]);
    snprintf(tmp_dir, sizeof(tmp_dir), "%s/vmaf_bad_model_XXXXXX",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(tmp_dir)) {
        perror("mkdtemp");
        return 1;
    }
    /* Warning level: a model read as a collection (or the reverse) is only a
     * warning, since callers probe one way and then the other. */
    vmaf_log_set_level(VMAF_LOG_LEVEL_WARNING);

    /* The unbroken files load (otherwise every case below proves nothing). */
    n_case++;
    if (load(model_path, 0) || load(coll_path, 1)) {
        fprintf(stderr, "FAIL: the shipped models do not load:\n%s", captured);
        n_fail++;
    }

    /* Not JSON at all, or cut short. */
    size_t len;
    char *text = slurp(model_path, &len);
    expect_text("truncated", text, len / 2, 0, -EINVAL, "not a valid JSON model");
    expect_text("truncated_end", text, len - 3, 0, -EINVAL, "not a valid JSON model");
    expect_text("empty", "", 0, 0, -EINVAL, "not a valid JSON model");
    expect_text("not_json", "svm_type nu_svr\n", 16, 0, -EINVAL, "not a valid JSON model");
    free(text);
    {
        /* NaN and an overflowing literal are not JSON; the message still
         * points at the key they are in. */
        const char *nan = "{\"model_dict\": {\"model_type\": \"LIBSVMNUSVR\", \"slopes\": [NaN]}}";
        expect_text("nan_literal", nan, strlen(nan), 0, -EINVAL, "slopes");
        const char *big = "{\"model_dict\": {\"intercepts\": [1e999]}}";
        expect_text("overflow_literal", big, strlen(big), 0, -EINVAL, "intercepts");
        const char *dup = "{\"model_dict\": {\"norm_type\": \"none\", \"norm_type\": \"none\"}}";
        expect_text("duplicate_key", dup, strlen(dup), 0, -EINVAL, "norm_type");
    }

    /* Structure. */
    expect_json("top_array", json_pack("[i]", 1), 0, "(top level)");
    expect_json("no_model_dict", json_pack("{s:i}", "param_dict", 1), 0, "'model_dict'");
    expect_json("model_dict_string", json_pack("{s:s}", "model_dict", "x"), 0, "'model_dict'");

    /* Missing keys. */
    expect_json("no_model_type", without("model_type"), 0, "model_dict.model_type");
    expect_json("no_norm_type", without("norm_type"), 0, "model_dict.norm_type");
    expect_json("no_feature_names", without("feature_names"), 0, "model_dict.feature_names");
    expect_json("no_slopes", without("slopes"), 0, "model_dict.slopes");
    expect_json("no_intercepts", without("intercepts"), 0, "model_dict.intercepts");
    expect_json("no_model", without("model"), 0, "model_dict.model'");

    /* Wrong types. */
    expect_json("model_type_number", with("model_type", json_integer(5)), 0,
                "model_dict.model_type");
    expect_json("norm_type_array", with("norm_type", json_pack("[s]", "none")), 0,
                "model_dict.norm_type");
    expect_json("feature_names_string", with("feature_names", json_string("adm2")), 0,
                "model_dict.feature_names");
    expect_json("feature_name_number",
                with("feature_names", json_pack("[s,i,s,s,s,s]", "a", 2, "c", "d", "e", "f")), 0,
                "model_dict.feature_names[1]");
    expect_json("slopes_object", with("slopes", json_object()), 0, "model_dict.slopes");
    {
        json_t *r = base(model_path);
        json_array_set_new(json_object_get(md(r), "intercepts"), 2, json_string("0.5"));
        expect_json("intercept_string", r, 0, "model_dict.intercepts[2]");
    }
    expect_json("model_number", with("model", json_integer(42)), 0, "model_dict.model'");
    expect_json("score_clip_string", with("score_clip", json_string("0,100")), 0,
                "model_dict.score_clip");
    expect_json("score_clip_reversed", with("score_clip", json_pack("[f,f]", 100.0, 0.0)), 0,
                "model_dict.score_clip");
    expect_json("transform_array", with("score_transform", json_pack("[f]", 1.0)), 0,
                "model_dict.score_transform");
    expect_json("transform_p1_string",
                with("score_transform", json_pack("{s:s}", "p1", "1.7")), 0,
                "model_dict.score_transform.p1");
    expect_json("transform_gte_bool",
                with("score_transform", json_pack("{s:b}", "out_gte_in", 1)), 0,
                "model_dict.score_transform.out_gte_in");
    expect_json("transform_lte_word",
                with("score_transform", json_pack("{s:s}", "out_lte_in", "yes")), 0,
                "model_dict.score_transform.out_lte_in");
    expect_json("knots_decreasing",
                with("score_transform",
                     json_pack("{s:[[f,f],[f,f]]}", "knots", 50.0, 60.0, 40.0, 70.0)), 0,
                "model_dict.score_transform.knots[1]");
    expect_json("knots_y_decreasing",
                with("score_transform",
                     json_pack("{s:[[f,f],[f,f]]}", "knots", 0.0, 50.0, 100.0, 40.0)), 0,
                "model_dict.score_transform.knots[1]");
    expect_json("knots_single", with("score_transform", json_pack("{s:[[f,f]]}", "knots", 1.0, 1.0)),
                0, "model_dict.score_transform.knots");
    /* At most 256 knots (beyond the reference's 10): the limit itself loads. */
    expect_loads("knots_256", with_knots(256));
    expect_json("knots_257", with_knots(257), 0, "model_dict.score_transform.knots");
    expect_json("opts_not_array", with("feature_opts_dicts", json_object()), 0,
                "model_dict.feature_opts_dicts");
    expect_json("opts_entry_string",
                with("feature_opts_dicts", json_pack("[{},{},s,{},{},{}]", "x")), 0,
                "model_dict.feature_opts_dicts[2]");
    expect_json("opts_value_array",
                with("feature_opts_dicts", json_pack("[{},{},{s:[]},{},{},{}]", "k")), 0,
                "model_dict.feature_opts_dicts[2].k");
    /* The reference's loader refuses option values given as strings. */
    expect_json("opts_value_string",
                with("feature_opts_dicts",
                     json_pack("[{s:s},{},{},{},{},{}]", "adm_enhn_gain_limit", "1.0")), 0,
                "model_dict.feature_opts_dicts[0].adm_enhn_gain_limit");
    expect_json("transform_enabled_string",
                with("score_transform", json_pack("{s:s}", "enabled", "true")), 0,
                "model_dict.score_transform.enabled");

    /* Unknown values. */
    expect_json("model_type_unknown", with("model_type", json_string("RANDOMFOREST")), 0,
                "model_dict.model_type");
    expect_json("norm_type_unknown", with("norm_type", json_string("zscore")), 0,
                "model_dict.norm_type");

    /* Numbers out of range. */
    {
        json_t *r = base(model_path);
        json_array_set_new(json_object_get(md(r), "slopes"), 3, json_real(1e300));
        expect_json("slope_huge", r, 0, "model_dict.slopes[3]");
        r = base(model_path);
        json_array_set_new(json_object_get(md(r), "slopes"), 0, json_real(0.0));
        expect_json("slope_zero", r, 0, "model_dict.slopes[0]");
        expect_json("transform_p2_huge",
                    with("score_transform", json_pack("{s:f}", "p2", -1e200)), 0,
                    "model_dict.score_transform.p2");
        /* Numbers may be 1e15 in magnitude, not more: the limit loads and
         * the next double above it (1e15 + 1/8, printed exactly) is refused,
         * in the JSON and in each kind of number of the libsvm text. */
        r = base(model_path);
        json_array_set_new(json_object_get(md(r), "intercepts"), 3, json_real(-1e15));
        expect_loads("intercept_1e15", r);
        r = base(model_path);
        json_array_set_new(json_object_get(md(r), "intercepts"), 3, json_real(-1e15 - 0.125));
        expect_json("intercept_above_1e15", r, 0,
                    "'model_dict.intercepts[3]': -1000000000000000.1 is larger than 1e+15");
        expect_loads("svm_rho_1e15", svm_edit("rho -1.33133", "rho 1e15"));
        /* Printed with all its digits: "%g" would show the limit itself. */
        expect_json("svm_rho_above_1e15", svm_edit("rho -1.33133", "rho 1000000000000000.125"), 0,
                    "'rho' value 1000000000000000.1 is larger than 1e+15");
        expect_loads("svm_coef_1e15", svm_edit("\n-4 1:0.65734273", "\n-1e15 1:0.65734273"));
        expect_json("svm_coef_above_1e15",
                    svm_edit("\n-4 1:0.65734273", "\n-1000000000000000.125 1:0.65734273"), 0,
                    "coefficient");
        expect_loads("svm_value_1e15", svm_edit("1:0.65734273", "1:1e15"));
        expect_json("svm_value_above_1e15", svm_edit("1:0.65734273", "1:1000000000000000.125"), 0,
                    "model_dict.model");
    }

    /* Counts and lengths. */
    {
        json_t *r = base(model_path);
        json_array_remove(json_object_get(md(r), "slopes"), 6);
        expect_json("slopes_short", r, 0, "model_dict.slopes");
        r = base(model_path);
        json_array_append_new(json_object_get(md(r), "intercepts"), json_real(1.0));
        expect_json("intercepts_long", r, 0, "model_dict.intercepts");
        expect_json("opts_short", with("feature_opts_dicts", json_pack("[{},{}]")), 0,
                    "model_dict.feature_opts_dicts");
        expect_json("feature_names_empty", with("feature_names", json_array()), 0,
                    "model_dict.feature_names");
        json_t *many = json_array();
        for (int i = 0; i < 300; i++) {
            char n[32];
            snprintf(n, sizeof(n), "f%d", i);
            json_array_append_new(many, json_string(n));
        }
        expect_json("feature_names_huge", with("feature_names", many), 0,
                    "model_dict.feature_names");
        /* At most 256 features (beyond the reference's 32): the limit itself
         * loads, one more is refused. */
        expect_loads("feature_names_256", with_features(256));
        expect_json("feature_names_257", with_features(257), 0, "model_dict.feature_names");
        expect_json("feature_names_twice",
                    with("feature_names", json_pack("[s,s,s,s,s,s]", "a", "b", "a", "d", "e", "f")),
                    0, "model_dict.feature_names[2]");
        /* Fewer features than the support vectors use. */
        r = base(model_path);
        json_array_remove(json_object_get(md(r), "feature_names"), 5);
        json_array_remove(json_object_get(md(r), "slopes"), 6);
        json_array_remove(json_object_get(md(r), "intercepts"), 6);
        expect_json("sv_index_beyond_features", r, 0, "model_dict.model");
    }

    /* The libsvm text. */
    expect_json("svm_kernel_unknown", svm_edit("kernel_type rbf", "kernel_type precomputed"), 0,
                "kernel_type");
    expect_json("svm_kernel_garbage", svm_edit("kernel_type rbf", "kernel_type gaussian"), 0,
                "kernel_type");
    expect_json("svm_type_classifier", svm_edit("svm_type nu_svr", "svm_type c_svc"), 0,
                "svm_type");
    expect_json("svm_type_unknown", svm_edit("svm_type nu_svr", "svm_type foo"), 0, "svm_type");
    expect_json("svm_no_gamma", svm_edit("gamma 0.04\n", ""), 0, "gamma");
    expect_json("svm_poly_no_degree",
                svm_edit("kernel_type rbf", "kernel_type polynomial\ncoef0 0"), 0, "'degree'");
    expect_json("svm_sigmoid_no_coef0", svm_edit("kernel_type rbf", "kernel_type sigmoid"), 0,
                "'coef0'");
    expect_json("svm_degree_huge",
                svm_edit("kernel_type rbf", "kernel_type polynomial\ncoef0 0\ndegree 1000"), 0,
                "'degree'");
    expect_json("svm_total_sv_huge", svm_edit("total_sv 211", "total_sv 999999999"), 0,
                "total_sv");
    expect_json("svm_total_sv_overflow", svm_edit("total_sv 211", "total_sv 99999999999999999999999"),
                0, "total_sv");
    expect_json("svm_total_sv_mismatch", svm_edit("total_sv 211", "total_sv 210"), 0,
                "total_sv");
    expect_json("svm_rho_nan", svm_edit("rho -1.33133", "rho nan"), 0, "rho");
    expect_json("svm_rho_huge", svm_edit("rho -1.33133", "rho 1e300"), 0, "rho");
    expect_json("svm_rho_two", svm_edit("rho -1.33133", "rho 1 2"), 0, "rho");
    expect_json("svm_nr_class", svm_edit("nr_class 2", "nr_class 3"), 0, "nr_class");
    expect_json("svm_no_sv", svm_edit("\nSV\n", "\nXV\n"), 0, "model_dict.model");
    expect_json("svm_header_unknown", svm_edit("nr_class 2", "nr_klass 2"), 0, "nr_klass");
    expect_json("svm_coef_nan", svm_edit("\n-4 1:0.65734273", "\nnan 1:0.65734273"), 0,
                "coefficient");
    expect_json("svm_coef_huge", svm_edit("\n-4 1:0.65734273", "\n-4e20 1:0.65734273"), 0,
                "coefficient");
    expect_json("svm_value_inf", svm_edit("1:0.65734273", "1:1e400"), 0, "model_dict.model");
    expect_json("svm_value_hex", svm_edit("1:0.65734273", "1:0x1p-1"), 0, "model_dict.model");
    expect_json("svm_index_descending", svm_edit("1:0.65734273 2:0.34681232", "2:0.65734273 1:0.34681232"),
                0, "ascend");
    expect_json("svm_index_zero", svm_edit("1:0.65734273", "0:0.65734273"), 0, "index");
    expect_json("svm_pair_broken", svm_edit("1:0.65734273", "1=0.65734273"), 0, "index:value");

    /* Collections. */
    {
        size_t n;
        char *c = slurp(coll_path, &n);
        expect_text("collection_truncated", c, n - 100, 1, -EINVAL, "not a valid JSON model");
        free(c);
        json_t *r = base(coll_path);
        json_object_set_new(r, "x", json_object());
        expect_json("collection_extra_key", r, 1, "'x'");
        r = base(coll_path);
        json_object_del(r, "7");
        expect_json("collection_gap", r, 1, "'20'");
        r = base(coll_path);
        json_array_set_new(json_object_get(md(json_object_get(r, "3")), "slopes"), 1,
                           json_string("x"));
        expect_json("collection_member_bad", r, 1, "3.model_dict.slopes[1]");
        r = base(coll_path);
        json_object_set_new(md(json_object_get(r, "5")), "model_type", json_string("LIBSVMNUSVR"));
        expect_json("collection_member_type", r, 1, "5.model_dict.model_type");
        json_t *whole = base(coll_path);
        expect_json("collection_one_model", json_pack("{s:O}", "0", json_object_get(whole, "0")),
                    1, "(top level)");
        json_decref(whole);
        /* A collection read as a model and a model read as a collection. */
        expect_json("collection_as_model", base(coll_path), 0, "collection");
        expect_json("model_as_collection", base(model_path), 1, "single model");
    }

    /* Files that cannot be read. */
    {
        char path[600];
        snprintf(path, sizeof(path), "%s/does_not_exist.json", tmp_dir);
        n_case++;
        if (load(path, 0) != -ENOENT || !strstr(captured, path)) {
            n_fail++;
            fprintf(stderr, "FAIL missing file: %s", captured);
        }
        n_case++;
        if (load(tmp_dir, 0) != -EINVAL || !strstr(captured, tmp_dir)) {
            n_fail++;
            fprintf(stderr, "FAIL directory: %s", captured);
        }
    }
    /* The size limit, 64 MiB: the shipped model padded with spaces to
     * exactly that loads; one byte more is refused, saying the limit. */
    {
        const size_t limit = 64u << 20;
        size_t len;
        char *text = slurp(model_path, &len);
        char *big = malloc(limit + 1);
        memcpy(big, text, len);
        memset(big + len, ' ', limit + 1 - len);
        free(text);
        char path[600];
        snprintf(path, sizeof(path), "%s/big.json", tmp_dir);
        for (int over = 0; over < 2; over++) {
            n_case++;
            FILE *f = fopen(path, "wb");
            const int written = f && fwrite(big, 1, limit + over, f) == limit + over;
            if (f)
                fclose(f);
            const int err = written ? load(path, 0) : -EIO;
            const char *after = strstr(captured, path);
            const int ok = over ? err == -EINVAL && after &&
                                      strstr(after, "larger than 67108864 bytes are refused")
                                : err == 0;
            if (!ok) {
                n_fail++;
                fprintf(stderr, "FAIL model file of 64 MiB%s: err %d, log:\n%s",
                        over ? " + 1 byte" : "", err, captured);
            }
        }
        unlink(path);
        free(big);
    }

    /* Not a refusal: "enabled": true in score_transform turns the transform
     * on, as ENABLE_TRANSFORM does, and DISABLE_TRANSFORM still wins. */
    {
        n_case++;
        json_t *r = base(model_path);
        json_object_set_new(json_object_get(md(r), "score_transform"), "enabled", json_true());
        char path[600];
        snprintf(path, sizeof(path), "%s/enabled.json", tmp_dir);
        const int dumped = json_dump_file(r, path, JSON_REAL_PRECISION(17));
        json_decref(r);
        VmafModel *on = NULL, *flag = NULL, *off = NULL, *plain = NULL;
        VmafModelConfig c_on = {.name = "on"}, c_flag = {.name = "flag",
                                                          .flags = VMAF_MODEL_FLAG_ENABLE_TRANSFORM};
        VmafModelConfig c_off = {.name = "off", .flags = VMAF_MODEL_FLAG_DISABLE_TRANSFORM};
        VmafModelConfig c_plain = {.name = "plain"};
        VmafContext *v = NULL;
        VmafConfiguration vc = {.log_level = VMAF_LOG_LEVEL_ERROR};
        double s_on = -1, s_flag = -2, s_off = -3, s_plain = -4;
        static const char *const feats[] = {
            "VMAF_integer_feature_adm2_score",       "VMAF_integer_feature_motion2_score",
            "VMAF_integer_feature_vif_scale0_score", "VMAF_integer_feature_vif_scale1_score",
            "VMAF_integer_feature_vif_scale2_score", "VMAF_integer_feature_vif_scale3_score"};
        int err = dumped || vmaf_init(&v, vc) ||
                  vmaf_model_load_from_path(&on, &c_on, path) ||
                  vmaf_model_load_from_path(&flag, &c_flag, model_path) ||
                  vmaf_model_load_from_path(&off, &c_off, path) ||
                  vmaf_model_load_from_path(&plain, &c_plain, model_path);
        for (int i = 0; !err && i < 6; i++)
            err = vmaf_import_feature_score(v, feats[i], i == 1 ? 2.5 : 0.9 - 0.05 * i, 0);
        if (!err)
            err = vmaf_score_at_index(v, on, &s_on, 0) || vmaf_score_at_index(v, flag, &s_flag, 0) ||
                  vmaf_score_at_index(v, off, &s_off, 0) ||
                  vmaf_score_at_index(v, plain, &s_plain, 0);
        if (err || s_on != s_flag || s_off != s_plain || s_on == s_plain) {
            n_fail++;
            fprintf(stderr, "FAIL transform enabled in the file: err %d, on %.17g, flag %.17g, "
                    "off %.17g, plain %.17g\n", err, s_on, s_flag, s_off, s_plain);
        }
        vmaf_model_destroy(on);
        vmaf_model_destroy(flag);
        vmaf_model_destroy(off);
        vmaf_model_destroy(plain);
        vmaf_close(v);
        unlink(path);
    }

    char log_path[600];
    snprintf(log_path, sizeof(log_path), "%s/log.txt", tmp_dir);
    unlink(log_path);
    rmdir(tmp_dir);
    printf("bad models: %d cases, %d failed\n", n_case, n_fail);
    return n_fail ? 1 : 0;
}
