/* Unit tests of the vmaf tool's parser and input readers, without the
 * library: pictures are plain buffers described by a VmafPicture. Each
 * stream is read three times: from a regular file (seekable, sizes known:
 * positioned reads) by the calling thread and by a team of threads, and from
 * fmemopen (like a pipe: no fstat, chroma discarded by reading). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "auto_backend.h"
#include "check.h"
#include "cli_parse.h"
#include "input/input.h"
#include "progress.h"
#include "team.h"
#include "threads.h"

static VmafTeam *team; /* four members: the file read by threads */

/* ---- parser ------------------------------------------------------------ */

/* Parses "vmaf" followed by the NULL-terminated arguments; err holds 512 bytes. */
static int vparse(CliSettings *s, char *err, const char *first, va_list ap)
{
    char *argv[64] = { "vmaf" };
    int argc = 1;
    for (const char *a = first; a && argc < 63; a = va_arg(ap, const char *))
        argv[argc++] = (char *)a;
    return cli_parse(argc, argv, s, err, 512);
}

static int parse(CliSettings *s, char *err, const char *first, ...)
{
    va_list ap;
    va_start(ap, first);
    int r = vparse(s, err, first, ap);
    va_end(ap);
    return r;
}

static void expect_usage(const char *needle, const char *first, ...)
{
    CliSettings s;
    char err[512];
    va_list ap;
    va_start(ap, first);
    int r = vparse(&s, err, first, ap);
    va_end(ap);
    CHECK(r == -EINVAL, "args starting %s: got %d, err \"%s\"", first, r, err);
    CHECK(!strncmp(err, "vmaf: ", 6) && strchr(err, '\n') == NULL, "one line: \"%s\"", err);
    CHECK(strstr(err, needle), "\"%s\" not in \"%s\"", needle, err);
    cli_settings_free(&s);
}

