/* The I/O helpers shared by the readers, and the choice between them. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

#include "input/input.h"
#include "one_line.h"
#include "team.h"

#define SCRATCH_SIZE ((size_t)1 << 16)

int input_set_error(InputContext *ctx, int err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ctx->err, sizeof(ctx->err), fmt, ap);
    va_end(ap);
    one_line(ctx->err); /* paths are echoed in the message */
    return err;
}

const char *input_pix_fmt_name(enum VmafPixelFormat fmt)
{
    switch (fmt) {
    case VMAF_PIX_FMT_YUV420P: return "4:2:0";
    case VMAF_PIX_FMT_YUV422P: return "4:2:2";
    case VMAF_PIX_FMT_YUV444P: return "4:4:4";
    case VMAF_PIX_FMT_YUV400P: return "4:0:0";
    default: return "unknown";
    }
}

const char *input_shorten_path(char buf[INPUT_PATH_SHOWN + 1], const char *path)
{
    const size_t n = strlen(path);
    if (n <= INPUT_PATH_SHOWN) {
        memcpy(buf, path, n + 1);
        return buf;
    }
    /* A third for the start, the rest for the end, where the file name is. */
    const size_t head = INPUT_PATH_SHOWN / 3;
    one_line_cut_middle(buf, path, n, head, INPUT_PATH_SHOWN - head - 3);
    return buf;
}

uint64_t input_plane_bytes(enum VmafPixelFormat fmt, unsigned bpc, unsigned w, unsigned h,
                           int plane, unsigned *pw, unsigned *ph)
{
    unsigned ss_x = 0, ss_y = 0;
    switch (fmt) {
    case VMAF_PIX_FMT_YUV420P: ss_x = 1, ss_y = 1; break;
    case VMAF_PIX_FMT_YUV422P: ss_x = 1; break;
    case VMAF_PIX_FMT_YUV444P: break;
    case VMAF_PIX_FMT_YUV400P:
        if (plane)
            goto none;
        break;
    default: goto none;
    }
    unsigned x = w, y = h;
    if (plane) {
        /* Odd luma sizes round chroma up, as the library's pictures do. */
        x = (unsigned)(((uint64_t)w + ss_x) >> ss_x);
        y = (unsigned)(((uint64_t)h + ss_y) >> ss_y);
    }
    if (pw)
        *pw = x;
    if (ph)
        *ph = y;
    /* At most 65536 * 65536 * 2 = 2^33: fits easily in 64 bits. */
    return (uint64_t)x * y * (bpc > 8 ? 2u : 1u);
none:
    if (pw)
        *pw = 0;
    if (ph)
        *ph = 0;
    return 0;
}

bool input_bpc_supported(unsigned bpc)
{
    return bpc == 8 || bpc == 10 || bpc == 12 || bpc == 16;
}

uint64_t input_frame_bytes(enum VmafPixelFormat fmt, unsigned bpc, unsigned w, unsigned h)
{
    uint64_t total = 0;
    for (int p = 0; p < 3; p++)
        total += input_plane_bytes(fmt, bpc, w, h, p, NULL, NULL);
    return total;
}

/* Up to n bytes of what was read ahead; frees the buffer once it is used. */
static size_t take_ahead(InputContext *ctx, uint8_t *buf, size_t n)
{
    const size_t left = ctx->ahead_len - ctx->ahead_pos;
    const size_t k = n < left ? n : left;
    if (k) {
        memcpy(buf, ctx->ahead + ctx->ahead_pos, k);
        ctx->ahead_pos += k;
    }
    if (ctx->ahead && ctx->ahead_pos == ctx->ahead_len) {
        free(ctx->ahead);
        ctx->ahead = NULL;
        ctx->ahead_len = ctx->ahead_pos = 0;
    }
    return k;
}

int input_getc(InputContext *ctx)
{
    uint8_t c;
    if (ctx->ahead && take_ahead(ctx, &c, 1))
        return c;
    return getc(ctx->f);
}

