/*
 * The first frame fixes the geometry: each request gets its backend (the
 * CPU extractor or its twin), requests computed in one pass are grouped,
 * the instances start, and the score names are declared in report order.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libvmaf/libvmaf.h"

#include "context.h"
#include "cuda/cuda_internal.h"
#include "log.h"
#include "registry.h"

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

/* Which pass of declare_features() names a request's feature: 0 for an
 * EVERY_FRAME extractor's (the reference scores its temporal psnr in the
 * reading thread, before the others store), 1 for other per-frame ones,
 * 2 for those stored at the flush. */
static int declare_pass(const VmafFeatureRequest *r, const char *feature)
{
    if (vmaf_fex_is_flushed_feature(r->cpu, feature))
        return 2;
    return r->cpu->flags & VMAF_FEX_FLAG_EVERY_FRAME ? 0 : 1;
}

/* Every score name the requests will store, in report order: the
 * per-frame outputs of each request in turn, then those stored at the
 * flush, each extractor's in the order it lists them. The reference's
 * reports read so, whichever worker stores first. */
static int declare_features(VmafContext *vmaf)
{
    for (int pass = 0; pass < 3; pass++) {
        for (unsigned i = 0; i < vmaf->req_cnt; i++) {
            const VmafFeatureRequest *r = &vmaf->req[i];
            for (const char *const *p = r->cpu->provided_features; p && *p; p++) {
                if (declare_pass(r, *p) != pass || !vmaf_request_emits_base(r, *p))
                    continue;
                char name[512];
                vmaf_request_score_name(r, *p, name, sizeof(name));
                if (vmaf_feature_collector_declare(vmaf->fc, name)) {
                    vmaf_error("out of memory starting the extractors");
                    return -ENOMEM;
                }
            }
        }
    }
    return 0;
}

/* Requests of one extractor whose option sets it computes in one pass
 * (shares_pass: VMAF's and NEG's gain limits) become followers of the
 * first on the same backend: its instances compute theirs too. Twins
 * take the same variants (their CPU extractor's option structs). */
static int group_shared_passes(VmafContext *vmaf)
{
    for (unsigned i = 0; i < vmaf->req_cnt; i++) {
        VmafFeatureRequest *r = &vmaf->req[i];
        if (!r->cpu->shares_pass)
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
    f->pix_fmt = vmaf->pix_fmt;
    f->first_index = index;
    memcpy(f->name_suffix, r->name_suffix, sizeof(f->name_suffix));
    set_variants(vmaf, r, f);
    const bool device = r->use->backend != VMAF_FEX_BACKEND_CPU;
    f->cuda = device ? vmaf->cuda : NULL;
    f->frames = device ? vmaf->cuda_frames : NULL;
    f->fex = r->use; /* init() may name itself; NULL again unless it starts */
    if (!err)
        err = r->use->init(f);
    if (err) {
        free(f->priv);
        f->priv = NULL;
        f->fex = NULL;
        return err;
    }
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
        r->inst[k].peer = r->inst;
        r->inst[k].n_peers = n;
        int err = start_instance(vmaf, r, &r->inst[k], index);
        if (err)
            return err;
        r->n_inst = k + 1;
    }
    vmaf_info("%s runs as %s%s%s", r->cpu->name, r->use->name,
              n > 1 ? " on worker threads" : "",
              r->inst[0].n_variants > 1 ? ", with the scores of other requests in one pass"
                                        : "");
    const bool on_cpu = r->use->backend == VMAF_FEX_BACKEND_CPU;
    vmaf->keep_prev_ref |= on_cpu && (r->cpu->flags & VMAF_FEX_FLAG_PREV_REF);
    vmaf->cpu_every_frame |= on_cpu && vmaf_fex_sees_every_frame(r->cpu);
    vmaf->device_every_frame |= !on_cpu && vmaf_fex_sees_every_frame(r->cpu);
    vmaf->cpu_chroma |= on_cpu && vmaf_request_reads_chroma(r);
    return 0;
}

/* Device extractors read every frame from one set of device planes,
 * uploaded once for all of them; each one started (no follower) collects
 * it. */
static int start_device_frames(VmafContext *vmaf, unsigned index)
{
    char who[128] = "";
    unsigned users = 0;
    bool device_chroma = false;
    for (unsigned i = 0; i < vmaf->req_cnt; i++) {
        const VmafFeatureRequest *r = &vmaf->req[i];
        if (r->use->backend == VMAF_FEX_BACKEND_CPU)
            continue;
        device_chroma |= vmaf_request_reads_chroma(r);
        if (!r->follows) {
            const size_t len = strlen(who);
            snprintf(who + len, sizeof(who) - len, "%s%s", users ? ", " : "", r->use->name);
            users++;
        }
    }
    if (!users)
        return 0;
    const VmafCudaFramesGeometry g = { .w = vmaf->w, .h = vmaf->h, .bpc = vmaf->bpc,
                                       .fmt = vmaf->pix_fmt, .chroma = device_chroma };
    return vmaf_cuda_frames_init(&vmaf->cuda_frames, vmaf->cuda, &g, users, who, index);
}

/* At the first frame, `index`: the geometry is known, the extractors start. */
int vmaf_context_start(VmafContext *vmaf, const VmafPicture *ref, unsigned index)
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

    for (unsigned i = 0; i < vmaf->req_cnt; i++) {
        int err = choose_backend(vmaf, &vmaf->req[i]);
        if (err)
            return err;
    }
    int err = group_shared_passes(vmaf);
    if (!err)
        err = start_device_frames(vmaf, index);
    for (unsigned i = 0; !err && i < vmaf->req_cnt; i++)
        if (!vmaf->req[i].follows)
            err = start_request(vmaf, &vmaf->req[i], index);
    if (err)
        return err;
    return declare_features(vmaf);
}
