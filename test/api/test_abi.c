/*
 * Binary compatibility with libvmaf v3: programs built against libvmaf v3
 * (FFmpeg among them) pass these structs by value and read their fields, so
 * their sizes, field offsets and enum values must stay what the v3.0.0
 * release has on LP64 systems (VmafPicture without the colour member that
 * upstream's development branch added later), and every function must keep
 * v3's prototype. Prototypes are
 * checked when this file compiles (-Werror=incompatible-pointer-types);
 * layouts and values when it runs.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "libvmaf/libvmaf.h"
#include "libvmaf/libvmaf_cuda.h"

static int failures;

static void expect(const char *what, long long got, long long want)
{
    if (got != want) {
        fprintf(stderr, "%s is %lld, libvmaf v3 has %lld\n", what, got, want);
        failures++;
    }
}

#define SIZE(T, n) expect("sizeof(" #T ")", (long long)sizeof(T), n)
#define OFF(T, f, n) expect("offsetof(" #T ", " #f ")", (long long)offsetof(T, f), n)
#define VAL(e, n) expect(#e, (long long)(e), n)

/* The v3 prototypes: a mismatch is an incompatible pointer initialisation. */
#define PROTO(name, ret, args) static ret(*const p_##name) args = name
PROTO(vmaf_init, int, (VmafContext **, VmafConfiguration));
PROTO(vmaf_use_features_from_model, int, (VmafContext *, VmafModel *));
PROTO(vmaf_use_features_from_model_collection, int, (VmafContext *, VmafModelCollection *));
PROTO(vmaf_use_feature, int, (VmafContext *, const char *, VmafFeatureDictionary *));
PROTO(vmaf_import_feature_score, int, (VmafContext *, const char *, double, unsigned));
PROTO(vmaf_read_pictures, int, (VmafContext *, VmafPicture *, VmafPicture *, unsigned));
PROTO(vmaf_score_at_index, int, (VmafContext *, VmafModel *, double *, unsigned));
PROTO(vmaf_score_at_index_model_collection, int,
      (VmafContext *, VmafModelCollection *, VmafModelCollectionScore *, unsigned));
PROTO(vmaf_feature_score_at_index, int, (VmafContext *, const char *, double *, unsigned));
PROTO(vmaf_score_pooled, int,
      (VmafContext *, VmafModel *, enum VmafPoolingMethod, double *, unsigned, unsigned));
PROTO(vmaf_score_pooled_model_collection, int,
      (VmafContext *, VmafModelCollection *, enum VmafPoolingMethod, VmafModelCollectionScore *,
       unsigned, unsigned));
PROTO(vmaf_feature_score_pooled, int,
      (VmafContext *, const char *, enum VmafPoolingMethod, double *, unsigned, unsigned));
PROTO(vmaf_close, int, (VmafContext *));
PROTO(vmaf_write_output, int, (VmafContext *, const char *, enum VmafOutputFormat));
PROTO(vmaf_version, const char *, (void));
PROTO(vmaf_picture_alloc, int, (VmafPicture *, enum VmafPixelFormat, unsigned, unsigned, unsigned));
PROTO(vmaf_picture_unref, int, (VmafPicture *));
PROTO(vmaf_feature_dictionary_set, int, (VmafFeatureDictionary **, const char *, const char *));
PROTO(vmaf_feature_dictionary_free, int, (VmafFeatureDictionary **));
PROTO(vmaf_model_load, int, (VmafModel **, VmafModelConfig *, const char *));
PROTO(vmaf_model_load_from_path, int, (VmafModel **, VmafModelConfig *, const char *));
PROTO(vmaf_model_feature_overload, int, (VmafModel *, const char *, VmafFeatureDictionary *));
PROTO(vmaf_model_destroy, void, (VmafModel *));
PROTO(vmaf_model_collection_load, int,
      (VmafModel **, VmafModelCollection **, VmafModelConfig *, const char *));
PROTO(vmaf_model_collection_load_from_path, int,
      (VmafModel **, VmafModelCollection **, VmafModelConfig *, const char *));
PROTO(vmaf_model_collection_feature_overload, int,
      (VmafModel *, VmafModelCollection **, const char *, VmafFeatureDictionary *));
PROTO(vmaf_model_collection_destroy, void, (VmafModelCollection *));
PROTO(vmaf_cuda_state_init, int, (VmafCudaState **, VmafCudaConfiguration));
PROTO(vmaf_cuda_import_state, int, (VmafContext *, VmafCudaState *));
PROTO(vmaf_cuda_preallocate_pictures, int, (VmafContext *, VmafCudaPictureConfiguration));
PROTO(vmaf_cuda_fetch_preallocated_picture, int, (VmafContext *, VmafPicture *));

