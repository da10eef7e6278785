/* checkasm: the motion kernels (core/src/feature/motion/motion_sad.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkasm.h"
#include "feature/motion/motion_sad.h"

#define MAXW 4097
#define GUARD 16

static const VmafMotionKernels *kernels_of(const CheckasmLevel *level)
{
    for (int i = 1; i < 8; i++) {
        const VmafMotionKernels *k = vmaf_motion_kernels_get(i);
        if (k && !strcmp(k->name, level->name))
            return k;
    }
    return NULL;
}

typedef struct ColCase {
    uint16_t src[2][MOTION_TAPS][MAXW];
    int32_t y[2][MAXW + GUARD];
    unsigned w, bpc;
    const VmafMotionKernels *k;
} ColCase;

static void rows_of(ColCase *c, const void *p[MOTION_TAPS], const void *q[MOTION_TAPS])
{
    for (int t = 0; t < MOTION_TAPS; t++) {
        p[t] = c->src[0][t];
        q[t] = c->src[1][t];
    }
}

/* The vertical pass of one row, into y[which]. */
static void col_run(const VmafMotionKernels *k, ColCase *c, int which)
{
    const void *p[MOTION_TAPS], *q[MOTION_TAPS];
    rows_of(c, p, q);
    if (c->bpc == 8)
        k->blur_diff_col_8((const uint8_t *const *)p, (const uint8_t *const *)q, c->w,
                           c->y[which]);
    else
        k->blur_diff_col_16((const uint16_t *const *)p, (const uint16_t *const *)q, c->w,
                            c->bpc, c->y[which]);
}

static void fill_col(ColCase *c, enum CheckasmFill how)
{
    for (int s = 0; s < 2; s++)
        for (int t = 0; t < MOTION_TAPS; t++) {
            if (c->bpc == 8)
                checkasm_fill_u8((uint8_t *)c->src[s][t], c->w, how);
            else
                checkasm_fill_u16(c->src[s][t], c->w, c->bpc, how);
        }
}

static void bench_col_c(void *arg)
{
    col_run(vmaf_motion_kernels_get(0), arg, 0);
}

static void bench_col_opt(void *arg)
{
    ColCase *c = arg;
    col_run(c->k, c, 1);
}

/* One entry at one or more depths: every width and fill. */
static void compare_cols(ColCase *c, const VmafMotionKernels *k, const unsigned *depths,
                         unsigned n_depths)
{
    const VmafMotionKernels *ck = vmaf_motion_kernels_get(0);
    c->k = k;
    for (unsigned d = 0; d < n_depths; d++) {
        c->bpc = depths[d];
        for (const unsigned *w = checkasm_widths(); *w && !checkasm_failures_here(); w++) {
            for (int how = 0; how < CHECKASM_FILLS; how++) {
                c->w = *w;
                fill_col(c, (enum CheckasmFill)how);
                memset(c->y, 0x55, sizeof(c->y));
                col_run(ck, c, 0);
                col_run(k, c, 1);
                if (memcmp(c->y[0], c->y[1], sizeof(c->y[0])))
                    checkasm_fail("%u bits, width %u, fill %d: rows differ (or a write past "
                                  "the width)", c->bpc, *w, how);
            }
        }
    }
}

static void check_cols(const CheckasmLevel *level, const VmafMotionKernels *k)
{
    static ColCase c;
    const VmafMotionKernels *ck = vmaf_motion_kernels_get(0);
    static const unsigned d8[] = { 8 }, d16[] = { 10, 12, 16 };
    if (checkasm_should_check("motion_blur_diff_col_8", level, (const void *)k->blur_diff_col_8,
                              (const void *)ck->blur_diff_col_8)) {
        compare_cols(&c, k, d8, 1);
        if (checkasm_benching()) {
            c.w = 1920;
            fill_col(&c, CHECKASM_RANDOM);
            checkasm_bench("motion_blur_diff_col_8", level, bench_col_c, bench_col_opt, &c);
        }
    }
    if (checkasm_should_check("motion_blur_diff_col_16", level,
                              (const void *)k->blur_diff_col_16,
                              (const void *)ck->blur_diff_col_16)) {
        compare_cols(&c, k, d16, 3);
        if (checkasm_benching()) {
            c.w = 1920;
            fill_col(&c, CHECKASM_RANDOM);
            checkasm_bench("motion_blur_diff_col_16 (10 bit)", level, bench_col_c,
                           bench_col_opt, &c);
        }
    }
}

typedef struct RowCase {
    int32_t y[MAXW + 2 * MOTION_RADIUS];
    unsigned w;
    uint32_t sad[2];
    const VmafMotionKernels *k;
} RowCase;

static void bench_row_c(void *arg)
{
    RowCase *c = arg;
    c->sad[0] = vmaf_motion_kernels_get(0)->blur_row_sad(c->y + MOTION_RADIUS, c->w);
}

static void bench_row_opt(void *arg)
{
    RowCase *c = arg;
    c->sad[1] = c->k->blur_row_sad(c->y + MOTION_RADIUS, c->w);
}

static void fill_row(RowCase *c, enum CheckasmFill how)
{
    checkasm_fill_i32(c->y, c->w + 2 * MOTION_RADIUS, 17, how);
    for (unsigned i = 0; i < c->w + 2 * MOTION_RADIUS; i++)
        c->y[i] = c->y[i] < -65535 ? -65535 : c->y[i]; /* |y| < 2^16 */
}

static void check_row(const CheckasmLevel *level, const VmafMotionKernels *k)
{
    static RowCase c;
    if (!checkasm_should_check("motion_blur_row_sad", level, (const void *)k->blur_row_sad,
                               (const void *)vmaf_motion_kernels_get(0)->blur_row_sad))
        return;
    c.k = k;
    for (const unsigned *w = checkasm_widths(); *w && !checkasm_failures_here(); w++) {
        for (int how = 0; how < CHECKASM_FILLS; how++) {
            c.w = *w;
            fill_row(&c, (enum CheckasmFill)how);
            bench_row_c(&c);
            bench_row_opt(&c);
            if (c.sad[0] != c.sad[1])
                checkasm_fail("width %u, fill %d: %u, C %u", *w, how, c.sad[1], c.sad[0]);
        }
    }
    if (checkasm_benching()) {
        c.w = 1920;
        fill_row(&c, CHECKASM_RANDOM);
        checkasm_bench("motion_blur_row_sad", level, bench_row_c, bench_row_opt, &c);
    }
}

void checkasm_check_motion(void)
{
    for (unsigned l = 0; l < checkasm_level_count(); l++) {
        const CheckasmLevel *level = checkasm_level(l);
        const VmafMotionKernels *k = kernels_of(level);
        if (!k)
            continue;
        check_cols(level, k);
        check_row(level, k);
    }
}
