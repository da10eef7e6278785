/* Shared by the reader harnesses: run a stream through an input module the
 * way the vmaf tool does, from a regular file (memfd: sizes known, seeks)
 * and from a memory stream (like a pipe). */
#ifndef VMAF_TEST_FUZZ_INPUT_COMMON_H
#define VMAF_TEST_FUZZ_INPUT_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "input/input.h"

/* Streams of unknown size may announce up to 65536x65536 16-bit frames; the
 * tool would try to allocate that, which is not what we fuzz here. */
#define FUZZ_MAX_PIC_BYTES ((uint64_t)1 << 24)
#define FUZZ_MAX_FRAMES 64

static void fuzz_read_frames(InputContext *in, int with_chroma)
{
    const InputInfo *info = &in->info;
    const enum VmafPixelFormat fmt = with_chroma ? info->pix_fmt : VMAF_PIX_FMT_YUV400P;
    if (input_frame_bytes(fmt, info->bpc, info->w, info->h) > FUZZ_MAX_PIC_BYTES)
        return;
    VmafPicture pic;
    memset(&pic, 0, sizeof(pic));
    pic.pix_fmt = fmt;
    pic.bpc = info->bpc;
    void *mem[3] = { NULL, NULL, NULL };
    for (int p = 0; p < 3; p++) {
        uint64_t bytes = input_plane_bytes(fmt, info->bpc, info->w, info->h, p, &pic.w[p], &pic.h[p]);
        if (!bytes)
            continue;
        mem[p] = malloc((size_t)bytes);
        if (!mem[p])
            goto out;
        pic.data[p] = mem[p];
        pic.stride[p] = (ptrdiff_t)(bytes / pic.h[p]);
    }
    for (int f = 0; f < FUZZ_MAX_FRAMES; f++) {
        /* Alternate reading and skipping, as --frame_skip_* does. */
        int r = f % 3 == 1 ? input_skip_frame(in) : input_read_frame(in, &pic);
        if (r <= 0) {
            if (r < 0 && (!in->err[0] || strlen(in->err) >= sizeof(in->err)))
                abort(); /* every failure must explain itself */
            break;
        }
    }
out:
    for (int p = 0; p < 3; p++)
        free(mem[p]);
}

static void fuzz_one(const uint8_t *data, size_t size, const InputRawParams *raw, int with_chroma)
{
    /* As a regular file. */
    int fd = memfd_create("fuzz", 0);
    if (fd >= 0) {
        if (size == 0 || write(fd, data, size) == (ssize_t)size) {
            lseek(fd, 0, SEEK_SET);
            FILE *f = fdopen(fd, "rb");
            if (f) {
                InputContext in;
                if (!input_open_file(&in, f, "<memfd>", raw))
                    fuzz_read_frames(&in, with_chroma);
                else if (!in.err[0])
                    abort();
                input_close(&in);
                fclose(f);
                fd = -1;
            }
        }
        if (fd >= 0)
            close(fd);
    }
    /* As a stream without a size. */
    if (size) {
        FILE *f = fmemopen((void *)data, size, "rb");
        if (f) {
            InputContext in;
            if (!input_open_file(&in, f, "<stream>", raw))
                fuzz_read_frames(&in, with_chroma);
            else if (!in.err[0])
                abort();
            input_close(&in);
            fclose(f);
        }
    }
}

#endif /* VMAF_TEST_FUZZ_INPUT_COMMON_H */
