/*
 * The integer VIF row functions, checkasm style: every entry of every
 * variant this build and CPU have (vmaf_vif_dsp_variant) against a literal
 * implementation of its contract in vif_dsp.h, on random and extreme
 * inputs, every filter, widths from 1 to past a block, and the shifts the
 * contract allows. stat_px is checked pixel by pixel against the model's
 * per-pixel step (vif_model.c) for every gain limit of the set.
 *
 * Usage: test_vif_dsp [seed]
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "feature/vif/vif_dsp.h"
#include "vif_model.h"

#define MAXW 1000
#define PAD VIF_ROW_PAD
#define RUN 300 /* pixels per stat_h / stat_px call */

static int failures;
static uint64_t rng;

static uint32_t rnd(void)
{
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return (uint32_t)((rng * 0x2545F4914F6CDD1DULL) >> 32);
}

/* Random values below 2^bits, one in four at the extremes. */
static uint32_t value(unsigned bits)
{
    const uint32_t max = bits >= 32 ? UINT32_MAX : (1u << bits) - 1;
    switch (rnd() % 8) {
    case 0: return max;
    case 1: return 0;
    default: return rnd() & max;
    }
}

static uint64_t rnd_shift(unsigned sh)
{
    return sh ? (uint64_t)1 << (sh - 1) : 0;
}

static const unsigned widths[] = {1, 2, 3, 7, 16, 17, 63, 64, 65, 130, 257, MAXW};
#define N_WIDTHS (sizeof(widths) / sizeof(widths[0]))

#define FAIL(...)                                                                          \
    do {                                                                                   \
        if (failures++ < 20) {                                                             \
            fprintf(stderr, __VA_ARGS__);                                                  \
            fprintf(stderr, "\n");                                                         \
        }                                                                                  \
    } while (0)

/* Source rows of 8- or 16-bit samples for the vertical passes. */
typedef struct Rows {
    uint8_t r8[VIF_MAX_TAPS][MAXW], d8[VIF_MAX_TAPS][MAXW];
    uint16_t r16[VIF_MAX_TAPS][MAXW], d16[VIF_MAX_TAPS][MAXW];
    const uint8_t *pr8[VIF_MAX_TAPS], *pd8[VIF_MAX_TAPS];
    const uint16_t *pr16[VIF_MAX_TAPS], *pd16[VIF_MAX_TAPS];
} Rows;

static void fill_rows(Rows *s)
{
    for (unsigned k = 0; k < VIF_MAX_TAPS; k++) {
        for (unsigned j = 0; j < MAXW; j++) {
            s->r8[k][j] = (uint8_t)value(8);
            s->d8[k][j] = (uint8_t)value(8);
            s->r16[k][j] = (uint16_t)value(16);
            s->d16[k][j] = (uint16_t)value(16);
        }
        /* rows may repeat, as at the picture edges */
        const unsigned src = rnd() % 4 ? k : rnd() % VIF_MAX_TAPS;
        s->pr8[k] = s->r8[src];
        s->pd8[k] = s->d8[src];
        s->pr16[k] = s->r16[src];
        s->pd16[k] = s->d16[src];
    }
}

static uint64_t tap_sum(const void *const *rows, bool wide, unsigned f, unsigned j, int power,
                        const void *const *other)
{
    uint64_t s = 0;
    for (unsigned k = 0; k < vif_taps(f); k++) {
        const uint64_t a = wide ? ((const uint16_t *)rows[k])[j] : ((const uint8_t *)rows[k])[j];
        const uint64_t b = !other ? 1
                           : wide ? ((const uint16_t *)other[k])[j]
                                  : ((const uint8_t *)other[k])[j];
        s += vif_filter[f][k] * a * (power == 2 ? b : 1);
    }
    return s;
}

