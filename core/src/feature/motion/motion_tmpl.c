/*
 * Sample-type dependent loops of the motion SAD, compiled once per sample
 * type. Included by motion_kernels.c with `pixel` (uint8_t or uint16_t)
 * and FN(name) (which appends the sample-size and instruction-set
 * suffixes) defined.
 */

/* The vertical pass of one row. Below 16 bits the sum fits an int32
 * (|diff| < 2^15, the taps sum to 2^16), which lets it vectorise twice as
 * wide; at 16 bits it needs the reference's int64. */
static void FN(blur_diff_col)(const pixel *const prev[MOTION_TAPS],
                              const pixel *const cur[MOTION_TAPS], unsigned w, unsigned bpc,
                              int32_t *restrict y)
{
    const uint16_t *f = vmaf_motion_filter;
    const int32_t round = 1 << (bpc - 1);
    const pixel *restrict p0 = prev[0], *restrict p1 = prev[1], *restrict p2 = prev[2],
                          *restrict p3 = prev[3], *restrict p4 = prev[4];
    const pixel *restrict c0 = cur[0], *restrict c1 = cur[1], *restrict c2 = cur[2],
                          *restrict c3 = cur[3], *restrict c4 = cur[4];
    if (bpc < 16) {
        for (unsigned x = 0; x < w; x++) {
            const int32_t sum = f[0] * (p0[x] - c0[x]) + f[1] * (p1[x] - c1[x]) +
                                f[2] * (p2[x] - c2[x]) + f[3] * (p3[x] - c3[x]) +
                                f[4] * (p4[x] - c4[x]);
            y[x] = (sum + round) >> bpc;
        }
        return;
    }
    for (unsigned x = 0; x < w; x++) {
        const int64_t sum = (int64_t)f[0] * (p0[x] - c0[x]) + (int64_t)f[1] * (p1[x] - c1[x]) +
                            (int64_t)f[2] * (p2[x] - c2[x]) + (int64_t)f[3] * (p3[x] - c3[x]) +
                            (int64_t)f[4] * (p4[x] - c4[x]);
        y[x] = (int32_t)((sum + round) >> bpc);
    }
}
