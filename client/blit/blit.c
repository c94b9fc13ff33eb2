/* Blit worker: damage in, rows out. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "blit/blit.h"
#include "util/clock.h"
#include "blit/cursor.h"
#include "util/log.h"
#include "output/rotate.h"
#include "platform/platform.h"
#include "view/scale.h"
#include "blit/statusline.h"

/* Rows a turned output is drawn in at once (rotout_put's tile side). */
#define BAND 64

struct blitter {
	struct output *out;
	struct shadow *shadow;
	struct damage *damage;
	pthread_t thread;
	bool running;
	int cpu;		/* requested core, -1: unpinned */
	atomic_int actual_cpu;	/* where the worker found itself */
	atomic_int pin_error;	/* -errno from pinning, 0 when fine */
	/* The blitter's own state, which the main thread changes while the
	 * worker draws. A pass holds lock, then the shadow's lock (the pixels
	 * and the cursor); nobody takes them the other way round. */
	pthread_mutex_t lock;
	/* Under lock: */
	bool suspended;
	bool blank;		/* black, not the desktop (blit_set_blank) */
	bool full;		/* redraw everything, borders too */
	enum scale_mode mode;	/* --scale */
	unsigned zoom;
	struct view view;	/* remote -> screen; written on the main thread */
	struct scaler *scaler;	/* for view when not 1:1, else NULL */
	uint8_t *row;		/* conversion / zero row, blit thread */
	/* Shadow to output pixels where they differ (24 bpp outputs),
	 * chosen once: the blitter's and the cursor's rows. */
	struct pixconv conv;
	uint8_t *srow;		/* one scaled row in the shadow's format */
	size_t row_size;
	/* A turned output (rotate.h): BAND rows in the output's format,
	 * which rotout_put turns a tile at a time. NULL otherwise. */
	uint8_t *band;
	/* Optional hook, called on the worker after each pass
	 * (blit_set_on_pass). */
	void (*on_pass)(void *ctx, const struct blit_stats *st);
	void *on_pass_ctx;
	/* Local cursor drawn over the shadow, NULL for none
	 * (blit_set_cursor). */
	struct cursor *cursor;
	atomic_uint_fast64_t passes;
	atomic_uint_fast64_t bytes_total;
	/* Status line text (blit_set_status), under lock. */
	char status[128];
	bool status_dirty;	/* text changed since the last pass */
	bool status_shown;	/* the bar is on the screen */
	/* What the last pass that reached the screen changed there (blit
	 * thread, under lock): everything, or these rectangles. */
	bool changed_all;
	struct rect changed[BLIT_MAX_CHANGED];
	int nchanged;
	/* What the cursor draws through (cursor.h), filled in once. */
	struct cursor_target ctarget;
};

static bool target_remote_to_screen(void *ctx, const struct rect *r,
				    struct rect *scr)
{
	return blit_remote_to_screen(ctx, r, scr);
}

static uint64_t target_draw_screen(void *ctx, const struct rect *scr)
{
	return blit_draw_screen(ctx, scr);
}

static void screen_row(struct blitter *b, int32_t sx, int32_t sy, int32_t n,
		       uint8_t *out);

static void target_screen_row(void *ctx, int32_t sx, int32_t sy, int32_t n,
			      uint8_t *out)
{
	screen_row(ctx, sx, sy, n, out);
}

struct blitter *blit_create(struct output *out, struct shadow *sh,
			    struct damage *d, int cpu)
{
	struct blitter *b = calloc(1, sizeof(*b));
	int err;

