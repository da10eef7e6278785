/* checkasm: the MS-SSIM decimation kernel (core/src/feature/ms_ssim/ms_ssim_kernels.h). */
#include <string.h>

#include "checkasm.h"
#include "feature/ms_ssim/ms_ssim_kernels.h"

#define ROW 64 /* floats a row: the lanes' windows span 9 + 14 */

static const VmafMsSsimKernels *kernels_of(const CheckasmLevel *level)
{
    for (int i = 1; i < 8; i++) {
        const VmafMsSsimKernels *k = vmaf_ms_ssim_kernels_get(i);
        if (k && !strcmp(k->name, level->name))
            return k;
    }
    return NULL;
}

typedef struct LanesCase {
    float src[MS_SSIM_LPF_TAPS * ROW];
    float out[2][MS_SSIM_LANES];
    const VmafMsSsimKernels *k;
} LanesCase;

static void bench_c(void *arg)
{
    LanesCase *c = arg;
    vmaf_ms_ssim_kernels_get(0)->lpf_lanes(c->src, ROW, c->out[0]);
}

static void bench_opt(void *arg)
{
    LanesCase *c = arg;
    c->k->lpf_lanes(c->src, ROW, c->out[1]);
}

/* Samples on MS-SSIM's 8-bit scale: whole values, then the fractions
 * of the decimated scales, then extremes. */
static void fill(LanesCase *c, int how)
{
    for (size_t i = 0; i < sizeof(c->src) / sizeof(c->src[0]); i++) {
        const uint32_t r = checkasm_rand();
        c->src[i] = how == 0   ? (float)(r % 256)
                    : how == 1 ? (float)(r % 65536) / 255.0f - 2.0f
                               : (r & 1 ? 255.0f : 0.0f);
    }
}

void checkasm_check_ms_ssim(void)
{
    static LanesCase c;
    const VmafMsSsimKernels *ck = vmaf_ms_ssim_kernels_get(0);
    for (unsigned l = 0; l < checkasm_level_count(); l++) {
        const CheckasmLevel *level = checkasm_level(l);
        const VmafMsSsimKernels *k = kernels_of(level);
        if (!k || !checkasm_should_check("ms_ssim_lpf_lanes", level, (const void *)k->lpf_lanes,
                                         (const void *)ck->lpf_lanes))
            continue;
        c.k = k;
        for (int round = 0; round < 300 && !checkasm_failures_here(); round++) {
            fill(&c, round % 3);
            bench_c(&c);
            bench_opt(&c);
            if (memcmp(c.out[0], c.out[1], sizeof(c.out[0])))
                checkasm_fail("round %d: outputs differ from C", round);
        }
        if (checkasm_benching()) {
            fill(&c, 1);
            checkasm_bench("ms_ssim_lpf_lanes", level, bench_c, bench_opt, &c);
        }
    }
}