static void test_parser(void)
{
    CliSettings s;
    char err[512];
    int r = parse(&s, err, "-r", "a.y4m", "-d", "b.y4m", NULL);
    CHECK(r == 0, "%s", err);
    CHECK(!s.use_yuv && s.model_cnt == 1 && s.model[0].is_default &&
          !strcmp(s.model[0].version, "vmaf_v0.6.1") && !strcmp(s.model[0].name, "vmaf"), "default model");
    CHECK(!strcmp(s.precision_fmt, "%.6f") && s.backend == CLI_BACKEND_AUTO, "defaults");
    CHECK(!s.threads_given && !s.progress, "threads and progress defaults");
    CHECK(s.output_fmt == VMAF_OUTPUT_FORMAT_XML, "xml default");
    cli_settings_free(&s);

    r = parse(&s, err, "--reference=a.yuv", "--distorted", "b.yuv", "-w", "1920", "-h1080", "-p",
              "400", "--bitdepth=10", "-nq", "--feature", "float_ssim=scale=2:enable_lcs=true",
              "--feature", "float_ssim", "--threads", "8", "--subsample", "2", "--frame_cnt", "5",
              "--frame_skip_ref", "1", "--frame_skip_dist", "0", "--cpumask", "0xff", "-o", "-",
              "--json", "--precision", "max", "--backend", "cpu", NULL);
    CHECK(r == 0, "%s", err);
    CHECK(s.use_yuv && s.width == 1920 && s.height == 1080 && s.pix_fmt == VMAF_PIX_FMT_YUV400P &&
          s.bitdepth == 10, "raw geometry");
    CHECK(s.no_prediction && s.quiet && s.model_cnt == 0, "flags");
    CHECK(s.feature_cnt == 2 && !strcmp(s.feature[0].name, "float_ssim") &&
          s.feature[0].opt_cnt == 2 && !strcmp(s.feature[0].opt[0].key, "scale") &&
          !strcmp(s.feature[0].opt[0].val, "2") && !strcmp(s.feature[0].opt[1].key, "enable_lcs") &&
          !strcmp(s.feature[0].opt[1].val, "true") && s.feature[1].opt_cnt == 0, "features");
    CHECK(s.threads == 8 && s.threads_given && s.subsample == 2 && s.frame_cnt == 5 &&
          s.frame_skip_ref == 1 && s.cpumask == 0xff, "numbers");
    CHECK(!strcmp(s.output_path, "-") && s.output_fmt == VMAF_OUTPUT_FORMAT_JSON, "output");
    CHECK(!strcmp(s.precision_fmt, "%.17g") && s.backend == CLI_BACKEND_CPU, "precision/backend");
    cli_settings_free(&s);
    r = parse(&s, err, "-r", "a", "-d", "b", "-n", "--feature", "float_ssim", "--threads", "0",
              "--progress", NULL);
    CHECK(r == 0 && s.threads == 0 && s.threads_given && s.progress, "--threads 0 --progress: %s",
          err);
    cli_settings_free(&s);
    /* The bounds themselves are accepted. */
    r = parse(&s, err, "-r", "a", "-d", "b", "-n", "--feature", "float_ssim", "--threads",
              "1024", NULL);
    CHECK(r == 0 && s.threads == 1024, "--threads 1024: %s", err);
    cli_settings_free(&s);

    r = parse(&s, err, "-r", "a", "-d", "b", "--precision", "9", "-m",
              "version=vmaf_v0.6.1:name=one:disable_clip:float_ssim.scale=2:float_ssim.enable_lcs=true",
              "-m", "path=/x/m.json:enable_transform=true:name=two", "--csv", "-o", "o.csv", NULL);
    CHECK(r == 0, "%s", err);
    CHECK(!strcmp(s.precision_fmt, "%.9f"), "%s", s.precision_fmt);
    CHECK(s.model_cnt == 2 && !strcmp(s.model[0].version, "vmaf_v0.6.1") &&
          !strcmp(s.model[0].name, "one") && s.model[0].flags == VMAF_MODEL_FLAG_DISABLE_CLIP &&
          s.model[0].overload_cnt == 1 && s.model[0].overload[0].opt_cnt == 2 &&
          !strcmp(s.model[0].overload[0].feature, "float_ssim"), "model 1");
    CHECK(!strcmp(s.model[1].path, "/x/m.json") && !strcmp(s.model[1].name, "two") &&
          s.model[1].flags == VMAF_MODEL_FLAG_ENABLE_TRANSFORM, "model 2");
    cli_settings_free(&s);

    CHECK(parse(&s, err, "--help", NULL) == CLI_PARSE_HELP, "help");
    cli_settings_free(&s);
    CHECK(parse(&s, err, "-r", "a", "-v", NULL) == CLI_PARSE_VERSION, "version");
    cli_settings_free(&s);
    CHECK(strstr(cli_usage(), "--frame_skip_dist") && strstr(cli_usage(), "--backend"), "usage");

    expect_usage("not abbreviated", "--th=foosoxe", NULL);
    expect_usage("nothing to compute", "-r", "a", "-d", "b", "-n", NULL);
    expect_usage("did you mean --threads", "-r", "a", "-d", "b", "--thread", "2", NULL);
    expect_usage("unknown option (--frobnicate)", "--frobnicate", NULL);
    expect_usage("unknown option (-x", "-x", NULL);
    expect_usage("missing reference", "-d", "b", NULL);
    expect_usage("missing distorted", "-r", "a", NULL);
    expect_usage("missing value (--threads)", "-r", "a", "-d", "b", "--threads", NULL);
    expect_usage("missing value (-r/--reference)", "-r", NULL);
    expect_usage("must be a whole number from 0 to 1024", "-r", "a", "-d", "b", "--threads", "foosoxe", NULL);
    expect_usage("--threads \"4x\"", "-r", "a", "-d", "b", "--threads", "4x", NULL);
    expect_usage("--threads \"-1\"", "-r", "a", "-d", "b", "--threads", "-1", NULL);
    expect_usage("--threads \"1025\"", "-r", "a", "-d", "b", "--threads", "1025", NULL);
    expect_usage("--threads \" 1\"", "-r", "a", "-d", "b", "--threads", " 1", NULL);
    expect_usage("--threads \"99999999999999999999999\"", "-r", "a", "-d", "b", "--threads", "99999999999999999999999", NULL);
    expect_usage("--frame_skip_ref \"-5\"", "-r", "a", "-d", "b", "--frame_skip_ref", "-5", NULL);
    expect_usage("--frame_cnt \"-1\"", "-r", "a", "-d", "b", "--frame_cnt", "-1", NULL);
    /* The reference tool's spellings: --frame_cnt 0 is every frame, a
     * non-zero --gpumask or --no_cuda keeps work off the GPU, the pre-3.0
     * --skip_ref_frame is --frame_skip_ref, and "vmaf -h" alone is help. */
    r = parse(&s, err, "-r", "a", "-d", "b", "-n", "--feature", "float_ssim", "--frame_cnt", "0",
              "--gpumask", "1", "--skip_ref_frame", "3", NULL);
    CHECK(r == 0 && s.frame_cnt == 0 && s.backend == CLI_BACKEND_CPU && s.frame_skip_ref == 3,
          "reference spellings: %d %s", r, err);
    cli_settings_free(&s);
    r = parse(&s, err, "-r", "a", "-d", "b", "-n", "--feature", "float_ssim", "--gpumask", "0",
              NULL);
    CHECK(r == 0 && s.backend == CLI_BACKEND_AUTO, "--gpumask 0 leaves auto: %d %s", r, err);
    cli_settings_free(&s);
    r = parse(&s, err, "-r", "a", "-d", "b", "-n", "--feature", "float_ssim", "--no_cuda", NULL);
    CHECK(r == 0 && s.backend == CLI_BACKEND_CPU, "--no_cuda: %d %s", r, err);
    cli_settings_free(&s);
    CHECK(parse(&s, err, "-h", NULL) == CLI_PARSE_HELP, "-h alone");
    cli_settings_free(&s);
    expect_usage("missing value (-h/--height)", "-r", "a", "-d", "b", "-h", NULL);
    expect_usage("--gpumask 1 and --backend cuda", "-r", "a", "-d", "b", "-n", "--feature",
                 "float_ssim", "--gpumask", "1", "--backend", "cuda", NULL);
    expect_usage("--no_cuda and --backend cuda", "-r", "a", "-d", "b", "--backend", "cuda",
                 "--no_cuda", NULL);
    expect_usage("--no_cuda and --backend cuda", "-r", "a", "-d", "b", "--no_cuda", "--backend",
                 "cuda", NULL);
    r = parse(&s, err, "-r", "a", "-d", "b", "-n", "--feature", "float_ssim", "--no_cuda",
              "--backend", "cpu", NULL);
    CHECK(r == 0 && s.backend == CLI_BACKEND_CPU, "--no_cuda --backend cpu: %d %s", r, err);
    cli_settings_free(&s);
    expect_usage("--feature float_ssim, and one --feature for each name", "-r", "a", "-d", "b",
                 "-n", "--feature", "name=float_ssim|name=psnr", NULL);
    expect_usage("not supported (--aom_ctc v3.0): this version adds CAMBI", "-r", "a", "-d",
                 "b", "--aom_ctc", "v3.0", NULL);
    expect_usage("not supported (--aom_ctc proposed)", "-r", "a", "-d", "b", "--aom_ctc",
                 "proposed", NULL);
    expect_usage("unknown version", "-r", "a", "-d", "b", "--aom_ctc", "v9", NULL);
    expect_usage("not supported (--nflx_ctc v1.0): the preset needs CAMBI", "-r", "a", "-d",
                 "b", "--nflx_ctc", "v1.0", NULL);
    r = parse(&s, err, "-r", "a", "-d", "b", "--aom_ctc", "v2.0", NULL);
    CHECK(r == 0 && s.model_cnt == 2 && s.feature_cnt == 5 &&
              !strcmp(s.model[1].name, "vmaf_neg") && !strcmp(s.feature[4].name, "psnr_hvs"),
          "--aom_ctc v2.0: %d %s", r, err);
    cli_settings_free(&s);
    expect_usage("accepts -c and ignores it", "-r", "a", "-d", "b", "-c", "1", NULL);
    expect_usage("here the name comes first: --feature float_ssim=enable_lcs=true", "-r", "a",
                 "-d", "b", "-n", "--feature", "name=float_ssim:enable_lcs=true", NULL);
    expect_usage("-w/--width \"0\"", "-r", "a", "-d", "b", "-w", "0", "-h", "2", "-p", "420", "-b", "8", NULL);
    expect_usage("-w/--width \"65537\"", "-r", "a", "-d", "b", "-w", "65537", NULL);
    expect_usage("-h/--height \"-8\"", "-r", "a", "-d", "b", "-h", "-8", NULL);
    expect_usage("8, 10, 12 or 16", "-r", "a", "-d", "b", "-b", "9", NULL);
    expect_usage("420, 422, 444 or 400", "-r", "a", "-d", "b", "-p", "411", NULL);
    expect_usage("missing -h -p -b", "-r", "a", "-d", "b", "-w", "64", NULL);
    expect_usage("auto, cpu or cuda", "-r", "a", "-d", "b", "--backend", "gpu", NULL);
    expect_usage("legacy, max or a whole number from 1 to 17", "-r", "a", "-d", "b", "--precision", "18", NULL);
    expect_usage("add -o PATH", "-r", "a", "-d", "b", "--json", NULL);
    expect_usage("two report formats", "-r", "a", "-d", "b", "--json", "--xml", "-o", "x", NULL);
    expect_usage("given twice", "-r", "a", "-r", "b", NULL);
    expect_usage("takes none", "-r", "a", "-d", "b", "--json=1", NULL);
    expect_usage("unexpected argument", "-r", "a", "-d", "b", "stray", NULL);
    expect_usage("bad feature option", "-r", "a", "-d", "b", "--feature", "float_ssim=scale", NULL);
    expect_usage("nothing after '='", "-r", "a", "-d", "b", "--feature", "float_ssim=", NULL);
    expect_usage("bad feature option", "-r", "a", "-d", "b", "--feature", "float_ssim=scale=2:", NULL);
    expect_usage("bad feature option", "-r", "a", "-d", "b", "--feature", "float_ssim=scale=2::x=1", NULL);
    expect_usage("bad feature name", "-r", "a", "-d", "b", "--feature", "", NULL);
    expect_usage("bad feature name", "-r", "a", "-d", "b", "--feature", "a b", NULL);
    expect_usage("given twice", "-r", "a", "-d", "b", "--feature", "float_ssim=scale=1:scale=2", NULL);
    expect_usage("exactly one of version=NAME and path=FILE", "-r", "a", "-d", "b", "-m", "name=x", NULL);
    expect_usage("exactly one of version=NAME and path=FILE", "-r", "a", "-d", "b", "-m", "version=a:path=b", NULL);
    expect_usage("unknown model option", "-r", "a", "-d", "b", "-m", "version=a:bogus", NULL);
    expect_usage("disable_clip=false", "-r", "a", "-d", "b", "-m", "version=a:disable_clip=yes", NULL);
    expect_usage("FEATURE.OPTION=VALUE", "-r", "a", "-d", "b", "-m", "version=a:float_ssim.scale", NULL);
    expect_usage("empty model", "-r", "a", "-d", "b", "-m", "", NULL);
    expect_usage("two models named \"vmaf\"", "-r", "a", "-d", "b", "-m", "version=a", "-m", "version=b", NULL);
    expect_usage("empty path", "-r", "", "-d", "b", NULL);
    /* -n -m alone would extract features that nothing shows. */
    expect_usage("nothing to show", "-r", "a", "-d", "b", "-n", "-m", "version=a", NULL);
    {
        char *ok[] = { "vmaf", "-r", "a", "-d", "b", "-n", "-m", "version=a", "-o", "r.xml" };
        char e[256];
        CHECK(cli_parse(10, ok, &s, e, sizeof(e)) == CLI_PARSE_OK, "-n -m with -o: %s", e);
        cli_settings_free(&s);
    }
    /* A model name an XML report cannot carry, refused before any frame. */
    expect_usage("cannot name a score in an XML report", "-r", "a", "-d", "b", "-m",
                 "version=a:name=a b", "-o", "r.xml", NULL);
    expect_usage("cannot name a score in an XML report", "-r", "a", "-d", "b", "-m",
                 "version=a:name=9lives", "-o", "r.xml", "--xml", NULL);
    /* <frame> has frameNum already; letters beyond ASCII are the library's
     * to judge, which it does only after the last frame. */
    expect_usage("not be frameNum", "-r", "a", "-d", "b", "-m", "version=a:name=frameNum", "-o",
                 "r.xml", NULL);
    expect_usage("ASCII letters", "-r", "a", "-d", "b", "-m", "version=a:name=\xe2\x80\x94x",
                 "-o", "r.xml", NULL);
    {
        char *ok[] = { "vmaf", "-r", "a", "-d", "b", "-m", "version=a:name=a b", "-o", "r.json",
                       "--json" };
        char e[256];
        CHECK(cli_parse(10, ok, &s, e, sizeof(e)) == CLI_PARSE_OK,
              "any model name in a JSON report: %s", e);
        cli_settings_free(&s);
    }

    /* The error buffer is optional and truncation is harmless. */
    char small[8];
    char *argv[] = { "vmaf", "--nope" };
    CHECK(cli_parse(2, argv, &s, small, sizeof(small)) == -EINVAL && strlen(small) < 8, "small");
    cli_settings_free(&s);
    CHECK(cli_parse(2, argv, &s, NULL, 0) == -EINVAL, "no err buffer");
    cli_settings_free(&s);
    uint64_t v;
    CHECK(cli_parse_u64("18446744073709551615", 0, UINT64_MAX, false, &v) == 0 && v == UINT64_MAX, "u64 max");
    CHECK(cli_parse_u64("18446744073709551616", 0, UINT64_MAX, false, &v) == -1, "u64 overflow");
    CHECK(cli_parse_u64("0x", 0, 10, true, &v) == -1 && cli_parse_u64("+1", 0, 10, true, &v) == -1, "junk");
}

