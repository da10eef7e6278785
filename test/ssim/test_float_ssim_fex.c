/*
 * The float_ssim extractor entry itself: its table (names, options, flags),
 * option parsing into its private struct, init refusals, the dB outputs and
 * the checks of extract. Golden scores are test_ssim_parity's job.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "dict.h"
#include "feature/feature_collector.h"
#include "feature/feature_extractor.h"
#include "feature/ssim/ssim.h"

extern const VmafFeatureExtractor vmaf_fex_float_ssim;

static const VmafOption *option(const char *name)
{
    for (const VmafOption *o = vmaf_fex_float_ssim.options; o && o->name; o++)
        if (!strcmp(o->name, name))
            return o;
    return NULL;
}

static void table(void)
{
    const VmafFeatureExtractor *f = &vmaf_fex_float_ssim;
    CHECK(!strcmp(f->name, "float_ssim"), "name %s", f->name);
    CHECK(f->backend == VMAF_FEX_BACKEND_CPU && !f->twin_of, "backend");
    CHECK(f->flags & VMAF_FEX_FLAG_FRAME_PARALLEL, "not frame parallel");
    CHECK(f->init && f->extract && f->close && !f->submit && !f->collect, "entry points");
    static const char *const feats[] = {"float_ssim", "float_ssim_l", "float_ssim_c",
                                        "float_ssim_s", NULL};
    for (int i = 0; i < 5; i++)
        CHECK(feats[i] ? (f->provided_features[i] && !strcmp(f->provided_features[i], feats[i]))
                       : !f->provided_features[i],
              "provided feature %d", i);

    const VmafOption *o = option("scale");
    CHECK(o && o->type == VMAF_OPT_TYPE_INT && o->def.i == 0 && o->min == 0 && o->max == 10 &&
              o->help && !strcmp(o->help, "decimation scale, 0 = automatic from the picture size"),
          "scale option");
    static const char *const bools[] = {"enable_lcs", "enable_db", "clip_db"};
    for (int i = 0; i < 3; i++) {
        o = option(bools[i]);
        CHECK(o && o->type == VMAF_OPT_TYPE_BOOL && !o->def.b && o->help && *o->help,
              "option %s", bools[i]);
    }
    int n = 0;
    for (o = f->options; o->name; o++) {
        n++;
        CHECK(o->offset < f->priv_size, "option %s lies outside priv", o->name);
    }
    CHECK(n == 4, "%d options", n);
}

/* A live instance: priv zeroed, options parsed from "k=v:k=v", init run. */
typedef struct Inst {
    VmafFex fex;
    int init_err;
} Inst;

static int inst_open(Inst *in, const char *opts, unsigned w, unsigned h, unsigned bpc)
{
    memset(in, 0, sizeof(*in));
    in->fex.fex = &vmaf_fex_float_ssim;
    in->fex.priv = calloc(1, vmaf_fex_float_ssim.priv_size);
    in->fex.w = w, in->fex.h = h, in->fex.bpc = bpc;
    VmafFeatureDictionary *d = NULL;
    char buf[128];
    snprintf(buf, sizeof(buf), "%s", opts);
    for (char *save = NULL, *kv = strtok_r(buf, ":", &save); kv; kv = strtok_r(NULL, ":", &save)) {
        char *eq = strchr(kv, '=');
        *eq = '\0';
        vmaf_feature_dictionary_set(&d, kv, eq + 1);
    }
    int err = vmaf_fex_parse_options(&vmaf_fex_float_ssim, in->fex.priv, d);
    vmaf_feature_dictionary_free(&d);
    if (err)
        return err;
    in->init_err = vmaf_fex_float_ssim.init(&in->fex);
    return in->init_err;
}

static void inst_close(Inst *in)
{
    vmaf_fex_float_ssim.close(&in->fex);
    vmaf_fex_float_ssim.close(&in->fex); /* twice: must be harmless */
    free(in->fex.priv);
}

