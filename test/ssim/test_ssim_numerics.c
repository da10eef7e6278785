/*
 * float_ssim numerics against a deliberately plain implementation written
 * line by line from the numerics document: full planes, literal loop
 * orders, no buffers reused. Every comparison is bit for bit (memcmp).
 *
 * Every inner-loop variant (plain C, AVX2, AVX-512 where built and supported)
 * is also compared function by function with the plain C variant on random
 * and extreme inputs, checkasm style.
 *
 * Usage: test_ssim_numerics [seed]   (the seed is printed so that a failure
 *                                     can be replayed)
 *        test_ssim_numerics --bench  (times every variant; checks nothing)
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <time.h>

#include "check.h"
#include "feature/ssim/ssim.h"
#include "feature/ssim/ssim_geometry.h"
#include "feature/ssim/ssim_kernels.h"

/* ---- random numbers (xorshift64*) ------------------------------------------ */

static uint64_t rng_state;

static uint32_t rnd(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (uint32_t)((rng_state * 0x2545F4914F6CDD1DULL) >> 32);
}

static unsigned rnd_range(unsigned lo, unsigned hi)
{
    return lo + rnd() % (hi - lo + 1);
}

/* ---- the plain implementation, straight from the document ------------------- */

static float plain_sample(const void *src, ptrdiff_t stride, unsigned bpc, int x, int y)
{
    const char *row = (const char *)src + (ptrdiff_t)y * stride;
    unsigned p = bpc == 8 ? ((const uint8_t *)row)[x] : ((const uint16_t *)(const void *)row)[x];
    float d = bpc == 8 ? 1.0f : bpc == 10 ? 4.0f : bpc == 12 ? 16.0f : 256.0f;
    return (float)p / d;
}

static int plain_auto_scale(unsigned w, unsigned h)
{
    float a = (float)(w < h ? w : h) / 256.0f;
    int r = (int)a;
    if (a - r >= 0.5)
        r += 1;
    return r > 1 ? r : 1;
}

static int plain_mirror(int i, int n)
{
    if (i < 0)
        i = -1 - i;
    else if (i >= n)
        i = n - (i - n) - 1;
    return i;
}

/* Full-resolution f32 plane, or the decimated one when s > 1. */
static float *plain_plane(const void *src, ptrdiff_t stride, unsigned bpc, unsigned w,
                          unsigned h, int s, unsigned *W, unsigned *H)
{
    if (s <= 1) {
        float *out = malloc(sizeof(float) * w * h);
        for (unsigned y = 0; y < h; y++)
            for (unsigned x = 0; x < w; x++)
                out[y * w + x] = plain_sample(src, stride, bpc, (int)x, (int)y);
        *W = w;
        *H = h;
        return out;
    }
    unsigned sw = w / s + (w & 1), sh = h / s + (h & 1);
    float k = 1.0f / (float)(s * s);
    float *out = malloc(sizeof(float) * sw * sh);
    for (unsigned y = 0; y < sh; y++) {
        for (unsigned x = 0; x < sw; x++) {
            double sum = 0;
            for (int v = -(s / 2); v <= s - 1 - s / 2; v++) {
                for (int u = -(s / 2); u <= s - 1 - s / 2; u++) {
                    int xx = plain_mirror((int)x * s + u, (int)w);
                    int yy = plain_mirror((int)y * s + v, (int)h);
                    float prod = plain_sample(src, stride, bpc, xx, yy) * k;
                    sum += (double)prod;
                }
            }
            out[y * sw + x] = (float)sum;
        }
    }
    *W = sw;
    *H = sh;
    return out;
}

static const float g[11] = {0.001028f, 0.007599f, 0.036001f, 0.109361f, 0.213006f, 0.266012f,
                            0.213006f, 0.109361f, 0.036001f, 0.007599f, 0.001028f};

