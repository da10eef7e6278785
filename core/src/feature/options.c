#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "feature/feature_collector.h"
#include "feature/feature_extractor.h"
#include "log.h"

static const VmafOption *find_option(const VmafOption *opt, const char *key)
{
    for (; opt && opt->name; opt++)
        if (!strcmp(opt->name, key))
            return opt;
    return NULL;
}

static bool bool_at(const void *priv, const VmafOption *o)
{
    return *(const bool *)((const char *)priv + o->offset);
}

void vmaf_fex_warn_inert_options(const VmafFeatureExtractor *fex, const void *priv)
{
    for (const VmafOption *o = vmaf_fex_options(fex); o && o->name; o++) {
        if (o->type != VMAF_OPT_TYPE_BOOL || !o->needs || !bool_at(priv, o))
            continue;
        const VmafOption *n = find_option(vmaf_fex_options(fex), o->needs);
        if (n && n->type == VMAF_OPT_TYPE_BOOL && !bool_at(priv, n))
            vmaf_warning("%s: %s=true has no effect without %s=true", fex->name, o->name,
                         n->name);
    }
}

static void list_keys(const VmafOption *opt, char *buf, size_t len)
{
    size_t n = 0;
    buf[0] = '\0';
    for (; opt && opt->name && n < len; opt++)
        n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? ", " : "", opt->name);
    if (!buf[0])
        snprintf(buf, len, "none");
}

/* The whole string must be one number: no blanks, no trailing junk. */
static int parse_double(const char *s, double *out)
{
    if (!*s || isspace((unsigned char)*s))
        return -EINVAL;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (*end || errno == ERANGE || !isfinite(v))
        return -EINVAL;
    *out = v;
    return 0;
}

static int parse_int(const char *s, int *out)
{
    if (!*s || isspace((unsigned char)*s))
        return -EINVAL;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (*end || errno == ERANGE || v < INT_MIN || v > INT_MAX)
        return -EINVAL;
    *out = (int)v;
    return 0;
}

static void set_default(const VmafOption *o, void *priv)
{
    char *dst = (char *)priv + o->offset;
    switch (o->type) {
    case VMAF_OPT_TYPE_BOOL: memcpy(dst, &o->def.b, sizeof(bool)); break;
    case VMAF_OPT_TYPE_INT: memcpy(dst, &o->def.i, sizeof(int)); break;
    case VMAF_OPT_TYPE_DOUBLE: memcpy(dst, &o->def.d, sizeof(double)); break;
    }
}

/* One value into priv; on a bad value -EINVAL and the reason in why. */
static int set_value(const VmafFeatureExtractor *fex, const VmafOption *o, void *priv,
                     const char *val, char *why, size_t why_len)
{
    char *dst = (char *)priv + o->offset;
    switch (o->type) {
    case VMAF_OPT_TYPE_BOOL: {
        const bool b = !strcmp(val, "true");
        if (!b && strcmp(val, "false")) {
            snprintf(why, why_len, "%s: option %s=%s: expected true or false", fex->name,
                     o->name, val);
            return -EINVAL;
        }
        memcpy(dst, &b, sizeof(b));
        return 0;
    }
    case VMAF_OPT_TYPE_INT: {
        int v;
        if (parse_int(val, &v) || v < o->min || v > o->max) {
            snprintf(why, why_len, "%s: option %s=%s: expected an integer from %.0f to %.0f (%s)",
                     fex->name, o->name, val, o->min, o->max, o->help ? o->help : "");
            return -EINVAL;
        }
        memcpy(dst, &v, sizeof(v));
        return 0;
    }
    case VMAF_OPT_TYPE_DOUBLE: {
        double v;
        if (parse_double(val, &v) || v < o->min || v > o->max) {
            snprintf(why, why_len, "%s: option %s=%s: expected a number from %g to %g (%s)",
                     fex->name, o->name, val, o->min, o->max, o->help ? o->help : "");
            return -EINVAL;
        }
        memcpy(dst, &v, sizeof(v));
        return 0;
    }
    }
    return -EINVAL;
}

int vmaf_fex_parse_options_why(const VmafFeatureExtractor *fex, void *priv,
                               const VmafFeatureDictionary *opts, char *why, size_t why_len)
{
    const VmafOption *table = vmaf_fex_options(fex);
    for (const VmafOption *o = table; o && o->name; o++)
        set_default(o, priv);
    for (size_t i = 0; opts && i < opts->cnt; i++) {
        const VmafOption *o = find_option(table, opts->entry[i].key);
        if (!o) {
            char keys[512];
            list_keys(table, keys, sizeof(keys));
            snprintf(why, why_len, "%s: unknown option '%s' (valid options: %s)", fex->name,
                     opts->entry[i].key, keys);
            return -EINVAL;
        }
        int err = set_value(fex, o, priv, opts->entry[i].val, why, why_len);
        if (err)
            return err;
    }
    const VmafFeatureExtractor *cpu = fex->twin_of ? fex->twin_of : fex;
    if (cpu->check_options) {
        char reason[512] = "";
        if (cpu->check_options(priv, reason, sizeof(reason))) {
            snprintf(why, why_len, "%s: %s", cpu->name, reason);
            return -EINVAL;
        }
    }
    return 0;
}

int vmaf_fex_parse_options(const VmafFeatureExtractor *fex, void *priv,
                           const VmafFeatureDictionary *opts)
{
    char why[768];
    const int err = vmaf_fex_parse_options_why(fex, priv, opts, why, sizeof(why));
    if (err)
        vmaf_error("%s", why);
    return err;
}

