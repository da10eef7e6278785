/* YUV4MPEG2 reader.
 *
 * Header: "YUV4MPEG2 " then space-separated tags up to '\n'. W and H are
 * required; C selects the layout (C420jpeg when absent); F is kept for
 * information; every other tag is accepted and ignored. Each frame is a
 * "FRAME" line (optional parameters after a space) followed by the planes,
 * 16-bit samples little-endian. Both lines are bounded so that a stream
 * without newlines cannot make us read forever or allocate. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "input/input.h"

#define Y4M_SIGNATURE "YUV4MPEG2 "
#define Y4M_SIGNATURE_LEN 10
#define Y4M_MAX_HEADER 1024
#define Y4M_MAX_FRAME_LINE 1024

static const struct {
    const char *tag;
    enum VmafPixelFormat fmt;
    unsigned bpc;
} colourspaces[] = {
    { "420jpeg", VMAF_PIX_FMT_YUV420P, 8 },
    { "420paldv", VMAF_PIX_FMT_YUV420P, 8 },
    { "420mpeg2", VMAF_PIX_FMT_YUV420P, 8 },
    { "420", VMAF_PIX_FMT_YUV420P, 8 },
    { "422", VMAF_PIX_FMT_YUV422P, 8 },
    { "444", VMAF_PIX_FMT_YUV444P, 8 },
    { "mono", VMAF_PIX_FMT_YUV400P, 8 },
    { "420p10", VMAF_PIX_FMT_YUV420P, 10 },
    { "422p10", VMAF_PIX_FMT_YUV422P, 10 },
    { "444p10", VMAF_PIX_FMT_YUV444P, 10 },
    { "mono10", VMAF_PIX_FMT_YUV400P, 10 },
    { "monop10", VMAF_PIX_FMT_YUV400P, 10 },
    { "420p12", VMAF_PIX_FMT_YUV420P, 12 },
    { "422p12", VMAF_PIX_FMT_YUV422P, 12 },
    { "444p12", VMAF_PIX_FMT_YUV444P, 12 },
    { "mono12", VMAF_PIX_FMT_YUV400P, 12 },
    { "monop12", VMAF_PIX_FMT_YUV400P, 12 },
    { "420p16", VMAF_PIX_FMT_YUV420P, 16 },
    { "422p16", VMAF_PIX_FMT_YUV422P, 16 },
    { "444p16", VMAF_PIX_FMT_YUV444P, 16 },
    { "mono16", VMAF_PIX_FMT_YUV400P, 16 },
    { "monop16", VMAF_PIX_FMT_YUV400P, 16 },
};

/* Copies up to 40 bytes of s for a message, replacing what a terminal
 * should not see. */
static void printable(char *dst, size_t dst_sz, const char *s, size_t len)
{
    size_t n = 0;
    for (size_t i = 0; i < len && n + 5 < dst_sz && i < 40; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c < 0x7f)
            dst[n++] = (char)c;
        else
            n += (size_t)snprintf(dst + n, dst_sz - n, "\\x%02x", c);
    }
    if (len > 40 && n + 4 < dst_sz) {
        memcpy(dst + n, "...", 3);
        n += 3;
    }
    dst[n] = '\0';
}

enum { LINE_OK, LINE_EOF, LINE_PARTIAL, LINE_TOO_LONG };

/* Reads one line of at most `max` bytes (without its '\n') into buf, always
 * NUL-terminated, its length in *len. Returns LINE_OK; LINE_EOF at end of
 * stream before any byte; LINE_PARTIAL at end of stream inside the line;
 * LINE_TOO_LONG when no '\n' came within max bytes; -errno on read errors. */
