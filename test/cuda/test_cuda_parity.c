/*
 * float_ssim_cuda against float_ssim in the same process, bit for bit:
 * per-frame scores (and l, c, s, dB) over scales 1..10 and automatic scales
 * up to 17, bit depths 8/10/12/16, odd sizes, flat, extreme and identical
 * frames, pictures in host, pinned and device memory; the decimated planes
 * byte for byte; and the exact frame mean on constructed terms that sit
 * next to an f32 rounding boundary; and the device's sequential sum on the
 * term sets of test/seq_sum_cases.h.
 *
 * Usage: test_cuda_parity [seed | quick]     (exit 77 without a GPU)
 * quick: small pictures only (for compute-sanitizer runs).
 */
#include <math.h>
#include <stdbool.h>

#include "cuda_test.h"

#include "cuda/cuda_internal.h"
#include "cuda/cuda_state.h"
#include "cuda/seq_sum_cuda.h"
#include "cuda/twin.h"
#include "dict.h"
#include "feature/cuda/float_ssim_cuda.h"
#include "feature/cuda/float_ssim_cuda_kernels.h"
#include "feature/feature_collector.h"
#include "feature/feature_extractor.h"
#include "feature/ssim/ssim.h"

#include "../seq_sum_cases.h"
#include "cuda_faults.h"
#include "ssim_switches.h"
#include "ssim_test_kernels.h"

extern const VmafFeatureExtractor vmaf_fex_float_ssim;

static VmafCudaState *cu;
static bool forced_redo; /* every mean goes through the sequential redo */
static bool no_captures; /* every graph capture fails: launches one by one */

typedef struct Case {
    unsigned w, h, bpc;
    int scale;          /* option: 0 = automatic */
    bool lcs, db, clip;
    int pat_ref, pat_dist; /* fill_luma patterns; pat_dist < 0: dist = ref */
    enum PicMem mem;
    unsigned frames;
    /* Device pictures made once per distinct frame and handed in again
     * (as a consumer's pool does), every other one with odd rows when mem
     * is MEM_DEVICE_ODD: a slot meets other planes at each reuse, so its
     * graph is pointed at them (updated, or made again where another
     * kernel reads them). */
    bool rotate;
    /* A second twin reads the same device planes, with enable_lcs the
     * other way (its float_ssim is compared with the CPU's too), as two
     * device extractors of one context share each frame's upload. */
    bool shared;
} Case;

static const char *const feats[] = {"float_ssim", "float_ssim_l", "float_ssim_c",
                                    "float_ssim_s"};
static const char *const mem_name[] = {"host", "pinned", "device", "device (odd rows)"};

static int set_options(const VmafFeatureExtractor *fx, void *priv, const Case *c)
{
    VmafFeatureDictionary *d = NULL;
    char buf[16];
    snprintf(buf, sizeof(buf), "%d", c->scale);
    int err = vmaf_feature_dictionary_set(&d, "scale", buf);
    if (!err)
        err = vmaf_feature_dictionary_set(&d, "enable_lcs", c->lcs ? "true" : "false");
    if (!err)
        err = vmaf_feature_dictionary_set(&d, "enable_db", c->db ? "true" : "false");
    if (!err)
        err = vmaf_feature_dictionary_set(&d, "clip_db", c->clip ? "true" : "false");
    if (!err)
        err = vmaf_fex_parse_options(fx, priv, d);
    vmaf_feature_dictionary_free(&d);
    return err;
}

static void describe(const Case *c, char *s, size_t n)
{
    snprintf(s, n, "%ux%u %u-bit scale %d%s%s%s pat %d/%d %s x%u%s%s", c->w, c->h, c->bpc,
             c->scale, c->lcs ? " lcs" : "", c->db ? " db" : "", c->clip ? " clip" : "",
             c->pat_ref, c->pat_dist, mem_name[c->mem], c->frames,
             c->rotate ? " rotating" : "", c->shared ? " shared" : "");
}

/* The decimated planes of the last frame the twin submitted, copied to the
 * host (W x H, rows packed), after that frame was collected. */
static int decimated_planes(VmafFex *gpu, float *out[2], unsigned *W, unsigned *H)
{
    const float *plane[2];
    size_t pitch = 0;
    int err = vmaf_float_ssim_cuda_decimated(gpu, plane, &pitch, W, H);
    if (!err)
        err = vmaf_cuda_enter(cu);
    if (err)
        return err;
    cudaError_t e = cudaDeviceSynchronize();
    for (int i = 0; i < 2 && e == cudaSuccess; i++)
        e = cudaMemcpy2D(out[i], (size_t)*W * sizeof(float), plane[i], pitch,
                         (size_t)*W * sizeof(float), *H, cudaMemcpyDeviceToHost);
    vmaf_cuda_leave(cu);
    return e == cudaSuccess ? 0 : -EIO;
}

