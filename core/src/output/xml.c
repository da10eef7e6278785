/* XML report in the reference layout:
 *   <VMAF version="3.0.0">
 *     <params qualityWidth="W" qualityHeight="H" />
 *     <fyi fps="F" />
 *     <frames> <frame frameNum="i" name="score" ... /> ... </frames>
 *     <pooled_metrics> <metric name="n" min= max= mean= harmonic_mean= /> ... </pooled_metrics>
 *     <aggregate_metrics name="score" ... />  (whole-video scores, apsnr_y)
 *   </VMAF>
 * Scores are attributes named after their feature, so every feature name
 * must be a valid XML attribute name (checked before anything is written). */
#include <errno.h>
#include <string.h>

#include "log.h"
#include "output/output.h"

/* A copy of `name` fit for a one-line message: control characters as '?',
 * at most 80 bytes. */
static const char *printable(const char *name, char *buf, size_t size)
{
    size_t i = 0;
    for (; name[i] && i + 1 < size && i < 80; i++)
        buf[i] = ((unsigned char)name[i] < 0x20 || name[i] == 0x7F) ? '?' : name[i];
    buf[i] = '\0';
    return buf;
}

static int check(const VmafReport *r)
{
    char pb[96];
    for (size_t j = 0; j < r->n_feature; j++) {
        const char *name = r->feature[j].out_name;
        if (!vmaf_output_xml_name_ok(name)) {
            vmaf_error("XML report: feature name \"%s\" cannot be an XML attribute name "
                       "(it must start with a letter or '_' and hold only letters, digits, "
                       "'_', '-' and '.'); write JSON or CSV instead, or rename the feature",
                       printable(name, pb, sizeof(pb)));
            return -EINVAL;
        }
        bool dup = !strcmp(name, "frameNum");
        for (size_t k = 0; k < j && !dup; k++)
            dup = !strcmp(name, r->feature[k].out_name);
        if (dup) {
            vmaf_error("XML report: feature name \"%s\" would appear twice in a <frame> "
                       "element; write JSON or CSV instead, or rename the feature",
                       printable(name, pb, sizeof(pb)));
            return -EINVAL;
        }
    }
    return 0;
}

static void write_xml(const VmafReport *r, VmafOutSink *s)
{
    vmaf_sink_puts(s, "<VMAF version=\"");
    vmaf_sink_xml_text(s, r->version);
    vmaf_sink_puts(s, "\">\n");
    vmaf_sink_printf(s, "  <params qualityWidth=\"%u\" qualityHeight=\"%u\" />\n", r->width,
                     r->height);
    vmaf_sink_puts(s, "  <fyi fps=\"");
    vmaf_sink_score(s, "%.2f", r->fps, VMAF_NONFINITE_TEXT);
    vmaf_sink_puts(s, "\" />\n");

    vmaf_sink_puts(s, "  <frames>\n");
    for (unsigned i = 0; i < r->n_slots && !s->err; i++) {
        if (!vmaf_report_frame_used(r, i))
            continue;
        vmaf_sink_printf(s, "    <frame frameNum=\"%u\" ", i);
        for (size_t j = 0; j < r->n_feature; j++) {
            double v;
            if (!vmaf_report_value(r, j, i, &v))
                continue;
            vmaf_sink_puts(s, r->feature[j].out_name);
            vmaf_sink_puts(s, "=\"");
            vmaf_sink_score(s, r->score_format, v, VMAF_NONFINITE_TEXT);
            vmaf_sink_puts(s, "\" ");
        }
        vmaf_sink_puts(s, "/>\n");
    }
    vmaf_sink_puts(s, "  </frames>\n");

    vmaf_sink_puts(s, "  <pooled_metrics>\n");
    for (size_t j = 0; j < r->n_feature; j++) {
        const VmafReportFeature *f = &r->feature[j];
        vmaf_sink_puts(s, "    <metric name=\"");
        vmaf_sink_xml_text(s, f->out_name);
        vmaf_sink_puts(s, "\" ");
        for (int m = VMAF_POOL_METHOD_MIN; m < VMAF_POOL_METHOD_NB; m++) {
            if (!f->has_pooled[m])
                continue;
            vmaf_sink_printf(s, "%s=\"", vmaf_output_pool_name[m]);
            vmaf_sink_score(s, r->score_format, f->pooled[m], VMAF_NONFINITE_TEXT);
            vmaf_sink_puts(s, "\" ");
        }
        vmaf_sink_puts(s, "/>\n");
    }
    vmaf_sink_puts(s, "  </pooled_metrics>\n");
    vmaf_sink_puts(s, "  <aggregate_metrics ");
    double v;
    const char *name;
    for (size_t i = 0; (name = vmaf_feature_collector_aggregate_at(r->fc, i, &v)); i++) {
        vmaf_sink_xml_text(s, name);
        vmaf_sink_puts(s, "=\"");
        vmaf_sink_score(s, r->score_format, v, VMAF_NONFINITE_TEXT);
        vmaf_sink_puts(s, "\" ");
    }
    vmaf_sink_puts(s, "/>\n");
    vmaf_sink_puts(s, "</VMAF>\n");
}

const VmafOutputWriter vmaf_output_writer_xml = {
    .fmt = VMAF_OUTPUT_FORMAT_XML,
    .name = "XML",
    .check = check,
    .write = write_xml,
};
