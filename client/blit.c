/* Blit worker: damage in, rows out. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "blit.h"
#include "log.h"
#include "platform.h"

int blit_init(struct blitter *b, struct output *out, struct shadow *sh,
	      struct damage *d, int cpu)
{
	memset(b, 0, sizeof(*b));
	b->out = out;
	b->shadow = sh;
	b->damage = d;
	b->cpu = cpu;
	atomic_init(&b->actual_cpu, -1);
	atomic_init(&b->pin_error, 0);
	atomic_init(&b->passes, 0);
	atomic_init(&b->bytes_total, 0);
	b->full = true;
	/* One output row: conversion buffer and source of black. */
	b->row_size = out->stride > (size_t)out->width * 4
			      ? out->stride
			      : (size_t)out->width * 4;
	b->row = calloc(1, b->row_size);
	return b->row ? 0 : -ENOMEM;
}

void blit_finish(struct blitter *b)
{
	free(b->row);
	b->row = NULL;
}

static void fill_black(struct blitter *b, const struct rect *r)
{
	struct output *o = b->out;
	unsigned bpp = pixfmt_bytes(&o->fmt);
	int32_t y;

	memset(b->row, 0, (size_t)r->w * bpp);
	for (y = r->y; y < r->y + r->h; y++)
		output_write_row(o, o->map + (size_t)y * o->stride +
					    (size_t)r->x * bpp,
				 b->row, (size_t)r->w * bpp);
}

/* Copy remote rectangle r (clipped to the shadow) to the screen. Returns
 * bytes written. */
static uint64_t copy_rect(struct blitter *b, const struct rect *in)
{
	struct output *o = b->out;
	struct shadow *s = b->shadow;
	struct rect r = *in, scr, view;
	unsigned obpp = pixfmt_bytes(&o->fmt), sbpp = pixfmt_bytes(&s->fmt);
	bool same = pixfmt_equal(&o->fmt, &s->fmt);
	int32_t y;

	if (!rect_clip(&r, (int32_t)s->width, (int32_t)s->height))
		return 0;
	scr = (struct rect){ r.x + b->ox, r.y + b->oy, r.w, r.h };
	view = (struct rect){ 0, 0, (int32_t)o->width, (int32_t)o->height };
	if (!rect_intersect(&scr, &view, &scr))
		return 0;
	for (y = 0; y < scr.h; y++) {
		const uint8_t *src =
			s->pix + (size_t)(scr.y - b->oy + y) * s->stride +
			(size_t)(scr.x - b->ox) * sbpp;
		uint8_t *dst = o->map + (size_t)(scr.y + y) * o->stride +
			       (size_t)scr.x * obpp;

		if (same) {
			output_write_row(o, dst, src, (size_t)scr.w * obpp);
		} else {
			pixfmt_convert_row(&o->fmt, b->row, &s->fmt, src,
					   (size_t)scr.w);
			output_write_row(o, dst, b->row, (size_t)scr.w * obpp);
		}
	}
	return (uint64_t)scr.w * scr.h * obpp;
}

/* Everything outside the remote desktop is black. */
static uint64_t draw_borders(struct blitter *b)
{
	struct output *o = b->out;
	struct rect desk = { b->ox, b->oy, (int32_t)b->shadow->width,
			     (int32_t)b->shadow->height };
	struct rect view = { 0, 0, (int32_t)o->width, (int32_t)o->height };
	struct rect in, parts[4];
	uint64_t bytes = 0;
	int i;

	if (!rect_intersect(&desk, &view, &in)) {
		fill_black(b, &view);
		return rect_area(&view) * pixfmt_bytes(&o->fmt);
	}
	parts[0] = (struct rect){ 0, 0, view.w, in.y };
	parts[1] = (struct rect){ 0, in.y + in.h, view.w,
				  view.h - in.y - in.h };
	parts[2] = (struct rect){ 0, in.y, in.x, in.h };
	parts[3] = (struct rect){ in.x + in.w, in.y, view.w - in.x - in.w,
				  in.h };
	for (i = 0; i < 4; i++) {
		if (rect_empty(&parts[i]))
			continue;
		fill_black(b, &parts[i]);
		bytes += rect_area(&parts[i]) * pixfmt_bytes(&o->fmt);
	}
	return bytes;
}

void blit_pass(struct blitter *b, const struct damage_set *set,
	       struct blit_stats *st)
{
	struct rect out_rects[DAMAGE_MAX_RECTS + 1];
	int i, n = 0;
	uint64_t bytes = 0;

