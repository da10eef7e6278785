/* Messages and names the tool prints are one line each: control characters
 * in the paths, arguments and names they echo become '?'. */
#ifndef VMAF_TOOLS_ONE_LINE_H
#define VMAF_TOOLS_ONE_LINE_H

#include <stddef.h>
#include <string.h>

static inline char one_line_char(char c)
{
    return ((unsigned char)c < 0x20 || c == 0x7f) ? '?' : c;
}

static inline void one_line(char *s)
{
    for (; *s; s++)
        *s = one_line_char(*s);
}

/* Writes s (n bytes, more than head + tail) into buf as its first head and
 * last tail bytes around "...", each cut moved to the nearest UTF-8
 * character boundary inside that, so that no character is split; buf
 * holds head + tail + 4 bytes. */
static inline void one_line_cut_middle(char *buf, const char *s, size_t n, size_t head,
                                       size_t tail)
{
    size_t from = n - tail;
    while (head && ((unsigned char)s[head] & 0xc0) == 0x80)
        head--;
    while (from < n && ((unsigned char)s[from] & 0xc0) == 0x80)
        from++;
    memcpy(buf, s, head);
    memcpy(buf + head, "...", 3);
    memcpy(buf + head + 3, s + from, n - from + 1);
}

#endif /* VMAF_TOOLS_ONE_LINE_H */
