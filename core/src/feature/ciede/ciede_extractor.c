/*
 * ciede: ciede2000 = 45 - 20 log10(mean CIEDE2000 difference) of each
 * frame, as libvmaf 3.2's `ciede` extractor computes it, bit for bit
 * (docs/metrics/ciede.md). Chroma is upsampled by repetition; the sum of
 * the per-pixel differences is a double added in raster order, as the
 * reference adds it.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "feature/ciede/ciede.h"
#include "feature/feature_collector.h"
#include "feature/feature_extractor.h"
#include "log.h"

/* Video repeats colours: a direct-mapped cache of converted ones saves
 * most of the libm calls of the conversion (its results are the same). */
#define LAB_CACHE_BITS 16
typedef struct LabEntry {
    uint64_t key; /* y | u << 16 | v << 32, bit 63 set; 0 when empty */
    CiedeLab lab;
} LabEntry;

typedef struct CiedeState {
    unsigned shift_x, shift_y; /* chroma subsampling, as shifts */
    LabEntry *cache;
} CiedeState;

static const char *const provided_features[] = { "ciede2000", NULL };

static int init(VmafFex *fex)
{
    CiedeState *st = fex->priv;
    if (fex->pix_fmt == VMAF_PIX_FMT_YUV400P) {
        vmaf_error("ciede: the pictures are 4:0:0 (luma only), and CIEDE2000 needs the "
                   "chroma planes; give pictures with chroma");
        return -EINVAL;
    }
    st->shift_x = fex->pix_fmt != VMAF_PIX_FMT_YUV444P;
    st->shift_y = fex->pix_fmt == VMAF_PIX_FMT_YUV420P;
    st->cache = calloc((size_t)1 << LAB_CACHE_BITS, sizeof(*st->cache));
    if (!st->cache) {
        vmaf_error("ciede: out of memory for its colour cache");
        return -ENOMEM;
    }
    return 0;
}

static unsigned sample(const VmafPicture *p, unsigned plane, unsigned y, unsigned x)
{
    const char *row = (const char *)p->data[plane] + (ptrdiff_t)y * p->stride[plane];
    return p->bpc == 8 ? ((const uint8_t *)row)[x] : ((const uint16_t *)row)[x];
}

/* A pixel's colour as a cache key: y | u << 16 | v << 32, bit 63 set. */
static uint64_t colour_at(const CiedeState *st, const VmafPicture *p, unsigned y, unsigned x)
{
    const unsigned cy = y >> st->shift_y, cx = x >> st->shift_x;
    return (uint64_t)sample(p, 0, y, x) | (uint64_t)sample(p, 1, cy, cx) << 16 |
           (uint64_t)sample(p, 2, cy, cx) << 32 | (uint64_t)1 << 63;
}

static CiedeLab lab_of(CiedeState *st, uint64_t key, unsigned bpc)
{
    const uint64_t y = key & 0xffff, u = key >> 16 & 0xffff, v = key >> 32 & 0xffff;
    const uint32_t hash = (uint32_t)(y * 0x9E3779B1u ^ u * 0x85EBCA77u ^ v * 0xC2B2AE3Du);
    LabEntry *e = &st->cache[hash >> (32 - LAB_CACHE_BITS)];
    if (e->key != key) {
        e->key = key;
        e->lab = vmaf_ciede_lab((float)y, (float)u, (float)v, bpc);
    }
    return e->lab;
}

static int extract(VmafFex *fex, const VmafFexFrame *frame, VmafFeatureCollector *fc)
{
    CiedeState *st = fex->priv;
    int err = vmaf_fex_check_frame(fex, frame);
    if (!err)
        err = vmaf_fex_check_chroma(fex, frame, ((fex->w - 1) >> st->shift_x) + 1,
                                    ((fex->h - 1) >> st->shift_y) + 1);
    if (err)
        return err;
    double sum = 0.;
    for (unsigned y = 0; y < fex->h; y++)
        for (unsigned x = 0; x < fex->w; x++) {
            const uint64_t a = colour_at(st, frame->ref, y, x);
            const uint64_t b = colour_at(st, frame->dist, y, x);
            /* Equal colours differ by exactly +0 (every term of the
             * difference is 0, its weights finite): adding it changes
             * nothing. */
            if (a != b)
                sum += vmaf_ciede2000(lab_of(st, a, fex->bpc), lab_of(st, b, fex->bpc));
        }
    const double score = 45. - 20. * log10(sum / (double)(fex->w * fex->h));
    return vmaf_fex_store(fex, fc, "ciede2000", score, frame->index);
}

static void close_fex(VmafFex *fex)
{
    CiedeState *st = fex->priv;
    free(st->cache);
    st->cache = NULL;
}

const VmafFeatureExtractor vmaf_fex_ciede = {
    .name = "ciede",
    .backend = VMAF_FEX_BACKEND_CPU,
    .priv_size = sizeof(CiedeState),
    .provided_features = provided_features,
    .flags = VMAF_FEX_FLAG_FRAME_PARALLEL | VMAF_FEX_FLAG_CHROMA,
    .init = init,
    .extract = extract,
    .close = close_fex,
};
