/* libFuzzer harness: extractor options as a caller gives them. The input is
 * "NAME\0k=v:k=v\0k=v:k=v": an extractor or feature name, the options of a
 * vmaf_use_feature() request, and those of a second request of the same
 * name (as a model beside --feature makes). Every call returns (never
 * crashes or aborts), a refusal logs exactly one error line, whatever the
 * library took it frees, and an accepted request scores a first frame or
 * says why in one line.
 *
 * Built with -DFUZZ_REPLAY_MAIN it is a plain program that replays files
 * (every build runs the seeds this way): a file named refused_* must have
 * its first request refused; second_refused_* its first accepted, its
 * second refused and its frame scored; any other every request accepted
 * and its frame scored. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libvmaf/libvmaf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static unsigned error_lines;

/* What the last input did, for the replay's verdict. */
static struct {
    int first, second, frame;
} outcome;

static void count_errors(void *opaque, enum VmafLogLevel level, const char *msg)
{
    (void)opaque;
    if (level == VMAF_LOG_LEVEL_ERROR)
        error_lines++;
#ifdef FUZZ_REPLAY_MAIN
    fprintf(stderr, "  %s\n", msg);
#else
    (void)msg;
#endif
}

/* "k=v:k=v" into a dictionary; NULL for an empty string. */
static VmafFeatureDictionary *parse_options(char *text)
{
    VmafFeatureDictionary *d = NULL;
    char *save = NULL;
    for (char *kv = strtok_r(text, ":", &save); kv; kv = strtok_r(NULL, ":", &save)) {
        char *eq = strchr(kv, '=');
        if (eq)
            *eq = '\0';
        if (vmaf_feature_dictionary_set(&d, kv, eq ? eq + 1 : ""))
            break;
    }
    return d;
}

/* Whether a refusal of `name` left the dictionary with the caller: an
 * unknown name, or a GPU twin without CUDA (libvmaf.h, vmaf_use_feature).
 * A fresh context asked for the defaults tells which it was. */
static bool caller_keeps_dictionary(const char *name, int err)
{
    if (err == -ENODEV)
        return true;
    if (err != -EINVAL)
        return false;
    VmafContext *probe = NULL;
    VmafConfiguration cfg = { .log_level = VMAF_LOG_LEVEL_ERROR };
    bool unknown = false;
    if (!vmaf_init(&probe, cfg)) {
        unknown = vmaf_use_feature(probe, name, NULL) == -EINVAL;
        vmaf_close(probe);
    }
    return unknown;
}

static int request(VmafContext *ctx, const char *name, char *text)
{
    VmafFeatureDictionary *d = parse_options(text);
    error_lines = 0;
    const int err = vmaf_use_feature(ctx, name, d);
    if (err && error_lines != 1) {
        fprintf(stderr, "\"%s\" refused (%d) with %u error lines, not one\n", name, err,
                error_lines);
        abort();
    }
    if (err && caller_keeps_dictionary(name, err))
        vmaf_feature_dictionary_free(&d);
    return err;
}

/* Scores one 48x32 frame and flushes; a failure must say why in one line. */
static int score_one_frame(VmafContext *ctx)
{
    VmafPicture ref, dis;
    if (vmaf_picture_alloc(&ref, VMAF_PIX_FMT_YUV420P, 8, 48, 32))
        return -ENOMEM;
    if (vmaf_picture_alloc(&dis, VMAF_PIX_FMT_YUV420P, 8, 48, 32)) {
        vmaf_picture_unref(&ref);
        return -ENOMEM;
    }
    for (unsigned y = 0; y < 32; y++)
        for (unsigned x = 0; x < 48; x++) {
            ((uint8_t *)ref.data[0])[y * ref.stride[0] + x] = (uint8_t)(x * 5 + y * 3);
            ((uint8_t *)dis.data[0])[y * dis.stride[0] + x] = (uint8_t)(x * 5 + y * 2);
        }
    error_lines = 0;
    int err = vmaf_read_pictures(ctx, &ref, &dis, 0);
    if (!err)
        err = vmaf_read_pictures(ctx, NULL, NULL, 0);
    if (err && error_lines != 1) {
        fprintf(stderr, "scoring failed (%d) with %u error lines, not one\n", err, error_lines);
        abort();
    }
    return err;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* Three terminators, so that every one of the three fields exists. */
    char *buf = malloc(size + 3);
    if (!buf)
        return 0;
    memcpy(buf, data, size);
    buf[size] = buf[size + 1] = buf[size + 2] = '\0';
    const char *name = buf;
    char *first = buf + strlen(name) + 1;
    char *second = first + strlen(first) + 1;
    const bool has_second = second <= buf + size;
    outcome.first = outcome.second = outcome.frame = -1;
    vmaf_set_log_callback(count_errors, NULL);
    VmafContext *ctx = NULL;
    VmafConfiguration cfg = { .log_level = VMAF_LOG_LEVEL_ERROR };
    if (!vmaf_init(&ctx, cfg)) {
        outcome.first = request(ctx, name, first);
        outcome.second = has_second ? request(ctx, name, second) : 0;
        if (!outcome.first || !outcome.second)
            outcome.frame = score_one_frame(ctx);
        vmaf_close(ctx);
    }
    vmaf_set_log_callback(NULL, NULL);
    free(buf);
    return 0;
}

#ifdef FUZZ_REPLAY_MAIN
static int replay(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "%s: cannot open\n", path);
        return 1;
    }
    static uint8_t data[1 << 16];
    const size_t n = fread(data, 1, sizeof(data), f);
    fclose(f);
    LLVMFuzzerTestOneInput(data, n);
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    const bool refused = !strncmp(base, "refused_", 8);
    const bool second_refused = !strncmp(base, "second_refused_", 15);
    const bool ok = refused ? outcome.first < 0
                            : !outcome.first && (outcome.second < 0) == second_refused &&
                                  !outcome.frame;
    if (!ok)
        fprintf(stderr, "%s: requests %d, %d, frame %d; expected %s\n", base, outcome.first,
                outcome.second, outcome.frame,
                refused          ? "the first request refused"
                : second_refused ? "the second request refused, the frame scored"
                                 : "all accepted and scored");
    return !ok;
}

int main(int argc, char **argv)
{
    int failed = 0;
    for (int i = 1; i < argc; i++)
        failed += replay(argv[i]);
    printf("fuzz_feature_options: %d inputs replayed, %d unexpected\n", argc - 1, failed);
    return failed != 0 || argc < 2;
}
#endif