/* Reads exactly n bytes; returns n, or fewer at end of stream, or -errno. */
static int64_t read_bytes(InputContext *ctx, void *buf, size_t n)
{
    size_t got = ctx->ahead ? take_ahead(ctx, buf, n) : 0;
    if (got < n)
        got += fread((uint8_t *)buf + got, 1, n - got, ctx->f);
    ctx->pos += (int64_t)got;
    if (got < n && ferror(ctx->f))
        return errno ? -errno : -EIO;
    return (int64_t)got;
}

/* "FRAME" and its end of line, as most writers send it. */
#define Y4M_FRAME_LINE 6

/* Reads up to n bytes of a pipe into ctx->ahead, into a buffer that grows
 * as they arrive, so that a header promising huge frames costs memory
 * only for the bytes that come. The end of the stream is left for the
 * frame's read to report (the stream stays at its end); a read error is
 * reported now, as that read would. Out of memory ends the read-ahead
 * early, which costs nothing but the overlap. 0 or negative errno. */
static int read_ahead(InputContext *ctx, uint64_t n)
{
    uint8_t *buf = NULL;
    size_t cap = 0, len = 0;
    while (len < n) {
        if (len == cap) {
            const uint64_t want = cap ? (uint64_t)cap * 2 : (uint64_t)1 << 20;
            if (want > SIZE_MAX)
                break;
            const size_t next = (size_t)(want < n ? want : n);
            uint8_t *b = realloc(buf, next);
            if (!b)
                break;
            buf = b;
            cap = next;
        }
        const size_t asked = cap - len;
        const size_t got = fread(buf + len, 1, asked, ctx->f);
        len += got;
        if (got < asked) {
            if (ferror(ctx->f)) {
                const int e = errno ? errno : EIO;
                free(buf);
                return input_set_error(ctx, -e, "read failed (%s, frame 0): %s", ctx->path,
                                       strerror(e));
            }
            break;
        }
    }
    if (!len) {
        free(buf);
        return 0;
    }
    ctx->ahead = buf;
    ctx->ahead_len = len;
    ctx->ahead_pos = 0;
    return 0;
}

static int ensure_scratch(InputContext *ctx)
{
    if (ctx->scratch)
        return 0;
    ctx->scratch = malloc(SCRATCH_SIZE);
    if (!ctx->scratch)
        return -ENOMEM;
    ctx->scratch_size = SCRATCH_SIZE;
    return 0;
}

/* Consumes n bytes (fseeko on regular files, read-and-discard otherwise). */
static int64_t discard_bytes(InputContext *ctx, uint64_t n)
{
    if (ctx->seekable && ctx->file_size >= 0) {
        /* Never seek past the end: report what was really there, like a read. */
        uint64_t left = ctx->pos < ctx->file_size ? (uint64_t)(ctx->file_size - ctx->pos) : 0;
        uint64_t step = n < left ? n : left;
        if (fseeko(ctx->f, (off_t)step, SEEK_CUR) == 0) {
            ctx->pos += (int64_t)step;
            return (int64_t)step;
        }
        /* Fall back to reading if the stream refuses to seek after all. */
    }
    int err = ensure_scratch(ctx);
    if (err)
        return err;
    uint64_t done = 0;
    while (done < n) {
        size_t chunk = n - done < ctx->scratch_size ? (size_t)(n - done) : ctx->scratch_size;
        int64_t got = read_bytes(ctx, ctx->scratch, chunk);
        if (got < 0)
            return got;
        done += (uint64_t)got;
        if ((size_t)got < chunk)
            break;
    }
    return (int64_t)done;
}

static bool host_is_little_endian(void)
{
    const uint16_t one = 1;
    uint8_t b;
    memcpy(&b, &one, 1);
    return b == 1;
}

static void swap16(uint8_t *p, size_t samples)
{
    for (size_t i = 0; i < samples; i++) {
        uint8_t t = p[2 * i];
        p[2 * i] = p[2 * i + 1];
        p[2 * i + 1] = t;
    }
}

/* ---- frames of regular files: positioned reads, shared by a team ----------
 * A preadv(2) of many rows moves a frame faster than a read(2) a row
 * through stdio, and several threads each reading their share of the rows
 * (files in the page cache) several times faster again. */

