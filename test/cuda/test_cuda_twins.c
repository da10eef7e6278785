/*
 * Every device twin in the registry against its CPU extractor, through the
 * public calls a consumer makes: random geometries (odd, tiny, refused),
 * bit depths, pixel formats, picture memory, worker threads, subsampling
 * (a temporal twin still sees every frame) and option values drawn from
 * the CPU extractor's own option table. For each case a
 * context without CUDA state and one with it score the same frames, and
 *
 *  - the one with CUDA state uses the twin exactly when the twin's
 *    check_context() accepts the geometry and options, and otherwise the
 *    CPU extractor, with one warning naming the twin;
 *  - both return the same code for every frame and the flush;
 *  - every feature the CPU extractor can provide has, at every frame, the
 *    same bits in both, or is absent from both.
 *
 * Nothing here names a feature: a twin added to the registry is covered.
 *
 * Usage: test_cuda_twins [seed [cases]]   (exit 77 without a GPU)
 */
#include <inttypes.h>
#include <math.h>

#include "cuda_test.h"

#include "context.h"
#include "dict.h"
#include "feature/feature_extractor.h"
#include "registry.h"

#define FRAMES 5
#define MAX_FEATURES 32

/* What the log said during one context's life. */
typedef struct Log {
    char text[8192];
    size_t len;
    unsigned warnings;
} Log;

static void on_log(void *opaque, enum VmafLogLevel level, const char *message)
{
    Log *l = opaque;
    if (level == VMAF_LOG_LEVEL_WARNING)
        l->warnings++;
    const int n = snprintf(l->text + l->len, sizeof(l->text) - l->len, "%s\n", message);
    if (n > 0)
        l->len = l->len + (size_t)n < sizeof(l->text) ? l->len + (size_t)n : sizeof(l->text) - 1;
}

static const char *mem_name(enum PicMem m)
{
    static const char *const names[] = {"host", "pinned", "device", "device (odd rows)"};
    return names[m];
}

typedef struct Case {
    unsigned w, h, bpc, threads, subsample;
    enum VmafPixelFormat fmt;
    enum PicMem mem;
    char opts[256]; /* "k=v:k=v", for the messages */
} Case;

/* Random values for every option of the table, in the table's range, as a
 * dictionary and as text. Integers favour the ends of their range. */
static VmafFeatureDictionary *random_options(const VmafFeatureExtractor *fx, uint64_t *rng,
                                             char *text, size_t text_len)
{
    VmafFeatureDictionary *d = NULL;
    text[0] = '\0';
    size_t used = 0;
    for (const VmafOption *o = vmaf_fex_options(fx); o && o->name; o++) {
        if (rng_next(rng) % 3 == 0)
            continue; /* left at its default */
        char v[64];
        const uint64_t r = rng_next(rng);
        switch (o->type) {
        case VMAF_OPT_TYPE_BOOL: snprintf(v, sizeof(v), "%s", r & 1 ? "true" : "false"); break;
        case VMAF_OPT_TYPE_INT: {
            const long lo = (long)o->min, hi = (long)o->max;
            const long span = hi - lo + 1;
            long x = r % 4 == 0 ? lo : r % 4 == 1 ? hi : lo + (long)((r >> 2) % (uint64_t)span);
            snprintf(v, sizeof(v), "%ld", x);
            break;
        }
        case VMAF_OPT_TYPE_DOUBLE: {
            const double u = (double)(r >> 11) / 9007199254740992.0;
            const double x = isfinite(o->min) && isfinite(o->max) ? o->min + u * (o->max - o->min)
                                                                  : o->def.d;
            snprintf(v, sizeof(v), "%.17g", x);
            break;
        }
        }
        vmaf_feature_dictionary_set(&d, o->name, v);
        const int n = snprintf(text + used, text_len - used, "%s%s=%s", used ? ":" : "",
                               o->name, v);
        if (n > 0 && used + (size_t)n < text_len)
            used += (size_t)n;
    }
    if (!used)
        snprintf(text, text_len, "(defaults)");
    return d;
}

/* Whether the twin takes this case, by its own predicate. */
static bool twin_accepts(const VmafFeatureExtractor *twin, VmafFeatureDictionary *opts,
                         const Case *c)
{
    void *priv = calloc(1, twin->priv_size ? twin->priv_size : 1);
    char why[256] = "";
    const bool ok = priv && !vmaf_fex_parse_options(twin, priv, opts) &&
                    !twin->check_context(priv, c->w, c->h, c->bpc, why, sizeof(why));
    free(priv);
    return ok;
}

