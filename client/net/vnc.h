/* The VNC session: the only part of vncfb that sees libvncclient, which
 * connects, negotiates, authenticates, does TLS and writes client
 * messages; after ServerInit vncfb reads the server's messages itself
 * (rfbread.h) through libvncclient's byte reader.
 *
 * Threads: everything here is main-thread only. libvncclient is not
 * thread-safe for one connection (receiving and sending share state, and
 * TLS breaks when two threads use it), so input is sent from the same loop
 * that receives. A watchdog thread per connection (guard.h) only shuts
 * the socket down. */
#ifndef VNCFB_VNC_H
#define VNCFB_VNC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "net/trust.h"
#include "shadow/pixfmt.h"
#include "util/rect.h"
#include "wire/events.h"

struct vnc_client;

/* A reader of the server's messages other than vncfb's, for vncfb
 * bench's reference loop (client/tools/bench/bench_libvnc.c, where
 * libvncclient decodes with its own decoders). The hooks see the
 * wrapper's struct vnc_client through net/vnc_priv.h; main thread. */
struct vnc_reference {
	/* Before the handshake: install the library's callbacks. */
	void (*setup)(struct vnc_client *vc);
	/* After ServerInit: the desktop buffer. 0, or -1 (logged, or left
	 * to the failure's classification). */
	int (*start)(struct vnc_client *vc);
	/* Read and decode one server message: whether it went well. */
	bool (*message)(struct vnc_client *vc);
};

struct vnc_config {
	const char *host;	/* name or address (no brackets) */
	int port;		/* TCP port */
	const char *encodings;	/* space/comma separated, NULL: default */
	int quality;		/* 0-9 enables JPEG; -1 lossless only */
	/* The user chose neither encodings nor quality: quality follows
	 * the measured link (pace.h, doc/network.md). */
	bool auto_select;
	bool full_colour; /* -FullColor: auto-select never goes to 8-bit */
	/* Under auto-select: the server closed a connection that offered
	 * no JPEG quality level (vnc_wants_jpeg), as PiKVM's kvmd does.
	 * This one offers JPEG quality VNC_JPEG_NEEDED_Q and Open H.264
	 * from the start, and auto-select moves among JPEG qualities. */
	bool jpeg_needed;
	int compress;		/* 0-9, -1 default */
	bool view_only;
	bool local_cursor;	/* ask for cursor shapes */
	struct pixfmt fmt;	/* shadow (and wire) pixel format */
	int connect_timeout_ms;	/* 0: 15 s */
	/* A message (or a write) not finished this long after it began
	 * ends the connection; the handshake gets the longer of this and
	 * 15 s, from the start of the TCP connect. 0: 30 s. */
	int read_timeout_s;
	/* Readable once the session must end (a quit signal): whatever the
	 * connection is doing is abandoned within a few ms. It is polled,
	 * never read. 0 or negative: none. */
	int abort_fd;
	/* Monotonic time (ns) at which the session ends (--exit-after),
	 * enforced the same way; 0: none. */
	uint64_t end_ns;
	/* Threads decoding rectangles (rfb_reader_set_threads): 0 or 1
	 * decode on the main thread. */
	unsigned decode_threads;
	/* Copy-bound rectangles drawn on the main thread as they are read
	 * (rfb_reader_set_copies_direct). */
	bool copies_direct;
	/* Optional (vncfb bench's reference loop): another reader of the
	 * server's messages in place of vncfb's. */
	const struct vnc_reference *reference;
	/* TLS (VeNCrypt): CA certificates (PEM) that must have signed the
	 * server's certificate. Set: only verified X509 TLS is accepted.
	 * NULL: TLS is used when the server insists, X509 verified against
	 * the system's CAs. insecure: no certificate verification; any X509
	 * certificate is accepted (the check still runs, and a failure is a
	 * warning naming it and the certificate's SHA-256 fingerprint), and
	 * so is anonymous TLS, which cannot prove who the server is. */
	const char *ca_file;
	bool insecure;
	/* Keys and certificates no CA vouches for (trust.h); its insecure
	 * is the one above. */
	struct trust_opts trust;
	/* --security: TigerVNC's SecurityTypes names, in the order to
	 * prefer them (sectype.h); NULL: vncfb's default order. */
	const char *security;
	/* The user name for the types that take one; NULL: $VNC_USERNAME,
	 * else asked on the terminal (trust.ask says whether there is
	 * one). */
	const char *username;
	/* Called when the server asks for a password (any type); returns a
	 * malloc'd string (wiped and freed by the caller) or NULL. */
	char *(*get_password)(void *ctx);
	void *password_ctx;
	/* Optional (vncfb bench --record): called with the connected TCP
	 * socket before the handshake; returns the fd to speak RFB over
	 * instead, or -1 (logged). It owns fd from the call on. */
	int (*wrap_fd)(void *ctx, int fd);
	void *wrap_ctx;
};


/* Connect and complete the handshake. On failure returns NULL, logs one
 * line naming the problem and sets *err. */
struct vnc_client *vnc_connect(const struct vnc_config *cfg,
			       const struct vnc_events *ev,
			       enum vnc_error *err);
