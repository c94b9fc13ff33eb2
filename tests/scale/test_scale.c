/* Scaler pixel tests against a reference box filter written here, for
 * every kernel set (c, sse2, ssse3, avx2, neon) at xrgb8888, bgrx8888 and rgb565, plus
 * the view's pointer mapping round trips and panning. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ref_box.h"
#include "view/scale.h"
#include "view/view.h"
#include "../check.h"
#include "../guarded.h"

/* The reference's own check: a flat picture stays flat, and a 2:1
 * reduction of a known 2x2 block is its mean. */
static void test_reference(void)
{
	struct pixfmt f;
	uint8_t px[2 * 2 * 4];
	double out[3];
	int i;

	pixfmt_from_name("xrgb8888", &f);
	for (i = 0; i < 4; i++)
		pixfmt_store(&f, px + i * 4, pixfmt_pack(&f, 10, 20, 30));
	ref_box(&f, px, 8, 2, 2, 1, 1, out);
	CHECK(out[0] == 10 && out[1] == 20 && out[2] == 30, "ref flat");
	pixfmt_store(&f, px, pixfmt_pack(&f, 0, 0, 0));
	pixfmt_store(&f, px + 4, pixfmt_pack(&f, 100, 0, 0));
	pixfmt_store(&f, px + 8, pixfmt_pack(&f, 100, 0, 0));
	pixfmt_store(&f, px + 12, pixfmt_pack(&f, 200, 0, 0));
	ref_box(&f, px, 8, 2, 2, 1, 1, out);
	CHECK(out[0] == 100, "ref mean %f", out[0]);
}

/* Channel c of a pixel in format f, in that channel's own units. */
static double chan(const struct pixfmt *f, uint32_t v, int c)
{
	unsigned bits = c == 0 ? f->r_bits : c == 1 ? f->g_bits : f->b_bits;
	unsigned shift = c == 0 ? f->r_shift : c == 1 ? f->g_shift : f->b_shift;

	return (v >> shift) & ((1u << bits) - 1);
}

static double chan_max(const struct pixfmt *f, int c)
{
	unsigned bits = c == 0 ? f->r_bits : c == 1 ? f->g_bits : f->b_bits;

	return (1u << bits) - 1;
}

struct size_case {
	uint32_t rw, rh, dw, dh;
	/* The path kernels with all three must take: 0 any, 1 exact, 2
	 * wide (see enum scaler_path). */
	int exact;
};

static const struct size_case sizes[] = {
    {192, 108, 128, 72, 1}, /* 1080p -> 720p ratio */
    {30, 6, 20, 4, 1},	    /* 3:2, windows past the row end */
    {128, 72, 64, 36, 1},   /* 4K -> 1080p ratio, 2:1 */
    {70, 10, 35, 5, 1},	    /* 2:1, odd sizes */
    {64, 48, 48, 36, 1},    /* 4:3 */
    {10, 10, 9, 9, 1},	    /* 10:9 */
    {61, 40, 60, 20, 1},    /* 61:60 by 2:1: units 61 * 2, exact */
    {50, 30, 30, 18, 1},    /* 5:3, three taps: two pairs, exact */
    {90, 30, 30, 10, 0},    /* 3:1: windows too narrow, fixed point */
    {120, 50, 50, 20, 0},   /* 12:5 (1080p on an 800x480 panel) */
    {683, 9, 256, 4, 0},    /* 683:256 */
    {200, 20, 40, 4, 0},    /* 5:1 */
    {683, 9, 640, 8, 2},    /* 1366x768 -> 1280x720 across */
    {37, 23, 13, 7},	    /* odd downscale, several taps */
    {100, 50, 100, 25},	    /* one axis 1:1, the other 2:1 */
    {13, 9, 29, 20},	    /* non-integer upscale (fit on big panel) */
    {16, 8, 48, 24},	    /* integer zoom x3 */
    {21, 10, 42, 20, 0},    /* pixel doubling */
    {7, 5, 21, 5},	    /* x3 horizontally, 1:1 vertically */
    {5, 5, 1, 1},	    /* everything into one pixel */
    {300, 2, 7, 1},	    /* long taps */
    {33, 17, 32, 16},	    /* slightly smaller */
};

/* Scale a random picture with the current kernels, whole rows and random
 * partial rows (damage), compare to the reference. Returns the output for
 * kernel comparisons (malloc'd). */
