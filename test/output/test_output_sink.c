/* Unit checks of the writers' building blocks: score-format validation, XML
 * attribute names, escaping for each format, JSON numbers from any accepted
 * printf flags, the sticky write error, and argument checks of the API. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libvmaf/libvmaf.h"

#include "check.h"
#include "output/output.h"

/* Runs one sink call into memory and returns what it wrote (static buffer). */
#define CAPTURE(call)                                                                    \
    ({                                                                                   \
        static char out_[1024];                                                          \
        char *buf_ = NULL;                                                               \
        size_t len_ = 0;                                                                 \
        FILE *f_ = open_memstream(&buf_, &len_);                                         \
        VmafOutSink s_ = { .f = f_, .err = 0 };                                          \
        VmafOutSink *s = &s_;                                                            \
        call;                                                                            \
        fclose(f_);                                                                      \
        snprintf(out_, sizeof(out_), "%s", buf_ ? buf_ : "");                            \
        free(buf_);                                                                      \
        CHECK_INT(s_.err, 0);                                                            \
        out_;                                                                            \
    })

static void test_score_format(void)
{
    const char *good[] = { "%.6f", "%.17g", "%e", "%f", "%g", "%.f", "%+08.3f", "%#.0e",
                           "% g", "%-12.4f", "%99.99f", "%0-+ #5.2e" };
    const char *bad[] = { "", "%", "%%", "%d", "%s", "%n", "%lf", "%Lf", "%F", "%E", "%a",
                          "%*f", "%.*f", "%1$f", "%100f", "%.100f", "%.6f%s", "x%.6f",
                          "%.6fx", "%.6f ", "%-", "%.6", "%6.", "%%f" };
    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
        CHECK_INT(vmaf_output_check_score_format(good[i]), 0);
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        if (vmaf_output_check_score_format(bad[i]) != -EINVAL) {
            fprintf(stderr, "score format \"%s\" accepted\n", bad[i]);
            check_failures++;
        }
    CHECK_INT(vmaf_output_check_score_format(NULL), -EINVAL);
}

static void test_xml_names(void)
{
    CHECK(vmaf_output_xml_name_ok("float_ssim"));
    CHECK(vmaf_output_xml_name_ok("vmaf_v0.6.1-neg"));
    CHECK(vmaf_output_xml_name_ok("_x"));
    CHECK(vmaf_output_xml_name_ok("caf\xc3\xa9"));
    CHECK(vmaf_output_xml_name_ok("\xce\xa9mega")); /* U+03A9 */
    CHECK(vmaf_output_xml_name_ok("a\xc2\xb7" "b")); /* U+00B7 only after the first */
    CHECK(!vmaf_output_xml_name_ok("\xc2\xb7" "b"));
    CHECK(!vmaf_output_xml_name_ok(""));
    CHECK(!vmaf_output_xml_name_ok("9x"));
    CHECK(!vmaf_output_xml_name_ok("-x"));
    CHECK(!vmaf_output_xml_name_ok(".x"));
    CHECK(!vmaf_output_xml_name_ok("a:b"));
    CHECK(!vmaf_output_xml_name_ok("a b"));
    CHECK(!vmaf_output_xml_name_ok("a<b"));
    CHECK(!vmaf_output_xml_name_ok("a\"b"));
    CHECK(!vmaf_output_xml_name_ok("a\xff"));      /* not UTF-8 */
    CHECK(!vmaf_output_xml_name_ok("a\xc0\x80"));  /* overlong NUL */
    CHECK(!vmaf_output_xml_name_ok("a\xed\xa0\x80")); /* surrogate */
    CHECK(!vmaf_output_xml_name_ok("a\xc3"));      /* truncated */
    CHECK(!vmaf_output_xml_name_ok("\xc3\x97"));   /* U+00D7, not a name character */
}

