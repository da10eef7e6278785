/*
 * Golden parity of VMAF through the public API: every run of
 * golden_vmaf.json (libvmaf 3.2 on its C path, printed %.17g) is scored
 * with the run's features and models, and every per-frame and pooled value
 * the reference printed must come out as the same double. Values the data
 * marks inexact (the reference's own overflow) must be finite here.
 *
 * Usage: test_vmaf_parity <golden.json> <vector dir> <model dir>
 *                         [n_threads [simd|c]] [vector ids]
 * "c" keeps the run's --cpumask (the C kernels), "simd" clears it: both
 * must give the golden values. Vector ids, comma-separated ("v02,v10"),
 * limit the runs to those vectors (the sanitizer stages' quick subset).
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libvmaf/libvmaf.h"
#include "libvmaf/model.h"

#include "vmaf_golden.h"

typedef struct Setup {
    unsigned n_threads;
    bool simd;
    const char *model_dir;
} Setup;

typedef struct Tally {
    unsigned runs, equal, differ, finite_checked;
} Tally;

static enum VmafPixelFormat pix_fmt_of(unsigned fmt)
{
    return fmt == 420 ? VMAF_PIX_FMT_YUV420P
           : fmt == 422 ? VMAF_PIX_FMT_YUV422P : VMAF_PIX_FMT_YUV444P;
}

/* "k=v:k=v" into a dictionary. */
static int parse_options(const char *text, VmafFeatureDictionary **dict)
{
    char *copy = strdup(text), *save = NULL;
    if (!copy)
        return -ENOMEM;
    int err = 0;
    for (char *kv = strtok_r(copy, ":", &save); kv && !err; kv = strtok_r(NULL, ":", &save)) {
        char *eq = strchr(kv, '=');
        if (eq)
            *eq = '\0';
        err = vmaf_feature_dictionary_set(dict, kv, eq ? eq + 1 : "");
    }
    free(copy);
    return err;
}

typedef struct Models {
    VmafModel *model;
    VmafModelCollection *coll;
} Models;

/* The run's arguments into the context: --feature, -m path=..., --cpumask. */
static int use_run(VmafContext *vmaf, const GoldenVector *v, unsigned run, const Setup *s,
                   Models *m)
{
    const unsigned argc = golden_run_argc(v, run);
    for (unsigned i = 0; i + 1 < argc; i++) {
        const char *a = golden_run_arg(v, run, i), *b = golden_run_arg(v, run, i + 1);
        int err = 0;
        if (!strcmp(a, "--feature")) {
            VmafFeatureDictionary *d = NULL;
            const char *eq = strchr(b, '=');
            char name[64];
            snprintf(name, sizeof(name), "%.*s", (int)(eq ? eq - b : (long)strlen(b)), b);
            err = eq ? parse_options(eq + 1, &d) : 0;
            if (!err)
                err = vmaf_use_feature(vmaf, name, d);
        } else if (!strcmp(a, "-m")) {
            char path[1024];
            snprintf(path, sizeof(path), "%s/%s", s->model_dir, golden_run_model(v, run));
            VmafModelConfig cfg = { .name = "vmaf" };
            if (!strcmp(golden_run_name(v, run), "vmaf_b_v0.6.3")) {
                err = vmaf_model_collection_load_from_path(&m->model, &m->coll, &cfg, path);
                if (!err)
                    err = vmaf_use_features_from_model_collection(vmaf, m->coll);
            } else {
                err = vmaf_model_load_from_path(&m->model, &cfg, path);
                if (!err)
                    err = vmaf_use_features_from_model(vmaf, m->model);
            }
        }
        if (err) {
            fprintf(stderr, "%s %s: %s %s refused (%d)\n", v->id, golden_run_name(v, run), a,
                    b, err);
            return err;
        }
    }
    return 0;
}

static unsigned run_cpumask(const GoldenVector *v, unsigned run, const Setup *s)
{
    const unsigned argc = golden_run_argc(v, run);
    for (unsigned i = 0; !s->simd && i + 1 < argc; i++)
        if (!strcmp(golden_run_arg(v, run, i), "--cpumask"))
            return (unsigned)strtoul(golden_run_arg(v, run, i + 1), NULL, 0);
    return 0;
}

static int read_frames(VmafContext *vmaf, const GoldenVector *v)
{
    const size_t bps = v->bpc > 8 ? 2 : 1;
    void *luma = malloc((size_t)v->w * v->h * bps);
    int err = luma ? 0 : -ENOMEM;
    for (unsigned f = 0; !err && f < v->frames; f++) {
        VmafPicture pic[2];
        for (int k = 0; k < 2 && !err; k++) {
            err = vmaf_picture_alloc(&pic[k], pix_fmt_of(v->fmt), v->bpc, v->w, v->h);
            if (!err)
                err = golden_read_luma(v, k, f, luma);
            for (unsigned y = 0; !err && y < v->h; y++)
                memcpy((char *)pic[k].data[0] + y * pic[k].stride[0],
                       (const char *)luma + (size_t)y * v->w * bps, (size_t)v->w * bps);
        }
        if (!err)
            err = vmaf_read_pictures(vmaf, &pic[0], &pic[1], f);
    }
    free(luma);
    return err ? err : vmaf_read_pictures(vmaf, NULL, NULL, 0);
}

