/* The supervisor: vncfb runs the session in a child process (the worker)
 * while the parent keeps what restores the console (its copy of the open
 * output: VT fd, saved modes, colour map) and restores it when the worker
 * ends for any reason, SIGKILL and SIGSEGV included. The parent keeps
 * root when the worker drops it (privs.h), so the restore still works.
 *
 * Threads: call from the main thread before any other thread starts. */
#ifndef VNCFB_SUPERVISE_H
#define VNCFB_SUPERVISE_H

#include <stdbool.h>

#include "output.h"

/* Fork. In the worker returns 0 with *parent false. In the parent: waits
 * for the worker, forwarding signals to it (quit, screenshot, VT switch),
 * calls out's emergency_restore when it has ended, and returns the exit
 * status for vncfb (the worker's, or 1 when it died on a signal, which is
 * logged) with *parent true. On fork failure returns -errno (logged) and
 * the caller goes on unsupervised. */
int supervise(struct output *out, bool *parent);

#endif
