/* Messages and names the tool prints are one line each: control characters
 * in the paths, arguments and names they echo become '?'. */
#ifndef VMAF_TOOLS_ONE_LINE_H
#define VMAF_TOOLS_ONE_LINE_H

static inline char one_line_char(char c)
{
    return ((unsigned char)c < 0x20 || c == 0x7f) ? '?' : c;
}

static inline void one_line(char *s)
{
    for (; *s; s++)
        *s = one_line_char(*s);
}

#endif /* VMAF_TOOLS_ONE_LINE_H */
