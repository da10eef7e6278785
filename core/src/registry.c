#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "libvmaf/libvmaf.h"

#include "config.h"
#include "log.h"
#include "registry.h"

extern const VmafFeatureExtractor vmaf_fex_float_ssim;
extern const VmafFeatureExtractor vmaf_fex_motion;
extern const VmafFeatureExtractor vmaf_fex_adm;
extern const VmafFeatureExtractor vmaf_fex_vif;
extern const VmafFeatureExtractor vmaf_fex_psnr;
extern const VmafFeatureExtractor vmaf_fex_ciede;
extern const VmafFeatureExtractor vmaf_fex_psnr_hvs;
extern const VmafFeatureExtractor vmaf_fex_float_ms_ssim;
#if HAVE_CUDA
extern const VmafFeatureExtractor vmaf_fex_float_ssim_cuda;
extern const VmafFeatureExtractor vmaf_fex_motion_cuda;
extern const VmafFeatureExtractor vmaf_fex_vif_cuda;
extern const VmafFeatureExtractor vmaf_fex_adm_cuda;
extern const VmafFeatureExtractor vmaf_fex_float_ms_ssim_cuda;
extern const VmafFeatureExtractor vmaf_fex_psnr_cuda;
extern const VmafFeatureExtractor vmaf_fex_psnr_hvs_cuda;
#endif

static const VmafFeatureExtractor *const table[] = {
    &vmaf_fex_float_ssim,
    &vmaf_fex_motion,
    &vmaf_fex_adm,
    &vmaf_fex_vif,
    &vmaf_fex_psnr,
    &vmaf_fex_ciede,
    &vmaf_fex_psnr_hvs,
    &vmaf_fex_float_ms_ssim,
#if HAVE_CUDA
    &vmaf_fex_float_ssim_cuda,
    &vmaf_fex_motion_cuda,
    &vmaf_fex_vif_cuda,
    &vmaf_fex_adm_cuda,
    &vmaf_fex_float_ms_ssim_cuda,
    &vmaf_fex_psnr_cuda,
    &vmaf_fex_psnr_hvs_cuda,
#endif
};

#define TABLE_LEN (sizeof(table) / sizeof(table[0]))

/* Twins whose backend this build was compiled without, known by name so
 * that asking for one is -ENODEV, as on a machine without a GPU, rather
 * than an unknown name. Ends with a NULL name. */
static const struct {
    const char *name;
    const VmafFeatureExtractor *cpu;
} absent[] = {
#if !HAVE_CUDA
    { "float_ssim_cuda", &vmaf_fex_float_ssim },
    { "motion_cuda", &vmaf_fex_motion },
    { "vif_cuda", &vmaf_fex_vif },
    { "adm_cuda", &vmaf_fex_adm },
    { "float_ms_ssim_cuda", &vmaf_fex_float_ms_ssim },
    { "psnr_cuda", &vmaf_fex_psnr },
    { "psnr_hvs_cuda", &vmaf_fex_psnr_hvs },
#endif
    { NULL, NULL },
};

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

static bool listed(const char *const *list, const char *name)
{
    for (; list && *list; list++)
        if (!strcmp(*list, name))
            return true;
    return false;
}

const VmafFeatureExtractor *vmaf_registry_find_by_feature(const char *feature)
{
    if (!feature)
        return NULL;
    for (size_t i = 0; i < TABLE_LEN; i++)
        if (table[i]->backend == VMAF_FEX_BACKEND_CPU && listed(table[i]->provided_features, feature))
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
        if (table[i]->backend == backend && table[i]->twin_of == cpu)
            return table[i];
    return NULL;
}

const VmafFeatureExtractor *vmaf_registry_cpu_of(const VmafFeatureExtractor *fex)
{
    if (!fex || fex->backend == VMAF_FEX_BACKEND_CPU)
        return fex;
    return fex->twin_of;
}

const VmafFeatureExtractor *vmaf_registry_absent_twin(const char *name)
{
    for (size_t i = 0; name && absent[i].name; i++)
        if (!strcmp(absent[i].name, name))
            return absent[i].cpu;
    return NULL;
}

int vmaf_feature_extractor_info(const char *name, const char **cpu_name)
{
    if (!name)
        return -EINVAL;
    const VmafFeatureExtractor *fex = vmaf_registry_find_by_name(name);
    const VmafFeatureExtractor *cpu = fex ? vmaf_registry_cpu_of(fex)
                                          : vmaf_registry_absent_twin(name);
    if (!cpu)
        return -ENOENT;
    if (cpu_name)
        *cpu_name = cpu->name;
    return fex ? 0 : -ENODEV;
}

