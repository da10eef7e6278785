/* The default worker count; see threads.h. */
#include <sched.h>
#include <unistd.h>

#include "threads.h"

unsigned threads_cpus_available(void)
{
    long n = 0;
    cpu_set_t set;
    if (!sched_getaffinity(0, sizeof(set), &set))
        n = CPU_COUNT(&set);
    if (n <= 0)
        n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1u : (unsigned)n;
}

unsigned threads_default(unsigned cpus, unsigned w, unsigned h, unsigned bpc)
{
    const uint64_t pair = 2 * (uint64_t)w * h * (bpc > 8 ? 2 : 1);
    const uint64_t pairs = pair ? THREADS_PICTURE_BUDGET / pair : 0;
    const uint64_t fit = pairs > 2 ? (pairs - 2) / 3 : 0;
    uint64_t n = cpus < fit ? cpus : fit;
    if (n > 1024)
        n = 1024; /* the most the library runs */
    return (unsigned)n;
}
