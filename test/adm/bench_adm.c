/*
 * Time per frame of the ADM numerics on one golden vector, single thread:
 * one parameter set (the VMAF model's), two sets in one call (VMAF and
 * VMAF-NEG: gain limit 100 and 1), and the two sets in two calls. Reports
 * the fastest of several rounds, in thread CPU time (the machine may be
 * shared).
 *
 * Usage: bench_adm golden_vmaf.json vector_dir vector_id [rounds [level]]
 * level: c, avx2, avx512 or best (the default: the CPU's, less the cpumask).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "adm_test_params.h"
#include "feature/adm/adm.h"
#include "feature/adm/adm_dsp.h"
#include "vmaf_golden.h"

typedef struct Clip {
    const GoldenVector *v;
    AdmDsp dsp;
    unsigned frames;
    size_t bytes;
    unsigned char *ref, *dis;
    void *scratch;
    size_t scratch_size;
} Clip;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static int load(Clip *c)
{
    c->bytes = (size_t)c->v->w * c->v->h * (c->v->bpc > 8 ? 2 : 1);
    c->frames = c->v->frames;
    c->ref = malloc(c->bytes * c->frames);
    c->dis = malloc(c->bytes * c->frames);
    c->scratch_size = vmaf_adm_scratch_size(c->v->w, c->v->h, 2);
    c->scratch = malloc(c->scratch_size);
    if (!c->ref || !c->dis || !c->scratch)
        return -1;
    for (unsigned f = 0; f < c->frames; f++) {
        if (golden_read_luma(c->v, 0, f, c->ref + f * c->bytes) ||
            golden_read_luma(c->v, 1, f, c->dis + f * c->bytes))
            return -1;
    }
    return 0;
}

/* Seconds per frame for `calls` calls of n sets each, fastest round. */
static double time_per_frame(const Clip *c, const AdmParams *sets, unsigned n, unsigned calls,
                             unsigned rounds)
{
    const ptrdiff_t stride = (ptrdiff_t)c->v->w * (c->v->bpc > 8 ? 2 : 1);
    double best = 1e30;
    for (unsigned r = 0; r < rounds; r++) {
        const double t0 = now();
        for (unsigned f = 0; f < c->frames; f++) {
            for (unsigned k = 0; k < calls; k++) {
                AdmScores out[2];
                if (vmaf_adm_compute_dsp(&c->dsp, c->ref + f * c->bytes, stride,
                                         c->dis + f * c->bytes, stride, c->v->w, c->v->h,
                                         c->v->bpc, sets + k * (calls > 1), n, c->scratch,
                                         c->scratch_size, out))
                    return -1.0;
            }
        }
        const double t = (now() - t0) / c->frames;
        best = t < best ? t : best;
    }
    return best;
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: %s golden_vmaf.json vector_dir vector_id [rounds [level]]\n",
                argv[0]);
        return 2;
    }
    const unsigned rounds = argc > 4 ? (unsigned)atoi(argv[4]) : 5;
    const char *level = argc > 5 ? argv[5] : "best";
    AdmDsp dsp;
    if (adm_test_level(level, &dsp)) {
        fprintf(stderr, "bench_adm: level %s unknown or not available here\n", level);
        return 2;
    }
    VmafGolden *g;
    if (golden_open(argv[1], argv[2], &g))
        return 1;
    Clip c = {0};
    c.dsp = dsp;
    for (unsigned i = 0; i < golden_vector_count(g); i++) {
        if (!strcmp(golden_vector(g, i)->id, argv[3]))
            c.v = golden_vector(g, i);
    }
    if (!c.v || load(&c)) {
        fprintf(stderr, "bench_adm: cannot load %s\n", argv[3]);
        return 1;
    }
    AdmParams sets[2];
    vmaf_adm_params_default(&sets[0]);
    sets[1] = sets[0];
    sets[1].enhn_gain_limit = 1.0;
    const double one = time_per_frame(&c, sets, 1, 1, rounds);
    const double shared = time_per_frame(&c, sets, 2, 1, rounds);
    const double apart = time_per_frame(&c, sets, 1, 2, rounds);
    printf("adm %s %ux%u %s: 1 set %.2f ms/frame, 2 sets in one call %.2f ms (%.2fx), "
           "in two calls %.2f ms (%.2fx)\n",
           c.v->id, c.v->w, c.v->h, level, one * 1e3, shared * 1e3, shared / one, apart * 1e3,
           apart / one);
    free(c.ref);
    free(c.dis);
    free(c.scratch);
    golden_close(g);
    return one < 0 || shared < 0 || apart < 0;
}
