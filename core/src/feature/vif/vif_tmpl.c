/*
 * The sample-type dependent row functions of the integer VIF (the
 * vertical passes over source rows), compiled once per sample type.
 * Included by vif_kernels.c with `pixel` (uint8_t or uint16_t), `sqsum`
 * (the exact type of a sum of T coefficient * sample^2 terms: uint32_t for
 * 8-bit samples, uint64_t above) and FN(name) defined.
 *
 * Loops run over column blocks, taps outer and columns inner, with the sums
 * in small local arrays: one source row per inner loop, so the compiler
 * vectorises across columns without alias checks. Every public function
 * dispatches on the filter index so that each instance has constant taps.
 */

static VIF_ALWAYS_INLINE void FN(stat_v_taps)(const pixel *const *ref, const pixel *const *dis,
                                              const unsigned f, unsigned w, unsigned sh_mu,
                                              unsigned sh_sq, const VifStatRow *out)
{
    const unsigned taps = vif_taps(f);
    const uint16_t *c = vif_filter[f];
    const uint32_t rnd_mu = 1u << (sh_mu - 1);
    const sqsum rnd_sq = sh_sq ? (sqsum)1 << (sh_sq - 1) : 0;
    for (unsigned j0 = 0; j0 < w; j0 += VIF_BLOCK) {
        const unsigned n = w - j0 < VIF_BLOCK ? w - j0 : VIF_BLOCK;
        uint32_t s1[VIF_BLOCK], s2[VIF_BLOCK];
        sqsum s11[VIF_BLOCK], s22[VIF_BLOCK], s12[VIF_BLOCK];
        for (unsigned j = 0; j < n; j++)
            s1[j] = s2[j] = 0, s11[j] = s22[j] = s12[j] = 0;
        for (unsigned k = 0; k < taps; k++) {
            const pixel *restrict a = ref[k] + j0, *restrict b = dis[k] + j0;
            const uint32_t ck = c[k];
            for (unsigned j = 0; j < n; j++) {
                const uint32_t x = a[j], y = b[j], cx = ck * x, cy = ck * y;
                s1[j] += cx;
                s2[j] += cy;
                s11[j] += (sqsum)cx * x;
                s22[j] += (sqsum)cy * y;
                s12[j] += (sqsum)cx * y;
            }
        }
        uint16_t *restrict mu1 = out->mu1 + j0, *restrict mu2 = out->mu2 + j0;
        uint32_t *restrict xx = out->xx + j0, *restrict yy = out->yy + j0;
        uint32_t *restrict xy = out->xy + j0;
        for (unsigned j = 0; j < n; j++) {
            mu1[j] = (uint16_t)((s1[j] + rnd_mu) >> sh_mu);
            mu2[j] = (uint16_t)((s2[j] + rnd_mu) >> sh_mu);
            xx[j] = (uint32_t)((s11[j] + rnd_sq) >> sh_sq);
            yy[j] = (uint32_t)((s22[j] + rnd_sq) >> sh_sq);
            xy[j] = (uint32_t)((s12[j] + rnd_sq) >> sh_sq);
        }
    }
}

static void FN(stat_v)(const pixel *const *ref, const pixel *const *dis, unsigned f, unsigned w,
                       unsigned sh_mu, unsigned sh_sq, const VifStatRow *out)
{
    switch (f) {
    case 0: FN(stat_v_taps)(ref, dis, 0, w, sh_mu, sh_sq, out); break;
    case 1: FN(stat_v_taps)(ref, dis, 1, w, sh_mu, sh_sq, out); break;
    case 2: FN(stat_v_taps)(ref, dis, 2, w, sh_mu, sh_sq, out); break;
    default: FN(stat_v_taps)(ref, dis, 3, w, sh_mu, sh_sq, out); break;
    }
}

static VIF_ALWAYS_INLINE void FN(dec_v_taps)(const pixel *const *ref, const pixel *const *dis,
                                             const unsigned f, unsigned w, unsigned sh,
                                             uint16_t *out_ref, uint16_t *out_dis)
{
    const unsigned taps = vif_taps(f);
    const uint16_t *c = vif_filter[f];
    const uint32_t rnd = 1u << (sh - 1);
    for (unsigned j0 = 0; j0 < w; j0 += VIF_BLOCK) {
        const unsigned n = w - j0 < VIF_BLOCK ? w - j0 : VIF_BLOCK;
        uint32_t s1[VIF_BLOCK], s2[VIF_BLOCK];
        for (unsigned j = 0; j < n; j++)
            s1[j] = s2[j] = 0;
        for (unsigned k = 0; k < taps; k++) {
            const pixel *restrict a = ref[k] + j0, *restrict b = dis[k] + j0;
            const uint32_t ck = c[k];
            for (unsigned j = 0; j < n; j++) {
                s1[j] += ck * a[j];
                s2[j] += ck * b[j];
            }
        }
        uint16_t *restrict r = out_ref + j0, *restrict d = out_dis + j0;
        for (unsigned j = 0; j < n; j++) {
            r[j] = (uint16_t)((s1[j] + rnd) >> sh);
            d[j] = (uint16_t)((s2[j] + rnd) >> sh);
        }
    }
}

static void FN(dec_v)(const pixel *const *ref, const pixel *const *dis, unsigned f, unsigned w,
                      unsigned sh, uint16_t *out_ref, uint16_t *out_dis)
{
    switch (f) {
    case 0: FN(dec_v_taps)(ref, dis, 0, w, sh, out_ref, out_dis); break;
    case 1: FN(dec_v_taps)(ref, dis, 1, w, sh, out_ref, out_dis); break;
    case 2: FN(dec_v_taps)(ref, dis, 2, w, sh, out_ref, out_dis); break;
    default: FN(dec_v_taps)(ref, dis, 3, w, sh, out_ref, out_dis); break;
    }
}
