/* Report writers: XML, JSON, CSV and SUB, in the layout of the reference
 * libvmaf 3.x so that tools which parse its reports read ours unchanged.
 *
 * vmaf_write_output_with_format() (output.c) takes a snapshot of the context
 * (a VmafReport), picks a writer from a const table and streams the report
 * through a VmafOutSink, which remembers the first failed write; the file is
 * then committed atomically or discarded. */
#ifndef LIBVMAF_SRC_OUTPUT_OUTPUT_H
#define LIBVMAF_SRC_OUTPUT_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "libvmaf/libvmaf.h"

#include "feature/feature_collector.h"

/* The score printf conversion used when the caller gives none. */
#define VMAF_OUTPUT_DEFAULT_SCORE_FORMAT "%.6f"

/* One column of the report: a feature or model score from the collector. */
typedef struct VmafReportFeature {
    const char *name;        /* name as stored in the collector (for pooling) */
    const char *out_name;    /* name as written (the reference's aliases applied) */
    size_t fc_index;         /* position in the collector */
    bool has_pooled[VMAF_POOL_METHOD_NB];
    double pooled[VMAF_POOL_METHOD_NB];
} VmafReportFeature;

/* Everything a writer needs, gathered once before writing. */
typedef struct VmafReport {
    VmafFeatureCollector *fc;
    VmafReportFeature *feature;
    size_t n_feature;
    unsigned n_slots;        /* highest frame index with any score, plus one */
    unsigned subsample;      /* frames off the grid are left out, as the reference does */
    unsigned width, height;  /* picture size (0 when no picture was read) */
    double fps;              /* frames per second of the scoring run; NaN when unknown */
    const char *version;
    const char *score_format;
} VmafReport;

/* The key of each pooling method in the JSON and XML reports. */
extern const char *const vmaf_output_pool_name[VMAF_POOL_METHOD_NB];

/* True if frame `index` has a row in the report: it lies on the subsample
 * grid and at least one feature has a score there. */
bool vmaf_report_frame_used(const VmafReport *r, unsigned index);

/* The score of feature `f` at frame `index`, if there is one. */
bool vmaf_report_value(const VmafReport *r, size_t f, unsigned index, double *value);

/* A FILE that remembers the first failed write as a negative errno; once a
 * write failed, the following ones do nothing. */
typedef struct VmafOutSink {
    FILE *f;
    int err;
} VmafOutSink;

void vmaf_sink_puts(VmafOutSink *s, const char *str);
void vmaf_sink_putc(VmafOutSink *s, char c);
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
void vmaf_sink_printf(VmafOutSink *s, const char *fmt, ...);

/* How a score that is not a finite number is written. */
enum VmafNonFinite {
    VMAF_NONFINITE_TEXT, /* "nan", "inf", "-inf": what strtod() and Python's float() read */
    VMAF_NONFINITE_NULL, /* JSON null; finite numbers are also made valid JSON numbers */
};

/* Writes one score with the report's printf conversion. */
void vmaf_sink_score(VmafOutSink *s, const char *score_format, double value,
                     enum VmafNonFinite nonfinite);

/* Writes `str` escaped for an XML attribute value (without the quotes). */
void vmaf_sink_xml_text(VmafOutSink *s, const char *str);
/* Writes `str` as a JSON string, quotes included. */
void vmaf_sink_json_string(VmafOutSink *s, const char *str);
/* Writes `str` as one CSV field, quoted when RFC 4180 needs it. */
void vmaf_sink_csv_field(VmafOutSink *s, const char *str);
/* Writes `str` for a MicroDVD line: '|' and control characters, which would
 * end or split the subtitle, become '_'. */
void vmaf_sink_sub_text(VmafOutSink *s, const char *str);

/* 0 if `fmt` is one printf conversion %[flags][width][.precision](e|f|g)
 * and nothing else (width and precision at most two digits), else -EINVAL. */
int vmaf_output_check_score_format(const char *fmt);

/* True if `name` can be an XML attribute name in a <frame> element. */
bool vmaf_output_xml_name_ok(const char *name);

/* A report format. `check` (optional) refuses, with one logged error, a
 * report the format cannot represent, before any file is touched; `write`
 * streams the report into the sink. */
typedef struct VmafOutputWriter {
    enum VmafOutputFormat fmt;
    const char *name;
    int (*check)(const VmafReport *r);
    void (*write)(const VmafReport *r, VmafOutSink *s);
} VmafOutputWriter;

extern const VmafOutputWriter vmaf_output_writer_xml;
extern const VmafOutputWriter vmaf_output_writer_json;
extern const VmafOutputWriter vmaf_output_writer_csv;
extern const VmafOutputWriter vmaf_output_writer_sub;

#endif /* LIBVMAF_SRC_OUTPUT_OUTPUT_H */
