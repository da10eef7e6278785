/*
 * float_ssim on the GPU: GPU time per frame (CUDA events around the
 * kernels of one frame, median after warm-up, inputs rotating through
 * several device buffers), end-to-end time through the library (picture
 * in, score out; pinned pool, device pool and plain host pictures, uploads
 * included), and the CPU extractor's time on the same frames.
 *
 * Usage: bench_cuda_ssim [frames]      (exit 77 without a GPU)
 *        bench_cuda_ssim frames WxH bpc scale shape [lcs]   (one case, GPU time
 *        only; scale 0 = automatic, shape -1 = the library's choice, lcs 1 =
 *        also the l, c and s means, as enable_lcs asks)
 *        bench_cuda_ssim frames redo   (only the cost of the sequential redo:
 *        end to end with every frame's mean summed in the CPU's order)
 *        bench_cuda_ssim frames scales (only the table of explicit scales)
 *        bench_cuda_ssim frames devpool (only the device pool end to end, with
 *        graphs and one by one)
 */
#include <math.h>
#include <stdbool.h>
#include <time.h>

#include "cuda_test.h"

#include "cuda/cuda_internal.h"
#include "cuda/cuda_state.h"
#include "cuda/seq_sum_cuda.h"
#include "feature/cuda/float_ssim_cuda_kernels.h"
#include "feature/ssim/ssim.h"

#include "../seq_sum_cases.h"
#include "cuda_faults.h"
#include "ssim_switches.h"

#define ROT 4 /* input pairs the runs rotate through (defeats the L2 cache) */

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(double), cmp_double);
    return n & 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

#define CK(x)                                                                             \
    do {                                                                                  \
        cudaError_t e_ = (x);                                                             \
        if (e_ != cudaSuccess) {                                                          \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x,                    \
                    cudaGetErrorString(e_));                                              \
            exit(1);                                                                      \
        }                                                                                 \
    } while (0)

/* Kernels alone: median GPU microseconds per frame. shape: -1 the
 * library's choice, else that tile kernel variant (vmaf_ssim_cuda_shapes).
 * dec_us: the decimation's share (median). score0: the kernels' score of
 * input pair 0 (NaN when it would take the sequential redo). redo_pairs:
 * how many of the ROT input pairs would take it. stream_us: the same
 * kernels launched into the stream one by one (the library's way for
 * device pictures) instead of replayed from a graph (its way for host
 * pictures, which it uploads into buffers of its own). */