/* ---- readers ----------------------------------------------------------- */

typedef struct Buf {
    unsigned char *p;
    size_t n, cap;
} Buf;

static void put(Buf *b, const void *p, size_t n)
{
    if (b->n + n > b->cap) {
        b->cap = (b->n + n) * 2 + 64;
        b->p = realloc(b->p, b->cap);
        if (!b->p)
            abort();
    }
    memcpy(b->p + b->n, p, n);
    b->n += n;
}

static void puts_(Buf *b, const char *s)
{
    put(b, s, strlen(s));
}

/* Sample value of plane p at (x, y) of frame f, masked to bpc bits. */
static unsigned sample(int f, int p, unsigned x, unsigned y, unsigned bpc)
{
    return (unsigned)(f * 131 + p * 71 + x * 7 + y * 13 + (x * y) % 5) & ((1u << bpc) - 1);
}

static void put_frame(Buf *b, enum VmafPixelFormat fmt, unsigned bpc, unsigned w, unsigned h, int f)
{
    for (int p = 0; p < 3; p++) {
        unsigned pw, ph;
        if (!input_plane_bytes(fmt, bpc, w, h, p, &pw, &ph))
            continue;
        for (unsigned y = 0; y < ph; y++)
            for (unsigned x = 0; x < pw; x++) {
                unsigned v = sample(f, p, x, y, bpc);
                unsigned char le[2] = { (unsigned char)(v & 0xff), (unsigned char)(v >> 8) };
                put(b, le, bpc > 8 ? 2 : 1);
            }
    }
}