static void check_stat_v(const VifDsp *d, Rows *s, bool wide)
{
    static uint16_t mu1[MAXW], mu2[MAXW];
    static uint32_t xx[MAXW], yy[MAXW], xy[MAXW];
    const VifStatRow out = {mu1, mu2, xx, yy, xy};
    const void *const *r = wide ? (const void *const *)s->pr16 : (const void *const *)s->pr8;
    const void *const *dd = wide ? (const void *const *)s->pd16 : (const void *const *)s->pd8;
    for (unsigned f = 0; f < VIF_SCALES; f++)
        for (unsigned wi = 0; wi < N_WIDTHS; wi++) {
            const unsigned w = widths[wi], sh_mu = 8 + rnd() % 9, sh_sq = rnd() % 17;
            if (wide)
                d->stat_v_16(s->pr16, s->pd16, f, w, sh_mu, sh_sq, &out);
            else
                d->stat_v_8(s->pr8, s->pd8, f, w, sh_mu, sh_sq, &out);
            for (unsigned j = 0; j < w; j++) {
                const uint16_t m1 = (uint16_t)((tap_sum(r, wide, f, j, 1, NULL) + rnd_shift(sh_mu)) >> sh_mu);
                const uint16_t m2 = (uint16_t)((tap_sum(dd, wide, f, j, 1, NULL) + rnd_shift(sh_mu)) >> sh_mu);
                const uint32_t a = (uint32_t)((tap_sum(r, wide, f, j, 2, r) + rnd_shift(sh_sq)) >> sh_sq);
                const uint32_t b = (uint32_t)((tap_sum(dd, wide, f, j, 2, dd) + rnd_shift(sh_sq)) >> sh_sq);
                const uint32_t c = (uint32_t)((tap_sum(r, wide, f, j, 2, dd) + rnd_shift(sh_sq)) >> sh_sq);
                if (mu1[j] != m1 || mu2[j] != m2 || xx[j] != a || yy[j] != b || xy[j] != c) {
                    FAIL("%s stat_v_%d f %u w %u col %u sh %u/%u", d->name, wide ? 16 : 8, f, w,
                         j, sh_mu, sh_sq);
                    break;
                }
            }
        }
}

static void check_dec_v(const VifDsp *d, Rows *s, bool wide)
{
    static uint16_t o1[MAXW], o2[MAXW];
    const void *const *r = wide ? (const void *const *)s->pr16 : (const void *const *)s->pr8;
    const void *const *dd = wide ? (const void *const *)s->pd16 : (const void *const *)s->pd8;
    for (unsigned f = 0; f < VIF_SCALES; f++)
        for (unsigned wi = 0; wi < N_WIDTHS; wi++) {
            const unsigned w = widths[wi], sh = 8 + rnd() % 9;
            if (wide)
                d->dec_v_16(s->pr16, s->pd16, f, w, sh, o1, o2);
            else
                d->dec_v_8(s->pr8, s->pd8, f, w, sh, o1, o2);
            for (unsigned j = 0; j < w; j++)
                if (o1[j] != (uint16_t)((tap_sum(r, wide, f, j, 1, NULL) + rnd_shift(sh)) >> sh) ||
                    o2[j] != (uint16_t)((tap_sum(dd, wide, f, j, 1, NULL) + rnd_shift(sh)) >> sh)) {
                    FAIL("%s dec_v_%d f %u w %u col %u", d->name, wide ? 16 : 8, f, w, j);
                    break;
                }
        }
}

static void check_stat_h(const VifDsp *d)
{
    static uint16_t m1[MAXW + 2 * PAD], m2[MAXW + 2 * PAD];
    static uint32_t xx[MAXW + 2 * PAD], yy[MAXW + 2 * PAD], xy[MAXW + 2 * PAD];
    static uint32_t o[5][RUN];
    for (unsigned i = 0; i < MAXW + 2 * PAD; i++) {
        m1[i] = (uint16_t)value(16);
        m2[i] = (uint16_t)value(16);
        xx[i] = value(32);
        yy[i] = value(32);
        xy[i] = value(32);
    }
    const VifStatRow in = {m1 + PAD, m2 + PAD, xx + PAD, yy + PAD, xy + PAD};
    const VifMoments out = {o[0], o[1], o[2], o[3], o[4]};
    for (unsigned f = 0; f < VIF_SCALES; f++)
        for (unsigned t = 0; t < 40; t++) {
            const unsigned n = 1 + rnd() % RUN, j0 = rnd() % (MAXW - n + 1);
            d->stat_h(&in, f, j0, n, &out);
            for (unsigned i = 0; i < n; i++) {
                uint64_t s[5] = {0};
                for (unsigned k = 0; k < vif_taps(f); k++) {
                    const int at = (int)(j0 + i + k) - (int)(vif_taps(f) / 2);
                    const uint64_t c = vif_filter[f][k];
                    s[0] += c * in.mu1[at];
                    s[1] += c * in.mu2[at];
                    s[2] += c * in.xx[at];
                    s[3] += c * in.yy[at];
                    s[4] += c * in.xy[at];
                }
                bool ok = o[0][i] == (uint32_t)s[0] && o[1][i] == (uint32_t)s[1];
                for (int q = 2; q < 5; q++)
                    ok &= o[q][i] == (uint32_t)((s[q] + 32768) >> 16);
                if (!ok) {
                    FAIL("%s stat_h f %u j0 %u n %u at %u", d->name, f, j0, n, i);
                    break;
                }
            }
        }
}

