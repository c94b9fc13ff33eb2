/* Open H.264 (encoding 50) and the pixel format each rectangle is drawn
 * in (issue 42): a CursorWithAlpha whose pixels are H.264 (the cursor's
 * own R,G,B,A buffer), desktop rectangles in the shadow's format, and a
 * rectangle after auto-select's switch to 8-bit colour on the wire, each
 * in the format in force for it, whatever came first on the connection.
 * The frames are one flat colour (200,15,45): every pixel is checked
 * against it in every format, so a converter left in another format
 * shows as swapped channels, and one writing 4 bytes a pixel into a
 * 2-byte shadow writes past it (the rectangles sit on the desktop's
 * bottom rows; the guard-page build faults there at once). */
#include "config.h"

#include "../check.h"

#ifndef VNCFB_HAVE_H264
CHECK_SKIP_MAIN("vncfb was built without libavcodec (no Open H.264)")
#else

#include <libavutil/cpu.h>

#include "tools/demo/h264enc.h"
#include "rfbgen.h"

/* The colour the hostile server used; the tail cases paint two. */
static const uint8_t colour_main[3] = {200, 15, 45};
static const uint8_t *paint = colour_main;
#define CR paint[0]
#define CG paint[1]
#define CB paint[2]

/* Largest error per channel, in 8-bit levels, for a format of these
 * channel bits: libx264 at crf 18 and BT.601 limited range give a level
 * or two; a 5-bit channel's step is 8; rgb332's blue step is 85. */
static int tolerance(const struct pixfmt *pf)
{
	unsigned bits = pf->r_bits < pf->b_bits ? pf->r_bits : pf->b_bits;

	if (pf->g_bits < bits)
		bits = pf->g_bits;
	return bits >= 8 ? 4 : bits >= 5 ? 10 : 48;
}

/* One frame of w x h (even) in the flat colour: its Annex B bytes. */
static uint8_t *flat_frame(int w, int h, size_t *len)
{
	struct h264enc *e = h264enc_create(w, h, 18);
	uint8_t *rgb = malloc((size_t)w * h * 3), *out;
	const uint8_t *p;

	if (!e) {
		fprintf(stderr, "FAIL: no H.264 encoder in libavcodec "
				"(.ci/packages installs libavcodec with "
				"libx264)\n");
		exit(1);
	}
	for (size_t i = 0; i < (size_t)w * h; i++) {
		rgb[i * 3] = CR;
		rgb[i * 3 + 1] = CG;
		rgb[i * 3 + 2] = CB;
	}
	if (h264enc_frame(e, rgb, (size_t)w * 3, true, &p, len) < 0)
		abort();
	out = malloc(*len);
	memcpy(out, p, *len);
	h264enc_destroy(e);
	free(rgb);
	return out;
}

static void h264_body(struct buf *s, const uint8_t *d, size_t n)
{
	u32(s, (uint32_t)n);
	u32(s, 0);
	put(s, d, n);
}

/* A w x h rectangle at x,y of one flat frame (at least w x h, even). */
static void flat_rect(struct buf *s, unsigned x, unsigned y, unsigned w,
		      unsigned h)
{
	size_t n;
	uint8_t *d = flat_frame((int)(w + 1) & ~1, (int)(h + 1) & ~1, &n);

	rhdr(s, x, y, w, h, RFB_ENC_H264);
	h264_body(s, d, n);
	free(d);
}

/* A CursorWithAlpha of w x h whose pixels are one flat H.264 frame. */
static void flat_cursor(struct buf *s, unsigned w, unsigned h)
{
	size_t n;
	uint8_t *d = flat_frame((int)w, (int)h, &n);

	rhdr(s, 1, 1, w, h, RFB_ENC_CURSOR_ALPHA);
	u32(s, RFB_ENC_H264);
	h264_body(s, d, n);
	free(d);
}

/* Pixels of w x h at x,y of pixels in pf (pitch bytes a row) off the
 * colour by more than tol: the first one said. */
static int off_colour_tol(const char *what, const struct pixfmt *pf, int tol,
			  const uint8_t *pix, size_t pitch, uint32_t x,
			  uint32_t y, uint32_t w, uint32_t h)
{
	int bad = 0;

	for (uint32_t j = 0; j < h; j++)
		for (uint32_t i = 0; i < w; i++) {
			const uint8_t *p = pix + (size_t)(y + j) * pitch +
					   (size_t)(x + i) * (pf->bpp / 8);
			uint8_t c[3];

			pixfmt_unpack(pf, pixfmt_load(pf, p), &c[0], &c[1],
				      &c[2]);
			if (abs(c[0] - CR) <= tol && abs(c[1] - CG) <= tol &&
			    abs(c[2] - CB) <= tol)
				continue;
			if (!bad++)
				fprintf(stderr,
					"%s: pixel %u,%u is %u,%u,%u, want "
					"%d,%d,%d within %d\n",
					what, x + i, y + j, c[0], c[1], c[2],
					CR, CG, CB, tol);
		}
	return bad;
}

