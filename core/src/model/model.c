/* Model files: JSON through jansson, every key checked at load so that a bad
 * model is refused with its path and key instead of failing mid-run. */
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

static char *dup_str(const char *s)
{
    const size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

static char *dup_printf(const char *fmt, ...)
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

/* Where a parse is: the file (or built-in model) and, inside a collection,
 * which member, so every message names the full key. */
typedef struct Where {
    const char *source;
    const char *member; /* "" or "3." */
} Where;

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static int bad(const Where *w, const char *key, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    vmaf_error("%s: invalid model: key '%s%s': %s; fix the model file or use another model",
               w->source, w->member, key, msg);
    return -EINVAL;
}

static const char *json_type_name(const json_t *j)
{
    switch (json_typeof(j)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER:
    case JSON_REAL: return "a number";
    case JSON_TRUE:
    case JSON_FALSE: return "a boolean";
    case JSON_NULL: return "null";
    }
    return "unknown";
}

static int get_number(const Where *w, const char *key, const json_t *j, double *out)
{
    if (!json_is_number(j))
        return bad(w, key, "expected a number, found %s", json_type_name(j));
    const double v = json_number_value(j);
    if (!isfinite(v))
        return bad(w, key, "not a finite number");
    if (fabs(v) > VMAF_MODEL_MAX_ABS)
        return bad(w, key, "%.*g is larger than %g in magnitude", VMAF_MODEL_ABS_DIGITS(v), v,
                   VMAF_MODEL_MAX_ABS);
    *out = v;
    return 0;
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
            return dup_printf("%s%.*s", rule[r].out_prefix, (int)(len - pl - sl), n + pl);
    }
    return dup_str(n);
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
    *out = dup_printf("%s%s", f->feature, suffix);
    return *out ? 0 : -ENOMEM;
}

/* Options come as JSON numbers or booleans, as the reference's loader
 * takes them (it refuses strings); extractors read text. A number is
 * written with the fewest digits that read back to the same double. */
static int opt_value_text(const Where *w, const char *key, const json_t *v, char *buf,
                          size_t len)
{
    if (json_is_true(v)) {
        snprintf(buf, len, "true");
    } else if (json_is_false(v)) {
        snprintf(buf, len, "false");
    } else if (json_is_number(v)) {
        const double d = json_number_value(v);
        if (!isfinite(d))
            return bad(w, key, "not a finite number");
        for (int p = 15; p <= 17; p++) {
            snprintf(buf, len, "%.*g", p, d);
            if (strtod(buf, NULL) == d)
                break;
        }
    } else {
        return bad(w, key, "expected a number or a boolean, found %s%s", json_type_name(v),
                   json_is_string(v) ? " (write the value without quotes)" : "");
    }
    return 0;
}

