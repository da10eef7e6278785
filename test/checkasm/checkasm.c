/*
 * The checkasm driver: levels, the table of check functions, random data,
 * failures and the benchmark mode.
 *
 * Usage: checkasm [--seed N] [--test NAME] [--bench]
 * NAME is a prefix of the functions to check ("adm_", "motion_blur").
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "checkasm.h"
#include "cpu.h"

static const struct {
    const char *name;
    void (*check)(void);
} checks[] = {
    { "motion", checkasm_check_motion },
    { "adm", checkasm_check_adm },
    { "vif", checkasm_check_vif },
    { "psnr", checkasm_check_psnr },
    { "ms_ssim", checkasm_check_ms_ssim },
};

static CheckasmLevel levels[8];
static unsigned n_levels;
static uint64_t rng_state;
static const char *only;
static bool bench;
static unsigned failures, failures_here, checked;
static const char *current_name;
static const CheckasmLevel *current_level;

/* Implementations checked so far, so that a function a level inherits
 * from the level below is not checked twice. */
static const void *seen[4096];
static unsigned n_seen;

static void find_levels(void)
{
    static const CheckasmLevel all[] = {
        { VMAF_CPU_FLAG_AVX2, "avx2" },
        { VMAF_CPU_FLAG_AVX2 | VMAF_CPU_FLAG_AVX512, "avx512" },
    };
    const unsigned have = vmaf_cpu_flags_detected();
    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
        if ((have & all[i].flags) == all[i].flags)
            levels[n_levels++] = all[i];
}

unsigned checkasm_level_count(void)
{
    return n_levels;
}

const CheckasmLevel *checkasm_level(unsigned i)
{
    return i < n_levels ? &levels[i] : NULL;
}

bool checkasm_should_check(const char *name, const CheckasmLevel *level, const void *impl,
                           const void *c_impl)
{
    if (impl == c_impl || (only && strncmp(name, only, strlen(only))))
        return false;
    for (unsigned i = 0; i < n_seen; i++)
        if (seen[i] == impl)
            return false;
    if (n_seen < sizeof(seen) / sizeof(seen[0]))
        seen[n_seen++] = impl;
    current_name = name;
    current_level = level;
    failures_here = 0;
    checked++;
    return true;
}

void checkasm_fail(const char *fmt, ...)
{
    failures++;
    if (failures_here++ >= 5)
        return; /* the first few say enough */
    fprintf(stderr, "FAIL %s (%s): ", current_name, current_level->name);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

unsigned checkasm_failures_here(void)
{
    return failures_here;
}

uint32_t checkasm_rand(void)
{
    /* xorshift64*: fast, and the same sequence for the same seed everywhere */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (uint32_t)((rng_state * 0x2545f4914f6cdd1dull) >> 32);
}

static uint32_t value(unsigned bits, enum CheckasmFill how, uint32_t flat)
{
    const uint32_t max = bits >= 32 ? 0xffffffffu : (1u << bits) - 1;
    switch (how) {
    case CHECKASM_EXTREME: return checkasm_rand() & 1 ? max : 0;
    case CHECKASM_FLAT: return flat & max;
    default: return checkasm_rand() & max;
    }
}

void checkasm_fill_u8(uint8_t *buf, size_t n, enum CheckasmFill how)
{
    const uint32_t flat = checkasm_rand();
    for (size_t i = 0; i < n; i++)
        buf[i] = (uint8_t)value(8, how, flat);
}

void checkasm_fill_u16(uint16_t *buf, size_t n, unsigned bits, enum CheckasmFill how)
{
    const uint32_t flat = checkasm_rand();
    for (size_t i = 0; i < n; i++)
        buf[i] = (uint16_t)value(bits, how, flat);
}

void checkasm_fill_i16(int16_t *buf, size_t n, unsigned bits, enum CheckasmFill how)
{
    const uint32_t flat = checkasm_rand();
    for (size_t i = 0; i < n; i++)
        buf[i] = (int16_t)((int32_t)value(bits, how, flat) - (int32_t)(1u << (bits - 1)));
}

void checkasm_fill_i32(int32_t *buf, size_t n, unsigned bits, enum CheckasmFill how)
{
    const uint32_t flat = checkasm_rand();
    for (size_t i = 0; i < n; i++)
        buf[i] = (int32_t)((int64_t)value(bits, how, flat) - ((int64_t)1 << (bits - 1)));
}

const unsigned *checkasm_widths(void)
{
    static unsigned w[300 + 8];
    if (!w[0]) {
        unsigned n = 0;
        for (unsigned i = 1; i <= 300; i++)
            w[n++] = i;
        static const unsigned beyond[] = { 531, 532, 533, 1023, 1920, 4097 };
        for (size_t i = 0; i < sizeof(beyond) / sizeof(beyond[0]); i++)
            w[n++] = beyond[i];
        w[n] = 0;
    }
    return w;
}

bool checkasm_benching(void)
{
    return bench;
}

static double seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* The best of a few rounds of enough calls to last about 20 ms. */
static double time_calls(void (*run)(void *), void *arg)
{
    unsigned calls = 1;
    double t;
    do {
        const double t0 = seconds();
        for (unsigned i = 0; i < calls; i++)
            run(arg);
        t = seconds() - t0;
        calls *= 2;
    } while (t < 0.02 && calls < (1u << 24));
    calls /= 2;
    double best = t / calls;
    for (int r = 0; r < 4; r++) {
        const double t0 = seconds();
        for (unsigned i = 0; i < calls; i++)
            run(arg);
        const double per = (seconds() - t0) / calls;
        best = per < best ? per : best;
    }
    return best;
}

void checkasm_bench(const char *name, const CheckasmLevel *level, void (*run_c)(void *),
                    void (*run_opt)(void *), void *arg)
{
    const double c = time_calls(run_c, arg), o = time_calls(run_opt, arg);
    printf("  %-40s %-7s %10.2f us  (C %10.2f us)  %5.2fx\n", name, level->name, o * 1e6,
           c * 1e6, c / o);
}

int main(int argc, char **argv)
{
    uint64_t seed = (uint64_t)time(NULL);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--seed") && i + 1 < argc) {
            seed = strtoull(argv[++i], NULL, 0);
        } else if (!strcmp(argv[i], "--test") && i + 1 < argc) {
            only = argv[++i];
        } else if (!strcmp(argv[i], "--bench")) {
            bench = true;
        } else {
            fprintf(stderr, "usage: %s [--seed N] [--test NAME] [--bench]\n", argv[0]);
            return 2;
        }
    }
    rng_state = seed ? seed : 1;
    find_levels();
    printf("checkasm: seed %" PRIu64 ", levels:", seed);
    for (unsigned i = 0; i < n_levels; i++)
        printf(" %s", levels[i].name);
    printf("%s\n", n_levels ? "" : " none above C on this CPU and build");
    for (size_t i = 0; i < sizeof(checks) / sizeof(checks[0]); i++)
        checks[i].check();
    printf("checkasm: %u function%s checked, %u failure%s\n", checked, checked == 1 ? "" : "s",
           failures, failures == 1 ? "" : "s");
    /* Nothing to compare is no success on a CPU that has a level: every
     * level must have brought at least one function. */
    return failures || (n_levels && !checked) ? 1 : 0;
}