/* The same over an already connected stream socket (a proxy, a test's
 * socketpair); fd is owned by the client from here on, even on failure. */
struct vnc_client *vnc_connect_fd(const struct vnc_config *cfg,
				  const struct vnc_events *ev, int fd,
				  enum vnc_error *err);
void vnc_destroy(struct vnc_client *vc);
/* The quality a connection with jpeg_needed starts at, and auto-select's
 * highest there (TigerVNC's default). */
#define VNC_JPEG_NEEDED_Q 8
/* After vnc_dispatch failed: the server closed the connection right
 * after the handshake, before a message of its own, and auto-select
 * offered it no JPEG quality level: the next connection should set
 * jpeg_needed (the line logged said so). */
bool vnc_wants_jpeg(const struct vnc_client *vc);

int vnc_fd(const struct vnc_client *vc);
/* Process what is readable (and whatever libvncclient or TLS already
 * buffered), for a few tens of ms at most. 0, or -1 with *err set and the
 * reason logged. */
int vnc_dispatch(struct vnc_client *vc, enum vnc_error *err);
/* Bytes wait inside libvncclient or TLS that poll() on vnc_fd cannot
 * see: call vnc_dispatch again without waiting. */
bool vnc_pending(const struct vnc_client *vc);
/* For a poll() loop with vnc_fd in its set. Before poll(): the timeout to
 * wait, 0 when bytes wait that poll() cannot see (vnc_pending). After:
 * whether vnc_dispatch has something to read, by the fd's revents or by
 * those bytes. */
int vnc_poll_timeout(const struct vnc_client *vc, int timeout_ms);
bool vnc_poll_ready(const struct vnc_client *vc, short revents);

uint32_t vnc_width(const struct vnc_client *vc);
uint32_t vnc_height(const struct vnc_client *vc);
/* The desktop name the server gave, as log_sanitize shows it. */
const char *vnc_desktop_name(const struct vnc_client *vc);

/* Input towards the server; no-ops in view-only mode. 0 or -1. */
int vnc_send_key(struct vnc_client *vc, uint32_t keysym, uint32_t scancode,
		 bool down);
int vnc_send_pointer(struct vnc_client *vc, int x, int y, uint32_t buttons);
/* Ask for one pixel, non-incrementally: a liveness probe that any
 * working server answers. 0, or -1 with *err set as vnc_tick's. */
int vnc_ping(struct vnc_client *vc, enum vnc_error *err);
/* SetDesktopSize: ask for a w x h desktop laid out as the n screens of
 * s (only once the server has sent an ExtendedDesktopSize rectangle;
 * the answer is another, through the layout event). 0 or -1. */
int vnc_set_desktop_size(struct vnc_client *vc, uint32_t w, uint32_t h,
			 const struct vnc_screen *s, unsigned n);

/* Whether the connection is encrypted (VeNCrypt/TLS). */
bool vnc_encrypted(const struct vnc_client *vc);

/* --- For the tools (client/tools/): what vncfb bench and --record
 * measure and tap; the rest of vncfb has no use for them. Also
 * vnc_config's wrap_fd and reference. --- */

/* For vncfb bench: monotonic time (ns, as monotonic_ns()) at which the
 * socket was seen readable for the message being (or last) decoded: the
 * arrival of an update's first byte, to poll()'s resolution. Valid inside
 * update_done. */
uint64_t vnc_update_rx_ns(const struct vnc_client *vc);
/* For vncfb bench: bytes of rectangle payload (rfb_reader_payload_bytes)
 * read so far on this connection; 0 in the libvncclient reference
 * mode. */
uint64_t vnc_payload_bytes(const struct vnc_client *vc);
/* For vncfb bench: bytes of server messages read so far (after the
 * handshake), payload and headers alike; 0 in the reference mode. */
uint64_t vnc_rx_bytes(const struct vnc_client *vc);
/* For vncfb bench: CPU time (ns) the decoding workers of this connection
 * have used so far; 0 when it decodes on the main thread alone. */
uint64_t vnc_decode_cpu_ns(const struct vnc_client *vc);
/* Timers of the connection (requests spread over the round trip): call
 * after every poll(); vnc_poll_timeout includes their deadline. 0, or -1
 * when a write failed, with *err set: VNC_ERR_INTERRUPTED (not logged)
 * when a quit signal or --exit-after shut the socket under it, else
 * logged. */
int vnc_tick(struct vnc_client *vc, enum vnc_error *err);
/* The output is away (a VT switch): no updates while paused; resuming
 * asks for the whole desktop. 0 or -1. */
int vnc_pause(struct vnc_client *vc, bool pause);
/* For vncfb bench --record: fn(ctx) is called after each server message
 * vnc_dispatch has handled (never during the handshake); vnc_unread()
 * then counts the bytes read from the socket but not yet consumed, so
 * that a tap on the socket knows where that message ended. */
void vnc_set_message_hook(struct vnc_client *vc, void (*fn)(void *ctx),
			  void *ctx);
size_t vnc_unread(const struct vnc_client *vc);

#endif
