/*
 * Integer VIF numerics against the libvmaf 3.2 golden data: every VIF
 * output of every frame of every run that has one, compared as doubles bit
 * for bit. Each vector's parameter sets are scored together in one call
 * (the shared pass, best kernels of this CPU) and each on its own with the
 * plain C kernels; both must give the same bits.
 *
 * Usage: test_vif_golden GOLDEN_JSON VECTOR_DIR MODELS_DIR
 */
#include <errno.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "feature/vif/vif.h"
#include "vmaf_golden.h"

#define MAX_RUNS 64
#define SHOW_DIFFS 12

typedef struct RunVif {
    unsigned run;   /* index in the vector's runs */
    unsigned set;   /* index in the vector's parameter sets */
    char suffix[64]; /* "_egl_1", "_ssclz", ... */
} RunVif;

static const char *const scale_names[4] = {"integer_vif_scale0", "integer_vif_scale1",
                                           "integer_vif_scale2", "integer_vif_scale3"};
static const char *const num_names[4] = {"integer_vif_num_scale0", "integer_vif_num_scale1",
                                         "integer_vif_num_scale2", "integer_vif_num_scale3"};
static const char *const den_names[4] = {"integer_vif_den_scale0", "integer_vif_den_scale1",
                                         "integer_vif_den_scale2", "integer_vif_den_scale3"};

static unsigned long n_equal, n_differ;

/* The output named base (no suffix) of one frame's scores; false if the
 * extractor has no such output. */
static bool output_value(const VifScores *s, const char *base, double *v)
{
    for (unsigned k = 0; k < 4; k++) {
        if (!strcmp(base, scale_names[k]))
            return *v = s->scale[k], true;
        if (!strcmp(base, num_names[k]))
            return *v = s->num_scale[k], true;
        if (!strcmp(base, den_names[k]))
            return *v = s->den_scale[k], true;
    }
    if (!strcmp(base, "integer_vif"))
        return *v = s->vif, true;
    if (!strcmp(base, "integer_vif_num"))
        return *v = s->num, true;
    if (!strcmp(base, "integer_vif_den"))
        return *v = s->den, true;
    return false;
}

/* Applies "k=v:k=v" vif options (names or aliases) to p. */
static int parse_options(const char *opts, VifParams *p)
{
    char buf[512];
    snprintf(buf, sizeof(buf), "%s", opts);
    for (char *save = NULL, *kv = strtok_r(buf, ":", &save); kv; kv = strtok_r(NULL, ":", &save)) {
        char *eq = strchr(kv, '=');
        if (!eq)
            return -EINVAL;
        *eq = '\0';
        const char *k = kv, *val = eq + 1;
        if (!strcmp(k, "vif_enhn_gain_limit") || !strcmp(k, "egl"))
            p->enhn_gain_limit = strtod(val, NULL);
        else if (!strcmp(k, "vif_skip_scale0") || !strcmp(k, "ssclz"))
            p->skip_scale0 = !strcmp(val, "true");
        else if (strcmp(k, "debug"))
            return -EINVAL;
    }
    return 0;
}

/* Options a model gives its vif features (feature_opts_dicts), searched in
 * every model_dict of the file (bootstrap collections hold several). */
static void model_options(const json_t *j, VifParams *p)
{
    if (json_is_object(j)) {
        const json_t *names = json_object_get(j, "feature_names");
        const json_t *opts = json_object_get(j, "feature_opts_dicts");
        for (size_t i = 0; json_is_array(names) && i < json_array_size(names); i++) {
            const char *n = json_string_value(json_array_get(names, i));
            const json_t *o = json_array_get(opts, i);
            const json_t *egl = json_object_get(o, "vif_enhn_gain_limit");
            if (n && strstr(n, "vif") && json_is_number(egl))
                p->enhn_gain_limit = json_number_value(egl);
        }
        const char *key;
        json_t *val;
        json_object_foreach((json_t *)j, key, val) model_options(val, p);
    } else if (json_is_array(j)) {
        for (size_t i = 0; i < json_array_size(j); i++)
            model_options(json_array_get(j, i), p);
    }
}

static int run_params(const GoldenVector *v, unsigned run, const char *models, VifParams *p)
{
    *p = vmaf_vif_params_default();
    const char *opts = golden_run_feature(v, run, "vif");
    if (opts)
        return parse_options(opts, p);
    const char *model = golden_run_model(v, run);
    if (!model)
        return -ENOENT;
    char path[2048];
    snprintf(path, sizeof(path), "%s/%s", models, model);
    json_error_t e;
    json_t *m = json_load_file(path, 0, &e);
    if (!m) {
        fprintf(stderr, "cannot read model %s: %s\n", path, e.text);
        return -EIO;
    }
    model_options(m, p);
    json_decref(m);
    return 0;
}

/* The name suffix the reference appends for non-default options, sorted
 * by option name. */
static void name_suffix(const VifParams *p, char *out, size_t len)
{
    out[0] = '\0';
    if (p->enhn_gain_limit != VMAF_VIF_EGL_DEFAULT)
        snprintf(out, len, "_egl_%g", p->enhn_gain_limit);
    if (p->skip_scale0)
        snprintf(out + strlen(out), len - strlen(out), "_ssclz");
}

static bool has_vif_metric(const GoldenVector *v, unsigned run)
{
    for (unsigned i = 0; i < golden_metric_count(v, run); i++)
        if (!strncmp(golden_metric_name(v, run, i), "integer_vif", 11))
            return true;
    return false;
}

