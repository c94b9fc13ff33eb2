/* A write that fails tells why, and an orderly end is not an error.
 *
 * The watchdog (net/guard.h) shuts the socket down when --exit-after's
 * end or a quit signal comes, wherever the connection's thread is. When
 * that thread was between two messages it next wrote (the pacer's
 * request in vnc_tick, a liveness ping), the write failed and was
 * reported as "writing to the server failed", exit 1, instead of the
 * session's end: one CI run in the deadlines test's RRE flood, 2 in 40
 * under load. Here each case is made certain rather than raced:
 *
 *  1. end: the session's end comes while the client waits; then a ping
 *     and the pacer's tick write: both fail as VNC_ERR_INTERRUPTED and
 *     log nothing.
 *  2. hang-up: the server closes; the writes fail as VNC_ERR_CLOSED with
 *     "writing to the server failed".
 *  3. stall: the server stops reading and the buffers fill; a write
 *     blocks past --timeout (1 s) and fails as VNC_ERR_CLOSED with
 *     "write not finished after 1 s".
 *
 * The server: RFB 3.8, no security, a 64x48 xrgb8888 desktop, no
 * updates. */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "util/clock.h"
#include "util/log.h"
#include "shadow/pixfmt.h"
#include "net/vnc.h"

#include "cycle_sink.h"

enum server_mode { SERVE_READ, SERVE_HANGUP, SERVE_STALL };

struct server {
	int lfd;
	pthread_t thread;
	enum server_mode mode;
	int stall_fd;		/* SERVE_STALL: the connection, kept open */
};

static const uint8_t greeting[] = {
	'R', 'F', 'B', ' ', '0', '0', '3', '.', '0', '0', '8', '\n',
	1, 1,			/* one security type: None */
	0, 0, 0, 0,		/* SecurityResult OK */
	0, 64, 0, 48,		/* 64x48 */
	32, 24, 0, 1, 0, 255, 0, 255, 0, 255, 16, 8, 0, 0, 0, 0,
	0, 0, 0, 4, 'e', 'n', 'd', 's',
};

static void *serve(void *arg)
{
	struct server *sv = arg;
	char sink[4096];
	int c = accept(sv->lfd, NULL, NULL);

	if (c < 0)
		return NULL;
	if (send(c, greeting, sizeof(greeting), MSG_NOSIGNAL) !=
	    (ssize_t)sizeof(greeting)) {
		close(c);
		return NULL;
	}
	switch (sv->mode) {
	case SERVE_READ:
		while (read(c, sink, sizeof(sink)) > 0)
			;
		break;
	case SERVE_HANGUP:
		/* ClientInit (1 byte) and the client's setup, then gone. */
		usleep(200 * 1000);
		break;
	case SERVE_STALL:
		/* Never read again: the client's writes fill the buffers. */
		sv->stall_fd = c;
		return NULL;
	}
	close(c);
	return NULL;
}

static int fails;

static void check(int ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "FAIL: %s\n", what);
		fails++;
	}
}

static const char *err_name(enum vnc_error e)
{
	return e == VNC_ERR_INTERRUPTED ? "interrupted"
	       : e == VNC_ERR_CLOSED	? "closed"
					: "other";
}

static struct vnc_client *open_client(struct server *sv,
				      enum server_mode mode, int timeout_s,
				      uint64_t end_ns, struct ctx *c)
{
	struct vnc_config cfg;
	const struct vnc_events ev = sink_events(c);
	enum vnc_error err;
	struct vnc_client *vc;
	int port;

	sv->mode = mode;
	sv->stall_fd = -1;
	if (serve_loopback(&sv->lfd, &sv->thread, serve, sv, &port) < 0)
		return NULL;
	if (mode == SERVE_STALL) {
		/* A small window, which the client's writes soon fill. */
		int small = 2048;

		setsockopt(sv->lfd, SOL_SOCKET, SO_RCVBUF, &small,
			   sizeof(small));
	}
	cycle_config(&cfg, port);
	cfg.read_timeout_s = timeout_s;
	cfg.end_ns = end_ns;
	vc = vnc_connect(&cfg, &ev, &err);
	if (!vc)
		fprintf(stderr, "FAIL: no connection (%s)\n", err_name(err));
	return vc;
}

static void close_server(struct server *sv)
{
	shutdown(sv->lfd, SHUT_RDWR);
	pthread_join(sv->thread, NULL);
	close(sv->lfd);
	if (sv->stall_fd >= 0)
		close(sv->stall_fd);
}

