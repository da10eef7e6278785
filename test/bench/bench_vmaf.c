/*
 * VMAF CPU benchmark through the public API: ms per frame of the model
 * vmaf_v0.6.1 and of vmaf_v0.6.1 + vmaf_v0.6.1neg together, and of each of
 * motion, vif and adm alone (their share), at 576x324, 1920x1080 and
 * 3840x2160, 8 and 10 bit, scored in the caller (1 thread) and by
 * n_threads = nproc workers. Frames are synthetic textures in memory.
 * Each figure is the fastest of --repeat rounds (default 3) that take
 * every job in turn, so that a busy shared machine, whose disturbance only
 * ever adds time, sways the table and its ratios less. With --cuda the
 * context has CUDA state, so the extractors with a GPU twin run there
 * (wall time in every column; exit 77 without a usable GPU). With
 * --features a,b the table is instead a row a spec, 1 thread and N
 * threads, at the same sizes: a spec is a feature ("name" or
 * "name=opt=value:opt=value"), or several joined by '+' into one run,
 * where "vmaf" and "vmaf_neg" stand for those models. --e2e
 * times the twins' steady state (start-up excluded) at 1080p and 4K from
 * host pictures and from the context's pinned pool, of VMAF and VMAF +
 * NEG or of the --features specs.
 *
 * Usage: bench_vmaf [--quick] [--frames-scale F] [--repeat R] [--threads N]
 *                   [--cpumask M] [--size WxH] [--bpc 8|10] [--cuda] [--features a,b] [--e2e]
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libvmaf/libvmaf.h"
#include "libvmaf/libvmaf_cuda.h"
#include "libvmaf/model.h"

#include "bench_source.h"

#define MAX_FEATURES 16 /* --features */

typedef enum Job { JOB_VMAF, JOB_VMAF_NEG, JOB_MOTION, JOB_VIF, JOB_ADM, N_JOBS } Job;

typedef struct Run {
    Job job;
    const char *feature; /* instead of the job: a feature spec (use_spec) */
    unsigned threads;
    unsigned cpumask;
    unsigned frames;
    int cuda;
} Run;

/* Loads model m (0 vmaf_v0.6.1 as "vmaf", 1 vmaf_v0.6.1neg as "vmaf_neg")
 * and asks the context for its features. */
static int use_model(VmafContext *ctx, int m, VmafModel *models[2])
{
    static const char *const version[2] = { "vmaf_v0.6.1", "vmaf_v0.6.1neg" };
    VmafModelConfig cfg = { .name = m ? "vmaf_neg" : "vmaf" };
    int err = vmaf_model_load(&models[m], &cfg, version[m]);
    return err ? err : vmaf_use_features_from_model(ctx, models[m]);
}

/* One feature "name" or "name=opt=value:opt=value". */
static int use_one(VmafContext *ctx, char *spec)
{
    char *opts = strchr(spec, '=');
    VmafFeatureDictionary *d = NULL;
    if (opts) {
        *opts++ = '\0';
        char *save = NULL;
        for (char *kv = strtok_r(opts, ":", &save); kv; kv = strtok_r(NULL, ":", &save)) {
            char *v = strchr(kv, '=');
            if (!v || vmaf_feature_dictionary_set(&d, kv, (*v = '\0', v + 1))) {
                vmaf_feature_dictionary_free(&d);
                return -EINVAL;
            }
        }
    }
    return vmaf_use_feature(ctx, spec, d);
}

/* A spec: features or the models "vmaf" and "vmaf_neg", joined by '+'
 * into one set (the AOM CTC preset's, say). */
static int use_spec(VmafContext *ctx, const char *spec, VmafModel *models[2])
{
    char buf[512];
    if (strlen(spec) >= sizeof(buf))
        return -EINVAL;
    strcpy(buf, spec);
    int err = 0;
    char *save = NULL;
    for (char *f = strtok_r(buf, "+", &save); f && !err; f = strtok_r(NULL, "+", &save))
        err = !strcmp(f, "vmaf")       ? use_model(ctx, 0, models)
              : !strcmp(f, "vmaf_neg") ? use_model(ctx, 1, models)
                                       : use_one(ctx, f);
    return err;
}

/* Asks the context for what the job scores; the models are returned for
 * the caller to free after vmaf_close(). */
