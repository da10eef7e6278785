/*
 * motion beyond the golden runs (test/vmaf covers those): the SAD of every
 * kernel variant against a literal two-dimensional model of the
 * reference's definition at every side from 1 to past the vector width,
 * each bit depth and extreme samples; then the extractor through the public
 * API: motion2 and motion3 from the SADs, the first frames, one-frame
 * videos, the five-frame window, worker threads, feature names and
 * refusals.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "feature/motion/motion_sad.h"
#include "libvmaf/libvmaf.h"

#include "check.h"

static uint64_t rng = 0x9E3779B97F4A7C15ULL;

static uint32_t next_random(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 16);
}

/* Reflect-101 (no repeated edge sample), folded again for sides below 3,
 * where the reference would read outside the picture. */
static int model_mirror(int i, int n)
{
    while (n > 1 && (i < 0 || i >= n))
        i = i < 0 ? -i : 2 * (n - 1) - i;
    return n > 1 ? i : 0;
}

static const int64_t model_taps[5] = { 3571, 16004, 26386, 16004, 3571 };

typedef struct Plane {
    unsigned w, h, bpc;
    size_t stride; /* in samples; wider than w */
    uint16_t *s;
} Plane;

static int64_t sample(const Plane *p, int y, int x)
{
    return p->s[(size_t)model_mirror(y, (int)p->h) * p->stride + model_mirror(x, (int)p->w)];
}

/* The definition: blur the difference vertically, round by bpc bits, blur
 * horizontally, round by 16 bits, sum the absolute values; a row's sum is
 * a uint32 as the reference keeps it. */
static uint64_t model_sad(const Plane *prev, const Plane *cur)
{
    uint64_t total = 0;
    for (int y = 0; y < (int)cur->h; y++) {
        uint32_t row = 0;
        for (int x = 0; x < (int)cur->w; x++) {
            int64_t hsum = 0;
            for (int b = 0; b < 5; b++) {
                int64_t vsum = 0;
                for (int a = 0; a < 5; a++)
                    vsum += model_taps[a] * (sample(prev, y - 2 + a, x - 2 + b) -
                                             sample(cur, y - 2 + a, x - 2 + b));
                hsum += model_taps[b] * ((vsum + (1 << (cur->bpc - 1))) >> cur->bpc);
            }
            const int64_t v = (hsum + (1 << 15)) >> 16;
            row += (uint32_t)(v < 0 ? -v : v);
        }
        total += row;
    }
    return total;
}

/* kind 0: random; 1: prev at the maximum, cur 0; 2: a checkerboard of the
 * extremes against its inverse (the largest blurred differences). */
static void fill_plane(Plane *p, unsigned kind, bool inverse)
{
    const unsigned max = (1u << p->bpc) - 1;
    for (unsigned y = 0; y < p->h; y++)
        for (unsigned x = 0; x < p->stride; x++) {
            unsigned v = next_random() & max;
            if (kind == 1)
                v = inverse ? 0 : max;
            else if (kind == 2)
                v = ((x ^ y) & 1) != inverse ? max : 0;
            p->s[y * p->stride + x] = (uint16_t)v;
        }
}

/* The variant's SAD of the two planes, handed over as 8-bit data at 8 bits. */
static uint64_t variant_sad(const VmafMotionKernels *k, const Plane *prev, const Plane *cur)
{
    const size_t n = cur->h * cur->stride;
    uint8_t *p8 = malloc(n), *c8 = malloc(n);
    int32_t *scratch = malloc(vmaf_motion_scratch_len(cur->w) * sizeof(*scratch));
    uint64_t sad = UINT64_MAX;
    if (!p8 || !c8 || !scratch) {
        CHECK(false, "out of memory");
    } else if (cur->bpc == 8) {
        for (size_t i = 0; i < n; i++) {
            p8[i] = (uint8_t)prev->s[i];
            c8[i] = (uint8_t)cur->s[i];
        }
        sad = vmaf_motion_sad(k, p8, (ptrdiff_t)prev->stride, c8, (ptrdiff_t)cur->stride, cur->w,
                              cur->h, 8, scratch);
    } else {
        sad = vmaf_motion_sad(k, prev->s, (ptrdiff_t)(prev->stride * 2), cur->s,
                              (ptrdiff_t)(cur->stride * 2), cur->w, cur->h, cur->bpc, scratch);
    }
    free(p8);
    free(c8);
    free(scratch);
    return sad;
}