static void run_case(const Case *c, uint64_t *rng)
{
    char what[160];
    describe(c, what, sizeof(what));
    VmafPicture ref[8], dist[8], dref[8], ddist[8];
    const unsigned nf = c->frames > 8 ? 8 : c->frames;
    unsigned ndev = 0;
    VmafCudaFrames *frames = NULL;
    bool gpu_live = false, gpu2_live = false;
    for (unsigned f = 0; f < nf; f++) {
        if (vmaf_picture_alloc(&ref[f], VMAF_PIX_FMT_YUV400P, c->bpc, c->w, c->h) ||
            vmaf_picture_alloc(&dist[f], VMAF_PIX_FMT_YUV400P, c->bpc, c->w, c->h)) {
            fprintf(stderr, "out of memory for %s\n", what);
            exit(1);
        }
        fill_luma(&ref[f], c->pat_ref, rng, NULL);
        if (c->pat_dist < 0)
            memcpy(dist[f].data[0], ref[f].data[0], (size_t)ref[f].stride[0] * c->h);
        else
            fill_luma(&dist[f], c->pat_dist, rng, &ref[f]);
    }

    VmafFeatureCollector *fc_cpu = NULL, *fc_gpu = NULL, *fc_gpu2 = NULL;
    vmaf_feature_collector_init(&fc_cpu);
    vmaf_feature_collector_init(&fc_gpu);
    vmaf_feature_collector_init(&fc_gpu2);
    VmafFex cpu = {.fex = &vmaf_fex_float_ssim, .bpc = c->bpc, .w = c->w, .h = c->h};
    VmafFex gpu = cpu;
    gpu.fex = &vmaf_fex_float_ssim_cuda;
    gpu.cuda = cu;
    VmafFex gpu2 = gpu;
    Case c2 = *c;
    c2.lcs = !c->lcs;
    cpu.priv = calloc(1, vmaf_fex_float_ssim.priv_size);
    gpu.priv = calloc(1, vmaf_fex_float_ssim_cuda.priv_size);
    gpu2.priv = calloc(1, vmaf_fex_float_ssim_cuda.priv_size);
    if (!cpu.priv || !gpu.priv || !gpu2.priv || set_options(cpu.fex, cpu.priv, c) ||
        set_options(gpu.fex, gpu.priv, c) || set_options(gpu2.fex, gpu2.priv, &c2)) {
        fprintf(stderr, "cannot set up %s\n", what);
        exit(1);
    }

    char why[256] = "";
    const int refused = gpu.fex->check_context(gpu.priv, c->w, c->h, c->bpc, why, sizeof(why));
    const int cpu_init = cpu.fex->init(&cpu);
    if (refused) {
        /* The twin refuses only what the CPU refuses too (smaller than the
         * window) or what it cannot do exactly (scale > 128). */
        const int s = ssim_effective_scale(c->scale, c->w, c->h);
        CHECK(cpu_init != 0 || s > SSIM_SCALE_MAX_EXACT,
              "%s: twin refused (%s) but the CPU accepts it", what, why);
        CHECK(gpu.fex->init(&gpu) != 0, "%s: twin init accepted what check_context refused",
              what);
        goto done;
    }
    CHECK(cpu_init == 0, "%s: CPU refused what the twin accepts", what);
    if (cpu_init)
        goto done;
    /* What the context does for its device extractors: one set of device
     * planes, put there once a frame, for every user. */
    const VmafCudaFramesGeometry g = { .w = c->w, .h = c->h, .bpc = c->bpc,
                                       .fmt = VMAF_PIX_FMT_YUV400P };
    int err = vmaf_cuda_frames_init(&frames, cu, &g, c->shared ? 2 : 1, "float_ssim_cuda", 0);
    CHECK(err == 0, "%s: device frames (%d)", what, err);
    gpu.frames = gpu2.frames = frames;
    if (!err)
        err = gpu.fex->init(&gpu);
    CHECK(err == 0, "%s: twin init failed (%d)", what, err);
    gpu_live = !err;
    if (!err && c->shared) {
        err = gpu2.fex->init(&gpu2);
        CHECK(err == 0, "%s: second twin init failed (%d)", what, err);
        gpu2_live = !err;
    }
    if (err) {
        cpu.fex->close(&cpu);
        goto done;
    }
    for (; c->rotate && ndev < nf; ndev++) {
        const enum PicMem m = c->mem == MEM_DEVICE_ODD && (ndev & 1) ? MEM_DEVICE_ODD
                                                                      : MEM_DEVICE;
        if (picture_in(m, &ref[ndev], &dref[ndev]) ||
            picture_in(m, &dist[ndev], &ddist[ndev])) {
            fprintf(stderr, "cannot place pictures for %s\n", what);
            exit(1);
        }
    }
    for (unsigned f = 0; f < c->frames; f++) {
        const unsigned k = f % nf;
        {
            const VmafFexFrame frame = { .ref = &ref[k], .dist = &dist[k], .index = f };
            err = cpu.fex->extract(&cpu, &frame, fc_cpu);
        }
        CHECK(err == 0, "%s: CPU extract frame %u (%d)", what, f, err);
        VmafPicture r, d;
        if (c->rotate ? vmaf_picture_ref(&r, &dref[k]) || vmaf_picture_ref(&d, &ddist[k])
                      : picture_in(c->mem, &ref[k], &r) || picture_in(c->mem, &dist[k], &d)) {
            fprintf(stderr, "cannot place pictures for %s\n", what);
            exit(1);
        }
        err = gpu.fex->reserve(&gpu);
        if (!err && gpu2_live)
            err = gpu2.fex->reserve(&gpu2);
        CHECK(err == 0, "%s: reserve frame %u (%d)", what, f, err);
        VmafCudaPlanes planes;
        if (!err)
            err = vmaf_cuda_frames_put(frames, &r, &d, f, &planes);
        CHECK(err == 0, "%s: put frame %u (%d)", what, f, err);
        /* The context drops its references right after that. */
        vmaf_picture_unref(&r);
        vmaf_picture_unref(&d);
        if (err)
            break;
        err = gpu.fex->submit(&gpu, &planes);
        CHECK(err == 0, "%s: submit frame %u (%d)", what, f, err);
        if (err && gpu2_live)
            vmaf_cuda_frames_done(frames, planes.slot); /* as the context does */
        else if (gpu2_live) {
            err = gpu2.fex->submit(&gpu2, &planes);
            CHECK(err == 0, "%s: second twin: submit frame %u (%d)", what, f, err);
            err = gpu2.fex->collect(&gpu2, false, fc_gpu2);
            CHECK(err == 0, "%s: second twin: collect frame %u (%d)", what, f, err);
        }
        err = gpu.fex->collect(&gpu, false, fc_gpu);
        CHECK(err == 0, "%s: collect frame %u (%d)", what, f, err);
    }
    err = gpu.fex->collect(&gpu, true, fc_gpu);
    CHECK(err == 0, "%s: final collect (%d)", what, err);
    err = gpu.fex->flush(&gpu, fc_gpu);
    CHECK(err == 0, "%s: flush (%d)", what, err);
    if (gpu2_live) {
        err = gpu2.fex->flush(&gpu2, fc_gpu2);
        CHECK(err == 0, "%s: second twin: flush (%d)", what, err);
    }
    /* Every frame is replayed from its slot's graph (kernel by kernel only
     * where captures fail); both paths give the CPU's scores below. */
    const VmafCudaTwinCounts counts = vmaf_cuda_twin_counts(vmaf_float_ssim_cuda_twin(&gpu));
    const unsigned graphs = counts.graph_frames;
    CHECK(graphs == (no_captures ? 0 : c->frames), "%s: %u of %u frames replayed from a graph, "
          "expected %u", what, graphs, c->frames, no_captures ? 0 : c->frames);
    if (c->rotate && !no_captures) {
        /* Frame f takes slot f % SLOTS and pair f % nf; a slot captures for
         * a pair it has no graph for, in place of its least recently used
         * graph once it has VMAF_CUDA_TWIN_GRAPHS. */
        enum { SLOTS = VMAF_CUDA_FRAMES_IN_FLIGHT, KEEP = VMAF_CUDA_TWIN_GRAPHS };
        int key[SLOTS][KEEP];
        unsigned used[SLOTS][KEEP] = {{0}}, want = 0;
        for (unsigned f = 0; f < c->frames; f++) {
            const unsigned sl = f % SLOTS;
            int j = 0;
            while (j < KEEP && !(used[sl][j] && key[sl][j] == (int)(f % nf)))
                j++;
            if (j == KEEP) {
                want++;
                j = 0;
                for (int m = 1; m < KEEP; m++)
                    if (used[sl][m] < used[sl][j])
                        j = m;
                key[sl][j] = (int)(f % nf);
            }
            used[sl][j] = f + 1;
        }
        const unsigned got = counts.graph_captures;
        CHECK(got == want, "%s: %u graphs captured, expected %u", what, got, want);
    }
    if (forced_redo) {
        const unsigned want = c->frames * (c->lcs ? 4u : 1u);
        const unsigned got = counts.redos;
        CHECK(got == want, "%s: %u means went through the forced redo, expected %u", what, got,
              want);
    }

    const int s = ssim_effective_scale(c->scale, c->w, c->h);
    if (s > 1) {
        /* The last frame's decimated planes, byte for byte. */
        const unsigned W = ssim_decimated_size(c->w, s), H = ssim_decimated_size(c->h, s);
        float *g[2] = {malloc(sizeof(float) * W * H), malloc(sizeof(float) * W * H)};
        float *h = malloc(sizeof(float) * W * H);
        unsigned gw = 0, gh = 0;
        const unsigned k = (c->frames - 1) % nf;
        err = decimated_planes(&gpu, g, &gw, &gh);
        CHECK(!err && gw == W && gh == H, "%s: decimated planes unavailable (%d)", what, err);
        for (int i = 0; !err && i < 2; i++) {
            const VmafPicture *p = i ? &dist[k] : &ref[k];
            vmaf_ssim_decimate(p->data[0], p->stride[0], c->bpc, c->w, c->h, s, h);
            CHECK(!memcmp(h, g[i], sizeof(float) * W * H),
                  "%s: decimated %s plane differs from the CPU's", what, i ? "dist" : "ref");
        }
        free(g[0]);
        free(g[1]);
        free(h);
    }
    cpu.fex->close(&cpu);

    for (unsigned f = 0; f < c->frames; f++) {
        for (int q = 0; q < (c->lcs ? 4 : 1); q++) {
            double a = 0, b = 0;
            const int ea = vmaf_feature_collector_get(fc_cpu, feats[q], &a, f);
            const int eb = vmaf_feature_collector_get(fc_gpu, feats[q], &b, f);
            CHECK(!ea && !eb && !memcmp(&a, &b, sizeof(a)),
                  "%s: frame %u %s: CPU %.17g GPU %.17g (%d %d)", what, f, feats[q], a, b, ea,
                  eb);
        }
        if (gpu2_live) {
            double a = 0, b = 0;
            const int ea = vmaf_feature_collector_get(fc_cpu, feats[0], &a, f);
            const int eb = vmaf_feature_collector_get(fc_gpu2, feats[0], &b, f);
            CHECK(!ea && !eb && !memcmp(&a, &b, sizeof(a)),
                  "%s: frame %u: second twin: CPU %.17g GPU %.17g (%d %d)", what, f, a, b, ea,
                  eb);
        }
    }
done:
    /* The twins first, then the frames they read. */
    if (gpu_live)
        gpu.fex->close(&gpu);
    if (gpu2_live)
        gpu2.fex->close(&gpu2);
    vmaf_cuda_frames_free(frames);
    free(cpu.priv);
    free(gpu.priv);
    free(gpu2.priv);
    vmaf_feature_collector_destroy(fc_cpu);
    vmaf_feature_collector_destroy(fc_gpu);
    vmaf_feature_collector_destroy(fc_gpu2);
    for (unsigned f = 0; f < nf; f++) {
        vmaf_picture_unref(&ref[f]);
        vmaf_picture_unref(&dist[f]);
    }
    for (unsigned f = 0; f < ndev; f++) {
        vmaf_picture_unref(&dref[f]);
        vmaf_picture_unref(&ddist[f]);
    }
}

