/* The connection's bytes both ways under vncfb's reader (vnc_source.h):
 * libvncclient's buffered reader as a struct vnc_source, with the bytes
 * a parser gives back and the link meter's counts, and the one write
 * path. Part of the libvncclient wrapper (vnc_priv.h), which includes its
 * header: it includes rfb/rfbclient.h itself. */
#include "config.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include <gnutls/gnutls.h>
#include <rfb/rfbclient.h>

#include "util/clock.h"
#include "net/guard.h"
#include "util/log.h"
#include "net/vnc_source.h"
#include "wire/vncsrc.h"

/* The reader's reads go to libvncclient in pieces this large, so that a
 * fast endless stream still sees the watchdog between them. */
#define READ_PIECE (256 * 1024)

static struct vnc_stream *from_src(const struct vnc_source *s)
{
	return (struct vnc_stream *)(void *)((char *)(uintptr_t)s -
		offsetof(struct vnc_stream, base));
}

static struct vnc_stream *from_src_rw(struct vnc_source *s)
{
	return (struct vnc_stream *)(void *)((char *)s -
		offsetof(struct vnc_stream, base));
}

/* Bytes a parser read past its message and gave back (src_unread), which
 * every read takes first: at most n of them into buf. */
static size_t take_ahead(struct vnc_stream *st, void *buf, size_t n)
{
	size_t k = n < st->ahead_len ? n : st->ahead_len;

	memcpy(buf, st->ahead + st->ahead_off, k);
	st->ahead_off += k;
	st->ahead_len -= k;
	return k;
}

/* The reader's bytes: libvncclient's buffered reader (TLS included), in
 * pieces, stopping as soon as the watchdog fired. The link meter counts
 * them, and the time spent where the buffer ran dry (the socket). */
static int src_read(struct vnc_source *s, void *buf, size_t n)
{
	struct vnc_stream *st = from_src_rw(s);
	char *p = buf;
	size_t k0 = st->ahead_len ? take_ahead(st, buf, n) : 0;

	p += k0;
	n -= k0;
	while (n > 0) {
		unsigned k = n < READ_PIECE ? (unsigned)n : READ_PIECE;
		size_t need = st->cl->buffered < k ? k - st->cl->buffered : 0;
		int avail = 0;
		uint64_t t0 = 0;

		/* Bytes that were not in the kernel yet arrive while this
		 * read waits: at the link's rate, when it is the limit. */
		if (need && ioctl(st->cl->sock, FIONREAD, &avail) == 0 &&
		    (size_t)avail < need)
			t0 = monotonic_ns();
		if (guard_fired(st->guard) != GUARD_NONE ||
		    !ReadFromRFBServer(st->cl, p, k))
			return -1;
		if (t0) {
			st->wait_ns += monotonic_ns() - t0;
			st->waited_bytes += need - (size_t)avail;
		}
		st->rx_bytes += k;
		p += k;
		n -= k;
	}
	return 0;
}

/* Large reads for the parsers of messages without a length (hextile,
 * TRLE): what libvncclient holds, then what the socket has, straight into
 * buf (libvncclient would read it 8 KiB at a time into its own buffer
 * first). Through TLS, exactly min from libvncclient and what it then
 * holds. */
static ptrdiff_t src_read_some(struct vnc_source *s, void *buf, size_t min,
			       size_t max)
{
	struct vnc_stream *st = from_src(s);
	rfbClient *cl = st->cl;
	uint8_t *p = buf;
	size_t got = st->ahead_len ? take_ahead(st, p, max) : 0;
	size_t k = cl->buffered < max - got ? cl->buffered : max - got;

	memcpy(p + got, cl->bufoutptr, k);
	cl->bufoutptr += k;
	cl->buffered -= (unsigned)k;
	got += k;
	/* The link meter counts what comes off the connection once (bytes
	 * given back and taken again are not new). */
	st->rx_bytes += k;
	if (got < min && cl->tlsSession) {
		if (src_read(s, p + got, min - got) < 0)
			return -1;
		got = min;
		k = cl->buffered < max - got ? cl->buffered : max - got;
		memcpy(p + got, cl->bufoutptr, k);
		cl->bufoutptr += k;
		cl->buffered -= (unsigned)k;
		st->rx_bytes += k;
		return (ptrdiff_t)(got + k);
	}
	while (got < min) {
		size_t want = max - got < READ_PIECE ? max - got : READ_PIECE;
		ssize_t n;
		int avail = 0;
		uint64_t t0 = 0;

		if (guard_fired(st->guard) != GUARD_NONE)
			return -1;
		/* The link meter times the wait on the socket, as src_read
		 * does: most of a hextile or TRLE update comes this way. */
		if (ioctl(cl->sock, FIONREAD, &avail) == 0 &&
		    (size_t)avail < want)
			t0 = monotonic_ns();
		n = recv(cl->sock, p + got, want, 0);
		if (n > 0) {
			if (t0) {
				st->wait_ns += monotonic_ns() - t0;
				if ((size_t)n > (size_t)avail)
					st->waited_bytes +=
					    (size_t)n - (size_t)avail;
			}
			got += (size_t)n;
			st->rx_bytes += (size_t)n;
		} else if (n == 0) {
			/* As libvncclient says it, for the failure's
			 * message (vnc_failure.c). */
			rfbClientLog("VNC server closed connection\n");
			return -1;
		} else if (errno != EINTR) {
			rfbClientErr("read (%d: %s)\n", errno, strerror(errno));
			return -1;
		}
	}
	return (ptrdiff_t)got;
}

