/*
 * checkasm: every optimised inner loop against the plain C one, bit for
 * bit, at every CPU level this build and this CPU have, on random, extreme
 * and flat data at every width 1..300 and some beyond (the reference's
 * SIMD went wrong at widths of 532 and below); with --bench, how much
 * faster each one is. One file per extractor registers a check function
 * in checkasm.c's table.
 */
#ifndef TEST_CHECKASM_CHECKASM_H
#define TEST_CHECKASM_CHECKASM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A CPU level of this build that this CPU runs (VMAF_CPU_FLAG_*); level 0
 * is plain C. */
typedef struct CheckasmLevel {
    unsigned flags;
    const char *name;
} CheckasmLevel;

/* The levels above C to check, in order. */
unsigned checkasm_level_count(void);
const CheckasmLevel *checkasm_level(unsigned i);

/* Whether to check function `name` of `level` now: false when the
 * function is the C one (impl == c_impl: nothing to compare), when
 * --test filters it out, or when the same implementation was checked at
 * a lower level already. Counts the function as checked. */
bool checkasm_should_check(const char *name, const CheckasmLevel *level, const void *impl,
                           const void *c_impl);

/* One failure of the function being checked: printed with its name,
 * level and what differed (printf format). */
void checkasm_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The failures so far of the function checked last (to stop early). */
unsigned checkasm_failures_here(void);

/* Deterministic random numbers (the seed is printed and can be given). */
uint32_t checkasm_rand(void);

/* What a test buffer holds: random values, the extremes (0 and max
 * alternating at random), or one value everywhere. */
enum CheckasmFill { CHECKASM_RANDOM, CHECKASM_EXTREME, CHECKASM_FLAT, CHECKASM_FILLS };
void checkasm_fill_u8(uint8_t *buf, size_t n, enum CheckasmFill how);
void checkasm_fill_u16(uint16_t *buf, size_t n, unsigned bits, enum CheckasmFill how);
/* Signed values in [-(2^(bits-1)), 2^(bits-1)). */
void checkasm_fill_i16(int16_t *buf, size_t n, unsigned bits, enum CheckasmFill how);
void checkasm_fill_i32(int32_t *buf, size_t n, unsigned bits, enum CheckasmFill how);

/* The widths to check: 1..300, then some beyond 532 (a list ending in 0). */
const unsigned *checkasm_widths(void);

/* --bench: times run(arg) for the C and the optimised implementation
 * (each a call of the whole case) and prints the speed-up. */
bool checkasm_benching(void);
void checkasm_bench(const char *name, const CheckasmLevel *level, void (*run_c)(void *),
                    void (*run_opt)(void *), void *arg);

/* The check functions, one per extractor (checkasm_<name>.c). */
void checkasm_check_motion(void);
void checkasm_check_adm(void);
void checkasm_check_vif(void);
void checkasm_check_psnr(void);
void checkasm_check_ms_ssim(void);

#endif /* TEST_CHECKASM_CHECKASM_H */
