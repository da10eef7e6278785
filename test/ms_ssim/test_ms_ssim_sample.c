/*
 * The float_ms_ssim CUDA twin's decimation (feature/cuda/ms_ssim/
 * ms_ssim_lpf_sample.h), run on the CPU output by output, against the
 * CPU's conversion and vmaf_ms_ssim_decimate(): every sample of every
 * scale bit for bit, on random sizes (down to the 11 samples of the
 * smallest scale, odd), row pitches, bit depths and pictures, each scale
 * from the twin's own previous one. Needs no GPU; the GPU suite checks the
 * device against the CPU's scores.
 *
 * Usage: test_ms_ssim_sample [seed [cases]]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "test_random.h"

#include "feature/cuda/ms_ssim/ms_ssim_lpf_sample.h"
#include "feature/ms_ssim/ms_ssim.h"
#include "feature/ms_ssim/ms_ssim_kernels.h"
#include "feature/ssim/ssim.h"

typedef struct Case {
    unsigned w, h, bpc;
    unsigned pad; /* samples after each row of the picture and the twin's planes */
} Case;

static unsigned half_up(unsigned n)
{
    return n / 2 + (n & 1);
}

/* The twin's next scale of the picture (scale 0) or of its f32 plane
 * `prev` (rows w + pad apart), into rows half_up(w) + pad apart. */
static void twin_decimate(const Case *c, const void *pic, const float *prev, unsigned w,
                          unsigned h, const MsSsimLpfTaps *taps, float *out)
{
    const float mul = 1.0f / (float)(1u << (c->bpc - 8));
    const size_t pitch = w + c->pad, out_pitch = half_up(w) + c->pad;
    for (unsigned y = 0; y < half_up(h); y++)
        for (unsigned x = 0; x < half_up(w); x++) {
            const int X = 2 * (int)x, Y = 2 * (int)y;
            float v;
            if (prev)
                v = ms_ssim_lpf_at_f32(prev, pitch, 1.0f, (int)w, (int)h, X, Y, taps);
            else if (c->bpc == 8)
                v = ms_ssim_lpf_at_u8(pic, pitch, mul, (int)w, (int)h, X, Y, taps);
            else
                v = ms_ssim_lpf_at_u16(pic, pitch, mul, (int)w, (int)h, X, Y, taps);
            out[y * out_pitch + x] = v;
        }
}

/* Samples of the twin's plane (rows w + pad apart) unlike the CPU's
 * (packed); the first one's place in *at. */
static unsigned differing(const Case *c, const float *twin, const float *cpu, unsigned w,
                          unsigned h, unsigned *at)
{
    unsigned n = 0;
    for (unsigned y = 0; y < h; y++)
        for (unsigned x = 0; x < w; x++)
            if (memcmp(&twin[y * (w + c->pad) + x], &cpu[y * w + x], sizeof(float)) && !n++)
                *at = y * w + x;
    return n;
}

static void run_case(uint64_t *rng, const Case *c)
{
    const size_t sample = c->bpc > 8 ? 2 : 1, pitch = c->w + c->pad;
    void *pic = malloc(pitch * c->h * sample);
    const unsigned max = (1u << c->bpc) - 1;
    for (size_t i = 0; i < pitch * c->h; i++) {
        const unsigned v = test_random(rng) & max;
        if (sample == 1)
            ((uint8_t *)pic)[i] = (uint8_t)v;
        else
            ((uint16_t *)pic)[i] = (uint16_t)v;
    }
    MsSsimLpfTaps taps;
    memcpy(taps.t, vmaf_ms_ssim_lpf, sizeof(taps.t));
    float *cpu = malloc((size_t)c->w * c->h * sizeof(float));
    float *cpu_next = malloc((size_t)c->w * c->h * sizeof(float));
    float *twin = NULL, *twin_next = malloc(pitch * c->h * sizeof(float));
    int err = vmaf_ssim_plane_to_float(pic, (ptrdiff_t)(pitch * sample), c->bpc, c->w, c->h, cpu);
    CHECK(!err, "%ux%u %u-bit: vmaf_ssim_plane_to_float failed (%d)", c->w, c->h, c->bpc, err);
    unsigned w = c->w, h = c->h;
    for (int s = 1; s < MS_SSIM_SCALES && !err; s++) {
        vmaf_ms_ssim_decimate(cpu, w, h, cpu_next);
        twin_decimate(c, pic, twin, w, h, &taps, twin_next);
        w = half_up(w);
        h = half_up(h);
        unsigned at = 0;
        const unsigned n = differing(c, twin_next, cpu_next, w, h, &at);
        CHECK(!n, "%ux%u %u-bit, row pad %u: scale %d: %u of %ux%u samples differ, the first "
              "at (%u, %u): %.9g, expected %.9g", c->w, c->h, c->bpc, c->pad, s, n, w, h,
              at % w, at / w, n ? twin_next[(at / w) * (w + c->pad) + at % w] : 0.0,
              n ? cpu_next[at] : 0.0);
        float *t = cpu;
        cpu = cpu_next;
        cpu_next = t;
        if (!twin)
            twin = malloc(pitch * c->h * sizeof(float));
        t = twin;
        twin = twin_next;
        twin_next = t;
    }
    free(pic);
    free(cpu);
    free(cpu_next);
    free(twin);
    free(twin_next);
}

int main(int argc, char **argv)
{
    uint64_t rng = argc > 1 ? strtoull(argv[1], NULL, 0) : 0x3551a1f5eedull;
    const unsigned cases = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 0) : 40;
    static const unsigned depths[] = {8, 10, 12, 16};
    for (unsigned i = 0; i < cases; i++) {
        /* the first: the smallest picture float_ms_ssim takes, and one row more */
        const Case c = {
            .w = i < 2 ? MS_SSIM_MIN_SIDE : MS_SSIM_MIN_SIDE + test_random(&rng) % 300,
            .h = i < 2 ? MS_SSIM_MIN_SIDE + i : MS_SSIM_MIN_SIDE + test_random(&rng) % 200,
            .bpc = depths[test_random(&rng) % 4],
            .pad = test_random(&rng) % 3 ? 0 : test_random(&rng) % 40,
        };
        run_case(&rng, &c);
    }
    return check_result("test_ms_ssim_sample");
}
