#include <errno.h>
#include <math.h>
#include <string.h>

#include "config.h"
#include "log.h"
#include "registry.h"

extern const VmafFeatureExtractor vmaf_fex_float_ssim;
#if HAVE_CUDA
extern const VmafFeatureExtractor vmaf_fex_float_ssim_cuda;
#endif

static const VmafFeatureExtractor *const table[] = {
    &vmaf_fex_float_ssim,
#if HAVE_CUDA
    &vmaf_fex_float_ssim_cuda,
#endif
};

#define TABLE_LEN (sizeof(table) / sizeof(table[0]))

size_t vmaf_registry_count(void)
{
    return TABLE_LEN;
}

const VmafFeatureExtractor *vmaf_registry_at(size_t i)
{
    return i < TABLE_LEN ? table[i] : NULL;
}

const VmafFeatureExtractor *vmaf_registry_find_by_name(const char *name)
{
    if (!name)
        return NULL;
    for (size_t i = 0; i < TABLE_LEN; i++)
        if (!strcmp(table[i]->name, name))
            return table[i];
    return NULL;
}

static int provides(const VmafFeatureExtractor *fex, const char *feature)
{
    for (const char *const *p = fex->provided_features; p && *p; p++)
        if (!strcmp(*p, feature))
            return 1;
    return 0;
}

const VmafFeatureExtractor *vmaf_registry_find_by_feature(const char *feature)
{
    if (!feature)
        return NULL;
    for (size_t i = 0; i < TABLE_LEN; i++)
        if (table[i]->backend == VMAF_FEX_BACKEND_CPU && provides(table[i], feature))
            return table[i];
    return NULL;
}

const VmafFeatureExtractor *vmaf_registry_twin(const VmafFeatureExtractor *cpu,
                                               enum VmafFexBackend backend)
{
    if (!cpu)
        return NULL;
    if (cpu->backend == backend)
        return cpu;
    for (size_t i = 0; i < TABLE_LEN; i++)
        if (table[i]->backend == backend && table[i]->twin_of &&
            !strcmp(table[i]->twin_of, cpu->name))
            return table[i];
    return NULL;
}

const VmafFeatureExtractor *vmaf_registry_cpu_of(const VmafFeatureExtractor *fex)
{
    if (!fex || fex->backend == VMAF_FEX_BACKEND_CPU)
        return fex;
    return vmaf_registry_find_by_name(fex->twin_of);
}

static int same_double(double a, double b)
{
    return a == b || (isinf(a) && isinf(b) && signbit(a) == signbit(b));
}

static int same_features(const char *const *a, const char *const *b)
{
    size_t i = 0;
    for (; a && a[i] && b && b[i]; i++)
        if (strcmp(a[i], b[i]))
            return 0;
    return (!a || !a[i]) && (!b || !b[i]);
}

static int same_options(const VmafOption *a, const VmafOption *b)
{
    for (;; a++, b++) {
        if (!a || !b)
            return a == b;
        if (!a->name || !b->name)
            return a->name == b->name;
        if (strcmp(a->name, b->name) || a->type != b->type || a->flags != b->flags ||
            strcmp(a->help ? a->help : "", b->help ? b->help : "") ||
            strcmp(a->needs ? a->needs : "", b->needs ? b->needs : "") ||
            !same_features(a->enables, b->enables))
            return 0;
        switch (a->type) {
        case VMAF_OPT_TYPE_BOOL:
            if (a->def.b != b->def.b)
                return 0;
            break;
        case VMAF_OPT_TYPE_INT:
            if (a->def.i != b->def.i || !same_double(a->min, b->min) ||
                !same_double(a->max, b->max))
                return 0;
            break;
        case VMAF_OPT_TYPE_DOUBLE:
            if (!same_double(a->def.d, b->def.d) || !same_double(a->min, b->min) ||
                !same_double(a->max, b->max))
                return 0;
            break;
        }
    }
}


static const VmafFeatureExtractor *find_in(const VmafFeatureExtractor *const *t, size_t n,
                                           const char *name)
{
    for (size_t i = 0; name && i < n; i++)
        if (t[i]->name && !strcmp(t[i]->name, name))
            return t[i];
    return NULL;
}

int vmaf_registry_validate_table(const VmafFeatureExtractor *const *t, size_t n)
{
    int bad = 0;
    for (size_t i = 0; i < n; i++) {
        const VmafFeatureExtractor *f = t[i];
        if (!f->name || !f->init || !f->close || !f->provided_features ||
            !f->provided_features[0]) {
            vmaf_error("registry: entry %zu lacks a name, init, close or features", i);
            bad = 1;
            continue;
        }
        if (f->backend == VMAF_FEX_BACKEND_CPU && (!f->extract || f->twin_of)) {
            vmaf_error("registry: CPU extractor %s needs extract and no twin link", f->name);
            bad = 1;
        }
        if (f->backend != VMAF_FEX_BACKEND_CPU) {
            const VmafFeatureExtractor *cpu = find_in(t, n, f->twin_of);
            if (!f->reserve || !f->submit || !f->collect || !f->check_context) {
                vmaf_error("registry: twin %s needs reserve, submit, collect and check_context",
                           f->name);
                bad = 1;
            }
            if (!cpu || cpu->backend != VMAF_FEX_BACKEND_CPU) {
                vmaf_error("registry: twin %s names no CPU extractor (%s)", f->name,
                           f->twin_of ? f->twin_of : "none");
                bad = 1;
            } else {
                if (!same_options(f->options, cpu->options)) {
                    vmaf_error("registry: twin %s options differ from %s", f->name, cpu->name);
                    bad = 1;
                }
                if (!same_features(f->provided_features, cpu->provided_features)) {
                    vmaf_error("registry: twin %s features differ from %s", f->name, cpu->name);
                    bad = 1;
                }
            }
        }
        for (size_t j = 0; j < i; j++) {
            const VmafFeatureExtractor *g = t[j];
            /* g may be an entry already reported for lacking a name. */
            if (f == g || (g->name && !strcmp(f->name, g->name))) {
                vmaf_error("registry: extractor %s is listed twice", f->name);
                bad = 1;
            }
            if (f->backend == g->backend && f->backend != VMAF_FEX_BACKEND_CPU &&
                f->twin_of && g->twin_of && !strcmp(f->twin_of, g->twin_of)) {
                vmaf_error("registry: %s and %s are both twins of %s", f->name, g->name,
                           f->twin_of);
                bad = 1;
            }
            if (f->backend == VMAF_FEX_BACKEND_CPU && g->backend == VMAF_FEX_BACKEND_CPU)
                for (const char *const *p = f->provided_features; *p; p++)
                    if (provides(g, *p)) {
                        vmaf_error("registry: feature %s is provided by %s and %s", *p,
                                   g->name, f->name);
                        bad = 1;
                    }
        }
    }
    return bad ? -EINVAL : 0;
}

int vmaf_registry_validate(void)
{
    return vmaf_registry_validate_table(table, TABLE_LEN);
}
