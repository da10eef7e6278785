/*
 * The documented contract of the public API, through the shared library and
 * public headers only: argument checks, ownership of dictionaries and
 * pictures on failure (ASan/LSan in CI see a leak or a double free), errors
 * that name what to fix, pooling, subsampling, frames in any order, worker
 * threads giving the same scores as the caller's thread, and reports that
 * never leave a partial file.
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libvmaf/libvmaf.h"
#include "libvmaf/libvmaf_cuda.h"

#include "check.h"

#define W 96
#define H 64

/* A small deterministic generator so that every run sees the same pictures. */
static uint32_t rng_state;
static uint32_t rng(void)
{
    rng_state = rng_state * 1664525u + 1013904223u;
    return rng_state >> 8;
}

static int make_pair(VmafPicture *ref, VmafPicture *dist, unsigned bpc, unsigned w,
                     unsigned h, unsigned seed)
{
    int err = vmaf_picture_alloc(ref, VMAF_PIX_FMT_YUV420P, bpc, w, h);
    if (err)
        return err;
    err = vmaf_picture_alloc(dist, VMAF_PIX_FMT_YUV420P, bpc, w, h);
    if (err) {
        vmaf_picture_unref(ref);
        return err;
    }
    rng_state = seed;
    const unsigned max = (1u << bpc) - 1;
    for (unsigned p = 0; p < 3; p++)
        for (unsigned y = 0; y < ref->h[p]; y++)
            for (unsigned x = 0; x < ref->w[p]; x++) {
                unsigned v = (x * 5 + y * 3 + seed * 11) % (max + 1);
                unsigned d = v + rng() % 17;
                d = d > 8 ? d - 8 : 0;
                d = d > max ? max : d;
                if (bpc == 8) {
                    ((uint8_t *)ref->data[p])[y * ref->stride[p] + x] = (uint8_t)v;
                    ((uint8_t *)dist->data[p])[y * dist->stride[p] + x] = (uint8_t)d;
                } else {
                    ((uint16_t *)((uint8_t *)ref->data[p] + y * ref->stride[p]))[x] = (uint16_t)v;
                    ((uint16_t *)((uint8_t *)dist->data[p] + y * dist->stride[p]))[x] =
                        (uint16_t)d;
                }
            }
    return 0;
}

static VmafContext *ctx_with(unsigned threads, unsigned subsample, const char *opt_key,
                             const char *opt_val)
{
    VmafContext *vmaf = NULL;
    VmafConfiguration cfg = { .log_level = VMAF_LOG_LEVEL_ERROR, .n_threads = threads,
                              .n_subsample = subsample };
    if (vmaf_init(&vmaf, cfg)) {
        fprintf(stderr, "vmaf_init failed\n");
        exit(99);
    }
    VmafFeatureDictionary *d = NULL;
    if (opt_key)
        vmaf_feature_dictionary_set(&d, opt_key, opt_val);
    if (vmaf_use_feature(vmaf, "float_ssim", d)) {
        fprintf(stderr, "vmaf_use_feature failed\n");
        exit(99);
    }
    return vmaf;
}

/* Reads n 8-bit pairs in index order, frame i made from seed a * i + b,
 * then flushes. */
static void read_and_flush(VmafContext *vmaf, unsigned n, unsigned a, unsigned b)
{
    for (unsigned i = 0; i < n; i++) {
        VmafPicture ref, dist;
        CHECK_INT(make_pair(&ref, &dist, 8, W, H, a * i + b), 0);
        CHECK_INT(vmaf_read_pictures(vmaf, &ref, &dist, i), 0);
    }
    CHECK_INT(vmaf_read_pictures(vmaf, NULL, NULL, 0), 0);
}

static void test_init_and_version(void)
{
    VmafContext *vmaf = (VmafContext *)&vmaf;
    VmafConfiguration cfg = { 0 };
    CHECK_INT(vmaf_init(NULL, cfg), -EINVAL);
    cfg.log_level = (enum VmafLogLevel)99;
    capture_begin();
    CHECK_INT(vmaf_init(&vmaf, cfg), -EINVAL);
    capture_end();
    CHECK(vmaf == NULL);
    cfg.log_level = VMAF_LOG_LEVEL_ERROR;
    /* Too many threads: capped, with a warning, not refused. */
    cfg.log_level = VMAF_LOG_LEVEL_WARNING;
    cfg.n_threads = 1u << 30;
    capture_begin();
    CHECK_INT(vmaf_init(&vmaf, cfg), 0);
    const char *log = capture_end();
    CHECK(strstr(log, "threads") != NULL && strstr(log, "1024") != NULL);
    CHECK_INT(vmaf_close(vmaf), 0);
    cfg.log_level = VMAF_LOG_LEVEL_ERROR;
    CHECK_INT(vmaf_close(NULL), 0);

    char want[32];
    snprintf(want, sizeof(want), "%d.%d.%d", VMAF_API_VERSION_MAJOR, VMAF_API_VERSION_MINOR,
             VMAF_API_VERSION_PATCH);
    CHECK(vmaf_version() && !strcmp(vmaf_version(), want));
}

static void test_use_feature(void)
{
    VmafContext *vmaf = NULL;
    VmafConfiguration cfg = { .log_level = VMAF_LOG_LEVEL_ERROR };
    CHECK_INT(vmaf_init(&vmaf, cfg), 0);

    /* Unknown names: -EINVAL, one line naming the name. As in libvmaf v3,
     * the dictionary is left with the caller, who frees it "in the case of
     * failure" (a second free here is a double free for ASan, or glibc). */
    VmafFeatureDictionary *d = NULL;
    CHECK_INT(vmaf_feature_dictionary_set(&d, "scale", "2"), 0);
    capture_begin();
    CHECK_INT(vmaf_use_feature(vmaf, "no_such_feature", d), -EINVAL);
    const char *log = capture_end();
    CHECK(strstr(log, "no_such_feature") != NULL);
    CHECK_INT(vmaf_feature_dictionary_free(&d), 0);
    /* NULL context or name: the same. */
    CHECK_INT(vmaf_feature_dictionary_set(&d, "scale", "2"), 0);
    capture_begin();
    CHECK_INT(vmaf_use_feature(vmaf, NULL, d), -EINVAL);
    CHECK_INT(vmaf_use_feature(NULL, "float_ssim", d), -EINVAL);
    capture_end();
    CHECK_INT(vmaf_feature_dictionary_free(&d), 0);
    CHECK_INT(vmaf_use_feature(vmaf, NULL, NULL), -EINVAL);

    /* Bad options: the message gives the range or the valid keys. The
     * extractor was found, so the dictionary is consumed (freeing it here
     * would be a double free, and LSan would see a leak if it were not). */
    struct {
        const char *key, *val, *hint;
    } bad[] = {
        { "scale", "11", "10" },   { "scale", "-1", "10" },      { "scale", "2xyz", "scale" },
        { "scale", "", "scale" },  { "scale", "nan", "scale" },  { "enable_lcs", "1", "true" },
        { "enable_db", "yes", "true" }, { "sclae", "2", "enable_lcs" },
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        d = NULL;
        CHECK_INT(vmaf_feature_dictionary_set(&d, bad[i].key, bad[i].val), 0);
        capture_begin();
        int err = vmaf_use_feature(vmaf, "float_ssim", d);
        log = capture_end();
        if (err != -EINVAL || !strstr(log, bad[i].key) || !strstr(log, bad[i].hint)) {
            fprintf(stderr, "float_ssim %s=%s: err %d, log [%s] (expected -EINVAL naming %s)\n",
                    bad[i].key, bad[i].val, err, log, bad[i].hint);
            check_failures++;
        }
    }
    /* By extractor name, and by a feature name it provides. */
    CHECK_INT(vmaf_use_feature(vmaf, "float_ssim", NULL), 0);
    CHECK_INT(vmaf_close(vmaf), 0);
    CHECK_INT(vmaf_init(&vmaf, cfg), 0);
    d = NULL;
    CHECK_INT(vmaf_feature_dictionary_set(&d, "enable_lcs", "true"), 0);
    CHECK_INT(vmaf_use_feature(vmaf, "float_ssim_l", d), 0);
    CHECK_INT(vmaf_close(vmaf), 0);

    /* Features asked for after the first picture: refused before the name
     * is looked up, so the dictionary is still the caller's. */
    VmafContext *started = ctx_with(0, 0, NULL, NULL);
    VmafPicture ref, dist;
    CHECK_INT(make_pair(&ref, &dist, 8, W, H, 1), 0);
    CHECK_INT(vmaf_read_pictures(started, &ref, &dist, 0), 0);
    d = NULL;
    CHECK_INT(vmaf_feature_dictionary_set(&d, "scale", "2"), 0);
    capture_begin();
    CHECK_INT(vmaf_use_feature(started, "float_ssim", d), -EINVAL);
    capture_end();
    CHECK_INT(vmaf_feature_dictionary_free(&d), 0);
    CHECK_INT(vmaf_close(started), 0);
}

