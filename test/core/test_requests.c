/* How repeated and feature-name requests of one extractor combine: asking
 * for float_ssim_l turns enable_lcs on, two requests that differ only in an
 * option that adds outputs share one extractor with it on, and any other
 * difference is an error naming the option. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "libvmaf/libvmaf.h"

#include "check.h"
#include "dict.h"
#include "feature/feature_extractor.h"

extern const VmafFeatureExtractor vmaf_fex_float_ssim;

static VmafFeatureDictionary *opts(const char *k, const char *v)
{
    VmafFeatureDictionary *d = NULL;
    if (k && vmaf_feature_dictionary_set(&d, k, v))
        abort();
    return d;
}

static VmafContext *context(void)
{
    VmafContext *v = NULL;
    if (vmaf_init(&v, (VmafConfiguration){ .log_level = VMAF_LOG_LEVEL_NONE }))
        abort();
    return v;
}

/* Scores one 64x48 frame of a gradient against a noisier copy. */
static int score_one(VmafContext *v)
{
    VmafPicture r, d;
    if (vmaf_picture_alloc(&r, VMAF_PIX_FMT_YUV400P, 8, 64, 48) ||
        vmaf_picture_alloc(&d, VMAF_PIX_FMT_YUV400P, 8, 64, 48))
        abort();
    uint32_t s = 12345;
    for (unsigned y = 0; y < 48; y++)
        for (unsigned x = 0; x < 64; x++) {
            s = s * 1103515245u + 12345u;
            ((uint8_t *)r.data[0])[y * r.stride[0] + x] = (uint8_t)(x * 3 + y);
            ((uint8_t *)d.data[0])[y * d.stride[0] + x] = (uint8_t)(x * 3 + y + (s >> 29));
        }
    int err = vmaf_read_pictures(v, &r, &d, 0);
    if (!err)
        err = vmaf_read_pictures(v, NULL, NULL, 0);
    return err;
}

static char logged[512];

static void keep_warning(void *opaque, enum VmafLogLevel level, const char *message)
{
    (void)opaque;
    if (level == VMAF_LOG_LEVEL_WARNING)
        snprintf(logged, sizeof(logged), "%s", message);
}

static void keep_error(void *opaque, enum VmafLogLevel level, const char *message)
{
    (void)opaque;
    if (level == VMAF_LOG_LEVEL_ERROR)
        snprintf(logged, sizeof(logged), "%s", message);
}

/* What vmaf_use_feature() warns about float_ssim with these options. */
static const char *warned(const char *k1, const char *v1, const char *k2, const char *v2)
{
    VmafContext *v = NULL;
    if (vmaf_init(&v, (VmafConfiguration){ .log_level = VMAF_LOG_LEVEL_WARNING }))
        abort();
    VmafFeatureDictionary *d = opts(k1, v1);
    if (k2 && vmaf_feature_dictionary_set(&d, k2, v2))
        abort();
    logged[0] = '\0';
    vmaf_set_log_callback(keep_warning, NULL);
    CHECK_INT(vmaf_use_feature(v, "float_ssim", d), 0);
    vmaf_set_log_callback(NULL, NULL);
    vmaf_close(v);
    return logged;
}

/* What vmaf_use_feature() refuses a second float_ssim request with, after a
 * first one with scale=1. */
static const char *refused(const char *k1, const char *v1, const char *k2, const char *v2)
{
    VmafContext *v = NULL;
    if (vmaf_init(&v, (VmafConfiguration){ .log_level = VMAF_LOG_LEVEL_ERROR }))
        abort();
    CHECK_INT(vmaf_use_feature(v, "float_ssim", opts("scale", "1")), 0);
    VmafFeatureDictionary *d = opts(k1, v1);
    if (k2 && vmaf_feature_dictionary_set(&d, k2, v2))
        abort();
    logged[0] = '\0';
    vmaf_set_log_callback(keep_error, NULL);
    CHECK_INT(vmaf_use_feature(v, "float_ssim", d), -EINVAL);
    vmaf_set_log_callback(NULL, NULL);
    vmaf_close(v);
    return logged;
}

static int has(VmafContext *v, const char *name)
{
    double x;
    return !vmaf_feature_score_at_index(v, name, &x, 0);
}

