/* Command line parsing for the vmaf tool; see cli_parse.h. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_parse.h"
#include "cli_presets.h"
#include "input/input.h"
#include "one_line.h"

enum {
    OPT_XML = 256,
    OPT_JSON,
    OPT_CSV,
    OPT_SUB,
    OPT_THREADS,
    OPT_FEATURE,
    OPT_SUBSAMPLE,
    OPT_CPUMASK,
    OPT_FRAME_CNT,
    OPT_FRAME_SKIP_REF,
    OPT_FRAME_SKIP_DIST,
    OPT_PRECISION,
    OPT_BACKEND,
    OPT_AOM_CTC,
    OPT_NFLX_CTC,
    OPT_GPUMASK,
    OPT_NO_CUDA,
    OPT_PROGRESS,
    OPT_HELP,
};

typedef struct CliOption {
    const char *name;
    char short_name; /* 0: long only */
    bool has_arg;
    int id;
} CliOption;

static const CliOption options[] = {
    { "reference", 'r', true, 'r' },
    { "distorted", 'd', true, 'd' },
    { "width", 'w', true, 'w' },
    { "height", 'h', true, 'h' },
    { "pixel_format", 'p', true, 'p' },
    { "bitdepth", 'b', true, 'b' },
    { "model", 'm', true, 'm' },
    { "output", 'o', true, 'o' },
    { "xml", 0, false, OPT_XML },
    { "json", 0, false, OPT_JSON },
    { "csv", 0, false, OPT_CSV },
    { "sub", 0, false, OPT_SUB },
    { "threads", 0, true, OPT_THREADS },
    { "feature", 0, true, OPT_FEATURE },
    { "subsample", 0, true, OPT_SUBSAMPLE },
    { "cpumask", 0, true, OPT_CPUMASK },
    { "frame_cnt", 0, true, OPT_FRAME_CNT },
    { "frame_skip_ref", 0, true, OPT_FRAME_SKIP_REF },
    { "frame_skip_dist", 0, true, OPT_FRAME_SKIP_DIST },
    /* The reference tool's name for --frame_skip_ref before 3.0. */
    { "skip_ref_frame", 0, true, OPT_FRAME_SKIP_REF },
    { "precision", 0, true, OPT_PRECISION },
    { "backend", 0, true, OPT_BACKEND },
    { "aom_ctc", 0, true, OPT_AOM_CTC },
    { "nflx_ctc", 0, true, OPT_NFLX_CTC },
    { "gpumask", 0, true, OPT_GPUMASK },
    { "no_cuda", 0, false, OPT_NO_CUDA },
    { "no_prediction", 'n', false, 'n' },
    { "quiet", 'q', false, 'q' },
    { "progress", 0, false, OPT_PROGRESS },
    { "version", 'v', false, 'v' },
    { "help", 0, false, OPT_HELP },
};
#define N_OPTIONS (sizeof(options) / sizeof(options[0]))