static void check_sad_at(unsigned w, unsigned h, unsigned bpc, unsigned kind)
{
    Plane prev = { w, h, bpc, w + 3, NULL }, cur = prev;
    prev.s = malloc(h * prev.stride * sizeof(uint16_t));
    cur.s = malloc(h * cur.stride * sizeof(uint16_t));
    if (!prev.s || !cur.s) {
        CHECK(false, "out of memory at %ux%u", w, h);
    } else {
        fill_plane(&prev, kind, false);
        fill_plane(&cur, kind, true);
        const uint64_t want = model_sad(&prev, &cur);
        for (int i = 0;; i++) {
            const VmafMotionKernels *k = vmaf_motion_kernels_get(i);
            if (!k) {
                CHECK(i > 0, "no plain C variant");
                break;
            }
            const uint64_t got = variant_sad(k, &prev, &cur);
            CHECK(got == want, "%s, %ux%u, %u-bit, data %u: SAD %llu, the model gives %llu",
                  k->name, w, h, bpc, kind, (unsigned long long)got, (unsigned long long)want);
        }
    }
    free(prev.s);
    free(cur.s);
}

static void sad_against_model(void)
{
    static const unsigned depths[] = { 8, 10, 12, 16 };
    for (unsigned d = 0; d < 4; d++)
        for (unsigned kind = 0; kind < 3; kind++) {
            for (unsigned w = 1; w <= 20; w++)
                for (unsigned h = 1; h <= 7; h++)
                    check_sad_at(w, h, depths[d], kind);
            /* past every vector width (64 samples at AVX-512 and 8 bits) */
            check_sad_at(131, 4, depths[d], kind);
            check_sad_at(67, 9, depths[d], kind);
        }
}

/* --- The extractor through the public API ------------------------------ */

#define W 40
#define H 24
#define SAD "VMAF_integer_feature_motion_sad_score"

static void fill_frame(VmafPicture *p, unsigned f)
{
    for (unsigned y = 0; y < H; y++)
        for (unsigned x = 0; x < W; x++)
            ((uint8_t *)p->data[0])[y * p->stride[0] + x] =
                (uint8_t)((x * 5 + y * 3 + f * f * 7 + ((x * y + f) % 13) * 9) & 0xff);
}

/* The SAD score of reference frame f against frame g, the model's way. */
static double model_score(unsigned g, unsigned f)
{
    uint16_t a[W * H], b[W * H];
    VmafPicture p;
    if (vmaf_picture_alloc(&p, VMAF_PIX_FMT_YUV400P, 8, W, H))
        return -1.0;
    fill_frame(&p, g);
    for (unsigned i = 0; i < W * H; i++)
        a[i] = ((uint8_t *)p.data[0])[i / W * p.stride[0] + i % W];
    fill_frame(&p, f);
    for (unsigned i = 0; i < W * H; i++)
        b[i] = ((uint8_t *)p.data[0])[i / W * p.stride[0] + i % W];
    vmaf_picture_unref(&p);
    const Plane prev = { W, H, 8, W, a }, cur = { W, H, 8, W, b };
    return (double)model_sad(&prev, &cur) / 256. / (W * H);
}

typedef struct Run {
    double sad[16], motion2[16], motion3[16];
    int err;
} Run;

/* Scores `frames` frames with motion under `opts` ("k=v:k=v" or NULL) and
 * reads the three scores under names with `suffix`. */
static Run score_run(unsigned frames, unsigned threads, const char *opts, const char *suffix)
{
    Run r = { .err = 0 };
    VmafContext *v = NULL;
    VmafConfiguration cfg = { .log_level = VMAF_LOG_LEVEL_WARNING, .n_threads = threads };
    CHECK_INT(vmaf_init(&v, cfg), 0);
    VmafFeatureDictionary *d = NULL;
    char buf[256];
    snprintf(buf, sizeof(buf), "%s", opts ? opts : "");
    for (char *kv = strtok(buf, ":"); kv; kv = strtok(NULL, ":")) {
        char *eq = strchr(kv, '=');
        if (eq)
            *eq = '\0';
        CHECK_INT(vmaf_feature_dictionary_set(&d, kv, eq ? eq + 1 : ""), 0);
    }
    r.err = vmaf_use_feature(v, "motion", d);
    for (unsigned f = 0; !r.err && f < frames; f++) {
        VmafPicture ref, dis;
        CHECK_INT(vmaf_picture_alloc(&ref, VMAF_PIX_FMT_YUV420P, 8, W, H), 0);
        CHECK_INT(vmaf_picture_alloc(&dis, VMAF_PIX_FMT_YUV420P, 8, W, H), 0);
        fill_frame(&ref, f);
        fill_frame(&dis, f + 100);
        CHECK_INT(vmaf_read_pictures(v, &ref, &dis, f), 0);
    }
    if (!r.err)
        CHECK_INT(vmaf_read_pictures(v, NULL, NULL, 0), 0);
    for (unsigned f = 0; !r.err && f < frames; f++) {
        char name[128];
        snprintf(name, sizeof(name), SAD "%s", suffix);
        CHECK_INT(vmaf_feature_score_at_index(v, name, &r.sad[f], f), 0);
        snprintf(name, sizeof(name), "integer_motion2%s", suffix);
        CHECK_INT(vmaf_feature_score_at_index(v, name, &r.motion2[f], f), 0);
        snprintf(name, sizeof(name), "integer_motion3%s", suffix);
        CHECK_INT(vmaf_feature_score_at_index(v, name, &r.motion3[f], f), 0);
    }
    vmaf_close(v);
    return r;
}

