/* The emulated link: the spec, and the relay thread. Each direction of a
 * connection is a queue of chunks as they were read, each stamped with the
 * time its last byte has crossed the link: it leaves the sender when the
 * rate lets it (after the chunks before it), and arrives half the round
 * trip later. A chunk is written to the other side once that time has
 * come; the queue holds at most what the link keeps in flight plus the
 * bottleneck's buffer, and the relay reads no more until it has room, so
 * the sender feels the link as it would a real one. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tools/link/link.h"
#include "util/clock.h"
#include "util/log.h"

#define MAX_CONNS 16
/* A read of at most this: at 50 Mbit/s 16 KiB are 2.6 ms on the wire, so
 * the bytes arrive spread as the rate spreads them, not in lumps. */
#define CHUNK_BYTES (16u << 10)
/* The queue of a link without a rate. */
#define UNLIMITED_QUEUE (4u << 20)
/* Socket buffers of the relay's own sockets: small, so that the queue
 * above, not the kernel, is where bytes wait. */
#define SOCK_BUF (64 << 10)
#define MAX_RTT_NS (10ull * 1000000000u)
#define MAX_RATE_BPS (100ull * 1000000000u)

/* --- the spec --- */

static int parse_one(const char *tok, size_t n, struct link_config *cfg,
		     bool *have_delay, bool *have_rate, char *why,
		     size_t why_len)
{
	static const struct {
		const char *unit;
		double mul;
		bool rate;
	} units[] = {
	    {"us", 1e3, false},	 {"ms", 1e6, false},  {"s", 1e9, false},
	    {"bit", 1, true},	 {"kbit", 1e3, true}, {"mbit", 1e6, true},
	    {"gbit", 1e9, true},
	};
	char buf[64], *end;
	double v;
	size_t i;

	if (n == 0 || n >= sizeof(buf)) {
		snprintf(why, why_len, "expected DELAY,RATE (60ms,50mbit)");
		return -EINVAL;
	}
	memcpy(buf, tok, n);
	buf[n] = 0;
	v = strtod(buf, &end);
	if (end == buf || !isfinite(v) || v < 0) {
		snprintf(why, why_len, "'%s' is no number and unit", buf);
		return -EINVAL;
	}
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcasecmp(end, units[i].unit))
			break;
	if (i == sizeof(units) / sizeof(units[0])) {
		snprintf(why, why_len,
			 "'%s': expected a round trip in s, ms or us, or a "
			 "rate in bit, kbit, mbit or gbit (per second)",
			 buf);
		return -EINVAL;
	}
	v *= units[i].mul;
	if (units[i].rate) {
		if (*have_rate || v > (double)MAX_RATE_BPS || v < 1000) {
			snprintf(why, why_len,
				 *have_rate ? "two rates"
					    : "a rate of 1 kbit to 100 gbit");
			return -EINVAL;
		}
		cfg->rate_bps = (uint64_t)v;
		*have_rate = true;
	} else {
		if (*have_delay || v > (double)MAX_RTT_NS) {
			snprintf(why, why_len,
				 *have_delay ? "two round trips"
					     : "a round trip of at most 10 s");
			return -EINVAL;
		}
		cfg->rtt_ns = (uint64_t)v;
		*have_delay = true;
	}
	return 0;
}

int link_parse(const char *spec, struct link_config *cfg, char *why,
	       size_t why_len)
{
	bool have_delay = false, have_rate = false;
	char scratch[8];
	const char *p = spec;

	if (!why) {
		why = scratch;
		why_len = sizeof(scratch);
	}
	memset(cfg, 0, sizeof(*cfg));
	for (;;) {
		size_t n = strcspn(p, ",");
		int err =
		    parse_one(p, n, cfg, &have_delay, &have_rate, why, why_len);

		if (err < 0)
			return err;
		if (!p[n])
			return 0;
		p += n + 1;
	}
}

void link_describe(const struct link_config *cfg, char *buf, size_t len)
{
	double r = (double)cfg->rate_bps;

	if (!cfg->rate_bps)
		snprintf(buf, len, "%.3g ms round trip, no rate limit",
			 (double)cfg->rtt_ns / 1e6);
	else
		snprintf(buf, len, "%.3g ms round trip, %.4g %s each way",
			 (double)cfg->rtt_ns / 1e6,
			 r >= 1e9   ? r / 1e9
			 : r >= 1e6 ? r / 1e6
				    : r / 1e3,
			 r >= 1e9   ? "Gbit/s"
			 : r >= 1e6 ? "Mbit/s"
				    : "kbit/s");
}

