/* MicroDVD subtitles, one a frame, in the reference layout:
 *   {i}{i+1}frame: i|name: score|...|
 * so that a player shows the scores over the distorted video. '|' breaks a
 * MicroDVD line, so it (and any control character) in a name is shown as '_'. */
#include "output/output.h"

static void write_sub(const VmafReport *r, VmafOutSink *s)
{
    for (unsigned i = 0; i < r->n_slots && !s->err; i++) {
        if (!vmaf_report_frame_used(r, i))
            continue;
        vmaf_sink_printf(s, "{%u}{%u}frame: %u|", i, i + 1, i);
        for (size_t j = 0; j < r->n_feature; j++) {
            double v;
            if (!vmaf_report_value(r, j, i, &v))
                continue;
            vmaf_sink_sub_text(s, r->feature[j].out_name);
            vmaf_sink_puts(s, ": ");
            vmaf_sink_score(s, r->score_format, v, VMAF_NONFINITE_TEXT);
            vmaf_sink_putc(s, '|');
        }
        vmaf_sink_putc(s, '\n');
    }
}

const VmafOutputWriter vmaf_output_writer_sub = {
    .fmt = VMAF_OUTPUT_FORMAT_SUB,
    .name = "SUB",
    .write = write_sub,
};
