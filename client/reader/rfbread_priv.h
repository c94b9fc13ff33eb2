/* What the files of the message reader share: struct rfb_reader, the
 * small calls that set its error and read for it, and the calls between
 * rfbread.c (the messages) and rfbcursor.c (the cursor
 * pseudo-encodings). No file outside client/reader/ includes it
 * (rfbread.h is the reader's interface).
 *
 * Threads: the reader's thread, as everything in rfbread.h. */
#ifndef VNCFB_RFBREAD_PRIV_H
#define VNCFB_RFBREAD_PRIV_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "decode/decchunk.h"
#include "decode/decode.h"
#include "decode/manager.h"
#include "shadow/pixconv.h"
#include "util/log.h"
#include "reader/rfbread.h"

struct rfb_reader {
	/* Every message is read through chunks (decchunk.h), over the
	 * owner's source: src is the chunks' source. */
	struct dec_chunks *chunks;
	struct vnc_source *src;
	struct vnc_events ev;
	struct rfb_reader_ops ops;
	void *ops_ctx;
	struct dec_fmt fmt;
	struct dec_fmt rgba; /* CursorWithAlpha's pixels */
	/* A wire format other than the shadow's (auto-select's low
	 * colour): rectangles are decoded into mirror, the desktop in
	 * wfmt, and each is converted into the shadow as it is done
	 * (job_done, on whichever thread decoded it: the pool orders
	 * overlapping jobs, so no other writes that part of mirror
	 * meanwhile). Changed only with the pool idle. */
	bool wired;
	struct dec_fmt wfmt;
	struct pixconv from_wire, to_wire;
	uint8_t *shadow, *mirror;
	struct dec_ctx dc;  /* the main thread's: reads, direct encodings */
	struct dec_job job; /* the cursors' */
	/* Jobs, their order and the pool (inline until
	 * rfb_reader_set_threads). */
	struct dec_manager *dm;
	bool copies_direct; /* rfb_reader_set_copies_direct */
	/* The update being read held a desktop size, pixels. */
	bool upd_sized, upd_pixels;
	uint64_t payload; /* bytes of rectangles after their headers */
	/* ContinuousUpdates and Fence, main thread: the server has them
	 * (cu_known, fence_known), they are on, the session paused them,
	 * EndOfContinuousUpdates owed for disables we sent. */
	bool cu_known, cu_on, paused, fence_known;
	unsigned cu_owed;
	bool warned_flags, warned_end;
	uint32_t width, height;
	struct vnc_layout layout; /* the last ExtendedDesktopSize's */
	bool named;
	char name[LOG_TEXT_SIZE]; /* made visible (log_sanitize) */
	enum vnc_error err;
	char why[320];
};

__attribute__((format(printf, 3, 4))) static inline int
fail(struct rfb_reader *r, enum vnc_error err, const char *fmt, ...)
{
	va_list ap;

	r->err = err;
	va_start(ap, fmt);
	vsnprintf(r->why, sizeof(r->why), fmt, ap);
	va_end(ap);
	return -1;
}

static inline int closed(struct rfb_reader *r)
{
	r->err = VNC_ERR_CLOSED;
	r->why[0] = '\0';
	return -1;
}

static inline int rd(struct rfb_reader *r, void *buf, size_t n)
{
	return vnc_source_read(r->src, buf, n) < 0 ? closed(r) : 0;
}

/* What a rectangle's failure means for the connection: -1. */
static inline int rect_failed(struct rfb_reader *r, int ret, const char *why)
{
	if (ret == DEC_EOF)
		return closed(r);
	return fail(r, ret == DEC_NOMEM ? VNC_ERR_RESOURCE : VNC_ERR_PROTOCOL,
		    "%s", why);
}

/* The manager's call returned ret: 0, or -1 with the failure set. */
static inline int managed(struct rfb_reader *r, int ret)
{
	return ret < 0 ? rect_failed(r, ret, dec_manager_why(r->dm)) : 0;
}

/* Every rectangle read is decoded and reported: 0 or -1. */
static inline int drain(struct rfb_reader *r)
{
	return managed(r, dec_manager_drain(r->dm));
}

__attribute__((format(printf, 3, 4))) static inline int
bad_rect(struct rfb_reader *r, const struct dec_hdr *h, const char *fmt, ...)
{
	char detail[220];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	dec_rect_why(r->why, sizeof(r->why), h, DEC_BAD, detail);
	r->err = VNC_ERR_PROTOCOL;
	return -1;
}

/* rfbcursor.c: XCursor or RichCursor (h->enc), h's rectangle the shape
 * and its hot spot, checked before it is read, handed to the session's
 * cursor_shape cut around the hot spot when too large to show: 0, or -1
 * with the reader's error set. */
int rfb_cursor_shape(struct rfb_reader *r, const struct dec_hdr *h);
/* rfbcursor.c: CursorWithAlpha, its pixels in a sub-encoding decoded by
 * that encoding's decoder once what was read before is drawn (they may
 * share its zlib stream); as rfb_cursor_shape. */
int rfb_cursor_alpha(struct rfb_reader *r, const struct dec_hdr *h);

#endif
