/*
 * The integer f32 division and square root (cuda/f32_int_math.h), which
 * the psnr_hvs CUDA twin runs for the CPU's `a / b` and
 * `(float)(sqrt((double)x) / 32.f)`: bit for bit against those on random
 * operands of every binade, subnormals included, and on psnr_hvs's own
 * operands (masking thresholds over its masks). Needs no GPU.
 *
 * Usage: test_f32_int_math [seed [count]]
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "test_random.h"

#include "cuda/f32_int_math.h"
#include "feature/psnr_hvs/psnr_hvs.h"

/* A non-negative finite f32 of any binade, from 31 random bits. */
static float any_float(uint64_t *rng)
{
    uint32_t b = (test_random(rng) << 15 ^ test_random(rng)) & 0x7fffffffu;
    if ((b >> 23) == 0xff)
        b &= 0x7f7fffffu; /* no infinity or NaN */
    return f32_int_float(b);
}

static void check_division(uint64_t *rng, unsigned count)
{
    unsigned bad = 0;
    float fa = 0, fb = 0;
    for (unsigned i = 0; i < count; i++) {
        const float a = any_float(rng), b = any_float(rng);
        if (b == 0.0f)
            continue;
        if (f32_int_bits(f32_int_div(a, b)) != f32_int_bits(a / b) && !bad++)
            fa = a, fb = b;
    }
    CHECK(!bad, "%u of %u random quotients differ from a / b, first %a / %a: %a, not %a", bad,
          count, fa, fb, f32_int_div(fa, fb), fa / fb);
}

static void check_square_root(uint64_t *rng, unsigned count)
{
    unsigned bad = 0, bad32 = 0;
    float first = 0;
    for (unsigned i = 0; i < count; i++) {
        const float x = any_float(rng);
        const float want = (float)sqrt((double)x), got = f32_int_sqrt(x);
        if (f32_int_bits(got) != f32_int_bits(want) && !bad++)
            first = x;
        /* psnr_hvs's threshold: the f64 root over 32, rounded to f32 */
        bad32 += f32_int_bits(got * (1.0f / 32)) != f32_int_bits((float)(sqrt(x) / 32.f));
    }
    CHECK(!bad, "%u of %u random square roots differ, first of %a: %a, not %a", bad, count,
          first, f32_int_sqrt(first), (float)sqrt((double)first));
    CHECK(!bad32, "%u of %u thresholds (root / 32) differ", bad32, count);
}

/* limit / mask for every mask of the three tables and limits of every
 * binade psnr_hvs meets, the quotients it divides by. */
static void check_psnr_hvs_quotients(uint64_t *rng, unsigned count)
{
    unsigned bad = 0;
    for (int t = 0; t < 3; t++) {
        float masks[8][8];
        vmaf_psnr_hvs_mask(t, masks);
        for (int k = 0; k < 64; k++) {
            const float mask = masks[k / 8][k % 8];
            for (unsigned i = 0; i < count / 192; i++) {
                const float limit = ldexpf((float)(test_random(rng) & 0xffffff), -24) *
                                    ldexpf(1.0f, (int)(test_random(rng) % 40) - 20);
                bad += f32_int_bits(f32_int_div(limit, mask)) != f32_int_bits(limit / mask);
            }
        }
    }
    CHECK(!bad, "%u psnr_hvs quotients differ", bad);
}

int main(int argc, char **argv)
{
    uint64_t rng = argc > 1 ? strtoull(argv[1], NULL, 0) : 0x5eedf32d1f5ull;
    const unsigned count = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 0) : 1u << 21;
    if (!rng)
        rng = 1;
    CHECK(f32_int_bits(f32_int_div(0.0f, 3.0f)) == 0 && f32_int_sqrt(0.0f) == 0.0f);
    CHECK(f32_int_div(1.0f, 0x1p-149f) == INFINITY, "overflow gives infinity");
    CHECK(f32_int_div(0x1p-149f, 4.0f) == 0.0f, "a tie below the smallest subnormal goes to 0");
    CHECK(f32_int_div(0x3p-149f, 2.0f) == 0x1p-148f, "a tie goes to the even subnormal");
    check_division(&rng, count);
    check_square_root(&rng, count);
    check_psnr_hvs_quotients(&rng, count);
    printf("test_f32_int_math: %d checks, %d failed\n", check_count, check_failures);
    return check_failures ? 1 : 0;
}
