/**
 * @file feature.h
 * Option dictionaries for feature extractors.
 */
#ifndef LIBVMAF_FEATURE_H
#define LIBVMAF_FEATURE_H

#include "libvmaf/version.h"

#ifdef __cplusplus
extern "C" {
#endif

/** An ordered set of key/value option strings for one feature extractor. */
typedef struct VmafFeatureDictionary VmafFeatureDictionary;

/**
 * Set an option in a dictionary, creating the dictionary on first use.
 *
 * @param dict Address of the dictionary pointer; `*dict` may be NULL, in which
 *             case a new dictionary is allocated and stored there.
 * @param key  Option name (copied), for example "scale".
 * @param val  Option value as text (copied), for example "2". Setting a key
 *             that is already present replaces its value.
 *
 * Values are checked against the extractor's option table when the dictionary
 * is handed to vmaf_use_feature() or vmaf_model_feature_overload(), not here.
 *
 * @return 0 on success, -EINVAL on a NULL argument, -ENOMEM when out of memory.
 */
VMAF_EXPORT int vmaf_feature_dictionary_set(VmafFeatureDictionary **dict,
                                            const char *key, const char *val);

/**
 * Free a dictionary and set `*dict` to NULL.
 *
 * Only needed for a dictionary that was not handed over. vmaf_use_feature()
 * takes ownership once it finds the extractor, on success and on any later
 * failure; when it fails before that (NULL context or name, a picture
 * already read, an unknown name) the caller still owns the dictionary and
 * frees it here (see vmaf_use_feature() in libvmaf.h).
 *
 * @param dict Address of the dictionary pointer; NULL or `*dict == NULL` is a no-op.
 * @return 0.
 */
VMAF_EXPORT int vmaf_feature_dictionary_free(VmafFeatureDictionary **dict);

#ifdef __cplusplus
}
#endif

#endif /* LIBVMAF_FEATURE_H */
