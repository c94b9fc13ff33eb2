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

/* What every run ends with, in the reverse of the order it set things up;
 * ref, the cursorless reference screen, where the run has one. */
static void teardown(struct cursor *c, struct blitter *b, struct damage *dmg,
		     struct shadow *sh, struct output *out, struct output *ref)
{
	cursor_finish(c);
	blit_destroy(b);
	damage_finish(dmg);
	shadow_finish(sh);
	output_close(out);
	if (ref)
		output_close(ref);
}

static void run(const char *spec)
{
	struct output out;
	struct shadow sh;
	struct damage dmg;
	struct blitter *b;
	struct cursor c;
	struct pixfmt sfmt;
	uint8_t pix[CW * CH * 4], mask[CW * CH], *clean;
	struct rect all = {0, 0, W, H};
	char what[96];
	int x, y;

	if (output_open(&out, spec) < 0) {
		printf("FAIL: output %s\n", spec);
		failures++;
		return;
	}
	pixfmt_shadow_for(&out.fmt, &sfmt);
	shadow_init(&sh, &sfmt);
	shadow_resize(&sh, W, H);
	pattern(&sh, 0);
	damage_init(&dmg);
	b = blit_create(&out, &sh, &dmg, -1);
	blit_reset_view(b);
	cursor_init(&c);
	blit_set_cursor(b, &c);
	for (y = 0; y < CH; y++)
		for (x = 0; x < CW; x++) {
			pixfmt_store(
			    &sfmt, pix + (y * CW + x) * pixfmt_bytes(&sfmt),
			    pixfmt_pack(&sfmt, 255, 0, (uint8_t)(y * 16)));
			mask[y * CW + x] = opaque(x, y) ? 255 : 0;
		}
	clean = malloc(sh.stride * H);
	memcpy(clean, sh.pix, sh.stride * H);

	/* Hot spot (1,1). No shape yet: nothing drawn. */
	cursor_move(&c, &sh, 10, 10);
	pass(b, NULL);
	check(&out, &sh, -100, -100, "no shape");
	cursor_set_shape(&c, &sh, 1, 1, CW, CH, pix, mask);
	pass(b, NULL);
	snprintf(what, sizeof(what), "%s shape at 10,10", spec);
	check(&out, &sh, 10, 10, what);
	/* Overlapping move, far move: the old place comes back. */
	cursor_move(&c, &sh, 12, 11);
	pass(b, NULL);
	snprintf(what, sizeof(what), "%s overlapping move", spec);
	check(&out, &sh, 12, 11, what);
	cursor_move(&c, &sh, 40, 30);
	pass(b, NULL);
	snprintf(what, sizeof(what), "%s far move", spec);
	check(&out, &sh, 40, 30, what);
	/* Damage under the cursor: new pixels, cursor still on top. */
	cursor_move(&c, &sh, 22, 22);
	pass(b, NULL);
	pattern(&sh, 7);
	memcpy(clean, sh.pix, sh.stride * H);
	pass(b, &all);
	snprintf(what, sizeof(what), "%s damage under the cursor", spec);
	check(&out, &sh, 22, 22, what);
	/* Edges: clipped, no overrun. */
	cursor_move(&c, &sh, W - 1, H - 1);
	pass(b, NULL);
	snprintf(what, sizeof(what), "%s bottom-right corner", spec);
	check(&out, &sh, W - 1, H - 1, what);
	cursor_move(&c, &sh, 0, 0);
	pass(b, NULL);
	snprintf(what, sizeof(what), "%s top-left corner", spec);
	check(&out, &sh, 0, 0, what);
	if (memcmp(clean, sh.pix, sh.stride * H) != 0) {
		printf("FAIL %s: the cursor was drawn into the shadow\n", spec);
		failures++;
	}
	free(clean);
	teardown(&c, b, &dmg, &sh, &out, NULL);
}

/* Zoomed 2x (a 32x24 desktop on the 64x48 screen): the shape stays 1:1,
 * its hot spot on the screen pixel where the pointer's remote pixel
 * starts, and moving it gives back exactly the scaled picture. */
