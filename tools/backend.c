/* Backends and picture sources; see backend.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "libvmaf/libvmaf_cuda.h"

#include "auto_backend.h"
#include "backend.h"
#include "lib_log.h"
#include "lib_settings.h"
#include "message.h"
#include "vmaf.h"

/* Creates CUDA state and imports it into vmaf. The library's warnings of
 * this step are its reasons for finding no GPU: held, and taken into *why
 * (NULL when it gave none). */
static int import_cuda(const CliSettings *c, VmafContext *vmaf, const char **why)
{
    VmafCudaState *cu = NULL;
    VmafCudaConfiguration ccfg = { .cu_ctx = NULL };
    (void)lib_why(NULL);
    lib_hold_warnings(true);
    lib_settings_log_level(VMAF_LOG_LEVEL_WARNING);
    int err = vmaf_cuda_state_init(&cu, ccfg);
    if (!err)
        err = vmaf_cuda_import_state(vmaf, cu);
    lib_settings_log_level(c->quiet ? VMAF_LOG_LEVEL_ERROR : VMAF_LOG_LEVEL_WARNING);
    lib_hold_warnings(false);
    *why = lib_why(NULL);
    return err;
}

/* Whether --backend auto takes the CPU for a run too short for the GPU to
 * win (auto_backend.h), and its line then. Decided before CUDA is
 * touched: trying it would cost the start-up that this choice saves. */
static bool auto_takes_cpu(const CliSettings *c, const AutoWork *work, char *note,
                           size_t note_sz)
{
    const double ns = auto_twin_cost_ns(c);
    if (ns == 0.0) {
        snprintf(note, note_sz, "vmaf: backend: cpu (CUDA not used: no feature asked for has "
                 "a CUDA twin)");
        return true;
    }
    const double cpu_s = auto_cpu_seconds(work, ns);
    if (!auto_prefers_cpu(cpu_s))
        return false;
    snprintf(note, note_sz, "vmaf: backend: cpu (CUDA not used: about %.2f s of work, less "
             "than CUDA's start-up; --backend cuda uses it anyway)", cpu_s);
    return true;
}

/* --backend auto prints its line once the run is set up (finding no GPU is
 * an answer there, not a problem); --backend cuda makes it the error. */
int setup_backend(const CliSettings *c, const AutoWork *work, VmafContext *vmaf, bool *cuda,
                  char *note, size_t note_sz)
{
    *cuda = false;
    note[0] = '\0';
    if (c->backend == CLI_BACKEND_CPU ||
        (c->backend == CLI_BACKEND_AUTO && auto_takes_cpu(c, work, note, note_sz)))
        return 0;
    const char *why;
    const int err = import_cuda(c, vmaf, &why);
    if (err && !why)
        why = err == -ENODEV ? "no usable CUDA device" : strerror(-err);
    if (err) {
        if (c->backend == CLI_BACKEND_CUDA)
            return report(VMAF_EXIT_GPU, "CUDA backend unavailable (--backend cuda): %s; use "
                          "--backend cpu or auto", why);
        snprintf(note, note_sz, "vmaf: backend: cpu (CUDA not used: %s)", why);
        return 0;
    }
    /* Warnings of a state that works (pinned staging that could not get
     * its copy threads, say) are still shown, after the step. */
    if (why && !c->quiet)
        fprintf(stderr, "libvmaf: warning: %s\n", why);
    *cuda = true;
    if (c->backend == CLI_BACKEND_AUTO)
        snprintf(note, note_sz, "vmaf: backend: cuda");
    return 0;
}

void picture_source_init(PicSource *src, VmafContext *vmaf, bool cuda, unsigned w, unsigned h,
                         unsigned bpc, enum VmafPixelFormat pix_fmt, bool quiet)
{
    /* Luma alone unless chroma is read: a third to two thirds less to read
     * and, with CUDA, to upload. */
    if (vmaf_chroma_in_use(vmaf) != 1)
        pix_fmt = VMAF_PIX_FMT_YUV400P;
    *src = (PicSource){ .vmaf = vmaf, .pool = false, .w = w, .h = h, .bpc = bpc,
                        .pix_fmt = pix_fmt };
    if (!cuda)
        return;
    VmafCudaPictureConfiguration pcfg = {
        .pic_params = { .w = w, .h = h, .bpc = bpc, .pix_fmt = pix_fmt },
        .pic_prealloc_method = VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_HOST_PINNED,
    };
    const int err = vmaf_cuda_preallocate_pictures(vmaf, pcfg);
    const char *why = lib_why(strerror(-err)); /* a reason taken here, shown or not */
    if (err && !quiet)
        fprintf(stderr, "vmaf: warning: no pinned picture pool (%s): reading into ordinary "
                "memory, uploads are slower\n", why);
    src->pool = !err;
}

int get_picture(const PicSource *src, VmafPicture *pic)
{
    if (src->pool)
        return vmaf_cuda_fetch_preallocated_picture(src->vmaf, pic);
    return vmaf_picture_alloc(pic, src->pix_fmt, src->bpc, src->w, src->h);
}