static void test_escaping(void)
{
    CHECK_STR(CAPTURE(vmaf_sink_xml_text(s, "a&b<c>d\"e'f")), "a&amp;b&lt;c&gt;d&quot;e&apos;f");
    CHECK_STR(CAPTURE(vmaf_sink_xml_text(s, "t\tn\nr\r")), "t&#9;n&#10;r&#13;");
    CHECK_STR(CAPTURE(vmaf_sink_xml_text(s, "c\x01" "d\xff" "e")), "c\xef\xbf\xbd" "d\xef\xbf\xbd" "e");
    CHECK_STR(CAPTURE(vmaf_sink_xml_text(s, "caf\xc3\xa9")), "caf\xc3\xa9");

    CHECK_STR(CAPTURE(vmaf_sink_json_string(s, "q\"b\\s/")), "\"q\\\"b\\\\s/\"");
    CHECK_STR(CAPTURE(vmaf_sink_json_string(s, "\b\f\n\r\t\x01\x1f\x7f")),
              "\"\\b\\f\\n\\r\\t\\u0001\\u001f\\u007f\"");
    CHECK_STR(CAPTURE(vmaf_sink_json_string(s, "x\xff\xc3(y")), "\"x\\ufffd\\ufffd(y\"");
    CHECK_STR(CAPTURE(vmaf_sink_json_string(s, "\xf0\x9f\x98\x80")), "\"\xf0\x9f\x98\x80\"");
    CHECK_STR(CAPTURE(vmaf_sink_json_string(s, "")), "\"\"");

    CHECK_STR(CAPTURE(vmaf_sink_csv_field(s, "plain")), "plain");
    CHECK_STR(CAPTURE(vmaf_sink_csv_field(s, "a,b")), "\"a,b\"");
    CHECK_STR(CAPTURE(vmaf_sink_csv_field(s, "say \"hi\"")), "\"say \"\"hi\"\"\"");
    CHECK_STR(CAPTURE(vmaf_sink_csv_field(s, "two\nlines")), "\"two\nlines\"");
    CHECK_STR(CAPTURE(vmaf_sink_csv_field(s, " pad")), "\" pad\"");

    CHECK_STR(CAPTURE(vmaf_sink_sub_text(s, "a|b\nc\x7f" "d")), "a_b_c_d");
}

