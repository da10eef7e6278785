/*
 * Golden parity of float_ssim through the public API only: every run of
 * golden.json (scores of the reference libvmaf, printed round-trip exact)
 * must give equal doubles per frame and pooled; every run marked "error"
 * must be refused. The 4:4:4 vectors are scored a second time as 4:2:0
 * (same luma, grey chroma): the scores must not change.
 *
 * Usage: test_ssim_parity <golden.json> <vector dir> [n_threads [c]]
 * With "c", the plain C inner loops are forced instead of the best SIMD
 * variant (the one internal call of this test; it needs the static library).
 */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libvmaf/libvmaf.h"

#include "feature/ssim/ssim.h"

typedef struct Vector {
    const char *id;
    unsigned w, h, fmt, bpc, frames;
    char ref[1024], dis[1024];
} Vector;

static unsigned n_threads;
static int mismatches;

/* "k=v:k=v" into a dictionary; a piece without '=' becomes a key with an
 * empty value so that the library, not this test, refuses it. */
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

static enum VmafPixelFormat pix_fmt_of(unsigned fmt)
{
    return fmt == 420   ? VMAF_PIX_FMT_YUV420P
           : fmt == 422 ? VMAF_PIX_FMT_YUV422P
           : fmt == 400 ? VMAF_PIX_FMT_YUV400P
                        : VMAF_PIX_FMT_YUV444P;
}

/* Size of one frame of the file (stored format). */
static size_t frame_bytes(const Vector *v)
{
    const size_t bps = v->bpc > 8 ? 2 : 1;
    const size_t cw = v->fmt == 444 ? v->w : (v->w + 1) / 2;
    const size_t ch = v->fmt == 420 ? (v->h + 1) / 2 : v->h;
    return ((size_t)v->w * v->h + 2 * cw * ch) * bps;
}

/* Reads frame `index` of a file into a picture of format `as_fmt` (420,
 * 422, 444, or 400 for luma only). The luma comes from the file; chroma too
 * when the formats agree, otherwise it is mid-grey (the feature reads luma
 * only). */
static int load_picture(const char *path, const Vector *v, unsigned index, unsigned as_fmt,
                        VmafPicture *pic)
{
    int err = vmaf_picture_alloc(pic, pix_fmt_of(as_fmt), v->bpc, v->w, v->h);
    if (err) {
        fprintf(stderr, "%s: vmaf_picture_alloc(%ux%u, %u-bit) failed: %d\n", v->id, v->w,
                v->h, v->bpc, err);
        return err;
    }
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "%s: cannot open %s (were the vectors decompressed?)\n", v->id, path);
        vmaf_picture_unref(pic);
        return -ENOENT;
    }
    const size_t bps = v->bpc > 8 ? 2 : 1;
    const size_t cw = v->fmt == 444 ? v->w : (v->w + 1) / 2;
    const size_t ch = v->fmt == 420 ? (v->h + 1) / 2 : v->h;
    int ok = fseek(f, (long)(frame_bytes(v) * index), SEEK_SET) == 0;
    for (int p = 0; p < 3 && ok; p++) {
        const size_t pw = p ? cw : v->w, ph = p ? ch : v->h;
        for (size_t y = 0; y < ph && ok; y++) {
            if (p == 0 || as_fmt == v->fmt) {
                char *row = (char *)pic->data[p] + (ptrdiff_t)y * pic->stride[p];
                ok = fread(row, bps, pw, f) == pw;
            } else {
                ok = fseek(f, (long)(pw * bps), SEEK_CUR) == 0;
            }
        }
    }
    fclose(f);
    if (!ok) {
        fprintf(stderr, "%s: short read in %s frame %u\n", v->id, path, index);
        vmaf_picture_unref(pic);
        return -EIO;
    }
    if (as_fmt != v->fmt && as_fmt != 400) {
        for (int p = 1; p < 3; p++)
            for (unsigned y = 0; y < pic->h[p]; y++) {
                char *row = (char *)pic->data[p] + (ptrdiff_t)y * pic->stride[p];
                for (unsigned x = 0; x < pic->w[p]; x++) {
                    if (v->bpc > 8)
                        ((uint16_t *)(void *)row)[x] = (uint16_t)(1u << (v->bpc - 1));
                    else
                        ((uint8_t *)row)[x] = 128;
                }
            }
    }
    return 0;
}

