/*
 * Feature extractors as data: a const table entry per extractor, with its
 * options, the features it provides, its backend and, for a device twin, the
 * CPU extractor it mirrors. The context only ever goes through this table.
 */
#ifndef LIBVMAF_SRC_FEATURE_FEATURE_EXTRACTOR_H
#define LIBVMAF_SRC_FEATURE_FEATURE_EXTRACTOR_H

#include <stdbool.h>
#include <stddef.h>

#include "libvmaf/libvmaf.h"
#include "libvmaf/picture.h"

#include "dict.h"
#include "feature/feature_collector.h"

enum VmafOptionType {
    VMAF_OPT_TYPE_BOOL,
    VMAF_OPT_TYPE_INT,
    VMAF_OPT_TYPE_DOUBLE,
};

enum VmafOptionFlags {
    /* A bool that only adds outputs (float_ssim's enable_lcs): two requests
     * of one extractor that differ in it are served by one instance with it
     * on, instead of being a conflict. */
    VMAF_OPT_FLAG_ADDS_OUTPUTS = 1 << 0,
    /* A value other than the default is part of every output's name, as
     * "_<alias>_<value>" ("_<alias>" for a bool), so that scores computed
     * with different values never share a name (integer_adm2_egl_1): two
     * requests that differ only in such options are two instances, not a
     * conflict, and models look their features up under these names. */
    VMAF_OPT_FLAG_NAMES_SCORE = 1 << 1,
};

/* One option: where it lives in the extractor's options struct, its type,
 * default and inclusive range. Tables end with an entry whose name is NULL. */
typedef struct VmafOption {
    const char *name;
    const char *alias; /* short name in score names (VMAF_OPT_FLAG_NAMES_SCORE) */
    const char *help;
    enum VmafOptionType type;
    /* offsetof() into the options struct, which is the first member of the
     * extractor's private struct and of its twins': one table serves both. */
    size_t offset;
    union {
        bool b;
        int i;
        double d;
    } def;
    double min, max; /* ignored for bools */
    unsigned flags;  /* enum VmafOptionFlags */
    /* With VMAF_OPT_FLAG_ADDS_OUTPUTS: the provided features that need it,
     * NULL terminated, so that asking for one by name turns the option on. */
    const char *const *enables;
    /* For a bool: the bool option without which this one, on, does
     * nothing (float_ssim's clip_db needs enable_db); a request that sets
     * it alone gets a warning. NULL for none. */
    const char *needs;
} VmafOption;

enum VmafFexBackend {
    VMAF_FEX_BACKEND_CPU = 0,
    VMAF_FEX_BACKEND_CUDA = 1,
};

enum VmafFexFlags {
    /* Separate instances may score different frames at the same time. */
    VMAF_FEX_FLAG_FRAME_PARALLEL = 1 << 0,
    /* extract() also gets the reference pictures of the two frames read
     * before this one (VmafFexFrame.prev_ref), and sees every frame read,
     * subsampled or not, as the reference's temporal extractors do. With
     * FRAME_PARALLEL too, frames still go to instances in any order: what
     * needs the previous frames reads them from prev_ref, not from state. */
    VMAF_FEX_FLAG_PREV_REF = 1 << 1,
    /* Sees every frame read, subsampled or not, without the earlier
     * pictures: what it sums over the whole video (psnr's apsnr) covers
     * the frames n_subsample leaves out, as the reference's does. */
    VMAF_FEX_FLAG_EVERY_FRAME = 1 << 2,
    /* Reads the chroma planes: the pictures it gets have the context's
     * pixel format (device pictures come back with chroma), and the vmaf
     * tool reads chroma from its inputs (vmaf_chroma_in_use()). */
    VMAF_FEX_FLAG_CHROMA = 1 << 3,
};

/* What extract() scores: a picture pair and, with VMAF_FEX_FLAG_PREV_REF,
 * the reference pictures read before it (NULL where there is none). */
