/*
 * float_ssim's frame kernels as the host launches them: the tile kernel
 * (ssim_tile.cuh) for smaller planes, the strips (ssim_strip.cuh) for large
 * ones, as the plan says (ssim_plan.c). Both end by adding each block's sums
 * to the frame's totals (f64 atomics) and, in the last block to finish, the
 * frame means, proven equal to the CPU's sequential sums or a redo flag
 * (ssim_means.cuh); both start, on compute capability 9 and up, while the
 * decimation before them ends. After the small tiles, k_finalize_after
 * computes the means in a one-block kernel that waits for the tile grid, so
 * that no tile block waits to be counted.
 */
#include <stdint.h>

#include <cuda_runtime.h>

#include "cuda/device_launch.cuh"
#include "feature/cuda/float_ssim/ssim_means.cuh"
#include "feature/cuda/float_ssim/ssim_strip.cuh"
#include "feature/cuda/float_ssim/ssim_tile.cuh"
#include "feature/cuda/float_ssim_cuda_kernels.h"

namespace {

/* The means after a tile grid launched without a counter: it waits for
 * the whole grid and its additions (cudaGridDependencySynchronize), where
 * the last block used to learn it was last from a counter that every block
 * had to update and wait for. */
__global__ void k_finalize_after(double *__restrict__ totals, int nq, double n, double depth,
                                 SsimCudaOut *__restrict__ out)
{
    wait_for_inputs();
    final_means<false>(totals, nq, n, depth, out);
}

/* The SSIM kernels' launch: with programmatic dependent launch (compute
 * capability 9 and up) the blocks start while the decimation before them
 * finishes, and wait for its writes in the kernel
 * (cudaGridDependencySynchronize). */
cudaLaunchConfig_t launch_config(const SsimCudaPlan *p, dim3 grid, unsigned threads, size_t smem,
                                 cudaStream_t st, cudaLaunchAttribute *attr)
{
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = grid;
    cfg.blockDim = dim3(threads);
    cfg.dynamicSmemBytes = smem;
    cfg.stream = st;
    if (p->pdl) {
        attr->id = cudaLaunchAttributeProgrammaticStreamSerialization;
        attr->val.programmaticStreamSerializationAllowed = 1;
        cfg.attrs = attr;
        cfg.numAttrs = 1;
    }
    return cfg;
}

template <typename P, int NQ, int S>
cudaError_t launch_tile_shape(const SsimCudaPlan *p, const void *ref, size_t rp,
                              const void *dist, size_t dp, float inv_d, double *partials,
                              SsimCudaOut *out, double *terms, int tq, cudaStream_t st)
{
    unsigned *counter = reinterpret_cast<unsigned *>(partials + REC);
    cudaLaunchAttribute attr;
    constexpr Shape SH = SSIM_CUDA_SHAPES[S];
    const cudaLaunchConfig_t cfg =
        launch_config(p, dim3(p->grid_x, p->grid_y), SH.nt, tile_smem(SH), st, &attr);
    /* The small tiles (the automatic scales) hand the means to a kernel of
     * their own where PDL lets it start with them, which saves a little of
     * every frame; the others keep the last-block counter. */
    const bool sep = S == 0 && out && !terms && p->pdl;
    cudaError_t e = cudaLaunchKernelEx(&cfg, k_tile<P, NQ, S, false>, (const P *)ref,
                                       rp / sizeof(P), (const P *)dist, dp / sizeof(P), inv_d,
                                       (int)p->W, (int)p->H, p->k, p->depth, partials,
                                       sep ? nullptr : counter, out, terms, tq);
    if (e != cudaSuccess || !sep)
        return e;
    cudaLaunchAttribute a2;
    const cudaLaunchConfig_t c2 = launch_config(p, dim3(1), 32, 0, st, &a2);
    const double n = (double)(p->W - (WIN - 1)) * (double)(p->H - (WIN - 1));
    return cudaLaunchKernelEx(&c2, k_finalize_after, partials, NQ, n, p->depth, out);
}

template <typename P, int NQ>
cudaError_t launch_strip(const SsimCudaPlan *p, const void *ref, size_t rp,
                               const void *dist, size_t dp, float inv_d, double *partials,
                               SsimCudaOut *out, double *terms, int tq, cudaStream_t st)
{
    unsigned *counter = reinterpret_cast<unsigned *>(partials + REC);
    const size_t q = 4 * sizeof(P); /* a staged quad */
    const int vec = (uintptr_t)ref % q == 0 && (uintptr_t)dist % q == 0 && rp % q == 0 &&
                    dp % q == 0;
    cudaLaunchAttribute attr;
    const cudaLaunchConfig_t cfg =
        launch_config(p, dim3(p->grid_x), SNT, strip_smem(), st, &attr);
    return cudaLaunchKernelEx(&cfg, k_strip<P, NQ, false>, (const P *)ref, rp / sizeof(P),
                              (const P *)dist, dp / sizeof(P), inv_d, vec, (int)p->W, (int)p->H,
                              p->units, p->cps, p->k, p->depth, partials, counter, out, terms,
                              tq);
}

template <typename P, int NQ>
cudaError_t launch_tile(const SsimCudaPlan *p, const void *ref, size_t rp, const void *dist,
                        size_t dp, float inv_d, double *partials, SsimCudaOut *out,
                        double *terms, int tq, cudaStream_t st)
{
#define SSIM_LAUNCH(S)                                                                     \
    launch_tile_shape<P, NQ, S>(p, ref, rp, dist, dp, inv_d, partials, out, terms, tq, st)
    if (p->shape == 0)
        return SSIM_LAUNCH(0);
    if (p->shape == 1)
        return SSIM_LAUNCH(1);
    return launch_strip<P, NQ>(p, ref, rp, dist, dp, inv_d, partials, out, terms, tq, st);
#undef SSIM_LAUNCH
}

template <typename P, int NQ, int S>
cudaError_t allow_smem()
{
    return cudaFuncSetAttribute(k_tile<P, NQ, S, false>,
                                cudaFuncAttributeMaxDynamicSharedMemorySize,
                                (int)tile_smem(SSIM_CUDA_SHAPES[S]));
}

template <typename P, int NQ>
cudaError_t prepare_kernels()
{
    cudaError_t e = allow_smem<P, NQ, 0>();
    if (e == cudaSuccess)
        e = allow_smem<P, NQ, 1>();
    if (e == cudaSuccess)
        e = cudaFuncSetAttribute(k_strip<P, NQ, false>,
                                 cudaFuncAttributeMaxDynamicSharedMemorySize, (int)strip_smem());
    return e;
}

cudaError_t launch_frame(const SsimCudaPlan *p, const void *ref, size_t ref_pitch,
                         const void *dist, size_t dist_pitch, int is_float, double *partials,
                         SsimCudaOut *out, double *terms, int tq, cudaStream_t st)
{
    const float inv_d = 1.0f / (float)(1u << (p->bpc - 8));
    const bool lcs = p->nq == 4 || terms;
    if (is_float)
        return lcs ? launch_tile<float, 4>(p, ref, ref_pitch, dist, dist_pitch, 1.0f, partials,
                                           out, terms, tq, st)
                   : launch_tile<float, 1>(p, ref, ref_pitch, dist, dist_pitch, 1.0f, partials,
                                           out, terms, tq, st);
    if (p->bpc == 8)
        return lcs ? launch_tile<uint8_t, 4>(p, ref, ref_pitch, dist, dist_pitch, inv_d,
                                             partials, out, terms, tq, st)
                   : launch_tile<uint8_t, 1>(p, ref, ref_pitch, dist, dist_pitch, inv_d,
                                             partials, out, terms, tq, st);
    return lcs ? launch_tile<uint16_t, 4>(p, ref, ref_pitch, dist, dist_pitch, inv_d, partials,
                                          out, terms, tq, st)
               : launch_tile<uint16_t, 1>(p, ref, ref_pitch, dist, dist_pitch, inv_d, partials,
                                          out, terms, tq, st);
}

} // namespace

