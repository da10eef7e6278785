/* Checked writes, score formatting and the escaping rules of each format. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "output/output.h"

static void fail(VmafOutSink *s)
{
    if (!s->err)
        s->err = errno ? -errno : -EIO;
}

void vmaf_sink_puts(VmafOutSink *s, const char *str)
{
    if (s->err)
        return;
    errno = 0;
    if (fputs(str, s->f) == EOF)
        fail(s);
}

void vmaf_sink_putc(VmafOutSink *s, char c)
{
    if (s->err)
        return;
    errno = 0;
    if (fputc((unsigned char)c, s->f) == EOF)
        fail(s);
}

void vmaf_sink_printf(VmafOutSink *s, const char *fmt, ...)
{
    if (s->err)
        return;
    va_list ap;
    va_start(ap, fmt);
    errno = 0;
    int n = vfprintf(s->f, fmt, ap);
    va_end(ap);
    if (n < 0)
        fail(s);
}

/* Rewrites printf output of a finite double as a JSON number: flags such as
 * '+', ' ', '0' and '#' produce text ("+1.5", " 1.5", "001.5", "1.") that is
 * a valid C number but not a valid JSON one. Returns false if `in` is not
 * the expected shape. */
static bool json_number(const char *in, char *out, size_t out_size)
{
    size_t o = 0;
#define PUT(ch)                                                                          \
    do {                                                                                 \
        if (o + 1 >= out_size)                                                           \
            return false;                                                                \
        out[o++] = (ch);                                                                 \
    } while (0)
    const char *p = in;
    while (*p == ' ')
        p++;
    if (*p == '+')
        p++;
    else if (*p == '-')
        PUT(*p++);
    while (*p == ' ')
        p++;
    if (*p < '0' || *p > '9')
        return false;
    while (*p == '0' && p[1] >= '0' && p[1] <= '9')
        p++;
    while (*p >= '0' && *p <= '9')
        PUT(*p++);
    if (*p == '.') {
        p++;
        if (*p >= '0' && *p <= '9') {
            PUT('.');
            while (*p >= '0' && *p <= '9')
                PUT(*p++);
        }
    }
    if (*p == 'e' || *p == 'E') {
        PUT('e');
        p++;
        if (*p == '+' || *p == '-')
            PUT(*p++);
        if (*p < '0' || *p > '9')
            return false;
        while (*p >= '0' && *p <= '9')
            PUT(*p++);
    }
    while (*p == ' ')
        p++;
    if (*p)
        return false;
    out[o] = '\0';
    return true;
#undef PUT
}

void vmaf_sink_score(VmafOutSink *s, const char *score_format, double value,
                     enum VmafNonFinite nonfinite)
{
    if (s->err)
        return;
    if (!isfinite(value)) {
        if (nonfinite == VMAF_NONFINITE_NULL)
            vmaf_sink_puts(s, "null");
        else
            vmaf_sink_puts(s, isnan(value) ? "nan" : value > 0 ? "inf" : "-inf");
        return;
    }
    /* Width and precision are at most 99 (vmaf_output_check_score_format),
     * so 309 integer digits of DBL_MAX plus 99 decimals fit. */
    char buf[512];
    int n = snprintf(buf, sizeof(buf), score_format, value);
    if (n < 0 || (size_t)n >= sizeof(buf)) {
        s->err = -EOVERFLOW;
        return;
    }
    if (nonfinite == VMAF_NONFINITE_NULL) {
        char num[sizeof(buf)];
        if (!json_number(buf, num, sizeof(num)))
            snprintf(num, sizeof(num), "%.17g", value);
        vmaf_sink_puts(s, num);
        return;
    }
    vmaf_sink_puts(s, buf);
}

/* Length (1..4) of the well-formed UTF-8 sequence at p, with its code point
 * in *cp, or 0 if the bytes there are not well-formed UTF-8. */
