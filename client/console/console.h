/* Console safety: every command that opens an output (view, demo, probe,
 * bench) opens and closes it here, so that the console comes back on every
 * exit: output_close on the normal paths, the output's emergency restore
 * from a fatal-signal handler (SIGSEGV, SIGABRT, ...), which then hands
 * the signal on to its previous owner (the default action, or in a
 * sanitizer build the sanitizer, whose report comes out), and the supervisor
 * process (supervise.h) when vncfb dies without running any code of its
 * own (SIGKILL, the OOM killer).
 *
 * Threads: main thread, before any other thread starts (console_open) and
 * after they have all stopped (console_close). One console at a time. */
#ifndef VNCFB_CONSOLE_H
#define VNCFB_CONSOLE_H

#include "output/output.h"

/* output_open_flags(out, spec, flags), then the fatal-signal restore and, for
 * an output with a console to give back, the supervisor (VNCFB_NO_SUPERVISOR=1
 * turns it off, for debugging). 0 or -errno (logged); on failure nothing is
 * left open. */
int console_open(struct output *out, const char *spec, unsigned flags);
/* Restore and close out (output_close), then stand the guards down. */
void console_close(struct output *out);

#endif
