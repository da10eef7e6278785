/* The context side of models: which extractors a model needs, and its
 * per-frame and pooled scores, stored in the context's collector under the
 * model's name so that every report includes them. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libvmaf/libvmaf.h"
#include "libvmaf/model.h"

#include "context.h"
#include "dict.h"
#include "log.h"
#include "model/model_internal.h"
#include "registry.h"

/* One extractor instance a set of models needs: an extractor, with the
 * union of the options its features ask for. Features whose options name
 * their scores differently need separate instances. */
typedef struct Use {
    const VmafFeatureExtractor *fex;
    const char *feature;           /* a feature name to ask for it by */
    const VmafModel *model;        /* first model that needed it (messages) */
    VmafFeatureDictionary *opts;
    /* A feature of it that needs an option on (float_ssim_l: enable_lcs),
     * so that another model's feature cannot switch it off. */
    const VmafModelFeature *needs_feature;
    const VmafOption *needs;
} Use;

/* The options feature f needs: the model's, and the option that switches
 * its output on (float_ssim_l needs enable_lcs), since the extractor is
 * asked for by its first feature's name, which alone would not. */
static int feature_options(const VmafModel *m, const VmafModelFeature *f,
                           const VmafFeatureExtractor *fex, VmafFeatureDictionary **out)
{
    *out = NULL;
    int err = vmaf_dict_copy(f->opts, out);
    const VmafOption *enabling = vmaf_fex_option_enabling(fex, f->feature);
    if (err || !enabling)
        return err;
    const char *set = vmaf_dict_get(f->opts, enabling->name);
    if (set && strcmp(set, "true")) {
        vmaf_error("model %s: feature %s is an output of %s only with %s=true, but the model "
                   "sets %s=%s for that extractor; remove that option",
                   m->name, f->name, fex->name, enabling->name, enabling->name, set);
        vmaf_feature_dictionary_free(out);
        return -EINVAL;
    }
    err = vmaf_feature_dictionary_set(out, enabling->name, "true");
    if (err)
        vmaf_feature_dictionary_free(out);
    return err;
}

/* An option's text in a request's options, or that it is left at its
 * default. */
static const char *opt_text(const VmafFeatureDictionary *d, const char *key)
{
    const char *v = vmaf_dict_get(d, key);
    return v ? v : "(default)";
}

/* Whether options d, of model setter, switch off the option o that
 * feature f of model m needs. */
static int switched_off(const VmafModel *m, const VmafModelFeature *f,
                        const VmafFeatureExtractor *fex, const VmafOption *o,
                        const VmafModel *setter, const VmafFeatureDictionary *d)
{
    const char *v = o ? vmaf_dict_get(d, o->name) : NULL;
    if (!v || !strcmp(v, "true"))
        return 0;
    vmaf_error("model %s: feature %s is an output of %s only with %s=true, but model %s sets "
               "%s=%s for that extractor; remove that option", m->name, f->name, fex->name,
               o->name, setter->name, o->name, v);
    return -EINVAL;
}

static int add_use(Use *use, unsigned *n_use, const VmafModel *m, const VmafModelFeature *f,
                   const VmafFeatureExtractor *fex)
{
    VmafFeatureDictionary *want;
    int err = feature_options(m, f, fex, &want);
    if (err)
        return err;
    const VmafOption *needs = vmaf_fex_option_enabling(fex, f->feature);
    for (unsigned i = 0; i < *n_use; i++) {
        if (use[i].fex != fex)
            continue;
        if ((use[i].needs && (err = switched_off(use[i].model, use[i].needs_feature, fex,
                                                  use[i].needs, m, want))) ||
            (err = switched_off(m, f, fex, needs, use[i].model, use[i].opts))) {
            vmaf_feature_dictionary_free(&want);
            return err;
        }
        VmafFeatureDictionary *merged = NULL;
        const char *key;
        err = vmaf_fex_merge_options(fex, use[i].opts, want, &merged, &key);
        if (err == -EEXIST)
            continue; /* named apart: another instance */
        if (key)
            vmaf_error("models %s and %s (or one model twice) ask extractor %s for option "
                       "%s=%s and %s=%s; one instance runs with one value of an option that "
                       "does not name its scores: overload the option to one value",
                       use[i].model->name, m->name, fex->name, key, opt_text(use[i].opts, key),
                       key, opt_text(want, key));
        vmaf_feature_dictionary_free(&want);
        if (err)
            return err;
        vmaf_feature_dictionary_free(&use[i].opts);
        use[i].opts = merged;
        if (needs) {
            use[i].needs = needs;
            use[i].needs_feature = f;
        }
        return 0;
    }
    Use *u = &use[(*n_use)++];
    u->fex = fex;
    u->feature = f->feature;
    u->model = m;
    u->opts = want;
    u->needs = needs;
    u->needs_feature = needs ? f : NULL;
    return 0;
}

