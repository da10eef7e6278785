/*
 * Every ADM output of every frame of every golden run that uses ADM,
 * compared with the reference's value as doubles, bit for bit (metrics the
 * golden data marks inexact are skipped, but must be finite here).
 *
 * All parameter sets of a vector are scored in one call per frame; on the
 * first frames each set is also scored alone and must give the same bits.
 *
 * With --level, the inner loops of that CPU level (c, avx2, avx512; the
 * default is best, what vmaf_adm_compute() uses).
 *
 * Usage: test_adm_golden golden_vmaf.json vector_dir models_dir [vector_id]
 *                        [--level NAME]
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adm_test_params.h"
#include "feature/adm/adm.h"
#include "feature/adm/adm_dsp.h"
#include "vmaf_golden.h"

#define MAX_SETS ADM_MAX_PARAM_SETS
#define SOLO_FRAMES 2

static AdmDsp dsp;

typedef struct Tally {
    unsigned long equal, differ, skipped, nonfinite;
    unsigned shown;
} Tally;

typedef struct Vector {
    const GoldenVector *v;
    AdmParams set[MAX_SETS];
    unsigned n_sets;
    int set_of_run[64]; /* -1: run without ADM */
    void *ref, *dis, *scratch;
    size_t scratch_size;
} Vector;

/* Whether the golden run reports ADM values at all. */
static bool reports_adm(const GoldenVector *v, unsigned run)
{
    for (unsigned i = 0; i < golden_metric_count(v, run); i++) {
        if (!strncmp(golden_metric_name(v, run, i), "integer_adm2", 12))
            return true;
    }
    return false;
}

static int collect_sets(Vector *t, const char *models_dir)
{
    const unsigned runs = golden_run_count(t->v);
    if (runs > 64)
        return -1;
    for (unsigned r = 0; r < runs; r++) {
        AdmParams p;
        const int has = adm_run_params(t->v, r, models_dir, &p);
        t->set_of_run[r] = -1;
        if (has < 0) {
            fprintf(stderr, "%s %s: cannot read the ADM options\n", t->v->id,
                    golden_run_name(t->v, r));
            return -1;
        }
        if (!has && reports_adm(t->v, r)) {
            fprintf(stderr, "%s %s: ADM values but no ADM options found\n", t->v->id,
                    golden_run_name(t->v, r));
            return -1;
        }
        if (!has)
            continue;
        unsigned k = 0;
        while (k < t->n_sets && memcmp(&t->set[k], &p, sizeof(p)))
            k++;
        if (k == t->n_sets) {
            if (k == MAX_SETS)
                return -1;
            t->set[t->n_sets++] = p;
        }
        t->set_of_run[r] = (int)k;
    }
    return 0;
}

/* The option suffix of this run's ADM names: what follows "integer_adm2". */
static const char *name_suffix(const GoldenVector *v, unsigned run)
{
    for (unsigned i = 0; i < golden_metric_count(v, run); i++) {
        const char *m = golden_metric_name(v, run, i);
        if (!strncmp(m, "integer_adm2", 12))
            return m + 12;
    }
    return NULL;
}

static void compare_run(const GoldenVector *v, unsigned run, unsigned frame, const AdmScores *s,
                        Tally *t)
{
    const char *suffix = name_suffix(v, run);
    if (!suffix)
        return;
    for (unsigned i = 0; i < ADM_N_OUTPUTS; i++) {
        char name[256];
        double want;
        snprintf(name, sizeof(name), "%s%s", adm_output_names[i], suffix);
        if (golden_frame_value(v, run, frame, name, &want) < 0)
            continue; /* not reported without debug */
        const double got = adm_output_value(s, i);
        if (!golden_metric_exact(v, run, name)) {
            if (frame == 0 && i < 2)
                printf("  (inexact) %s %s frame 0 %s: %.6g here, reference %.6g\n", v->id,
                       golden_run_name(v, run), name, got, want);
            t->skipped++;
            if (got != got || got - got != 0)
                t->nonfinite++;
            continue;
        }
        if (golden_same(got, want)) {
            t->equal++;
            continue;
        }
        t->differ++;
        if (t->shown++ < 12)
            printf("  %s %s frame %u %s: %.17g, reference %.17g\n", v->id,
                   golden_run_name(v, run), frame, name, got, want);
    }
}