static uint8_t *run_case(const char *fmtname, const struct size_case *sc,
			 int pattern, int *path)
{
	struct pixfmt f;
	struct scaler *s;
	struct guarded g;
	unsigned bpp;
	size_t stride, n, i;
	uint8_t *src, *out, *part;
	double *ref;
	uint32_t x, y;
	int c, err;
	bool integer;

	/* The same picture for every kernel set. */
	rng = 0x9e3779b97f4a7c15ull ^ ((uint64_t)sc->rw << 32 | sc->dh) ^
	      (uint64_t)pattern;
	pixfmt_from_name(fmtname, &f);
	bpp = pixfmt_bytes(&f);
	stride = (size_t)sc->rw * bpp;
	src = guarded_alloc(&g, stride * sc->rh);
	for (i = 0; i < stride * sc->rh; i++)
		src[i] = pattern == 0	? (uint8_t)rnd()
			 : pattern == 1 ? (uint8_t)((i / bpp) & 1 ? 0xff : 0)
					: 0xff;
	n = (size_t)sc->dw * sc->dh;
	out = calloc(n, bpp);
	part = calloc(sc->dw, bpp);
	ref = calloc(n * 3, sizeof(double));
	err = scaler_create(&s, &f, sc->rw, sc->rh, sc->dw, sc->dh);
	CHECK(err == 0, "scaler_create %d", err);
	if (err)
		exit(1);
	CHECK(!strcmp(scaler_kernels(s), scale_simd_name()),
	      "scaler draws with %s, not the %s set", scaler_kernels(s),
	      scale_simd_name());
	/* The 3:2 and 2:1 paths compute the exact path's integers. */
	switch (scaler_path(s)) {
	case SCALER_PAIR32:
	case SCALER_PAIR21:
	case SCALER_EXACT:
		*path = 1;
		break;
	case SCALER_WIDE:
		*path = 2;
		break;
	default:
		*path = 0;
		break;
	}
	/* c and avx2 have the exact and wide paths; the test must reach
	 * them. */
	if (sc->exact && strcmp(scale_simd_name(), "sse2") &&
	    strcmp(scale_simd_name(), "ssse3"))
		CHECK(*path == sc->exact,
		      "%s %ux%u->%ux%u: path %d taken, not %d",
		      scale_simd_name(), sc->rw, sc->rh, sc->dw, sc->dh, *path,
		      sc->exact);
	/* Both axes 2:1 with byte channels: the 2:1 path. */
	if (bpp == 4 &&
	    sc->rw == 2 * sc->dw && sc->rh == 2 * sc->dh)
		CHECK(scaler_path(s) == SCALER_PAIR21,
		      "%s %s %ux%u->%ux%u: 2:1 path not taken",
		      scale_simd_name(), fmtname, sc->rw, sc->rh, sc->dw,
		      sc->dh);
	/* Both axes 3:2 with byte channels: the two-row 3:2 path. */
	if (bpp == 4 &&
	    sc->rw * 2 == sc->dw * 3 && sc->rh * 2 == sc->dh * 3)
		CHECK(scaler_path(s) == SCALER_PAIR32,
		      "%s %s %ux%u->%ux%u: 3:2 path not taken",
		      scale_simd_name(), fmtname, sc->rw, sc->rh, sc->dw,
		      sc->dh);
	for (y = 0; y < sc->dh; y++) {
		uint8_t *o = out + (size_t)y * sc->dw * bpp;
		const uint8_t *r = scaler_row(s, src, stride, y, 0, sc->dw, o);

		if (r != o)
			memcpy(o, r, (size_t)sc->dw * bpp);
	}
	ref_box(&f, src, stride, sc->rw, sc->rh, sc->dw, sc->dh, ref);
	integer = sc->dw % sc->rw == 0 && sc->dh % sc->rh == 0;
	for (y = 0; y < sc->dh; y++) {
		for (x = 0; x < sc->dw; x++) {
			uint32_t v = pixfmt_load(
			    &f, out + ((size_t)y * sc->dw + x) * bpp);

			for (c = 0; c < 3; c++) {
				double want =
				    ref[((size_t)y * sc->dw + x) * 3 + c] *
				    chan_max(&f, c) / 255.0;
				double got = chan(&f, v, c);
				/* Integer zoom is exact: the nearest
				 * channel value (the reference goes
				 * through 8 bits); so is the exact path
				 * where channels are 8 bits. */
				double tol =
				    integer || (*path == 1 && f.r_bits == 8)
					? 0.5
					: 1;

				if (fabs(got - want) > tol + 1e-9) {
					CHECK(0,
					      "%s %s %ux%u->%ux%u (%u,%u) c%d: "
					      "got %.0f want %.3f",
					      scale_simd_name(), fmtname,
					      sc->rw, sc->rh, sc->dw, sc->dh, x,
					      y, c, got, want);
					goto done;
				}
			}
		}
	}
	/* A damaged span must draw exactly what the whole row draws. */
	for (i = 0; i < 50; i++) {
		uint32_t x0 = rnd() % sc->dw,
			 x1 = x0 + 1 + rnd() % (sc->dw - x0);

		y = rnd() % sc->dh;
		CHECK(!memcmp(scaler_row(s, src, stride, y, x0, x1, part),
			      out + ((size_t)y * sc->dw + x0) * bpp,
			      (size_t)(x1 - x0) * bpp),
		      "%s %s partial row %u [%u,%u) differs", scale_simd_name(),
		      fmtname, y, x0, x1);
	}
	/* Damaged rectangles as the blitter draws them: rows in order,
	 * each pass starting afresh. */
	for (i = 0; i < 20; i++) {
		uint32_t x0 = rnd() % sc->dw,
			 x1 = x0 + 1 + rnd() % (sc->dw - x0),
			 y0 = rnd() % sc->dh,
			 y1 = y0 + 1 + rnd() % (sc->dh - y0);

		scaler_start(s);
		for (y = y0; y < y1; y++)
			if (memcmp(scaler_row(s, src, stride, y, x0, x1, part),
				   out + ((size_t)y * sc->dw + x0) * bpp,
				   (size_t)(x1 - x0) * bpp)) {
				CHECK(0,
				      "%s %s rect [%u,%u)x[%u,%u) row %u "
				      "differs",
				      scale_simd_name(), fmtname, x0, x1, y0,
				      y1, y);
				break;
			}
	}
done:
	scaler_destroy(s);
	guarded_free(&g);
	free(part);
	free(ref);
	return out;
}

