/*
 * Requests: features asked for by name (vmaf_use_feature), merged with
 * earlier requests of the same extractor or kept apart when their options
 * name the scores differently; imported scores; which names a request
 * stores, at which frames.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libvmaf/libvmaf.h"

#include "context.h"
#include "log.h"
#include "registry.h"

static void list_features(char *buf, size_t len)
{
    size_t n = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < vmaf_registry_count() && n < len; i++) {
        const VmafFeatureExtractor *f = vmaf_registry_at(i);
        n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? ", " : "", f->name);
    }
}

/* Options are checked against the CPU extractor's table (its twins have
 * it too) as soon as they are given, so a typo fails before any frame is
 * read; the part of the score names they make is kept in suffix. */
static int check_options(const VmafFeatureExtractor *fex, const VmafFeatureDictionary *opts,
                         char suffix[VMAF_FEX_NAME_SUFFIX_MAX])
{
    void *priv = calloc(1, fex->priv_size ? fex->priv_size : 1);
    if (!priv) {
        vmaf_error("%s: out of memory checking options", fex->name);
        return -ENOMEM;
    }
    int err = vmaf_fex_parse_options(fex, priv, opts);
    if (!err)
        vmaf_fex_warn_inert_options(fex, priv);
    if (!err && vmaf_fex_name_suffix(fex, priv, suffix, VMAF_FEX_NAME_SUFFIX_MAX)) {
        vmaf_error("%s: these options make score names longer than %d characters; set "
                   "fewer of them away from their defaults", fex->name,
                   VMAF_FEX_NAME_SUFFIX_MAX - 1);
        err = -EINVAL;
    }
    free(priv);
    return err;
}

/* Ownership of opts follows libvmaf v3, whose callers free the dictionary
 * themselves when the call fails before the extractor is found: those
 * failures (NULL arguments, features already fixed, an unknown name, a twin
 * this build was compiled without) return without touching opts, as
 * freeing it would make those callers free it twice. Once the extractor is
 * found opts is consumed whatever happens next, as v3 consumes it right
 * after its lookup. */
/* The extractor a name means: an extractor's name, or a feature's. */
static const VmafFeatureExtractor *find_extractor(const char *name, bool *by_feature)
{
    const VmafFeatureExtractor *fex = vmaf_registry_find_by_name(name);
    *by_feature = !fex;
    if (!fex)
        fex = vmaf_registry_find_by_feature(name);
    if (!fex) {
        char names[512];
        list_features(names, sizeof(names));
        vmaf_error("unknown feature '%s' (available extractors: %s)", name, names);
    }
    return fex;
}

/* Asking for an output that an option switches on (float_ssim_l needs
 * enable_lcs) turns that option on. */
static int enable_output(const VmafFeatureExtractor *cpu, const char *feature,
                         VmafFeatureDictionary **opts)
{
    for (const VmafOption *o = vmaf_fex_options(cpu); o && o->name; o++) {
        if (!vmaf_fex_option_enables(o, feature))
            continue;
        const char *v = vmaf_dict_get(*opts, o->name);
        if (v && strcmp(v, "true")) {
            vmaf_error("feature %s needs %s=true (it is an output of %s only with that option)",
                       feature, o->name, cpu->name);
            return -EINVAL;
        }
        int err = v ? 0 : vmaf_feature_dictionary_set(opts, o->name, "true");
        if (err)
            return err;
    }
    return 0;
}

/* One instance serves every request of an extractor with the same score
 * names (two models, a model and --feature): other options must agree,
 * except those that only add outputs, which are switched on for all.
 * Options that name the scores differently make another instance (VMAF
 * and NEG ask adm for two gain limits). 1 when opts went into an earlier
 * request (and were freed), 0 when none takes them, or an error. */
static int merge_request(VmafContext *vmaf, const VmafFeatureExtractor *cpu,
                         const VmafFeatureExtractor *pin, VmafFeatureDictionary **opts)
{
    for (unsigned i = 0; i < vmaf->req_cnt; i++) {
        VmafFeatureRequest *r = &vmaf->req[i];
        if (r->cpu != cpu)
            continue;
        VmafFeatureDictionary *merged = NULL;
        const char *conflict;
        int err = vmaf_fex_merge_options(cpu, r->opts, *opts, &merged, &conflict);
        if (err == -EEXIST)
            continue;
        if (conflict)
            vmaf_error("%s is requested twice with different values of %s; request it once, "
                       "or with the same %s", cpu->name, conflict, conflict);
        if (!err && pin && r->use && r->use != pin) {
            vmaf_error("feature %s is requested on two backends (%s and %s); request one",
                       cpu->name, r->use->name, pin->name);
            vmaf_feature_dictionary_free(&merged);
            err = -EINVAL;
        }
        if (err)
            return err;
        vmaf_feature_dictionary_free(&r->opts);
        r->opts = merged;
        if (pin)
            r->use = pin;
        vmaf_feature_dictionary_free(opts);
        return 1;
    }
    return 0;
}

