#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vmaf_golden.h"

struct VmafGolden {
    json_t *root;
    GoldenVector *vec;
    unsigned n;
};

static unsigned uint_of(const json_t *obj, const char *key)
{
    const json_t *j = json_object_get(obj, key);
    return json_is_integer(j) ? (unsigned)json_integer_value(j) : 0;
}

static const char *str_of(const json_t *obj, const char *key)
{
    const json_t *j = json_object_get(obj, key);
    return json_is_string(j) ? json_string_value(j) : NULL;
}

int golden_open(const char *json_path, const char *vector_dir, VmafGolden **out)
{
    json_error_t e;
    *out = NULL;
    json_t *root = json_load_file(json_path, 0, &e);
    if (!root) {
        fprintf(stderr, "golden: %s:%d: %s\n", json_path, e.line, e.text);
        return -EINVAL;
    }
    const json_t *vs = json_object_get(root, "vectors");
    VmafGolden *g = calloc(1, sizeof(*g));
    if (!g || !json_is_array(vs)) {
        fprintf(stderr, "golden: %s: no vectors array (or out of memory)\n", json_path);
        free(g);
        json_decref(root);
        return -EINVAL;
    }
    g->root = root;
    g->n = (unsigned)json_array_size(vs);
    g->vec = calloc(g->n ? g->n : 1, sizeof(*g->vec));
    if (!g->vec) {
        golden_close(g);
        return -ENOMEM;
    }
    for (unsigned i = 0; i < g->n; i++) {
        const json_t *jv = json_array_get(vs, i);
        GoldenVector *v = &g->vec[i];
        v->json = jv;
        v->id = str_of(jv, "id");
        v->w = uint_of(jv, "w");
        v->h = uint_of(jv, "h");
        v->fmt = uint_of(jv, "fmt");
        v->bpc = uint_of(jv, "bpc");
        v->frames = uint_of(jv, "frames");
        const char *ref = str_of(jv, "ref"), *dis = str_of(jv, "dis");
        if (!v->id || !ref || !dis || !v->w || !v->h || !v->frames) {
            fprintf(stderr, "golden: %s: vector %u is incomplete\n", json_path, i);
            golden_close(g);
            return -EINVAL;
        }
        snprintf(v->ref_path, sizeof(v->ref_path), "%s/%s", vector_dir, ref);
        snprintf(v->dis_path, sizeof(v->dis_path), "%s/%s", vector_dir, dis);
    }
    *out = g;
    return 0;
}

void golden_close(VmafGolden *g)
{
    if (!g)
        return;
    json_decref(g->root);
    free(g->vec);
    free(g);
}

unsigned golden_vector_count(const VmafGolden *g)
{
    return g->n;
}

const GoldenVector *golden_vector(const VmafGolden *g, unsigned i)
{
    return i < g->n ? &g->vec[i] : NULL;
}

size_t golden_frame_bytes(const GoldenVector *v)
{
    const size_t bps = v->bpc > 8 ? 2 : 1;
    const size_t cw = v->fmt == 444 ? v->w : (v->w + 1) / 2;
    const size_t ch = v->fmt == 420 ? (v->h + 1) / 2 : v->h;
    return ((size_t)v->w * v->h + 2 * cw * ch) * bps;
}

int golden_read_luma(const GoldenVector *v, int which, unsigned frame, void *buf)
{
    const char *path = which ? v->dis_path : v->ref_path;
    FILE *f = fopen(path, "rb");
    if (!f) {
        const int err = errno ? errno : EIO; /* fprintf may change errno */
        fprintf(stderr, "golden: cannot open %s: %s\n", path, strerror(err));
        return -err;
    }
    const size_t bytes = (size_t)v->w * v->h * (v->bpc > 8 ? 2 : 1);
    int err = 0;
    if (fseeko(f, (off_t)golden_frame_bytes(v) * frame, SEEK_SET) ||
        fread(buf, 1, bytes, f) != bytes) {
        fprintf(stderr, "golden: %s: cannot read frame %u\n", path, frame);
        err = -EIO;
    }
    fclose(f);
    if (!err && v->bpc > 8) { /* the files are little-endian */
        uint8_t *b = buf;
        uint16_t *s = buf;
        for (size_t i = 0; i < (size_t)v->w * v->h; i++)
            s[i] = (uint16_t)(b[2 * i] | b[2 * i + 1] << 8);
    }
    return err;
}

