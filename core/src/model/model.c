/* Models: loading (a buffer, a path, a built-in model, a collection),
 * freeing, and the names their features are scored under. The JSON itself
 * is read by model_json.c, overloads are model_overload.c's. */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "libvmaf/model.h"

#include "dict.h"
#include "feature/feature_extractor.h"
#include "log.h"
#include "model/model_internal.h"
#include "model/svm.h"
#include "registry.h"

char *vmaf_model_dup_str(const char *s)
{
    const size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

char *vmaf_model_dup_printf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    const int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return NULL;
    char *s = malloc((size_t)n + 1);
    if (!s)
        return NULL;
    va_start(ap, fmt);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return s;
}

static void model_free_fields(VmafModel *m)
{
    free(m->name);
    free(m->source);
    if (m->feature) {
        for (unsigned i = 0; i < m->n_features; i++) {
            free(m->feature[i].name);
            free(m->feature[i].feature);
            free(m->feature[i].lookup);
            vmaf_feature_dictionary_free(&m->feature[i].opts);
        }
        free(m->feature);
    }
    free(m->st.knots);
    vmaf_svm_destroy(m->svm);
}

void vmaf_model_destroy(VmafModel *model)
{
    if (!model || atomic_fetch_sub(&model->refs, 1) != 1)
        return;
    model_free_fields(model);
    free(model);
}

char *vmaf_model_feature_name_map(const char *n)
{
    static const struct {
        const char *prefix, *suffix, *out_prefix;
    } rule[] = {
        {"VMAF_integer_feature_", "_score", "integer_"},
        {"VMAF_feature_", "_score", ""},
    };
    const size_t len = strlen(n);
    for (size_t r = 0; r < sizeof(rule) / sizeof(rule[0]); r++) {
        const size_t pl = strlen(rule[r].prefix), sl = strlen(rule[r].suffix);
        if (len > pl + sl && !strncmp(n, rule[r].prefix, pl) &&
            !strcmp(n + len - sl, rule[r].suffix))
            return vmaf_model_dup_printf("%s%.*s", rule[r].out_prefix, (int)(len - pl - sl), n + pl);
    }
    return vmaf_model_dup_str(n);
}

int vmaf_model_feature_lookup_name(const VmafModelFeature *f, const VmafFeatureDictionary *opts,
                                   char **out, char *why, size_t why_len)
{
    *out = NULL;
    if (!opts || !opts->cnt)
        return 0;
    const VmafFeatureExtractor *fex = vmaf_registry_find_by_feature(f->feature);
    if (!fex) {
        /* The name its scores would carry cannot be derived, and ignoring
         * the options would score from the wrong values. */
        snprintf(why, why_len,
                 "feature %s has options (%s, ...) but no extractor of this build provides "
                 "it; remove its options or import its scores under the model's feature name "
                 "without options", f->feature, opts->entry[0].key);
        return -EINVAL;
    }
    /* The options that name the scores decide the name, so they are
     * checked now; the others are checked when the model is used (an
     * overload may still fix them). */
    VmafFeatureDictionary *naming = NULL;
    int err = 0;
    for (size_t i = 0; i < opts->cnt && !err; i++) {
        const VmafOption *o = vmaf_fex_option_named(fex, opts->entry[i].key);
        if (o && (o->flags & VMAF_OPT_FLAG_NAMES_SCORE))
            err = vmaf_feature_dictionary_set(&naming, opts->entry[i].key, opts->entry[i].val);
    }
    void *priv = err ? NULL : calloc(1, fex->priv_size ? fex->priv_size : 1);
    if (!priv) {
        vmaf_feature_dictionary_free(&naming);
        return -ENOMEM;
    }
    char suffix[VMAF_FEX_NAME_SUFFIX_MAX];
    err = vmaf_fex_parse_options_why(fex, priv, naming, why, why_len);
    if (!err && vmaf_fex_name_suffix(fex, priv, suffix, sizeof(suffix))) {
        snprintf(why, why_len, "the name of feature %s with its options is too long",
                 f->feature);
        err = -EINVAL;
    }
    free(priv);
    vmaf_feature_dictionary_free(&naming);
    if (err || !suffix[0])
        return err;
    *out = vmaf_model_dup_printf("%s%s", f->feature, suffix);
    return *out ? 0 : -ENOMEM;
}

