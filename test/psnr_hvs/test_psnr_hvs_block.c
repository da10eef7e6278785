/*
 * psnr_hvs_cuda's block code against the CPU's, without a GPU: the same
 * header (feature/psnr_hvs/psnr_hvs_block.h) built with the device's
 * integer division and square root (psnr_hvs_block_int.c) and with the
 * C operators (here), term for term bit for bit, on blocks of every
 * depth the extractor takes and of the shapes that reach each branch:
 * noise, flat blocks (no variance), flat quarters, edges, equal and
 * nearly equal pairs.
 *
 * Usage: test_psnr_hvs_block [seed [blocks]]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "psnr_hvs_block_int.h"
#include "test_random.h"

#include "feature/psnr_hvs/psnr_hvs.h"

/* Block shape k of samples below 2^bpc into b. */
static void make_block(uint64_t *rng, int shape, unsigned bpc, int32_t b[64])
{
    const int32_t max = (1 << bpc) - 1, base = (int32_t)(test_random(rng) % (unsigned)(max + 1));
    for (int k = 0; k < 64; k++) {
        const int i = k / 8, j = k % 8;
        int32_t v;
        switch (shape) {
        case 0: v = (int32_t)(test_random(rng) % (unsigned)(max + 1)); break; /* noise */
        case 1: v = base; break;                                           /* flat */
        case 2: v = ((i < 4) ^ (j < 4)) ? base : max - base; break;       /* flat quarters */
        case 3: v = j < 3 ? base : base / 2; break;                       /* an edge */
        default: v = base + (int32_t)(test_random(rng) % 5) - 2; break;  /* a low texture */
        }
        b[k] = v < 0 ? 0 : v > max ? max : v;
    }
}

/* The distorted block: equal, a sample or two off, or noise on top. */
static void distort(uint64_t *rng, unsigned bpc, const int32_t s[64], int32_t d[64])
{
    const int32_t max = (1 << bpc) - 1;
    const unsigned how = test_random(rng) % 3, amp = 1u + test_random(rng) % (1u << (bpc - 4));
    for (int k = 0; k < 64; k++) {
        int32_t v = s[k];
        if (how == 1 && k == (int)(test_random(rng) % 64))
            v += 1;
        else if (how == 2)
            v += (int32_t)(test_random(rng) % (2 * amp + 1)) - (int32_t)amp;
        d[k] = v < 0 ? 0 : v > max ? max : v;
    }
}

int main(int argc, char **argv)
{
    uint64_t rng = argc > 1 ? strtoull(argv[1], NULL, 0) : 0xb10c4b10c4ull;
    const unsigned blocks = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 0) : 60000;
    if (!rng)
        rng = 1;
    static const unsigned depths[] = { 8, 10, 12 };
    float mask[3][8][8];
    for (int t = 0; t < 3; t++)
        vmaf_psnr_hvs_mask(t, mask[t]);
    unsigned bad = 0, nonzero = 0;
    for (unsigned n = 0; n < blocks; n++) {
        const unsigned bpc = depths[test_random(&rng) % 3];
        const int t = (int)(test_random(&rng) % 3), shape = (int)(test_random(&rng) % 5);
        int32_t s[64], d[64], s2[64], d2[64];
        make_block(&rng, shape, bpc, s);
        distort(&rng, bpc, s, d);
        memcpy(s2, s, sizeof(s));
        memcpy(d2, d, sizeof(d));
        float cpu[64], dev[64];
        psnr_hvs_block_terms(s, d, mask[t], vmaf_psnr_hvs_csf[t], cpu);
        block_terms_int(s2, d2, mask[t], vmaf_psnr_hvs_csf[t], dev);
        for (int k = 0; k < 64; k++) {
            nonzero += cpu[k] != 0;
            if (memcmp(&cpu[k], &dev[k], sizeof(float)) && !bad++)
                fprintf(stderr, "block %u (%u-bit, shape %d, table %d) term %d: CPU %a, "
                        "device %a\n", n, bpc, shape, t, k, cpu[k], dev[k]);
        }
    }
    CHECK(!bad, "%u of %u terms differ between the CPU's and the device's block code", bad,
          64 * blocks);
    /* The blocks must reach the masking, not only equal pairs. */
    CHECK(nonzero > 64 * blocks / 20, "only %u non-zero terms", nonzero);
    printf("test_psnr_hvs_block: %u blocks, %u non-zero terms; %d checks, %d failed\n", blocks,
           nonzero, check_count, check_failures);
    return check_failures ? 1 : 0;
}
