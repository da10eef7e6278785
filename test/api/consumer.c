/*
 * A consumer of the public API written the way FFmpeg's libvmaf filter uses
 * it: one context, features chosen by name with an option dictionary,
 * pictures allocated by the library and filled row by row, one
 * vmaf_read_pictures() per frame, a flush, per-frame and pooled scores, a
 * report, close. It includes <libvmaf.h> as FFmpeg does, so it builds only
 * when pkg-config's Cflags give both include roots.
 *
 * usage: consumer REF DIS WIDTH HEIGHT FMT BPC OPTIONS REPORT [THREADS]
 *   FMT      420, 422, 444 or 400; raw planar frames, 16-bit little-endian
 *            samples above 8 bits
 *   OPTIONS  float_ssim options as k=v:k=v, or "" for the defaults
 *   REPORT   JSON report path, or "" for none
 * Prints "frame N FEATURE VALUE" and "pooled FEATURE METHOD VALUE" lines with
 * %.17g, so that a script can compare them with golden values as doubles.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libvmaf.h>

static enum VmafPixelFormat parse_fmt(const char *s)
{
    if (!strcmp(s, "420"))
        return VMAF_PIX_FMT_YUV420P;
    if (!strcmp(s, "422"))
        return VMAF_PIX_FMT_YUV422P;
    if (!strcmp(s, "444"))
        return VMAF_PIX_FMT_YUV444P;
    if (!strcmp(s, "400"))
        return VMAF_PIX_FMT_YUV400P;
    return VMAF_PIX_FMT_UNKNOWN;
}

/* Reads one frame into a freshly allocated picture; 1 at end of file. */
static int read_frame(FILE *f, VmafPicture *pic, enum VmafPixelFormat fmt, unsigned bpc,
                      unsigned w, unsigned h)
{
    int err = vmaf_picture_alloc(pic, fmt, bpc, w, h);
    if (err) {
        fprintf(stderr, "consumer: vmaf_picture_alloc: %d\n", err);
        return err;
    }
    const size_t bytes = bpc > 8 ? 2 : 1;
    for (unsigned p = 0; p < 3 && pic->w[p]; p++) {
        uint8_t *row = pic->data[p];
        for (unsigned y = 0; y < pic->h[p]; y++, row += pic->stride[p]) {
            size_t n = fread(row, bytes, pic->w[p], f);
            if (n != pic->w[p]) {
                vmaf_picture_unref(pic);
                if (p == 0 && y == 0 && n == 0 && feof(f))
                    return 1;
                fprintf(stderr, "consumer: truncated frame\n");
                return -EIO;
            }
        }
    }
    return 0;
}

