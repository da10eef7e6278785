/* Literal integer VIF for tests (see vif_model.h). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "feature/vif/vif_tables.h"
#include "vif_model.h"

#define PAD_ROWS 8  /* rows kept above and below the frame buffer */
#define PAD_ELEMS 16 /* elements kept before and after a row buffer */

typedef struct Model {
    unsigned w, h, bpc;
    uint16_t *buf[2];  /* row 0 of the ref and dis frame buffers, stride w */
    uint32_t *t[5];    /* statistic rows: mu1 mu2 xx yy xy */
    uint32_t *conv[2]; /* decimation rows: ref dis */
    uint16_t *mu[2];   /* full-resolution filtered planes, stride w */
    void *blocks[10];
} Model;

static uint16_t *row_of(const Model *m, int p, int r)
{
    return m->buf[p] + (ptrdiff_t)r * m->w;
}

/* The reference's row padding: row i to -i, row n-1-i to n-1+i, in turn. */
static void pad_rows(const Model *m, unsigned n, unsigned half)
{
    for (int p = 0; p < 2; p++)
        for (int i = 1; i <= (int)half; i++) {
            memcpy(row_of(m, p, -i), row_of(m, p, i), m->w * sizeof(uint16_t));
            memcpy(row_of(m, p, (int)n - 1 + i), row_of(m, p, (int)n - 1 - i),
                   m->w * sizeof(uint16_t));
        }
}

/* The same for the elements of a row buffer. */
static void pad_elems(uint32_t *t, unsigned n, unsigned half)
{
    for (int f = 1; f <= (int)half; f++) {
        t[-f] = t[f];
        t[(int)n - 1 + f] = t[(int)n - 1 - f];
    }
}

static int log2_32(uint32_t v)
{
    int k = 16 - __builtin_clz(v);
    return vmaf_vif_log2_table[(v >> k) - VIF_LOG2_FIRST] + 2048 * k;
}

static int log2_64(uint64_t v)
{
    int k = 48 - __builtin_clzll(v);
    return vmaf_vif_log2_table[(v >> k) - VIF_LOG2_FIRST] + 2048 * k;
}

void vif_model_pixel(uint32_t mu1, uint32_t mu2, uint32_t xx, uint32_t yy, uint32_t xy,
                       double egl, VifModelSums *s)
{
    const int32_t sigma_nsq = 65536 << 1;
    uint32_t mu1_sq = (uint32_t)(((uint64_t)mu1 * mu1 + 2147483648u) >> 32);
    uint32_t mu2_sq = (uint32_t)(((uint64_t)mu2 * mu2 + 2147483648u) >> 32);
    uint32_t mu1_mu2 = (uint32_t)(((uint64_t)mu1 * mu2 + 2147483648u) >> 32);
    int32_t sigma1_sq = (int32_t)(xx - mu1_sq);
    int32_t sigma2_sq = (int32_t)(yy - mu2_sq);
    int32_t sigma12 = (int32_t)(xy - mu1_mu2);
    if (sigma2_sq < 0)
        sigma2_sq = 0;
    if (sigma1_sq < sigma_nsq) {
        s->num_non_log += sigma2_sq;
        s->den_non_log++;
        return;
    }
    s->den_log += log2_32((uint32_t)(sigma_nsq + (int64_t)sigma1_sq)) - 2048 * 17;
    if (sigma12 > 0 && sigma2_sq > 0) {
        const double eps = 65536 * 1.0e-10;
        double g = sigma12 / (sigma1_sq + eps);
        double sv = sigma2_sq - g * sigma12;
        int32_t sv_sq = sv <= -2147483648.0 ? INT32_MIN : (int32_t)sv; /* as x86 does */
        if (sv_sq < 0)
            sv_sq = 0;
        if (g > egl)
            g = egl;
        uint32_t numer1 = (uint32_t)((int64_t)sv_sq + sigma_nsq);
        int64_t numer1_tmp = (int64_t)(g * g * sigma1_sq) + numer1;
        s->num_log += log2_64((uint64_t)numer1_tmp) - log2_64(numer1);
    }
}