static int use_job(VmafContext *ctx, const Run *r, VmafModel *models[2])
{
    if (r->feature)
        return use_spec(ctx, r->feature, models);
    const Job job = r->job;
    static const char *const feature[N_JOBS] = { NULL, NULL, "motion", "vif", "adm" };
    if (feature[job])
        return vmaf_use_feature(ctx, feature[job], NULL);
    int err = 0;
    for (int m = 0; m < (job == JOB_VMAF_NEG ? 2 : 1) && !err; m++)
        err = use_model(ctx, m, models);
    return err;
}

/* A context scoring the run's job (with CUDA state for r->cuda); on
 * failure *ctx is NULL or to be closed. */
static int open_job(VmafContext **ctx, const Run *r, VmafModel *models[2])
{
    VmafConfiguration cfg = { .log_level = VMAF_LOG_LEVEL_ERROR, .n_threads = r->threads,
                              .cpumask = r->cpumask };
    *ctx = NULL;
    int err = vmaf_init(ctx, cfg);
    if (!err && r->cuda) {
        VmafCudaState *cu = NULL;
        err = vmaf_cuda_state_init(&cu, (VmafCudaConfiguration){ 0 });
        if (!err)
            err = vmaf_cuda_import_state(*ctx, cu);
    }
    if (!err)
        err = use_job(*ctx, r, models);
    if (err)
        fprintf(stderr, "bench_vmaf: cannot set up %s: %s\n",
                r->feature ? r->feature : "the job", strerror(-err));
    return err;
}

/* Mean ms per frame through the library, or -1: CPU time of this thread
 * when it does all the work (no workers: a busy shared machine then
 * disturbs the figure less), wall time with workers. */
static double run(const BenchSource *s, const Run *r)
{
    VmafContext *ctx;
    VmafModel *models[2] = { NULL, NULL };
    int err = open_job(&ctx, r, models);
    if (!ctx)
        return -1;
    double (*clock)(void) = r->threads || r->cuda ? bench_now : bench_cpu_now;
    const double t0 = clock();
    for (unsigned i = 0; i < r->frames && !err; i++) {
        VmafPicture ref, dis;
        err = bench_fill(s, 1, i, NULL, &ref);
        if (!err && (err = bench_fill(s, 0, i, NULL, &dis)))
            vmaf_picture_unref(&ref);
        if (!err)
            err = vmaf_read_pictures(ctx, &ref, &dis, i);
    }
    if (!err)
        err = vmaf_read_pictures(ctx, NULL, NULL, 0);
    double score;
    for (int m = 0; m < 2 && !err; m++)
        if (models[m])
            err = vmaf_score_pooled(ctx, models[m], VMAF_POOL_METHOD_MEAN, &score, 0,
                                    r->frames - 1);
    const double t = clock() - t0;
    vmaf_close(ctx);
    vmaf_model_destroy(models[0]);
    vmaf_model_destroy(models[1]);
    return err ? -1 : t * 1e3 / r->frames;
}

/* The fastest of `rounds` rounds of each of the n runs into ms[], every
 * round taking every run in turn. 1 if a run failed. */
static int fastest(const BenchSource *s, const Run *runs, unsigned n, unsigned rounds,
                   double *ms)
{
    int failed = 0;
    for (unsigned round = 0; round < rounds; round++)
        for (unsigned k = 0; k < n; k++) {
            const double m = run(s, &runs[k]);
            failed |= m < 0;
            if (!round || m < ms[k])
                ms[k] = m;
        }
    return failed;
}

/* Run 2k + t: job or feature k, in the caller (t = 0) or on `threads`
 * workers (t = 1, twice the frames). One warm-up frame's worth of
 * allocation is in every run. */
static Run run_of(unsigned k, int t, const char *feature, unsigned frames, unsigned threads,
                  unsigned cpumask, int cuda)
{
    return (Run){ .job = (Job)k, .feature = feature, .threads = t ? threads : 0,
                  .cpumask = cpumask, .frames = t ? frames * 2 : frames, .cuda = cuda };
}

