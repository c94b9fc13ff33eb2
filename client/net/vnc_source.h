/* The connection's bytes both ways under vncfb's reader: struct
 * vnc_stream reads the server's bytes through libvncclient's buffered
 * reader (so TLS keeps working) as the struct vnc_source the reader
 * reads (wire/vncsrc.h), keeps what a parser gives back (unread), counts
 * what comes off the connection for the link meter (pace.h), and is the
 * one way vncfb's messages go out (vnc_stream_write; vnc_send.c).
 *
 * A layer between the socket and the reader (a security type's framing
 * that begins after ServerInit) is a struct vnc_layer put in with
 * vnc_stream_push. (RSA-AES's frames begin with the SecurityResult,
 * which libvncclient reads itself, so they live below libvncclient
 * instead: vnc_rsaaes.c.)
 *   - its source (layer->in) reads the connection's bytes from
 *     vnc_stream_socket() with the vnc_source_* calls and hands the
 *     reader the plain ones; the reader reads vnc_stream_in() from then
 *     on, which is layer->in;
 *   - its write frames what vnc_stream_write is given and writes the
 *     framed bytes with vnc_stream_write_socket;
 *   - its pending says whether it holds plain bytes not read yet (which
 *     poll() cannot see: vnc_pending).
 * The link meter counts the bytes on the wire, below any layer.
 *
 * Threads: the thread that reads messages (main), except the source's
 * abandoned (any thread: the decode pool's workers). */
#ifndef VNCFB_VNC_SOURCE_H
#define VNCFB_VNC_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "wire/vncsrc.h"

struct _rfbClient;
struct guard;

struct vnc_layer {
	struct vnc_source *in;	/* what the reader reads through it */
	/* n bytes out through the layer: 0, or -1 when the write failed. */
	int (*write)(struct vnc_layer *l, const void *buf, size_t n);
	/* Optional: plain bytes held that the reader has not taken. */
	bool (*pending)(const struct vnc_layer *l);
};

struct vnc_stream {
	struct vnc_source base;	/* the connection's bytes */
	struct _rfbClient *cl;
	struct guard *guard;	/* given up once it fired */
	struct vnc_layer *layer; /* NULL: none */
	/* Bytes a parser read past a message and gave back (unread):
	 * ahead_len of them from ahead_off on. */
	uint8_t *ahead;
	size_t ahead_off, ahead_len, ahead_cap;
	/* The link meter's: bytes off the connection, time spent waiting
	 * on the socket and the bytes that arrived while it waited. */
	uint64_t rx_bytes, wait_ns, waited_bytes;
};

/* s over cl's connection, its reads stopped once guard fired. */
void vnc_stream_init(struct vnc_stream *s, struct _rfbClient *cl,
		     struct guard *guard);
/* What init and the reads allocated (not the layer: its owner's). */
void vnc_stream_free(struct vnc_stream *s);
/* l goes between the socket and the reader, and under the writes. */
void vnc_stream_push(struct vnc_stream *s, struct vnc_layer *l);
/* What the reader reads: the layer's source, or the socket's. */
struct vnc_source *vnc_stream_in(struct vnc_stream *s);
/* The connection's bytes, under any layer. */
struct vnc_source *vnc_stream_socket(struct vnc_stream *s);
/* n bytes out, through the layer if there is one: 0 or -1 (the caller
 * holds a write deadline, vnc_begin_timed). */
int vnc_stream_write(struct vnc_stream *s, const void *buf, size_t n);
/* n bytes straight onto the connection (a layer's framed bytes). */
int vnc_stream_write_socket(struct vnc_stream *s, const void *buf,
			    size_t n);
/* Bytes read from the connection and not yet taken by the reader
 * (libvncclient's buffer and those given back). */
size_t vnc_stream_unread(const struct vnc_stream *s);
/* Bytes of a message are at hand without the socket: unread ones, TLS's
 * or the layer's. */
bool vnc_stream_pending(const struct vnc_stream *s);

#endif
