/* The feature collector: one score per feature and frame (append refuses a
 * second, set replaces), lookups of what is missing, slot counts, and appends
 * from several threads at once. */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "feature/feature_collector.h"

#include "check.h"

static void test_basic(void)
{
    VmafFeatureCollector *fc = NULL;
    CHECK_INT(vmaf_feature_collector_init(NULL), -EINVAL);
    CHECK_INT(vmaf_feature_collector_init(&fc), 0);
    CHECK(fc != NULL);
    if (!fc)
        return;
    CHECK_INT(vmaf_feature_collector_count(fc), 0);
    CHECK(vmaf_feature_collector_name(fc, 0) == NULL);
    CHECK_INT(vmaf_feature_collector_capacity(fc, 0), 0);

    double v = -1;
    CHECK_INT(vmaf_feature_collector_get(fc, "a", &v, 0), -EINVAL);

    CHECK_INT(vmaf_feature_collector_append(fc, "a", 0.25, 0), 0);
    CHECK_INT(vmaf_feature_collector_get(fc, "a", &v, 0), 0);
    CHECK(v == 0.25);
    /* A second append at the same index is refused and keeps the first value. */
    CHECK_INT(vmaf_feature_collector_append(fc, "a", 0.75, 0), -EINVAL);
    CHECK_INT(vmaf_feature_collector_get(fc, "a", &v, 0), 0);
    CHECK(v == 0.25);
    /* set replaces. */
    CHECK_INT(vmaf_feature_collector_set(fc, "a", 0.5, 0), 0);
    CHECK_INT(vmaf_feature_collector_get(fc, "a", &v, 0), 0);
    CHECK(v == 0.5);
    /* set also stores where nothing was. */
    CHECK_INT(vmaf_feature_collector_set(fc, "a", 1.5, 2), 0);
    CHECK_INT(vmaf_feature_collector_get(fc, "a", &v, 2), 0);
    CHECK(v == 1.5);
    /* and append after set is still a duplicate. */
    CHECK_INT(vmaf_feature_collector_append(fc, "a", 9, 2), -EINVAL);

    /* Missing: a hole, beyond the end, another feature, a prefix of a name. */
    v = -1;
    CHECK_INT(vmaf_feature_collector_get(fc, "a", &v, 1), -EINVAL);
    CHECK_INT(vmaf_feature_collector_get(fc, "a", &v, 3), -EINVAL);
    CHECK_INT(vmaf_feature_collector_get(fc, "a", &v, 100000), -EINVAL);
    CHECK_INT(vmaf_feature_collector_get(fc, "b", &v, 0), -EINVAL);
    CHECK_INT(vmaf_feature_collector_get(fc, "", &v, 0), -EINVAL);
    CHECK(v == -1);
    CHECK_INT(vmaf_feature_collector_get(fc, NULL, &v, 0), -EINVAL);
    CHECK_INT(vmaf_feature_collector_get(fc, "a", NULL, 0), -EINVAL);
    CHECK_INT(vmaf_feature_collector_append(fc, NULL, 1, 0), -EINVAL);
    CHECK_INT(vmaf_feature_collector_append(NULL, "a", 1, 0), -EINVAL);

    /* Special values are stored as given. */
    CHECK_INT(vmaf_feature_collector_append(fc, "b", -0.0, 0), 0);
    CHECK_INT(vmaf_feature_collector_get(fc, "b", &v, 0), 0);
    CHECK(v == 0.0 && signbit(v));

    /* Order first seen; capacity is the highest stored index + 1. */
    CHECK_INT(vmaf_feature_collector_append(fc, "c", 3, 1000), 0);
    CHECK_INT(vmaf_feature_collector_count(fc), 3);
    CHECK(!strcmp(vmaf_feature_collector_name(fc, 0), "a"));
    CHECK(!strcmp(vmaf_feature_collector_name(fc, 1), "b"));
    CHECK(!strcmp(vmaf_feature_collector_name(fc, 2), "c"));
    CHECK(vmaf_feature_collector_name(fc, 3) == NULL);
    CHECK_INT(vmaf_feature_collector_capacity(fc, 0), 3);
    CHECK_INT(vmaf_feature_collector_capacity(fc, 1), 1);
    CHECK_INT(vmaf_feature_collector_capacity(fc, 2), 1001);
    CHECK_INT(vmaf_feature_collector_capacity(fc, 3), 0);

    CHECK(vmaf_feature_collector_at(fc, 2, 1000, &v) && v == 3);
    CHECK(!vmaf_feature_collector_at(fc, 2, 999, &v));
    CHECK(!vmaf_feature_collector_at(fc, 2, 1001, &v));
    CHECK(!vmaf_feature_collector_at(fc, 3, 0, &v));
    CHECK(vmaf_feature_collector_at(fc, 0, 0, &v) && v == 0.5);

    /* A name is copied: the caller's buffer may change afterwards. */
    char name[] = "dyn";
    CHECK_INT(vmaf_feature_collector_append(fc, name, 7, 0), 0);
    name[0] = 'X';
    CHECK_INT(vmaf_feature_collector_get(fc, "dyn", &v, 0), 0);
    CHECK(v == 7);

    /* Absurd indices are refused instead of allocating gigabytes. */
    CHECK(vmaf_feature_collector_append(fc, "huge", 1, 0xffffffffu) < 0);
    CHECK_INT(vmaf_feature_collector_get(fc, "huge", &v, 0xffffffffu), -EINVAL);

    vmaf_feature_collector_destroy(fc);
    vmaf_feature_collector_destroy(NULL);
}

