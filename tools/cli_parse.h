/* Command line of the vmaf tool.
 *
 * cli_parse() never prints, exits or aborts: it returns a status and, on a
 * usage error, one line in `err`, so that the same code serves the tool and
 * the argument fuzzer. Option values are checked strictly (whole string,
 * range); long options must be spelled out in full (no abbreviations). */
#ifndef VMAF_TOOLS_CLI_PARSE_H
#define VMAF_TOOLS_CLI_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "libvmaf/libvmaf.h"
#include "libvmaf/model.h"
#include "libvmaf/picture.h"

#define CLI_MAX_FEATURES 32
#define CLI_MAX_MODELS 16
#define CLI_MAX_OPTS 32        /* key=value pairs in one --feature or -m */
#define CLI_MAX_OPTARG 4096    /* characters of one --feature or -m string */

typedef struct CliKeyVal {
    const char *key, *val; /* point into the owning entry's buffer */
} CliKeyVal;

typedef struct CliFeature {
    char *buf;             /* owned copy of the option string */
    const char *name;
    CliKeyVal opt[CLI_MAX_OPTS];
    unsigned opt_cnt;
} CliFeature;

/* `<feature>.<option>=<value>` entries of one model, grouped by feature. */
typedef struct CliOverload {
    const char *feature;
    CliKeyVal opt[CLI_MAX_OPTS];
    unsigned opt_cnt;
} CliOverload;

typedef struct CliModel {
    char *buf;             /* owned copy of the option string; NULL for the default */
    const char *version;   /* built-in model (exactly one of version and path) */
    const char *path;      /* model file */
    const char *name;      /* score name in reports, default "vmaf" */
    uint64_t flags;        /* enum VmafModelFlags */
    CliOverload overload[CLI_MAX_OPTS];
    unsigned overload_cnt;
    bool is_default;       /* added because neither -m nor -n was given */
} CliModel;

enum CliBackend { CLI_BACKEND_AUTO, CLI_BACKEND_CPU, CLI_BACKEND_CUDA };

typedef struct CliSettings {
    const char *path_ref, *path_dist;   /* point into argv */
    bool use_yuv;                       /* any of -w -h -p -b given */
    unsigned width, height, bitdepth;
    enum VmafPixelFormat pix_fmt;
    const char *output_path;            /* NULL: no report; "-": stdout */
    enum VmafOutputFormat output_fmt;   /* XML unless one of --json --csv --sub */
    bool output_fmt_given;
    char precision_fmt[8];              /* printf conversion for scores */
    unsigned threads;                   /* when threads_given */
    bool threads_given;                 /* else the tool picks (threads.h) */
    unsigned subsample;
    unsigned frame_cnt;                 /* 0: all frames */
    unsigned frame_skip_ref, frame_skip_dist;
    uint64_t cpumask;
    uint64_t gpumask;                   /* the reference's: not 0 = no GPU */
    bool no_prediction, quiet;
    bool progress;                      /* --progress */
    enum CliBackend backend;
    bool backend_given;                 /* --backend given */
    bool no_cuda;                       /* --no_cuda: --backend cpu */
    CliFeature feature[CLI_MAX_FEATURES];
    unsigned feature_cnt;
    CliModel model[CLI_MAX_MODELS];
    unsigned model_cnt;
} CliSettings;

enum CliParseResult {
    CLI_PARSE_OK = 0,       /* settings are complete: run */
    CLI_PARSE_HELP = 1,     /* --help: print cli_usage() to stdout, exit 0 */
    CLI_PARSE_VERSION = 2,  /* -v/--version: print the version, exit 0 */
    /* negative: -EINVAL (usage error, reason in err) or -ENOMEM */
};

/* Parses argv[1..argc-1] into `s` (which cli_settings_free() releases, on
 * every result). */
int cli_parse(int argc, char *const argv[], CliSettings *s, char *err, size_t err_sz);
void cli_settings_free(CliSettings *s);

/* The --help text. */
const char *cli_usage(void);

/* Strict unsigned decimal (or 0x hex when allow_hex) in [min, max]; the
 * whole string must be the number. 0 on success, -1 otherwise. */
int cli_parse_u64(const char *s, uint64_t min, uint64_t max, bool allow_hex, uint64_t *out);

#endif /* VMAF_TOOLS_CLI_PARSE_H */
