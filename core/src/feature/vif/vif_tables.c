/*
 * The integer VIF log2 table, expanded from its checked-in steps
 * (vif_log2_table.c): 64 KiB of table would be 3 000 lines of source.
 */
#include <pthread.h>
#include <stdint.h>

#include "feature/vif/vif_tables.h"

uint16_t vmaf_vif_log2_table[VIF_LOG2_TABLE_SIZE + 1];
static pthread_once_t log2_table_once = PTHREAD_ONCE_INIT;

static void log2_table_expand(void)
{
    unsigned value = VIF_LOG2_BASE, step = 0;
    for (unsigned k = 0; k < VIF_LOG2_TABLE_SIZE; k++) {
        while (step < VIF_LOG2_STEPS && vmaf_vif_log2_steps[step] <= k) {
            step++;
            value++;
        }
        vmaf_vif_log2_table[k] = (uint16_t)value;
    }
    vmaf_vif_log2_table[VIF_LOG2_TABLE_SIZE] = 0;
}

void vmaf_vif_tables_init(void)
{
    pthread_once(&log2_table_once, log2_table_expand);
}
