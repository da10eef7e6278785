/*
 * The SSIM twins' sequential redo of an undecided frame mean
 * (ssim_redo.h).
 */
#include <string.h>

#include "feature/cuda/float_ssim/ssim_redo.h"
#include "feature/ssim/ssim.h"
#include "log.h"

/* Output pixels of a plan: the terms of each of its means. */
static size_t terms_of(const SsimCudaPlan *p)
{
    return (size_t)(p->W - (SSIM_WINDOW - 1)) * (p->H - (SSIM_WINDOW - 1));
}

int vmaf_ssim_cuda_redo_init(SsimCudaRedo *r, VmafCudaTwin *t, size_t max_terms, long at)
{
    memset(r, 0, sizeof(*r));
    cudaError_t e = cudaMalloc((void **)&r->terms, max_terms * sizeof(double));
    if (e == cudaSuccess)
        e = cudaMalloc(&r->seq_work, vmaf_cuda_seq_sum_work_bytes(max_terms));
    if (e == cudaSuccess)
        e = cudaMalloc((void **)&r->dout, sizeof(*r->dout));
    if (e == cudaSuccess)
        e = cudaHostAlloc((void **)&r->hout, sizeof(*r->hout), cudaHostAllocDefault);
    if (e == cudaSuccess) {
        e = cudaEventCreateWithFlags(&r->ev, cudaEventDisableTiming);
        r->event = e == cudaSuccess;
    }
    if (e != cudaSuccess)
        return vmaf_cuda_twin_fail(t, e, "allocating the buffers of the sequential sum", at);
    return 0;
}

void vmaf_ssim_cuda_redo_free(SsimCudaRedo *r)
{
    cudaFree(r->terms);
    cudaFree(r->seq_work);
    cudaFree(r->dout);
    cudaFreeHost(r->hout);
    if (r->event)
        cudaEventDestroy(r->ev);
    memset(r, 0, sizeof(*r));
}

/* The CPU's sum, one term after the other, of the n terms the device
 * wrote. Waits for it on its own event, not for later frames' kernels. */
static int sequential_sum(SsimCudaRedo *r, VmafCudaTwin *t, size_t n, unsigned index,
                          cudaStream_t s, double *sum)
{
    cudaError_t e = vmaf_cuda_seq_sum(r->terms, n, r->seq_work, r->dout, s);
    if (e == cudaSuccess)
        e = cudaMemcpyAsync(r->hout, r->dout, sizeof(*r->hout), cudaMemcpyDeviceToHost, s);
    if (e == cudaSuccess)
        e = cudaEventRecord(r->ev, s);
    if (e == cudaSuccess)
        e = cudaEventSynchronize(r->ev);
    if (e != cudaSuccess)
        return vmaf_cuda_twin_fail(t, e, "the sequential sum of the per-pixel terms", index);
    *sum = r->hout->sum;
    return 0;
}

/* Mean q again, from the per-pixel terms summed in the CPU's order. */
static int redo_mean(SsimCudaRedo *r, VmafCudaTwin *t, const SsimCudaPlan *p,
                     const SsimCudaInput *in, double *partials, unsigned q, unsigned index,
                     cudaStream_t s, float *mean)
{
    vmaf_cuda_twin_count_redo(t);
    vmaf_debug("%s: frame %u: mean %u of %ux%u planes next to an f32 rounding boundary, "
               "summing in order", t->ops->name, index, q, p->W, p->H);
    const cudaError_t e = vmaf_ssim_cuda_terms(p, in->ref, in->ref_pitch, in->dis,
                                               in->dis_pitch, in->is_float, (int)q, r->terms,
                                               partials, s);
    if (e != cudaSuccess)
        return vmaf_cuda_twin_fail(t, e, "the per-pixel terms for the sequential sum", index);
    const size_t n = terms_of(p);
    double sum = 0.0;
    const int err = sequential_sum(r, t, n, index, s, &sum);
    if (!err)
        *mean = (float)(sum / (double)n);
    return err;
}

int vmaf_ssim_cuda_settle(SsimCudaRedo *r, VmafCudaTwin *t, const SsimCudaPlan *p,
                          const SsimCudaInput *in, double *partials, unsigned q0,
                          SsimCudaOut *o, unsigned index, cudaStream_t s)
{
    for (unsigned q = q0; q < p->nq; q++) {
        /* The mean sits so close to an f32 rounding boundary that only the
         * CPU's own order of additions decides it. */
        if (!vmaf_ssim_cuda_undecided(o, q))
            continue;
        const int err = redo_mean(r, t, p, in, partials, q, index, s, &o->mean[q]);
        if (err)
            return err;
        o->redo[q] = 0;
    }
    return 0;
}
