/* A viewing session: output + shadow + blitter + VNC + input, driven by
 * one poll() loop on the main thread. */
#ifndef VNCFB_SESSION_H
#define VNCFB_SESSION_H

#include "config/opts.h"

/* Run until quit, --exit-after, or failure. Returns the exit status:
 * 0 clean, 1 runtime failure. */
int session_run(struct options *opt);

#endif
