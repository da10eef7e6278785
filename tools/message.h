/* The tool's own lines on stderr: "vmaf: what (where): why; fix". */
#ifndef VMAF_TOOLS_MESSAGE_H
#define VMAF_TOOLS_MESSAGE_H

/* Prints "vmaf: " and the formatted line (one line: control characters
 * become '?') and returns `status`. A failure (status not 0) also drops
 * the reasons the library gave before it, which the line said in the
 * tool's words or took as its "why" (lib_why()). */
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
int report(int status, const char *fmt, ...);

#endif /* VMAF_TOOLS_MESSAGE_H */
