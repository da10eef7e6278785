/*
 * The scoring context: features requested by name, resolved to a backend
 * when the first picture pair fixes the geometry, fed frame by frame (in the
 * caller's thread, on worker threads, or submitted to a device), and their
 * scores kept in the feature collector for pooling and reports.
 */
#include <errno.h>
#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libvmaf/libvmaf.h"
#include "libvmaf/libvmaf_cuda.h"

#include "config.h"
#include "context.h"
#include "cpu.h"
#include "cuda/cuda_internal.h"
#include "log.h"
#include "picture_internal.h"
#include "picture_pool.h"
#include "registry.h"
#include "row_copy.h"
#include "thread_pool.h"

const char *vmaf_version(void)
{
    return VMAF_VERSION;
}

void vmaf_context_set_error(VmafContext *vmaf, int err)
{
    pthread_mutex_lock(&vmaf->lock);
    if (!vmaf->err)
        vmaf->err = err;
    pthread_mutex_unlock(&vmaf->lock);
}

static int sticky_error(VmafContext *vmaf)
{
    pthread_mutex_lock(&vmaf->lock);
    int err = vmaf->err;
    pthread_mutex_unlock(&vmaf->lock);
    return err;
}

/* A call returns err to the caller: if it is the context's stopping
 * failure, the caller now knows it, and later calls say they are refused. */
static int handed_back(VmafContext *vmaf, int err)
{
    if (err) {
        pthread_mutex_lock(&vmaf->lock);
        if (vmaf->err == err)
            vmaf->err_told = true;
        pthread_mutex_unlock(&vmaf->lock);
    }
    return err;
}

/* The sticky error, for a call that fails because of it. Its reason was
 * logged where it happened (perhaps on a worker thread), and the first call
 * to hand it back adds nothing; each later one says why it is refused, so
 * that a caller who kept going still gets a line for every failed call. */
static int refuse_if_failed(VmafContext *vmaf, const char *call)
{
    pthread_mutex_lock(&vmaf->lock);
    const int err = vmaf->err;
    const bool told = vmaf->err_told;
    vmaf->err_told = err != 0;
    pthread_mutex_unlock(&vmaf->lock);
    if (err && told)
        vmaf_error("%s: refused, the context stopped at an earlier failure (error %d, "
                   "logged then); close it, and use a new context to go on", call, err);
    return err;
}

/* Contexts alive: when the last one closes, the picture blocks kept for
 * reuse are freed. */
static atomic_uint live_contexts;
static atomic_ullong context_serials;

unsigned long long vmaf_context_serial(const VmafContext *vmaf)
{
    return vmaf->serial;
}

int vmaf_init(VmafContext **out, VmafConfiguration cfg)
{
    if (!out) {
        vmaf_error("vmaf_init: the context pointer is NULL");
        return -EINVAL;
    }
    *out = NULL;
    if ((unsigned)cfg.log_level > VMAF_LOG_LEVEL_DEBUG) {
        vmaf_error("vmaf_init: log level %d is out of range 0..4", (int)cfg.log_level);
        return -EINVAL;
    }
    vmaf_log_set_level(cfg.log_level);
    /* More workers than frames in flight could use only cost memory; a
     * consumer passing a large count through (FFmpeg takes any int) still
     * gets a context, as with libvmaf. */
    if (cfg.n_threads > 1024) {
        vmaf_warning("vmaf_init: %u threads requested; using 1024, the most supported",
                     cfg.n_threads);
        cfg.n_threads = 1024;
    }
    vmaf_cpu_set_disabled(cfg.cpumask);
    VmafContext *vmaf = calloc(1, sizeof(*vmaf));
    if (!vmaf) {
        vmaf_error("vmaf_init: out of memory");
        return -ENOMEM;
    }
    vmaf->cfg = cfg;
    vmaf->serial = atomic_fetch_add(&context_serials, 1) + 1;
    int err = vmaf_feature_collector_init(&vmaf->fc);
    if (err) {
        vmaf_error("vmaf_init: out of memory");
        free(vmaf);
        return err;
    }
    pthread_mutex_init(&vmaf->lock, NULL);
    pthread_cond_init(&vmaf->inst_free, NULL);
    atomic_fetch_add(&live_contexts, 1); /* vmaf_close() takes it off */
    if (cfg.n_threads > 0) {
        err = vmaf_thread_pool_create(&vmaf->pool, cfg.n_threads, 2 * cfg.n_threads);
        if (err) {
            vmaf_error("vmaf_init: could not start %u worker threads; ask for fewer, or for 0 "
                       "to score in the calling thread", cfg.n_threads);
            vmaf_close(vmaf);
            return err;
        }
    }
    *out = vmaf;
    return 0;
}

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
 * failures (NULL arguments, features already fixed, an unknown name) return
 * without touching opts, as freeing it would make those callers free it
 * twice. Once the extractor is found opts is consumed whatever happens next,
 * as v3 consumes it right after its lookup. */