/* Does a score name of the models collide with a feature: one that a
 * model of the set reads, or one an extractor of this build emits? Each
 * would be overwritten by the model's score. 0 or -EINVAL (logged). */
static int check_score_name(VmafModel *const *models, unsigned n_models, const VmafModel *who,
                            const char *name)
{
    for (unsigned i = 0; i < n_models; i++) {
        const VmafModel *m = models[i];
        for (unsigned j = 0; j < m->n_features; j++) {
            const VmafModelFeature *f = &m->feature[j];
            if (!strcmp(name, f->name) || !strcmp(name, f->feature) ||
                (f->lookup && !strcmp(name, f->lookup))) {
                vmaf_error("model %s (%s): its score %s has the name of feature %s of model "
                           "%s; the score would replace the feature's: give the model "
                           "another name " VMAF_MODEL_RENAME_HINT,
                           who->name, who->source, name, f->name, m->name);
                return -EINVAL;
            }
        }
    }
    const VmafFeatureExtractor *fex = vmaf_registry_find_by_feature(name);
    if (fex) {
        vmaf_error("model %s (%s): its score %s has the name of a feature of extractor %s; "
                   "the score would replace the feature's: give the model another name "
                   VMAF_MODEL_RENAME_HINT,
                   who->name, who->source, name, fex->name);
        return -EINVAL;
    }
    return 0;
}

/* Is `name` already the score of a model that an earlier call put into use?
 * The same model again is no clash. 0 or -EINVAL (logged). */
static int check_used_name(const VmafContext *vmaf, const VmafModel *who, const char *name)
{
    for (unsigned i = 0; i < vmaf->score_name_cnt; i++) {
        const struct VmafScoreName *u = &vmaf->score_name[i];
        if (u->model != who->serial && !strcmp(u->name, name)) {
            vmaf_error("model %s (%s): its score %s is already the score of model %s, in "
                       "use in this context; two models cannot share a score name: give "
                       "one of them another name " VMAF_MODEL_RENAME_HINT,
                       who->name, who->source, name, u->model_name);
            return -EINVAL;
        }
    }
    return 0;
}

/* Score k (0..3) a collection stores beside its members': NAME_bagging,
 * NAME_stddev, NAME_ci_p95_lo, NAME_ci_p95_hi. */
static const char *coll_score_name(char (*buf)[320], const char *coll, int k)
{
    static const char *const suffix[4] = {"_bagging", "_stddev", "_ci_p95_lo", "_ci_p95_hi"};
    snprintf(*buf, sizeof(*buf), "%s%s", coll, suffix[k]);
    return *buf;
}

static int check_score_names(const VmafContext *vmaf, VmafModel *const *models,
                             unsigned n_models, const char *coll)
{
    for (unsigned i = 0; i < n_models; i++) {
        int err = check_score_name(models, n_models, models[i], models[i]->name);
        if (!err)
            err = check_used_name(vmaf, models[i], models[i]->name);
        if (err)
            return err;
    }
    for (int k = 0; coll && k < 4; k++) {
        char buf[320];
        const char *name = coll_score_name(&buf, coll, k);
        int err = check_score_name(models, n_models, models[0], name);
        if (!err)
            err = check_used_name(vmaf, models[0], name);
        if (err)
            return err;
    }
    return 0;
}

