#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_source.h"

double bench_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* On a busy shared machine CPU time measures the work itself, not the
 * waits for a core. */
double bench_cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static uint32_t rng = 12345;
static uint32_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    return rng;
}

static void put(void *plane, size_t i, unsigned bps, unsigned v, unsigned shift, unsigned maxv)
{
    if (bps == 1)
        ((uint8_t *)plane)[i] = (uint8_t)v;
    else
        ((uint16_t *)plane)[i] = (uint16_t)((v << shift) & maxv);
}

int bench_synth(BenchSource *s)
{
    const unsigned maxv = (1u << s->bpc) - 1, bps = s->bpc > 8 ? 2 : 1;
    for (int f = 0; f < BENCH_N_SRC; f++) {
        s->ref[f] = malloc((size_t)s->w * s->h * bps);
        s->dis[f] = malloc((size_t)s->w * s->h * bps);
        if (!s->ref[f] || !s->dis[f])
            return -ENOMEM;
        for (unsigned y = 0; y < s->h; y++)
            for (unsigned x = 0; x < s->w; x++) {
                unsigned v = (x * 3 + y * 5 + (unsigned)f * 17) & 255;
                v ^= (x / 16 + y / 16) & 1 ? 64 : 0; /* checkerboard */
                v = (v + (rnd() & 15)) & 255;
                unsigned d = v + (rnd() % 13) - 6;
                if (d > 255)
                    d = v;
                const size_t i = (size_t)y * s->w + x;
                put(s->ref[f], i, bps, v, s->bpc - 8, maxv);
                put(s->dis[f], i, bps, d, s->bpc - 8, maxv);
            }
    }
    return 0;
}

void bench_synth_free(BenchSource *s)
{
    for (int f = 0; f < BENCH_N_SRC; f++) {
        free(s->ref[f]);
        free(s->dis[f]);
        s->ref[f] = s->dis[f] = NULL;
    }
}

static enum VmafPixelFormat pix_fmt(unsigned fmt)
{
    return fmt == 420 ? VMAF_PIX_FMT_YUV420P
           : fmt == 422 ? VMAF_PIX_FMT_YUV422P
                        : VMAF_PIX_FMT_YUV444P;
}

int bench_fill(const BenchSource *s, int is_ref, unsigned i, FILE *f, VmafPicture *pic)
{
    int err = vmaf_picture_alloc(pic, pix_fmt(s->fmt), s->bpc, s->w, s->h);
    if (err)
        return err;
    const size_t bps = s->bpc > 8 ? 2 : 1;
    if (f) {
        for (int p = 0; p < 3; p++)
            for (unsigned y = 0; y < pic->h[p]; y++)
                if (fread((char *)pic->data[p] + (ptrdiff_t)y * pic->stride[p], bps,
                          pic->w[p], f) != pic->w[p]) {
                    vmaf_picture_unref(pic);
                    return -EIO;
                }
        return 0;
    }
    bench_copy_luma(s, is_ref, i, pic);
    return 0;
}

void bench_copy_luma(const BenchSource *s, int is_ref, unsigned i, VmafPicture *pic)
{
    const size_t bps = s->bpc > 8 ? 2 : 1;
    const char *src = is_ref ? s->ref[i % BENCH_N_SRC] : s->dis[i % BENCH_N_SRC];
    for (unsigned y = 0; y < s->h; y++)
        memcpy((char *)pic->data[0] + (ptrdiff_t)y * pic->stride[0],
               src + (size_t)y * s->w * bps, s->w * bps);
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double bench_median(double *v, unsigned n)
{
    qsort(v, n, sizeof(*v), cmp_double);
    return n & 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}
