/* Loaded models and their prediction, shared by the loader, the context
 * functions (scores, feature dispatch) and the tests. */
#ifndef LIBVMAF_SRC_MODEL_MODEL_INTERNAL_H
#define LIBVMAF_SRC_MODEL_MODEL_INTERNAL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "libvmaf/model.h"

#include "dict.h"
#include "feature/feature_collector.h"
#include "model/svm.h"

#define VMAF_MODEL_MAX_FEATURES 256u
#define VMAF_MODEL_MAX_KNOTS 256u
#define VMAF_MODEL_MAX_COLLECTION 1000u
/* Longest model name; with the longest suffix ("_ci_p95_lo") it fits the
 * 320-byte keys built from it. */
#define VMAF_MODEL_NAME_MAX 255
/* Largest model file read from disk. */
#define VMAF_MODEL_MAX_FILE_SIZE (64u << 20)

/* How a model is renamed, for every message about a score name taken:
 * through the API, and through the tool's or FFmpeg's model string. */
#define VMAF_MODEL_RENAME_HINT                                                               \
    "(VmafModelConfig.name; name= in a model given to the vmaf tool or FFmpeg)"

enum VmafModelType {
    VMAF_MODEL_TYPE_SVM_NUSVR,
    VMAF_MODEL_TYPE_BOOTSTRAP_SVM_NUSVR,
    VMAF_MODEL_TYPE_RESIDUE_BOOTSTRAP_SVM_NUSVR,
};

enum VmafModelNorm {
    VMAF_MODEL_NORM_NONE,
    VMAF_MODEL_NORM_LINEAR_RESCALE,
};

typedef struct VmafModelFeature {
    char *name;                  /* as the model file writes it */
    char *feature;               /* the extractor's feature name ("integer_adm2") */
    VmafFeatureDictionary *opts; /* extractor options, or NULL */
    /* The name its score is looked up under when options that name scores
     * differ from their defaults ("integer_adm2_egl_1"), as the reference
     * builds it; NULL when none do (then name, else feature). */
    char *lookup;
    double slope, intercept;
} VmafModelFeature;

typedef struct VmafModelPoint {
    double x, y;
} VmafModelPoint;

struct VmafModel {
    /* 1, or 2 for a collection's model "0" (see below); atomic because the
     * model and its collection may be destroyed on two threads at once */
    atomic_uint refs;
    unsigned long long serial; /* distinct for every model loaded in the process */
    char *name;   /* score name in the collector and reports */
    char *source; /* "model file <path>" or "built-in model <version>", for messages */
    enum VmafModelType type;
    enum VmafModelNorm norm;
    unsigned n_features;
    VmafModelFeature *feature;
    double slope, intercept; /* entry 0 of slopes/intercepts: the score's */

    bool clip;               /* score_clip present and not disabled */
    double clip_min, clip_max;

    bool transform;          /* score_transform present and enabled by the flags */
    struct {
        bool p0_on, p1_on, p2_on;
        double p0, p1, p2;
        unsigned n_knots;    /* 0: no piecewise-linear stage */
        VmafModelPoint *knots;
        bool out_lte_in, out_gte_in;
    } st;

    VmafSvm *svm;
};

/* Model "0" of a collection file is handed to the caller as a plain model,
 * and the collection keeps a second reference to it. Programs written for
 * libvmaf destroy both the model and the collection, in either order, and
 * neither frees it twice; the collection can still score it. */
struct VmafModelCollection {
    char *name;          /* prefix of the collection's scores */
    VmafModel *head;     /* model "0": the score <name> (one reference) */
    VmafModel **model;   /* models "1".."N": the bags, scores <name>_0001.. */
    unsigned cnt;
};

/* Loads one model or a collection from JSON bytes; source names it in
 * messages ("model file x.json"). */
int vmaf_model_load_from_buffer(VmafModel **model, const VmafModelConfig *cfg,
                                const char *data, size_t len, const char *source);
int vmaf_model_collection_load_from_buffer(VmafModel **model, VmafModelCollection **mc,
                                           const VmafModelConfig *cfg, const char *data,
                                           size_t len, const char *source);

/* The extractor feature name a model feature name stands for:
 * "VMAF_integer_feature_X_score" -> "integer_X", "VMAF_feature_X_score" -> "X",
 * anything else unchanged. Returns a new string or NULL. */
char *vmaf_model_feature_name_map(const char *model_feature_name);

/* The name the score of feature f is looked up under with options opts
 * (*out is NULL when the options name nothing). 0, -ENOMEM, or -EINVAL with
 * the reason in why. */
int vmaf_model_feature_lookup_name(const VmafModelFeature *f, const VmafFeatureDictionary *opts,
                                   char **out, char *why, size_t why_len);

/* Stores a model's score at index unless another score already holds that
 * name there: a feature's or another model's. Writing the same value again
 * (re-scoring the model) is allowed. who names the model in messages. */
int vmaf_model_store_score(VmafFeatureCollector *fc, const char *name, double value,
                           unsigned index, const char *who);

/* Predicts at index from the collector. flags may add DISABLE_CLIP and
 * DISABLE_TRANSFORM to the model's own settings. Does not store the score. */
int vmaf_model_predict(const VmafModel *model, VmafFeatureCollector *fc, unsigned index,
                       uint64_t flags, double *score);

/* Whether every feature the model reads has a score at index (silent). */
bool vmaf_model_features_present(const VmafModel *m, VmafFeatureCollector *fc, unsigned index);

/* The same steps after the SVM, exposed for the bootstrap statistics. */
void vmaf_model_transform(const VmafModel *model, double *score, uint64_t flags);
void vmaf_model_clip(const VmafModel *model, double *score, uint64_t flags);

/* Bootstrap statistics of a collection at index; stores model "0"'s score
 * (<name>), every bag's and <name>_bagging/_stddev/_ci_p95_lo/_ci_p95_hi. */
int vmaf_model_collection_predict(const VmafModelCollection *mc, VmafFeatureCollector *fc,
                                  unsigned index, VmafModelCollectionScore *score);

/* ---- shared by model.c, model_json.c and model_overload.c ---- */

/* Copies of a string and of a formatted string (malloc), or NULL. */
char *vmaf_model_dup_str(const char *s);
char *vmaf_model_dup_printf(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* Where a parse is: the file (or built-in model) and, inside a collection,
 * which member, so every message names the full key. */
typedef struct VmafModelWhere {
    const char *source;
    const char *member; /* "" or "3." */
} VmafModelWhere;

/* Logs that the model at w is invalid at key (printf message) and returns
 * -EINVAL. */
int vmaf_model_bad(const VmafModelWhere *w, const char *key, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

struct json_t;
/* "an object", "a number", ... for messages. */
const char *vmaf_model_json_type_name(const struct json_t *j);

/* Parses data (len bytes) as JSON; a syntax error is logged naming the
 * nearest key. */
int vmaf_model_parse_json(struct json_t **root, const char *data, size_t len,
                          const char *source);

/* One model from its JSON object (model_dict inside), named name. */
int vmaf_model_from_json(VmafModel **out, const struct json_t *root, const char *name,
                         uint64_t flags, const VmafModelWhere *w);

/* Built-in model JSON, generated from resource/models at build time. */
typedef struct VmafBuiltinModel {
    const char *version;
    const unsigned char *data;
    size_t len;
    int is_collection;
} VmafBuiltinModel;

extern const VmafBuiltinModel vmaf_builtin_models[];
extern const size_t vmaf_builtin_model_cnt;

#endif /* LIBVMAF_SRC_MODEL_MODEL_INTERNAL_H */