/* "Valid" separable convolution of one W x H plane. */
static float *plain_filter(const float *in, unsigned W, unsigned H)
{
    unsigned ow = W - 10, oh = H - 10;
    float *tmp = malloc(sizeof(float) * ow * H);
    float *out = malloc(sizeof(float) * ow * oh);
    for (unsigned y = 0; y < H; y++)
        for (unsigned x = 0; x < ow; x++) {
            double sum = 0;
            for (int u = 0; u < 11; u++) {
                float p = in[y * W + x + u] * g[u];
                sum += (double)p;
            }
            tmp[y * ow + x] = (float)sum;
        }
    for (unsigned y = 0; y < oh; y++)
        for (unsigned x = 0; x < ow; x++) {
            double sum = 0;
            for (int v = 0; v < 11; v++) {
                float p = tmp[(y + v) * ow + x] * g[v];
                sum += (double)p;
            }
            out[y * ow + x] = (float)sum;
        }
    free(tmp);
    return out;
}

static void plain_ssim_planes(const float *R, const float *D, unsigned W, unsigned H,
                              VmafSsimResult *res)
{
    size_t n = (size_t)W * H;
    float *RR = malloc(sizeof(float) * n), *DD = malloc(sizeof(float) * n),
          *RD = malloc(sizeof(float) * n);
    for (size_t i = 0; i < n; i++) {
        RR[i] = R[i] * R[i];
        DD[i] = D[i] * D[i];
        RD[i] = R[i] * D[i];
    }
    float *mr = plain_filter(R, W, H), *md = plain_filter(D, W, H);
    float *srr = plain_filter(RR, W, H), *sdd = plain_filter(DD, W, H),
          *srd = plain_filter(RD, W, H);
    const float C1 = (0.01f * 255) * (0.01f * 255);
    const float C2 = (0.03f * 255) * (0.03f * 255);
    const float C3 = C2 / 2.0f;
    double st = 0, sl = 0, sc = 0, ss = 0;
    size_t m = (size_t)(W - 10) * (H - 10);
    for (size_t i = 0; i < m; i++) {
        float a = mr[i], b = md[i];
        float a2 = a * a, b2 = b * b, ab = a * b;
        float vr = srr[i] - a2;
        float vd = sdd[i] - b2;
        if (vr < 0)
            vr = 0;
        if (vd < 0)
            vd = 0;
        float cov = srd[i] - ab;
        float vv = vr * vd;
        float sq = (float)sqrt((double)vv);
        float lden = a2 + b2;
        lden = lden + C1;
        double l = 2.0 * a;
        l = l * b;
        l = l + C1;
        l = l / lden;
        float cden = vr + vd;
        cden = cden + C2;
        double c = 2.0 * sq;
        c = c + C2;
        c = c / cden;
        float cc = (cov < 0 && sq <= 0) ? 0 : cov;
        float snum = cc + C3, sden = sq + C3;
        float sf = snum / sden;
        double s = sf;
        double t = l * c;
        t = t * s;
        st += t;
        sl += l;
        sc += c;
        ss += s;
    }
    res->score = (float)(st / (double)m);
    res->l = (float)(sl / (double)m);
    res->c = (float)(sc / (double)m);
    res->s = (float)(ss / (double)m);
    free(RR), free(DD), free(RD), free(mr), free(md), free(srr), free(sdd), free(srd);
}

/* ---- pictures ----------------------------------------------------------------- */

enum Content { NOISE, TEXTURE, FLAT, MAXVAL, ZERO, CONTENT_N };

typedef struct Pic {
    void *data;
    ptrdiff_t stride;
    unsigned w, h, bpc;
} Pic;

static void pic_fill(Pic *p, enum Content c, const Pic *like, unsigned noise)
{
    const unsigned maxv = (1u << p->bpc) - 1;
    const unsigned flat = rnd() & maxv;
    for (unsigned y = 0; y < p->h; y++)
        for (unsigned x = 0; x < p->w; x++) {
            unsigned v;
            switch (c) {
            case NOISE: v = rnd() & maxv; break;
            case TEXTURE:
                v = (unsigned)((x * 7 + y * 13 + ((x * y) >> 3)) * (maxv / 255u)) & maxv;
                break;
            case FLAT: v = flat; break;
            case MAXVAL: v = maxv; break;
            default: v = 0; break;
            }
            if (like) {
                /* distorted: the reference plus bounded noise */
                const char *lr = (const char *)like->data + (ptrdiff_t)y * like->stride;
                unsigned base = p->bpc == 8 ? ((const uint8_t *)lr)[x]
                                            : ((const uint16_t *)(const void *)lr)[x];
                int d = noise ? (int)(rnd() % (2 * noise + 1)) - (int)noise : 0;
                long nv = (long)base + d;
                v = nv < 0 ? 0 : nv > (long)maxv ? maxv : (unsigned)nv;
            }
            char *row = (char *)p->data + (ptrdiff_t)y * p->stride;
            if (p->bpc == 8)
                ((uint8_t *)row)[x] = (uint8_t)v;
            else
                ((uint16_t *)(void *)row)[x] = (uint16_t)v;
        }
}