static int add_request(VmafContext *vmaf, const VmafFeatureExtractor *cpu,
                       const VmafFeatureExtractor *pin, VmafFeatureDictionary *opts,
                       const char *suffix, const char *feature)
{
    if (vmaf->req_cnt == vmaf->req_cap) {
        unsigned cap = vmaf->req_cap ? vmaf->req_cap * 2 : 4;
        VmafFeatureRequest *req = realloc(vmaf->req, cap * sizeof(*req));
        if (!req) {
            vmaf_error("feature %s: out of memory", feature);
            return -ENOMEM;
        }
        vmaf->req = req;
        vmaf->req_cap = cap;
    }
    VmafFeatureRequest *r = &vmaf->req[vmaf->req_cnt++];
    memset(r, 0, sizeof(*r));
    r->cpu = cpu;
    r->opts = opts;
    r->use = pin;
    memcpy(r->name_suffix, suffix, sizeof(r->name_suffix));
    return 0;
}

int vmaf_use_feature(VmafContext *vmaf, const char *feature_name, VmafFeatureDictionary *opts)
{
    if (!vmaf || !feature_name) {
        vmaf_error("vmaf_use_feature: the context and the feature name must not be NULL");
        return -EINVAL;
    }
    if (vmaf->started || vmaf->flushed) {
        vmaf_error("feature %s: features must be chosen before the first picture is read%s",
                   feature_name, vmaf->started ? "" : " (this context was flushed)");
        return -EINVAL;
    }
    const VmafFeatureExtractor *absent = vmaf_registry_absent_twin(feature_name);
    if (absent) {
        vmaf_error("%s needs a GPU, and this build of libvmaf has no CUDA support; ask for "
                   "the CPU feature %s, or rebuild libvmaf with -Dcuda=enabled", feature_name,
                   absent->name);
        return -ENODEV;
    }
    bool by_feature;
    const VmafFeatureExtractor *fex = find_extractor(feature_name, &by_feature);
    if (!fex)
        return -EINVAL;
    const VmafFeatureExtractor *cpu = vmaf_registry_cpu_of(fex);
    /* Naming a twin directly ("float_ssim_cuda") pins that backend. */
    const VmafFeatureExtractor *pin = fex != cpu ? fex : NULL;
    char suffix[VMAF_FEX_NAME_SUFFIX_MAX];
    int err = by_feature ? enable_output(cpu, feature_name, &opts) : 0;
    if (!err)
        err = check_options(cpu, opts, suffix);
    if (!err)
        err = merge_request(vmaf, cpu, pin, &opts);
    if (err == 1)
        return 0;
    if (!err)
        err = add_request(vmaf, cpu, pin, opts, suffix, feature_name);
    if (err)
        vmaf_feature_dictionary_free(&opts);
    return err;
}

/* Whether the request's extractor writes provided feature `base` with the
 * request's options (an output behind an option only with that option on). */
bool vmaf_request_emits_base(const VmafFeatureRequest *r, const char *base)
{
    for (const VmafOption *o = vmaf_fex_options(r->cpu); o && o->name; o++) {
        if (!vmaf_fex_option_enables(o, base))
            continue;
        const char *v = vmaf_dict_get(r->opts, o->name);
        if (!(v ? !strcmp(v, "true") : o->def.b))
            return false;
    }
    return true;
}

/* The name it stores provided feature `base` under. */
void vmaf_request_score_name(const VmafFeatureRequest *r, const char *base, char *buf, size_t len)
{
    snprintf(buf, len, "%s%s", base, r->name_suffix);
}

/* Whether the request's extractor stores scores under the name `feature`. */
static bool emits(const VmafFeatureRequest *r, const char *feature)
{
    for (const char *const *p = r->cpu->provided_features; p && *p; p++) {
        char name[512];
        vmaf_request_score_name(r, *p, name, sizeof(name));
        if (!strcmp(name, feature))
            return vmaf_request_emits_base(r, *p);
    }
    return false;
}

