/* A viewing session: output + shadow + blitter + VNC + input, driven by
 * one poll() loop on the main thread. */
#ifndef VNCFB_SESSION_H
#define VNCFB_SESSION_H

#include <stdint.h>

#include "config/opts.h"

struct output;

/* A server the session starts for itself, once the devices are open and
 * root is dropped, and views on 127.0.0.1 (--demo: client/tools/demo
 * supplies it, so the data path does not depend on the tool). */
struct session_server {
	/* Start serving what the options ask (--encodings); where names
	 * the output, for the report. Sets *port; NULL on failure
	 * (logged). */
	void *(*start)(const struct options *o, const char *where, int *port);
	/* Optional: after a clean session, what was served and shown. */
	void (*report)(void *srv, uint64_t updates, const struct output *out);
	void (*stop)(void *srv);
};

/* Run until quit, --exit-after, or failure; with srv, view the server it
 * starts instead of opt's. Returns the exit status: 0 clean, 1 runtime
 * failure. */
int session_run(struct options *opt, const struct session_server *srv);

#endif
