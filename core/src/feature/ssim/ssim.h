/*
 * float_ssim numerics (internal, not exported): pixel conversion, box
 * decimation, the 11-tap Gaussian passes and the per-pixel combine, exactly
 * as docs/metrics/float_ssim.md states them. Every function here returns the
 * reference's bits; the optimised paths only reorder work where the result
 * cannot change (exact sums, independent pixels).
 */
#ifndef LIBVMAF_SRC_FEATURE_SSIM_SSIM_H
#define LIBVMAF_SRC_FEATURE_SSIM_SSIM_H

#include <float.h>
#include <stddef.h>

#include "feature/ssim/ssim_geometry.h"

/* Every f32 operation must round to f32, and every f64 one to f64: a
 * compiler that keeps wider intermediates (x87) would give other scores
 * without a word, so such a build stops here. */
#if !defined(FLT_EVAL_METHOD) || FLT_EVAL_METHOD != 0
#error "float_ssim needs FLT_EVAL_METHOD == 0 (on 32-bit x86: -msse2 -mfpmath=sse)"
#endif

/* The Gaussian window taps, used both horizontally and vertically. */
extern const float vmaf_ssim_gauss[SSIM_WINDOW];

/* Stabilising constants, computed in f32 as the reference does. */
#define VMAF_SSIM_C1 ((0.01f * 255.0f) * (0.01f * 255.0f))
#define VMAF_SSIM_C2 ((0.03f * 255.0f) * (0.03f * 255.0f))
#define VMAF_SSIM_C3 (VMAF_SSIM_C2 / 2.0f)

/* Frame result: the f32 means widened to double. */
typedef struct VmafSsimResult {
    double score, l, c, s;
} VmafSsimResult;

/* Mirrors a coordinate into 0..n-1 about the sample boundary (-1 -> 0,
 * n -> n-1). One reflection only, as the reference does; the callers make
 * sure that is enough (ssim_mirror_ok). */
static inline int vmaf_ssim_mirror(int i, int n)
{
    if (i < 0)
        return -1 - i;
    if (i >= n)
        return 2 * n - 1 - i;
    return i;
}

/* 1 if every window of an n-sample axis decimated by s stays inside the
 * axis after one reflection, else 0 (only absurdly small planes fail). */
int vmaf_ssim_decimate_axis_ok(unsigned n, int s);

/* Converts a luma plane to f32 samples p / 2^(bpc-8) (scale 1).
 * src holds uint8_t for bpc 8 and uint16_t for 10, 12 and 16; stride is in
 * bytes. dst is w x h, rows packed. 0, or -EINVAL on a bad bpc or size. */
int vmaf_ssim_plane_to_float(const void *src, ptrdiff_t stride, unsigned bpc, unsigned w,
                             unsigned h, float *dst);

/* Box low-pass and decimation by scale (1 = plain conversion). dst is
 * ssim_decimated_size(w, scale) x ssim_decimated_size(h, scale), rows
 * packed. 0, or -EINVAL on a bad argument or a plane too small for one
 * reflection at the edges. */
int vmaf_ssim_decimate(const void *src, ptrdiff_t stride, unsigned bpc, unsigned w,
                       unsigned h, int scale, float *dst);

/* Bytes of scratch vmaf_ssim_compute() needs for a w x h picture at this
 * scale (0 = automatic); 0 when the geometry is refused. */
size_t vmaf_ssim_scratch_size(unsigned w, unsigned h, int scale);

/* SSIM of two luma planes (same bpc and size) at a scale (0 = automatic).
 * scratch holds at least vmaf_ssim_scratch_size() bytes; nothing is
 * allocated. 0, or -EINVAL (bad argument, geometry refused, scratch too
 * small). */
int vmaf_ssim_compute(const void *ref, ptrdiff_t ref_stride, const void *dist,
                      ptrdiff_t dist_stride, unsigned bpc, unsigned w, unsigned h, int scale,
                      void *scratch, size_t scratch_size, VmafSsimResult *res);

/* Bytes of scratch vmaf_ssim_compute_float() needs for W x H planes. */
size_t vmaf_ssim_float_scratch_size(unsigned W, unsigned H);

/* SSIM of two already converted / decimated f32 planes (stride in floats):
 * the Gaussian passes, the combine and the frame sums only. */
int vmaf_ssim_compute_float(const float *r, ptrdiff_t r_stride, const float *d,
                            ptrdiff_t d_stride, unsigned W, unsigned H, void *scratch,
                            size_t scratch_size, VmafSsimResult *res);

/* Inner-loop variants (plain C, then AVX2 and AVX-512 where built): every
 * one returns the same bits, and tests prove it. By default the best one
 * the CPU supports is used. count: how many this build has; select(i):
 * force variant i (0 = plain C; -1 = back to automatic), -ENOTSUP if the
 * CPU lacks it; for tests and benchmarks, not thread safe. name: the
 * variant in use ("c", "avx2", "avx512"). */
int vmaf_ssim_kernels_count(void);
int vmaf_ssim_kernels_select(int i);
const char *vmaf_ssim_kernels_name(void);

#endif /* LIBVMAF_SRC_FEATURE_SSIM_SSIM_H */
