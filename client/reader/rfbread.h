/* vncfb's reader of RFB server messages after ServerInit: every message
 * and pseudo-encoding vncfb's SetEncodings can make a server send,
 * checked before anything is allocated or read, decoded by decode.h into
 * the shadow, reported through struct vnc_events. It reads from a
 * vnc_source (libvncclient's byte reader in vncfb, memory in tests and
 * fuzzers) and knows nothing of rfbClient.
 *
 * ContinuousUpdates and Fence (the community extensions): once the
 * server shows it has continuous updates (its first EndOfContinuousUpdates)
 * the reader enables them for the whole desktop and stops asking for
 * updates; it answers every fence the server asks for, once the updates
 * before it are decoded when the fence says BlockBefore.
 *
 * Threads: one thread (the one that owns the source) calls everything;
 * the events run on it. With rfb_reader_set_threads, decoding threads
 * (decpool.h) write the shadow between the calls' reads. A call that
 * returns after a FramebufferUpdate has waited for them unless ops.more
 * says the next message is at hand: then the pool keeps decoding while
 * the next update is read, and what is decoded is reported between
 * rectangles and messages (damage once the pixels are written, update_done
 * once an update is whole, in order). A resize, a BlockBefore fence and
 * rfb_reader_flush wait for everything. */
#ifndef VNCFB_RFBREAD_H
#define VNCFB_RFBREAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "shadow/pixfmt.h"
#include "wire/events.h"
#include "wire/vncsrc.h"

/* What the reader asks of the connection that owns it. */
struct rfb_reader_ops {
	/* Send a FramebufferUpdateRequest for the whole w x h desktop: 0
	 * or -1 (the owner knows why). */
	int (*request)(void *ctx, bool incremental, uint32_t w, uint32_t h);
	/* Optional: the server takes QEMU extended key events. */
	void (*qemu_keys)(void *ctx);
	/* Optional: bytes of the next message are at hand (buffered, or
	 * the socket readable), so decoding may go on while it is read.
	 * NULL: every update is decoded whole before the call returns. */
	bool (*more)(void *ctx);
	/* Optional, both or neither (the Fence and ContinuousUpdates
	 * pseudo-encodings were offered): write a ClientFence, an
	 * EnableContinuousUpdates for the w x h desktop. 0 or -1. Without
	 * them such messages from the server are refused. */
	int (*fence)(void *ctx, uint32_t flags, const uint8_t *payload,
		     unsigned len);
	int (*continuous)(void *ctx, bool enable, uint32_t w, uint32_t h);
	/* Optional: the server answered a fence of ours (Request clear);
	 * it may call rfb_reader_set_wire. 0, or -1 to end the connection
	 * (with rfb_reader_error set). */
	int (*fence_answer)(void *ctx, uint32_t flags, const uint8_t *payload,
			    unsigned len);
	/* Optional: an update's header was read, its last byte was read
	 * (decoding may still go on): what a link meter times. answers:
	 * not a desktop size alone (libvncserver sends the one its first
	 * request calls for as an update of its own, and the picture for
	 * that request in the next). */
	void (*update_begin)(void *ctx);
	void (*update_end)(void *ctx, bool answers);
	/* Optional: the server confirmed ExtendedMouseButtons (it reads
	 * the extended PointerEvent from now on). */
	void (*ext_mouse)(void *ctx);
};

struct rfb_reader;

/* fmt: the shadow's (and, to start with, the wire's) pixel format; ev: the
 * session's events (resize and damage required). NULL when out of memory. */
struct rfb_reader *rfb_reader_create(const struct pixfmt *fmt,
				     struct vnc_source *src,
				     const struct vnc_events *ev,
				     const struct rfb_reader_ops *ops,
				     void *ops_ctx);
void rfb_reader_destroy(struct rfb_reader *r);
/* Decode on threads workers (decpool_config.threads: 0 or 1 on the
 * calling thread, the default). Between messages only. 0, or -errno
 * with the reader decoding as before. */