#define READ_PLANES 3

typedef struct PlaneRead {
    uint8_t *dst;
    ptrdiff_t stride;
    size_t row; /* bytes */
    unsigned rows;
    off_t off; /* in the file, of row 0 */
} PlaneRead;

typedef struct FrameRead {
    int fd;
    PlaneRead plane[READ_PLANES];
    unsigned nplanes;
    size_t total_rows;
    atomic_int err;    /* first errno, 0 if none */
    atomic_bool short_read;
} FrameRead;

/* Rows [lo, hi) of plane p, up to 64 rows (and IOV_MAX) a preadv call. */
static void read_rows(FrameRead *fr, const PlaneRead *p, size_t lo, size_t hi)
{
    struct iovec iov[64];
    const size_t max_iov = sizeof(iov) / sizeof(iov[0]) < IOV_MAX ? sizeof(iov) / sizeof(iov[0])
                                                                    : IOV_MAX;
    size_t y = lo;
    while (y < hi) {
        const size_t n = hi - y < max_iov ? hi - y : max_iov;
        for (size_t i = 0; i < n; i++)
            iov[i] = (struct iovec){p->dst + (ptrdiff_t)(y + i) * p->stride, p->row};
        size_t want = n * p->row, got = 0;
        struct iovec *v = iov;
        int nv = (int)n;
        off_t off = p->off + (off_t)(y * p->row);
        while (got < want) {
            const ssize_t r = preadv(fr->fd, v, nv, off + (off_t)got);
            if (r < 0 && errno == EINTR)
                continue;
            if (r <= 0) {
                if (r < 0) {
                    int none = 0;
                    atomic_compare_exchange_strong(&fr->err, &none, errno ? errno : EIO);
                } else {
                    atomic_store(&fr->short_read, true);
                }
                return;
            }
            got += (size_t)r;
            /* A short transfer (rare on regular files): resume mid-vector. */
            size_t left = (size_t)r;
            while (nv && left >= v->iov_len) {
                left -= v->iov_len;
                v++;
                nv--;
            }
            if (nv) {
                v->iov_base = (uint8_t *)v->iov_base + left;
                v->iov_len -= left;
            }
        }
        y += n;
    }
}

/* Member k of n reads rows [total k / n, total (k + 1) / n) of the planes
 * taken one after the other. */
static void read_member(void *arg, unsigned k, unsigned n)
{
    FrameRead *fr = arg;
    const size_t first = fr->total_rows * k / n, end = fr->total_rows * (k + 1) / n;
    size_t base = 0;
    for (unsigned i = 0; i < fr->nplanes && base < end; base += fr->plane[i].rows, i++) {
        const PlaneRead *p = &fr->plane[i];
        const size_t lo = first > base ? first - base : 0;
        const size_t hi = end - base < p->rows ? end - base : p->rows;
        if (lo < hi)
            read_rows(fr, p, lo, hi);
    }
}

/* The payload of a frame of a regular file that holds all of it, by
 * positioned reads (the stream's position moves past it afterwards).
 * Returns 1 (read), 0 (not taken: the caller reads through stdio) or <0. */