/* p is the end of what src_read_some returned last: n bytes of it are the
 * next message's, and go in front of whatever is still kept. */
static int src_unread(struct vnc_source *s, const void *p, size_t n)
{
	struct vnc_stream *st = from_src(s);

	if (st->ahead_off < n) {
		size_t need = n + st->ahead_len;

		if (need > st->ahead_cap) {
			uint8_t *a = realloc(st->ahead, need);

			if (!a) {
				log_error("out of memory for %zu bytes read "
					  "ahead",
					  need);
				return -1;
			}
			st->ahead = a;
			st->ahead_cap = need;
		}
		memmove(st->ahead + n, st->ahead + st->ahead_off,
			st->ahead_len);
		st->ahead_off = n;
	}
	st->ahead_off -= n;
	st->ahead_len += n;
	memcpy(st->ahead + st->ahead_off, p, n);
	return 0;
}

/* Once the watchdog fired, decoding what was read stops too. */
static bool src_abandoned(const struct vnc_source *s)
{
	return guard_fired(from_src(s)->guard) != GUARD_NONE;
}

/* The bytes libvncclient's reader holds already (it reads the socket
 * or the TLS session 8 KiB at a time), or those given back first:
 * tiles are parsed in place there instead of being copied out first. */
static const uint8_t *src_peek(struct vnc_source *s, size_t *len)
{
	const struct vnc_stream *st = from_src(s);
	const rfbClient *cl = st->cl;

	if (st->ahead_len) {
		*len = st->ahead_len;
		return st->ahead + st->ahead_off;
	}
	*len = cl->buffered;
	return (const uint8_t *)cl->bufoutptr;
}

static void src_consume(struct vnc_source *s, size_t n)
{
	struct vnc_stream *st = from_src(s);
	rfbClient *cl = st->cl;

	if (st->ahead_len) {
		st->ahead_off += n;
		st->ahead_len -= n;
		return;
	}
	cl->bufoutptr += n;
	cl->buffered -= (unsigned)n;
	from_src_rw(s)->rx_bytes += n;
}

static const struct vnc_source_ops src_ops = {
	.read = src_read,
	.abandoned = src_abandoned,
	.peek = src_peek,
	.consume = src_consume,
	.read_some = src_read_some,
	.unread = src_unread,
};

void vnc_stream_init(struct vnc_stream *s, rfbClient *cl, struct guard *guard)
{
	s->base.ops = &src_ops;
	s->cl = cl;
	s->guard = guard;
}

void vnc_stream_free(struct vnc_stream *s)
{
	free(s->ahead);
	s->ahead = NULL;
	s->ahead_off = s->ahead_len = s->ahead_cap = 0;
}

void vnc_stream_push(struct vnc_stream *s, struct vnc_layer *l)
{
	s->layer = l;
}

struct vnc_source *vnc_stream_in(struct vnc_stream *s)
{
	return s->layer ? s->layer->in : &s->base;
}

struct vnc_source *vnc_stream_socket(struct vnc_stream *s)
{
	return &s->base;
}

int vnc_stream_write_socket(struct vnc_stream *s, const void *buf, size_t n)
{
	return WriteToRFBServer(s->cl, (const char *)buf, (unsigned)n) ? 0
									: -1;
}

int vnc_stream_write(struct vnc_stream *s, const void *buf, size_t n)
{
	if (s->layer)
		return s->layer->write(s->layer, buf, n);
	return vnc_stream_write_socket(s, buf, n);
}

size_t vnc_stream_unread(const struct vnc_stream *s)
{
	return s->cl->buffered + s->ahead_len;
}

bool vnc_stream_pending(const struct vnc_stream *s)
{
	const rfbClient *cl = s->cl;

	if (cl->buffered > 0 || s->ahead_len > 0)
		return true;
	if (s->layer && s->layer->pending && s->layer->pending(s->layer))
		return true;
	/* GnuTLS may hold decrypted bytes of a record already read. */
	return cl->tlsSession &&
	       gnutls_record_check_pending((gnutls_session_t)cl->tlsSession) >
		       0;
}