static const char *cfg_name(const VmafModelConfig *cfg)
{
    return cfg && cfg->name ? cfg->name : "vmaf";
}

static uint64_t cfg_flags(const VmafModelConfig *cfg)
{
    return cfg ? cfg->flags : 0;
}

static int check_cfg(const VmafModelConfig *cfg)
{
    if (cfg && cfg->name && !cfg->name[0]) {
        vmaf_error("model config: the name is empty; pass NULL for \"vmaf\" or a name");
        return -EINVAL;
    }
    /* Scores are stored as "<name>_ci_p95_lo" and the like: a bounded name
     * keeps every derived key distinct. */
    if (cfg && cfg->name && strlen(cfg->name) > VMAF_MODEL_NAME_MAX) {
        vmaf_error("model config: the name is %zu characters long; use at most %d",
                   strlen(cfg->name), VMAF_MODEL_NAME_MAX);
        return -EINVAL;
    }
    return 0;
}

int vmaf_model_load_from_buffer(VmafModel **model, const VmafModelConfig *cfg,
                                const char *data, size_t len, const char *source)
{
    if (!model || !data)
        return -EINVAL;
    *model = NULL;
    int err = check_cfg(cfg);
    if (err)
        return err;
    json_t *root;
    err = vmaf_model_parse_json(&root, data, len, source);
    if (err)
        return err;
    const VmafModelWhere w = {.source = source, .member = ""};
    err = vmaf_model_from_json(model, root, cfg_name(cfg), cfg_flags(cfg), &w);
    json_decref(root);
    return err;
}

void vmaf_model_collection_destroy(VmafModelCollection *mc)
{
    if (!mc)
        return;
    vmaf_model_destroy(mc->head);
    if (mc->model)
        for (unsigned i = 0; i < mc->cnt; i++)
            vmaf_model_destroy(mc->model[i]);
    free(mc->model);
    free(mc->name);
    free(mc);
}

static bool is_bootstrap(enum VmafModelType t)
{
    return t == VMAF_MODEL_TYPE_BOOTSTRAP_SVM_NUSVR ||
           t == VMAF_MODEL_TYPE_RESIDUE_BOOTSTRAP_SVM_NUSVR;
}

/* Member keys are "0".."N-1", written without leading zeros. */
static bool member_index(const char *k, size_t n, size_t *idx)
{
    if (!k[0] || strlen(k) > 9 || (k[0] == '0' && k[1]))
        return false;
    size_t v = 0;
    for (const char *p = k; *p; p++) {
        if (*p < '0' || *p > '9')
            return false;
        v = v * 10 + (size_t)(*p - '0');
    }
    if (v >= n)
        return false;
    *idx = v;
    return true;
}