	pthread_mutex_lock(&b->shadow->lock);
	st->start_ns = monotonic_ns();
	if (b->suspended) {
		pthread_mutex_unlock(&b->shadow->lock);
		st->end_ns = st->start_ns;
		st->bytes = 0;
		return;
	}
	if (b->full) {
		struct rect all = { 0, 0, (int32_t)b->shadow->width,
				    (int32_t)b->shadow->height };

		b->full = false;
		bytes += draw_borders(b);
		bytes += copy_rect(b, &all);
		out_rects[n++] = (struct rect){ 0, 0, (int32_t)b->out->width,
						(int32_t)b->out->height };
	} else {
		for (i = 0; i < set->n; i++) {
			struct rect r = set->rects[i];

			bytes += copy_rect(b, &r);
			r.x += b->ox;
			r.y += b->oy;
			if (rect_clip(&r, (int32_t)b->out->width,
				      (int32_t)b->out->height))
				out_rects[n++] = r;
		}
	}
	if (b->out->impl->flush && n > 0)
		b->out->impl->flush(b->out, out_rects, n);
	st->end_ns = monotonic_ns();
	pthread_mutex_unlock(&b->shadow->lock);
	st->bytes = bytes;
	st->rects = n;
	st->kick_ns = set->kick_ns;
	st->kicks = set->kicks;
	atomic_fetch_add(&b->passes, 1);
	atomic_fetch_add(&b->bytes_total, bytes);
}

static void *worker(void *arg)
{
	struct blitter *b = arg;
	struct damage_set set;

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
	}
	return NULL;
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
	pthread_mutex_lock(&b->damage->lock);
	set = b->damage->set;
	memset(&b->damage->set, 0, sizeof(b->damage->set));
	pthread_mutex_unlock(&b->damage->lock);
	memset(&st, 0, sizeof(st));
	if (set.n > 0 || b->full)
		blit_pass(b, &set, &st);
}

void blit_reset_view(struct blitter *b)
{
	struct output *o = b->out;
	struct shadow *s = b->shadow;

	pthread_mutex_lock(&s->lock);
	/* Smaller remote: centred. Larger: its top-left corner. */
	b->ox = s->width < o->width ? (int32_t)(o->width - s->width) / 2 : 0;
	b->oy = s->height < o->height ? (int32_t)(o->height - s->height) / 2
				      : 0;
	b->full = true;
	pthread_mutex_unlock(&s->lock);
}

void blit_suspend(struct blitter *b)
{
	pthread_mutex_lock(&b->shadow->lock);
	b->suspended = true;
	pthread_mutex_unlock(&b->shadow->lock);
}

void blit_resume(struct blitter *b)
{
	pthread_mutex_lock(&b->shadow->lock);
	b->suspended = false;
	b->full = true;
	pthread_mutex_unlock(&b->shadow->lock);
	damage_kick(b->damage);
}

void blit_screen_to_remote(struct blitter *b, int sx, int sy, int *rx,
			   int *ry)
{
	int32_t w = (int32_t)b->shadow->width, h = (int32_t)b->shadow->height;
	int x = sx - b->ox, y = sy - b->oy;

	if (x >= w)
		x = w - 1;
	if (y >= h)
		y = h - 1;
	*rx = x < 0 ? 0 : x;
	*ry = y < 0 ? 0 : y;
}

int blit_snapshot_rgb(struct blitter *b, uint8_t *rgb)
{
	struct output *o = b->out;
	struct shadow *s = b->shadow;
	unsigned obpp = pixfmt_bytes(&o->fmt), sbpp = pixfmt_bytes(&s->fmt);
	uint32_t x, y;

	pthread_mutex_lock(&s->lock);
	for (y = 0; y < o->height; y++) {
		uint8_t *d = rgb + (size_t)y * o->width * 3;

		for (x = 0; x < o->width; x++, d += 3) {
			int64_t rx = (int64_t)x - b->ox, ry = (int64_t)y - b->oy;

			if (o->readable) {
				pixfmt_unpack(&o->fmt,
					      pixfmt_load(&o->fmt,
							  o->map +
								  y * o->stride +
								  x * obpp),
					      &d[0], &d[1], &d[2]);
			} else if (rx >= 0 && ry >= 0 && rx < s->width &&
				   ry < s->height && s->pix) {
				pixfmt_unpack(
					&s->fmt,
					pixfmt_load(&s->fmt,
						    s->pix + ry * s->stride +
							    rx * sbpp),
					&d[0], &d[1], &d[2]);
			} else {
				d[0] = d[1] = d[2] = 0;
			}
		}
	}
	pthread_mutex_unlock(&s->lock);
	return 0;
}
