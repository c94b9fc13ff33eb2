/* Rotation (--rotate): the kernels against a reference written here,
 * pixel by pixel, with guard pages after both buffers, for every kernel,
 * pixel size and angle; the --rotate spec; and the blitter on a turned
 * mem output: what the panel shows, turned back, is what an upright
 * output of the turned size shows (the scaler, the 24-bit converter,
 * the borders and the status line), and damaged passes draw what a full
 * redraw draws. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "blit/blit.h"
#include "output/output.h"
#include "output/rotate.h"
#include "output/rotkern.h"
#include "shadow/damage.h"
#include "shadow/shadow.h"
#include "view/view.h"
#include "../check.h"
#include "../blitrig.h"
#include "../guarded.h"

/* Where source pixel (i, j) of a w x h block goes, in the words of the
 * issue: turned clockwise by rot quarter turns. */
static void ref_place(unsigned rot, uint32_t w, uint32_t h, uint32_t i,
		      uint32_t j, uint32_t *x, uint32_t *y)
{
	uint32_t k;

	*x = i;
	*y = j;
	/* One clockwise quarter turn of a W x H picture: (x, y) goes to
	 * (H-1-y, x) and the picture becomes H x W. */
	for (k = 0; k < rot; k++) {
		uint32_t nx = h - 1 - *y, ny = *x, t = w;

		*x = nx;
		*y = ny;
		w = h;
		h = t;
	}
}

static void test_kernel(const char *name)
{
	static const uint32_t sizes[][2] = {
		{ 1, 1 },  { 4, 4 },  { 3, 5 },	  { 8, 8 },  { 17, 9 },
		{ 64, 64 }, { 63, 65 }, { 1, 70 }, { 70, 1 }, { 33, 47 },
		{ 16, 8 }, { 8, 16 }, { 40, 24 }, { 71, 23 }, { 7, 9 },
	};
	enum { NSIZES = sizeof(sizes) / sizeof(sizes[0]) };
	unsigned bpp, rot, s, streamed = 0;

	if (rotkern_force(name) < 0) {
		printf("kernel %s: not on this CPU, skipped\n", name);
		return;
	}
	CHECK(!strcmp(rotkern_name(), name));
	for (bpp = 1; bpp <= 4; bpp++)
		for (rot = 0; rot < 4; rot++)
			for (s = 0; s < 2 * NSIZES; s++) {
				/* The second round through the streaming
				 * stores (rotate_block_stream), into rows
				 * 64-byte aligned as a mapping's are, so
				 * that the kernel's aligned stores run. */
				bool stream = s >= NSIZES;
				uint32_t w = sizes[s % NSIZES][0];
				uint32_t h = sizes[s % NSIZES][1];
				uint32_t dw = rot & 1 ? h : w;
				uint32_t dh = rot & 1 ? w : h;
				/* Strides wider than the rows, odd ones
				 * too: the gaps must stay untouched. */
				size_t ss = (size_t)w * bpp + (s & 1) * 3;
				size_t ds = stream ? ((size_t)dw * bpp + 63) /
							     64 * 64 +
							     (s & 2) * 32
						   : (size_t)dw * bpp +
							     (s & 2) * 5;
				struct guarded gs, gd;
				uint8_t *src = guarded_alloc(&gs, ss * h);
				uint8_t *dst = guarded_alloc(&gd, ds * dh);
				uint32_t i, j, x, y;
				size_t k;
				int bad = 0;

				for (k = 0; k < ss * h; k++)
					src[k] = (uint8_t)rnd();
				memset(dst, 0xa5, ds * dh);
				if (!stream)
					rotate_block(dst, ds, src, ss, w, h,
						     bpp, rot);
				else if (rotate_block_stream(dst, ds, src, ss,
							     w, h, bpp, rot))
					streamed++;
				else {
					/* Declined, as it may. */
					guarded_free(&gs);
					guarded_free(&gd);
					continue;
				}
				for (j = 0; j < h; j++)
					for (i = 0; i < w; i++) {
						ref_place(rot, w, h, i, j, &x,
							  &y);
						bad += memcmp(dst + y * ds +
								      x * bpp,
							      src + j * ss +
								      i * bpp,
							      bpp) != 0;
					}
				/* The gaps between rows stay as they were. */
				for (y = 0; y < dh; y++)
					for (k = (size_t)dw * bpp; k < ds; k++)
						bad += dst[y * ds + k] != 0xa5;
				CHECK(!bad,
				      "kernel %s%s bpp %u rot %u %ux%u: %d "
				      "pixels wrong",
				      name, stream ? " streaming" : "", bpp,
				      rot, w, h, bad);
				guarded_free(&gs);
				guarded_free(&gd);
			}
	/* A kernel streams 2- and 4-byte pixels, or nothing. */
	CHECK(!streamed || streamed == 2 * 4 * NSIZES,
	      "kernel %s streamed %u blocks", name, streamed);
	printf("kernel %s: %u blocks through streaming stores\n", name,
	       streamed);
	rotkern_force(NULL);
}

