/* VmafFeatureDictionary: ordered key/value strings. */
#ifndef LIBVMAF_SRC_DICT_H
#define LIBVMAF_SRC_DICT_H

#include <stddef.h>

#include "libvmaf/feature.h"

typedef struct VmafDictEntry {
    char *key;
    char *val;
} VmafDictEntry;

struct VmafFeatureDictionary {
    VmafDictEntry *entry;
    size_t cnt, cap;
};

/* The value stored under key, or NULL. */
const char *vmaf_dict_get(const VmafFeatureDictionary *d, const char *key);

/* A deep copy in *dst (NULL when src is NULL or empty). 0 or -ENOMEM. */
int vmaf_dict_copy(const VmafFeatureDictionary *src, VmafFeatureDictionary **dst);

/* Sets every entry of src into *dst (src wins). 0 or -ENOMEM. */
int vmaf_dict_merge(VmafFeatureDictionary **dst, const VmafFeatureDictionary *src);

/* Equal keys with equal values, in any order. NULL equals an empty dictionary. */
int vmaf_dict_equal(const VmafFeatureDictionary *a, const VmafFeatureDictionary *b);

#endif /* LIBVMAF_SRC_DICT_H */