static void test_read_pictures_contract(void)
{
    VmafContext *vmaf = ctx_with(0, 0, NULL, NULL);
    VmafPicture ref, dist;

    /* One picture only: refused, and the one given is taken. */
    CHECK_INT(make_pair(&ref, &dist, 8, W, H, 1), 0);
    vmaf_picture_unref(&dist);
    capture_begin();
    CHECK_INT(vmaf_read_pictures(vmaf, &ref, NULL, 0), -EINVAL);
    capture_end();

    CHECK_INT(make_pair(&ref, &dist, 8, W, H, 1), 0);
    CHECK_INT(vmaf_read_pictures(vmaf, &ref, &dist, 0), 0);

    /* Geometry, depth or format other than the first pair's: refused. */
    capture_begin();
    CHECK_INT(make_pair(&ref, &dist, 8, W + 2, H, 2), 0);
    CHECK(vmaf_read_pictures(vmaf, &ref, &dist, 1) < 0);
    CHECK_INT(make_pair(&ref, &dist, 10, W, H, 2), 0);
    CHECK(vmaf_read_pictures(vmaf, &ref, &dist, 1) < 0);
    VmafPicture r444, d420;
    CHECK_INT(vmaf_picture_alloc(&r444, VMAF_PIX_FMT_YUV444P, 8, W, H), 0);
    CHECK_INT(vmaf_picture_alloc(&d420, VMAF_PIX_FMT_YUV420P, 8, W, H), 0);
    CHECK(vmaf_read_pictures(vmaf, &r444, &d420, 1) < 0);
    /* ref and dist that differ from each other. */
    CHECK_INT(vmaf_picture_alloc(&r444, VMAF_PIX_FMT_YUV420P, 8, W, H), 0);
    CHECK_INT(vmaf_picture_alloc(&d420, VMAF_PIX_FMT_YUV420P, 8, W, H + 2), 0);
    CHECK(vmaf_read_pictures(vmaf, &r444, &d420, 1) < 0);
    capture_end();
    /* Only the width differs: refused with the line that says so. */
    capture_begin();
    CHECK_INT(vmaf_picture_alloc(&r444, VMAF_PIX_FMT_YUV420P, 8, W, H), 0);
    CHECK_INT(vmaf_picture_alloc(&d420, VMAF_PIX_FMT_YUV420P, 8, W + 2, H), 0);
    CHECK_INT(vmaf_read_pictures(vmaf, &r444, &d420, 1), -EINVAL);
    const char *why = capture_end();
    CHECK(strstr(why, "both must match") != NULL);

    /* A frame index read twice: -EINVAL with one line, before any work, and
     * the context goes on (the flush and later frames are unaffected). */
    capture_begin();
    CHECK_INT(make_pair(&ref, &dist, 8, W, H, 3), 0);
    int err = vmaf_read_pictures(vmaf, &ref, &dist, 0);
    const char *log = capture_end();
    CHECK_INT(err, -EINVAL);
    CHECK(strstr(log, "frame 0") != NULL && strstr(log, "already read") != NULL);
    CHECK(strchr(log, '\n') == log + strlen(log) - 1);
    CHECK_INT(make_pair(&ref, &dist, 8, W, H, 4), 0);
    CHECK_INT(vmaf_read_pictures(vmaf, &ref, &dist, 1), 0);
    CHECK_INT(vmaf_read_pictures(vmaf, NULL, NULL, 0), 0);
    double s0, s1;
    CHECK_INT(vmaf_feature_score_at_index(vmaf, "float_ssim", &s0, 0), 0);
    CHECK_INT(vmaf_feature_score_at_index(vmaf, "float_ssim", &s1, 1), 0);

    /* A second flush: -EINVAL, as in libvmaf v3; the scores stay. */
    capture_begin();
    CHECK_INT(vmaf_read_pictures(vmaf, NULL, NULL, 0), -EINVAL);
    log = capture_end();
    CHECK(strstr(log, "already flushed") != NULL);
    CHECK_INT(vmaf_feature_score_at_index(vmaf, "float_ssim", &s0, 0), 0);

    /* Nothing after the flush. */
    CHECK_INT(make_pair(&ref, &dist, 8, W, H, 4), 0);
    capture_begin();
    CHECK_INT(vmaf_read_pictures(vmaf, &ref, &dist, 5), -EINVAL);
    capture_end();
    CHECK_INT(vmaf_close(vmaf), 0);

    /* Without a context the pictures are still released. */
    CHECK_INT(make_pair(&ref, &dist, 8, W, H, 4), 0);
    CHECK_INT(vmaf_read_pictures(NULL, &ref, &dist, 0), -EINVAL);

    /* Too small for float_ssim (10x10 < 11x11): refused with a reason. */
    vmaf = ctx_with(0, 0, NULL, NULL);
    CHECK_INT(make_pair(&ref, &dist, 8, 10, 10, 5), 0);
    capture_begin();
    err = vmaf_read_pictures(vmaf, &ref, &dist, 0);
    if (!err)
        err = vmaf_read_pictures(vmaf, NULL, NULL, 0);
    log = capture_end();
    CHECK(err < 0);
    CHECK(strstr(log, "10x10") || strstr(log, "11"));
    vmaf_close(vmaf);

    /* A context closed without a flush flushes (and frees) what it holds. */
    vmaf = ctx_with(2, 0, NULL, NULL);
    for (unsigned i = 0; i < 4; i++) {
        CHECK_INT(make_pair(&ref, &dist, 8, W, H, i), 0);
        CHECK_INT(vmaf_read_pictures(vmaf, &ref, &dist, i), 0);
    }
    CHECK_INT(vmaf_close(vmaf), 0);
}

typedef struct LogSeen {
    unsigned calls, errors;
    enum VmafLogLevel level;
    size_t len;     /* of the whole message */
    char msg[1024]; /* its start */
    char end[40];   /* its last characters */
} LogSeen;

static void on_log(void *opaque, enum VmafLogLevel level, const char *message)
{
    LogSeen *seen = opaque;
    seen->calls++;
    seen->errors += level == VMAF_LOG_LEVEL_ERROR;
    seen->level = level;
    seen->len = strlen(message);
    snprintf(seen->msg, sizeof(seen->msg), "%s", message);
    snprintf(seen->end, sizeof(seen->end), "%s",
             message + (seen->len > 39 ? seen->len - 39 : 0));
}

