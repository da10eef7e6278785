/* Models given with -m (or the default one): loaded before the scoring
 * context exists, with the library's reason for a refusal. */
#ifndef VMAF_TOOLS_MODELS_H
#define VMAF_TOOLS_MODELS_H

#include "libvmaf/libvmaf.h"
#include "libvmaf/model.h"

#include "cli_parse.h"

typedef struct LoadedModel {
    VmafModel *model;                /* a collection's model "0" for a collection */
    VmafModelCollection *collection; /* NULL for a single model */
    const char *label;               /* its name in messages and the summary */
} LoadedModel;

/* A feature dictionary of n key/value pairs (NULL for none). 0 or -ENOMEM. */
int make_dict(const CliKeyVal *kv, unsigned n, VmafFeatureDictionary **dict);

/* Loads m into lm, with its feature overloads; `level` is the run's log
 * level, set again afterwards. 0, or the exit status, its line printed. */
int load_model(const CliModel *m, LoadedModel *lm, enum VmafLogLevel level);

/* Releases what load_model() loaded (a collection and its model "0"
 * separately, as with libvmaf). */
void unload_model(LoadedModel *lm);

#endif /* VMAF_TOOLS_MODELS_H */
