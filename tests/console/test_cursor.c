/* The local cursor: composited over the shadow at blit time, its old
 * place restored, the shadow left clean, clipped at the edges, in the
 * memcpy and the converting blit paths. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blit/blit.h"
#include "blit/cursor.h"
#include "shadow/damage.h"
#include "output/output.h"
#include "shadow/shadow.h"

#define W 64
#define H 48
#define CW 5
#define CH 4

static int failures;

/* Mask: a hole in the middle of each row, to check transparency. */
static bool opaque(int cx, int cy)
{
	return cx != 2 || cy == 0;
}

static void pattern(struct shadow *sh, int salt)
{
	uint32_t x, y;

	for (y = 0; y < sh->height; y++)
		for (x = 0; x < sh->width; x++)
			pixfmt_store(
			    &sh->fmt,
			    sh->pix + y * sh->stride +
				x * pixfmt_bytes(&sh->fmt),
			    pixfmt_pack(&sh->fmt, (uint8_t)(x * 4 + salt),
					(uint8_t)(y * 5), (uint8_t)(x ^ y)));
}

/* The colour of pixel x,y of a picture in format f (the screen's mapping
 * or the shadow), 8 bits a channel. */
static void unpack_at(const struct pixfmt *f, const uint8_t *map, size_t stride,
		      uint32_t x, uint32_t y, uint8_t *r, uint8_t *g,
		      uint8_t *b)
{
	pixfmt_unpack(f, pixfmt_load(f, map + y * stride + x * pixfmt_bytes(f)),
		      r, g, b);
}

/* The screen must be the shadow with the cursor at (cx, cy) on top. */
static void check(struct output *out, struct shadow *sh, int hx, int hy,
		  const char *what)
{
	uint32_t x, y, bad = 0;
	uint8_t r, g, b, er, eg, eb;

	for (y = 0; y < H; y++) {
		for (x = 0; x < W; x++) {
			int cx = (int)x - (hx - 1), cy = (int)y - (hy - 1);

			unpack_at(&out->fmt, out->map, out->stride, x, y, &r,
				  &g, &b);
			if (cx >= 0 && cy >= 0 && cx < CW && cy < CH &&
			    opaque(cx, cy)) {
				pixfmt_unpack(&sh->fmt,
					      pixfmt_pack(&sh->fmt, 255, 0,
							  (uint8_t)(cy * 16)),
					      &er, &eg, &eb);
			} else {
				unpack_at(&sh->fmt, sh->pix, sh->stride, x, y,
					  &er, &eg, &eb);
			}
			if (r != er || g != eg || b != eb) {
				if (!bad)
					printf("FAIL %s: pixel %u,%u is "
					       "%u,%u,%u, expected %u,%u,%u\n",
					       what, x, y, r, g, b, er, eg, eb);
				bad++;
			}
		}
	}
	if (bad)
		failures++;
}

static void pass(struct blitter *b, const struct rect *dmg)
{
	struct damage_set set;
	struct blit_stats st;

	memset(&set, 0, sizeof(set));
	if (dmg) {
		set.rects[0] = *dmg;
		set.n = 1;
	}
	memset(&st, 0, sizeof(st));
	blit_pass(b, &set, &st);
}

/* What every run works on: the screen out; a shadow in out's format, the
 * screen's size over zoom, holding pattern(salt); a blitter b drawing it
 * with cursor c onto out; and, where the run asks for one, ref: the same
 * shadow through a blitter without a cursor, to compare with. */
struct rig {
	struct output out, ref;
	struct shadow sh;
	struct damage dmg;
	struct blitter *b;
	struct cursor c;
	struct pixfmt sfmt;
	bool has_ref;
};

static struct blitter *rig_blitter(struct rig *r, struct output *o,
				   unsigned zoom)
{
	struct blitter *b = blit_create(o, &r->sh, &r->dmg, -1);

	if (zoom > 1)
		blit_set_scale(b, SCALE_ZOOM, zoom);
	blit_reset_view(b);
	return b;
}

