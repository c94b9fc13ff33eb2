/* Fuzz target for vncfb's own message reader and decoders: what a server
 * sends after ServerInit, from memory (no socket, no threads), into a
 * shadow of its own. Byte 0 picks the pixel format, bytes 1-4 the
 * desktop's width and height (16 bits each, big-endian, as in
 * ServerInit); the rest is the server's messages (tests/fuzz/mkreader.py
 * makes such inputs from the session corpus). The reader has the
 * ContinuousUpdates and Fence hooks, as vncfb's has.
 * Damage outside the desktop aborts (the reader promises clipped
 * rectangles); ASan checks every write into the shadow and the cursor.
 * The session's remote resize (remote_resize.h, for a 1024x768 screen)
 * takes every layout; a second SetDesktopSize for one target aborts.
 * An input that ends in 'W', k, f switches the wire's pixel format, as
 * auto-select does on a slow link (rfb_reader_set_wire), after every k-th
 * message (k 0: never): to the format f picks (as byte 0 does), then
 * back to the shadow's, and so on; those three bytes are not the
 * server's. In a guard-page build (-Dguard_pages=true, guardmem.h) the
 * shadow, the mirror, the scratch and the cursor's buffers end at a
 * PROT_NONE page: a write past them by libswscale, libjpeg-turbo, zlib
 * or ISA-L, which ASan does not see, faults. */
#include "config.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/remote_resize.h"
#include "util/log.h"
#include "shadow/pixfmt.h"
#include "reader/rfbread.h"
#include "util/guardmem.h"
#include "wire/vncsrc.h"

/* A shadow larger than this is refused (as a session refuses one it
 * cannot allocate), so that a run stays fast. */
#define FUZZ_MAX_FB (4u << 20)

static const char *const formats[] = {
    "xrgb8888", "rgb565", "bgrx8888", "xrgb1555", "rgb332", "xbgr8888",
};

struct sink {
	uint8_t *fb;
	uint32_t w, h;
	unsigned bpp;
	uint8_t *cursor;
	struct remote_resize rr;
	int asks;
};

static uint8_t *ev_resize(void *ctx, uint32_t w, uint32_t h)
{
	struct sink *s = ctx;
	size_t n = (size_t)w * h * s->bpp;
	uint8_t *fb;

	if (n > FUZZ_MAX_FB)
		return NULL;
	/* Its end at a guard page in a guard-page build (guardmem.h). */
	fb = guard_calloc(n);
	if (!fb)
		return NULL;
	guard_free(s->fb);
	s->fb = fb;
	s->w = w;
	s->h = h;
	remote_resize_desktop(&s->rr, w, h);
	return fb;
}

static void ev_damage(void *ctx, const struct rect *r)
{
	struct sink *s = ctx;

	if (r->x < 0 || r->y < 0 || r->w <= 0 || r->h <= 0 ||
	    (uint64_t)r->x + (uint64_t)r->w > s->w ||
	    (uint64_t)r->y + (uint64_t)r->h > s->h) {
		fprintf(stderr, "damage %d,%d %dx%d outside %ux%u\n", r->x,
			r->y, r->w, r->h, s->w, s->h);
		abort();
	}
}

static void ev_done(void *ctx)
{
	struct sink *s = ctx;

	remote_resize_update(&s->rr, 0);
	remote_resize_tick(&s->rr, REMOTE_RESIZE_ANSWER_NS);
}

static void ev_layout(void *ctx, const struct vnc_layout *l)
{
	struct sink *s = ctx;

	remote_resize_layout(&s->rr, l, 0);
}

static int rr_send(void *ctx, uint32_t w, uint32_t h,
		   const struct vnc_screen *scr, unsigned n)
{
	struct sink *s = ctx;

	if (++s->asks > 1 || w != 1024 || h != 768 || n != 1 ||
	    scr[0].w != 1024 || scr[0].h != 768)
		abort();
	return 0;
}

