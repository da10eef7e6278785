/*
 * Scratch layout of one call: the low-band planes, the transform's row
 * buffers, and each group's ring of rows. Every row has PAD spare elements
 * on both sides (the passes read one past each end) and starts on a 64-byte
 * boundary for future SIMD entries.
 */
#include <stdint.h>

#include "feature/adm/adm_frame.h"

#define ALIGN 64u
#define PAD 16u /* elements; keeps row starts aligned */

typedef struct Cursor {
    uint8_t *base; /* NULL while measuring */
    size_t used;
} Cursor;

static void *take(Cursor *c, size_t bytes)
{
    c->used = (c->used + ALIGN - 1) & ~(size_t)(ALIGN - 1);
    void *p = c->base ? c->base + c->used : NULL;
    c->used += bytes;
    return p;
}

static int32_t *row32(Cursor *c, unsigned n)
{
    int32_t *p = take(c, (n + 2 * PAD) * sizeof(int32_t));
    return p ? p + PAD : NULL;
}

static int16_t *row16(Cursor *c, unsigned n)
{
    int16_t *p = take(c, (n + 2 * PAD) * sizeof(int16_t));
    return p ? p + PAD : NULL;
}

static void ring_rows(Cursor *c, AdmRing *r, unsigned w)
{
    for (int slot = 0; slot < 3; slot++) {
        for (int b = 0; b < 3; b++) {
            r->r[slot].b[b] = row32(c, w);
            r->a[slot].b[b] = row32(c, w);
        }
        r->fa[slot] = row32(c, w);
        r->ca[slot] = row32(c, w);
        r->sa[slot] = row32(c, w);
        r->fr[slot] = row32(c, w);
        r->cr[slot] = row32(c, w);
        r->sr[slot] = row32(c, w);
    }
}

size_t vmaf_adm_layout(AdmFrame *f, void *scratch)
{
    Cursor c = {NULL, 0};
    if (scratch) {
        const uintptr_t at = (uintptr_t)scratch;
        c.base = (uint8_t *)scratch + ((ALIGN - at % ALIGN) % ALIGN);
    }
    const AdmScalePlan *p = f->plan;
    for (int side = 0; side < 2; side++) {
        f->plane[0][side] = take(&c, (size_t)p[0].w * p[0].h * sizeof(int32_t));
        f->plane[1][side] = take(&c, (size_t)p[1].w * p[1].h * sizeof(int32_t));
        for (int b = 0; b < 3; b++)
            f->band[side].b[b] = row32(&c, p[0].w);
    }
    f->lo16 = row16(&c, p[0].in_w);
    f->hi16 = row16(&c, p[0].in_w);
    f->lo32 = row32(&c, p[1].in_w);
    f->hi32 = row32(&c, p[1].in_w);
    f->sink = row32(&c, p[3].w);
    for (unsigned g = 0; g < f->n_groups; g++)
        ring_rows(&c, &f->group[g].ring, p[0].w);
    return c.used + ALIGN;
}