static int remember_name(VmafContext *vmaf, const VmafModel *who, const char *name)
{
    for (unsigned i = 0; i < vmaf->score_name_cnt; i++)
        if (vmaf->score_name[i].model == who->serial && !strcmp(vmaf->score_name[i].name, name))
            return 0;
    struct VmafScoreName *grown = realloc(
        vmaf->score_name, sizeof(*grown) * (vmaf->score_name_cnt + 1));
    if (!grown)
        return -ENOMEM;
    vmaf->score_name = grown;
    struct VmafScoreName *u = &grown[vmaf->score_name_cnt];
    const size_t n1 = strlen(name) + 1, n2 = strlen(who->name) + 1;
    u->name = malloc(n1 + n2); /* the model's name follows in the same block */
    if (!u->name)
        return -ENOMEM;
    memcpy(u->name, name, n1);
    u->model_name = memcpy(u->name + n1, who->name, n2);
    u->model = who->serial;
    vmaf->score_name_cnt++;
    return 0;
}

/* Records the score names of models just put into use. */
static int remember_score_names(VmafContext *vmaf, VmafModel *const *models, unsigned n_models,
                                const char *coll)
{
    int err = 0;
    for (unsigned i = 0; i < n_models && !err; i++)
        err = remember_name(vmaf, models[i], models[i]->name);
    for (int k = 0; coll && k < 4 && !err; k++) {
        char buf[320];
        err = remember_name(vmaf, models[0], coll_score_name(&buf, coll, k));
    }
    if (err)
        vmaf_error("model %s: out of memory", models[0]->name);
    return err;
}

static int use_models(VmafContext *vmaf, VmafModel *const *models, unsigned n_models,
                      const char *coll)
{
    int cerr = check_score_names(vmaf, models, n_models, coll);
    if (cerr)
        return cerr;

    unsigned n_feat = 0;
    for (unsigned i = 0; i < n_models; i++)
        n_feat += models[i]->n_features;

    Use *use = calloc(n_feat ? n_feat : 1, sizeof(*use));
    const char **missing = calloc(n_feat ? n_feat : 1, sizeof(*missing));
    if (!use || !missing) {
        free(use);
        free(missing);
        vmaf_error("model %s: out of memory", models[0]->name);
        return -ENOMEM;
    }
    unsigned n_use = 0, n_missing = 0;
    int err = 0;

    /* Every feature is checked before any extractor is added, so that one
     * error lists all that is missing and the context is left unchanged. */
    for (unsigned i = 0; i < n_models; i++) {
        const VmafModel *m = models[i];
        for (unsigned j = 0; j < m->n_features; j++) {
            const VmafModelFeature *f = &m->feature[j];
            if (vmaf_registry_find_by_feature(f->feature))
                continue;
            bool dup = false;
            for (unsigned k = 0; k < n_missing; k++)
                dup |= !strcmp(missing[k], f->feature);
            if (!dup)
                missing[n_missing++] = f->feature;
        }
    }
    if (n_missing) {
        size_t len = 1;
        for (unsigned k = 0; k < n_missing; k++)
            len += strlen(missing[k]) + 2;
        char *list = malloc(len);
        if (!list) {
            vmaf_error("model %s: out of memory", models[0]->name);
            err = -ENOMEM;
            goto out;
        }
        size_t pos = 0;
        list[0] = '\0';
        for (unsigned k = 0; k < n_missing; k++)
            pos += (size_t)snprintf(list + pos, len - pos, "%s%s", k ? ", " : "", missing[k]);
        vmaf_error("model %s (%s) needs %u feature%s that no extractor of this build "
                   "provides: %s; use a model whose features exist, or score features "
                   "without a model", models[0]->name, models[0]->source, n_missing,
                   n_missing == 1 ? "" : "s", list);
        free(list);
        err = -EINVAL;
        goto out;
    }

    for (unsigned i = 0; i < n_models && !err; i++) {
        const VmafModel *m = models[i];
        for (unsigned j = 0; j < m->n_features && !err; j++) {
            const VmafModelFeature *f = &m->feature[j];
            err = add_use(use, &n_use, m, f, vmaf_registry_find_by_feature(f->feature));
        }
    }

    /* Everything that can be refused is checked before the first request
     * is added, so that a refused model leaves the context as it was. */
    if (!err && (vmaf->started || vmaf->flushed)) {
        vmaf_error("model %s: its features must be chosen before the first picture is read%s",
                   models[0]->name, vmaf->started ? "" : " (this context was flushed)");
        err = -EINVAL;
    }
    for (unsigned i = 0; i < n_use && !err; i++) {
        /* The model's options must combine with those already requested
         * of the extractor under the same score names (options that only
         * add outputs combine; any other difference is an error that names
         * the option). */
        for (unsigned r = 0; r < vmaf->req_cnt && !err; r++) {
            const VmafFeatureRequest *q = &vmaf->req[r];
            if (q->cpu != use[i].fex)
                continue;
            VmafFeatureDictionary *merged = NULL;
            const char *key;
            err = vmaf_fex_merge_options(q->cpu, q->opts, use[i].opts, &merged, &key);
            vmaf_feature_dictionary_free(&merged);
            if (err == -EEXIST)
                err = 0;
            if (key)
                vmaf_error("model %s asks extractor %s for option %s=%s, but the context runs "
                           "it with %s=%s already; an option that does not name the scores "
                           "takes one value: overload the option to %s",
                           use[i].model->name, q->cpu->name, key, opt_text(use[i].opts, key),
                           key, opt_text(q->opts, key), opt_text(q->opts, key));
        }
        if (err)
            break;
        void *priv = calloc(1, use[i].fex->priv_size ? use[i].fex->priv_size : 1);
        if (!priv) {
            vmaf_error("model %s: out of memory", use[i].model->name);
            err = -ENOMEM;
            break;
        }
        err = vmaf_fex_parse_options(use[i].fex, priv, use[i].opts);
        free(priv);
    }

    const unsigned names_before = vmaf->score_name_cnt;
    if (!err)
        err = remember_score_names(vmaf, models, n_models, coll);

    /* Asked for by feature name: on a context with CUDA state the registry
     * routes that to the twin. An identical earlier request is a no-op. */
    for (unsigned i = 0; i < n_use && !err; i++) {
        VmafFeatureDictionary *opts = use[i].opts;
        use[i].opts = NULL;
        err = vmaf_use_feature(vmaf, use[i].feature, opts);
    }
    if (err) {
        for (unsigned i = names_before; i < vmaf->score_name_cnt; i++)
            free(vmaf->score_name[i].name);
        vmaf->score_name_cnt = names_before;
    }

out:
    for (unsigned i = 0; i < n_use; i++)
        vmaf_feature_dictionary_free(&use[i].opts);
    free(use);
    free(missing);
    return err;
}