static int pic_alloc(Pic *p, unsigned w, unsigned h, unsigned bpc)
{
    const unsigned bps = bpc > 8 ? 2 : 1;
    p->w = w, p->h = h, p->bpc = bpc;
    p->stride = (ptrdiff_t)(w * bps + (rnd() % 3) * 2 * bps); /* sometimes padded */
    p->data = malloc((size_t)p->stride * h);
    return p->data ? 0 : -ENOMEM;
}

/* ---- comparisons --------------------------------------------------------------- */

static int compare_one(const Pic *r, const Pic *d, int scale, const char *what)
{
    const int s = scale ? scale : plain_auto_scale(r->w, r->h);
    unsigned W, H, W2, H2;
    float *pr = plain_plane(r->data, r->stride, r->bpc, r->w, r->h, s, &W, &H);
    float *pd = plain_plane(d->data, d->stride, d->bpc, d->w, d->h, s, &W2, &H2);
    int bad = check_failures;

    /* plane conversion / decimation */
    float *opt = malloc(sizeof(float) * W * H);
    int err = vmaf_ssim_decimate(r->data, r->stride, r->bpc, r->w, r->h, s, opt);
    CHECK(!err && !memcmp(opt, pr, sizeof(float) * W * H),
          "decimate %ux%u %u-bit scale %d (%s): err %d or planes differ", r->w, r->h, r->bpc,
          s, what, err);
    if (s == 1) {
        err = vmaf_ssim_plane_to_float(d->data, d->stride, d->bpc, d->w, d->h, opt);
        CHECK(!err && !memcmp(opt, pd, sizeof(float) * W * H),
              "plane_to_float %ux%u %u-bit (%s): err %d or planes differ", d->w, d->h,
              d->bpc, what, err);
    }
    free(opt);

    if (W >= SSIM_WINDOW && H >= SSIM_WINDOW) {
        VmafSsimResult want, got, gotf;
        plain_ssim_planes(pr, pd, W, H, &want);
        size_t sz = vmaf_ssim_scratch_size(r->w, r->h, scale);
        void *scr = malloc(sz + 1);
        /* misaligned scratch on purpose: the layout must align itself */
        err = vmaf_ssim_compute(r->data, r->stride, d->data, d->stride, r->bpc, r->w, r->h,
                                scale, (char *)scr + 1, sz, &got);
        CHECK(!err && !memcmp(&got, &want, sizeof(got)),
              "compute %ux%u %u-bit scale %d (%s): err %d, got %.17g %.17g %.17g %.17g, "
              "want %.17g %.17g %.17g %.17g",
              r->w, r->h, r->bpc, scale, what, err, got.score, got.l, got.c, got.s, want.score,
              want.l, want.c, want.s);
        free(scr);
        sz = vmaf_ssim_float_scratch_size(W, H);
        scr = malloc(sz);
        err = vmaf_ssim_compute_float(pr, W, pd, W, W, H, scr, sz, &gotf);
        CHECK(!err && !memcmp(&gotf, &want, sizeof(gotf)),
              "compute_float %ux%u (%s): err %d", W, H, what, err);
        free(scr);
    }
    free(pr);
    free(pd);
    return check_failures == bad;
}

