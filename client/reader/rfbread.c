/* The RFB server message reader (rfbread.h): messages parsed here,
 * rectangles handed to the decode manager (decode/manager.h), cursor
 * shapes to rfbcursor.c. */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shadow/pixconv.h"
#include "decode/decchunk.h"
#include "decode/decode.h"
#include "decode/manager.h"
#include "util/guardmem.h"
#include "util/log.h"
#include "wire/rfb.h"
#include "reader/rfbread_priv.h"
#include "reader/rfbread.h"

/* Read and drop n bytes. */
static int skip(struct rfb_reader *r, uint64_t n)
{
	uint8_t sink[4096];

	while (n > 0) {
		size_t k = n < sizeof(sink) ? (size_t)n : sizeof(sink);

		if (rd(r, sink, k) < 0)
			return -1;
		n -= k;
	}
	return 0;
}

/* --- what the decode manager hands back --- */

/* What the pool decoded so far, without waiting; 0 or -1. */
static int report_ready(struct rfb_reader *r)
{
	return managed(r, dec_manager_report_ready(r->dm));
}

/* Rows of rc (clipped to the desktop) from the mirror in the wire's
 * format into the shadow, or back (to_mirror). */
static void wire_copy(struct rfb_reader *r, const struct rect *rc,
		      bool to_mirror)
{
	const size_t sb = r->fmt.bpp, wb = r->wfmt.bpp;
	struct rect d = *rc;

	if (!rect_clip(&d, (int32_t)r->width, (int32_t)r->height))
		return;
	for (int32_t y = d.y; y < d.y + d.h; y++) {
		size_t at = (size_t)y * r->width + (size_t)d.x;

		if (to_mirror)
			pixconv_row(&r->to_wire, r->mirror + at * wb,
				    r->shadow + at * sb, (size_t)d.w);
		else
			pixconv_row(&r->from_wire, r->shadow + at * sb,
				    r->mirror + at * wb, (size_t)d.w);
	}
}

/* A rectangle's pixels are in the shadow, or in the mirror (any
 * thread). */
static void rect_drawn(void *ctx, const struct rect *rc)
{
	struct rfb_reader *r = ctx;

	if (r->wired)
		wire_copy(r, rc, false);
}

/* The manager's damage and whole updates, on this (the main) thread,
 * to the session. */
static void rect_damage(void *ctx, const struct rect *rc)
{
	struct rfb_reader *r = ctx;
	struct rect d = *rc;

	if (rect_clip(&d, (int32_t)r->width, (int32_t)r->height))
		r->ev.damage(r->ev.ctx, &d);
}

static void update_done(void *ctx)
{
	struct rfb_reader *r = ctx;

	r->ev.update_done(r->ev.ctx);
}

static const struct dec_manager_ops manager_ops = {
	.drawn = rect_drawn,
	.damage = rect_damage,
	.update_done = update_done,
};

int rfb_reader_flush(struct rfb_reader *r)
{
	return drain(r);
}

size_t rfb_reader_kept(struct rfb_reader *r)
{
	return dec_manager_kept(r->dm);
}

enum vnc_error rfb_check_desktop(uint32_t w, uint32_t h, unsigned bpp,
				 char *why, size_t len)
{
	uint64_t bytes = (uint64_t)w * h * bpp;

	if (w == 0 || h == 0) {
		snprintf(why, len, "announced an empty %ux%u desktop", w, h);
		return VNC_ERR_PROTOCOL;
	}
	if (w > RFB_MAX_DIM || h > RFB_MAX_DIM) {
		snprintf(
		    why, len,
		    "announced a %ux%u desktop, larger than vncfb supports "
		    "(%dx%d)",
		    w, h, RFB_MAX_DIM, RFB_MAX_DIM);
		return VNC_ERR_RESOURCE;
	}
	if (bytes > RFB_MAX_FB_BYTES) {
		snprintf(why, len,
			 "announced a %ux%u desktop, which needs %llu MiB, "
			 "more than the %llu MiB limit",
			 w, h, (unsigned long long)(bytes >> 20),
			 (unsigned long long)(RFB_MAX_FB_BYTES >> 20));
		return VNC_ERR_RESOURCE;
	}
	return VNC_OK;
}

/* The mirror for the wire's format at the desktop's size, holding the
 * shadow's picture (what CopyRect may read before the server has sent
 * it all again), and the decoders aimed at it. 0 or -1. */
