/* The replay pump: the server side of RFB over a recording. The client is
 * untrusted (anyone on loopback may connect): every client message is
 * length-checked, unknown ones end the connection with one line. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "clock.h"
#include "log.h"
#include "replaysrv.h"
#include "signals.h"

#define READ_CHUNK 65536
/* Mean difference per channel (0-255) allowed between two decodes of a
 * lossy recording's last picture: what the integration tests allow a
 * JPEG picture against the server's. */
#define LOSSY_MAX_ERR 6.0
#define MAX_WHO 8

enum conn_state { C_VERSION, C_SECURITY, C_INIT, C_NORMAL };

struct conn {
	int fd;
	unsigned id;
	char peer[64];
	enum conn_state st;
	int minor; /* protocol 3.minor */
	/* The client message being assembled; need: its fixed part. */
	uint8_t in[24];
	size_t in_len, need;
	uint64_t skip;	/* variable part being thrown away */
	uint8_t pf[16]; /* the client's pixel format, as it sent it */
	/* Output: handshake bytes (ctl), then recorded messages. */
	uint8_t *ctl;
	size_t ctl_len, ctl_off;
	const uint8_t *cur;
	size_t cur_left;
	size_t next; /* next recorded message */
	uint64_t pending, requests, answered;
	uint64_t t_first;
	bool ended, closing;
};

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
	int listen_fd, port;
	int stop[2];
	pthread_t thread;
	bool running, quiet;
	unsigned clients;
	struct who_stats who[MAX_WHO];
	int n_who;
};

static uint16_t be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)be16(p) << 16 | be16(p + 2);
}