static void run_zoomed(void)
{
	struct output out, ref;
	struct shadow sh;
	struct damage dmg;
	struct blitter *b;
	struct cursor c;
	struct pixfmt sfmt;
	uint8_t pix[CW * CH * 4], mask[CW * CH];
	size_t bytes;
	int x, y, bad = 0;

	output_open(&out, "mem:64x48");
	output_open(&ref, "mem:64x48");
	pixfmt_shadow_for(&out.fmt, &sfmt);
	shadow_init(&sh, &sfmt);
	shadow_resize(&sh, W / 2, H / 2);
	pattern(&sh, 3);
	damage_init(&dmg);
	/* The reference: the same blitter without a cursor. */
	b = blit_create(&ref, &sh, &dmg, -1);
	blit_set_scale(b, SCALE_ZOOM, 2);
	blit_reset_view(b);
	pass(b, NULL);
	blit_destroy(b);
	b = blit_create(&out, &sh, &dmg, -1);
	blit_set_scale(b, SCALE_ZOOM, 2);
	blit_reset_view(b);
	cursor_init(&c);
	blit_set_cursor(b, &c);
	for (y = 0; y < CH; y++)
		for (x = 0; x < CW; x++) {
			pixfmt_store(&sfmt, pix + (y * CW + x) * 4,
				     pixfmt_pack(&sfmt, 255, 0, 0));
			mask[y * CW + x] = opaque(x, y) ? 255 : 0;
		}
	cursor_set_shape(&c, &sh, 1, 1, CW, CH, pix, mask);
	cursor_move(&c, &sh, 10, 7);
	pass(b, NULL);
	/* Remote 10,7 starts at screen 20,14; the shape's 0,0 at 19,13. */
	for (y = 0; y < H; y++)
		for (x = 0; x < W; x++) {
			int cx = x - 19, cy = y - 13;
			bool in = cx >= 0 && cy >= 0 && cx < CW && cy < CH &&
				  opaque(cx, cy);
			uint32_t got = pixfmt_load(
			    &out.fmt, out.map + y * out.stride + x * 4);
			uint32_t want =
			    in ? pixfmt_pack(&out.fmt, 255, 0, 0)
			       : pixfmt_load(&ref.fmt,
					     ref.map + y * ref.stride + x * 4);

			if (got != want && !bad++)
				printf("FAIL zoomed: pixel %d,%d is %06x, "
				       "expected %06x\n",
				       x, y, got, want);
		}
	/* Moved off: the zoomed picture comes back exactly. */
	cursor_move(&c, &sh, 30, 22);
	pass(b, NULL);
	cursor_move(&c, &sh, 31, 23);
	pass(b, NULL);
	bytes = (size_t)out.stride * (H - 8);
	if (memcmp(out.map, ref.map, bytes) != 0 && !bad++)
		printf("FAIL zoomed: old place not restored\n");
	if (bad)
		failures++;
	teardown(&c, b, &dmg, &sh, &out, &ref);
}

/* A translucent shape (CursorWithAlpha's): each pixel the straight colour
 * blended over what the screen shows from the shadow, 1:1 and zoomed 2x,
 * and the picture back exactly once it moves away. Within a step of the
 * output's channels (plus rounding) of the double-precision blend of
 * the colours the formats hold. */
static void run_alpha(const char *spec, unsigned zoom)
{
	enum { AW = 16, AH = 12 };
	struct output out, ref;
	struct shadow sh;
	struct damage dmg;
	struct blitter *b;
	struct cursor c;
	struct pixfmt sfmt;
	uint8_t pix[AW * AH * 4], alpha[AW * AH];
	int x, y, bad = 0, tol;

	output_open(&out, spec);
	output_open(&ref, spec);
	pixfmt_shadow_for(&out.fmt, &sfmt);
	shadow_init(&sh, &sfmt);
	shadow_resize(&sh, W / zoom, H / zoom);
	pattern(&sh, 5);
	damage_init(&dmg);
	b = blit_create(&ref, &sh, &dmg, -1);
	if (zoom > 1)
		blit_set_scale(b, SCALE_ZOOM, zoom);
	blit_reset_view(b);
	pass(b, NULL);
	blit_destroy(b);
	b = blit_create(&out, &sh, &dmg, -1);
	if (zoom > 1)
		blit_set_scale(b, SCALE_ZOOM, zoom);
	blit_reset_view(b);
	cursor_init(&c);
	blit_set_cursor(b, &c);
	/* Alpha across each row from 0 to 255, colours varying. */
	for (y = 0; y < AH; y++)
		for (x = 0; x < AW; x++) {
			pixfmt_store(&sfmt,
				     pix + (y * AW + x) * pixfmt_bytes(&sfmt),
				     pixfmt_pack(&sfmt, (uint8_t)(x * 16),
						 (uint8_t)(255 - y * 20),
						 200));
			alpha[y * AW + x] = (uint8_t)(x * 17);
		}
	cursor_set_shape(&c, &sh, 0, 0, AW, AH, pix, alpha);
	cursor_move(&c, &sh, 20 / (int)zoom, 10 / (int)zoom);
	pass(b, NULL);
	tol = 255 / ((1 << out.fmt.r_bits) - 1) + 1;
	for (y = 0; y < H; y++)
		for (x = 0; x < W; x++) {
			unsigned obpp = pixfmt_bytes(&out.fmt);
			int cx = x - 20, cy = y - 10, k;
			uint8_t got[3], under[3];
			double want[3];

			pixfmt_unpack(&out.fmt,
				      pixfmt_load(&out.fmt, out.map +
							       y * out.stride +
							       x * obpp),
				      &got[0], &got[1], &got[2]);
			pixfmt_unpack(&ref.fmt,
				      pixfmt_load(&ref.fmt, ref.map +
							       y * ref.stride +
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
				    &sfmt,
				    pixfmt_load(&sfmt,
						pix + (cy * AW + cx) *
							  pixfmt_bytes(&sfmt)),
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
	if (memcmp(out.map + 12 * out.stride + 20 * pixfmt_bytes(&out.fmt),
		   ref.map + 12 * ref.stride + 20 * pixfmt_bytes(&ref.fmt),
		   pixfmt_bytes(&out.fmt)) != 0 && !bad++)
		printf("FAIL alpha %s x%u: alpha 0 drew\n", spec, zoom);
	cursor_move(&c, &sh, 0, 0);
	pass(b, NULL);
	cursor_move(&c, &sh, 1, 1);
	pass(b, NULL);
	for (y = 20; y < H; y++)
		if (memcmp(out.map + y * out.stride, ref.map + y * ref.stride,
			   (size_t)W * pixfmt_bytes(&out.fmt)) != 0 && !bad++)
			printf("FAIL alpha %s x%u: row %d not restored\n",
			       spec, zoom, y);
	if (bad)
		failures++;
	teardown(&c, b, &dmg, &sh, &out, &ref);
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
