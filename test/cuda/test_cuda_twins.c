/*
 * Every device twin in the registry against its CPU extractor, through the
 * public calls a consumer makes: random geometries (odd, tiny, refused),
 * bit depths, pixel formats, picture memory, worker threads, subsampling
 * (a temporal twin still sees every frame) and option values drawn from
 * the CPU extractor's own option table. Where the CPU extractor computes
 * several option sets in one pass (shares_pass: VMAF's and NEG's gain
 * limits), a case may ask for up to three such sets at once, which the
 * twin then computes in one pass too. For each case a
 * context without CUDA state and one with it score the same frames, and
 *
 *  - the one with CUDA state uses the twin exactly when the twin's
 *    check_context() accepts the geometry and options, and otherwise the
 *    CPU extractor, with one warning naming the twin;
 *  - both return the same code for every frame and the flush;
 *  - both group the same requests into one pass;
 *  - every score name the requests declare has, at every frame, the same
 *    bits in both, or is absent from both.
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
#define MAX_REQ 3 /* option sets a case asks for */
#define MAX_SCORES 96

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
    unsigned n_req;
    VmafFeatureDictionary *opts[MAX_REQ];
    char text[MAX_REQ * 256]; /* "k=v:k=v | k=v", for the messages */
} Case;

/* A random value of option o, in its range, as text. Integers favour the
 * ends of their range. */
static void random_value(const VmafOption *o, uint64_t *rng, char *v, size_t n)
{
    const uint64_t r = rng_next(rng);
    switch (o->type) {
    case VMAF_OPT_TYPE_BOOL: snprintf(v, n, "%s", r & 1 ? "true" : "false"); break;
    case VMAF_OPT_TYPE_INT: {
        const long lo = (long)o->min, hi = (long)o->max;
        const long span = hi - lo + 1;
        long x = r % 4 == 0 ? lo : r % 4 == 1 ? hi : lo + (long)((r >> 2) % (uint64_t)span);
        snprintf(v, n, "%ld", x);
        break;
    }
    case VMAF_OPT_TYPE_DOUBLE: {
        const double u = (double)(r >> 11) / 9007199254740992.0;
        const double x = isfinite(o->min) && isfinite(o->max) ? o->min + u * (o->max - o->min)
                                                              : o->def.d;
        snprintf(v, n, "%.17g", x);
        break;
    }
    }
}

/* Appends "name=value" (':'-separated) to text. */
static void append_text(char *text, size_t n, const char *name, const char *v)
{
    const size_t used = strlen(text);
    snprintf(text + used, n - used, "%s%s=%s", used && text[used - 1] != ' ' ? ":" : "", name,
             v);
}

/* Random values for every option of the table, as a dictionary, and as
 * text appended to text. */
static VmafFeatureDictionary *random_options(const VmafFeatureExtractor *fx, uint64_t *rng,
                                             char *text, size_t text_len)
{
    VmafFeatureDictionary *d = NULL;
    const size_t start = strlen(text);
    for (const VmafOption *o = vmaf_fex_options(fx); o && o->name; o++) {
        if (rng_next(rng) % 3 == 0)
            continue; /* left at its default */
        char v[64];
        random_value(o, rng, v, sizeof(v));
        vmaf_feature_dictionary_set(&d, o->name, v);
        append_text(text, text_len, o->name, v);
    }
    if (strlen(text) == start)
        snprintf(text + start, text_len - start, "(defaults)");
    return d;
}

/* Whether a and b parse to option sets that fx computes in one pass. */
static bool share_pass(const VmafFeatureExtractor *fx, VmafFeatureDictionary *a,
                       VmafFeatureDictionary *b)
{
    void *pa = calloc(1, fx->priv_size), *pb = calloc(1, fx->priv_size);
    const bool ok = pa && pb && !vmaf_fex_parse_options(fx, pa, a) &&
                    !vmaf_fex_parse_options(fx, pb, b) && fx->shares_pass(pa, pb);
    free(pa);
    free(pb);
    return ok;
}

