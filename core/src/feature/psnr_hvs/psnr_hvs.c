/*
 * The PSNR-HVS error of a plane. Each step keeps the reference's types:
 * block means, variances and sums are float, integers enter them as
 * float, the masking threshold is the double square root of a float
 * product, and the error sum is one float added block by block,
 * coefficient by coefficient (row-major), so its rounding is the
 * reference's. Built with -ffp-contract=off.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "feature/psnr_hvs/psnr_hvs.h"

/* Xiph's tables, as the reference has them: double constants stored as
 * float. */
const float vmaf_psnr_hvs_csf[3][8][8] = {
    { { 1.6193873005, 2.2901594831, 2.08509755623, 1.48366094411, 1.00227514334,
        0.678296995242, 0.466224900598, 0.3265091542 },
      { 2.2901594831, 1.94321815382, 2.04793073064, 1.68731108984, 1.2305666963,
        0.868920337363, 0.61280991668, 0.436405793551 },
      { 2.08509755623, 2.04793073064, 1.34329019223, 1.09205635862, 0.875748795257,
        0.670882927016, 0.501731932449, 0.372504254596 },
      { 1.48366094411, 1.68731108984, 1.09205635862, 0.772819797575, 0.605636379554,
        0.48309405692, 0.380429446972, 0.295774038565 },
      { 1.00227514334, 1.2305666963, 0.875748795257, 0.605636379554, 0.448996256676,
        0.352889268808, 0.283006984131, 0.226951348204 },
      { 0.678296995242, 0.868920337363, 0.670882927016, 0.48309405692, 0.352889268808,
        0.27032073436, 0.215017739696, 0.17408067321 },
      { 0.466224900598, 0.61280991668, 0.501731932449, 0.380429446972, 0.283006984131,
        0.215017739696, 0.168869545842, 0.136153931001 },
      { 0.3265091542, 0.436405793551, 0.372504254596, 0.295774038565, 0.226951348204,
        0.17408067321, 0.136153931001, 0.109083846276 } },
    { { 1.91113096927, 2.46074210438, 1.18284184739, 1.14982565193, 1.05017074788,
        0.898018824055, 0.74725392039, 0.615105596242 },
      { 2.46074210438, 1.58529308355, 1.21363250036, 1.38190029285, 1.33100189972,
        1.17428548929, 0.996404342439, 0.830890433625 },
      { 1.18284184739, 1.21363250036, 0.978712413627, 1.02624506078, 1.03145147362,
        0.960060382087, 0.849823426169, 0.731221236837 },
      { 1.14982565193, 1.38190029285, 1.02624506078, 0.861317501629, 0.801821139099,
        0.751437590932, 0.685398513368, 0.608694761374 },
      { 1.05017074788, 1.33100189972, 1.03145147362, 0.801821139099, 0.676555426187,
        0.605503172737, 0.55002013668, 0.495804539034 },
      { 0.898018824055, 1.17428548929, 0.960060382087, 0.751437590932, 0.605503172737,
        0.514674450957, 0.454353482512, 0.407050308965 },
      { 0.74725392039, 0.996404342439, 0.849823426169, 0.685398513368, 0.55002013668,
        0.454353482512, 0.389234902883, 0.342353999733 },
      { 0.615105596242, 0.830890433625, 0.731221236837, 0.608694761374, 0.495804539034,
        0.407050308965, 0.342353999733, 0.295530605237 } },
    { { 2.03871978502, 2.62502345193, 1.26180942886, 1.11019789803, 1.01397751469,
        0.867069376285, 0.721500455585, 0.593906509971 },
      { 2.62502345193, 1.69112867013, 1.17180569821, 1.3342742857, 1.28513006198,
        1.13381474809, 0.962064122248, 0.802254508198 },
      { 1.26180942886, 1.17180569821, 0.944981930573, 0.990876405848, 0.995903384143,
        0.926972725286, 0.820534991409, 0.706020324706 },
      { 1.11019789803, 1.3342742857, 0.990876405848, 0.831632933426, 0.77418706195,
        0.725539939514, 0.661776842059, 0.587716619023 },
      { 1.01397751469, 1.28513006198, 0.995903384143, 0.77418706195, 0.653238524286,
        0.584635025748, 0.531064164893, 0.478717061273 },
      { 0.867069376285, 1.13381474809, 0.926972725286, 0.725539939514, 0.584635025748,
        0.496936637883, 0.438694579826, 0.393021669543 },
      { 0.721500455585, 0.962064122248, 0.820534991409, 0.661776842059, 0.531064164893,
        0.438694579826, 0.375820256136, 0.330555063063 },
      { 0.593906509971, 0.802254508198, 0.706020324706, 0.587716619023, 0.478717061273,
        0.393021669543, 0.330555063063, 0.285345396658 } },
};

