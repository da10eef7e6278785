/*
 * The one pixel-type dependent loop of the ADM numerics: the scale-0
 * vertical transform pass (AdmDsp.dwt_vert_8 / dwt_vert_16). Included by
 * adm_dwt_c.c with `pixel` (uint8_t or uint16_t) and FN(name) defined.
 *
 * The sums are formed in uint32_t: at 16 bits they exceed int32_t, and the
 * reference's int32 overflow wraps back into range after the offset; the
 * unsigned sums give those bits without undefined behaviour.
 */
static void FN(dwt_vert)(const pixel *const s[4], unsigned w, unsigned bpc, int16_t *lo,
                         int16_t *hi)
{
    const uint32_t half = 1u << (bpc - 1);
    const uint32_t lo_offset = 46342u * half - half; /* recentres the low band */
    const pixel *s0 = s[0], *s1 = s[1], *s2 = s[2], *s3 = s[3];
    for (unsigned x = 0; x < w; x++) {
        const uint32_t a = s0[x], b = s1[x], c = s2[x], d = s3[x];
        const uint32_t l = 15826u * a + 27411u * b + 7345u * c - 4240u * d;
        const uint32_t h = 27411u * c - 4240u * a - 7345u * b - 15826u * d;
        lo[x] = (int16_t)((int32_t)(l - lo_offset) >> bpc);
        hi[x] = (int16_t)((int32_t)(h + half) >> bpc);
    }
}