static double gpu_time(VmafCudaState *cu, VmafPicture *ref, VmafPicture *dist, int scale,
                       int lcs, int frames, int shape, double *dec_us, int *chosen,
                       double *score0, int *redo_pairs, double *stream_us)
{
    const unsigned w = ref[0].w[0], h = ref[0].h[0], bpc = ref[0].bpc;
    SsimCudaConsts k;
    vmaf_ssim_cuda_consts(&k);
    SsimCudaPlan p;
    vmaf_ssim_cuda_plan(&p, w, h, bpc, scale, lcs, cu->sm_count, cu->pdl, &k);
    if (shape >= 0 && vmaf_ssim_cuda_plan_override(&p, shape)) {
        fprintf(stderr, "no launch shape %d\n", shape);
        exit(1);
    }
    if (chosen)
        *chosen = p.shape;
    CK(vmaf_ssim_cuda_prepare());
    const size_t row = (size_t)w * (bpc > 8 ? 2 : 1);
    void *dr[ROT], *dd[ROT];
    size_t pitch = 0, fpitch = 0;
    float *dec[2] = {NULL, NULL};
    double *part;
    SsimCudaOut *out;
    for (int i = 0; i < ROT; i++) {
        CK(cudaMallocPitch(&dr[i], &pitch, row, h));
        CK(cudaMallocPitch(&dd[i], &pitch, row, h));
        CK(cudaMemcpy2D(dr[i], pitch, ref[i].data[0], (size_t)ref[i].stride[0], row, h,
                        cudaMemcpyHostToDevice));
        CK(cudaMemcpy2D(dd[i], pitch, dist[i].data[0], (size_t)dist[i].stride[0], row, h,
                        cudaMemcpyHostToDevice));
    }
    if (scale > 1) {
        CK(cudaMallocPitch((void **)&dec[0], &fpitch, p.W * sizeof(float), p.H));
        CK(cudaMallocPitch((void **)&dec[1], &fpitch, p.W * sizeof(float), p.H));
    }
    CK(cudaMalloc((void **)&part, vmaf_ssim_cuda_partials_bytes()));
    CK(cudaMemset(part, 0, vmaf_ssim_cuda_partials_bytes()));
    CK(cudaMalloc((void **)&out, sizeof(SsimCudaOut)));
    cudaStream_t st;
    /* One CUDA graph per input pair holds a frame's kernels; replayed back
     * to back with an event between frames, the time between events is the
     * GPU's time for a frame, launch gaps included but without the host's
     * launch overhead (which the end-to-end numbers include). A second
     * graph per pair stops after the decimation, for its share. */
    cudaGraphExec_t g[ROT], gd[ROT];
    CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    for (int j = 0; j < ROT; j++) {
        for (int part_only = 0; part_only < 2; part_only++) {
            cudaGraph_t graph;
            CK(cudaStreamBeginCapture(st, cudaStreamCaptureModeThreadLocal));
            if (scale > 1) {
                CK(vmaf_ssim_cuda_decimate(&p, dr[j], pitch, dd[j], pitch, dec[0], dec[1],
                                           fpitch, st));
                if (!part_only)
                    CK(vmaf_ssim_cuda_frame(&p, dec[0], fpitch, dec[1], fpitch, 1, part, out,
                                            st));
            } else if (!part_only) {
                CK(vmaf_ssim_cuda_frame(&p, dr[j], pitch, dd[j], pitch, 0, part, out, st));
            } else {
                CK(cudaMemsetAsync(out, 0, sizeof(SsimCudaOut), st)); /* an empty stand-in */
            }
            CK(cudaStreamEndCapture(st, &graph));
            CK(cudaGraphInstantiate(part_only ? &gd[j] : &g[j], graph, 0));
            CK(cudaGraphDestroy(graph));
        }
    }
    cudaEvent_t *ev = malloc(sizeof(cudaEvent_t) * (size_t)(2 * frames + 2));
    for (int i = 0; i < 2 * frames + 2; i++)
        CK(cudaEventCreate(&ev[i]));
    double *t = malloc(sizeof(double) * (size_t)frames);
    double *td = malloc(sizeof(double) * (size_t)frames);
    for (int pass = 0; pass < 2; pass++) {
        cudaGraphExec_t *gg = pass ? gd : g;
        for (int i = -10; i < frames; i++) {
            if (i >= 0)
                CK(cudaEventRecord(ev[i], st));
            CK(cudaGraphLaunch(gg[(i + 10) % ROT], st));
        }
        CK(cudaEventRecord(ev[frames], st));
        CK(cudaEventSynchronize(ev[frames]));
        for (int i = 0; i < frames; i++) {
            float ms = 0;
            CK(cudaEventElapsedTime(&ms, ev[i], ev[i + 1]));
            (pass ? td : t)[i] = 1000.0 * ms;
        }
    }
    if (stream_us) {
        /* The host enqueues a frame (an event, two launches) in a few us,
         * well ahead of the GPU after the warm-up, so the time between
         * events is the GPU's; a host that fell behind could only make it
         * longer. */
        for (int i = -10; i < frames; i++) {
            if (i >= 0)
                CK(cudaEventRecord(ev[i], st));
            const int j = (i + 10) % ROT;
            if (scale > 1) {
                CK(vmaf_ssim_cuda_decimate(&p, dr[j], pitch, dd[j], pitch, dec[0], dec[1],
                                           fpitch, st));
                CK(vmaf_ssim_cuda_frame(&p, dec[0], fpitch, dec[1], fpitch, 1, part, out, st));
            } else {
                CK(vmaf_ssim_cuda_frame(&p, dr[j], pitch, dd[j], pitch, 0, part, out, st));
            }
        }
        CK(cudaEventRecord(ev[frames], st));
        CK(cudaEventSynchronize(ev[frames]));
        double *ts = malloc(sizeof(double) * (size_t)frames);
        for (int i = 0; i < frames; i++) {
            float ms = 0;
            CK(cudaEventElapsedTime(&ms, ev[i], ev[i + 1]));
            ts[i] = 1000.0 * ms;
        }
        *stream_us = median(ts, frames);
        free(ts);
    }
    if (redo_pairs)
        *redo_pairs = 0;
    for (int j = 0; j < ROT && (score0 || redo_pairs); j++) {
        SsimCudaOut o;
        CK(cudaGraphLaunch(g[j], st));
        CK(cudaMemcpyAsync(&o, out, sizeof(o), cudaMemcpyDeviceToHost, st));
        CK(cudaStreamSynchronize(st));
        bool redo = false;
        for (int q = 0; q < (lcs ? 4 : 1); q++)
            redo |= o.redo[q] != 0;
        if (j == 0 && score0)
            *score0 = o.redo[0] ? NAN : (double)o.mean[0];
        if (redo_pairs)
            *redo_pairs += redo;
    }
    for (int j = 0; j < ROT; j++) {
        cudaGraphExecDestroy(g[j]);
        cudaGraphExecDestroy(gd[j]);
    }
    const double med = median(t, frames);
    if (dec_us)
        *dec_us = median(td, frames);
    free(t);
    free(td);
    for (int i = 0; i < 2 * frames + 2; i++)
        cudaEventDestroy(ev[i]);
    free(ev);
    for (int i = 0; i < ROT; i++) {
        cudaFree(dr[i]);
        cudaFree(dd[i]);
    }
    cudaFree(dec[0]);
    cudaFree(dec[1]);
    cudaFree(part);
    cudaFree(out);
    cudaStreamDestroy(st);
    return med;
}

