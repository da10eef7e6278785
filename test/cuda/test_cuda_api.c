/*
 * libvmaf_cuda.h as FFmpeg's libvmaf_cuda filter uses it, against a CPU
 * context on the same frames, bit for bit: imported state with host
 * pictures, the preallocated pool in device, host and pinned memory, the
 * twin named directly, a caller's CUcontext (primary or its own), failed
 * CUDA calls before a frame, the twin failing to start, device pictures
 * filled on the legacy default stream, a state imported too late,
 * VMAF_CUDA_DEVICE, one state offered to two contexts, a caller that holds
 * every pool picture, a fetch while a picture comes back, pool pictures
 * changed after the fetch, and repeated init/close without leaking device
 * memory; with the argument "fault", alone in its process, a kernel fault.
 * Exit 77 without a GPU.
 */
#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdbool.h>
#include <unistd.h>

#include "cuda_faults.h"
#include "cuda_test.h"

#include "cuda/cuda_internal.h"
#include "cuda/cuda_state.h"
#include "picture_pool.h"

#define W 1920
#define H 1080
#define FRAMES 7

static VmafPicture ref[FRAMES], dist[FRAMES];
static double cpu_score[FRAMES][4];
static const char *const feats[] = {"float_ssim", "float_ssim_l", "float_ssim_c",
                                    "float_ssim_s"};

static void *given_ctx; /* a CUcontext for VmafCudaConfiguration, or NULL */

static VmafContext *new_context_cfg(VmafConfiguration cfg, bool cuda, const char *feature)
{
    VmafContext *ctx = NULL;
    if (vmaf_init(&ctx, cfg)) {
        fprintf(stderr, "vmaf_init failed\n");
        exit(1);
    }
    if (cuda) {
        VmafCudaState *cu = NULL;
        int err = vmaf_cuda_state_init(&cu, (VmafCudaConfiguration){.cu_ctx = given_ctx});
        CHECK(!err, "vmaf_cuda_state_init (%d)", err);
        err = vmaf_cuda_import_state(ctx, cu);
        CHECK(!err, "vmaf_cuda_import_state (%d)", err);
        CHECK(vmaf_cuda_import_state(ctx, cu) == -EINVAL, "a second import was accepted");
        /* A second state for the same context is refused and released by
         * the call (compute-sanitizer and the device-memory check below
         * would see it otherwise). */
        VmafCudaState *other = NULL;
        CHECK(!vmaf_cuda_state_init(&other, (VmafCudaConfiguration){.cu_ctx = given_ctx}),
              "second vmaf_cuda_state_init");
        CHECK(vmaf_cuda_import_state(ctx, other) == -EINVAL, "a second state was accepted");
    }
    VmafFeatureDictionary *d = NULL;
    vmaf_feature_dictionary_set(&d, "enable_lcs", "true");
    const int err = vmaf_use_feature(ctx, feature, d);
    CHECK(!err, "vmaf_use_feature(%s) (%d)", feature, err);
    return ctx;
}

static VmafContext *new_context(bool cuda, const char *feature)
{
    return new_context_cfg((VmafConfiguration){.log_level = VMAF_LOG_LEVEL_WARNING}, cuda,
                           feature);
}

/* The scores of frames 0 .. frames - 1 against the CPU's, bit for bit. */
static void compare_frames(VmafContext *ctx, unsigned frames, const char *what)
{
    for (unsigned f = 0; f < frames; f++)
        for (int q = 0; q < 4; q++) {
            double v = NAN;
            const int err = vmaf_feature_score_at_index(ctx, feats[q], &v, f);
            CHECK(!err && !memcmp(&v, &cpu_score[f][q], sizeof(v)),
                  "%s: frame %u %s: %.17g, CPU %.17g (%d)", what, f, feats[q], v,
                  cpu_score[f][q], err);
        }
}

static void compare(VmafContext *ctx, const char *what)
{
    compare_frames(ctx, FRAMES, what);
}

static void read_all(VmafContext *ctx, const char *what)
{
    for (unsigned f = 0; f < FRAMES; f++) {
        VmafPicture r, d;
        vmaf_picture_ref(&r, &ref[f]);
        vmaf_picture_ref(&d, &dist[f]);
        const int err = vmaf_read_pictures(ctx, &r, &d, f);
        CHECK(!err, "%s: vmaf_read_pictures frame %u (%d)", what, f, err);
    }
    const int err = vmaf_read_pictures(ctx, NULL, NULL, 0);
    CHECK(!err, "%s: flush (%d)", what, err);
}

/* Takes a pair from the pool and fills it with frame f. */
static int fetch_pair(VmafContext *ctx, enum VmafCudaPicturePreallocationMethod m, unsigned f,
                      VmafPicture p[2], const char *what)
{
    const VmafPicture *src[2] = {&ref[f], &dist[f]};
    for (int i = 0; i < 2; i++) {
        const int err = vmaf_cuda_fetch_preallocated_picture(ctx, &p[i]);
        CHECK(!err, "%s: fetch (%d)", what, err);
        if (err) {
            if (i)
                vmaf_picture_unref(&p[0]);
            return err;
        }
        const enum cudaMemcpyKind kind = m == VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_DEVICE
                                        ? cudaMemcpyHostToDevice
                                        : cudaMemcpyHostToHost;
        for (int pl = 0; pl < 3; pl++) {
            const cudaError_t e =
                cudaMemcpy2D(p[i].data[pl], (size_t)p[i].stride[pl], src[i]->data[pl],
                             (size_t)src[i]->stride[pl], src[i]->w[pl], src[i]->h[pl], kind);
            CHECK(e == cudaSuccess, "%s: filling plane %d of a pool picture: %s", what, pl,
                  cudaGetErrorString(e));
            if (e != cudaSuccess) {
                vmaf_picture_unref(&p[i]);
                if (i)
                    vmaf_picture_unref(&p[0]);
                return -EIO;
            }
        }
    }
    return 0;
}

/* Reads frames 0 .. frames - 1 through the pool into ctx; which: how a
 * failure names the frames. 0 or the first error. */
static int read_pool_frames(VmafContext *ctx, enum VmafCudaPicturePreallocationMethod m,
                            unsigned frames, const char *which, const char *what)
{
    int err = 0;
    for (unsigned f = 0; !err && f < frames; f++) {
        VmafPicture cur[2];
        err = fetch_pair(ctx, m, f, cur, what);
        if (!err)
            err = vmaf_read_pictures(ctx, &cur[0], &cur[1], f);
        CHECK(!err, "%s: %s %u (%d)", what, which, f, err);
    }
    return err;
}

/* ahead: the caller takes frame f+1's pair before handing over frame f's,
 * as a pipelined reader does; fetching must then collect the device's
 * finished frames itself instead of waiting for pictures that only come
 * back when the caller's thread collects. */