	if (!b)
		goto fail;
	err = pthread_mutex_init(&b->lock, NULL);
	if (err) {
		free(b);
		log_error("cannot set up the blitter: pthread_mutex_init: %s",
			  strerror(err));
		return NULL;
	}
	b->out = out;
	b->shadow = sh;
	b->damage = d;
	b->cpu = cpu;
	atomic_init(&b->actual_cpu, -1);
	atomic_init(&b->pin_error, 0);
	atomic_init(&b->passes, 0);
	atomic_init(&b->bytes_total, 0);
	b->full = true;
	pixconv_init(&b->conv, &out->fmt, &sh->fmt);
	/* One output row: conversion buffer and source of black (on a
	 * turned output, of the panel's rows too: fill_black). */
	b->row_size = out->stride > (size_t)out->width * 4
			      ? out->stride
			      : (size_t)out->width * 4;
	if (rotout_of(out) && b->row_size < rotout_of(out)->phys->stride)
		b->row_size = rotout_of(out)->phys->stride;
	if (rotout_of(out) &&
	    b->row_size < (size_t)rotout_of(out)->phys->width * 4)
		b->row_size = (size_t)rotout_of(out)->phys->width * 4;
	b->row = calloc(1, b->row_size);
	/* The scaler writes its rows in 32-byte stores: cache-line
	 * alignment keeps each within one line. */
	b->srow = aligned_alloc(64, (b->row_size + 63) & ~(size_t)63);
	if (b->srow)
		memset(b->srow, 0, b->row_size);
	b->mode = SCALE_NONE;
	b->zoom = 1;
	b->ctarget = (struct cursor_target){
		.out = out,
		.shadow = sh,
		.conv = &b->conv,
		.row = b->row,
		.ctx = b,
		.remote_to_screen = target_remote_to_screen,
		.draw_screen = target_draw_screen,
		.screen_row = target_screen_row,
	};
	if (rotout_of(out))
		b->band = aligned_alloc(64, BAND * b->row_size);
	if (!b->row || !b->srow || (rotout_of(out) && !b->band)) {
		blit_destroy(b);
		goto fail;
	}
	return b;

fail:
	log_error("cannot set up the blitter: out of memory");
	return NULL;
}

void blit_destroy(struct blitter *b)
{
	if (!b)
		return;
	if (b->running) {
		damage_stop(b->damage);
		pthread_join(b->thread, NULL);
	}
	scaler_destroy(b->scaler);
	free(b->row);
	free(b->srow);
	free(b->band);
	pthread_mutex_destroy(&b->lock);
	free(b);
}

void blit_set_cursor(struct blitter *b, struct cursor *c)
{
	b->cursor = c;
}

void blit_set_on_pass(struct blitter *b,
		      void (*fn)(void *ctx, const struct blit_stats *st),
		      void *ctx)
{
	b->on_pass = fn;
	b->on_pass_ctx = ctx;
}

void blit_set_cpu(struct blitter *b, int cpu)
{
	b->cpu = cpu;
}

int blit_pin_error(struct blitter *b)
{
	return atomic_load(&b->pin_error);
}

int blit_actual_cpu(struct blitter *b)
{
	return atomic_load(&b->actual_cpu);
}

int blit_cpu_clock(struct blitter *b, clockid_t *id)
{
	if (!b->running)
		return -ESRCH;
	return -pthread_getcpuclockid(b->thread, id);
}

static void fill_black(struct blitter *b, const struct rect *lr)
{
	struct output *o = b->out;
	struct rotout *rot = rotout_of(o);
	unsigned bpp = pixfmt_bytes(&o->fmt);
	struct rect pr;
	const struct rect *r = lr;
	int32_t y;

	/* Black is black whichever way up: fill the panel's rectangle. */
	if (rot) {
		pr = rotate_rect(rot->rot, o->width, o->height, lr);
		r = &pr;
		o = rot->phys;
	}
	memset(b->row, 0, (size_t)r->w * bpp);
	for (y = r->y; y < r->y + r->h; y++)
		output_write_row(o, o->map + (size_t)y * o->stride +
					    (size_t)r->x * bpp,
				 b->row, (size_t)r->w * bpp);
}

/* The shadow is reallocated (desktop resize) just before the view is
 * recomputed for it; in between, draw nothing: a full redraw follows. */
static bool view_current(const struct blitter *b)
{
	return !b->blank && b->shadow->pix && b->view.rw == b->shadow->width &&
	       b->view.rh == b->shadow->height;
}

/* draw_desktop on a turned output: BAND rows at a time, straight from
 * the shadow when the view is 1:1 in the output's format, else made in
 * the band first (scaled, converted), then turned onto the panel a tile
 * at a time. */
