#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "feature/feature_collector.h"

typedef struct Feature {
    char *name;
    double *value;
    unsigned char *present;
    unsigned cap;
} Feature;

struct VmafFeatureCollector {
    pthread_mutex_t lock;
    Feature *feature;
    size_t cnt, cap;
    unsigned char *read; /* one bit per frame index read (mark_read) */
    unsigned read_cap;   /* bits in read, a multiple of 8 */
    struct Aggregate {
        char *name;
        double value;
    } *aggregate;        /* in the order first set */
    size_t n_aggregate;
};

int vmaf_feature_collector_init(VmafFeatureCollector **fc)
{
    if (!fc)
        return -EINVAL;
    VmafFeatureCollector *c = calloc(1, sizeof(*c));
    if (!c)
        return -ENOMEM;
    if (pthread_mutex_init(&c->lock, NULL)) {
        free(c);
        return -ENOMEM;
    }
    *fc = c;
    return 0;
}

void vmaf_feature_collector_destroy(VmafFeatureCollector *fc)
{
    if (!fc)
        return;
    for (size_t i = 0; i < fc->cnt; i++) {
        free(fc->feature[i].name);
        free(fc->feature[i].value);
        free(fc->feature[i].present);
    }
    free(fc->feature);
    free(fc->read);
    for (size_t i = 0; i < fc->n_aggregate; i++)
        free(fc->aggregate[i].name);
    free(fc->aggregate);
    pthread_mutex_destroy(&fc->lock);
    free(fc);
}

static Feature *find(VmafFeatureCollector *fc, const char *name)
{
    for (size_t i = 0; i < fc->cnt; i++)
        if (!strcmp(fc->feature[i].name, name))
            return &fc->feature[i];
    return NULL;
}

static Feature *find_or_add(VmafFeatureCollector *fc, const char *name)
{
    Feature *f = find(fc, name);
    if (f)
        return f;
    if (fc->cnt == fc->cap) {
        size_t cap = fc->cap ? fc->cap * 2 : 8;
        Feature *n = realloc(fc->feature, cap * sizeof(*n));
        if (!n)
            return NULL;
        fc->feature = n;
        fc->cap = cap;
    }
    size_t len = strlen(name) + 1;
    char *copy = malloc(len);
    if (!copy)
        return NULL;
    memcpy(copy, name, len);
    f = &fc->feature[fc->cnt++];
    memset(f, 0, sizeof(*f));
    f->name = copy;
    return f;
}

static int reserve(Feature *f, unsigned index)
{
    if (index < f->cap)
        return 0;
    if (index >= VMAF_FEATURE_COLLECTOR_MAX_INDEX)
        return -EINVAL;
    unsigned cap = f->cap ? f->cap : 64;
    while (cap <= index)
        cap = cap > 0x3fffffffu ? index + 1 : cap * 2;
    double *v = realloc(f->value, (size_t)cap * sizeof(*v));
    if (!v)
        return -ENOMEM;
    f->value = v;
    unsigned char *p = realloc(f->present, cap);
    if (!p)
        return -ENOMEM;
    memset(p + f->cap, 0, cap - f->cap);
    f->present = p;
    f->cap = cap;
    return 0;
}

static int store(VmafFeatureCollector *fc, const char *name, double value, unsigned index,
                 int replace)
{
    if (!fc || !name)
        return -EINVAL;
    pthread_mutex_lock(&fc->lock);
    int err = 0;
    Feature *f = find_or_add(fc, name);
    if (!f) {
        err = -ENOMEM;
        goto out;
    }
    err = reserve(f, index);
    if (err)
        goto out;
    if (f->present[index] && !replace) {
        err = -EINVAL;
        goto out;
    }
    f->value[index] = value;
    f->present[index] = 1;
out:
    pthread_mutex_unlock(&fc->lock);
    return err;
}

int vmaf_feature_collector_declare(VmafFeatureCollector *fc, const char *name)
{
    pthread_mutex_lock(&fc->lock);
    const Feature *f = find_or_add(fc, name);
    pthread_mutex_unlock(&fc->lock);
    return f ? 0 : -ENOMEM;
}

int vmaf_feature_collector_append(VmafFeatureCollector *fc, const char *name, double value,
                                  unsigned index)
{
    return store(fc, name, value, index, 0);
}

int vmaf_feature_collector_set(VmafFeatureCollector *fc, const char *name, double value,
                               unsigned index)
{
    return store(fc, name, value, index, 1);
}