static void pool_run(enum VmafCudaPicturePreallocationMethod m, const char *what, bool ahead)
{
    VmafContext *ctx = new_context(true, "float_ssim");
    VmafCudaPictureConfiguration pc = {
        .pic_params = {.w = W, .h = H, .bpc = 8, .pix_fmt = VMAF_PIX_FMT_YUV420P},
        .pic_prealloc_method = m,
    };
    int err = vmaf_cuda_preallocate_pictures(ctx, pc);
    CHECK(!err, "%s: vmaf_cuda_preallocate_pictures (%d)", what, err);
    CHECK(vmaf_cuda_preallocate_pictures(ctx, pc) == -EINVAL, "%s: second pool accepted",
          what);
    VmafPicture cur[2], next[2];
    if (!err && ahead)
        err = fetch_pair(ctx, m, 0, cur, what);
    for (unsigned f = 0; !err && f < FRAMES; f++) {
        if (!ahead)
            err = fetch_pair(ctx, m, f, cur, what);
        else if (f + 1 < FRAMES)
            err = fetch_pair(ctx, m, f + 1, next, what);
        if (err) {
            if (ahead) {
                vmaf_picture_unref(&cur[0]);
                vmaf_picture_unref(&cur[1]);
            }
            break;
        }
        err = vmaf_read_pictures(ctx, &cur[0], &cur[1], f);
        CHECK(!err, "%s: vmaf_read_pictures frame %u (%d)", what, f, err);
        if (ahead && f + 1 < FRAMES) {
            if (err) {
                vmaf_picture_unref(&next[0]);
                vmaf_picture_unref(&next[1]);
            }
            cur[0] = next[0];
            cur[1] = next[1];
        }
    }
    err = vmaf_read_pictures(ctx, NULL, NULL, 0);
    CHECK(!err, "%s: flush (%d)", what, err);
    compare(ctx, what);
    vmaf_close(ctx);
}

/* A device picture beside a host picture is refused: a CPU extractor would
 * read the device pointer as host memory. */
static void mixed_memory(void)
{
    VmafContext *ctx = new_context(true, "float_ssim");
    VmafCudaPictureConfiguration pc = {
        .pic_params = {.w = W, .h = H, .bpc = 8, .pix_fmt = VMAF_PIX_FMT_YUV420P},
        .pic_prealloc_method = VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_DEVICE,
    };
    CHECK(!vmaf_cuda_preallocate_pictures(ctx, pc), "mixed: pool");
    VmafPicture d, h;
    CHECK(!vmaf_cuda_fetch_preallocated_picture(ctx, &d), "mixed: fetch");
    vmaf_picture_ref(&h, &dist[0]);
    CHECK(vmaf_read_pictures(ctx, &d, &h, 0) == -EINVAL, "a device/host pair was accepted");
    vmaf_close(ctx);
}

/* The twin named directly, in a context whose gpumask keeps features on
 * the CPU: refused at the first frame, and the line names gpumask, not a
 * missing CUDA state (the context has one). */
static void twin_with_gpumask(void)
{
    const char *what = "float_ssim_cuda with gpumask";
    VmafConfiguration cfg = {.log_level = VMAF_LOG_LEVEL_WARNING, .gpumask = 1};
    VmafContext *ctx = new_context_cfg(cfg, true, "float_ssim_cuda");
    VmafPicture r, d;
    vmaf_picture_ref(&r, &ref[0]);
    vmaf_picture_ref(&d, &dist[0]);
    Capture cap;
    capture_start(&cap);
    const int err = vmaf_read_pictures(ctx, &r, &d, 0);
    capture_stop(&cap);
    CHECK(err == -ENODEV && capture_lines(&cap) == 1 && strstr(cap.text, "gpumask"),
          "%s: %d, log: %s", what, err, cap.text);
    vmaf_close(ctx);
}

/* Device pictures for the CPU extractor (the GPU switched off by gpumask):
 * each frame's luma comes to the host in pinned copies that are reused, so
 * a run in the caller's thread makes one pair, not one a frame. With
 * worker threads a pair is in flight for each frame queued (2 a worker),
 * scored (1 a worker) or being handed in (1): at most that many pairs. */
static void cpu_on_device_pictures(unsigned threads)
{
    char what[64];
    snprintf(what, sizeof(what), "CPU extractor on device pictures, %u threads", threads);
    VmafContext *ctx = NULL;
    VmafConfiguration cfg = {.log_level = VMAF_LOG_LEVEL_WARNING, .gpumask = 1,
                             .n_threads = threads};
    CHECK(!vmaf_init(&ctx, cfg), "%s: vmaf_init", what);
    VmafCudaState *cu = NULL;
    int err = vmaf_cuda_state_init(&cu, (VmafCudaConfiguration){0});
    CHECK(!err, "%s: vmaf_cuda_state_init (%d)", what, err);
    if (err) {
        vmaf_close(ctx);
        return;
    }
    CHECK(!vmaf_cuda_import_state(ctx, cu), "%s: import", what);
    VmafFeatureDictionary *d = NULL;
    vmaf_feature_dictionary_set(&d, "enable_lcs", "true");
    CHECK(!vmaf_use_feature(ctx, "float_ssim", d), "%s: vmaf_use_feature", what);
    VmafCudaPictureConfiguration pc = {
        .pic_params = {.w = W, .h = H, .bpc = 8, .pix_fmt = VMAF_PIX_FMT_YUV420P},
        .pic_prealloc_method = VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_DEVICE,
    };
    err = vmaf_cuda_preallocate_pictures(ctx, pc);
    CHECK(!err, "%s: pool (%d)", what, err);
    if (!err)
        err = read_pool_frames(ctx, VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_DEVICE, FRAMES,
                               "frame", what);
    CHECK(!vmaf_read_pictures(ctx, NULL, NULL, 0), "%s: flush", what);
    compare(ctx, what);
    const unsigned made = vmaf_cuda_host_copies_made(cu);
    const unsigned most = 2 * (3 * threads + 1);
    CHECK(threads ? made >= 2 && made <= most : made == 2,
          "%s: %u host copies made for %u frames (expected %s %u, reused)", what, made, FRAMES,
          threads ? "at most" : "exactly", threads ? most : 2);
    vmaf_close(ctx);
}

/* Failed CUDA calls before a frame, the library's (a pool too large for the
 * GPU, which a caller answers by going on with host pictures) and the
 * caller's own (left unread): neither may fail the frames that follow. */