/* Splits "k=v:k=v" into a dictionary, as FFmpeg's filter does. */
static int parse_options(const char *s, VmafFeatureDictionary **d)
{
    char buf[1024];
    if (strlen(s) >= sizeof(buf))
        return -EINVAL;
    strcpy(buf, s);
    for (char *tok = strtok(buf, ":"); tok; tok = strtok(NULL, ":")) {
        char *eq = strchr(tok, '=');
        if (!eq)
            return -EINVAL;
        *eq = '\0';
        int err = vmaf_feature_dictionary_set(d, tok, eq + 1);
        if (err)
            return err;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 9) {
        fprintf(stderr, "usage: consumer REF DIS WIDTH HEIGHT FMT BPC OPTIONS REPORT [THREADS]\n");
        return 2;
    }
    const unsigned w = (unsigned)strtoul(argv[3], NULL, 10);
    const unsigned h = (unsigned)strtoul(argv[4], NULL, 10);
    const enum VmafPixelFormat fmt = parse_fmt(argv[5]);
    const unsigned bpc = (unsigned)strtoul(argv[6], NULL, 10);
    const char *options = argv[7], *report = argv[8];
    const unsigned threads = argc > 9 ? (unsigned)strtoul(argv[9], NULL, 10) : 0;

    FILE *fref = fopen(argv[1], "rb"), *fdis = fopen(argv[2], "rb");
    if (!fref || !fdis) {
        fprintf(stderr, "consumer: cannot open the inputs\n");
        return 1;
    }

    VmafConfiguration cfg = {
        .log_level = VMAF_LOG_LEVEL_INFO,
        .n_threads = threads,
        .n_subsample = 1,
    };
    VmafContext *vmaf = NULL;
    int err = vmaf_init(&vmaf, cfg);
    if (err) {
        fprintf(stderr, "consumer: vmaf_init: %d\n", err);
        return 1;
    }

    VmafFeatureDictionary *opts = NULL;
    err = parse_options(options, &opts);
    if (err) {
        fprintf(stderr, "consumer: bad options \"%s\": %d\n", options, err);
        vmaf_feature_dictionary_free(&opts);
        vmaf_close(vmaf);
        return 1;
    }
    const int lcs = strstr(options, "enable_lcs=true") != NULL;
    err = vmaf_use_feature(vmaf, "float_ssim", opts);
    if (err) {
        fprintf(stderr, "consumer: vmaf_use_feature: %d\n", err);
        vmaf_close(vmaf);
        return 1;
    }

    unsigned frames = 0;
    for (;;) {
        VmafPicture ref, dist;
        err = read_frame(fref, &ref, fmt, bpc, w, h);
        if (err)
            break;
        err = read_frame(fdis, &dist, fmt, bpc, w, h);
        if (err) {
            vmaf_picture_unref(&ref);
            break;
        }
        err = vmaf_read_pictures(vmaf, &ref, &dist, frames);
        if (err) {
            fprintf(stderr, "consumer: vmaf_read_pictures: %d\n", err);
            break;
        }
        frames++;
    }
    fclose(fref);
    fclose(fdis);
    if (err < 0 || !frames) {
        vmaf_close(vmaf);
        return 1;
    }

    err = vmaf_read_pictures(vmaf, NULL, NULL, 0);
    if (err) {
        fprintf(stderr, "consumer: flush: %d\n", err);
        vmaf_close(vmaf);
        return 1;
    }

    static const char *const names[] = { "float_ssim", "float_ssim_l", "float_ssim_c",
                                         "float_ssim_s" };
    const unsigned n_names = lcs ? 4 : 1;
    int status = 0;
    for (unsigned i = 0; i < frames; i++)
        for (unsigned k = 0; k < n_names; k++) {
            double score;
            err = vmaf_feature_score_at_index(vmaf, names[k], &score, i);
            if (err) {
                fprintf(stderr, "consumer: score of %s at %u: %d\n", names[k], i, err);
                status = 1;
                continue;
            }
            printf("frame %u %s %.17g\n", i, names[k], score);
        }
    static const struct {
        enum VmafPoolingMethod m;
        const char *name;
    } pools[] = { { VMAF_POOL_METHOD_MIN, "min" },
                  { VMAF_POOL_METHOD_MAX, "max" },
                  { VMAF_POOL_METHOD_MEAN, "mean" },
                  { VMAF_POOL_METHOD_HARMONIC_MEAN, "harmonic_mean" } };
    for (unsigned k = 0; k < n_names; k++)
        for (unsigned p = 0; p < sizeof(pools) / sizeof(pools[0]); p++) {
            double score;
            err = vmaf_feature_score_pooled(vmaf, names[k], pools[p].m, &score, 0, frames - 1);
            if (err) {
                fprintf(stderr, "consumer: pooled %s %s: %d\n", names[k], pools[p].name, err);
                status = 1;
                continue;
            }
            printf("pooled %s %s %.17g\n", names[k], pools[p].name, score);
        }

    if (report[0]) {
        err = vmaf_write_output(vmaf, report, VMAF_OUTPUT_FORMAT_JSON);
        if (err) {
            fprintf(stderr, "consumer: vmaf_write_output: %d\n", err);
            status = 1;
        }
    }
    err = vmaf_close(vmaf);
    if (err) {
        fprintf(stderr, "consumer: vmaf_close: %d\n", err);
        status = 1;
    }
    printf("version %s\n", vmaf_version());
    return status;
}