static void test_spec(void)
{
	enum rotation r;
	char why[160];

	CHECK_EQ(rotate_lookup(NULL, "HDMI-A-1", &r, why, sizeof(why)), 0);
	CHECK_EQ(r, ROT_0);
	CHECK_EQ(rotate_lookup("90", "HDMI-A-1", &r, why, sizeof(why)), 0);
	CHECK_EQ(r, ROT_90);
	CHECK_EQ(rotate_lookup("90", NULL, &r, why, sizeof(why)), 0);
	CHECK_EQ(r, ROT_90);
	CHECK_EQ(rotate_lookup("HDMI-A-1:270 HDMI-A-2:0", "hdmi-a-1", &r, why,
			       sizeof(why)), 0);
	CHECK_EQ(r, ROT_270);
	CHECK_EQ(rotate_lookup("HDMI-A-1:270 HDMI-A-2:180", "HDMI-A-2", &r,
			       why, sizeof(why)), 0);
	CHECK_EQ(r, ROT_180);
	CHECK_EQ(rotate_lookup("HDMI-A-1:270 90", "DP-1", &r, why, sizeof(why)),
		 0);
	CHECK_EQ(r, ROT_90);
	CHECK_EQ(rotate_lookup("HDMI-A-1:270", "DP-1", &r, why, sizeof(why)),
		 0);
	CHECK_EQ(r, ROT_0);
	CHECK_EQ(rotate_check("45", why, sizeof(why)), -EINVAL);
	CHECK(strstr(why, "\"45\""), "why: %s", why);
	CHECK_EQ(rotate_check("HDMI-A-1:91", why, sizeof(why)), -EINVAL);
	CHECK(strstr(why, "\"91\""), "why: %s", why);
	CHECK_EQ(rotate_check("90 180", why, sizeof(why)), -EINVAL);
	CHECK_EQ(rotate_check(":90", why, sizeof(why)), -EINVAL);
	CHECK_EQ(rotate_check("", why, sizeof(why)), 0);
}

static void test_geometry(void)
{
	struct rect r = { 1, 2, 3, 4 }, p;
	double x, y;
	unsigned rot;

	/* 10 x 20 logical: 90 puts the top left at the panel's top right. */
	p = rotate_rect(ROT_90, 10, 20, &r);
	CHECK(p.x == 20 - 2 - 4 && p.y == 1 && p.w == 4 && p.h == 3);
	p = rotate_rect(ROT_180, 10, 20, &r);
	CHECK(p.x == 10 - 1 - 3 && p.y == 20 - 2 - 4 && p.w == 3 && p.h == 4);
	p = rotate_rect(ROT_270, 10, 20, &r);
	CHECK(p.x == 2 && p.y == 10 - 1 - 3 && p.w == 4 && p.h == 3);
	/* A touch at the panel's top left is the picture's bottom left
	 * turned clockwise (90), its bottom right (180), top right (270). */
	rotate_fraction(ROT_90, 0, 0, &x, &y);
	CHECK(x == 0 && y == 1);
	rotate_fraction(ROT_180, 0, 0, &x, &y);
	CHECK(x == 1 && y == 1);
	rotate_fraction(ROT_270, 0, 0, &x, &y);
	CHECK(x == 1 && y == 0);
	/* And the fraction map agrees with the pixel map at every corner. */
	for (rot = 1; rot < 4; rot++) {
		uint32_t lw = rot & 1 ? 20 : 10, lh = rot & 1 ? 10 : 20, cx,
			 cy;
		int c;

		for (c = 0; c < 4; c++) {
			uint32_t px = c & 1 ? 9 : 0, py = c & 2 ? 19 : 0;

			rotate_fraction((enum rotation)rot, px / 9.0,
					py / 19.0, &x, &y);
			cx = (uint32_t)(x * (lw - 1) + 0.5);
			cy = (uint32_t)(y * (lh - 1) + 0.5);
			r = (struct rect){ (int32_t)cx, (int32_t)cy, 1, 1 };
			p = rotate_rect((enum rotation)rot, lw, lh, &r);
			CHECK(p.x == (int32_t)px && p.y == (int32_t)py,
			      "rot %u corner %d: (%d,%d), want (%u,%u)", rot,
			      c, p.x, p.y, px, py);
		}
	}
}

static void fill_random(struct rig *r, const struct rect *a)
{
	unsigned bpp = pixfmt_bytes(&r->sh.fmt);
	int32_t x, y;

	for (y = a->y; y < a->y + a->h; y++)
		for (x = a->x; x < a->x + a->w; x++)
			pixfmt_store(&r->sh.fmt,
				     r->sh.pix + (size_t)y * r->sh.stride +
					     (size_t)x * bpp,
				     pixfmt_pack(&r->sh.fmt, (uint8_t)rnd(),
						 (uint8_t)rnd(),
						 (uint8_t)rnd()));
}

