/**
 * @file model.h
 * VMAF models: loading, feature overloads and collections (bootstrap models).
 */
#ifndef LIBVMAF_MODEL_H
#define LIBVMAF_MODEL_H

#include <stdint.h>

#include "libvmaf/feature.h"
#include "libvmaf/version.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A loaded model: its features, normalisation, SVM and score transform. */
typedef struct VmafModel VmafModel;

/** Flags of VmafModelConfig.flags. */
enum VmafModelFlags {
    VMAF_MODEL_FLAGS_DEFAULT = 0,               /**< As the model file says. */
    VMAF_MODEL_FLAG_DISABLE_CLIP = (1 << 0),    /**< Do not clip the score to score_clip. */
    VMAF_MODEL_FLAG_ENABLE_TRANSFORM = (1 << 1),/**< Apply score_transform even if the file does not enable it. */
    VMAF_MODEL_FLAG_DISABLE_TRANSFORM = (1 << 2),/**< Never apply score_transform. */
};

/** How a model is loaded. */
typedef struct VmafModelConfig {
    const char *name; /**< Name of the model's score in outputs; NULL: "vmaf". Copied. */
    uint64_t flags;   /**< Bitwise OR of enum VmafModelFlags; default 0. */
} VmafModelConfig;

/**
 * Load a model compiled into the library.
 *
 * @param model   Receives the model; destroy it with vmaf_model_destroy().
 * @param cfg     Name and flags.
 * @param version "vmaf_v0.6.1", "vmaf_v0.6.1neg", "vmaf_4k_v0.6.1" or
 *                "vmaf_4k_v0.6.1neg".
 * @return 0 on success, -EINVAL for an unknown version or bad argument,
 *         -ENOMEM when out of memory.
 */
VMAF_EXPORT int vmaf_model_load(VmafModel **model, VmafModelConfig *cfg,
                                const char *version);

/**
 * The built-in models and model collections, one per index from 0 (an
 * extension of this library), for callers that list them or tell an
 * unknown version from one that failed to load.
 *
 * @param index         0, 1, 2, ...
 * @param is_collection Receives (unless NULL) 1 for a model collection,
 *                      loaded with vmaf_model_collection_load(), 0 for a
 *                      model, loaded with vmaf_model_load().
 * @return the version name (static storage), or NULL past the last one.
 */
VMAF_EXPORT const char *vmaf_model_builtin_version(unsigned index, int *is_collection);

/**
 * Load a model from a JSON model file.
 *
 * The whole file is validated here (keys, types, lengths, finite numbers,
 * the embedded SVM); an invalid file is refused with one logged line naming
 * the path and the offending key.
 *
 * @return 0 on success, -ENOENT/-EACCES if unreadable, -EINVAL if invalid,
 *         -ENOMEM when out of memory.
 */
VMAF_EXPORT int vmaf_model_load_from_path(VmafModel **model, VmafModelConfig *cfg,
                                          const char *path);

/**
 * Override options of one of the model's feature extractors, for example
 * `float_ssim` with `scale=1`. Takes ownership of `opts_dict` on success and
 * on failure.
 *
 * @return 0 on success, -EINVAL if the model has no such feature or an
 *         option is invalid, -ENOMEM when out of memory.
 */
VMAF_EXPORT int vmaf_model_feature_overload(VmafModel *model, const char *feature_name,
                                            VmafFeatureDictionary *opts_dict);

/** Free a model. NULL is a no-op. */
VMAF_EXPORT void vmaf_model_destroy(VmafModel *model);

/** A set of models scored together (a bootstrap model: one per bag). */
typedef struct VmafModelCollection VmafModelCollection;

/** What a VmafModelCollectionScore holds. */
enum VmafModelCollectionScoreType {
    VMAF_MODEL_COLLECTION_SCORE_UNKNOWN = 0, /**< Not set. */
    VMAF_MODEL_COLLECTION_SCORE_BOOTSTRAP,   /**< Bootstrap statistics are valid. */
};

/** Scores of a model collection at one frame or pooled. */
typedef struct VmafModelCollectionScore {
    enum VmafModelCollectionScoreType type; /**< Kind of score. */
    struct {
        double bagging_score; /**< Mean of the bagged models' scores. */
        double stddev;        /**< Standard deviation of the bagged models' scores. */
        struct {
            struct {
                double lo, hi; /**< 95% confidence interval. */
            } p95;
        } ci;
    } bootstrap;
} VmafModelCollectionScore;

/**
 * Load a built-in model collection ("vmaf_b_v0.6.3").
 *
 * @param model            Receives model "0" of the collection, scored under the
 *                         model's name. Free it with vmaf_model_destroy() as with
 *                         libvmaf; the collection holds its own reference, so the
 *                         model and the collection may be freed in either order.
 * @param model_collection Receives the collection.
 * @return 0 on success, negative errno on error.
 */
VMAF_EXPORT int vmaf_model_collection_load(VmafModel **model,
                                           VmafModelCollection **model_collection,
                                           VmafModelConfig *cfg, const char *version);

/** Load a model collection from a JSON file; see vmaf_model_collection_load(). */
VMAF_EXPORT int vmaf_model_collection_load_from_path(VmafModel **model,
                                                     VmafModelCollection **model_collection,
                                                     VmafModelConfig *cfg, const char *path);

/**
 * Override feature options in every model of a collection. Takes ownership
 * of `opts_dict` on success and on failure.
 */
VMAF_EXPORT int vmaf_model_collection_feature_overload(VmafModel *model,
                                                       VmafModelCollection **model_collection,
                                                       const char *feature_name,
                                                       VmafFeatureDictionary *opts_dict);

/** Free a collection and every model in it. NULL is a no-op. */
VMAF_EXPORT void vmaf_model_collection_destroy(VmafModelCollection *model_collection);

#ifdef __cplusplus
}
#endif

#endif /* LIBVMAF_MODEL_H */
