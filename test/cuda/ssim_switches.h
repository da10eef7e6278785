/*
 * Switches of the float_ssim twin, for the tests: ssim_switches.c wraps its
 * plan and the reading of its means (float_ssim_cuda_kernels.h) at link
 * time; a program that uses these links with ssim_switch_wrap
 * (test/cuda/meson.build). Process-wide.
 */
#ifndef VMAF_TEST_CUDA_SSIM_SWITCHES_H
#define VMAF_TEST_CUDA_SSIM_SWITCHES_H

#include <stdbool.h>

/* Every frame mean goes through the sequential redo, which real frames
 * take rarely, so that its exactness is tested on every size rather than
 * left to chance. */
void ssim_switch_force_redo(bool on);

/* Twins initialised from now on take launch shape `shape` (0 ..
 * vmaf_ssim_cuda_shapes() - 1) whatever their size, so that every kernel
 * is tested on every geometry; -1 restores the plan's choice. */
void ssim_switch_force_shape(int shape);

#endif /* VMAF_TEST_CUDA_SSIM_SWITCHES_H */