/* Pixels of the panel of t, turned back, against those of u (upright,
 * the turned size): the count that differ. */
static int compare(const struct rig *t, enum rotation rot,
		   const struct rig *u)
{
	const struct output *p = &t->out, *o = &u->out;
	unsigned bpp = pixfmt_bytes(&o->fmt);
	uint32_t x, y, px, py;
	int bad = 0;

	for (y = 0; y < o->height; y++)
		for (x = 0; x < o->width; x++) {
			ref_place((unsigned)rot, o->width, o->height, x, y, &px,
				  &py);
			bad += memcmp(p->map + py * p->stride + px * bpp,
				      o->map + y * o->stride + x * bpp,
				      bpp) != 0;
		}
	return bad;
}

/* A panel pw x ph turned by rot against an upright output of the turned
 * size, both showing an rw x rh desktop in mode, with a status line,
 * through a full pass and damaged ones. */
static void test_blit(uint32_t pw, uint32_t ph, const char *fmt,
		      enum rotation rot, uint32_t rw, uint32_t rh,
		      enum scale_mode mode)
{
	char ps[64], us[64];
	uint32_t lw, lh;
	struct rig t, u;
	struct rect all = { 0, 0, (int32_t)rw, (int32_t)rh }, d[3];
	int round, i, bad;

	rotate_size(rot, pw, ph, &lw, &lh);
	snprintf(ps, sizeof(ps), "mem:%ux%u:%s", pw, ph, fmt);
	snprintf(us, sizeof(us), "mem:%ux%u:%s", lw, lh, fmt);
	rig_open_rot(&t, ps, rot, rw, rh, mode, 1);
	rig_open(&u, us, rw, rh, mode, 1);
	CHECK(rot == ROT_0 || (t.rot.out.width == lw && t.rot.out.height == lh));
	fill_random(&t, &all);
	memcpy(u.sh.pix, t.sh.pix, t.sh.stride * rh);
	blit_set_status(t.b, "status upright");
	blit_set_status(u.b, "status upright");
	pass(&t, NULL, 0);
	pass(&u, NULL, 0);
	bad = compare(&t, rot, &u);
	CHECK(!bad, "%s rot %u desktop %ux%u mode %d: %d pixels wrong after "
	      "a full pass", ps, rotate_degrees(rot), rw, rh, (int)mode, bad);
	for (round = 0; round < 10; round++) {
		for (i = 0; i < 3; i++) {
			d[i].x = (int32_t)(rnd() % rw);
			d[i].y = (int32_t)(rnd() % rh);
			d[i].w = 1 + (int32_t)(rnd() % 90);
			d[i].h = 1 + (int32_t)(rnd() % 90);
			rect_clip(&d[i], (int32_t)rw, (int32_t)rh);
			fill_random(&t, &d[i]);
		}
		memcpy(u.sh.pix, t.sh.pix, t.sh.stride * rh);
		if (round == 5) {
			blit_set_status(t.b, NULL);
			blit_set_status(u.b, NULL);
		}
		pass(&t, d, 3);
		pass(&u, d, 3);
	}
	bad = compare(&t, rot, &u);
	CHECK(!bad, "%s rot %u desktop %ux%u mode %d: %d pixels wrong after "
	      "damaged passes", ps, rotate_degrees(rot), rw, rh, (int)mode,
	      bad);
	/* Blank (no desktop): the whole panel black in one fill, rows of
	 * the panel's width (valgrind: no write past the blitter's row). */
	blit_set_blank(t.b, true);
	blit_set_blank(u.b, true);
	pass(&t, NULL, 0);
	pass(&u, NULL, 0);
	bad = compare(&t, rot, &u);
	CHECK(!bad, "%s rot %u blank: %d pixels wrong", ps,
	      rotate_degrees(rot), bad);
	rig_close(&t);
	rig_close(&u);
}

int main(void)
{
	unsigned rot;

	test_kernel("c");
#ifdef VNCFB_SIMD_X86
	test_kernel("sse2");
	test_kernel("avx2");
#endif
	test_spec();
	test_geometry();
	for (rot = 0; rot < 4; rot++) {
		/* 1:1 straight from the shadow, the desktop the panel's
		 * turned size. */
		test_blit(200, 120, "xrgb8888", (enum rotation)rot,
			  rot & 1 ? 120 : 200, rot & 1 ? 200 : 120,
			  SCALE_NONE);
		/* Smaller, centred: black borders. */
		test_blit(200, 120, "rgb565", (enum rotation)rot, 77, 50,
			  SCALE_NONE);
		/* Scaled to fit, and through the 24-bit converter. */
		test_blit(200, 120, "xrgb8888", (enum rotation)rot, 333, 257,
			  SCALE_FIT);
		test_blit(130, 98, "rgb888", (enum rotation)rot, 160, 90,
			  SCALE_FIT);
	}
	return check_done("rotate");
}