static bool in_table(const VmafFeatureExtractor *const *t, size_t n,
                     const VmafFeatureExtractor *f)
{
    for (size_t i = 0; i < n; i++)
        if (t[i] == f)
            return true;
    return false;
}

/* One entry alone: what it must have for its backend. */
static int validate_entry(const VmafFeatureExtractor *const *t, size_t n, size_t i)
{
    const VmafFeatureExtractor *f = t[i];
    if (!f->name || !f->init || !f->close) {
        vmaf_error("registry: entry %zu lacks a name, init or close", i);
        return 1;
    }
    if (f->backend == VMAF_FEX_BACKEND_CPU) {
        int bad = 0;
        if (!f->extract || f->twin_of || !f->provided_features || !f->provided_features[0]) {
            vmaf_error("registry: CPU extractor %s needs extract, features and no twin link",
                       f->name);
            bad = 1;
        }
        for (const char *const *p = f->flushed_features; p && *p; p++)
            if (!listed(f->provided_features, *p)) {
                vmaf_error("registry: %s flushes %s, which it does not provide", f->name, *p);
                bad = 1;
            }
        return bad;
    }
    int bad = 0;
    if (!f->reserve || !f->submit || !f->collect || !f->check_context) {
        vmaf_error("registry: twin %s needs reserve, submit, collect and check_context",
                   f->name);
        bad = 1;
    }
    /* Its options and features are its CPU extractor's: one table, which
     * both private structs begin with, so that they cannot drift apart. */
    if (f->options || f->provided_features || f->flushed_features) {
        vmaf_error("registry: twin %s lists options or features of its own; a twin has its "
                   "CPU extractor's", f->name);
        bad = 1;
    }
    if (!f->twin_of || f->twin_of->backend != VMAF_FEX_BACKEND_CPU ||
        !in_table(t, n, f->twin_of)) {
        vmaf_error("registry: twin %s names no CPU extractor of the table (%s)", f->name,
                   f->twin_of && f->twin_of->name ? f->twin_of->name : "none");
        bad = 1;
    }
    return bad;
}

int vmaf_registry_validate_table(const VmafFeatureExtractor *const *t, size_t n)
{
    int bad = 0;
    for (size_t i = 0; i < n; i++) {
        const VmafFeatureExtractor *f = t[i];
        if (validate_entry(t, n, i)) {
            bad = 1;
            if (!f->name)
                continue;
        }
        for (size_t j = 0; j < i; j++) {
            const VmafFeatureExtractor *g = t[j];
            /* g may be an entry already reported for lacking a name. */
            if (f == g || (g->name && !strcmp(f->name, g->name))) {
                vmaf_error("registry: extractor %s is listed twice", f->name);
                bad = 1;
            }
            if (f->backend == g->backend && f->backend != VMAF_FEX_BACKEND_CPU &&
                f->twin_of && f->twin_of == g->twin_of) {
                vmaf_error("registry: %s and %s are both twins of %s", f->name, g->name,
                           f->twin_of->name ? f->twin_of->name : "?");
                bad = 1;
            }
            if (f->backend == VMAF_FEX_BACKEND_CPU && g->backend == VMAF_FEX_BACKEND_CPU)
                for (const char *const *p = f->provided_features; p && *p; p++)
                    if (listed(g->provided_features, *p)) {
                        vmaf_error("registry: feature %s is provided by %s and %s", *p,
                                   g->name, f->name);
                        bad = 1;
                    }
        }
    }
    return bad ? -EINVAL : 0;
}

/* A compiled-out twin stands for a CPU extractor of the table and shares
 * no name with an extractor that is there. */
static int validate_absent(void)
{
    int bad = 0;
    for (size_t i = 0; absent[i].name; i++) {
        const VmafFeatureExtractor *cpu = absent[i].cpu;
        if (vmaf_registry_find_by_name(absent[i].name) || !cpu ||
            cpu->backend != VMAF_FEX_BACKEND_CPU || !in_table(table, TABLE_LEN, cpu)) {
            vmaf_error("registry: compiled-out twin %s is in the table, or names no CPU "
                       "extractor of it", absent[i].name);
            bad = 1;
        }
    }
    return bad ? -EINVAL : 0;
}

int vmaf_registry_validate(void)
{
    const int err = vmaf_registry_validate_table(table, TABLE_LEN);
    return validate_absent() ? -EINVAL : err;
}