static int parse_features(const Where *w, const json_t *md, VmafModel *m)
{
    const json_t *names = json_object_get(md, "feature_names");
    if (!names)
        return bad(w, "model_dict.feature_names", "missing (the list of the model's features)");
    if (!json_is_array(names))
        return bad(w, "model_dict.feature_names", "expected an array of strings, found %s",
                   json_type_name(names));
    const size_t n = json_array_size(names);
    if (n < 1 || n > VMAF_MODEL_MAX_FEATURES)
        return bad(w, "model_dict.feature_names", "has %zu entries; 1..%u are allowed", n,
                   VMAF_MODEL_MAX_FEATURES);

    const json_t *opts = json_object_get(md, "feature_opts_dicts");
    if (opts && !json_is_array(opts))
        return bad(w, "model_dict.feature_opts_dicts", "expected an array of objects, found %s",
                   json_type_name(opts));
    if (opts && json_array_size(opts) != n)
        return bad(w, "model_dict.feature_opts_dicts",
                   "has %zu entries but feature_names has %zu; they must match",
                   json_array_size(opts), n);

    m->feature = calloc(n, sizeof(*m->feature));
    if (!m->feature)
        return -ENOMEM;
    m->n_features = (unsigned)n;

    char key[96];
    for (size_t i = 0; i < n; i++) {
        const json_t *jn = json_array_get(names, i);
        snprintf(key, sizeof(key), "model_dict.feature_names[%zu]", i);
        if (!json_is_string(jn))
            return bad(w, key, "expected a string, found %s", json_type_name(jn));
        const char *s = json_string_value(jn);
        if (!s[0] || json_string_length(jn) > 255 || strlen(s) != json_string_length(jn))
            return bad(w, key, "a feature name must have 1..255 characters");
        for (size_t k = 0; k < i; k++)
            if (!strcmp(m->feature[k].name, s))
                return bad(w, key, "feature '%s' is listed twice", s);
        m->feature[i].name = dup_str(s);
        m->feature[i].feature = vmaf_model_feature_name_map(s);
        if (!m->feature[i].name || !m->feature[i].feature)
            return -ENOMEM;

        if (!opts)
            continue;
        const json_t *d = json_array_get(opts, i);
        snprintf(key, sizeof(key), "model_dict.feature_opts_dicts[%zu]", i);
        if (!json_is_object(d))
            return bad(w, key, "expected an object, found %s", json_type_name(d));
        const char *ok;
        const json_t *ov;
        json_object_foreach((json_t *)d, ok, ov) {
            char okey[160], val[128];
            snprintf(okey, sizeof(okey), "model_dict.feature_opts_dicts[%zu].%s", i, ok);
            int err = opt_value_text(w, okey, ov, val, sizeof(val));
            if (err)
                return err;
            err = vmaf_feature_dictionary_set(&m->feature[i].opts, ok, val);
            if (err)
                return err;
        }
        char why[400];
        int err = vmaf_model_feature_lookup_name(&m->feature[i], m->feature[i].opts,
                                                 &m->feature[i].lookup, why, sizeof(why));
        if (err == -EINVAL)
            return bad(w, key, "%s", why);
        if (err)
            return err;
    }
    return 0;
}

static int parse_rescale(const Where *w, const json_t *md, const char *what, VmafModel *m,
                         bool slopes)
{
    char key[96];
    snprintf(key, sizeof(key), "model_dict.%s", what);
    const json_t *a = json_object_get(md, what);
    if (!a) {
        if (m->norm == VMAF_MODEL_NORM_NONE)
            return 0;
        return bad(w, key, "missing (norm_type linear_rescale needs slopes and intercepts)");
    }
    if (!json_is_array(a))
        return bad(w, key, "expected an array of numbers, found %s", json_type_name(a));
    if (json_array_size(a) != (size_t)m->n_features + 1)
        return bad(w, key,
                   "has %zu entries; it needs %u (one for the score, then one per feature)",
                   json_array_size(a), m->n_features + 1);
    for (size_t i = 0; i < json_array_size(a); i++) {
        snprintf(key, sizeof(key), "model_dict.%s[%zu]", what, i);
        double v;
        int err = get_number(w, key, json_array_get(a, i), &v);
        if (err)
            return err;
        if (i == 0) {
            if (slopes) {
                if (v == 0.0 && m->norm == VMAF_MODEL_NORM_LINEAR_RESCALE)
                    return bad(w, key, "is 0: the score cannot be rescaled back");
                m->slope = v;
            } else {
                m->intercept = v;
            }
        } else if (slopes) {
            m->feature[i - 1].slope = v;
        } else {
            m->feature[i - 1].intercept = v;
        }
    }
    return 0;
}

static int parse_bool_string(const Where *w, const char *key, const json_t *v, bool *out)
{
    if (!json_is_string(v))
        return bad(w, key, "expected the string \"true\" or \"false\", found %s",
                   json_type_name(v));
    const char *s = json_string_value(v);
    if (!strcmp(s, "true"))
        *out = true;
    else if (!strcmp(s, "false"))
        *out = false;
    else
        return bad(w, key, "expected \"true\" or \"false\", found \"%.32s\"", s);
    return 0;
}

