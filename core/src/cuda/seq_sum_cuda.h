/*
 * The CPU's sequential f64 sum of n terms, computed on the device with the
 * CPU's bits (cuda/seq_sum.h):
 * chunks of terms are prepared in parallel and applied one after the other
 * by one warp, and a chunk that cannot be prepared is added term by term.
 */
#ifndef LIBVMAF_SRC_CUDA_SEQ_SUM_CUDA_H
#define LIBVMAF_SRC_CUDA_SEQ_SUM_CUDA_H

#include <stddef.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Terms a chunk holds: one warp prepares one chunk, 32 terms a lane. */
#define VMAF_CUDA_SEQ_SUM_CHUNK 1024

/* The result, and how it was reached (tests, benchmarks). */
typedef struct VmafCudaSeqSum {
    double sum;            /* ((0 + t[0]) + t[1]) + ... + t[n-1], in f64 */
    unsigned prepared;     /* chunks applied from their prepared records */
    unsigned term_by_term; /* chunks added one term after the other */
    unsigned ties;         /* halfway cases decided by the running sum's parity */
    unsigned chunks;
} VmafCudaSeqSum;

/* Device bytes of the work area for n terms. */
size_t vmaf_cuda_seq_sum_work_bytes(unsigned long long n);

/* Enqueues the sum of the n device terms on stream st; *out (device memory)
 * receives it. terms must be 8-byte aligned; work holds
 * vmaf_cuda_seq_sum_work_bytes(n) bytes. n may be 0 (sum 0). */
cudaError_t vmaf_cuda_seq_sum(const double *terms, unsigned long long n, void *work,
                              VmafCudaSeqSum *out, cudaStream_t st);

#ifdef __cplusplus
}
#endif

#endif /* LIBVMAF_SRC_CUDA_SEQ_SUM_CUDA_H */