static void after_failed_calls(void)
{
    const char *what = "after failed CUDA calls";
    VmafContext *ctx = new_context(true, "float_ssim");
    /* 25.8 GB a picture, 8 of them: more than a GPU holds (one that holds
     * it is let through). */
    VmafCudaPictureConfiguration pc = {
        .pic_params = {.w = 65536, .h = 65536, .bpc = 16, .pix_fmt = VMAF_PIX_FMT_YUV444P},
        .pic_prealloc_method = VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_DEVICE,
    };
    const int err = vmaf_cuda_preallocate_pictures(ctx, pc);
    CHECK(err == -ENOMEM || err == 0, "%s: a huge pool gave %d, want -ENOMEM", what, err);
    if (err == -ENOMEM) {
        /* Nothing of it was kept: a pool that fits is still possible. */
        const VmafCudaPictureConfiguration fits = {
            .pic_params = {.w = W, .h = H, .bpc = 8, .pix_fmt = VMAF_PIX_FMT_YUV420P},
            .pic_prealloc_method = VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_DEVICE,
        };
        const int again = vmaf_cuda_preallocate_pictures(ctx, fits);
        CHECK(again == 0, "%s: a 1080p pool after the failed one gave %d", what, again);
    }
    /* The library consumed its failure: it is not the thread's last error. */
    const cudaError_t left = cudaGetLastError();
    CHECK(left == cudaSuccess, "%s: the failed pool left %s as the last error", what,
          cudaGetErrorName(left));
    void *huge = NULL;
    const cudaError_t e = cudaMalloc(&huge, (size_t)1 << 50);
    CHECK(e != cudaSuccess, "%s: a 1 PiB cudaMalloc succeeded", what);
    if (e == cudaSuccess)
        cudaFree(huge);
    read_all(ctx, what); /* 1080p: automatic scale 4, so the decimation too */
    compare(ctx, what);
    vmaf_close(ctx);
    (void)cudaGetLastError();
}

/* A GPU failure during scoring is one line naming the extractor and the
 * frame; the context then keeps its error, and each later call says in one
 * line that it is refused because of it, without repeating the reason. The
 * failure is injected after the frame's launches, where a faulting kernel
 * would surface. */
static void failure_is_one_line(void)
{
    const char *what = "a failed frame";
    const unsigned bad = 2;
    VmafContext *ctx = new_context(true, "float_ssim");
    cuda_fault_submit_at(bad);
    int err = 0;
    for (unsigned f = 0; f < bad && !err; f++) {
        VmafPicture r, d;
        vmaf_picture_ref(&r, &ref[f]);
        vmaf_picture_ref(&d, &dist[f]);
        err = vmaf_read_pictures(ctx, &r, &d, f);
        CHECK(!err, "%s: frame %u before the failure (%d)", what, f, err);
    }
    Capture cap;
    capture_start(&cap);
    VmafPicture r, d;
    vmaf_picture_ref(&r, &ref[bad]);
    vmaf_picture_ref(&d, &dist[bad]);
    err = vmaf_read_pictures(ctx, &r, &d, bad);
    capture_stop(&cap);
    cuda_fault_submit_at(-1);
    CHECK(err == -EIO, "%s: the failed frame gave %d, want -EIO", what, err);
    CHECK(capture_lines(&cap) == 1 && strstr(cap.text, "float_ssim_cuda: frame 2:") &&
              strstr(cap.text, "launching the SSIM kernels"),
          "%s: want one line naming float_ssim_cuda and frame 2, log: %s", what, cap.text);

    capture_start(&cap);
    vmaf_picture_ref(&r, &ref[bad + 1]);
    vmaf_picture_ref(&d, &dist[bad + 1]);
    const int again = vmaf_read_pictures(ctx, &r, &d, bad + 1);
    const int flushed = vmaf_read_pictures(ctx, NULL, NULL, 0);
    capture_stop(&cap);
    CHECK(again == err && flushed == err && capture_lines(&cap) == 2 &&
              strstr(cap.text, "frame 3: refused, the context stopped at an earlier failure") &&
              strstr(cap.text, "flush: refused") && !strstr(cap.text, "launching"),
          "%s: later calls gave %d and %d (want %d) and logged: %s", what, again, flushed, err,
          cap.text);
    vmaf_close(ctx);
}

/* The twin runs out of device memory while it starts, at the first frame
 * read, numbered 5 here: one line naming the twin, that frame and the
 * call, -ENOMEM, and each later call refused in one line. */
static void start_failure_is_one_line(void)
{
    const char *what = "the twin failing to start";
    VmafContext *ctx = new_context(true, "float_ssim");
    cuda_fault_allocations(1);
    VmafPicture r, d;
    vmaf_picture_ref(&r, &ref[0]);
    vmaf_picture_ref(&d, &dist[0]);
    Capture cap;
    capture_start(&cap);
    const int err = vmaf_read_pictures(ctx, &r, &d, 5);
    capture_stop(&cap);
    cuda_fault_allocations(-1);
    CHECK(err == -ENOMEM && capture_lines(&cap) == 1 &&
              strstr(cap.text, "float_ssim_cuda: frame 5: allocating device buffers failed"),
          "%s: gave %d, want -ENOMEM and one line naming float_ssim_cuda and frame 5; log: %s",
          what, err, cap.text);
    capture_start(&cap);
    vmaf_picture_ref(&r, &ref[1]);
    vmaf_picture_ref(&d, &dist[1]);
    const int again = vmaf_read_pictures(ctx, &r, &d, 6);
    const int flushed = vmaf_read_pictures(ctx, NULL, NULL, 0);
    vmaf_close(ctx);
    capture_stop(&cap);
    CHECK(again == err && flushed == err && capture_lines(&cap) == 2 &&
              strstr(cap.text, "frame 6: refused") && strstr(cap.text, "flush: refused"),
          "%s: later calls gave %d and %d (want %d) and logged: %s", what, again, flushed, err,
          cap.text);
}

/* A context with CUDA state and a pool of method m; threads > 0: CPU
 * workers score the frames (gpumask), so that they hold pool pictures. */
static VmafContext *pool_context(enum VmafCudaPicturePreallocationMethod m, unsigned threads,
                                 const char *what, int *err)
{
    VmafConfiguration cfg = {.log_level = VMAF_LOG_LEVEL_WARNING, .n_threads = threads,
                             .gpumask = threads ? 1 : 0};
    VmafContext *ctx = new_context_cfg(cfg, true, "float_ssim");
    VmafCudaPictureConfiguration pc = {
        .pic_params = {.w = W, .h = H, .bpc = 8, .pix_fmt = VMAF_PIX_FMT_YUV420P},
        .pic_prealloc_method = m,
    };
    *err = vmaf_cuda_preallocate_pictures(ctx, pc);
    CHECK(!*err, "%s: pool (%d)", what, *err);
    return ctx;
}

/* A pool picture whose stride the caller changed after the fetch would have
 * its rows read past the pool's block (on the device, by the kernels):
 * refused with one line, and the context goes on scoring well-formed
 * frames. */
