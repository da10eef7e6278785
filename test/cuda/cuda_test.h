/* Shared helpers of the CUDA tests: skip rules, pictures in each kind of
 * memory, a small random generator; the checks are test/check.h's. */
#ifndef LIBVMAF_TEST_CUDA_CUDA_TEST_H
#define LIBVMAF_TEST_CUDA_CUDA_TEST_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "libvmaf/libvmaf.h"
#include "libvmaf/libvmaf_cuda.h"

#include "picture_internal.h"

#include "check.h"

#define SKIP 77

/* A CUDA state, or exit 77 with the reason when this machine has no GPU.
 * Where VMAF_TEST_REQUIRE_GPU is set (the GPU suite sets it), no GPU is a
 * failure: a library that stopped finding the GPU must not turn the whole
 * suite into skips. */
static inline VmafCudaState *cuda_test_state_or_skip(const char *test)
{
    VmafCudaState *cu = NULL;
    const int err = vmaf_cuda_state_init(&cu, (VmafCudaConfiguration){0});
    if (err == -ENODEV) {
        int n = 0;
        const cudaError_t e = cudaGetDeviceCount(&n);
        const char *req = getenv("VMAF_TEST_REQUIRE_GPU");
        const bool required = req && *req && strcmp(req, "0") != 0;
        printf("%s: %s needs a CUDA GPU; none is usable here (%s, %d devices)%s\n",
               required ? "FAIL" : "SKIP", test,
               e != cudaSuccess ? cudaGetErrorString(e) : "no device", n,
               required ? ", and VMAF_TEST_REQUIRE_GPU is set" : "");
        exit(required ? 1 : SKIP);
    }
    if (err) {
        fprintf(stderr, "%s: vmaf_cuda_state_init failed (%d) on a machine with a GPU\n", test,
                err);
        exit(1);
    }
    return cu;
}

static inline uint64_t rng_next(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *s = x;
}

/* Where a test picture lives. MEM_DEVICE_ODD: device memory whose rows
 * start one sample past an aligned address and lie one sample further
 * apart than their width, as a cropped decoder frame can: no word-aligned
 * access is possible. */
enum PicMem { MEM_HOST, MEM_PINNED, MEM_DEVICE, MEM_DEVICE_ODD };

static void release_pinned(void *cookie, VmafPicture *pic)
{
    (void)pic;
    cudaFreeHost(cookie);
}

static void release_device(void *cookie, VmafPicture *pic)
{
    (void)pic;
    cudaFree(cookie);
}

/* A picture in the given memory holding every plane of `host` (a host
 * picture of the same geometry), one plane after the other. */
static inline int picture_in(enum PicMem mem, const VmafPicture *host, VmafPicture *out)
{
    if (mem == MEM_HOST)
        return vmaf_picture_ref(out, host);
    const size_t sample = host->bpc > 8 ? 2 : 1;
    const size_t off = mem == MEM_DEVICE_ODD ? sample : 0;
    const int planes = host->w[1] ? 3 : 1;
    size_t pitch[3], at[3], size = off;
    for (int j = 0; j < planes; j++) {
        const size_t row = (size_t)host->w[j] * sample;
        pitch[j] = mem == MEM_DEVICE_ODD ? row + sample : (row + 255) & ~(size_t)255;
        at[j] = size;
        size += pitch[j] * host->h[j];
    }
    void *m = NULL;
    cudaError_t e = mem == MEM_PINNED ? cudaHostAlloc(&m, size, 0) : cudaMalloc(&m, size);
    if (e != cudaSuccess)
        return -ENOMEM;
    int err = vmaf_picture_wrap(out, host->pix_fmt, host->bpc, host->w[0], host->h[0],
                                mem == MEM_PINNED ? VMAF_PICTURE_BUF_HOST_PINNED
                                                  : VMAF_PICTURE_BUF_DEVICE,
                                m, size, mem == MEM_PINNED ? release_pinned : release_device, m);
    if (err) {
        mem == MEM_PINNED ? cudaFreeHost(m) : cudaFree(m);
        return err;
    }
    for (int j = 0; j < planes && e == cudaSuccess; j++) {
        out->data[j] = (uint8_t *)m + at[j];
        out->stride[j] = (ptrdiff_t)pitch[j];
        e = cudaMemcpy2D(out->data[j], pitch[j], host->data[j], (size_t)host->stride[j],
                         (size_t)host->w[j] * sample, host->h[j], cudaMemcpyHostToDevice);
    }
    return e == cudaSuccess ? 0 : -EIO;
}

/* Fills chroma planes 1 and 2 of p with noise (4:0:0: nothing). */
static inline void fill_chroma(VmafPicture *p, uint64_t *rng)
{
    const unsigned maxv = (1u << p->bpc) - 1u;
    for (int j = 1; j < 3 && p->w[1]; j++)
        for (unsigned y = 0; y < p->h[j]; y++)
            for (unsigned x = 0; x < p->w[j]; x++) {
                const unsigned v = (unsigned)(rng_next(rng) % (maxv + 1));
                if (p->bpc > 8)
                    ((uint16_t *)((char *)p->data[j] + y * p->stride[j]))[x] = (uint16_t)v;
                else
                    ((uint8_t *)p->data[j] + y * p->stride[j])[x] = (uint8_t)v;
            }
}

/* Fills a luma plane: 0 noise, 1 flat, 2 gradient with noise, 3 extremes
 * (0 and max), 4 a copy of `like` with small noise (a realistic distortion). */
static inline void fill_luma(VmafPicture *p, int pattern, uint64_t *rng, const VmafPicture *like)
{
    const unsigned maxv = (1u << p->bpc) - 1u;
    const unsigned flat = (unsigned)(rng_next(rng) % (maxv + 1));
    for (unsigned y = 0; y < p->h[0]; y++) {
        for (unsigned x = 0; x < p->w[0]; x++) {
            unsigned v;
            const uint64_t r = rng_next(rng);
            switch (pattern) {
            case 0: v = (unsigned)(r % (maxv + 1)); break;
            case 1: v = flat; break;
            case 2: v = (unsigned)(((uint64_t)(x + 2 * y) * maxv / (p->w[0] + 2 * p->h[0]) +
                                    r % 9) % (maxv + 1));
                break;
            case 3: v = (r & 1) ? maxv : 0; break;
            default: {
                unsigned base = like->bpc > 8
                                    ? ((const uint16_t *)((const char *)like->data[0] +
                                                          y * like->stride[0]))[x]
                                    : ((const uint8_t *)like->data[0] + y * like->stride[0])[x];
                const int d = (int)(r % 7) - 3;
                const int nv = (int)base + d * (int)(maxv / 255u + 1u);
                v = nv < 0 ? 0u : nv > (int)maxv ? maxv : (unsigned)nv;
            }
            }
            if (p->bpc > 8)
                ((uint16_t *)((char *)p->data[0] + y * p->stride[0]))[x] = (uint16_t)v;
            else
                ((uint8_t *)p->data[0] + y * p->stride[0])[x] = (uint8_t)v;
        }
    }
}

#endif /* LIBVMAF_TEST_CUDA_CUDA_TEST_H */
