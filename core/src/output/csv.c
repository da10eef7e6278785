/* CSV report in the reference layout: a header "Frame,name,...," and one
 * line "i,score,...," per frame; every line ends with a comma, as the
 * reference's do. Unlike the reference, a feature without a score at a
 * frame leaves its field empty instead of shifting the following columns,
 * and a name that needs it is quoted (RFC 4180). */
#include "output/output.h"

static void write_csv(const VmafReport *r, VmafOutSink *s)
{
    vmaf_sink_puts(s, "Frame,");
    for (size_t j = 0; j < r->n_feature; j++) {
        vmaf_sink_csv_field(s, r->feature[j].out_name);
        vmaf_sink_putc(s, ',');
    }
    vmaf_sink_putc(s, '\n');

    for (unsigned i = 0; i < r->n_slots && !s->err; i++) {
        if (!vmaf_report_frame_used(r, i))
            continue;
        vmaf_sink_printf(s, "%u,", i);
        for (size_t j = 0; j < r->n_feature; j++) {
            double v;
            if (vmaf_report_value(r, j, i, &v))
                vmaf_sink_score(s, r->score_format, v, VMAF_NONFINITE_TEXT);
            vmaf_sink_putc(s, ',');
        }
        vmaf_sink_putc(s, '\n');
    }
}

const VmafOutputWriter vmaf_output_writer_csv = {
    .fmt = VMAF_OUTPUT_FORMAT_CSV,
    .name = "CSV",
    .write = write_csv,
};
