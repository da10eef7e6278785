/* The table of every feature extractor this build has. */
#ifndef LIBVMAF_SRC_REGISTRY_H
#define LIBVMAF_SRC_REGISTRY_H

#include <stddef.h>

#include "feature/feature_extractor.h"

size_t vmaf_registry_count(void);
const VmafFeatureExtractor *vmaf_registry_at(size_t i);

/* By extractor name ("float_ssim", "float_ssim_cuda"), or NULL. */
const VmafFeatureExtractor *vmaf_registry_find_by_name(const char *name);

/* The CPU extractor that provides this feature name, or NULL. */
const VmafFeatureExtractor *vmaf_registry_find_by_feature(const char *feature);

/* The twin of a CPU extractor on a backend, or NULL if it has none. */
const VmafFeatureExtractor *vmaf_registry_twin(const VmafFeatureExtractor *cpu,
                                               enum VmafFexBackend backend);

/* The CPU extractor a twin mirrors (itself for a CPU extractor). */
const VmafFeatureExtractor *vmaf_registry_cpu_of(const VmafFeatureExtractor *fex);

/* The CPU extractor of a twin whose backend this build was compiled
 * without ("float_ssim_cuda" without CUDA), or NULL: asking for such a
 * twin is -ENODEV, not an unknown name. */
const VmafFeatureExtractor *vmaf_registry_absent_twin(const char *name);

/* Checks the table: unique names, unique provided features among CPU
 * extractors, flushed features among the provided ones, every twin linked
 * to a CPU extractor of the table and listing no options or features of
 * its own (it has its CPU extractor's), and every compiled-out twin naming
 * a CPU extractor of the table. 0, or -EINVAL with one logged line
 * per problem. Run by a test on every build. */
int vmaf_registry_validate(void);

/* The same checks on any table (lets a test prove that they catch errors). */
int vmaf_registry_validate_table(const VmafFeatureExtractor *const *t, size_t n);

#endif /* LIBVMAF_SRC_REGISTRY_H */