static void fill(VmafPicture *p, unsigned seed, int noise)
{
    for (unsigned y = 0; y < p->h[0]; y++)
        for (unsigned x = 0; x < p->w[0]; x++) {
            unsigned v = (x * 5 + y * 3 + seed) & 255;
            if (noise)
                v = (v + ((x * 7919u + y * 104729u) % 17)) & 255;
            char *row = (char *)p->data[0] + (ptrdiff_t)y * p->stride[0];
            if (p->bpc == 8)
                ((uint8_t *)row)[x] = (uint8_t)v;
            else
                ((uint16_t *)(void *)row)[x] = (uint16_t)(v << (p->bpc - 8));
        }
}

static void refusals(void)
{
    Inst in;
    CHECK(inst_open(&in, "", 10, 10, 8) == -EINVAL, "10x10 accepted");
    inst_close(&in);
    CHECK(inst_open(&in, "scale=10", 100, 60, 8) == -EINVAL, "100x60 scale 10 accepted");
    inst_close(&in);
    CHECK(inst_open(&in, "scale=5", 100, 60, 8) == 0, "100x60 scale 5 refused");
    inst_close(&in);
    CHECK(inst_open(&in, "", 64, 48, 9) == -EINVAL, "9-bit accepted");
    inst_close(&in);
    CHECK(inst_open(&in, "scale=11", 64, 48, 8) == -EINVAL, "scale=11 accepted");
    inst_close(&in);
    CHECK(inst_open(&in, "clip_db=maybe", 64, 48, 8) == -EINVAL, "clip_db=maybe accepted");
    inst_close(&in);
    CHECK(inst_open(&in, "scale=2", 11, 11, 8) == -EINVAL, "11x11 at scale 2 accepted");
    inst_close(&in);
    CHECK(inst_open(&in, "", 11, 11, 8) == 0, "11x11 refused");
    inst_close(&in);
}

static int extract_pair(VmafFex *fex, const VmafPicture *r, const VmafPicture *d, unsigned index,
                        VmafFeatureCollector *fc)
{
    const VmafFexFrame frame = { .ref = r, .dist = d, .index = index };
    return vmaf_fex_float_ssim.extract(fex, &frame, fc);
}

/* Scores one pair with options; returns the extract status. */
static int score(const char *opts, unsigned w, unsigned h, unsigned bpc, int identical,
                 VmafFeatureCollector **fc_out)
{
    Inst in;
    int err = inst_open(&in, opts, w, h, bpc);
    CHECK(!err, "init %s %ux%u: %d", opts, w, h, err);
    VmafPicture r, d;
    vmaf_picture_alloc(&r, VMAF_PIX_FMT_YUV420P, bpc, w, h);
    vmaf_picture_alloc(&d, VMAF_PIX_FMT_YUV420P, bpc, w, h);
    fill(&r, 0, 0);
    fill(&d, 0, !identical);
    VmafFeatureCollector *fc = NULL;
    vmaf_feature_collector_init(&fc);
    if (!err)
        err = extract_pair(&in.fex, &r, &d, 0, fc);
    vmaf_picture_unref(&r);
    vmaf_picture_unref(&d);
    inst_close(&in);
    *fc_out = fc;
    return err;
}

