/*
 * CPU float_ssim benchmark through the public API: ms per frame at
 * 576x324, 1920x1080 and 3840x2160, 8 and 10 bit, automatic scale and
 * scale=1, scored in the caller (1 thread) and by n_threads = nproc workers
 * (frames in parallel). Frames are synthetic textures generated in memory;
 * --raw adds a run that reads a raw YUV pair from disk.
 *
 * Usage: bench_float_ssim [--quick] [--frames-scale F] [--threads N]
 *                         [--raw REF DIS WxH FMT BPC]   (FMT: 420, 422, 444)
 * VMAF_BENCH_KERNELS=c|avx2|avx512 forces one inner-loop variant.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libvmaf/libvmaf.h"

/* internal, for the "numerics" column only (this program links the static
 * library): the SSIM computation alone, without picture allocation, copies
 * or the context */
#include "feature/ssim/ssim.h"

#include "bench_source.h"

/* Median CPU ms per frame of the numerics alone (one thread), or -1. CPU
 * time and the median, so that a busy shared machine disturbs it less. */
static double run_numerics(const BenchSource *s, int scale, unsigned frames)
{
    const size_t bps = s->bpc > 8 ? 2 : 1;
    const size_t size = vmaf_ssim_scratch_size(s->w, s->h, scale);
    void *scratch = size ? malloc(size) : NULL;
    double *t = malloc(sizeof(*t) * (frames + 1));
    if (!scratch || !t) {
        free(scratch);
        free(t);
        return -1;
    }
    VmafSsimResult r;
    int err = 0;
    /* frame 0 warms the caches and the scratch pages and is not counted */
    for (unsigned i = 0; i <= frames && !err; i++) {
        const double t0 = bench_cpu_now();
        err = vmaf_ssim_compute(s->ref[i % BENCH_N_SRC], (ptrdiff_t)(s->w * bps), s->dis[i % BENCH_N_SRC],
                                (ptrdiff_t)(s->w * bps), s->bpc, s->w, s->h, scale, scratch,
                                size, &r);
        t[i] = (bench_cpu_now() - t0) * 1e3;
    }
    const double med = bench_median(t + 1, frames);
    free(scratch);
    free(t);
    return err ? -1 : med;
}

/* ms per frame through the library, or -1. */
static double run(const BenchSource *s, int scale, unsigned threads, unsigned frames)
{
    VmafConfiguration cfg = {.log_level = VMAF_LOG_LEVEL_ERROR, .n_threads = threads};
    VmafContext *ctx;
    if (vmaf_init(&ctx, cfg))
        return -1;
    VmafFeatureDictionary *d = NULL;
    char sc[8];
    snprintf(sc, sizeof(sc), "%d", scale);
    if (vmaf_feature_dictionary_set(&d, "scale", sc) || vmaf_use_feature(ctx, "float_ssim", d)) {
        vmaf_close(ctx);
        return -1;
    }
    FILE *fr = NULL, *fd = NULL;
    if (s->ref_path) {
        fr = fopen(s->ref_path, "rb");
        fd = fopen(s->dis_path, "rb");
        if (!fr || !fd) {
            fprintf(stderr, "cannot open %s or %s\n", s->ref_path, s->dis_path);
            if (fr)
                fclose(fr);
            if (fd)
                fclose(fd);
            vmaf_close(ctx);
            return -1;
        }
    }
    int err = 0;
    unsigned done = 0;
    const double t0 = bench_now();
    for (unsigned i = 0; i < frames && !err; i++) {
        VmafPicture r, dd;
        if (bench_fill(s, 1, i, fr, &r))
            break;
        if (bench_fill(s, 0, i, fd, &dd)) {
            vmaf_picture_unref(&r);
            break;
        }
        err = vmaf_read_pictures(ctx, &r, &dd, i);
        done++;
    }
    if (!err)
        err = vmaf_read_pictures(ctx, NULL, NULL, 0);
    const double t = bench_now() - t0;
    double score = 0;
    if (!err && done)
        vmaf_feature_score_pooled(ctx, "float_ssim", VMAF_POOL_METHOD_MEAN, &score, 0, done - 1);
    if (fr)
        fclose(fr);
    if (fd)
        fclose(fd);
    vmaf_close(ctx);
    if (err || !done)
        return -1;
    return t * 1e3 / done;
}

