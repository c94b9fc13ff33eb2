/* The blitter with scaling, on mem outputs: damaged rectangles redraw
 * exactly what a full redraw draws (the filter margin is right), every
 * mode and output format (incl. the 24 bpp converter case) matches the
 * reference, panning shows the right part, and the snapshot's shadow path
 * agrees with what is on screen. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blit/blit.h"
#include "shadow/damage.h"
#include "output/output.h"
#include "ref_box.h"
#include "view/view.h"
#include "shadow/shadow.h"
#include "../check.h"
#include "../blitrig.h"

static uint32_t seed = 1;

static uint8_t rnd8(void)
{
	seed = seed * 1103515245u + 12345u;
	return (uint8_t)(seed >> 16);
}

static uint8_t *screen(struct rig *r)
{
	uint8_t *rgb = malloc((size_t)r->out.width * r->out.height * 3);

	blit_snapshot_rgb(r->b, rgb);
	return rgb;
}

static void fill_random(struct rig *r, const struct rect *area)
{
	int32_t x, y;
	unsigned bpp = pixfmt_bytes(&r->sh.fmt);

	for (y = area->y; y < area->y + area->h; y++)
		for (x = area->x; x < area->x + area->w; x++)
			pixfmt_store(
			    &r->sh.fmt,
			    r->sh.pix + (size_t)y * r->sh.stride +
				(size_t)x * bpp,
			    pixfmt_pack(&r->sh.fmt, rnd8(), rnd8(), rnd8()));
}

/* Damage then compare with a fresh full redraw of the same shadow. */
static void test_damage(const char *spec, uint32_t rw, uint32_t rh,
			enum scale_mode mode, unsigned zoom)
{
	struct rig a, b;
	struct rect all = {0, 0, (int32_t)rw, (int32_t)rh}, d[3];
	uint8_t *sa, *sb;
	size_t n;
	int round;

	rig_open(&a, spec, rw, rh, mode, zoom);
	fill_random(&a, &all);
	pass(&a, NULL, 0); /* full: borders and all */
	for (round = 0; round < 20; round++) {
		int i;

		for (i = 0; i < 3; i++) {
			d[i].x = rnd8() % rw;
			d[i].y = rnd8() % rh;
			d[i].w = 1 + rnd8() % 9;
			d[i].h = 1 + rnd8() % 9;
			rect_clip(&d[i], (int32_t)rw, (int32_t)rh);
			fill_random(&a, &d[i]);
		}
		pass(&a, d, 3);
	}
	rig_open(&b, spec, rw, rh, mode, zoom);
	memcpy(b.sh.pix, a.sh.pix, a.sh.stride * rh);
	pass(&b, NULL, 0);
	sa = screen(&a);
	sb = screen(&b);
	n = (size_t)a.out.width * a.out.height * 3;
	CHECK(!memcmp(sa, sb, n),
	      "%s %ux%u mode %d: damaged redraws differ from a full redraw",
	      spec, rw, rh, (int)mode);
	/* The shadow path of the snapshot draws the same as the screen. */
	a.out.readable = false;
	free(sb);
	sb = screen(&a);
	a.out.readable = true;
	CHECK(!memcmp(sa, sb, n), "%s: snapshot from the shadow differs", spec);
	free(sa);
	free(sb);
	rig_close(&a);
	rig_close(&b);
}

/* fit/fill through the blitter against the reference, any format. */
static void test_reference(const char *spec, uint32_t rw, uint32_t rh,
			   enum scale_mode mode)
{
	struct rig r;
	struct rect all = {0, 0, (int32_t)rw, (int32_t)rh};
	struct view v;
	uint8_t *s;
	double *ref, worst = 0, tol;
	int32_t x, y;
	int c;