/* The log callback takes every message the level lets through, bare (no
 * prefix, no newline), from the caller's thread and from worker threads,
 * and nothing reaches stderr while it is set; NULL gives stderr back. */
static void test_log_callback(void)
{
    LogSeen seen = { 0 };
    VmafContext *vmaf = NULL;
    VmafConfiguration cfg = { .log_level = VMAF_LOG_LEVEL_ERROR };
    CHECK_INT(vmaf_init(&vmaf, cfg), 0);
    vmaf_set_log_callback(on_log, &seen);
    capture_begin();
    CHECK_INT(vmaf_use_feature(vmaf, "no_such_feature", NULL), -EINVAL);
    const char *log = capture_end();
    CHECK(log[0] == '\0');
    CHECK_INT(seen.calls, 1);
    CHECK(seen.level == VMAF_LOG_LEVEL_ERROR);
    CHECK(strstr(seen.msg, "no_such_feature") != NULL);
    CHECK(!strchr(seen.msg, '\n') && strncmp(seen.msg, "libvmaf", 7) != 0);

    /* A caller's name with a newline is echoed on one line; a message
     * longer than any fixed buffer (a long name) is whole. */
    CHECK_INT(vmaf_use_feature(vmaf, "two\nlines", NULL), -EINVAL);
    CHECK(!strchr(seen.msg, '\n') && strstr(seen.msg, "two?lines") != NULL);
    char longname[3000];
    memset(longname, 'x', sizeof(longname) - 2);
    longname[sizeof(longname) - 2] = 'y';
    longname[sizeof(longname) - 1] = '\0';
    CHECK_INT(vmaf_use_feature(vmaf, longname, NULL), -EINVAL);
    /* Whole: it ends with the list of extractors, in brackets. */
    CHECK(seen.len > sizeof(longname) && strstr(seen.end, ", ") != NULL &&
          seen.end[strlen(seen.end) - 1] == ')', "%s", seen.end);
    CHECK_INT(vmaf_close(vmaf), 0);

    /* The level filters first: at NONE the callback hears nothing. */
    cfg.log_level = VMAF_LOG_LEVEL_NONE;
    CHECK_INT(vmaf_init(&vmaf, cfg), 0);
    const unsigned heard = seen.calls;
    CHECK_INT(vmaf_use_feature(vmaf, "no_such_feature", NULL), -EINVAL);
    CHECK_INT(seen.calls, heard);
    CHECK_INT(vmaf_close(vmaf), 0);

    /* A picture too small, refused on a worker thread: the reason still
     * comes to the callback, never to stderr. */
    vmaf = ctx_with(2, 0, NULL, NULL);
    VmafPicture ref, dist;
    CHECK_INT(make_pair(&ref, &dist, 8, 10, 10, 5), 0);
    capture_begin();
    int err = vmaf_read_pictures(vmaf, &ref, &dist, 0);
    if (!err)
        err = vmaf_read_pictures(vmaf, NULL, NULL, 0);
    log = capture_end();
    CHECK(err < 0);
    CHECK(log[0] == '\0');
    CHECK(seen.errors > heard && strstr(seen.msg, "10x10") != NULL);
    vmaf_close(vmaf);

    vmaf_set_log_callback(NULL, NULL);
    const unsigned calls = seen.calls;
    cfg.log_level = VMAF_LOG_LEVEL_ERROR;
    CHECK_INT(vmaf_init(&vmaf, cfg), 0);
    capture_begin();
    CHECK_INT(vmaf_use_feature(vmaf, "no_such_feature", NULL), -EINVAL);
    log = capture_end();
    CHECK(!strncmp(log, "libvmaf: error: ", 16) && strstr(log, "no_such_feature") != NULL);
    CHECK_INT(seen.calls, calls);
    CHECK_INT(vmaf_close(vmaf), 0);
}

/* New pictures start at zero, padding included, as libvmaf's do, even
 * where the heap hands back memory that earlier pictures dirtied: a caller
 * that leaves samples unwritten gets the same scores on every run. Batches
 * of eight, dirtied and released together, so that the next batch reuses
 * their blocks (the library keeps freed blocks for reuse). */
static void test_picture_zeroed(void)
{
    for (unsigned bpc = 8; bpc <= 10; bpc += 2) {
        for (int batch = 0; batch < 3; batch++) {
            VmafPicture pic[8];
            size_t nonzero = 0;
            for (int j = 0; j < 8; j++) {
                CHECK_INT(vmaf_picture_alloc(&pic[j], VMAF_PIX_FMT_YUV420P, bpc, 201, 99), 0);
                for (unsigned p = 0; p < 3; p++) {
                    const size_t n = (size_t)pic[j].stride[p] * pic[j].h[p];
                    const uint8_t *b = pic[j].data[p];
                    for (size_t i = 0; i < n; i++)
                        nonzero += b[i] != 0;
                    memset(pic[j].data[p], 0xA5, n);
                }
            }
            if (nonzero)
                fprintf(stderr, "%u-bit batch %d: new pictures hold %zu non-zero bytes\n", bpc,
                        batch, nonzero);
            CHECK(nonzero == 0);
            for (int j = 0; j < 8; j++)
                vmaf_picture_unref(&pic[j]);
        }
    }
}

/* Duplicates on worker threads and against imported scores: refused at the
 * call, before the frame is queued, so that nothing surfaces at the flush. */
static void test_duplicate_index(void)
{
    for (unsigned threads = 0; threads <= 2; threads += 2) {
        VmafContext *vmaf = ctx_with(threads, 0, NULL, NULL);
        VmafPicture ref, dist;
        /* float_ssim imported for frame 2 before it is read. */
        CHECK_INT(vmaf_import_feature_score(vmaf, "float_ssim", 0.5, 2), 0);
        /* A feature float_ssim does not write with these options may be imported. */
        CHECK_INT(vmaf_import_feature_score(vmaf, "float_ssim_l", 0.5, 3), 0);
        for (unsigned i = 0; i < 4; i++) {
            CHECK_INT(make_pair(&ref, &dist, 8, W, H, i), 0);
            capture_begin();
            int err = vmaf_read_pictures(vmaf, &ref, &dist, i);
            const char *log = capture_end();
            if (i == 2) {
                CHECK_INT(err, -EINVAL);
                CHECK(strstr(log, "frame 2") != NULL && strstr(log, "float_ssim") != NULL);
            } else {
                CHECK_INT(err, 0);
            }
        }
        /* Read again while a worker may still score it. */
        CHECK_INT(make_pair(&ref, &dist, 8, W, H, 9), 0);
        capture_begin();
        CHECK_INT(vmaf_read_pictures(vmaf, &ref, &dist, 1), -EINVAL);
        const char *log = capture_end();
        CHECK(strstr(log, "already read") != NULL);
        /* Importing what float_ssim writes for a frame read: refused even
         * before the worker stored it; other features are fine. */
        capture_begin();
        CHECK_INT(vmaf_import_feature_score(vmaf, "float_ssim", 0.25, 3), -EINVAL);
        log = capture_end();
        CHECK(strstr(log, "frame 3") != NULL);
        CHECK_INT(vmaf_import_feature_score(vmaf, "external", 0.25, 3), 0);
        /* A nameless score would be a nameless JSON key and CSV column. */
        capture_begin();
        CHECK_INT(vmaf_import_feature_score(vmaf, "", 0.25, 5), -EINVAL);
        log = capture_end();
        CHECK(strstr(log, "name is empty") != NULL);
        CHECK_INT(make_pair(&ref, &dist, 8, W, H, 4), 0);
        CHECK_INT(vmaf_read_pictures(vmaf, &ref, &dist, 4), 0);
        CHECK_INT(vmaf_read_pictures(vmaf, NULL, NULL, 0), 0);
        double s;
        for (unsigned i = 0; i < 5; i++) {
            CHECK_INT(vmaf_feature_score_at_index(vmaf, "float_ssim", &s, i), 0);
            if (i == 2)
                CHECK(s == 0.5);
            else
                CHECK(s > 0.0 && s < 1.0 && s != 0.25);
        }
        CHECK_INT(vmaf_close(vmaf), 0);
    }

    /* With subsampling a frame left out is still read once; a score
     * imported for it does not clash, as no extractor writes one. */
    VmafContext *vmaf = ctx_with(0, 2, NULL, NULL);
    VmafPicture ref, dist;
    CHECK_INT(vmaf_import_feature_score(vmaf, "float_ssim", 0.5, 1), 0);
    for (unsigned i = 0; i < 3; i++) {
        CHECK_INT(make_pair(&ref, &dist, 8, W, H, i), 0);
        CHECK_INT(vmaf_read_pictures(vmaf, &ref, &dist, i), 0);
    }
    CHECK_INT(make_pair(&ref, &dist, 8, W, H, 1), 0);
    capture_begin();
    CHECK_INT(vmaf_read_pictures(vmaf, &ref, &dist, 1), -EINVAL);
    capture_end();
    CHECK_INT(vmaf_read_pictures(vmaf, NULL, NULL, 0), 0);
    CHECK_INT(vmaf_close(vmaf), 0);
}

