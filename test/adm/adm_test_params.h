/*
 * Test helpers: the ADM parameter set a golden run asks for (its
 * "--feature adm=..." options, or the options a model file gives its ADM
 * feature), and the output values by their reference names.
 */
#ifndef TEST_ADM_ADM_TEST_PARAMS_H
#define TEST_ADM_ADM_TEST_PARAMS_H

#include <stdbool.h>

#include "feature/adm/adm.h"
#include "vmaf_golden.h"

/* 1 and *p if run asks for ADM, 0 if not, negative on a malformed run. */
int adm_run_params(const GoldenVector *v, unsigned run, const char *models_dir, AdmParams *p);

/* Applies "key=value:key=value" (reference option names and aliases). */
int adm_apply_options(AdmParams *p, const char *opts);

/* The reference's output names without the option suffix, and the value of
 * each in s; n = ADM_N_OUTPUTS. */
#define ADM_N_OUTPUTS 18
extern const char *const adm_output_names[ADM_N_OUTPUTS];
double adm_output_value(const AdmScores *s, unsigned i);

/* The inner-loop table of a CPU level by name: c, avx2, avx512, or best
 * (what vmaf_adm_compute() uses: the CPU's levels less the cpumask). -1 if
 * the name is unknown or this CPU or build lacks the level. */
struct AdmDsp;
int adm_test_level(const char *name, struct AdmDsp *dsp);

#endif /* TEST_ADM_ADM_TEST_PARAMS_H */