static const char usage_text[] =
    "Usage: vmaf -r REF -d DIST [options]\n"
    "\n"
    "Scores a distorted video against its reference. Inputs are Y4M (detected by\n"
    "the YUV4MPEG2 signature) or, with all of -w -h -p -b, raw planar YUV.\n"
    "\n"
    "Input:\n"
    "  -r, --reference PATH       reference .y4m or raw .yuv\n"
    "  -d, --distorted PATH       distorted .y4m or raw .yuv\n"
    "  -w, --width N              raw YUV width (1..65536)\n"
    "  -h, --height N             raw YUV height (1..65536)\n"
    "  -p, --pixel_format F       raw YUV layout: 420, 422, 444 or 400\n"
    "  -b, --bitdepth N           raw YUV bits per sample: " INPUT_BPC_LIST "\n"
    "      --frame_cnt N          score at most N frames (0: all, the default)\n"
    "      --frame_skip_ref N     skip the first N reference frames\n"
    "      --frame_skip_dist N    skip the first N distorted frames\n"
    "\n"
    "Metrics:\n"
    "      --feature NAME[=K=V[:K=V...]]\n"
    "                             add a feature extractor with options, for example\n"
    "                             --feature float_ssim=scale=2:enable_lcs=true (repeatable)\n"
    "  -m, --model PARAMS         a model, ':'-separated: version=NAME or path=FILE,\n"
    "                             name=LABEL, disable_clip, enable_transform,\n"
    "                             FEATURE.OPTION=VALUE (repeatable); default\n"
    "                             version=vmaf_v0.6.1 unless -n\n"
    "      --aom_ctc v1.0|v2.0    AOM CTC: VMAF, VMAF NEG, PSNR with APSNR, CIEDE2000,\n"
    "                             SSIM and MS-SSIM in dB, PSNR-HVS (later versions\n"
    "                             need CAMBI); --nflx_ctc v1.0 needs CAMBI\n"
    "  -n, --no_prediction        no model: extract the features only\n"
    "      --subsample N          score every N-th frame only\n"
    "\n"
    "Output:\n"
    "  -o, --output PATH          write a report to PATH ('-' = stdout)\n"
    "      --xml | --json | --csv | --sub\n"
    "                             report format (default XML)\n"
    "      --precision P          score format: legacy (%.6f, default), max (%.17g,\n"
    "                             round-trip exact) or N (1..17 decimals, %.Nf)\n"
    "  -q, --quiet                no progress, no backend note, no closing line, and\n"
    "                             no summary when there is a report (-o)\n"
    "      --progress             progress on stderr also when it is not a terminal\n"
    "                             (a line every 5 s, for logs) and with -q\n"
    "\n"
    "Execution:\n"
    "      --threads N            score frames on N worker threads (0..1024; 0: in\n"
    "                             the reading thread); default: one per CPU this\n"
    "                             process may use, fewer where the frames in flight\n"
    "                             would pass 1 GiB (large frames)\n"
    "      --backend B            auto (default: CUDA if usable and the run outlasts\n"
    "                             CUDA's start-up, else CPU), cpu or cuda\n"
    "      --gpumask N            as the reference tool: not 0 keeps all work off the GPU\n"
    "                             (--backend cpu); --no_cuda is the same\n"
    "      --cpumask N            disable CPU SIMD levels by bit (decimal or 0x hex)\n"
    "\n"
    "  -v, --version              print the library version and exit\n"
    "      --help                 print this help and exit\n"
    "\n"
    "Exit status: 0 success, 1 scoring failed, 2 usage, 3 input, 4 model,\n"
    "5 output, 6 GPU, 130 interrupted (see docs/errors.md).\n";

const char *cli_usage(void)
{
    return usage_text;
}

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static int fail(char *err, size_t err_sz, const char *fmt, ...)
{
    if (err && err_sz) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, err_sz, fmt, ap);
        va_end(ap);
        one_line(err); /* arguments are echoed in the message */
    }
    return -EINVAL;
}

int cli_parse_u64(const char *s, uint64_t min, uint64_t max, bool allow_hex, uint64_t *out)
{
    if (!s || !*s)
        return -1;
    unsigned base = 10;
    if (allow_hex && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        base = 16;
        s += 2;
        if (!*s)
            return -1;
    }
    uint64_t v = 0;
    for (; *s; s++) {
        unsigned d;
        if (*s >= '0' && *s <= '9')
            d = (unsigned)(*s - '0');
        else if (base == 16 && *s >= 'a' && *s <= 'f')
            d = (unsigned)(*s - 'a' + 10);
        else if (base == 16 && *s >= 'A' && *s <= 'F')
            d = (unsigned)(*s - 'A' + 10);
        else
            return -1;
        if (v > (UINT64_MAX - d) / base)
            return -1;
        v = v * base + d;
    }
    if (v < min || v > max)
        return -1;
    *out = v;
    return 0;
}

static bool is_ident(const char *s)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
              (*s >= '0' && *s <= '9') || *s == '_'))
            return false;
    return true;
}

/* Copies s into buf (at least 64 bytes) whole when it has at most 60
 * bytes, else as its first and last 28 bytes or fewer around "...": the
 * bad part of a long argument (a model path's options, a number's junk) is
 * as often at its end as at its start. The cuts fall between UTF-8
 * characters, never inside one. */
static const char *shorten(char *buf, size_t sz, const char *s)
{
    size_t n = strlen(s);
    if (sz < 64)
        return "...";
    if (n <= 60)
        memcpy(buf, s, n + 1);
    else
        one_line_cut_middle(buf, s, n, 28, 28);
    return buf;
}

