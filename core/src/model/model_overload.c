/* Overloading a model's feature options (vmaf_model_feature_overload and
 * the collection's): every member's new options and lookup names are
 * built first, so that a refused overload changes nothing. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libvmaf/model.h"

#include "dict.h"
#include "feature/feature_extractor.h"
#include "log.h"
#include "model/model_internal.h"
#include "registry.h"

/* Does a model feature belong to the extractor or feature the caller names
 * ("motion" for integer_motion2, as in FFmpeg's
 * "motion.motion_force_zero=true")? */
static bool feature_matches(const VmafModelFeature *f, const char *name)
{
    if (!strcmp(f->name, name) || !strcmp(f->feature, name))
        return true;
    const VmafFeatureExtractor *fex = vmaf_registry_find_by_feature(f->feature);
    return fex && !strcmp(fex->name, name);
}

/* Checks the merged options against the extractor's table when the
 * extractor exists in this build; otherwise vmaf_use_feature() checks them
 * once it does. */
static int check_opts(const VmafModelFeature *f, const VmafFeatureDictionary *merged)
{
    const VmafFeatureExtractor *fex = vmaf_registry_find_by_feature(f->feature);
    if (!fex || !merged)
        return 0;
    void *priv = calloc(1, fex->priv_size ? fex->priv_size : 1);
    if (!priv) {
        vmaf_error("%s: out of memory while checking its options", fex->name);
        return -ENOMEM;
    }
    int err = vmaf_fex_parse_options(fex, priv, merged);
    free(priv);
    return err;
}

/* The new options (and lookup names) of one model's features, built before
 * anything is changed so that an overload is all or nothing. */
typedef struct Staged {
    VmafModel *m;
    VmafFeatureDictionary **merged; /* per feature; NULL where not overloaded */
    char **lookup;
    bool *hit;
} Staged;

static void staged_free(Staged *st)
{
    for (unsigned i = 0; st->m && i < st->m->n_features; i++) {
        if (st->merged)
            vmaf_feature_dictionary_free(&st->merged[i]);
        if (st->lookup)
            free(st->lookup[i]);
    }
    free(st->merged);
    free(st->lookup);
    free(st->hit);
    memset(st, 0, sizeof(*st));
}

/* Builds one model's overloaded options without changing the model. */
static int overload_stage(VmafModel *m, const char *feature_name,
                          const VmafFeatureDictionary *opts, unsigned *matched, Staged *st)
{
    st->m = m;
    st->merged = calloc(m->n_features, sizeof(*st->merged));
    st->lookup = calloc(m->n_features, sizeof(*st->lookup));
    st->hit = calloc(m->n_features, sizeof(*st->hit));
    if (!st->merged || !st->lookup || !st->hit) {
        vmaf_error("model %s (%s): out of memory while overloading feature options", m->name,
                   m->source);
        return -ENOMEM;
    }
    int err = 0;
    for (unsigned i = 0; i < m->n_features && !err; i++) {
        if (!feature_matches(&m->feature[i], feature_name))
            continue;
        st->hit[i] = true;
        (*matched)++;
        /* The dictionary calls log their own failures (out of memory). */
        err = vmaf_dict_copy(m->feature[i].opts, &st->merged[i]);
        if (!err)
            err = vmaf_dict_merge(&st->merged[i], opts);
        if (err)
            break;
        /* The option parser logs what is wrong with an option. */
        err = check_opts(&m->feature[i], st->merged[i]);
        if (err)
            break;
        char why[400] = "";
        err = vmaf_model_feature_lookup_name(&m->feature[i], st->merged[i], &st->lookup[i],
                                             why, sizeof(why));
        if (err == -EINVAL)
            vmaf_error("model %s (%s): cannot overload feature %s with these options%s%s",
                       m->name, m->source, m->feature[i].name, why[0] ? ": " : "", why);
        else if (err)
            vmaf_error("model %s (%s): out of memory while overloading feature options",
                       m->name, m->source);
    }
    return err;
}