#define FRAMES 8

/* Scores FRAMES pairs in the given index order; returns the per-frame scores. */
static void score_run(unsigned threads, const unsigned *order, unsigned bpc, double *out,
                      const char *key, const char *val)
{
    VmafContext *vmaf = ctx_with(threads, 0, key, val);
    for (unsigned k = 0; k < FRAMES; k++) {
        VmafPicture ref, dist;
        CHECK_INT(make_pair(&ref, &dist, bpc, W, H, 100 + order[k]), 0);
        CHECK_INT(vmaf_read_pictures(vmaf, &ref, &dist, order[k]), 0);
    }
    CHECK_INT(vmaf_read_pictures(vmaf, NULL, NULL, 0), 0);
    for (unsigned i = 0; i < FRAMES; i++) {
        out[i] = NAN;
        CHECK_INT(vmaf_feature_score_at_index(vmaf, "float_ssim", &out[i], i), 0);
    }
    CHECK_INT(vmaf_close(vmaf), 0);
}

static void test_threads_and_order(void)
{
    static const unsigned in_order[FRAMES] = { 0, 1, 2, 3, 4, 5, 6, 7 };
    static const unsigned shuffled[FRAMES] = { 5, 0, 7, 2, 1, 6, 3, 4 };
    static const unsigned bpcs[] = { 8, 10 };
    for (size_t b = 0; b < 2; b++) {
        double base[FRAMES], other[FRAMES];
        score_run(0, in_order, bpcs[b], base, NULL, NULL);
        for (unsigned i = 0; i < FRAMES; i++)
            CHECK(base[i] > 0.0 && base[i] < 1.0);
        /* Different content gives different scores (the test can see a mix-up). */
        CHECK(base[0] != base[1]);
        score_run(3, in_order, bpcs[b], other, NULL, NULL);
        CHECK(!memcmp(base, other, sizeof(base)));
        score_run(0, shuffled, bpcs[b], other, NULL, NULL);
        CHECK(!memcmp(base, other, sizeof(base)));
        score_run(2, shuffled, bpcs[b], other, NULL, NULL);
        CHECK(!memcmp(base, other, sizeof(base)));
        /* An option changes the scores; twice the same option gives the same. */
        double s1[FRAMES], s1b[FRAMES];
        score_run(0, in_order, bpcs[b], s1, "scale", "2");
        score_run(4, shuffled, bpcs[b], s1b, "scale", "2");
        CHECK(memcmp(base, s1, sizeof(base)) != 0);
        CHECK(!memcmp(s1, s1b, sizeof(s1)));
    }
}

static void test_scores_and_pooling(void)
{
    VmafContext *vmaf = ctx_with(0, 0, NULL, NULL);
    double v[4];
    read_and_flush(vmaf, 4, 7, 1);
    for (unsigned i = 0; i < 4; i++)
        CHECK_INT(vmaf_feature_score_at_index(vmaf, "float_ssim", &v[i], i), 0);

    double s;
    CHECK_INT(vmaf_feature_score_at_index(vmaf, "float_ssim", &s, 4), -EINVAL);
    CHECK_INT(vmaf_feature_score_at_index(vmaf, "float_ssim_l", &s, 0), -EINVAL);
    CHECK_INT(vmaf_feature_score_at_index(vmaf, "nothing", &s, 0), -EINVAL);
    CHECK_INT(vmaf_feature_score_at_index(vmaf, "float_ssim", NULL, 0), -EINVAL);
    CHECK_INT(vmaf_feature_score_at_index(vmaf, NULL, &s, 0), -EINVAL);
    CHECK_INT(vmaf_feature_score_at_index(NULL, "float_ssim", &s, 0), -EINVAL);

    /* Pooling in frame order, as the reference: min, max, sum/n, n/sum(1/(x+1)) - 1. */
    double mn = v[0], mx = v[0], sum = 0, inv = 0;
    for (unsigned i = 0; i < 4; i++) {
        mn = v[i] < mn ? v[i] : mn;
        mx = v[i] > mx ? v[i] : mx;
        sum += v[i];
        inv += 1.0 / (v[i] + 1.0);
    }
    CHECK_INT(vmaf_feature_score_pooled(vmaf, "float_ssim", VMAF_POOL_METHOD_MIN, &s, 0, 3), 0);
    CHECK(s == mn);
    CHECK_INT(vmaf_feature_score_pooled(vmaf, "float_ssim", VMAF_POOL_METHOD_MAX, &s, 0, 3), 0);
    CHECK(s == mx);
    CHECK_INT(vmaf_feature_score_pooled(vmaf, "float_ssim", VMAF_POOL_METHOD_MEAN, &s, 0, 3), 0);
    CHECK(s == sum / 4);
    CHECK_INT(vmaf_feature_score_pooled(vmaf, "float_ssim", VMAF_POOL_METHOD_HARMONIC_MEAN, &s,
                                        0, 3), 0);
    CHECK(s == 4 / inv - 1.0);
    CHECK_INT(vmaf_feature_score_pooled(vmaf, "float_ssim", VMAF_POOL_METHOD_MEAN, &s, 2, 2), 0);
    CHECK(s == v[2]);
    /* Empty, reversed or incomplete ranges and unknown methods. */
    CHECK_INT(vmaf_feature_score_pooled(vmaf, "float_ssim", VMAF_POOL_METHOD_MEAN, &s, 3, 2),
              -EINVAL);
    CHECK_INT(vmaf_feature_score_pooled(vmaf, "float_ssim", VMAF_POOL_METHOD_MEAN, &s, 0, 4),
              -EINVAL);
    CHECK_INT(vmaf_feature_score_pooled(vmaf, "float_ssim", VMAF_POOL_METHOD_UNKNOWN, &s, 0, 3),
              -EINVAL);
    CHECK_INT(vmaf_feature_score_pooled(vmaf, "float_ssim", VMAF_POOL_METHOD_NB, &s, 0, 3),
              -EINVAL);
    CHECK_INT(vmaf_feature_score_pooled(vmaf, "nothing", VMAF_POOL_METHOD_MEAN, &s, 0, 3),
              -EINVAL);

    /* Imported scores: stored once, read back, pooled. */
    CHECK_INT(vmaf_import_feature_score(vmaf, "external", 0.25, 0), 0);
    CHECK_INT(vmaf_import_feature_score(vmaf, "external", 0.75, 1), 0);
    capture_begin();
    CHECK_INT(vmaf_import_feature_score(vmaf, "external", 0.5, 0), -EINVAL);
    capture_end();
    CHECK_INT(vmaf_feature_score_at_index(vmaf, "external", &s, 0), 0);
    CHECK(s == 0.25);
    CHECK_INT(vmaf_feature_score_pooled(vmaf, "external", VMAF_POOL_METHOD_MEAN, &s, 0, 1), 0);
    CHECK(s == 0.5);
    CHECK_INT(vmaf_import_feature_score(vmaf, NULL, 0.5, 0), -EINVAL);
    CHECK_INT(vmaf_import_feature_score(NULL, "x", 0.5, 0), -EINVAL);
    /* An index beyond the collector's range is not "a score given twice". */
    capture_begin();
    CHECK_INT(vmaf_import_feature_score(vmaf, "x", 0.5, 0x7fffffffu), -EINVAL);
    const char *log = capture_end();
    CHECK(strstr(log, "too large") != NULL && !strstr(log, "already"));
    CHECK_INT(vmaf_close(vmaf), 0);

    /* min and max start from the first frame counted, as in libvmaf v3: a
     * NaN there is the result, all-NaN is NaN (not +inf/-inf), a NaN after
     * it is skipped by the comparisons. */
    CHECK_INT(vmaf_init(&vmaf, (VmafConfiguration){ .log_level = VMAF_LOG_LEVEL_ERROR }), 0);
    const double nan = NAN;
    const double first_nan[] = { nan, 1.0, 2.0 }, all_nan[] = { nan, nan, nan },
                 later_nan[] = { 1.0, nan, 2.0 };
    for (unsigned i = 0; i < 3; i++) {
        CHECK_INT(vmaf_import_feature_score(vmaf, "first_nan", first_nan[i], i), 0);
        CHECK_INT(vmaf_import_feature_score(vmaf, "all_nan", all_nan[i], i), 0);
        CHECK_INT(vmaf_import_feature_score(vmaf, "later_nan", later_nan[i], i), 0);
    }
    const char *names[] = { "first_nan", "all_nan" };
    for (unsigned k = 0; k < 2; k++) {
        s = 0;
        CHECK_INT(vmaf_feature_score_pooled(vmaf, names[k], VMAF_POOL_METHOD_MIN, &s, 0, 2), 0);
        CHECK(isnan(s));
        s = 0;
        CHECK_INT(vmaf_feature_score_pooled(vmaf, names[k], VMAF_POOL_METHOD_MAX, &s, 0, 2), 0);
        CHECK(isnan(s));
    }
    CHECK_INT(vmaf_feature_score_pooled(vmaf, "first_nan", VMAF_POOL_METHOD_MIN, &s, 1, 2), 0);
    CHECK(s == 1.0);
    CHECK_INT(vmaf_feature_score_pooled(vmaf, "later_nan", VMAF_POOL_METHOD_MIN, &s, 0, 2), 0);
    CHECK(s == 1.0);
    CHECK_INT(vmaf_feature_score_pooled(vmaf, "later_nan", VMAF_POOL_METHOD_MAX, &s, 0, 2), 0);
    CHECK(s == 2.0);
    CHECK_INT(vmaf_close(vmaf), 0);
}