/* ---- the exact frame mean ------------------------------------------------- */

static float host_seq_mean(const double *t, size_t n)
{
    double s = 0.0;
    for (size_t i = 0; i < n; i++)
        s += t[i];
    return (float)(s / (double)n);
}

static double pairwise(const double *t, size_t n)
{
    return n == 1 ? t[0] : pairwise(t, n / 2) + pairwise(t + n / 2, n - n / 2);
}

/* A tree sum, as any parallel reduction would do it. */
static float host_pairwise_mean(const double *t, size_t n)
{
    return (float)(pairwise(t, n) / (double)n);
}

/* The device's sequential sum of n device terms (as the extractor's redo
 * runs it); *st gets how it was reached. */
static double device_seq_sum(const double *dt, size_t n, VmafCudaSeqSum *st, const char *what)
{
    void *work = NULL;
    VmafCudaSeqSum *dout = NULL;
    cudaError_t e = cudaMalloc(&work, vmaf_cuda_seq_sum_work_bytes(n));
    if (e == cudaSuccess)
        e = cudaMalloc((void **)&dout, sizeof(*dout));
    if (e == cudaSuccess)
        e = vmaf_cuda_seq_sum(dt, n, work, dout, 0);
    if (e == cudaSuccess)
        e = cudaMemcpy(st, dout, sizeof(*st), cudaMemcpyDeviceToHost);
    CHECK(e == cudaSuccess, "%s: sequential sum: CUDA error %s", what, cudaGetErrorString(e));
    cudaFree(work);
    cudaFree(dout);
    return e == cudaSuccess ? st->sum : NAN;
}

