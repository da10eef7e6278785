/* Raw planar YUV reader: geometry from the command line, frames back to back,
 * 16-bit samples little-endian. */
#include <errno.h>
#include <string.h>

#include "input/input.h"

static int yuv_open(InputContext *ctx, const InputRawParams *raw)
{
    if (!raw)
        return input_set_error(ctx, -EINVAL, "raw YUV needs its geometry (%s): give -w, -h, "
                               "-p and -b", ctx->path);
    if (!raw->w || !raw->h || raw->w > INPUT_MAX_DIM || raw->h > INPUT_MAX_DIM)
        return input_set_error(ctx, -EINVAL, "bad raw YUV size (%s, %ux%u): width and height "
                               "must be 1 to %u", ctx->path, raw->w, raw->h, INPUT_MAX_DIM);
    if (!input_bpc_supported(raw->bpc))
        return input_set_error(ctx, -EINVAL, "bad raw YUV bit depth (%s, %u): use "
                               INPUT_BPC_LIST, ctx->path, raw->bpc);
    if (raw->pix_fmt < VMAF_PIX_FMT_YUV420P || raw->pix_fmt > VMAF_PIX_FMT_YUV400P)
        return input_set_error(ctx, -EINVAL, "bad raw YUV pixel format (%s): use 420, 422, "
                               "444 or 400", ctx->path);
    InputInfo *in = &ctx->info;
    in->w = raw->w;
    in->h = raw->h;
    in->pix_fmt = raw->pix_fmt;
    in->bpc = raw->bpc;
    in->frame_bytes = input_frame_bytes(in->pix_fmt, in->bpc, in->w, in->h);
    if (ctx->seekable) {
        /* A Y4M file read as raw would give garbage scores, or a confusing
         * size error: say what it is instead. */
        unsigned char sig[10];
        const off_t here = ftello(ctx->f);
        const size_t got = here >= 0 ? fread(sig, 1, sizeof(sig), ctx->f) : 0;
        if (here >= 0 && fseeko(ctx->f, here, SEEK_SET))
            return input_set_error(ctx, -EIO, "cannot seek (%s): %s", ctx->path, strerror(errno));
        if (got == sizeof(sig) && !memcmp(sig, "YUV4MPEG2 ", sizeof(sig)))
            return input_set_error(ctx, -EINVAL, "raw YUV geometry given for a Y4M file (%s): "
                                   "it starts with the YUV4MPEG2 signature; drop -w -h -p -b",
                                   ctx->path);
    }
    if (ctx->file_size >= 0) {
        const uint64_t size = ctx->file_size > ctx->pos ? (uint64_t)(ctx->file_size - ctx->pos) : 0;
        if (!size)
            return input_set_error(ctx, -EINVAL, "empty input (%s): the file holds no bytes",
                                   ctx->path);
        /* A size that is not a whole number of frames means the geometry is
         * wrong or the file is cut: both would give meaningless scores. */
        if (size % in->frame_bytes)
            return input_set_error(ctx, -EINVAL,
                                   "raw YUV size is not a whole number of frames (%s, %llu "
                                   "bytes): a %ux%u %s %u-bit frame is %llu bytes, so the file "
                                   "holds %llu frame%s and %llu bytes more; check -w -h -p -b",
                                   ctx->path, (unsigned long long)size, in->w, in->h,
                                   input_pix_fmt_name(in->pix_fmt), in->bpc,
                                   (unsigned long long)in->frame_bytes,
                                   (unsigned long long)(size / in->frame_bytes),
                                   size / in->frame_bytes == 1 ? "" : "s",
                                   (unsigned long long)(size % in->frame_bytes));
        in->frame_cnt = (int64_t)(size / in->frame_bytes);
    }
    return 0;
}

/* 0 at a clean end of stream (nothing left), 1 otherwise, <0 on error. */
static int more_frames(InputContext *ctx)
{
    if (ctx->file_size >= 0 && ctx->pos >= ctx->file_size)
        return 0;
    int c = getc(ctx->f);
    if (c == EOF)
        return ferror(ctx->f) ? input_set_error(ctx, -EIO, "read failed (%s, frame %llu): %s",
                                                ctx->path,
                                                (unsigned long long)ctx->frames_read,
                                                strerror(errno ? errno : EIO))
                              : 0;
    ungetc(c, ctx->f);
    return 1;
}

const InputModule input_yuv = {
    .name = "yuv",
    .open = yuv_open,
    .next_frame = more_frames,
};