static int bench_size(const BenchSource *s, unsigned frames, unsigned threads,
                      unsigned cpumask, unsigned rounds, int cuda)
{
    Run runs[2 * N_JOBS];
    double ms[2 * N_JOBS];
    for (unsigned k = 0; k < 2 * N_JOBS; k++)
        runs[k] = run_of(k / 2, (int)(k % 2), NULL, frames, threads, cpumask, cuda);
    const int failed = fastest(s, runs, 2 * N_JOBS, rounds, ms);
#define MS(j, t) ms[2 * (j) + (t)]
    const double parts = MS(JOB_MOTION, 0) + MS(JOB_VIF, 0) + MS(JOB_ADM, 0);
    printf("| %ux%u | %u | %.2f (%.1f fps) | %.2f | %.2f (%.2fx) | %.2f | %.0f / %.0f / %.0f %% |\n",
           s->w, s->h, s->bpc, MS(JOB_VMAF, 0), 1e3 / MS(JOB_VMAF, 0), MS(JOB_VMAF, 1),
           MS(JOB_VMAF_NEG, 0), MS(JOB_VMAF_NEG, 0) / MS(JOB_VMAF, 0), MS(JOB_VMAF_NEG, 1),
           100 * MS(JOB_MOTION, 0) / parts, 100 * MS(JOB_VIF, 0) / parts,
           100 * MS(JOB_ADM, 0) / parts);
#undef MS
    return failed;
}

/* One row a feature: ms a frame of it alone, 1 thread and `threads`. */
static int bench_features(const BenchSource *s, unsigned frames, unsigned threads,
                          unsigned cpumask, unsigned rounds, int cuda, char *const *features,
                          unsigned n)
{
    Run runs[2 * MAX_FEATURES];
    double ms[2 * MAX_FEATURES];
    for (unsigned k = 0; k < 2 * n; k++)
        runs[k] = run_of(0, (int)(k % 2), features[k / 2], frames, threads, cpumask, cuda);
    const int failed = fastest(s, runs, 2 * n, rounds, ms);
    for (unsigned k = 0; k < n; k++)
        printf("| %s | %ux%u | %u | %.2f | %.2f |\n", features[k], s->w, s->h, s->bpc,
               ms[2 * k], ms[2 * k + 1]);
    return failed;
}

/* ---- --e2e: the twins' steady state from host and pinned pictures ---- */

#define E2E_WARM 10 /* frames before the timing: start-up, graph captures */
#define E2E_POOL 8  /* pictures in the context's pool (libvmaf_cuda.h) */

typedef enum Source { SRC_HOST, SRC_PINNED, N_SOURCES } Source;

/* Every pool picture filled once, before the timing (in a pipeline the
 * decoder writes there): the timing is then the library's alone. */
static int fill_pool(VmafContext *ctx, const BenchSource *s)
{
    VmafCudaPictureConfiguration pc = {
        .pic_params = { .w = s->w, .h = s->h, .bpc = s->bpc, .pix_fmt = VMAF_PIX_FMT_YUV420P },
        .pic_prealloc_method = VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_HOST_PINNED,
    };
    int err = vmaf_cuda_preallocate_pictures(ctx, pc);
    VmafPicture all[E2E_POOL];
    int n = 0;
    for (; !err && n < E2E_POOL; n++) {
        err = vmaf_cuda_fetch_preallocated_picture(ctx, &all[n]);
        if (err)
            break;
        bench_copy_luma(s, !(n & 1), (unsigned)n / 2, &all[n]);
    }
    while (n > 0)
        vmaf_picture_unref(&all[--n]);
    return err;
}

/* The next input pair: pool pictures as they are, or new host pictures
 * filled here (a caller's own allocation and copy, in the timing). */
static int next_pair(VmafContext *ctx, const BenchSource *s, Source src, unsigned i,
                     VmafPicture p[2])
{
    for (int k = 0; k < 2; k++) {
        const int err = src == SRC_PINNED ? vmaf_cuda_fetch_preallocated_picture(ctx, &p[k])
                                          : bench_fill(s, !k, i, NULL, &p[k]);
        if (err) {
            if (k)
                vmaf_picture_unref(&p[0]);
            return err;
        }
    }
    return 0;
}

/* Steady-state ms a frame of the job on the twins, timed from after
 * E2E_WARM frames to the final flush, or -1; *startup_ms: the warm-up's
 * time (from vmaf_init) beyond its frames at that rate. */