typedef struct Pic {
    VmafPicture pic;
    unsigned char *mem;
} Pic;

static void pic_alloc(Pic *p, enum VmafPixelFormat fmt, unsigned bpc, unsigned w, unsigned h)
{
    memset(p, 0, sizeof(*p));
    const size_t bps = bpc > 8 ? 2 : 1;
    size_t total = 0, off[3];
    for (int i = 0; i < 3; i++) {
        input_plane_bytes(fmt, bpc, w, h, i, &p->pic.w[i], &p->pic.h[i]);
        p->pic.stride[i] = (ptrdiff_t)(p->pic.w[i] * bps + 6); /* padded on purpose */
        off[i] = total;
        total += (size_t)p->pic.stride[i] * p->pic.h[i];
    }
    p->mem = calloc(1, total);
    for (int i = 0; i < 3; i++)
        p->pic.data[i] = p->pic.w[i] ? p->mem + off[i] : NULL;
    p->pic.pix_fmt = fmt;
    p->pic.bpc = bpc;
}

static int check_pic(const Pic *p, int f, int planes)
{
    const unsigned bpc = p->pic.bpc;
    for (int i = 0; i < planes; i++)
        for (unsigned y = 0; y < p->pic.h[i]; y++)
            for (unsigned x = 0; x < p->pic.w[i]; x++) {
                const unsigned char *row = (const unsigned char *)p->pic.data[i] + y * p->pic.stride[i];
                unsigned v = bpc > 8 ? ((const uint16_t *)row)[x] : row[x];
                if (v != sample(f, i, x, y, bpc))
                    return 0;
            }
    return 1;
}

/* Opens the bytes as a regular file (mode 0) or a memory stream (mode 1). */
static int open_buf(InputContext *in, const Buf *b, int mode, const InputRawParams *raw,
                    FILE **fp, char *path)
{
    if (mode == 0) {
        strcpy(path, "/tmp/vmaf_cli_unit_XXXXXX");
        int fd = mkstemp(path);
        if (fd < 0 || (b->n && write(fd, b->p, b->n) != (ssize_t)b->n))
            abort();
        close(fd);
        *fp = NULL;
        return input_open(in, path, NULL, raw);
    }
    strcpy(path, "<memory>");
    /* fmemopen cannot open an empty buffer for reading on every libc. */
    static unsigned char dummy;
    *fp = fmemopen(b->n ? b->p : &dummy, b->n ? b->n : 1, "rb");
    if (!*fp)
        abort();
    if (!b->n)
        fgetc(*fp);
    return input_open_file(in, *fp, path, raw);
}

static void close_buf(InputContext *in, FILE *fp, const char *path)
{
    input_close(in);
    if (fp)
        fclose(fp);
    else
        unlink(path);
}

/* Reads every frame of a stream; checks geometry and samples. */
static void read_all(const Buf *b, const InputRawParams *raw, enum VmafPixelFormat fmt,
                     unsigned bpc, unsigned w, unsigned h, int frames, const char *what)
{
    for (int mode = 0; mode < 3; mode++) {
        for (int chroma = 0; chroma < 2; chroma++) {
            InputContext in;
            FILE *fp;
            char path[64];
            /* mode 2: the regular file again, its rows read by the team */
            int r = open_buf(&in, b, mode == 2 ? 0 : mode, raw, &fp, path);
            CHECK(r == 0, "%s mode %d: open: %s", what, mode, in.err);
            if (r) {
                close_buf(&in, fp, path);
                continue;
            }
            if (mode == 2)
                in.team = team;
            CHECK(in.info.w == w && in.info.h == h && in.info.pix_fmt == fmt && in.info.bpc == bpc,
                  "%s: info %ux%u fmt %d bpc %u", what, in.info.w, in.info.h, in.info.pix_fmt,
                  in.info.bpc);
            if (mode != 1 && raw)
                CHECK(in.info.frame_cnt == frames, "%s: frame_cnt %lld", what, (long long)in.info.frame_cnt);
            Pic p;
            pic_alloc(&p, chroma ? fmt : VMAF_PIX_FMT_YUV400P, bpc, w, h);
            int f;
            for (f = 0;; f++) {
                r = input_read_frame(&in, &p.pic);
                if (r != 1)
                    break;
                CHECK(check_pic(&p, f, chroma && fmt != VMAF_PIX_FMT_YUV400P ? 3 : 1),
                      "%s mode %d chroma %d: frame %d samples", what, mode, chroma, f);
            }
            CHECK(r == 0 && f == frames, "%s mode %d: r %d after %d frames (%s)", what, mode, r, f, in.err);
            free(p.mem);
            close_buf(&in, fp, path);
        }
    }
}

/* Expects an error at open (at_frame < 0) or when reading frame at_frame. */
/* Set for damage that only a regular file reveals at open (a stream simply
 * ends, or ends short). */
