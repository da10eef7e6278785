/* Stop signals; see stop_signal.h. */
#include <signal.h>
#include <string.h>

#include "stop_signal.h"

volatile sig_atomic_t interrupted;

static void on_stop_signal(int sig)
{
    if (!interrupted)
        interrupted = sig;
}

const char *stop_signal_name(int sig)
{
    return sig == SIGTERM ? "SIGTERM" : sig == SIGHUP ? "SIGHUP" : "SIGINT";
}

/* Ctrl-C, and the SIGTERM of timeout(1), systemd or docker, and the SIGHUP
 * of a closed terminal. A second signal of a kind kills at once; blocking
 * reads return EINTR so that a stalled pipe does not hold up the first. A
 * signal the parent left ignored stays ignored: nohup's SIGHUP, the SIGINT
 * of a background job in a script. */
void stop_signals_install(void)
{
    static const int stop_signals[3] = { SIGINT, SIGTERM, SIGHUP };
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    for (int i = 0; i < 3; i++)
        sigaddset(&sa.sa_mask, stop_signals[i]);
    sa.sa_flags = SA_RESETHAND;
    for (int i = 0; i < 3; i++) {
        struct sigaction old;
        if (!sigaction(stop_signals[i], NULL, &old) && old.sa_handler != SIG_IGN)
            sigaction(stop_signals[i], &sa, NULL);
    }
}
