/* The twin runtime's own parts (twin.c uses them; twins do not). */
#ifndef LIBVMAF_SRC_CUDA_TWIN_INTERNAL_H
#define LIBVMAF_SRC_CUDA_TWIN_INTERNAL_H

#include <cuda_runtime_api.h>

#include "cuda/twin.h"

/* Launches the kernels of the frame in slot k on the twin's stream:
 * replayed from the slot's graph for its planes, captured first where it
 * has none, or one by one where capturing fails (twin_graph.c). */
cudaError_t vmaf_cuda_twin_launch(VmafCudaTwin *t, unsigned k);

/* Destroys a slot's graphs. */
void vmaf_cuda_twin_drop_graphs(VmafCudaTwinSlot *sl);

/* A frame's end: recorded on stream s after its work, waited for at its
 * harvest (twin_events.c). */
cudaError_t vmaf_cuda_twin_mark(cudaEvent_t done, cudaStream_t s, unsigned frame);
cudaError_t vmaf_cuda_twin_wait(cudaEvent_t done, unsigned frame);

#endif /* LIBVMAF_SRC_CUDA_TWIN_INTERNAL_H */
