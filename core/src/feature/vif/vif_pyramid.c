/*
 * Row streaming of the integer VIF pyramid. Rows are never copied into a
 * padded frame: each output row gets the list of its source rows, with
 * out-of-range indices mirrored as the reference's padding does.
 */
#include <stdint.h>

#include "feature/vif/vif_pyramid.h"

/* One scale as the passes read it. */
typedef struct VifLevel {
    const uint8_t *ref, *dis; /* row 0 */
    ptrdiff_t ref_stride, dis_stride;
    unsigned w, h, index;
    bool wide; /* uint16_t samples */
    /* The rows the reference's padding copies above and below a single-row
     * scale: row 1 of the scale before, left over in its buffer. */
    const uint8_t *lone_ref, *lone_dis;
} VifLevel;

/* Source rows first..first+taps-1 of a scale. */
static void vif_tap_rows(const VifLevel *L, int first, unsigned taps, const uint8_t **ref,
                         const uint8_t **dis)
{
    for (unsigned k = 0; k < taps; k++) {
        const int r = first + (int)k;
        if (L->h == 1 && r != 0) {
            ref[k] = L->lone_ref;
            dis[k] = L->lone_dis;
            continue;
        }
        const int q = L->h == 1 ? 0 : vif_mirror(r, (int)L->h);
        ref[k] = L->ref + q * L->ref_stride;
        dis[k] = L->dis + q * L->dis_stride;
    }
}

static void vif_as_16(const uint8_t *const *in, unsigned n, const uint16_t **out)
{
    for (unsigned k = 0; k < n; k++)
        out[k] = (const uint16_t *)(const void *)in[k];
}

/* Horizontal padding in the reference's order. For n >= 2 this is the
 * periodic reflection. For n == 1 (scale 3 of a plane 8..15 wide) it copies
 * element 1, left over from the scale before, as the reference does: the
 * statistic's row buffers are shared by all scales for that reason. */
#define VIF_PAD_ROW(row, n, half)                                                          \
    do {                                                                                   \
        for (int f_ = 1; f_ <= (int)(half); f_++) {                                        \
            (row)[-f_] = (row)[f_];                                                        \
            (row)[(int)(n) - 1 + f_] = (row)[(int)(n) - 1 - f_];                           \
        }                                                                                  \
    } while (0)

static void vif_stat_row(const VifDsp *dsp, const VifWork *wk, const VifLevel *L, unsigned i,
                         unsigned bpc, const VifGain *gain, VifAccum *acc)
{
    const unsigned f = L->index, taps = vif_taps(f), half = taps / 2;
    const unsigned sh_mu = f ? 16 : bpc, sh_sq = f ? 16 : 2 * (bpc - 8);
    const uint8_t *ref[VIF_MAX_TAPS], *dis[VIF_MAX_TAPS];
    vif_tap_rows(L, (int)i - (int)half, taps, ref, dis);
    if (L->wide) {
        const uint16_t *r16[VIF_MAX_TAPS], *d16[VIF_MAX_TAPS];
        vif_as_16(ref, taps, r16);
        vif_as_16(dis, taps, d16);
        dsp->stat_v_16(r16, d16, f, L->w, sh_mu, sh_sq, &wk->vrow);
    } else {
        dsp->stat_v_8(ref, dis, f, L->w, sh_mu, sh_sq, &wk->vrow);
    }
    VIF_PAD_ROW(wk->vrow.mu1, L->w, half);
    VIF_PAD_ROW(wk->vrow.mu2, L->w, half);
    VIF_PAD_ROW(wk->vrow.xx, L->w, half);
    VIF_PAD_ROW(wk->vrow.yy, L->w, half);
    VIF_PAD_ROW(wk->vrow.xy, L->w, half);
    for (unsigned j0 = 0; j0 < L->w; j0 += VIF_CHUNK) {
        const unsigned n = L->w - j0 < VIF_CHUNK ? L->w - j0 : VIF_CHUNK;
        dsp->stat_h(&wk->vrow, f, j0, n, &wk->mom);
        dsp->stat_px(&wk->mom, n, gain, acc);
    }
}

/* Row i/2 of the next scale from source row i (even) of this one. */
static void vif_dec_row(const VifDsp *dsp, const VifWork *wk, const VifLevel *L, unsigned i,
                        unsigned bpc, uint16_t *out_ref, uint16_t *out_dis)
{
    const unsigned f = L->index + 1, taps = vif_taps(f), half = taps / 2;
    const unsigned sh = L->index ? 16 : bpc;
    const uint8_t *ref[VIF_MAX_TAPS], *dis[VIF_MAX_TAPS];
    vif_tap_rows(L, (int)i - (int)half, taps, ref, dis);
    if (L->wide) {
        const uint16_t *r16[VIF_MAX_TAPS], *d16[VIF_MAX_TAPS];
        vif_as_16(ref, taps, r16);
        vif_as_16(dis, taps, d16);
        dsp->dec_v_16(r16, d16, f, L->w, sh, wk->dec_ref, wk->dec_dis);
    } else {
        dsp->dec_v_8(ref, dis, f, L->w, sh, wk->dec_ref, wk->dec_dis);
    }
    VIF_PAD_ROW(wk->dec_ref, L->w, half);
    VIF_PAD_ROW(wk->dec_dis, L->w, half);
    dsp->dec_h(wk->dec_ref, wk->dec_dis, f, L->w / 2, out_ref, out_dis);
}

static VifLevel vif_level_of(const VifWork *wk, const VifPlane *src, unsigned s)
{
    VifLevel L = {.w = src->w >> s, .h = src->h >> s, .index = s};
    if (s == 0) {
        L.ref = src->ref;
        L.dis = src->dis;
        L.ref_stride = src->ref_stride;
        L.dis_stride = src->dis_stride;
        L.wide = src->bpc > 8;
        return L;
    }
    const ptrdiff_t stride = (ptrdiff_t)(wk->plane_stride[s] * sizeof(uint16_t));
    L.ref = (const uint8_t *)wk->plane_ref[s];
    L.dis = (const uint8_t *)wk->plane_dis[s];
    L.ref_stride = L.dis_stride = stride;
    L.wide = true;
    if (s >= 2) { /* a single-row scale pads with row 1 of the scale before */
        const ptrdiff_t up = (ptrdiff_t)(wk->plane_stride[s - 1] * sizeof(uint16_t));
        L.lone_ref = (const uint8_t *)wk->plane_ref[s - 1] + up;
        L.lone_dis = (const uint8_t *)wk->plane_dis[s - 1] + up;
    }
    return L;
}

void vif_pyramid(const VifDsp *dsp, const VifWork *wk, const VifPlane *src, bool with_scale0,
                 const VifGain *gain, VifAccum acc[VIF_SCALES])
{
    for (unsigned s = 0; s < VIF_SCALES; s++) {
        const VifLevel L = vif_level_of(wk, src, s);
        const bool stat = s > 0 || with_scale0, dec = s + 1 < VIF_SCALES;
        const unsigned next_rows = L.h / 2;
        for (unsigned i = 0; i < L.h; i++) {
            if (stat)
                vif_stat_row(dsp, wk, &L, i, src->bpc, gain, &acc[s]);
            if (dec && !(i & 1) && i / 2 < next_rows) {
                const size_t at = (size_t)(i / 2) * wk->plane_stride[s + 1];
                vif_dec_row(dsp, wk, &L, i, src->bpc, wk->plane_ref[s + 1] + at,
                            wk->plane_dis[s + 1] + at);
            }
        }
    }
}
