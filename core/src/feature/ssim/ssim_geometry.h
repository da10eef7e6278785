/*
 * float_ssim geometry, shared by the CPU extractor and its device twins so
 * that both choose the same scale, the same plane sizes and refuse the same
 * pictures. Plain C99, usable from CUDA host code.
 */
#ifndef LIBVMAF_SRC_FEATURE_SSIM_SSIM_GEOMETRY_H
#define LIBVMAF_SRC_FEATURE_SSIM_SSIM_GEOMETRY_H

#include <stdio.h>

/* The Gaussian window is 11 taps: a plane needs at least 11x11 samples to
 * give one output. */
#define SSIM_WINDOW 11
#define SSIM_SCALE_MAX_OPTION 10
/* Above this scale a decimation window sum is no longer exact in f64 (the
 * products stop being multiples of 2^-45), so summation order would matter
 * and a parallel device could not promise the CPU's bits. */
#define SSIM_SCALE_MAX_EXACT 128

/* Automatic scale: round(min(w, h) / 256) computed as the reference does, in
 * f32 with the fraction compared to 0.5, and at least 1. */
static inline int ssim_auto_scale(unsigned w, unsigned h)
{
    const float a = (float)(w < h ? w : h) / 256.0f;
    int r = (int)a;
    if (a - (float)r >= 0.5f)
        r += 1;
    return r < 1 ? 1 : r;
}

/* The scale in effect: the option (1..10), or automatic when it is 0. */
static inline int ssim_effective_scale(int opt_scale, unsigned w, unsigned h)
{
    return opt_scale > 0 ? opt_scale : ssim_auto_scale(w, h);
}

/* Decimated size: n / s, plus one for odd n whatever s is (a quirk of the
 * reference that scores depend on). Scale 1 leaves the size alone. */
static inline unsigned ssim_decimated_size(unsigned n, int s)
{
    return s > 1 ? n / (unsigned)s + (n & 1u) : n;
}

/* 0 if a w x h picture at this scale gives at least one SSIM output,
 * otherwise -1 with the reason in why[]. */
static inline int ssim_geometry_check(unsigned w, unsigned h, int scale, char *why,
                                      size_t why_len)
{
    const unsigned sw = ssim_decimated_size(w, scale), sh = ssim_decimated_size(h, scale);
    if (sw >= SSIM_WINDOW && sh >= SSIM_WINDOW)
        return 0;
    if (why && why_len) {
        if (scale > 1)
            snprintf(why, why_len,
                     "%ux%u at scale %d gives a %ux%u plane, smaller than the %dx%d SSIM "
                     "window; use a smaller scale",
                     w, h, scale, sw, sh, SSIM_WINDOW, SSIM_WINDOW);
        else
            snprintf(why, why_len, "%ux%u is smaller than the %dx%d SSIM window", w, h,
                     SSIM_WINDOW, SSIM_WINDOW);
    }
    return -1;
}

#endif /* LIBVMAF_SRC_FEATURE_SSIM_SSIM_GEOMETRY_H */
