/*
 * The host side of the float_ssim kernels, plain C: the plan (geometry and
 * launch shape of a frame), the constants the kernels take from the CPU
 * code, and the reading of a frame's result.
 */
#include <string.h>

#include "feature/cuda/float_ssim/ssim_launch.h"
#include "feature/cuda/float_ssim_cuda_kernels.h"
#include "feature/ssim/ssim.h"

_Static_assert(SSIM_CUDA_WIN == SSIM_WINDOW, "the kernels' window is the CPU's");

static unsigned ceil_div(unsigned long long a, unsigned long long b)
{
    return (unsigned)((a + b - 1) / b);
}

void vmaf_ssim_cuda_consts(SsimCudaConsts *k)
{
    memset(k, 0, sizeof(*k));
    for (int i = 0; i < SSIM_WINDOW; i++)
        k->g[i] = vmaf_ssim_gauss[i];
    k->c1 = VMAF_SSIM_C1;
    k->c2 = VMAF_SSIM_C2;
    k->c3 = VMAF_SSIM_C3;
    k->c1d = (double)k->c1;
    k->c2d = (double)k->c2;
}

static void shape(SsimCudaPlan *p, int s)
{
    const unsigned Wo = p->W - (SSIM_CUDA_WIN - 1), Ho = p->H - (SSIM_CUDA_WIN - 1);
    unsigned nt, per_thread;
    p->shape = s;
    if (s < SSIM_CUDA_NSHAPES) {
        const SsimCudaShape sh = SSIM_CUDA_SHAPES[s];
        nt = (unsigned)sh.nt;
        p->th = (unsigned)sh.th;
        p->grid_x = ceil_div(Wo, SSIM_CUDA_TW);
        p->grid_y = ceil_div(Ho, p->th);
        p->units = p->cps = 0;
        /* one combine item takes R outputs, or one with split items */
        const unsigned items =
            sh.qsplit ? p->th * SSIM_CUDA_TW : SSIM_CUDA_TW * (p->th / (unsigned)sh.r);
        per_thread = ceil_div(items, nt) * (sh.qsplit ? 1u : (unsigned)sh.r);
    } else {
        /* Chunks strip by strip, dealt in equal runs to the blocks of one
         * full wave (or fewer blocks on small planes). */
        nt = SSIM_CUDA_SNT;
        p->th = SSIM_CUDA_CH;
        p->cps = ceil_div(Ho, SSIM_CUDA_CH);
        p->units = ceil_div(Wo, SSIM_CUDA_TW) * p->cps;
        const unsigned slots = (unsigned)p->sm_count * SSIM_CUDA_SBLOCKS;
        p->grid_x = p->units < slots ? p->units : slots;
        p->grid_y = 1;
        per_thread = ceil_div(SSIM_CUDA_CH * SSIM_CUDA_TW, nt) * ceil_div(p->units, p->grid_x);
    }
    p->nparts = p->grid_x * p->grid_y;
    /* Longest chain of additions a term goes through: its thread's terms,
     * the 5-level warp butterfly, the other warps of the block one after
     * the other, one addition to the frame total for each block, and
     * slack. */
    p->depth = (double)per_thread + 5.0 + (double)(nt / 32 - 1) + (double)p->nparts + 2.0;
}

void vmaf_ssim_cuda_plan(SsimCudaPlan *p, unsigned w, unsigned h, unsigned bpc, int scale,
                         int lcs, int sm_count, int pdl, const SsimCudaConsts *k)
{
    p->pdl = pdl != 0;
    p->w = w;
    p->h = h;
    p->bpc = bpc;
    p->scale = scale;
    p->W = scale > 1 ? w / (unsigned)scale + (w & 1u) : w;
    p->H = scale > 1 ? h / (unsigned)scale + (h & 1u) : h;
    p->nq = lcs ? 4 : 1;
    p->k = *k;
    p->sm_count = sm_count > 0 ? sm_count : 1;
    /* Large planes: strips, where every horizontal sum is made once and the
     * chunks deal out evenly (at least 8 to a block: one more on some
     * blocks costs at most an eighth). Then tall tiles (10 halo rows each),
     * and small tiles for small planes, where the time is latency, not
     * work. The decimated planes take tall tiles only where they give
     * every multiprocessor two blocks. Pictures (scale 1) take them from
     * three quarters of a tile a multiprocessor: below that small tiles
     * were faster, above it tall ones, and after the decimation small
     * tiles were faster at every such size. */
    const unsigned Wo = p->W - (SSIM_CUDA_WIN - 1), Ho = p->H - (SSIM_CUDA_WIN - 1);
    const unsigned long long cols = ceil_div(Wo, SSIM_CUDA_TW);
    const unsigned long long chunks = cols * ceil_div(Ho, SSIM_CUDA_CH);
    const unsigned long long tall = cols * ceil_div(Ho, SSIM_CUDA_SHAPES[1].th);
    const unsigned long long sms = (unsigned)p->sm_count;
    if (chunks >= 8ull * SSIM_CUDA_SBLOCKS * sms)
        shape(p, SSIM_CUDA_NSHAPES);
    else
        shape(p, tall >= (scale > 1 ? 2ull * sms : (3ull * sms + 3) / 4) ? 1 : 0);
}

int vmaf_ssim_cuda_plan_override(SsimCudaPlan *p, int s)
{
    if (s < 0 || s > SSIM_CUDA_NSHAPES)
        return -1;
    shape(p, s);
    return 0;
}

int vmaf_ssim_cuda_shapes(void)
{
    return SSIM_CUDA_NSHAPES + 1; /* the tile shapes, then the strips */
}

size_t vmaf_ssim_cuda_partials_bytes(void)
{
    /* the frame totals, then the finished-blocks counter */
    return (size_t)SSIM_CUDA_REC * sizeof(double) + 2 * sizeof(double);
}

/* Not inlined into the harvest, and in this file rather than the twin's:
 * a test program wraps it at link time (-Wl,--wrap) to send every mean
 * through the sequential sum. */
int vmaf_ssim_cuda_undecided(const SsimCudaOut *out, unsigned q)
{
    return out->redo[q] != 0;
}