	rig_open(&r, spec, rw, rh, mode, 1);
	fill_random(&r, &all);
	pass(&r, NULL, 0);
	blit_get_view(r.b, &v);
	s = screen(&r);
	ref = malloc((size_t)v.dw * v.dh * 3 * sizeof(*ref));
	ref_box(&r.sh.fmt, r.sh.pix, r.sh.stride, rw, rh, v.dw, v.dh, ref);
	/* Within 1 of the reference in the output's own channel units: 8
	 * bits, or the 5/6 bits of rgb565 (8 in 8-bit terms). */
	tol = r.out.fmt.r_bits == 8 ? 1 : 255.0 / 31 + 1;
	for (y = 0; y < (int32_t)r.out.height; y++) {
		for (x = 0; x < (int32_t)r.out.width; x++) {
			const uint8_t *p =
			    s + ((size_t)y * r.out.width + (size_t)x) * 3;
			int32_t ix = x - v.dx, iy = y - v.dy;

			if (ix < 0 || iy < 0 || ix >= (int32_t)v.dw ||
			    iy >= (int32_t)v.dh) {
				CHECK(!p[0] && !p[1] && !p[2],
				      "%s: border (%d,%d) not black", spec, x,
				      y);
				continue;
			}
			for (c = 0; c < 3; c++) {
				double d = fabs(
				    p[c] -
				    ref[((size_t)iy * v.dw + (size_t)ix) * 3 +
					c]);

				if (d > worst)
					worst = d;
			}
		}
	}
	CHECK(worst <= tol, "%s %ux%u mode %d: worst difference %.3f", spec, rw,
	      rh, (int)mode, worst);
	free(ref);
	free(s);
	rig_close(&r);
}

/* none, larger than the screen: panning shows the shadow at the pan
 * offset; pointer mapping follows. */
static void test_pan(void)
{
	struct rig r;
	struct rect all = {0, 0, 400, 300};
	struct view v;
	uint8_t *s;
	int rx, ry, x, y;
	bool moved;

	rig_open(&r, "mem:160x120", 400, 300, SCALE_NONE, 1);
	fill_random(&r, &all);
	pass(&r, NULL, 0);
	CHECK(!blit_pan(r.b, -5, -5), "pan past the corner moved");
	moved = blit_pan(r.b, 37, 1000);
	blit_get_view(r.b, &v);
	CHECK(moved && v.pan_x == 37 && v.pan_y == 180, "pan to %d,%d", v.pan_x,
	      v.pan_y);
	CHECK(blit_full_pending(r.b), "pan did not schedule a redraw");
	pass(&r, NULL, 0);
	s = screen(&r);
	for (y = 0; y < 120; y += 7) {
		for (x = 0; x < 160; x += 5) {
			uint8_t cr, cg, cb;
			const uint8_t *p = s + ((size_t)y * 160 + x) * 3;

			pixfmt_unpack(
			    &r.sh.fmt,
			    pixfmt_load(&r.sh.fmt,
					r.sh.pix +
					    (size_t)(y + 180) * r.sh.stride +
					    (size_t)(x + 37) * 4),
			    &cr, &cg, &cb);
			CHECK(p[0] == cr && p[1] == cg && p[2] == cb,
			      "panned pixel %d,%d", x, y);
		}
	}
	blit_screen_to_remote(r.b, 10, 20, &rx, &ry);
	CHECK(rx == 47 && ry == 200, "panned pointer %d,%d", rx, ry);
	/* Follow: a pointer at the right edge of the remote scrolls fully. */
	CHECK(blit_follow(r.b, 399, 0), "follow did not move");
	blit_get_view(r.b, &v);
	CHECK(v.pan_x == 240 && v.pan_y == 0, "follow to %d,%d", v.pan_x,
	      v.pan_y);
	free(s);
	rig_close(&r);
}

int main(void)
{
	test_damage("mem:200x150", 300, 200, SCALE_FIT, 1);
	test_damage("mem:200x150:rgb565", 300, 200, SCALE_FIT, 1);
	test_damage("mem:200x150:rgb888", 300, 200, SCALE_FILL, 1);
	test_damage("mem:200x150", 77, 41, SCALE_FIT, 1);
	test_damage("mem:200x150", 120, 90, SCALE_ZOOM, 3);
	test_damage("mem:200x150", 300, 200, SCALE_NONE, 1);
	test_reference("mem:200x150", 300, 200, SCALE_FIT);
	test_reference("mem:200x150:rgb888", 300, 200, SCALE_FIT);
	test_reference("mem:200x150:bgrx8888", 191, 97, SCALE_FILL);
	test_reference("mem:200x150:rgb565", 333, 222, SCALE_FIT);
	test_reference("mem:200x150", 60, 70, SCALE_FIT);
	test_pan();
	if (failures) {
		fprintf(stderr, "%d failures\n", failures);
		return 1;
	}
	fprintf(stderr, "blit scaling tests passed\n");
	return 0;
}
