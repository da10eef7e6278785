/*
 * float_ssim numerics. The arithmetic is fixed by docs/metrics/float_ssim.md
 * down to every rounding; this file only chooses the order of independent
 * work so that it runs row by row in cache:
 *   source row (converted or decimated) -> five horizontal Gaussian rows in
 *   an 11-row ring -> once 11 rows are in, one vertical row per plane ->
 *   per-pixel combine -> frame sums in row-major order.
 * Built without FMA contraction (a fused a*b+c rounds once and changes the
 * bits) and without reassociation; the loops are written so that the
 * compiler can vectorise them across pixels without reordering any sum.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "cpu.h"
#include "feature/ssim/ssim.h"
#include "feature/ssim/ssim_kernels.h"
#include "picture_internal.h"

const float vmaf_ssim_gauss[SSIM_WINDOW] = {
    0.001028f, 0.007599f, 0.036001f, 0.109361f, 0.213006f, 0.266012f,
    0.213006f, 0.109361f, 0.036001f, 0.007599f, 0.001028f,
};

/* ---- kernel choice ------------------------------------------------------- */

/* Variants in order of preference (last usable wins); index 0 is plain C. */
static const VmafKernelVariant variants[] = {
    {&vmaf_ssim_kernels_c, 0},
#if HAVE_AVX2_KERNELS
    {&vmaf_ssim_kernels_avx2, VMAF_CPU_FLAG_AVX2},
#endif
#if HAVE_AVX512_KERNELS
    {&vmaf_ssim_kernels_avx512, VMAF_CPU_FLAG_AVX512},
#endif
};
#define N_VARIANTS ((int)(sizeof(variants) / sizeof(variants[0])))

static const VmafSsimKernels *kernels_forced;

/* The best variant the CPU has and the cpumask allows; asked per frame, so a
 * later vmaf_init() with another mask takes effect. */
static const VmafSsimKernels *kernels(void)
{
    if (kernels_forced)
        return kernels_forced;
    return vmaf_kernel_variant_best(variants, N_VARIANTS);
}

int vmaf_ssim_kernels_count(void)
{
    return N_VARIANTS;
}

int vmaf_ssim_kernels_select(int i)
{
    if (i < 0) {
        kernels_forced = NULL;
        return 0;
    }
    if (i >= N_VARIANTS)
        return -EINVAL;
    const VmafSsimKernels *k = vmaf_kernel_variant_get(variants, N_VARIANTS, i);
    if (!k)
        return -ENOTSUP;
    kernels_forced = k;
    return 0;
}

const VmafSsimKernels *vmaf_ssim_kernels_get(int i)
{
    return vmaf_kernel_variant_get(variants, N_VARIANTS, i);
}

const char *vmaf_ssim_kernels_name(void)
{
    return kernels()->name;
}

/* ---- decimation ------------------------------------------------------------ */

static const void *row_at(const void *plane, ptrdiff_t stride, int y)
{
    return (const char *)plane + (ptrdiff_t)y * stride;
}

/* Output row y of the box decimation by s (2..SSIM_SCALE_MAX_EXACT).
 *
 * Every product is a multiple of 2^-45 and a window sums to less than 2^8,
 * so the f64 sums are exact and their order is free: columns are summed
 * over the s rows first (contiguous, vectorisable), then each window adds
 * its s column sums. The reference's row-by-row order gives the same bits. */
static void decimate_row(const VmafSsimKernels *k, const void *src, ptrdiff_t stride,
                         unsigned bpc, unsigned w, unsigned h, int s, unsigned y, float kk,
                         double *restrict acc, float *restrict dst, unsigned sw)
{
    const int half = s / 2;
    for (int v = 0; v < s; v++) {
        const void *row = row_at(src, stride, vmaf_ssim_mirror((int)y * s - half + v, (int)h));
        if (bpc > 8)
            k->accumulate_row_16(row, w, kk, acc, v == 0);
        else
            k->accumulate_row_8(row, w, kk, acc, v == 0);
    }
    for (unsigned x = 0; x < sw; x++) {
        const int x0 = (int)x * s - half;
        double sum = 0.0;
        if (x0 >= 0 && x0 + s <= (int)w) {
            const double *a = acc + x0;
            for (int u = 0; u < s; u++)
                sum += a[u];
        } else {
            for (int u = 0; u < s; u++)
                sum += acc[vmaf_ssim_mirror(x0 + u, (int)w)];
        }
        dst[x] = (float)sum;
    }
}

/* The same output row in the reference's literal order (rows outer,
 * columns inner, f32 products added to an f64 sum). Used above
 * SSIM_SCALE_MAX_EXACT, where the sums stop being exact. */