static uint64_t draw_turned(struct blitter *b, const struct rect *scr)
{
	struct output *o = b->out;
	struct shadow *s = b->shadow;
	const struct view *v = &b->view;
	unsigned obpp = pixfmt_bytes(&o->fmt), sbpp = pixfmt_bytes(&s->fmt);
	bool same = pixfmt_equal(&o->fmt, &s->fmt);
	uint32_t dx0 = (uint32_t)(scr->x - v->dx);
	int32_t y, k;

	for (y = scr->y; y < scr->y + scr->h; y += BAND) {
		int32_t n = scr->y + scr->h - y < BAND ? scr->y + scr->h - y
						       : BAND;
		uint32_t dy0 = (uint32_t)(y - v->dy);

		if (!b->scaler && same) {
			rotout_put(rotout_of(o), scr->x, y,
				   s->pix + (size_t)dy0 * s->stride +
					   (size_t)dx0 * sbpp,
				   s->stride, (uint32_t)scr->w, (uint32_t)n);
			continue;
		}
		for (k = 0; k < n; k++) {
			uint8_t *dst = b->band + (size_t)k * b->row_size;
			const uint8_t *src;

			if (b->scaler)
				src = scaler_row(b->scaler, s->pix, s->stride,
						 dy0 + (uint32_t)k, dx0,
						 dx0 + (uint32_t)scr->w,
						 same ? dst : b->srow);
			else
				src = s->pix + (size_t)(dy0 + (uint32_t)k) *
						       s->stride +
				      (size_t)dx0 * sbpp;
			if (!same)
				pixconv_row(&b->conv, dst, src,
					    (size_t)scr->w);
			else if (src != dst)
				memcpy(dst, src, (size_t)scr->w * obpp);
		}
		rotout_put(rotout_of(o), scr->x, y, b->band, b->row_size,
			   (uint32_t)scr->w, (uint32_t)n);
	}
	return (uint64_t)scr->w * scr->h * obpp;
}

/* Draw screen rectangle scr, which lies inside the desktop's part of the
 * screen, from the shadow: a row copy when the view is 1:1, else through
 * the scaler. Returns bytes written. */
static uint64_t draw_desktop(struct blitter *b, const struct rect *scr)
{
	struct output *o = b->out;
	struct shadow *s = b->shadow;
	const struct view *v = &b->view;
	unsigned obpp = pixfmt_bytes(&o->fmt), sbpp = pixfmt_bytes(&s->fmt);
	bool same = pixfmt_equal(&o->fmt, &s->fmt);
	/* Rows the scaler can store straight into the mapping. */
	bool direct = b->scaler && same && output_direct(o) &&
		      (scaler_path(b->scaler) == SCALER_PAIR32 ||
		       scaler_path(b->scaler) == SCALER_PAIR21);
	int32_t y;

	if (b->scaler)
		scaler_start(b->scaler);
	if (rotout_of(o))
		return draw_turned(b, scr);
	for (y = scr->y; y < scr->y + scr->h; y++) {
		uint32_t dx0 = (uint32_t)(scr->x - v->dx);
		uint32_t dy0 = (uint32_t)(y - v->dy);
		const uint8_t *src;
		uint8_t *dst = o->map + (size_t)y * o->stride +
			       (size_t)scr->x * obpp;

		if (direct) {
			unsigned n = scaler_direct(
			    b->scaler, s->pix, s->stride, dy0, dx0,
			    dx0 + (uint32_t)scr->w, dst, o->stride,
			    (uint32_t)(scr->y + scr->h - y));

			if (n) {
				y += (int32_t)n - 1;
				continue;
			}
		}
		if (!b->scaler) {
			src = s->pix + (size_t)dy0 * s->stride +
			      (size_t)dx0 * sbpp;
		} else {
			src = scaler_row(b->scaler, s->pix, s->stride, dy0,
					 dx0, dx0 + (uint32_t)scr->w, b->srow);
		}
		if (same) {
			output_write_row(o, dst, src, (size_t)scr->w * obpp);
		} else {
			pixconv_row(&b->conv, b->row, src, (size_t)scr->w);
			output_write_row(o, dst, b->row, (size_t)scr->w * obpp);
		}
	}
	if (direct)
		output_copy_stream_end();
	return (uint64_t)scr->w * scr->h * obpp;
}

