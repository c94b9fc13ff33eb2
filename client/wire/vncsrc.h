/* Where the message reader gets the server's bytes: client/net/vnc.c reads
 * them through libvncclient (so TLS keeps working), tests and fuzzers
 * from memory.
 *
 * Threads: a source belongs to the thread that reads messages (the main
 * thread in vncfb). */
#ifndef VNCFB_VNCSRC_H
#define VNCFB_VNCSRC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct vnc_source;

struct vnc_source_ops {
	/* Exactly n bytes into buf (n may be 0): 0, or -1 when the stream
	 * ended or failed; the source's owner knows why. May block; the
	 * owner bounds how long (client/net/guard.h). */
	int (*read)(struct vnc_source *s, void *buf, size_t n);
	/* Optional: true once the owner has given the connection up (a
	 * deadline, a quit signal, --exit-after), so that work on bytes
	 * already read stops too. Any thread; cheap (an atomic load). */
	bool (*abandoned)(const struct vnc_source *s);
	/* Optional: the bytes the source holds already, to be parsed in
	 * place (no I/O, no copy): *len of them at the pointer returned
	 * (NULL or 0: none), valid until the next call on the source.
	 * consume(n) takes the first n of them, as a read would. */
	const uint8_t *(*peek)(struct vnc_source *s, size_t *len);
	void (*consume)(struct vnc_source *s, size_t n);
	/* Optional, with unread: at least min and at most max bytes into
	 * buf (as many as have arrived, waiting only for the first min),
	 * their number, or -1 as read fails. What a parser took past the
	 * end of its message goes back with unread: the last n bytes that
	 * read_some returned, at p, are the source's again (its next read
	 * returns them first): 0, or -1 out of memory (the connection is
	 * then lost). Without these, vnc_source_read_some reads exactly min
	 * bytes. */
	ptrdiff_t (*read_some)(struct vnc_source *s, void *buf, size_t min,
			       size_t max);
	int (*unread)(struct vnc_source *s, const void *p, size_t n);
};

struct vnc_source {
	const struct vnc_source_ops *ops;
};

static inline int vnc_source_read(struct vnc_source *s, void *buf, size_t n)
{
	return s->ops->read(s, buf, n);
}

static inline bool vnc_source_abandoned(const struct vnc_source *s)
{
	return s->ops->abandoned && s->ops->abandoned(s);
}

static inline const uint8_t *vnc_source_peek(struct vnc_source *s,
					     size_t *len)
{
	*len = 0;
	return s->ops->peek ? s->ops->peek(s, len) : NULL;
}

static inline void vnc_source_consume(struct vnc_source *s, size_t n)
{
	if (n)
		s->ops->consume(s, n);
}

static inline ptrdiff_t vnc_source_read_some(struct vnc_source *s, void *buf,
					     size_t min, size_t max)
{
	if (s->ops->read_some && s->ops->unread)
		return s->ops->read_some(s, buf, min, max);
	return s->ops->read(s, buf, min) < 0 ? -1 : (ptrdiff_t)min;
}

/* Only bytes read_some returned past min, and only while nothing else
 * was read since. */
static inline int vnc_source_unread(struct vnc_source *s, const void *p,
				    size_t n)
{
	return n ? s->ops->unread(s, p, n) : 0;
}

/* A source over a buffer: what a test or fuzzer feeds the reader. Reads
 * past the end fail, as a closed connection does. */
struct vnc_mem_source {
	struct vnc_source base;
	const uint8_t *p;
	size_t left;
	size_t consumed; /* bytes read so far */
	/* At most this many bytes offered to parse in place (peek), as
	 * libvncclient's 8 KiB buffer offers; 0: all that is left. The
	 * same bound on what read_some returns past min (a socket's
	 * arrivals). */
	size_t window;
};

void vnc_mem_source_init(struct vnc_mem_source *m, const void *data,
			 size_t len);

#endif
