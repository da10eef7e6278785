#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dict.h"
#include "log.h"

static char *dup_str(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

const char *vmaf_dict_get(const VmafFeatureDictionary *d, const char *key)
{
    if (!d || !key)
        return NULL;
    for (size_t i = 0; i < d->cnt; i++)
        if (!strcmp(d->entry[i].key, key))
            return d->entry[i].val;
    return NULL;
}

static int set_entry(VmafFeatureDictionary **dict, const char *key, const char *val);

int vmaf_feature_dictionary_set(VmafFeatureDictionary **dict, const char *key, const char *val)
{
    if (!dict || !key || !val) {
        vmaf_error("vmaf_feature_dictionary_set: the %s is NULL",
                   !dict ? "dictionary pointer" : !key ? "key" : "value");
        return -EINVAL;
    }
    int err = set_entry(dict, key, val);
    if (err == -ENOMEM)
        vmaf_error("out of memory setting option %s=%s", key, val);
    return err;
}

static int set_entry(VmafFeatureDictionary **dict, const char *key, const char *val)
{
    if (!dict || !key || !val)
        return -EINVAL;
    VmafFeatureDictionary *d = *dict;
    if (!d) {
        d = calloc(1, sizeof(*d));
        if (!d)
            return -ENOMEM;
        *dict = d;
    }
    char *v = dup_str(val);
    if (!v)
        return -ENOMEM;
    for (size_t i = 0; i < d->cnt; i++) {
        if (!strcmp(d->entry[i].key, key)) {
            free(d->entry[i].val);
            d->entry[i].val = v;
            return 0;
        }
    }
    if (d->cnt == d->cap) {
        size_t cap = d->cap ? d->cap * 2 : 4;
        VmafDictEntry *e = realloc(d->entry, cap * sizeof(*e));
        if (!e) {
            free(v);
            return -ENOMEM;
        }
        d->entry = e;
        d->cap = cap;
    }
    char *k = dup_str(key);
    if (!k) {
        free(v);
        return -ENOMEM;
    }
    d->entry[d->cnt].key = k;
    d->entry[d->cnt].val = v;
    d->cnt++;
    return 0;
}

int vmaf_feature_dictionary_free(VmafFeatureDictionary **dict)
{
    if (!dict || !*dict)
        return 0;
    VmafFeatureDictionary *d = *dict;
    for (size_t i = 0; i < d->cnt; i++) {
        free(d->entry[i].key);
        free(d->entry[i].val);
    }
    free(d->entry);
    free(d);
    *dict = NULL;
    return 0;
}

int vmaf_dict_merge(VmafFeatureDictionary **dst, const VmafFeatureDictionary *src)
{
    if (!src)
        return 0;
    for (size_t i = 0; i < src->cnt; i++) {
        int err = vmaf_feature_dictionary_set(dst, src->entry[i].key, src->entry[i].val);
        if (err)
            return err;
    }
    return 0;
}

int vmaf_dict_copy(const VmafFeatureDictionary *src, VmafFeatureDictionary **dst)
{
    *dst = NULL;
    int err = vmaf_dict_merge(dst, src);
    if (err)
        vmaf_feature_dictionary_free(dst);
    return err;
}

int vmaf_dict_equal(const VmafFeatureDictionary *a, const VmafFeatureDictionary *b)
{
    size_t na = a ? a->cnt : 0, nb = b ? b->cnt : 0;
    if (na != nb)
        return 0;
    for (size_t i = 0; i < na; i++) {
        const char *v = vmaf_dict_get(b, a->entry[i].key);
        if (!v || strcmp(v, a->entry[i].val))
            return 0;
    }
    return 1;
}