/* Where the end-to-end runs' pictures come from: plain host pictures, the
 * pinned pool, or the device pool (FFmpeg's CUDA filter's way: the decoder
 * writes into pool pictures already on the GPU). */
enum E2eSource { E2E_HOST, E2E_PINNED, E2E_DEVICE };

/* Through the library: ms per frame, including uploads and the final
 * flush. check (may be NULL): the score of frame 12, which is input pair 0
 * for plain host pictures; pool pictures are filled by the pool's order. */
static double e2e_time(VmafPicture *ref, VmafPicture *dist, int scale_opt, enum E2eSource src_kind,
                       int frames, double *check, double *submit_us)
{
    const bool pool = src_kind != E2E_HOST;
    const unsigned w = ref[0].w[0], h = ref[0].h[0], bpc = ref[0].bpc;
    VmafContext *ctx = NULL;
    VmafCudaState *cu = NULL;
    if (vmaf_init(&ctx, (VmafConfiguration){.log_level = VMAF_LOG_LEVEL_ERROR}) ||
        vmaf_cuda_state_init(&cu, (VmafCudaConfiguration){0}) ||
        vmaf_cuda_import_state(ctx, cu)) {
        fprintf(stderr, "cannot set up a CUDA context\n");
        exit(1);
    }
    VmafFeatureDictionary *d = NULL;
    char buf[8];
    snprintf(buf, sizeof(buf), "%d", scale_opt);
    vmaf_feature_dictionary_set(&d, "scale", buf);
    if (vmaf_use_feature(ctx, "float_ssim", d)) {
        fprintf(stderr, "vmaf_use_feature failed\n");
        exit(1);
    }
    const size_t row = (size_t)w * (bpc > 8 ? 2 : 1);
    if (pool) {
        VmafCudaPictureConfiguration pc = {
            .pic_params = {.w = w, .h = h, .bpc = bpc, .pix_fmt = VMAF_PIX_FMT_YUV400P},
            .pic_prealloc_method = src_kind == E2E_DEVICE
                                       ? VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_DEVICE
                                       : VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_HOST_PINNED,
        };
        if (vmaf_cuda_preallocate_pictures(ctx, pc)) {
            fprintf(stderr, "cannot preallocate pool pictures\n");
            exit(1);
        }
        /* Every pool picture is filled once, before the timing, so that
         * the timing is the library's alone (in a real pipeline the decoder
         * writes there): fetched in turn, reference and distorted of the
         * input pairs, then given back. */
        VmafPicture all[VMAF_CUDA_POOL_PICTURES];
        for (int m = 0; m < VMAF_CUDA_POOL_PICTURES; m++) {
            const VmafPicture *from = m & 1 ? &dist[(m / 2) % ROT] : &ref[(m / 2) % ROT];
            if (vmaf_cuda_fetch_preallocated_picture(ctx, &all[m])) {
                fprintf(stderr, "cannot fetch a pool picture\n");
                exit(1);
            }
            if (src_kind == E2E_DEVICE)
                CK(cudaMemcpy2D(all[m].data[0], (size_t)all[m].stride[0], from->data[0],
                                (size_t)from->stride[0], row, h, cudaMemcpyHostToDevice));
            else
                for (unsigned y = 0; y < h; y++)
                    memcpy((char *)all[m].data[0] + y * all[m].stride[0],
                           (const char *)from->data[0] + y * from->stride[0], row);
        }
        for (int m = 0; m < VMAF_CUDA_POOL_PICTURES; m++)
            vmaf_picture_unref(&all[m]);
    }
    double t0 = 0, t_submit = 0;
    for (int i = -10; i < frames; i++) {
        if (i == 0)
            t0 = now_s();
        const int j = (i + 10) % ROT;
        VmafPicture p[2];
        const VmafPicture *src[2] = {&ref[j], &dist[j]};
        for (int k = 0; k < 2; k++)
            if (pool ? vmaf_cuda_fetch_preallocated_picture(ctx, &p[k])
                     : vmaf_picture_ref(&p[k], src[k])) {
                fprintf(stderr, "cannot get a picture\n");
                exit(1);
            }
        const double ts = now_s();
        if (vmaf_read_pictures(ctx, &p[0], &p[1], (unsigned)(i + 10))) {
            fprintf(stderr, "vmaf_read_pictures failed\n");
            exit(1);
        }
        if (i >= 0)
            t_submit += now_s() - ts;
    }
    vmaf_read_pictures(ctx, NULL, NULL, 0);
    const double ms = 1000.0 * (now_s() - t0) / frames;
    if (submit_us)
        *submit_us = 1e6 * t_submit / frames;
    /* index 12 scored input pair 0 ((2 + 10) % ROT) */
    if (check)
        vmaf_feature_score_at_index(ctx, "float_ssim", check, 12);
    vmaf_close(ctx);
    return ms;
}

