/* The summary; see summary.h. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "one_line.h"
#include "summary.h"

/* The name a feature's score is stored under: a GPU twin ("float_ssim_cuda")
 * writes the outputs of the extractor it stands in for ("float_ssim"), as
 * the library says. */
static const char *summary_name(const char *feature)
{
    const char *name = feature;
    (void)vmaf_feature_extractor_info(feature, &name);
    return name;
}

/* `fmt` is one of the conversions cli_parse builds (%.6f, %.17g, %.Nf). */
static void put_score(FILE *f, const char *fmt, double v)
{
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
#endif
    fprintf(f, fmt, v);
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif
}

/* A name in the summary, as "NAME: ": control characters the caller put
 * into a model's name= would split the line or drive the terminal. */
static void put_label(FILE *f, const char *name)
{
    for (const char *c = name; *c; c++)
        fputc(one_line_char(*c), f);
    fputs(": ", f);
}

/* As the reference prints them: every model's pooled score (a
 * collection's model "0" included), then each collection's bagging score
 * with its interval and deviation. */
static void print_models(FILE *f, const CliSettings *c, const LoadedModel *models,
                         const double *model_score, const VmafModelCollectionScore *coll_score)
{
    for (unsigned i = 0; i < c->model_cnt; i++) {
        put_label(f, models[i].label);
        put_score(f, c->precision_fmt, model_score[i]);
        fputc('\n', f);
    }
    for (unsigned i = 0; i < c->model_cnt; i++) {
        const VmafModelCollectionScore *cs = &coll_score[i];
        if (!models[i].collection || cs->type != VMAF_MODEL_COLLECTION_SCORE_BOOTSTRAP)
            continue;
        put_label(f, models[i].label);
        put_score(f, c->precision_fmt, cs->bootstrap.bagging_score);
        fputs(", ci.p95: [", f);
        put_score(f, c->precision_fmt, cs->bootstrap.ci.p95.lo);
        fputs(", ", f);
        put_score(f, c->precision_fmt, cs->bootstrap.ci.p95.hi);
        fputs("], stddev: ", f);
        put_score(f, c->precision_fmt, cs->bootstrap.stddev);
        fputc('\n', f);
    }
}

static void print_features(FILE *f, const CliSettings *c, VmafContext *vmaf, unsigned frames)
{
    for (unsigned i = 0; i < c->feature_cnt; i++) {
        double score;
        const char *name = summary_name(c->feature[i].name);
        /* A feature given twice (or as itself and as its GPU twin) has one
         * score under its name: one line. */
        bool seen = false;
        for (unsigned j = 0; j < i && !seen; j++)
            seen = !strcmp(summary_name(c->feature[j].name), name);
        if (seen)
            continue;
        /* Features whose output is named differently from the extractor
         * are in the report only. */
        if (vmaf_feature_score_pooled(vmaf, name, VMAF_POOL_METHOD_MEAN, &score, 0, frames - 1))
            continue;
        put_label(f, name);
        put_score(f, c->precision_fmt, score);
        fputc('\n', f);
    }
}

void summary_print(FILE *f, const CliSettings *c, VmafContext *vmaf, const LoadedModel *models,
                   const double *model_score, const VmafModelCollectionScore *coll_score,
                   unsigned frames)
{
    if (!c->no_prediction)
        print_models(f, c, models, model_score, coll_score);
    print_features(f, c, vmaf, frames);
}
