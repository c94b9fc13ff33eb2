/* One client of the replay pump: the server side of the RFB handshake,
 * the client's messages, and the recording sent against its requests. The
 * client is untrusted (anyone on loopback may connect): every client
 * message is length-checked, unknown ones end the connection with one
 * line. */
#include "config.h"

#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "util/clock.h"
#include "util/log.h"
#include "shadow/pixfmt.h"
#include "tools/replay/recording.h"
#include "tools/replay/replaysrv_priv.h"

#define READ_CHUNK 65536

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
		ret = replaysrv_wait(pfd);
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

void replaysrv_serve_client(struct replaysrv *s, int fd)
{
	struct conn c;

	memset(&c, 0, sizeof(c));
	c.fd = fd;
	c.id = ++s->clients;
	peer_name(fd, c.peer, sizeof(c.peer));
	say(s, "replay: client %u (%s): connected", c.id, c.peer);
	serve(s, &c);
	free(c.ctl);
}
