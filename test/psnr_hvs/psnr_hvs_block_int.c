/* psnr_hvs_block.h as the CUDA kernel compiles it (integer division and
 * square root, cuda/f32_int_math.h), built on the host for
 * test_psnr_hvs_block.c. */
#define PSNR_HVS_INT_OPS 1
#include "psnr_hvs_block_int.h"

void block_terms_int(int32_t s[64], int32_t d[64], const float mask[8][8],
                     const float csf[8][8], float terms[64])
{
    psnr_hvs_block_terms(s, d, mask, csf, terms);
}
