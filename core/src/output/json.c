/* JSON report in the reference layout:
 *   { "version": "3.0.0", "fps": F,
 *     "frames": [ { "frameNum": i, "metrics": { "name": score, ... } }, ... ],
 *     "pooled_metrics": { "name": { "min": , "max": , "mean": , "harmonic_mean": } },
 *     "aggregate_metrics": { "name": score, ... } }  (whole-video scores, apsnr_y)
 * Unlike the reference, the text is valid JSON in every case: a score that
 * is not finite is null, names are escaped, and the separators do not
 * depend on which frame comes first. */
#include "output/output.h"

static void write_json(const VmafReport *r, VmafOutSink *s)
{
    vmaf_sink_puts(s, "{\n  \"version\": ");
    vmaf_sink_json_string(s, r->version);
    vmaf_sink_puts(s, ",\n  \"fps\": ");
    vmaf_sink_score(s, "%.2f", r->fps, VMAF_NONFINITE_NULL);
    vmaf_sink_puts(s, ",\n");

    vmaf_sink_puts(s, "  \"frames\": [");
    bool first_frame = true;
    for (unsigned i = 0; i < r->n_slots && !s->err; i++) {
        if (!vmaf_report_frame_used(r, i))
            continue;
        vmaf_sink_puts(s, first_frame ? "\n" : ",\n");
        first_frame = false;
        vmaf_sink_printf(s, "    {\n      \"frameNum\": %u,\n      \"metrics\": {", i);
        bool first = true;
        for (size_t j = 0; j < r->n_feature; j++) {
            double v;
            if (!vmaf_report_value(r, j, i, &v))
                continue;
            vmaf_sink_puts(s, first ? "\n        " : ",\n        ");
            first = false;
            vmaf_sink_json_string(s, r->feature[j].out_name);
            vmaf_sink_puts(s, ": ");
            vmaf_sink_score(s, r->score_format, v, VMAF_NONFINITE_NULL);
        }
        vmaf_sink_puts(s, "\n      }\n    }");
    }
    vmaf_sink_puts(s, "\n  ],\n");

    vmaf_sink_puts(s, "  \"pooled_metrics\": {");
    for (size_t j = 0; j < r->n_feature; j++) {
        const VmafReportFeature *f = &r->feature[j];
        vmaf_sink_puts(s, j ? ",\n    " : "\n    ");
        vmaf_sink_json_string(s, f->out_name);
        vmaf_sink_puts(s, ": {");
        bool first = true;
        for (int m = VMAF_POOL_METHOD_MIN; m < VMAF_POOL_METHOD_NB; m++) {
            if (!f->has_pooled[m])
                continue;
            vmaf_sink_printf(s, "%s      \"%s\": ", first ? "\n" : ",\n", vmaf_output_pool_name[m]);
            first = false;
            vmaf_sink_score(s, r->score_format, f->pooled[m], VMAF_NONFINITE_NULL);
        }
        vmaf_sink_puts(s, "\n    }");
    }
    vmaf_sink_puts(s, "\n  },\n");
    vmaf_sink_puts(s, "  \"aggregate_metrics\": {");
    double v;
    const char *name;
    for (size_t i = 0; (name = vmaf_feature_collector_aggregate_at(r->fc, i, &v)); i++) {
        vmaf_sink_puts(s, i ? ",\n    " : "\n    ");
        vmaf_sink_json_string(s, name);
        vmaf_sink_puts(s, ": ");
        vmaf_sink_score(s, r->score_format, v, VMAF_NONFINITE_NULL);
    }
    vmaf_sink_puts(s, "\n  }\n}\n");
}

const VmafOutputWriter vmaf_output_writer_json = {
    .fmt = VMAF_OUTPUT_FORMAT_JSON,
    .name = "JSON",
    .write = write_json,
};