/* The same within the format's own tolerance. */
static int off_colour(const char *what, const struct pixfmt *pf,
		      const uint8_t *pix, size_t pitch, uint32_t x, uint32_t y,
		      uint32_t w, uint32_t h)
{
	return off_colour_tol(what, pf, tolerance(pf), pix, pitch, x, y, w,
			      h);
}

/* The cursor the reader gave: 16x16, opaque, the colour. */
static void check_cursor(const char *what, const struct fix *f)
{
	int transparent = 0;

	CHECK(f->cursors == 1 && f->cw == 16 && f->ch == 16,
	      "%s: %d cursors, %dx%d", what, f->cursors, f->cw, f->ch);
	if (f->cursors != 1 || f->cw != 16 || f->ch != 16)
		return;
	for (int i = 0; i < 16 * 16; i++)
		transparent += f->cmask[i] != 255;
	CHECK(transparent == 0, "%s: %d of the cursor's pixels not opaque",
	      what, transparent);
	CHECK(off_colour(what, &f->fb.pf, f->cpix, 16 * f->fb.bpp, 0, 0, 16,
			 16) == 0,
	      "%s: the cursor's colour", what);
}

/* The shadow's w x 16 at 0,h-16 (the bottom rows), decoded in wire's
 * format (its tolerance). */
static void check_rect(const char *what, const struct fix *f, uint32_t w,
		       const struct pixfmt *wire)
{
	CHECK(off_colour_tol(what, &f->fb.pf, tolerance(wire), f->fb.p,
			     (size_t)f->fb.w * f->fb.bpp, 0, f->fb.h - 16, w,
			     16) == 0,
	      "%s: the rectangle's colour", what);
}

/* The case: a cursor in H.264 the connection's first, then
 * desktop rectangles w wide on the bottom rows; and the other order. */
static void test_cursor_first(const char *fmt, unsigned w, bool cursor_first)
{
	const unsigned h = 48;
	char what[96];
	struct buf s = {0};
	struct fix f;
	const int before = failures;
	int n;

	snprintf(what, sizeof(what), "%s, %u wide, cursor %s", fmt, w,
		 cursor_first ? "first" : "after");
	fix_open(&f, fmt, w, h);
	if (cursor_first) {
		fbu(&s, 1);
		flat_cursor(&s, 16, 16);
	}
	/* The whole width (in place where it is a multiple of 16, through
	 * scratch rows otherwise), then a narrower one at x 0. */
	fbu(&s, 2);
	flat_rect(&s, 0, h - 16, w, 16);
	flat_rect(&s, 0, h - 32, w - 1, 16);
	if (!cursor_first) {
		fbu(&s, 1);
		flat_cursor(&s, 16, 16);
	}
	n = fix_feed(&f, &s);
	CHECK(n == 2, "%s: %d messages read: %s", what, n, f.why);
	if (n == 2) {
		check_rect(what, &f, w, &f.fb.pf);
		CHECK(off_colour(what, &f.fb.pf, f.fb.p,
				 (size_t)f.fb.w * f.fb.bpp, 0, h - 32, w - 1,
				 16) == 0,
		      "%s: the narrower rectangle's colour", what);
		check_cursor(what, &f);
	}
	printf("%s: %s\n", what, failures > before ? "wrong" : "right");
	free(s.p);
	fix_free(&f);
}

/* Auto-select: rectangles decoded into the shadow, then the wire's
 * format switched to rgb332 (rfb_reader_set_wire, as vnc.c does on a
 * slow link), then more rectangles of the same contexts, then back. */
static void test_wire_switch(const char *fmt, unsigned w)
{
	const unsigned h = 48;
	struct pixfmt low;
	char what[96];
	struct buf s = {0};
	struct fix f;
	const int before = failures;

	snprintf(what, sizeof(what), "%s, %u wide, wire switched", fmt, w);
	pixfmt_from_name("rgb332", &low);
	fix_open(&f, fmt, w, h);
	fbu(&s, 1);
	flat_rect(&s, 0, h - 16, w, 16);
	CHECK(fix_feed(&f, &s) == 1, "%s: before: %s", what, f.why);
	check_rect(what, &f, w, &f.fb.pf);
	/* The shadow cleared: what follows must draw it again. */
	memset(f.fb.p, 0, (size_t)f.fb.w * f.fb.h * f.fb.bpp);
	CHECK(rfb_reader_set_wire(f.r, &low) == 0, "%s: set_wire", what);
	CHECK(fix_feed(&f, &s) == 1, "%s: in rgb332: %s", what, f.why);
	check_rect(what, &f, w, &low);
	memset(f.fb.p, 0, (size_t)f.fb.w * f.fb.h * f.fb.bpp);
	CHECK(rfb_reader_set_wire(f.r, NULL) == 0, "%s: set_wire back", what);
	CHECK(fix_feed(&f, &s) == 1, "%s: back: %s", what, f.why);
	check_rect(what, &f, w, &f.fb.pf);
	printf("%s: %s\n", what, failures > before ? "wrong" : "right");
	free(s.p);
	fix_free(&f);
}