static int parse_transform(const Where *w, const json_t *md, VmafModel *m, uint64_t flags)
{
    const json_t *t = json_object_get(md, "score_transform");
    if (!t)
        return 0;
    if (!json_is_object(t))
        return bad(w, "model_dict.score_transform", "expected an object, found %s",
                   json_type_name(t));

    static const char *const pname[3] = {"p0", "p1", "p2"};
    bool *pon[3] = {&m->st.p0_on, &m->st.p1_on, &m->st.p2_on};
    double *pval[3] = {&m->st.p0, &m->st.p1, &m->st.p2};
    char key[96];
    for (int i = 0; i < 3; i++) {
        const json_t *p = json_object_get(t, pname[i]);
        if (!p || json_is_null(p))
            continue;
        snprintf(key, sizeof(key), "model_dict.score_transform.%s", pname[i]);
        int err = get_number(w, key, p, pval[i]);
        if (err)
            return err;
        *pon[i] = true;
    }

    const json_t *k = json_object_get(t, "knots");
    if (k && !json_is_null(k)) {
        if (!json_is_array(k))
            return bad(w, "model_dict.score_transform.knots",
                       "expected an array of [x, y] pairs, found %s", json_type_name(k));
        const size_t n = json_array_size(k);
        if (n < 2 || n > VMAF_MODEL_MAX_KNOTS)
            return bad(w, "model_dict.score_transform.knots", "has %zu knots; 2..%u are allowed",
                       n, VMAF_MODEL_MAX_KNOTS);
        m->st.knots = calloc(n, sizeof(*m->st.knots));
        if (!m->st.knots)
            return -ENOMEM;
        m->st.n_knots = (unsigned)n;
        for (size_t i = 0; i < n; i++) {
            const json_t *pt = json_array_get(k, i);
            snprintf(key, sizeof(key), "model_dict.score_transform.knots[%zu]", i);
            if (!json_is_array(pt) || json_array_size(pt) != 2)
                return bad(w, key, "expected an [x, y] pair");
            int err = get_number(w, key, json_array_get(pt, 0), &m->st.knots[i].x);
            if (!err)
                err = get_number(w, key, json_array_get(pt, 1), &m->st.knots[i].y);
            if (err)
                return err;
            /* The mapping is only defined for a non-decreasing curve over
             * strictly increasing x. */
            if (i && !(m->st.knots[i - 1].x < m->st.knots[i].x &&
                       m->st.knots[i - 1].y <= m->st.knots[i].y))
                return bad(w, key, "knots must have increasing x and non-decreasing y");
        }
    }

    static const char *const rname[2] = {"out_lte_in", "out_gte_in"};
    bool *rout[2] = {&m->st.out_lte_in, &m->st.out_gte_in};
    for (int i = 0; i < 2; i++) {
        const json_t *r = json_object_get(t, rname[i]);
        if (!r)
            continue;
        snprintf(key, sizeof(key), "model_dict.score_transform.%s", rname[i]);
        int err = parse_bool_string(w, key, r, rout[i]);
        if (err)
            return err;
    }

    /* As in the reference, the transform applies when the file enables it
     * ("enabled": true, as the vmaf_v1.0.16 models do) or the caller asks
     * for it, and never with DISABLE_TRANSFORM. */
    bool enabled = false;
    const json_t *en = json_object_get(t, "enabled");
    if (en) {
        if (!json_is_boolean(en))
            return bad(w, "model_dict.score_transform.enabled",
                       "expected true or false (without quotes), found %s",
                       json_type_name(en));
        enabled = json_is_true(en);
    }
    m->transform = (enabled || (flags & VMAF_MODEL_FLAG_ENABLE_TRANSFORM)) &&
                   !(flags & VMAF_MODEL_FLAG_DISABLE_TRANSFORM);
    return 0;
}