static double cpu_time(VmafPicture *ref, VmafPicture *dist, int scale, int frames, double *check)
{
    const unsigned w = ref[0].w[0], h = ref[0].h[0], bpc = ref[0].bpc;
    const size_t n = vmaf_ssim_scratch_size(w, h, scale);
    void *scratch = malloc(n);
    double *t = malloc(sizeof(double) * (size_t)frames);
    for (int i = 0; i < frames; i++) {
        VmafSsimResult r;
        const double t0 = now_s();
        vmaf_ssim_compute(ref[i % ROT].data[0], ref[i % ROT].stride[0], dist[i % ROT].data[0],
                          dist[i % ROT].stride[0], bpc, w, h, scale, scratch, n, &r);
        t[i] = 1000.0 * (now_s() - t0);
        if (i == 0)
            *check = r.score;
    }
    const double med = median(t, frames);
    free(t);
    free(scratch);
    return med;
}

/* The ROT input pairs of one size: a textured reference and a distorted
 * copy, the same for every run of the benchmark. */
static int make_inputs(VmafPicture *ref, VmafPicture *dist, unsigned w, unsigned h,
                       unsigned bpc)
{
    uint64_t rng = 0xabcdef12345ull + w + bpc;
    for (int i = 0; i < ROT; i++) {
        if (vmaf_picture_alloc(&ref[i], VMAF_PIX_FMT_YUV400P, bpc, w, h) ||
            vmaf_picture_alloc(&dist[i], VMAF_PIX_FMT_YUV400P, bpc, w, h))
            return -ENOMEM;
        fill_luma(&ref[i], 2, &rng, NULL);
        fill_luma(&dist[i], 4, &rng, &ref[i]);
    }
    return 0;
}

static void free_inputs(VmafPicture *ref, VmafPicture *dist)
{
    for (int i = 0; i < ROT; i++) {
        vmaf_picture_unref(&ref[i]);
        vmaf_picture_unref(&dist[i]);
    }
}

