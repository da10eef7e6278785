/* Model files as JSON, through jansson: every key of a model_dict is
 * checked, so that a bad model is refused with its path and key instead of
 * failing mid-run. */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libvmaf/model.h"

#include "dict.h"
#include "log.h"
#include "model/model_internal.h"
#include "model/svm.h"

int vmaf_model_bad(const VmafModelWhere *w, const char *key, const char *fmt, ...)
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

const char *vmaf_model_json_type_name(const json_t *j)
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

static int get_number(const VmafModelWhere *w, const char *key, const json_t *j, double *out)
{
    if (!json_is_number(j))
        return vmaf_model_bad(w, key, "expected a number, found %s", vmaf_model_json_type_name(j));
    const double v = json_number_value(j);
    if (!isfinite(v))
        return vmaf_model_bad(w, key, "not a finite number");
    if (fabs(v) > VMAF_MODEL_MAX_ABS)
        return vmaf_model_bad(w, key, "%.*g is larger than %g in magnitude", VMAF_MODEL_ABS_DIGITS(v), v,
                   VMAF_MODEL_MAX_ABS);
    *out = v;
    return 0;
}

/* Options come as JSON numbers or booleans, as the reference's loader
 * takes them (it refuses strings); extractors read text. A number is
 * written with the fewest digits that read back to the same double. */
static int opt_value_text(const VmafModelWhere *w, const char *key, const json_t *v, char *buf,
                          size_t len)
{
    if (json_is_true(v)) {
        snprintf(buf, len, "true");
    } else if (json_is_false(v)) {
        snprintf(buf, len, "false");
    } else if (json_is_number(v)) {
        const double d = json_number_value(v);
        if (!isfinite(d))
            return vmaf_model_bad(w, key, "not a finite number");
        for (int p = 15; p <= 17; p++) {
            snprintf(buf, len, "%.*g", p, d);
            if (strtod(buf, NULL) == d)
                break;
        }
    } else {
        return vmaf_model_bad(w, key, "expected a number or a boolean, found %s%s", vmaf_model_json_type_name(v),
                   json_is_string(v) ? " (write the value without quotes)" : "");
    }
    return 0;
}

static int parse_features(const VmafModelWhere *w, const json_t *md, VmafModel *m)
{
    const json_t *names = json_object_get(md, "feature_names");
    if (!names)
        return vmaf_model_bad(w, "model_dict.feature_names", "missing (the list of the model's features)");
    if (!json_is_array(names))
        return vmaf_model_bad(w, "model_dict.feature_names", "expected an array of strings, found %s",
                   vmaf_model_json_type_name(names));
    const size_t n = json_array_size(names);
    if (n < 1 || n > VMAF_MODEL_MAX_FEATURES)
        return vmaf_model_bad(w, "model_dict.feature_names", "has %zu entries; 1..%u are allowed", n,
                   VMAF_MODEL_MAX_FEATURES);

    const json_t *opts = json_object_get(md, "feature_opts_dicts");
    if (opts && !json_is_array(opts))
        return vmaf_model_bad(w, "model_dict.feature_opts_dicts", "expected an array of objects, found %s",
                   vmaf_model_json_type_name(opts));
    if (opts && json_array_size(opts) != n)
        return vmaf_model_bad(w, "model_dict.feature_opts_dicts",
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
            return vmaf_model_bad(w, key, "expected a string, found %s", vmaf_model_json_type_name(jn));
        const char *s = json_string_value(jn);
        if (!s[0] || json_string_length(jn) > 255 || strlen(s) != json_string_length(jn))
            return vmaf_model_bad(w, key, "a feature name must have 1..255 characters");
        for (size_t k = 0; k < i; k++)
            if (!strcmp(m->feature[k].name, s))
                return vmaf_model_bad(w, key, "feature '%s' is listed twice", s);
        m->feature[i].name = vmaf_model_dup_str(s);
        m->feature[i].feature = vmaf_model_feature_name_map(s);
        if (!m->feature[i].name || !m->feature[i].feature)
            return -ENOMEM;

        if (!opts)
            continue;
        const json_t *d = json_array_get(opts, i);
        snprintf(key, sizeof(key), "model_dict.feature_opts_dicts[%zu]", i);
        if (!json_is_object(d))
            return vmaf_model_bad(w, key, "expected an object, found %s", vmaf_model_json_type_name(d));
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
            return vmaf_model_bad(w, key, "%s", why);
        if (err)
            return err;
    }
    return 0;
}