static void test_scalers(void)
{
	static const char *const fmts[] = {"xrgb8888", "bgrx8888", "rgb565"};
	static const char *const simds[] = {"c", "sse2", "ssse3", "avx2",
						   "neon"};
	size_t fi, si, k;
	int pat;

	for (fi = 0; fi < 3; fi++) {
		for (k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
			for (pat = 0; pat < 3; pat++) {
				uint8_t *first[3] = {NULL, NULL, NULL};
				const size_t nsimd =
				    sizeof(simds) / sizeof(simds[0]);
				struct pixfmt f;

				pixfmt_from_name(fmts[fi], &f);
				for (si = 0; si < nsimd; si++) {
					uint8_t *o;
					int ex;

					if (scale_simd_set(simds[si]) < 0)
						continue;
					o = run_case(fmts[fi], &sizes[k], pat,
						     &ex);
					/* Kernels on the same path compute
					 * the same integers. */
					if (first[ex])
						CHECK(!memcmp(
							  first[ex], o,
							  (size_t)sizes[k].dw *
							      sizes[k].dh *
							      pixfmt_bytes(&f)),
						      "%s differs from c on %s "
						      "case %zu",
						      simds[si], fmts[fi], k);
					if (!first[ex])
						first[ex] = o;
					else
						free(o);
				}
				free(first[0]);
				free(first[1]);
				free(first[2]);
			}
		}
	}
	scale_simd_set("auto");
	fprintf(stderr, "scalers checked; auto picks %s\n", scale_simd_name());
#ifdef __aarch64__
	/* AArch64 always has NEON: the checks above compared its kernels. */
	CHECK(!strcmp(scale_simd_name(), "neon"), "auto picks %s on AArch64",
	      scale_simd_name());
#endif
}

/* Random sizes (fixed seed) up and down, every kernel set, against the
 * reference: whichever path each ratio takes. */
static void test_random_sizes(void)
{
	static const char *const simds[] = {"c", "sse2", "ssse3", "avx2",
						   "neon"};
	uint64_t saved;
	int i, ex;
	size_t si;

	for (i = 0; i < 150; i++) {
		struct size_case sc;

		sc.rw = 1 + rnd() % 70;
		sc.rh = 1 + rnd() % 40;
		sc.dw = 1 + rnd() % 70;
		sc.dh = 1 + rnd() % 40;
		sc.exact = 0;
		saved = rng;
		for (si = 0; si < sizeof(simds) / sizeof(simds[0]); si++) {
			if (scale_simd_set(simds[si]) < 0)
				continue;
			free(run_case(i % 2 ? "rgb565" : "xrgb8888", &sc, 0,
				      &ex));
		}
		/* run_case reseeds; move on from where this loop was. */
		rng = saved;
		rnd();
	}
	scale_simd_set("auto");
}