/* Another option set of the case's first one that fx computes in the same
 * pass: one option drawn again, until it shares the pass (a gain limit,
 * for VMAF's extractors). Appended as " | k=v"; false if none was found. */
static bool add_shared_set(const VmafFeatureExtractor *fx, Case *c, uint64_t *rng)
{
    unsigned n_opts = 0;
    for (const VmafOption *o = vmaf_fex_options(fx); o && o->name; o++)
        n_opts++;
    for (int attempt = 0; attempt < 64 && n_opts; attempt++) {
        const VmafOption *o = &vmaf_fex_options(fx)[rng_next(rng) % n_opts];
        char v[64];
        random_value(o, rng, v, sizeof(v));
        VmafFeatureDictionary *d = NULL;
        if (vmaf_dict_copy(c->opts[0], &d) || vmaf_feature_dictionary_set(&d, o->name, v)) {
            vmaf_feature_dictionary_free(&d);
            return false;
        }
        if (share_pass(fx, c->opts[0], d)) {
            c->opts[c->n_req++] = d;
            const size_t used = strlen(c->text);
            snprintf(c->text + used, sizeof(c->text) - used, " | ");
            append_text(c->text, sizeof(c->text), o->name, v);
            return true;
        }
        vmaf_feature_dictionary_free(&d);
    }
    return false;
}

/* Whether the twin takes these options in this case, by its own
 * predicate. */
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
    unsigned n_req; /* the context's requests after the first frame */
    const VmafFeatureExtractor *used[MAX_REQ];
    bool follows[MAX_REQ];
    bool twin_accepts[MAX_REQ]; /* the request's options, merged as the context did */
    unsigned n_scores;
    char name[MAX_SCORES][96]; /* every score name the requests declare */
    int got[MAX_SCORES][FRAMES]; /* vmaf_feature_score_at_index's code */
    double score[MAX_SCORES][FRAMES];
    Log log;
} Run;

/* The context's requests after the first frame: backends, whether the
 * twin takes each, grouping and every score name they declare. */
static void record_requests(const VmafContext *ctx, const Case *c, Run *out)
{
    out->n_req = ctx->req_cnt < MAX_REQ ? ctx->req_cnt : MAX_REQ;
    for (unsigned i = 0; i < out->n_req; i++) {
        const VmafFeatureRequest *r = &ctx->req[i];
        const VmafFeatureExtractor *twin = vmaf_registry_twin(r->cpu, VMAF_FEX_BACKEND_CUDA);
        out->used[i] = r->use;
        out->follows[i] = r->follows;
        out->twin_accepts[i] = twin && twin_accepts(twin, r->opts, c);
        for (const char *const *p = r->cpu->provided_features; p && *p; p++)
            if (out->n_scores < MAX_SCORES && vmaf_request_emits_base(r, *p))
                vmaf_request_score_name(r, *p, out->name[out->n_scores++],
                                        sizeof(out->name[0]));
    }
}

static VmafContext *open_context(const Case *c, bool with_cuda, Log *log)
{
    VmafContext *ctx = NULL;
    VmafConfiguration cfg = {.log_level = VMAF_LOG_LEVEL_WARNING, .n_threads = c->threads,
                             .n_subsample = c->subsample};
    vmaf_set_log_callback(on_log, log);
    int err = vmaf_init(&ctx, cfg);
    CHECK(!err, "vmaf_init (%d)", err);
    if (err || !with_cuda)
        return err ? NULL : ctx;
    /* One state a context: the context takes it and frees it. */
    VmafCudaState *cu = NULL;
    err = vmaf_cuda_state_init(&cu, (VmafCudaConfiguration){0});
    CHECK(!err, "vmaf_cuda_state_init (%d)", err);
    if (!err) {
        err = vmaf_cuda_import_state(ctx, cu);
        CHECK(!err, "vmaf_cuda_import_state (%d)", err);
    }
    return ctx;
}

