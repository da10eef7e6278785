/* Reading the two inputs of a frame at once, when one of them is a pipe.
 *
 * A pipe delivers a frame only as fast as its writer (a decoder, say) and
 * the pipe itself allow; read one after the other, the two inputs' writers
 * take turns waiting. The pair reader reads the distorted input on a thread
 * of its own while the caller reads the reference, so both writers run.
 * (Frames of regular files are read by the team of the InputContext; a
 * pair of regular files needs no pair reader.)
 *
 * Ctrl-C: the thread blocks every signal but SIGUSR1, for which the caller
 * installs a handler without SA_RESTART (pair_reader_signal_setup). While
 * the caller waits for the thread and *interrupted is set, it sends the
 * thread SIGUSR1 every 20 ms, so that a read blocked on a stalled pipe
 * returns EINTR and the run can end.
 *
 * A failed input: both pipes may be fed by one writer, which then waits for
 * the failed input to be drained and never writes what the other read waits
 * for. So when one read fails, the other is interrupted the same way (the
 * thread signals the caller, the caller the thread) and the run ends with
 * the first failure's reason. */
#ifndef VMAF_TOOLS_INPUT_PAIR_H
#define VMAF_TOOLS_INPUT_PAIR_H

#include <signal.h>

#include "input/input.h"

typedef struct PairReader PairReader;

/* Installs the SIGUSR1 handler (a no-op, no SA_RESTART). 0 or -errno. */
int pair_reader_signal_setup(void);

/* Starts the thread that reads `dist`. 0 or negative errno (*pr NULL). */
int pair_reader_start(PairReader **pr, InputContext *dist, volatile sig_atomic_t *interrupted);

/* Reads one frame of each input, the reference in the calling thread and
 * the distorted input in pr's thread (pr NULL: one after the other, and
 * the distorted input not at all after a reference error). r[0] and r[1]
 * are input_read_frame's results, except -ECANCELED for a read interrupted
 * because the other input failed: that one's err holds the reason. */
void pair_read(PairReader *pr, InputContext *ref, VmafPicture *ref_pic, InputContext *dist,
               VmafPicture *dist_pic, int r[2]);

/* Opens both inputs (input_open) the same way: the reference in the calling
 * thread, the distorted input (pr's) in pr's thread. One writer feeding two
 * FIFOs (ffmpeg with two outputs) may open them, or write their headers, in
 * either order; opened one after the other, the second open or header
 * could wait for ever on a writer that waits for the first to be read. */
void pair_open(PairReader *pr, InputContext *ref, const char *ref_path, InputContext *dist,
               const char *dist_path, const InputRawParams *raw, int r[2]);

/* Skips one frame of each input, the same way (input_skip_frame's
 * results; -ECANCELED as for pair_read): a writer feeding both pipes in
 * turn would otherwise wait for the skipped frames of one input to be
 * read while the tool waited for the other's. */
void pair_skip(PairReader *pr, InputContext *ref, InputContext *dist, int r[2]);

/* Stops and joins the thread. NULL is a no-op. */
void pair_reader_stop(PairReader *pr);

#endif /* VMAF_TOOLS_INPUT_PAIR_H */