static void pool_picture_outside(enum VmafCudaPicturePreallocationMethod m, const char *what)
{
    int err = 0;
    VmafContext *ctx = pool_context(m, 0, what, &err);
    VmafPicture p[2];
    if (!err)
        err = fetch_pair(ctx, m, 0, p, what);
    if (err) {
        vmaf_close(ctx);
        return;
    }
    p[1].stride[0] *= 2;
    Capture cap;
    capture_start(&cap);
    err = vmaf_read_pictures(ctx, &p[0], &p[1], 0);
    capture_stop(&cap);
    CHECK(err == -EINVAL && capture_lines(&cap) == 1 &&
              strstr(cap.text, "frame 0: the distorted picture's luma plane") &&
              strstr(cap.text, "does not fit its memory"),
          "%s: a doubled stride gave %d, want -EINVAL and one line; log: %s", what, err,
          cap.text);
    err = read_pool_frames(ctx, m, FRAMES, "frame", what);
    CHECK(!vmaf_read_pictures(ctx, NULL, NULL, 0), "%s: flush", what);
    if (!err)
        compare(ctx, what);
    vmaf_close(ctx);
}

/* Device pictures filled on the legacy default stream, as FFmpeg's CUDA
 * filter fills them (a device-to-device cuMemcpy2D, which does not make the
 * host wait), are scored only once that copy is done: the copies are
 * queued behind a few gigabytes of memsets and handed over at once, into
 * pictures zeroed before, so kernels that did not wait would read zeros.
 * Two rounds through the pool, so that the slots' graphs replay too. */
static void legacy_stream_order(void)
{
    const char *what = "device pictures filled on the legacy default stream";
    const enum VmafCudaPicturePreallocationMethod m = VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_DEVICE;
    int err = 0;
    VmafContext *ctx = pool_context(m, 0, what, &err);
    void *scratch = NULL, *src[FRAMES][2] = {{NULL}};
    const size_t scratch_bytes = (size_t)1 << 30;
    cudaError_t e = err ? cudaErrorUnknown : cudaMalloc(&scratch, scratch_bytes);
    for (unsigned f = 0; e == cudaSuccess && f < FRAMES; f++)
        for (int i = 0; e == cudaSuccess && i < 2; i++) {
            const VmafPicture *h = i ? &dist[f] : &ref[f];
            e = cudaMalloc(&src[f][i], (size_t)W * H);
            if (e == cudaSuccess)
                e = cudaMemcpy2D(src[f][i], W, h->data[0], (size_t)h->stride[0], W, H,
                                 cudaMemcpyHostToDevice);
        }
    CHECK(!err && e == cudaSuccess, "%s: setting up (%d, %s)", what, err, cudaGetErrorString(e));
    for (unsigned n = 0; !err && e == cudaSuccess && n < 2 * FRAMES; n++) {
        const unsigned f = n % FRAMES;
        VmafPicture p[2];
        for (int i = 0; !err && i < 2; i++) {
            err = vmaf_cuda_fetch_preallocated_picture(ctx, &p[i]);
            CHECK(!err, "%s: fetch (%d)", what, err);
            if (err && i)
                vmaf_picture_unref(&p[0]);
        }
        for (int i = 0; !err && e == cudaSuccess && i < 2; i++)
            e = cudaMemset2D(p[i].data[0], (size_t)p[i].stride[0], 0, W, H);
        for (int k = 0; e == cudaSuccess && k < 4; k++)
            e = cudaMemsetAsync(scratch, k, scratch_bytes, 0);
        for (int i = 0; e == cudaSuccess && i < 2; i++)
            e = cudaMemcpy2DAsync(p[i].data[0], (size_t)p[i].stride[0], src[f][i], W, W, H,
                                  cudaMemcpyDeviceToDevice, 0);
        CHECK(e == cudaSuccess, "%s: filling frame %u: %s", what, n, cudaGetErrorString(e));
        if (err || e != cudaSuccess) {
            if (!err) {
                vmaf_picture_unref(&p[0]);
                vmaf_picture_unref(&p[1]);
            }
            break;
        }
        err = vmaf_read_pictures(ctx, &p[0], &p[1], n);
        CHECK(!err, "%s: frame %u (%d)", what, n, err);
    }
    if (ctx && !err && e == cudaSuccess) {
        CHECK(!vmaf_read_pictures(ctx, NULL, NULL, 0), "%s: flush", what);
        for (unsigned n = 0; n < 2 * FRAMES; n++) {
            double v = NAN;
            const int r = vmaf_feature_score_at_index(ctx, "float_ssim", &v, n);
            CHECK(!r && !memcmp(&v, &cpu_score[n % FRAMES][0], sizeof(v)),
                  "%s: frame %u: %.17g, CPU %.17g (%d)", what, n, v, cpu_score[n % FRAMES][0],
                  r);
        }
    }
    vmaf_close(ctx);
    cudaFree(scratch);
    for (unsigned f = 0; f < FRAMES; f++)
        for (int i = 0; i < 2; i++)
            cudaFree(src[f][i]);
}

/* A context that has started scoring takes no CUDA state: its extractors
 * are chosen. The import is refused with one line and takes the state (no
 * leak for a caller that drops it), and the context goes on. */
static void import_after_start(void)
{
    const char *what = "a CUDA state imported after the first frame";
    VmafContext *ctx = new_context(false, "float_ssim");
    VmafPicture r, d;
    vmaf_picture_ref(&r, &ref[0]);
    vmaf_picture_ref(&d, &dist[0]);
    CHECK(!vmaf_read_pictures(ctx, &r, &d, 0), "%s: frame 0", what);
    VmafCudaState *cu = NULL;
    const int init = vmaf_cuda_state_init(&cu, (VmafCudaConfiguration){0});
    CHECK(!init, "%s: vmaf_cuda_state_init (%d)", what, init);
    Capture cap;
    capture_start(&cap);
    const int err = init ? -EINVAL : vmaf_cuda_import_state(ctx, cu);
    capture_stop(&cap);
    CHECK(err == -EINVAL && capture_lines(&cap) == 1, "%s: gave %d, want -EINVAL and one line: %s",
          what, err, cap.text);
    for (unsigned f = 1; f < FRAMES; f++) {
        vmaf_picture_ref(&r, &ref[f]);
        vmaf_picture_ref(&d, &dist[f]);
        CHECK(!vmaf_read_pictures(ctx, &r, &d, f), "%s: frame %u", what, f);
    }
    CHECK(!vmaf_read_pictures(ctx, NULL, NULL, 0), "%s: flush", what);
    compare(ctx, what);
    vmaf_close(ctx);
}

/* VMAF_CUDA_DEVICE that is no visible device's index: -EINVAL with one
 * line naming it, and no state. */
static void bad_device_variable(void)
{
    static const char *const bad[] = {"x", "99", "-1", "0x"};
    for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        setenv("VMAF_CUDA_DEVICE", bad[i], 1);
        VmafCudaState *cu = NULL;
        Capture cap;
        capture_start(&cap);
        const int err = vmaf_cuda_state_init(&cu, (VmafCudaConfiguration){0});
        capture_stop(&cap);
        CHECK(err == -EINVAL && !cu && capture_lines(&cap) == 1 &&
                  strstr(cap.text, "VMAF_CUDA_DEVICE="),
              "VMAF_CUDA_DEVICE=%s: gave %d (state %p), want -EINVAL and one line: %s", bad[i],
              err, (void *)cu, cap.text);
        if (!err)
            vmaf_cuda_import_state(NULL, cu);
    }
    setenv("VMAF_CUDA_DEVICE", "0", 1);
    VmafCudaState *cu = NULL;
    const int err = vmaf_cuda_state_init(&cu, (VmafCudaConfiguration){0});
    CHECK(!err && cu, "VMAF_CUDA_DEVICE=0 gave %d", err);
    if (!err)
        vmaf_cuda_import_state(NULL, cu);
    unsetenv("VMAF_CUDA_DEVICE");
}