static int read_line(InputContext *ctx, char *buf, size_t max, size_t *len)
{
    size_t n = 0;
    for (;;) {
        int c = input_getc(ctx);
        if (c == EOF) {
            buf[n] = '\0';
            *len = n;
            if (ferror(ctx->f))
                return errno ? -errno : -EIO;
            return n ? LINE_PARTIAL : LINE_EOF;
        }
        ctx->pos++;
        if (c == '\n' || n == max) {
            buf[n] = '\0';
            *len = n;
            return c == '\n' ? LINE_OK : LINE_TOO_LONG;
        }
        buf[n++] = (char)c;
    }
}

/* Strict decimal: digits only, no sign, no spaces, value in [1, max]. */
static int parse_dim(const char *s, unsigned max, unsigned *out)
{
    if (!*s)
        return -1;
    uint64_t v = 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            return -1;
        v = v * 10 + (uint64_t)(*s - '0');
        if (v > max)
            return -1;
    }
    if (!v)
        return -1;
    *out = (unsigned)v;
    return 0;
}

/* The compressed format a file's first bytes announce, or NULL: such a
 * file needs decoding, and raw-YUV advice would mislead. */
static const char *compressed_format(const char *b, size_t n)
{
    const unsigned char *u = (const unsigned char *)b;
    if (n >= 8 && (!memcmp(b + 4, "ftyp", 4) || !memcmp(b + 4, "moov", 4) ||
                   !memcmp(b + 4, "mdat", 4)))
        return "an MP4/MOV file";
    if (n >= 4 && u[0] == 0x1a && u[1] == 0x45 && u[2] == 0xdf && u[3] == 0xa3)
        return "a Matroska/WebM file";
    if (n >= 12 && !memcmp(b, "RIFF", 4) && !memcmp(b + 8, "AVI ", 4))
        return "an AVI file";
    if (n >= 4 && !memcmp(b, "DKIF", 4))
        return "an IVF file";
    if (n >= 4 && !memcmp(b, "OggS", 4))
        return "an Ogg file";
    if (n >= 4 && !memcmp(b, "FLV\x01", 4))
        return "an FLV file";
    if (n >= 189 && u[0] == 0x47 && u[188] == 0x47)
        return "an MPEG transport stream";
    return NULL;
}

/* Whether a file starts with an MPEG start code (00 00 01, or 00 00 00 01),
 * as H.264, HEVC and MPEG-1/2 streams do; raw samples can too. */
static bool starts_with_start_code(const char *b, size_t n)
{
    const unsigned char *u = (const unsigned char *)b;
    return n >= 4 && !u[0] && !u[1] && (u[2] == 1 || (!u[2] && u[3] == 1));
}