static void check_dec_h(const VifDsp *d)
{
    static uint16_t r[2 * MAXW + 2 * PAD], s[2 * MAXW + 2 * PAD], o1[MAXW], o2[MAXW];
    for (unsigned i = 0; i < 2 * MAXW + 2 * PAD; i++) {
        r[i] = (uint16_t)value(16);
        s[i] = (uint16_t)value(16);
    }
    for (unsigned f = 0; f < VIF_SCALES; f++)
        for (unsigned wi = 0; wi < N_WIDTHS; wi++) {
            const unsigned n = widths[wi];
            d->dec_h(r + PAD, s + PAD, f, n, o1, o2);
            for (unsigned j = 0; j < n; j++) {
                uint32_t a = 0, b = 0;
                for (unsigned k = 0; k < vif_taps(f); k++) {
                    const int at = PAD + (int)(2 * j + k) - (int)(vif_taps(f) / 2);
                    a += vif_filter[f][k] * (uint32_t)r[at];
                    b += vif_filter[f][k] * (uint32_t)s[at];
                }
                if (o1[j] != (uint16_t)((a + 32768) >> 16) || o2[j] != (uint16_t)((b + 32768) >> 16)) {
                    FAIL("%s dec_h f %u n %u at %u", d->name, f, n, j);
                    break;
                }
            }
        }
}

/* Moments as the horizontal pass makes them: means up to 65535 * 65536,
 * second moments near mean^2 (both branches, both signs) or anywhere. */
static void random_moments(uint32_t *o[5], unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        const uint32_t mu1 = value(16) * 65536u + (rnd() & 0xffff) * (rnd() & 1);
        const uint32_t mu2 = value(16) * 65536u + (rnd() & 0xffff) * (rnd() & 1);
        o[0][i] = mu1;
        o[1][i] = mu2;
        const uint64_t m11 = ((uint64_t)mu1 * mu1 + 0x80000000u) >> 32;
        const uint64_t m22 = ((uint64_t)mu2 * mu2 + 0x80000000u) >> 32;
        const uint64_t m12 = ((uint64_t)mu1 * mu2 + 0x80000000u) >> 32;
        const unsigned bits = 8 + rnd() % 24;
        o[2][i] = rnd() % 4 ? (uint32_t)(m11 + value(bits) - value(bits) / 4) : value(32);
        o[3][i] = rnd() % 4 ? (uint32_t)(m22 + value(bits) - value(bits) / 4) : value(32);
        o[4][i] = rnd() % 4 ? (uint32_t)(m12 + value(bits) - value(bits) / 2) : value(32);
    }
}

static void check_stat_px(const VifDsp *d)
{
    static uint32_t buf[5][RUN];
    uint32_t *o[5] = {buf[0], buf[1], buf[2], buf[3], buf[4]};
    const VifMoments m = {o[0], o[1], o[2], o[3], o[4]};
    for (unsigned t = 0; t < 400; t++) {
        VifGain g = {.n = 1 + rnd() % VIF_MAX_SETS};
        for (unsigned p = 0; p < g.n; p++) {
            const unsigned pick = rnd() % 5;
            g.limit[p] = pick == 0 ? 1.0 : pick == 1 ? 100.0 : 1.0 + (rnd() % 9900) / 100.0;
            g.min = p == 0 || g.limit[p] < g.min ? g.limit[p] : g.min;
        }
        const unsigned n = 1 + rnd() % RUN;
        random_moments(o, n);
        VifAccum acc = {.den_log = 7, .num_log = {3}}; /* the call adds to what is there */
        d->stat_px(&m, n, &g, &acc);
        for (unsigned p = 0; p < g.n; p++) {
            VifModelSums s = {.num_log = p == 0 ? 3 : 0, .den_log = 7};
            for (unsigned i = 0; i < n; i++)
                vif_model_pixel(o[0][i], o[1][i], o[2][i], o[3][i], o[4][i], g.limit[p], &s);
            if (s.num_log != acc.num_log[p] || s.den_log != acc.den_log ||
                s.num_non_log != acc.num_non_log || s.den_non_log != acc.den_non_log)
                FAIL("%s stat_px trial %u set %u/%u (limit %g): sums differ", d->name, t, p,
                     g.n, g.limit[p]);
        }
    }
}

int main(int argc, char **argv)
{
    rng = argc > 1 ? strtoull(argv[1], NULL, 0) : 0x51F15EEDULL;
    printf("seed 0x%016llx\n", (unsigned long long)rng);
    static Rows rows;
    unsigned variants = 0;
    for (int i = 0; i < 8; i++) {
        const VifDsp *d = vmaf_vif_dsp_variant(i);
        if (!d)
            continue;
        variants++;
        for (int rep = 0; rep < 3; rep++) {
            fill_rows(&rows);
            check_stat_v(d, &rows, false);
            check_stat_v(d, &rows, true);
            check_dec_v(d, &rows, false);
            check_dec_v(d, &rows, true);
        }
        check_stat_h(d);
        check_dec_h(d);
        check_stat_px(d);
        printf("variant %s checked\n", d->name);
    }
    printf("vif dsp: %u variants, %d failures\n", variants, failures);
    return failures || !variants;
}