typedef struct VmafFexFrame {
    const VmafPicture *ref, *dist;
    const VmafPicture *prev_ref[2]; /* [0]: the frame before, [1]: two before */
    unsigned index;
} VmafFexFrame;

struct VmafCudaState;
struct VmafCudaFrames;
struct VmafCudaPlanes;

/* Room for the options' part of a score name, its terminating NUL
 * included: every naming option of an extractor, set away from its
 * default, fits with room to spare. */
#define VMAF_FEX_NAME_SUFFIX_MAX 256

/* The most option sets one instance computes (shares_pass). */
#define VMAF_FEX_MAX_VARIANTS 4

/* A live extractor: the table entry, its private state (options first, as
 * the option offsets say) and what the context lends it. */
typedef struct VmafFex {
    const struct VmafFeatureExtractor *fex;
    void *priv;                 /* priv_size bytes, zeroed, then options set */
    struct VmafCudaState *cuda; /* set for device extractors */
    struct VmafCudaFrames *frames; /* device extractors: where the frames are */
    struct VmafCudaTwin *twin;  /* device twins: set by vmaf_cuda_twin_init() */
    /* Every instance of its request, this one included (peer[0] gets the
     * flush), so that flush() can merge what each one summed. */
    const struct VmafFex *peer;
    unsigned n_peers;
    unsigned bpc, w, h;
    /* The context's format (the first pair's). With VMAF_FEX_FLAG_CHROMA
     * the pictures have it; without, they may be 4:0:0 (host copies of
     * device pictures carry luma alone then). */
    enum VmafPixelFormat pix_fmt;
    unsigned first_index; /* the frame whose arrival started it (the twin's init lines name it) */
    /* Appended to every output name (VMAF_OPT_FLAG_NAMES_SCORE options),
     * "" when the options name nothing; vmaf_fex_store() adds it. */
    char name_suffix[VMAF_FEX_NAME_SUFFIX_MAX];
    /* The option sets this instance computes (shares_pass): [0] is its own
     * (priv, name_suffix), the others those of requests that share its
     * pass, each with the suffix of its score names. Set before init(). */
    unsigned n_variants;
    const void *variant[VMAF_FEX_MAX_VARIANTS];
    const char *variant_suffix[VMAF_FEX_MAX_VARIANTS];
} VmafFex;

