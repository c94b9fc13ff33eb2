/* One client of the replay pump: the server side of the RFB handshake,
 * the client's messages, and the recording sent against its requests or,
 * under continuous updates, pushed (with a fence after each update, whose
 * answer times the client). The client is untrusted (anyone on loopback
 * may connect): every client message is length-checked, unknown ones end
 * the connection with one line. */
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
#include "util/be.h"
#include "util/log.h"
#include "util/stats.h"
#include "shadow/pixfmt.h"
#include "tools/replay/recording.h"
#include "tools/replay/replaysrv_priv.h"

#define READ_CHUNK 65536
/* Pseudo-encodings and messages of the extensions (rfbproto). */
#define ENC_CONTINUOUS_UPDATES (-313)
#define ENC_FENCE (-312)
#define MSG_END_OF_CU 150
#define MSG_FENCE 248
#define FENCE_BLOCK_BEFORE (1u << 0)
#define FENCE_BLOCK_AFTER (1u << 1)
#define FENCE_SYNC_NEXT (1u << 2)
#define FENCE_REQUEST (1u << 31)
#define FENCE_KNOWN (FENCE_BLOCK_BEFORE | FENCE_BLOCK_AFTER | FENCE_SYNC_NEXT)
#define FENCE_MAX 64
/* The pump's own fences carry this and the update's number. */
#define FENCE_TAG 0x76666270u /* "vfbp" */
#define FENCE_HELLO 0xffffffffu
/* Pushing, the pump's socket buffer: small, so that the link (or the
 * client), not a kernel buffer of megabytes, sets the pace. */
#define PUSH_SNDBUF (64 << 10)

enum conn_state { C_VERSION, C_SECURITY, C_INIT, C_NORMAL };

