/* libFuzzer harness for the model loader: any bytes are loaded as a model
 * and as a collection; whatever loads is also used for a prediction, so
 * that a model the loader accepts can never break scoring later.
 * Built with -DFUZZ_REPLAY_MAIN it is a plain program that replays files
 * (the seed corpus runs this way in every build): a file named broken_*
 * must load neither way, any other at least one way. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libvmaf/libvmaf.h"
#include "libvmaf/model.h"

#include "feature/feature_collector.h"
#include "log.h"
#include "model/model_internal.h"

static void feed(VmafFeatureCollector *fc, const VmafModel *m, double v)
{
    for (unsigned i = 0; i < m->n_features; i++)
        vmaf_feature_collector_set(fc, m->feature[i].name, v, 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Returns how many of the two loaders took the input. */
static int load_and_predict(const uint8_t *data, size_t size)
{
    int loaded = 0;
    vmaf_log_set_level(VMAF_LOG_LEVEL_NONE);
    static const double values[] = {0.0, 0.5, 1.0, -3.0, 1e6};

    VmafModel *m = NULL;
    VmafModelConfig cfg = {.name = "fuzz", .flags = VMAF_MODEL_FLAG_ENABLE_TRANSFORM};
    if (!vmaf_model_load_from_buffer(&m, &cfg, (const char *)data, size, "fuzz input")) {
        loaded++;
        for (size_t k = 0; k < sizeof(values) / sizeof(values[0]); k++) {
            VmafFeatureCollector *fc;
            if (vmaf_feature_collector_init(&fc))
                break;
            feed(fc, m, values[k]);
            double s;
            (void)vmaf_model_predict(m, fc, 0, 0, &s);
            vmaf_feature_collector_destroy(fc);
        }
        vmaf_model_destroy(m);
    }

    VmafModelCollection *mc = NULL;
    if (!vmaf_model_collection_load_from_buffer(&m, &mc, &cfg, (const char *)data, size,
                                                "fuzz input")) {
        loaded++;
        VmafFeatureCollector *fc;
        if (!vmaf_feature_collector_init(&fc)) {
            feed(fc, m, 0.5);
            for (unsigned i = 0; i < mc->cnt; i++)
                feed(fc, mc->model[i], 0.5);
            VmafModelCollectionScore s;
            (void)vmaf_model_collection_predict(mc, fc, 0, &s);
            vmaf_feature_collector_destroy(fc);
        }
        vmaf_model_collection_destroy(mc);
        vmaf_model_destroy(m);
    }
    return loaded;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    (void)load_and_predict(data, size);
    return 0;
}

#ifdef FUZZ_REPLAY_MAIN
int main(int argc, char **argv)
{
    int n = 0, wrong = 0;
    for (int i = 1; i < argc; i++) {
        FILE *f = fopen(argv[i], "rb");
        if (!f) {
            fprintf(stderr, "cannot open %s\n", argv[i]);
            return 1;
        }
        fseek(f, 0, SEEK_END);
        const long len = ftell(f);
        fseek(f, 0, SEEK_SET);
        uint8_t *buf = malloc(len > 0 ? (size_t)len : 1);
        if (!buf || fread(buf, 1, (size_t)len, f) != (size_t)len) {
            fprintf(stderr, "cannot read %s\n", argv[i]);
            return 1;
        }
        fclose(f);
        const int loaded = load_and_predict(buf, (size_t)len);
        free(buf);
        const char *base = strrchr(argv[i], '/');
        base = base ? base + 1 : argv[i];
        const int broken = !strncmp(base, "broken_", 7);
        if (broken ? loaded != 0 : loaded == 0) {
            fprintf(stderr, "FAIL %s: %s\n", argv[i],
                    broken ? "loaded, but it is broken" : "loaded neither as a model nor as a "
                                                          "collection");
            wrong++;
        }
        n++;
    }
    printf("replayed %d inputs, %d not as expected\n", n, wrong);
    return n == argc - 1 && n > 0 && !wrong ? 0 : 1;
}
#endif