static size_t utf8_seq(const unsigned char *p, uint32_t *cp)
{
    if (p[0] < 0x80) {
        *cp = p[0];
        return 1;
    }
    size_t len;
    uint32_t c;
    static const uint32_t min_cp[5] = { 0, 0, 0x80, 0x800, 0x10000 }; /* no overlongs */
    if (p[0] >= 0xC2 && p[0] <= 0xDF)
        len = 2;
    else if (p[0] >= 0xE0 && p[0] <= 0xEF)
        len = 3;
    else if (p[0] >= 0xF0 && p[0] <= 0xF4)
        len = 4;
    else
        return 0;
    c = p[0] & (0x7Fu >> len);
    for (size_t i = 1; i < len; i++) {
        if ((p[i] & 0xC0) != 0x80) /* also stops at the terminating NUL */
            return 0;
        c = (c << 6) | (p[i] & 0x3F);
    }
    if (c < min_cp[len] || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
        return 0;
    *cp = c;
    return len;
}

static const char replacement_char[] = "\xEF\xBF\xBD"; /* U+FFFD */

/* Writes str with the escapes of one format. `escape` returns the text to
 * write for a code point, or NULL to copy the character unchanged (it may
 * format into buf); a byte that is not UTF-8 is written as `invalid`. */
static void put_escaped(VmafOutSink *s, const char *str, const char *invalid,
                        const char *(*escape)(uint32_t cp, char *buf, size_t size))
{
    const unsigned char *p = (const unsigned char *)str;
    while (*p && !s->err) {
        uint32_t cp;
        size_t len = utf8_seq(p, &cp);
        if (!len) {
            vmaf_sink_puts(s, invalid);
            p++;
            continue;
        }
        char buf[16];
        const char *esc = escape(cp, buf, sizeof(buf));
        if (!esc) {
            memcpy(buf, p, len);
            buf[len] = '\0';
            esc = buf;
        }
        vmaf_sink_puts(s, esc);
        p += len;
    }
}

static const char *xml_escape(uint32_t cp, char *buf, size_t size)
{
    (void)buf;
    (void)size;
    switch (cp) {
    case '&': return "&amp;";
    case '<': return "&lt;";
    case '>': return "&gt;";
    case '"': return "&quot;";
    case '\'': return "&apos;";
    /* Character references keep these from attribute-value normalisation. */
    case '\t': return "&#9;";
    case '\n': return "&#10;";
    case '\r': return "&#13;";
    }
    /* Not allowed in XML 1.0, not even as a reference. */
    if (cp < 0x20 || cp == 0xFFFE || cp == 0xFFFF)
        return replacement_char;
    return NULL;
}

void vmaf_sink_xml_text(VmafOutSink *s, const char *str)
{
    /* Not UTF-8: XML cannot carry it, so write U+FFFD. */
    put_escaped(s, str, replacement_char, xml_escape);
}

static const char *json_escape(uint32_t cp, char *buf, size_t size)
{
    switch (cp) {
    case '"': return "\\\"";
    case '\\': return "\\\\";
    case '\b': return "\\b";
    case '\f': return "\\f";
    case '\n': return "\\n";
    case '\r': return "\\r";
    case '\t': return "\\t";
    }
    if (cp < 0x20 || cp == 0x7F) {
        snprintf(buf, size, "\\u%04x", (unsigned)cp);
        return buf;
    }
    return NULL;
}

void vmaf_sink_json_string(VmafOutSink *s, const char *str)
{
    vmaf_sink_putc(s, '"');
    /* JSON text is UTF-8; a stray byte becomes U+FFFD. */
    put_escaped(s, str, "\\ufffd", json_escape);
    vmaf_sink_putc(s, '"');
}

void vmaf_sink_csv_field(VmafOutSink *s, const char *str)
{
    size_t len = strlen(str);
    bool quote = strpbrk(str, ",\"\r\n") != NULL ||
                 (len && (str[0] == ' ' || str[len - 1] == ' '));
    if (!quote) {
        vmaf_sink_puts(s, str);
        return;
    }
    vmaf_sink_putc(s, '"');
    for (const char *p = str; *p && !s->err; p++) {
        if (*p == '"')
            vmaf_sink_putc(s, '"');
        vmaf_sink_putc(s, *p);
    }
    vmaf_sink_putc(s, '"');
}

void vmaf_sink_sub_text(VmafOutSink *s, const char *str)
{
    for (const unsigned char *p = (const unsigned char *)str; *p && !s->err; p++)
        vmaf_sink_putc(s, (*p == '|' || *p < 0x20 || *p == 0x7F) ? '_' : (char)*p);
}

int vmaf_output_check_score_format(const char *fmt)
{
    if (!fmt)
        return -EINVAL;
    const char *p = fmt;
    if (*p++ != '%')
        return -EINVAL;
    while (*p && strchr("-+ #0", *p))
        p++;
    for (int n = 0; *p >= '0' && *p <= '9'; p++)
        if (++n > 2)
            return -EINVAL;
    if (*p == '.') {
        p++;
        for (int n = 0; *p >= '0' && *p <= '9'; p++)
            if (++n > 2)
                return -EINVAL;
    }
    if (*p != 'e' && *p != 'f' && *p != 'g')
        return -EINVAL;
    return p[1] ? -EINVAL : 0;
}

/* XML 1.0 (fifth edition) NameStartChar beyond ASCII. */
static bool xml_name_start_cp(uint32_t c)
{
    return (c >= 0xC0 && c <= 0xD6) || (c >= 0xD8 && c <= 0xF6) || (c >= 0xF8 && c <= 0x2FF) ||
           (c >= 0x370 && c <= 0x37D) || (c >= 0x37F && c <= 0x1FFF) ||
           (c >= 0x200C && c <= 0x200D) || (c >= 0x2070 && c <= 0x218F) ||
           (c >= 0x2C00 && c <= 0x2FEF) || (c >= 0x3001 && c <= 0xD7FF) ||
           (c >= 0xF900 && c <= 0xFDCF) || (c >= 0xFDF0 && c <= 0xFFFD) ||
           (c >= 0x10000 && c <= 0xEFFFF);
}

bool vmaf_output_xml_name_ok(const char *name)
{
    const unsigned char *p = (const unsigned char *)name;
    if (!*p)
        return false;
    for (bool first = true; *p; first = false) {
        uint32_t c;
        size_t len = utf8_seq(p, &c);
        if (!len)
            return false;
        /* ':' is a legal name character, but namespace-aware parsers (Python's
         * ElementTree among them) reject an undeclared prefix. */
        bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_' ||
                  xml_name_start_cp(c);
        if (!first)
            ok = ok || (c >= '0' && c <= '9') || c == '-' || c == '.' || c == 0xB7 ||
                 (c >= 0x300 && c <= 0x36F) || (c >= 0x203F && c <= 0x2040);
        if (!ok)
            return false;
        p += len;
    }
    return true;
}