/* Bytes the link carries at its rate in sec seconds (0: no rate). */
static double link_capacity_bytes(const struct link_config *cfg, double sec)
{
	return (double)cfg->rate_bps / 8 * sec;
}

/* --- the relay --- */

struct chunk {
	struct chunk *next;
	uint64_t due_ns; /* its last byte has crossed the link */
	size_t len, off;
	uint8_t data[];
};

struct dir {
	int from, to;
	struct chunk *head, *tail;
	size_t queued;
	uint64_t tx_free_ns; /* when the sender's side of the link is free */
	bool eof;	     /* from has no more */
	bool shut;	     /* to was told so */
	atomic_uint_fast64_t *count;
};

struct conn {
	bool used;
	int client, server;
	struct dir d[2]; /* 0: client -> server, 1: server -> client */
};

struct link {
	struct link_config cfg;
	uint64_t one_way_ns;
	size_t queue_max;
	struct sockaddr_storage to;
	socklen_t to_len;
	int listen_fd, port;
	int stop[2];
	pthread_t thread;
	bool running;
	struct conn conns[MAX_CONNS];
	atomic_uint_fast64_t down, up, connections;
};

static void set_bufs(int fd)
{
	int one = 1, sz = SOCK_BUF;

	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
	setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

static void dir_free(struct dir *d)
{
	while (d->head) {
		struct chunk *c = d->head;

		d->head = c->next;
		free(c);
	}
	d->tail = NULL;
	d->queued = 0;
}

static void conn_close(struct conn *c)
{
	dir_free(&c->d[0]);
	dir_free(&c->d[1]);
	close(c->client);
	close(c->server);
	c->used = false;
}

static int conn_open(struct link *l, int client)
{
	struct conn *c = NULL;
	int fd, i;

	for (i = 0; i < MAX_CONNS; i++)
		if (!l->conns[i].used) {
			c = &l->conns[i];
			break;
		}
	if (!c) {
		log_warn("link: more than %d connections at once; refused",
			 MAX_CONNS);
		return -EBUSY;
	}
	fd = socket(l->to.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		log_warn("link: socket: %s", strerror(errno));
		return -errno;
	}
	set_bufs(fd);
	/* Blocking: the server is the bench's own, or the one the user
	 * measures; while it answers, the other connections wait. */
	if (connect(fd, (struct sockaddr *)&l->to, l->to_len) < 0) {
		int err = -errno;

		log_warn("link: cannot connect to the server: %s",
			 strerror(errno));
		close(fd);
		return err;
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	fcntl(client, F_SETFL, fcntl(client, F_GETFL) | O_NONBLOCK);
	memset(c, 0, sizeof(*c));
	c->used = true;
	c->client = client;
	c->server = fd;
	c->d[0].from = client;
	c->d[0].to = fd;
	c->d[0].count = &l->up;
	c->d[1].from = fd;
	c->d[1].to = client;
	c->d[1].count = &l->down;
	atomic_fetch_add(&l->connections, 1);
	return 0;
}

/* Read what the queue has room for: 0, or -1 when the connection broke. */
static int dir_read(struct link *l, struct dir *d, uint64_t now)
{
	size_t room = l->queue_max - d->queued, n;
	struct chunk *c;
	ssize_t k;

	if (d->eof || room == 0)
		return 0;
	n = room < CHUNK_BYTES ? room : CHUNK_BYTES;
	c = malloc(sizeof(*c) + n);
	if (!c) {
		log_warn("link: out of memory");
		return -1;
	}
	k = recv(d->from, c->data, n, 0);
	if (k < 0) {
		free(c);
		return errno == EAGAIN || errno == EINTR ? 0 : -1;
	}
	if (k == 0) {
		free(c);
		d->eof = true;
		return 0;
	}
	c->next = NULL;
	c->len = (size_t)k;
	c->off = 0;
	/* The chunk goes on the wire after those before it, taking its
	 * length at the rate; it arrives one way's delay later. */
	if (d->tx_free_ns < now)
		d->tx_free_ns = now;
	if (l->cfg.rate_bps)
		d->tx_free_ns +=
		    (uint64_t)((double)c->len * 8e9 / (double)l->cfg.rate_bps);
	c->due_ns = d->tx_free_ns + l->one_way_ns;
	if (d->tail)
		d->tail->next = c;
	else
		d->head = c;
	d->tail = c;
	d->queued += c->len;
	return 0;
}

/* Deliver the chunks whose time has come, in order: 0, or -1 when the
 * connection broke. */
static int dir_deliver(struct dir *d, uint64_t now)
{
	while (d->head && d->head->due_ns <= now) {
		struct chunk *c = d->head;
		ssize_t k = send(d->to, c->data + c->off, c->len - c->off,
				 MSG_NOSIGNAL);

		if (k < 0)
			return errno == EAGAIN || errno == EINTR ? 0 : -1;
		c->off += (size_t)k;
		d->queued -= (size_t)k;
		atomic_fetch_add(d->count, (uint64_t)k);
		if (c->off < c->len)
			return 0;
		d->head = c->next;
		if (!d->head)
			d->tail = NULL;
		free(c);
	}
	if (!d->head && d->eof && !d->shut) {
		shutdown(d->to, SHUT_WR);
		d->shut = true;
	}
	return 0;
}

/* The poll events of fd, which is d's source and e's destination. */
static short events_of(const struct link *l, const struct dir *d,
		       const struct dir *e, uint64_t now)
{
	short ev = 0;

	if (!d->eof && d->queued < l->queue_max)
		ev |= POLLIN;
	if (e->head && e->head->due_ns <= now)
		ev |= POLLOUT;
	return ev;
}

static void *relay_thread(void *arg)
{
	struct link *l = arg;

	for (;;) {
		struct pollfd pfd[2 + 2 * MAX_CONNS];
		int map[2 + 2 * MAX_CONNS];
		uint64_t now = monotonic_ns(), next = UINT64_MAX;
		struct timespec ts, *tp = NULL;
		int n = 0, i;

		pfd[n++] = (struct pollfd){.fd = l->stop[0], .events = POLLIN};
		pfd[n++] =
		    (struct pollfd){.fd = l->listen_fd, .events = POLLIN};
		for (i = 0; i < MAX_CONNS; i++) {
			struct conn *c = &l->conns[i];
			int k;

			if (!c->used)
				continue;
			for (k = 0; k < 2; k++) {
				short ev =
				    events_of(l, &c->d[k], &c->d[!k], now);

				/* A socket with nothing to wait for is left
				 * out: a peer that has hung up would
				 * otherwise wake the relay at once, again and
				 * again, until the other way has drained. */
				pfd[n] = (struct pollfd){
				    .fd = ev ? c->d[k].from : -1, .events = ev};
				map[n++] = i;
			}
			for (k = 0; k < 2; k++)
				if (c->d[k].head &&
				    c->d[k].head->due_ns > now &&
				    c->d[k].head->due_ns < next)
					next = c->d[k].head->due_ns;
		}
		if (next != UINT64_MAX) {
			uint64_t wait = next - now;

			ts.tv_sec = (time_t)(wait / 1000000000u);
			ts.tv_nsec = (long)(wait % 1000000000u);
			tp = &ts;
		}
		if (ppoll(pfd, (nfds_t)n, tp, NULL) < 0) {
			if (errno == EINTR)
				continue;
			log_error("link: poll: %s", strerror(errno));
			break;
		}
		if (pfd[0].revents)
			break;
		if (pfd[1].revents & POLLIN) {
			int fd = accept(l->listen_fd, NULL, NULL);

			if (fd >= 0) {
				fcntl(fd, F_SETFD, FD_CLOEXEC);
				set_bufs(fd);
				if (conn_open(l, fd) < 0)
					close(fd);
			}
		}
		now = monotonic_ns();
		for (i = 2; i < n; i += 2) {
			struct conn *c = &l->conns[map[i]];
			bool bad = false;
			int k;

			for (k = 0; k < 2; k++) {
				short rev = pfd[i + k].revents;
				struct dir *d = &c->d[k];
				size_t before;

				if (!(rev & (POLLIN | POLLHUP | POLLERR)))
					continue;
				/* All there is room for: a relay woken late
				 * (a loaded machine) catches up in one go. */
				do {
					before = d->queued;
					if (dir_read(l, d, now) < 0)
						bad = true;
				} while (!bad && !d->eof &&
					 d->queued - before == CHUNK_BYTES);
			}
			for (k = 0; k < 2 && !bad; k++)
				if (dir_deliver(&c->d[k], now) < 0)
					bad = true;
			if (bad || (c->d[0].shut && c->d[1].shut))
				conn_close(c);
		}
	}
	return NULL;
}

static int resolve(struct link *l, const char *host, int port)
{
	struct addrinfo hints, *ai = NULL;
	char serv[16];
	int err;

	memset(&hints, 0, sizeof(hints));
	hints.ai_socktype = SOCK_STREAM;
	snprintf(serv, sizeof(serv), "%d", port);
	err = getaddrinfo(host, serv, &hints, &ai);
	if (err || !ai) {
		log_error("link: cannot resolve %s: %s", host,
			  err ? gai_strerror(err) : "no address");
		return -EINVAL;
	}
	memcpy(&l->to, ai->ai_addr, ai->ai_addrlen);
	l->to_len = ai->ai_addrlen;
	freeaddrinfo(ai);
	return 0;
}

struct link *link_start(const struct link_config *cfg, int listen_port,
			const char *host, int port)
{
	struct link *l = calloc(1, sizeof(*l));
	struct sockaddr_in sa;
	socklen_t sl = sizeof(sa);
	int one = 1, err;

	if (!l) {
		log_error("out of memory");
		return NULL;
	}
	l->listen_fd = l->stop[0] = l->stop[1] = -1;
	l->cfg = *cfg;
	l->one_way_ns = cfg->rtt_ns / 2;
	l->queue_max =
	    cfg->rate_bps
		? (size_t)link_capacity_bytes(cfg, (double)cfg->rtt_ns / 1e9) +
		      LINK_QUEUE_BYTES
		: UNLIMITED_QUEUE;
	if (resolve(l, host, port) < 0)
		goto fail;
	l->listen_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (l->listen_fd < 0) {
		log_error("link: socket: %s", strerror(errno));
		goto fail;
	}
	setsockopt(l->listen_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	set_bufs(l->listen_fd); /* accepted sockets inherit them */
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sa.sin_port = htons((uint16_t)listen_port);
	if (bind(l->listen_fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		log_error("link: cannot listen on 127.0.0.1:%d: %s",
			  listen_port, strerror(errno));
		goto fail;
	}
	if (listen(l->listen_fd, 8) < 0 ||
	    getsockname(l->listen_fd, (struct sockaddr *)&sa, &sl) < 0) {
		log_error("link: listen: %s", strerror(errno));
		goto fail;
	}
	l->port = ntohs(sa.sin_port);
	if (pipe(l->stop) < 0) {
		log_error("link: pipe: %s", strerror(errno));
		goto fail;
	}
	err = pthread_create(&l->thread, NULL, relay_thread, l);
	if (err) {
		log_error("link: pthread_create: %s", strerror(err));
		goto fail;
	}
	l->running = true;
	return l;
fail:
	link_stop(l);
	return NULL;
}

int link_port(const struct link *l)
{
	return l->port;
}

const struct link_config *link_config(const struct link *l)
{
	return &l->cfg;
}

void link_counts(const struct link *l, struct link_counts *c)
{
	c->down = atomic_load(&l->down);
	c->up = atomic_load(&l->up);
	c->connections = atomic_load(&l->connections);
}

void link_stop(struct link *l)
{
	int i;

	if (!l)
		return;
	if (l->running) {
		if (write(l->stop[1], "x", 1) < 0)
			log_debug("link: stop: %s", strerror(errno));
		pthread_join(l->thread, NULL);
	}
	for (i = 0; i < MAX_CONNS; i++)
		if (l->conns[i].used)
			conn_close(&l->conns[i]);
	if (l->stop[0] >= 0) {
		close(l->stop[0]);
		close(l->stop[1]);
	}
	if (l->listen_fd >= 0)
		close(l->listen_fd);
	free(l);
}