static void random_pairs(int rounds)
{
    static const unsigned depths[] = {8, 10, 12, 16};
    int runs = 0;
    for (int i = 0; i < rounds; i++) {
        unsigned w, h;
        switch (i % 5) {
        case 0: w = rnd_range(11, 40), h = rnd_range(11, 40); break;
        case 1: w = rnd_range(100, 260) | 1, h = rnd_range(100, 260); break;
        default: w = rnd_range(11, 330), h = rnd_range(11, 330); break;
        }
        if (i == 0)
            w = 11, h = 11;
        if (i == 1)
            w = 12, h = 27;
        const unsigned bpc = depths[rnd() % 4];
        /* a scale that fits (0 = automatic), tried from a random start */
        int scale = (int)(rnd() % 11), tries = 0;
        while (tries++ < 11) {
            int s = scale ? scale : plain_auto_scale(w, h);
            if (w / s + (w & 1) >= 11 && h / s + (h & 1) >= 11)
                break;
            scale = (scale + 1) % 11;
        }
        Pic r, d;
        if (pic_alloc(&r, w, h, bpc) || pic_alloc(&d, w, h, bpc)) {
            CHECK(0, "out of memory");
            return;
        }
        enum Content c = (enum Content)(rnd() % 2);
        pic_fill(&r, c, NULL, 0);
        unsigned noise = rnd_range(0, (1u << bpc) / 8);
        pic_fill(&d, NOISE, &r, noise);
        char what[64];
        snprintf(what, sizeof(what), "random #%d noise %u", i, noise);
        compare_one(&r, &d, scale, what);
        runs++;
        free(r.data);
        free(d.data);
    }
    printf("random pairs: %d compared\n", runs);
}

static void special_pairs(void)
{
    static const unsigned depths[] = {8, 10, 12, 16};
    static const char *names[] = {"noise", "texture", "flat", "max-value", "zero"};
    for (int b = 0; b < 4; b++) {
        for (int c = 0; c < CONTENT_N; c++) {
            for (int scale = 1; scale <= 10; scale += 3) {
                const unsigned w = 121 + 2 * (unsigned)b, h = 131;
                Pic r, d;
                if (pic_alloc(&r, w, h, depths[b]) || pic_alloc(&d, w, h, depths[b])) {
                    CHECK(0, "out of memory");
                    return;
                }
                pic_fill(&r, (enum Content)c, NULL, 0);
                pic_fill(&d, (enum Content)c, &r, 0); /* identical frames */
                char what[64];
                snprintf(what, sizeof(what), "identical %s", names[c]);
                compare_one(&r, &d, scale, what);
                if (c == FLAT || c == MAXVAL || c == ZERO) {
                    /* flat vs another flat / max vs zero: zero variances */
                    Pic z;
                    pic_alloc(&z, w, h, depths[b]);
                    pic_fill(&z, c == ZERO ? MAXVAL : ZERO, NULL, 0);
                    snprintf(what, sizeof(what), "%s vs constant", names[c]);
                    compare_one(&r, &z, scale, what);
                    free(z.data);
                }
                free(r.data);
                free(d.data);
            }
        }
    }
}

/* Scales above the exact-sum limit take the literal summation order. */
static void large_scale(void)
{
    Pic r;
    pic_alloc(&r, 300, 280, 16);
    pic_fill(&r, NOISE, NULL, 0);
    for (int s = 127; s <= 131; s += 2) {
        unsigned W, H;
        float *want = plain_plane(r.data, r.stride, r.bpc, r.w, r.h, s, &W, &H);
        float *got = malloc(sizeof(float) * W * H);
        int err = vmaf_ssim_decimate(r.data, r.stride, r.bpc, r.w, r.h, s, got);
        CHECK(!err && !memcmp(got, want, sizeof(float) * W * H),
              "decimate 300x280 16-bit scale %d: err %d or planes differ", s, err);
        free(want);
        free(got);
    }
    free(r.data);
}

/* Long, thin and huge pictures: row offsets, the ring and automatic scales
 * above the option's limit of 10. */
static void extreme_sizes(void)
{
    static const struct { unsigned w, h, bpc; int scale; } c[] = {
        {65536, 11, 8, 0}, {11, 3000, 16, 0}, {4001, 33, 10, 3}, {4400, 4350, 8, 0},
    };
    for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
        Pic r, d;
        if (pic_alloc(&r, c[i].w, c[i].h, c[i].bpc) || pic_alloc(&d, c[i].w, c[i].h, c[i].bpc)) {
            CHECK(0, "out of memory");
            free(r.data);
            return;
        }
        pic_fill(&r, TEXTURE, NULL, 0);
        pic_fill(&d, NOISE, &r, 3);
        compare_one(&r, &d, c[i].scale, "extreme size");
        free(r.data);
        free(d.data);
    }
    printf("extreme sizes: 65536x11, 11x3000, 4001x33 at scale 3, 4400x4350 (auto scale %d)\n",
           ssim_auto_scale(4400, 4350));
}

