/*
 * Allocation-failure walk: the library's allocation calls are routed through
 * the wrappers below (the test links with -Wl,--wrap=...), which make the
 * N-th allocation of a run fail (in a second pass, the N-th and every later
 * one). For N = 1, 2, ... one whole consumer session runs (init, use_feature
 * with options, picture_alloc, two frames, flush, pooled score, JSON report,
 * close) until a run sees no injected failure; in the caller's thread and
 * with two worker threads.
 *
 * Every run must end cleanly: each failing call returns a negative errno, no
 * allocation outlives vmaf_close() (counted here; ASan/LSan in CI see the
 * rest), a failed report leaves no file behind, and a run that reports
 * success despite a failed allocation must have produced the exact scores of
 * an undisturbed run.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libvmaf/libvmaf.h"

/* --- Wrappers --------------------------------------------------------------- */

void *__real_malloc(size_t size);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t size);
void *__real_aligned_alloc(size_t align, size_t size);
int __real_posix_memalign(void **p, size_t align, size_t size);
char *__real_strdup(const char *s);
char *__real_strndup(const char *s, size_t n);
char *__real_realpath(const char *path, char *resolved);
void __real_free(void *p);

void *__wrap_malloc(size_t size);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t size);
void *__wrap_aligned_alloc(size_t align, size_t size);
int __wrap_posix_memalign(void **p, size_t align, size_t size);
char *__wrap_strdup(const char *s);
char *__wrap_strndup(const char *s, size_t n);
char *__wrap_realpath(const char *path, char *resolved);
void __wrap_free(void *p);

static atomic_long alloc_calls; /* allocation calls in this run */
static long fail_at;            /* 1-based call to fail; 0 = none */
static bool fail_after;         /* also fail every later call (memory stays short) */
static atomic_int injected;     /* a failure was injected in this run */
static atomic_long live;        /* allocations not yet freed */

static bool should_fail(void)
{
    long k = atomic_fetch_add(&alloc_calls, 1) + 1;
    if (fail_at && (k == fail_at || (fail_after && k > fail_at))) {
        atomic_store(&injected, 1);
        return true;
    }
    return false;
}

static void *counted(void *p)
{
    if (p)
        atomic_fetch_add(&live, 1);
    return p;
}

void *__wrap_malloc(size_t size)
{
    if (should_fail()) {
        errno = ENOMEM;
        return NULL;
    }
    return counted(__real_malloc(size));
}

void *__wrap_calloc(size_t n, size_t size)
{
    if (should_fail()) {
        errno = ENOMEM;
        return NULL;
    }
    return counted(__real_calloc(n, size));
}

void *__wrap_realloc(void *p, size_t size)
{
    if (should_fail()) {
        errno = ENOMEM;
        return NULL;
    }
    void *r = __real_realloc(p, size);
    if (!p)
        return counted(r);
    if (!r && !size) /* glibc frees p for a size of 0 */
        atomic_fetch_sub(&live, 1);
    return r;
}

void *__wrap_aligned_alloc(size_t align, size_t size)
{
    if (should_fail()) {
        errno = ENOMEM;
        return NULL;
    }
    return counted(__real_aligned_alloc(align, size));
}

int __wrap_posix_memalign(void **p, size_t align, size_t size)
{
    if (should_fail())
        return ENOMEM;
    int err = __real_posix_memalign(p, align, size);
    if (!err)
        counted(*p);
    return err;
}

char *__wrap_strdup(const char *s)
{
    if (should_fail()) {
        errno = ENOMEM;
        return NULL;
    }
    return counted(__real_strdup(s));
}

char *__wrap_strndup(const char *s, size_t n)
{
    if (should_fail()) {
        errno = ENOMEM;
        return NULL;
    }
    return counted(__real_strndup(s, n));
}

char *__wrap_realpath(const char *path, char *resolved)
{
    if (!resolved && should_fail()) {
        errno = ENOMEM;
        return NULL;
    }
    char *r = __real_realpath(path, resolved);
    return resolved ? r : counted(r);
}

void __wrap_free(void *p)
{
    if (p)
        atomic_fetch_sub(&live, 1);
    __real_free(p);
}

