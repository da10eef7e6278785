/*
 * The PSNR scores from exact sums, in the reference's types and order:
 * peak^2 is an unsigned product converted to double, sample counts are
 * unsigned products, and every step rounds where the reference's does
 * (the library is built with -ffp-contract=off).
 */
#include <math.h>

#include "feature/psnr/psnr.h"

const char *const vmaf_psnr_feature[PSNR_PLANES] = { "psnr_y", "psnr_cb", "psnr_cr" };
const char *const vmaf_mse_feature[PSNR_PLANES] = { "mse_y", "mse_cb", "mse_cr" };
const char *const vmaf_apsnr_feature[PSNR_PLANES] = { "apsnr_y", "apsnr_cb", "apsnr_cr" };

unsigned vmaf_psnr_peak(const PsnrOptions *o, unsigned bpc)
{
    if (bpc == 8)
        return 255;
    return o->reduced_hbd_peak ? 255u << (bpc - 8) : (1u << bpc) - 1;
}

double vmaf_psnr_max(const PsnrOptions *o, unsigned bpc, unsigned peak, unsigned pw,
                     unsigned ph)
{
    if (o->min_sse == 0.0)
        return (double)(6 * bpc + 12);
    const double mse = o->min_sse / (double)(pw * ph);
    return ceil(10. * log10((double)(peak * peak) / mse));
}

double vmaf_psnr_mse(uint64_t sse, unsigned pw, unsigned ph)
{
    return (double)sse / (double)(pw * ph);
}

double vmaf_psnr_db(double mse, unsigned peak, double max)
{
    const double floor_mse = mse > 1e-16 ? mse : 1e-16;
    const double db = 10. * log10((double)(peak * peak) / floor_mse);
    return db < max ? db : max;
}

double vmaf_apsnr_db(uint64_t sse, uint64_t samples, unsigned peak)
{
    const unsigned pp = peak * peak;
    /* sse = 0 makes log10(0) = -inf, the sum +inf, and the cap applies. */
    const double db = 10 * (log10((double)pp) + log10((double)samples) - log10((double)sse));
    const double max = ceil(10 * log10((double)((uint64_t)pp * samples * 2)));
    return db < max ? db : max;
}