static char *dup_bounded(const char *s, const char *what, char *err, size_t err_sz, int *ret)
{
    if (strlen(s) > CLI_MAX_OPTARG) {
        *ret = fail(err, err_sz, "vmaf: %s too long (%zu characters): at most %d", what,
                    strlen(s), CLI_MAX_OPTARG);
        return NULL;
    }
    char *c = strdup(s);
    if (!c)
        *ret = -ENOMEM;
    return c;
}

static int parse_feature(CliFeature *f, const char *arg, char *err, size_t err_sz)
{
    char shown[64];
    int ret = 0;
    f->buf = dup_bounded(arg, "--feature value", err, err_sz, &ret);
    if (!f->buf)
        return ret;
    char *rest = strchr(f->buf, '=');
    if (rest)
        *rest++ = '\0';
    f->name = f->buf;
    if (!strcmp(f->name, "name") && rest && *rest) {
        /* FFmpeg's libvmaf filter writes feature=name=NAME:KEY=VALUE, and
         * several features joined by '|': the first is shown rewritten. */
        char *more = strchr(rest, '|');
        if (more)
            *more = '\0';
        char *opts = strchr(rest, ':');
        if (opts)
            *opts++ = '\0';
        return fail(err, err_sz, "vmaf: bad feature name (--feature \"%s\"): \"name=\" is "
                    "FFmpeg's filter syntax; here the name comes first: --feature %.40s%s%.80s%s",
                    shorten(shown, sizeof(shown), arg), rest, opts ? "=" : "",
                    opts ? opts : "", more ? ", and one --feature for each name" : "");
    }
    if (!is_ident(f->name))
        return fail(err, err_sz, "vmaf: bad feature name (--feature \"%s\"): use letters, "
                    "digits and '_', then optionally =key=value:key=value",
                    shorten(shown, sizeof(shown), arg));
    if (!rest)
        return 0;
    if (!*rest)
        return fail(err, err_sz, "vmaf: bad feature options (--feature \"%s\"): nothing after "
                    "'='; give key=value pairs separated by ':'",
                    shorten(shown, sizeof(shown), arg));
    for (char *tok = rest; tok;) {
        char *next = strchr(tok, ':');
        if (next)
            *next++ = '\0';
        char *val = strchr(tok, '=');
        if (val)
            *val++ = '\0';
        if (!is_ident(tok) || !val || !*val)
            return fail(err, err_sz, "vmaf: bad feature option (--feature \"%s\", entry "
                        "\"%s\"): each option is key=value, separated by ':'",
                        shorten(shown, sizeof(shown), arg), tok);
        for (unsigned i = 0; i < f->opt_cnt; i++)
            if (!strcmp(f->opt[i].key, tok))
                return fail(err, err_sz, "vmaf: feature option given twice (--feature %s, "
                            "key %s): give each option once", f->name, tok);
        if (f->opt_cnt == CLI_MAX_OPTS)
            return fail(err, err_sz, "vmaf: too many feature options (--feature %s): at "
                        "most %d", f->name, CLI_MAX_OPTS);
        f->opt[f->opt_cnt].key = tok;
        f->opt[f->opt_cnt].val = val;
        f->opt_cnt++;
        tok = next;
    }
    return 0;
}

static int parse_bool(const char *val, bool *out)
{
    if (!val || !strcmp(val, "true")) {
        *out = true;
        return 0;
    }
    if (!strcmp(val, "false")) {
        *out = false;
        return 0;
    }
    return -1;
}