static void stat_scale(const Model *m, unsigned s, unsigned w, unsigned h, double egl,
                       float *num, float *den)
{
    const unsigned taps = vif_taps(s), half = taps / 2;
    const uint16_t *c = vif_filter[s];
    const unsigned sh_mu = s ? 16 : m->bpc, sh_sq = s ? 16 : 2 * (m->bpc - 8);
    VifModelSums sum = {0};
    for (unsigned i = 0; i < h; i++) {
        for (unsigned j = 0; j < w; j++) {
            uint64_t a[5] = {0};
            for (unsigned k = 0; k < taps; k++) {
                const int r = (int)i - (int)half + (int)k;
                const uint64_t x = row_of(m, 0, r)[j], y = row_of(m, 1, r)[j];
                a[0] += c[k] * x;
                a[1] += c[k] * y;
                a[2] += c[k] * x * x;
                a[3] += c[k] * y * y;
                a[4] += c[k] * x * y;
            }
            for (int q = 0; q < 2; q++)
                m->t[q][j] = (uint16_t)((a[q] + (1u << (sh_mu - 1))) >> sh_mu);
            for (int q = 2; q < 5; q++)
                m->t[q][j] = (uint32_t)((a[q] + (sh_sq ? 1u << (sh_sq - 1) : 0)) >> sh_sq);
        }
        for (int q = 0; q < 5; q++)
            pad_elems(m->t[q], w, half);
        for (unsigned j = 0; j < w; j++) {
            uint64_t a[5] = {0};
            for (unsigned k = 0; k < taps; k++)
                for (int q = 0; q < 5; q++)
                    a[q] += c[k] * (uint64_t)m->t[q][(int)j - (int)half + (int)k];
            vif_model_pixel((uint32_t)a[0], (uint32_t)a[1], (uint32_t)((a[2] + 32768) >> 16),
                       (uint32_t)((a[3] + 32768) >> 16), (uint32_t)((a[4] + 32768) >> 16), egl,
                       &sum);
        }
    }
    *num = (float)(sum.num_log / 2048.0 +
                   (sum.den_non_log - (sum.num_non_log / 16384.0) / 65025.0));
    *den = (float)(sum.den_log / 2048.0 + sum.den_non_log);
}

/* Filters scale s at full resolution with filter s+1, keeps every other
 * row and column, and pads with scale s's own filter width, as the
 * reference does. */
static void next_scale(const Model *m, unsigned s, unsigned w, unsigned h)
{
    const unsigned f = s + 1, taps = vif_taps(f), half = taps / 2;
    const uint16_t *c = vif_filter[f];
    const unsigned sh = s ? 16 : m->bpc;
    for (unsigned i = 0; i < h; i++) {
        for (unsigned j = 0; j < w; j++)
            for (int p = 0; p < 2; p++) {
                uint32_t a = 0;
                for (unsigned k = 0; k < taps; k++)
                    a += c[k] * (uint32_t)row_of(m, p, (int)i - (int)half + (int)k)[j];
                m->conv[p][j] = (uint16_t)((a + (1u << (sh - 1))) >> sh);
            }
        for (int p = 0; p < 2; p++)
            pad_elems(m->conv[p], w, half);
        for (unsigned j = 0; j < w; j++)
            for (int p = 0; p < 2; p++) {
                uint32_t a = 0;
                for (unsigned k = 0; k < taps; k++)
                    a += c[k] * m->conv[p][(int)j - (int)half + (int)k];
                m->mu[p][(size_t)i * m->w + j] = (uint16_t)((a + 32768) >> 16);
            }
    }
    for (unsigned i = 0; i < h / 2; i++)
        for (unsigned j = 0; j < w / 2; j++)
            for (int p = 0; p < 2; p++)
                row_of(m, p, (int)i)[j] = m->mu[p][(size_t)2 * i * m->w + 2 * j];
    pad_rows(m, h / 2, vif_taps(s) / 2);
}

static void *block(Model *m, int i, size_t bytes)
{
    return m->blocks[i] = calloc(1, bytes);
}

int vif_model(const void *ref, const void *dis, unsigned w, unsigned h, unsigned bpc,
              double egl, bool skip_scale0, float num[4], float den[4])
{
    Model m = {.w = w, .h = h, .bpc = bpc};
    const size_t rows = (size_t)h + 2 * PAD_ROWS, elems = (size_t)w + 2 * PAD_ELEMS;
    int ok = 1;
    for (int p = 0; p < 2; p++) {
        uint16_t *b = block(&m, p, rows * w * sizeof(uint16_t));
        m.buf[p] = b ? b + (size_t)PAD_ROWS * w : NULL;
        m.mu[p] = block(&m, 2 + p, (size_t)w * h * sizeof(uint16_t));
        uint32_t *cv = block(&m, 4 + p, elems * sizeof(uint32_t));
        m.conv[p] = cv ? cv + PAD_ELEMS : NULL;
        ok &= m.buf[p] && m.mu[p] && m.conv[p];
    }
    uint32_t *t = block(&m, 6, 5 * elems * sizeof(uint32_t));
    for (int q = 0; q < 5 && t; q++)
        m.t[q] = t + q * elems + PAD_ELEMS;
    int err = ok && t ? 0 : -ENOMEM;
    if (!err) {
        for (unsigned i = 0; i < h; i++)
            for (unsigned j = 0; j < w; j++) {
                const size_t at = (size_t)i * w + j;
                row_of(&m, 0, (int)i)[j] = bpc > 8 ? ((const uint16_t *)ref)[at]
                                                   : ((const uint8_t *)ref)[at];
                row_of(&m, 1, (int)i)[j] = bpc > 8 ? ((const uint16_t *)dis)[at]
                                                   : ((const uint8_t *)dis)[at];
            }
        pad_rows(&m, h, vif_taps(0) / 2);
        for (unsigned s = 0; s < 4; s++) {
            num[s] = den[s] = 0;
            if (s > 0 || !skip_scale0)
                stat_scale(&m, s, w >> s, h >> s, egl, &num[s], &den[s]);
            if (s < 3)
                next_scale(&m, s, w >> s, h >> s);
        }
    }
    for (int i = 0; i < 7; i++)
        free(m.blocks[i]);
    return err;
}
