/*
 * The test-only kernels of ssim_test_kernels.cu as the tests call them
 * (plain C). Each is synchronous unless it takes a stream.
 */
#ifndef VMAF_TEST_CUDA_SSIM_TEST_KERNELS_H
#define VMAF_TEST_CUDA_SSIM_TEST_KERNELS_H

#include <stddef.h>

#include <cuda_runtime_api.h>

#include "feature/cuda/float_ssim_cuda_kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The production reduction and interval check (out->mean[0],
 * out->redo[0]) on given terms, seg terms per thread, enqueued on st;
 * partials must hold ssim_test_terms_partials_bytes(). */
size_t ssim_test_terms_partials_bytes(unsigned long long n, unsigned seg);
cudaError_t ssim_test_mean_of_terms(const double *terms, unsigned long long n, unsigned seg,
                                    double *partials, SsimCudaOut *out, cudaStream_t st);

/* The combine's f64 division against the library's __ddiv_rn on `pairs`
 * operand pairs drawn from seed (inside and beyond the combine's range, and
 * exact quotients). Allocates its own counters; *mismatches gets the count,
 * first the first mismatch (a, b, got, want). */
cudaError_t ssim_test_division_mismatches(unsigned long long seed, unsigned long long pairs,
                                          unsigned long long *mismatches, double first[4]);

/* The combine's f32 square root against the library's __fsqrt_rn on every
 * float in [0, 2^63); *mismatches gets the count, first the first mismatch
 * (x, got, want). */
cudaError_t ssim_test_sqrt_mismatches(unsigned long long *mismatches, float first[3]);

/* Never called: keeps the probe kernels that check_sass.sh reads compiled. */
void *ssim_test_probe_kernels(void);

#ifdef __cplusplus
}
#endif

#endif /* VMAF_TEST_CUDA_SSIM_TEST_KERNELS_H */