static int only_file;

static void expect_error(const Buf *b, const InputRawParams *raw, int at_frame, const char *needle,
                         const char *what)
{
    for (int mode = 0; mode < 2 - only_file; mode++) {
        InputContext in;
        FILE *fp;
        char path[64];
        int r = open_buf(&in, b, mode, raw, &fp, path);
        if (at_frame < 0 || r) {
            /* Size checks need a regular file; a stream finds out later. */
            if (r || mode == 0) {
                CHECK(r < 0, "%s mode %d: open should fail", what, mode);
                CHECK(strstr(in.err, needle) && strstr(in.err, path),
                      "%s mode %d: \"%s\" missing in \"%s\"", what, mode, needle, in.err);
                close_buf(&in, fp, path);
                continue;
            }
        }
        Pic p;
        pic_alloc(&p, VMAF_PIX_FMT_YUV400P, in.info.bpc, in.info.w, in.info.h);
        int f = 0;
        for (;; f++) {
            r = input_read_frame(&in, &p.pic);
            if (r != 1)
                break;
        }
        CHECK(r < 0 && (at_frame < 0 || f == at_frame), "%s mode %d: r %d at frame %d", what, mode, r, f);
        CHECK(strstr(in.err, needle), "%s mode %d: \"%s\" missing in \"%s\"", what, mode, needle,
              in.err);
        free(p.mem);
        close_buf(&in, fp, path);
    }
}

/* Skipping works on files and streams alike: b holds four 5x3 4:2:0
 * 10-bit frames. */
static void check_skip(const Buf *b, const InputRawParams *raw, const char *what)
{
    for (int mode = 0; mode < 2; mode++) {
        InputContext in;
        FILE *fp;
        char path[64];
        CHECK(open_buf(&in, b, mode, raw, &fp, path) == 0, "%s mode %d: open: %s", what, mode,
              in.err);
        Pic p;
        pic_alloc(&p, VMAF_PIX_FMT_YUV400P, 10, 5, 3);
        CHECK(input_skip_frame(&in) == 1 && input_skip_frame(&in) == 1, "%s mode %d: skip", what,
              mode);
        CHECK(input_read_frame(&in, &p.pic) == 1 && check_pic(&p, 2, 1),
              "%s mode %d: frame 2 after skip", what, mode);
        CHECK(input_skip_frame(&in) == 1 && input_skip_frame(&in) == 0,
              "%s mode %d: skip to end", what, mode);
        free(p.mem);
        close_buf(&in, fp, path);
    }
}

static void y4m_stream(Buf *b, const char *header, enum VmafPixelFormat fmt, unsigned bpc,
                       unsigned w, unsigned h, int frames, const char *frame_line)
{
    b->n = 0;
    puts_(b, header);
    for (int f = 0; f < frames; f++) {
        puts_(b, frame_line);
        put_frame(b, fmt, bpc, w, h, f);
    }
}