static void test_many_features(void)
{
    VmafFeatureCollector *fc = NULL;
    CHECK_INT(vmaf_feature_collector_init(&fc), 0);
    if (!fc)
        return;
    for (int f = 0; f < 50; f++) {
        char name[16];
        snprintf(name, sizeof(name), "feat%d", f);
        for (unsigned i = 0; i < 300; i += 1 + (unsigned)f % 3)
            CHECK_INT(vmaf_feature_collector_append(fc, name, f * 1000.0 + i, i), 0);
    }
    CHECK_INT(vmaf_feature_collector_count(fc), 50);
    for (int f = 0; f < 50; f++) {
        char name[16];
        snprintf(name, sizeof(name), "feat%d", f);
        CHECK(!strcmp(vmaf_feature_collector_name(fc, (size_t)f), name));
        unsigned step = 1 + (unsigned)f % 3, last = 0;
        for (unsigned i = 0; i < 300; i++) {
            double v;
            int err = vmaf_feature_collector_get(fc, name, &v, i);
            if (i % step == 0) {
                CHECK(err == 0 && v == f * 1000.0 + i);
                last = i;
            } else {
                CHECK_INT(err, -EINVAL);
            }
        }
        CHECK_INT(vmaf_feature_collector_capacity(fc, (size_t)f), last + 1);
    }
    vmaf_feature_collector_destroy(fc);
}

#define N_THREADS 8
#define N_FRAMES 2000

typedef struct Worker {
    VmafFeatureCollector *fc;
    unsigned id;
    unsigned dup_wins; /* appends of "race" this worker won */
    int errors;
} Worker;

static void *worker(void *arg)
{
    Worker *w = arg;
    char own[16];
    snprintf(own, sizeof(own), "own%u", w->id);
    for (unsigned i = 0; i < N_FRAMES; i++) {
        /* Interleaved indices of one shared feature: no two workers collide. */
        if (vmaf_feature_collector_append(w->fc, "shared", i * N_THREADS + w->id,
                                          i * N_THREADS + w->id))
            w->errors++;
        /* Every worker appends every index of one feature: exactly one wins. */
        int err = vmaf_feature_collector_append(w->fc, "race", w->id, i);
        if (!err)
            w->dup_wins++;
        else if (err != -EINVAL)
            w->errors++;
        /* Features created while others are appending. */
        if (vmaf_feature_collector_append(w->fc, own, i, i))
            w->errors++;
    }
    return NULL;
}