int vmaf_use_feature(VmafContext *vmaf, const char *feature_name, VmafFeatureDictionary *opts)
{
    int err = 0;
    if (!vmaf || !feature_name) {
        vmaf_error("vmaf_use_feature: the context and the feature name must not be NULL");
        return -EINVAL;
    }
    if (vmaf->started || vmaf->flushed) {
        vmaf_error("feature %s: features must be chosen before the first picture is read%s",
                   feature_name, vmaf->started ? "" : " (this context was flushed)");
        return -EINVAL;
    }
    const VmafFeatureExtractor *fex = vmaf_registry_find_by_name(feature_name);
    const bool by_feature = !fex;
    if (!fex)
        fex = vmaf_registry_find_by_feature(feature_name);
    if (!fex) {
        char names[512];
        list_features(names, sizeof(names));
        vmaf_error("unknown feature '%s' (available extractors: %s)", feature_name, names);
        return -EINVAL;
    }
    const VmafFeatureExtractor *cpu = vmaf_registry_cpu_of(fex);
    /* Asking for an output that an option switches on (float_ssim_l needs
     * enable_lcs) turns that option on. */
    const VmafOption *enabling = by_feature ? vmaf_fex_option_enabling(cpu, feature_name) : NULL;
    if (enabling) {
        const char *v = vmaf_dict_get(opts, enabling->name);
        if (v && strcmp(v, "true")) {
            vmaf_error("feature %s needs %s=true (it is an output of %s only with that option)",
                       feature_name, enabling->name, cpu->name);
            err = -EINVAL;
            goto fail;
        }
        if (!v && (err = vmaf_feature_dictionary_set(&opts, enabling->name, "true")))
            goto fail;
    }
    char suffix[VMAF_FEX_NAME_SUFFIX_MAX];
    err = check_options(cpu, opts, suffix);
    if (err)
        goto fail;

    /* Naming a twin directly ("float_ssim_cuda") pins that backend. */
    const VmafFeatureExtractor *pin = fex != cpu ? fex : NULL;
    for (unsigned i = 0; i < vmaf->req_cnt; i++) {
        VmafFeatureRequest *r = &vmaf->req[i];
        if (r->cpu != cpu)
            continue;
        /* One instance serves every request of it with the same score
         * names (two models, a model and --feature): other options must
         * agree, except those that only add outputs, which are switched on
         * for all. Options that name the scores differently make another
         * instance (VMAF and NEG ask adm for two gain limits). */
        VmafFeatureDictionary *merged = NULL;
        const char *conflict;
        err = vmaf_fex_merge_options(cpu, r->opts, opts, &merged, &conflict);
        if (err == -EEXIST) {
            err = 0;
            continue;
        }
        if (conflict)
            vmaf_error("%s is requested twice with different values of %s; request it once, "
                       "or with the same %s", cpu->name, conflict, conflict);
        if (err)
            goto fail;
        if (pin && r->use && r->use != pin) {
            vmaf_error("feature %s is requested on two backends (%s and %s); request one",
                       cpu->name, r->use->name, pin->name);
            vmaf_feature_dictionary_free(&merged);
            err = -EINVAL;
            goto fail;
        }
        vmaf_feature_dictionary_free(&r->opts);
        r->opts = merged;
        if (pin)
            r->use = pin;
        vmaf_feature_dictionary_free(&opts);
        return 0;
    }
    if (vmaf->req_cnt == vmaf->req_cap) {
        unsigned cap = vmaf->req_cap ? vmaf->req_cap * 2 : 4;
        VmafFeatureRequest *req = realloc(vmaf->req, cap * sizeof(*req));
        if (!req) {
            vmaf_error("feature %s: out of memory", feature_name);
            err = -ENOMEM;
            goto fail;
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

fail:
    vmaf_feature_dictionary_free(&opts);
    return err;
}

/* Whether the request's extractor writes provided feature `base` with the
 * request's options (an output behind an option only with that option on). */
static bool emits_base(const VmafFeatureRequest *r, const char *base)
{
    const VmafOption *o = vmaf_fex_option_enabling(r->cpu, base);
    const char *v = o ? vmaf_dict_get(r->opts, o->name) : NULL;
    return !o || (v ? !strcmp(v, "true") : o->def.b);
}

/* The name it stores provided feature `base` under. */
static void score_name(const VmafFeatureRequest *r, const char *base, char *buf, size_t len)
{
    snprintf(buf, len, "%s%s", base, r->name_suffix);
}

/* Whether the request's extractor stores scores under the name `feature`. */
static bool emits(const VmafFeatureRequest *r, const char *feature)
{
    for (const char *const *p = r->cpu->provided_features; p && *p; p++) {
        char name[512];
        score_name(r, *p, name, sizeof(name));
        if (!strcmp(name, feature))
            return emits_base(r, *p);
    }
    return false;
}

static bool extracted_at(const VmafContext *vmaf, unsigned index)
{
    return vmaf->cfg.n_subsample <= 1 || !(index % vmaf->cfg.n_subsample);
}

/* Temporal extractors see every frame; the others only those that
 * n_subsample keeps. */
static bool sees_frame(const VmafContext *vmaf, const VmafFeatureExtractor *cpu, unsigned index)
{
    return (cpu->flags & VMAF_FEX_FLAG_PREV_REF) || extracted_at(vmaf, index);
}

/* The extractor that stores `feature` at frame `index`, or NULL. */
static const VmafFeatureExtractor *writer_of(const VmafContext *vmaf, const char *feature,
                                             unsigned index)
{
    for (unsigned i = 0; i < vmaf->req_cnt; i++)
        if (sees_frame(vmaf, vmaf->req[i].cpu, index) && emits(&vmaf->req[i], feature))
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

static void close_request(VmafFeatureRequest *r)
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

/* Picks CPU or twin for one request now that the geometry is known. */
static int choose_backend(VmafContext *vmaf, VmafFeatureRequest *r)
{
    const bool gpu = vmaf->cuda && !vmaf->cfg.gpumask;
    if (r->use) { /* pinned to a twin by name */
        if (!gpu) {
            if (vmaf->cuda)
                vmaf_error("%s needs the GPU, and this context's gpumask keeps every feature "
                           "on the CPU: clear gpumask or use %s", r->use->name, r->cpu->name);
            else
                vmaf_error("%s needs a GPU: import CUDA state (vmaf_cuda_import_state) or use "
                           "%s", r->use->name, r->cpu->name);
            return -ENODEV;
        }
        return 0;
    }
    r->use = r->cpu;
    const VmafFeatureExtractor *twin = gpu ? vmaf_registry_twin(r->cpu, VMAF_FEX_BACKEND_CUDA) : NULL;
    if (!twin)
        return 0;
    void *priv = calloc(1, twin->priv_size ? twin->priv_size : 1);
    if (!priv) {
        vmaf_error("%s: out of memory", twin->name);
        return -ENOMEM;
    }
    int err = vmaf_fex_parse_options(twin, priv, r->opts);
    char why[256] = "";
    if (!err && !twin->check_context(priv, vmaf->w, vmaf->h, vmaf->bpc, why, sizeof(why)))
        r->use = twin;
    else if (!err)
        vmaf_warning("%s cannot compute this input exactly (%s); using the CPU extractor %s",
                     twin->name, why, r->cpu->name);
    free(priv);
    return err;
}

/* Every score name the requests will store, in report order: the
 * per-frame outputs of each request in turn, then those stored at the
 * flush, each extractor's in the order it lists them. The reference's
 * reports read so, whichever worker stores first. */
static int declare_features(VmafContext *vmaf)
{
    for (int flushed = 0; flushed < 2; flushed++) {
        for (unsigned i = 0; i < vmaf->req_cnt; i++) {
            const VmafFeatureRequest *r = &vmaf->req[i];
            for (const char *const *p = r->cpu->provided_features; p && *p; p++) {
                if (vmaf_fex_is_flushed_feature(r->cpu, *p) != flushed || !emits_base(r, *p))
                    continue;
                char name[512];
                score_name(r, *p, name, sizeof(name));
                if (vmaf_feature_collector_declare(vmaf->fc, name)) {
                    vmaf_error("out of memory starting the extractors");
                    return -ENOMEM;
                }
            }
        }
    }
    return 0;
}

/* Requests of one CPU extractor whose option sets it computes in one pass
 * (shares_pass: VMAF's and NEG's gain limits) become followers of the
 * first: its instances compute theirs too. */
static int group_shared_passes(VmafContext *vmaf)
{
    for (unsigned i = 0; i < vmaf->req_cnt; i++) {
        VmafFeatureRequest *r = &vmaf->req[i];
        if (r->use->backend != VMAF_FEX_BACKEND_CPU || !r->cpu->shares_pass)
            continue;
        r->parsed = calloc(1, r->cpu->priv_size);
        if (!r->parsed) {
            vmaf_error("%s: out of memory starting the extractor", r->cpu->name);
            return -ENOMEM;
        }
        int err = vmaf_fex_parse_options(r->cpu, r->parsed, r->opts);
        if (err)
            return err;
        for (unsigned j = 0; j < i && !r->follows; j++) {
            VmafFeatureRequest *q = &vmaf->req[j];
            unsigned n = 1;
            for (unsigned k = j + 1; k < i; k++)
                n += vmaf->req[k].follows && vmaf->req[k].leader == j;
            if (q->cpu != r->cpu || q->use != r->use || q->follows || !q->parsed ||
                n == VMAF_FEX_MAX_VARIANTS || !r->cpu->shares_pass(q->parsed, r->parsed))
                continue;
            r->follows = true;
            r->leader = j;
        }
    }
    return 0;
}

/* The option sets an instance of request r computes: its own, then its
 * followers'. */
static void set_variants(const VmafContext *vmaf, const VmafFeatureRequest *r, VmafFex *f)
{
    f->n_variants = 1;
    f->variant[0] = f->priv;
    f->variant_suffix[0] = f->name_suffix;
    for (unsigned k = 0; k < vmaf->req_cnt; k++) {
        const VmafFeatureRequest *q = &vmaf->req[k];
        if (!q->follows || &vmaf->req[q->leader] != r)
            continue;
        f->variant[f->n_variants] = q->parsed;
        f->variant_suffix[f->n_variants++] = q->name_suffix;
    }
}

/* Instance k of request r: options, geometry, variants, init. */
static int start_instance(VmafContext *vmaf, VmafFeatureRequest *r, VmafFex *f, unsigned index)
{
    f->priv = calloc(1, r->use->priv_size ? r->use->priv_size : 1);
    if (!f->priv) {
        vmaf_error("%s: out of memory starting the extractor", r->use->name);
        return -ENOMEM;
    }
    int err = vmaf_fex_parse_options(r->use, f->priv, r->opts);
    f->bpc = vmaf->bpc;
    f->w = vmaf->w;
    f->h = vmaf->h;
    f->first_index = index;
    memcpy(f->name_suffix, r->name_suffix, sizeof(f->name_suffix));
    set_variants(vmaf, r, f);
    const bool device = r->use->backend != VMAF_FEX_BACKEND_CPU;
    f->cuda = device ? vmaf->cuda : NULL;
    f->frames = device ? vmaf->cuda_frames : NULL;
    if (!err)
        err = r->use->init(f);
    if (err) {
        free(f->priv);
        f->priv = NULL;
        return err;
    }
    f->fex = r->use;
    return 0;
}

/* The instances of one request: one per worker for a frame-parallel CPU
 * extractor, else one. */
static int start_request(VmafContext *vmaf, VmafFeatureRequest *r, unsigned index)
{
    const bool parallel = r->use->backend == VMAF_FEX_BACKEND_CPU && vmaf->pool &&
                          (r->use->flags & VMAF_FEX_FLAG_FRAME_PARALLEL);
    const unsigned n = parallel ? vmaf->cfg.n_threads : 1;
    r->inst = calloc(n, sizeof(*r->inst));
    r->inst_busy = calloc(n, sizeof(*r->inst_busy));
    if (!r->inst || !r->inst_busy) {
        vmaf_error("%s: out of memory starting the extractor", r->use->name);
        return -ENOMEM;
    }
    for (unsigned k = 0; k < n; k++) {
        int err = start_instance(vmaf, r, &r->inst[k], index);
        if (err)
            return err;
        r->n_inst = k + 1;
    }
    vmaf_info("%s runs as %s%s%s", r->cpu->name, r->use->name,
              n > 1 ? " on worker threads" : "",
              r->inst[0].n_variants > 1 ? ", with the scores of other requests in one pass"
                                        : "");
    if (r->use->backend == VMAF_FEX_BACKEND_CPU && (r->cpu->flags & VMAF_FEX_FLAG_PREV_REF))
        vmaf->keep_prev_ref = true;
    return 0;
}

/* At the first frame, `index`: the geometry is known, the extractors start. */
static int start(VmafContext *vmaf, const VmafPicture *ref, unsigned index)
{
    vmaf->pix_fmt = ref->pix_fmt;
    vmaf->bpc = ref->bpc;
    vmaf->w = ref->w[0];
    vmaf->h = ref->h[0];
    clock_gettime(CLOCK_MONOTONIC, &vmaf->t_start);
    vmaf->started = true;
    if (!vmaf->req_cnt)
        vmaf_warning("no feature or model was requested before the first picture: pictures "
                     "read into this context are not scored; request them with "
                     "vmaf_use_feature() or vmaf_use_features_from_model() first");

    /* Device extractors read every frame from one set of device planes,
     * uploaded once for all of them. */
    char who[128] = "";
    unsigned users = 0;
    for (unsigned i = 0; i < vmaf->req_cnt; i++) {
        VmafFeatureRequest *r = &vmaf->req[i];
        int err = choose_backend(vmaf, r);
        if (err)
            return err;
        if (r->use->backend != VMAF_FEX_BACKEND_CPU) {
            const size_t len = strlen(who);
            snprintf(who + len, sizeof(who) - len, "%s%s", users ? ", " : "", r->use->name);
            users++;
        }
    }
    if (users) {
        int err = vmaf_cuda_frames_init(&vmaf->cuda_frames, vmaf->cuda, vmaf->w, vmaf->h,
                                        vmaf->bpc, users, who, index);
        if (err)
            return err;
    }
    int err = group_shared_passes(vmaf);
    for (unsigned i = 0; !err && i < vmaf->req_cnt; i++)
        if (!vmaf->req[i].follows)
            err = start_request(vmaf, &vmaf->req[i], index);
    if (err)
        return err;
    return declare_features(vmaf);
}

static int check_pictures(VmafContext *vmaf, const VmafPicture *ref, const VmafPicture *dist,
                          unsigned index)
{
    const VmafPicture *p[2] = { ref, dist };
    static const char *const which[2] = { "reference", "distorted" };
    for (int i = 0; i < 2; i++) {
        if (!p[i]->ref || !p[i]->data[0] || !p[i]->w[0] || !p[i]->h[0] ||
            !vmaf_bpc_supported(p[i]->bpc) ||
            p[i]->pix_fmt == VMAF_PIX_FMT_UNKNOWN || p[i]->pix_fmt > VMAF_PIX_FMT_YUV400P) {
            vmaf_error("frame %u: the %s picture is not a valid allocated picture; allocate "
                       "it with vmaf_picture_alloc() (8, 10, 12 or 16 bits, a YUV format)",
                       index, which[i]);
            return -EINVAL;
        }
    }
    for (int i = 0; i < 2; i++) {
        /* A caller who changed a picture's size, depth or stride after
         * vmaf_picture_alloc() would have the extractors read past its
         * block: the luma plane must lie inside the memory it was given. */
        const VmafPicturePriv *priv = p[i]->priv;
        const size_t row = (size_t)p[i]->w[0] * (p[i]->bpc > 8 ? 2 : 1);
        const ptrdiff_t sd = p[i]->stride[0];
        const size_t stride = sd == PTRDIFF_MIN ? 0 : (size_t)(sd < 0 ? -sd : sd);
        bool fits = stride >= row && stride > 0;
        if (fits && priv) {
            /* In integers, and without overflow: a bad picture's rows may
             * point anywhere (for a device picture, anywhere on the device,
             * where the kernels would fault). */
            const uintptr_t lo = (uintptr_t)priv->block, hi = lo + priv->size;
            const uintptr_t at = (uintptr_t)p[i]->data[0];
            unsigned long long span;
            const bool down = sd < 0; /* rows run towards lower addresses */
            fits = !__builtin_mul_overflow((unsigned long long)(p[i]->h[0] - 1),
                                           (unsigned long long)stride, &span) &&
                   at >= lo && at < hi && row <= hi - lo &&
                   (down ? span <= at - lo && row <= hi - at
                         : span <= hi - at && row <= hi - at - span);
        }
        if (!fits) {
            vmaf_error("frame %u: the %s picture's luma plane (%ux%u, %u-bit, stride %td) does "
                       "not fit its memory; do not change a picture's size, depth or stride "
                       "after vmaf_picture_alloc() or vmaf_cuda_fetch_preallocated_picture()",
                       index, which[i], p[i]->w[0], p[i]->h[0], p[i]->bpc, p[i]->stride[0]);
            return -EINVAL;
        }
    }
    if ((vmaf_picture_buf_type(ref) == VMAF_PICTURE_BUF_DEVICE) !=
        (vmaf_picture_buf_type(dist) == VMAF_PICTURE_BUF_DEVICE)) {
        /* A CPU extractor would read a device pointer as host memory. */
        vmaf_error("frame %u: one picture is in device memory and the other in host memory; "
                   "give both from the same pool, or both in host memory",
                   index);
        return -EINVAL;
    }
    for (int i = 0; i < 2; i++) {
        if (vmaf_picture_buf_type(p[i]) == VMAF_PICTURE_BUF_DEVICE && !vmaf->cuda) {
            vmaf_error("frame %u: the %s picture is in device memory, and this context has no "
                       "CUDA state; import one (vmaf_cuda_import_state) or give host pictures",
                       index, which[i]);
            return -EINVAL;
        }
        /* Another state's device pictures may lie on another device or in
         * another CUcontext: the kernels would fault, and poison the
         * context for every later call. Its host and pinned pictures would
         * be held by this context until this context is next collected,
         * while a fetch from their own pool, which collects only its own
         * context, waited for them: for ever, if the caller's thread is
         * the one waiting. */
        const unsigned long long owner = vmaf_picture_pool_owner(p[i]);
        if (owner && owner != vmaf->serial) {
            vmaf_error("frame %u: the %s picture comes from another context's picture pool; "
                       "fetch pictures from this context's pool, or give it pictures of its "
                       "own (vmaf_picture_alloc)", index, which[i]);
            return -EINVAL;
        }
    }
    if (ref->w[0] != dist->w[0] || ref->h[0] != dist->h[0] || ref->bpc != dist->bpc ||
        ref->pix_fmt != dist->pix_fmt) {
        vmaf_error("frame %u: reference is %ux%u %u-bit and distorted is %ux%u %u-bit "
                   "(format %d vs %d); both must match",
                   index, ref->w[0], ref->h[0], ref->bpc, dist->w[0], dist->h[0], dist->bpc,
                   (int)ref->pix_fmt, (int)dist->pix_fmt);
        return -EINVAL;
    }
    if (vmaf->started && (ref->w[0] != vmaf->w || ref->h[0] != vmaf->h ||
                          ref->bpc != vmaf->bpc || ref->pix_fmt != vmaf->pix_fmt)) {
        vmaf_error("frame %u: pictures are %ux%u %u-bit but earlier frames were %ux%u %u-bit; "
                   "one context scores one geometry, use a new context for another",
                   index, ref->w[0], ref->h[0], ref->bpc, vmaf->w, vmaf->h, vmaf->bpc);
        return -EINVAL;
    }
    return 0;
}

static VmafFex *acquire(VmafContext *vmaf, VmafFeatureRequest *r, unsigned *slot)
{
    pthread_mutex_lock(&vmaf->lock);
    for (;;) {
        for (unsigned k = 0; k < r->n_inst; k++) {
            if (!r->inst_busy[k]) {
                r->inst_busy[k] = true;
                pthread_mutex_unlock(&vmaf->lock);
                *slot = k;
                return &r->inst[k];
            }
        }
        pthread_cond_wait(&vmaf->inst_free, &vmaf->lock);
    }
}

static void release(VmafContext *vmaf, VmafFeatureRequest *r, unsigned slot)
{
    pthread_mutex_lock(&vmaf->lock);
    r->inst_busy[slot] = false;
    pthread_cond_broadcast(&vmaf->inst_free);
    pthread_mutex_unlock(&vmaf->lock);
}

/* Scores one frame with every CPU extractor that sees it (all of them for
 * a frame n_subsample keeps, the temporal ones for any frame). */
static int extract_cpu(VmafContext *vmaf, const VmafFexFrame *frame)
{
    const bool kept = extracted_at(vmaf, frame->index);
    for (unsigned i = 0; i < vmaf->req_cnt; i++) {
        VmafFeatureRequest *r = &vmaf->req[i];
        if (r->use->backend != VMAF_FEX_BACKEND_CPU || r->follows ||
            (!kept && !(r->cpu->flags & VMAF_FEX_FLAG_PREV_REF)))
            continue;
        VmafFexFrame own = *frame;
        if (!(r->cpu->flags & VMAF_FEX_FLAG_PREV_REF))
            own.prev_ref[0] = own.prev_ref[1] = NULL;
        unsigned slot;
        VmafFex *f = acquire(vmaf, r, &slot);
        int err = f->fex->extract(f, &own, vmaf->fc);
        release(vmaf, r, slot);
        if (err)
            return err; /* the extractor logged why */
    }
    return 0;
}

typedef struct FrameJob {
    VmafContext *vmaf;
    VmafPicture ref, dist;
    VmafPicture prev_ref[2]; /* plain host pictures (keep_luma), or empty */
    unsigned index;
} FrameJob;

static void frame_job(void *arg)
{
    FrameJob *job = arg;
    /* After a failure the remaining frames are dropped, not scored. */
    if (!sticky_error(job->vmaf)) {
        const VmafFexFrame frame = {
            .ref = &job->ref,
            .dist = &job->dist,
            .prev_ref = { job->prev_ref[0].ref ? &job->prev_ref[0] : NULL,
                          job->prev_ref[1].ref ? &job->prev_ref[1] : NULL },
            .index = job->index,
        };
        int err = extract_cpu(job->vmaf, &frame);
        if (err)
            vmaf_context_set_error(job->vmaf, err);
    }
    vmaf_picture_pool_unhold(&job->ref);
    vmaf_picture_pool_unhold(&job->dist);
    for (int k = 0; k < 2; k++)
        if (job->prev_ref[k].ref)
            vmaf_picture_unref(&job->prev_ref[k]);
    free(job);
}

/* A reference to a picture's luma that the context may keep for later
 * frames: the picture itself when the caller allocated it, a copy of its
 * luma when it belongs to a pool (kept, it would be missing from the pool
 * the caller fetches from, and a fetch could wait for ever). */
static int keep_luma(const VmafPicture *pic, VmafPicture *out)
{
    const VmafPicturePriv *priv = pic->priv;
    if (!priv || !priv->release)
        return vmaf_picture_ref(out, pic);
    int err = vmaf_picture_alloc(out, VMAF_PIX_FMT_YUV400P, pic->bpc, pic->w[0], pic->h[0]);
    if (err)
        return err;
    const VmafRowCopy plane = {
        .dst = out->data[0],
        .dst_stride = (size_t)out->stride[0],
        .src = pic->data[0],
        .src_stride = pic->stride[0],
        .row_bytes = (size_t)pic->w[0] * (pic->bpc > 8 ? 2 : 1),
        .rows = pic->h[0],
    };
    return vmaf_row_copy(NULL, &plane, 1);
}

/* After frame `index` went to the extractors: its reference becomes the
 * previous one of the next frame. */
static int remember_ref(VmafContext *vmaf, const VmafPicture *ref, unsigned index)
{
    if (!vmaf->keep_prev_ref)
        return 0;
    VmafPicture kept = { 0 };
    int err = keep_luma(ref, &kept);
    if (err) {
        vmaf_error("frame %u: out of memory keeping the reference picture for the next frame",
                   index);
        return err;
    }
    if (vmaf->prev_ref[1].ref)
        vmaf_picture_unref(&vmaf->prev_ref[1]);
    vmaf->prev_ref[1] = vmaf->prev_ref[0];
    vmaf->prev_ref[0] = kept;
    return 0;
}

static void forget_refs(VmafContext *vmaf)
{
    for (int k = 0; k < 2; k++)
        if (vmaf->prev_ref[k].ref)
            vmaf_picture_unref(&vmaf->prev_ref[k]);
}

/* Queues one frame for the workers, with references to what it reads. */
static int queue_frame(VmafContext *vmaf, const VmafPicture *ref, const VmafPicture *dist,
                       unsigned index)
{
    FrameJob *job = calloc(1, sizeof(*job));
    if (!job) {
        vmaf_error("frame %u: out of memory queueing the frame", index);
        return -ENOMEM;
    }
    job->vmaf = vmaf;
    job->index = index;
    /* Held as the library's: a fetch from a dry pool waits for these
     * (cuda_internal.h). */
    vmaf_picture_pool_hold(&job->ref, ref);
    vmaf_picture_pool_hold(&job->dist, dist);
    for (int k = 0; k < 2; k++)
        if (vmaf->prev_ref[k].ref)
            (void)vmaf_picture_ref(&job->prev_ref[k], &vmaf->prev_ref[k]);
    int err = vmaf_thread_pool_enqueue(vmaf->pool, frame_job, job);
    if (err) {
        vmaf_error("frame %u: out of memory queueing the frame", index);
        vmaf_picture_pool_unhold(&job->ref);
        vmaf_picture_pool_unhold(&job->dist);
        for (int k = 0; k < 2; k++)
            if (job->prev_ref[k].ref)
                vmaf_picture_unref(&job->prev_ref[k]);
        free(job);
    }
    return err;
}

/* CPU extractors score the frame, on a worker or here. */
static int dispatch_cpu(VmafContext *vmaf, const VmafPicture *ref, const VmafPicture *dist,
                        unsigned index)
{
    int err;
    if (vmaf->pool) {
        err = queue_frame(vmaf, ref, dist, index);
    } else {
        const VmafFexFrame frame = {
            .ref = ref,
            .dist = dist,
            .prev_ref = { vmaf->prev_ref[0].ref ? &vmaf->prev_ref[0] : NULL,
                          vmaf->prev_ref[1].ref ? &vmaf->prev_ref[1] : NULL },
            .index = index,
        };
        err = extract_cpu(vmaf, &frame);
    }
    return err ? err : remember_ref(vmaf, ref, index);
}

/* A request served by a device extractor that has started. */
static bool device_running(const VmafFeatureRequest *r)
{
    return r->use && r->use->backend != VMAF_FEX_BACKEND_CPU && r->n_inst;
}

/* Every device extractor is collected, also after one has failed (each
 * keeps its own frames and pictures); the first error is returned. */
static int collect_devices(VmafContext *vmaf, bool wait)
{
    int first = 0;
    for (unsigned i = 0; i < vmaf->req_cnt; i++) {
        VmafFeatureRequest *r = &vmaf->req[i];
        if (device_running(r)) {
            int err = r->use->collect(&r->inst[0], wait, vmaf->fc);
            if (err && !first)
                first = err;
        }
    }
    return first;
}

/* After a device failure: every device extractor finishes or gives up
 * (a failed one, by contract of collect()) its frames in flight, so that
 * their pictures go back to their owner now, not at vmaf_close(). One
 * that fails while finishing gives up at its second call. Errors were
 * reported where they happened. */
static void release_device_frames(VmafContext *vmaf)
{
    for (unsigned i = 0; i < vmaf->req_cnt; i++) {
        VmafFeatureRequest *r = &vmaf->req[i];
        if (device_running(r) && r->use->collect(&r->inst[0], true, vmaf->fc))
            (void)r->use->collect(&r->inst[0], true, vmaf->fc);
    }
}

int vmaf_context_collect_devices(VmafContext *vmaf)
{
    if (!vmaf->started)
        return 0;
    const int err = collect_devices(vmaf, true);
    if (err) {
        /* As after a failed read: the failed extractor gives its frames
         * up, so that a fetch waiting on the pool is not kept waiting. */
        release_device_frames(vmaf);
        vmaf_context_set_error(vmaf, err);
    }
    return err;
}

void vmaf_context_drain(void *vmaf)
{
    /* A failure there was logged and stays the context's error, which the
     * next read returns; its frames were given up, and their pictures are
     * back. */
    (void)vmaf_context_collect_devices(vmaf);
}

void vmaf_context_settle(VmafContext *vmaf)
{
    if (vmaf->pool && !vmaf->flushed)
        vmaf_thread_pool_wait(vmaf->pool);
    (void)vmaf_context_collect_devices(vmaf); /* a failure stays sticky */
}

/* quiet: from vmaf_close(), which reports no earlier failure again. */
static int flush(VmafContext *vmaf, bool quiet)
{
    vmaf->flushed = true;
    if (vmaf->pool)
        vmaf_thread_pool_wait(vmaf->pool);
    int err = quiet ? sticky_error(vmaf) : refuse_if_failed(vmaf, "flush");
    if (!vmaf->started)
        return err;
    int e = collect_devices(vmaf, true);
    if (!err)
        err = e;
    for (unsigned i = 0; i < vmaf->req_cnt; i++) {
        VmafFeatureRequest *r = &vmaf->req[i];
        if (r->n_inst && r->use->flush) {
            e = r->use->flush(&r->inst[0], vmaf->fc);
            if (!err)
                err = e;
        }
    }
    clock_gettime(CLOCK_MONOTONIC, &vmaf->t_end);
    forget_refs(vmaf); /* no frame comes after the flush */
    if (err)
        vmaf_context_set_error(vmaf, err);
    return err;
}

static bool any_backend(VmafContext *vmaf, bool device)
{
    for (unsigned i = 0; i < vmaf->req_cnt; i++)
        if ((vmaf->req[i].use->backend != VMAF_FEX_BACKEND_CPU) == device)
            return true;
    return false;
}

/* A frame index is read once. Checked before any extractor runs: found by
 * an extractor's store it would come after a whole extraction and stop the
 * context (or, on a worker thread, surface only at the flush). The refusal
 * leaves the context usable, as libvmaf v3's -EINVAL does. */
static int mark_read(VmafContext *vmaf, unsigned index)
{
    if (vmaf_feature_collector_was_read(vmaf->fc, index)) {
        vmaf_error("frame %u was already read; give each frame its own index", index);
        return -EINVAL;
    }
    for (unsigned i = 0; i < vmaf->req_cnt; i++) {
        const VmafFeatureRequest *r = &vmaf->req[i];
        if (sees_frame(vmaf, r->cpu, index)) {
            for (const char *const *p = r->cpu->provided_features; p && *p; p++) {
                double v;
                char name[512];
                score_name(r, *p, name, sizeof(name));
                if (emits_base(r, *p) && !vmaf_feature_collector_get(vmaf->fc, name, &v, index)) {
                    vmaf_error("frame %u: %s already has a score at this index (imported); "
                               "%s would score it again, read the frame under another index",
                               index, name, r->cpu->name);
                    return -EINVAL;
                }
            }
        }
    }
    /* Only the caller's thread marks frames, so -EEXIST cannot happen here. */
    int err = vmaf_feature_collector_mark_read(vmaf->fc, index);
    if (err)
        vmaf_error("frame %u: out of memory recording the frame", index);
    return err;
}

static int read_pair(VmafContext *vmaf, VmafPicture *ref, VmafPicture *dist, unsigned index)
{
    int err = check_pictures(vmaf, ref, dist, index);
    if (err)
        return err;
    char call[40];
    snprintf(call, sizeof(call), "frame %u", index);
    err = refuse_if_failed(vmaf, call);
    if (err)
        return err;
    err = mark_read(vmaf, index);
    if (err)
        return err;
    if (!vmaf->started) {
        err = start(vmaf, ref, index);
        if (err) {
            vmaf_context_set_error(vmaf, err);
            return err;
        }
    }
    err = refuse_if_failed(vmaf, call);
    if (err)
        return err;
    vmaf->pic_cnt++;
    if (index + 1 > vmaf->max_index_plus1)
        vmaf->max_index_plus1 = index + 1;
    const bool kept = extracted_at(vmaf, index);
    if (!kept && !vmaf->keep_prev_ref)
        return 0;

    if (kept && any_backend(vmaf, true)) {
        /* Room in every device extractor first: the place the pair goes to
         * on the device may still hold a frame one of them reads. */
        for (unsigned i = 0; i < vmaf->req_cnt; i++) {
            VmafFeatureRequest *r = &vmaf->req[i];
            if (r->use->backend != VMAF_FEX_BACKEND_CPU) {
                err = r->use->reserve(&r->inst[0]);
                if (err)
                    goto device_fail;
            }
        }
        VmafCudaPlanes planes;
        err = vmaf_cuda_frames_put(vmaf->cuda_frames, ref, dist, index, &planes);
        if (err)
            goto device_fail;
        /* After a failure the other users give the frame up unseen: their
         * work would meet the same fault and report it again. */
        for (unsigned i = 0; i < vmaf->req_cnt; i++) {
            VmafFeatureRequest *r = &vmaf->req[i];
            if (r->use->backend == VMAF_FEX_BACKEND_CPU)
                continue;
            if (err)
                vmaf_cuda_frames_done(vmaf->cuda_frames, planes.slot);
            else
                err = r->use->submit(&r->inst[0], &planes);
        }
        if (err)
            goto device_fail;
        err = collect_devices(vmaf, false);
        if (err)
            goto device_fail;
    }
    if (!any_backend(vmaf, false))
        return 0;

    /* CPU extractors read host memory: device pictures are brought back once. */
    VmafPicture host[2] = { { 0 } };
    const VmafPicture *cref = ref, *cdist = dist;
    if (vmaf_picture_buf_type(ref) == VMAF_PICTURE_BUF_DEVICE) {
        err = vmaf_cuda_download_luma(vmaf->cuda, ref, &host[0], index);
        if (!err)
            err = vmaf_cuda_download_luma(vmaf->cuda, dist, &host[1], index);
        if (err) {
            if (host[0].ref)
                vmaf_picture_unref(&host[0]);
            goto device_fail;
        }
        cref = &host[0];
        cdist = &host[1];
    }
    err = dispatch_cpu(vmaf, cref, cdist, index);
    if (host[0].ref) {
        vmaf_picture_unref(&host[0]);
        vmaf_picture_unref(&host[1]);
    }
    if (err)
        vmaf_context_set_error(vmaf, err);
    return err;

device_fail:
    /* What failed has logged its one line, with the extractor and the
     * frame; a second, vaguer line here would only repeat it. */
    vmaf_context_set_error(vmaf, err);
    release_device_frames(vmaf);
    return err;
}

int vmaf_read_pictures(VmafContext *vmaf, VmafPicture *ref, VmafPicture *dist, unsigned index)
{
    if (!vmaf) {
        vmaf_error("vmaf_read_pictures: the context must not be NULL");
        if (ref && ref->ref)
            vmaf_picture_unref(ref);
        if (dist && dist->ref)
            vmaf_picture_unref(dist);
        return -EINVAL;
    }
    if (!ref && !dist) {
        /* libvmaf v3 answers -EINVAL once flushed; a second flush has
         * nothing to do, and a caller that flushes twice has lost track. */
        if (vmaf->flushed) {
            vmaf_error("vmaf_read_pictures: the context was already flushed; flush once, "
                       "after the last picture");
            return -EINVAL;
        }
        return handed_back(vmaf, flush(vmaf, false));
    }
    int err;
    if (!ref || !dist) {
        vmaf_error("frame %u: vmaf_read_pictures needs both pictures (or both NULL to flush)",
                   index);
        err = -EINVAL;
    } else if (vmaf->flushed) {
        vmaf_error("frame %u: pictures read after the flush; read every picture first, "
                   "or use a new context", index);
        err = -EINVAL;
    } else if (index >= VMAF_FEATURE_COLLECTOR_MAX_INDEX) {
        vmaf_error("frame index %u is too large; indices must be below %u", index,
                   VMAF_FEATURE_COLLECTOR_MAX_INDEX);
        err = -EINVAL;
    } else {
        err = read_pair(vmaf, ref, dist, index);
    }
    /* The context owns both references, on success and on failure. */
    if (ref && ref->ref)
        vmaf_picture_unref(ref);
    if (dist && dist->ref)
        vmaf_picture_unref(dist);
    return handed_back(vmaf, err);
}

int vmaf_feature_score_at_index(VmafContext *vmaf, const char *feature_name, double *score,
                                unsigned index)
{
    if (!vmaf || !feature_name || !score) {
        vmaf_error("vmaf_feature_score_at_index: the context, the feature name and the score "
                   "pointer must not be NULL");
        return -EINVAL;
    }
    /* A score that is not there is the answer to a question, not a failure
     * to report: callers ask to find out (the tool does). */
    return vmaf_feature_collector_get(vmaf->fc, feature_name, score, index);
}

int vmaf_feature_score_pooled(VmafContext *vmaf, const char *feature_name,
                              enum VmafPoolingMethod pool_method, double *score,
                              unsigned index_low, unsigned index_high)
{
    if (!vmaf || !feature_name || !score) {
        vmaf_error("vmaf_feature_score_pooled: the context, the feature name and the score "
                   "pointer must not be NULL");
        return -EINVAL;
    }
    if (index_low > index_high ||
        pool_method <= VMAF_POOL_METHOD_UNKNOWN || pool_method >= VMAF_POOL_METHOD_NB) {
        vmaf_error("vmaf_feature_score_pooled: %s", index_low > index_high
                   ? "index_low is above index_high" : "unknown pooling method; give "
                   "VMAF_POOL_METHOD_MIN, MAX, MEAN or HARMONIC_MEAN");
        return -EINVAL;
    }
    /* As for vmaf_feature_score_at_index, a score missing in the range is
     * an answer and not logged. */
    double min = 0.0, max = 0.0, sum = 0.0, inv_sum = 0.0;
    unsigned n = 0;
    for (unsigned i = index_low; i <= index_high; i++) {
        /* Frames left out by subsampling are left out of the pool, as the
         * reference does. */
        if (vmaf->cfg.n_subsample > 1 && i % vmaf->cfg.n_subsample)
            goto next;
        double v;
        int err = vmaf_feature_collector_get(vmaf->fc, feature_name, &v, i);
        if (err)
            return err;
        /* Seeded from the first frame counted, as libvmaf v3 does: a NaN
         * there stays the result (no comparison replaces it), and all-NaN
         * gives NaN, not an infinity that no frame had. */
        if (!n || v < min)
            min = v;
        if (!n || v > max)
            max = v;
        sum += v;
        inv_sum += 1.0 / (v + 1.0);
        n++;
    next:
        if (i == 0xffffffffu)
            break;
    }
    if (!n)
        return -EINVAL;
    switch (pool_method) {
    case VMAF_POOL_METHOD_MIN: *score = min; break;
    case VMAF_POOL_METHOD_MAX: *score = max; break;
    case VMAF_POOL_METHOD_MEAN: *score = sum / n; break;
    case VMAF_POOL_METHOD_HARMONIC_MEAN: *score = n / inv_sum - 1.0; break;
    default: return -EINVAL;
    }
    return 0;
}

static void *host_block(void *opaque, size_t size, unsigned i, unsigned n, int *err, char *why,
                        size_t why_len)
{
    (void)opaque, (void)i, (void)n;
    *err = -ENOMEM;
    snprintf(why, why_len, "out of memory");
    void *m = aligned_alloc(VMAF_PICTURE_ROW_ALIGN,
                           (size + VMAF_PICTURE_ROW_ALIGN - 1) / VMAF_PICTURE_ROW_ALIGN *
                               VMAF_PICTURE_ROW_ALIGN);
    if (m)
        memset(m, 0, size); /* as vmaf_picture_alloc()'s, padding included */
    return m;
}

static void free_host_blocks(void *opaque, void *const *blocks, unsigned n)
{
    (void)opaque;
    for (unsigned i = 0; i < n; i++)
        free(blocks[i]);
}

int vmaf_preallocate_pictures(VmafContext *vmaf, VmafPictureConfiguration cfg)
{
    if (!vmaf || vmaf->host_pool) {
        vmaf_error("vmaf_preallocate_pictures: %s", vmaf ? "pictures were preallocated "
                   "already for this context" : "the context must not be NULL");
        return -EINVAL;
    }
    const VmafPicturePoolMemory mem = { .buf_type = VMAF_PICTURE_BUF_HOST,
                                        .alloc = host_block,
                                        .release = free_host_blocks };
    return vmaf_picture_pool_create(&vmaf->host_pool, &mem, cfg.pic_params.pix_fmt,
                                    cfg.pic_params.bpc, cfg.pic_params.w, cfg.pic_params.h,
                                    cfg.pic_cnt, VMAF_PICTURE_ROW_ALIGN, vmaf->serial,
                                    "vmaf_preallocate_pictures");
}

int vmaf_fetch_preallocated_picture(VmafContext *vmaf, VmafPicture *pic)
{
    if (!vmaf || !pic || !vmaf->host_pool) {
        vmaf_error("vmaf_fetch_preallocated_picture: %s",
                   vmaf && pic ? "no preallocated pictures; call vmaf_preallocate_pictures "
                                 "first"
                               : "the context and the picture must not be NULL");
        return -EINVAL;
    }
    return vmaf_picture_pool_fetch(vmaf->host_pool, pic, vmaf_context_drain, vmaf);
}

int vmaf_close(VmafContext *vmaf)
{
    if (!vmaf)
        return 0;
    int err = 0;
    if (vmaf->started && !vmaf->flushed)
        err = flush(vmaf, true);
    vmaf_thread_pool_destroy(vmaf->pool);
    for (unsigned i = 0; i < vmaf->req_cnt; i++) {
        close_request(&vmaf->req[i]);
        vmaf_feature_dictionary_free(&vmaf->req[i].opts);
    }
    free(vmaf->req);
    forget_refs(vmaf);
    for (unsigned i = 0; i < vmaf->score_name_cnt; i++)
        free(vmaf->score_name[i].name);
    free(vmaf->score_name);
    /* After the extractors that read them: their kernels have ended. */
    vmaf_cuda_frames_free(vmaf->cuda_frames);
    vmaf_feature_collector_destroy(vmaf->fc);
    vmaf_picture_pool_free(vmaf->cuda_pool);
    vmaf_picture_pool_free(vmaf->host_pool);
    vmaf_cuda_state_free(vmaf->cuda);
    pthread_cond_destroy(&vmaf->inst_free);
    pthread_mutex_destroy(&vmaf->lock);
    free(vmaf);
    if (atomic_fetch_sub(&live_contexts, 1) == 1)
        vmaf_picture_cache_drain();
    return err;
}