static const json_t *run_of(const GoldenVector *v, unsigned run)
{
    return json_array_get(json_object_get(v->json, "runs"), run);
}

unsigned golden_run_count(const GoldenVector *v)
{
    return (unsigned)json_array_size(json_object_get(v->json, "runs"));
}

const char *golden_run_name(const GoldenVector *v, unsigned run)
{
    return str_of(run_of(v, run), "name");
}

unsigned golden_run_argc(const GoldenVector *v, unsigned run)
{
    return (unsigned)json_array_size(json_object_get(run_of(v, run), "args"));
}

const char *golden_run_arg(const GoldenVector *v, unsigned run, unsigned i)
{
    const json_t *a = json_array_get(json_object_get(run_of(v, run), "args"), i);
    return json_is_string(a) ? json_string_value(a) : NULL;
}

const char *golden_run_feature(const GoldenVector *v, unsigned run, const char *fex)
{
    const size_t len = strlen(fex);
    const unsigned n = golden_run_argc(v, run);
    for (unsigned i = 0; i + 1 < n; i++) {
        if (strcmp(golden_run_arg(v, run, i), "--feature"))
            continue;
        const char *a = golden_run_arg(v, run, i + 1);
        if (!strncmp(a, fex, len) && (a[len] == '\0' || a[len] == '='))
            return a[len] ? a + len + 1 : a + len;
    }
    return NULL;
}

const char *golden_run_model(const GoldenVector *v, unsigned run)
{
    const unsigned n = golden_run_argc(v, run);
    for (unsigned i = 0; i + 1 < n; i++) {
        if (strcmp(golden_run_arg(v, run, i), "-m"))
            continue;
        const char *a = golden_run_arg(v, run, i + 1);
        const char *slash = strrchr(a, '/');
        return slash ? slash + 1 : a;
    }
    return NULL;
}

bool golden_metric_exact(const GoldenVector *v, unsigned run, const char *metric)
{
    const json_t *r = run_of(v, run);
    if (json_is_true(json_object_get(r, "exact")))
        return true;
    const json_t *in = json_object_get(r, "inexact_metrics");
    for (size_t i = 0; i < json_array_size(in); i++) {
        const char *m = json_string_value(json_array_get(in, i));
        if (m && (!strcmp(m, metric) || !strcmp(m, "(all)")))
            return false;
    }
    return true;
}

unsigned golden_metric_count(const GoldenVector *v, unsigned run)
{
    const json_t *f0 = json_array_get(json_object_get(run_of(v, run), "frames"), 0);
    return (unsigned)json_object_size(f0);
}

const char *golden_metric_name(const GoldenVector *v, unsigned run, unsigned i)
{
    const json_t *f0 = json_array_get(json_object_get(run_of(v, run), "frames"), 0);
    unsigned k = 0;
    const char *key;
    json_t *val;
    json_object_foreach((json_t *)f0, key, val) {
        if (k++ == i)
            return key;
    }
    return NULL;
}

static int value_of(const json_t *j, double *out)
{
    if (json_is_null(j)) {
        *out = NAN;
        return 1;
    }
    if (!json_is_number(j))
        return -ENOENT;
    *out = json_number_value(j);
    return 0;
}

int golden_frame_value(const GoldenVector *v, unsigned run, unsigned frame, const char *metric,
                       double *out)
{
    const json_t *f = json_array_get(json_object_get(run_of(v, run), "frames"), frame);
    return value_of(json_object_get(f, metric), out);
}

int golden_pooled_value(const GoldenVector *v, unsigned run, const char *metric,
                        const char *method, double *out)
{
    const json_t *p = json_object_get(json_object_get(run_of(v, run), "pooled"), metric);
    return value_of(json_object_get(p, method), out);
}

bool golden_same(double a, double b)
{
    return (isnan(a) && isnan(b)) || !memcmp(&a, &b, sizeof(a));
}