static void test_parse(void)
{
	enum scale_mode m;
	unsigned z;

	CHECK(scale_parse("none", &m, &z) == 0 && m == SCALE_NONE, "none");
	CHECK(scale_parse("fit", &m, &z) == 0 && m == SCALE_FIT, "fit");
	CHECK(scale_parse("fill", &m, &z) == 0 && m == SCALE_FILL, "fill");
	CHECK(scale_parse("2", &m, &z) == 0 && m == SCALE_ZOOM && z == 2, "2");
	CHECK(scale_parse("1", &m, &z) == 0 && m == SCALE_NONE, "1");
	CHECK(scale_parse("0", &m, &z) == -EINVAL, "0");
	CHECK(scale_parse("17", &m, &z) == -EINVAL, "17");
	CHECK(scale_parse("-2", &m, &z) == -EINVAL, "-2");
	CHECK(scale_parse("2x", &m, &z) == -EINVAL, "2x");
	CHECK(scale_parse("", &m, &z) == -EINVAL, "empty");
}

/* Pointer mapping: every screen pixel on the desktop maps to a remote
 * pixel whose screen rectangle contains it, and every remote pixel is
 * reachable from some screen pixel (so every remote pixel can be clicked
 * when upscaled, and nothing jumps when downscaled). */
static void check_roundtrip(const struct view *v, const char *what)
{
	struct rect desk, r;
	int32_t sx, sy, rx, ry;
	uint32_t i;
	uint8_t *hit;

	if (!view_desktop(v, &desk))
		return;
	hit = calloc(v->rw, 1);
	for (sx = desk.x; sx < desk.x + desk.w; sx++) {
		view_screen_to_remote(v, sx, desk.y, &rx, &ry);
		CHECK(rx >= 0 && (uint32_t)rx < v->rw, "%s rx %d", what, rx);
		r = (struct rect){rx, ry, 1, 1};
		CHECK(view_remote_to_screen(v, &r, &r) && sx >= r.x &&
			  sx < r.x + r.w,
		      "%s: screen x %d -> remote %d -> screen [%d,%d)", what,
		      sx, rx, r.x, r.x + r.w);
		if (rx >= 0 && (uint32_t)rx < v->rw)
			hit[rx] = 1;
	}
	/* With the whole desktop on screen, all remote columns are hit. */
	if (desk.w == (int32_t)v->dw && v->dw >= v->rw)
		for (i = 0; i < v->rw; i++)
			CHECK(hit[i], "%s: remote x %u unreachable", what, i);
	free(hit);
	for (sy = desk.y; sy < desk.y + desk.h; sy++) {
		view_screen_to_remote(v, desk.x, sy, &rx, &ry);
		r = (struct rect){rx, ry, 1, 1};
		CHECK(view_remote_to_screen(v, &r, &r) && sy >= r.y &&
			  sy < r.y + r.h,
		      "%s: screen y %d -> remote %d", what, sy, ry);
	}
	/* Off the desktop clamps to its nearest edge pixel. */
	view_screen_to_remote(v, v->dx, v->dy, &sx, &sy);
	view_screen_to_remote(v, -100000, -100000, &rx, &ry);
	CHECK(rx == sx && ry == sy, "%s: top-left clamp %d,%d", what, rx, ry);
	if (v->dw >= v->rw && v->dh >= v->rh)
		CHECK(sx == 0 && sy == 0, "%s: corner %d,%d", what, sx, sy);
	view_screen_to_remote(v, 100000, 100000, &rx, &ry);
	CHECK(rx == (int32_t)v->rw - 1 && ry == (int32_t)v->rh - 1,
	      "%s: bottom-right clamp %d,%d", what, rx, ry);
}

