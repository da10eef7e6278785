/*
 * Pixel-type dependent inner loops of float_ssim, compiled once per sample
 * type. Included by ssim_kernels.c with `pixel` (uint8_t or uint16_t) and
 * FN(name) (which appends the sample-size and instruction-set suffixes)
 * defined.
 */

/* One row of samples to f32: p * 2^-(bpc-8). The divisor is a power of two,
 * so multiplying by its reciprocal gives the same bits as dividing. */
static void FN(convert_row)(const pixel *restrict src, unsigned w, float inv_d,
                            float *restrict dst)
{
    for (unsigned x = 0; x < w; x++)
        dst[x] = (float)src[x] * inv_d;
}

/* Adds one source row of products (sample * k, rounded to f32) to the
 * per-column f64 sums. kk = k * 2^-(bpc-8) exactly, so (f32)p * kk rounds
 * the same real number as ((f32)p / d) * k. first != 0 starts the sums. */
static void FN(accumulate_row)(const pixel *restrict src, unsigned w, float kk,
                               double *restrict acc, int first)
{
    if (first) {
        for (unsigned x = 0; x < w; x++)
            acc[x] = (double)((float)src[x] * kk);
    } else {
        for (unsigned x = 0; x < w; x++)
            acc[x] += (double)((float)src[x] * kk);
    }
}
