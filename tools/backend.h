/* The backend a run scores on (--backend), and where its pictures come
 * from: the library's pinned pool on CUDA, plain host pictures otherwise. */
#ifndef VMAF_TOOLS_BACKEND_H
#define VMAF_TOOLS_BACKEND_H

#include <stdbool.h>
#include <stddef.h>

#include "libvmaf/libvmaf.h"

#include "auto_backend.h"
#include "cli_parse.h"

/* Chooses the backend for vmaf: *cuda tells whether CUDA state was
 * imported. For --backend auto, `note` receives the line that says which
 * one, to be printed once the run is set up; auto takes the CPU without
 * trying CUDA where `work` is too short for the GPU to win
 * (auto_backend.h). 0, or the exit status (GPU: --backend cuda without a
 * usable one), its line printed. */
int setup_backend(const CliSettings *c, const AutoWork *work, VmafContext *vmaf, bool *cuda,
                  char *note, size_t note_sz);

typedef struct PicSource {
    VmafContext *vmaf;
    bool pool; /* the library's pinned pictures */
    unsigned w, h, bpc;
    /* The pictures' format: the source's when a feature in use reads
     * chroma (vmaf_chroma_in_use), else 4:0:0, and the readers skip chroma. */
    enum VmafPixelFormat pix_fmt;
} PicSource;

/* Sets up src for pictures of w x h at bpc bits in format pix_fmt (the
 * source's; 4:0:0 is taken when no feature in use reads chroma), from the
 * pinned pool when cuda (falling back to ordinary memory, with a warning
 * unless quiet). */
void picture_source_init(PicSource *src, VmafContext *vmaf, bool cuda, unsigned w, unsigned h,
                         unsigned bpc, enum VmafPixelFormat pix_fmt, bool quiet);

/* A picture to read one frame into. 0 or negative errno. */
int get_picture(const PicSource *src, VmafPicture *pic);

#endif /* VMAF_TOOLS_BACKEND_H */