int vmaf_model_collection_load_from_buffer(VmafModel **model, VmafModelCollection **mcp,
                                           const VmafModelConfig *cfg, const char *data,
                                           size_t len, const char *source)
{
    if (!model || !mcp || !data)
        return -EINVAL;
    *model = NULL;
    *mcp = NULL;
    int err = check_cfg(cfg);
    if (err)
        return err;
    json_t *root;
    err = vmaf_model_parse_json(&root, data, len, source);
    if (err)
        return err;

    VmafModelWhere w = {.source = source, .member = ""};
    VmafModelCollection *mc = NULL;
    VmafModel *head = NULL;
    const size_t n = json_is_object(root) ? json_object_size(root) : 0;
    if (!json_is_object(root)) {
        err = vmaf_model_bad(&w, "(top level)", "expected an object, found %s", vmaf_model_json_type_name(root));
        goto done;
    }
    if (json_object_get(root, "model_dict")) {
        vmaf_warning("%s is a single model, not a collection (keys \"0\"..\"N\"); load it as "
                     "a model", source);
        err = -EINVAL;
        goto done;
    }
    if (n < 2 || n > VMAF_MODEL_MAX_COLLECTION + 1) {
        err = vmaf_model_bad(&w, "(top level)",
                  "a collection needs models \"0\" (the main model) and \"1\"..\"N\" (the bags), "
                  "N from 1 to %u; found %zu keys", VMAF_MODEL_MAX_COLLECTION, n);
        goto done;
    }
    const char *k;
    json_t *v;
    json_object_foreach(root, k, v) {
        size_t idx;
        if (!member_index(k, n, &idx)) {
            err = vmaf_model_bad(&w, k, "unexpected key; a collection holds only its models, under the "
                      "keys \"0\", \"1\", ... with no gap");
            goto done;
        }
    }

    mc = calloc(1, sizeof(*mc));
    if (!mc)
        goto nomem;
    mc->name = vmaf_model_dup_str(cfg_name(cfg));
    mc->model = calloc(n - 1, sizeof(*mc->model));
    if (!mc->name || !mc->model)
        goto nomem;

    for (size_t i = 0; i < n; i++) {
        char key[16], member[16], *name;
        snprintf(key, sizeof(key), "%zu", i);
        snprintf(member, sizeof(member), "%zu.", i);
        w.member = member;
        name = i ? vmaf_model_dup_printf("%s_%04zu", mc->name, i) : vmaf_model_dup_str(mc->name);
        if (!name)
            goto nomem;
        VmafModel *m;
        err = vmaf_model_from_json(&m, json_object_get(root, key), name, cfg_flags(cfg), &w);
        free(name);
        if (err)
            goto done;
        if (i == 0)
            head = m;
        else
            mc->model[mc->cnt++] = m;
        if (!is_bootstrap(m->type) || m->type != head->type) {
            err = vmaf_model_bad(&w, "model_dict.model_type",
                      "every model of a collection must have the same bootstrap type "
                      "(BOOTSTRAP_LIBSVMNUSVR)");
            goto done;
        }
    }
    err = 0;
    goto done;

nomem:
    vmaf_error("%s: out of memory while loading the model collection", source);
    err = -ENOMEM;
done:
    json_decref(root);
    if (err) {
        vmaf_model_destroy(head);
        vmaf_model_collection_destroy(mc);
        return err;
    }
    atomic_fetch_add(&head->refs, 1);
    mc->head = head;
    *model = head;
    *mcp = mc;
    return 0;
}

/* Reads a whole model file, telling a missing file from an unreadable one. */
static int read_file(const char *path, char **data, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        const int e = errno ? errno : EIO;
        vmaf_error("could not open model file %s: %s; check the path", path, strerror(e));
        return -e;
    }
    struct stat st;
    int err = 0;
    if (fstat(fileno(f), &st)) {
        err = -(errno ? errno : EIO);
        vmaf_error("could not read model file %s: %s", path, strerror(-err));
        goto out;
    }
    if (!S_ISREG(st.st_mode)) {
        vmaf_error("model file %s is not a regular file; pass the path of a .json model", path);
        err = -EINVAL;
        goto out;
    }
    if ((unsigned long long)st.st_size > VMAF_MODEL_MAX_FILE_SIZE) {
        vmaf_error("model file %s is %lld bytes; model files larger than %u bytes are refused",
                   path, (long long)st.st_size, VMAF_MODEL_MAX_FILE_SIZE);
        err = -EINVAL;
        goto out;
    }
    const size_t sz = (size_t)st.st_size;
    char *buf = malloc(sz ? sz : 1);
    if (!buf) {
        vmaf_error("model file %s: out of memory (%zu bytes)", path, sz);
        err = -ENOMEM;
        goto out;
    }
    if (fread(buf, 1, sz, f) != sz) {
        err = -(ferror(f) && errno ? errno : EIO);
        vmaf_error("could not read model file %s: %s", path, strerror(-err));
        free(buf);
        goto out;
    }
    *data = buf;
    *len = sz;
out:
    fclose(f);
    return err;
}

/* Loads a single model when mc is NULL, else a model collection: the two
 * differ only in the parser that reads the text. */
static int load_buffer(VmafModel **model, VmafModelCollection **mc, const VmafModelConfig *cfg,
                       const char *data, size_t len, const char *source)
{
    if (mc)
        return vmaf_model_collection_load_from_buffer(model, mc, cfg, data, len, source);
    return vmaf_model_load_from_buffer(model, cfg, data, len, source);
}

