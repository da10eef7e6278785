/* Loading models; see models.h. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "lib_log.h"
#include "lib_settings.h"
#include "message.h"
#include "models.h"
#include "vmaf.h"

int make_dict(const CliKeyVal *kv, unsigned n, VmafFeatureDictionary **dict)
{
    *dict = NULL;
    for (unsigned i = 0; i < n; i++) {
        if (vmaf_feature_dictionary_set(dict, kv[i].key, kv[i].val)) {
            vmaf_feature_dictionary_free(dict);
            return -ENOMEM;
        }
    }
    return 0;
}

/* A -m may name a model or a model collection, as in the reference: the
 * model loader is tried first, then the collection loader. */
static int try_loaders(const CliModel *m, const VmafModelConfig *cfg, VmafModel **model,
                       VmafModelCollection **collection)
{
    VmafModelConfig c = *cfg;
    *model = NULL;
    *collection = NULL;
    int err = m->version ? vmaf_model_load(model, &c, m->version)
                         : vmaf_model_load_from_path(model, &c, m->path);
    if (!err)
        return 0;
    *model = NULL;
    VmafModel *first = NULL;
    err = m->version ? vmaf_model_collection_load(&first, collection, &c, m->version)
                     : vmaf_model_collection_load_from_path(&first, collection, &c, m->path);
    if (err)
        *collection = NULL;
    else
        *model = first;
    return err;
}

/* Both loaders refused a model quietly: they run again with errors on and
 * warnings off. The loader of the other kind only warns that it is the
 * other kind, so the reason held is that of the loader that matches (a
 * collection's bad member key, an over-long name); a reason both give (a
 * JSON syntax error) is held once. */
static void reload_for_reasons(const CliModel *m, const VmafModelConfig *cfg)
{
    (void)lib_why(NULL);
    lib_settings_log_level(VMAF_LOG_LEVEL_ERROR);
    VmafModelConfig c = *cfg;
    VmafModel *again = NULL;
    VmafModelCollection *again_mc = NULL;
    if (!(m->version ? vmaf_model_load(&again, &c, m->version)
                     : vmaf_model_load_from_path(&again, &c, m->path)))
        vmaf_model_destroy(again);
    again = NULL;
    if (!(m->version ? vmaf_model_collection_load(&again, &again_mc, &c, m->version)
                     : vmaf_model_collection_load_from_path(&again, &again_mc, &c, m->path))) {
        vmaf_model_collection_destroy(again_mc);
        vmaf_model_destroy(again);
    }
}

/* Whether the library has a built-in model or collection named version;
 * `list` receives all their names, ", " between them. */
static bool is_builtin(const char *version, char *list, size_t size)
{
    bool found = false;
    size_t n = 0;
    list[0] = '\0';
    const char *v;
    for (unsigned i = 0; (v = vmaf_model_builtin_version(i, NULL)); i++) {
        found = found || !strcmp(v, version);
        if (n < size)
            n += (size_t)snprintf(list + n, size - n, "%s%s", i ? ", " : "", v);
    }
    return found;
}

static int load_failure(const CliModel *m, int err)
{
    const char *kind = m->version ? "version=" : "path=";
    const char *what = m->version ? m->version : m->path;
    char builtins[512];
    if (m->version && !is_builtin(m->version, builtins, sizeof(builtins))) {
        /* Each loader names the built-ins of its kind: said once here. */
        return report(VMAF_EXIT_MODEL, "cannot load model (version=%s): no built-in model or "
                      "model collection has that name; use one of %s, a model file with -m "
                      "path=FILE, or -n for none", m->version, builtins);
    }
    if (err == -ENOENT)
        return report(VMAF_EXIT_MODEL, "cannot load model (path=%s): no such file; pass an "
                      "existing model file with -m path=FILE, a built-in with -m version=NAME, "
                      "or -n for none", m->path);
    if (err == -EACCES)
        return report(VMAF_EXIT_MODEL, "cannot load model (path=%s): permission denied; make "
                      "the file readable for this user, or pass another model", m->path);
    /* Otherwise the library's reason says what to fix (the file, a name
     * too long, a file too large). */
    return report(VMAF_EXIT_MODEL, "cannot load model (%s%s): %s", kind, what,
                  lib_why(err == -ENOMEM ? "out of memory" : "not a model"));
}

static int apply_overloads(const CliModel *m, LoadedModel *lm)
{
    for (unsigned j = 0; j < m->overload_cnt; j++) {
        VmafFeatureDictionary *dict;
        if (make_dict(m->overload[j].opt, m->overload[j].opt_cnt, &dict))
            return report(VMAF_EXIT_SCORING, "out of memory (model %s)", lm->label);
        const int err = lm->collection
            ? vmaf_model_collection_feature_overload(lm->model, &lm->collection,
                                                     m->overload[j].feature, dict)
            : vmaf_model_feature_overload(lm->model, m->overload[j].feature, dict);
        if (err)
            return report(VMAF_EXIT_MODEL, "bad feature overload (model %s, feature %s): %s",
                          lm->label, m->overload[j].feature,
                          lib_why("the model has no such feature or the option is invalid"));
    }
    return 0;
}

int load_model(const CliModel *m, LoadedModel *lm, enum VmafLogLevel level)
{
    const VmafModelConfig cfg = { .name = m->name, .flags = m->flags };
    lm->label = m->name && strcmp(m->name, "vmaf") ? m->name : m->version ? m->version : m->path;
    lib_settings_log_level(VMAF_LOG_LEVEL_NONE);
    const int err = try_loaders(m, &cfg, &lm->model, &lm->collection);
    if (err && err != -ENOENT && err != -EACCES && err != -ENOMEM)
        reload_for_reasons(m, &cfg);
    lib_settings_log_level(level);
    return err ? load_failure(m, err) : apply_overloads(m, lm);
}

void unload_model(LoadedModel *lm)
{
    vmaf_model_collection_destroy(lm->collection);
    vmaf_model_destroy(lm->model);
    lm->collection = NULL;
    lm->model = NULL;
}
