/* What the replay pump's two files share: the pump's state, and the
 * service of one client (replaysrv_conn.c) that the pump's thread
 * (replaysrv.c) runs for each connection it accepts.
 *
 * Threads: replaysrv_serve_client and replaysrv_wait run on the pump's
 * thread, which alone touches the client count; what replaysrv_open
 * fills in is read-only while the thread runs. */
#ifndef VNCFB_REPLAYSRV_PRIV_H
#define VNCFB_REPLAYSRV_PRIV_H

#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config/opts.h"
#include "tools/replay/recording.h"

#define MAX_WHO 8

struct who_stats {
	char who[32];
	unsigned plays, complete, checked;
	double worst; /* mean error, lossy recordings */
};

struct replaysrv {
	struct recording *rec;
	const struct rec_header *h;
	uint8_t client_pf[16];
	bool lossy;
	size_t updates;
	size_t full_after_first; /* full-frame updates after the first */
	bool *update_full;	 /* per update: REC_FULL */
	enum push_mode push;
	uint64_t return_ns; /* the link's way back, when the pump knows it */
	/* When the pump began sending each update to the current client
	 * (0: not yet); the bench's meter reads them. */
	_Atomic uint64_t *sent_ns;
	int listen_fd, port;
	int stop[2];
	pthread_t thread;
	bool running, quiet;
	unsigned clients;
	struct who_stats who[MAX_WHO];
	int n_who;
};

/* Poll the stop pipe (pfd[0]) and a socket (pfd[1]) for at most
 * timeout_ms (-1: no limit): 0 to go on, 1 to poll again (a signal
 * came), -1 to stop (asked to, or poll failed: logged). */
int replaysrv_wait(struct pollfd pfd[2], int timeout_ms);

/* Serve the client on fd (connected, non-blocking) until it leaves or
 * the pump stops; the caller closes fd. */
void replaysrv_serve_client(struct replaysrv *s, int fd);

#endif
