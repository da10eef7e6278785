/* The scoring context: models, backend, features; see run.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "backend.h"
#include "lib_log.h"
#include "lib_settings.h"
#include "message.h"
#include "models.h"
#include "run.h"
#include "threads.h"
#include "vmaf.h"

static unsigned worker_count(const Run *r)
{
    const CliSettings *c = &r->c;
    return c->threads_given ? c->threads
                            : threads_default(threads_cpus_available(), r->ref.info.w,
                                              r->ref.info.h, r->ref.info.bpc);
}

static int create_context(Run *r)
{
    const CliSettings *c = &r->c;
    VmafConfiguration cfg = lib_settings_config(r->log_level);
    cfg.n_threads = worker_count(r);
    cfg.n_subsample = c->subsample;
    cfg.gpumask = c->backend == CLI_BACKEND_CPU ? 1 : 0;
    const int err = vmaf_init(&r->vmaf, cfg);
    if (err) {
        r->vmaf = NULL;
        return report(VMAF_EXIT_SCORING, "cannot create the scoring context (%s): %s",
                      "vmaf_init", lib_why(strerror(-err)));
    }
    return 0;
}

static int use_models(Run *r)
{
    const CliSettings *c = &r->c;
    for (unsigned i = 0; i < c->model_cnt; i++) {
        const LoadedModel *m = &r->models[i];
        const int err = m->collection
            ? vmaf_use_features_from_model_collection(r->vmaf, m->collection)
            : vmaf_use_features_from_model(r->vmaf, m->model);
        if (!err)
            continue;
        const char *why = lib_why(strerror(-err));
        if (c->model[i].is_default)
            return report(VMAF_EXIT_MODEL, "cannot use the default model (vmaf_v0.6.1): %s "
                          "(with this tool: -n and --feature NAME, or another model with -m)",
                          why);
        if (c->no_prediction)
            return report(VMAF_EXIT_MODEL, "cannot use model (%s): %s (with -n a model's "
                          "features are still extracted: drop this -m)", m->label, why);
        return report(VMAF_EXIT_MODEL, "cannot use model (%s): %s", m->label, why);
    }
    return 0;
}

static int use_feature(Run *r, const CliFeature *f)
{
    VmafFeatureDictionary *dict;
    if (make_dict(f->opt, f->opt_cnt, &dict))
        return report(VMAF_EXIT_SCORING, "out of memory (--feature %s)", f->name);
    const int err = vmaf_use_feature(r->vmaf, f->name, dict);
    if (err == -ENODEV) {
        /* A GPU twin of a build without CUDA: a GPU problem, as with no
         * usable GPU. The library left the options to the caller. */
        vmaf_feature_dictionary_free(&dict);
        return report(VMAF_EXIT_GPU, "cannot use feature (--feature %s): %s", f->name,
                      lib_why("this build has no CUDA support; ask for the CPU feature"));
    }
    if (err == -ENOMEM)
        return report(VMAF_EXIT_SCORING, "out of memory (--feature %s)", f->name);
    if (err)
        return report(VMAF_EXIT_USAGE, "cannot use feature (--feature %s): %s", f->name,
                      lib_why("the library refused it"));
    return 0;
}

/* What was held back until the run was set up: the backend auto chose,
 * and inputs of different lengths. */
static void say_setup_notes(Run *r)
{
    if (r->backend_note[0] && !r->c.quiet)
        fprintf(stderr, "%s\n", r->backend_note);
    if (r->counts_common >= 0) {
        const bool ref_short = r->ref.info.frame_cnt - r->c.frame_skip_ref == r->counts_common;
        counts_differ(ref_short ? &r->ref : &r->dist, ref_short ? &r->dist : &r->ref,
                      (unsigned)r->counts_common);
        r->counts_warned = true;
    }
}

int set_up_scoring(Run *r)
{
    const CliSettings *c = &r->c;
    int status;
    for (unsigned i = 0; i < c->model_cnt; i++)
        if ((status = load_model(&c->model[i], &r->models[i], r->log_level)))
            return status;
    const AutoWork work = { .frames = r->total, .w = r->ref.info.w, .h = r->ref.info.h,
                            .threads = worker_count(r), .subsample = c->subsample };
    if ((status = create_context(r)) ||
        (status = setup_backend(c, &work, r->vmaf, &r->cuda, r->backend_note,
                                sizeof(r->backend_note))) ||
        (status = use_models(r)))
        return status;
    for (unsigned i = 0; i < c->feature_cnt; i++)
        if ((status = use_feature(r, &c->feature[i])))
            return status;
    picture_source_init(&r->src, r->vmaf, r->cuda, r->ref.info.w, r->ref.info.h,
                        r->ref.info.bpc, r->ref.info.pix_fmt, c->quiet);
    say_setup_notes(r);
    return 0;
}