/* ---- geometry and indexing ------------------------------------------------------ */

static void geometry(void)
{
    static const struct { unsigned w, h; int s; } autos[] = {
        {383, 1000, 1}, {1000, 383, 1}, {384, 384, 2}, {639, 700, 2}, {640, 640, 3},
        {1920, 1080, 4}, {3840, 2160, 8}, {7680, 4320, 17}, {10, 10, 1}, {255, 300, 1},
        {897, 1030, 4}, {1030, 897, 4}, {895, 2000, 3},
    };
    for (size_t i = 0; i < sizeof(autos) / sizeof(autos[0]); i++) {
        int got = ssim_auto_scale(autos[i].w, autos[i].h);
        CHECK(got == autos[i].s && got == plain_auto_scale(autos[i].w, autos[i].h),
              "auto scale %ux%u: got %d, want %d", autos[i].w, autos[i].h, got, autos[i].s);
    }
    CHECK(ssim_effective_scale(3, 1920, 1080) == 3, "explicit scale ignored");
    CHECK(ssim_effective_scale(0, 1920, 1080) == 4, "scale 0 is not automatic");

    static const struct { unsigned n; int s; unsigned want; } sizes[] = {
        {1920, 4, 480}, {1080, 4, 270}, {1081, 4, 271}, {575, 2, 288}, {575, 3, 192},
        {323, 4, 81}, {11, 10, 2}, {21, 2, 11}, {20, 2, 10}, {15, 5, 4}, {641, 8, 81},
        {100, 10, 10}, {7, 1, 7}, {12, 1, 12},
    };
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        unsigned got = ssim_decimated_size(sizes[i].n, sizes[i].s);
        CHECK(got == sizes[i].want, "decimated size of %u at scale %d: got %u, want %u",
              sizes[i].n, sizes[i].s, got, sizes[i].want);
    }

    char why[200];
    CHECK(ssim_geometry_check(10, 10, 1, why, sizeof(why)) != 0, "10x10 accepted");
    CHECK(ssim_geometry_check(11, 11, 1, why, sizeof(why)) == 0, "11x11 refused");
    CHECK(ssim_geometry_check(100, 60, 10, why, sizeof(why)) != 0, "100x60 scale 10 accepted");
    CHECK(ssim_geometry_check(100, 60, 5, why, sizeof(why)) == 0, "100x60 scale 5 refused");
    CHECK(vmaf_ssim_scratch_size(10, 10, 0) == 0, "scratch size for a refused geometry");
    CHECK(vmaf_ssim_scratch_size(100, 60, 10) == 0, "scratch size for a refused scale");

    /* mirrored indexing */
    for (int n = 1; n < 9; n++)
        for (int i = -n; i < 2 * n; i++)
            CHECK(vmaf_ssim_mirror(i, n) == plain_mirror(i, n), "mirror(%d, %d)", i, n);
    CHECK(vmaf_ssim_mirror(-1, 7) == 0 && vmaf_ssim_mirror(-2, 7) == 1 &&
              vmaf_ssim_mirror(7, 7) == 6 && vmaf_ssim_mirror(8, 7) == 5,
          "mirror edge values");

    /* Every edge of a 7x7 picture at scale 3: windows use columns/rows
     * {0,0,1} (left/top, -1 -> 0), {2,3,4}, {5,6,6} (right/bottom, 7 -> 6). */
    uint8_t pic[7 * 7];
    for (int y = 0; y < 7; y++)
        for (int x = 0; x < 7; x++)
            pic[y * 7 + x] = (uint8_t)(x * 3 + y * 29 + 1);
    static const int win[3][3] = {{0, 0, 1}, {2, 3, 4}, {5, 6, 6}};
    float got[9];
    CHECK(vmaf_ssim_decimate(pic, 7, 8, 7, 7, 3, got) == 0, "decimate 7x7");
    const float k = 1.0f / 9.0f;
    for (int oy = 0; oy < 3; oy++)
        for (int ox = 0; ox < 3; ox++) {
            double sum = 0;
            for (int v = 0; v < 3; v++)
                for (int u = 0; u < 3; u++)
                    sum += (double)((float)pic[win[oy][v] * 7 + win[ox][u]] * k);
            CHECK(got[oy * 3 + ox] == (float)sum, "7x7 scale 3 edge output (%d,%d)", ox, oy);
        }
    /* a plane too small for one reflection is refused, never read out of bounds */
    CHECK(vmaf_ssim_decimate(pic, 7, 8, 1, 1, 10, got) == -EINVAL, "1x1 at scale 10");
    CHECK(vmaf_ssim_decimate(pic, 7, 9, 7, 7, 3, got) == -EINVAL, "9-bit accepted");

    /* constants */
    CHECK(VMAF_SSIM_C1 == (0.01f * 255) * (0.01f * 255), "C1");
    CHECK(VMAF_SSIM_C3 == ((0.03f * 255) * (0.03f * 255)) / 2.0f, "C3");
    CHECK(!memcmp(vmaf_ssim_gauss, g, sizeof(g)), "Gaussian taps");

    /* scratch too small */
    Pic r;
    pic_alloc(&r, 64, 48, 8);
    pic_fill(&r, NOISE, NULL, 0);
    size_t sz = vmaf_ssim_scratch_size(64, 48, 0);
    void *scr = malloc(sz);
    VmafSsimResult res;
    CHECK(vmaf_ssim_compute(r.data, r.stride, r.data, r.stride, 8, 64, 48, 0, scr, sz / 2,
                            &res) == -EINVAL,
          "short scratch accepted");
    CHECK(vmaf_ssim_compute(r.data, r.stride, r.data, r.stride, 8, 64, 48, 0, scr, sz, &res) ==
                  0 && res.score == 1.0,
          "identical 64x48 frames: score %.17g", res.score);
    free(scr);
    free(r.data);
}