static void test_y4m(void)
{
    static const struct {
        const char *tag;
        enum VmafPixelFormat fmt;
        unsigned bpc;
    } cs[] = {
        { "", VMAF_PIX_FMT_YUV420P, 8 },
        { " C420jpeg", VMAF_PIX_FMT_YUV420P, 8 },
        { " C420paldv", VMAF_PIX_FMT_YUV420P, 8 },
        { " C420mpeg2", VMAF_PIX_FMT_YUV420P, 8 },
        { " C420", VMAF_PIX_FMT_YUV420P, 8 },
        { " C422", VMAF_PIX_FMT_YUV422P, 8 },
        { " C444", VMAF_PIX_FMT_YUV444P, 8 },
        { " Cmono", VMAF_PIX_FMT_YUV400P, 8 },
        { " C420p10", VMAF_PIX_FMT_YUV420P, 10 },
        { " C422p12", VMAF_PIX_FMT_YUV422P, 12 },
        { " C444p16", VMAF_PIX_FMT_YUV444P, 16 },
        { " C420p16", VMAF_PIX_FMT_YUV420P, 16 },
        { " C422p10", VMAF_PIX_FMT_YUV422P, 10 },
        { " C444p12", VMAF_PIX_FMT_YUV444P, 12 },
        { " C420p12", VMAF_PIX_FMT_YUV420P, 12 },
        { " C422p16", VMAF_PIX_FMT_YUV422P, 16 },
        { " C444p10", VMAF_PIX_FMT_YUV444P, 10 },
        { " Cmono10", VMAF_PIX_FMT_YUV400P, 10 },
        { " Cmono12", VMAF_PIX_FMT_YUV400P, 12 },
        { " Cmono16", VMAF_PIX_FMT_YUV400P, 16 },
    };
    static const unsigned sizes[][2] = { { 16, 8 }, { 15, 9 }, { 1, 1 }, { 3, 2 } };
    Buf b = { 0 };
    char hdr[200], what[200];
    for (size_t i = 0; i < sizeof(cs) / sizeof(cs[0]); i++)
        for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
            const unsigned w = sizes[k][0], h = sizes[k][1];
            snprintf(hdr, sizeof(hdr), "YUV4MPEG2 W%u H%u F30000:1001 Ip A1:1%s XYSCSS=foo\n", w, h,
                     cs[i].tag);
            y4m_stream(&b, hdr, cs[i].fmt, cs[i].bpc, w, h, 3, k & 1 ? "FRAME Ixyz\n" : "FRAME\n");
            snprintf(what, sizeof(what), "y4m%s %ux%u", cs[i].tag, w, h);
            read_all(&b, NULL, cs[i].fmt, cs[i].bpc, w, h, 3, what);
        }

    /* Tag order and repeated spaces do not matter. */
    y4m_stream(&b, "YUV4MPEG2  C444  H4 W6 \n", VMAF_PIX_FMT_YUV444P, 8, 6, 4, 2, "FRAME\n");
    read_all(&b, NULL, VMAF_PIX_FMT_YUV444P, 8, 6, 4, 2, "tag order");

    const char *good = "YUV4MPEG2 W4 H4 C420\n";
    b.n = 0;
    expect_error(&b, NULL, -1, "empty input", "empty");
    puts_(&b, "RIFF....WAVE");
    expect_error(&b, NULL, -1, "no \"YUV4MPEG2 \" signature", "no signature");
    b.n = 0;
    puts_(&b, "YUV4MPEG2W4 H4\nFRAME\n");
    expect_error(&b, NULL, -1, "signature", "glued signature");
    /* Header damage is refused at open, whatever payload follows. */
    static const struct {
        const char *header, *needle, *what;
    } bad_header[] = {
        { "YUV4MPEG2 W-8 H4 C422\n", "field \"W-8\"", "negative width" },
        { "YUV4MPEG2 W0 H4\n", "1 to 65536", "zero width" },
        { "YUV4MPEG2 W4 H65537\n", "1 to 65536", "huge height" },
        { "YUV4MPEG2 W4 H99999999999999999999999\n", "1 to 65536", "overflowing height" },
        { "YUV4MPEG2 W4x H4\n", "W4x", "junk width" },
        { "YUV4MPEG2 W4 H4 W4\n", "twice", "twice" },
        { "YUV4MPEG2 W4 C420\n", "H (height)", "no height" },
        { "YUV4MPEG2 W8 H4 C411\n", "unsupported Y4M colourspace", "411" },
        { "YUV4MPEG2 W8 H4 C444alpha\n", "C444alpha", "444alpha" },
        { "YUV4MPEG2 W8 H4 C420p9\n", "C420p9", "p9" },
    };
    for (size_t i = 0; i < sizeof(bad_header) / sizeof(bad_header[0]); i++) {
        y4m_stream(&b, bad_header[i].header, VMAF_PIX_FMT_YUV444P, 8, 8, 4, 1, "FRAME\n");
        expect_error(&b, NULL, -1, bad_header[i].needle, bad_header[i].what);
    }
    b.n = 0;
    puts_(&b, "YUV4MPEG2 W8 H4 X");
    for (int i = 0; i < 2000; i++)
        puts_(&b, "a");
    expect_error(&b, NULL, -1, "header too long", "long header");
    b.n = 0;
    puts_(&b, "YUV4MPEG2 W8 H4");
    expect_error(&b, NULL, -1, "truncated Y4M header", "header without newline");
    b.n = 0;
    puts_(&b, good);
    only_file = 1;
    expect_error(&b, NULL, -1, "no frames", "header only");
    only_file = 0;

    /* Frame-level damage, found while reading: both as files and streams. */
    y4m_stream(&b, good, VMAF_PIX_FMT_YUV420P, 8, 4, 4, 2, "FRAME\n");
    b.n -= 1;
    expect_error(&b, NULL, 1, "truncated frame (", "truncated last frame");
    y4m_stream(&b, good, VMAF_PIX_FMT_YUV420P, 8, 4, 4, 2, "FRAME\n");
    puts_(&b, "FRA");
    expect_error(&b, NULL, 2, "truncated FRAME marker", "partial marker");
    y4m_stream(&b, good, VMAF_PIX_FMT_YUV420P, 8, 4, 4, 2, "FRAME\n");
    puts_(&b, "FRAME");
    expect_error(&b, NULL, 2, "truncated FRAME marker", "marker without newline");
    y4m_stream(&b, good, VMAF_PIX_FMT_YUV420P, 8, 4, 4, 2, "FRAME\n");
    puts_(&b, "FRAME\n");
    expect_error(&b, NULL, 2, "truncated frame (", "marker without payload");
    y4m_stream(&b, good, VMAF_PIX_FMT_YUV420P, 8, 4, 4, 2, "FRAME\n");
    b.p[strlen(good) + 6 + 24 + 1] = 'X'; /* second marker: "FXAME" */
    expect_error(&b, NULL, 1, "bad FRAME marker", "garbled marker");
    y4m_stream(&b, good, VMAF_PIX_FMT_YUV420P, 8, 4, 4, 2, "FRAMES\n");
    expect_error(&b, NULL, 0, "bad FRAME marker", "FRAMES");
    y4m_stream(&b, good, VMAF_PIX_FMT_YUV420P, 8, 4, 4, 3, "FRAME\n");
    put(&b, "\0\0\0", 3);
    expect_error(&b, NULL, 3, "bad FRAME marker", "trailing junk");

    y4m_stream(&b, "YUV4MPEG2 W5 H3 C420p10\n", VMAF_PIX_FMT_YUV420P, 10, 5, 3, 4, "FRAME\n");
    check_skip(&b, NULL, "y4m");
    /* A skipped frame cut short is reported like a read one. */
    b.n -= 1;
    {
        InputContext in;
        FILE *fp;
        char path[64];
        CHECK(open_buf(&in, &b, 1, NULL, &fp, path) == 0, "open: %s", in.err);
        for (int f = 0; f < 3; f++)
            CHECK(input_skip_frame(&in) == 1, "skip frame %d: %s", f, in.err);
        CHECK(input_skip_frame(&in) == -EIO && strstr(in.err, "truncated frame (<memory>, frame 3)"),
              "truncated skip: %s", in.err);
        close_buf(&in, fp, path);
    }
    free(b.p);
}