static int mirror_make(struct rfb_reader *r)
{
	size_t n = (size_t)r->width * r->height;
	uint8_t *m = guard_realloc(r->mirror, n * r->wfmt.bpp);

	if (!m)
		return fail(r, VNC_ERR_RESOURCE,
			    "ran vncfb out of memory for a %ux%u desktop in "
			    "the wire's pixel format",
			    r->width, r->height);
	r->mirror = m;
	wire_copy(r,
		  &(struct rect){0, 0, (int32_t)r->width, (int32_t)r->height},
		  true);
	r->dc.fb = (struct dec_fb){m, (size_t)r->width * r->wfmt.bpp, r->width,
				   r->height, &r->wfmt};
	return 0;
}

int rfb_reader_set_wire(struct rfb_reader *r, const struct pixfmt *wire)
{
	bool wired = wire && !pixfmt_equal(wire, &r->fmt.pf);

	/* Nothing may still write in the old format. */
	if (drain(r) < 0)
		return -1;
	if (!wired) {
		r->wired = false;
		guard_free(r->mirror);
		r->mirror = NULL;
		r->dc.fb =
		    (struct dec_fb){r->shadow, (size_t)r->width * r->fmt.bpp,
				    r->width, r->height, &r->fmt};
		return 0;
	}
	dec_fmt_init(&r->wfmt, wire);
	pixconv_init(&r->from_wire, &r->fmt.pf, wire);
	pixconv_init(&r->to_wire, wire, &r->fmt.pf);
	r->wired = true;
	if (r->shadow && mirror_make(r) < 0) {
		r->wired = false;
		return -1;
	}
	return 0;
}

static int set_desktop(struct rfb_reader *r, uint32_t w, uint32_t h)
{
	enum vnc_error e =
	    rfb_check_desktop(w, h, r->fmt.bpp, r->why, sizeof(r->why));
	uint8_t *pix;

	if (e != VNC_OK) {
		r->err = e;
		return -1;
	}
	/* Nothing may still write the old shadow. */
	if (drain(r) < 0)
		return -1;
	pix = r->ev.resize(r->ev.ctx, w, h);
	if (!pix) {
		/* The session said why. */
		r->err = VNC_ERR_RESOURCE;
		r->why[0] = '\0';
		return -1;
	}
	r->width = w;
	r->height = h;
	r->shadow = pix;
	r->dc.fb.pix = pix;
	r->dc.fb.stride = (size_t)w * r->fmt.bpp;
	r->dc.fb.width = w;
	r->dc.fb.height = h;
	return r->wired ? mirror_make(r) : 0;
}

struct rfb_reader *rfb_reader_create(const struct pixfmt *fmt,
				     struct vnc_source *src,
				     const struct vnc_events *ev,
				     const struct rfb_reader_ops *ops,
				     void *ops_ctx)
{
	struct rfb_reader *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	if (dec_chunks_create(src, &r->chunks) < 0)
		goto fail_chunks;
	r->src = dec_chunks_source(r->chunks);
	r->ev = *ev;
	r->ops = *ops;
	r->ops_ctx = ops_ctx;
	dec_fmt_init(&r->fmt, fmt);
	dec_fmt_init_rgba(&r->rgba);
	dec_ctx_init(&r->dc, r->src, &r->fmt);
	r->dc.chunks = r->chunks;
	if (dec_manager_create(&r->dc, r->chunks, &manager_ops, r, &r->dm) < 0)
		goto fail_manager;
	return r;

fail_manager:
	dec_chunks_destroy(r->chunks);
fail_chunks:
	free(r);
	return NULL;
}

int rfb_reader_set_threads(struct rfb_reader *r, unsigned threads)
{
	return dec_manager_set_threads(r->dm, threads);
}

void rfb_reader_set_copies_direct(struct rfb_reader *r, bool direct)
{
	r->copies_direct = direct;
}

unsigned rfb_reader_threads(const struct rfb_reader *r)
{
	return dec_manager_threads(r->dm);
}

uint64_t rfb_reader_cpu_ns(const struct rfb_reader *r)
{
	return dec_manager_cpu_ns(r->dm);
}

