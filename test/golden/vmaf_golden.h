/*
 * Reading the VMAF golden data (test/data/vmaf/golden_vmaf.json, made by the
 * reference libvmaf 3.2 on its C path; test/data/vmaf/README.md): the
 * vectors, their luma frames, and each run's options and per-frame values.
 * For tests only; every failure returns a negative errno and prints one line.
 */
#ifndef TEST_GOLDEN_VMAF_GOLDEN_H
#define TEST_GOLDEN_VMAF_GOLDEN_H

#include <stdbool.h>
#include <stddef.h>

typedef struct VmafGolden VmafGolden;

typedef struct GoldenVector {
    const char *id;          /* "v01" */
    unsigned w, h, fmt, bpc; /* fmt: 420, 422 or 444 */
    unsigned frames;
    char ref_path[1024], dis_path[1024];
    const void *json; /* the vector's json_t, for golden.c */
} GoldenVector;

/* Parses json_path; the vectors are looked for (decompressed) in vector_dir. */
int golden_open(const char *json_path, const char *vector_dir, VmafGolden **out);
void golden_close(VmafGolden *g);

unsigned golden_vector_count(const VmafGolden *g);
const GoldenVector *golden_vector(const VmafGolden *g, unsigned i);

/* Size in bytes of one frame of the stored file (chroma planes rounded up). */
size_t golden_frame_bytes(const GoldenVector *v);

/* Reads the luma plane of frame `frame` of the reference (which = 0) or the
 * distorted file (which = 1) into buf, packed: w*h bytes at 8 bits, w*h
 * uint16_t (native endianness) above. */
int golden_read_luma(const GoldenVector *v, int which, unsigned frame, void *buf);

unsigned golden_run_count(const GoldenVector *v);
const char *golden_run_name(const GoldenVector *v, unsigned run);
/* The run's CLI arguments after the input ones ("-n", "--feature", ...). */
unsigned golden_run_argc(const GoldenVector *v, unsigned run);
const char *golden_run_arg(const GoldenVector *v, unsigned run, unsigned i);

/* Whether the run asks for extractor `fex` with "--feature fex[=opts]": NULL
 * if not; else the option string ("k=v:k=v", "" without options). */
const char *golden_run_feature(const GoldenVector *v, unsigned run, const char *fex);

/* The model file a run loads ("-m path=model/x.json" → "x.json"), or NULL. */
const char *golden_run_model(const GoldenVector *v, unsigned run);

/* Whether `metric` is a usable target in this run (exact: true, or not in
 * inexact_metrics). */
bool golden_metric_exact(const GoldenVector *v, unsigned run, const char *metric);

/* Metric names present in frame 0 of a run, in the reference's order. */
unsigned golden_metric_count(const GoldenVector *v, unsigned run);
const char *golden_metric_name(const GoldenVector *v, unsigned run, unsigned i);

/* The reference's value: 0 and *out; 1 when it printed a non-finite value
 * (null; *out is NaN); -ENOENT when the frame has no such metric. */
int golden_frame_value(const GoldenVector *v, unsigned run, unsigned frame, const char *metric,
                       double *out);

/* A pooled value; method "min", "max", "mean" or "harmonic_mean". */
int golden_pooled_value(const GoldenVector *v, unsigned run, const char *metric,
                        const char *method, double *out);

/* Bit-exact comparison of doubles (NaN equals NaN). */
bool golden_same(double a, double b);

#endif /* TEST_GOLDEN_VMAF_GOLDEN_H */
