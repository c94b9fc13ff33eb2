/* The local cursor, composited at blit time over a clean shadow. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "blit/cursor.h"
#include "output/output.h"
#include "shadow/pixfmt.h"
#include "util/log.h"

void cursor_init(struct cursor *c)
{
	memset(c, 0, sizeof(*c));
}

void cursor_finish(struct cursor *c)
{
	free(c->pix);
	free(c->mask);
	free(c->row);
	memset(c, 0, sizeof(*c));
}

int cursor_set_shape(struct cursor *c, struct shadow *sh, int xhot, int yhot,
		     int w, int h, const uint8_t *pix, const uint8_t *mask)
{
	size_t n = (size_t)w * (size_t)h, bpp = pixfmt_bytes(&sh->fmt);
	uint8_t *p, *m, *row;

	if (w <= 0 || h <= 0 || xhot < 0 || yhot < 0 || xhot >= w || yhot >= h)
		return -EINVAL;
	p = malloc(n * bpp);
	m = malloc(n);
	/* The blitter's rows for blending: the composed run and what
	 * lies under it, allocated here rather than on the blit thread. */
	row = malloc((size_t)w * bpp * 2);
	if (!p || !m || !row) {
		free(p);
		free(m);
		free(row);
		log_error("cannot allocate a %dx%d cursor", w, h);
		return -ENOMEM;
	}
	memcpy(p, pix, n * bpp);
	memcpy(m, mask, n);
	shadow_lock(sh);
	free(c->pix);
	free(c->mask);
	free(c->row);
	c->pix = p;
	c->mask = m;
	c->row = row;
	c->row_size = (size_t)w * bpp;
	c->w = w;
	c->h = h;
	c->xhot = xhot;
	c->yhot = yhot;
	c->dirty = true;
	shadow_unlock(sh);
	return 0;
}

void cursor_move(struct cursor *c, struct shadow *sh, int x, int y)
{
	shadow_lock(sh);
	if (c->x != x || c->y != y) {
		c->x = x;
		c->y = y;
		c->dirty = true;
	}
	shadow_unlock(sh);
}

bool cursor_dirty(struct cursor *c, struct shadow *sh)
{
	bool d;

	shadow_lock(sh);
	d = c->dirty && c->pix;
	shadow_unlock(sh);
	return d;
}

bool cursor_drawn_rect(const struct cursor *c, struct rect *scr)
{
	*scr = c->drawn_rect;
	return c->drawn;
}

void cursor_invalidate(struct cursor *c)
{
	c->dirty = true;
}

/* n pixels of the shape (shadow format, straight colour) with alpha over
 * the screen's under, into out. */
static void blend(const struct pixfmt *f, const uint8_t *pix,
		  const uint8_t *alpha, const uint8_t *under, uint8_t *out,
		  int32_t n)
{
	unsigned bpp = pixfmt_bytes(f);

	for (int32_t i = 0; i < n; i++) {
		size_t o = (size_t)i * bpp;
		unsigned a = alpha[i];
		uint8_t c[3], d[3], m[3];

		if (a == 255) {
			memcpy(out + o, pix + o, bpp);
			continue;
		}
		pixfmt_unpack(f, pixfmt_load(f, pix + o), &c[0], &c[1], &c[2]);
		pixfmt_unpack(f, pixfmt_load(f, under + o), &d[0], &d[1],
			      &d[2]);
		for (int k = 0; k < 3; k++)
			m[k] = (uint8_t)((c[k] * a + d[k] * (255 - a) + 127) /
					 255);
		pixfmt_store(f, out + o, pixfmt_pack(f, m[0], m[1], m[2]));
	}
}

/* The cursor's visible pixels at screen rectangle cur, clipped to the
 * screen: opaque ones as they are, translucent ones blended over what
 * the screen shows from the shadow. Returns the bytes written. */
