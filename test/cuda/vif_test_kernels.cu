/*
 * The probe of the vif twin's machine-code rule (test/cuda/check_sass.sh),
 * never launched: exactly the correctly rounded operation of the VIF
 * statistic that the CUDA library builds with FMAs, one f64 division, so
 * that its FMA count is what the library's sequence needs. A statistic
 * kernel with more FMAs than its divisions allow had a multiply-add
 * contracted.
 */
#include <cuda_runtime.h>

extern "C" __global__ void vif_fma_probe_div(const double *__restrict__ a,
                                             double *__restrict__ o)
{
    const int i = threadIdx.x;
    o[i] = __ddiv_rn(a[2 * i], a[2 * i + 1]);
}