/* Runs the device's mean (interval check; a flagged mean is then summed in
 * order on the device, as the extractor does) and compares with the host's
 * sequential mean. Returns the flag. */
static int device_mean(const double *t, size_t n, unsigned seg, const char *what)
{
    double *dt = NULL, *dp = NULL;
    SsimCudaOut *dout = NULL, out;
    const size_t pb = ssim_test_terms_partials_bytes(n, seg);
    if (cudaMalloc((void **)&dt, sizeof(double) * n) || cudaMalloc((void **)&dp, pb) ||
        cudaMalloc((void **)&dout, sizeof(out))) {
        fprintf(stderr, "cudaMalloc failed\n");
        exit(1);
    }
    cudaMemcpy(dt, t, sizeof(double) * n, cudaMemcpyHostToDevice);
    cudaError_t e = ssim_test_mean_of_terms(dt, n, seg, dp, dout, 0);
    if (e == cudaSuccess)
        e = cudaMemcpy(&out, dout, sizeof(out), cudaMemcpyDeviceToHost);
    const int flagged = out.redo[0];
    if (e == cudaSuccess && flagged) {
        VmafCudaSeqSum st;
        out.mean[0] = (float)(device_seq_sum(dt, n, &st, what) / (double)n);
    }
    CHECK(e == cudaSuccess, "%s: CUDA error %s", what, cudaGetErrorString(e));
    const float want = host_seq_mean(t, n);
    CHECK(!memcmp(&want, &out.mean[0], sizeof(float)),
          "%s: device mean %.9g, CPU sequential mean %.9g (redo %d)", what, out.mean[0], want,
          flagged);
    cudaFree(dt);
    cudaFree(dp);
    cudaFree(dout);
    return flagged;
}