/* Model scores are stored into the context when they are asked for. */
static int predict(VmafContext *vmaf, const GoldenVector *v, const Models *m)
{
    for (unsigned f = 0; f < v->frames; f++) {
        int err = 0;
        if (m->coll) {
            VmafModelCollectionScore cs;
            err = vmaf_score_at_index_model_collection(vmaf, m->coll, &cs, f);
        } else if (m->model) {
            double s;
            err = vmaf_score_at_index(vmaf, m->model, &s, f);
        }
        if (err)
            return err;
    }
    return 0;
}

static void compare(const GoldenVector *v, unsigned run, const char *what, const char *metric,
                    double got, int have, double want, Tally *t)
{
    if (!golden_metric_exact(v, run, metric)) {
        /* The reference overflows here; this library gives a finite value. */
        t->finite_checked++;
        if (have || !isfinite(got)) {
            t->differ++;
            fprintf(stderr, "%s %s %s %s: %.17g is not finite (or missing)\n", v->id,
                    golden_run_name(v, run), what, metric, got);
        }
        return;
    }
    if (!have && golden_same(got, want)) {
        t->equal++;
        return;
    }
    if (t->differ++ < 40)
        fprintf(stderr, "%s %s %s %s: got %.17g, want %.17g%s\n", v->id, golden_run_name(v, run),
                what, metric, got, want, have ? " (no score)" : "");
}

static void check_values(VmafContext *vmaf, const GoldenVector *v, unsigned run, Tally *t)
{
    static const char *const method[] = { "min", "max", "mean", "harmonic_mean" };
    static const enum VmafPoolingMethod pm[] = { VMAF_POOL_METHOD_MIN, VMAF_POOL_METHOD_MAX,
                                                 VMAF_POOL_METHOD_MEAN,
                                                 VMAF_POOL_METHOD_HARMONIC_MEAN };
    for (unsigned k = 0; k < golden_metric_count(v, run); k++) {
        const char *metric = golden_metric_name(v, run, k);
        for (unsigned f = 0; f < v->frames; f++) {
            double want, got = NAN;
            char what[32];
            snprintf(what, sizeof(what), "frame %u", f);
            if (golden_frame_value(v, run, f, metric, &want) < 0)
                continue;
            const int miss = vmaf_feature_score_at_index(vmaf, metric, &got, f);
            compare(v, run, what, metric, got, miss, want, t);
        }
        for (int p = 0; p < 4; p++) {
            double want, got = NAN;
            if (golden_pooled_value(v, run, metric, method[p], &want) < 0)
                continue;
            const int miss = vmaf_feature_score_pooled(vmaf, metric, pm[p], &got, 0,
                                                       v->frames - 1);
            compare(v, run, method[p], metric, got, miss, want, t);
        }
    }
}

static int score_run(const GoldenVector *v, unsigned run, const Setup *s, Tally *t)
{
    VmafConfiguration cfg = { .log_level = VMAF_LOG_LEVEL_WARNING,
                              .n_threads = s->n_threads,
                              .cpumask = run_cpumask(v, run, s) };
    VmafContext *vmaf = NULL;
    Models m = { 0 };
    int err = vmaf_init(&vmaf, cfg);
    if (!err)
        err = use_run(vmaf, v, run, s, &m);
    if (!err)
        err = read_frames(vmaf, v);
    if (!err)
        err = predict(vmaf, v, &m);
    if (!err)
        check_values(vmaf, v, run, t);
    else
        t->differ++;
    vmaf_close(vmaf);
    vmaf_model_collection_destroy(m.coll);
    vmaf_model_destroy(m.model);
    t->runs++;
    return err;
}

/* Whether id is one of the comma-separated ids of list (NULL: all). */
static bool listed(const char *list, const char *id)
{
    const size_t n = strlen(id);
    for (const char *p = list; p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
        if (!strncmp(p, id, n) && (p[n] == ',' || p[n] == '\0'))
            return true;
    return !list;
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: %s golden.json vector_dir model_dir [threads [simd|c]] [id,id...]\n",
                argv[0]);
        return 2;
    }
    const Setup s = { .n_threads = argc > 4 ? (unsigned)atoi(argv[4]) : 0,
                      .simd = argc > 5 && !strcmp(argv[5], "simd"),
                      .model_dir = argv[3] };
    const char *only = argc > 6 ? argv[6] : NULL;
    VmafGolden *g;
    if (golden_open(argv[1], argv[2], &g))
        return 1;
    Tally t = { 0 };
    for (unsigned i = 0; i < golden_vector_count(g); i++) {
        const GoldenVector *v = golden_vector(g, i);
        if (!listed(only, v->id))
            continue;
        for (unsigned r = 0; r < golden_run_count(v); r++)
            score_run(v, r, &s, &t);
    }
    golden_close(g);
    printf("vmaf parity (%u threads, %s kernels): %u runs, %u values equal, %u differ, %u "
           "inexact in the reference checked finite\n",
           s.n_threads, s.simd ? "best" : "the runs' cpumask", t.runs, t.equal, t.differ,
           t.finite_checked);
    return t.differ || !t.runs ? 1 : 0;
}
