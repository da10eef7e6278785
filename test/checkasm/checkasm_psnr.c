/* checkasm: the psnr kernels (core/src/feature/psnr/psnr_sse.h). */
#include <string.h>

#include "checkasm.h"
#include "feature/psnr/psnr_sse.h"

#define MAXW 4097

static const VmafPsnrKernels *kernels_of(const CheckasmLevel *level)
{
    for (int i = 1; i < 8; i++) {
        const VmafPsnrKernels *k = vmaf_psnr_kernels_get(i);
        if (k && !strcmp(k->name, level->name))
            return k;
    }
    return NULL;
}

typedef struct RowCase {
    uint16_t a[MAXW], b[MAXW];
    unsigned w, bpc;
    uint64_t sse[2];
    const VmafPsnrKernels *k;
} RowCase;

static void row_run(const VmafPsnrKernels *k, RowCase *c, int which)
{
    if (c->bpc == 8)
        c->sse[which] = k->sse_row_8((const uint8_t *)c->a, (const uint8_t *)c->b, c->w);
    else
        c->sse[which] = k->sse_row_16(c->a, c->b, c->w);
}

static void bench_c(void *arg)
{
    row_run(vmaf_psnr_kernels_get(0), arg, 0);
}

static void bench_opt(void *arg)
{
    RowCase *c = arg;
    row_run(c->k, c, 1);
}

/* Extreme fills put 0 against the peak: the largest squared errors. */
static void fill(RowCase *c, enum CheckasmFill how)
{
    if (c->bpc == 8) {
        checkasm_fill_u8((uint8_t *)c->a, c->w, how);
        checkasm_fill_u8((uint8_t *)c->b, c->w, how == CHECKASM_FLAT ? how : CHECKASM_RANDOM);
    } else {
        checkasm_fill_u16(c->a, c->w, c->bpc, how);
        checkasm_fill_u16(c->b, c->w, c->bpc, how == CHECKASM_FLAT ? how : CHECKASM_RANDOM);
    }
    if (how == CHECKASM_EXTREME)
        for (unsigned x = 0; x < c->w; x++) {
            if (c->bpc == 8)
                ((uint8_t *)c->b)[x] = ((uint8_t *)c->a)[x] ? 0 : 255;
            else
                c->b[x] = c->a[x] ? 0 : (uint16_t)((1u << c->bpc) - 1);
        }
}

static void check_depth(const CheckasmLevel *level, const VmafPsnrKernels *k, unsigned bpc,
                        const char *name)
{
    static RowCase c;
    const VmafPsnrKernels *ck = vmaf_psnr_kernels_get(0);
    const void *fn = bpc == 8 ? (const void *)k->sse_row_8 : (const void *)k->sse_row_16;
    const void *cfn = bpc == 8 ? (const void *)ck->sse_row_8 : (const void *)ck->sse_row_16;
    if (!checkasm_should_check(name, level, fn, cfn))
        return;
    c.k = k;
    static const unsigned depths[] = { 10, 12, 16 };
    for (unsigned d = 0; d < (bpc == 8 ? 1 : 3); d++) {
        c.bpc = bpc == 8 ? 8 : depths[d];
        for (const unsigned *w = checkasm_widths(); *w && !checkasm_failures_here(); w++)
            for (int how = 0; how < CHECKASM_FILLS; how++) {
                c.w = *w;
                fill(&c, (enum CheckasmFill)how);
                bench_c(&c);
                bench_opt(&c);
                if (c.sse[0] != c.sse[1])
                    checkasm_fail("%u bits, width %u, fill %d: %llu, C %llu", c.bpc, *w, how,
                                  (unsigned long long)c.sse[1], (unsigned long long)c.sse[0]);
            }
    }
    if (checkasm_benching()) {
        c.w = 1920;
        c.bpc = bpc == 8 ? 8 : 10;
        fill(&c, CHECKASM_RANDOM);
        checkasm_bench(name, level, bench_c, bench_opt, &c);
    }
}

void checkasm_check_psnr(void)
{
    for (unsigned l = 0; l < checkasm_level_count(); l++) {
        const CheckasmLevel *level = checkasm_level(l);
        const VmafPsnrKernels *k = kernels_of(level);
        if (!k)
            continue;
        check_depth(level, k, 8, "psnr_sse_row_8");
        check_depth(level, k, 16, "psnr_sse_row_16");
    }
}