static void test_subsample(void)
{
    VmafContext *vmaf = ctx_with(0, 2, NULL, NULL);
    double full[5];
    read_and_flush(vmaf, 5, 3, 2);
    double s;
    for (unsigned i = 0; i < 5; i++) {
        int err = vmaf_feature_score_at_index(vmaf, "float_ssim", &full[i], i);
        if (i % 2)
            CHECK_INT(err, -EINVAL);
        else
            CHECK_INT(err, 0);
    }
    /* The pool covers the scored frames only. */
    CHECK_INT(vmaf_feature_score_pooled(vmaf, "float_ssim", VMAF_POOL_METHOD_MEAN, &s, 0, 4), 0);
    CHECK(s == (full[0] + full[2] + full[4]) / 3);
    /* MIN and MAX of a range whose first index is subsampled out are those
     * of the frames pooled (libvmaf v3 starts such a range from 0, so its
     * minimum of positive scores is 0). */
    CHECK_INT(vmaf_feature_score_pooled(vmaf, "float_ssim", VMAF_POOL_METHOD_MIN, &s, 1, 4), 0);
    CHECK(s == (full[2] < full[4] ? full[2] : full[4]));
    CHECK_INT(vmaf_feature_score_pooled(vmaf, "float_ssim", VMAF_POOL_METHOD_MAX, &s, 1, 4), 0);
    CHECK(s == (full[2] > full[4] ? full[2] : full[4]));
    CHECK_INT(vmaf_close(vmaf), 0);

    /* They start from the first frame scored, not the first of the range:
     * a NaN there is the result, and a score imported for a frame left
     * out (0.9 at frame 1) is never compared. */
    CHECK_INT(vmaf_init(&vmaf, (VmafConfiguration){ .log_level = VMAF_LOG_LEVEL_ERROR,
                                                    .n_subsample = 2 }), 0);
    const double in_range[] = { 0.9, 0.5, 0.1, 0.7 }, nan_first[] = { 0.9, NAN, 0.1, 0.7 };
    for (unsigned i = 0; i < 4; i++) {
        CHECK_INT(vmaf_import_feature_score(vmaf, "in_range", in_range[i], i + 1), 0);
        CHECK_INT(vmaf_import_feature_score(vmaf, "nan_first", nan_first[i], i + 1), 0);
    }
    CHECK_INT(vmaf_feature_score_pooled(vmaf, "in_range", VMAF_POOL_METHOD_MIN, &s, 1, 4), 0);
    CHECK(s == 0.5);
    CHECK_INT(vmaf_feature_score_pooled(vmaf, "in_range", VMAF_POOL_METHOD_MAX, &s, 1, 4), 0);
    CHECK(s == 0.7);
    s = 0;
    CHECK_INT(vmaf_feature_score_pooled(vmaf, "nan_first", VMAF_POOL_METHOD_MIN, &s, 1, 4), 0);
    CHECK(isnan(s));
    s = 0;
    CHECK_INT(vmaf_feature_score_pooled(vmaf, "nan_first", VMAF_POOL_METHOD_MAX, &s, 1, 4), 0);
    CHECK(isnan(s));
    CHECK_INT(vmaf_close(vmaf), 0);
}

static int dir_count(const char *dir)
{
    int n = 0;
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    for (struct dirent *e; (e = readdir(d));)
        n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    closedir(d);
    return n;
}