extern "C" {

cudaError_t vmaf_ssim_cuda_prepare(void)
{
    cudaError_t e = vmaf_ssim_cuda_load_decimations();
    e = load_kernel(k_finalize_after, e);
    if (e == cudaSuccess)
        e = prepare_kernels<uint8_t, 1>();
    if (e == cudaSuccess)
        e = prepare_kernels<uint8_t, 4>();
    if (e == cudaSuccess)
        e = prepare_kernels<uint16_t, 1>();
    if (e == cudaSuccess)
        e = prepare_kernels<uint16_t, 4>();
    if (e == cudaSuccess)
        e = prepare_kernels<float, 1>();
    if (e == cudaSuccess)
        e = prepare_kernels<float, 4>();
    return e;
}

cudaError_t vmaf_ssim_cuda_frame(const SsimCudaPlan *p, const void *ref, size_t ref_pitch,
                                 const void *dist, size_t dist_pitch, int is_float,
                                 double *partials, SsimCudaOut *out, cudaStream_t st)
{
    return launch_frame(p, ref, ref_pitch, dist, dist_pitch, is_float, partials, out, NULL, 0,
                        st);
}

cudaError_t vmaf_ssim_cuda_terms(const SsimCudaPlan *p, const void *ref, size_t ref_pitch,
                                 const void *dist, size_t dist_pitch, int is_float, int q,
                                 double *terms, double *partials, cudaStream_t st)
{
    return launch_frame(p, ref, ref_pitch, dist, dist_pitch, is_float, partials, NULL, terms, q,
                        st);
}

} // extern "C"