static int parse_model_dict(const Where *w, const json_t *root, VmafModel *m, uint64_t flags)
{
    if (!json_is_object(root))
        return bad(w, "(top level)", "expected an object, found %s", json_type_name(root));
    const json_t *md = json_object_get(root, "model_dict");
    if (!md) {
        /* Only a warning: like libvmaf's tool, callers may try a file as a
         * model first and then as a collection. */
        if (json_object_get(root, "0")) {
            vmaf_warning("%s is a model collection (keys \"0\"..\"N\", no 'model_dict'); "
                         "load it as a collection", w->source);
            return -EINVAL;
        }
        return bad(w, "model_dict", "missing");
    }
    if (!json_is_object(md))
        return bad(w, "model_dict", "expected an object, found %s", json_type_name(md));

    const json_t *mt = json_object_get(md, "model_type");
    if (!mt)
        return bad(w, "model_dict.model_type", "missing");
    if (!json_is_string(mt))
        return bad(w, "model_dict.model_type", "expected a string, found %s", json_type_name(mt));
    const char *type = json_string_value(mt);
    if (!strcmp(type, "LIBSVMNUSVR"))
        m->type = VMAF_MODEL_TYPE_SVM_NUSVR;
    else if (!strcmp(type, "BOOTSTRAP_LIBSVMNUSVR"))
        m->type = VMAF_MODEL_TYPE_BOOTSTRAP_SVM_NUSVR;
    else if (!strcmp(type, "RESIDUEBOOTSTRAP_LIBSVMNUSVR"))
        m->type = VMAF_MODEL_TYPE_RESIDUE_BOOTSTRAP_SVM_NUSVR;
    else
        return bad(w, "model_dict.model_type",
                   "unknown model type \"%.40s\" (expected LIBSVMNUSVR, BOOTSTRAP_LIBSVMNUSVR "
                   "or RESIDUEBOOTSTRAP_LIBSVMNUSVR)", type);

    const json_t *nt = json_object_get(md, "norm_type");
    if (!nt)
        return bad(w, "model_dict.norm_type", "missing (linear_rescale or none)");
    if (!json_is_string(nt))
        return bad(w, "model_dict.norm_type", "expected a string, found %s", json_type_name(nt));
    if (!strcmp(json_string_value(nt), "linear_rescale"))
        m->norm = VMAF_MODEL_NORM_LINEAR_RESCALE;
    else if (!strcmp(json_string_value(nt), "none"))
        m->norm = VMAF_MODEL_NORM_NONE;
    else
        return bad(w, "model_dict.norm_type",
                   "unknown normalisation \"%.40s\" (expected linear_rescale or none)",
                   json_string_value(nt));

    int err = parse_features(w, md, m);
    if (!err)
        err = parse_rescale(w, md, "slopes", m, true);
    if (!err)
        err = parse_rescale(w, md, "intercepts", m, false);
    if (err)
        return err;

    const json_t *clip = json_object_get(md, "score_clip");
    if (clip) {
        if (!json_is_array(clip) || json_array_size(clip) != 2)
            return bad(w, "model_dict.score_clip", "expected [min, max]");
        err = get_number(w, "model_dict.score_clip[0]", json_array_get(clip, 0), &m->clip_min);
        if (!err)
            err = get_number(w, "model_dict.score_clip[1]", json_array_get(clip, 1), &m->clip_max);
        if (err)
            return err;
        if (m->clip_min > m->clip_max)
            return bad(w, "model_dict.score_clip", "min %g is above max %g", m->clip_min,
                       m->clip_max);
        m->clip = !(flags & VMAF_MODEL_FLAG_DISABLE_CLIP);
    }

    err = parse_transform(w, md, m, flags);
    if (err)
        return err;

    const json_t *svm = json_object_get(md, "model");
    if (!svm)
        return bad(w, "model_dict.model", "missing (the libsvm model text)");
    if (!json_is_string(svm))
        return bad(w, "model_dict.model", "expected the libsvm model as a string, found %s",
                   json_type_name(svm));
    char why[256];
    err = vmaf_svm_parse(&m->svm, json_string_value(svm), json_string_length(svm), m->n_features,
                         why, sizeof(why));
    if (err == -ENOMEM)
        return err;
    if (err)
        return bad(w, "model_dict.model", "libsvm model text, %s", why);
    return 0;
}

static int model_from_json(VmafModel **out, const json_t *root, const char *name,
                           uint64_t flags, const Where *w)
{
    static atomic_ullong next_serial = 1;
    VmafModel *m = calloc(1, sizeof(*m));
    if (!m)
        return -ENOMEM;
    atomic_init(&m->refs, 1);
    m->serial = atomic_fetch_add(&next_serial, 1);
    m->name = dup_str(name);
    m->source = dup_str(w->source);
    int err = (!m->name || !m->source) ? -ENOMEM : parse_model_dict(w, root, m, flags);
    if (err == -ENOMEM)
        vmaf_error("%s: out of memory while loading the model", w->source);
    if (err) {
        vmaf_model_destroy(m);
        return err;
    }
    *out = m;
    return 0;
}

/* The JSON key nearest before a syntax error, so that even a file jansson
 * cannot parse gets a message that points at the key. */