static void decimate_row_literal(const void *src, ptrdiff_t stride, unsigned bpc, unsigned w,
                                 unsigned h, int s, unsigned y, float inv_d, float k,
                                 float *restrict dst, unsigned sw)
{
    const int half = s / 2;
    for (unsigned x = 0; x < sw; x++) {
        double sum = 0.0;
        for (int v = 0; v < s; v++) {
            const int yy = vmaf_ssim_mirror((int)y * s - half + v, (int)h);
            const void *row = row_at(src, stride, yy);
            for (int u = 0; u < s; u++) {
                const int xx = vmaf_ssim_mirror((int)x * s - half + u, (int)w);
                const unsigned p =
                    bpc > 8 ? ((const uint16_t *)row)[xx] : ((const uint8_t *)row)[xx];
                const float sample = (float)p * inv_d;
                sum += (double)(sample * k);
            }
        }
        dst[x] = (float)sum;
    }
}

/* 1 / 2^(bpc-8): exact in f32. */
static float inv_divisor(unsigned bpc)
{
    return 1.0f / (float)(1u << (bpc - 8));
}

int vmaf_ssim_decimate_axis_ok(unsigned n, int s)
{
    if (s <= 1)
        return n > 0;
    if (!n || n > INT32_MAX / 4)
        return 0;
    const long long sn = (long long)ssim_decimated_size(n, s);
    const long long first = -(long long)(s / 2);
    const long long last = (sn - 1) * s - s / 2 + s - 1;
    return first >= -(long long)n && last <= 2 * (long long)n - 1;
}

/* ---- scratch ------------------------------------------------------------- */

enum { PL_R, PL_D, PL_RR, PL_DD, PL_RD, PL_N };

typedef struct Scratch {
    float *row[PL_N];  /* W: current input row of each plane */
    float *ring;       /* SSIM_WINDOW slots of PL_N horizontal rows of Wo */
    float *vout[PL_N]; /* Wo: filtered means and products */
    double *term[4];   /* Wo: t, l, c, s of one output row */
    double *dec_acc;   /* w: decimation column sums (scales 2..exact limit) */
} Scratch;

#define ALIGN 64

static size_t align_up(size_t n)
{
    return (n + (ALIGN - 1)) & ~(size_t)(ALIGN - 1);
}

/* Lays the scratch out from base (NULL: just measure). Returns bytes used. */
static size_t scratch_layout(char *base, unsigned w, unsigned W, unsigned H, int dec,
                             Scratch *sc)
{
    (void)H;
    const size_t Wo = W - (SSIM_WINDOW - 1);
    size_t off = 0;
#define TAKE(ptr, type, count)                                                     \
    do {                                                                           \
        if (base)                                                                  \
            (ptr) = (type *)(void *)(base + off);                                  \
        off += align_up(sizeof(type) * (size_t)(count));                           \
    } while (0)
    for (int p = 0; p < PL_N; p++)
        TAKE(sc->row[p], float, W);
    TAKE(sc->ring, float, (size_t)SSIM_WINDOW * PL_N * Wo);
    for (int p = 0; p < PL_N; p++)
        TAKE(sc->vout[p], float, Wo);
    for (int i = 0; i < 4; i++)
        TAKE(sc->term[i], double, Wo);
    if (dec)
        TAKE(sc->dec_acc, double, w);
    else if (base)
        sc->dec_acc = NULL;
#undef TAKE
    return off;
}

static int scratch_setup(void *scratch, size_t size, unsigned w, unsigned W, unsigned H,
                         int dec, Scratch *sc)
{
    if (!scratch)
        return -EINVAL;
    char *base = (char *)scratch;
    const size_t pad = (ALIGN - ((uintptr_t)base & (ALIGN - 1))) & (ALIGN - 1);
    Scratch tmp;
    const size_t need = scratch_layout(NULL, w, W, H, dec, &tmp);
    if (size < pad || size - pad < need)
        return -EINVAL;
    scratch_layout(base + pad, w, W, H, dec, sc);
    return 0;
}

/* ---- the row pipeline ------------------------------------------------------ */

typedef struct Source {
    const void *ref, *dist;     /* pixels, or f32 planes when is_float */
    ptrdiff_t ref_stride, dist_stride;
    int is_float;
    unsigned bpc, w, h;
    int scale;
    float inv_d, k, kk;
} Source;