const VmafOption *vmaf_fex_option_named(const VmafFeatureExtractor *fex, const char *name)
{
    return find_option(vmaf_fex_options(fex), name);
}

bool vmaf_fex_option_enables(const VmafOption *o, const char *feature)
{
    for (const char *const *f = o->enables; f && *f; f++)
        if (!strcmp(*f, feature))
            return true;
    return false;
}

const VmafOption *vmaf_fex_option_enabling(const VmafFeatureExtractor *fex, const char *feature)
{
    for (const VmafOption *o = vmaf_fex_options(fex); o && o->name; o++)
        if (vmaf_fex_option_enables(o, feature))
            return o;
    return NULL;
}

static bool same_value(const VmafOption *o, const void *a, const void *b)
{
    const char *pa = (const char *)a + o->offset, *pb = (const char *)b + o->offset;
    switch (o->type) {
    case VMAF_OPT_TYPE_BOOL: return *(const bool *)pa == *(const bool *)pb;
    case VMAF_OPT_TYPE_INT: return *(const int *)pa == *(const int *)pb;
    case VMAF_OPT_TYPE_DOUBLE: return *(const double *)pa == *(const double *)pb;
    }
    return false;
}

int vmaf_fex_merge_options(const VmafFeatureExtractor *fex, const VmafFeatureDictionary *a,
                           const VmafFeatureDictionary *b, VmafFeatureDictionary **merged,
                           const char **conflict)
{
    *merged = NULL;
    *conflict = NULL;
    const size_t size = fex->priv_size ? fex->priv_size : 1;
    void *pa = calloc(1, size), *pb = calloc(1, size);
    int err = (!pa || !pb) ? -ENOMEM : 0;
    /* Compared as parsed values, so "scale=0" equals an absent scale. */
    if (!err)
        err = vmaf_fex_parse_options(fex, pa, a);
    if (!err)
        err = vmaf_fex_parse_options(fex, pb, b);
    if (!err)
        err = vmaf_dict_copy(a, merged);
    /* Options that name the scores are looked at first: requests that
     * differ in one of them are separate instances whatever else differs. */
    const VmafOption *table = vmaf_fex_options(fex);
    for (const VmafOption *o = table; !err && o && o->name; o++)
        if ((o->flags & VMAF_OPT_FLAG_NAMES_SCORE) && !same_value(o, pa, pb))
            err = -EEXIST;
    for (const VmafOption *o = table; !err && o && o->name; o++) {
        if (same_value(o, pa, pb))
            continue;
        if (o->type == VMAF_OPT_TYPE_BOOL && (o->flags & VMAF_OPT_FLAG_ADDS_OUTPUTS)) {
            err = vmaf_feature_dictionary_set(merged, o->name, "true");
            continue;
        }
        *conflict = o->name;
        err = -EINVAL;
    }
    if (err == -ENOMEM)
        vmaf_error("%s: out of memory combining options", fex->name);
    if (err)
        vmaf_feature_dictionary_free(merged);
    free(pa);
    free(pb);
    return err;
}

static bool is_default(const VmafOption *o, const void *priv)
{
    const char *at = (const char *)priv + o->offset;
    switch (o->type) {
    case VMAF_OPT_TYPE_BOOL: return *(const bool *)at == o->def.b;
    case VMAF_OPT_TYPE_INT: return *(const int *)at == o->def.i;
    case VMAF_OPT_TYPE_DOUBLE: return *(const double *)at == o->def.d;
    }
    return true;
}

/* Appends "_<alias>[_<value>]" for one naming option; false when it does
 * not fit. */
static bool append_name_part(const VmafOption *o, const void *priv, char *buf, size_t len,
                             size_t *n)
{
    const char *key = o->alias ? o->alias : o->name;
    const char *at = (const char *)priv + o->offset;
    int k;
    switch (o->type) {
    case VMAF_OPT_TYPE_BOOL: k = snprintf(buf + *n, len - *n, "_%s", key); break;
    case VMAF_OPT_TYPE_INT: k = snprintf(buf + *n, len - *n, "_%s_%d", key, *(const int *)at); break;
    default: k = snprintf(buf + *n, len - *n, "_%s_%g", key, *(const double *)at); break;
    }
    if (k < 0 || (size_t)k >= len - *n)
        return false;
    *n += (size_t)k;
    return true;
}

int vmaf_fex_name_suffix(const VmafFeatureExtractor *fex, const void *priv, char *buf,
                         size_t len)
{
    if (!len)
        return -ERANGE;
    buf[0] = '\0';
    /* The reference orders the parts by option name, not by table order. */
    const VmafOption *part[64];
    size_t n_part = 0;
    for (const VmafOption *o = vmaf_fex_options(fex); o && o->name; o++) {
        if (!(o->flags & VMAF_OPT_FLAG_NAMES_SCORE))
            continue;
        if (is_default(o, priv))
            continue;
        if (n_part == sizeof(part) / sizeof(part[0]))
            return -ERANGE;
        size_t k = n_part++;
        for (; k && strcmp(part[k - 1]->name, o->name) > 0; k--)
            part[k] = part[k - 1];
        part[k] = o;
    }
    size_t n = 0;
    for (size_t i = 0; i < n_part; i++)
        if (!append_name_part(part[i], priv, buf, len, &n))
            return -ERANGE;
    return 0;
}