static int parse_model(CliModel *m, const char *arg, char *err, size_t err_sz)
{
    char shown[64];
    int ret = 0;
    m->buf = dup_bounded(arg, "--model value", err, err_sz, &ret);
    if (!m->buf)
        return ret;
    if (!*m->buf)
        return fail(err, err_sz, "vmaf: empty model (-m \"\"): give version=NAME or path=FILE");
    for (char *tok = m->buf; tok;) {
        char *next = strchr(tok, ':');
        if (next)
            *next++ = '\0';
        char *val = strchr(tok, '=');
        if (val)
            *val++ = '\0';
        const char **str = NULL;
        if (!strcmp(tok, "path"))
            str = &m->path;
        else if (!strcmp(tok, "version"))
            str = &m->version;
        else if (!strcmp(tok, "name"))
            str = &m->name;
        if (str) {
            if (!val || !*val)
                return fail(err, err_sz, "vmaf: bad model option (-m \"%s\", entry %s): give "
                            "%s=VALUE", shorten(shown, sizeof(shown), arg), tok, tok);
            if (*str)
                return fail(err, err_sz, "vmaf: model option given twice (-m \"%s\", entry "
                            "%s): give it once", shorten(shown, sizeof(shown), arg), tok);
            *str = val;
        } else if (!strcmp(tok, "disable_clip") || !strcmp(tok, "enable_transform")) {
            bool on;
            if (parse_bool(val, &on))
                return fail(err, err_sz, "vmaf: bad model option (-m \"%s\", entry %s): use "
                            "%s, %s=true or %s=false", shorten(shown, sizeof(shown), arg),
                            tok, tok, tok, tok);
            const uint64_t flag = tok[0] == 'd' ? VMAF_MODEL_FLAG_DISABLE_CLIP
                                                : VMAF_MODEL_FLAG_ENABLE_TRANSFORM;
            m->flags = on ? m->flags | flag : m->flags & ~flag;
        } else if (strchr(tok, '.')) {
            char *opt = strchr(tok, '.');
            *opt++ = '\0';
            if (!is_ident(tok) || !is_ident(opt) || !val || !*val)
                return fail(err, err_sz, "vmaf: bad feature overload (-m \"%s\"): use "
                            "FEATURE.OPTION=VALUE, for example float_ssim.scale=2",
                            shorten(shown, sizeof(shown), arg));
            CliOverload *o = NULL;
            for (unsigned i = 0; i < m->overload_cnt; i++)
                if (!strcmp(m->overload[i].feature, tok))
                    o = &m->overload[i];
            if (!o) {
                if (m->overload_cnt == CLI_MAX_OPTS)
                    return fail(err, err_sz, "vmaf: too many feature overloads (-m \"%s\"): "
                                "at most %d features", shorten(shown, sizeof(shown), arg),
                                CLI_MAX_OPTS);
                o = &m->overload[m->overload_cnt++];
                o->feature = tok;
            }
            for (unsigned i = 0; i < o->opt_cnt; i++)
                if (!strcmp(o->opt[i].key, opt))
                    return fail(err, err_sz, "vmaf: feature overload given twice (-m \"%s\", "
                                "entry %s.%s): give it once",
                                shorten(shown, sizeof(shown), arg), tok, opt);
            if (o->opt_cnt == CLI_MAX_OPTS)
                return fail(err, err_sz, "vmaf: too many options for one feature (-m \"%s\", "
                            "feature %s): at most %d", shorten(shown, sizeof(shown), arg), tok,
                            CLI_MAX_OPTS);
            o->opt[o->opt_cnt].key = opt;
            o->opt[o->opt_cnt].val = val;
            o->opt_cnt++;
        } else {
            return fail(err, err_sz, "vmaf: unknown model option (-m \"%s\", entry \"%s\"): "
                        "use version=, path=, name=, disable_clip, enable_transform or "
                        "FEATURE.OPTION=VALUE, separated by ':'",
                        shorten(shown, sizeof(shown), arg), tok);
        }
        tok = next;
    }
    if (!m->path == !m->version)
        return fail(err, err_sz, "vmaf: bad model (-m \"%s\"): give exactly one of "
                    "version=NAME and path=FILE", shorten(shown, sizeof(shown), arg));
    if (!m->name)
        m->name = "vmaf";
    return 0;
}

static const CliOption *find_long(const char *name, size_t len)
{
    for (size_t i = 0; i < N_OPTIONS; i++)
        if (strlen(options[i].name) == len && !strncmp(options[i].name, name, len))
            return &options[i];
    return NULL;
}

static const CliOption *find_short(char c)
{
    for (size_t i = 0; i < N_OPTIONS; i++)
        if (options[i].short_name && options[i].short_name == c)
            return &options[i];
    return NULL;
}

static void option_label(const CliOption *o, char *buf, size_t sz)
{
    if (o->short_name)
        snprintf(buf, sz, "-%c/--%s", o->short_name, o->name);
    else
        snprintf(buf, sz, "--%s", o->name);
}

/* Applies one option with its value (NULL for flags). */

