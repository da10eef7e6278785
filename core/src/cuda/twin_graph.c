/*
 * A slot's frame kernels as CUDA graphs, each for the planes it reads: a
 * replay takes less GPU time a frame than launching the kernels one by one.
 * Host pictures always land in the frames' own upload buffers: one graph a
 * slot. Device pictures come from a consumer's pool, whose pictures come
 * round again: a few graphs a slot, the least recently used one updated in
 * place for new planes.
 */
#include <cuda_runtime_api.h>

#include "cuda/twin_internal.h"
#include "log.h"

/* Whether a graph made for planes a reads planes b: the same pointers and
 * pitches, chroma included (the frame and its event differ). */
static bool same_planes(const VmafCudaPlanes *a, const VmafCudaPlanes *b)
{
    for (int i = 0; i < 2; i++) {
        if (a->luma[i] != b->luma[i] || a->pitch[i] != b->pitch[i])
            return false;
        for (int c = 0; c < 2; c++)
            if (a->chroma[i][c] != b->chroma[i][c] ||
                a->chroma_pitch[i][c] != b->chroma_pitch[i][c])
                return false;
    }
    return true;
}

/* The slot's graph for the planes it reads now, or NULL. */
static VmafCudaTwinGraph *graph_for_planes(VmafCudaTwinSlot *sl)
{
    for (int j = 0; j < VMAF_CUDA_TWIN_GRAPHS; j++) {
        VmafCudaTwinGraph *g = &sl->graph[j];
        if (g->exec && same_planes(&g->planes, &sl->planes))
            return g;
    }
    return NULL;
}

/* A free place, or the least recently used graph. */
static VmafCudaTwinGraph *graph_to_replace(VmafCudaTwinSlot *sl)
{
    VmafCudaTwinGraph *g = &sl->graph[0];
    for (int j = 1; j < VMAF_CUDA_TWIN_GRAPHS && g->exec; j++)
        if (!sl->graph[j].exec || sl->graph[j].used < g->used)
            g = &sl->graph[j];
    return g;
}

/* The frame's kernels, captured on the twin's capture stream. The capture
 * runs on a non-blocking stream of its own: while a blocking stream
 * captures, the legacy default stream is unusable, and the caller may be
 * using it. */
static cudaError_t capture(VmafCudaTwin *t, unsigned k, cudaGraph_t *g)
{
    VmafCudaTwinSlot *sl = &t->slot[k];
    cudaError_t e = cudaStreamBeginCapture(t->cap, cudaStreamCaptureModeThreadLocal);
    if (e != cudaSuccess)
        return e;
    e = t->ops->enqueue(t->state, k, &sl->planes, sl->dresult, t->cap);
    const cudaError_t end = cudaStreamEndCapture(t->cap, g);
    return e == cudaSuccess ? end : e;
}

/* Puts the captured graph into place g: updated in place where it holds
 * one (the slot's last frame has finished, so no launch of it is
 * pending), or instantiated anew where the update is refused (a device
 * picture whose alignment picks another kernel, say). */
static cudaError_t install(VmafCudaTwinGraph *g, cudaGraph_t graph)
{
    if (g->exec) {
        cudaGraphExecUpdateResultInfo info;
        if (cudaGraphExecUpdate(g->exec, graph, &info) == cudaSuccess)
            return cudaSuccess;
        (void)cudaGetLastError();
        cudaGraphExecDestroy(g->exec);
        g->exec = NULL;
    }
    cudaGraphExec_t x = NULL;
    const cudaError_t e = cudaGraphInstantiate(&x, graph, 0);
    if (e == cudaSuccess)
        g->exec = x;
    return e;
}

/* Gives slot k a graph for the planes it reads now: one it has, or a new
 * capture. A failure (another thread of the process synchronizing the
 * device during the capture, say) only means launching one by one: it is
 * logged at debug level and cleared, never an error of the run; after two
 * the slot stops capturing, and its graphs keep serving the planes they
 * were made for. */
static VmafCudaTwinGraph *make_graph(VmafCudaTwin *t, unsigned k)
{
    VmafCudaTwinSlot *sl = &t->slot[k];
    VmafCudaTwinGraph *g = graph_for_planes(sl);
    if (g || sl->graph_tries >= 2)
        return g;
    g = graph_to_replace(sl);
    cudaGraph_t graph = NULL;
    cudaError_t e = capture(t, k, &graph);
    if (e == cudaSuccess)
        e = install(g, graph);
    if (graph)
        cudaGraphDestroy(graph);
    if (e != cudaSuccess) {
        vmaf_debug("%s: frame %u launched kernel by kernel (no graph: %s)", t->ops->name,
                   sl->planes.index, cudaGetErrorString(e));
        (void)cudaGetLastError();
        sl->graph_tries++;
        return NULL;
    }
    g->planes = sl->planes;
    t->counts.graph_captures++;
    return g;
}

cudaError_t vmaf_cuda_twin_launch(VmafCudaTwin *t, unsigned k)
{
    VmafCudaTwinSlot *sl = &t->slot[k];
    VmafCudaTwinGraph *g = make_graph(t, k);
    if (!g)
        return t->ops->enqueue(t->state, k, &sl->planes, sl->dresult, t->comp);
    g->used = ++t->graph_clock;
    t->counts.graph_frames++;
    return cudaGraphLaunch(g->exec, t->comp);
}

void vmaf_cuda_twin_drop_graphs(VmafCudaTwinSlot *sl)
{
    for (int j = 0; j < VMAF_CUDA_TWIN_GRAPHS; j++)
        if (sl->graph[j].exec) {
            cudaGraphExecDestroy(sl->graph[j].exec);
            sl->graph[j].exec = NULL;
        }
}