/* After a GPU failure the pool's pictures come back at once, not at
 * vmaf_close(): the frames in flight are given up, so a caller that goes
 * on fetching (FFmpeg's CUDA filter fetches before it learns of the error)
 * gets every picture of the pool. */
static void pool_back_after_failure(bool at_collect)
{
    const char *what = at_collect ? "pool after a frame failed at its collect"
                                  : "pool after a failed frame";
    const unsigned bad = 2;
    int err;
    VmafContext *ctx = pool_context(VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_DEVICE, 0, what, &err);
    err = err ? err
              : read_pool_frames(ctx, VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_DEVICE, bad,
                                 "frame", what);
    Capture cap;
    capture_start(&cap);
    if (!at_collect) {
        cuda_fault_submit_at(bad);
        VmafPicture p[2];
        if (!err && !fetch_pair(ctx, VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_DEVICE, bad, p, what))
            err = vmaf_read_pictures(ctx, &p[0], &p[1], bad);
        cuda_fault_submit_at(-1);
    } else {
        /* The fault of frame `bad` shows when it is collected: at its own
         * read if its kernels are quick, at the latest when a frame that
         * many frames in flight later makes room for itself. */
        cuda_fault_harvest_at(bad);
        for (unsigned f = bad; !err && f < FRAMES; f++) {
            VmafPicture p[2];
            err = fetch_pair(ctx, VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_DEVICE, f, p, what);
            if (!err)
                err = vmaf_read_pictures(ctx, &p[0], &p[1], f);
        }
        cuda_fault_harvest_at(-1);
    }
    capture_stop(&cap);
    CHECK(err == -EIO, "%s: the failed frame gave %d, want -EIO; log: %s", what, err, cap.text);
    VmafPicture all[VMAF_CUDA_POOL_PICTURES];
    unsigned got = 0;
    capture_start(&cap);
    while (got < VMAF_CUDA_POOL_PICTURES && !vmaf_cuda_fetch_preallocated_picture(ctx, &all[got]))
        got++;
    capture_stop(&cap);
    CHECK(got == VMAF_CUDA_POOL_PICTURES,
          "%s: %u of the pool's %d pictures could be fetched before the flush; log: %s", what,
          got, VMAF_CUDA_POOL_PICTURES, cap.text);
    /* With every picture in the caller's hands, one more is the documented
     * -EBUSY with its line, not the context's earlier error again, unsaid. */
    if (got == VMAF_CUDA_POOL_PICTURES) {
        VmafPicture extra;
        capture_start(&cap);
        const int e = vmaf_cuda_fetch_preallocated_picture(ctx, &extra);
        capture_stop(&cap);
        CHECK(e == -EBUSY && capture_lines(&cap) == 1 && strstr(cap.text, "held by the caller"),
              "%s: a fetch from a pool the caller holds gave %d; log: %s", what, e, cap.text);
    }
    for (unsigned i = 0; i < got; i++)
        vmaf_picture_unref(&all[i]);
    capture_start(&cap);
    CHECK(vmaf_read_pictures(ctx, NULL, NULL, 0) == -EIO, "%s: the flush keeps the error", what);
    capture_stop(&cap);
    vmaf_close(ctx);
}

/* One state imported into a second context is refused, and stays with the
 * first, which scores with it after the second is closed (both owning it
 * would free it twice). */
static void state_in_two_contexts(void)
{
    const char *what = "one state, two contexts";
    VmafConfiguration cfg = {.log_level = VMAF_LOG_LEVEL_WARNING};
    VmafContext *a = NULL, *b = NULL;
    CHECK(!vmaf_init(&a, cfg) && !vmaf_init(&b, cfg), "%s: vmaf_init", what);
    VmafCudaState *cu = NULL;
    int err = vmaf_cuda_state_init(&cu, (VmafCudaConfiguration){0});
    CHECK(!err, "%s: vmaf_cuda_state_init (%d)", what, err);
    if (err || !a || !b) {
        vmaf_close(a);
        vmaf_close(b);
        return;
    }
    CHECK(!vmaf_cuda_import_state(a, cu), "%s: first import", what);
    CHECK(vmaf_cuda_import_state(b, cu) == -EINVAL,
          "%s: the state was imported into a second context", what);
    CHECK(vmaf_cuda_import_state(NULL, cu) == -EINVAL, "%s: import into NULL accepted", what);
    vmaf_close(b);
    VmafFeatureDictionary *d = NULL;
    vmaf_feature_dictionary_set(&d, "enable_lcs", "true");
    CHECK(!vmaf_use_feature(a, "float_ssim_cuda", d), "%s: vmaf_use_feature", what);
    read_all(a, what);
    compare(a, what);
    vmaf_close(a);
}

/* Pictures of one context's pool given to another context: to one with its
 * own CUDA state, or to one without any. Both refuse them with -EINVAL, for
 * every kind of pool: device pictures would be read by kernels of another
 * state (maybe on another device), and host or pinned ones would be held
 * by the other context while a fetch from their own pool, which collects
 * only its own context, waited for them for ever. The owner still scores
 * its own. */
static void foreign_pool_pictures(void)
{
    static const enum VmafCudaPicturePreallocationMethod methods[] = {
        VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_DEVICE,
        VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_HOST,
        VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_HOST_PINNED,
    };
    for (size_t j = 0; j < sizeof(methods) / sizeof(methods[0]); j++) {
        const enum VmafCudaPicturePreallocationMethod m = methods[j];
        const bool device = m == VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_DEVICE;
        const char *what = device ? "another context's device pictures"
                           : m == VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_HOST
                               ? "another context's host pool pictures"
                               : "another context's pinned pictures";
        int err;
        VmafContext *a = pool_context(m, 0, what, &err);
        VmafContext *b = new_context(true, "float_ssim");
        VmafContext *c = new_context(false, "float_ssim");
        VmafContext *other[2] = {b, c};
        for (int k = 0; k < 2 && !err; k++) {
            VmafPicture cur[2];
            err = fetch_pair(a, m, 0, cur, what);
            if (err)
                break;
            Capture cap;
            capture_start(&cap);
            const int e = vmaf_read_pictures(other[k], &cur[0], &cur[1], 0);
            capture_stop(&cap);
            const char *want = k && device ? "no CUDA state" : "another context's";
            CHECK(e == -EINVAL && strstr(cap.text, want), "%s, %s: %d, log: %s", what,
                  k ? "no CUDA state" : "another state", e, cap.text);
        }
        /* Every picture went back to the pool: the owner fetches all of
         * them again and scores its frames. */
        if (!err)
            err = read_pool_frames(a, m, FRAMES, "the owner's frame", what);
        CHECK(!vmaf_read_pictures(a, NULL, NULL, 0), "%s: flush", what);
        compare(a, what);
        vmaf_close(a);
        vmaf_close(b);
        vmaf_close(c);
    }
}

