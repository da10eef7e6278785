/* The library's log, captured. A failure is one line, "vmaf: what (where):
 * why; fix": the library's error messages are its detail, held here from
 * whichever thread logs them until the tool's line takes them as its "why".
 * Warnings and lower go straight to stderr, as the library would write
 * them, unless a step asks for them as reasons too. */
#ifndef VMAF_TOOLS_LIB_LOG_H
#define VMAF_TOOLS_LIB_LOG_H

#include <stdbool.h>

#include "libvmaf/libvmaf.h"

/* The callback for vmaf_set_log_callback(). */
void on_library_log(void *opaque, enum VmafLogLevel level, const char *msg);

/* While set, the library's warnings are held as reasons too. */
void lib_hold_warnings(bool on);

/* Takes the reasons the library gave since they were last taken, joined by
 * " / ", or `fallback` when it gave none. The result lasts until the next
 * call: for the arguments of one report(). */
const char *lib_why(const char *fallback);

#endif /* VMAF_TOOLS_LIB_LOG_H */