static void test_yuv(void)
{
    Buf b = { 0 };
    static const enum VmafPixelFormat fmts[] = { VMAF_PIX_FMT_YUV420P, VMAF_PIX_FMT_YUV422P,
                                                 VMAF_PIX_FMT_YUV444P, VMAF_PIX_FMT_YUV400P };
    static const unsigned bpcs[] = { 8, 10, 12, 16 };
    /* 301x517: each of the team's members reads several batches of rows */
    static const unsigned sizes[][2] = { { 16, 8 }, { 7, 5 }, { 1, 1 }, { 301, 517 } };
    char what[100];
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            for (int k = 0; k < 4; k++) {
                const unsigned w = sizes[k][0], h = sizes[k][1];
                b.n = 0;
                for (int f = 0; f < 3; f++)
                    put_frame(&b, fmts[i], bpcs[j], w, h, f);
                InputRawParams raw = { w, h, fmts[i], bpcs[j] };
                snprintf(what, sizeof(what), "yuv fmt %d bpc %u %ux%u", fmts[i], bpcs[j], w, h);
                read_all(&b, &raw, fmts[i], bpcs[j], w, h, 3, what);
            }
    InputRawParams raw = { 4, 4, VMAF_PIX_FMT_YUV420P, 8 };
    b.n = 0;
    only_file = 1;
    expect_error(&b, &raw, -1, "empty input", "empty raw");
    put_frame(&b, VMAF_PIX_FMT_YUV420P, 8, 4, 4, 0);
    put_frame(&b, VMAF_PIX_FMT_YUV420P, 8, 4, 4, 1);
    b.n -= 5;
    expect_error(&b, &raw, 1, "not a whole number of frames", "partial raw");
    only_file = 0;
    /* As a stream the same damage is a truncated frame. */
    {
        InputContext in;
        FILE *fp;
        char path[64];
        CHECK(open_buf(&in, &b, 1, &raw, &fp, path) == 0, "stream open");
        Pic p;
        pic_alloc(&p, VMAF_PIX_FMT_YUV400P, 8, 4, 4);
        CHECK(input_read_frame(&in, &p.pic) == 1, "first frame");
        CHECK(input_read_frame(&in, &p.pic) < 0 && strstr(in.err, "truncated frame (<memory>, frame 1)"),
              "%s", in.err);
        free(p.mem);
        close_buf(&in, fp, path);
    }
    InputRawParams bad[] = { { 0, 4, VMAF_PIX_FMT_YUV420P, 8 }, { 4, 65537, VMAF_PIX_FMT_YUV420P, 8 },
                             { 4, 4, VMAF_PIX_FMT_UNKNOWN, 8 }, { 4, 4, VMAF_PIX_FMT_YUV420P, 9 } };
    for (int i = 0; i < 4; i++)
        expect_error(&b, &bad[i], -1, "bad raw YUV", "bad geometry");
    b.n = 0;
    for (int f = 0; f < 4; f++)
        put_frame(&b, VMAF_PIX_FMT_YUV420P, 10, 5, 3, f);
    raw = (InputRawParams){ 5, 3, VMAF_PIX_FMT_YUV420P, 10 };
    check_skip(&b, &raw, "yuv");
    /* A picture that does not match the stream is refused, not overrun. */
    {
        InputContext in;
        FILE *fp;
        char path[64];
        CHECK(open_buf(&in, &b, 0, &raw, &fp, path) == 0, "open");
        Pic p;
        pic_alloc(&p, VMAF_PIX_FMT_YUV400P, 10, 4, 3);
        CHECK(input_read_frame(&in, &p.pic) == -EINVAL, "mismatched picture");
        free(p.mem);
        close_buf(&in, fp, path);
    }
    free(b.p);
}

/* Long paths are cut in their middle so that messages keep the reason. */
/* ---- progress lines and the default thread count ------------------------ */

static void test_progress(void)
{
    char buf[128];
    progress_format(buf, sizeof(buf), 120, 300, 2.0);
    CHECK(!strcmp(buf, "frame 120/300, 60.0 fps, ETA 0:03"), "%s", buf);
    progress_format(buf, sizeof(buf), 120, -1, 2.0);
    CHECK(!strcmp(buf, "frame 120, 60.0 fps"), "%s", buf);
    progress_format(buf, sizeof(buf), 1, 100000, 1.0);
    CHECK(!strcmp(buf, "frame 1/100000, 1.0 fps, ETA 1666:39"), "%s", buf);
    progress_format(buf, sizeof(buf), 0, 10, 0.0);
    CHECK(!strcmp(buf, "frame 0/10, 0.0 fps, ETA 0:00"), "%s", buf);
    progress_format_closing(buf, sizeof(buf), 240, 3.2085);
    CHECK(!strcmp(buf, "240 frames in 3.21 s (74.8 fps)"), "%s", buf);
    progress_format_closing(buf, sizeof(buf), 1, 0.5);
    CHECK(!strcmp(buf, "1 frame in 0.50 s (2.0 fps)"), "%s", buf);
    progress_format_closing(buf, sizeof(buf), 3, 0.0);
    CHECK(!strcmp(buf, "3 frames in 0.00 s (0.0 fps)"), "%s", buf);
    /* Terminal or not, -q, --progress. */
    CHECK(progress_mode(true, false, false) == PROGRESS_IN_PLACE, "terminal");
    CHECK(progress_mode(true, true, false) == PROGRESS_OFF, "terminal -q");
    CHECK(progress_mode(true, true, true) == PROGRESS_IN_PLACE, "terminal -q --progress");
    CHECK(progress_mode(false, false, false) == PROGRESS_OFF, "log");
    CHECK(progress_mode(false, false, true) == PROGRESS_LOG, "log --progress");
    CHECK(progress_mode(false, true, true) == PROGRESS_LOG, "log -q --progress");
}

static void test_default_threads(void)
{
    CHECK(threads_default(8, 1920, 1080, 8) == 8, "1080p: one per CPU");
    CHECK(threads_default(2000, 32, 24, 8) == 1024, "at most 1024");
    /* 4K 16-bit: 33 MB a pair; (32 - 2) / 3 workers fit 1 GiB. */
    CHECK(threads_default(64, 3840, 2160, 16) == 10, "%u", threads_default(64, 3840, 2160, 16));
    CHECK(threads_default(64, 3840, 2160, 10) == threads_default(64, 3840, 2160, 16),
          "two bytes a sample above 8 bits");
    CHECK(threads_default(64, 3840, 2160, 8) == 20, "%u", threads_default(64, 3840, 2160, 8));
    CHECK(threads_default(64, 16384, 16384, 16) == 0, "huge frames: in the reading thread");
    CHECK(threads_default(64, 65536, 65536, 16) == 0, "no overflow");
    CHECK(threads_cpus_available() >= 1, "cpus");
}