static void test_view(void)
{
	struct view v;
	struct rect r, out;
	int32_t rx, ry;

	memset(&v, 0, sizeof(v));
	/* fit: 1920x1080 on 1280x720 fills it exactly. */
	view_update(&v, SCALE_FIT, 1, 1920, 1080, 1280, 720);
	CHECK(v.dw == 1280 && v.dh == 720 && v.dx == 0 && v.dy == 0,
	      "fit 1080p: %ux%u at %d,%d", v.dw, v.dh, v.dx, v.dy);
	check_roundtrip(&v, "fit 1080p->720p");
	/* fit: 4:3 on 16:9 is pillar-boxed, centred. */
	view_update(&v, SCALE_FIT, 1, 1024, 768, 1920, 1080);
	CHECK(v.dw == 1440 && v.dh == 1080 && v.dx == 240 && v.dy == 0,
	      "fit 4:3: %ux%u at %d,%d", v.dw, v.dh, v.dx, v.dy);
	check_roundtrip(&v, "fit 1024x768->1920x1080");
	/* fit: wide on tall is letter-boxed. */
	view_update(&v, SCALE_FIT, 1, 1000, 100, 500, 500);
	CHECK(v.dw == 500 && v.dh == 50 && v.dx == 0 && v.dy == 225,
	      "fit wide: %ux%u at %d,%d", v.dw, v.dh, v.dx, v.dy);
	check_roundtrip(&v, "fit wide");
	/* fit rounds to the nearest size, each way: 333 * 500 / 1000 is
	 * 166.5, shown 167 (truncated, a black line more). */
	view_update(&v, SCALE_FIT, 1, 1000, 333, 500, 500);
	CHECK(v.dw == 500 && v.dh == 167 && v.dx == 0 && v.dy == 166,
	      "fit 1000x333: %ux%u at %d,%d", v.dw, v.dh, v.dx, v.dy);
	view_update(&v, SCALE_FIT, 1, 333, 1000, 500, 500);
	CHECK(v.dw == 167 && v.dh == 500 && v.dx == 166 && v.dy == 0,
	      "fit 333x1000: %ux%u at %d,%d", v.dw, v.dh, v.dx, v.dy);
	view_update(&v, SCALE_FIT, 1, 1000, 332, 500, 500);
	CHECK(v.dh == 166, "fit 1000x332: %ux%u", v.dw, v.dh);
	view_update(&v, SCALE_FILL, 1, 1000, 100, 500, 500);
	CHECK(v.dw == 500 && v.dh == 500 && v.dx == 0 && v.dy == 0, "fill");
	check_roundtrip(&v, "fill");
	/* zoom 2 of 640x480 on 1920x1080: centred, 1280x960. */
	view_update(&v, SCALE_ZOOM, 2, 640, 480, 1920, 1080);
	CHECK(v.dw == 1280 && v.dh == 960 && v.dx == 320 && v.dy == 60,
	      "zoom 2: %ux%u at %d,%d", v.dw, v.dh, v.dx, v.dy);
	check_roundtrip(&v, "zoom 2");
	r = (struct rect){10, 20, 3, 4};
	CHECK(view_remote_to_screen(&v, &r, &out) && out.x == 340 &&
		  out.y == 100 && out.w == 6 && out.h == 8,
	      "zoom 2 rect %d,%d %dx%d", out.x, out.y, out.w, out.h);

	/* none, larger than the screen: top-left, pannable. */
	view_update(&v, SCALE_NONE, 1, 1920, 1080, 1280, 720);
	CHECK(v.dx == 0 && v.dy == 0 && view_pannable(&v), "none big");
	check_roundtrip(&v, "none big");
	CHECK(view_pan_to(&v, 10000, 10000) && v.pan_x == 640 &&
		  v.pan_y == 360 && v.dx == -640 && v.dy == -360,
	      "pan clamp %d,%d", v.pan_x, v.pan_y);
	check_roundtrip(&v, "none panned");
	view_screen_to_remote(&v, 0, 0, &rx, &ry);
	CHECK(rx == 640 && ry == 360, "panned origin %d,%d", rx, ry);
	/* A resize keeps the pan, clamped to the new size. */
	view_update(&v, SCALE_NONE, 1, 1600, 900, 1280, 720);
	CHECK(v.pan_x == 320 && v.pan_y == 180, "pan after resize %d,%d",
	      v.pan_x, v.pan_y);
	CHECK(!view_pan_to(&v, 320, 180), "no-op pan reports a move");
	/* A remote now smaller than the screen: centred, no pan. */
	view_update(&v, SCALE_NONE, 1, 800, 600, 1280, 720);
	CHECK(v.dx == 240 && v.dy == 60 && !view_pannable(&v) && v.pan_x == 0,
	      "none small: %d,%d", v.dx, v.dy);

	/* Following: the view moves with the pointer, one pixel at a time,
	 * once it is within the margin of an edge. */
	view_update(&v, SCALE_NONE, 1, 1920, 1080, 1280, 720);
	view_pan_to(&v, 0, 0);
	CHECK(!view_follow(&v, 1280 - 81, 100, 80), "inside margin moved");
	CHECK(view_follow(&v, 1280 - 80, 100, 80) && v.pan_x == 1,
	      "follow right %d", v.pan_x);
	CHECK(view_follow(&v, 1280 - 70, 100, 80) && v.pan_x == 11,
	      "follow right 2 %d", v.pan_x);
	CHECK(view_follow(&v, 1919, 1079, 80) && v.pan_x == 640 &&
		  v.pan_y == 360,
	      "follow corner %d,%d", v.pan_x, v.pan_y);
	CHECK(view_follow(&v, 700, 400, 80) && v.pan_x == 620 && v.pan_y == 320,
	      "follow back %d,%d", v.pan_x, v.pan_y);
	/* zoom 3 follows whole remote pixels (3 screen pixels). */
	view_update(&v, SCALE_ZOOM, 3, 640, 480, 1280, 720);
	view_pan_to(&v, 0, 0);
	CHECK(!view_follow(&v, 420, 10, 10), "zoom follow inside");
	CHECK(view_follow(&v, 425, 10, 10) &&
		  v.pan_x == 3 * 425 + 2 - (1280 - 1 - 10),
	      "zoom follow %d", v.pan_x);
	check_roundtrip(&v, "zoom 3 panned");

	/* Centring (the scale hotkey going 1:1): the point's screen pixel
	 * in the middle, clamped at the desktop's edges; zoom 3 centres the
	 * middle of the remote pixel's 3. */
	view_update(&v, SCALE_NONE, 1, 1920, 1080, 1280, 720);
	CHECK(view_center(&v, 1000, 500) && v.pan_x == 1000 - 640 &&
		  v.pan_y == 500 - 360,
	      "centre %d,%d", v.pan_x, v.pan_y);
	CHECK(!view_center(&v, 1000, 500), "centre again moved");
	CHECK(view_center(&v, 5, 1079) && v.pan_x == 0 && v.pan_y == 360,
	      "centre near corner %d,%d", v.pan_x, v.pan_y);
	CHECK(view_center(&v, 5000, -7) && v.pan_x == 640 && v.pan_y == 0,
	      "centre outside %d,%d", v.pan_x, v.pan_y);
	view_update(&v, SCALE_ZOOM, 3, 640, 480, 1280, 720);
	CHECK(view_center(&v, 300, 200) && v.pan_x == 3 * 300 + 1 - 640 &&
		  v.pan_y == 3 * 200 + 1 - 360,
	      "zoom centre %d,%d", v.pan_x, v.pan_y);
	view_update(&v, SCALE_FIT, 1, 1920, 1080, 1280, 720);
	CHECK(!view_center(&v, 1000, 500) && v.pan_x == 0 && v.dx == 0,
	      "fit centre moved");

	/* Edge scrolling (absolute pointers): margin 45, up to 12 a step,
	 * faster nearer the edge, none where the view cannot go. */
	{
		int32_t dx, dy;

		view_update(&v, SCALE_NONE, 1, 1920, 1080, 1280, 720);
		view_pan_to(&v, 0, 0);
		CHECK(!view_edge_step(&v, 640, 360, 45, 12, &dx, &dy),
		      "edge step in the middle");
		CHECK(!view_edge_step(&v, 0, 0, 45, 12, &dx, &dy),
		      "edge step past the top-left corner");
		CHECK(!view_edge_step(&v, 1279 - 45, 360, 45, 12, &dx, &dy),
		      "edge step just inside the margin");
		CHECK(view_edge_step(&v, 1279 - 44, 360, 45, 12, &dx, &dy) &&
			  dx == 1 && dy == 0,
		      "edge step at the margin: %d,%d", dx, dy);
		CHECK(view_edge_step(&v, 1279, 360, 45, 12, &dx, &dy) &&
			  dx == 12 && dy == 0,
		      "edge step on the edge: %d,%d", dx, dy);
		CHECK(view_edge_step(&v, 1279 - 22, 719, 45, 12, &dx, &dy) &&
			  dx > 1 && dx < 12 && dy == 12,
		      "edge step corner: %d,%d", dx, dy);
		view_pan_to(&v, 640, 360);
		CHECK(!view_edge_step(&v, 1279, 719, 45, 12, &dx, &dy),
		      "edge step past the bottom-right corner");
		CHECK(view_edge_step(&v, 0, 0, 45, 12, &dx, &dy) &&
			  dx == -12 && dy == -12,
		      "edge step back: %d,%d", dx, dy);
		view_update(&v, SCALE_FIT, 1, 1920, 1080, 1280, 720);
		CHECK(!view_edge_step(&v, 0, 0, 45, 12, &dx, &dy),
		      "edge step in fit");
	}
}