static void test_write_output(void)
{
    VmafContext *vmaf = ctx_with(0, 0, NULL, NULL);
    read_and_flush(vmaf, 2, 1, 40);

    char dir[] = "/tmp/vmaf_api_out_XXXXXX";
    if (!mkdtemp(dir))
        exit(99);
    char path[128], sub[128];
    snprintf(path, sizeof(path), "%s/report.xml", dir);
    snprintf(sub, sizeof(sub), "%s/subdir", dir);

    static const enum VmafOutputFormat fmts[] = { VMAF_OUTPUT_FORMAT_XML, VMAF_OUTPUT_FORMAT_JSON,
                                                  VMAF_OUTPUT_FORMAT_CSV, VMAF_OUTPUT_FORMAT_SUB };
    for (size_t i = 0; i < 4; i++) {
        CHECK_INT(vmaf_write_output(vmaf, path, fmts[i]), 0);
        struct stat st;
        CHECK(stat(path, &st) == 0 && st.st_size > 0);
        CHECK_INT(dir_count(dir), 1);
    }
    /* Bad formats: nothing written, the old report is kept. */
    struct stat before, after;
    CHECK(stat(path, &before) == 0);
    capture_begin();
    CHECK_INT(vmaf_write_output(vmaf, path, (enum VmafOutputFormat)99), -EINVAL);
    CHECK_INT(vmaf_write_output_with_format(vmaf, path, VMAF_OUTPUT_FORMAT_JSON, "%d"), -EINVAL);
    CHECK_INT(vmaf_write_output_with_format(vmaf, path, VMAF_OUTPUT_FORMAT_JSON, "%s"), -EINVAL);
    CHECK_INT(vmaf_write_output_with_format(vmaf, path, VMAF_OUTPUT_FORMAT_JSON, "%f%n"),
              -EINVAL);
    CHECK_INT(vmaf_write_output_with_format(vmaf, path, VMAF_OUTPUT_FORMAT_JSON, "%f %f"),
              -EINVAL);
    CHECK_INT(vmaf_write_output_with_format(vmaf, path, VMAF_OUTPUT_FORMAT_JSON, ""), -EINVAL);
    capture_end();
    CHECK(stat(path, &after) == 0 && after.st_size == before.st_size);
    CHECK_INT(vmaf_write_output_with_format(vmaf, path, VMAF_OUTPUT_FORMAT_JSON, "%.17g"), 0);

    /* Unwritable targets: a negative errno, a message naming the path, and no
     * file left anywhere. */
    CHECK_INT(mkdir(sub, 0755), 0);
    capture_begin();
    int err = vmaf_write_output(vmaf, sub, VMAF_OUTPUT_FORMAT_JSON);
    const char *log = capture_end();
    CHECK(err < 0);
    CHECK(strstr(log, "subdir") != NULL);
    struct stat st;
    CHECK(stat(sub, &st) == 0 && S_ISDIR(st.st_mode));
    CHECK_INT(dir_count(sub), 0);

    char missing[160];
    snprintf(missing, sizeof(missing), "%s/no/such/dir/r.json", dir);
    capture_begin();
    CHECK(vmaf_write_output(vmaf, missing, VMAF_OUTPUT_FORMAT_JSON) < 0);
    capture_end();

    if (access("/dev/full", W_OK) == 0) {
        capture_begin();
        err = vmaf_write_output(vmaf, "/dev/full", VMAF_OUTPUT_FORMAT_XML);
        log = capture_end();
        if (err >= 0)
            fprintf(stderr, "writing to /dev/full succeeded (%d) [%s]\n", err, log);
        CHECK(err < 0);
    }
    CHECK_INT(dir_count(dir), 2); /* report.xml and subdir, no temporary files */
    CHECK_INT(vmaf_write_output(NULL, path, VMAF_OUTPUT_FORMAT_XML), -EINVAL);
    CHECK_INT(vmaf_write_output(vmaf, NULL, VMAF_OUTPUT_FORMAT_XML), -EINVAL);

    /* Before the flush, with worker threads: the report waits for every
     * frame read so far, as it does without threads. */
    VmafContext *threaded = ctx_with(3, 0, NULL, NULL);
    for (unsigned i = 0; i < 6; i++) {
        VmafPicture ref, dist;
        CHECK_INT(make_pair(&ref, &dist, 8, W, H, 7 * i + 3), 0);
        CHECK_INT(vmaf_read_pictures(threaded, &ref, &dist, i), 0);
    }
    CHECK_INT(vmaf_write_output(threaded, path, VMAF_OUTPUT_FORMAT_CSV), 0);
    FILE *csv = fopen(path, "r");
    int lines = 0;
    for (int ch; csv && (ch = fgetc(csv)) != EOF;)
        lines += ch == '\n';
    if (csv)
        fclose(csv);
    CHECK_INT(lines, 1 + 6); /* the header and every frame read */
    CHECK_INT(vmaf_close(threaded), 0);

    rmdir(sub);
    unlink(path);
    rmdir(dir);
    CHECK_INT(vmaf_close(vmaf), 0);
}

/* vmaf_output_path_check(): the answer vmaf_write_output() would give,
 * one line when it is no, and nothing left behind either way. */
static void test_output_path_check(void)
{
    char dir[] = "/tmp/vmaf_api_check_XXXXXX";
    if (!mkdtemp(dir))
        exit(99);
    char path[160], sub[160], missing[160], slash[160], under_file[200], link[160];
    snprintf(path, sizeof(path), "%s/report.json", dir);
    snprintf(sub, sizeof(sub), "%s/subdir", dir);
    snprintf(missing, sizeof(missing), "%s/no/such/r.json", dir);
    snprintf(slash, sizeof(slash), "%s/new/", dir);
    snprintf(under_file, sizeof(under_file), "%s/x.json", path);
    snprintf(link, sizeof(link), "%s/dangling.json", dir);
    CHECK_INT(vmaf_output_path_check("-"), 0);
    CHECK_INT(vmaf_output_path_check(path), 0);
    CHECK_INT(dir_count(dir), 0);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f)
        fclose(f);
    CHECK_INT(vmaf_output_path_check(path), 0);
    CHECK_INT(mkdir(sub, 0755), 0);
    CHECK_INT(symlink("no/such/r.json", link), 0);
    static const struct { const char *what; int err; } want[] = {
        { "a directory", -EISDIR }, { "a missing directory", -ENOENT },
        { "a path ending in /", -EISDIR }, { "a path under a file", -ENOTDIR },
        { "a dangling link into a missing directory", -ENOENT },
    };
    const char *paths[] = { sub, missing, slash, under_file, link };
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        capture_begin();
        const int err = vmaf_output_path_check(paths[i]);
        const char *log = capture_end();
        CHECK(err == want[i].err && count_lines(log) == 1 && strstr(log, paths[i]),
              "%s: %d, log [%s]", want[i].what, err, log);
    }
    CHECK_INT(dir_count(dir), 3); /* report.json, subdir, the link: no temporary file */
    CHECK_INT(dir_count(sub), 0);
    capture_begin();
    CHECK_INT(vmaf_output_path_check(NULL), -EINVAL);
    CHECK_INT(vmaf_output_path_check(""), -EINVAL);
    CHECK_INT(count_lines(capture_end()), 2);
    unlink(link);
    rmdir(sub);
    unlink(path);
    rmdir(dir);
}

/* vmaf_feature_extractor_info() and the twins of a build without CUDA. */
static void test_extractor_info(void)
{
    const char *cpu = NULL;
    CHECK_INT(vmaf_feature_extractor_info("float_ssim", &cpu), 0);
    CHECK(cpu && !strcmp(cpu, "float_ssim"));
    CHECK_INT(vmaf_feature_extractor_info("motion", NULL), 0);
    cpu = NULL;
    CHECK_INT(vmaf_feature_extractor_info("float_ssim_cuda", &cpu),
              VMAF_TEST_HAVE_CUDA ? 0 : -ENODEV);
    CHECK(cpu && !strcmp(cpu, "float_ssim"));
    cpu = "unchanged";
    CHECK_INT(vmaf_feature_extractor_info("float_ssim_l", &cpu), -ENOENT);
    CHECK_INT(vmaf_feature_extractor_info("no_such_cuda", &cpu), -ENOENT);
    CHECK(!strcmp(cpu, "unchanged"));
    CHECK_INT(vmaf_feature_extractor_info(NULL, &cpu), -EINVAL);
    /* The twin of a build without CUDA is refused by its own code, with
     * one line, and the options stay the caller's; with CUDA it is taken
     * (its GPU is needed only once pictures come). */
    VmafContext *vmaf = NULL;
    CHECK_INT(vmaf_init(&vmaf, (VmafConfiguration){ .log_level = VMAF_LOG_LEVEL_ERROR }), 0);
    VmafFeatureDictionary *d = NULL;
    CHECK_INT(vmaf_feature_dictionary_set(&d, "scale", "2"), 0);
    capture_begin();
    const int err = vmaf_use_feature(vmaf, "float_ssim_cuda", d);
    const char *log = capture_end();
    if (VMAF_TEST_HAVE_CUDA) {
        CHECK(err == 0 && !log[0], "%d [%s]", err, log);
    } else {
        CHECK(err == -ENODEV && count_lines(log) == 1 && strstr(log, "no CUDA support"),
              "%d [%s]", err, log);
        CHECK_INT(vmaf_feature_dictionary_free(&d), 0);
    }
    CHECK_INT(vmaf_close(vmaf), 0);
}