/* One --feature or -m, given or from a preset (label names the option). */
static int add_feature(CliSettings *s, const char *label, const char *val, char *err,
                       size_t err_sz)
{
    if (s->feature_cnt == CLI_MAX_FEATURES)
        return fail(err, err_sz, "vmaf: too many features (%s): at most %d", label,
                    CLI_MAX_FEATURES);
    return parse_feature(&s->feature[s->feature_cnt++], val, err, err_sz);
}

static int add_model(CliSettings *s, const char *label, const char *val, char *err,
                     size_t err_sz)
{
    if (s->model_cnt == CLI_MAX_MODELS)
        return fail(err, err_sz, "vmaf: too many models (%s): at most %d", label,
                    CLI_MAX_MODELS);
    return parse_model(&s->model[s->model_cnt++], val, err, err_sz);
}

/* The reference tool's presets (cli_presets.c): the models and features
 * they turn on, appended as if given, in the reference's order. */
static int add_preset(CliSettings *s, const char *label, const char *option,
                      const char *version, char *err, size_t err_sz)
{
    const CliPreset *p = cli_preset_find(option, version, err, err_sz);
    if (!p)
        return -EINVAL;
    int r = 0;
    for (unsigned i = 0; p->models[i] && !r; i++)
        r = add_model(s, label, p->models[i], err, err_sz);
    for (unsigned i = 0; p->features[i] && !r; i++)
        r = add_feature(s, label, p->features[i], err, err_sz);
    return r;
}