/* Copy remote rectangle r to the screen, through the view; *scr is the
 * screen rectangle written. Returns bytes written. */
static uint64_t copy_rect(struct blitter *b, const struct rect *r,
			  struct rect *scr)
{
	struct rect desk;

	if (!view_current(b) || !view_remote_to_screen(&b->view, r, scr))
		return 0;
	/* The view clips to the desktop already; this is belt and braces
	 * for a desktop that is partly off screen. */
	if (!view_desktop(&b->view, &desk) || !rect_intersect(scr, &desk, scr))
		return 0;
	return draw_desktop(b, scr);
}

/* Black for the part of area outside the desktop on screen. */
static uint64_t fill_outside(struct blitter *b, const struct rect *area)
{
	struct output *o = b->out;
	struct rect desk, in, parts[4];
	uint64_t bytes = 0;
	int i;

	if (b->blank || !view_desktop(&b->view, &desk) ||
	    !rect_intersect(&desk, area, &in)) {
		fill_black(b, area);
		return rect_area(area) * pixfmt_bytes(&o->fmt);
	}
	parts[0] = (struct rect){ area->x, area->y, area->w, in.y - area->y };
	parts[1] = (struct rect){ area->x, in.y + in.h, area->w,
				  area->y + area->h - in.y - in.h };
	parts[2] = (struct rect){ area->x, in.y, in.x - area->x, in.h };
	parts[3] = (struct rect){ in.x + in.w, in.y,
				  area->x + area->w - in.x - in.w, in.h };
	for (i = 0; i < 4; i++) {
		if (rect_empty(&parts[i]))
			continue;
		fill_black(b, &parts[i]);
		bytes += rect_area(&parts[i]) * pixfmt_bytes(&o->fmt);
	}
	return bytes;
}

/* Everything outside the remote desktop is black. */
static uint64_t draw_borders(struct blitter *b)
{
	struct rect view = { 0, 0, (int32_t)b->out->width,
			     (int32_t)b->out->height };

	return fill_outside(b, &view);
}

uint64_t blit_draw_screen(struct blitter *b, const struct rect *in)
{
	struct rect scr = *in, desk;
	uint64_t bytes;

	if (b->suspended ||
	    !rect_clip(&scr, (int32_t)b->out->width, (int32_t)b->out->height))
		return 0;
	bytes = fill_outside(b, &scr);
	if (view_current(b) && view_desktop(&b->view, &desk) &&
	    rect_intersect(&scr, &desk, &desk))
		bytes += draw_desktop(b, &desk);
	return bytes;
}

/* The cursor's screen_row (cursor.h). */
static void screen_row(struct blitter *b, int32_t sx, int32_t sy, int32_t n,
		       uint8_t *out)
{
	struct shadow *s = b->shadow;
	const struct view *v = &b->view;
	unsigned sbpp = pixfmt_bytes(&s->fmt);
	struct rect row = {sx, sy, n, 1}, desk;
	const uint8_t *src;
	uint32_t x0;

	memset(out, 0, (size_t)n * sbpp);
	if (!view_current(b) || !view_desktop(v, &desk) ||
	    !rect_intersect(&row, &desk, &desk))
		return;
	x0 = (uint32_t)(desk.x - v->dx);
	if (b->scaler) {
		scaler_start(b->scaler);
		src = scaler_row(b->scaler, s->pix, s->stride,
				 (uint32_t)(sy - v->dy), x0,
				 x0 + (uint32_t)desk.w, b->srow);
	} else {
		src = s->pix + (size_t)(sy - v->dy) * s->stride +
		      (size_t)x0 * sbpp;
	}
	memcpy(out + (size_t)(desk.x - sx) * sbpp, src,
	       (size_t)desk.w * sbpp);
}

void blit_set_status(struct blitter *b, const char *text)
{
	pthread_mutex_lock(&b->lock);
	snprintf(b->status, sizeof(b->status), "%s", text ? text : "");
	b->status_dirty = true;
	pthread_mutex_unlock(&b->lock);
	damage_kick(b->damage);
}

