/* The summary: the pooled scores of the models and features, as the
 * reference tool prints them. */
#ifndef VMAF_TOOLS_SUMMARY_H
#define VMAF_TOOLS_SUMMARY_H

#include <stdio.h>

#include "libvmaf/libvmaf.h"
#include "libvmaf/model.h"

#include "cli_parse.h"
#include "models.h"

/* Writes the summary of frames 0..frames-1 to f (unchecked: the caller
 * flushes f and reports a failure). model_score and coll_score hold each
 * model's pooled scores, unused with -n. */
void summary_print(FILE *f, const CliSettings *c, VmafContext *vmaf, const LoadedModel *models,
                   const double *model_score, const VmafModelCollectionScore *coll_score,
                   unsigned frames);

#endif /* VMAF_TOOLS_SUMMARY_H */