int rfb_reader_set_threads(struct rfb_reader *r, unsigned threads);
/* Copy-bound rectangles (decoder.copy_bound) drawn by this thread as
 * they are read rather than by the pool (decpool_copies_direct); off by
 * default. */
void rfb_reader_set_copies_direct(struct rfb_reader *r, bool direct);
/* Decoding threads running (0: inline). */
unsigned rfb_reader_threads(const struct rfb_reader *r);
/* CPU time of the decoding workers so far, ns (0 without workers). */
uint64_t rfb_reader_cpu_ns(const struct rfb_reader *r);
/* Bytes of data buffers kept for the next rectangles' jobs (tests). */
size_t rfb_reader_kept(struct rfb_reader *r);

/* The desktop ServerInit announced: checked, then ev->resize. 0 or -1
 * (rfb_reader_error). */
int rfb_reader_start(struct rfb_reader *r, uint32_t w, uint32_t h);
/* Read one server message and act on it. 0 or -1 (rfb_reader_error). */
int rfb_reader_message(struct rfb_reader *r);

/* Everything read is decoded and reported: 0 or -1 (rfb_reader_error). */
int rfb_reader_flush(struct rfb_reader *r);

/* Rectangles from the next one on come in wire (a true-colour format
 * of 1, 2 or 4 bytes a pixel: auto-select's low colour), decoded into a
 * desktop of their own and converted into the shadow's format as each is
 * done; wire NULL or the shadow's format: straight into the shadow again.
 * Waits for everything read to be decoded first. Between messages or
 * from ops.fence_answer (the server's answer to the fence sent before
 * SetPixelFormat marks where its format changes). 0 or -1
 * (rfb_reader_error). */
int rfb_reader_set_wire(struct rfb_reader *r, const struct pixfmt *wire);

/* While paused (a VT switched away) no updates are asked for and
 * continuous updates are off; resuming asks for the whole desktop and
 * turns them back on. 0 or -1 (a write failed: VNC_ERR_CLOSED). */
int rfb_reader_pause(struct rfb_reader *r, bool pause);
/* Continuous updates are on (the server pushes, requests are ignored). */
bool rfb_reader_continuous(const struct rfb_reader *r);
/* The one place that knows whether updates come because they are asked
 * for: not while continuous updates are on, nor while paused (then the
 * reader asks for none, and the owner's pacing stands still). */
bool rfb_reader_asks(const struct rfb_reader *r);
/* rfb_reader_pause's state. */
bool rfb_reader_paused(const struct rfb_reader *r);
/* The server has shown it knows fences (it sent one). */
bool rfb_reader_fences(const struct rfb_reader *r);
/* Bytes of rectangle payload read so far: each rectangle's (and
 * pseudo-rectangle's) bytes after its 12-byte header; update headers,
 * LastRect and other messages are not payload. */
uint64_t rfb_reader_payload_bytes(const struct rfb_reader *r);

/* Why the last call failed: VNC_ERR_CLOSED when the source failed (*why
 * is then "", the source's owner explains), else a phrase to follow the
 * server's name ("sent a bad Tight rectangle 16x16 at 0,0: filter 7"),
 * or "" when the session's resize hook already logged it. */
enum vnc_error rfb_reader_error(const struct rfb_reader *r, const char **why);

uint32_t rfb_reader_width(const struct rfb_reader *r);
uint32_t rfb_reader_height(const struct rfb_reader *r);
/* The DesktopName pseudo-encoding's name as log_sanitize shows it, or
 * NULL if none came. */
const char *rfb_reader_name(const struct rfb_reader *r);

/* The checks on a desktop size (ServerInit, DesktopSize): 0, or the
 * vnc_error with a phrase in why. */
enum vnc_error rfb_check_desktop(uint32_t w, uint32_t h, unsigned bpp,
				 char *why, size_t len);

#endif