static int read_payload_positioned(InputContext *ctx, VmafPicture *pic, bool with_chroma,
                                   size_t bps, uint64_t frame)
{
    const InputInfo *in = &ctx->info;
    if (!ctx->seekable || ctx->file_size < 0 ||
        (uint64_t)(ctx->file_size - ctx->pos) < in->frame_bytes)
        return 0; /* the stdio path reports a cut-off frame byte for byte */
    const off_t off = ftello(ctx->f);
    if (off < 0 || (int64_t)off != ctx->pos)
        return 0;
    FrameRead fr = {.fd = fileno(ctx->f)};
    atomic_init(&fr.err, 0);
    atomic_init(&fr.short_read, false);
    uint64_t at = (uint64_t)off;
    for (int p = 0; p < READ_PLANES; p++) {
        unsigned pw, ph;
        const uint64_t bytes = input_plane_bytes(in->pix_fmt, in->bpc, in->w, in->h, p, &pw, &ph);
        if (bytes && (p == 0 || with_chroma)) {
            if (!pic->data[p] || pic->w[p] != pw || pic->h[p] != ph)
                return 0; /* the stdio path names the mismatch */
            fr.plane[fr.nplanes++] = (PlaneRead){pic->data[p], pic->stride[p], (size_t)pw * bps,
                                                 ph, (off_t)at};
            fr.total_rows += ph;
        }
        at += bytes;
    }
    vmaf_team_run(ctx->team, read_member, &fr);
    const int err = atomic_load(&fr.err);
    if (err)
        return input_set_error(ctx, -err, "read failed (%s, frame %llu): %s", ctx->path,
                               (unsigned long long)frame, strerror(err));
    if (atomic_load(&fr.short_read))
        return input_set_error(ctx, -EIO,
                               "truncated frame (%s, frame %llu): the file became shorter "
                               "while it was read", ctx->path, (unsigned long long)frame);
    if (fseeko(ctx->f, (off_t)(off + (off_t)in->frame_bytes), SEEK_SET))
        return input_set_error(ctx, -errno, "read failed (%s, frame %llu): %s", ctx->path,
                               (unsigned long long)frame, strerror(errno));
    ctx->pos += (int64_t)in->frame_bytes;
    if (bps == 2 && !host_is_little_endian())
        for (unsigned i = 0; i < fr.nplanes; i++)
            for (unsigned y = 0; y < fr.plane[i].rows; y++)
                swap16(fr.plane[i].dst + (ptrdiff_t)y * fr.plane[i].stride, fr.plane[i].row / 2);
    ctx->frames_read++;
    return 1;
}

static int truncated_frame(InputContext *ctx, uint64_t frame, uint64_t done)
{
    const InputInfo *in = &ctx->info;
    return input_set_error(ctx, -EIO,
                           "truncated frame (%s, frame %llu): it holds %llu of the %llu bytes "
                           "a %ux%u %s %u-bit frame needs; the file is cut short",
                           ctx->path, (unsigned long long)frame, (unsigned long long)done,
                           (unsigned long long)in->frame_bytes, in->w, in->h,
                           input_pix_fmt_name(in->pix_fmt), in->bpc);
}

/* Reads one frame payload laid out as `info`: luma into pic->data[0], chroma
 * into pic->data[1..2] if pic has the source layout, else discarded.
 * `frame` is the 0-based index for messages. Returns 1, or <0 (truncated). */