/* scaler_direct, the 3:2 and 2:1 paths straight into a mapping: the same
 * pixels as scaler_row, exactly columns [x0, x1) of the rows it says it
 * drew stored (guards around each row, the next row untouched when it
 * drew one), whatever the alignment of the rows and the distance between
 * them (the streaming stores need both aligned alike). */
static void test_direct(void)
{
	static const char *const simds[] = {"c", "ssse3", "avx2"};
	static const uint32_t sz[][4] = {
	    {192, 108, 128, 72}, {30, 6, 20, 4},   {600, 12, 400, 8},
	    {256, 8, 128, 4},	 {70, 10, 35, 5}, {1000, 4, 500, 2}};
	enum { GUARD = 16 };
	size_t si, k;
	int i;

	for (si = 0; si < sizeof(simds) / sizeof(simds[0]); si++) {
		if (scale_simd_set(simds[si]) < 0)
			continue;
		for (k = 0; k < sizeof(sz) / sizeof(sz[0]); k++) {
			uint32_t rw = sz[k][0], rh = sz[k][1], dw = sz[k][2],
				 dh = sz[k][3], y;
			bool half = rw == 2 * dw;
			size_t stride = (size_t)rw * 4, n;
			struct pixfmt f;
			struct scaler *s;
			uint8_t *src, *ref, *buf;

			pixfmt_from_name("xrgb8888", &f);
			src = malloc(stride * rh);
			ref = malloc((size_t)dw * dh * 4);
			/* Two rows with guards, room to shift and spread. */
			n = 2 * ((size_t)dw * 4 + 2 * GUARD * 4) + 256;
			/* aligned_alloc takes whole multiples of the alignment
			 * (C11; ASan checks it). */
			n = (n + 63) & ~(size_t)63;
			buf = aligned_alloc(64, n);
			for (i = 0; i < (int)(stride * rh); i++)
				src[i] = (uint8_t)rnd();
			CHECK(scaler_create(&s, &f, rw, rh, dw, dh) == 0,
			      "scaler_create");
			if (!s)
				exit(1);
			CHECK(scaler_path(s) ==
				  (half ? SCALER_PAIR21 : SCALER_PAIR32),
			      "%s %ux%u: no %s path",
			      simds[si], rw, rh, half ? "2:1" : "3:2");
			for (y = 0; y < dh; y++)
				memcpy(ref + (size_t)y * dw * 4,
				       scaler_row(s, src, stride, y, 0, dw,
						  ref + (size_t)y * dw * 4),
				       (size_t)dw * 4);
			for (i = 0; i < 300; i++) {
				uint32_t x0 = rnd() % dw,
					 x1 = x0 + 1 + rnd() % (dw - x0);
				/* Row 0 at any pixel alignment; row 1 a
				 * multiple of 32 bytes further, or not. */
				size_t off = (rnd() % 16) * 4,
				       gap = (size_t)dw * 4 + 2 * GUARD * 4 +
					     (rnd() % 2 ? 32 : (rnd() % 8) * 4);
				uint8_t *r0 = buf + off + GUARD * 4,
					*r1 = r0 + gap;
				unsigned want, got, j;
				bool ok = true;

				y = rnd() % dh;
				want = half		     ? 1
				       : y % 2 || y + 1 >= dh ? 0
							      : 2;
				memset(buf, 0xa5, n);
				got = scaler_direct(s, src, stride, y, x0, x1,
						    r0, gap, 2);
				CHECK(got == want,
				      "%s %ux%u: scaler_direct drew %u rows "
				      "from %u, not %u",
				      simds[si], rw, rh, got, y, want);
				for (j = 0; j < 2; j++) {
					uint8_t *r = j ? r1 : r0;
					const uint8_t *w =
					    ref + ((size_t)(y + j) * dw + x0) *
						      4;
					size_t b, len = (size_t)(x1 - x0) * 4;

					if (j < got) {
						ok &= !memcmp(r, w, len);
					} else {
						for (b = 0; b < len; b++)
							ok &= r[b] == 0xa5;
					}
					for (b = 0; b < GUARD * 4; b++)
						ok &= r[-1 - (ptrdiff_t)b] ==
							  0xa5 &&
						      r[len + b] == 0xa5;
				}
				if (!ok) {
					CHECK(0,
					      "%s %ux%u row %u [%u,%u) off "
					      "%zu gap %zu: wrong pixels or "
					      "stored outside",
					      simds[si], rw, rh, y, x0, x1, off,
					      gap);
					break;
				}
			}
			scaler_destroy(s);
			free(src);
			free(ref);
			free(buf);
		}
	}
	scale_simd_set("auto");
}