/* The masking weight of each coefficient: the table scaled by the
 * constant of PSNR-HVS-M, squared. */
static void masking_of(const float csf[8][8], float mask[8][8])
{
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 8; j++)
            mask[i][j] = (csf[i][j] * 0.3885746225901003) * (csf[i][j] * 0.3885746225901003);
}

static void load_block(const void *p, ptrdiff_t stride, unsigned y, unsigned x, unsigned bpc,
                       int32_t b[64])
{
    for (int i = 0; i < 8; i++) {
        const char *row = (const char *)p + (ptrdiff_t)(y + i) * stride;
        for (int j = 0; j < 8; j++)
            b[i * 8 + j] = bpc > 8 ? ((const uint16_t *)row)[x + j]
                                   : ((const uint8_t *)row)[x + j];
    }
}

/* Which 4x4 quarter of the block sample (i, j) lies in. */
static inline int quarter(int i, int j)
{
    return ((i & 12) >> 2) + ((j & 12) >> 1);
}

/* The block's variance spread: the sum of its quarters' variances over
 * its whole variance (that whole variance when it is 0). */
static float variance_ratio(const int32_t b[64])
{
    float mean = 0, qmean[4] = { 0 }, var = 0, qvar[4] = { 0 };
    for (int k = 0; k < 64; k++) {
        mean += b[k];
        qmean[quarter(k / 8, k % 8)] += b[k];
    }
    mean /= 64.f;
    for (int q = 0; q < 4; q++)
        qmean[q] /= 16.f;
    for (int k = 0; k < 64; k++) {
        const int q = quarter(k / 8, k % 8);
        var += (b[k] - mean) * (b[k] - mean);
        qvar[q] += (b[k] - qmean[q]) * (b[k] - qmean[q]);
    }
    var *= 1 / 63.f * 64;
    for (int q = 0; q < 4; q++)
        qvar[q] *= 1 / 15.f * 16;
    if (var > 0)
        var = (qvar[0] + qvar[1] + qvar[2] + qvar[3]) / var;
    return var;
}

/* The masking threshold of a transformed block: its AC energy weighted by
 * the mask, times the variance ratio, square-rooted. */
static float threshold_of(const int32_t dct[64], const float mask[8][8], float ratio)
{
    float energy = 0;
    for (int i = 0; i < 8; i++)
        for (int j = i == 0; j < 8; j++)
            energy += dct[i * 8 + j] * dct[i * 8 + j] * mask[i][j];
    return sqrt(energy * ratio) / 32.f;
}

float vmaf_psnr_hvs_error(const void *ref, ptrdiff_t ref_stride, const void *dis,
                          ptrdiff_t dis_stride, unsigned w, unsigned h, unsigned bpc,
                          int table)
{
    const float(*csf)[8] = vmaf_psnr_hvs_csf[table];
    float mask[8][8];
    masking_of(csf, mask);
    float sum = 0;
    int count = 0;
    for (unsigned y = 0; y + 7 < h; y += 7) {
        for (unsigned x = 0; x + 7 < w; x += 7) {
            int32_t s[64], d[64];
            load_block(ref, ref_stride, y, x, bpc, s);
            load_block(dis, dis_stride, y, x, bpc, d);
            const float s_ratio = variance_ratio(s), d_ratio = variance_ratio(d);
            vmaf_psnr_hvs_dct8x8(s);
            vmaf_psnr_hvs_dct8x8(d);
            float limit = threshold_of(s, mask, s_ratio);
            const float d_limit = threshold_of(d, mask, d_ratio);
            if (d_limit > limit)
                limit = d_limit;
            for (int i = 0; i < 8; i++)
                for (int j = 0; j < 8; j++) {
                    float err = abs(s[i * 8 + j] - d[i * 8 + j]);
                    if (i != 0 || j != 0)
                        err = err < limit / mask[i][j] ? 0 : err - limit / mask[i][j];
                    sum += (err * csf[i][j]) * (err * csf[i][j]);
                    count++;
                }
        }
    }
    sum /= count;
    const int32_t peak = (1 << bpc) - 1;
    sum /= peak * peak;
    return sum;
}