/* Fetching must not wait for pictures only the caller can give back. */
static void hung(int sig)
{
    (void)sig;
    static const char m[] = "FAIL: vmaf_cuda_fetch_preallocated_picture did not return with "
                            "every pool picture held by the caller\n";
    (void)!write(2, m, sizeof(m) - 1);
    _exit(1);
}

#define POOL_PICTURES 8 /* libvmaf_cuda.h */

/* The caller takes every pool picture and one more: -EBUSY at once, and a
 * picture given back can be fetched again. frames: pairs read through the
 * pool first (and scored at the end); with CPU worker threads, the frames
 * they still hold are scored to free their pictures first. */
static void caller_holds_pool(enum VmafCudaPicturePreallocationMethod m, unsigned threads,
                              unsigned frames, const char *what)
{
    int err = 0;
    VmafContext *ctx = pool_context(m, threads, what, &err);
    if (!err)
        err = read_pool_frames(ctx, m, frames, "frame", what);
    VmafPicture held[POOL_PICTURES + 1];
    unsigned n = 0;
    signal(SIGALRM, hung);
    alarm(60);
    while (!err && n < POOL_PICTURES) {
        err = vmaf_cuda_fetch_preallocated_picture(ctx, &held[n]);
        CHECK(!err, "%s: fetch %u of %d (%d)", what, n + 1, POOL_PICTURES, err);
        n += !err;
    }
    if (!err) {
        err = vmaf_cuda_fetch_preallocated_picture(ctx, &held[n]);
        CHECK(err == -EBUSY, "%s: fetch with every picture held by the caller gave %d, want "
              "-EBUSY", what, err);
        if (!err)
            n++;
        vmaf_picture_unref(&held[--n]);
        err = vmaf_cuda_fetch_preallocated_picture(ctx, &held[n]);
        CHECK(!err, "%s: fetch after giving one back (%d)", what, err);
        n += !err;
    }
    alarm(0);
    while (n)
        vmaf_picture_unref(&held[--n]);
    if (frames) {
        CHECK(!vmaf_read_pictures(ctx, NULL, NULL, 0), "%s: flush", what);
        compare_frames(ctx, frames, what);
    }
    vmaf_close(ctx);
}

/* The caller keeps a reference of its own to every picture it hands in,
 * until the pool is dry. Those pictures come back only when the caller lets
 * go, so a fetch must answer -EBUSY once the library's own frames are done
 * (it used to wait for ever), and succeed after one reference is dropped. */
static void caller_keeps_handed_in(enum VmafCudaPicturePreallocationMethod m, unsigned threads,
                                   const char *what)
{
    int err = 0;
    VmafContext *ctx = pool_context(m, threads, what, &err);
    VmafPicture kept[POOL_PICTURES];
    unsigned nk = 0, frames = 0;
    signal(SIGALRM, hung);
    alarm(60);
    while (!err && frames < POOL_PICTURES / 2) {
        VmafPicture cur[2];
        err = fetch_pair(ctx, m, frames, cur, what);
        if (err)
            break;
        vmaf_picture_ref(&kept[nk++], &cur[0]);
        vmaf_picture_ref(&kept[nk++], &cur[1]);
        err = vmaf_read_pictures(ctx, &cur[0], &cur[1], frames);
        CHECK(!err, "%s: frame %u (%d)", what, frames, err);
        frames += !err;
    }
    if (!err) {
        VmafPicture extra;
        err = vmaf_cuda_fetch_preallocated_picture(ctx, &extra);
        CHECK(err == -EBUSY, "%s: fetch with every picture kept by the caller gave %d, want "
              "-EBUSY", what, err);
        if (!err)
            vmaf_picture_unref(&extra);
        vmaf_picture_unref(&kept[--nk]);
        err = vmaf_cuda_fetch_preallocated_picture(ctx, &extra);
        CHECK(!err, "%s: fetch after dropping a kept reference (%d)", what, err);
        if (!err)
            vmaf_picture_unref(&extra);
    }
    alarm(0);
    while (nk)
        vmaf_picture_unref(&kept[--nk]);
    CHECK(!vmaf_read_pictures(ctx, NULL, NULL, 0), "%s: flush", what);
    compare_frames(ctx, frames, what);
    vmaf_close(ctx);
}

/* The instant inside vmaf_picture_pool_unhold() between giving up the hold
 * and dropping the reference: the test's fetch runs there. */
static sem_t in_unhold;

static void pause_in_unhold(void)
{
    sem_post(&in_unhold);
    usleep(200 * 1000);
}

static void *unhold_thread(void *pic)
{
    vmaf_picture_pool_unhold(pic);
    return NULL;
}

/* A CPU worker gives back a pool picture (its hold, then its reference)
 * while the caller, holding every other picture, fetches: the fetch must
 * wait for the picture, not answer -EBUSY because for an instant the
 * picture looked like the caller's. If the caller keeps a reference of its
 * own, the answer after the wait is -EBUSY. Last, the library's reference
 * outlives vmaf_close(), and its unhold frees the pool. */
static void fetch_during_unhold(enum VmafCudaPicturePreallocationMethod m, const char *what)
{
    for (int caller_keeps = 0; caller_keeps < 3; caller_keeps++) {
        int err = 0;
        VmafContext *ctx = pool_context(m, 0, what, &err);
        VmafPicture held[POOL_PICTURES], lib;
        unsigned n = 0;
        while (!err && n < POOL_PICTURES) {
            err = vmaf_cuda_fetch_preallocated_picture(ctx, &held[n]);
            CHECK(!err, "%s: fetch %u (%d)", what, n + 1, err);
            n += !err;
        }
        if (err) {
            while (n)
                vmaf_picture_unref(&held[--n]);
            vmaf_close(ctx);
            return;
        }
        /* The library's hold on picture 0, as a queued CPU frame has. */
        vmaf_picture_pool_hold(&lib, &held[0]);
        if (caller_keeps != 1)
            vmaf_picture_unref(&held[0]);
        if (caller_keeps == 2) {
            /* Nothing of the caller's is left when the pool's context
             * closes; the library's reference still is. */
            for (unsigned i = 1; i < n; i++)
                vmaf_picture_unref(&held[i]);
            vmaf_close(ctx);
            vmaf_picture_pool_unhold(&lib);
            continue;
        }
        sem_init(&in_unhold, 0, 0);
        vmaf_picture_pool_pause_unholds(pause_in_unhold);
        pthread_t t;
        CHECK(!pthread_create(&t, NULL, unhold_thread, &lib), "%s: thread", what);
        sem_wait(&in_unhold);
        VmafPicture got;
        signal(SIGALRM, hung);
        alarm(60);
        err = vmaf_cuda_fetch_preallocated_picture(ctx, &got);
        alarm(0);
        pthread_join(t, NULL);
        vmaf_picture_pool_pause_unholds(NULL);
        sem_destroy(&in_unhold);
        if (caller_keeps) {
            CHECK(err == -EBUSY, "%s: fetch while the library let go of a picture the caller "
                  "still holds gave %d, want -EBUSY", what, err);
        } else {
            CHECK(!err, "%s: fetch while the library gave a picture back gave %d, want the "
                  "picture", what, err);
        }
        if (!err)
            vmaf_picture_unref(&got);
        for (unsigned i = caller_keeps ? 0 : 1; i < n; i++)
            vmaf_picture_unref(&held[i]);
        vmaf_close(ctx);
    }
}