static double min_d(double a, double b)
{
    return a < b ? a : b;
}

/* Defaults: SAD against the previous frame, motion2 the smaller SAD of the
 * frame and the next (its own at the last), motion3 equal to motion2 from
 * frame 1 on and to the first SAD at frame 0. The same with two threads. */
static void default_scores(void)
{
    enum { N = 7 };
    const Run r = score_run(N, 0, NULL, "");
    const Run t = score_run(N, 2, NULL, "");
    CHECK(r.sad[0] == 0 && r.motion2[0] == 0);
    for (unsigned f = 1; f < N; f++) {
        const double want = model_score(f - 1, f);
        CHECK(r.sad[f] == want, "frame %u: SAD %.17g, model %.17g", f, r.sad[f], want);
        const double m2 = f + 1 < N ? min_d(r.sad[f], model_score(f, f + 1)) : r.sad[f];
        CHECK(r.motion2[f] == m2, "frame %u: motion2 %.17g, expected %.17g", f, r.motion2[f],
              m2);
        CHECK(r.motion3[f] == r.motion2[f], "frame %u", f);
    }
    CHECK(r.motion3[0] == r.sad[1]);
    CHECK(!memcmp(&r, &t, sizeof(r)), "two worker threads change the scores");
}

/* One frame: nothing to compare with, every score 0. */
static void one_frame(void)
{
    const Run r = score_run(1, 0, NULL, "");
    CHECK(r.sad[0] == 0 && r.motion2[0] == 0 && r.motion3[0] == 0);
}

/* The five-frame window compares with two frames back; frames 0 and 1 have
 * no SAD; motion2 takes the smaller of frames i-1 and i+1. Threads agree. */
static void five_frame_window(void)
{
    enum { N = 8 };
    const Run r = score_run(N, 0, "motion_five_frame_window=true", "_mffw");
    const Run t = score_run(N, 3, "motion_five_frame_window=true", "_mffw");
    CHECK(r.sad[0] == 0 && r.sad[1] == 0 && r.motion2[1] == 0);
    for (unsigned f = 2; f < N; f++) {
        const double want = model_score(f - 2, f);
        CHECK(r.sad[f] == want, "frame %u: SAD %.17g, model %.17g", f, r.sad[f], want);
    }
    for (unsigned f = 3; f + 1 < N; f++)
        CHECK(r.motion2[f] == min_d(r.sad[f - 1], r.sad[f + 1]), "frame %u", f);
    CHECK(r.motion2[N - 1] == r.sad[N - 1]);
    CHECK(!memcmp(&r, &t, sizeof(r)), "three worker threads change the scores");
}

/* Options name the features by their aliases, as the reference does (the
 * aliases are names, not keys); the cap and the blend act on every score. */
static void options(void)
{
    const Run zero = score_run(4, 0, "motion_force_zero=true", "_force_0");
    for (unsigned f = 0; f < 4; f++)
        CHECK(zero.sad[f] == 0 && zero.motion2[f] == 0 && zero.motion3[f] == 0, "frame %u", f);
    const Run capped = score_run(4, 0, "motion_max_val=0.5", "_mmxv_0.5");
    const Run plain = score_run(4, 0, NULL, "");
    CHECK(plain.sad[1] > 0.5, "the test frames move too little to test the cap");
    for (unsigned f = 1; f < 4; f++)
        CHECK(capped.sad[f] == min_d(plain.sad[f], 0.5), "frame %u", f);
    const Run blend = score_run(4, 0, "motion_blend_factor=0.5:motion_blend_offset=1", "_mbf_0.5_mbo_1");
    for (unsigned f = 1; f < 4; f++) {
        const double m2 = blend.motion2[f];
        CHECK(blend.motion3[f] == m2 * 0.5 + (1 - 0.5) * min_d(1, m2), "frame %u", f);
    }
}

/* A bad option is refused at vmaf_use_feature() with one line that names it. */
static void refusals(void)
{
    static const char *const bad[][2] = {
        { "motion_blend_factor=2", "motion_blend_factor" },
        { "motion_fps_weight=-1", "motion_fps_weight" },
        { "motion_max_val=nan", "motion_max_val" },
        { "motion_force_zero=yes", "motion_force_zero" },
        { "motion_speed=1", "motion_speed" },
        { "mbf=0.5", "mbf" },
    };
    for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        capture_begin();
        const Run r = score_run(2, 0, bad[i][0], "");
        const char *log = capture_end();
        CHECK_INT(r.err, -EINVAL);
        CHECK(strstr(log, bad[i][1]) && count_lines(log) == 1, "%s: logged \"%s\"", bad[i][0],
              log);
    }
}

int main(int argc, char **argv)
{
    if (argc > 1)
        rng = strtoull(argv[1], NULL, 0);
    sad_against_model();
    default_scores();
    one_frame();
    five_frame_window();
    options();
    refusals();
    return check_result("test_motion");
}
