/* Per-frame scores by feature name; safe to use from several threads. */
#ifndef LIBVMAF_SRC_FEATURE_FEATURE_COLLECTOR_H
#define LIBVMAF_SRC_FEATURE_FEATURE_COLLECTOR_H

#include <stdbool.h>
#include <stddef.h>

typedef struct VmafFeatureCollector VmafFeatureCollector;

int vmaf_feature_collector_init(VmafFeatureCollector **fc);
void vmaf_feature_collector_destroy(VmafFeatureCollector *fc);

/* Frame indices stop below this, so that slot counts fit in an unsigned. */
#define VMAF_FEATURE_COLLECTOR_MAX_INDEX 0x7fffffffu

/* Puts a feature in the iteration order without a score, so that reports
 * list features in the order the extractors are set up, whichever worker
 * stores first. 0 (also when it is there already) or -ENOMEM. */
int vmaf_feature_collector_declare(VmafFeatureCollector *fc, const char *name);

/* Stores a score; -EINVAL if that feature already has one at index, or if
 * index is not below VMAF_FEATURE_COLLECTOR_MAX_INDEX. */
int vmaf_feature_collector_append(VmafFeatureCollector *fc, const char *name,
                                  double value, unsigned index);

/* Replaces or stores a score (used for model predictions, which may be redone). */
int vmaf_feature_collector_set(VmafFeatureCollector *fc, const char *name,
                               double value, unsigned index);

/* 0 and *value, or -EINVAL when there is no score. */
int vmaf_feature_collector_get(VmafFeatureCollector *fc, const char *name,
                               double *value, unsigned index);

/* Iteration for writers: features in the order first seen. */
size_t vmaf_feature_collector_count(VmafFeatureCollector *fc);
const char *vmaf_feature_collector_name(VmafFeatureCollector *fc, size_t i);
/* Number of frame slots of feature i (highest index + 1). */
unsigned vmaf_feature_collector_capacity(VmafFeatureCollector *fc, size_t i);
/* true and *value if feature i has a score at index. */
bool vmaf_feature_collector_at(VmafFeatureCollector *fc, size_t i, unsigned index,
                               double *value);

/* Frames read by the context, kept apart from the scores so that a frame
 * index given twice is refused before any extractor runs (subsampled-out
 * frames have no scores but were read all the same). mark_read: 0, -EEXIST
 * if index was already marked, -EINVAL for an index not below
 * VMAF_FEATURE_COLLECTOR_MAX_INDEX, or -ENOMEM. */
int vmaf_feature_collector_mark_read(VmafFeatureCollector *fc, unsigned index);
bool vmaf_feature_collector_was_read(VmafFeatureCollector *fc, unsigned index);

/* Scores of the whole video, not of a frame (psnr's apsnr_y), which
 * reports list apart. set: stores or replaces; 0 or -ENOMEM. at: the
 * name of the i-th in the order first set and *value, or NULL past the
 * end. */
int vmaf_feature_collector_set_aggregate(VmafFeatureCollector *fc, const char *name,
                                         double value);
size_t vmaf_feature_collector_aggregate_count(VmafFeatureCollector *fc);
const char *vmaf_feature_collector_aggregate_at(VmafFeatureCollector *fc, size_t i,
                                                double *value);

#endif /* LIBVMAF_SRC_FEATURE_FEATURE_COLLECTOR_H */
