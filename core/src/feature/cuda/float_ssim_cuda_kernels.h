/*
 * The float_ssim CUDA kernels as the host code sees them: plain C
 * declarations of the plan (float_ssim/ssim_plan.c) and of the launchers
 * (float_ssim/ssim_decimate.cu, ssim_frame.cu). Every launcher only
 * enqueues work on the given stream and returns the launch status; nothing
 * here allocates.
 */
#ifndef LIBVMAF_SRC_FEATURE_CUDA_FLOAT_SSIM_CUDA_KERNELS_H
#define LIBVMAF_SRC_FEATURE_CUDA_FLOAT_SSIM_CUDA_KERNELS_H

#include <stddef.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The four frame means (t, l, c, s) as the CPU rounds them, and for each a
 * flag: 1 when the exact-mean interval straddles an f32 rounding boundary
 * and the sequential sum must be redone (vmaf_ssim_cuda_terms). */
typedef struct SsimCudaOut {
    float mean[4];
    int redo[4];
} SsimCudaOut;

/* The arithmetic constants, taken from the CPU code so that both sides
 * round the very same f32 numbers. */
typedef struct SsimCudaConsts {
    float g[11];
    float c1, c2, c3;
    double c1d, c2d; /* c1, c2 widened (exactly) */
} SsimCudaConsts;

/* The CPU code's constants. */
void vmaf_ssim_cuda_consts(SsimCudaConsts *k);

/* Geometry and launch shape of one frame. */
typedef struct SsimCudaPlan {
    unsigned w, h, bpc;  /* picture */
    int scale;           /* effective scale */
    unsigned W, H;       /* SSIM planes (decimated when scale > 1) */
    unsigned nq;         /* 4 with l, c, s; 1 for the score alone */
    int shape;           /* kernel: 0 small tiles, 1 tall tiles, 2 strips */
    unsigned th;         /* output rows per tile (per chunk for strips) */
    unsigned grid_x, grid_y;
    unsigned nparts;     /* blocks adding to the frame totals */
    unsigned units, cps; /* strip kernel: chunks in all, chunks a strip */
    int sm_count;
    int pdl;             /* the device has programmatic dependent launch */
    double depth;        /* additions on any path of the parallel sum */
    SsimCudaConsts k;
} SsimCudaPlan;

/* Fills a plan; sm_count shapes the grid; pdl lets the SSIM kernel launch
 * while the decimation finishes (programmatic dependent launch: only where
 * both the device and the loaded kernels have it, VmafCudaState.pdl). */
void vmaf_ssim_cuda_plan(SsimCudaPlan *p, unsigned w, unsigned h, unsigned bpc, int scale,
                         int lcs, int sm_count, int pdl, const SsimCudaConsts *k);

/* Forces a launch shape (benchmarks, tests): 0 .. vmaf_ssim_cuda_shapes() - 1.
 * Returns 0, or -1 for an unknown shape. */
int vmaf_ssim_cuda_plan_override(SsimCudaPlan *p, int shape);
int vmaf_ssim_cuda_shapes(void);

/* Bytes of a frame's totals and finished-blocks counter, the same for every
 * plan (the blocks add to the totals by atomics). Zero them once when
 * allocating: the last block of every frame resets both. */
size_t vmaf_ssim_cuda_partials_bytes(void);

/* Loads every kernel on the current device (a graph capture must not be
 * the first to need one) and lets the SSIM kernels use the shared memory
 * they need; call once per device before the first frame. */
cudaError_t vmaf_ssim_cuda_prepare(void);
/* The decimation kernels' part of it (ssim_decimate.cu). */
cudaError_t vmaf_ssim_cuda_load_decimations(void);

/* Box decimation of both luma planes (u8 for 8-bit, u16 otherwise; pitches
 * in bytes) into f32 planes of W x H with pitch dpitch bytes. */
cudaError_t vmaf_ssim_cuda_decimate(const SsimCudaPlan *p, const void *ref, size_t ref_pitch,
                                    const void *dist, size_t dist_pitch, float *dref,
                                    float *ddist, size_t dpitch, cudaStream_t st);

/* Gaussian passes, combine and the interval-checked frame means of one
 * frame, from the pictures (is_float = 0, scale 1) or from the decimated
 * f32 planes (is_float = 1). Writes *out on the device. */
cudaError_t vmaf_ssim_cuda_frame(const SsimCudaPlan *p, const void *ref, size_t ref_pitch,
                                 const void *dist, size_t dist_pitch, int is_float,
                                 double *partials, SsimCudaOut *out, cudaStream_t st);

/* The rare exact path for quantity q: writes the frame's per-pixel terms
 * in row-major order to terms ((W-10)*(H-10) doubles); the caller sums them
 * in that order, exactly as the CPU does. */
cudaError_t vmaf_ssim_cuda_terms(const SsimCudaPlan *p, const void *ref, size_t ref_pitch,
                                 const void *dist, size_t dist_pitch, int is_float, int q,
                                 double *terms, double *partials, cudaStream_t st);

/* Whether the frame's mean q is undecided in its read-back result (its
 * interval straddles an f32 rounding boundary): the harvest then sums the
 * terms in the CPU's order. */
int vmaf_ssim_cuda_undecided(const SsimCudaOut *out, unsigned q);

#ifdef __cplusplus
}
#endif

#endif /* LIBVMAF_SRC_FEATURE_CUDA_FLOAT_SSIM_CUDA_KERNELS_H */
