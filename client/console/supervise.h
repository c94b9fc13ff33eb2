/* The supervisor: a small child process that keeps what restores the
 * console (its copy of the open output: VT fd, saved modes, terminal
 * settings, colour map, and any memory the output shares with it, such
 * as the DRM output's list of CRTCs, which follows the heads plugged in
 * later) and restores it when vncfb ends for any reason, SIGKILL and
 * SIGSEGV included. It stays root when vncfb drops it
 * (privs.h), so the restore still works.
 *
 * vncfb itself stays the process users and the kernel see: signals (quit,
 * screenshot, SIGSTOP, the VT switch signals) reach it directly, and its
 * exit status is its own. The supervisor notices its end by the EOF on a
 * pipe only vncfb holds the write end of.
 *
 * Threads: main thread, before any other thread starts. */
#ifndef VNCFB_SUPERVISE_H
#define VNCFB_SUPERVISE_H

#include "output/output.h"

/* Fork the supervisor for out. 0, or -errno (logged; vncfb goes on
 * unsupervised). */
int supervise_start(struct output *out);
/* vncfb has restored the console itself and is about to exit: the
 * supervisor stands down without touching the terminal again (a shell
 * may already have it). No-op without a supervisor. */
void supervise_done(void);

#endif