static int y4m_open(InputContext *ctx, const InputRawParams *raw)
{
    (void)raw;
    char line[Y4M_MAX_HEADER + 1];
    size_t n;
    const int st = read_line(ctx, line, Y4M_MAX_HEADER, &n);
    if (st < 0)
        return input_set_error(ctx, st, "read failed (%s, Y4M header): %s", ctx->path,
                               strerror(-st));
    if (st == LINE_EOF && !ctx->seekable)
        return input_set_error(ctx, -EINVAL, "empty input (%s): the stream ended before its "
                               "first byte; if a program writes it (a decoder), its own error "
                               "says why", ctx->path);
    if (st == LINE_EOF)
        return input_set_error(ctx, -EINVAL, "empty input (%s): the file holds no bytes; "
                               "give a Y4M file, or -w -h -p -b for raw YUV", ctx->path);
    /* "YUV4MPEG2" then a space or the end of the line. */
    const bool y4m = n >= Y4M_SIGNATURE_LEN - 1 &&
                     !memcmp(line, Y4M_SIGNATURE, Y4M_SIGNATURE_LEN - 1) &&
                     (n < Y4M_SIGNATURE_LEN || line[Y4M_SIGNATURE_LEN - 1] == ' ');
    const char *coded = y4m ? NULL : compressed_format(line, n);
    if (coded)
        return input_set_error(ctx, -EINVAL,
                               "not a Y4M file (%s): it is %s, which must be decoded first; "
                               "give <(ffmpeg -nostdin -loglevel error -i FILE -f "
                               "yuv4mpegpipe -) instead (docs/cli.md)", ctx->path, coded);
    if (!y4m && starts_with_start_code(line, n))
        return input_set_error(ctx, -EINVAL,
                               "not a Y4M file (%s): it starts with an MPEG start code, as "
                               "H.264, HEVC and MPEG-2 streams do: decode it first with "
                               "<(ffmpeg -nostdin -loglevel error -i FILE -f yuv4mpegpipe -) "
                               "(docs/cli.md); for raw YUV give -w, -h, -p and -b", ctx->path);
    if (!y4m)
        return input_set_error(ctx, -EINVAL,
                               "not a Y4M file (%s): no \"YUV4MPEG2 \" signature; for raw "
                               "YUV give -w, -h, -p and -b", ctx->path);
    if (st == LINE_TOO_LONG)
        return input_set_error(ctx, -EINVAL, "Y4M header too long (%s): no end of line within "
                               "%d bytes", ctx->path, Y4M_MAX_HEADER);
    if (st == LINE_PARTIAL)
        return input_set_error(ctx, -EINVAL, "truncated Y4M header (%s): the file ends before "
                               "the end of the header line", ctx->path);
    /* Tags may contain NUL bytes in a damaged file; strtok stops there, and
     * what follows is ignored like an unknown tag would be. */
    if (n < Y4M_SIGNATURE_LEN)
        line[n] = '\0';

    InputInfo *in = &ctx->info;
    in->pix_fmt = VMAF_PIX_FMT_YUV420P;
    in->bpc = 8;
    bool have_w = false, have_h = false, have_c = false;
    char *save = NULL;
    for (char *tok = strtok_r(line + (n < Y4M_SIGNATURE_LEN ? n : Y4M_SIGNATURE_LEN), " ", &save); tok;
         tok = strtok_r(NULL, " ", &save)) {
        char shown[200];
        printable(shown, sizeof(shown), tok, strlen(tok));
        switch (tok[0]) {
        case 'W':
        case 'H': {
            unsigned v;
            bool *seen = tok[0] == 'W' ? &have_w : &have_h;
            if (*seen)
                return input_set_error(ctx, -EINVAL, "bad Y4M header (%s, field %c): given "
                                       "twice", ctx->path, tok[0]);
            if (parse_dim(tok + 1, INPUT_MAX_DIM, &v))
                return input_set_error(ctx, -EINVAL, "bad Y4M %s (%s, field \"%s\"): must be "
                                       "a whole number from 1 to %u", tok[0] == 'W' ? "width" :
                                       "height", ctx->path, shown, INPUT_MAX_DIM);
            *(tok[0] == 'W' ? &in->w : &in->h) = v;
            *seen = true;
            break;
        }
        case 'C': {
            if (have_c)
                return input_set_error(ctx, -EINVAL, "bad Y4M header (%s, field C): given "
                                       "twice", ctx->path);
            size_t i;
            for (i = 0; i < sizeof(colourspaces) / sizeof(colourspaces[0]); i++)
                if (!strcmp(tok + 1, colourspaces[i].tag))
                    break;
            if (i == sizeof(colourspaces) / sizeof(colourspaces[0]))
                return input_set_error(ctx, -EINVAL, "unsupported Y4M colourspace (%s, field "
                                       "\"%s\"): use C420jpeg, C420paldv, C420mpeg2, C420, "
                                       "C422, C444 or Cmono, or their p10/p12/p16 forms",
                                       ctx->path, shown);
            in->pix_fmt = colourspaces[i].fmt;
            in->bpc = colourspaces[i].bpc;
            have_c = true;
            break;
        }
        case 'F': {
            unsigned long num, den;
            char *end;
            errno = 0;
            num = strtoul(tok + 1, &end, 10);
            if (*end == ':' && end > tok + 1) {
                const char *d = end + 1;
                den = strtoul(d, &end, 10);
                if (!*end && end > d && !errno && num && den && num <= 0xffffffffUL &&
                    den <= 0xffffffffUL) {
                    in->fps_num = (unsigned)num;
                    in->fps_den = (unsigned)den;
                }
            }
            /* A malformed rate is only information we lose, not an error. */
            break;
        }
        default:
            /* I (interlacing), A (aspect), X (extensions) and unknown tags
             * do not change the samples we read. */
            break;
        }
    }
    if (!have_w || !have_h)
        return input_set_error(ctx, -EINVAL, "bad Y4M header (%s, field %s): missing; the "
                               "header must give the picture size", ctx->path,
                               !have_w ? "W (width)" : "H (height)");
    in->frame_bytes = input_frame_bytes(in->pix_fmt, in->bpc, in->w, in->h);

    if (ctx->file_size >= 0) {
        const uint64_t left = ctx->file_size > ctx->pos ? (uint64_t)(ctx->file_size - ctx->pos) : 0;
        if (!left)
            return input_set_error(ctx, -EINVAL, "no frames (%s): the Y4M file ends after its "
                                   "header", ctx->path);
        /* Checked before anyone allocates a picture: a huge W x H in a small
         * file is refused here, not by running out of memory. */
        if (left < 6 + in->frame_bytes)
            return input_set_error(ctx, -EINVAL, "truncated frame (%s, frame 0): %llu bytes "
                                   "follow the header but one %ux%u %s %u-bit frame needs %llu",
                                   ctx->path, (unsigned long long)left, in->w, in->h,
                                   input_pix_fmt_name(in->pix_fmt), in->bpc,
                                   (unsigned long long)(6 + in->frame_bytes));
        in->frame_cnt = (int64_t)(left / (6 + in->frame_bytes));
    }
    return 0;
}