/* The device's sequential sum on the term sets of seq_sum_cases.h (larger
 * than the host test's), bit for bit, taking its fast path as often as
 * each set says; and on the terms of a 4K picture at scale 1. */
static void test_seq_sum(uint64_t seed, bool quick)
{
    for (int k = 0; k <= SEQ_SUM_CASES; k++) {
        SeqSumCase c;
        if (k == SEQ_SUM_CASES) {
            /* 3830 x 2150 SSIM-like terms: the redo of a 4K frame */
            memset(&c, 0, sizeof(c));
            c.n = (size_t)3830 * 2150;
            c.t = malloc(sizeof(double) * c.n);
            if (!c.t) {
                fprintf(stderr, "out of memory\n");
                exit(1);
            }
            uint64_t r = seed;
            seq_sum_ssim_like(c.t, c.n, &r);
            c.min_prepared = 0.9;
            snprintf(c.name, sizeof(c.name), "ssim-like, 4K scale 1 (%zu terms)", c.n);
        } else if (seq_sum_case(k, seed, quick ? 1 : 10, &c)) {
            fprintf(stderr, "out of memory\n");
            exit(1);
        }
        double *dt = NULL;
        if (cudaMalloc((void **)&dt, sizeof(double) * c.n) != cudaSuccess) {
            fprintf(stderr, "cudaMalloc failed\n");
            exit(1);
        }
        cudaMemcpy(dt, c.t, sizeof(double) * c.n, cudaMemcpyHostToDevice);
        VmafCudaSeqSum st = {0};
        const double got = device_seq_sum(dt, c.n, &st, c.name);
        const double want = seq_sum_reference(c.t, c.n);
        CHECK(seq_sum_same(got, want), "%s: device sequential sum %a, CPU %a", c.name, got, want);
        const double share = st.chunks ? (double)st.prepared / (double)st.chunks : 0.0;
        CHECK(st.chunks == (c.n + VMAF_CUDA_SEQ_SUM_CHUNK - 1) / VMAF_CUDA_SEQ_SUM_CHUNK &&
                  st.prepared + st.term_by_term == st.chunks,
              "%s: %u chunks, %u prepared, %u term by term", c.name, st.chunks, st.prepared,
              st.term_by_term);
        CHECK(share >= c.min_prepared && st.ties >= c.min_ties,
              "%s: %.3f of the chunks prepared (want %.2f), %u ties (want %u)", c.name, share,
              c.min_prepared, st.ties, c.min_ties);
        printf("sequential sum: %-40s %7u chunks, %5.1f%% prepared, %5u ties\n", c.name,
               st.chunks, 100.0 * share, st.ties);
        cudaFree(dt);
        free(c.t);
    }
}