typedef struct VmafFeatureExtractor {
    const char *name;                      /* unique extractor name */
    enum VmafFexBackend backend;
    /* A device twin: the CPU extractor it mirrors, whose options, provided
     * and flushed features it has (its own three fields stay NULL; read
     * them through vmaf_fex_options() and vmaf_fex_features()). */
    const struct VmafFeatureExtractor *twin_of;
    const VmafOption *options;             /* NULL-name terminated; may be NULL */
    size_t priv_size;
    /* NULL terminated: every name it can emit, in the order it stores them. */
    const char *const *provided_features;
    /* NULL terminated, or NULL: those of provided_features stored only by
     * flush() (motion2 needs the next frame's score); reports list them
     * after the per-frame ones, as the reference does. */
    const char *const *flushed_features;
    unsigned flags;                        /* enum VmafFexFlags */

    /* Optional: a check of the parsed options together, where one option's
     * range depends on another's (adm's viewing distance times display
     * height). 0, or -EINVAL and the reason in why. Run wherever options
     * are parsed, so that a bad combination fails when it is given. */
    int (*check_options)(const void *opts, char *why, size_t why_len);

    /* Optional: whether one instance computes the outputs of both parsed
     * option sets a and b in one pass (they differ in options that name
     * the scores, as VMAF's and NEG's gain limits do, and the stages they
     * share are computed once). Requests that share then run as one
     * instance with both sets in VmafFex.variant. */
    bool (*shares_pass)(const void *a, const void *b);

    /* Optional, with VMAF_FEX_FLAG_CHROMA: whether these parsed options
     * read the chroma planes (psnr's enable_chroma); without it, always.
     * Chroma nobody reads is neither read by the tool nor uploaded. */
    bool (*reads_chroma)(const void *priv);

    /* Twins only: 0 if this device computes the CPU's exact result for
     * this geometry and these options (priv holds parsed options only),
     * otherwise -ENOTSUP with a reason in why[]. */
    int (*check_context)(const void *priv, unsigned w, unsigned h, unsigned bpc,
                         char *why, size_t why_len);

    /* Allocates the state for this geometry; options are already in priv.
     * A refusal logs one error naming the extractor and the limit. On any
     * failure init frees what it allocated itself: close() is called only
     * for instances whose init succeeded. */
    int (*init)(VmafFex *fex);

    /* CPU extractors: score one pair and store its outputs (vmaf_fex_store).
     * A failure logs one error naming the extractor and the frame (the
     * context adds no line of its own). */
    int (*extract)(VmafFex *fex, const VmafFexFrame *frame, VmafFeatureCollector *fc);

    /* Device extractors read each frame from the context's VmafCudaFrames
     * (cuda_internal.h), which uploads a pair once for all of them. reserve
     * makes room for one more frame, finishing the oldest when all its
     * places are in flight, so that the context can put the next pair on
     * the device. submit queues the frame (returns once its work is
     * enqueued) and calls vmaf_cuda_frames_done() for it once finished,
     * from collect or on failure. collect appends the scores of every
     * finished frame to the collector; with wait=true it blocks until all
     * queued frames are in. Once the extractor has failed, reserve and
     * collect return its error and give up its frames in flight (each
     * with vmaf_cuda_frames_done()), so that their pictures are freed at
     * the failure, not at close. */
    int (*reserve)(VmafFex *fex);
    int (*submit)(VmafFex *fex, const struct VmafCudaPlanes *planes);
    int (*collect)(VmafFex *fex, bool wait, VmafFeatureCollector *fc);

    /* Optional: called once after the last frame, on the first instance
     * only (a frame-parallel extractor's other instances get no flush; it
     * reads what they summed through VmafFex.peer). */
    int (*flush)(VmafFex *fex, VmafFeatureCollector *fc);

    /* Frees everything a successful init allocated. */
    void (*close)(VmafFex *fex);
} VmafFeatureExtractor;

/* Whether an extractor sees the frames n_subsample leaves out. */
static inline bool vmaf_fex_sees_every_frame(const VmafFeatureExtractor *cpu)
{
    return cpu->flags & (VMAF_FEX_FLAG_PREV_REF | VMAF_FEX_FLAG_EVERY_FRAME);
}

/* The options and the features of an extractor, a twin's being its CPU
 * extractor's. */
const VmafOption *vmaf_fex_options(const VmafFeatureExtractor *fex);
const char *const *vmaf_fex_features(const VmafFeatureExtractor *fex);
const char *const *vmaf_fex_flushed_features(const VmafFeatureExtractor *fex);
bool vmaf_fex_is_flushed_feature(const VmafFeatureExtractor *fex, const char *feature);

/* The options' part of a score name for parsed options priv: for each
 * VMAF_OPT_FLAG_NAMES_SCORE option away from its default, in the order of
 * the option names, "_<alias>" (a bool) or "_<alias>_<value>" (an int as
 * %d, a double as %g), as the reference names its scores. 0, or -ERANGE
 * when it does not fit buf. */
int vmaf_fex_name_suffix(const VmafFeatureExtractor *fex, const void *priv, char *buf,
                         size_t len);

/* The name under which an instance stores `feature`: feature + suffix. */
int vmaf_fex_score_name(const VmafFex *fex, const char *feature, char *buf, size_t len);

/* Stores one output of an instance under its name with the suffix; the
 * collector's error (-EINVAL for a second score of the frame, -ENOMEM). */