/* The status line over whatever this pass drew, or the picture back where
 * it was removed. Inside a pass (both locks held). */
static uint64_t draw_status(struct blitter *b, bool drew, struct rect *rects,
			    int *n)
{
	struct rect bar;
	uint64_t bytes = 0;

	if (!b->status_dirty && !(drew && b->status_shown))
		return 0;
	statusline_rect(b->out, &bar);
	if (b->status[0]) {
		bytes = statusline_draw(b->out, b->status, b->row);
		b->status_shown = true;
	} else if (b->status_shown) {
		struct rect cur, both;

		bytes = blit_draw_screen(b, &bar);
		b->status_shown = false;
		/* That took the cursor away where it was over the bar. */
		if (b->cursor && cursor_drawn_rect(b->cursor, &cur) &&
		    rect_intersect(&cur, &bar, &both)) {
			cursor_invalidate(b->cursor);
			bytes += cursor_blit(b->cursor, &b->ctarget, NULL, 0, false, rects,
					     n);
		}
	}
	b->status_dirty = false;
	if (bytes)
		rects[(*n)++] = bar;
	return bytes;
}

/* Whether r lies inside one of rects[0..n). */
static bool covered(const struct rect *r, const struct rect *rects, int n)
{
	struct rect in;
	int i;

	for (i = 0; i < n; i++)
		if (rect_intersect(r, &rects[i], &in) && in.w == r->w &&
		    in.h == r->h)
			return true;
	return false;
}

/* A back buffer that missed the last pass gets what that pass changed on
 * the screen, except where this pass has drawn already (rects[0..*n)).
 * Appends what it draws to rects. Inside a pass. */
static uint64_t catch_up(struct blitter *b, struct rect *rects, int *n)
{
	struct rect cur, both;
	uint64_t bytes = 0;
	int i, drawn = *n;
	bool has_cursor = b->cursor && cursor_drawn_rect(b->cursor, &cur);

	for (i = 0; i < b->nchanged; i++) {
		const struct rect *r = &b->changed[i];

		if (covered(r, rects, drawn))
			continue;
		bytes += blit_draw_screen(b, r);
		rects[(*n)++] = *r;
		/* The buffer shows the cursor where the screen does, and
		 * the redraw just erased it there. */
		if (has_cursor && rect_intersect(r, &cur, &both))
			cursor_invalidate(b->cursor);
	}
	return bytes;
}

void blit_pass(struct blitter *b, const struct damage_set *set,
	       struct blit_stats *st)
{
	/* Damage or the whole screen, what the back buffer missed, the
	 * cursor's two places (twice, when the status line goes) and the
	 * status line. */
	struct rect out_rects[DAMAGE_MAX_RECTS + BLIT_MAX_CHANGED + 6];
	/* What the pass changes on the screen (for the next pass). */
	struct rect changed[BLIT_MAX_CHANGED], was, scr;
	int i, n = 0, nchanged = 0, before;
	uint64_t bytes = 0, cbytes;
	bool full, whole, had_cursor, status_changed;
	enum output_buffer buf;

