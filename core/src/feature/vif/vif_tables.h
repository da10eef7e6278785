/*
 * Constants of the integer VIF: the four Gaussian filters (integer taps
 * summing to 65536, one per scale) and the log2 lookup table.
 */
#ifndef LIBVMAF_SRC_FEATURE_VIF_VIF_TABLES_H
#define LIBVMAF_SRC_FEATURE_VIF_VIF_TABLES_H

#include <stdint.h>

#define VIF_SCALES 4
#define VIF_MAX_TAPS 17
#define VIF_MAX_HALF (VIF_MAX_TAPS / 2)

/* Taps of the filter of scale f: 17, 9, 5, 3. */
static inline unsigned vif_taps(unsigned f)
{
    return 17u >> f | 1u;
}

/* Filter f, taps 0..vif_taps(f)-1 (symmetric). Kept in the header so that
 * the kernels see constants. */
static const uint16_t vif_filter[VIF_SCALES][VIF_MAX_TAPS] = {
    {489, 935, 1640, 2640, 3896, 5274, 6547, 7455, 7784, 7455, 6547, 5274, 3896, 2640, 1640, 935,
     489},
    {1244, 3663, 7925, 12590, 14692, 12590, 7925, 3663, 1244},
    {3571, 16004, 26386, 16004, 3571},
    {10904, 43728, 10904},
};

/* log2 of 16-bit mantissas, in units of 1/2048: entry k is
 * round(log2f(VIF_LOG2_FIRST + k) * 2048), as the reference builds it with
 * libm at start-up. One more entry, zero, follows: SIMD lanes without a log
 * term read it. Filled by vmaf_vif_tables_init(), which every user calls
 * first (vmaf_vif_dsp_init() does). */
#define VIF_LOG2_FIRST 32768u
#define VIF_LOG2_TABLE_SIZE 32768
extern uint16_t vmaf_vif_log2_table[VIF_LOG2_TABLE_SIZE + 1];

/* Fills vmaf_vif_log2_table once; safe from any thread, cheap after. */
void vmaf_vif_tables_init(void);

/* The table rises by one from 15 * 2048 to 16 * 2048; the source keeps only
 * where it rises: entry j is the first k whose value exceeds 15 * 2048 + j.
 * Written by gen_vif_tables.py (vif_log2_table.c). */
#define VIF_LOG2_BASE (15u * 2048u)
#define VIF_LOG2_STEPS 2048
extern const uint16_t vmaf_vif_log2_steps[VIF_LOG2_STEPS];

#endif /* LIBVMAF_SRC_FEATURE_VIF_VIF_TABLES_H */