/* One case, GPU time only (for profilers): frames WxH bpc scale shape [lcs]. */
static int one_case(VmafCudaState *cu, int frames, char **argv)
{
    unsigned w = 0, h = 0;
    if (sscanf(argv[2], "%ux%u", &w, &h) != 2 || w < 16 || h < 16) {
        fprintf(stderr, "bad size '%s' (want WxH)\n", argv[2]);
        return 2;
    }
    const unsigned bpc = (unsigned)atoi(argv[3]);
    const int scale = atoi(argv[4]), shape = atoi(argv[5]);
    VmafPicture ref[ROT], dist[ROT];
    if (make_inputs(ref, dist, w, h, bpc))
        return 1;
    const int eff = scale ? scale : ssim_auto_scale(w, h);
    double dus = 0, score = 0, cpu = 0;
    int chosen = 0;
    const int lcs = argv[6] ? atoi(argv[6]) : 0;
    double sus = 0;
    const double g =
        gpu_time(cu, ref, dist, eff, lcs, frames, shape, &dus, &chosen, &score, NULL, &sus);
    (void)cpu_time(ref, dist, eff, 1, &cpu);
    printf("%ux%u %u-bit scale %d%s shape t%d: %.1f us/frame GPU (decimation %.1f; launched "
           "into the stream %.1f), %s\n", w,
           h, bpc, eff, lcs ? " (l, c, s too)" : "", chosen, g, dus, sus,
           isnan(score) ? "near a rounding boundary (redo)"
           : score == cpu ? "same as CPU"
                          : "DIFFERS FROM CPU");
    free_inputs(ref, dist);
    vmaf_cuda_state_free(cu);
    return 0;
}

/* The device's sequential sum alone, on n SSIM-like terms: median GPU us
 * over 11 runs; *st gets how the last one was reached. */
static double seq_sum_time(size_t n, VmafCudaSeqSum *st)
{
    double *h = malloc(sizeof(double) * n), *dt = NULL;
    void *work = NULL;
    VmafCudaSeqSum *dout = NULL;
    uint64_t r = 12345;
    if (h)
        seq_sum_ssim_like(h, n, &r);
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    if (!h || cudaMalloc((void **)&dt, sizeof(double) * n) ||
        cudaMalloc(&work, vmaf_cuda_seq_sum_work_bytes(n)) ||
        cudaMalloc((void **)&dout, sizeof(*dout))) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    cudaMemcpy(dt, h, sizeof(double) * n, cudaMemcpyHostToDevice);
    double us[11];
    for (int k = 0; k < 11; k++) {
        cudaEventRecord(a, 0);
        vmaf_cuda_seq_sum(dt, n, work, dout, 0);
        cudaEventRecord(b, 0);
        cudaEventSynchronize(b);
        float ms = 0;
        cudaEventElapsedTime(&ms, a, b);
        us[k] = 1000.0 * ms;
    }
    cudaMemcpy(st, dout, sizeof(*st), cudaMemcpyDeviceToHost);
    const double want = seq_sum_reference(h, n);
    if (!seq_sum_same(st->sum, want))
        printf("  SEQUENTIAL SUM DIFFERS FROM CPU (%a, want %a)\n", st->sum, want);
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    cudaFree(dt);
    cudaFree(work);
    cudaFree(dout);
    free(h);
    return median(us, 11);
}

/* What a frame whose mean sits next to an f32 rounding boundary costs: end
 * to end from the pinned pool with the sequential redo forced on every
 * frame, next to the same run without it (scale 1, where n is largest);
 * and the device's sequential sum by itself. */
static void redo_table(int frames)
{
    static const unsigned sizes[][2] = {{1920, 1080}, {3840, 2160}, {7680, 4320}};
    printf("sequential redo (forced on every frame), scale 1, 8-bit:\n");
    for (int si = 0; si < 3; si++) {
        const unsigned w = sizes[si][0], h = sizes[si][1];
        VmafPicture ref[ROT], dist[ROT];
        if (make_inputs(ref, dist, w, h, 8))
            exit(1);
        const int n = w >= 7680 ? frames / 2 : frames;
        double host_redo = 0, cpu = 0;
        const double plain = e2e_time(ref, dist, 1, E2E_PINNED, n, NULL, NULL);
        ssim_switch_force_redo(true);
        const double redo = e2e_time(ref, dist, 1, E2E_PINNED, n, NULL, NULL);
        /* plain host pictures keep pair 0 at index 12: the check */
        (void)e2e_time(ref, dist, 1, E2E_HOST, 3, &host_redo, NULL);
        ssim_switch_force_redo(false);
        (void)cpu_time(ref, dist, 1, 1, &cpu);
        VmafCudaSeqSum st = {0};
        const size_t terms = (size_t)(w - 10) * (h - 10);
        const double sum_us = seq_sum_time(terms, &st);
        printf("  %ux%u: e2e pinned %.3f ms a frame, %.3f ms with the redo (+%.3f ms, %s); "
               "the sequential sum of %zu terms alone %.1f us (%u of %u chunks prepared, %u "
               "term by term)\n",
               w, h, plain, redo, redo - plain,
               !memcmp(&host_redo, &cpu, sizeof(double)) ? "same as CPU" : "DIFFERS FROM CPU",
               terms, sum_us, st.prepared, st.chunks, st.term_by_term);
        free_inputs(ref, dist);
    }
}

