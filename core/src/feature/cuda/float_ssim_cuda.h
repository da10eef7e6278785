/* Internal hooks of the float_ssim CUDA twin, for the tests. */
#ifndef LIBVMAF_SRC_FEATURE_CUDA_FLOAT_SSIM_CUDA_H
#define LIBVMAF_SRC_FEATURE_CUDA_FLOAT_SSIM_CUDA_H

#include "cuda/cuda_state.h"
#include "feature/feature_extractor.h"

extern const VmafFeatureExtractor vmaf_fex_float_ssim_cuda;

/* Copies the decimated f32 planes of the last submitted frame (W x H, rows
 * packed) to the host, after that frame was collected. -EINVAL at scale 1
 * (nothing is decimated) or before any frame. */
int vmaf_float_ssim_cuda_debug_planes(VmafFex *fex, float *ref, float *dist, unsigned *W,
                                      unsigned *H);

/* How many frames were replayed from a slot's graph so far (the others
 * were launched kernel by kernel). */
unsigned vmaf_float_ssim_cuda_graph_frames(const VmafFex *fex);

/* Graphs of a frame's kernels kept by each slot: one for the slot's own
 * upload buffers, or one each for the pairs of device pictures that come
 * round again from a consumer's pool (the library's pool, fetched and
 * given back two pictures a frame, makes this many pairs). */
#define VMAF_SSIM_CUDA_SLOT_GRAPHS (VMAF_CUDA_POOL_PICTURES / 2)

/* How many graphs were captured so far: made, or updated in place (the
 * least recently used of a slot, for planes it has no graph for). */
unsigned vmaf_float_ssim_cuda_graph_captures(const VmafFex *fex);

/* How many frame means went through the sequential redo so far. */
unsigned vmaf_float_ssim_cuda_redo_count(const VmafFex *fex);

/* Tests only: send every frame mean through the sequential redo, which
 * real frames take rarely (ADR 0102), so that its exactness is tested on
 * every size rather than left to chance. Process-wide. */
void vmaf_float_ssim_cuda_force_redo(bool on);

/* Tests only: extractors initialised from now on take launch shape `shape`
 * (0 .. vmaf_ssim_cuda_shapes() - 1) whatever their size, so
 * that every kernel is tested on every geometry; -1 restores the plan's
 * choice. Process-wide. */
void vmaf_float_ssim_cuda_force_shape(int shape);

/* Tests only: the submit of frame `frame` fails after its launches, as a
 * kernel that faults would (cudaErrorLaunchFailure, through the same error
 * path); -1 turns it off. Process-wide. */
void vmaf_float_ssim_cuda_fail_at(long frame);

/* Tests only: while on, extractors that start fail to allocate their device
 * buffers, as when the GPU's memory is taken (cudaErrorMemoryAllocation),
 * after their streams and some buffers are made. Process-wide. */
void vmaf_float_ssim_cuda_fail_start(bool on);

/* Tests only: waiting for the kernels of frame `frame` fails, as a fault
 * that only shows when the frame is collected would; -1 turns it off.
 * Process-wide. */
void vmaf_float_ssim_cuda_fail_harvest_at(long frame);

/* Tests only: every graph capture fails from now on, as on a driver or
 * process that does not allow it, so that the launches one by one are
 * tested on host pictures too. Process-wide. */
void vmaf_float_ssim_cuda_fail_captures(bool on);

#endif /* LIBVMAF_SRC_FEATURE_CUDA_FLOAT_SSIM_CUDA_H */