int vmaf_use_features_from_model(VmafContext *vmaf, VmafModel *model)
{
    if (!vmaf || !model) {
        vmaf_error("vmaf_use_features_from_model: context and model must not be NULL");
        return -EINVAL;
    }
    return use_models(vmaf, &model, 1, NULL);
}

int vmaf_use_features_from_model_collection(VmafContext *vmaf, VmafModelCollection *mc)
{
    if (!vmaf || !mc) {
        vmaf_error("vmaf_use_features_from_model_collection: context and collection must not "
                   "be NULL");
        return -EINVAL;
    }
    VmafModel **all = malloc(sizeof(*all) * (mc->cnt + 1));
    if (!all) {
        vmaf_error("model collection %s: out of memory", mc->name);
        return -ENOMEM;
    }
    all[0] = mc->head;
    for (unsigned i = 0; i < mc->cnt; i++)
        all[i + 1] = mc->model[i];
    const int err = use_models(vmaf, all, mc->cnt + 1, mc->name);
    free(all);
    return err;
}

int vmaf_score_at_index(VmafContext *vmaf, VmafModel *model, double *score, unsigned index)
{
    if (!vmaf || !model || !score) {
        vmaf_error("vmaf_score_at_index: context, model and score must not be NULL");
        return -EINVAL;
    }
    double s;
    /* Without all its features, a score stored under the model's name is the
     * answer, as in libvmaf v3: model scores the caller imported (or this
     * model's earlier prediction). With them, the model predicts, and a
     * different score already stored under its name is refused (another
     * model of the same name, or a feature's). */
    if (!vmaf_model_features_present(model, vmaf->fc, index) &&
        !vmaf_feature_collector_get(vmaf->fc, model->name, &s, index)) {
        *score = s;
        return 0;
    }
    int err = vmaf_model_predict(model, vmaf->fc, index, 0, &s);
    if (err)
        return err;
    err = vmaf_model_store_score(vmaf->fc, model->name, s, index, model->name);
    if (err)
        return err;
    *score = s;
    return 0;
}