typedef struct Run {
    int use_err; /* vmaf_use_feature's: options the CPU extractor refuses */
    int read_err[FRAMES], flush_err;
    int got[MAX_FEATURES][FRAMES]; /* vmaf_feature_score_at_index's code */
    double score[MAX_FEATURES][FRAMES];
    const VmafFeatureExtractor *used; /* after the first frame, where known */
    Log log;
} Run;

static void score(const VmafFeatureExtractor *cpu, VmafFeatureDictionary *opts, const Case *c,
                  bool with_cuda, VmafPicture ref[FRAMES], VmafPicture dist[FRAMES], Run *out)
{
    memset(out, 0, sizeof(*out));
    VmafContext *ctx = NULL;
    VmafConfiguration cfg = {.log_level = VMAF_LOG_LEVEL_WARNING, .n_threads = c->threads,
                             .n_subsample = c->subsample};
    vmaf_set_log_callback(on_log, &out->log);
    int err = vmaf_init(&ctx, cfg);
    CHECK(!err, "vmaf_init (%d)", err);
    if (err) {
        vmaf_set_log_callback(NULL, NULL);
        return;
    }
    if (with_cuda) {
        /* One state a context: the context takes it and frees it. */
        VmafCudaState *cu = NULL;
        err = vmaf_cuda_state_init(&cu, (VmafCudaConfiguration){0});
        CHECK(!err, "vmaf_cuda_state_init (%d)", err);
        if (!err) {
            err = vmaf_cuda_import_state(ctx, cu);
            CHECK(!err, "vmaf_cuda_import_state (%d)", err);
        }
    }
    VmafFeatureDictionary *copy = NULL;
    err = vmaf_dict_copy(opts, &copy);
    CHECK(!err, "dictionary copy (%d)", err);
    out->use_err = vmaf_use_feature(ctx, cpu->name, copy);
    for (unsigned f = 0; f < FRAMES && !out->use_err; f++) {
        VmafPicture r, d;
        const bool dev = with_cuda && c->mem != MEM_HOST;
        int e1 = dev ? picture_in(c->mem, &ref[f], &r) : vmaf_picture_ref(&r, &ref[f]);
        int e2 = dev ? picture_in(c->mem, &dist[f], &d) : vmaf_picture_ref(&d, &dist[f]);
        CHECK(!e1 && !e2, "pictures in %s memory (%d, %d)", mem_name(c->mem), e1, e2);
        out->read_err[f] = vmaf_read_pictures(ctx, &r, &d, f);
        if (f == 0 && ctx->req_cnt == 1)
            out->used = ctx->req[0].use;
    }
    out->flush_err = out->use_err ? 0 : vmaf_read_pictures(ctx, NULL, NULL, 0);
    unsigned k = 0;
    for (const char *const *p = cpu->provided_features; p && *p && k < MAX_FEATURES; p++, k++)
        for (unsigned f = 0; f < FRAMES; f++)
            out->got[k][f] = vmaf_feature_score_at_index(ctx, *p, &out->score[k][f], f);
    vmaf_close(ctx);
    vmaf_set_log_callback(NULL, NULL);
}

static void describe(const VmafFeatureExtractor *twin, const Case *c, char *s, size_t n)
{
    static const char *const fmt[] = {"unknown", "420", "422", "444", "400"};
    snprintf(s, n, "%s %ux%u %u-bit %s, %s memory, %u threads, subsample %u, %s", twin->name,
             c->w, c->h, c->bpc, c->fmt <= VMAF_PIX_FMT_YUV400P ? fmt[c->fmt] : "?",
             mem_name(c->mem), c->threads, c->subsample, c->opts);
}

/* How often a twin's cases compared something: the CPU extractor scored
 * the first frame, and the twin did too. */
typedef struct Tally {
    unsigned cpu_scored, twin_scored;
} Tally;

