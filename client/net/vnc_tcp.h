/* The TCP side of a VNC connection: the peer's name as messages show it,
 * and a connect that tries every address, under a timeout that a quit
 * signal or --exit-after cuts short. No rfbClient here: the wrapper
 * (vnc.c) hands the socket to libvncclient.
 *
 * Threads: any; vncfb calls them from the main thread. */
#ifndef VNCFB_VNC_TCP_H
#define VNCFB_VNC_TCP_H

#include <stddef.h>
#include <stdint.h>

#include "wire/events.h"

/* Where to connect, and what cuts the wait short (as in vnc_config). */
struct vnc_tcp_dest {
	const char *host;
	int port;
	int abort_fd;	/* readable: give up (0 or negative: none) */
	uint64_t end_ns;	/* monotonic deadline (0: none) */
};

/* "host:port", "[v6addr]:port" for a host with a colon, into buf. */
void vnc_tcp_peer(char *buf, size_t len, const char *host, int port);
/* Connect to dst's host and port (peer names it in messages): a
 * blocking fd with TCP_NODELAY, or -1 with the reason logged and *err
 * set (VNC_ERR_INTERRUPTED, not logged, when abort_fd or end_ns ended
 * the wait). */
int vnc_tcp_connect(const struct vnc_tcp_dest *dst, int timeout_ms,
		    const char *peer, enum vnc_error *err);

#endif
