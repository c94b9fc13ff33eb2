/* Signals for the main loop: quit (INT, TERM, HUP) and screenshot (USR1)
 * arrive as one byte each on a self-pipe, which the main loop polls;
 * SIGPIPE is ignored (a dead server is an error return, not a death).
 * Fatal signals are console.h's.
 *
 * Threads: signals_setup on the main thread, before any other thread
 * starts; the rest from any thread. */
#ifndef VNCFB_SIGNALS_H
#define VNCFB_SIGNALS_H

#include <stdbool.h>

/* Install the handlers (once; later calls return the same fd). Returns
 * the pipe's read end, or -1 (logged). */
int signals_setup(void);
/* After signals_setup: an fd that becomes readable, and stays so, once a
 * quit signal has arrived (never read: for watchdogs that poll it,
 * client/net/guard.h). -1 before. */
int signals_quit_fd(void);
/* True once a quit signal has arrived (after signals_setup), for work on
 * any thread that checks between steps rather than polling an fd (the
 * core probe). The signal's byte still waits in the pipe for the main
 * loop. */
bool signals_quit_pending(void);
/* Read what signals_setup's fd holds, once poll() finds it readable. The
 * first quit signal's number, or 0 when none came; *usr1 (optional) is
 * set when SIGUSR1 came. */
int signals_take(int fd, bool *usr1);

#endif