/* --- One consumer session ----------------------------------------------------- */

#define W 64
#define H 48
#define FRAMES 2

typedef struct Result {
    double frame[FRAMES][4]; /* float_ssim, _l, _c, _s */
    double pooled;
} Result;

typedef struct Run {
    int err;          /* first error, 0 if none */
    const char *step; /* where it happened */
    int bad;          /* a check failed */
    bool wrote;       /* vmaf_write_output() succeeded */
} Run;

static int failures;
/* The test's own messages, line buffered so that they interleave sensibly
 * with the library's error lines (and a sanitizer's report) on stderr. */
static FILE *out;

/* Per run, the library's stderr goes to this file, so that the test can tell
 * whether a failure was logged; it stays on disk if a run crashes. */
static char log_path[] = "/tmp/vmaf_alloc_log_XXXXXX";
static int saved_stderr = -1;

static void log_begin(void)
{
    fflush(stderr);
    int fd = open(log_path, O_WRONLY | O_TRUNC);
    if (fd < 0 || dup2(fd, STDERR_FILENO) < 0) {
        fprintf(out, "cannot redirect stderr to %s\n", log_path);
        exit(99);
    }
    close(fd);
}

/* Copies the run's log to the test output; returns its number of lines. */
static int log_end(void)
{
    fflush(stderr);
    dup2(saved_stderr, STDERR_FILENO);
    FILE *f = fopen(log_path, "r");
    int lines = 0;
    char buf[1024];
    while (f && fgets(buf, sizeof(buf), f)) {
        fputs(buf, out);
        lines += strchr(buf, '\n') != NULL;
    }
    if (f)
        fclose(f);
    return lines;
}

static void fill(VmafPicture *pic, unsigned frame, int distort)
{
    for (unsigned p = 0; p < 3; p++) {
        uint8_t *row = pic->data[p];
        for (unsigned y = 0; y < pic->h[p]; y++, row += pic->stride[p])
            for (unsigned x = 0; x < pic->w[p]; x++) {
                int v = (int)((x * 7 + y * 13 + frame * 5 + p * 40) & 255);
                if (distort)
                    v += (int)((x * y + frame) % 9) - 4;
                row[x] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
            }
    }
}

/* Records the first failure; a failure must be a negative errno. */
static bool failed(Run *r, const char *step, int err)
{
    if (!err)
        return false;
    if (err > 0 || err < -4095) {
        fprintf(out, "fail_at %ld: %s returned %d, not a negative errno\n", fail_at, step,
                err);
        r->bad = 1;
    }
    if (!r->err) {
        r->err = err;
        r->step = step;
    }
    return true;
}

static const char *const names[4] = { "float_ssim", "float_ssim_l", "float_ssim_c",
                                      "float_ssim_s" };