/* A context the caller created itself, not the primary one (FFmpeg's
 * default: cuCtxCreate, then popped). The driver's functions are taken by
 * their versioned names from the driver library cudart already loaded:
 * cudart's entry-point lookup gives, for cuCtxCreate, whatever signature
 * the installed toolkit maps that name to (CUDA 13 maps it to one with a
 * parameter block), while these names have one signature each. The
 * library must work in that context and leave the calling thread's current
 * context as it found it. */
static void own_context(void)
{
    const char *what = "caller-created CUcontext";
    typedef int (*DeviceGet)(int *dev, int ordinal);
    typedef int (*CtxCreate)(void **ctx, unsigned flags, int dev);
    typedef int (*CtxPop)(void **ctx);
    typedef int (*CtxGetCurrent)(void **ctx);
    typedef int (*CtxDestroy)(void *ctx);
    static const char *const names[] = {"cuDeviceGet", "cuCtxCreate_v2", "cuCtxPopCurrent_v2",
                                        "cuCtxGetCurrent", "cuCtxDestroy_v2"};
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    CHECK(lib, "%s: dlopen libcuda.so.1: %s", what, dlerror());
    if (!lib)
        return;
    void *fn[5] = {NULL};
    for (int i = 0; i < 5; i++) {
        fn[i] = dlsym(lib, names[i]);
        CHECK(fn[i], "%s: driver function %s", what, names[i]);
        if (!fn[i]) {
            dlclose(lib);
            return;
        }
    }
    int dev = -1;
    void *own = NULL, *popped = NULL, *before = NULL, *after = NULL;
    int r = ((DeviceGet)fn[0])(&dev, 0);
    if (!r)
        r = ((CtxCreate)fn[1])(&own, 0, dev);
    CHECK(!r && own, "%s: cuCtxCreate (driver error %d)", what, r);
    if (r || !own) {
        dlclose(lib);
        return;
    }
    r = ((CtxPop)fn[2])(&popped);
    CHECK(!r && popped == own, "%s: cuCtxPopCurrent (driver error %d)", what, r);
    ((CtxGetCurrent)fn[3])(&before);
    given_ctx = own;
    VmafContext *ctx = new_context(true, "float_ssim");
    read_all(ctx, what);
    compare(ctx, what);
    vmaf_close(ctx);
    given_ctx = NULL;
    ((CtxGetCurrent)fn[3])(&after);
    CHECK(after == before, "%s: the thread's current context changed (%p, was %p)", what,
          after, before);
    r = ((CtxDestroy)fn[4])(own);
    CHECK(!r, "%s: cuCtxDestroy (driver error %d)", what, r);

    dlclose(lib);
}

static void fault_hung(int sig)
{
    (void)sig;
    static const char m[] = "FAIL: a call after a kernel fault did not return within 60 s\n";
    (void)!write(2, m, sizeof(m) - 1);
    _exit(1);
}

static void no_release(void *cookie, VmafPicture *pic)
{
    (void)cookie, (void)pic;
}

/* Run alone, in a process of its own (the argument "fault"): a fault
 * corrupts the process's CUDA context for good. Device pictures whose rows
 * lie at an address no allocation has make the kernels fault: the first
 * call that meets the fault returns -EIO and logs one line saying it
 * (logged once for the CUDA state, whichever part meets it), every later
 * call returns the same and logs only that it is refused, and nothing
 * hangs, vmaf_close() included. */
static int kernel_fault(void)
{
    const char *what = "a kernel fault";
    signal(SIGALRM, fault_hung);
    alarm(60);
    VmafContext *ctx = new_context(true, "float_ssim");
    const size_t pitch = 2048;
    void *const nowhere = (void *)(uintptr_t)0x1000;
    int rc[FRAMES + 1], first = -1;
    Capture cap;
    capture_start(&cap);
    for (unsigned f = 0; f < FRAMES; f++) {
        VmafPicture p[2];
        for (int i = 0; i < 2; i++) {
            vmaf_picture_wrap(&p[i], VMAF_PIX_FMT_YUV400P, 8, W, H, VMAF_PICTURE_BUF_DEVICE,
                              nowhere, pitch * H, no_release, NULL);
            p[i].data[0] = nowhere;
            p[i].stride[0] = (ptrdiff_t)pitch;
        }
        rc[f] = vmaf_read_pictures(ctx, &p[0], &p[1], f);
        if (rc[f] && first < 0)
            first = (int)f;
    }
    rc[FRAMES] = vmaf_read_pictures(ctx, NULL, NULL, 0);
    if (first < 0 && rc[FRAMES])
        first = FRAMES;
    vmaf_close(ctx);
    capture_stop(&cap);
    alarm(0);
    CHECK(first >= 0 && rc[first] == -EIO, "%s: the first failure gave %d, want -EIO", what,
          first >= 0 ? rc[first] : 0);
    int refused = 0, said = 0, other = 0;
    for (const char *l = cap.text; *l;) {
        const char *end = strchr(l, '\n');
        const size_t n = end ? (size_t)(end - l) : strlen(l);
        char line[1024];
        snprintf(line, sizeof(line), "%.*s", (int)(n < sizeof(line) ? n : sizeof(line) - 1), l);
        if (strstr(line, "refused, the context stopped at an earlier failure"))
            refused++;
        else if (strstr(line, "illegal memory access") || strstr(line, "illegal address"))
            said++;
        else
            other++;
        l += n + (end ? 1 : 0);
    }
    int later = 0;
    for (int f = first + 1; first >= 0 && f <= FRAMES; f++) {
        later++;
        CHECK(rc[f] == rc[first], "%s: call %d after the failure gave %d, want %d", what, f,
              rc[f], rc[first]);
    }
    CHECK(said == 1 && other == 0 && refused == later,
          "%s: want one line naming the fault and %d refusals, got %d, %d refusals and %d "
          "other lines: %s",
          what, later, said, refused, other, cap.text);
    printf("%s: first failure at call %d (of %d reads and a flush), %d line(s) naming it, %d "
           "refusals\n", what, first, FRAMES, said, refused);
    printf("test_cuda_api fault: %s\n", check_failures ? "FAILED" : "ok");
    return check_failures ? 1 : 0;
}