struct conn {
	int fd;
	unsigned id;
	char peer[64];
	enum conn_state st;
	int minor; /* protocol 3.minor */
	/* The client message being assembled; need: its fixed part (a
	 * fence's with its payload). */
	uint8_t in[16 + FENCE_MAX];
	size_t in_len, need;
	uint64_t skip;	    /* variable part being thrown away */
	uint32_t encs_left; /* SetEncodings: encodings still to come */
	/* Continuous updates and fences (pushing modes only). */
	bool cu_told, fence_told; /* EndOfCU, ServerFence sent once */
	bool cu_on, fence_ok;
	bool fenced;		     /* handled() is told by fence answers */
	uint64_t push_t0, push_rec0; /* recorded pace: when, and whose */
	/* When the client had handled update 1's predecessor (request 1, or
	 * the fence after update 0), and its last such sign. */
	uint64_t t_last;
	uint64_t handled;      /* updates handled after the first */
	struct samples answer; /* update sent -> its answer, less return */
	uint8_t pf[16];	       /* the client's pixel format, as it sent it */
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
	be32_put(si + 20, s->h->name_len);
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

/* The client has shown that it handled update idx: by asking for the
 * next one (one request in flight), or by answering the fence after it.
 * The sign for the first (the set-up) starts the play's clock; the one
 * for the last ends it. */
static void handled(struct replaysrv *s, struct conn *c, uint64_t idx,
		    uint64_t now)
{
	uint64_t sent;

	if (idx >= s->updates || c->ended || (c->t_first && idx <= c->handled))
		return;
	if (idx == 0) {
		c->t_first = now;
		say(s, "replay: client %u: playing", c->id);
	}
	sent = atomic_load(&s->sent_ns[idx]);
	if (sent && now >= sent + s->return_ns &&
	    stats_add(&c->answer, now - sent - s->return_ns) < 0)
		log_debug("replay: out of memory for the answer times");
	c->t_last = now;
	c->handled = idx;
	if (idx + 1 < s->updates)
		return;
	c->ended = true;
	if (idx >= 1) {
		double secs = (double)(now - c->t_first) / 1e9;

		say(s,
		    "replay: client %u: played %llu updates in %.3f s: %.2f "
		    "updates/s, %zu of them of the whole desktop",
		    c->id, (unsigned long long)idx, secs,
		    secs > 0 ? (double)idx / secs : 0.0, s->full_after_first);
	}
}

static void on_request(struct replaysrv *s, struct conn *c)
{
	uint64_t k = c->requests++;

	/* Under continuous updates the pump pushes; a request, incremental
	 * (to be ignored) or not (answered by the next update anyway), asks
	 * for nothing more. */
	if (c->cu_on || c->ended)
		return;
	if (k < s->updates)
		c->pending++;
	/* The request for the second update comes once the first (the
	 * set-up) is handled, or begun by a pipelining viewer; the one past
	 * the last likewise: between them, one request per update. */
	if (k >= 1)
		handled(s, c, k - 1, monotonic_ns());
}

static int queue_fence(struct conn *c, uint32_t flags, const uint8_t *payload,
		       uint8_t len)
{
	uint8_t f[9] = {MSG_FENCE};

	be32_put(f + 4, flags);
	f[8] = len;
	if (queue_ctl(c, f, sizeof(f)) < 0)
		return -1;
	return len ? queue_ctl(c, payload, len) : 0;
}

static int queue_own_fence(struct conn *c, uint32_t what)
{
	uint8_t p[8];

	be32_put(p, FENCE_TAG);
	be32_put(p + 4, what);
	return queue_fence(c, FENCE_REQUEST | FENCE_BLOCK_BEFORE, p, sizeof(p));
}

/* One encoding of SetEncodings (pushing modes): the first mention of
 * each extension is answered as rfbproto asks, which tells the client
 * the pump has it. */
static int on_encoding(struct replaysrv *s, struct conn *c, int32_t enc)
{
	static const uint8_t end_cu = MSG_END_OF_CU;

	(void)s;
	if (enc == ENC_CONTINUOUS_UPDATES && !c->cu_told) {
		c->cu_told = true;
		return queue_ctl(c, &end_cu, 1);
	}
	if (enc == ENC_FENCE && !c->fence_told) {
		c->fence_told = c->fence_ok = true;
		return queue_own_fence(c, FENCE_HELLO);
	}
	return 0;
}

static int on_fence(struct replaysrv *s, struct conn *c)
{
	const uint8_t *m = c->in;
	uint32_t flags = be32_get(m + 4);
	uint8_t len = m[8];

	if (s->push == PUSH_REQUESTS)
		return 0; /* never offered: ignored, as before */
	if (flags & FENCE_REQUEST)
		/* Nothing the pump has read waits to be done, and nothing
		 * after it will be done early: every flag it knows holds
		 * as soon as it answers. */
		return queue_fence(c, flags & FENCE_KNOWN, m + 9, len);
	if (len == 8 && be32_get(m + 9) == FENCE_TAG &&
	    be32_get(m + 13) != FENCE_HELLO) {
		c->fenced = true;
		handled(s, c, be32_get(m + 13), monotonic_ns());
	}
	return 0;
}

static int on_enable_cu(struct replaysrv *s, struct conn *c)
{
	static const uint8_t end_cu = MSG_END_OF_CU;

	if (s->push == PUSH_REQUESTS)
		return refuse(s, c,
			      "asked for continuous updates, which the "
			      "replay does not offer");
	/* The area is not used: the recording is the whole desktop's. */
	if (c->in[1]) {
		/* The update sent before (the requested first one) gets
		 * its fence now: its answer starts the play's clock. */
		if (!c->cu_on && c->fence_ok && c->answered &&
		    queue_own_fence(c, (uint32_t)(c->answered - 1)) < 0)
			return -1;
		c->cu_on = true;
		return 0;
	}
	c->cu_on = false;
	c->push_t0 = 0;
	return queue_ctl(c, &end_cu, 1);
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
		if (s->push == PUSH_REQUESTS)
			c->skip = 4ull * be16_get(m + 2);
		else
			c->encs_left = be16_get(m + 2);
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
		int32_t len = (int32_t)be32_get(m + 4);

		c->skip = len < 0 ? (uint64_t) - (int64_t)len : (uint64_t)len;
		return 0;
	}
	case 248: /* ClientFence, payload included (fixed_len) */
		if (m[8] > FENCE_MAX)
			return refuse(s, c, "sent a fence of %u bytes", m[8]);
		return on_fence(s, c);
	case 251: /* SetDesktopSize: screens follow */
		c->skip = 16ull * m[6];
		return 0;
	case 150: /* EnableContinuousUpdates */
		return on_enable_cu(s, c);
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
	case 248: /* with its payload, when it fits */
		if (have < 9 || m[8] > FENCE_MAX)
			return 9;
		return 9 + (size_t)m[8];
	case 255: /* QEMU: only extended key events (subtype 0) */
		if (have < 2)
			return 2;
		return m[1] == 0 ? 12 : 0;
	}
	return 0;
}