void rfb_reader_destroy(struct rfb_reader *r)
{
	if (!r)
		return;
	dec_manager_destroy(r->dm);
	dec_ctx_finish(&r->dc);
	dec_job_unref(&r->job);
	dec_buf_free(&r->job.data);
	guard_free(r->mirror);
	/* No job holds a chunk now. */
	dec_chunks_destroy(r->chunks);
	free(r);
}

int rfb_reader_start(struct rfb_reader *r, uint32_t w, uint32_t h)
{
	return set_desktop(r, w, h);
}

enum vnc_error rfb_reader_error(const struct rfb_reader *r, const char **why)
{
	*why = r->why;
	return r->err;
}

uint32_t rfb_reader_width(const struct rfb_reader *r)
{
	return r->width;
}

uint32_t rfb_reader_height(const struct rfb_reader *r)
{
	return r->height;
}

const char *rfb_reader_name(const struct rfb_reader *r)
{
	return r->named ? r->name : NULL;
}

/* --- FramebufferUpdate rectangles --- */

static int resized(struct rfb_reader *r, const struct dec_hdr *h)
{
	if (h->w == r->width && h->h == r->height)
		return 0;
	if (set_desktop(r, h->w, h->h) < 0)
		return -1;
	/* The old picture is gone: ask for all of the new one, and for
	 * continuous updates of all of it. */
	if (r->ops.request(r->ops_ctx, false, r->width, r->height) < 0)
		return closed(r);
	if (r->cu_on &&
	    r->ops.continuous(r->ops_ctx, true, r->width, r->height) < 0)
		return closed(r);
	return 0;
}

static int ext_desktop_size(struct rfb_reader *r, const struct dec_hdr *h)
{
	struct vnc_layout *l = &r->layout;
	uint8_t head[4], b[16];

	if (rd(r, head, 4) < 0)
		return -1;
	*l = (struct vnc_layout){.reason = h->x,
				 .status = h->y,
				 .width = h->w,
				 .height = h->h,
				 .n = head[0]};
	for (unsigned i = 0; i < l->n; i++) {
		if (rd(r, b, 16) < 0)
			return -1;
		l->screens[i] = (struct vnc_screen){
		    .id = dec_be32(b),
		    .x = (uint16_t)dec_be16(b + 4),
		    .y = (uint16_t)dec_be16(b + 6),
		    .w = (uint16_t)dec_be16(b + 8),
		    .h = (uint16_t)dec_be16(b + 10),
		    .flags = dec_be32(b + 12)};
	}
	/* x: why (0 server, 1 this client, 2 another client, anything else
	 * as 0); y: for this client's request its status, non-zero when it
	 * failed and the size did not change (the rest is undefined then),
	 * else to be ignored. The size is taken whatever the screens say
	 * (QEMU announces screen id 0, which libvncclient refuses); what to
	 * make of them is the layout event's. */
	if ((h->x != RFB_EDS_THIS_CLIENT || h->y == RFB_EDS_OK) &&
	    resized(r, h) < 0)
		return -1;
	if (r->ev.layout)
		r->ev.layout(r->ev.ctx, l);
	return 0;
}

static int desktop_name(struct rfb_reader *r)
{
	uint8_t lenb[4];
	uint32_t len;
	uint8_t *name;

	if (rd(r, lenb, 4) < 0)
		return -1;
	len = dec_be32(lenb);
	if (len > RFB_MAX_NAME)
		return fail(r, VNC_ERR_PROTOCOL,
			    "sent a desktop name of %u bytes (more than %d)",
			    len, RFB_MAX_NAME);
	/* Kept only as it will be shown: escapes made visible, cut. */
	name = dec_scratch(&r->dc, (size_t)len + 1);
	if (!name)
		return fail(r, VNC_ERR_RESOURCE, "out of memory");
	if (rd(r, name, len) < 0)
		return -1;
	log_sanitize(r->name, (const char *)name, len);
	r->named = true;
	return 0;
}

/* A copy-bound rectangle the reader would draw itself (copies_direct)
 * goes to the pool when a worker is idle and it is large: the worker
 * draws it while the reader reads and draws the ones after it, so a
 * large update uses both cores; one at a time, so that the reader, not
 * a queue, keeps what it reads in its cache. */
#define SHARE_PIXELS (64u * 64u)

static bool share_copy(struct rfb_reader *r, const struct dec_hdr *h)
{
	return (uint32_t)h->w * h->h >= SHARE_PIXELS &&
	       dec_manager_idle(r->dm);
}