static int rig_open(struct rig *r, const char *spec, unsigned zoom, int salt,
		    bool with_ref)
{
	memset(r, 0, sizeof(*r));
	if (output_open(&r->out, spec) < 0) {
		printf("FAIL: output %s\n", spec);
		failures++;
		return -1;
	}
	if (with_ref && output_open(&r->ref, spec) < 0) {
		printf("FAIL: output %s\n", spec);
		failures++;
		output_close(&r->out);
		return -1;
	}
	r->has_ref = with_ref;
	pixfmt_shadow_for(&r->out.fmt, &r->sfmt);
	shadow_init(&r->sh, &r->sfmt);
	shadow_resize(&r->sh, W / (int)zoom, H / (int)zoom);
	pattern(&r->sh, salt);
	damage_init(&r->dmg);
	if (with_ref) {
		struct blitter *b = rig_blitter(r, &r->ref, zoom);

		pass(b, NULL);
		blit_destroy(b);
	}
	r->b = rig_blitter(r, &r->out, zoom);
	cursor_init(&r->c);
	blit_set_cursor(r->b, &r->c);
	return 0;
}

/* In the reverse of the order rig_open set things up. */
static void rig_close(struct rig *r)
{
	cursor_finish(&r->c);
	blit_destroy(r->b);
	damage_finish(&r->dmg);
	shadow_finish(&r->sh);
	output_close(&r->out);
	if (r->has_ref)
		output_close(&r->ref);
}

static void run(const char *spec)
{
	struct rig r;
	uint8_t pix[CW * CH * 4], mask[CW * CH], *clean;
	struct rect all = {0, 0, W, H};
	char what[96];
	int x, y;

	if (rig_open(&r, spec, 1, 0, false) < 0)
		return;
	for (y = 0; y < CH; y++)
		for (x = 0; x < CW; x++) {
			pixfmt_store(
			    &r.sfmt, pix + (y * CW + x) * pixfmt_bytes(&r.sfmt),
			    pixfmt_pack(&r.sfmt, 255, 0, (uint8_t)(y * 16)));
			mask[y * CW + x] = opaque(x, y) ? 255 : 0;
		}
	clean = malloc(r.sh.stride * H);
	memcpy(clean, r.sh.pix, r.sh.stride * H);

	/* Hot spot (1,1). No shape yet: nothing drawn. */
	cursor_move(&r.c, &r.sh, 10, 10);
	pass(r.b, NULL);
	check(&r.out, &r.sh, -100, -100, "no shape");
	cursor_set_shape(&r.c, &r.sh, 1, 1, CW, CH, pix, mask);
	pass(r.b, NULL);
	snprintf(what, sizeof(what), "%s shape at 10,10", spec);
	check(&r.out, &r.sh, 10, 10, what);
	/* Overlapping move, far move: the old place comes back. */
	cursor_move(&r.c, &r.sh, 12, 11);
	pass(r.b, NULL);
	snprintf(what, sizeof(what), "%s overlapping move", spec);
	check(&r.out, &r.sh, 12, 11, what);
	cursor_move(&r.c, &r.sh, 40, 30);
	pass(r.b, NULL);
	snprintf(what, sizeof(what), "%s far move", spec);
	check(&r.out, &r.sh, 40, 30, what);
	/* Damage under the cursor: new pixels, cursor still on top. */
	cursor_move(&r.c, &r.sh, 22, 22);
	pass(r.b, NULL);
	pattern(&r.sh, 7);
	memcpy(clean, r.sh.pix, r.sh.stride * H);
	pass(r.b, &all);
	snprintf(what, sizeof(what), "%s damage under the cursor", spec);
	check(&r.out, &r.sh, 22, 22, what);
	/* Edges: clipped, no overrun. */
	cursor_move(&r.c, &r.sh, W - 1, H - 1);
	pass(r.b, NULL);
	snprintf(what, sizeof(what), "%s bottom-right corner", spec);
	check(&r.out, &r.sh, W - 1, H - 1, what);
	cursor_move(&r.c, &r.sh, 0, 0);
	pass(r.b, NULL);
	snprintf(what, sizeof(what), "%s top-left corner", spec);
	check(&r.out, &r.sh, 0, 0, what);
	if (memcmp(clean, r.sh.pix, r.sh.stride * H) != 0) {
		printf("FAIL %s: the cursor was drawn into the shadow\n", spec);
		failures++;
	}
	free(clean);
	rig_close(&r);
}