static uint64_t draw_shape(struct cursor *c, const struct cursor_target *t,
			   const struct rect *cur)
{
	struct output *o = t->out;
	struct shadow *s = t->shadow;
	unsigned obpp = pixfmt_bytes(&o->fmt), sbpp = pixfmt_bytes(&s->fmt);
	bool same = pixfmt_equal(&o->fmt, &s->fmt);
	int32_t cy, x0, x1, run, ow = (int32_t)o->width;
	uint64_t bytes = 0;

	for (cy = 0; cy < cur->h; cy++) {
		int32_t sy = cur->y + cy;
		const uint8_t *m = c->mask + (size_t)cy * (size_t)c->w;
		const uint8_t *p = c->pix + (size_t)cy * (size_t)c->w * sbpp;

		if (sy < 0 || sy >= (int32_t)o->height)
			continue;
		/* Runs of visible pixels: the mapping is never read, so the
		 * transparent ones are simply not written. */
		x0 = 0;
		while (x0 < cur->w) {
			int32_t sx = cur->x + x0, i;
			const uint8_t *src = p + (size_t)x0 * sbpp;
			bool opaque = true;
			uint8_t *dst;

			if (!m[x0] || sx < 0 || sx >= ow) {
				x0++;
				continue;
			}
			x1 = x0;
			while (x1 < cur->w && m[x1] && cur->x + x1 < ow)
				x1++;
			run = x1 - x0;
			for (i = x0; i < x1 && opaque; i++)
				opaque = m[i] == 255;
			if (!opaque) {
				uint8_t *under = c->row + c->row_size;

				t->screen_row(t->ctx, sx, sy, run, under);
				blend(&s->fmt, src, m + x0, under, c->row,
				      run);
				src = c->row;
			}
			dst =
			    o->map + (size_t)sy * o->stride + (size_t)sx * obpp;
			if (same) {
				output_write_row(o, dst, src,
						 (size_t)run * obpp);
			} else {
				pixconv_row(t->conv, t->row, src,
					    (size_t)run);
				output_write_row(o, dst, t->row,
						 (size_t)run * obpp);
			}
			bytes += (uint64_t)run * obpp;
			x0 = x1;
		}
	}
	return bytes;
}

/* Redraw screen rectangle r from the shadow; appends what was written. */
static uint64_t restore(const struct cursor_target *t, const struct rect *r,
			struct rect *out, int *nout)
{
	struct rect scr = *r;
	uint64_t bytes;

	if (!rect_clip(&scr, (int32_t)t->out->width, (int32_t)t->out->height))
		return 0;
	bytes = t->draw_screen(t->ctx, &scr);
	out[(*nout)++] = scr;
	return bytes;
}

uint64_t cursor_blit(struct cursor *c, const struct cursor_target *t,
		     const struct rect *damage, int n, bool full,
		     struct rect *out, int *nout)
{
	struct rect hot = {c->x, c->y, 1, 1}, cur = {0, 0, 0, 0}, old;
	struct rect both, ds;
	uint64_t bytes = 0;
	bool visible, need;
	int i;

	if (!c->pix)
		return 0;
	/* The shape is drawn 1:1 on the screen whatever the scale, with its
	 * hot spot on the screen pixel showing the pointer's remote pixel. */
	visible = t->remote_to_screen(t->ctx, &hot, &hot);
	if (visible)
		cur =
		    (struct rect){hot.x - c->xhot, hot.y - c->yhot, c->w, c->h};
	need = c->dirty || full || c->drawn != visible;
	/* Damage drawn over the cursor erased it there. */
	for (i = 0; i < n && !need && visible; i++)
		need = t->remote_to_screen(t->ctx, &damage[i], &ds) &&
		       rect_intersect(&ds, &cur, &both);
	if (!need)
		return 0;
	old = c->drawn_rect;
	/* After a full redraw the screen is clean already. Otherwise the
	 * old and new places get the shadow back (overlapping ones as one
	 * rectangle), then the shape goes on top. */
	if (!full) {
		if (c->drawn && visible && rect_intersect(&old, &cur, &both)) {
			rect_union(&old, &cur, &both);
			bytes += restore(t, &both, out, nout);
		} else {
			if (c->drawn)
				bytes += restore(t, &old, out, nout);
			if (visible)
				bytes += restore(t, &cur, out, nout);
		}
	}
	if (visible)
		bytes += draw_shape(c, t, &cur);
	c->drawn = visible;
	c->drawn_rect = cur;
	c->dirty = false;
	return bytes;
}