/* vmaf_model_builtin_version(): every built-in, each loadable by its kind. */
static void test_builtin_models(void)
{
    unsigned n = 0, collections = 0, v061 = 0;
    const char *v;
    int is_collection = -1;
    for (; (v = vmaf_model_builtin_version(n, &is_collection)); n++) {
        v061 += !strcmp(v, "vmaf_v0.6.1") && !is_collection;
        VmafModel *m = NULL;
        VmafModelCollection *mc = NULL;
        VmafModelConfig cfg = { 0 };
        const int err = is_collection ? vmaf_model_collection_load(&m, &mc, &cfg, v)
                                      : vmaf_model_load(&m, &cfg, v);
        CHECK(err == 0, "built-in %s (collection %d): %d", v, is_collection, err);
        collections += is_collection == 1;
        vmaf_model_collection_destroy(mc);
        vmaf_model_destroy(m);
    }
    CHECK_INT(n, 5);
    CHECK_INT(collections, 1);
    CHECK_INT(v061, 1);
    CHECK(vmaf_model_builtin_version(n, NULL) == NULL);
}

/* Every failure says why, once: each refused call below logs exactly one
 * error line. A score that is not there is a lookup's answer and logs
 * nothing. */
static void test_failures_are_logged(void)
{
    LogSeen seen = { 0 };
    VmafContext *vmaf = NULL;
    CHECK_INT(vmaf_init(&vmaf, (VmafConfiguration){ .log_level = VMAF_LOG_LEVEL_ERROR }), 0);
    vmaf_set_log_callback(on_log, &seen);
    VmafPicture pic = { 0 };
    VmafFeatureDictionary *d = NULL;
    double v;
    unsigned before = seen.errors;
#define LOGGED_ONCE(call, want, needle)                                                        \
    do {                                                                                       \
        before = seen.errors;                                                                  \
        CHECK_INT(call, want);                                                                 \
        CHECK_INT(seen.errors - before, 1);                                                    \
        CHECK(strstr(seen.msg, needle) != NULL);                                               \
    } while (0)
    LOGGED_ONCE(vmaf_init(NULL, (VmafConfiguration){ 0 }), -EINVAL, "vmaf_init");
    LOGGED_ONCE(vmaf_picture_alloc(&pic, VMAF_PIX_FMT_YUV420P, 9, 64, 48), -EINVAL,
                "9 bits per sample");
    LOGGED_ONCE(vmaf_picture_alloc(NULL, VMAF_PIX_FMT_YUV420P, 8, 64, 48), -EINVAL, "NULL");
    LOGGED_ONCE(vmaf_picture_alloc(&pic, VMAF_PIX_FMT_YUV420P, 8, 0, 48), -EINVAL, "0x48");
    LOGGED_ONCE(vmaf_picture_alloc(&pic, VMAF_PIX_FMT_YUV420P, 8, 64, 65537), -EINVAL,
                "64x65537");
    LOGGED_ONCE(vmaf_picture_alloc(&pic, (enum VmafPixelFormat)77, 8, 64, 48), -EINVAL,
                "pixel format 77");
    LOGGED_ONCE(vmaf_picture_unref(&pic), -EINVAL, "no reference");
    LOGGED_ONCE(vmaf_picture_unref(NULL), -EINVAL, "NULL");
    LOGGED_ONCE(vmaf_feature_dictionary_set(&d, NULL, "1"), -EINVAL, "key");
    LOGGED_ONCE(vmaf_feature_dictionary_set(&d, "scale", NULL), -EINVAL, "value");
    LOGGED_ONCE(vmaf_feature_dictionary_set(NULL, "scale", "1"), -EINVAL, "dictionary");
    LOGGED_ONCE(vmaf_import_feature_score(NULL, "x", 1.0, 0), -EINVAL, "NULL");
    LOGGED_ONCE(vmaf_feature_score_at_index(vmaf, NULL, &v, 0), -EINVAL, "NULL");
    LOGGED_ONCE(vmaf_feature_score_pooled(vmaf, "x", VMAF_POOL_METHOD_NB, &v, 0, 0), -EINVAL,
                "pooling method");
    LOGGED_ONCE(vmaf_feature_score_pooled(vmaf, "x", VMAF_POOL_METHOD_MEAN, &v, 2, 1), -EINVAL,
                "index_low");
    /* The CUDA entry points, in a build with CUDA (no state imported here)
     * and in one without (no support): one line either way. */
    LOGGED_ONCE(vmaf_cuda_state_init(NULL, (VmafCudaConfiguration){ 0 }), -EINVAL, "cuda");
    LOGGED_ONCE(vmaf_cuda_import_state(vmaf, NULL), -EINVAL, "cuda");
    /* With CUDA, the context has no state (-EINVAL); without, every call
     * with its arguments given is -ENODEV, the state too. */
    const int no_state = VMAF_TEST_HAVE_CUDA ? -EINVAL : -ENODEV;
    before = seen.errors;
    CHECK_INT(vmaf_cuda_preallocate_pictures(vmaf, (VmafCudaPictureConfiguration){ 0 }),
              no_state);
    CHECK_INT(seen.errors - before, 1);
    before = seen.errors;
    CHECK_INT(vmaf_cuda_fetch_preallocated_picture(vmaf, &pic), no_state);
    CHECK_INT(seen.errors - before, 1);
    if (!VMAF_TEST_HAVE_CUDA) {
        VmafCudaState *cu = (VmafCudaState *)&v; /* must be set to NULL */
        CHECK_INT(vmaf_cuda_state_init(&cu, (VmafCudaConfiguration){ 0 }), -ENODEV);
        CHECK(cu == NULL);
    }
#undef LOGGED_ONCE
    /* Lookups that find nothing answer -EINVAL quietly. */
    const unsigned calls = seen.calls;
    CHECK_INT(vmaf_feature_score_at_index(vmaf, "absent", &v, 0), -EINVAL);
    CHECK_INT(vmaf_feature_score_pooled(vmaf, "absent", VMAF_POOL_METHOD_MEAN, &v, 0, 3),
              -EINVAL);
    CHECK_INT(seen.calls, calls);
    vmaf_set_log_callback(NULL, NULL);
    vmaf_feature_dictionary_free(&d);
    CHECK_INT(vmaf_close(vmaf), 0);
}

/* A context that failed says so on every later call (the first call to
 * hand the failure back adds nothing: its reason was logged when it
 * happened); closing it adds nothing either. Misuse that would read past a
 * picture, or request features that can never run, is refused with one
 * line. */