/* The session's end while the client waits between messages. */
static void case_end(struct ctx *c)
{
	struct server sv;
	struct vnc_client *vc;
	enum vnc_error e1 = VNC_OK, e2 = VNC_OK;
	char logged[256];
	int r1, r2;

	vc = open_client(&sv, SERVE_READ, 5, monotonic_ns() + 300000000u, c);
	if (!vc) {
		fails++;
		return;
	}
	/* The watchdog fires at the end and shuts the socket down. */
	usleep(600 * 1000);
	log_take_error(logged, sizeof(logged));
	r1 = vnc_ping(vc, &e1);
	/* Back from a pause, the reader asks for the whole desktop: a
	 * failed write that the next tick reports. */
	vnc_pause(vc, true);
	vnc_pause(vc, false);
	r2 = vnc_tick(vc, &e2);
	log_take_error(logged, sizeof(logged));
	printf("end: ping %d (%s), tick %d (%s), logged \"%s\"\n", r1,
	       err_name(e1), r2, err_name(e2), logged);
	check(r1 < 0 && e1 == VNC_ERR_INTERRUPTED,
	      "a ping after the end is the end, not a failure");
	check(r2 < 0 && e2 == VNC_ERR_INTERRUPTED,
	      "the pacer's write after the end is the end, not a failure");
	check(!logged[0], "the end logged an error");
	vnc_destroy(vc);
	close_server(&sv);
}

/* The server hangs up: a failure, said once. */
static void case_hangup(struct ctx *c)
{
	struct server sv;
	struct vnc_client *vc;
	enum vnc_error e = VNC_OK;
	char logged[256];
	int r = 0, i;

	vc = open_client(&sv, SERVE_HANGUP, 5, 0, c);
	if (!vc) {
		fails++;
		return;
	}
	usleep(500 * 1000);
	log_take_error(logged, sizeof(logged));
	/* The first write after the peer's close may still be taken by the
	 * kernel; one of the next meets the reset. */
	for (i = 0; i < 50 && r == 0; i++) {
		r = vnc_ping(vc, &e);
		usleep(10 * 1000);
	}
	log_take_error(logged, sizeof(logged));
	printf("hang-up: ping %d after %d (%s), logged \"%s\"\n", r, i,
	       err_name(e), logged);
	check(r < 0 && e == VNC_ERR_CLOSED, "a hang-up is a closed connection");
	check(strstr(logged, "writing to the server failed") != NULL,
	      "the hang-up was not said");
	vnc_destroy(vc);
	close_server(&sv);
}

/* The server stops reading: the write's own deadline. */
static void case_stall(struct ctx *c)
{
	struct server sv;
	struct vnc_client *vc;
	enum vnc_error e = VNC_OK;
	char logged[256];
	int small = 4096, r = 0;
	long n = 0;
	uint64_t t0, t1;

	vc = open_client(&sv, SERVE_STALL, 1, 0, c);
	if (!vc) {
		fails++;
		return;
	}
	setsockopt(vnc_fd(vc), SOL_SOCKET, SO_SNDBUF, &small, sizeof(small));
	log_take_error(logged, sizeof(logged));
	t0 = monotonic_ns();
	t1 = t0;
	while (r == 0 && n < 10000000) {
		t1 = monotonic_ns();
		r = vnc_ping(vc, &e);
		n++;
	}
	t1 = monotonic_ns() - t1;
	log_take_error(logged, sizeof(logged));
	printf("stall: ping %d after %ld (%s) and %.2f s, logged \"%s\"\n", r,
	       n, err_name(e), (double)t1 / 1e9, logged);
	check(r < 0 && e == VNC_ERR_CLOSED, "a stalled write is a failure");
	check(strstr(logged, "write not finished after 1 s") != NULL,
	      "the stalled write's deadline was not said");
	check(t1 >= 900000000u && t1 < 5000000000u,
	      "the stalled write did not end at its deadline");
	vnc_destroy(vc);
	close_server(&sv);
}

int main(void)
{
	struct ctx c = { 0 };

	/* As vncfb does: a write to a closed socket is an error return. */
	signal(SIGPIPE, SIG_IGN);
	log_set_level(LOG_SILENT);
	case_end(&c);
	case_hangup(&c);
	case_stall(&c);
	free(c.fb);
	if (fails)
		fprintf(stderr, "%d failures\n", fails);
	return fails ? 1 : 0;
}