static void test_scores(void)
{
    CHECK_STR(CAPTURE(vmaf_sink_score(s, "%.6f", 0.5, VMAF_NONFINITE_TEXT)), "0.500000");
    CHECK_STR(CAPTURE(vmaf_sink_score(s, "%.6f", NAN, VMAF_NONFINITE_TEXT)), "nan");
    CHECK_STR(CAPTURE(vmaf_sink_score(s, "%.6f", -NAN, VMAF_NONFINITE_TEXT)), "nan");
    CHECK_STR(CAPTURE(vmaf_sink_score(s, "%.6f", INFINITY, VMAF_NONFINITE_TEXT)), "inf");
    CHECK_STR(CAPTURE(vmaf_sink_score(s, "%.6f", -INFINITY, VMAF_NONFINITE_TEXT)), "-inf");
    CHECK_STR(CAPTURE(vmaf_sink_score(s, "%.6f", NAN, VMAF_NONFINITE_NULL)), "null");
    CHECK_STR(CAPTURE(vmaf_sink_score(s, "%.6f", -INFINITY, VMAF_NONFINITE_NULL)), "null");
    /* Flags give text C reads but JSON does not; JSON mode fixes it up. */
    CHECK_STR(CAPTURE(vmaf_sink_score(s, "%+08.3f", 1.5, VMAF_NONFINITE_TEXT)), "+001.500");
    CHECK_STR(CAPTURE(vmaf_sink_score(s, "%+08.3f", 1.5, VMAF_NONFINITE_NULL)), "1.500");
    CHECK_STR(CAPTURE(vmaf_sink_score(s, "%+08.3f", -1.5, VMAF_NONFINITE_NULL)), "-1.500");
    CHECK_STR(CAPTURE(vmaf_sink_score(s, "%#.0f", 2.0, VMAF_NONFINITE_NULL)), "2");
    CHECK_STR(CAPTURE(vmaf_sink_score(s, "%#.0e", 2.0, VMAF_NONFINITE_NULL)), "2e+00");
    CHECK_STR(CAPTURE(vmaf_sink_score(s, "% -9.2f", 0.25, VMAF_NONFINITE_NULL)), "0.25");
    CHECK_STR(CAPTURE(vmaf_sink_score(s, "%012.2e", -1.5e-7, VMAF_NONFINITE_NULL)), "-1.50e-07");
    CHECK_STR(CAPTURE(vmaf_sink_score(s, "%.6f", 0.0, VMAF_NONFINITE_NULL)), "0.000000");
    CHECK_STR(CAPTURE(vmaf_sink_score(s, "%05.0f", 0.0, VMAF_NONFINITE_NULL)), "0");
    CHECK_STR(CAPTURE(vmaf_sink_score(s, "%.17g", 0.1, VMAF_NONFINITE_NULL)), "0.10000000000000001");
    CHECK_STR(CAPTURE(vmaf_sink_score(s, "%g", 1e300, VMAF_NONFINITE_NULL)), "1e+300");
    /* The widest accepted conversion of the largest double fits. */
    char *wide = CAPTURE(vmaf_sink_score(s, "%99.99f", -1.7976931348623157e308,
                                         VMAF_NONFINITE_TEXT));
    CHECK_INT(strlen(wide), 1 + 309 + 1 + 99);
}

static void test_sticky_error(void)
{
    FILE *f = fopen("/dev/full", "w");
    if (!f) {
        fprintf(stderr, "no /dev/full: sticky error check not run\n");
        return;
    }
    setvbuf(f, NULL, _IONBF, 0);
    VmafOutSink s = { .f = f, .err = 0 };
    vmaf_sink_puts(&s, "x");
    CHECK_INT(s.err, -ENOSPC);
    s.err = -EIO; /* a later failure must not replace the first one */
    vmaf_sink_printf(&s, "%d", 1);
    vmaf_sink_score(&s, "%.6f", 1.0, VMAF_NONFINITE_TEXT);
    vmaf_sink_json_string(&s, "y");
    CHECK_INT(s.err, -EIO);
    fclose(f);
}

static void test_api_arguments(void)
{
    VmafContext *vmaf = NULL;
    VmafConfiguration cfg = { .log_level = VMAF_LOG_LEVEL_ERROR };
    CHECK_INT(vmaf_init(&vmaf, cfg), 0);
    capture_begin();
    CHECK_INT(vmaf_write_output(NULL, "x.json", VMAF_OUTPUT_FORMAT_JSON), -EINVAL);
    CHECK_INT(vmaf_write_output(vmaf, NULL, VMAF_OUTPUT_FORMAT_JSON), -EINVAL);
    CHECK_INT(vmaf_write_output(vmaf, "", VMAF_OUTPUT_FORMAT_JSON), -EINVAL);
    CHECK_INT(vmaf_write_output_with_format(vmaf, "-", VMAF_OUTPUT_FORMAT_JSON, "%d"), -EINVAL);
    CHECK_INT(vmaf_write_output(vmaf, "-", VMAF_OUTPUT_FORMAT_NONE), -EINVAL);
    const char *log = capture_end();
    CHECK_INT(count_lines(log), 5);
    CHECK(strstr(log, "empty") != NULL);
    CHECK(strstr(log, "\"%d\"") != NULL);
    vmaf_close(vmaf);
}

int main(void)
{
    test_score_format();
    test_xml_names();
    test_escaping();
    test_scores();
    test_sticky_error();
    test_api_arguments();
    return check_result("test_output_sink");
}