static int same_score(double got, json_t *want)
{
    if (json_is_null(want))
        return !isfinite(got); /* null: +inf or NaN, either is accepted */
    return json_is_number(want) && got == json_number_value(want);
}

static void report(const Vector *v, const char *opts, unsigned as_fmt, const char *what,
                   double got, json_t *want)
{
    char w[64];
    if (json_is_null(want))
        snprintf(w, sizeof(w), "null (non-finite)");
    else
        snprintf(w, sizeof(w), "%.17g", json_number_value(want));
    fprintf(stderr,
            "MISMATCH %s (%ux%u %up%u as %u, options \"%s\", %u thread(s)): %s: got %.17g, "
            "golden %s\n",
            v->id, v->w, v->h, v->fmt, v->bpc, as_fmt, opts, n_threads, what, got, w);
    mismatches++;
}

/* Runs one golden run. Returns 1 if it matched (score run) or was refused
 * (error run), 0 otherwise. */
static int run_one(const Vector *v, json_t *run, unsigned as_fmt)
{
    const char *opts = json_string_value(json_object_get(run, "options"));
    const int want_error = json_is_true(json_object_get(run, "error"));
    if (!opts)
        opts = "";
    const int before = mismatches;

    VmafConfiguration cfg = {.log_level = VMAF_LOG_LEVEL_ERROR, .n_threads = n_threads};
    VmafContext *ctx = NULL;
    int err = vmaf_init(&ctx, cfg);
    if (err) {
        fprintf(stderr, "%s: vmaf_init failed: %d\n", v->id, err);
        mismatches++;
        return 0;
    }
    VmafFeatureDictionary *dict = NULL;
    err = parse_options(opts, &dict);
    if (err) {
        fprintf(stderr, "%s: cannot build the option dictionary: %d\n", v->id, err);
        vmaf_feature_dictionary_free(&dict);
        vmaf_close(ctx);
        mismatches++;
        return 0;
    }
    int refused = vmaf_use_feature(ctx, "float_ssim", dict) < 0;
    for (unsigned i = 0; i < v->frames && !refused; i++) {
        VmafPicture ref, dis;
        if (load_picture(v->ref, v, i, as_fmt, &ref)) {
            mismatches++;
            break;
        }
        if (load_picture(v->dis, v, i, as_fmt, &dis)) {
            vmaf_picture_unref(&ref);
            mismatches++;
            break;
        }
        refused = vmaf_read_pictures(ctx, &ref, &dis, i) < 0;
    }
    if (!refused && mismatches == before)
        refused = vmaf_read_pictures(ctx, NULL, NULL, 0) < 0;

    if (want_error) {
        if (!refused) {
            fprintf(stderr, "NOT REFUSED %s (%ux%u, options \"%s\"): the reference emits NaN "
                            "or accepts a malformed option; we must refuse\n",
                    v->id, v->w, v->h, opts);
            mismatches++;
        }
        vmaf_close(ctx);
        return refused && mismatches == before;
    }
    if (refused) {
        fprintf(stderr, "REFUSED %s (%ux%u as %u, options \"%s\", %u thread(s)): a run with "
                        "golden scores failed\n",
                v->id, v->w, v->h, as_fmt, opts, n_threads);
        mismatches++;
        vmaf_close(ctx);
        return 0;
    }

    static const char *const all_features[] = {"float_ssim", "float_ssim_l", "float_ssim_c",
                                               "float_ssim_s"};
    json_t *frames = json_object_get(run, "frames");
    for (size_t i = 0; i < json_array_size(frames); i++) {
        json_t *fr = json_array_get(frames, i);
        for (size_t k = 0; k < 4; k++) {
            json_t *want = json_object_get(fr, all_features[k]);
            double got = NAN;
            int e = vmaf_feature_score_at_index(ctx, all_features[k], &got, (unsigned)i);
            char what[96];
            snprintf(what, sizeof(what), "frame %zu %s", i, all_features[k]);
            if (!want) {
                if (!e) {
                    fprintf(stderr, "UNEXPECTED %s options \"%s\": %s is present (%.17g)\n",
                            v->id, opts, what, got);
                    mismatches++;
                }
                continue;
            }
            if (e) {
                fprintf(stderr, "MISSING %s options \"%s\": %s: error %d\n", v->id, opts, what,
                        e);
                mismatches++;
            } else if (!same_score(got, want)) {
                report(v, opts, as_fmt, what, got, want);
            }
        }
    }

    static const struct { const char *name; enum VmafPoolingMethod m; } pools[] = {
        {"min", VMAF_POOL_METHOD_MIN},
        {"max", VMAF_POOL_METHOD_MAX},
        {"mean", VMAF_POOL_METHOD_MEAN},
        {"harmonic_mean", VMAF_POOL_METHOD_HARMONIC_MEAN},
    };
    json_t *pooled = json_object_get(run, "pooled");
    const char *feat;
    json_t *per;
    json_object_foreach(pooled, feat, per) {
        for (size_t p = 0; p < 4; p++) {
            json_t *want = json_object_get(per, pools[p].name);
            if (!want)
                continue;
            double got = NAN;
            int e = vmaf_feature_score_pooled(ctx, feat, pools[p].m, &got, 0,
                                              (unsigned)json_array_size(frames) - 1);
            char what[96];
            snprintf(what, sizeof(what), "pooled %s %s", feat, pools[p].name);
            if (e) {
                fprintf(stderr, "MISSING %s options \"%s\": %s: error %d\n", v->id, opts, what,
                        e);
                mismatches++;
            } else if (!same_score(got, want)) {
                report(v, opts, as_fmt, what, got, want);
            }
        }
    }
    vmaf_close(ctx);
    return mismatches == before;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s <golden.json> <vector dir> [n_threads]\n", argv[0]);
        return 2;
    }
    n_threads = argc > 3 ? (unsigned)atoi(argv[3]) : 0;
    if (argc > 4 && !strcmp(argv[4], "c") && vmaf_ssim_kernels_select(0)) {
        fprintf(stderr, "cannot select the plain C kernels\n");
        return 1;
    }
    json_error_t jerr;
    json_t *root = json_load_file(argv[1], 0, &jerr);
    if (!root) {
        fprintf(stderr, "cannot read %s: %s (line %d)\n", argv[1], jerr.text, jerr.line);
        return 1;
    }
    json_t *vectors = json_object_get(root, "vectors");
    unsigned runs = 0, equal = 0, errors = 0, refused = 0, again = 0, again_equal = 0;
    unsigned luma_equal = 0;
    for (size_t i = 0; i < json_array_size(vectors); i++) {
        json_t *jv = json_array_get(vectors, i);
        Vector v = {
            .id = json_string_value(json_object_get(jv, "id")),
            .w = (unsigned)json_integer_value(json_object_get(jv, "w")),
            .h = (unsigned)json_integer_value(json_object_get(jv, "h")),
            .fmt = (unsigned)json_integer_value(json_object_get(jv, "fmt")),
            .bpc = (unsigned)json_integer_value(json_object_get(jv, "bpc")),
            .frames = (unsigned)json_integer_value(json_object_get(jv, "frames")),
        };
        snprintf(v.ref, sizeof(v.ref), "%s/%s", argv[2],
                 json_string_value(json_object_get(jv, "ref")));
        snprintf(v.dis, sizeof(v.dis), "%s/%s", argv[2],
                 json_string_value(json_object_get(jv, "dis")));
        json_t *jruns = json_object_get(jv, "runs");
        for (size_t r = 0; r < json_array_size(jruns); r++) {
            json_t *run = json_array_get(jruns, r);
            const int is_error = json_is_true(json_object_get(run, "error"));
            const int ok = run_one(&v, run, v.fmt);
            if (is_error) {
                errors++;
                refused += ok;
            } else {
                runs++;
                equal += ok;
                /* The same luma as 4:2:0 must score the same (the reference
                 * tool cannot read odd 4:2:0, hence the 4:4:4 vectors). */
                if (v.fmt == 444) {
                    again++;
                    again_equal += run_one(&v, run, 420);
                }
                /* and as a luma-only (4:0:0) picture */
                luma_equal += run_one(&v, run, 400);
            }
        }
    }
    json_decref(root);
    printf("parity (%u thread(s), %s kernels): %u/%u runs equal, %u/%u refusals, "
           "4:4:4 as 4:2:0: %u/%u runs equal, as 4:0:0: %u/%u runs equal\n",
           n_threads, vmaf_ssim_kernels_name(), equal, runs, refused, errors, again_equal, again,
           luma_equal, runs);
    if (!runs || equal != runs || refused != errors || again_equal != again ||
        luma_equal != runs || mismatches) {
        printf("FAILED: %d mismatch(es)\n", mismatches);
        return 1;
    }
    return 0;
}
