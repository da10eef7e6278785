/* The checks of the C tests. A failed check prints where, what and why and
 * counts, so that one run reports every broken expectation rather than the
 * first one only; the test fails at the end (check_result()).
 *
 *   CHECK(cond)                   the condition's text is the message
 *   CHECK(cond, "fmt", args...)   with a message of its own
 *   CHECK_INT(got, want)          integers, both shown
 *   CHECK_STR(got, want)          strings, both shown
 *
 * Also: a function run in two threads at once, and what the library writes
 * to stderr captured. */
#ifndef TEST_CHECK_H
#define TEST_CHECK_H

#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* CHECK(cond) passes an empty message. */
#if defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wformat-zero-length"
#endif

static int check_failures __attribute__((unused));
static int check_count __attribute__((unused));

__attribute__((format(printf, 4, 5), unused))
static void check_failed(const char *file, int line, const char *what, const char *fmt, ...)
{
    fprintf(stderr, "FAIL %s:%d: check failed: %s", file, line, what);
    if (*fmt) {
        va_list ap;
        va_start(ap, fmt);
        fputs(": ", stderr);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
    }
    fputc('\n', stderr);
    check_failures++;
}

#define CHECK(cond, ...)                                                                  \
    do {                                                                                  \
        check_count++;                                                                    \
        if (!(cond))                                                                      \
            check_failed(__FILE__, __LINE__, #cond, "" __VA_ARGS__);                      \
    } while (0)

#define CHECK_INT(got, want)                                                              \
    do {                                                                                  \
        const long long got_ = (long long)(got), want_ = (long long)(want);               \
        check_count++;                                                                    \
        if (got_ != want_)                                                                \
            check_failed(__FILE__, __LINE__, #got, "%lld, expected %lld", got_, want_);   \
    } while (0)

#define CHECK_STR(got, want)                                                              \
    do {                                                                                  \
        const char *got_ = (got), *want_ = (want);                                        \
        check_count++;                                                                    \
        if (strcmp(got_, want_))                                                          \
            check_failed(__FILE__, __LINE__, #got, "\"%s\", expected \"%s\"", got_,       \
                         want_);                                                          \
    } while (0)

/* The test's exit status, with a closing line naming it. */
static inline int check_result(const char *name)
{
    if (check_failures)
        fprintf(stderr, "%s: %d of %d checks failed\n", name, check_failures, check_count);
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

/* What the library logs to stderr between capture_start() and
 * capture_stop(), so that tests can check that an error names what it
 * should. stderr is unbuffered, so the library's fprintf reaches the file
 * at once. */
typedef struct Capture {
    int saved;
    FILE *f;
    char text[8192];
} Capture;

static inline void capture_start(Capture *c)
{
    fflush(stderr);
    c->text[0] = '\0';
    c->f = tmpfile();
    if (!c->f) {
        perror("tmpfile");
        exit(99);
    }
    c->saved = dup(STDERR_FILENO);
    dup2(fileno(c->f), STDERR_FILENO);
}

/* Returns the captured text, c->text (NUL terminated). */
static inline const char *capture_stop(Capture *c)
{
    fflush(stderr);
    dup2(c->saved, STDERR_FILENO);
    close(c->saved);
    rewind(c->f);
    const size_t n = fread(c->text, 1, sizeof(c->text) - 1, c->f);
    c->text[n] = '\0';
    fclose(c->f);
    c->f = NULL;
    return c->text;
}

/* The same on one capture of the test's: the text lasts until the next. */
static Capture capture_default __attribute__((unused));

static inline void capture_begin(void)
{
    capture_start(&capture_default);
}

static inline const char *capture_end(void)
{
    return capture_stop(&capture_default);
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

static inline int capture_lines(const Capture *c)
{
    return count_lines(c->text);
}

#endif /* TEST_CHECK_H */