static void test_exact_mean(uint64_t *rng)
{
    /* 1. The sequential sum loses every small term, the exact sum does not,
     *    and the mean sits on an f32 tie: only the CPU's order gives the
     *    CPU's bits, and a tree sum gets it wrong. */
    for (int k = 0; k < 2; k++) {
        const size_t n = k ? 1u << 20 : 1024;
        double *t = malloc(sizeof(double) * n);
        const double mid = 1.0 + 0x1p-24; /* halfway between 1.0f and its successor */
        t[0] = mid * (double)n;
        const double eps = ldexp(1.0, ilogb(t[0]) - 52 - 3); /* an eighth of an ulp */
        for (size_t i = 1; i < n; i++)
            t[i] = eps;
        CHECK(host_seq_mean(t, n) != host_pairwise_mean(t, n),
              "construction %d does not separate sequential and tree sums", k);
        const int flagged = device_mean(t, n, 64, k ? "tie, 2^20 terms" : "tie, 1024 terms");
        CHECK(flagged, "the interval check missed a mean on a rounding boundary (%d)", k);
        free(t);
    }
    /* 2. Terms like real SSIM terms (mostly in (0, 1], some negative),
     *    with the mean pushed to within 1e-14 of an f32 rounding boundary. */
    int flagged = 0;
    for (int k = 0; k < 12; k++) {
        const size_t n = 1000 + rng_next(rng) % 300000;
        double *t = malloc(sizeof(double) * n);
        for (size_t i = 0; i < n; i++) {
            const double u = (double)(rng_next(rng) >> 11) * 0x1p-53;
            t[i] = (rng_next(rng) % 50) ? 0.5 + 0.5 * u : -u;
        }
        if (k & 1) {
            /* Move the sum so that the mean lands just next to a midpoint. */
            double s = 0.0;
            for (size_t i = 0; i < n; i++)
                s += t[i];
            const float m = (float)(s / (double)n);
            const double mid = ((double)m + (double)nextafterf(m, 2.0f)) / 2.0;
            const double off = ((k & 2) ? 1.0 : -1.0) * mid * 1e-14;
            t[n - 1] += (mid + off) * (double)n - s;
        }
        char what[64];
        snprintf(what, sizeof(what), "random terms %d (n=%zu)", k, n);
        flagged += device_mean(t, n, 1 + (unsigned)(rng_next(rng) % 64), what);
        free(t);
    }
    printf("exact mean: %d of 12 random term sets needed the sequential redo\n", flagged);
    /* 3. Flat: every term equal; the exact mean is representable. */
    {
        const size_t n = 4096;
        double *t = malloc(sizeof(double) * n);
        for (size_t i = 0; i < n; i++)
            t[i] = 1.0;
        device_mean(t, n, 16, "all ones");
        free(t);
    }
}

/* The combine's f64 division (the library's fast path without its range
 * check) against the library's division, on operands inside and beyond the
 * combine's range: any mismatch is a wrong last bit in l or c. */
static void test_division(uint64_t seed, bool quick)
{
    const unsigned long long pairs = quick ? 1ull << 24 : 1ull << 28;
    unsigned long long bad = 0;
    double first[4] = {0};
    const cudaError_t e = ssim_test_division_mismatches(seed, pairs, &bad, first);
    CHECK(e == cudaSuccess, "division check: CUDA error %s", cudaGetErrorString(e));
    CHECK(bad == 0,
          "combine division differs from __ddiv_rn in %llu of %llu pairs: %a / %a = %a, want %a",
          bad, pairs, first[0], first[1], first[2], first[3]);
    printf("combine division: %llu pairs, %llu differ from __ddiv_rn\n", pairs, bad);
}

/* The combine's f32 square root (scaled into the library's fast path, no
 * branch) against the library's, on every float it can be given and more. */
static void test_sqrt(void)
{
    unsigned long long bad = 0;
    float first[3] = {0};
    const cudaError_t e = ssim_test_sqrt_mismatches(&bad, first);
    CHECK(e == cudaSuccess, "square root check: CUDA error %s", cudaGetErrorString(e));
    CHECK(bad == 0,
          "combine square root differs from __fsqrt_rn for %llu floats: sqrt(%a) = %a, want %a",
          bad, (double)first[0], (double)first[1], (double)first[2]);
    printf("combine square root: every float in [0, 2^63), %llu differ from __fsqrt_rn\n", bad);
}