static void score(const VmafFeatureExtractor *cpu, const Case *c, bool with_cuda,
                  VmafPicture ref[FRAMES], VmafPicture dist[FRAMES], Run *out)
{
    memset(out, 0, sizeof(*out));
    VmafContext *ctx = open_context(c, with_cuda, &out->log);
    if (!ctx) {
        vmaf_set_log_callback(NULL, NULL);
        return;
    }
    for (unsigned k = 0; k < c->n_req && !out->use_err; k++) {
        VmafFeatureDictionary *copy = NULL;
        const int err = vmaf_dict_copy(c->opts[k], &copy);
        CHECK(!err, "dictionary copy (%d)", err);
        out->use_err = vmaf_use_feature(ctx, cpu->name, copy);
    }
    for (unsigned f = 0; f < FRAMES && !out->use_err; f++) {
        VmafPicture r, d;
        const bool dev = with_cuda && c->mem != MEM_HOST;
        int e1 = dev ? picture_in(c->mem, &ref[f], &r) : vmaf_picture_ref(&r, &ref[f]);
        int e2 = dev ? picture_in(c->mem, &dist[f], &d) : vmaf_picture_ref(&d, &dist[f]);
        CHECK(!e1 && !e2, "pictures in %s memory (%d, %d)", mem_name(c->mem), e1, e2);
        out->read_err[f] = vmaf_read_pictures(ctx, &r, &d, f);
        if (f == 0 && ctx->started)
            record_requests(ctx, c, out);
    }
    out->flush_err = out->use_err ? 0 : vmaf_read_pictures(ctx, NULL, NULL, 0);
    for (unsigned k = 0; k < out->n_scores; k++)
        for (unsigned f = 0; f < FRAMES; f++)
            out->got[k][f] = vmaf_feature_score_at_index(ctx, out->name[k], &out->score[k][f], f);
    vmaf_close(ctx);
    vmaf_set_log_callback(NULL, NULL);
}

static void describe(const VmafFeatureExtractor *twin, const Case *c, char *s, size_t n)
{
    static const char *const fmt[] = {"unknown", "420", "422", "444", "400"};
    snprintf(s, n, "%s %ux%u %u-bit %s, %s memory, %u threads, subsample %u, %s", twin->name,
             c->w, c->h, c->bpc, c->fmt <= VMAF_PIX_FMT_YUV400P ? fmt[c->fmt] : "?",
             mem_name(c->mem), c->threads, c->subsample, c->text);
}

/* How often a twin's cases compared something: the CPU extractor scored
 * the first frame, and the twin did too; and how many cases grouped
 * option sets into one pass. */
typedef struct Tally {
    unsigned cpu_scored, twin_scored, grouped;
} Tally;

/* A random geometry, picture memory, threading and option sets: one set,
 * or half the time (where the extractor shares passes) two or three
 * computed in one pass. */
static void make_case(const VmafFeatureExtractor *cpu, uint64_t *rng, Case *c)
{
    static const unsigned depths[] = {8, 10, 12, 16};
    static const enum VmafPixelFormat fmts[] = {VMAF_PIX_FMT_YUV420P, VMAF_PIX_FMT_YUV422P,
                                                VMAF_PIX_FMT_YUV444P, VMAF_PIX_FMT_YUV400P};
    memset(c, 0, sizeof(*c));
    const uint64_t pick = rng_next(rng) % 16;
    if (pick == 0) {
        c->w = 1920, c->h = 1080; /* an automatic scale above 1 */
    } else if (pick == 1) {
        c->w = 1 + (unsigned)(rng_next(rng) % 24), c->h = 1 + (unsigned)(rng_next(rng) % 24);
    } else {
        c->w = 11 + (unsigned)(rng_next(rng) % 500), c->h = 11 + (unsigned)(rng_next(rng) % 400);
    }
    c->bpc = depths[rng_next(rng) % 4];
    c->fmt = fmts[rng_next(rng) % 4];
    c->mem = (enum PicMem)(rng_next(rng) % 4);
    c->threads = rng_next(rng) % 3 == 0 ? 2 : 0;
    c->subsample = rng_next(rng) % 3 == 0 ? 2 : 1;
    c->opts[c->n_req++] = random_options(cpu, rng, c->text, sizeof(c->text));
    const unsigned more = cpu->shares_pass && rng_next(rng) % 2 ? 1 + rng_next(rng) % 2 : 0;
    for (unsigned k = 0; k < more && add_shared_set(cpu, c, rng); k++)
        continue;
}