static int parse_rescale(const VmafModelWhere *w, const json_t *md, const char *what, VmafModel *m,
                         bool slopes)
{
    char key[96];
    snprintf(key, sizeof(key), "model_dict.%s", what);
    const json_t *a = json_object_get(md, what);
    if (!a) {
        if (m->norm == VMAF_MODEL_NORM_NONE)
            return 0;
        return vmaf_model_bad(w, key, "missing (norm_type linear_rescale needs slopes and intercepts)");
    }
    if (!json_is_array(a))
        return vmaf_model_bad(w, key, "expected an array of numbers, found %s", vmaf_model_json_type_name(a));
    if (json_array_size(a) != (size_t)m->n_features + 1)
        return vmaf_model_bad(w, key,
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
                    return vmaf_model_bad(w, key, "is 0: the score cannot be rescaled back");
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

static int parse_bool_string(const VmafModelWhere *w, const char *key, const json_t *v, bool *out)
{
    if (!json_is_string(v))
        return vmaf_model_bad(w, key, "expected the string \"true\" or \"false\", found %s",
                   vmaf_model_json_type_name(v));
    const char *s = json_string_value(v);
    if (!strcmp(s, "true"))
        *out = true;
    else if (!strcmp(s, "false"))
        *out = false;
    else
        return vmaf_model_bad(w, key, "expected \"true\" or \"false\", found \"%.32s\"", s);
    return 0;
}

static int parse_transform(const VmafModelWhere *w, const json_t *md, VmafModel *m, uint64_t flags)
{
    const json_t *t = json_object_get(md, "score_transform");
    if (!t)
        return 0;
    if (!json_is_object(t))
        return vmaf_model_bad(w, "model_dict.score_transform", "expected an object, found %s",
                   vmaf_model_json_type_name(t));

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
            return vmaf_model_bad(w, "model_dict.score_transform.knots",
                       "expected an array of [x, y] pairs, found %s", vmaf_model_json_type_name(k));
        const size_t n = json_array_size(k);
        if (n < 2 || n > VMAF_MODEL_MAX_KNOTS)
            return vmaf_model_bad(w, "model_dict.score_transform.knots", "has %zu knots; 2..%u are allowed",
                       n, VMAF_MODEL_MAX_KNOTS);
        m->st.knots = calloc(n, sizeof(*m->st.knots));
        if (!m->st.knots)
            return -ENOMEM;
        m->st.n_knots = (unsigned)n;
        for (size_t i = 0; i < n; i++) {
            const json_t *pt = json_array_get(k, i);
            snprintf(key, sizeof(key), "model_dict.score_transform.knots[%zu]", i);
            if (!json_is_array(pt) || json_array_size(pt) != 2)
                return vmaf_model_bad(w, key, "expected an [x, y] pair");
            int err = get_number(w, key, json_array_get(pt, 0), &m->st.knots[i].x);
            if (!err)
                err = get_number(w, key, json_array_get(pt, 1), &m->st.knots[i].y);
            if (err)
                return err;
            /* The mapping is only defined for a non-decreasing curve over
             * strictly increasing x. */
            if (i && !(m->st.knots[i - 1].x < m->st.knots[i].x &&
                       m->st.knots[i - 1].y <= m->st.knots[i].y))
                return vmaf_model_bad(w, key, "knots must have increasing x and non-decreasing y");
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
            return vmaf_model_bad(w, "model_dict.score_transform.enabled",
                       "expected true or false (without quotes), found %s",
                       vmaf_model_json_type_name(en));
        enabled = json_is_true(en);
    }
    m->transform = (enabled || (flags & VMAF_MODEL_FLAG_ENABLE_TRANSFORM)) &&
                   !(flags & VMAF_MODEL_FLAG_DISABLE_TRANSFORM);
    return 0;
}

static int parse_model_dict(const VmafModelWhere *w, const json_t *root, VmafModel *m, uint64_t flags)
{
    if (!json_is_object(root))
        return vmaf_model_bad(w, "(top level)", "expected an object, found %s", vmaf_model_json_type_name(root));
    const json_t *md = json_object_get(root, "model_dict");
    if (!md) {
        /* Only a warning: like libvmaf's tool, callers may try a file as a
         * model first and then as a collection. */
        if (json_object_get(root, "0")) {
            vmaf_warning("%s is a model collection (keys \"0\"..\"N\", no 'model_dict'); "
                         "load it as a collection", w->source);
            return -EINVAL;
        }
        return vmaf_model_bad(w, "model_dict", "missing");
    }
    if (!json_is_object(md))
        return vmaf_model_bad(w, "model_dict", "expected an object, found %s", vmaf_model_json_type_name(md));

    const json_t *mt = json_object_get(md, "model_type");
    if (!mt)
        return vmaf_model_bad(w, "model_dict.model_type", "missing");
    if (!json_is_string(mt))
        return vmaf_model_bad(w, "model_dict.model_type", "expected a string, found %s", vmaf_model_json_type_name(mt));
    const char *type = json_string_value(mt);
    if (!strcmp(type, "LIBSVMNUSVR"))
        m->type = VMAF_MODEL_TYPE_SVM_NUSVR;
    else if (!strcmp(type, "BOOTSTRAP_LIBSVMNUSVR"))
        m->type = VMAF_MODEL_TYPE_BOOTSTRAP_SVM_NUSVR;
    else if (!strcmp(type, "RESIDUEBOOTSTRAP_LIBSVMNUSVR"))
        m->type = VMAF_MODEL_TYPE_RESIDUE_BOOTSTRAP_SVM_NUSVR;
    else
        return vmaf_model_bad(w, "model_dict.model_type",
                   "unknown model type \"%.40s\" (expected LIBSVMNUSVR, BOOTSTRAP_LIBSVMNUSVR "
                   "or RESIDUEBOOTSTRAP_LIBSVMNUSVR)", type);

    const json_t *nt = json_object_get(md, "norm_type");
    if (!nt)
        return vmaf_model_bad(w, "model_dict.norm_type", "missing (linear_rescale or none)");
    if (!json_is_string(nt))
        return vmaf_model_bad(w, "model_dict.norm_type", "expected a string, found %s", vmaf_model_json_type_name(nt));
    if (!strcmp(json_string_value(nt), "linear_rescale"))
        m->norm = VMAF_MODEL_NORM_LINEAR_RESCALE;
    else if (!strcmp(json_string_value(nt), "none"))
        m->norm = VMAF_MODEL_NORM_NONE;
    else
        return vmaf_model_bad(w, "model_dict.norm_type",
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
            return vmaf_model_bad(w, "model_dict.score_clip", "expected [min, max]");
        err = get_number(w, "model_dict.score_clip[0]", json_array_get(clip, 0), &m->clip_min);
        if (!err)
            err = get_number(w, "model_dict.score_clip[1]", json_array_get(clip, 1), &m->clip_max);
        if (err)
            return err;
        if (m->clip_min > m->clip_max)
            return vmaf_model_bad(w, "model_dict.score_clip", "min %g is above max %g", m->clip_min,
                       m->clip_max);
        m->clip = !(flags & VMAF_MODEL_FLAG_DISABLE_CLIP);
    }

    err = parse_transform(w, md, m, flags);
    if (err)
        return err;

    const json_t *svm = json_object_get(md, "model");
    if (!svm)
        return vmaf_model_bad(w, "model_dict.model", "missing (the libsvm model text)");
    if (!json_is_string(svm))
        return vmaf_model_bad(w, "model_dict.model", "expected the libsvm model as a string, found %s",
                   vmaf_model_json_type_name(svm));
    char why[256];
    err = vmaf_svm_parse(&m->svm, json_string_value(svm), json_string_length(svm), m->n_features,
                         why, sizeof(why));
    if (err == -ENOMEM)
        return err;
    if (err)
        return vmaf_model_bad(w, "model_dict.model", "libsvm model text, %s", why);
    return 0;
}

int vmaf_model_from_json(VmafModel **out, const json_t *root, const char *name,
                           uint64_t flags, const VmafModelWhere *w)
{
    static atomic_ullong next_serial = 1;
    VmafModel *m = calloc(1, sizeof(*m));
    if (!m)
        return -ENOMEM;
    atomic_init(&m->refs, 1);
    m->serial = atomic_fetch_add(&next_serial, 1);
    m->name = vmaf_model_dup_str(name);
    m->source = vmaf_model_dup_str(w->source);
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

int vmaf_model_parse_json(json_t **root, const char *data, size_t len, const char *source)
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
