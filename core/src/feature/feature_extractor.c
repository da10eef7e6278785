/*
 * What every extractor shares beyond its options: the twin's view of its
 * CPU extractor's tables, the picture check of extract(), and the storing
 * of outputs under their names.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "feature/feature_collector.h"
#include "feature/feature_extractor.h"
#include "log.h"
#include "picture_internal.h"

const VmafOption *vmaf_fex_options(const VmafFeatureExtractor *fex)
{
    return fex->twin_of ? fex->twin_of->options : fex->options;
}

const char *const *vmaf_fex_features(const VmafFeatureExtractor *fex)
{
    return fex->twin_of ? fex->twin_of->provided_features : fex->provided_features;
}

const char *const *vmaf_fex_flushed_features(const VmafFeatureExtractor *fex)
{
    return fex->twin_of ? fex->twin_of->flushed_features : fex->flushed_features;
}

bool vmaf_fex_is_flushed_feature(const VmafFeatureExtractor *fex, const char *feature)
{
    for (const char *const *f = vmaf_fex_flushed_features(fex); f && *f; f++)
        if (!strcmp(*f, feature))
            return true;
    return false;
}

int vmaf_fex_check_frame(const VmafFex *fex, const VmafFexFrame *frame)
{
    const VmafPicture *ref = frame->ref, *dist = frame->dist;
    const char *name = fex->fex->name;
    if (!ref || !dist || !ref->data[0] || !dist->data[0]) {
        vmaf_error("%s: frame %u: a picture without a luma plane", name, frame->index);
        return -EINVAL;
    }
    const VmafPicture *pic[4] = { ref, dist, frame->prev_ref[0], frame->prev_ref[1] };
    for (int i = 0; i < 4; i++) {
        const VmafPicture *p = pic[i];
        if (!p || (p->bpc == fex->bpc && p->w[0] == fex->w && p->h[0] == fex->h && p->data[0]))
            continue;
        static const char *const which[4] = { "reference", "distorted", "previous reference",
                                              "reference two back" };
        vmaf_error("%s: frame %u: the %s picture is %ux%u %u-bit, the extractor was set up "
                   "for %ux%u %u-bit", name, frame->index, which[i], p->w[0], p->h[0], p->bpc,
                   fex->w, fex->h, fex->bpc);
        return -EINVAL;
    }
    return 0;
}

int vmaf_fex_score_name(const VmafFex *fex, const char *feature, char *buf, size_t len)
{
    const int k = snprintf(buf, len, "%s%s", feature, fex->name_suffix);
    return k < 0 || (size_t)k >= len ? -ERANGE : 0;
}

int vmaf_fex_store(const VmafFex *fex, VmafFeatureCollector *fc, const char *feature,
                   double value, unsigned index)
{
    if (!fex->name_suffix[0])
        return vmaf_feature_collector_append(fc, feature, value, index);
    char name[512];
    const int err = vmaf_fex_score_name(fex, feature, name, sizeof(name));
    return err ? err : vmaf_feature_collector_append(fc, name, value, index);
}

int vmaf_fex_store_variant(const VmafFex *fex, unsigned v, VmafFeatureCollector *fc,
                           const char *feature, double value, unsigned index)
{
    if (!v)
        return vmaf_fex_store(fex, fc, feature, value, index);
    char name[512];
    const int k = snprintf(name, sizeof(name), "%s%s", feature, fex->variant_suffix[v]);
    if (k < 0 || (size_t)k >= sizeof(name))
        return -ERANGE;
    return vmaf_feature_collector_append(fc, name, value, index);
}

int vmaf_fex_load(const VmafFex *fex, VmafFeatureCollector *fc, const char *feature,
                  double *value, unsigned index)
{
    char name[512];
    const int err = vmaf_fex_score_name(fex, feature, name, sizeof(name));
    return err ? -EINVAL : vmaf_feature_collector_get(fc, name, value, index);
}

int vmaf_fex_check_chroma(const VmafFex *fex, const VmafFexFrame *frame, unsigned cw,
                          unsigned ch)
{
    const VmafPicture *pic[2] = { frame->ref, frame->dist };
    for (int i = 0; i < 2; i++) {
        bool ok = pic[i]->pix_fmt == fex->pix_fmt;
        for (int p = 1; p < 3 && ok; p++)
            ok = vmaf_picture_plane_fits(pic[i], p) && pic[i]->w[p] >= cw &&
                 pic[i]->h[p] >= ch;
        if (ok)
            continue;
        vmaf_error("%s: frame %u: the %s picture has no chroma planes of the context's format "
                   "in its memory; give pictures from vmaf_picture_alloc() in one format",
                   fex->fex->name, frame->index, i ? "distorted" : "reference");
        return -EINVAL;
    }
    return 0;
}

void vmaf_fex_reference_plane_size(const VmafFex *fex, unsigned p, unsigned *pw, unsigned *ph)
{
    const bool halve_w = p && fex->pix_fmt != VMAF_PIX_FMT_YUV444P;
    const bool halve_h = p && fex->pix_fmt == VMAF_PIX_FMT_YUV420P;
    *pw = halve_w ? fex->w / 2 : fex->w;
    *ph = halve_h ? fex->h / 2 : fex->h;
}