/* Rows y of both input planes (converted or decimated) as f32. */
static void source_rows(const VmafSsimKernels *k, const Source *src, const Scratch *sc,
                        unsigned y, unsigned W, const float **r, const float **d)
{
    if (src->is_float) {
        *r = (const float *)src->ref + (ptrdiff_t)y * src->ref_stride;
        *d = (const float *)src->dist + (ptrdiff_t)y * src->dist_stride;
        return;
    }
    const void *pl[2] = {src->ref, src->dist};
    const ptrdiff_t st[2] = {src->ref_stride, src->dist_stride};
    for (int i = 0; i < 2; i++) {
        float *dst = sc->row[i];
        if (src->scale == 1) {
            const void *row = row_at(pl[i], st[i], (int)y);
            if (src->bpc > 8)
                k->convert_row_16(row, W, src->inv_d, dst);
            else
                k->convert_row_8(row, W, src->inv_d, dst);
        } else if (src->scale <= SSIM_SCALE_MAX_EXACT) {
            decimate_row(k, pl[i], st[i], src->bpc, src->w, src->h, src->scale, y, src->kk,
                         sc->dec_acc, dst, W);
        } else {
            decimate_row_literal(pl[i], st[i], src->bpc, src->w, src->h, src->scale, y,
                                 src->inv_d, src->k, dst, W);
        }
    }
    *r = sc->row[0];
    *d = sc->row[1];
}

/* Rounds to f32 and widens back, through memory on purpose: with AVX
 * enabled, GCC 12's SLP vectoriser folds a vector (double)(float)x round
 * trip into nothing, silently skipping the rounding the scores are defined
 * with. */
static double round_to_f32(double x)
{
    volatile float f = (float)x;
    return (double)f;
}

static void run_pipeline(const Source *src, const Scratch *sc, unsigned W, unsigned H,
                         VmafSsimResult *res)
{
    const unsigned Wo = W - (SSIM_WINDOW - 1), Ho = H - (SSIM_WINDOW - 1);
    const size_t slot_len = (size_t)PL_N * Wo;
    const VmafSsimKernels *k = kernels();
    double sum_t = 0.0, sum_l = 0.0, sum_c = 0.0, sum_s = 0.0;

    for (unsigned y = 0; y < H; y++) {
        const float *r, *d;
        source_rows(k, src, sc, y, W, &r, &d);
        k->products(r, d, W, sc->row[PL_RR], sc->row[PL_DD], sc->row[PL_RD]);
        const float *in[PL_N] = {r, d, sc->row[PL_RR], sc->row[PL_DD], sc->row[PL_RD]};
        float *slot = sc->ring + (y % SSIM_WINDOW) * slot_len;
        for (int p = 0; p < PL_N; p++) {
            const float *taps[SSIM_WINDOW];
            for (int u = 0; u < SSIM_WINDOW; u++)
                taps[u] = in[p] + u;
            k->filter11(taps, Wo, slot + (size_t)p * Wo);
        }
        if (y < SSIM_WINDOW - 1)
            continue;

        const unsigned top = y - (SSIM_WINDOW - 1);
        for (int p = 0; p < PL_N; p++) {
            const float *rows[SSIM_WINDOW];
            for (int v = 0; v < SSIM_WINDOW; v++)
                rows[v] = sc->ring + ((top + v) % SSIM_WINDOW) * slot_len + (size_t)p * Wo;
            k->filter11(rows, Wo, sc->vout[p]);
        }
        k->combine(sc->vout[PL_R], sc->vout[PL_D], sc->vout[PL_RR], sc->vout[PL_DD],
                sc->vout[PL_RD], Wo, sc->term[0], sc->term[1], sc->term[2], sc->term[3]);
        /* The frame sums run in row-major order, one pixel after the other:
         * the order is part of the result. */
        const double *t = sc->term[0], *l = sc->term[1], *c = sc->term[2],
                     *s = sc->term[3];
        for (unsigned x = 0; x < Wo; x++) {
            sum_t += t[x];
            sum_l += l[x];
            sum_c += c[x];
            sum_s += s[x];
        }
    }
    const double n = (double)Wo * (double)Ho;
    res->score = round_to_f32(sum_t / n);
    res->l = round_to_f32(sum_l / n);
    res->c = round_to_f32(sum_c / n);
    res->s = round_to_f32(sum_s / n);
}

/* ---- public (internal) entry points ---------------------------------------- */

static int geometry(unsigned w, unsigned h, int scale, int *s, unsigned *W, unsigned *H)
{
    if (!w || !h || w > 65536 || h > 65536 || scale < 0)
        return -EINVAL;
    *s = ssim_effective_scale(scale, w, h);
    *W = ssim_decimated_size(w, *s);
    *H = ssim_decimated_size(h, *s);
    if (ssim_geometry_check(w, h, *s, NULL, 0))
        return -EINVAL;
    if (!vmaf_ssim_decimate_axis_ok(w, *s) || !vmaf_ssim_decimate_axis_ok(h, *s))
        return -EINVAL;
    return 0;
}