static void test_failed_context_and_misuse(void)
{
    LogSeen seen = { 0 };
    VmafContext *vmaf = ctx_with(0, 0, NULL, NULL);
    vmaf_set_log_callback(on_log, &seen);
    VmafPicture ref, dist;
    unsigned before;

    /* 8x8 is too small for float_ssim: the first read fails with its reason. */
    CHECK_INT(make_pair(&ref, &dist, 8, 8, 8, 1), 0);
    before = seen.errors;
    const int err = vmaf_read_pictures(vmaf, &ref, &dist, 0);
    CHECK(err < 0);
    CHECK_INT(seen.errors - before, 1);
    for (unsigned i = 1; i <= 2; i++) {
        CHECK_INT(make_pair(&ref, &dist, 8, 8, 8, 1), 0);
        before = seen.errors;
        CHECK_INT(vmaf_read_pictures(vmaf, &ref, &dist, i), err);
        CHECK_INT(seen.errors - before, 1);
        CHECK(strstr(seen.msg, "earlier failure") != NULL);
    }
    before = seen.errors;
    CHECK_INT(vmaf_read_pictures(vmaf, NULL, NULL, 0), err);
    CHECK_INT(seen.errors - before, 1);
    CHECK(strstr(seen.msg, "flush") != NULL && strstr(seen.msg, "earlier failure") != NULL);
    before = seen.errors;
    CHECK_INT(vmaf_close(vmaf), 0);
    CHECK_INT(seen.errors - before, 0);

    /* The same with worker threads: one line for the failing read. */
    vmaf = ctx_with(2, 0, NULL, NULL);
    CHECK_INT(make_pair(&ref, &dist, 8, 10, 10, 1), 0);
    before = seen.errors;
    int e = vmaf_read_pictures(vmaf, &ref, &dist, 0);
    if (!e)
        e = vmaf_read_pictures(vmaf, NULL, NULL, 0);
    CHECK(e < 0);
    CHECK_INT(seen.errors - before, 1);
    vmaf_close(vmaf);

    /* Features after a flush can never run. */
    vmaf = ctx_with(0, 0, NULL, NULL);
    CHECK_INT(vmaf_read_pictures(vmaf, NULL, NULL, 0), 0);
    before = seen.errors;
    VmafFeatureDictionary *d = NULL;
    CHECK_INT(vmaf_feature_dictionary_set(&d, "scale", "1"), 0);
    CHECK_INT(vmaf_use_feature(vmaf, "float_ssim", d), -EINVAL);
    CHECK_INT(seen.errors - before, 1);
    CHECK(strstr(seen.msg, "flushed") != NULL);
    vmaf_feature_dictionary_free(&d); /* refused before the lookup: still ours */
    CHECK_INT(vmaf_close(vmaf), 0);

    /* A picture changed after vmaf_picture_alloc(): refused before any
     * extractor reads past its memory. */
    vmaf = ctx_with(0, 0, NULL, NULL);
    const struct {
        unsigned bpc, h;
        int stride_div;
    } bad[] = { { 16, H, 1 }, { 8, 2 * H, 1 }, { 8, H, 2 } };
    for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        CHECK_INT(make_pair(&ref, &dist, 8, W, H, 2), 0);
        ref.bpc = dist.bpc = bad[i].bpc;
        ref.h[0] = bad[i].h;
        ref.stride[0] /= bad[i].stride_div;
        before = seen.errors;
        CHECK_INT(vmaf_read_pictures(vmaf, &ref, &dist, 0), -EINVAL);
        CHECK_INT(seen.errors - before, 1);
        CHECK(strstr(seen.msg, "does not fit its memory") != NULL);
    }
    /* Strides whose row offsets overflow, or cannot be negated. */
    const ptrdiff_t huge[] = { (ptrdiff_t)1 << 56, PTRDIFF_MIN, PTRDIFF_MAX, 0 };
    for (unsigned i = 0; i < sizeof(huge) / sizeof(huge[0]); i++) {
        CHECK_INT(make_pair(&ref, &dist, 8, W, 257, 2), 0);
        ref.stride[0] = huge[i];
        before = seen.errors;
        CHECK_INT(vmaf_read_pictures(vmaf, &ref, &dist, 0), -EINVAL);
        CHECK_INT(seen.errors - before, 1);
        CHECK(strstr(seen.msg, "does not fit its memory") != NULL);
    }
    /* Rows given bottom-up (a negative stride) are fine. */
    CHECK_INT(make_pair(&ref, &dist, 8, W, H, 2), 0);
    ref.data[0] = (uint8_t *)ref.data[0] + (H - 1) * ref.stride[0];
    ref.stride[0] = -ref.stride[0];
    CHECK_INT(vmaf_read_pictures(vmaf, &ref, &dist, 0), 0);
    CHECK_INT(vmaf_read_pictures(vmaf, NULL, NULL, 0), 0);
    CHECK_INT(vmaf_close(vmaf), 0);

    /* Pictures read into a context that requested nothing: a warning,
     * once, and the read itself succeeds (there is nothing to refuse). */
    VmafContext *bare = NULL;
    CHECK_INT(vmaf_init(&bare, (VmafConfiguration){ .log_level = VMAF_LOG_LEVEL_WARNING }), 0);
    const unsigned calls = seen.calls;
    for (unsigned i = 0; i < 2; i++) {
        CHECK_INT(make_pair(&ref, &dist, 8, W, H, 3), 0);
        CHECK_INT(vmaf_read_pictures(bare, &ref, &dist, i), 0);
    }
    CHECK_INT(seen.calls - calls, 1);
    CHECK(seen.level == VMAF_LOG_LEVEL_WARNING && strstr(seen.msg, "no feature or model"));
    CHECK_INT(vmaf_read_pictures(bare, NULL, NULL, 0), 0);
    CHECK_INT(vmaf_close(bare), 0);

    /* Pooling a model over frames n_subsample leaves unscored. */
    vmaf = ctx_with(0, 2, NULL, NULL);
    VmafModel *model = NULL;
    CHECK_INT(vmaf_model_load(&model, &(VmafModelConfig){ .name = "vmaf" }, "vmaf_v0.6.1"), 0);
    double s;
    before = seen.errors;
    CHECK_INT(vmaf_score_pooled(vmaf, model, VMAF_POOL_METHOD_MEAN, &s, 1, 1), -EINVAL);
    CHECK_INT(seen.errors - before, 1);
    CHECK(strstr(seen.msg, "n_subsample=2") != NULL);
    vmaf_model_destroy(model);
    CHECK_INT(vmaf_close(vmaf), 0);
    vmaf_set_log_callback(NULL, NULL);
}

/* A collection and its model "0" share one allocation and a reference
 * count; the documented "destroy both, in either order" must hold when two
 * threads do it at once (ThreadSanitizer in CI sees a plain count). */
static void *destroy_model(void *model)
{
    vmaf_model_destroy(model);
    return NULL;
}

static void test_collection_destroyed_on_two_threads(void)
{
    for (int round = 0; round < 20; round++) {
        VmafModel *model = NULL;
        VmafModelCollection *coll = NULL;
        CHECK_INT(vmaf_model_collection_load(&model, &coll, &(VmafModelConfig){ .name = "v" },
                                             "vmaf_b_v0.6.3"),
                  0);
        pthread_t t;
        CHECK_INT(pthread_create(&t, NULL, destroy_model, model), 0);
        vmaf_model_collection_destroy(coll);
        pthread_join(t, NULL);
    }
}

int main(void)
{
    test_init_and_version();
    test_use_feature();
    test_log_callback();
    test_failures_are_logged();
    test_failed_context_and_misuse();
    test_collection_destroyed_on_two_threads();
    test_picture_zeroed();
    test_read_pictures_contract();
    test_duplicate_index();
    test_threads_and_order();
    test_scores_and_pooling();
    test_subsample();
    test_write_output();
    test_output_path_check();
    test_extractor_info();
    test_builtin_models();
    return check_result("test_api_contract");
}
