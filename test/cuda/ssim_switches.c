/*
 * Switches of the float_ssim twin by link-time wrapping (ssim_switches.h):
 * each __wrap_ function stands for the call of the same name without the
 * prefix, and gives the real one's (__real_) result while its switch is
 * off.
 */
#include <stdatomic.h>

#include "feature/cuda/float_ssim_cuda_kernels.h"

#include "ssim_switches.h"

static atomic_bool force_redo;
static atomic_int force_shape = -1;

void ssim_switch_force_redo(bool on)
{
    atomic_store(&force_redo, on);
}

void ssim_switch_force_shape(int shape)
{
    atomic_store(&force_shape, shape);
}

void __real_vmaf_ssim_cuda_plan(SsimCudaPlan *p, unsigned w, unsigned h, unsigned bpc,
                                int scale, int lcs, int sm_count, int pdl,
                                const SsimCudaConsts *k);
void __wrap_vmaf_ssim_cuda_plan(SsimCudaPlan *p, unsigned w, unsigned h, unsigned bpc,
                                int scale, int lcs, int sm_count, int pdl,
                                const SsimCudaConsts *k);
int __real_vmaf_ssim_cuda_undecided(const SsimCudaOut *out, unsigned q);
int __wrap_vmaf_ssim_cuda_undecided(const SsimCudaOut *out, unsigned q);

void __wrap_vmaf_ssim_cuda_plan(SsimCudaPlan *p, unsigned w, unsigned h, unsigned bpc,
                                int scale, int lcs, int sm_count, int pdl,
                                const SsimCudaConsts *k)
{
    __real_vmaf_ssim_cuda_plan(p, w, h, bpc, scale, lcs, sm_count, pdl, k);
    const int shape = atomic_load(&force_shape);
    if (shape >= 0)
        (void)vmaf_ssim_cuda_plan_override(p, shape);
}

int __wrap_vmaf_ssim_cuda_undecided(const SsimCudaOut *out, unsigned q)
{
    return atomic_load(&force_redo) || __real_vmaf_ssim_cuda_undecided(out, q);
}