static int pixels(struct rfb_reader *r, const struct dec_hdr *h)
{
	const struct decoder *d = decoder_find(h->enc);
	struct rect rc;

	if (!d)
		return fail(r, VNC_ERR_PROTOCOL,
			    "sent a rectangle in encoding %s, which vncfb did "
			    "not ask for",
			    h->name);
	if ((uint64_t)h->x + h->w > r->width ||
	    (uint64_t)h->y + h->h > r->height)
		return bad_rect(r, h, "outside the %ux%u desktop", r->width,
				r->height);
	rc = (struct rect){(int32_t)h->x, (int32_t)h->y, (int32_t)h->w,
			   (int32_t)h->h};
	if (!d->decode || (d->copy_bound && r->copies_direct &&
			   !share_copy(r, h)))
		return managed(r, dec_manager_direct(r->dm, d, h, &rc));
	return managed(r, dec_manager_deferred(r->dm, d, h, &rc));
}

/* One rectangle; 1 after LastRect. */
static int rectangle(struct rfb_reader *r)
{
	uint8_t b[12];
	struct dec_hdr h;

	if (rd(r, b, 12) < 0)
		return -1;
	h.x = dec_be16(b);
	h.y = dec_be16(b + 2);
	h.w = dec_be16(b + 4);
	h.h = dec_be16(b + 6);
	h.enc = (int32_t)dec_be32(b + 8);
	h.name = decoder_name(h.enc, h.encbuf, sizeof(h.encbuf));
	switch (h.enc) {
	case RFB_ENC_LASTRECT:
		return 1;
	case RFB_ENC_XCURSOR:
	case RFB_ENC_RICHCURSOR:
		return rfb_cursor_shape(r, &h);
	case RFB_ENC_CURSOR_ALPHA:
		return rfb_cursor_alpha(r, &h);
	case RFB_ENC_POINTERPOS:
		if (r->ev.cursor_pos)
			r->ev.cursor_pos(r->ev.ctx, (int)h.x, (int)h.y);
		return 0;
	case RFB_ENC_DESKTOPSIZE:
		r->upd_sized = true;
		return resized(r, &h);
	case RFB_ENC_EXTDESKTOPSIZE:
		r->upd_sized = true;
		return ext_desktop_size(r, &h);
	case RFB_ENC_DESKTOPNAME:
		return desktop_name(r);
	case RFB_ENC_QEMU_KEYS:
		if (r->ops.qemu_keys)
			r->ops.qemu_keys(r->ops_ctx);
		return 0;
	case RFB_ENC_EXT_MOUSE:
		if (r->ops.ext_mouse)
			r->ops.ext_mouse(r->ops_ctx);
		return 0;
	case RFB_ENC_LEDSTATE:
		log_debug("keyboard LEDs 0x%x", h.x);
		return 0;
	default:
		r->upd_pixels = true;
		return pixels(r, &h);
	}
}

static int fb_update(struct rfb_reader *r)
{
	uint8_t b[3];
	unsigned n;
	int ret = 0;

	if (rd(r, b, 3) < 0)
		return -1;
	n = dec_be16(b + 1);
	r->upd_sized = false;
	r->upd_pixels = false;
	if (r->ops.update_begin)
		r->ops.update_begin(r->ops_ctx);
	/* Ask for the next update now, so that the server encodes it while
	 * this one is read and decoded (TigerVNC's pipelining); the owner
	 * may keep more requests in flight. Updates are applied in order;
	 * a resize below asks for a full one. Continuous updates need no
	 * asking, a paused session asks for nothing. */
	if (rfb_reader_asks(r) &&
	    r->ops.request(r->ops_ctx, true, r->width, r->height) < 0)
		return closed(r);
	for (unsigned i = 0; i < n; i++) {
		/* Earlier updates still decoding show as soon as they are
		 * whole, not when this one is. */
		uint64_t at = dec_chunks_taken(r->chunks);

		if (dec_manager_behind(r->dm) && report_ready(r) < 0) {
			ret = -1;
		} else {
			ret = rectangle(r);
			/* Its bytes after the 12 of its header (LastRect's
			 * none). */
			at += 12;
			if (dec_chunks_taken(r->chunks) > at)
				r->payload += dec_chunks_taken(r->chunks) - at;
		}
		if (ret != 0)
			break;
	}
	/* After a failure nothing writes the shadow any more. */
	if (ret < 0) {
		dec_manager_stop(r->dm);
		return -1;
	}
	if (r->ops.update_end)
		r->ops.update_end(r->ops_ctx, !r->upd_sized || r->upd_pixels);
	dec_manager_update_end(r->dm);
	/* What was read past the update is the source's again, for its
	 * owner to see (more, and the poll before the next message). */
	if (dec_chunks_settle(r->chunks) < 0)
		return fail(r, VNC_ERR_RESOURCE,
			    "ran vncfb out of memory for the data read ahead");
	/* The update is whole once every rectangle is decoded. The pool
	 * goes on with it while the next message is read, if that is at
	 * hand; else (the link is idle, waiting costs nothing) now. */
	if (dec_manager_room(r->dm) && r->ops.more &&
	    r->ops.more(r->ops_ctx)) {
		if (report_ready(r) < 0)
			return -1;
	} else if (drain(r) < 0) {
		return -1;
	}
	dec_manager_trim(r->dm);
	return 0;
}