/* Two heads of one layout: each shows its part of the desktop placed on
 * the whole layout. */
static void test_view_heads(void)
{
	const struct rect left = {0, 0, 1024, 768},
			  right = {1024, 0, 1024, 768};
	struct view a, b;
	struct rect r, out;
	int32_t rx, ry;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	/* The desktop of the layout's size: 1:1, each head its half. */
	view_set_head(&a, &left, 2048, 768);
	view_set_head(&b, &right, 2048, 768);
	view_update(&a, SCALE_FIT, 1, 2048, 768, 1024, 768);
	view_update(&b, SCALE_FIT, 1, 2048, 768, 1024, 768);
	CHECK(view_identity(&a) && a.dx == 0 && b.dx == -1024 && b.dy == 0,
	      "heads 1:1: dx %d, %d", a.dx, b.dx);
	CHECK(!view_pannable(&b));
	r = (struct rect){1000, 10, 100, 20};
	CHECK(view_remote_to_screen(&a, &r, &out) && out.x == 1000 &&
	      out.w == 24);
	CHECK(view_remote_to_screen(&b, &r, &out) && out.x == 0 && out.w == 76);
	r = (struct rect){1100, 10, 100, 20};
	CHECK(!view_remote_to_screen(&a, &r, &out));
	view_screen_to_remote(&b, 5, 7, &rx, &ry);
	CHECK(rx == 1029 && ry == 7, "head 1 (5,7) -> %d,%d", rx, ry);

	/* A server that kept 1024x768: fitted into the middle of the
	 * layout, half on each head. */
	view_update(&a, SCALE_FIT, 1, 1024, 768, 1024, 768);
	view_update(&b, SCALE_FIT, 1, 1024, 768, 1024, 768);
	CHECK(a.dw == 1024 && a.dx == 512 && b.dx == 512 - 1024,
	      "fit on heads: %u at %d, %d", a.dw, a.dx, b.dx);
	CHECK(view_desktop(&a, &out) && out.x == 512 && out.w == 512);
	CHECK(view_desktop(&b, &out) && out.x == 0 && out.w == 512);
	/* Larger than the layout: panned as one. */
	view_update(&b, SCALE_NONE, 1, 3000, 768, 1024, 768);
	CHECK(view_pannable(&b));
	CHECK(view_pan_to(&b, 5000, 0) && b.pan_x == 3000 - 2048 &&
		  b.dx == -(3000 - 2048) - 1024,
	      "pan %d, dx %d", b.pan_x, b.dx);
	/* Back to one screen. */
	view_set_head(&b, &right, 0, 0);
	view_update(&b, SCALE_FIT, 1, 1024, 768, 1024, 768);
	CHECK(b.dx == 0 && view_identity(&b));
}

