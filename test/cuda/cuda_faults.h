/*
 * Faults of the twin runtime, for the tests: cuda_faults.c wraps the
 * runtime's frame events (cuda/twin_internal.h), the capture of its graphs
 * and device allocation at link time; a program that uses these links with
 * cuda_fault_wrap (test/cuda/meson.build). Process-wide switches.
 */
#ifndef VMAF_TEST_CUDA_CUDA_FAULTS_H
#define VMAF_TEST_CUDA_CUDA_FAULTS_H

#include <stdbool.h>

/* The submit of frame `frame` fails after its launches, as a kernel that
 * faults would (cudaErrorLaunchFailure, through the same error path); -1
 * turns it off. */
void cuda_fault_submit_at(long frame);

/* Waiting for the kernels of frame `frame` fails, as a fault that only
 * shows when the frame is collected would; -1 turns it off. */
void cuda_fault_harvest_at(long frame);

/* While on, every graph capture fails, as on a driver or in a process that
 * does not allow it, so that the launches one by one are tested on host
 * pictures too. */
void cuda_fault_captures(bool on);

/* From now on, `n` more device allocations (cudaMalloc) succeed and every
 * later one fails, as when the GPU's memory is taken; -1: none fails. A
 * twin that starts with n = 1 makes its streams, events and first buffer,
 * and fails allocating its first slot's own buffers. */
void cuda_fault_allocations(int n);

#endif /* VMAF_TEST_CUDA_CUDA_FAULTS_H */
