/*
 * Scratch layout of the integer VIF. Every array starts on a 64-byte
 * boundary (whole cache lines; aligned SIMD loads of column 0).
 */
#include <stdint.h>

#include "feature/vif/vif_scratch.h"

#define VIF_ALIGN 64

/* Reserves bytes at the cursor; returns the array, or NULL when sizing. */
static void *take(uint8_t *base, size_t *cursor, size_t bytes)
{
    void *p = base ? base + *cursor : NULL;
    *cursor += (bytes + VIF_ALIGN - 1) & ~(size_t)(VIF_ALIGN - 1);
    return p;
}

/* A row buffer of n elements padded by VIF_ROW_PAD each side; returns its
 * column 0. */
static void *take_row(uint8_t *base, size_t *cursor, unsigned n, size_t elem)
{
    uint8_t *p = take(base, cursor, ((size_t)n + 2 * VIF_ROW_PAD) * elem);
    return p ? p + VIF_ROW_PAD * elem : NULL;
}

size_t vif_scratch_layout(unsigned w, unsigned h, void *base, VifWork *wk)
{
    uint8_t *b = NULL;
    if (base) {
        const uintptr_t a = (uintptr_t)base;
        b = (uint8_t *)base + ((VIF_ALIGN - a % VIF_ALIGN) % VIF_ALIGN);
    }
    size_t at = 0;
    VifWork tmp;
    if (!wk)
        wk = &tmp;
    wk->plane_ref[0] = wk->plane_dis[0] = NULL;
    wk->plane_stride[0] = 0;
    for (unsigned s = 1; s < VIF_SCALES; s++) {
        const size_t stride = ((size_t)(w >> s) + 31) & ~(size_t)31;
        wk->plane_stride[s] = stride;
        wk->plane_ref[s] = take(b, &at, stride * (h >> s) * sizeof(uint16_t));
        wk->plane_dis[s] = take(b, &at, stride * (h >> s) * sizeof(uint16_t));
    }
    wk->vrow.mu1 = take_row(b, &at, w, sizeof(uint16_t));
    wk->vrow.mu2 = take_row(b, &at, w, sizeof(uint16_t));
    wk->vrow.xx = take_row(b, &at, w, sizeof(uint32_t));
    wk->vrow.yy = take_row(b, &at, w, sizeof(uint32_t));
    wk->vrow.xy = take_row(b, &at, w, sizeof(uint32_t));
    wk->dec_ref = take_row(b, &at, w, sizeof(uint16_t));
    wk->dec_dis = take_row(b, &at, w, sizeof(uint16_t));
    wk->mom.mu1 = take(b, &at, VIF_CHUNK * sizeof(uint32_t));
    wk->mom.mu2 = take(b, &at, VIF_CHUNK * sizeof(uint32_t));
    wk->mom.xx = take(b, &at, VIF_CHUNK * sizeof(uint32_t));
    wk->mom.yy = take(b, &at, VIF_CHUNK * sizeof(uint32_t));
    wk->mom.xy = take(b, &at, VIF_CHUNK * sizeof(uint32_t));
    return at + VIF_ALIGN - 1;
}
