/* Minimal checking helpers shared by the core unit tests: every failed check
 * prints where and what, and the test exits non-zero at the end, so that one
 * run reports every broken expectation rather than the first one only. */
#ifndef TEST_CORE_CHECK_H
#define TEST_CORE_CHECK_H

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int check_failures;

#define CHECK(cond)                                                                  \
    do {                                                                             \
        if (!(cond)) {                                                               \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
            check_failures++;                                                        \
        }                                                                            \
    } while (0)

#define CHECK_INT(got, want)                                                          \
    do {                                                                              \
        long long got_ = (long long)(got), want_ = (long long)(want);                 \
        if (got_ != want_) {                                                          \
            fprintf(stderr, "%s:%d: check failed: %s == %lld, expected %lld\n",       \
                    __FILE__, __LINE__, #got, got_, want_);                           \
            check_failures++;                                                         \
        }                                                                             \
    } while (0)

static inline int check_result(const char *name)
{
    if (check_failures)
        fprintf(stderr, "%s: %d check(s) failed\n", name, check_failures);
    else
        fprintf(stderr, "%s: all checks passed\n", name);
    return check_failures ? 1 : 0;
}

/* Runs fn(arg) in two threads at once and returns the sum of what they
 * return (as integers); -1 when a thread cannot start. */
static inline intptr_t check_in_two_threads(void *(*fn)(void *), void *arg)
{
    pthread_t t[2];
    void *r[2] = {NULL, NULL};
    if (pthread_create(&t[0], NULL, fn, arg))
        return -1;
    if (pthread_create(&t[1], NULL, fn, arg)) {
        pthread_join(t[0], NULL);
        return -1;
    }
    pthread_join(t[0], &r[0]);
    pthread_join(t[1], &r[1]);
    return (intptr_t)r[0] + (intptr_t)r[1];
}

/* Captures what the library logs to stderr between capture_begin() and
 * capture_end(), so that tests can check that an error names what it should.
 * stderr is unbuffered, so the library's fprintf reaches the file at once. */
static int capture_saved_fd = -1;
static FILE *capture_file;

static inline void capture_begin(void)
{
    fflush(stderr);
    capture_file = tmpfile();
    if (!capture_file) {
        perror("tmpfile");
        exit(99);
    }
    capture_saved_fd = dup(STDERR_FILENO);
    dup2(fileno(capture_file), STDERR_FILENO);
}

/* Returns the captured text (static buffer, NUL terminated). */
static inline const char *capture_end(void)
{
    static char buf[8192];
    fflush(stderr);
    dup2(capture_saved_fd, STDERR_FILENO);
    close(capture_saved_fd);
    capture_saved_fd = -1;
    rewind(capture_file);
    size_t n = fread(buf, 1, sizeof(buf) - 1, capture_file);
    buf[n] = '\0';
    fclose(capture_file);
    capture_file = NULL;
    return buf;
}

/* Number of complete lines in s. */
static inline int count_lines(const char *s)
{
    int n = 0;
    for (; *s; s++)
        if (*s == '\n')
            n++;
    return n;
}

#endif /* TEST_CORE_CHECK_H */
