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
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
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

static int fails;

static void check(int ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "FAIL: %s\n", what);
		fails++;
	}
}

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

static const char *err_name(enum vnc_error e)
{
	return e == VNC_ERR_INTERRUPTED ? "interrupted"
	       : e == VNC_ERR_CLOSED	? "closed"
					: "other";
}

/* One client against one server, and what it logged. */
struct trial {
	struct server sv;
	struct vnc_client *vc;
	char logged[256];
};

/* 0, or -1 (a failure counted). */
static int trial_open(struct trial *t, enum server_mode mode, int timeout_s,
		      uint64_t end_ns, struct ctx *c)
{
	struct vnc_config cfg;
	const struct vnc_events ev = sink_events(c);
	enum vnc_error err;
	int port;

	memset(t, 0, sizeof(*t));
	t->sv.mode = mode;
	t->sv.stall_fd = -1;
	if (serve_loopback(&t->sv.lfd, &t->sv.thread, serve, &t->sv, &port) <
	    0) {
		check(0, "no server");
		return -1;
	}
	if (mode == SERVE_STALL) {
		/* A small window, which the client's writes soon fill. */
		int small = 2048;

		setsockopt(t->sv.lfd, SOL_SOCKET, SO_RCVBUF, &small,
			   sizeof(small));
	}
	cycle_config(&cfg, port);
	cfg.read_timeout_s = timeout_s;
	cfg.end_ns = end_ns;
	t->vc = vnc_connect(&cfg, &ev, &err);
	if (!t->vc) {
		check(0, "no connection");
		return -1;
	}
	return 0;
}

/* What was logged since the last call, into t->logged. */
static const char *trial_logged(struct trial *t)
{
	log_take_error(t->logged, sizeof(t->logged));
	return t->logged;
}

static void trial_close(struct trial *t)
{
	vnc_destroy(t->vc);
	shutdown(t->sv.lfd, SHUT_RDWR);
	pthread_join(t->sv.thread, NULL);
	close(t->sv.lfd);
	if (t->sv.stall_fd >= 0)
		close(t->sv.stall_fd);
}

/* The session's end while the client waits between messages. */
static void case_end(struct ctx *c)
{
	struct trial t;
	enum vnc_error e1 = VNC_OK, e2 = VNC_OK;
	int r1, r2;

	if (trial_open(&t, SERVE_READ, 5, monotonic_ns() + 300000000u, c) < 0)
		return;
	/* The watchdog fires at the end and shuts the socket down. */
	usleep(600 * 1000);
	trial_logged(&t);
	r1 = vnc_ping(t.vc, &e1);
	/* Back from a pause, the reader asks for the whole desktop: a
	 * failed write that the next tick reports. */
	vnc_pause(t.vc, true);
	vnc_pause(t.vc, false);
	r2 = vnc_tick(t.vc, &e2);
	printf("end: ping %d (%s), tick %d (%s), logged \"%s\"\n", r1,
	       err_name(e1), r2, err_name(e2), trial_logged(&t));
	check(r1 < 0 && e1 == VNC_ERR_INTERRUPTED,
	      "a ping after the end is the end, not a failure");
	check(r2 < 0 && e2 == VNC_ERR_INTERRUPTED,
	      "the pacer's write after the end is the end, not a failure");
	check(!t.logged[0], "the end logged an error");
	trial_close(&t);
}

/* The server hangs up: a failure, said once. */
static void case_hangup(struct ctx *c)
{
	struct trial t;
	enum vnc_error e = VNC_OK;
	int r = 0, i;

	if (trial_open(&t, SERVE_HANGUP, 5, 0, c) < 0)
		return;
	usleep(500 * 1000);
	trial_logged(&t);
	/* The first write after the peer's close may still be taken by the
	 * kernel; one of the next meets the reset. */
	for (i = 0; i < 50 && r == 0; i++) {
		r = vnc_ping(t.vc, &e);
		usleep(10 * 1000);
	}
	printf("hang-up: ping %d after %d (%s), logged \"%s\"\n", r, i,
	       err_name(e), trial_logged(&t));
	check(r < 0 && e == VNC_ERR_CLOSED, "a hang-up is a closed connection");
	check(strstr(t.logged, "writing to the server failed") != NULL,
	      "the hang-up was not said");
	trial_close(&t);
}

/* The server stops reading: the write's own deadline. */
static void case_stall(struct ctx *c)
{
	struct trial t;
	enum vnc_error e = VNC_OK;
	int small = 4096, r = 0;
	long n = 0;
	uint64_t t1 = 0;

	if (trial_open(&t, SERVE_STALL, 1, 0, c) < 0)
		return;
	setsockopt(vnc_fd(t.vc), SOL_SOCKET, SO_SNDBUF, &small, sizeof(small));
	trial_logged(&t);
	/* Until one blocks: the time of that one. */
	while (r == 0 && n < 10000000) {
		t1 = monotonic_ns();
		r = vnc_ping(t.vc, &e);
		n++;
	}
	t1 = monotonic_ns() - t1;
	printf("stall: ping %d after %ld (%s) and %.2f s, logged \"%s\"\n", r,
	       n, err_name(e), (double)t1 / 1e9, trial_logged(&t));
	check(r < 0 && e == VNC_ERR_CLOSED, "a stalled write is a failure");
	check(strstr(t.logged, "write not finished after 1 s") != NULL,
	      "the stalled write's deadline was not said");
	check(t1 >= 900000000u && t1 < 5000000000u,
	      "the stalled write did not end at its deadline");
	trial_close(&t);
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
