/*
 * The integer VIF constants: the log2 table expanded from its checked-in
 * steps (written by core/src/feature/vif/gen_vif_tables.py) recomputed the
 * reference's way,
 * round(log2f(i) * 2048) with this machine's libm, and the filters' shape
 * (taps summing to 65536, which the exactness of every integer sum relies
 * on; symmetric; the tap counts).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "feature/vif/vif_tables.h"

int main(void)
{
    vmaf_vif_tables_init();
    unsigned differ = vmaf_vif_log2_table[VIF_LOG2_TABLE_SIZE] != 0;
    for (unsigned k = 0; k < VIF_LOG2_TABLE_SIZE; k++) {
        const unsigned i = VIF_LOG2_FIRST + k;
        const uint16_t want = (uint16_t)round(log2f((float)i) * 2048);
        if (vmaf_vif_log2_table[k] != want && differ++ < 10)
            printf("log2 table entry %u (log2 of %u): %u, libm gives %u\n", k, i,
                   vmaf_vif_log2_table[k], want);
    }
    const unsigned want_taps[VIF_SCALES] = {17, 9, 5, 3};
    unsigned bad_filters = 0;
    for (unsigned f = 0; f < VIF_SCALES; f++) {
        uint32_t sum = 0;
        const unsigned t = vif_taps(f);
        for (unsigned k = 0; k < t; k++) {
            sum += vif_filter[f][k];
            bad_filters += vif_filter[f][k] != vif_filter[f][t - 1 - k];
        }
        for (unsigned k = t; k < VIF_MAX_TAPS; k++)
            bad_filters += vif_filter[f][k] != 0;
        bad_filters += sum != 65536 || t != want_taps[f];
        if (sum != 65536 || t != want_taps[f])
            printf("filter %u: %u taps summing to %u\n", f, t, (unsigned)sum);
    }
    printf("vif tables: %u log2 entries differ from libm, %u filter faults\n", differ,
           bad_filters);
    return differ || bad_filters;
}