int vmaf_fex_store(const VmafFex *fex, VmafFeatureCollector *fc, const char *feature,
                   double value, unsigned index);

/* Stores an output of option set v of an instance (VmafFex.variant). */
int vmaf_fex_store_variant(const VmafFex *fex, unsigned v, VmafFeatureCollector *fc,
                           const char *feature, double value, unsigned index);

/* Reads back one output of an instance (a flush() deriving scores from
 * the per-frame ones): 0 and *value, or -EINVAL when there is none. */
int vmaf_fex_load(const VmafFex *fex, VmafFeatureCollector *fc, const char *feature,
                  double *value, unsigned index);

/* For extract(): 0 when the frame's pictures (the previous ones too) have
 * the geometry the instance was set up for, else -EINVAL with one line
 * naming the extractor, the frame and the picture. */
int vmaf_fex_check_frame(const VmafFex *fex, const VmafFexFrame *frame);

/* For extract() of a VMAF_FEX_FLAG_CHROMA extractor: 0 when both pictures
 * have the context's format and chroma planes of at least cw x ch samples
 * inside their memory, else -EINVAL with one line naming the extractor
 * and the frame (the context checks luma only). */
int vmaf_fex_check_chroma(const VmafFex *fex, const VmafFexFrame *frame, unsigned cw,
                          unsigned ch);

/* The size of plane p as the reference's pictures have it, which its
 * chroma metrics score: chroma sides halved rounding down (this library's
 * pictures round up; the extra column and row, which cover one luma
 * sample each, are not scored). */
void vmaf_fex_reference_plane_size(const VmafFex *fex, unsigned p, unsigned *pw, unsigned *ph);

/* Parses opts into priv per the table, defaults first. Unknown keys, values
 * out of range, trailing characters, NaN/inf and bools other than
 * true/false are -EINVAL with one logged line that names the extractor, the
 * key and the valid keys or range. */
int vmaf_fex_parse_options(const VmafFeatureExtractor *fex, void *priv,
                           const VmafFeatureDictionary *opts);

/* The same, with the reason in why instead of the log (for a caller that
 * says more in its own one line). */
int vmaf_fex_parse_options_why(const VmafFeatureExtractor *fex, void *priv,
                               const VmafFeatureDictionary *opts, char *why, size_t why_len);

/* Combines two requests of one extractor into *merged (a new dictionary):
 * options with equal values (defaults included) are kept, an
 * VMAF_OPT_FLAG_ADDS_OUTPUTS bool set in either is set. 0; -EEXIST when
 * they differ in an option that names the scores, so that they are two
 * instances whose scores carry different names, whatever else differs;
 * -EINVAL with the differing option's name in *conflict (not logged: the
 * caller says who asked for what); -EINVAL (logged) for a bad option of
 * either; or -ENOMEM (logged). */
int vmaf_fex_merge_options(const VmafFeatureExtractor *fex, const VmafFeatureDictionary *a,
                           const VmafFeatureDictionary *b, VmafFeatureDictionary **merged,
                           const char **conflict);

/* Warns once for each bool option that priv (parsed options) has on while
 * the option it needs (VmafOption.needs) is off: accepted, as the reference
 * accepts it, but it does nothing. */
void vmaf_fex_warn_inert_options(const VmafFeatureExtractor *fex, const void *priv);

/* The option of that name, or NULL. */
const VmafOption *vmaf_fex_option_named(const VmafFeatureExtractor *fex, const char *name);

/* Whether option o must be on for its extractor to emit `feature`. */
bool vmaf_fex_option_enables(const VmafOption *o, const char *feature);

/* The first option that must be on for `fex` to emit `feature` (NULL if
 * none); an output may need several (psnr's mse_cb). */
const VmafOption *vmaf_fex_option_enabling(const VmafFeatureExtractor *fex,
                                           const char *feature);

#endif /* LIBVMAF_SRC_FEATURE_FEATURE_EXTRACTOR_H */