static int colour_map(struct rfb_reader *r)
{
	uint8_t b[5];
	unsigned first, n;

	if (rd(r, b, 5) < 0)
		return -1;
	first = dec_be16(b + 1);
	n = dec_be16(b + 3);
	if (first + n > 65536)
		return fail(r, VNC_ERR_PROTOCOL,
			    "sent a bad SetColourMapEntries message: colours "
			    "%u to %u, past 65535",
			    first, first + n - 1);
	/* vncfb asks for true colour: nothing to set, only to read. */
	log_debug("ignoring %u colour map entries from %u", n, first);
	return skip(r, (uint64_t)n * 6);
}

static int cut_text(struct rfb_reader *r)
{
	uint8_t b[7];
	uint32_t len;

	if (rd(r, b, 7) < 0)
		return -1;
	len = dec_be32(b + 3);
	if (len > RFB_MAX_CUT_TEXT)
		return fail(r, VNC_ERR_PROTOCOL,
			    "sent a bad ServerCutText message: %u bytes of "
			    "text, more than the %u MiB limit",
			    len, RFB_MAX_CUT_TEXT >> 20);
	/* A console has no clipboard. */
	return skip(r, len);
}

/* --- ContinuousUpdates and Fence --- */

static int unasked(struct rfb_reader *r, unsigned type, const char *name)
{
	return fail(r, VNC_ERR_PROTOCOL,
		    "sent message type %u (%s), which vncfb did not ask for",
		    type, name);
}

static int cu_enable(struct rfb_reader *r)
{
	if (r->ops.continuous(r->ops_ctx, true, r->width, r->height) < 0)
		return closed(r);
	r->cu_on = true;
	log_debug("continuous updates on for %ux%u", r->width, r->height);
	return 0;
}

static int cu_disable(struct rfb_reader *r)
{
	if (!r->cu_on)
		return 0;
	if (r->ops.continuous(r->ops_ctx, false, r->width, r->height) < 0)
		return closed(r);
	r->cu_on = false;
	r->cu_owed++;
	log_debug("continuous updates off");
	return 0;
}

/* EndOfContinuousUpdates: the first says the server has them; later ones
 * answer our disables, or say the server stopped pushing on its own. */
static int end_of_cu(struct rfb_reader *r)
{
	if (!r->ops.continuous)
		return unasked(r, RFB_MSG_CONTINUOUS, "EndOfContinuousUpdates");
	if (!r->cu_known) {
		r->cu_known = true;
		log_debug("the server has continuous updates");
		return r->paused ? 0 : cu_enable(r);
	}
	if (r->cu_owed) {
		r->cu_owed--;
		return 0;
	}
	if (!r->cu_on)
		return 0;
	/* Not asked for: the server pushes no more. Ask for updates as
	 * without the extension, and do not turn it on again (a server that
	 * ends each enable would have the two ping-pong). */
	r->cu_on = false;
	if (!r->warned_end)
		log_warn("the server ended continuous updates unasked: vncfb "
			 "asks for updates instead");
	r->warned_end = true;
	if (!r->paused &&
	    r->ops.request(r->ops_ctx, true, r->width, r->height) < 0)
		return closed(r);
	return 0;
}