static int read_payload(InputContext *ctx, VmafPicture *pic, uint64_t frame)
{
    const InputInfo *in = &ctx->info;
    if (!pic || !pic->data[0] || pic->w[0] != in->w || pic->h[0] != in->h || pic->bpc != in->bpc)
        return input_set_error(ctx, -EINVAL,
                               "picture does not match the stream (%s, frame %llu): "
                               "internal error, please report",
                               ctx->path, (unsigned long long)frame);
    const bool with_chroma = pic->pix_fmt == in->pix_fmt && in->pix_fmt != VMAF_PIX_FMT_YUV400P;
    const size_t bps = in->bpc > 8 ? 2 : 1;
    const bool swap = bps == 2 && !host_is_little_endian();
    const int positioned = read_payload_positioned(ctx, pic, with_chroma, bps, frame);
    if (positioned)
        return positioned;
    uint64_t done = 0;
    /* A Y4M stream given raw geometry: a regular file is recognised at
     * open (yuv.c); a pipe by its first bytes, here, since peeking at open
     * would wait for bytes that a writer feeding both inputs may send only
     * after a whole frame of the other one. */
    const bool sniff = !ctx->seekable && ctx->pos == 0 && ctx->module == &input_yuv;

    for (int p = 0; p < 3; p++) {
        unsigned pw, ph;
        const uint64_t bytes = input_plane_bytes(in->pix_fmt, in->bpc, in->w, in->h, p, &pw, &ph);
        if (!bytes)
            continue;
        if (p == 0 || with_chroma) {
            if (!pic->data[p] || pic->w[p] != pw || pic->h[p] != ph)
                return input_set_error(ctx, -EINVAL,
                                       "picture plane %d does not match the stream (%s): "
                                       "internal error, please report", p, ctx->path);
            const size_t row = (size_t)pw * bps;
            uint8_t *dst = pic->data[p];
            for (unsigned y = 0; y < ph; y++, dst += pic->stride[p]) {
                int64_t got = read_bytes(ctx, dst, row);
                if (got < 0)
                    return input_set_error(ctx, (int)got, "read failed (%s, frame %llu): %s",
                                           ctx->path, (unsigned long long)frame,
                                           strerror((int)-got));
                done += (uint64_t)got;
                if (sniff && p == 0 && y == 0 && got >= 10 && !memcmp(dst, "YUV4MPEG2 ", 10))
                    return input_set_error(ctx, -EINVAL, "raw YUV geometry given for a Y4M "
                                           "stream (%s): it starts with the YUV4MPEG2 "
                                           "signature; drop -w -h -p -b", ctx->path);
                if ((size_t)got < row)
                    goto truncated;
                if (swap)
                    swap16(dst, pw);
            }
        } else {
            int64_t got = discard_bytes(ctx, bytes);
            if (got < 0)
                return input_set_error(ctx, (int)got, "read failed (%s, frame %llu): %s",
                                       ctx->path, (unsigned long long)frame,
                                       got == -ENOMEM ? "out of memory" : strerror((int)-got));
            done += (uint64_t)got;
            if ((uint64_t)got < bytes)
                goto truncated;
        }
    }
    ctx->frames_read++;
    return 1;

truncated:
    return truncated_frame(ctx, frame, done);
}

/* The first frame's errors, found at the open from what was read ahead:
 * its marker, when the marker's line lies in the read-ahead, and its cut,
 * when the stream ended before `first` bytes. Found only at the frame's
 * read, they would come after the other input's open, which may wait for
 * ever on a writer that waits for this failed input to be drained; an open
 * that fails is what interrupts the other side. A good marker is left
 * unread. 0 or negative errno. */
static int check_first_frame(InputContext *ctx, uint64_t first)
{
    const bool cut = ctx->ahead_len < first && feof(ctx->f);
    const uint8_t *nl = memchr(ctx->ahead, '\n', ctx->ahead_len);
    if (!cut && (!nl || nl == ctx->ahead + ctx->ahead_len - 1))
        return 0; /* the marker's line goes on past the read-ahead: its read checks it */
    const size_t at = ctx->ahead_pos;
    const int64_t pos = ctx->pos;
    const int r = ctx->module->next_frame(ctx);
    if (r < 0)
        return r;
    if (cut)
        return r ? truncated_frame(ctx, 0, ctx->ahead_len - ctx->ahead_pos) : 0;
    ctx->ahead_pos = at;
    ctx->pos = pos;
    return 0;
}

int input_open_file(InputContext *ctx, FILE *f, const char *path, const InputRawParams *raw)
{
    memset(ctx, 0, sizeof(*ctx));
    ctx->f = f;
    ctx->path = input_shorten_path(ctx->path_shown, path);
    ctx->file_size = -1;
    ctx->info.frame_cnt = -1;
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode)) {
        ctx->seekable = true;
        ctx->file_size = (int64_t)st.st_size;
        off_t here = ftello(f);
        ctx->pos = here > 0 ? (int64_t)here : 0;
    }
#ifdef F_SETPIPE_SZ
    /* A pipe of 1 MiB (the unprivileged maximum by default) instead of 64
     * KiB: fewer switches between the writer (a decoder, say) and this
     * reader, about a third more throughput. Best effort. */
    if (fstat(fileno(f), &st) == 0 && S_ISFIFO(st.st_mode))
        (void)fcntl(fileno(f), F_SETPIPE_SZ, 1 << 20);