int vmaf_feature_collector_get(VmafFeatureCollector *fc, const char *name, double *value,
                               unsigned index)
{
    if (!fc || !name || !value)
        return -EINVAL;
    pthread_mutex_lock(&fc->lock);
    int err = -EINVAL;
    Feature *f = find(fc, name);
    if (f && index < f->cap && f->present[index]) {
        *value = f->value[index];
        err = 0;
    }
    pthread_mutex_unlock(&fc->lock);
    return err;
}

size_t vmaf_feature_collector_count(VmafFeatureCollector *fc)
{
    pthread_mutex_lock(&fc->lock);
    size_t n = fc->cnt;
    pthread_mutex_unlock(&fc->lock);
    return n;
}

const char *vmaf_feature_collector_name(VmafFeatureCollector *fc, size_t i)
{
    pthread_mutex_lock(&fc->lock);
    const char *n = i < fc->cnt ? fc->feature[i].name : NULL;
    pthread_mutex_unlock(&fc->lock);
    return n;
}

unsigned vmaf_feature_collector_capacity(VmafFeatureCollector *fc, size_t i)
{
    pthread_mutex_lock(&fc->lock);
    unsigned cap = 0;
    if (i < fc->cnt) {
        Feature *f = &fc->feature[i];
        for (unsigned k = f->cap; k > 0; k--)
            if (f->present[k - 1]) {
                cap = k;
                break;
            }
    }
    pthread_mutex_unlock(&fc->lock);
    return cap;
}

bool vmaf_feature_collector_at(VmafFeatureCollector *fc, size_t i, unsigned index,
                               double *value)
{
    pthread_mutex_lock(&fc->lock);
    bool ok = false;
    if (i < fc->cnt && index < fc->feature[i].cap && fc->feature[i].present[index]) {
        *value = fc->feature[i].value[index];
        ok = true;
    }
    pthread_mutex_unlock(&fc->lock);
    return ok;
}

int vmaf_feature_collector_mark_read(VmafFeatureCollector *fc, unsigned index)
{
    if (!fc || index >= VMAF_FEATURE_COLLECTOR_MAX_INDEX)
        return -EINVAL;
    pthread_mutex_lock(&fc->lock);
    int err = 0;
    if (index >= fc->read_cap) {
        unsigned cap = fc->read_cap ? fc->read_cap : 512;
        while (cap <= index)
            cap = cap > 0x3fffffffu ? VMAF_FEATURE_COLLECTOR_MAX_INDEX + 1u : cap * 2;
        unsigned char *r = realloc(fc->read, cap / 8);
        if (!r) {
            err = -ENOMEM;
            goto out;
        }
        memset(r + fc->read_cap / 8, 0, (cap - fc->read_cap) / 8);
        fc->read = r;
        fc->read_cap = cap;
    }
    const unsigned char bit = (unsigned char)(1u << (index % 8));
    if (fc->read[index / 8] & bit)
        err = -EEXIST;
    else
        fc->read[index / 8] |= bit;
out:
    pthread_mutex_unlock(&fc->lock);
    return err;
}

bool vmaf_feature_collector_was_read(VmafFeatureCollector *fc, unsigned index)
{
    pthread_mutex_lock(&fc->lock);
    const bool read = index < fc->read_cap && (fc->read[index / 8] & (1u << (index % 8)));
    pthread_mutex_unlock(&fc->lock);
    return read;
}

int vmaf_feature_collector_set_aggregate(VmafFeatureCollector *fc, const char *name,
                                         double value)
{
    pthread_mutex_lock(&fc->lock);
    int err = 0;
    size_t i = 0;
    while (i < fc->n_aggregate && strcmp(fc->aggregate[i].name, name))
        i++;
    if (i == fc->n_aggregate) {
        struct Aggregate *grown = realloc(fc->aggregate, (i + 1) * sizeof(*grown));
        char *copy = strdup(name);
        if (grown)
            fc->aggregate = grown;
        if (!grown || !copy) {
            free(copy);
            err = -ENOMEM;
        } else {
            fc->aggregate[i].name = copy;
            fc->n_aggregate++;
        }
    }
    if (!err)
        fc->aggregate[i].value = value;
    pthread_mutex_unlock(&fc->lock);
    return err;
}

size_t vmaf_feature_collector_aggregate_count(VmafFeatureCollector *fc)
{
    pthread_mutex_lock(&fc->lock);
    const size_t n = fc->n_aggregate;
    pthread_mutex_unlock(&fc->lock);
    return n;
}

const char *vmaf_feature_collector_aggregate_at(VmafFeatureCollector *fc, size_t i,
                                                double *value)
{
    pthread_mutex_lock(&fc->lock);
    const char *name = i < fc->n_aggregate ? fc->aggregate[i].name : NULL;
    if (name)
        *value = fc->aggregate[i].value;
    pthread_mutex_unlock(&fc->lock);
    return name;
}