/* ServerFence: an answer to one of ours, or a request to answer. vncfb
 * handles messages in order on one thread, so BlockAfter (nothing after
 * the fence before the answer) and SyncNext (the next message atomic
 * against the answer) hold by construction; BlockBefore needs the updates
 * before it decoded. The answer keeps the flags vncfb knows and clears
 * Request and any others (rfbproto). */
static int server_fence(struct rfb_reader *r)
{
	uint8_t b[8], payload[RFB_FENCE_MAX_PAYLOAD];
	uint32_t flags, unknown;
	unsigned len;

	if (!r->ops.fence)
		return unasked(r, RFB_MSG_FENCE, "ServerFence");
	if (rd(r, b, 8) < 0)
		return -1;
	flags = dec_be32(b + 3);
	len = b[7];
	if (len > RFB_FENCE_MAX_PAYLOAD)
		return fail(r, VNC_ERR_PROTOCOL,
			    "sent a bad ServerFence message: a payload of %u "
			    "bytes, more than %d",
			    len, RFB_FENCE_MAX_PAYLOAD);
	if (rd(r, payload, len) < 0)
		return -1;
	r->fence_known = true;
	unknown = flags & ~(uint32_t)RFB_FENCE_KNOWN;
	if (unknown && !r->warned_flags)
		log_debug("the server's fence has flags 0x%x that vncfb does "
			  "not know: answered without them",
			  unknown);
	r->warned_flags |= unknown != 0;
	if (!(flags & RFB_FENCE_REQUEST)) {
		if (r->ops.fence_answer &&
		    r->ops.fence_answer(r->ops_ctx, flags & RFB_FENCE_KNOWN,
					payload, len) < 0)
			return -1;
		return 0;
	}
	if ((flags & RFB_FENCE_BLOCK_BEFORE) && drain(r) < 0)
		return -1;
	flags &= RFB_FENCE_BLOCK_BEFORE | RFB_FENCE_BLOCK_AFTER |
		 RFB_FENCE_SYNC_NEXT;
	if (r->ops.fence(r->ops_ctx, flags, payload, len) < 0)
		return closed(r);
	return 0;
}

int rfb_reader_pause(struct rfb_reader *r, bool pause)
{
	if (pause == r->paused)
		return 0;
	r->paused = pause;
	if (pause)
		return cu_disable(r);
	/* What changed while away was not asked for: all of it. */
	if (r->ops.request(r->ops_ctx, false, r->width, r->height) < 0)
		return closed(r);
	return r->cu_known && !r->warned_end ? cu_enable(r) : 0;
}

bool rfb_reader_continuous(const struct rfb_reader *r)
{
	return r->cu_on;
}

bool rfb_reader_asks(const struct rfb_reader *r)
{
	return !r->cu_on && !r->paused;
}

bool rfb_reader_paused(const struct rfb_reader *r)
{
	return r->paused;
}

bool rfb_reader_fences(const struct rfb_reader *r)
{
	return r->fence_known;
}

uint64_t rfb_reader_payload_bytes(const struct rfb_reader *r)
{
	return r->payload;
}

static int message(struct rfb_reader *r);

int rfb_reader_message(struct rfb_reader *r)
{
	int ret = message(r);

	if (dec_chunks_settle(r->chunks) < 0 && ret == 0)
		return fail(r, VNC_ERR_RESOURCE,
			    "ran vncfb out of memory for the data read ahead");
	return ret;
}

static int message(struct rfb_reader *r)
{
	uint8_t type;

	r->err = VNC_OK;
	r->why[0] = '\0';
	/* What finished decoding while the server said nothing shows
	 * before the next message is waited for. */
	if (dec_manager_behind(r->dm) && report_ready(r) < 0)
		return -1;
	if (rd(r, &type, 1) < 0)
		return -1;
	switch (type) {
	case RFB_MSG_FB_UPDATE:
		return fb_update(r);
	case RFB_MSG_COLOUR_MAP:
		return colour_map(r);
	case RFB_MSG_BELL:
		if (r->ev.bell)
			r->ev.bell(r->ev.ctx);
		return 0;
	case RFB_MSG_CUT_TEXT:
		return cut_text(r);
	case RFB_MSG_CONTINUOUS:
		return end_of_cu(r);
	case RFB_MSG_FENCE:
		return server_fence(r);
	default:
		return fail(r, VNC_ERR_PROTOCOL,
			    "sent message type %u, which vncfb did not ask "
			    "for",
			    type);
	}
}