	/* Before the locks: a double-buffered output may wait here for its
	 * back buffer to leave the screen. */
	buf = output_begin(b->out);
	pthread_mutex_lock(&b->lock);
	shadow_lock(b->shadow);
	st->start_ns = monotonic_ns();
	st->shown_ns = 0;
	if (b->suspended) {
		shadow_unlock(b->shadow);
		pthread_mutex_unlock(&b->lock);
		st->end_ns = st->start_ns;
		st->bytes = 0;
		return;
	}
	/* b->full: the whole screen changes. The buffer alone may need a
	 * full redraw too (unknown contents, or it missed one), and that
	 * changes nothing on the screen. */
	whole = b->full;
	full = whole || buf == OUTPUT_BUF_UNKNOWN ||
	       (buf == OUTPUT_BUF_PREVIOUS && b->changed_all);
	b->full = false;
	if (full) {
		struct rect all = { 0, 0, (int32_t)b->shadow->width,
				    (int32_t)b->shadow->height };

		bytes += draw_borders(b);
		bytes += copy_rect(b, &all, &scr);
		out_rects[n++] = (struct rect){ 0, 0, (int32_t)b->out->width,
						(int32_t)b->out->height };
		for (i = 0; i < set->n && !whole; i++)
			if (blit_remote_to_screen(b, &set->rects[i], &scr))
				changed[nchanged++] = scr;
	} else {
		for (i = 0; i < set->n; i++) {
			bytes += copy_rect(b, &set->rects[i], &scr);
			if (!rect_empty(&scr))
				out_rects[n++] = changed[nchanged++] = scr;
		}
		if (buf == OUTPUT_BUF_PREVIOUS)
			bytes += catch_up(b, out_rects, &n);
	}
	if (b->cursor) {
		had_cursor = cursor_drawn_rect(b->cursor, &was);
		cbytes = cursor_blit(b->cursor, &b->ctarget, set->rects, set->n, full,
				     out_rects, &n);
		if (cbytes && had_cursor)
			changed[nchanged++] = was;
		if (cbytes && cursor_drawn_rect(b->cursor, &scr))
			changed[nchanged++] = scr;
		bytes += cbytes;
	}
	/* Last, so it stays on top of the picture and the cursor. */
	status_changed = b->status_dirty;
	before = n;
	bytes += draw_status(b, n > 0, out_rects, &n);
	if (status_changed && n > before)
		changed[nchanged++] = out_rects[n - 1];
	st->end_ns = monotonic_ns();
	if (n > 0) {
		/* This pass is what the screen shows next; the buffer that
		 * missed it catches up from these. */
		b->changed_all = whole;
		memcpy(b->changed, changed, (size_t)nchanged * sizeof(*changed));
		b->nchanged = nchanged;
		output_present(b->out, out_rects, n);
	}
	shadow_unlock(b->shadow);
	pthread_mutex_unlock(&b->lock);
	if (n > 0)
		st->shown_ns = output_finish(b->out);
	st->bytes = bytes;
	st->rects = n;
	st->kick_ns = set->kick_ns;
	st->kicks = set->kicks;
	atomic_fetch_add(&b->passes, 1);
	atomic_fetch_add(&b->bytes_total, bytes);
}

/* The test hook VNCFB_TEST_BLIT_STALL=N (doc/testing.md): the worker
 * hangs after N passes, as on a driver that never returns, for the
 * service watchdog's test. 0: never. */
static uint64_t stall_after(void)
{
	const char *v = getenv("VNCFB_TEST_BLIT_STALL");

	return v && *v ? strtoull(v, NULL, 10) : 0;
}

static void *worker(void *arg)
{
	struct blitter *b = arg;
	struct damage_set set;
	uint64_t stall = stall_after();

	platform_name_thread("vncfb-blit");
	atomic_store(&b->actual_cpu, platform_current_cpu());
	for (;;) {
		struct blit_stats st;
		int n = damage_take(b->damage, &set, -1);

		if (n < 0)
			break;
		memset(&st, 0, sizeof(st));
		blit_pass(b, &set, &st);
		atomic_store(&b->actual_cpu, platform_current_cpu());
		if (b->on_pass)
			b->on_pass(b->on_pass_ctx, &st);
		if (stall && atomic_load(&b->passes) >= stall) {
			log_warn("VNCFB_TEST_BLIT_STALL: the blit thread "
				 "hangs here");
			for (;;)
				sleep(3600);
		}
	}
	return NULL;
}

uint64_t blit_passes(struct blitter *b)
{
	return atomic_load(&b->passes);
}

int blit_start(struct blitter *b)
{
	pthread_attr_t attr;
	int err;

	pthread_attr_init(&attr);
	err = pthread_create(&b->thread, &attr, worker, b);
	pthread_attr_destroy(&attr);
	if (err) {
		log_error("pthread_create (blit thread): %s", strerror(err));
		return -err;
	}
	b->running = true;
	if (b->cpu >= 0) {
		err = platform_pin_thread(b->thread, b->cpu);
		if (err < 0) {
			atomic_store(&b->pin_error, err);
			return err;
		}
		/* The worker notices the move at its next pass; nudge it so
		 * that "where it runs" is known right away. */
		damage_kick(b->damage);
	}
	return 0;
}