static double run_e2e(const BenchSource *s, const Run *r, Source src, double *startup_ms)
{
    const double t_open = bench_now();
    VmafContext *ctx;
    VmafModel *models[2] = { NULL, NULL };
    int err = open_job(&ctx, r, models);
    if (!ctx)
        return -1;
    if (!err && src == SRC_PINNED)
        err = fill_pool(ctx, s);
    double t0 = 0.0;
    for (int i = -E2E_WARM; i < (int)r->frames && !err; i++) {
        if (!i)
            t0 = bench_now();
        VmafPicture p[2];
        err = next_pair(ctx, s, src, (unsigned)(i + E2E_WARM), p);
        if (!err)
            err = vmaf_read_pictures(ctx, &p[0], &p[1], (unsigned)(i + E2E_WARM));
    }
    if (!err)
        err = vmaf_read_pictures(ctx, NULL, NULL, 0);
    const double ms = (bench_now() - t0) * 1e3 / r->frames;
    *startup_ms = (t0 - t_open) * 1e3 - E2E_WARM * ms;
    vmaf_close(ctx);
    vmaf_model_destroy(models[0]);
    vmaf_model_destroy(models[1]);
    return err ? -1 : ms;
}

/* Rows of VMAF and VMAF + NEG from host and pinned pictures: the fastest
 * of `rounds`. */
static int bench_e2e(const BenchSource *s, unsigned frames, unsigned rounds,
                     char *const *features, unsigned n_features)
{
    int failed = 0;
    const unsigned rows = n_features ? n_features : 2;
    for (unsigned k = 0; k < rows && !failed; k++) {
        const Run r = { .job = k ? JOB_VMAF_NEG : JOB_VMAF,
                        .feature = n_features ? features[k] : NULL,
                        .frames = frames,
                        .cuda = 1 };
        double ms[N_SOURCES] = { 0 }, up[N_SOURCES] = { 0 };
        for (unsigned round = 0; round < rounds; round++)
            for (int src = 0; src < N_SOURCES; src++) {
                double u = 0.0;
                const double m = run_e2e(s, &r, (Source)src, &u);
                failed |= m < 0;
                if (!round || m < ms[src])
                    ms[src] = m, up[src] = u;
            }
        printf("| %ux%u | %u | %s | %.3f (%.0f fps) | %.3f (%.0f fps) | %.0f |\n", s->w, s->h,
               s->bpc, r.feature ? r.feature : k ? "vmaf+neg" : "vmaf", ms[SRC_HOST],
               1e3 / ms[SRC_HOST], ms[SRC_PINNED], 1e3 / ms[SRC_PINNED], up[SRC_PINNED]);
    }
    return failed;
}

/* Synthetic frames of one size and depth, then its rows. */
static int bench_at(unsigned w, unsigned h, unsigned bpc, unsigned frames, unsigned threads,
                    unsigned cpumask, unsigned rounds, int cuda, int e2e,
                    char *const *features, unsigned n_features)
{
    BenchSource s = { .w = w, .h = h, .bpc = bpc, .fmt = 420 };
    if (bench_synth(&s)) {
        fprintf(stderr, "out of memory\n");
        bench_synth_free(&s);
        return 1;
    }
    const int failed =
        e2e          ? bench_e2e(&s, frames, rounds, features, n_features)
        : n_features ? bench_features(&s, frames, threads, cpumask, rounds, cuda, features,
                                      n_features)
                     : bench_size(&s, frames, threads, cpumask, rounds, cuda);
    fflush(stdout);
    bench_synth_free(&s);
    return failed;
}

static void ignore_log(void *opaque, enum VmafLogLevel level, const char *message)
{
    (void)opaque;
    (void)level;
    (void)message;
}

