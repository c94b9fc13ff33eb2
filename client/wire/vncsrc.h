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

/* A source over a buffer: what a test or fuzzer feeds the reader. Reads
 * past the end fail, as a closed connection does. */
struct vnc_mem_source {
	struct vnc_source base;
	const uint8_t *p;
	size_t left;
	size_t consumed; /* bytes read so far */
	/* At most this many bytes offered to parse in place (peek), as
	 * libvncclient's 8 KiB buffer offers; 0: all that is left. */
	size_t window;
};

void vnc_mem_source_init(struct vnc_mem_source *m, const void *data,
			 size_t len);

#endif
