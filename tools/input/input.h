/* Input modules of the vmaf tool: Y4M and raw planar YUV readers.
 *
 * Each module is a const vtable listed in input.c. A reader fills the luma
 * plane of a caller-provided VmafPicture (host memory: from vmaf_picture_alloc
 * or the CUDA pinned pool) and skips the chroma planes unless the picture has
 * the source's own chroma layout. Readers never print: a failure returns a
 * negative errno and leaves one line in InputContext.err for the caller. */
#ifndef VMAF_TOOLS_INPUT_INPUT_H
#define VMAF_TOOLS_INPUT_INPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "libvmaf/picture.h"

/* The library's picture limit. */
#define INPUT_MAX_DIM 65536u

/* Bytes of a path echoed in a message, at most. */
#define INPUT_PATH_SHOWN 200

/* What a stream holds; the same for every frame. */
typedef struct InputInfo {
    unsigned w, h;                /* luma size, 1..INPUT_MAX_DIM */
    enum VmafPixelFormat pix_fmt; /* layout of the source planes */
    unsigned bpc;                 /* 8, 10, 12 or 16 */
    unsigned fps_num, fps_den;    /* Y4M F tag; 0/0 when unknown */
    uint64_t frame_bytes;         /* payload bytes of one frame, all planes */
    int64_t frame_cnt;            /* frames in a regular file (estimate for Y4M), -1 unknown */
} InputInfo;

/* Raw geometry from the command line (-w -h -p -b). */
typedef struct InputRawParams {
    unsigned w, h;
    enum VmafPixelFormat pix_fmt;
    unsigned bpc;
} InputRawParams;

typedef struct InputContext InputContext;

typedef struct InputModule {
    const char *name;
    /* Reads the stream header (if any) and fills ctx->info. */
    int (*open)(InputContext *ctx, const InputRawParams *raw);
    /* Consumes what stands before a frame's samples (the Y4M FRAME line).
     * 1: a frame follows; 0: clean end of stream; <0: error. The samples
     * themselves are read or skipped by input.c, the same for every format. */
    int (*next_frame)(InputContext *ctx);
    /* Frees module state; NULL when the module keeps none beyond the
     * context. The stream itself is closed by input_close(). */
    void (*close)(InputContext *ctx);
} InputModule;

struct InputContext {
    const InputModule *module;
    FILE *f;
    bool own_file;      /* fclose on input_close */
    bool seekable;      /* regular file: fseeko skips, sizes are known */
    int64_t file_size;  /* regular files; -1 otherwise */
    int64_t pos;        /* bytes consumed so far */
    const char *path;   /* for messages: path_shown */
    InputInfo info;
    uint64_t frames_read;  /* frames consumed (read or skipped) */
    uint8_t *scratch;      /* discard / byte-swap buffer */
    size_t scratch_size;
    /* A Y4M pipe's first frame, read at the open right after the header
     * (one program feeding both inputs may write a whole frame of one
     * before the other's header), and consumed before the stream. */
    uint8_t *ahead;
    size_t ahead_len, ahead_pos;
    /* Threads that read a frame's planes of a regular file together (not
     * owned; NULL: the calling thread reads them, still one system call for
     * many rows). Set by the caller after opening. */
    struct VmafTeam *team;
    /* The path as messages show it: a long one is cut in its middle, so
     * that a message keeps the file name and its reason. */
    char path_shown[INPUT_PATH_SHOWN + 1];
    char err[1024];
};

extern const InputModule input_y4m;
extern const InputModule input_yuv;

/* Opens `path` and reads its header. `raw` non-NULL selects the raw reader
 * with that geometry; otherwise the stream must carry a Y4M signature.
 * `role` ("reference", "distorted" or NULL) prefixes the path in messages
 * where the path does not tell the inputs apart (/dev/fd/N, /dev/stdin).
 * On failure ctx->err holds the reason. */
int input_open(InputContext *ctx, const char *path, const char *role,
               const InputRawParams *raw);

/* Same on an already open stream (not closed by input_close); `path` is
 * only shown. */
int input_open_file(InputContext *ctx, FILE *f, const char *path, const InputRawParams *raw);

int input_read_frame(InputContext *ctx, VmafPicture *pic);
int input_skip_frame(InputContext *ctx);
void input_close(InputContext *ctx);

/* Bytes of one plane at full size: w * h * (bpc > 8 ? 2 : 1), or 0 when
 * the format has no such plane. Cannot overflow within INPUT_MAX_DIM. */
uint64_t input_plane_bytes(enum VmafPixelFormat fmt, unsigned bpc, unsigned w, unsigned h,
                           int plane, unsigned *pw, unsigned *ph);
uint64_t input_frame_bytes(enum VmafPixelFormat fmt, unsigned bpc, unsigned w, unsigned h);

const char *input_pix_fmt_name(enum VmafPixelFormat fmt);

/* The bit depths the tool reads (-b, raw YUV), said as INPUT_BPC_LIST: the
 * library's, for every feature it has. */
#define INPUT_BPC_LIST "8, 10, 12 or 16"
bool input_bpc_supported(unsigned bpc);

/* `path` for a message: whole when it has at most INPUT_PATH_SHOWN bytes,
 * else its start, "..." and its end (the file name), INPUT_PATH_SHOWN bytes
 * in all, cut between UTF-8 characters. Returns buf. */
const char *input_shorten_path(char buf[INPUT_PATH_SHOWN + 1], const char *path);

/* Shared helpers of the modules (input.c). */
int input_set_error(InputContext *ctx, int err, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* The next byte of the stream (what was read ahead first), or EOF at its
 * end or on a read error (ferror(ctx->f) tells which). Does not count it
 * in ctx->pos. */
int input_getc(InputContext *ctx);

#endif /* VMAF_TOOLS_INPUT_INPUT_H */
