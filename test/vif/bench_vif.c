/*
 * Time per frame of the integer VIF numerics on one golden vector, for one
 * parameter set (egl 100) and for two scored together (egl 100 and 1, as
 * VMAF and VMAF NEG ask), single thread, with every row-function variant
 * this build and CPU have. Checks nothing.
 *
 * Usage: bench_vif GOLDEN_JSON VECTOR_DIR [VECTOR_ID [REPEATS]]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "feature/vif/vif.h"
#include "vmaf_golden.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

/* Best-of-repeats mean time per frame over every frame, in ms. */
static double time_sets(const VifDsp *dsp, const GoldenVector *v, void *const *ref,
                        void *const *dis, const VifParams *sets, unsigned n, void *scratch,
                        size_t size, unsigned repeats)
{
    const ptrdiff_t stride = (ptrdiff_t)(v->w * (v->bpc > 8 ? 2 : 1));
    double best = 1e30;
    for (unsigned r = 0; r < repeats; r++) {
        VifScores out[VMAF_VIF_MAX_PARAMS];
        const double t0 = now();
        for (unsigned f = 0; f < v->frames; f++)
            if (vmaf_vif_compute_dsp(dsp, ref[f], stride, dis[f], stride, v->w, v->h, v->bpc,
                                     sets, n, scratch, size, out))
                return -1;
        const double t = (now() - t0) * 1e3 / v->frames;
        best = t < best ? t : best;
    }
    return best;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s GOLDEN_JSON VECTOR_DIR [VECTOR_ID [REPEATS]]\n", argv[0]);
        return 2;
    }
    const char *id = argc > 3 ? argv[3] : "v06";
    const unsigned repeats = argc > 4 ? (unsigned)atoi(argv[4]) : 5;
    VmafGolden *g;
    if (golden_open(argv[1], argv[2], &g))
        return 1;
    const GoldenVector *v = NULL;
    for (unsigned i = 0; i < golden_vector_count(g); i++)
        if (!strcmp(golden_vector(g, i)->id, id))
            v = golden_vector(g, i);
    if (!v) {
        fprintf(stderr, "no vector %s\n", id);
        return 1;
    }
    const size_t bytes = (size_t)v->w * v->h * (v->bpc > 8 ? 2 : 1);
    void **ref = calloc(v->frames, sizeof(*ref)), **dis = calloc(v->frames, sizeof(*dis));
    const size_t size = vmaf_vif_scratch_size(v->w, v->h);
    void *scratch = malloc(size);
    for (unsigned f = 0; f < v->frames; f++) {
        ref[f] = malloc(bytes);
        dis[f] = malloc(bytes);
        if (!ref[f] || !dis[f] || golden_read_luma(v, 0, f, ref[f]) ||
            golden_read_luma(v, 1, f, dis[f]))
            return 1;
    }
    const VifParams sets[2] = {{.enhn_gain_limit = 100.0}, {.enhn_gain_limit = 1.0}};
    int err = 0;
    for (int i = 0; i < 8; i++) {
        const VifDsp *dsp = vmaf_vif_dsp_variant(i);
        if (!dsp)
            continue;
        const double one = time_sets(dsp, v, ref, dis, sets, 1, scratch, size, repeats);
        const double two = time_sets(dsp, v, ref, dis, sets, 2, scratch, size, repeats);
        printf("vif %s %ux%u %u-bit, %s: %.2f ms/frame one set, %.2f ms/frame two sets "
               "(x%.3f)\n", v->id, v->w, v->h, v->bpc, dsp->name, one, two, two / one);
        err |= one < 0 || two < 0;
    }
    golden_close(g);
    return err;
}
