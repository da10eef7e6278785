/* The device's block code on the host (psnr_hvs_block_int.c). */
#ifndef TEST_PSNR_HVS_PSNR_HVS_BLOCK_INT_H
#define TEST_PSNR_HVS_PSNR_HVS_BLOCK_INT_H

#include "feature/psnr_hvs/psnr_hvs_block.h"

void block_terms_int(int32_t s[64], int32_t d[64], const float mask[8][8],
                     const float csf[8][8], float terms[64]);

#endif /* TEST_PSNR_HVS_PSNR_HVS_BLOCK_INT_H */