/* Zoomed 2x (a 32x24 desktop on the 64x48 screen): the shape stays 1:1,
 * its hot spot on the screen pixel where the pointer's remote pixel
 * starts, and moving it gives back exactly the scaled picture. */
static void run_zoomed(void)
{
	struct rig r;
	uint8_t pix[CW * CH * 4], mask[CW * CH];
	size_t bytes;
	int x, y, bad = 0;

	if (rig_open(&r, "mem:64x48", 2, 3, true) < 0)
		return;
	for (y = 0; y < CH; y++)
		for (x = 0; x < CW; x++) {
			pixfmt_store(&r.sfmt, pix + (y * CW + x) * 4,
				     pixfmt_pack(&r.sfmt, 255, 0, 0));
			mask[y * CW + x] = opaque(x, y) ? 255 : 0;
		}
	cursor_set_shape(&r.c, &r.sh, 1, 1, CW, CH, pix, mask);
	cursor_move(&r.c, &r.sh, 10, 7);
	pass(r.b, NULL);
	/* Remote 10,7 starts at screen 20,14; the shape's 0,0 at 19,13. */
	for (y = 0; y < H; y++)
		for (x = 0; x < W; x++) {
			int cx = x - 19, cy = y - 13;
			bool in = cx >= 0 && cy >= 0 && cx < CW && cy < CH &&
				  opaque(cx, cy);
			uint32_t got = pixfmt_load(
			    &r.out.fmt, r.out.map + y * r.out.stride + x * 4);
			uint32_t want =
			    in ? pixfmt_pack(&r.out.fmt, 255, 0, 0)
			       : pixfmt_load(&r.ref.fmt, r.ref.map +
							     y * r.ref.stride +
							     x * 4);

			if (got != want && !bad++)
				printf("FAIL zoomed: pixel %d,%d is %06x, "
				       "expected %06x\n",
				       x, y, got, want);
		}
	/* Moved off: the zoomed picture comes back exactly. */
	cursor_move(&r.c, &r.sh, 30, 22);
	pass(r.b, NULL);
	cursor_move(&r.c, &r.sh, 31, 23);
	pass(r.b, NULL);
	bytes = (size_t)r.out.stride * (H - 8);
	if (memcmp(r.out.map, r.ref.map, bytes) != 0 && !bad++)
		printf("FAIL zoomed: old place not restored\n");
	if (bad)
		failures++;
	rig_close(&r);
}

/* A translucent shape (CursorWithAlpha's): each pixel the straight colour
 * blended over what the screen shows from the shadow, 1:1 and zoomed 2x,
 * and the picture back exactly once it moves away. Within a step of the
 * output's channels (plus rounding) of the double-precision blend of
 * the colours the formats hold. */