size_t vmaf_ssim_scratch_size(unsigned w, unsigned h, int scale)
{
    int s;
    unsigned W, H;
    if (geometry(w, h, scale, &s, &W, &H))
        return 0;
    Scratch tmp;
    return scratch_layout(NULL, w, W, H, s > 1 && s <= SSIM_SCALE_MAX_EXACT, &tmp) + ALIGN;
}

size_t vmaf_ssim_float_scratch_size(unsigned W, unsigned H)
{
    if (W < SSIM_WINDOW || H < SSIM_WINDOW)
        return 0;
    Scratch tmp;
    return scratch_layout(NULL, W, W, H, 0, &tmp) + ALIGN;
}

int vmaf_ssim_compute(const void *ref, ptrdiff_t ref_stride, const void *dist,
                      ptrdiff_t dist_stride, unsigned bpc, unsigned w, unsigned h, int scale,
                      void *scratch, size_t scratch_size, VmafSsimResult *res)
{
    int s;
    unsigned W, H;
    if (!ref || !dist || !res || !vmaf_bpc_supported(bpc) || geometry(w, h, scale, &s, &W, &H))
        return -EINVAL;
    Scratch sc;
    int err = scratch_setup(scratch, scratch_size, w, W, H,
                            s > 1 && s <= SSIM_SCALE_MAX_EXACT, &sc);
    if (err)
        return err;
    const float k = 1.0f / (float)(s * s);
    const Source src = {
        .ref = ref, .dist = dist, .ref_stride = ref_stride, .dist_stride = dist_stride,
        .is_float = 0, .bpc = bpc, .w = w, .h = h, .scale = s,
        .inv_d = inv_divisor(bpc), .k = k, .kk = k * inv_divisor(bpc),
    };
    run_pipeline(&src, &sc, W, H, res);
    return 0;
}

int vmaf_ssim_compute_float(const float *r, ptrdiff_t r_stride, const float *d,
                            ptrdiff_t d_stride, unsigned W, unsigned H, void *scratch,
                            size_t scratch_size, VmafSsimResult *res)
{
    if (!r || !d || !res || W < SSIM_WINDOW || H < SSIM_WINDOW)
        return -EINVAL;
    Scratch sc;
    int err = scratch_setup(scratch, scratch_size, W, W, H, 0, &sc);
    if (err)
        return err;
    const Source src = {
        .ref = r, .dist = d, .ref_stride = r_stride, .dist_stride = d_stride,
        .is_float = 1, .w = W, .h = H, .scale = 1,
    };
    run_pipeline(&src, &sc, W, H, res);
    return 0;
}

int vmaf_ssim_plane_to_float(const void *src, ptrdiff_t stride, unsigned bpc, unsigned w,
                             unsigned h, float *dst)
{
    if (!src || !dst || !vmaf_bpc_supported(bpc) || !w || !h)
        return -EINVAL;
    const VmafSsimKernels *k = kernels();
    const float inv_d = inv_divisor(bpc);
    for (unsigned y = 0; y < h; y++) {
        const void *row = row_at(src, stride, (int)y);
        if (bpc > 8)
            k->convert_row_16(row, w, inv_d, dst + (size_t)y * w);
        else
            k->convert_row_8(row, w, inv_d, dst + (size_t)y * w);
    }
    return 0;
}

int vmaf_ssim_decimate(const void *src, ptrdiff_t stride, unsigned bpc, unsigned w,
                       unsigned h, int scale, float *dst)
{
    if (!src || !dst || !vmaf_bpc_supported(bpc) || !w || !h || scale < 1 || w > 65536 || h > 65536)
        return -EINVAL;
    if (scale == 1)
        return vmaf_ssim_plane_to_float(src, stride, bpc, w, h, dst);
    if (!vmaf_ssim_decimate_axis_ok(w, scale) || !vmaf_ssim_decimate_axis_ok(h, scale))
        return -EINVAL;
    const unsigned sw = ssim_decimated_size(w, scale), sh = ssim_decimated_size(h, scale);
    const float inv_d = inv_divisor(bpc);
    const float k = 1.0f / (float)(scale * scale);
    const float kk = k * inv_d;
    double *acc = NULL;
    if (scale <= SSIM_SCALE_MAX_EXACT) {
        acc = malloc(sizeof(*acc) * w);
        if (!acc)
            return -ENOMEM;
    }
    for (unsigned y = 0; y < sh; y++) {
        float *out = dst + (size_t)y * sw;
        if (scale > SSIM_SCALE_MAX_EXACT)
            decimate_row_literal(src, stride, bpc, w, h, scale, y, inv_d, k, out, sw);
        else
            decimate_row(kernels(), src, stride, bpc, w, h, scale, y, kk, acc, out, sw);
    }
    free(acc);
    return 0;
}