void blit_stop(struct blitter *b)
{
	struct damage_set set;
	struct blit_stats st;

	if (b->running) {
		damage_stop(b->damage);
		pthread_join(b->thread, NULL);
		b->running = false;
	}
	/* Whatever was decoded after the last pass still goes on screen. */
	damage_drain(b->damage, &set);
	memset(&st, 0, sizeof(st));
	if (set.n > 0 || b->full)
		blit_pass(b, &set, &st);
}

void blit_set_scale(struct blitter *b, enum scale_mode mode, unsigned zoom)
{
	pthread_mutex_lock(&b->lock);
	b->mode = mode;
	b->zoom = zoom;
	pthread_mutex_unlock(&b->lock);
}

/* Set the scaler up for the view; with the blitter's lock held. */
static void setup_scaler(struct blitter *b)
{
	struct shadow *s = b->shadow;
	struct view *v = &b->view;
	int err;

	scaler_destroy(b->scaler);
	b->scaler = NULL;
	if (!v->dw || !v->dh || view_identity(v))
		return;
	err = scaler_create(&b->scaler, &s->fmt, v->rw, v->rh, v->dw, v->dh);
	if (err == 0)
		return;
	log_error("cannot scale %ux%u to %ux%u: %s; showing it 1:1", v->rw,
		  v->rh, v->dw, v->dh, strerror(-err));
	view_update(v, SCALE_NONE, 1, v->rw, v->rh, v->sw, v->sh);
}

void blit_set_head(struct blitter *b, const struct rect *r, uint32_t lw,
		   uint32_t lh)
{
	pthread_mutex_lock(&b->lock);
	view_set_head(&b->view, r, lw, lh);
	pthread_mutex_unlock(&b->lock);
}

void blit_reset_view(struct blitter *b)
{
	struct output *o = b->out;
	struct shadow *s = b->shadow;

	/* The shadow's size and format change only on this thread. */
	pthread_mutex_lock(&b->lock);
	/* Smaller remote: centred. Larger: panned (the pan position is
	 * kept across resizes, clamped). */
	view_update(&b->view, b->mode, b->zoom, s->width, s->height, o->width,
		    o->height);
	setup_scaler(b);
	b->full = true;
	pthread_mutex_unlock(&b->lock);
}

/* The main thread is the only writer of the view, so it may work on a
 * copy unlocked: the lock (which a slow pass holds for a while) is taken
 * only when the view really moves, not on every pointer motion. */
static bool pan_commit(struct blitter *b, const struct view *v)
{
	if (v->pan_x == b->view.pan_x && v->pan_y == b->view.pan_y)
		return false;
	pthread_mutex_lock(&b->lock);
	b->view = *v;
	b->full = true;
	pthread_mutex_unlock(&b->lock);
	damage_kick(b->damage);
	return true;
}

bool blit_pan(struct blitter *b, int dx, int dy)
{
	return blit_pan_to(b, (int32_t)((int64_t)b->view.pan_x + dx),
			   (int32_t)((int64_t)b->view.pan_y + dy));
}

bool blit_pan_to(struct blitter *b, int px, int py)
{
	struct view v = b->view;

	view_pan_to(&v, px, py);
	return pan_commit(b, &v);
}

/* The shorter side of what the desktop is placed on (the layout, on a
 * head of several): the follow margin and the edge speed are parts of
 * it, the same on every head. */
static int32_t view_side(const struct view *v)
{
	uint32_t w = v->lw ? v->lw : v->sw, h = v->lw ? v->lh : v->sh;

	return (int32_t)(w < h ? w : h);
}

bool blit_follow(struct blitter *b, int rx, int ry)
{
	struct view v = b->view;

	if (!view_pannable(&v))
		return false;
	view_follow(&v, rx, ry, view_side(&v) / BLIT_PAN_MARGIN_DIV);
	return pan_commit(b, &v);
}

