/*
 * A failure on a worker thread (n_threads > 0): once the frames before it
 * are scored, every allocation the library makes on a thread other than
 * the caller's fails (the test links with -Wl,--wrap=...), so the next
 * frame's extraction fails with -ENOMEM on its worker, as when memory runs
 * out in the middle of a run. The docs promise:
 *
 *  - vmaf_close() of a context with that work still pending (no flush, no
 *    later read: no call has returned the failure yet) returns it
 *    (libvmaf.h: "0, or the first error of pending work"), and logs
 *    nothing more than the failure's own line (api.md);
 *  - the flush returns it, and the scores stored before the failure stay
 *    readable (api.md): each feature's per-frame and pooled scores and a
 *    model's predictions over the frames before it, equal to those of an
 *    undisturbed run.
 *
 * Workers allocate only when a frame's scores need room in the score
 * arrays: the failing frame has an index far beyond the others (frames
 * need not be contiguous), so its store must grow them, whatever their
 * size.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "libvmaf/libvmaf.h"
#include "libvmaf/model.h"

#include "check.h"

/* --- Wrappers --------------------------------------------------------------- */

void *__real_malloc(size_t size);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t size);
void *__real_aligned_alloc(size_t align, size_t size);
int __real_posix_memalign(void **p, size_t align, size_t size);

void *__wrap_malloc(size_t size);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t size);
void *__wrap_aligned_alloc(size_t align, size_t size);
int __wrap_posix_memalign(void **p, size_t align, size_t size);

static pthread_t caller;         /* the thread that calls the library */
static atomic_bool workers_fail; /* allocations on other threads fail */
static atomic_long injected;     /* failures given so far */

static bool should_fail(void)
{
    if (!atomic_load(&workers_fail) || pthread_equal(pthread_self(), caller))
        return false;
    atomic_fetch_add(&injected, 1);
    return true;
}

void *__wrap_malloc(size_t size)
{
    if (should_fail()) {
        errno = ENOMEM;
        return NULL;
    }
    return __real_malloc(size);
}

void *__wrap_calloc(size_t n, size_t size)
{
    if (should_fail()) {
        errno = ENOMEM;
        return NULL;
    }
    return __real_calloc(n, size);
}

void *__wrap_realloc(void *p, size_t size)
{
    if (should_fail()) {
        errno = ENOMEM;
        return NULL;
    }
    return __real_realloc(p, size);
}

void *__wrap_aligned_alloc(size_t align, size_t size)
{
    if (should_fail()) {
        errno = ENOMEM;
        return NULL;
    }
    return __real_aligned_alloc(align, size);
}

int __wrap_posix_memalign(void **p, size_t align, size_t size)
{
    if (should_fail())
        return ENOMEM;
    return __real_posix_memalign(p, align, size);
}

/* --- Sessions ----------------------------------------------------------------- */

#define W 64
#define H 48
#define GOOD 5          /* frames scored before the failure: 0..GOOD-1 */
#define FAILED_AT 100000 /* the frame whose scoring fails */
#define THREADS 2

static const char *const names[4] = { "float_ssim", "float_ssim_l", "float_ssim_c",
                                      "float_ssim_s" };

typedef struct Scores {
    double feature[GOOD][4];
    double pooled[4];
    double model[GOOD];
    double model_pooled;
} Scores;

static void fill(VmafPicture *pic, unsigned frame, int distort)
{
    uint8_t *row = pic->data[0];
    for (unsigned y = 0; y < pic->h[0]; y++, row += pic->stride[0])
        for (unsigned x = 0; x < pic->w[0]; x++) {
            int v = (int)((x * 7 + y * 13 + frame * 5) & 255);
            if (distort)
                v += (int)((x * y + frame) % 9) - 4;
            row[x] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
        }
}

static int read_frame(VmafContext *vmaf, unsigned i)
{
    VmafPicture ref, dist;
    if (vmaf_picture_alloc(&ref, VMAF_PIX_FMT_YUV400P, 8, W, H) ||
        vmaf_picture_alloc(&dist, VMAF_PIX_FMT_YUV400P, 8, W, H)) {
        fprintf(stderr, "vmaf_picture_alloc failed\n");
        exit(99);
    }
    fill(&ref, i, 0);
    fill(&dist, i, 1);
    return vmaf_read_pictures(vmaf, &ref, &dist, i);
}

/* ssim_svr_linear.json: a model over float_ssim and float_ssim_l. */
static VmafModel *load_model(void)
{
    VmafModel *model = NULL;
    VmafModelConfig cfg = { .name = "lin" };
    if (vmaf_model_load_from_path(&model, &cfg, MODEL_DATA_DIR "/ssim_svr_linear.json")) {
        fprintf(stderr, "cannot load %s/ssim_svr_linear.json\n", MODEL_DATA_DIR);
        exit(99);
    }
    return model;
}

static VmafContext *context(unsigned n_threads, VmafModel *model)
{
    VmafContext *vmaf = NULL;
    VmafConfiguration cfg = { .log_level = VMAF_LOG_LEVEL_ERROR, .n_threads = n_threads };
    if (vmaf_init(&vmaf, cfg)) {
        fprintf(stderr, "vmaf_init failed\n");
        exit(99);
    }
    VmafFeatureDictionary *d = NULL;
    if (vmaf_feature_dictionary_set(&d, "enable_lcs", "true") ||
        vmaf_use_feature(vmaf, "float_ssim", d) ||
        (model && vmaf_use_features_from_model(vmaf, model))) {
        fprintf(stderr, "cannot request the features\n");
        exit(99);
    }
    return vmaf;
}

