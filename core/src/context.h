/* The scoring context's insides, shared by libvmaf.c, the model code, the
 * output writers and the CUDA glue. */
#ifndef LIBVMAF_SRC_CONTEXT_H
#define LIBVMAF_SRC_CONTEXT_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "libvmaf/libvmaf.h"

#include "dict.h"
#include "feature/feature_collector.h"
#include "feature/feature_extractor.h"

struct VmafCudaState;
struct VmafPicturePool;
struct VmafCudaFrames;
struct VmafThreadPool;

/* A feature the caller asked for; resolved to a backend and instantiated
 * when the first picture pair (and so the geometry) is known. */
typedef struct VmafFeatureRequest {
    const VmafFeatureExtractor *cpu; /* the CPU extractor (always set) */
    VmafFeatureDictionary *opts;     /* validated options (owned) */
    /* What its options add to its score names; requests of one extractor
     * whose names differ are separate instances. */
    char name_suffix[VMAF_FEX_NAME_SUFFIX_MAX];
    const VmafFeatureExtractor *use; /* chosen at first frame: cpu or a twin */
    /* Run by another request's instances, in the same pass (shares_pass):
     * leader is its index; this one then has no instance of its own. */
    bool follows;
    unsigned leader;
    void *parsed;                    /* its parsed options, for a leader to read */
    VmafFex *inst;                   /* one instance, or n_threads of them */
    unsigned n_inst;
    bool *inst_busy;                 /* which instances a worker holds */
} VmafFeatureRequest;

struct VmafContext {
    VmafConfiguration cfg;
    VmafFeatureCollector *fc;

    VmafFeatureRequest *req;
    unsigned req_cnt, req_cap;

    bool started;                 /* first pair seen: geometry fixed, extractors live */
    bool flushed;
    enum VmafPixelFormat pix_fmt;
    unsigned bpc, w, h;
    unsigned pic_cnt;             /* pairs read (for fps) */
    unsigned max_index_plus1;     /* highest index read + 1 */
    struct timespec t_start, t_end;

    /* The reference pictures of the last two frames read, for extractors
     * with VMAF_FEX_FLAG_PREV_REF ([0] the last); host memory. */
    VmafPicture prev_ref[2];
    bool keep_prev_ref;           /* some extractor on the CPU needs them */
    bool device_every_frame;      /* a device twin sees every frame (a temporal one, in order) */
    bool cpu_every_frame;         /* some extractor on the CPU sees subsampled-out frames */
    bool cpu_chroma;              /* some extractor on the CPU reads chroma */

    struct VmafThreadPool *pool;  /* CPU workers when cfg.n_threads > 0 */
    pthread_mutex_t lock;         /* guards inst_busy and err */
    pthread_cond_t inst_free;
    int err;                      /* first asynchronous error (sticky) */
    bool err_told;                /* err has been returned to the caller once */

    /* Score names of the models in use (each model's name, a collection's
     * derived names), so that a model added later cannot take one: two
     * scores under one name would only be refused at pooling, after every
     * frame. `model` is the serial of the model that asked (the caller may
     * destroy the model; its address could then be another's). */
    struct VmafScoreName {
        char *name, *model_name; /* one allocation, at name */
        unsigned long long model;
    } *score_name;
    unsigned score_name_cnt;

    struct VmafCudaState *cuda;   /* imported CUDA state (owned) */
    struct VmafPicturePool *cuda_pool;  /* vmaf_cuda_preallocate_pictures() */
    struct VmafPicturePool *host_pool;  /* vmaf_preallocate_pictures() */
    /* This context among all, for its pools' pictures (an address can be
     * another context's after a close). */
    unsigned long long serial;
    struct VmafCudaFrames *cuda_frames; /* device planes of the device extractors */
};

/* ---- what the context's files share (libvmaf.c, context_*.c) ---- */

/* The sticky error (the first failure stops the context). */
int vmaf_context_sticky_error(VmafContext *vmaf);
/* A call returns err to the caller: if it is the sticky error, the caller
 * now knows it. Returns err. */
int vmaf_context_handed_back(VmafContext *vmaf, int err);
/* The sticky error for a call refused because of it; a refusal after the
 * first says why (the first was logged where it happened). */
int vmaf_context_refuse_if_failed(VmafContext *vmaf, const char *call);

/* Whether n_subsample keeps frame index, and whether extractor cpu sees it
 * (temporal extractors see every frame). */
bool vmaf_context_extracted_at(const VmafContext *vmaf, unsigned index);
bool vmaf_context_sees_frame(const VmafContext *vmaf, const VmafFeatureExtractor *cpu,
                             unsigned index);
/* Whether request r stores provided feature base with its options, and
 * the name it stores it under. */
bool vmaf_request_emits_base(const VmafFeatureRequest *r, const char *base);
void vmaf_request_score_name(const VmafFeatureRequest *r, const char *base, char *buf,
                             size_t len);
/* Whether request r's extractor, with its options, reads the chroma
 * planes (VmafFeatureExtractor.reads_chroma). */
bool vmaf_request_reads_chroma(const VmafFeatureRequest *r);
/* Closes a request's instances (not its options). */
void vmaf_request_close(VmafFeatureRequest *r);

/* 0 when the context takes this pair as frame `index`, else -EINVAL with
 * one line saying what is wrong with which picture. */
int vmaf_context_check_pictures(const VmafContext *vmaf, const VmafPicture *ref,
                                const VmafPicture *dist, unsigned index);

/* At the first frame `index` (ref gives the geometry): backends, instances. */
int vmaf_context_start(VmafContext *vmaf, const VmafPicture *ref, unsigned index);
/* After the last frame; quiet from vmaf_close(), which reports no earlier
 * failure again. */
int vmaf_context_flush(VmafContext *vmaf, bool quiet);
/* Drops the earlier reference pictures kept for temporal extractors. */
void vmaf_context_forget_refs(VmafContext *vmaf);

/* Records a sticky error from a worker; the first one wins. */
void vmaf_context_set_error(VmafContext *vmaf, int err);

/* Waits for every frame submitted to device extractors and stores their
 * scores, which also returns the pictures they hold. Caller's thread only.
 * 0 or the first error. */
int vmaf_context_collect_devices(VmafContext *vmaf);

/* The context's serial: its pools' pictures carry it. */
unsigned long long vmaf_context_serial(const VmafContext *vmaf);

/* For a picture pool whose pictures are all out: collects the device
 * extractors, whose frames hold pictures until then (a failure stays the
 * context's error). vmaf is the VmafContext. */
void vmaf_context_drain(void *vmaf);

/* Waits until every frame read so far is scored (worker threads, device
 * extractors), without flushing: a report written before the flush then
 * holds every frame read, not those that happened to be done. Caller's
 * thread only. */
void vmaf_context_settle(VmafContext *vmaf);

#endif /* LIBVMAF_SRC_CONTEXT_H */