/* ---- kernels function by function (checkasm style) ------------------------ */

/* A float of any magnitude the pipeline can meet, or an extreme one. */
static float rnd_float(void)
{
    switch (rnd() % 8) {
    case 0: return 0.0f;
    case 1: return (float)(rnd() % 256);
    case 2: return (float)(rnd() % 65536) / 256.0f;
    case 3: return (float)rnd() / 4294967296.0f;
    case 4: return ldexpf((float)(rnd() | 1), -(int)(rnd() % 60) - 20); /* tiny, denormal */
    case 5: return ldexpf((float)(rnd() | 1), (int)(rnd() % 40));      /* huge */
    case 6: return 255.0f;
    default: return (float)rnd() / 65536.0f;
    }
}

#define KN 300 /* longest row tried; lengths vary to reach every loop tail */

static void kernels_one(const VmafSsimKernels *c, const VmafSsimKernels *k)
{
    static uint8_t p8[KN];
    static uint16_t p16[KN];
    static float a[KN + SSIM_WINDOW], b[KN + SSIM_WINDOW], f1[KN], f2[KN];
    static float e1[5][KN], e2[5][KN], in5[5][KN];
    static double d1[KN], d2[KN], t1[4][KN], t2[4][KN];

    for (int round = 0; round < 400; round++) {
        const unsigned n = 1 + rnd() % KN;
        for (unsigned i = 0; i < KN; i++) {
            p8[i] = (uint8_t)rnd();
            p16[i] = (uint16_t)rnd();
        }
        const unsigned bpc = 8 + 2 * (rnd() % 5) - (rnd() % 5 == 4 ? 2 : 0); /* 8..16 */
        const float inv_d = 1.0f / (float)(1u << ((bpc > 8 ? bpc : 8) - 8));
        c->convert_row_8(p8, n, inv_d, f1);
        k->convert_row_8(p8, n, inv_d, f2);
        CHECK(!memcmp(f1, f2, n * sizeof(float)), "%s convert_row_8 n=%u", k->name, n);
        c->convert_row_16(p16, n, inv_d, f1);
        k->convert_row_16(p16, n, inv_d, f2);
        CHECK(!memcmp(f1, f2, n * sizeof(float)), "%s convert_row_16 n=%u", k->name, n);

        const int sc = 2 + (int)(rnd() % 127);
        const float kk = (1.0f / (float)(sc * sc)) * inv_d;
        for (unsigned i = 0; i < n; i++)
            d1[i] = d2[i] = (double)rnd_float();
        const int first = (int)(rnd() & 1);
        c->accumulate_row_8(p8, n, kk, d1, first);
        k->accumulate_row_8(p8, n, kk, d2, first);
        CHECK(!memcmp(d1, d2, n * sizeof(double)), "%s accumulate_row_8 n=%u", k->name, n);
        c->accumulate_row_16(p16, n, kk, d1, !first);
        k->accumulate_row_16(p16, n, kk, d2, !first);
        CHECK(!memcmp(d1, d2, n * sizeof(double)), "%s accumulate_row_16 n=%u", k->name, n);

        for (unsigned i = 0; i < n + SSIM_WINDOW; i++) {
            a[i] = rnd_float();
            b[i] = rnd_float();
        }
        const float *taps[SSIM_WINDOW];
        for (int u = 0; u < SSIM_WINDOW; u++)
            taps[u] = a + u;
        c->filter11(taps, n, f1);
        k->filter11(taps, n, f2);
        CHECK(!memcmp(f1, f2, n * sizeof(float)), "%s filter11 n=%u", k->name, n);

        c->products(a, b, n, e1[0], e1[1], e1[2]);
        k->products(a, b, n, e2[0], e2[1], e2[2]);
        CHECK(!memcmp(e1, e2, sizeof(e1[0]) * 3), "%s products n=%u", k->name, n);

        /* combine: means and raw second moments, sometimes with a negative
         * variance (rounding), zero variance or a negative covariance */
        for (unsigned i = 0; i < n; i++) {
            const float mr = rnd_float(), md = rnd_float();
            in5[0][i] = mr;
            in5[1][i] = md;
            in5[2][i] = rnd() % 4 ? mr * mr + rnd_float() * (rnd() % 2) : mr * mr * 0.999f;
            in5[3][i] = rnd() % 4 ? md * md + rnd_float() * (rnd() % 2) : md * md;
            in5[4][i] = rnd() % 3 ? mr * md + rnd_float() : mr * md - rnd_float();
        }
        c->combine(in5[0], in5[1], in5[2], in5[3], in5[4], n, t1[0], t1[1], t1[2], t1[3]);
        k->combine(in5[0], in5[1], in5[2], in5[3], in5[4], n, t2[0], t2[1], t2[2], t2[3]);
        for (int j = 0; j < 4; j++)
            CHECK(!memcmp(t1[j], t2[j], n * sizeof(double)), "%s combine output %d n=%u",
                  k->name, j, n);
    }
}