static void test_threads(void)
{
    VmafFeatureCollector *fc = NULL;
    CHECK_INT(vmaf_feature_collector_init(&fc), 0);
    if (!fc)
        return;
    Worker w[N_THREADS];
    pthread_t t[N_THREADS];
    for (unsigned i = 0; i < N_THREADS; i++) {
        w[i] = (Worker){ .fc = fc, .id = i };
        CHECK_INT(pthread_create(&t[i], NULL, worker, &w[i]), 0);
    }
    unsigned wins = 0;
    for (unsigned i = 0; i < N_THREADS; i++) {
        pthread_join(t[i], NULL);
        CHECK_INT(w[i].errors, 0);
        wins += w[i].dup_wins;
    }
    CHECK_INT(wins, N_FRAMES);
    CHECK_INT(vmaf_feature_collector_count(fc), 2 + N_THREADS);
    for (unsigned i = 0; i < N_FRAMES * N_THREADS; i++) {
        double v = -1;
        if (vmaf_feature_collector_get(fc, "shared", &v, i) || v != i) {
            fprintf(stderr, "shared[%u] lost (%g)\n", i, v);
            check_failures++;
            break;
        }
    }
    for (unsigned i = 0; i < N_FRAMES; i++) {
        double v = -1;
        if (vmaf_feature_collector_get(fc, "race", &v, i) || v < 0 || v >= N_THREADS) {
            fprintf(stderr, "race[%u] lost (%g)\n", i, v);
            check_failures++;
            break;
        }
    }
    for (unsigned k = 0; k < N_THREADS; k++) {
        char own[16];
        snprintf(own, sizeof(own), "own%u", k);
        for (unsigned i = 0; i < N_FRAMES; i++) {
            double v = -1;
            if (vmaf_feature_collector_get(fc, own, &v, i) || v != i) {
                fprintf(stderr, "%s[%u] lost (%g)\n", own, i, v);
                check_failures++;
                break;
            }
        }
    }
    vmaf_feature_collector_destroy(fc);
}

/* Frames read are recorded apart from scores: once each, any index below
 * the limit, with or without scores stored there. */
static void test_mark_read(void)
{
    VmafFeatureCollector *fc = NULL;
    CHECK_INT(vmaf_feature_collector_init(&fc), 0);
    if (!fc)
        return;
    CHECK(!vmaf_feature_collector_was_read(fc, 0));
    CHECK_INT(vmaf_feature_collector_mark_read(fc, 0), 0);
    CHECK_INT(vmaf_feature_collector_mark_read(fc, 0), -EEXIST);
    CHECK(vmaf_feature_collector_was_read(fc, 0));
    /* Growing keeps what was marked, and new slots start unmarked. */
    CHECK_INT(vmaf_feature_collector_mark_read(fc, 100000), 0);
    CHECK(vmaf_feature_collector_was_read(fc, 0));
    CHECK(vmaf_feature_collector_was_read(fc, 100000));
    CHECK(!vmaf_feature_collector_was_read(fc, 99999));
    CHECK(!vmaf_feature_collector_was_read(fc, 100001));
    CHECK_INT(vmaf_feature_collector_mark_read(fc, 100001), 0);
    CHECK_INT(vmaf_feature_collector_mark_read(fc, VMAF_FEATURE_COLLECTOR_MAX_INDEX), -EINVAL);
    CHECK(!vmaf_feature_collector_was_read(fc, VMAF_FEATURE_COLLECTOR_MAX_INDEX));
    CHECK(!vmaf_feature_collector_was_read(fc, 0xffffffffu));
    /* Independent of scores, and not a feature of the reports. */
    CHECK_INT(vmaf_feature_collector_append(fc, "a", 1.0, 5), 0);
    CHECK(!vmaf_feature_collector_was_read(fc, 5));
    CHECK_INT(vmaf_feature_collector_count(fc), 1);
    CHECK_INT(vmaf_feature_collector_mark_read(NULL, 0), -EINVAL);
    vmaf_feature_collector_destroy(fc);
}

int main(void)
{
    test_basic();
    test_mark_read();
    test_many_features();
    test_threads();
    return check_result("test_feature_collector");
}