/* A picture of one colour comes out that colour exactly, at every
 * ratio and in every format: the box filter of a uniform picture is the
 * picture. Colours one step above black on every channel, whose 8-bit
 * value (the channel's bits replicated) packs back only when rounded. */
static void test_uniform(void)
{
	static const char *const fmts[] = {"rgb565", "xrgb1555", "rgb332",
					   "xrgb8888", "rgb888"};
	static const uint32_t dims[][4] = {
	    {30, 20, 20, 13}, {7, 5, 3, 2}, {16, 16, 10, 11}, {9, 9, 13, 13}};

	for (size_t f = 0; f < sizeof(fmts) / sizeof(fmts[0]); f++) {
		struct pixfmt pf;
		unsigned bpp;

		if (pixfmt_from_name(fmts[f], &pf) < 0) {
			CHECK(0, "format %s", fmts[f]);
			continue;
		}
		bpp = pixfmt_bytes(&pf);
		for (size_t k = 0; k < sizeof(dims) / sizeof(dims[0]); k++)
			for (unsigned lvl = 1; lvl < 4; lvl++) {
				uint32_t rw = dims[k][0], rh = dims[k][1];
				uint32_t dw = dims[k][2], dh = dims[k][3];
				uint32_t px = lvl << pf.r_shift |
					      lvl << pf.g_shift |
					      lvl << pf.b_shift;
				uint8_t *src = malloc((size_t)rw * rh * bpp);
				uint8_t *out = malloc((size_t)dw * bpp);
				uint8_t one[4];
				struct scaler *sc = NULL;
				int bad = 0;

				pixfmt_store(&pf, one, px);
				for (size_t i = 0; i < (size_t)rw * rh; i++)
					memcpy(src + i * bpp, one, bpp);
				if (scaler_create(&sc, &pf, rw, rh, dw, dh) <
				    0) {
					CHECK(0, "scaler %s", fmts[f]);
					free(src);
					free(out);
					continue;
				}
				scaler_start(sc);
				for (uint32_t y = 0; y < dh; y++) {
					const uint8_t *row = scaler_row(
					    sc, src, (size_t)rw * bpp, y, 0, dw,
					    out);

					for (uint32_t x = 0; x < dw; x++)
						bad += memcmp(row + x * bpp,
							      one, bpp) != 0;
				}
				CHECK(!bad,
				      "uniform %s level %u %ux%u to %ux%u "
				      "(path %d): %d pixels changed",
				      fmts[f], lvl, rw, rh, dw, dh,
				      (int)scaler_path(sc), bad);
				scaler_destroy(sc);
				free(src);
				free(out);
			}
	}
}

int main(void)
{
	test_parse();
	test_reference();
	test_view();
	test_view_heads();
	test_scalers();
	test_random_sizes();
	test_direct();
	test_uniform();
	if (failures) {
		fprintf(stderr, "%d failures\n", failures);
		return 1;
	}
	fprintf(stderr, "all scale tests passed\n");
	return 0;
}