int main(void)
{
    /* The option that a feature needs, from the table. */
    const VmafOption *o = vmaf_fex_option_enabling(&vmaf_fex_float_ssim, "float_ssim_c");
    CHECK(o && !strcmp(o->name, "enable_lcs"));
    CHECK(!vmaf_fex_option_enabling(&vmaf_fex_float_ssim, "float_ssim"));

    /* Merging: equal values (an absent option equals its default) merge;
     * enable_lcs is switched on; scale must agree. */
    VmafFeatureDictionary *a = opts("scale", "0"), *b = NULL, *m = NULL;
    const char *conflict = "x";
    CHECK_INT(vmaf_fex_merge_options(&vmaf_fex_float_ssim, a, b, &m, &conflict), 0);
    CHECK(!conflict);
    vmaf_feature_dictionary_free(&m);
    b = opts("enable_lcs", "true");
    CHECK_INT(vmaf_fex_merge_options(&vmaf_fex_float_ssim, a, b, &m, &conflict), 0);
    CHECK(m && vmaf_dict_get(m, "enable_lcs") && !strcmp(vmaf_dict_get(m, "enable_lcs"), "true"));
    vmaf_feature_dictionary_free(&m);
    vmaf_feature_dictionary_free(&b);
    b = opts("scale", "2");
    CHECK_INT(vmaf_fex_merge_options(&vmaf_fex_float_ssim, a, b, &m, &conflict), -EINVAL);
    CHECK(!m && conflict && !strcmp(conflict, "scale"));
    vmaf_feature_dictionary_free(&a);
    vmaf_feature_dictionary_free(&b);

    /* By feature name: float_ssim_l brings enable_lcs. */
    VmafContext *v = context();
    CHECK_INT(vmaf_use_feature(v, "float_ssim_l", NULL), 0);
    CHECK_INT(score_one(v), 0);
    CHECK(has(v, "float_ssim") && has(v, "float_ssim_l") && has(v, "float_ssim_s"));
    vmaf_close(v);

    /* ... but not against an explicit enable_lcs=false. */
    v = context();
    CHECK_INT(vmaf_use_feature(v, "float_ssim_l", opts("enable_lcs", "false")), -EINVAL);
    vmaf_close(v);

    /* A plain request and one with enable_lcs (say, --feature and a model)
     * share one extractor, with the outputs of both. */
    v = context();
    CHECK_INT(vmaf_use_feature(v, "float_ssim", NULL), 0);
    CHECK_INT(vmaf_use_feature(v, "float_ssim", opts("enable_lcs", "true")), 0);
    CHECK_INT(vmaf_use_feature(v, "float_ssim", opts("scale", "0")), 0);
    CHECK_INT(score_one(v), 0);
    CHECK(has(v, "float_ssim") && has(v, "float_ssim_c"));
    vmaf_close(v);

    /* Requests that disagree on what is computed are refused. */
    v = context();
    CHECK_INT(vmaf_use_feature(v, "float_ssim", opts("scale", "1")), 0);
    CHECK_INT(vmaf_use_feature(v, "float_ssim", opts("scale", "2")), -EINVAL);
    CHECK_INT(vmaf_use_feature(v, "float_ssim", opts("enable_db", "true")), -EINVAL);
    CHECK_INT(score_one(v), 0);
    double x = 0;
    CHECK(!vmaf_feature_score_at_index(v, "float_ssim", &x, 0) && x > 0.0 && x <= 1.0);
    vmaf_close(v);

    /* The refusal names the option the requests disagree on, whichever it
     * is, so that a caller (or the vmaf tool's error line) can say what to
     * change. */
    CHECK(strstr(refused("scale", "2", NULL, NULL), "different values of scale"));
    CHECK(strstr(refused("scale", "1", "enable_db", "true"), "different values of enable_db"));
    CHECK(strstr(refused("scale", "1", "clip_db", "true"), "different values of clip_db"));

    /* An option that does nothing without another (clip_db without
     * enable_db) is accepted, as the reference accepts it, with a warning. */
    CHECK(!strcmp(warned("clip_db", "true", NULL, NULL),
                  "float_ssim: clip_db=true has no effect without enable_db=true"));
    CHECK(!strcmp(warned("clip_db", "true", "enable_db", "true"), ""));
    CHECK(!strcmp(warned("clip_db", "false", NULL, NULL), ""));

    return check_result("test_requests");
}