int main(int argc, char **argv)
{
    int quick = 0;
    double fscale = 1.0;
    long nproc = sysconf(_SC_NPROCESSORS_ONLN);
    unsigned threads = nproc > 0 ? (unsigned)nproc : 1;
    BenchSource raw = {0};
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick")) {
            quick = 1;
        } else if (!strcmp(argv[i], "--frames-scale") && i + 1 < argc) {
            fscale = atof(argv[++i]);
        } else if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
            threads = (unsigned)atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--raw") && i + 5 < argc) {
            raw.ref_path = argv[++i];
            raw.dis_path = argv[++i];
            if (sscanf(argv[++i], "%ux%u", &raw.w, &raw.h) != 2) {
                fprintf(stderr, "--raw: size must be WxH\n");
                return 2;
            }
            raw.fmt = (unsigned)atoi(argv[++i]);
            raw.bpc = (unsigned)atoi(argv[++i]);
        } else {
            fprintf(stderr,
                    "usage: %s [--quick] [--frames-scale F] [--threads N] "
                    "[--raw REF DIS WxH FMT BPC]\n",
                    argv[0]);
            return 2;
        }
    }
    if (quick)
        fscale *= 0.25;
    /* VMAF_BENCH_KERNELS=c|avx2|avx512 forces one inner-loop variant */
    const char *kern = getenv("VMAF_BENCH_KERNELS");
    if (kern && *kern) {
        int found = 0;
        for (int i = 0; i < vmaf_ssim_kernels_count() && !found; i++)
            if (!vmaf_ssim_kernels_select(i) && !strcmp(vmaf_ssim_kernels_name(), kern))
                found = 1;
        if (!found) {
            fprintf(stderr, "VMAF_BENCH_KERNELS=%s: no such variant in this build or CPU\n",
                    kern);
            return 2;
        }
    }

    static const struct { unsigned w, h, frames; } sizes[] = {
        {576, 324, 48}, {1920, 1080, 16}, {3840, 2160, 6},
    };
    printf("float_ssim CPU benchmark, ms/frame (%s kernels).\n"
           "numerics: the SSIM computation alone, median CPU time on one thread;\n"
           "library: mean wall time through vmaf_read_pictures incl. picture allocation and\n"
           "copy, 1 thread = in the caller, %u threads = frames in parallel\n",
           vmaf_ssim_kernels_name(), threads);
    printf("%-10s %4s %6s %6s %10s %10s %10s\n", "size", "bpc", "scale", "frames", "numerics",
           "lib 1 thr", "lib N thr");
    int failed = 0;
    for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
        for (unsigned bpc = 8; bpc <= 10; bpc += 2) {
            BenchSource s = {.w = sizes[si].w, .h = sizes[si].h, .bpc = bpc, .fmt = 420};
            if (bench_synth(&s)) {
                fprintf(stderr, "out of memory\n");
                bench_synth_free(&s);
                return 1;
            }
            for (int scale = 0; scale <= 1; scale++) {
                unsigned frames = (unsigned)(sizes[si].frames * fscale + 0.5);
                if (frames < 2)
                    frames = 2;
                /* scale=1 at 4K costs ~10x auto: keep the default run short */
                if (scale == 1 && sizes[si].w >= 3840 && frames > 4)
                    frames = 4;
                const double tc = run_numerics(&s, scale, frames);
                const double t1 = run(&s, scale, 0, frames);
                const double tn = run(&s, scale, threads, frames * 2);
                char sz[16];
                snprintf(sz, sizeof(sz), "%ux%u", s.w, s.h);
                printf("%-10s %4u %6s %6u %10.2f %10.2f %10.2f\n", sz, bpc, scale ? "1" : "auto",
                       frames, tc, t1, tn);
                fflush(stdout);
                failed |= tc < 0 || t1 < 0 || tn < 0;
            }
            bench_synth_free(&s);
        }
    }
    if (raw.ref_path) {
        unsigned frames = (unsigned)(16 * fscale + 0.5);
        const double t1 = run(&raw, 0, 0, frames ? frames : 1);
        const double tn = run(&raw, 0, threads, frames ? frames : 1);
        printf("raw %ux%u %up%u, reading from disk, auto scale: %.2f ms/frame (1 thread), "
               "%.2f ms/frame (%u threads)\n",
               raw.w, raw.h, raw.fmt, raw.bpc, t1, tn, threads);
        failed |= t1 < 0 || tn < 0;
    }
    return failed;
}