int main(int argc, char **argv)
{
    const bool quick = argc > 1 && !strcmp(argv[1], "quick");
    uint64_t seed = argc > 1 && !quick ? strtoull(argv[1], NULL, 0) : 0x9e3779b97f4a7c15ull;
    uint64_t rng = seed | 1;
    cu = cuda_test_state_or_skip("test_cuda_parity");
    setvbuf(stdout, NULL, _IOLBF, 0);

    test_seq_sum(seed, quick);
    test_exact_mean(&rng);
    test_division(seed, quick);
    test_sqrt();

    /* Fixed cases: the sizes and kinds of memory that matter. */
    const Case fixed[] = {
        {576, 324, 8, 0, true, false, false, 0, 4, MEM_HOST, 5},
        {576, 324, 8, 0, false, false, false, 2, 4, MEM_PINNED, 7},
        {1920, 1080, 8, 0, true, false, false, 2, 4, MEM_PINNED, 5},
        {1920, 1080, 10, 1, true, false, false, 2, 4, MEM_DEVICE, 3},
        {3840, 2160, 8, 0, true, false, false, 2, 4, MEM_DEVICE, 3},
        {3840, 2160, 16, 1, false, false, false, 0, 4, MEM_HOST, 2},
        {7680, 4320, 8, 0, true, false, false, 2, 4, MEM_PINNED, 2},
        {7680, 4320, 12, 0, false, false, false, 0, 4, MEM_DEVICE, 1},
        {3840, 2160, 8, 0, true, false, false, 2, 4, MEM_DEVICE_ODD, 2},
        {1920, 1080, 10, 0, false, false, false, 2, 4, MEM_DEVICE_ODD, 2},
        {3840, 2160, 10, 1, false, false, false, 2, 4, MEM_DEVICE_ODD, 1},
        /* Odd widths at the scales 4 and 8 (k_decimate_vec): the last
         * output's right half gathered past the row's end, for each
         * remainder of w / S that mirrors differently. */
        {3841, 2160, 10, 0, false, false, false, 2, 4, MEM_DEVICE, 2},
        {1921, 1081, 8, 0, true, false, false, 2, 4, MEM_PINNED, 2},
        {3845, 2160, 16, 8, false, false, false, 3, 4, MEM_DEVICE, 1},
        {3843, 2160, 8, 0, false, false, false, 2, 4, MEM_DEVICE, 1},
        {3847, 2161, 8, 8, false, false, false, 2, 4, MEM_HOST, 1},
        {1283, 723, 8, 4, true, false, false, 2, 4, MEM_DEVICE, 2},
        {1281, 721, 10, 8, false, false, false, 3, 4, MEM_PINNED, 2},
        {1285, 720, 12, 4, false, false, false, 2, 4, MEM_DEVICE, 2},
        /* Host pictures large enough for the copier's threads (quick runs,
         * and so the sanitizers, take this one too). */
        {1920, 1080, 10, 0, true, false, false, 2, 4, MEM_HOST, 3},
        /* Column-sum decimation (scales that are not powers of two): 1440p
         * at its automatic scale 6 from unaligned rows, an odd 720p at 3,
         * and a window wider than 8K's (scale 18). */
        {2560, 1440, 10, 0, true, false, false, 2, 4, MEM_DEVICE_ODD, 2},
        {1281, 721, 16, 0, false, false, false, 3, 4, MEM_DEVICE, 2},
        {4608, 4610, 8, 0, false, false, false, 2, 4, MEM_PINNED, 1},
        /* Scale 2 by vectors of 8 samples: even and odd sizes (the last
         * vector passing the row's end), every depth, and rows that allow
         * no aligned load (the generic kernel). */
        {3840, 2160, 8, 2, true, false, false, 2, 4, MEM_DEVICE, 2},
        {1921, 1081, 10, 2, false, false, false, 2, 4, MEM_PINNED, 2},
        {1283, 723, 12, 2, true, false, false, 3, 4, MEM_HOST, 2},
        {1918, 1079, 16, 2, false, false, false, 2, 3, MEM_DEVICE, 2},
        {3841, 2161, 8, 2, false, false, false, 2, 4, MEM_DEVICE_ODD, 1},
        /* Device pictures from a pool: a slot's graphs for the pairs that
         * come round again, and updated for new ones (the first case
         * gives a slot six pairs for its four graphs), at scale 1 (small
         * and tall tiles, strips), through each decimation, and
         * alternating with rows that pick other kernels. */
        {576, 324, 8, 0, true, false, false, 2, 4, MEM_DEVICE, 19, true},
        {1280, 720, 10, 1, false, false, false, 2, 4, MEM_DEVICE_ODD, 7, true},
        {3840, 2160, 8, 1, false, false, false, 2, 4, MEM_DEVICE, 5, true},
        {1920, 1080, 10, 0, true, false, false, 2, 4, MEM_DEVICE_ODD, 7, true},
        {3840, 2160, 10, 0, false, false, false, 2, 4, MEM_DEVICE_ODD, 6, true},
        {2560, 1440, 8, 0, false, false, false, 2, 4, MEM_DEVICE, 5, true},
        {1921, 1081, 8, 2, false, false, false, 2, 4, MEM_DEVICE_ODD, 5, true},
        /* Two twins on the same device planes, from every kind of memory
         * (the pool's pictures go back to it once both are done). */
        {576, 324, 8, 0, false, false, false, 2, 4, MEM_PINNED, 7, false, true},
        {1920, 1080, 10, 0, true, false, false, 2, 4, MEM_HOST, 5, false, true},
        {1280, 720, 12, 3, false, true, false, 0, 4, MEM_DEVICE_ODD, 5, false, true},
        {3840, 2160, 8, 1, true, false, false, 2, 4, MEM_DEVICE, 5, true, true},
        {333, 227, 8, 0, true, false, false, 1, 1, MEM_HOST, 2},     /* flat vs flat */
        {333, 227, 10, 2, true, true, false, 2, -1, MEM_DEVICE, 2}, /* identical, inf dB */
        {333, 227, 12, 3, true, true, true, 2, -1, MEM_PINNED, 2},  /* identical, clipped */
        {401, 289, 16, 0, true, true, false, 3, 3, MEM_HOST, 2},    /* extremes */
        {11, 11, 8, 1, true, false, false, 0, 0, MEM_HOST, 2},      /* one output pixel */
        {10, 40, 8, 1, false, false, false, 0, 0, MEM_HOST, 1},     /* refused by both */
        {21, 21, 8, 2, false, false, false, 0, 0, MEM_HOST, 1},     /* 11x11 after scale 2 */
        {40, 40, 8, 4, false, false, false, 0, 0, MEM_HOST, 1},     /* 10x10: refused */
    };
    for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
        if (!quick || fixed[i].w * fixed[i].h <= 1920 * 1080)
            run_case(&fixed[i], &rng);

    /* Host pictures launched one by one, as where a capture fails: the
     * same bits as the graphs give. */
    const Case uncaptured[] = {
        {576, 324, 8, 0, true, false, false, 0, 4, MEM_HOST, 3},
        {1920, 1080, 10, 0, false, true, false, 1, 4, MEM_PINNED, 3},
        {1031, 601, 16, 1, true, false, true, 2, 4, MEM_HOST, 2},
    };
    no_captures = true;
    cuda_fault_captures(true);
    for (size_t i = 0; i < sizeof(uncaptured) / sizeof(uncaptured[0]); i++)
        run_case(&uncaptured[i], &rng);
    cuda_fault_captures(false);
    no_captures = false;

    /* The sequential redo of the frame mean, forced for every mean: the
     * terms the device writes in row-major order and their sum in the CPU's
     * order on the device (from one chunk of terms to 8 000), must give the
     * CPU's bits. */
    const Case redo[] = {
        {576, 324, 8, 0, true, false, false, 0, 4, MEM_HOST, 2},
        {333, 227, 12, 3, true, true, true, 2, 4, MEM_PINNED, 2},
        {1920, 1080, 10, 1, true, false, false, 2, 4, MEM_DEVICE, 2},
        {3840, 2160, 8, 1, true, false, false, 2, 4, MEM_PINNED, 1},
    };
    forced_redo = true;
    ssim_switch_force_redo(true);
    for (size_t i = 0; i < sizeof(redo) / sizeof(redo[0]); i++)
        if (!quick || redo[i].w * redo[i].h <= 1920 * 1080)
            run_case(&redo[i], &rng);
    ssim_switch_force_redo(false);
    forced_redo = false;

    /* Every explicit scale at every depth, on an odd size. */
    const unsigned depths[] = {8, 10, 12, 16};
    for (int s = 1; s <= 10; s++)
        for (int b = 0; b < 4; b += quick ? 3 : 1) {
            const Case c = {257 + 2 * (unsigned)s, 181 + (unsigned)b, depths[b], s, (s + b) & 1,
                            (s & 3) == 1, (s & 3) == 1 && (b & 1), (s + b) % 4, 4,
                            (enum PicMem)((s + b) % 4), 2};
            run_case(&c, &rng);
        }

    /* Random geometry, content, options and memory. */
    for (int i = 0; i < (quick ? 4 : 40); i++) {
        Case c = {
            .w = 11 + (unsigned)(rng_next(&rng) % 900),
            .h = 11 + (unsigned)(rng_next(&rng) % 600),
            .bpc = depths[rng_next(&rng) % 4],
            .scale = (int)(rng_next(&rng) % 11),
            .lcs = rng_next(&rng) & 1,
            .db = (rng_next(&rng) % 4) == 0,
            .pat_ref = (int)(rng_next(&rng) % 4),
            .mem = (enum PicMem)(rng_next(&rng) % 4),
            .frames = 1 + (unsigned)(rng_next(&rng) % 5),
        };
        c.clip = c.db && (rng_next(&rng) & 1);
        c.pat_dist = (rng_next(&rng) % 8) == 0 ? -1 : (int)(rng_next(&rng) % 5);
        run_case(&c, &rng);
    }

    /* Every kernel shape on random geometry, whatever the plan would pick
     * for the size (the plan picks by size: small tiles, tall tiles,
     * strips), and once with the sequential redo forced. */
    for (int shape = 0; shape < vmaf_ssim_cuda_shapes(); shape++) {
        ssim_switch_force_shape(shape);
        for (int i = 0; i < (quick ? 3 : 12); i++) {
            Case c = {
                .w = 11 + (unsigned)(rng_next(&rng) % (i < 2 ? 2000 : 700)),
                .h = 11 + (unsigned)(rng_next(&rng) % (i < 2 ? 1200 : 500)),
                .bpc = depths[rng_next(&rng) % 4],
                .scale = (int)(rng_next(&rng) % 4),
                .lcs = rng_next(&rng) & 1,
                .pat_ref = (int)(rng_next(&rng) % 4),
                .pat_dist = (int)(rng_next(&rng) % 5),
                .mem = (enum PicMem)(rng_next(&rng) % 4),
                .frames = 1 + (unsigned)(rng_next(&rng) % 3),
            };
            forced_redo = i == 1;
            ssim_switch_force_redo(forced_redo);
            run_case(&c, &rng);
        }
    }
    ssim_switch_force_shape(-1);
    ssim_switch_force_redo(false);
    forced_redo = false;

    vmaf_cuda_state_free(cu);
    printf("test_cuda_parity (seed 0x%llx): %d checks, %d failed\n", (unsigned long long)seed,
           check_count, check_failures);
    return check_failures ? 1 : 0;
}