static void session(unsigned n_threads, const char *report, Run *r, Result *res)
{
    VmafContext *vmaf = NULL;
    VmafConfiguration cfg = { .log_level = VMAF_LOG_LEVEL_ERROR, .n_threads = n_threads };
    int err = vmaf_init(&vmaf, cfg);
    if (failed(r, "vmaf_init", err)) {
        if (vmaf) {
            fprintf(out, "fail_at %ld: vmaf_init failed but set the context\n", fail_at);
            r->bad = 1;
        }
        return;
    }

    VmafFeatureDictionary *opts = NULL;
    err = vmaf_feature_dictionary_set(&opts, "enable_lcs", "true");
    if (!err)
        err = vmaf_feature_dictionary_set(&opts, "scale", "2");
    if (failed(r, "vmaf_feature_dictionary_set", err)) {
        vmaf_feature_dictionary_free(&opts);
        goto close;
    }
    /* Takes the dictionary on success and on failure. */
    err = vmaf_use_feature(vmaf, "float_ssim", opts);
    if (failed(r, "vmaf_use_feature", err))
        goto close;

    for (unsigned i = 0; i < FRAMES; i++) {
        VmafPicture ref, dist;
        err = vmaf_picture_alloc(&ref, VMAF_PIX_FMT_YUV420P, 8, W, H);
        if (failed(r, "vmaf_picture_alloc", err))
            goto close;
        err = vmaf_picture_alloc(&dist, VMAF_PIX_FMT_YUV420P, 8, W, H);
        if (failed(r, "vmaf_picture_alloc", err)) {
            vmaf_picture_unref(&ref);
            goto close;
        }
        fill(&ref, i, 0);
        fill(&dist, i, 1);
        /* Takes both references on success and on failure. */
        err = vmaf_read_pictures(vmaf, &ref, &dist, i);
        if (failed(r, "vmaf_read_pictures", err))
            goto close;
    }
    err = vmaf_read_pictures(vmaf, NULL, NULL, 0);
    if (failed(r, "vmaf_read_pictures (flush)", err))
        goto close;

    for (unsigned i = 0; i < FRAMES; i++)
        for (unsigned k = 0; k < 4; k++) {
            err = vmaf_feature_score_at_index(vmaf, names[k], &res->frame[i][k], i);
            if (failed(r, "vmaf_feature_score_at_index", err))
                goto close;
        }
    err = vmaf_feature_score_pooled(vmaf, "float_ssim", VMAF_POOL_METHOD_MEAN, &res->pooled, 0,
                                    FRAMES - 1);
    if (failed(r, "vmaf_feature_score_pooled", err))
        goto close;
    err = vmaf_write_output(vmaf, report, VMAF_OUTPUT_FORMAT_JSON);
    if (failed(r, "vmaf_write_output", err))
        goto close;
    r->wrote = true;

close:
    err = vmaf_close(vmaf);
    failed(r, "vmaf_close", err);
}

/* Number of entries of dir other than "." and ".." (the first in `first`). */
static int dir_entries(const char *dir, char *first, size_t len)
{
    int n = 0;
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        if (!n)
            snprintf(first, len, "%s", e->d_name);
        n++;
    }
    closedir(d);
    return n;
}

static bool same_result(const Result *a, const Result *b)
{
    return !memcmp(a, b, sizeof(*a));
}