static void outputs(void)
{
    VmafFeatureCollector *fc;
    double v, lin, l;

    /* plain: one feature only */
    CHECK(score("", 64, 48, 8, 0, &fc) == 0, "extract");
    CHECK(!vmaf_feature_collector_get(fc, "float_ssim", &lin, 0) && lin > 0 && lin < 1,
          "float_ssim %g", lin);
    CHECK(vmaf_feature_collector_get(fc, "float_ssim_l", &l, 0), "float_ssim_l without lcs");
    vmaf_feature_collector_destroy(fc);

    /* lcs: four features, score is the f32 value */
    CHECK(score("enable_lcs=true", 64, 48, 8, 0, &fc) == 0, "extract lcs");
    CHECK(!vmaf_feature_collector_get(fc, "float_ssim", &v, 0) && v == lin, "lcs changed score");
    CHECK(v == (double)(float)v, "score %.17g is not an f32 value", v);
    for (int i = 0; i < 3; i++) {
        static const char *const n[] = {"float_ssim_l", "float_ssim_c", "float_ssim_s"};
        CHECK(!vmaf_feature_collector_get(fc, n[i], &l, 0) && l > 0 && l <= 1, "%s", n[i]);
    }
    vmaf_feature_collector_destroy(fc);

    /* dB */
    CHECK(score("enable_db=true:enable_lcs=true", 64, 48, 8, 0, &fc) == 0, "extract db");
    CHECK(!vmaf_feature_collector_get(fc, "float_ssim", &v, 0) &&
              v == -10.0 * log10(1.0 - lin),
          "db %.17g vs %.17g", v, -10.0 * log10(1.0 - lin));
    CHECK(!vmaf_feature_collector_get(fc, "float_ssim_l", &l, 0) && l <= 1, "l converted to dB");
    vmaf_feature_collector_destroy(fc);

    /* identical frames: +inf without clip, the cap with it (original size
     * and depth: 10-bit 64x48 here) */
    CHECK(score("enable_db=true", 64, 48, 10, 1, &fc) == 0, "extract db identical");
    CHECK(!vmaf_feature_collector_get(fc, "float_ssim", &v, 0) && isinf(v) && v > 0,
          "identical db %g", v);
    vmaf_feature_collector_destroy(fc);
    CHECK(score("enable_db=true:clip_db=true", 64, 48, 10, 1, &fc) == 0, "extract clip");
    const double cap = ceil(10.0 * log10((double)(1023u * 1023u) / (0.5 / (64.0 * 48.0))));
    CHECK(!vmaf_feature_collector_get(fc, "float_ssim", &v, 0) && v == cap,
          "clip %.17g, want %.17g", v, cap);
    vmaf_feature_collector_destroy(fc);
    /* clip_db alone changes nothing */
    CHECK(score("clip_db=true", 64, 48, 8, 0, &fc) == 0, "extract clip only");
    CHECK(!vmaf_feature_collector_get(fc, "float_ssim", &v, 0) && v == lin, "clip alone %g", v);
    vmaf_feature_collector_destroy(fc);
}

static void extract_checks(void)
{
    Inst in;
    CHECK(inst_open(&in, "", 64, 48, 8) == 0, "init");
    VmafPicture r, d;
    vmaf_picture_alloc(&r, VMAF_PIX_FMT_YUV420P, 8, 64, 48);
    vmaf_picture_alloc(&d, VMAF_PIX_FMT_YUV420P, 8, 64, 40); /* wrong height */
    fill(&r, 0, 0);
    VmafFeatureCollector *fc = NULL;
    vmaf_feature_collector_init(&fc);
    CHECK(extract_pair(&in.fex, &r, &d, 0, fc) == -EINVAL, "size mismatch");
    vmaf_picture_unref(&d);
    vmaf_picture_alloc(&d, VMAF_PIX_FMT_YUV420P, 8, 72, 48); /* wrong width only */
    CHECK(extract_pair(&in.fex, &r, &d, 0, fc) == -EINVAL, "width mismatch");
    vmaf_picture_unref(&d);
    vmaf_picture_alloc(&d, VMAF_PIX_FMT_YUV420P, 10, 64, 48); /* wrong depth */
    CHECK(extract_pair(&in.fex, &r, &d, 0, fc) == -EINVAL, "depth mismatch");
    vmaf_picture_unref(&d);
    vmaf_picture_alloc(&d, VMAF_PIX_FMT_YUV420P, 8, 64, 48);
    fill(&d, 1, 1);
    CHECK(extract_pair(&in.fex, &r, &d, 3, fc) == 0, "extract");
    /* the same index twice is the collector's error, passed on */
    CHECK(extract_pair(&in.fex, &r, &d, 3, fc) < 0, "index stored twice");
    vmaf_picture_unref(&r);
    vmaf_picture_unref(&d);
    vmaf_feature_collector_destroy(fc);
    inst_close(&in);
}

int main(void)
{
    table();
    refusals();
    outputs();
    extract_checks();
    if (check_failures) {
        printf("%d check(s) failed\n", check_failures);
        return 1;
    }
    printf("float_ssim extractor checks passed\n");
    return 0;
}