/* The device pool (FFmpeg's CUDA filter's pictures) end to end, with the
 * slots' graphs and with the kernels launched one by one (every capture
 * made to fail), at the automatic scale. */
static void devpool_table(int frames)
{
    static const unsigned sizes[][2] = {{576, 324}, {1920, 1080}, {3840, 2160}};
    printf("device pool, end to end, ms a frame (graphs / one by one; the host's time in "
           "the library's submit in brackets):\n");
    for (int si = 0; si < 3; si++)
        for (unsigned bpc = 8; bpc <= 10; bpc += 2) {
            const unsigned w = sizes[si][0], h = sizes[si][1];
            VmafPicture ref[ROT], dist[ROT];
            if (make_inputs(ref, dist, w, h, bpc))
                exit(1);
            double hg = 0, ho = 0;
            const double g = e2e_time(ref, dist, 0, E2E_DEVICE, frames, NULL, &hg);
            cuda_fault_captures(true);
            const double o = e2e_time(ref, dist, 0, E2E_DEVICE, frames, NULL, &ho);
            cuda_fault_captures(false);
            printf("  %ux%u %2u-bit: %.4f / %.4f (in vmaf_read_pictures: %.1f / %.1f us)\n", w,
                   h, bpc, g, o, hg, ho);
            free_inputs(ref, dist);
        }
}

/* Every explicit scale at 1080p and 4K, GPU time only (the decimation's
 * share in brackets), each checked against the CPU on input pair 0. */
static void scales_table(VmafCudaState *cu, int frames)
{
    static const unsigned sizes[][2] = {{1920, 1080}, {3840, 2160}};
    printf("explicit scales, GPU us a frame (decimation):\n");
    for (int si = 0; si < 2; si++)
        for (unsigned bpc = 8; bpc <= 10; bpc += 2) {
            const unsigned w = sizes[si][0], h = sizes[si][1];
            VmafPicture ref[ROT], dist[ROT];
            if (make_inputs(ref, dist, w, h, bpc))
                exit(1);
            printf("  %ux%u %2u-bit:", w, h, bpc);
            for (int s = 2; s <= 10; s++) {
                double dus = 0, sc = 0, c = 0;
                const double g =
                    gpu_time(cu, ref, dist, s, 0, frames, -1, &dus, NULL, &sc, NULL, NULL);
                (void)cpu_time(ref, dist, s, 1, &c);
                /* '!' marks a score that is not the CPU's */
                printf(" s%d %.1f (%.1f)%s", s, g, dus, isnan(sc) || sc == c ? "" : "!");
            }
            printf("\n");
            free_inputs(ref, dist);
        }
}

