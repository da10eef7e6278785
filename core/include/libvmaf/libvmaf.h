/**
 * @file libvmaf.h
 * The scoring context: choose features (directly or through models), feed
 * picture pairs, read per-frame and pooled scores, write reports.
 *
 * Source and binary compatible with libvmaf v3. Every function returns 0 on
 * success or a negative errno value; details of a failure are logged once
 * at VMAF_LOG_LEVEL_ERROR, on stderr or to vmaf_set_log_callback()'s callback.
 */
#ifndef LIBVMAF_LIBVMAF_H
#define LIBVMAF_LIBVMAF_H

#include <stdint.h>
#include <stdio.h>

#include "libvmaf/feature.h"
#include "libvmaf/model.h"
#include "libvmaf/picture.h"
#include "libvmaf/version.h"

#ifdef __cplusplus
extern "C" {
#endif

/** How much the library writes to stderr. */
enum VmafLogLevel {
    VMAF_LOG_LEVEL_NONE = 0, /**< Nothing. */
    VMAF_LOG_LEVEL_ERROR,    /**< Failures (the CLI's level with -q). */
    VMAF_LOG_LEVEL_WARNING,  /**< Fallbacks, such as the CPU replacing a GPU twin (CLI default). */
    VMAF_LOG_LEVEL_INFO,     /**< Which extractor runs where. */
    VMAF_LOG_LEVEL_DEBUG,    /**< Everything. */
};

/** Report formats of vmaf_write_output(). */
enum VmafOutputFormat {
    VMAF_OUTPUT_FORMAT_NONE = 0, /**< No report. */
    VMAF_OUTPUT_FORMAT_XML,      /**< XML, as the reference tool writes it. */
    VMAF_OUTPUT_FORMAT_JSON,     /**< JSON, as the reference tool writes it. */
    VMAF_OUTPUT_FORMAT_CSV,      /**< One line a frame. */
    VMAF_OUTPUT_FORMAT_SUB,      /**< MicroDVD subtitles, one a frame. */
};

/** Temporal pooling of per-frame scores. */
enum VmafPoolingMethod {
    VMAF_POOL_METHOD_UNKNOWN = 0,   /**< Not set. */
    VMAF_POOL_METHOD_MIN,           /**< Smallest score. */
    VMAF_POOL_METHOD_MAX,           /**< Largest score. */
    VMAF_POOL_METHOD_MEAN,          /**< Arithmetic mean. */
    VMAF_POOL_METHOD_HARMONIC_MEAN, /**< n / sum(1 / (x + 1)) - 1. */
    VMAF_POOL_METHOD_NB             /**< Number of methods. */
};

/** Settings of a context, passed by value to vmaf_init(). */
typedef struct VmafConfiguration {
    enum VmafLogLevel log_level; /**< Default VMAF_LOG_LEVEL_NONE (0). */
    unsigned n_threads;          /**< Worker threads scoring frames in parallel; 0 = in the caller. */
    unsigned n_subsample;        /**< Score every n-th frame only; 0 or 1 = every frame. */
    uint64_t cpumask;            /**< SIMD levels not to use, libvmaf bits (8 AVX2, 16 AVX-512); 0 = all. Process-wide. */
    uint64_t gpumask;            /**< Nonzero: never use the GPU, even with imported CUDA state; default 0. */
} VmafConfiguration;

/** A scoring context. */
typedef struct VmafContext VmafContext;

/** Geometry and number of the pictures of vmaf_preallocate_pictures(). */
typedef struct VmafPictureConfiguration {
    struct {
        unsigned w, h;                 /**< Luma size, 1..65536. */
        unsigned bpc;                  /**< 8, 10, 12 or 16. */
        enum VmafPixelFormat pix_fmt;  /**< Any format but VMAF_PIX_FMT_UNKNOWN. */
    } pic_params;
    unsigned pic_cnt;                  /**< Pictures in the pool, 1..256. */
} VmafPictureConfiguration;

/**
 * Create a context.
 *
 * @param vmaf Receives the context; free it with vmaf_close().
 * @param cfg  Settings.
 * @return 0 on success, -EINVAL on a bad argument, -ENOMEM when out of memory,
 *         -EAGAIN when the system cannot start cfg.n_threads worker threads.
 */
VMAF_EXPORT int vmaf_init(VmafContext **vmaf, VmafConfiguration cfg);

/**
 * Use the features a model needs. Each is resolved through the registry,
 * on its CUDA twin when CUDA state was imported. May be called for several
 * models; a feature needed twice is extracted once.
 *
 * @return 0 on success; -EINVAL if a feature has no extractor (one error
 *         names every missing feature), -ENOMEM when out of memory.
 */
VMAF_EXPORT int vmaf_use_features_from_model(VmafContext *vmaf, VmafModel *model);

/** Use the features of every model of a collection; see vmaf_use_features_from_model(). */
VMAF_EXPORT int vmaf_use_features_from_model_collection(VmafContext *vmaf,
                                                        VmafModelCollection *model_collection);

/**
 * Use one feature extractor, by extractor name ("float_ssim", "float_ssim_cuda")
 * or by the name of a feature it provides.
 *
 * Options are checked here: an unknown key, a value out of range or with
 * trailing characters, NaN, or a boolean other than true/false is an error
 * that lists the valid keys or the range.
 *
 * @param vmaf         Context.
 * @param feature_name Extractor or feature name.
 * @param opts_dict    Options, or NULL for the defaults. The context takes
 *                     ownership once the extractor is found: on success and
 *                     on any later failure (a bad option, out of memory).
 *                     When vmaf or feature_name is NULL, a picture was
 *                     already read, or the name is unknown, the call fails
 *                     with -EINVAL before touching it, and the caller frees
 *                     it with vmaf_feature_dictionary_free(), as with
 *                     libvmaf v3; likewise for -ENODEV.
 * @return 0 on success, -EINVAL on an unknown name or a bad option,
 *         -ENODEV for a GPU twin of a build without CUDA
 *         ("float_ssim_cuda"), -ENOMEM when out of memory.
 */
VMAF_EXPORT int vmaf_use_feature(VmafContext *vmaf, const char *feature_name,
                                 VmafFeatureDictionary *opts_dict);

/**
 * What an extractor name stands for, asked without a context (an
 * extension of this library). Nothing is logged.
 *
 * @param name     An extractor name, such as "float_ssim" or "float_ssim_cuda".
 * @param cpu_name Receives (unless NULL) the name of the CPU extractor whose
 *                 scores it computes, under whose names they are stored:
 *                 `name` itself for a CPU extractor, "float_ssim" for its
 *                 GPU twin "float_ssim_cuda". Static storage.
 * @return 0 for an extractor of this build; -ENODEV for a GPU twin of a
 *         build without CUDA (*cpu_name is set all the same), which
 *         vmaf_use_feature() refuses; -ENOENT for a name no extractor has
 *         (a feature name such as "float_ssim_l" included); -EINVAL for a
 *         NULL name.
 */
VMAF_EXPORT int vmaf_feature_extractor_info(const char *name, const char **cpu_name);

/**
 * Whether the features requested so far read the chroma planes (an
 * extension of this library). A caller that fills pictures itself (the
 * vmaf tool) gives pictures in the source's format then; otherwise 4:0:0
 * pictures of the luma alone are enough. Nothing is logged.
 *
 * @return 1 when an extractor in use reads chroma (psnr), 0 when every one
 *         reads luma only, -EINVAL for a NULL context.
 */
VMAF_EXPORT int vmaf_chroma_in_use(VmafContext *vmaf);

/**
 * Store an externally computed score for a feature at a frame index.
 *
 * @return 0 on success, -EINVAL if a score was already stored there, or if
 *         the frame was read and a requested extractor computes this
 *         feature there, -ENOMEM when out of memory.
 */
VMAF_EXPORT int vmaf_import_feature_score(VmafContext *vmaf, const char *feature_name,
                                          double value, unsigned index);

/**
 * Score a pair of pictures at a frame index.
 *
 * The context takes both references (on success and on failure) and drops
 * them when it is done; with worker threads or a GPU this may be after the
 * call returns. Both pictures must have the same format, depth and size, and
 * that of the first pair. Call with `ref == dist == NULL` once after the
 * last frame to flush: scores are complete only after that.
 *
 * Each index is read once: an index already read, or one at which an output
 * of a requested extractor was imported, is -EINVAL before any work, and the
 * context stays usable (with worker threads too).
 *
 * @return 0 on success, -EINVAL on mismatched or bad pictures, on an index
 *         already read, after the flush, and on a second flush, or the
 *         extractor's error (for example a picture too small for the feature).
 */
VMAF_EXPORT int vmaf_read_pictures(VmafContext *vmaf, VmafPicture *ref, VmafPicture *dist,
                                   unsigned index);

/**
 * Predict a model's score at a frame index from the features stored there.
 *
 * @return 0 on success, -EINVAL if a feature the model needs is missing there.
 */
VMAF_EXPORT int vmaf_score_at_index(VmafContext *vmaf, VmafModel *model, double *score,
                                    unsigned index);

/** Predict a model collection's scores at a frame index. */
VMAF_EXPORT int vmaf_score_at_index_model_collection(VmafContext *vmaf,
                                                     VmafModelCollection *model_collection,
                                                     VmafModelCollectionScore *score,
                                                     unsigned index);

/**
 * Read one feature's score at a frame index.
 *
 * @return 0 on success, -EINVAL if there is no such score.
 */
VMAF_EXPORT int vmaf_feature_score_at_index(VmafContext *vmaf, const char *feature_name,
                                            double *score, unsigned index);

/**
 * Pool a model's per-frame scores over frames index_low..index_high
 * (inclusive), predicting any frame not predicted yet.
 */
VMAF_EXPORT int vmaf_score_pooled(VmafContext *vmaf, VmafModel *model,
                                  enum VmafPoolingMethod pool_method, double *score,
                                  unsigned index_low, unsigned index_high);

/** Pool a model collection's scores; see vmaf_score_pooled(). */
VMAF_EXPORT int vmaf_score_pooled_model_collection(VmafContext *vmaf,
                                                   VmafModelCollection *model_collection,
                                                   enum VmafPoolingMethod pool_method,
                                                   VmafModelCollectionScore *score,
                                                   unsigned index_low, unsigned index_high);

/**
 * Pool one feature's scores over frames index_low..index_high (inclusive).
 * MIN and MAX start from the first frame counted, so a NaN there is the
 * result, as with libvmaf v3.
 *
 * @return 0 on success, -EINVAL on an empty or incomplete range.
 */
VMAF_EXPORT int vmaf_feature_score_pooled(VmafContext *vmaf, const char *feature_name,
                                          enum VmafPoolingMethod pool_method, double *score,
                                          unsigned index_low, unsigned index_high);

/**
 * Preallocate host pictures for this context (libvmaf 3.2): pictures of one
 * geometry that vmaf_fetch_preallocated_picture() hands out and that come
 * back to the pool when their last reference goes (vmaf_read_pictures()
 * takes the reference over). Once per context.
 *
 * @return 0 on success; -EINVAL for a NULL context, a bad geometry or count,
 *         or a second call; -ENOMEM when out of memory.
 */
VMAF_EXPORT int vmaf_preallocate_pictures(VmafContext *vmaf, VmafPictureConfiguration cfg);

/**
 * Take a picture of the pool of vmaf_preallocate_pictures(). When every
 * picture is out, waits while the library holds some (a frame being
 * scored gives it back); when the caller holds them all, fails at once.
 *
 * @return 0 on success; -EINVAL without a pool; -EBUSY when the caller holds
 *         every picture (hand one in or unreference it first).
 */
VMAF_EXPORT int vmaf_fetch_preallocated_picture(VmafContext *vmaf, VmafPicture *pic);

/**
 * Free a context and everything it owns (pending work is finished first).
 * NULL is a no-op.
 *
 * @return 0, or the first error of pending work.
 */
VMAF_EXPORT int vmaf_close(VmafContext *vmaf);

/**
 * Write every per-frame score and the pooled scores to a file.
 *
 * The report is written to a temporary file beside `output_path` and renamed
 * over it only when complete, so a failure never leaves a partial report.
 * `output_path` "-" writes to stdout. Before the flush it first waits for
 * the frames read so far (worker threads, GPU), so call it from the thread
 * that reads the pictures.
 *
 * @return 0 on success, -EINVAL on a bad format, or the negative errno of the
 *         failed open, write or rename.
 */
VMAF_EXPORT int vmaf_write_output(VmafContext *vmaf, const char *output_path,
                                  enum VmafOutputFormat fmt);

/**
 * vmaf_write_output() with a printf format for scores.
 *
 * @param score_format A printf conversion for one double, such as "%.6f"
 *                     (the reference's, used when NULL) or "%.17g" (round-trip
 *                     exact). Only one conversion of e, f or g with optional
 *                     flags, width and precision is accepted.
 * @return as vmaf_write_output(); -EINVAL for a bad score_format.
 */
VMAF_EXPORT int vmaf_write_output_with_format(VmafContext *vmaf, const char *output_path,
                                              enum VmafOutputFormat fmt,
                                              const char *score_format);

/**
 * Whether a report could be written to `output_path` now, asked before a
 * long run so that a path that cannot work fails at once (an extension of
 * this library). Makes the checks vmaf_write_output() makes before its
 * first write: the path (a directory, a socket, a file that is not
 * writable, a symbolic link that cannot be followed), then, for a regular
 * file, its directory (missing, not writable, append-only) and the
 * temporary file beside the target, which is created and removed. A
 * device or FIFO is only checked for write permission (a FIFO is not
 * opened). "-" (stdout) is always 0.
 *
 * @return 0, or the negative errno vmaf_write_output() would return, with
 *         one logged line saying why and what to do.
 */
VMAF_EXPORT int vmaf_output_path_check(const char *output_path);

/**
 * Receives the library's messages instead of stderr (see
 * vmaf_set_log_callback()).
 *
 * @param opaque  The pointer given to vmaf_set_log_callback().
 * @param level   VMAF_LOG_LEVEL_ERROR to VMAF_LOG_LEVEL_DEBUG.
 * @param message One line, without the "libvmaf: <level>: " prefix and
 *                without a newline (control characters in names the caller
 *                passed are replaced by '?').
 */
typedef void (*VmafLogCallback)(void *opaque, enum VmafLogLevel level, const char *message);

/**
 * Send the library's messages to `callback` instead of stderr (an extension
 * of this library). The log level still filters them first. Like the level,
 * the callback is process-wide. It may be called from the library's worker
 * threads, one call at a time, and must not call into the library.
 * Once this returns, the previous callback is not called again.
 *
 * @param callback The receiver, or NULL to write to stderr again.
 * @param opaque   Passed to every call of `callback`.
 */
VMAF_EXPORT void vmaf_set_log_callback(VmafLogCallback callback, void *opaque);

/** The library's version, for example "3.0.0". */
VMAF_EXPORT const char *vmaf_version(void);

#ifdef __cplusplus
}
#endif

#endif /* LIBVMAF_LIBVMAF_H */
