/* Rotated outputs: the logical stand-in for a turned panel, its
 * geometry and the --rotate spec. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "output/rotate.h"
#include "output/rotkern.h"

/* --- the spec --- */

/* One angle word at s (n bytes): 0, 90, 180 or 270. */
static int parse_angle(const char *s, size_t n, enum rotation *rot)
{
	static const char *const angles[] = { "0", "90", "180", "270" };
	unsigned i;

	for (i = 0; i < 4; i++)
		if (strlen(angles[i]) == n && !strncmp(s, angles[i], n)) {
			*rot = (enum rotation)i;
			return 0;
		}
	return -EINVAL;
}

int rotate_lookup(const char *spec, const char *name, enum rotation *rot,
		  char *why, size_t len)
{
	const char *p = spec, *w = NULL;
	bool bare = false, named = false;
	enum rotation deflt = ROT_0, found = ROT_0, r;

	*rot = ROT_0;
	if (!spec)
		return 0;
	for (;;) {
		const char *colon;
		size_t n;

		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			break;
		w = p;
		n = strcspn(p, " \t");
		p += n;
		colon = memchr(w, ':', n);
		if (!colon) {
			if (bare) {
				snprintf(why, len, "one angle "
					 "without a connector name at most");
				return -EINVAL;
			}
			if (parse_angle(w, n, &deflt) < 0)
				goto bad_angle;
			bare = true;
			continue;
		}
		if (colon == w) {
			snprintf(why, len, "a connector name before "
				 "the colon (\"HDMI-A-1:90\")");
			return -EINVAL;
		}
		if (parse_angle(colon + 1, n - (size_t)(colon + 1 - w), &r) < 0) {
			w = colon + 1;
			goto bad_angle;
		}
		if (name && strlen(name) == (size_t)(colon - w) &&
		    !strncasecmp(name, w, (size_t)(colon - w)) && !named) {
			found = r;
			named = true;
		}
	}
	*rot = named ? found : deflt;
	return 0;

bad_angle:
	snprintf(why, len, "expected 0, 90, 180 or 270 (clockwise "
		 "degrees), or NAME:ANGLE ..., not \"%.*s\"", (int)strcspn(w, " \t"),
		 w);
	return -EINVAL;
}

int rotate_check(const char *spec, char *why, size_t len)
{
	enum rotation r;

	return rotate_lookup(spec, NULL, &r, why, len);
}

unsigned rotate_degrees(enum rotation rot)
{
	return 90u * (unsigned)rot;
}

/* --- geometry --- */

void rotate_size(enum rotation rot, uint32_t pw, uint32_t ph, uint32_t *lw,
		 uint32_t *lh)
{
	bool turn = rot == ROT_90 || rot == ROT_270;

	*lw = turn ? ph : pw;
	*lh = turn ? pw : ph;
}

struct rect rotate_rect(enum rotation rot, uint32_t lw, uint32_t lh,
			const struct rect *r)
{
	int32_t w = (int32_t)lw, h = (int32_t)lh;

	switch (rot) {
	case ROT_90:
		return (struct rect){ h - r->y - r->h, r->x, r->h, r->w };
	case ROT_180:
		return (struct rect){ w - r->x - r->w, h - r->y - r->h, r->w,
				      r->h };
	case ROT_270:
		return (struct rect){ r->y, w - r->x - r->w, r->h, r->w };
	default:
		return *r;
	}
}

void rotate_fraction(enum rotation rot, double fx, double fy, double *lx,
		     double *ly)
{
	/* lx, ly may be where fx, fy came from. */
	double px = fx, py = fy;

	switch (rot) {
	case ROT_90:
		*lx = py;
		*ly = 1 - px;
		break;
	case ROT_180:
		*lx = 1 - px;
		*ly = 1 - py;
		break;
	case ROT_270:
		*lx = 1 - py;
		*ly = px;
		break;
	default:
		*lx = px;
		*ly = py;
	}
}

/* --- the output --- */

/* The block rotate_put turns at a time: a tile of the panel that stays in
 * the first-level cache (64 x 64 pixels of 4 bytes: 16 KiB), its rows
 * long enough for streaming stores (output_copy_stream). */
#define TILE 64