static int solo_check(Vector *t, const AdmScores *all, unsigned frame)
{
    const GoldenVector *v = t->v;
    const ptrdiff_t stride = (ptrdiff_t)v->w * (v->bpc > 8 ? 2 : 1);
    for (unsigned k = 0; k < t->n_sets; k++) {
        AdmScores one;
        if (vmaf_adm_compute_dsp(&dsp, t->ref, stride, t->dis, stride, v->w, v->h, v->bpc,
                                 &t->set[k], 1, t->scratch, t->scratch_size, &one) ||
            memcmp(&one, &all[k], sizeof(one))) {
            printf("  %s frame %u: set %u alone differs from the shared call\n", v->id, frame, k);
            return -1;
        }
    }
    return 0;
}

static int run_frame(Vector *t, unsigned frame, Tally *tally)
{
    const GoldenVector *v = t->v;
    const ptrdiff_t stride = (ptrdiff_t)v->w * (v->bpc > 8 ? 2 : 1);
    AdmScores all[MAX_SETS];
    if (golden_read_luma(v, 0, frame, t->ref) || golden_read_luma(v, 1, frame, t->dis))
        return -1;
    int err = vmaf_adm_compute_dsp(&dsp, t->ref, stride, t->dis, stride, v->w, v->h, v->bpc,
                                   t->set, t->n_sets, t->scratch, t->scratch_size, all);
    if (err) {
        printf("  %s frame %u: vmaf_adm_compute failed (%d)\n", v->id, frame, err);
        return -1;
    }
    for (unsigned r = 0; r < golden_run_count(v); r++) {
        if (t->set_of_run[r] >= 0)
            compare_run(v, r, frame, &all[t->set_of_run[r]], tally);
    }
    return frame < SOLO_FRAMES ? solo_check(t, all, frame) : 0;
}

static int run_vector(const GoldenVector *v, const char *models_dir, Tally *tally)
{
    Vector t = {.v = v};
    if (collect_sets(&t, models_dir))
        return -1;
    if (!t.n_sets)
        return 0;
    const size_t bytes = (size_t)v->w * v->h * (v->bpc > 8 ? 2 : 1);
    t.scratch_size = vmaf_adm_scratch_size(v->w, v->h, t.n_sets);
    t.ref = malloc(bytes);
    t.dis = malloc(bytes);
    t.scratch = malloc(t.scratch_size);
    int err = t.ref && t.dis && t.scratch ? 0 : -1;
    for (unsigned f = 0; !err && f < v->frames; f++)
        err = run_frame(&t, f, tally);
    free(t.ref);
    free(t.dis);
    free(t.scratch);
    return err;
}

int main(int argc, char **argv)
{
    const char *level = "best";
    if (argc > 2 && !strcmp(argv[argc - 2], "--level")) {
        level = argv[argc - 1];
        argc -= 2;
    }
    if (argc < 4 || adm_test_level(level, &dsp)) {
        fprintf(stderr,
                "usage: %s golden_vmaf.json vector_dir models_dir [vector_id] [--level NAME]\n"
                "(NAME: c, avx2, avx512 or best, and available here)\n",
                argv[0]);
        return 2;
    }
    VmafGolden *g;
    if (golden_open(argv[1], argv[2], &g))
        return 1;
    Tally tally = {0};
    int err = 0;
    for (unsigned i = 0; i < golden_vector_count(g); i++) {
        const GoldenVector *v = golden_vector(g, i);
        if (argc > 4 && strcmp(argv[4], v->id))
            continue;
        if (run_vector(v, argv[3], &tally))
            err = 1;
    }
    golden_close(g);
    printf("adm golden (%s): %lu values equal, %lu differ (%lu inexact in the golden data "
           "skipped, %lu of them not finite here)\n",
           level, tally.equal, tally.differ, tally.skipped, tally.nonfinite);
    return err || tally.differ || tally.nonfinite || !tally.equal;
}