static void run_alpha(const char *spec, unsigned zoom)
{
	enum { AW = 16, AH = 12 };
	struct rig r;
	uint8_t pix[AW * AH * 4], alpha[AW * AH];
	int x, y, bad = 0, tol;

	if (rig_open(&r, spec, zoom, 5, true) < 0)
		return;
	/* Alpha across each row from 0 to 255, colours varying. */
	for (y = 0; y < AH; y++)
		for (x = 0; x < AW; x++) {
			pixfmt_store(&r.sfmt,
				     pix + (y * AW + x) * pixfmt_bytes(&r.sfmt),
				     pixfmt_pack(&r.sfmt, (uint8_t)(x * 16),
						 (uint8_t)(255 - y * 20), 200));
			alpha[y * AW + x] = (uint8_t)(x * 17);
		}
	cursor_set_shape(&r.c, &r.sh, 0, 0, AW, AH, pix, alpha);
	cursor_move(&r.c, &r.sh, 20 / (int)zoom, 10 / (int)zoom);
	pass(r.b, NULL);
	tol = 255 / ((1 << r.out.fmt.r_bits) - 1) + 1;
	for (y = 0; y < H; y++)
		for (x = 0; x < W; x++) {
			unsigned obpp = pixfmt_bytes(&r.out.fmt);
			int cx = x - 20, cy = y - 10, k;
			uint8_t got[3], under[3];
			double want[3];

			pixfmt_unpack(&r.out.fmt,
				      pixfmt_load(&r.out.fmt,
						  r.out.map + y * r.out.stride +
						      x * obpp),
				      &got[0], &got[1], &got[2]);
			pixfmt_unpack(&r.ref.fmt,
				      pixfmt_load(&r.ref.fmt,
						  r.ref.map + y * r.ref.stride +
						      x * obpp),
				      &under[0], &under[1], &under[2]);
			for (k = 0; k < 3; k++)
				want[k] = under[k];
			if (cx >= 0 && cy >= 0 && cx < AW && cy < AH) {
				double a = alpha[cy * AW + cx] / 255.0;
				uint8_t col[3];

				/* The colour as the shadow's format holds
				 * it. */
				pixfmt_unpack(
				    &r.sfmt,
				    pixfmt_load(&r.sfmt,
						pix +
						    (cy * AW + cx) *
							pixfmt_bytes(&r.sfmt)),
				    &col[0], &col[1], &col[2]);
				for (k = 0; k < 3; k++)
					want[k] = col[k] * a +
						  under[k] * (1 - a);
			}
			for (k = 0; k < 3; k++)
				if (got[k] < want[k] - tol ||
				    got[k] > want[k] + tol) {
					if (!bad++)
						printf("FAIL alpha %s x%u: "
						       "pixel %d,%d channel %d "
						       "is %u, expected %.1f\n",
						       spec, zoom, x, y, k,
						       got[k], want[k]);
				}
		}
	/* Fully transparent column 0 left the screen as it was. */
	if (memcmp(
		r.out.map + 12 * r.out.stride + 20 * pixfmt_bytes(&r.out.fmt),
		r.ref.map + 12 * r.ref.stride + 20 * pixfmt_bytes(&r.ref.fmt),
		pixfmt_bytes(&r.out.fmt)) != 0 &&
	    !bad++)
		printf("FAIL alpha %s x%u: alpha 0 drew\n", spec, zoom);
	cursor_move(&r.c, &r.sh, 0, 0);
	pass(r.b, NULL);
	cursor_move(&r.c, &r.sh, 1, 1);
	pass(r.b, NULL);
	for (y = 20; y < H; y++)
		if (memcmp(r.out.map + y * r.out.stride,
			   r.ref.map + y * r.ref.stride,
			   (size_t)W * pixfmt_bytes(&r.out.fmt)) != 0 &&
		    !bad++)
			printf("FAIL alpha %s x%u: row %d not restored\n",
			       spec, zoom, y);
	if (bad)
		failures++;
	rig_close(&r);
}

int main(void)
{
	run("mem:64x48");
	run("mem:64x48:rgb565");
	run("mem:64x48:rgb888"); /* shadow xrgb8888, converted */
	run_zoomed();
	run_alpha("mem:64x48", 1);
	run_alpha("mem:64x48:rgb565", 1);
	run_alpha("mem:64x48:rgb888", 1);
	run_alpha("mem:64x48", 2);
	if (failures) {
		printf("%d failures\n", failures);
		return 1;
	}
	printf("cursor: all passed\n");
	return 0;
}