static void ev_cursor(void *ctx, int xhot, int yhot, int w, int h,
		      const uint8_t *pixels, const uint8_t *mask)
{
	struct sink *s = ctx;
	size_t n = (size_t)w * (size_t)h;
	uint8_t *c;

	if (w <= 0 || h <= 0 || w > 256 || h > 256 || xhot < 0 || yhot < 0 ||
	    xhot >= w || yhot >= h)
		abort();
	c = realloc(s->cursor, n * (s->bpp + 1));
	if (!c)
		return;
	s->cursor = c;
	memcpy(c, pixels, n * s->bpp);
	memcpy(c + n * s->bpp, mask, n);
}

static int ev_request(void *ctx, bool incremental, uint32_t w, uint32_t h)
{
	return 0;
}

/* The extensions' writes go nowhere; the reader must still check what
 * it answers (a payload of at most 64 bytes). */
static int ev_fence(void *ctx, uint32_t flags, const uint8_t *payload,
		    unsigned len)
{
	if (len > 64)
		abort();
	return 0;
}

static int ev_continuous(void *ctx, bool enable, uint32_t w, uint32_t h)
{
	return 0;
}

static bool ev_more(void *ctx)
{
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool once;
	static const struct rfb_reader_ops ops = {.request = ev_request,
						  .more = ev_more,
						  .fence = ev_fence,
						  .continuous = ev_continuous};
	struct vnc_mem_source src;
	struct vnc_events ev;
	struct pixfmt pf;
	struct sink s;
	struct rfb_reader *r;
	struct pixfmt wire;
	unsigned every = 0, msgs = 0;
	bool wired = false;

	if (!once) {
		once = true;
		if (!getenv("VNCFB_FUZZ_VERBOSE"))
			log_set_level(LOG_SILENT);
	}
	if (size < 5)
		return 0;
	if (size >= 8 && data[size - 3] == 'W') {
		every = data[size - 2];
		pixfmt_from_name(formats[data[size - 1] % (sizeof(formats) /
							   sizeof(formats[0]))],
				 &wire);
		size -= 3;
	}
	pixfmt_from_name(
	    formats[data[0] % (sizeof(formats) / sizeof(formats[0]))], &pf);
	memset(&s, 0, sizeof(s));
	s.bpp = pf.bpp / 8;
	{
		struct remote_resize_config rc = {.enabled = true,
						  .server = "fuzz",
						  .fallback = "none",
						  .send = rr_send,
						  .ctx = &s};

		remote_resize_init(&s.rr, &rc);
		remote_resize_set_heads(&s.rr, &(struct rect){0, 0, 1024, 768},
					1, 0);
	}
	ev = (struct vnc_events){.ctx = &s,
				 .resize = ev_resize,
				 .damage = ev_damage,
				 .update_done = ev_done,
				 .cursor_shape = ev_cursor,
				 .layout = ev_layout};
	vnc_mem_source_init(&src, data + 5, size - 5);
	/* The high bits of the format byte: how much the source offers to
	 * parse in place (0: all, else 2 to 32 KiB), so tiles straddle its
	 * end as they do libvncclient's 8 KiB buffer. */
	src.window = data[0] >> 4 ? (size_t)1 << (data[0] >> 4) : 0;
	r = rfb_reader_create(&pf, &src.base, &ev, &ops, &s);
	if (!r)
		return 0;
	remote_resize_connected(&s.rr, (uint32_t)data[1] << 8 | data[2],
				(uint32_t)data[3] << 8 | data[4]);
	if (rfb_reader_start(r, (uint32_t)data[1] << 8 | data[2],
			     (uint32_t)data[3] << 8 | data[4]) == 0)
		while (rfb_reader_message(r) == 0)
			if (every && ++msgs % every == 0) {
				wired = !wired;
				if (rfb_reader_set_wire(r, wired ? &wire
								 : NULL) < 0)
					break;
			}
	rfb_reader_destroy(r);
	guard_free(s.fb);
	free(s.cursor);
	return 0;
}
