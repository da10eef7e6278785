/*
 * The launch geometry of the SSIM kernels, shared by the plan (ssim_plan.c,
 * C) and the kernels (.cu, where the table is constexpr for their launch
 * bounds): one source, so that the plan never sizes a grid for another
 * kernel than the one launched.
 */
#ifndef LIBVMAF_SRC_FEATURE_CUDA_FLOAT_SSIM_SSIM_LAUNCH_H
#define LIBVMAF_SRC_FEATURE_CUDA_FLOAT_SSIM_SSIM_LAUNCH_H

#ifndef __cplusplus
#include <stdbool.h>
#endif

enum {
    SSIM_CUDA_WIN = 11,         /* the Gaussian window (SSIM_WINDOW) */
    SSIM_CUDA_TW = 32,          /* output columns of a tile or strip: one warp wide */
    SSIM_CUDA_SP = 44,          /* staged input row pitch (floats): 16-byte rows */
    SSIM_CUDA_PART = 3,         /* frame totals a quantity: sum, weighted and plain |sum| */
    SSIM_CUDA_REC = 4 * SSIM_CUDA_PART, /* doubles of the frame totals */
    SSIM_CUDA_CH = 30,          /* output rows of a strip chunk: 960 combines, 6 a thread */
    SSIM_CUDA_SNT = 160,        /* threads of a strip block: five warps, one a quantity */
    SSIM_CUDA_SBLOCKS = 6,      /* strip blocks a multiprocessor holds (36.3 KB, 64 registers) */
};

/* A tile kernel's launch shape: TH, CW, R, threads, minimum blocks per
 * multiprocessor, and whether an item does one quantity (qsplit: five times
 * the items, each a fifth as long, the vertical sums going through shared
 * memory to a third phase that combines one output per item) or all five
 * (ssim_tile.cuh). */
typedef struct SsimCudaShape {
    int th, cw, r, nt, minb;
    bool qsplit;
} SsimCudaShape;

#ifdef __cplusplus
#define SSIM_CUDA_TABLE constexpr
#else
#define SSIM_CUDA_TABLE static const
#endif

/* Shape 0 (short tiles, split items, many threads) is for small planes,
 * where the time is the latency of one block's chain of work; shape 1
 * (tall tiles: fewer halo rows) for large planes, where it is throughput.
 * The strips (ssim_strip.cuh) are the shape after these. */
SSIM_CUDA_TABLE SsimCudaShape SSIM_CUDA_SHAPES[] = {
    {16, 8, 8, 544, 2, true},  /* 0 small planes */
    {48, 8, 6, 256, 2, false}, /* 1 larger planes */
};
#define SSIM_CUDA_NSHAPES ((int)(sizeof(SSIM_CUDA_SHAPES) / sizeof(SSIM_CUDA_SHAPES[0])))

#endif /* LIBVMAF_SRC_FEATURE_CUDA_FLOAT_SSIM_SSIM_LAUNCH_H */
