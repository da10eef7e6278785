/* Fills a scoring context through the public API and writes reports, as a
 * script says, so that test_output.py can parse the reports back with real
 * parsers. Usage: report_tool SCRIPT RESULTS
 *
 * SCRIPT lines (names and score formats hex-encoded, so any byte can be
 * tested; "-" for no score format):
 *   init SUBSAMPLE              vmaf_init with n_subsample and error logging
 *   score NAMEHEX INDEX VALUE   vmaf_import_feature_score (VALUE read by strtod:
 *                               "nan", "inf" and hex floats included)
 *   pictures N W H             use float_ssim and score N flat frames
 *                               (exit 77 if the library has no float_ssim)
 *   locale NAME                setlocale(LC_ALL, NAME) (exit 77 if unavailable)
 *   fsize BYTES                limit file sizes (writes past it fail with EFBIG)
 *   syncfail ERRNO [AFTER]     make every later fsync(2), after AFTER more that
 *                              work (default 0), fail with ERRNO (0: work again;
 *                              exit 77 where the build could not wrap fsync)
 *   write FMT PATH FORMATHEX    vmaf_write_output[_with_format]
 * Each write appends "<return value>" as a line to RESULTS. */
#include <errno.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "libvmaf/libvmaf.h"

/* fsync(2) as the library calls it, failing on request: a disk that loses
 * data shows only there. The library's calls reach this through the
 * linker's --wrap=fsync (meson adds it where the linker has it). */
static int sync_errno;
static long sync_after;
#if WRAP_FSYNC
int __real_fsync(int fd);
int __wrap_fsync(int fd);
int __wrap_fsync(int fd)
{
    if (sync_errno && sync_after-- <= 0) {
        errno = sync_errno;
        return -1;
    }
    return __real_fsync(fd);
}
#endif

static char *unhex(const char *hex)
{
    size_t n = strlen(hex) / 2;
    char *s = malloc(n + 1);
    if (!s)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        unsigned b;
        if (sscanf(hex + 2 * i, "%2x", &b) != 1) {
            free(s);
            return NULL;
        }
        s[i] = (char)b;
    }
    s[n] = '\0';
    return s;
}

static enum VmafOutputFormat parse_fmt(const char *s)
{
    if (!strcmp(s, "xml"))
        return VMAF_OUTPUT_FORMAT_XML;
    if (!strcmp(s, "json"))
        return VMAF_OUTPUT_FORMAT_JSON;
    if (!strcmp(s, "csv"))
        return VMAF_OUTPUT_FORMAT_CSV;
    if (!strcmp(s, "sub"))
        return VMAF_OUTPUT_FORMAT_SUB;
    return (enum VmafOutputFormat)atoi(s);
}

static int score_pictures(VmafContext *vmaf, unsigned n, unsigned w, unsigned h)
{
    int err = vmaf_use_feature(vmaf, "float_ssim", NULL);
    if (err)
        return 77;
    for (unsigned i = 0; i < n; i++) {
        VmafPicture ref, dist;
        if (vmaf_picture_alloc(&ref, VMAF_PIX_FMT_YUV400P, 8, w, h))
            return 1;
        if (vmaf_picture_alloc(&dist, VMAF_PIX_FMT_YUV400P, 8, w, h)) {
            vmaf_picture_unref(&ref);
            return 1;
        }
        for (unsigned y = 0; y < h; y++) {
            memset((char *)ref.data[0] + y * ref.stride[0], 100 + (int)i, w);
            memset((char *)dist.data[0] + y * dist.stride[0], 90 + (int)(y % 7), w);
        }
        if (vmaf_read_pictures(vmaf, &ref, &dist, i))
            return 1;
    }
    return vmaf_read_pictures(vmaf, NULL, NULL, 0) ? 1 : 0;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: report_tool SCRIPT RESULTS\n");
        return 2;
    }
    FILE *script = fopen(argv[1], "r");
    FILE *results = fopen(argv[2], "w");
    if (!script || !results) {
        perror("report_tool: open");
        return 2;
    }
    VmafContext *vmaf = NULL;
    int status = 0;
    char line[4096];
    while (!status && fgets(line, sizeof(line), script)) {
        char cmd[32], a[2048], b[2048], c[2048];
        int n = sscanf(line, "%31s %2047s %2047s %2047s", cmd, a, b, c);
        if (n < 1)
            continue;
        if (!strcmp(cmd, "init") && n == 2) {
            VmafConfiguration cfg = { .log_level = VMAF_LOG_LEVEL_ERROR,
                                      .n_subsample = (unsigned)atoi(a) };
            if (vmaf_init(&vmaf, cfg))
                status = 1;
        } else if (!strcmp(cmd, "score") && n == 4 && vmaf) {
            char *name = unhex(a);
            if (!name || vmaf_import_feature_score(vmaf, name, strtod(c, NULL),
                                                   (unsigned)strtoul(b, NULL, 10)))
                status = 1;
            free(name);
        } else if (!strcmp(cmd, "pictures") && n == 4 && vmaf) {
            status = score_pictures(vmaf, (unsigned)atoi(a), (unsigned)atoi(b), (unsigned)atoi(c));
        } else if (!strcmp(cmd, "locale") && n == 2) {
            /* The application's locale must not leak into the reports. */
            if (!setlocale(LC_ALL, a)) {
                status = 77;
                break;
            }
            fprintf(stderr, "locale %s formats 0.5 as %.1f\n", a, 0.5);
        } else if (!strcmp(cmd, "fsize") && n == 2) {
            signal(SIGXFSZ, SIG_IGN);
            struct rlimit rl = { .rlim_cur = strtoul(a, NULL, 10), .rlim_max = RLIM_INFINITY };
            if (setrlimit(RLIMIT_FSIZE, &rl))
                status = 1;
        } else if (!strcmp(cmd, "syncfail") && (n == 2 || n == 3)) {
#if WRAP_FSYNC
            sync_errno = atoi(a);
            sync_after = n == 3 ? atol(b) : 0;
#else
            (void)sync_errno;
            (void)sync_after;
            status = 77;
            break;
#endif
        } else if (!strcmp(cmd, "write") && n == 4 && vmaf) {
            char *fmt = strcmp(c, "-") ? unhex(c) : NULL;
            if (strcmp(c, "-") && !fmt) {
                status = 1;
                break;
            }
            int err = fmt ? vmaf_write_output_with_format(vmaf, b, parse_fmt(a), fmt)
                          : vmaf_write_output(vmaf, b, parse_fmt(a));
            free(fmt);
            fprintf(results, "%d\n", err);
            fflush(results);
        } else {
            fprintf(stderr, "report_tool: bad script line: %s", line);
            status = 2;
        }
    }
    if (vmaf_close(vmaf) && !status)
        status = 1;
    fclose(script);
    if (fclose(results) && !status)
        status = 1;
    return status;
}