static void free_case(Case *c)
{
    for (unsigned k = 0; k < c->n_req; k++)
        vmaf_feature_dictionary_free(&c->opts[k]);
}

/* Frames of random patterns: 0-3 as the reference's, 4 a distortion of
 * the reference, 5 a copy (identical frames). false if out of memory. */
static bool make_frames(const Case *c, uint64_t *rng, VmafPicture ref[FRAMES],
                        VmafPicture dist[FRAMES])
{
    for (unsigned f = 0; f < FRAMES; f++) {
        const int e1 = vmaf_picture_alloc(&ref[f], c->fmt, c->bpc, c->w, c->h);
        const int e2 = e1 ? -1 : vmaf_picture_alloc(&dist[f], c->fmt, c->bpc, c->w, c->h);
        CHECK(!e1 && !e2, "vmaf_picture_alloc (%d, %d)", e1, e2);
        if (e1 || e2) {
            if (!e1)
                vmaf_picture_unref(&ref[f]);
            for (unsigned g = 0; g < f; g++) {
                vmaf_picture_unref(&ref[g]);
                vmaf_picture_unref(&dist[g]);
            }
            return false;
        }
        fill_luma(&ref[f], (int)(rng_next(rng) % 4), rng, NULL);
        fill_chroma(&ref[f], rng);
        fill_chroma(&dist[f], rng);
        const int dpat = (int)(rng_next(rng) % 6);
        if (dpat == 5)
            for (int j = 0; j < (ref[f].w[1] ? 3 : 1); j++)
                memcpy(dist[f].data[j], ref[f].data[j], (size_t)ref[f].stride[j] * ref[f].h[j]);
        else
            fill_luma(&dist[f], dpat, rng, &ref[f]);
    }
    return true;
}

/* Each request on the twin exactly where the twin accepts its options,
 * one warning for each refused, and the same grouping into passes. */
static void compare_setup(const VmafFeatureExtractor *twin, const VmafFeatureExtractor *cpu,
                          const Run *on_cpu, const Run *on_gpu, const char *what)
{
    CHECK(on_cpu->n_req == on_gpu->n_req, "%s: %u requests on the CPU, %u with CUDA", what,
          on_cpu->n_req, on_gpu->n_req);
    unsigned refused = 0;
    for (unsigned i = 0; i < on_cpu->n_req && i < on_gpu->n_req; i++) {
        const bool accepts = on_gpu->twin_accepts[i];
        refused += !accepts;
        CHECK(on_cpu->used[i] == cpu, "%s: request %u: the context without CUDA state used %s",
              what, i, on_cpu->used[i] ? on_cpu->used[i]->name : "nothing");
        CHECK(on_gpu->used[i] == (accepts ? twin : cpu),
              "%s: request %u: the twin %s it, and the context used %s", what, i,
              accepts ? "accepts" : "refuses", on_gpu->used[i] ? on_gpu->used[i]->name : "nothing");
        CHECK(on_cpu->follows[i] == on_gpu->follows[i] || !accepts,
              "%s: request %u: %s a pass on the CPU, %s with CUDA", what, i,
              on_cpu->follows[i] ? "follows" : "leads", on_gpu->follows[i] ? "follows" : "leads");
    }
    CHECK(on_gpu->log.warnings == on_cpu->log.warnings + refused &&
              (!refused || (strstr(on_gpu->log.text, twin->name) &&
                            strstr(on_gpu->log.text, "cannot compute this input exactly"))),
          "%s: %u refusals, each warned once by name: %s", what, refused, on_gpu->log.text);
}

