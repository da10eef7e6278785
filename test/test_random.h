/* The C tests' pseudo-random numbers: xorshift64, the same sequence for
 * the same seed on every machine (a test takes its seed from argv[1]). */
#ifndef TEST_TEST_RANDOM_H
#define TEST_TEST_RANDOM_H

#include <stdint.h>

static inline uint32_t test_random(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    *state = x;
    return (uint32_t)(x >> 16);
}

#endif /* TEST_TEST_RANDOM_H */