/* Walks N = 1, 2, ... for one thread setting; returns the number of runs. */
static long walk(unsigned n_threads, bool after, const Result *base)
{
    char dir[] = "/tmp/vmaf_alloc_fail_XXXXXX";
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        exit(99);
    }
    char report[sizeof(dir) + 16];
    snprintf(report, sizeof(report), "%s/out.json", dir);

    long n;
    long silent = 0, errs_enomem = 0, errs_other = 0, unlogged = 0;
    char unlogged_steps[512] = "";
    for (n = 1; n < 100000; n++) {
        fail_at = n;
        fail_after = after;
        atomic_store(&alloc_calls, 0);
        atomic_store(&injected, 0);
        atomic_store(&live, 0);
        Run r = { 0 };
        Result res;
        memset(&res, 0, sizeof(res));
        fprintf(out, "--- threads %u, allocation %ld%s fails (library log: %s)\n", n_threads, n,
                after ? " and every later one" : "", log_path);
        log_begin();
        session(n_threads, report, &r, &res);
        const int logged = log_end();
        if (r.err)
            fprintf(out, "    %s returned %d; %d line(s) logged\n", r.step, r.err, logged);

        const bool inj = atomic_load(&injected);
        if (atomic_load(&live) != 0) {
            fprintf(out, "threads %u fail_at %ld: %ld allocation(s) leaked (failure in %s: %d)\n",
                    n_threads, n, atomic_load(&live), r.step ? r.step : "none", r.err);
            r.bad = 1;
        }
        if (!inj && r.err) {
            fprintf(out, "threads %u: undisturbed run failed in %s: %d\n", n_threads, r.step,
                    r.err);
            r.bad = 1;
        }
        if (!r.err && !same_result(&res, base)) {
            fprintf(out, "threads %u fail_at %ld: success with wrong scores "
                    "(%.17g vs %.17g)\n", n_threads, n, res.pooled, base->pooled);
            r.bad = 1;
        }
        if (r.err == -ENOMEM)
            errs_enomem++;
        else if (r.err)
            errs_other++, fprintf(out, "note: fail_at %ld: %s returned %d (%s), not -ENOMEM\n",
                                  n, r.step, r.err, strerror(-r.err));
        if (inj && !r.err)
            silent++;
        /* Every failure should say what failed; counted, not enforced, as
         * some calls (dictionary, picture) have no context to log through. */
        if (r.err && !logged) {
            unlogged++;
            if (!strstr(unlogged_steps, r.step) &&
                strlen(unlogged_steps) + strlen(r.step) + 3 < sizeof(unlogged_steps))
                strcat(strcat(unlogged_steps, unlogged_steps[0] ? ", " : ""), r.step);
        }

        char first[256] = "";
        int entries = dir_entries(dir, first, sizeof(first));
        if (r.wrote) {
            if (entries != 1 || strcmp(first, "out.json")) {
                fprintf(out, "threads %u fail_at %ld: after a report, %d entries (%s)\n",
                        n_threads, n, entries, first);
                r.bad = 1;
            }
        } else if (entries != 0) {
            fprintf(out, "threads %u fail_at %ld: failed run left %d file(s) (%s), "
                    "failure in %s\n", n_threads, n, entries, first, r.step);
            r.bad = 1;
        }
        unlink(report);
        if (r.bad)
            failures++;
        if (!inj)
            break;
    }
    rmdir(dir);
    fail_at = 0;
    fail_after = false;
    fprintf(out, "%s: threads %u: %ld runs, %ld allocations in an undisturbed run; "
            "%ld failed with -ENOMEM, %ld with another errno, %ld absorbed the failure\n",
            after ? "from N on" : "N-th only", n_threads, n, n - 1, errs_enomem, errs_other,
            silent);
    /* Every failure must tell the user why in one line. */
    if (unlogged) {
        fprintf(out, "FAIL: threads %u, %s: %ld failed run(s) logged nothing; failing calls: "
                "%s\n", n_threads, after ? "from N on" : "N-th only", unlogged, unlogged_steps);
        failures++;
    }
    if (n >= 100000) {
        fprintf(out, "threads %u: never completed a run\n", n_threads);
        failures++;
    }
    return n;
}

int main(void)
{
    out = fdopen(dup(STDERR_FILENO), "w");
    if (!out)
        return 99;
    setvbuf(out, NULL, _IOLBF, 0);
    saved_stderr = dup(STDERR_FILENO);
    int lfd = mkstemp(log_path);
    if (lfd < 0 || saved_stderr < 0) {
        fprintf(out, "cannot create %s\n", log_path);
        return 99;
    }
    close(lfd);

    char dir[] = "/tmp/vmaf_alloc_base_XXXXXX";
    if (!mkdtemp(dir))
        return 99;
    char report[sizeof(dir) + 16];
    snprintf(report, sizeof(report), "%s/out.json", dir);

    Result base[2];
    for (unsigned t = 0; t < 2; t++) {
        Run r = { 0 };
        memset(&base[t], 0, sizeof(base[t]));
        fail_at = 0;
        session(t ? 2 : 0, report, &r, &base[t]);
        unlink(report);
        if (r.err || r.bad) {
            fprintf(out, "undisturbed session (threads %u) failed in %s: %d\n", t ? 2 : 0,
                    r.step ? r.step : "-", r.err);
            rmdir(dir);
            return 1;
        }
        fprintf(out, "threads %u: float_ssim %.17g %.17g, pooled %.17g\n", t ? 2 : 0,
                base[t].frame[0][0], base[t].frame[1][0], base[t].pooled);
    }
    rmdir(dir);
    if (!same_result(&base[0], &base[1])) {
        fprintf(out, "scores with 2 threads differ from scores in the caller's thread\n");
        failures++;
    }

    /* The N-th allocation fails alone, then the N-th and all that follow
     * (cleanup paths that allocate meet a failure too). */
    for (int after = 0; after < 2; after++) {
        walk(0, after, &base[0]);
        walk(2, after, &base[1]);
    }
    unlink(log_path);
    fprintf(out, "%s\n", failures ? "FAILED" : "passed");
    fclose(out);
    return failures ? 1 : 0;
}