static void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* Per-client lines on stdout, for the scripts that time other viewers. */
__attribute__((format(printf, 2, 3))) static void say(const struct replaysrv *s,
						      const char *fmt, ...)
{
	va_list ap;

	if (s->quiet)
		return;
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

/* --- the recording --- */

struct replaysrv *replaysrv_open(const char *path)
{
	struct replaysrv *s = calloc(1, sizeof(*s));
	size_t i, seen = 0;

	if (!s) {
		log_error("out of memory");
		return NULL;
	}
	s->listen_fd = s->stop[0] = s->stop[1] = -1;
	s->rec = recording_open(path);
	if (!s->rec) {
		free(s);
		return NULL;
	}
	s->h = recording_header(s->rec);
	rec_pf_to_wire(&s->h->client_fmt, s->client_pf);
	s->lossy = s->h->quality >= 0;
	s->updates = recording_updates(s->rec);
	for (i = 0; i < recording_messages(s->rec); i++) {
		struct rec_message m;

		recording_message(s->rec, i, &m);
		if (!(m.flags & REC_UPDATE))
			continue;
		if (seen++ > 0 && (m.flags & REC_FULL))
			s->full_after_first++;
	}
	return s;
}

const struct rec_header *replaysrv_header(const struct replaysrv *s)
{
	return s->h;
}

size_t replaysrv_updates(const struct replaysrv *s)
{
	return s->updates;
}

void replaysrv_output_spec(const struct replaysrv *s, char *buf, size_t len)
{
	char name[64];

	snprintf(buf, len, "mem:%ux%u:%s", s->h->width, s->h->height,
		 pixfmt_name(&s->h->client_fmt, name, sizeof(name)));
}

int replaysrv_check_format(const struct replaysrv *s, const struct pixfmt *fmt)
{
	char a[64], b[64];

	if (pixfmt_equal(fmt, &s->h->client_fmt))
		return 0;
	log_error("replay: vncfb would ask for %s, the recording is in %s "
		  "(record once per format: vncfb bench --record -o "
		  "mem:WxH:FORMAT)",
		  pixfmt_name(fmt, a, sizeof(a)),
		  pixfmt_name(&s->h->client_fmt, b, sizeof(b)));
	return -EINVAL;
}

/* --- one client --- */

static int queue_ctl(struct conn *c, const void *p, size_t n)
{
	uint8_t *b = realloc(c->ctl, c->ctl_len + n);

	if (!b) {
		log_error("out of memory");
		return -ENOMEM;
	}
	memcpy(b + c->ctl_len, p, n);
	c->ctl = b;
	c->ctl_len += n;
	return 0;
}

static bool output_idle(const struct conn *c)
{
	return c->ctl_off == c->ctl_len && c->cur_left == 0;
}

static int send_server_init(struct replaysrv *s, struct conn *c)
{
	uint8_t si[24];

	si[0] = (uint8_t)(s->h->width >> 8);
	si[1] = (uint8_t)s->h->width;
	si[2] = (uint8_t)(s->h->height >> 8);
	si[3] = (uint8_t)s->h->height;
	memcpy(si + 4, s->h->server_pf, 16);
	put_be32(si + 20, s->h->name_len);
	memcpy(c->pf, s->h->server_pf, 16);
	if (queue_ctl(c, si, sizeof(si)) < 0 ||
	    queue_ctl(c, s->h->name, s->h->name_len) < 0)
		return -1;
	c->st = C_NORMAL;
	c->need = 1;
	return 0;
}

/* The refusal of one client, in one line. */
__attribute__((format(printf, 3, 4))) static int
refuse(struct replaysrv *s, struct conn *c, const char *fmt, ...)
{
	char why[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	log_error("replay: client %u (%s) %s", c->id, c->peer, why);
	return -1;
}

static int handshake_input(struct replaysrv *s, struct conn *c)
{
	static const uint8_t types[] = {1, 1}; /* one: None */
	static const uint8_t ok[4] = {0, 0, 0, 0};
	unsigned major, minor;

	switch (c->st) {
	case C_VERSION:
		if (sscanf((const char *)c->in, "RFB %3u.%3u\n", &major,
			   &minor) != 2 ||
		    c->in[11] != '\n' || major != 3 || minor < 3)
			return refuse(s, c, "sent no RFB 3.x version");
		c->minor = minor >= 8 ? 8 : minor >= 7 ? 7 : 3;
		if (c->minor == 3) {
			uint8_t none[4] = {0, 0, 0, 1};

			if (queue_ctl(c, none, 4) < 0)
				return -1;
			c->st = C_INIT;
		} else {
			if (queue_ctl(c, types, sizeof(types)) < 0)
				return -1;
			c->st = C_SECURITY;
		}
		c->need = 1;
		return 0;
	case C_SECURITY:
		if (c->in[0] != 1)
			return refuse(s, c,
				      "chose security type %u; the "
				      "replay offers only None (1)",
				      c->in[0]);
		if (c->minor == 8 && queue_ctl(c, ok, sizeof(ok)) < 0)
			return -1;
		c->st = C_INIT;
		c->need = 1;
		return 0;
	case C_INIT:
		return send_server_init(s, c);
	case C_NORMAL:
		break;
	}
	return -1;
}

static void on_request(struct replaysrv *s, struct conn *c)
{
	uint64_t k = c->requests++, now = monotonic_ns();

	if (c->ended)
		return;
	/* The request for the second update comes once the first (the
	 * set-up) is handled, or begun by a pipelining viewer; the one past
	 * the last likewise: between them, one request per update. */
	if (k == 1) {
		c->t_first = now;
		say(s, "replay: client %u: playing", c->id);
	}
	if (k < s->updates) {
		c->pending++;
		return;
	}
	c->ended = true;
	if (k >= 2) {
		double secs = (double)(now - c->t_first) / 1e9;

		say(s,
		    "replay: client %u: played %llu updates in %.3f s: %.2f "
		    "updates/s, %zu of them of the whole desktop",
		    c->id, (unsigned long long)(k - 1), secs,
		    secs > 0 ? (double)(k - 1) / secs : 0.0,
		    s->full_after_first);
	}
}

/* A whole client message (its fixed part) is in c->in. */
static int client_message(struct replaysrv *s, struct conn *c)
{
	const uint8_t *m = c->in;
	char a[64], b[64];
	struct pixfmt pf;

	switch (m[0]) {
	case 0: /* SetPixelFormat */
		if (rec_pf_from_wire(m + 4, &pf) < 0)
			return refuse(s, c,
				      "asked for a pixel format the "
				      "replay cannot serve (colour map "
				      "or 24 bpp)");
		memcpy(c->pf, m + 4, 16);
		return 0;
	case 2: /* SetEncodings */
		c->skip = 4ull * be16(m + 2);
		return 0;
	case 3: /* FramebufferUpdateRequest */
		if (!rec_pf_wire_equal(c->pf, s->client_pf)) {
			struct pixfmt cf;

			if (rec_pf_from_wire(c->pf, &cf) < 0)
				snprintf(a, sizeof(a), "the server's format");
			else
				pixfmt_name(&cf, a, sizeof(a));
			return refuse(
			    s, c,
			    "asks for updates in %s; the recording "
			    "is in %s (record once per format)",
			    a, pixfmt_name(&s->h->client_fmt, b, sizeof(b)));
		}
		on_request(s, c);
		return 0;
	case 4:	  /* KeyEvent */
	case 5:	  /* PointerEvent */
	case 255: /* QEMU extended key event (fixed_len let only it in) */
		return 0;
	case 6: { /* ClientCutText; negative: extended clipboard */
		int32_t len = (int32_t)be32(m + 4);

		c->skip = len < 0 ? (uint64_t) - (int64_t)len : (uint64_t)len;
		return 0;
	}
	case 248: /* ClientFence */
		if (m[8] > 64)
			return refuse(s, c, "sent a fence of %u bytes", m[8]);
		c->skip = m[8];
		return 0;
	case 251: /* SetDesktopSize: screens follow */
		c->skip = 16ull * m[6];
		return 0;
	case 150: /* EnableContinuousUpdates */
		return refuse(s, c,
			      "asked for continuous updates, which the "
			      "replay does not offer");
	}
	return refuse(s, c,
		      "sent client message type %u, which the replay "
		      "does not know",
		      m[0]);
}

/* The fixed part of a client message of type t; 0 for unknown. */
static size_t fixed_len(const uint8_t *m, size_t have)
{
	switch (m[0]) {
	case 0:
		return 20;
	case 2:
		return 4;
	case 3:
	case 150:
		return 10;
	case 4:
		return 8;
	case 5:
		return 6;
	case 6:
	case 251:
		return 8;
	case 248:
		return 9;
	case 255: /* QEMU: only extended key events (subtype 0) */
		if (have < 2)
			return 2;
		return m[1] == 0 ? 12 : 0;
	}
	return 0;
}

static int client_input(struct replaysrv *s, struct conn *c, const uint8_t *p,
			size_t n)
{
	while (n > 0) {
		size_t k;

		if (c->skip) {
			k = c->skip < n ? (size_t)c->skip : n;
			c->skip -= k;
			p += k;
			n -= k;
			continue;
		}
		k = c->need - c->in_len;
		if (k > n)
			k = n;
		memcpy(c->in + c->in_len, p, k);
		c->in_len += k;
		p += k;
		n -= k;
		if (c->in_len < c->need)
			continue;
		if (c->st != C_NORMAL) {
			if (handshake_input(s, c) < 0)
				return -1;
			c->in_len = 0;
			if (c->st == C_SECURITY || c->st == C_INIT)
				c->need = 1;
			continue;
		}
		k = fixed_len(c->in, c->in_len);
		if (k == 0)
			return client_message(s, c); /* refuses */
		if (c->in_len < k) {
			c->need = k;
			continue;
		}
		if (client_message(s, c) < 0)
			return -1;
		c->in_len = 0;
		c->need = 1;
	}
	return 0;
}

/* Queue what goes next: messages the server sent unasked as they come,
 * an update only against a request. */
static void queue_next(struct replaysrv *s, struct conn *c)
{
	struct rec_message m;

	if (c->st != C_NORMAL || !output_idle(c) ||
	    c->next >= recording_messages(s->rec))
		return;
	recording_message(s->rec, c->next, &m);
	if (m.flags & REC_UPDATE) {
		if (!c->pending)
			return;
		c->pending--;
		c->answered++;
	}
	c->next++;
	c->cur = m.data;
	c->cur_left = m.len;
}

/* Send what is queued; 0, or -1 when the client is gone. */
static int flush_output(struct conn *c)
{
	while (!output_idle(c)) {
		const uint8_t *p;
		size_t n;
		ssize_t k;

		if (c->ctl_off < c->ctl_len) {
			p = c->ctl + c->ctl_off;
			n = c->ctl_len - c->ctl_off;
		} else {
			p = c->cur;
			n = c->cur_left;
		}
		k = send(c->fd, p, n, MSG_NOSIGNAL);
		if (k < 0 && (errno == EAGAIN || errno == EINTR))
			return 0;
		if (k <= 0)
			return -1;
		if (c->ctl_off < c->ctl_len) {
			c->ctl_off += (size_t)k;
			if (c->ctl_off == c->ctl_len)
				c->ctl_off = c->ctl_len = 0;
		} else {
			c->cur += k;
			c->cur_left -= (size_t)k;
		}
	}
	return 0;
}

/* Serve one client until it leaves or the pump stops. */
/* Poll the stop pipe (pfd[0]) and a socket (pfd[1]): 0 to go on, 1 to
 * poll again (a signal came), -1 to stop (asked to, or poll failed:
 * logged). */
static int wait_events(struct pollfd pfd[2])
{
	if (poll(pfd, 2, -1) < 0) {
		if (errno == EINTR)
			return 1;
		log_error("replay: poll: %s", strerror(errno));
		return -1;
	}
	return pfd[0].revents ? -1 : 0;
}

static void serve(struct replaysrv *s, struct conn *c)
{
	uint8_t *buf = malloc(READ_CHUNK);
	static const char version[] = "RFB 003.008\n";

	if (!buf || queue_ctl(c, version, 12) < 0) {
		free(buf);
		return;
	}
	c->need = 12;
	for (;;) {
		struct pollfd pfd[2] = {
		    {.fd = s->stop[0], .events = POLLIN},
		    {.fd = c->fd, .events = POLLIN},
		};
		int ret;

		if (flush_output(c) < 0)
			break;
		queue_next(s, c);
		if (!output_idle(c)) {
			if (flush_output(c) < 0)
				break;
			if (output_idle(c))
				continue;
			pfd[1].events |= POLLOUT;
		}
		ret = wait_events(pfd);
		if (ret < 0)
			break;
		if (ret > 0)
			continue;
		if (pfd[1].revents & (POLLIN | POLLHUP | POLLERR)) {
			ssize_t n = recv(c->fd, buf, READ_CHUNK, 0);

			if (n < 0 && (errno == EAGAIN || errno == EINTR))
				continue;
			if (n <= 0)
				break;
			if (client_input(s, c, buf, (size_t)n) < 0)
				break;
		}
	}
	free(buf);
	say(s, "replay: client %u: left after %llu of %zu updates", c->id,
	    (unsigned long long)c->answered, s->updates);
}

static void peer_name(int fd, char *buf, size_t len)
{
	struct sockaddr_in sa;
	socklen_t sl = sizeof(sa);
	uint32_t a;

	if (getpeername(fd, (struct sockaddr *)&sa, &sl) < 0 ||
	    sa.sin_family != AF_INET) {
		snprintf(buf, len, "?");
		return;
	}
	a = ntohl(sa.sin_addr.s_addr);
	snprintf(buf, len, "%u.%u.%u.%u:%u", a >> 24, (a >> 16) & 255,
		 (a >> 8) & 255, a & 255, ntohs(sa.sin_port));
}

static void *pump_thread(void *arg)
{
	struct replaysrv *s = arg;

	for (;;) {
		struct pollfd pfd[2] = {
		    {.fd = s->stop[0], .events = POLLIN},
		    {.fd = s->listen_fd, .events = POLLIN},
		};
		struct conn c;
		int fd, one = 1, ret;

		ret = wait_events(pfd);
		if (ret < 0)
			break;
		if (ret > 0)
			continue;
		if (!(pfd[1].revents & POLLIN))
			continue;
		fd = accept(s->listen_fd, NULL, NULL);
		if (fd < 0) {
			if (errno != EINTR && errno != EAGAIN &&
			    errno != ECONNABORTED)
				log_warn("replay: accept: %s", strerror(errno));
			continue;
		}
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
		fcntl(fd, F_SETFD, FD_CLOEXEC);
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		memset(&c, 0, sizeof(c));
		c.fd = fd;
		c.id = ++s->clients;
		peer_name(fd, c.peer, sizeof(c.peer));
		say(s, "replay: client %u (%s): connected", c.id, c.peer);
		serve(s, &c);
		free(c.ctl);
		close(fd);
	}
	return NULL;
}

int replaysrv_start(struct replaysrv *s, int port, bool quiet)
{
	struct sockaddr_in sa;
	socklen_t sl = sizeof(sa);
	int one = 1, err;

	s->quiet = quiet;
	s->listen_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s->listen_fd < 0) {
		log_error("replay: socket: %s", strerror(errno));
		return -errno;
	}
	setsockopt(s->listen_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sa.sin_port = htons((uint16_t)port);
	if (bind(s->listen_fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		err = -errno;
		log_error("replay: cannot listen on 127.0.0.1:%d: %s", port,
			  strerror(errno));
		return err;
	}
	if (listen(s->listen_fd, 8) < 0 ||
	    getsockname(s->listen_fd, (struct sockaddr *)&sa, &sl) < 0) {
		err = -errno;
		log_error("replay: listen: %s", strerror(errno));
		return err;
	}
	s->port = ntohs(sa.sin_port);
	if (pipe(s->stop) < 0) {
		err = -errno;
		log_error("replay: pipe: %s", strerror(errno));
		return err;
	}
	err = pthread_create(&s->thread, NULL, pump_thread, s);
	if (err) {
		log_error("replay: pthread_create: %s", strerror(err));
		return -err;
	}
	s->running = true;
	return 0;
}

int replaysrv_port(const struct replaysrv *s)
{
	return s->port;
}

void replaysrv_close(struct replaysrv *s)
{
	if (!s)
		return;
	if (s->running) {
		if (write(s->stop[1], "x", 1) < 0)
			log_debug("replay: stop: %s", strerror(errno));
		pthread_join(s->thread, NULL);
	}
	if (s->stop[0] >= 0) {
		close(s->stop[0]);
		close(s->stop[1]);
	}
	if (s->listen_fd >= 0)
		close(s->listen_fd);
	recording_close(s->rec);
	free(s);
}

/* --- vncfb bench --replay --- */

struct replaysrv *replaysrv_for_bench(struct options *o, char *out_spec,
				      size_t len)
{
	struct replaysrv *s = replaysrv_open(o->replay_file);

	if (!s)
		return NULL;
	if (!o->encodings && s->h->encodings[0]) {
		o->encodings = strdup(s->h->encodings);
		if (!o->encodings) {
			log_error("out of memory");
			replaysrv_close(s);
			return NULL;
		}
	}
	if (!opts_from_cli(o, "quality"))
		o->quality = s->h->quality;
	if (!opts_from_cli(o, "compress"))
		o->compress = s->h->compress;
	replaysrv_output_spec(s, out_spec, len);
	return s;
}

int replaysrv_check_bench(const struct replaysrv *s, const struct pixfmt *fmt)
{
	/* The first update is set-up; the measurement needs two more. */
	if (s->updates < 3) {
		log_error("replay: the recording holds %zu updates; the bench "
			  "needs at least 3",
			  s->updates);
		return -EINVAL;
	}
	return replaysrv_check_format(s, fmt);
}

/* --- checking what a client decoded --- */

static struct who_stats *who_get(struct replaysrv *s, const char *who)
{
	int i;

	for (i = 0; i < s->n_who; i++)
		if (!strcmp(s->who[i].who, who))
			return &s->who[i];
	if (s->n_who == MAX_WHO)
		return NULL;
	snprintf(s->who[s->n_who].who, sizeof(s->who[0].who), "%s", who);
	return &s->who[s->n_who++];
}

static uint32_t rgb_at(const struct pixfmt *f, const uint8_t *p)
{
	uint8_t r, g, b;

	pixfmt_unpack(f, pixfmt_load(f, p), &r, &g, &b);
	return (uint32_t)r << 16 | (uint32_t)g << 8 | b;
}

int replaysrv_play_done(struct replaysrv *s, const char *who, uint64_t updates,
			const uint8_t *pix, size_t stride, uint32_t w,
			uint32_t h)
{
	const struct pixfmt *f = &s->h->client_fmt;
	struct who_stats *st = who_get(s, who);
	const uint8_t *want;
	uint32_t fw, fh, x, y;
	unsigned bpp = pixfmt_bytes(f);
	uint64_t sum = 0;
	double err;

	if (!st)
		return 0;
	st->plays++;
	if (updates < s->updates)
		return 0;
	st->complete++;
	want = recording_final(s->rec, &fw, &fh);
	if (!want || !pix)
		return 0;
	if (fw != w || fh != h) {
		log_error("replay: %s: the desktop ended %ux%u, the recorder's "
			  "%ux%u",
			  who, w, h, fw, fh);
		return -1;
	}
	for (y = 0; y < h; y++) {
		const uint8_t *a = pix + (size_t)y * stride;
		const uint8_t *b = want + (size_t)y * w * bpp;

		if (!memcmp(a, b, (size_t)w * bpp))
			continue;
		for (x = 0; x < w; x++) {
			uint32_t ga = rgb_at(f, a + x * bpp);
			uint32_t gb = rgb_at(f, b + x * bpp);
			int k;

			if (ga == gb)
				continue;
			if (!s->lossy) {
				log_error("replay: %s: the picture after the "
					  "last update differs from the "
					  "recorder's, first at (%u,%u): "
					  "#%06x, recorded #%06x",
					  who, x, y, ga, gb);
				return -1;
			}
			for (k = 0; k < 24; k += 8) {
				int d = (int)((ga >> k) & 255) -
					(int)((gb >> k) & 255);

				sum += (uint64_t)(d < 0 ? -d : d);
			}
		}
	}
	st->checked++;
	err = (double)sum / ((double)w * h * 3);
	if (err > st->worst)
		st->worst = err;
	if (err > LOSSY_MAX_ERR) {
		log_error("replay: %s: the picture after the last update is "
			  "%.2f per channel from the recorder's (at most %.0f "
			  "for JPEG)",
			  who, err, LOSSY_MAX_ERR);
		return -1;
	}
	return 0;
}

void replaysrv_describe(const struct replaysrv *s, const char *path, FILE *f)
{
	const struct rec_header *h = s->h;
	char fmt[64];

	fprintf(f,
		"replay of %s: %ux%u %s, \"%.*s\", %zu updates (%zu of the "
		"whole desktop after the first), %.1f MB, recorded asking "
		"for %s%s",
		path, h->width, h->height,
		pixfmt_name(&h->client_fmt, fmt, sizeof(fmt)),
		(int)(h->name_len > 60 ? 60 : h->name_len),
		(const char *)h->name, s->updates, s->full_after_first,
		(double)recording_bytes(s->rec) / 1e6,
		h->encodings[0] ? h->encodings
				: "the viewer's default "
				  "encodings",
		h->quality >= 0 ? "" : ", lossless");
	if (h->quality >= 0)
		fprintf(f, ", quality %d", h->quality);
	if (h->compress >= 0)
		fprintf(f, ", compress %d", h->compress);
	fprintf(f, "\n");
}

void replaysrv_report(const struct replaysrv *s, FILE *f)
{
	int i;

	if (!s->n_who)
		return;
	fprintf(f, "\nReplay: the picture after the last update against the "
		   "recorder's\n");
	for (i = 0; i < s->n_who; i++) {
		const struct who_stats *w = &s->who[i];

		fprintf(f, "  %-12s %u of %u plays complete", w->who,
			w->complete, w->plays);
		if (!w->checked)
			fprintf(f, ", none checked\n");
		else if (s->lossy)
			fprintf(f,
				", %u checked: mean error at most %.3f per "
				"channel\n",
				w->checked, w->worst);
		else
			fprintf(f, ", %u checked: identical\n", w->checked);
	}
	fprintf(f, "(a play is complete when the client handled every "
		   "recorded update before --duration)\n");
}

/* --- vncfb bench --replay FILE --serve PORT --- */

int replaysrv_serve(struct options *o)
{
	struct replaysrv *s;
	uint64_t deadline = 0;
	int sigfd, ret = 1;

	sigfd = signals_setup();
	if (sigfd < 0)
		return 1;
	s = replaysrv_open(o->replay_file);
	if (!s)
		return 1;
	if (replaysrv_start(s, o->serve_port, false) < 0)
		goto out;
	printf("replay: serving %s on 127.0.0.1:%d\n", o->replay_file, s->port);
	replaysrv_describe(s, o->replay_file, stdout);
	fflush(stdout);
	if (o->exit_after > 0)
		deadline = monotonic_ns() + (uint64_t)(o->exit_after * 1e9);
	for (;;) {
		struct pollfd pfd = {.fd = sigfd, .events = POLLIN};
		int timeout = -1;
		unsigned char sig[16];
		ssize_t k, i;

		if (deadline) {
			uint64_t now = monotonic_ns();

			if (now >= deadline)
				break;
			timeout = (int)((deadline - now + 999999) / 1000000);
		}
		if (poll(&pfd, 1, timeout) <= 0)
			continue;
		k = read(sigfd, sig, sizeof(sig));
		for (i = 0; i < k; i++)
			if (sig[i] != SIGUSR1)
				break;
		if (i < k)
			break;
	}
	ret = 0;
out:
	replaysrv_close(s);
	return ret;
}