static int apply(CliSettings *s, const CliOption *o, const char *val, char *err, size_t err_sz)
{
    char label[40], shown[64];
    uint64_t v;
    option_label(o, label, sizeof(label));
    if (val)
        shorten(shown, sizeof(shown), val);

#define NUMBER(min, max, hex, what)                                                          \
    do {                                                                                     \
        if (cli_parse_u64(val, (min), (max), (hex), &v))                                     \
            return fail(err, err_sz, "vmaf: bad value (%s \"%s\"): must be %s", label, shown, \
                        (what));                                                             \
    } while (0)
#define ONCE(field)                                                                          \
    do {                                                                                     \
        if (field)                                                                           \
            return fail(err, err_sz, "vmaf: option given twice (%s): give it once", label);  \
    } while (0)

    switch (o->id) {
    case 'r':
    case 'd': {
        const char **p = o->id == 'r' ? &s->path_ref : &s->path_dist;
        ONCE(*p);
        if (!*val)
            return fail(err, err_sz, "vmaf: empty path (%s): give a file", label);
        *p = val;
        return 0;
    }
    case 'w':
    case 'h':
        ONCE(o->id == 'w' ? s->width : s->height);
        NUMBER(1, 65536, false, "a whole number from 1 to 65536");
        *(o->id == 'w' ? &s->width : &s->height) = (unsigned)v;
        s->use_yuv = true;
        return 0;
    case 'p':
        ONCE(s->pix_fmt);
        if (!strcmp(val, "420"))
            s->pix_fmt = VMAF_PIX_FMT_YUV420P;
        else if (!strcmp(val, "422"))
            s->pix_fmt = VMAF_PIX_FMT_YUV422P;
        else if (!strcmp(val, "444"))
            s->pix_fmt = VMAF_PIX_FMT_YUV444P;
        else if (!strcmp(val, "400"))
            s->pix_fmt = VMAF_PIX_FMT_YUV400P;
        else
            return fail(err, err_sz, "vmaf: bad value (%s \"%s\"): must be 420, 422, 444 or "
                        "400", label, shown);
        s->use_yuv = true;
        return 0;
    case 'b':
        ONCE(s->bitdepth);
        NUMBER(8, 16, false, INPUT_BPC_LIST);
        if (!input_bpc_supported((unsigned)v))
            return fail(err, err_sz, "vmaf: bad value (%s \"%s\"): must be " INPUT_BPC_LIST,
                        label, shown);
        s->bitdepth = (unsigned)v;
        s->use_yuv = true;
        return 0;
    case 'o':
        ONCE(s->output_path);
        if (!*val)
            return fail(err, err_sz, "vmaf: empty path (%s): give a file, or - for stdout",
                        label);
        s->output_path = val;
        return 0;
    case OPT_XML:
    case OPT_JSON:
    case OPT_CSV:
    case OPT_SUB: {
        const enum VmafOutputFormat fmt =
            o->id == OPT_XML ? VMAF_OUTPUT_FORMAT_XML : o->id == OPT_JSON ? VMAF_OUTPUT_FORMAT_JSON
            : o->id == OPT_CSV ? VMAF_OUTPUT_FORMAT_CSV : VMAF_OUTPUT_FORMAT_SUB;
        if (s->output_fmt_given && s->output_fmt != fmt)
            return fail(err, err_sz, "vmaf: two report formats (%s and an earlier one): give "
                        "one of --xml, --json, --csv, --sub", label);
        s->output_fmt = fmt;
        s->output_fmt_given = true;
        return 0;
    }
    case OPT_THREADS:
        NUMBER(0, 1024, false, "a whole number from 0 to 1024");
        s->threads = (unsigned)v;
        s->threads_given = true;
        return 0;
    case OPT_SUBSAMPLE:
        NUMBER(0, 0xffffffffu, false, "a whole number from 0 to 4294967295 (0 or 1: every "
               "frame)");
        s->subsample = (unsigned)v;
        return 0;
    case OPT_CPUMASK:
        NUMBER(0, UINT64_MAX, true, "a whole number, decimal or 0x hexadecimal");
        s->cpumask = v;
        return 0;
    case OPT_FRAME_CNT:
        NUMBER(0, 0xffffffffu, false, "a whole number from 0 (all frames) to 4294967295");
        s->frame_cnt = (unsigned)v;
        return 0;
    case OPT_FRAME_SKIP_REF:
    case OPT_FRAME_SKIP_DIST:
        NUMBER(0, 0xffffffffu, false, "a whole number from 0 to 4294967295");
        *(o->id == OPT_FRAME_SKIP_REF ? &s->frame_skip_ref : &s->frame_skip_dist) = (unsigned)v;
        return 0;
    case OPT_PRECISION:
        if (!strcmp(val, "legacy")) {
            strcpy(s->precision_fmt, "%.6f");
        } else if (!strcmp(val, "max")) {
            strcpy(s->precision_fmt, "%.17g");
        } else {
            NUMBER(1, 17, false, "legacy, max or a whole number from 1 to 17");
            snprintf(s->precision_fmt, sizeof(s->precision_fmt), "%%.%uf", (unsigned)v);
        }
        return 0;
    case OPT_GPUMASK:
        NUMBER(0, UINT64_MAX, true, "a whole number, decimal or 0x hexadecimal");
        s->gpumask = v;
        return 0;
    case OPT_NO_CUDA:
        s->no_cuda = true;
        return 0;
    case OPT_BACKEND:
        if (s->backend_given)
            return fail(err, err_sz, "vmaf: option given twice (--backend): give it once");
        s->backend_given = true;
        if (!strcmp(val, "auto"))
            s->backend = CLI_BACKEND_AUTO;
        else if (!strcmp(val, "cpu"))
            s->backend = CLI_BACKEND_CPU;
        else if (!strcmp(val, "cuda"))
            s->backend = CLI_BACKEND_CUDA;
        else
            return fail(err, err_sz, "vmaf: bad value (%s \"%s\"): must be auto, cpu or cuda",
                        label, shown);
        return 0;
    case OPT_AOM_CTC:
    case OPT_NFLX_CTC:
        return add_preset(s, label, o->name, val, err, err_sz);
    case OPT_FEATURE:
        return add_feature(s, label, val, err, err_sz);
    case 'm':
        return add_model(s, label, val, err, err_sz);
    case 'n':
        s->no_prediction = true;
        return 0;
    case 'q':
        s->quiet = true;
        return 0;
    case OPT_PROGRESS:
        s->progress = true;
        return 0;
    case 'v':
        return CLI_PARSE_VERSION;
    case OPT_HELP:
        return CLI_PARSE_HELP;
    }
#undef NUMBER
#undef ONCE
    return fail(err, err_sz, "vmaf: internal error (option %s): please report", label);
}

/* "unknown option" with the options it may have been meant as. */
static int unknown_long(const char *arg, size_t len, char *err, size_t err_sz)
{
    char shown[64], hint[200] = "";
    size_t n = 0;
    for (size_t i = 0; i < N_OPTIONS && len; i++) {
        if (!strncmp(options[i].name, arg, len) && n + strlen(options[i].name) + 6 < sizeof(hint))
            n += (size_t)snprintf(hint + n, sizeof(hint) - n, "%s--%s", n ? " or " : "",
                                  options[i].name);
    }
    char name[CLI_MAX_OPTARG + 3];
    snprintf(name, sizeof(name), "--%.*s", (int)(len < CLI_MAX_OPTARG ? len : CLI_MAX_OPTARG),
             arg);
    shorten(shown, sizeof(shown), name);
    if (n)
        return fail(err, err_sz, "vmaf: unknown option (%s): options are not abbreviated; "
                    "did you mean %s?", shown, hint);
    return fail(err, err_sz, "vmaf: unknown option (%s): see vmaf --help", shown);
}