static void kernels_vs_c(void)
{
    const VmafSsimKernels *c = vmaf_ssim_kernels_get(0);
    CHECK(c && !strcmp(c->name, "c"), "variant 0 is not the plain C one");
    if (!c)
        return;
    for (int i = 1; i < vmaf_ssim_kernels_count(); i++) {
        const VmafSsimKernels *k = vmaf_ssim_kernels_get(i);
        if (!k)
            continue;
        const int before = check_failures;
        kernels_one(c, k);
        printf("kernels %s vs c, function by function: %s\n", k->name,
               check_failures == before ? "bit-exact" : "MISMATCH");
    }
}

/* ---- --bench ---------------------------------------------------------------- */

static double cpu_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int bench(void)
{
    enum { W = 1920, H = 1080, WO = W - 10 };
    static float a[W], out[W], m[5][W];
    static double acc[W], t[4][W];
    static uint8_t p8[W];
    static uint16_t p16[W];
    for (int i = 0; i < W; i++) {
        a[i] = (float)(rnd() % 256);
        p8[i] = (uint8_t)rnd();
        p16[i] = (uint16_t)(rnd() & 1023);
        for (int j = 0; j < 5; j++)
            m[j][i] = (float)(rnd() % 256) + (j >= 2 ? 100.0f : 0.0f);
    }
    Pic r, d;
    pic_alloc(&r, W, H, 8);
    pic_alloc(&d, W, H, 8);
    pic_fill(&r, TEXTURE, NULL, 0);
    pic_fill(&d, NOISE, &r, 9);
    printf("%-8s %10s %10s %10s %10s %10s %12s %12s\n", "kernels", "filter11", "combine",
           "accum_8", "accum_16", "convert_8", "1080p auto", "1080p s=1");
    printf("%-8s %10s %10s %10s %10s %10s %12s %12s\n", "", "ns/row", "ns/row", "ns/row",
           "ns/row", "ns/row", "ms/frame", "ms/frame");
    for (int i = 0; i < vmaf_ssim_kernels_count(); i++) {
        const VmafSsimKernels *k = vmaf_ssim_kernels_get(i);
        if (!k)
            continue;
        const float *taps[SSIM_WINDOW];
        for (int u = 0; u < SSIM_WINDOW; u++)
            taps[u] = a + u;
        double ns[5];
        const int reps = 2000;
        for (int f = 0; f < 5; f++) {
            const double t0 = cpu_seconds();
            for (int rep = 0; rep < reps; rep++) {
                switch (f) {
                case 0: k->filter11(taps, WO, out); break;
                case 1: k->combine(m[0], m[1], m[2], m[3], m[4], WO, t[0], t[1], t[2], t[3]); break;
                case 2: k->accumulate_row_8(p8, W, 1.0f / 16.0f, acc, 0); break;
                case 3: k->accumulate_row_16(p16, W, 1.0f / 64.0f, acc, 0); break;
                default: k->convert_row_8(p8, W, 1.0f, out); break;
                }
            }
            ns[f] = (cpu_seconds() - t0) * 1e9 / reps;
        }
        vmaf_ssim_kernels_select(i);
        double ms[2];
        for (int s = 0; s < 2; s++) {
            const size_t sz = vmaf_ssim_scratch_size(W, H, s);
            void *scr = malloc(sz);
            VmafSsimResult res;
            const int frames = s ? 3 : 20;
            vmaf_ssim_compute(r.data, r.stride, d.data, d.stride, 8, W, H, s, scr, sz, &res);
            const double t0 = cpu_seconds();
            for (int f = 0; f < frames; f++)
                vmaf_ssim_compute(r.data, r.stride, d.data, d.stride, 8, W, H, s, scr, sz, &res);
            ms[s] = (cpu_seconds() - t0) * 1e3 / frames;
            free(scr);
        }
        printf("%-8s %10.0f %10.0f %10.0f %10.0f %10.0f %12.2f %12.2f\n", k->name, ns[0], ns[1],
               ns[2], ns[3], ns[4], ms[0], ms[1]);
    }
    vmaf_ssim_kernels_select(-1);
    free(r.data);
    free(d.data);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "--bench"))
        return bench();
    uint64_t seed = argc > 1 ? strtoull(argv[1], NULL, 0) : 0x5eed5eedULL;
    rng_state = seed ? seed : 1;
    printf("seed %" PRIu64 "\n", seed);
    printf("default kernels: %s\n", vmaf_ssim_kernels_name());
    geometry();
    extreme_sizes();
    kernels_vs_c();
    /* every inner-loop variant this build has, each against the plain code */
    for (int k = 0; k < vmaf_ssim_kernels_count(); k++) {
        int err = vmaf_ssim_kernels_select(k);
        if (err == -ENOTSUP) {
            printf("kernels #%d: not supported by this CPU, skipped\n", k);
            continue;
        }
        CHECK(!err, "selecting kernels #%d: %d", k, err);
        printf("kernels %s:\n", vmaf_ssim_kernels_name());
        const int before = check_failures;
        rng_state = seed ? seed : 1;
        special_pairs();
        large_scale();
        random_pairs(300);
        printf("kernels %s: %s\n", vmaf_ssim_kernels_name(),
               check_failures == before ? "bit-exact" : "MISMATCH");
    }
    vmaf_ssim_kernels_select(-1);
    if (check_failures) {
        printf("%d check(s) failed (seed %" PRIu64 ")\n", check_failures, seed);
        return 1;
    }
    printf("all numerics checks passed\n");
    return 0;
}