void rotout_put(struct rotout *r, int32_t x, int32_t y, const uint8_t *src,
		size_t sstride, uint32_t w, uint32_t h)
{
	struct output *p = r->phys;
	/* Aligned for the kernels' 16-byte stores. */
	static _Thread_local uint8_t tile[TILE * TILE * 4]
		__attribute__((aligned(64)));
	unsigned bpp = r->bpp;
	/* Straight onto a panel of plain memory that the blitter alone
	 * writes (output_direct), with streaming stores, where the kernel
	 * can (rotate_block_stream): a half turn in one go, its rows read
	 * in order. Else into the tile, whose rows the panel's writer
	 * takes. A quarter turn a tile at a time either way: the tile's
	 * source rows stay in the first-level cache. */
	bool stream = output_direct(p) && rotate_can_stream(bpp);
	uint32_t th = stream && r->rot == ROT_180 ? h : TILE;
	uint32_t tw = stream && r->rot == ROT_180 ? w : TILE;
	uint32_t bx, by;

	for (by = 0; by < h; by += th) {
		uint32_t bh = h - by < th ? h - by : th;

		for (bx = 0; bx < w; bx += tw) {
			uint32_t bw = w - bx < tw ? w - bx : tw;
			struct rect lr = { x + (int32_t)bx, y + (int32_t)by,
					   (int32_t)bw, (int32_t)bh };
			struct rect pr = rotate_rect(r->rot, r->out.width,
						     r->out.height, &lr);
			const uint8_t *s = src + by * sstride +
					   (size_t)bx * bpp;
			uint8_t *d = p->map + (size_t)pr.y * p->stride +
				     (size_t)pr.x * bpp;
			size_t tstride = (size_t)pr.w * bpp;
			int32_t row;

			if (stream) {
				rotate_block_stream(d, p->stride, s, sstride,
						    bw, bh, bpp,
						    (unsigned)r->rot);
				continue;
			}
			rotate_block(tile, tstride, s, sstride, bw, bh, bpp,
				     (unsigned)r->rot);
			for (row = 0; row < pr.h; row++)
				output_write_row(p, d + (size_t)row * p->stride,
						 tile + (size_t)row * tstride,
						 tstride);
		}
	}
	if (stream)
		output_copy_stream_end();
}

/* A logical row at dst (inside the logical mapping) goes to the panel. */
static void rot_write_row(struct output *out, uint8_t *dst,
			  const uint8_t *src, size_t len)
{
	struct rotout *r = (struct rotout *)out;
	size_t off = (size_t)(dst - out->map);
	int32_t y = (int32_t)(off / out->stride);
	int32_t x = (int32_t)(off % out->stride / r->bpp);

	rotout_put(r, x, y, src, len, (uint32_t)(len / r->bpp), 1);
}

static enum output_buffer rot_begin(struct output *out)
{
	struct rotout *r = (struct rotout *)out;
	enum output_buffer b = output_begin(r->phys);

	out->map = r->phys->map;
	return b;
}

static void rot_present(struct output *out, const struct rect *rects, int n)
{
	struct rotout *r = (struct rotout *)out;
	struct rect pr[64];
	int i, k;

	/* The panel hears of every rectangle, a batch at a time; the hooks
	 * take any n (a damage list, or flip everything). */
	for (i = 0; i < n; i += k) {
		for (k = 0; k < 64 && i + k < n; k++)
			pr[k] = rotate_rect(r->rot, out->width, out->height,
					    &rects[i + k]);
		output_present(r->phys, pr, k);
	}
}

static uint64_t rot_finish(struct output *out)
{
	return output_finish(((struct rotout *)out)->phys);
}

static bool rot_direct(struct output *out)
{
	(void)out;
	return false;
}

static int rot_open(struct output *out, const char *arg)
{
	(void)out;
	(void)arg;
	return -ENOTSUP;
}

static void rot_close(struct output *out)
{
	(void)out;
}

/* Two tables: output_live is whether begin is there, and a turned live
 * panel is live. */
const struct output_impl rotout_impl = {
	.name = "rotated",
	.open = rot_open,
	.close = rot_close,
	.write_row = rot_write_row,
	.direct = rot_direct,
	.begin = rot_begin,
	.present = rot_present,
	.finish = rot_finish,
};

const struct output_impl rotout_live_impl = {
	.name = "rotated",
	.open = rot_open,
	.close = rot_close,
	.write_row = rot_write_row,
	.direct = rot_direct,
	.present = rot_present,
};

void rotout_init(struct rotout *r, struct output *phys, enum rotation rot)
{
	struct output *o = &r->out;

	memset(r, 0, sizeof(*r));
	r->phys = phys;
	r->rot = rot;
	r->bpp = pixfmt_bytes(&phys->fmt);
	o->impl = output_live(phys) ? &rotout_live_impl : &rotout_impl;
	rotate_size(rot, phys->width, phys->height, &o->width, &o->height);
	/* Logical rows are packed: the logical picture's bytes are no more
	 * than the panel's mapping, so an address inside the one is inside
	 * the other (rot_write_row reads its place from it, never the
	 * pixels). */
	o->stride = (size_t)o->width * r->bpp;
	o->fmt = phys->fmt;
	o->map = phys->map;
	o->readable = false;
	o->fd = -1;
	o->slow_cpu = phys->slow_cpu;
	o->phys_start = phys->phys_start;
	o->phys_len = phys->phys_len;
	memcpy(o->name, phys->name, sizeof(o->name));
	o->waiting = phys->waiting;
	memcpy(o->why, phys->why, sizeof(o->why));
}