/* Hands the staged options to the model; cannot fail. */
static void overload_commit(Staged *st)
{
    VmafModel *m = st->m;
    for (unsigned i = 0; i < m->n_features; i++) {
        if (!st->hit[i])
            continue;
        vmaf_feature_dictionary_free(&m->feature[i].opts);
        m->feature[i].opts = st->merged[i];
        st->merged[i] = NULL;
        free(m->feature[i].lookup);
        m->feature[i].lookup = st->lookup[i];
        st->lookup[i] = NULL;
    }
    staged_free(st);
}

static void list_features(const VmafModel *m, char *buf, size_t len)
{
    size_t n = 0;
    buf[0] = '\0';
    for (unsigned i = 0; i < m->n_features && n < len; i++)
        n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? ", " : "", m->feature[i].feature);
}

int vmaf_model_feature_overload(VmafModel *model, const char *feature_name,
                                VmafFeatureDictionary *opts_dict)
{
    if (!model || !feature_name || !opts_dict) {
        vmaf_error("vmaf_model_feature_overload: model, feature name and options must not be "
                   "NULL");
        vmaf_feature_dictionary_free(&opts_dict);
        return -EINVAL;
    }
    unsigned matched = 0;
    Staged st = {0};
    int err = overload_stage(model, feature_name, opts_dict, &matched, &st);
    if (!err && matched)
        overload_commit(&st);
    staged_free(&st);
    if (!err && !matched) {
        char list[512];
        list_features(model, list, sizeof(list));
        vmaf_error("model %s (%s) has no feature of '%s' to overload; its features are: %s",
                   model->name, model->source, feature_name, list);
        err = -EINVAL;
    }
    vmaf_feature_dictionary_free(&opts_dict);
    return err;
}

int vmaf_model_collection_feature_overload(VmafModel *model, VmafModelCollection **mcp,
                                           const char *feature_name,
                                           VmafFeatureDictionary *opts_dict)
{
    VmafModelCollection *mc = mcp ? *mcp : NULL;
    if (!mc || !feature_name || !opts_dict) {
        vmaf_error("vmaf_model_collection_feature_overload: collection, feature name and "
                   "options must not be NULL");
        vmaf_feature_dictionary_free(&opts_dict);
        return -EINVAL;
    }
    /* model is normally the collection's model "0"; any other is overloaded
     * too, as libvmaf does. */
    unsigned matched = 0;
    /* Every member's new options are built first and only then handed
     * over, so that a refusal at any member leaves the whole collection
     * (and model) as it was. */
    const unsigned n = mc->cnt + 2;
    Staged *st = calloc(n, sizeof(*st));
    if (!st) {
        vmaf_error("model collection %s: out of memory while overloading feature options",
                   mc->name);
        vmaf_feature_dictionary_free(&opts_dict);
        return -ENOMEM;
    }
    unsigned n_st = 0;
    int err = overload_stage(mc->head, feature_name, opts_dict, &matched, &st[n_st++]);
    for (unsigned i = 0; i < mc->cnt && !err; i++)
        err = overload_stage(mc->model[i], feature_name, opts_dict, &matched, &st[n_st++]);
    if (!err && model && model != mc->head)
        err = overload_stage(model, feature_name, opts_dict, &matched, &st[n_st++]);
    for (unsigned i = 0; i < n_st; i++) {
        if (!err && matched)
            overload_commit(&st[i]);
        staged_free(&st[i]);
    }
    free(st);
    if (!err && !matched) {
        char list[512];
        list_features(mc->model[0], list, sizeof(list));
        vmaf_error("model collection %s (%s) has no feature of '%s' to overload; its features "
                   "are: %s", mc->name, mc->model[0]->source, feature_name, list);
        err = -EINVAL;
    }
    vmaf_feature_dictionary_free(&opts_dict);
    return err;
}