bool vmaf_context_extracted_at(const VmafContext *vmaf, unsigned index)
{
    return vmaf->cfg.n_subsample <= 1 || !(index % vmaf->cfg.n_subsample);
}

/* Temporal extractors see every frame; the others only those that
 * n_subsample keeps. */
bool vmaf_context_sees_frame(const VmafContext *vmaf, const VmafFeatureExtractor *cpu, unsigned index)
{
    return vmaf_fex_sees_every_frame(cpu) || vmaf_context_extracted_at(vmaf, index);
}

/* The extractor that stores `feature` at frame `index`, or NULL. */
static const VmafFeatureExtractor *writer_of(const VmafContext *vmaf, const char *feature,
                                             unsigned index)
{
    for (unsigned i = 0; i < vmaf->req_cnt; i++)
        if (vmaf_context_sees_frame(vmaf, vmaf->req[i].cpu, index) && emits(&vmaf->req[i], feature))
            return vmaf->req[i].cpu;
    return NULL;
}

int vmaf_import_feature_score(VmafContext *vmaf, const char *feature_name, double value,
                              unsigned index)
{
    if (!vmaf || !feature_name) {
        vmaf_error("vmaf_import_feature_score: the context and the feature name must not be "
                   "NULL");
        return -EINVAL;
    }
    if (!*feature_name) {
        /* It would be a nameless key in JSON and a nameless CSV column. */
        vmaf_error("vmaf_import_feature_score: the feature name is empty; give it a name");
        return -EINVAL;
    }
    /* The collector refuses such an index with the same -EINVAL as a score
     * given twice: tell the two apart here. */
    if (index >= VMAF_FEATURE_COLLECTOR_MAX_INDEX) {
        vmaf_error("feature %s: frame index %u is too large; indices must be below %u",
                   feature_name, index, VMAF_FEATURE_COLLECTOR_MAX_INDEX);
        return -EINVAL;
    }
    /* A frame already read will get (or has) this score from its extractor.
     * Refused here even while a worker thread still scores that frame, so
     * that the outcome does not depend on which store comes first and the
     * worker's store cannot fail and stop the context. */
    const VmafFeatureExtractor *writer;
    if (vmaf_feature_collector_was_read(vmaf->fc, index) &&
        (writer = writer_of(vmaf, feature_name, index))) {
        vmaf_error("feature %s: frame %u was read and %s scores it; import scores only for "
                   "features no requested extractor computes, or for frames not read",
                   feature_name, index, writer->name);
        return -EINVAL;
    }
    int err = vmaf_feature_collector_append(vmaf->fc, feature_name, value, index);
    if (err == -EINVAL)
        vmaf_error("feature %s already has a score at frame %u", feature_name, index);
    else if (err == -ENOMEM)
        vmaf_error("feature %s: out of memory storing the score of frame %u", feature_name,
                   index);
    return err;
}

void vmaf_request_close(VmafFeatureRequest *r)
{
    free(r->parsed);
    r->parsed = NULL;
    for (unsigned k = 0; k < r->n_inst; k++) {
        VmafFex *f = &r->inst[k];
        if (f->fex && f->fex->close)
            f->fex->close(f);
        free(f->priv);
    }
    free(r->inst);
    free(r->inst_busy);
    r->inst = NULL;
    r->inst_busy = NULL;
    r->n_inst = 0;
}

bool vmaf_request_reads_chroma(const VmafFeatureRequest *r)
{
    const VmafFeatureExtractor *cpu = r->cpu;
    if (!(cpu->flags & VMAF_FEX_FLAG_CHROMA))
        return false;
    if (!cpu->reads_chroma)
        return true;
    /* The options were checked when the feature was asked for. */
    void *priv = calloc(1, cpu->priv_size ? cpu->priv_size : 1);
    const bool reads = !priv || vmaf_fex_parse_options(cpu, priv, r->opts) ||
                       cpu->reads_chroma(priv);
    free(priv);
    return reads;
}

int vmaf_chroma_in_use(VmafContext *vmaf)
{
    if (!vmaf)
        return -EINVAL;
    for (unsigned i = 0; i < vmaf->req_cnt; i++)
        if (vmaf_request_reads_chroma(&vmaf->req[i]))
            return 1;
    return 0;
}