int main(void)
{
    /* Every pointer resolved: the shared library defines them all. */
    const void *const protos[] = {
        (const void *)p_vmaf_init, (const void *)p_vmaf_use_features_from_model,
        (const void *)p_vmaf_use_features_from_model_collection, (const void *)p_vmaf_use_feature,
        (const void *)p_vmaf_import_feature_score, (const void *)p_vmaf_read_pictures,
        (const void *)p_vmaf_score_at_index, (const void *)p_vmaf_score_at_index_model_collection,
        (const void *)p_vmaf_feature_score_at_index, (const void *)p_vmaf_score_pooled,
        (const void *)p_vmaf_score_pooled_model_collection,
        (const void *)p_vmaf_feature_score_pooled, (const void *)p_vmaf_close,
        (const void *)p_vmaf_write_output, (const void *)p_vmaf_version,
        (const void *)p_vmaf_picture_alloc, (const void *)p_vmaf_picture_unref,
        (const void *)p_vmaf_feature_dictionary_set, (const void *)p_vmaf_feature_dictionary_free,
        (const void *)p_vmaf_model_load, (const void *)p_vmaf_model_load_from_path,
        (const void *)p_vmaf_model_feature_overload, (const void *)p_vmaf_model_destroy,
        (const void *)p_vmaf_model_collection_load,
        (const void *)p_vmaf_model_collection_load_from_path,
        (const void *)p_vmaf_model_collection_feature_overload,
        (const void *)p_vmaf_model_collection_destroy, (const void *)p_vmaf_cuda_state_init,
        (const void *)p_vmaf_cuda_import_state, (const void *)p_vmaf_cuda_preallocate_pictures,
        (const void *)p_vmaf_cuda_fetch_preallocated_picture,
    };
    for (size_t i = 0; i < sizeof(protos) / sizeof(protos[0]); i++)
        if (!protos[i]) {
            fprintf(stderr, "function %zu is NULL\n", i);
            failures++;
        }

    VAL(VMAF_LOG_LEVEL_NONE, 0);
    VAL(VMAF_LOG_LEVEL_ERROR, 1);
    VAL(VMAF_LOG_LEVEL_WARNING, 2);
    VAL(VMAF_LOG_LEVEL_INFO, 3);
    VAL(VMAF_LOG_LEVEL_DEBUG, 4);
    VAL(VMAF_OUTPUT_FORMAT_NONE, 0);
    VAL(VMAF_OUTPUT_FORMAT_XML, 1);
    VAL(VMAF_OUTPUT_FORMAT_JSON, 2);
    VAL(VMAF_OUTPUT_FORMAT_CSV, 3);
    VAL(VMAF_OUTPUT_FORMAT_SUB, 4);
    VAL(VMAF_POOL_METHOD_UNKNOWN, 0);
    VAL(VMAF_POOL_METHOD_MIN, 1);
    VAL(VMAF_POOL_METHOD_MAX, 2);
    VAL(VMAF_POOL_METHOD_MEAN, 3);
    VAL(VMAF_POOL_METHOD_HARMONIC_MEAN, 4);
    VAL(VMAF_POOL_METHOD_NB, 5);
    VAL(VMAF_PIX_FMT_UNKNOWN, 0);
    VAL(VMAF_PIX_FMT_YUV420P, 1);
    VAL(VMAF_PIX_FMT_YUV422P, 2);
    VAL(VMAF_PIX_FMT_YUV444P, 3);
    VAL(VMAF_PIX_FMT_YUV400P, 4);
    VAL(VMAF_MODEL_FLAGS_DEFAULT, 0);
    VAL(VMAF_MODEL_FLAG_DISABLE_CLIP, 1);
    VAL(VMAF_MODEL_FLAG_ENABLE_TRANSFORM, 2);
    VAL(VMAF_MODEL_FLAG_DISABLE_TRANSFORM, 4);
    VAL(VMAF_MODEL_COLLECTION_SCORE_UNKNOWN, 0);
    VAL(VMAF_MODEL_COLLECTION_SCORE_BOOTSTRAP, 1);
    VAL(VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_NONE, 0);
    VAL(VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_DEVICE, 1);
    VAL(VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_HOST, 2);
    VAL(VMAF_CUDA_PICTURE_PREALLOCATION_METHOD_HOST_PINNED, 3);

    if (sizeof(void *) != 8 || sizeof(long) != 8 || _Alignof(uint64_t) != 8 ||
        _Alignof(double) != 8) {
        fprintf(stderr, "not an LP64 ABI with 8-byte aligned 64-bit types: layouts not checked\n");
        return failures ? 1 : 77;
    }
    SIZE(VmafConfiguration, 32);
    OFF(VmafConfiguration, log_level, 0);
    OFF(VmafConfiguration, n_threads, 4);
    OFF(VmafConfiguration, n_subsample, 8);
    OFF(VmafConfiguration, cpumask, 16);
    OFF(VmafConfiguration, gpumask, 24);

    SIZE(VmafPicture, 96);
    OFF(VmafPicture, pix_fmt, 0);
    OFF(VmafPicture, bpc, 4);
    OFF(VmafPicture, w, 8);
    OFF(VmafPicture, h, 20);
    OFF(VmafPicture, stride, 32);
    OFF(VmafPicture, data, 56);
    OFF(VmafPicture, ref, 80);
    OFF(VmafPicture, priv, 88);

    SIZE(VmafModelConfig, 16);
    OFF(VmafModelConfig, name, 0);
    OFF(VmafModelConfig, flags, 8);

    SIZE(VmafModelCollectionScore, 40);
    OFF(VmafModelCollectionScore, type, 0);
    OFF(VmafModelCollectionScore, bootstrap.bagging_score, 8);
    OFF(VmafModelCollectionScore, bootstrap.stddev, 16);
    OFF(VmafModelCollectionScore, bootstrap.ci.p95.lo, 24);
    OFF(VmafModelCollectionScore, bootstrap.ci.p95.hi, 32);

    SIZE(VmafCudaConfiguration, 8);
    OFF(VmafCudaConfiguration, cu_ctx, 0);
    SIZE(VmafCudaPictureConfiguration, 20);
    OFF(VmafCudaPictureConfiguration, pic_params.w, 0);
    OFF(VmafCudaPictureConfiguration, pic_params.h, 4);
    OFF(VmafCudaPictureConfiguration, pic_params.bpc, 8);
    OFF(VmafCudaPictureConfiguration, pic_params.pix_fmt, 12);
    OFF(VmafCudaPictureConfiguration, pic_prealloc_method, 16);

    if (failures)
        fprintf(stderr, "%d difference(s) from libvmaf v3\n", failures);
    else
        fprintf(stderr, "layouts, enum values and prototypes match libvmaf v3\n");
    return failures ? 1 : 0;
}