/* libswscale's C converters into 15 and 16 bits write whole groups of 8
 * pixels and leave the last 1-7 of a width unwritten: all of arm64's,
 * bgr565's on x86-64 (doc/testing.md). Each width here has such a tail,
 * in each of those formats (bgr565 as the wire's after a switch: no
 * shadow is bgr565), with libswscale's SIMD and without (simd false: the
 * C converters on x86-64 too). Two rectangles of two colours go through
 * the same scratch rows one after the other, so a tail left unwritten
 * shows the other's colour, or whatever the rows held before. */
static void test_tail(const char *fmt, bool bgr, unsigned w, bool simd)
{
	static const uint8_t other[3] = {40, 176, 104};
	const unsigned h = 48;
	struct pixfmt wire;
	char what[96];
	struct buf s = {0};
	struct fix f;
	const int before = failures;
	int n;

	snprintf(what, sizeof(what), "%s%s, %u wide, tail%s", fmt,
		 bgr ? " (wire bgr565)" : "", w, simd ? "" : ", no SIMD");
	av_force_cpu_flags(simd ? -1 : 0);
	fix_open(&f, fmt, 1024, h);
	pixfmt_from_name(fmt, &wire);
	if (bgr) {
		wire.r_shift = 0;
		wire.b_shift = 11;
		CHECK(rfb_reader_set_wire(f.r, &wire) == 0, "%s: set_wire",
		      what);
	}
	fbu(&s, 2);
	paint = other;
	flat_rect(&s, 0, h - 16, w + 2, 16);
	paint = colour_main;
	flat_rect(&s, 0, h - 32, w, 16);
	n = fix_feed(&f, &s);
	CHECK(n == 1, "%s: %d messages read: %s", what, n, f.why);
	if (n == 1) {
		paint = other;
		CHECK(off_colour_tol(what, &f.fb.pf, tolerance(&wire), f.fb.p,
				     (size_t)f.fb.w * f.fb.bpp, 0, h - 16,
				     w + 2, 16) == 0,
		      "%s: the first rectangle's colour", what);
		paint = colour_main;
		CHECK(off_colour_tol(what, &f.fb.pf, tolerance(&wire), f.fb.p,
				     (size_t)f.fb.w * f.fb.bpp, 0, h - 32, w,
				     16) == 0,
		      "%s: the second rectangle's colour", what);
	}
	paint = colour_main;
	av_force_cpu_flags(-1);
	printf("%s: %s\n", what, failures > before ? "wrong" : "right");
	free(s.p);
	fix_free(&f);
}

/* Usage: test_h264_format [cursor|wire|tail [FORMAT [WIDTH]]]: all cases, or
 * those named (to see each one fail alone before a fix). */
int main(int argc, char **argv)
{
	static const char *const fmts[] = {"rgb565", "xrgb8888", "bgrx8888"};
	static const unsigned widths[] = {64, 1023, 1024};
	const char *only = argc > 1 ? argv[1] : NULL,
		   *fmt = argc > 2 ? argv[2] : NULL;
	unsigned width = argc > 3 ? (unsigned)atoi(argv[3]) : 0;

	for (size_t i = 0; i < sizeof(fmts) / sizeof(fmts[0]); i++)
		for (size_t k = 0; k < sizeof(widths) / sizeof(widths[0]);
		     k++) {
			if ((only && strcmp(only, "cursor")) ||
			    (fmt && strcmp(fmt, fmts[i])) ||
			    (width && width != widths[k]))
				continue;
			test_cursor_first(fmts[i], widths[k], true);
			test_cursor_first(fmts[i], widths[k], false);
		}
	if (!only || !strcmp(only, "wire")) {
		test_wire_switch("xrgb8888", 64);
		test_wire_switch("rgb565", 1024);
		test_wire_switch("bgrx8888", 1023);
	}
	if (!only || !strcmp(only, "tail")) {
		static const unsigned tails[] = {12, 34, 1017, 1018, 1020,
						 1021};

		for (size_t k = 0; k < sizeof(tails) / sizeof(tails[0]); k++)
			for (int simd = 1; simd >= 0; simd--) {
				if (width && width != tails[k])
					continue;
				if (!fmt || !strcmp(fmt, "rgb565"))
					test_tail("rgb565", false, tails[k],
						  simd);
				if (!fmt || !strcmp(fmt, "xrgb1555"))
					test_tail("xrgb1555", false, tails[k],
						  simd);
				if (!fmt || !strcmp(fmt, "bgr565"))
					test_tail("rgb565", true, tails[k],
						  simd);
			}
	}
	return check_done("h264-format");
}
#endif