static void test_shorten_path(void)
{
    char buf[INPUT_PATH_SHOWN + 1], path[700];
    CHECK(!strcmp(input_shorten_path(buf, "dir/a.y4m"), "dir/a.y4m"), "short path: %s", buf);
    memset(path, 'd', 600);
    strcpy(path + 600, "/clip.y4m");
    input_shorten_path(buf, path);
    CHECK(strlen(buf) == INPUT_PATH_SHOWN, "long path shown in %zu bytes", strlen(buf));
    CHECK(!strncmp(buf, "ddd", 3) && strstr(buf, "...") &&
          !strcmp(buf + strlen(buf) - 9, "/clip.y4m"), "keeps start and file name: %s", buf);
    /* Never cut inside a UTF-8 character ("\xc3\xa9" is e-acute). */
    for (int i = 0; i < 600; i += 2)
        memcpy(path + i, "\xc3\xa9", 2);
    input_shorten_path(buf, path);
    const char *dots = strstr(buf, "...");
    CHECK(dots && (dots - buf) % 2 == 0 && ((unsigned char)dots[3] & 0xc0) != 0x80,
          "cut between characters: %s", buf);

    /* The messages of a long input path end with their reason. */
    InputContext in;
    memset(path, 'x', 600);
    for (int i = 0; i < 600; i += 100)
        path[i] = '/'; /* components within NAME_MAX */
    strcpy(path + 600, "/missing.y4m");
    CHECK(input_open(&in, path, NULL, NULL) < 0, "missing input opens");
    CHECK(strstr(in.err, "missing.y4m") && strstr(in.err, strerror(ENOENT)),
          "long path, reason kept: %s", in.err);
    input_close(&in);
}

/* --backend auto's estimate: the twin features' cost of the settings, and
 * the seconds the CPU would take, against CUDA's start-up. */
static double twin_cost_of(const char *first, ...)
{
    CliSettings s;
    char err[512];
    va_list ap;
    va_start(ap, first);
    const int r = vparse(&s, err, first, ap);
    va_end(ap);
    CHECK(r == 0, "%s", err);
    const double ns = r ? -2.0 : auto_twin_cost_ns(&s);
    if (!r)
        cli_settings_free(&s);
    return ns;
}

static void test_auto_backend(void)
{
    const double model = twin_cost_of("-r", "a", "-d", "b", NULL);
    const double two = twin_cost_of("-r", "a", "-d", "b", "-m", "version=vmaf_v0.6.1",
                                    "-m", "version=vmaf_v0.6.1neg:name=neg", NULL);
    CHECK(model > 0 && two == model, "a model's features counted once: %g %g", model, two);
    const double ssim = twin_cost_of("-r", "a", "-d", "b", "-n", "--feature", "float_ssim", NULL);
    const double both = twin_cost_of("-r", "a", "-d", "b", "--feature", "float_ssim", NULL);
    CHECK(ssim > 0 && both == model + ssim, "model and feature add up: %g %g %g", model, ssim,
          both);
    CHECK(twin_cost_of("-r", "a", "-d", "b", "-n", "--feature", "ciede", NULL) == 0,
          "no twin, no cost");
    CHECK(twin_cost_of("-r", "a", "-d", "b", "-n", "--feature", "float_ssim_cuda", NULL) < 0,
          "a twin by name wants the GPU");

    AutoWork w = { .frames = 48, .w = 1920, .h = 1080, .threads = 0 };
    const double one = auto_cpu_seconds(&w, 10.0);
    CHECK(one == 48 * 1920 * 1080 * 10.0 * 1e-9, "one thread: %.17g", one);
    w.threads = 1;
    CHECK(auto_cpu_seconds(&w, 10.0) == one, "one worker: %g", auto_cpu_seconds(&w, 10.0));
    w.threads = 8;
    CHECK(auto_cpu_seconds(&w, 10.0) == one / 6, "8 workers at 0.75: %g",
          auto_cpu_seconds(&w, 10.0));
    w.subsample = 2;
    CHECK(auto_cpu_seconds(&w, 10.0) == one / 12, "every other frame");
    /* Three frames keep three of eight workers busy. */
    const AutoWork few = { .frames = 3, .w = 1920, .h = 1080, .threads = 8 };
    CHECK(auto_cpu_seconds(&few, 10.0) == 3 * 1920 * 1080 * 10.0 * 1e-9 / 2.25,
          "3 frames, 8 workers: %g", auto_cpu_seconds(&few, 10.0));
    const AutoWork single = { .frames = 1, .w = 1920, .h = 1080, .threads = 8 };
    CHECK(auto_cpu_seconds(&single, 10.0) == 1920 * 1080 * 10.0 * 1e-9,
          "1 frame, 8 workers: one works: %g", auto_cpu_seconds(&single, 10.0));
    w.frames = -1;
    CHECK(auto_cpu_seconds(&w, 10.0) < 0, "unknown length");
    w.frames = 48;
    CHECK(auto_cpu_seconds(&w, -1.0) < 0, "a twin by name");

    CHECK(auto_prefers_cpu(0.0) && auto_prefers_cpu(AUTO_CUDA_STARTUP_S * 0.99), "short");
    CHECK(!auto_prefers_cpu(AUTO_CUDA_STARTUP_S) && !auto_prefers_cpu(-1.0), "long or unknown");
    /* The default model on 300 1080p frames, 16 workers: the GPU's work. */
    w = (AutoWork){ .frames = 300, .w = 1920, .h = 1080, .threads = 16 };
    CHECK(!auto_prefers_cpu(auto_cpu_seconds(&w, model)), "%g s",
          auto_cpu_seconds(&w, model));
    /* float_ssim on three 576x324 frames: the CPU's. */
    w = (AutoWork){ .frames = 3, .w = 576, .h = 324, .threads = 2 };
    CHECK(auto_prefers_cpu(auto_cpu_seconds(&w, ssim)), "%g s", auto_cpu_seconds(&w, ssim));
}

int main(void)
{
    if (vmaf_team_create(&team, 4)) {
        fprintf(stderr, "cannot start the reading threads\n");
        return 1;
    }
    test_parser();
    test_y4m();
    test_yuv();
    test_shorten_path();
    test_progress();
    test_default_threads();
    test_auto_backend();
    vmaf_team_destroy(team);
    if (check_failures)
        fprintf(stderr, "%d checks failed\n", check_failures);
    else
        printf("all checks passed\n");
    return check_failures ? 1 : 0;
}