int main(int argc, char **argv)
{
    VmafCudaState *probe = cuda_test_state_or_skip("test_cuda_api");
    vmaf_cuda_state_free(probe);
    if (argc > 1 && !strcmp(argv[1], "fault"))
        return kernel_fault();
    uint64_t rng = 0x1234567887654321ull;
    for (unsigned f = 0; f < FRAMES; f++) {
        if (vmaf_picture_alloc(&ref[f], VMAF_PIX_FMT_YUV420P, 8, W, H) ||
            vmaf_picture_alloc(&dist[f], VMAF_PIX_FMT_YUV420P, 8, W, H))
            return 1;
        fill_luma(&ref[f], 2, &rng, NULL);
        fill_luma(&dist[f], 4, &rng, &ref[f]);
        for (int pl = 1; pl < 3; pl++) {
            memset(ref[f].data[pl], 128, (size_t)ref[f].stride[pl] * ref[f].h[pl]);
            memset(dist[f].data[pl], 128, (size_t)dist[f].stride[pl] * dist[f].h[pl]);
        }
    }

    /* The CPU reference. */
    VmafContext *cpu = new_context(false, "float_ssim");
    read_all(cpu, "cpu");
    for (unsigned f = 0; f < FRAMES; f++)
        for (int q = 0; q < 4; q++)
            CHECK(!vmaf_feature_score_at_index(cpu, feats[q], &cpu_score[f][q], f),
                  "CPU score missing");
    vmaf_close(cpu);

    VmafContext *ctx = new_context(true, "float_ssim");
    read_all(ctx, "imported state, host pictures");
    compare(ctx, "imported state, host pictures");
    vmaf_close(ctx);

    ctx = new_context(true, "float_ssim_cuda");
    read_all(ctx, "twin by name");
    compare(ctx, "twin by name");
    vmaf_close(ctx);

    /* A caller's CUcontext (FFmpeg passes its own): the driver API through
     * cudart's entry points, as the library reaches it. */
    {
        typedef int (*Retain)(void **ctx, int dev);
        typedef int (*Release)(int dev);
        void *fr = NULL, *fl = NULL;
        enum cudaDriverEntryPointQueryResult q1, q2;
        cudaGetDriverEntryPointByVersion("cuDevicePrimaryCtxRetain", &fr, 12000,
                                         cudaEnableDefault, &q1);
        cudaGetDriverEntryPointByVersion("cuDevicePrimaryCtxRelease", &fl, 12000,
                                         cudaEnableDefault, &q2);
        CHECK(fr && fl, "driver entry points for the context test");
        if (fr && fl && !((Retain)fr)(&given_ctx, 0)) {
            ctx = new_context(true, "float_ssim");
            read_all(ctx, "caller's CUcontext");
            compare(ctx, "caller's CUcontext");
            vmaf_close(ctx);
            ((Release)fl)(0);
        }
        given_ctx = NULL;
    }

    VmafPicture dummy;
    ctx = new_context(false, "float_ssim");
    CHECK(vmaf_cuda_fetch_preallocated_picture(ctx, &dummy) == -EINVAL,
          "fetch without a pool accepted");
    VmafCudaPictureConfiguration pc = {
        .pic_params = {.w = W, .h = H, .bpc = 8, .pix_fmt = VMAF_PIX_FMT_YUV420P},
        .pic_prealloc_method = VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_DEVICE,
    };
    CHECK(vmaf_cuda_preallocate_pictures(ctx, pc) == -EINVAL, "pool without CUDA state accepted");
    vmaf_close(ctx);

    pool_run(VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_DEVICE, "device pool", false);
    pool_run(VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_HOST_PINNED, "pinned pool", false);
    pool_run(VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_DEVICE, "device pool, a pair ahead", true);
    mixed_memory();
    cpu_on_device_pictures(0);
    cpu_on_device_pictures(1); /* 7 frames, at most 4 pairs in flight */
    pool_run(VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_HOST, "host pool", false);
    pool_picture_outside(VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_DEVICE,
                         "device pool picture with a changed stride");
    pool_picture_outside(VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_HOST_PINNED,
                         "pinned pool picture with a changed stride");
    pool_picture_outside(VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_HOST,
                         "host pool picture with a changed stride");
    own_context();
    after_failed_calls();
    failure_is_one_line();
    start_failure_is_one_line();
    legacy_stream_order();
    import_after_start();
    bad_device_variable();
    pool_back_after_failure(false);
    pool_back_after_failure(true);
    state_in_two_contexts();
    foreign_pool_pictures();
    twin_with_gpumask();
    caller_holds_pool(VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_DEVICE, 0, 0,
                      "every device pool picture held, before any frame");
    caller_holds_pool(VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_DEVICE, 0, 3,
                      "every device pool picture held, after frames");
    caller_holds_pool(VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_HOST_PINNED, 2, FRAMES,
                      "every pinned pool picture held, CPU workers");
    caller_keeps_handed_in(VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_DEVICE, 0,
                           "device pool, caller keeps what it hands in");
    caller_keeps_handed_in(VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_HOST_PINNED, 2,
                           "pinned pool, caller keeps what it hands in, CPU workers");
    fetch_during_unhold(VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_HOST_PINNED,
                        "pinned pool, fetch while a picture comes back");
    fetch_during_unhold(VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_DEVICE,
                        "device pool, fetch while a picture comes back");

    /* Repeated setup and teardown must give all device memory back. */
    size_t free0 = 0, free1 = 0, total = 0;
    cudaMemGetInfo(&free0, &total);
    for (int i = 0; i < 20; i++) {
        ctx = new_context(true, "float_ssim");
        if (i & 1) {
            pc.pic_prealloc_method = VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_DEVICE;
            vmaf_cuda_preallocate_pictures(ctx, pc);
        }
        for (unsigned f = 0; f < 2; f++) {
            VmafPicture r, d;
            vmaf_picture_ref(&r, &ref[f]);
            vmaf_picture_ref(&d, &dist[f]);
            CHECK(!vmaf_read_pictures(ctx, &r, &d, f), "leak loop read");
        }
        vmaf_close(ctx);
    }
    cudaMemGetInfo(&free1, &total);
    CHECK(free1 + (4u << 20) >= free0, "device memory not returned: %zu bytes before, %zu after",
          free0, free1);
    printf("device memory free before/after 20 init-close cycles: %zu / %zu MiB\n",
           free0 >> 20, free1 >> 20);

    for (unsigned f = 0; f < FRAMES; f++) {
        vmaf_picture_unref(&ref[f]);
        vmaf_picture_unref(&dist[f]);
    }
    printf("test_cuda_api: %s\n", check_failures ? "FAILED" : "ok");
    return check_failures ? 1 : 0;
}
