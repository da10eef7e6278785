/* What the CPU benchmarks share: synthetic textured frames in memory (or a
 * raw YUV pair on disk), pictures filled from them, and clocks. */
#ifndef TEST_BENCH_BENCH_SOURCE_H
#define TEST_BENCH_BENCH_SOURCE_H

#include <stdio.h>

#include "libvmaf/libvmaf.h"

#define BENCH_N_SRC 4 /* distinct synthetic frames cycled through */

typedef struct BenchSource {
    unsigned w, h, bpc, fmt;
    /* synthetic: BENCH_N_SRC pairs of luma planes; raw: file names */
    void *ref[BENCH_N_SRC], *dis[BENCH_N_SRC];
    const char *ref_path, *dis_path;
} BenchSource;

double bench_now(void);     /* wall clock, s */
double bench_cpu_now(void); /* the calling thread's CPU time, s */

/* Textured frames: gradients, a checkerboard, fine noise, moving from one
 * frame to the next; the distorted ones add noise. 0 or -ENOMEM. */
int bench_synth(BenchSource *s);
void bench_synth_free(BenchSource *s);

/* Allocates and fills one picture: luma from memory (frame i of the cycle)
 * or the next frame of the raw file f; chroma left as allocated unless
 * read from the file. */
int bench_fill(const BenchSource *s, int is_ref, unsigned i, FILE *f, VmafPicture *pic);
/* Copies luma frame i of the synthetic cycle into an allocated picture. */
void bench_copy_luma(const BenchSource *s, int is_ref, unsigned i, VmafPicture *pic);

/* The median of n values (sorts them). */
double bench_median(double *v, unsigned n);

#endif /* TEST_BENCH_BENCH_SOURCE_H */