static int load_path(VmafModel **model, VmafModelCollection **mc, const VmafModelConfig *cfg,
                     const char *path)
{
    char *data, *source = vmaf_model_dup_printf("model file %s", path);
    size_t len;
    if (!source) {
        vmaf_error("out of memory while loading a model");
        return -ENOMEM;
    }
    int err = read_file(path, &data, &len);
    if (!err) {
        err = load_buffer(model, mc, cfg, data, len, source);
        free(data);
    }
    free(source);
    return err;
}

int vmaf_model_load_from_path(VmafModel **model, VmafModelConfig *cfg, const char *path)
{
    if (!model || !path) {
        vmaf_error("vmaf_model_load_from_path: model and path must not be NULL");
        return -EINVAL;
    }
    *model = NULL;
    return load_path(model, NULL, cfg, path);
}

int vmaf_model_collection_load_from_path(VmafModel **model, VmafModelCollection **mc,
                                         VmafModelConfig *cfg, const char *path)
{
    if (!model || !mc || !path) {
        vmaf_error("vmaf_model_collection_load_from_path: model, collection and path must not "
                   "be NULL");
        return -EINVAL;
    }
    *model = NULL;
    *mc = NULL;
    return load_path(model, mc, cfg, path);
}

const char *vmaf_model_builtin_version(unsigned index, int *is_collection)
{
    if (index >= vmaf_builtin_model_cnt)
        return NULL;
    if (is_collection)
        *is_collection = vmaf_builtin_models[index].is_collection;
    return vmaf_builtin_models[index].version;
}

static const VmafBuiltinModel *find_builtin(const char *version, int collection)
{
    for (size_t i = 0; i < vmaf_builtin_model_cnt; i++) {
        const VmafBuiltinModel *b = &vmaf_builtin_models[i];
        if (!strcmp(b->version, version)) {
            if (b->is_collection != collection) {
                vmaf_warning("built-in %s \"%s\" is a %s; load it with %s", collection ?
                           "model collection" : "model", version,
                           b->is_collection ? "model collection" : "single model",
                           b->is_collection ? "vmaf_model_collection_load()" : "vmaf_model_load()");
                return NULL;
            }
            return b;
        }
    }
    char list[512];
    size_t n = 0;
    list[0] = '\0';
    for (size_t i = 0; i < vmaf_builtin_model_cnt && n < sizeof(list); i++)
        if (vmaf_builtin_models[i].is_collection == collection)
            n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%s", n ? ", " : "",
                                  vmaf_builtin_models[i].version);
    vmaf_error("no built-in %s \"%s\"; the built-in ones are: %s", collection ?
               "model collection" : "model", version, list[0] ? list : "none");
    return NULL;
}

static int load_builtin(VmafModel **model, VmafModelCollection **mc, const VmafModelConfig *cfg,
                        const char *version)
{
    const char *what = mc ? "model collection" : "model";
    const VmafBuiltinModel *b = find_builtin(version, mc != NULL);
    if (!b)
        return -EINVAL;
    char *source = vmaf_model_dup_printf("built-in %s %s", what, version);
    if (!source) {
        vmaf_error("out of memory while loading a model");
        return -ENOMEM;
    }
    int err = load_buffer(model, mc, cfg, (const char *)b->data, b->len, source);
    free(source);
    return err;
}

int vmaf_model_load(VmafModel **model, VmafModelConfig *cfg, const char *version)
{
    if (!model || !version) {
        vmaf_error("vmaf_model_load: model and version must not be NULL");
        return -EINVAL;
    }
    *model = NULL;
    return load_builtin(model, NULL, cfg, version);
}

int vmaf_model_collection_load(VmafModel **model, VmafModelCollection **mc,
                               VmafModelConfig *cfg, const char *version)
{
    if (!model || !mc || !version) {
        vmaf_error("vmaf_model_collection_load: model, collection and version must not be NULL");
        return -EINVAL;
    }
    *model = NULL;
    *mc = NULL;
    return load_builtin(model, mc, cfg, version);
}