static void run_case(const VmafFeatureExtractor *twin, const VmafFeatureExtractor *cpu,
                     uint64_t *rng, Tally *tally)
{
    static const unsigned depths[] = {8, 10, 12, 16};
    static const enum VmafPixelFormat fmts[] = {VMAF_PIX_FMT_YUV420P, VMAF_PIX_FMT_YUV422P,
                                                VMAF_PIX_FMT_YUV444P, VMAF_PIX_FMT_YUV400P};
    Case c = {0};
    const uint64_t pick = rng_next(rng) % 16;
    if (pick == 0) {
        c.w = 1920, c.h = 1080; /* an automatic scale above 1 */
    } else if (pick == 1) {
        c.w = 1 + (unsigned)(rng_next(rng) % 24), c.h = 1 + (unsigned)(rng_next(rng) % 24);
    } else {
        c.w = 11 + (unsigned)(rng_next(rng) % 500), c.h = 11 + (unsigned)(rng_next(rng) % 400);
    }
    c.bpc = depths[rng_next(rng) % 4];
    c.fmt = fmts[rng_next(rng) % 4];
    c.mem = (enum PicMem)(rng_next(rng) % 4);
    c.threads = rng_next(rng) % 3 == 0 ? 2 : 0;
    c.subsample = rng_next(rng) % 3 == 0 ? 2 : 1;
    VmafFeatureDictionary *opts = random_options(cpu, rng, c.opts, sizeof(c.opts));
    char what[512];
    describe(twin, &c, what, sizeof(what));

    VmafPicture ref[FRAMES], dist[FRAMES];
    bool ok = true;
    for (unsigned f = 0; f < FRAMES; f++) {
        const int e1 = vmaf_picture_alloc(&ref[f], c.fmt, c.bpc, c.w, c.h);
        const int e2 = vmaf_picture_alloc(&dist[f], c.fmt, c.bpc, c.w, c.h);
        CHECK(!e1 && !e2, "%s: vmaf_picture_alloc (%d, %d)", what, e1, e2);
        if (e1 || e2) {
            ok = false;
            if (!e1)
                vmaf_picture_unref(&ref[f]);
            if (!e2)
                vmaf_picture_unref(&dist[f]);
            for (unsigned g = 0; g < f; g++) {
                vmaf_picture_unref(&ref[g]);
                vmaf_picture_unref(&dist[g]);
            }
            break;
        }
        const int pat = (int)(rng_next(rng) % 4);
        fill_luma(&ref[f], pat, rng, NULL);
        fill_chroma(&ref[f], rng);
        fill_chroma(&dist[f], rng);
        /* 0-3 as the reference's patterns, 4 a distortion of it, 5 a copy
         * (identical frames). */
        const int dpat = (int)(rng_next(rng) % 6);
        if (dpat == 5)
            for (int j = 0; j < (ref[f].w[1] ? 3 : 1); j++)
                memcpy(dist[f].data[j], ref[f].data[j], (size_t)ref[f].stride[j] * ref[f].h[j]);
        else
            fill_luma(&dist[f], dpat, rng, &ref[f]);
    }
    if (!ok) {
        vmaf_feature_dictionary_free(&opts);
        return;
    }

    const bool accepts = twin_accepts(twin, opts, &c);
    Run *on_cpu = calloc(1, sizeof(Run)), *on_gpu = calloc(1, sizeof(Run));
    if (!on_cpu || !on_gpu) {
        CHECK(0, "%s: out of memory", what);
    } else {
        score(cpu, opts, &c, false, ref, dist, on_cpu);
        score(cpu, opts, &c, true, ref, dist, on_gpu);
        /* Options the CPU extractor refuses (an ADM viewing distance below
         * its range, say) are refused the same way with CUDA state. */
        CHECK(on_cpu->use_err == on_gpu->use_err,
              "%s: vmaf_use_feature returned %d on the CPU, %d with CUDA", what,
              on_cpu->use_err, on_gpu->use_err);
    }
    if (on_cpu && on_gpu && !on_cpu->use_err) {
        CHECK(on_cpu->used == cpu, "%s: the context without CUDA state used %s", what,
              on_cpu->used ? on_cpu->used->name : "nothing");
        CHECK(on_gpu->used == (accepts ? twin : cpu),
              "%s: the twin %s the case, and the context used %s", what,
              accepts ? "accepts" : "refuses", on_gpu->used ? on_gpu->used->name : "nothing");
        if (accepts) {
            CHECK(on_gpu->log.warnings == on_cpu->log.warnings,
                  "%s: the twin in use, and warnings the CPU context did not give: %s", what,
                  on_gpu->log.text);
        } else {
            CHECK(on_gpu->log.warnings == on_cpu->log.warnings + 1 &&
                      strstr(on_gpu->log.text, twin->name) &&
                      strstr(on_gpu->log.text, "cannot compute this input exactly"),
                  "%s: a refused twin warns once, by name: %s", what, on_gpu->log.text);
        }
        for (unsigned f = 0; f < FRAMES; f++)
            CHECK(on_cpu->read_err[f] == on_gpu->read_err[f],
                  "%s: frame %u: the CPU context returned %d, the CUDA one %d (%s)", what, f,
                  on_cpu->read_err[f], on_gpu->read_err[f], on_gpu->log.text);
        CHECK(on_cpu->flush_err == on_gpu->flush_err, "%s: flush: %d on the CPU, %d with CUDA",
              what, on_cpu->flush_err, on_gpu->flush_err);
        tally->cpu_scored += on_cpu->read_err[0] == 0;
        tally->twin_scored += accepts && on_gpu->read_err[0] == 0;
        unsigned k = 0;
        for (const char *const *p = cpu->provided_features; p && *p && k < MAX_FEATURES;
             p++, k++)
            for (unsigned f = 0; f < FRAMES; f++) {
                const bool same = on_cpu->got[k][f] == on_gpu->got[k][f] &&
                                  (on_cpu->got[k][f] ||
                                   !memcmp(&on_cpu->score[k][f], &on_gpu->score[k][f],
                                           sizeof(double)));
                CHECK(same, "%s: frame %u %s: CPU %.17g (%d), with CUDA %.17g (%d)", what, f,
                      *p, on_cpu->score[k][f], on_cpu->got[k][f], on_gpu->score[k][f],
                      on_gpu->got[k][f]);
            }
    }
    free(on_cpu);
    free(on_gpu);
    for (unsigned f = 0; f < FRAMES; f++) {
        vmaf_picture_unref(&ref[f]);
        vmaf_picture_unref(&dist[f]);
    }
    vmaf_feature_dictionary_free(&opts);
}