static void record(bool same, const GoldenVector *v, const char *run, unsigned frame,
                   const char *metric, double want, double got)
{
    if (same) {
        n_equal++;
        return;
    }
    if (n_differ++ < SHOW_DIFFS)
        printf("DIFF %s %s frame %u %s: golden %.17g, computed %.17g\n", v->id, run, frame,
               metric, want, got);
}

/* Compares every integer_vif* metric of one run's frame. */
static void compare_frame(const GoldenVector *v, const RunVif *rv, unsigned frame,
                          const VifScores *s)
{
    const char *run = golden_run_name(v, rv->run);
    const size_t sl = strlen(rv->suffix);
    for (unsigned i = 0; i < golden_metric_count(v, rv->run); i++) {
        const char *m = golden_metric_name(v, rv->run, i);
        if (strncmp(m, "integer_vif", 11) || !golden_metric_exact(v, rv->run, m))
            continue;
        double want = 0, got = 0;
        char base[128];
        const size_t ml = strlen(m);
        bool known = ml > sl && ml - sl < sizeof(base) && !strcmp(m + ml - sl, rv->suffix);
        if (known) {
            memcpy(base, m, ml - sl);
            base[ml - sl] = '\0';
            known = output_value(s, base, &got);
        }
        const int err = golden_frame_value(v, rv->run, frame, m, &want);
        record(known && err >= 0 && golden_same(want, got), v, run, frame, m, want, got);
    }
}

static bool same_scores(const VifScores *a, const VifScores *b)
{
    return !memcmp(a, b, sizeof(*a));
}

static int score_vector(const GoldenVector *v, const char *models)
{
    RunVif runs[MAX_RUNS];
    VifParams sets[VMAF_VIF_MAX_PARAMS];
    unsigned n_runs = 0, n_sets = 0;
    for (unsigned r = 0; r < golden_run_count(v) && n_runs < MAX_RUNS; r++) {
        VifParams p;
        if (!has_vif_metric(v, r) || run_params(v, r, models, &p))
            continue;
        unsigned k = 0;
        while (k < n_sets && (sets[k].enhn_gain_limit != p.enhn_gain_limit ||
                              sets[k].skip_scale0 != p.skip_scale0))
            k++;
        if (k == n_sets && n_sets == VMAF_VIF_MAX_PARAMS)
            return -E2BIG;
        if (k == n_sets)
            sets[n_sets++] = p;
        runs[n_runs].run = r;
        runs[n_runs].set = k;
        name_suffix(&p, runs[n_runs].suffix, sizeof(runs[n_runs].suffix));
        n_runs++;
    }
    const size_t bps = v->bpc > 8 ? 2 : 1, scratch_size = vmaf_vif_scratch_size(v->w, v->h);
    void *ref = malloc((size_t)v->w * v->h * bps), *dis = malloc((size_t)v->w * v->h * bps);
    void *scratch = malloc(scratch_size);
    const VifDsp *plain_c = vmaf_vif_dsp_variant(0);
    int err = ref && dis && scratch && plain_c ? 0 : -ENOMEM;
    for (unsigned fr = 0; !err && fr < v->frames; fr++) {
        VifScores all[VMAF_VIF_MAX_PARAMS], one;
        err = golden_read_luma(v, 0, fr, ref) ? -EIO : golden_read_luma(v, 1, fr, dis) ? -EIO : 0;
        if (!err)
            err = vmaf_vif_compute(ref, (ptrdiff_t)(v->w * bps), dis, (ptrdiff_t)(v->w * bps),
                                   v->w, v->h, v->bpc, sets, n_sets, scratch, scratch_size, all);
        for (unsigned k = 0; !err && k < n_sets; k++) {
            err = vmaf_vif_compute_dsp(plain_c, ref, (ptrdiff_t)(v->w * bps), dis,
                                       (ptrdiff_t)(v->w * bps), v->w, v->h, v->bpc, &sets[k], 1,
                                       scratch, scratch_size, &one);
            if (!err && !same_scores(&one, &all[k])) {
                printf("DIFF %s frame %u set %u: the shared pass (best kernels) differs from "
                       "the set alone (plain C kernels)\n", v->id, fr, k);
                n_differ++;
            }
        }
        for (unsigned r = 0; !err && r < n_runs; r++)
            compare_frame(v, &runs[r], fr, &all[runs[r].set]);
    }
    printf("%s %ux%u %u-bit: %u runs, %u parameter sets, %u frames\n", v->id, v->w, v->h,
           v->bpc, n_runs, n_sets, v->frames);
    free(ref);
    free(dis);
    free(scratch);
    return err;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: %s GOLDEN_JSON VECTOR_DIR MODELS_DIR\n", argv[0]);
        return 2;
    }
    VmafGolden *g;
    if (golden_open(argv[1], argv[2], &g))
        return 1;
    int err = 0;
    for (unsigned i = 0; !err && i < golden_vector_count(g); i++) {
        err = score_vector(golden_vector(g, i), argv[3]);
        if (err)
            fprintf(stderr, "vector %s: error %d\n", golden_vector(g, i)->id, err);
    }
    golden_close(g);
    printf("vif golden: %lu values equal, %lu differ\n", n_equal, n_differ);
    return err || n_differ || !n_equal ? 1 : 0;
}