/* Every score of the first GOOD frames; false when one is missing. */
static bool read_scores(VmafContext *vmaf, VmafModel *model, Scores *s)
{
    bool ok = true;
    for (unsigned i = 0; i < GOOD; i++)
        for (unsigned k = 0; k < 4; k++)
            ok &= !vmaf_feature_score_at_index(vmaf, names[k], &s->feature[i][k], i);
    for (unsigned k = 0; k < 4; k++)
        ok &= !vmaf_feature_score_pooled(vmaf, names[k], VMAF_POOL_METHOD_MEAN, &s->pooled[k], 0,
                                         GOOD - 1);
    for (unsigned i = 0; i < GOOD; i++)
        ok &= !vmaf_score_at_index(vmaf, model, &s->model[i], i);
    ok &= !vmaf_score_pooled(vmaf, model, VMAF_POOL_METHOD_MEAN, &s->model_pooled, 0, GOOD - 1);
    return ok;
}

/* Waits until the workers have stored every score of frames 0..GOOD-1, so
 * that no allocation of theirs is left when allocations start to fail. */
static bool wait_scored(VmafContext *vmaf)
{
    for (int tries = 0; tries < 60000; tries++) {
        bool all = true;
        for (unsigned i = 0; i < GOOD && all; i++)
            for (unsigned k = 0; k < 4 && all; k++) {
                double v;
                all = !vmaf_feature_score_at_index(vmaf, names[k], &v, i);
            }
        if (all)
            return true;
        nanosleep(&(struct timespec){ .tv_nsec = 1000000 }, NULL);
    }
    return false;
}

/* GOOD frames scored, then frame FAILED_AT read while workers cannot
 * allocate. */
static VmafContext *fail_after_good(VmafModel *model)
{
    VmafContext *vmaf = context(THREADS, model);
    for (unsigned i = 0; i < GOOD; i++)
        CHECK_INT(read_frame(vmaf, i), 0);
    if (!wait_scored(vmaf)) {
        fprintf(stderr, "the first %d frames were not scored in a minute\n", GOOD);
        exit(99);
    }
    atomic_store(&injected, 0);
    atomic_store(&workers_fail, true);
    /* The read only queues the frame: its failure comes later, on a worker. */
    CHECK_INT(read_frame(vmaf, FAILED_AT), 0);
    return vmaf;
}

/* vmaf_close() with the failed frame still pending returns its error, and
 * the failure is one line, logged by the worker that met it. */
static void test_close_returns_pending_error(VmafModel *model)
{
    const int failures = check_failures;
    capture_begin();
    VmafContext *vmaf = fail_after_good(model);
    const int err = vmaf_close(vmaf);
    atomic_store(&workers_fail, false);
    const char *log = capture_end();
    char frame[32];
    snprintf(frame, sizeof(frame), "frame %d", FAILED_AT);
    CHECK(atomic_load(&injected) > 0);
    CHECK_INT(err, -ENOMEM);
    CHECK_INT(count_lines(log), 1);
    CHECK(strstr(log, frame) != NULL);
    if (check_failures != failures)
        fprintf(stderr, "close with a failed frame pending: the library logged:\n%s", log);
}

/* The flush returns the failure; the scores before it are still there,
 * the same as without the failure, and the failed frame has none. */
static void test_scores_before_failure(VmafModel *model, const Scores *want)
{
    const int failures = check_failures;
    capture_begin();
    VmafContext *vmaf = fail_after_good(model);
    const int flush_err = vmaf_read_pictures(vmaf, NULL, NULL, 0);
    atomic_store(&workers_fail, false);
    Scores got;
    memset(&got, 0, sizeof(got));
    const bool all = read_scores(vmaf, model, &got);
    double v;
    const int at_failed = vmaf_feature_score_at_index(vmaf, "float_ssim", &v, FAILED_AT);
    vmaf_close(vmaf);
    const char *log = capture_end();
    CHECK(atomic_load(&injected) > 0);
    CHECK_INT(flush_err, -ENOMEM);
    CHECK(all);
    CHECK(!memcmp(&got, want, sizeof(got)));
    CHECK_INT(at_failed, -EINVAL);
    if (check_failures != failures)
        fprintf(stderr, "scores before the failure: float_ssim mean %.17g (want %.17g), "
                "model mean %.17g (want %.17g); the library logged:\n%s", got.pooled[0],
                want->pooled[0], got.model_pooled, want->model_pooled, log);
}

int main(void)
{
    caller = pthread_self();
    VmafModel *model = load_model();

    /* The undisturbed scores, from a run in the caller's thread. */
    Scores want;
    memset(&want, 0, sizeof(want));
    VmafContext *vmaf = context(0, model);
    for (unsigned i = 0; i < GOOD; i++)
        CHECK_INT(read_frame(vmaf, i), 0);
    CHECK_INT(vmaf_read_pictures(vmaf, NULL, NULL, 0), 0);
    CHECK(read_scores(vmaf, model, &want));
    CHECK_INT(vmaf_close(vmaf), 0);

    test_close_returns_pending_error(model);
    test_scores_before_failure(model, &want);
    vmaf_model_destroy(model);
    return check_result("test_worker_failure");
}