bool blit_center(struct blitter *b, int rx, int ry)
{
	struct view v = b->view;

	if (!view_pannable(&v))
		return false;
	view_center(&v, rx, ry);
	return pan_commit(b, &v);
}

bool blit_edge_pan(struct blitter *b, int sx, int sy)
{
	struct view v = b->view;
	int32_t side = view_side(&v);
	int32_t dx, dy;

	if (!view_edge_step(&v, sx, sy, side / BLIT_PAN_MARGIN_DIV,
			    side / BLIT_EDGE_SPEED_DIV, &dx, &dy))
		return false;
	view_pan_to(&v, v.pan_x + dx, v.pan_y + dy);
	return pan_commit(b, &v);
}

void blit_get_view(struct blitter *b, struct view *out)
{
	*out = b->view;
}

bool blit_remote_to_screen(struct blitter *b, const struct rect *r,
			   struct rect *out)
{
	return !b->blank && view_remote_to_screen(&b->view, r, out);
}

void blit_set_blank(struct blitter *b, bool blank)
{
	pthread_mutex_lock(&b->lock);
	b->blank = blank;
	b->full = true;
	pthread_mutex_unlock(&b->lock);
	damage_kick(b->damage);
}

void blit_suspend(struct blitter *b)
{
	pthread_mutex_lock(&b->lock);
	b->suspended = true;
	pthread_mutex_unlock(&b->lock);
}

void blit_resume(struct blitter *b)
{
	pthread_mutex_lock(&b->lock);
	b->suspended = false;
	b->full = true;
	pthread_mutex_unlock(&b->lock);
	damage_kick(b->damage);
}

void blit_screen_to_remote(struct blitter *b, int sx, int sy, int *rx,
			   int *ry)
{
	int32_t x, y;

	view_screen_to_remote(&b->view, sx, sy, &x, &y);
	*rx = x;
	*ry = y;
}

int blit_snapshot_rgb(struct blitter *b, uint8_t *rgb)
{
	struct output *o = b->out;
	struct shadow *s = b->shadow;
	const struct view *v = &b->view;
	unsigned obpp = pixfmt_bytes(&o->fmt), sbpp = pixfmt_bytes(&s->fmt);
	struct rect desk;
	uint32_t x, y;

	pthread_mutex_lock(&b->lock);
	shadow_lock(s);
	if (!view_current(b) || !view_desktop(v, &desk))
		desk = (struct rect){ 0, 0, 0, 0 };
	if (b->scaler)
		scaler_start(b->scaler);
	for (y = 0; y < o->height; y++) {
		uint8_t *d = rgb + (size_t)y * o->width * 3;
		const uint8_t *row = NULL;

		memset(d, 0, (size_t)o->width * 3);
		if (o->readable) {
			for (x = 0; x < o->width; x++, d += 3)
				pixfmt_unpack(&o->fmt,
					      pixfmt_load(&o->fmt,
							  o->map +
								  y * o->stride +
								  x * obpp),
					      &d[0], &d[1], &d[2]);
			continue;
		}
		if (rect_empty(&desk) || (int32_t)y < desk.y ||
		    (int32_t)y >= desk.y + desk.h)
			continue;
		/* The shadow through the same mapping the blitter uses. */
		if (b->scaler) {
			row = scaler_row(b->scaler, s->pix, s->stride,
					 (uint32_t)((int32_t)y - v->dy),
					 (uint32_t)(desk.x - v->dx),
					 (uint32_t)(desk.x - v->dx + desk.w),
					 b->srow);
		} else {
			row = s->pix + (size_t)((int32_t)y - v->dy) * s->stride +
			      (size_t)(desk.x - v->dx) * sbpp;
		}
		d += (size_t)desk.x * 3;
		for (x = 0; x < (uint32_t)desk.w; x++, d += 3)
			pixfmt_unpack(&s->fmt,
				      pixfmt_load(&s->fmt, row + x * sbpp),
				      &d[0], &d[1], &d[2]);
	}
	shadow_unlock(s);
	pthread_mutex_unlock(&b->lock);
	return 0;
}

bool blit_full_pending(struct blitter *b)
{
	return b->full;
}
