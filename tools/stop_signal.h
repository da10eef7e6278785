/* SIGINT, SIGTERM and SIGHUP stop a run the same way: after the frame in
 * progress, with no report, or with the report kept when it was complete. */
#ifndef VMAF_TOOLS_STOP_SIGNAL_H
#define VMAF_TOOLS_STOP_SIGNAL_H

#include <signal.h>

/* The first stop signal received, 0 before. */
extern volatile sig_atomic_t interrupted;

/* Installs the handler for each stop signal the parent left not ignored. */
void stop_signals_install(void);

/* "SIGINT", "SIGTERM" or "SIGHUP". */
const char *stop_signal_name(int sig);

#endif /* VMAF_TOOLS_STOP_SIGNAL_H */