/* 1: a FRAME line was consumed; 0: clean end of stream; <0: error. */
static int read_marker(InputContext *ctx)
{
    char line[Y4M_MAX_FRAME_LINE + 1];
    const unsigned long long frame = (unsigned long long)ctx->frames_read;
    size_t n;
    const int st = read_line(ctx, line, Y4M_MAX_FRAME_LINE, &n);
    if (st == LINE_EOF)
        return 0;
    if (st < 0)
        return input_set_error(ctx, st, "read failed (%s, frame %llu): %s", ctx->path,
                               frame, strerror(-st));
    char shown[200];
    printable(shown, sizeof(shown), line, n);
    if (n >= 5 && !memcmp(line, "FRAME", 5) && (n == 5 || line[5] == ' ')) {
        if (st == LINE_PARTIAL)
            return input_set_error(ctx, -EIO, "truncated FRAME marker (%s, frame %llu): the "
                                   "file ends inside \"%s\"", ctx->path, frame, shown);
        if (st == LINE_TOO_LONG)
            return input_set_error(ctx, -EINVAL, "bad FRAME line (%s, frame %llu): no end of "
                                   "line within %d bytes", ctx->path, frame,
                                   Y4M_MAX_FRAME_LINE);
        return 1;
    }
    if (st == LINE_PARTIAL && n < 5 && !memcmp(line, "FRAME", n))
        return input_set_error(ctx, -EIO, "truncated FRAME marker (%s, frame %llu): the file "
                               "ends inside \"%s\"", ctx->path, frame, shown);
    if (!n)
        return input_set_error(ctx, -EINVAL, "bad FRAME marker (%s, frame %llu): found an "
                               "empty line where \"FRAME\" must start the frame; the file "
                               "has bytes after its last frame, or its header size is wrong",
                               ctx->path, frame);
    return input_set_error(ctx, -EINVAL, "bad FRAME marker (%s, frame %llu): found \"%s\" "
                           "where \"FRAME\" must start the frame; the file is damaged or its "
                           "header size is wrong", ctx->path, frame, shown);
}

const InputModule input_y4m = {
    .name = "y4m",
    .open = y4m_open,
    .next_frame = read_marker,
};