/* Whether an XML report can carry name as an attribute name of a <frame>:
 * the library's rule for ASCII (a letter or '_' first, then letters,
 * digits, '_', '-', '.'; no ':'), and not "frameNum", which the element
 * has already. The library also takes some letters beyond ASCII, but
 * judges them only when it writes the report, after every frame; the tool
 * asks for ASCII so that the answer comes before the first frame. */
static bool xml_name_ok(const char *name)
{
    if (!*name || !strcmp(name, "frameNum"))
        return false;
    for (const char *p = name; *p; p++) {
        const bool alpha = (*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || *p == '_';
        const bool later = (*p >= '0' && *p <= '9') || *p == '-' || *p == '.';
        if (!(alpha || (p != name && later)))
            return false;
    }
    return true;
}

int cli_parse(int argc, char *const argv[], CliSettings *s, char *err, size_t err_sz)
{
    memset(s, 0, sizeof(*s));
    if (err && err_sz)
        err[0] = '\0';
    s->output_fmt = VMAF_OUTPUT_FORMAT_XML;
    strcpy(s->precision_fmt, "%.6f");
    s->backend = CLI_BACKEND_AUTO;

    /* "vmaf -h" alone asks for help (elsewhere -h is the raw height). */
    if (argc == 2 && argv[1] && !strcmp(argv[1], "-h"))
        return CLI_PARSE_HELP;
    int ret;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        char shown[64];
        if (!a)
            break;
        if (a[0] != '-' || !a[1] || !strcmp(a, "--")) {
            const char *bad = strcmp(a, "--") ? a : i + 1 < argc && argv[i + 1] ? argv[i + 1] : NULL;
            if (!bad)
                continue;
            return fail(err, err_sz, "vmaf: unexpected argument (\"%s\"): inputs are given "
                        "with -r and -d, see vmaf --help", shorten(shown, sizeof(shown), bad));
        }
        if (a[1] == '-') {
            const char *name = a + 2;
            const char *eq = strchr(name, '=');
            const size_t len = eq ? (size_t)(eq - name) : strlen(name);
            const CliOption *o = find_long(name, len);
            if (!o)
                return unknown_long(name, len, err, err_sz);
            const char *val = NULL;
            if (o->has_arg) {
                if (eq)
                    val = eq + 1;
                else if (i + 1 < argc && argv[i + 1])
                    val = argv[++i];
                else
                    return fail(err, err_sz, "vmaf: missing value (--%s): see vmaf --help",
                                o->name);
            } else if (eq) {
                return fail(err, err_sz, "vmaf: unexpected value (--%s): it takes none",
                            o->name);
            }
            if ((ret = apply(s, o, val, err, err_sz)))
                return ret;
            continue;
        }
        /* A cluster of short options: -nq, -r PATH, -rPATH. */
        for (const char *c = a + 1; *c; c++) {
            const CliOption *o = find_short(*c);
            if (!o && *c == 'c')
                return fail(err, err_sz, "vmaf: unknown option (-c in \"%s\"): the reference "
                            "tool accepts -c and ignores it; drop it (--cpumask is the CPU "
                            "mask)", shorten(shown, sizeof(shown), a));
            if (!o) {
                if ((unsigned char)*c >= 0x20 && (unsigned char)*c < 0x7f)
                    return fail(err, err_sz, "vmaf: unknown option (-%c in \"%s\"): see vmaf "
                                "--help", *c, shorten(shown, sizeof(shown), a));
                return fail(err, err_sz, "vmaf: unknown option (\"%s\"): see vmaf --help",
                            shorten(shown, sizeof(shown), a));
            }
            if (!o->has_arg) {
                if ((ret = apply(s, o, NULL, err, err_sz)))
                    return ret;
                continue;
            }
            const char *val;
            if (c[1])
                val = c + 1;
            else if (i + 1 < argc && argv[i + 1])
                val = argv[++i];
            else
                return fail(err, err_sz, "vmaf: missing value (-%c/--%s): see vmaf --help",
                            o->short_name, o->name);
            if ((ret = apply(s, o, val, err, err_sz)))
                return ret;
            break;
        }
    }

    if (!s->path_ref)
        return fail(err, err_sz, "vmaf: missing reference (-r/--reference): give the reference "
                    ".y4m or .yuv; see vmaf --help");
    if (!s->path_dist)
        return fail(err, err_sz, "vmaf: missing distorted video (-d/--distorted): give the "
                    "distorted .y4m or .yuv; see vmaf --help");
    if (s->use_yuv && !(s->width && s->height && s->pix_fmt && s->bitdepth)) {
        char missing[64] = "";
        if (!s->width)
            strcat(missing, " -w");
        if (!s->height)
            strcat(missing, " -h");
        if (!s->pix_fmt)
            strcat(missing, " -p");
        if (!s->bitdepth)
            strcat(missing, " -b");
        return fail(err, err_sz, "vmaf: incomplete raw YUV geometry (missing%s): raw input "
                    "needs all of -w, -h, -p and -b", missing);
    }
    /* --no_cuda, or a non-zero --gpumask, in either order with --backend. */
    if (s->no_cuda) {
        if (s->backend == CLI_BACKEND_CUDA)
            return fail(err, err_sz, "vmaf: conflicting options (--no_cuda and --backend "
                        "cuda): give one");
        s->backend = CLI_BACKEND_CPU;
    }
    if (s->gpumask) {
        if (s->backend == CLI_BACKEND_CUDA)
            return fail(err, err_sz, "vmaf: conflicting options (--gpumask %llu and --backend "
                        "cuda): a non-zero --gpumask keeps work off the GPU; give one",
                        (unsigned long long)s->gpumask);
        s->backend = CLI_BACKEND_CPU;
    }
    if (s->output_fmt_given && !s->output_path)
        return fail(err, err_sz, "vmaf: report format without a report (--xml/--json/--csv/"
                    "--sub): add -o PATH, or -o - for stdout");
    if (!s->model_cnt && !s->no_prediction) {
        CliModel *m = &s->model[s->model_cnt++];
        m->version = "vmaf_v0.6.1";
        m->name = "vmaf";
        m->is_default = true;
    }
    /* Reading every frame to compute nothing is never what was meant. */
    if (!s->model_cnt && !s->feature_cnt)
        return fail(err, err_sz, "vmaf: nothing to compute (-n and no --feature): add "
                    "--feature NAME (float_ssim) or a model with -m");
    /* With -n a model only names features to extract, which only a report
     * shows (the summary has model scores and --feature features). */
    if (s->no_prediction && !s->feature_cnt && !s->output_path)
        return fail(err, err_sz, "vmaf: nothing to show (-n with -m, and no -o or "
                    "--feature): add -o FILE for the model's features, or drop -n for "
                    "its score");
    for (unsigned i = 0; i < s->model_cnt; i++)
        for (unsigned j = i + 1; j < s->model_cnt; j++)
            if (!strcmp(s->model[i].name, s->model[j].name))
                return fail(err, err_sz, "vmaf: two models named \"%s\" (-m): give each a "
                            "unique name=LABEL", s->model[i].name);
    /* In an XML report a model's name is an attribute name: the library
     * would refuse it only once every frame is scored. */
    for (unsigned i = 0; s->output_path && s->output_fmt == VMAF_OUTPUT_FORMAT_XML &&
                         i < s->model_cnt; i++)
        if (!xml_name_ok(s->model[i].name))
            return fail(err, err_sz, "vmaf: model name \"%.64s\" cannot name a score in an "
                        "XML report (it must start with an ASCII letter or '_', hold only "
                        "ASCII letters, digits, '_', '-' and '.', and not be frameNum): "
                        "change name= or write --json or --csv", s->model[i].name);
    return CLI_PARSE_OK;
}

void cli_settings_free(CliSettings *s)
{
    if (!s)
        return;
    for (unsigned i = 0; i < s->feature_cnt; i++)
        free(s->feature[i].buf);
    for (unsigned i = 0; i < s->model_cnt; i++)
        free(s->model[i].buf);
    s->feature_cnt = s->model_cnt = 0;
}