static void key_before(const char *data, size_t pos, char *key, size_t len)
{
    snprintf(key, len, "(unknown)");
    while (pos > 0) {
        pos--;
        if (data[pos] != ':')
            continue;
        size_t e = pos;
        while (e > 0 && (data[e - 1] == ' ' || data[e - 1] == '\t' || data[e - 1] == '\n' ||
                         data[e - 1] == '\r'))
            e--;
        if (e == 0 || data[e - 1] != '"')
            continue;
        size_t b = e - 1;
        while (b > 0 && data[b - 1] != '"' && e - b < 64)
            b--;
        if (b == 0 || data[b - 1] != '"')
            continue;
        snprintf(key, len, "%.*s", (int)(e - 1 - b), data + b);
        return;
    }
}

static int parse_json(json_t **root, const char *data, size_t len, const char *source)
{
    json_error_t je;
    *root = json_loadb(data, len, JSON_REJECT_DUPLICATES | JSON_DECODE_INT_AS_REAL, &je);
    if (*root)
        return 0;
#if JANSSON_VERSION_HEX >= 0x020b00
    if (json_error_code(&je) == json_error_out_of_memory) {
        vmaf_error("%s: out of memory while reading the model", source);
        return -ENOMEM;
    }
#endif
    char key[80];
    size_t pos = (size_t)je.position <= len ? (size_t)je.position : len;
    key_before(data, pos, key, sizeof(key));
    vmaf_error("%s: not a valid JSON model: line %d column %d (in key '%s'): %s; "
               "fix the model file or use another model",
               source, je.line, je.column, key, je.text);
    return -EINVAL;
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
    err = parse_json(&root, data, len, source);
    if (err)
        return err;
    const Where w = {.source = source, .member = ""};
    err = model_from_json(model, root, cfg_name(cfg), cfg_flags(cfg), &w);
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
    err = parse_json(&root, data, len, source);
    if (err)
        return err;

    Where w = {.source = source, .member = ""};
    VmafModelCollection *mc = NULL;
    VmafModel *head = NULL;
    const size_t n = json_is_object(root) ? json_object_size(root) : 0;
    if (!json_is_object(root)) {
        err = bad(&w, "(top level)", "expected an object, found %s", json_type_name(root));
        goto done;
    }
    if (json_object_get(root, "model_dict")) {
        vmaf_warning("%s is a single model, not a collection (keys \"0\"..\"N\"); load it as "
                     "a model", source);
        err = -EINVAL;
        goto done;
    }
    if (n < 2 || n > VMAF_MODEL_MAX_COLLECTION + 1) {
        err = bad(&w, "(top level)",
                  "a collection needs models \"0\" (the main model) and \"1\"..\"N\" (the bags), "
                  "N from 1 to %u; found %zu keys", VMAF_MODEL_MAX_COLLECTION, n);
        goto done;
    }
    const char *k;
    json_t *v;
    json_object_foreach(root, k, v) {
        size_t idx;
        if (!member_index(k, n, &idx)) {
            err = bad(&w, k, "unexpected key; a collection holds only its models, under the "
                      "keys \"0\", \"1\", ... with no gap");
            goto done;
        }
    }

    mc = calloc(1, sizeof(*mc));
    if (!mc)
        goto nomem;
    mc->name = dup_str(cfg_name(cfg));
    mc->model = calloc(n - 1, sizeof(*mc->model));
    if (!mc->name || !mc->model)
        goto nomem;

    for (size_t i = 0; i < n; i++) {
        char key[16], member[16], *name;
        snprintf(key, sizeof(key), "%zu", i);
        snprintf(member, sizeof(member), "%zu.", i);
        w.member = member;
        name = i ? dup_printf("%s_%04zu", mc->name, i) : dup_str(mc->name);
        if (!name)
            goto nomem;
        VmafModel *m;
        err = model_from_json(&m, json_object_get(root, key), name, cfg_flags(cfg), &w);
        free(name);
        if (err)
            goto done;
        if (i == 0)
            head = m;
        else
            mc->model[mc->cnt++] = m;
        if (!is_bootstrap(m->type) || m->type != head->type) {
            err = bad(&w, "model_dict.model_type",
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
    char *data, *source = dup_printf("model file %s", path);
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
    char *source = dup_printf("built-in %s %s", what, version);
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
