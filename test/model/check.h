/* The check of the model tests: a failed check prints where and why and
 * counts in `fails`, so that one run reports every broken expectation. */
#ifndef TEST_MODEL_CHECK_H
#define TEST_MODEL_CHECK_H

#include <stdio.h>

static int fails;

#define CHECK(cond, ...)                                                                     \
    do {                                                                                     \
        if (!(cond)) {                                                                       \
            fails++;                                                                         \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                             \
            fprintf(stderr, __VA_ARGS__);                                                    \
            fprintf(stderr, "\n");                                                           \
        }                                                                                    \
    } while (0)

#endif /* TEST_MODEL_CHECK_H */
