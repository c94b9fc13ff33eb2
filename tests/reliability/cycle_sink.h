/* What the connect/disconnect cycle tests share: a session sink that
 * keeps one frame buffer and counts updates, the open fds, the heap in
 * use, a loopback listener served by a thread (and one that replays the
 * same server bytes to each connection), and the client's configuration. */
#ifndef VNCFB_TEST_CYCLE_SINK_H
#define VNCFB_TEST_CYCLE_SINK_H

#include <arpa/inet.h>
#include <dirent.h>
#include <malloc.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "testlib.h"
#include "shadow/pixfmt.h"
#include "net/vnc.h"

struct ctx {
	uint8_t *fb;
	size_t size;
	int done;	/* complete updates */
};

static inline uint8_t *ev_resize(void *p, uint32_t w, uint32_t h)
{
	struct ctx *c = p;
	size_t n = (size_t)w * h * 4;

	if (n != c->size) {
		free(c->fb);
		c->fb = calloc(1, n ? n : 1);
		c->size = n;
	}
	return c->fb;
}

static inline void ev_damage(void *p, const struct rect *r)
{
}

static inline void ev_done(void *p)
{
	((struct ctx *)p)->done++;
}

static inline struct vnc_events sink_events(struct ctx *c)
{
	return (struct vnc_events){ .ctx = c,
				    .resize = ev_resize,
				    .damage = ev_damage,
				    .update_done = ev_done };
}

/* Listen on 127.0.0.1 (any port: *port) and run serve(arg) on a thread
 * that accepts from *lfd. 0 or -1 (said on stderr). */
static inline int serve_loopback(int *lfd, pthread_t *thread,
				 void *(*serve)(void *), void *arg, int *port)
{
	*port = 0;
	*lfd = testlib_listen(false, port);
	if (*lfd < 0) {
		fprintf(stderr, "server: listen: %s\n", strerror(-*lfd));
		return -1;
	}
	if (pthread_create(thread, NULL, serve, arg) != 0) {
		perror("server");
		return -1;
	}
	return 0;
}

/* A listener that gives each connection the same server side at once
 * (RFB lets the server's messages run ahead of the client's), then hangs
 * up and waits for the client to close. */
struct replay_server {
	int lfd;
	pthread_t thread;
	const uint8_t *data;
	size_t size;
};

static inline void *replay_serve(void *arg)
{
	struct replay_server *sv = arg;

	for (;;) {
		char sink[4096];
		size_t off = 0;
		int c = accept(sv->lfd, NULL, NULL);

		if (c < 0)
			break;
		while (off < sv->size) {
			ssize_t k = send(c, sv->data + off, sv->size - off,
					 MSG_NOSIGNAL);

			if (k <= 0)
				break;
			off += (size_t)k;
		}
		shutdown(c, SHUT_WR);
		while (read(c, sink, sizeof(sink)) > 0)
			;
		close(c);
	}
	return NULL;
}

/* sv->data and sv->size set: listen (*port) and serve. 0 or -1. */
static inline int replay_start(struct replay_server *sv, int *port)
{
	return serve_loopback(&sv->lfd, &sv->thread, replay_serve, sv, port);
}

/* The client of the cycle tests: 127.0.0.1:port, lossless, default
 * compression, 5 s for a message, xrgb8888. */
static inline void cycle_config(struct vnc_config *cfg, int port)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->host = "127.0.0.1";
	cfg->port = port;
	cfg->quality = -1;
	cfg->compress = -1;
	cfg->read_timeout_s = 5;
	pixfmt_from_name("xrgb8888", &cfg->fmt);
}

/* Open fds of this process. */
static inline int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	int n = 0;

	if (!d)
		return -1;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			n++;
	closedir(d);
	return n - 1;	/* the DIR's own fd */
}

static inline size_t heap_in_use(void)
{
	struct mallinfo2 mi = mallinfo2();

	return mi.uordblks + mi.hblkhd;
}

#endif