int main(int argc, char **argv)
{
    double fscale = 1.0;
    const long nproc = sysconf(_SC_NPROCESSORS_ONLN);
    unsigned threads = nproc > 0 ? (unsigned)nproc : 1, cpumask = 0, only_w = 0, only_h = 0;
    unsigned rounds = 3, only_bpc = 0;
    int cuda = 0, e2e = 0;
    char *features[MAX_FEATURES];
    unsigned n_features = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick"))
            fscale *= 0.25;
        else if (!strcmp(argv[i], "--frames-scale") && i + 1 < argc)
            fscale *= atof(argv[++i]);
        else if (!strcmp(argv[i], "--repeat") && i + 1 < argc && atoi(argv[i + 1]) > 0)
            rounds = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--threads") && i + 1 < argc)
            threads = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--cuda"))
            cuda = 1;
        else if (!strcmp(argv[i], "--e2e"))
            cuda = e2e = 1;
        else if (!strcmp(argv[i], "--features") && i + 1 < argc)
            for (char *f = strtok(argv[++i], ","); f && n_features < MAX_FEATURES;
                 f = strtok(NULL, ","))
                features[n_features++] = f;
        else if (!strcmp(argv[i], "--cpumask") && i + 1 < argc)
            cpumask = (unsigned)strtoul(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--bpc") && i + 1 < argc)
            only_bpc = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--size") && i + 1 < argc &&
                 sscanf(argv[++i], "%ux%u", &only_w, &only_h) == 2)
            continue;
        else {
            fprintf(stderr, "usage: %s [--quick] [--frames-scale F] [--repeat R] [--threads N] "
                            "[--cpumask M] [--size WxH] [--bpc 8|10] [--cuda] [--features a,b] "
                            "[--e2e]\n",
                    argv[0]);
            return 2;
        }
    }
    static const struct { unsigned w, h, frames; } sizes[] = {
        { 576, 324, 48 }, { 1920, 1080, 12 }, { 3840, 2160, 4 },
    };
    if (cuda) {
        VmafCudaState *probe = NULL;
        if (vmaf_cuda_state_init(&probe, (VmafCudaConfiguration){ 0 })) {
            printf("SKIP: --cuda needs a usable GPU and a CUDA build\n");
            return 77;
        }
        /* The documented release of an unused state, which logs that a
         * context is missing: not news here. */
        vmaf_set_log_callback(ignore_log, NULL);
        (void)vmaf_cuda_import_state(NULL, probe);
        vmaf_set_log_callback(NULL, NULL);
    }
    if (e2e)
        printf("%s on the CUDA twins, steady state: ms a frame (frames a second) through "
               "vmaf_read_pictures after %d warm-up frames, up to the final flush, in the "
               "caller; host = pictures allocated and filled by the caller each frame, "
               "pinned = the context's pinned pool (filled once, before the timing); "
               "start-up = the warm-up's time from vmaf_init beyond its frames, pinned; "
               "fastest of %u rounds\n\n| size | bpc | job | host | pinned | start-up ms "
               "|\n| --- | --- | --- | --- | --- | --- |\n",
               n_features ? "Features" : "VMAF", E2E_WARM, rounds);
    else if (n_features)
        printf("%s benchmark, ms a frame of each feature alone through vmaf_read_pictures, "
               "fastest of %u rounds; 1 thread = in the caller, %u threads = frames in "
               "parallel (wall time)\n\n| feature | size | bpc | 1 thr | %u thr |\n"
               "| --- | --- | --- | --- | --- |\n",
               cuda ? "CUDA (the twins on the GPU)" : "CPU", rounds, threads, threads);
    else {
        printf("VMAF %s benchmark, ms a frame through vmaf_read_pictures (picture "
               "allocation and copy included), cpumask %u, fastest of %u rounds;\n1 thread = "
               "in the caller (%s), %u threads = frames in parallel (wall time);\nshare = "
               "motion / vif / adm alone, 1 thread\n\n",
               cuda ? "CUDA (the twins on the GPU)" : "CPU", cpumask, rounds,
               cuda ? "wall time" : "CPU time", threads);
        printf("| size | bpc | vmaf 1 thr | vmaf %u thr | vmaf+neg 1 thr (vs vmaf) | "
               "vmaf+neg %u thr | share |\n| --- | --- | --- | --- | --- | --- | --- |\n",
               threads, threads);
    }
    int failed = 0;
    /* Features alone and the steady state at 1080p and 4K; VMAF from
     * 576x324 too. The steady state runs longer: 60 times the frames. */
    for (size_t i = n_features || e2e ? 1 : 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        if (only_w && (sizes[i].w != only_w || sizes[i].h != only_h))
            continue;
        unsigned frames = (unsigned)(sizes[i].frames * (e2e ? 60 : 1) * fscale + 0.5);
        frames = frames < 2 ? 2 : frames;
        for (unsigned bpc = 8; bpc <= 10; bpc += 2)
            if (!only_bpc || bpc == only_bpc)
                failed |= bench_at(sizes[i].w, sizes[i].h, bpc, frames, threads, cpumask, rounds,
                               cuda, e2e, features, n_features);
    }
    return failed;
}