/* Move bytes from *p into c->in until it holds want: whether it does. */
static bool take(struct conn *c, const uint8_t **p, size_t *n, size_t want)
{
	size_t k = want - c->in_len;

	if (k > *n)
		k = *n;
	memcpy(c->in + c->in_len, *p, k);
	c->in_len += k;
	*p += k;
	*n -= k;
	return c->in_len == want;
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
		if (c->encs_left) {
			if (!take(c, &p, &n, 4))
				continue;
			c->in_len = 0;
			c->encs_left--;
			if (on_encoding(s, c, (int32_t)be32_get(c->in)) < 0)
				return -1;
			continue;
		}
		if (!take(c, &p, &n, c->need))
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
 * an update against a request or, under continuous updates, when the
 * pace says (at once pushing fast), with a fence after it. The poll
 * timeout until then (-1: none). */
static int queue_next(struct replaysrv *s, struct conn *c)
{
	struct rec_message m;
	uint64_t now;

	if (c->st != C_NORMAL || !output_idle(c) ||
	    c->next >= recording_messages(s->rec))
		return -1;
	recording_message(s->rec, c->next, &m);
	if (m.flags & REC_UPDATE) {
		if (c->cu_on && s->push == PUSH_RECORDED) {
			now = monotonic_ns();
			if (!c->push_t0) {
				c->push_t0 = now;
				c->push_rec0 = m.t_ns;
			}
			if (m.t_ns > c->push_rec0 &&
			    now < c->push_t0 + (m.t_ns - c->push_rec0))
				return (int)((c->push_t0 +
					      (m.t_ns - c->push_rec0) - now +
					      999999) /
					     1000000);
		} else if (!c->cu_on) {
			if (!c->pending)
				return -1;
			c->pending--;
		}
		if (c->answered < s->updates)
			atomic_store(&s->sent_ns[c->answered], monotonic_ns());
		/* The fence goes out after the update (flush_output ends
		 * a message before the control bytes). */
		if (c->cu_on && c->fence_ok &&
		    queue_own_fence(c, (uint32_t)c->answered) < 0)
			return -1;
		c->answered++;
	}
	c->next++;
	c->cur = m.data;
	c->cur_left = m.len;
	return -1;
}

/* Send what is queued; 0, or -1 when the client is gone. */
static int flush_output(struct conn *c)
{
	while (!output_idle(c)) {
		const uint8_t *p;
		size_t n;
		ssize_t k;

		/* A recorded message is finished before control bytes
		 * (a fence, its answer) go between two messages. */
		bool ctl = c->cur_left == 0;

		if (ctl) {
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
		if (ctl) {
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

/* What the client handled, however far it got: for plays cut short (a
 * viewer stopped after some seconds over a slow link). */
static void report_handled(struct replaysrv *s, struct conn *c)
{
	struct summary a;
	uint64_t i, full = 0;
	double secs;

	if (!c->t_first || c->handled == 0)
		return;
	for (i = 1; i <= c->handled; i++)
		full += s->update_full[i];
	secs = (double)(c->t_last - c->t_first) / 1e9;
	stats_summarize(&c->answer, &a);
	say(s,
	    "replay: client %u: handled %llu updates after the first in "
	    "%.3f s: %.2f updates/s, %.2f of the whole desktop/s; answered "
	    "%.1f ms after sending (median), p99 %.1f ms, by %s",
	    c->id, (unsigned long long)c->handled, secs,
	    secs > 0 ? (double)c->handled / secs : 0.0,
	    secs > 0 ? (double)full / secs : 0.0, (double)a.median / 1e6,
	    (double)a.p99 / 1e6, c->fenced ? "fence" : "request");
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
		int ret, timeout;

		if (flush_output(c) < 0)
			break;
		timeout = queue_next(s, c);
		if (!output_idle(c)) {
			if (flush_output(c) < 0)
				break;
			if (output_idle(c))
				continue;
			pfd[1].events |= POLLOUT;
		}
		ret = replaysrv_wait(pfd, timeout);
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
	report_handled(s, c);
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
	for (size_t i = 0; i < s->updates; i++)
		atomic_store(&s->sent_ns[i], 0);
	if (s->push != PUSH_REQUESTS) {
		int sz = PUSH_SNDBUF;

		setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
	}
	peer_name(fd, c.peer, sizeof(c.peer));
	say(s, "replay: client %u (%s): connected", c.id, c.peer);
	serve(s, &c);
	free(c.ctl);
	stats_free(&c.answer);
}