#endif
    /* Without raw geometry the stream must be Y4M: its signature, not the
     * file name, decides (the Y4M reader checks it as the first thing it
     * reads, so pipes need no peeking). */
    ctx->module = raw ? &input_yuv : &input_y4m;
    int err = ctx->module->open(ctx, raw);
    /* One program writing both inputs into pipes (ffmpeg with two
     * outputs) may write the header and first frame of one before the
     * header of the other: with the open of each input waiting for its
     * first frame too, the two opens (run side by side) let it go on. A raw
     * stream has no header to wait for, and a regular file no writer. */
    if (err || ctx->seekable || ctx->module != &input_y4m)
        return err;
    const uint64_t first = ctx->info.frame_bytes + Y4M_FRAME_LINE;
    err = read_ahead(ctx, first);
    if (!err && ctx->ahead)
        err = check_first_frame(ctx, first);
    return err;
}

int input_open(InputContext *ctx, const char *path, const char *role,
               const InputRawParams *raw)
{
    /* The shell's <(...) gives /dev/fd/63, and "-" is /dev/stdin: such
     * names say nothing of which input failed, so messages add it. */
    char named[INPUT_PATH_SHOWN + 32];
    const char *shown = path;
    if (role && (!strncmp(path, "/dev/fd/", 8) || !strncmp(path, "/proc/self/fd/", 14) ||
                 !strcmp(path, "/dev/stdin"))) {
        snprintf(named, sizeof(named), "%s %s", role, path);
        shown = named;
    }
    memset(ctx, 0, sizeof(*ctx));
    /* Messages name ctx->path: a long path is shortened there, so that
     * the reason still fits the line. */
    ctx->path = input_shorten_path(ctx->path_shown, shown);
    struct stat st;
    if (stat(path, &st) != 0)
        return input_set_error(ctx, -errno, "cannot open input (%s): %s", ctx->path,
                               strerror(errno));
    if (S_ISDIR(st.st_mode))
        return input_set_error(ctx, -EISDIR, "cannot open input (%s): it is a directory; "
                               "give a .y4m or raw .yuv file", ctx->path);
    FILE *f = fopen(path, "rb");
    if (!f)
        return input_set_error(ctx, -errno, "cannot open input (%s): %s", ctx->path,
                               strerror(errno));
    int err = input_open_file(ctx, f, shown, raw);
    ctx->own_file = true;
    return err;
}

/* Discards one frame payload; returns 1, or <0 (truncated). */
static int skip_payload(InputContext *ctx)
{
    const uint64_t frame = ctx->frames_read;
    int64_t got = discard_bytes(ctx, ctx->info.frame_bytes);
    if (got < 0)
        return input_set_error(ctx, (int)got, "read failed (%s, frame %llu): %s", ctx->path,
                               (unsigned long long)frame, strerror((int)-got));
    if ((uint64_t)got < ctx->info.frame_bytes)
        return input_set_error(ctx, -EIO, "truncated frame (%s, frame %llu): it holds %llu of "
                               "the %llu bytes a frame needs; the file is cut short", ctx->path,
                               (unsigned long long)frame, (unsigned long long)got,
                               (unsigned long long)ctx->info.frame_bytes);
    ctx->frames_read++;
    return 1;
}

int input_read_frame(InputContext *ctx, VmafPicture *pic)
{
    if (!ctx->module || !ctx->f)
        return -EINVAL;
    const int ret = ctx->module->next_frame(ctx);
    if (ret <= 0)
        return ret;
    return read_payload(ctx, pic, ctx->frames_read);
}

int input_skip_frame(InputContext *ctx)
{
    if (!ctx->module || !ctx->f)
        return -EINVAL;
    const int ret = ctx->module->next_frame(ctx);
    if (ret <= 0)
        return ret;
    return skip_payload(ctx);
}

void input_close(InputContext *ctx)
{
    if (!ctx)
        return;
    if (ctx->module && ctx->module->close)
        ctx->module->close(ctx);
    if (ctx->own_file && ctx->f)
        fclose(ctx->f);
    free(ctx->scratch);
    ctx->scratch = NULL;
    free(ctx->ahead);
    ctx->ahead = NULL;
    ctx->ahead_len = ctx->ahead_pos = 0;
    ctx->f = NULL;
    ctx->module = NULL;
}