int main(int argc, char **argv)
{
    const int frames = argc > 1 ? atoi(argv[1]) : 200;
    VmafCudaState *cu = cuda_test_state_or_skip("bench_cuda_ssim");
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc == 6 || argc == 7)
        return one_case(cu, frames, argv);
    if (argc == 3 && !strcmp(argv[2], "scales")) {
        scales_table(cu, frames);
        vmaf_cuda_state_free(cu);
        return 0;
    }
    if (argc == 3 && !strcmp(argv[2], "devpool")) {
        devpool_table(frames);
        vmaf_cuda_state_free(cu);
        return 0;
    }
    if (argc == 3 && !strcmp(argv[2], "redo")) {
        redo_table(frames);
        vmaf_cuda_state_free(cu);
        return 0;
    }
    static const unsigned sizes[][2] = {{576, 324}, {1920, 1080}, {3840, 2160}, {7680, 4320}};
    printf("GPU us/fr: the frame's kernels replayed from a CUDA graph, as the library does; "
           "stream: launched one by one, as where a capture fails. e2e: through the library "
           "from the pinned pool, the device pool (FFmpeg's CUDA filter) and plain host "
           "pictures\n");
    printf("%-10s %3s %5s %3s | %5s %10s %7s %7s | %12s %12s %12s | %10s %8s | %s\n", "size",
           "bpc", "scale", "eff", "shape", "GPU us/fr", "dec us", "stream", "e2e pinned",
           "e2e device", "e2e host", "CPU ms/fr", "speedup", "check");
    for (int si = 0; si < 4; si++) {
        const unsigned w = sizes[si][0], h = sizes[si][1];
        for (unsigned bpc = 8; bpc <= 10; bpc += 2) {
            VmafPicture ref[ROT], dist[ROT];
            if (make_inputs(ref, dist, w, h, bpc))
                return 1;
            for (int auto_scale = 1; auto_scale >= 0; auto_scale--) {
                const int eff = auto_scale ? ssim_auto_scale(w, h) : 1;
                if (!auto_scale && eff == 1 && si == 0)
                    continue; /* 576x324: automatic scale is already 1 */
                const int n_e2e = w >= 7680 ? frames / 2 : frames;
                const int n_cpu = w >= 7680 ? 2 : w >= 3840 ? 3 : 8;
                double dus = 0, sus = 0;
                int chosen = 0, redo_pairs = 0;
                const double g = gpu_time(cu, ref, dist, eff, 0, frames, -1, &dus, &chosen, NULL,
                                          &redo_pairs, &sus);
                double c_host = 0, c_cpu = 0;
                const int so = auto_scale ? 0 : 1;
                const double ep = e2e_time(ref, dist, so, E2E_PINNED, n_e2e, NULL, NULL);
                const double ed = e2e_time(ref, dist, so, E2E_DEVICE, n_e2e, NULL, NULL);
                const double eh = e2e_time(ref, dist, so, E2E_HOST, n_e2e, &c_host, NULL);
                const double c = cpu_time(ref, dist, eff, n_cpu, &c_cpu);
                /* The host-picture run scored pair 0 at index 12: the CPU's bits? */
                const bool ok = !memcmp(&c_cpu, &c_host, sizeof(double));
                char sz[16];
                snprintf(sz, sizeof(sz), "%ux%u", w, h);
                char shp[8];
                snprintf(shp, sizeof(shp), "t%d", chosen);
                printf("%-10s %3u %5s %3d | %5s %10.1f %7.1f %7.1f | %9.3f ms %9.3f ms %9.3f ms | "
                       "%10.2f %7.0fx | %s\n",
                       sz, bpc, auto_scale ? "auto" : "1", eff, shp, g, dus, sus, ep, ed, eh, c,
                       1000.0 * c / g, ok ? "same as CPU" : "DIFFERS FROM CPU");
                if (redo_pairs)
                    printf("    input pairs whose mean sits next to an f32 rounding boundary: "
                           "%d of %d (their frames take the sequential redo; the e2e columns "
                           "include it)\n",
                           redo_pairs, ROT);
                if (bpc == 8 && (w == 3840 || w == 1920)) {
                    /* Tile kernel variants side by side (GPU time only). */
                    printf("    shapes:");
                    for (int k = 0; k < vmaf_ssim_cuda_shapes(); k++) {
                        double sc = 0;
                        const double tk = gpu_time(cu, ref, dist, eff, 0, frames / 2, k, NULL,
                                                   NULL, &sc, NULL, NULL);
                        /* '!' marks a shape whose score is not the CPU's */
                        printf(" t%d=%.1fus%s", k, tk, isnan(sc) || sc == c_cpu ? "" : "!");
                    }
                    double sl = 0;
                    const double tl =
                        gpu_time(cu, ref, dist, eff, 1, frames / 2, -1, NULL, NULL, &sl, NULL, NULL);
                    printf("; with l, c, s: %.1fus%s\n", tl, isnan(sl) || sl == c_cpu ? "" : "!");
                }
            }
            free_inputs(ref, dist);
        }
    }
    scales_table(cu, frames);
    redo_table(frames < 40 ? frames : 40);
    vmaf_cuda_state_free(cu);
    return 0;
}