int vmaf_score_at_index_model_collection(VmafContext *vmaf, VmafModelCollection *mc,
                                         VmafModelCollectionScore *score, unsigned index)
{
    if (!vmaf || !mc || !score) {
        vmaf_error("vmaf_score_at_index_model_collection: context, collection and score must "
                   "not be NULL");
        return -EINVAL;
    }
    return vmaf_model_collection_predict(mc, vmaf->fc, index, score);
}

static int check_range(const char *fn, VmafContext *vmaf, const void *what, const void *score,
                       enum VmafPoolingMethod method, unsigned lo, unsigned hi)
{
    if (!vmaf || !what || !score) {
        vmaf_error("%s: context, model and score must not be NULL", fn);
        return -EINVAL;
    }
    if (method <= VMAF_POOL_METHOD_UNKNOWN || method >= VMAF_POOL_METHOD_NB) {
        vmaf_error("%s: unknown pooling method %d; use VMAF_POOL_METHOD_MIN, _MAX, _MEAN or "
                   "_HARMONIC_MEAN", fn, (int)method);
        return -EINVAL;
    }
    if (lo > hi) {
        vmaf_error("%s: frame range %u..%u is empty; index_low must not exceed index_high", fn,
                   lo, hi);
        return -EINVAL;
    }
    const unsigned long long n = vmaf->cfg.n_subsample;
    if (n > 1 && (lo + n - 1) / n * n > hi) {
        vmaf_error("%s: frames %u..%u hold no scored frame: with n_subsample=%llu only frames "
                   "0, %llu, %llu, ... are scored; pool over a range that includes one", fn,
                   lo, hi, n, n, 2 * n);
        return -EINVAL;
    }
    return 0;
}

static bool skipped(const VmafContext *vmaf, unsigned i)
{
    return vmaf->cfg.n_subsample > 1 && i % vmaf->cfg.n_subsample;
}

int vmaf_score_pooled(VmafContext *vmaf, VmafModel *model, enum VmafPoolingMethod pool_method,
                      double *score, unsigned index_low, unsigned index_high)
{
    int err = check_range("vmaf_score_pooled", vmaf, model, score, pool_method, index_low,
                          index_high);
    if (err)
        return err;
    /* 64-bit counter: index_high may be UINT_MAX. */
    for (unsigned long long i = index_low; i <= index_high; i++) {
        if (skipped(vmaf, (unsigned)i))
            continue;
        double s;
        err = vmaf_score_at_index(vmaf, model, &s, (unsigned)i);
        if (err)
            return err;
    }
    return vmaf_feature_score_pooled(vmaf, model->name, pool_method, score, index_low,
                                     index_high);
}

int vmaf_score_pooled_model_collection(VmafContext *vmaf, VmafModelCollection *mc,
                                       enum VmafPoolingMethod pool_method,
                                       VmafModelCollectionScore *score, unsigned index_low,
                                       unsigned index_high)
{
    int err = check_range("vmaf_score_pooled_model_collection", vmaf, mc, score, pool_method,
                          index_low, index_high);
    if (err)
        return err;
    for (unsigned long long i = index_low; i <= index_high; i++) {
        if (skipped(vmaf, (unsigned)i))
            continue;
        VmafModelCollectionScore s;
        err = vmaf_score_at_index_model_collection(vmaf, mc, &s, (unsigned)i);
        if (err)
            return err;
    }
    static const char *const suffix[4] = {"_bagging", "_stddev", "_ci_p95_lo", "_ci_p95_hi"};
    double *const dst[4] = {&score->bootstrap.bagging_score, &score->bootstrap.stddev,
                            &score->bootstrap.ci.p95.lo, &score->bootstrap.ci.p95.hi};
    for (int k = 0; k < 4; k++) {
        char name[320];
        snprintf(name, sizeof(name), "%s%s", mc->name, suffix[k]);
        err = vmaf_feature_score_pooled(vmaf, name, pool_method, dst[k], index_low, index_high);
        if (err)
            return err;
    }
    score->type = VMAF_MODEL_COLLECTION_SCORE_BOOTSTRAP;
    return 0;
}