int main(int argc, char **argv)
{
    uint64_t seed = argc > 1 ? strtoull(argv[1], NULL, 0) : 0x7717a5c0ffee1234ull;
    const unsigned cases = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 0) : 60;
    if (!seed)
        seed = 1;
    /* Only to skip (or fail, where a GPU is required) on a machine without
     * one; released unused, the documented way, whose error line is
     * expected and not shown. */
    VmafCudaState *probe = cuda_test_state_or_skip("test_cuda_twins");
    Log quiet = {0};
    vmaf_set_log_callback(on_log, &quiet);
    CHECK(vmaf_cuda_import_state(NULL, probe) == -EINVAL, "releasing an unused state");
    vmaf_set_log_callback(NULL, NULL);
    unsigned twins = 0;
    for (size_t i = 0; i < vmaf_registry_count(); i++) {
        const VmafFeatureExtractor *twin = vmaf_registry_at(i);
        if (twin->backend == VMAF_FEX_BACKEND_CPU)
            continue;
        const VmafFeatureExtractor *cpu = vmaf_registry_cpu_of(twin);
        CHECK(cpu, "%s: no CPU extractor", twin->name);
        if (!cpu)
            continue;
        twins++;
        uint64_t rng = seed ^ (0x9e3779b97f4a7c15ull * (i + 1));
        Tally tally = {0};
        for (unsigned n = 0; n < cases; n++)
            run_case(twin, cpu, &rng, &tally);
        /* Most cases the CPU scores must be the twin's too: a twin that
         * refused them would make the comparisons CPU against CPU. And
         * enough cases must score at all (float_ms_ssim needs 176x176). */
        CHECK(tally.twin_scored >= tally.cpu_scored / 2 && tally.cpu_scored >= cases / 4,
              "%s: of %u cases the CPU extractor scored %u, the twin %u", twin->name, cases,
              tally.cpu_scored, tally.twin_scored);
        printf("%s: %u cases, %u scored by the CPU extractor, %u of them by the twin\n",
               twin->name, cases, tally.cpu_scored, tally.twin_scored);
    }
    CHECK(twins > 0, "no device twin in the registry of a CUDA build");
    printf("test_cuda_twins (seed 0x%" PRIx64 "): %d checks, %d failed\n", seed, check_count,
           check_failures);
    return check_failures ? 1 : 0;
}