/* The same return codes, score names and score bits. */
static void compare_scores(const Run *on_cpu, const Run *on_gpu, const char *what)
{
    for (unsigned f = 0; f < FRAMES; f++)
        CHECK(on_cpu->read_err[f] == on_gpu->read_err[f],
              "%s: frame %u: the CPU context returned %d, the CUDA one %d (%s)", what, f,
              on_cpu->read_err[f], on_gpu->read_err[f], on_gpu->log.text);
    CHECK(on_cpu->flush_err == on_gpu->flush_err, "%s: flush: %d on the CPU, %d with CUDA",
          what, on_cpu->flush_err, on_gpu->flush_err);
    CHECK(on_cpu->n_scores == on_gpu->n_scores, "%s: %u score names on the CPU, %u with CUDA",
          what, on_cpu->n_scores, on_gpu->n_scores);
    for (unsigned k = 0; k < on_cpu->n_scores && k < on_gpu->n_scores; k++) {
        CHECK(!strcmp(on_cpu->name[k], on_gpu->name[k]), "%s: score %u named %s and %s", what,
              k, on_cpu->name[k], on_gpu->name[k]);
        for (unsigned f = 0; f < FRAMES; f++) {
            const bool same = on_cpu->got[k][f] == on_gpu->got[k][f] &&
                              (on_cpu->got[k][f] ||
                               !memcmp(&on_cpu->score[k][f], &on_gpu->score[k][f],
                                       sizeof(double)));
            CHECK(same, "%s: frame %u %s: CPU %.17g (%d), with CUDA %.17g (%d)", what, f,
                  on_cpu->name[k], on_cpu->score[k][f], on_cpu->got[k][f], on_gpu->score[k][f],
                  on_gpu->got[k][f]);
        }
    }
}

static void run_case(const VmafFeatureExtractor *twin, const VmafFeatureExtractor *cpu,
                     uint64_t *rng, Tally *tally)
{
    Case c;
    make_case(cpu, rng, &c);
    char what[1024];
    describe(twin, &c, what, sizeof(what));
    VmafPicture ref[FRAMES], dist[FRAMES];
    Run *on_cpu = calloc(1, sizeof(Run)), *on_gpu = calloc(1, sizeof(Run));
    const bool frames = make_frames(&c, rng, ref, dist);
    CHECK(on_cpu && on_gpu, "%s: out of memory", what);
    if (frames && on_cpu && on_gpu) {
        score(cpu, &c, false, ref, dist, on_cpu);
        score(cpu, &c, true, ref, dist, on_gpu);
        /* Options the CPU extractor refuses (an ADM viewing distance below
         * its range, say) are refused the same way with CUDA state. */
        CHECK(on_cpu->use_err == on_gpu->use_err,
              "%s: vmaf_use_feature returned %d on the CPU, %d with CUDA", what,
              on_cpu->use_err, on_gpu->use_err);
        if (!on_cpu->use_err) {
            compare_setup(twin, cpu, on_cpu, on_gpu, what);
            compare_scores(on_cpu, on_gpu, what);
            const bool accepts = on_gpu->twin_accepts[0];
            tally->cpu_scored += on_cpu->read_err[0] == 0;
            tally->twin_scored += accepts && on_gpu->read_err[0] == 0;
            tally->grouped += accepts && on_gpu->n_req > 1 && on_gpu->follows[1] &&
                              on_gpu->read_err[0] == 0;
        }
    }
    if (frames)
        for (unsigned f = 0; f < FRAMES; f++) {
            vmaf_picture_unref(&ref[f]);
            vmaf_picture_unref(&dist[f]);
        }
    free(on_cpu);
    free(on_gpu);
    free_case(&c);
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
        /* An extractor that shares passes must have had its twin do so. */
        CHECK(!cpu->shares_pass || tally.grouped >= cases / 30,
              "%s: only %u of %u cases computed option sets in one pass", twin->name,
              tally.grouped, cases);
        printf("%s: %u cases, %u scored by the CPU extractor, %u of them by the twin, %u with "
               "option sets in one pass\n",
               twin->name, cases, tally.cpu_scored, tally.twin_scored, tally.grouped);
    }
    CHECK(twins > 0, "no device twin in the registry of a CUDA build");
    printf("test_cuda_twins (seed 0x%" PRIx64 "): %d checks, %d failed\n", seed, check_count,
           check_failures);
    return check_failures ? 1 : 0;
}
