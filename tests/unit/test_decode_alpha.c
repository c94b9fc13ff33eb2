/* CursorWithAlpha, by hand: premultiplied RGBA pixels in raw and in zlib
 * (on the stream the rectangles around it use), as the shape the session
 * gets (straight colour in the shadow's format, alpha a byte); large
 * shapes cut, zero-size ones and misplaced hot spots ignored; and the
 * errors: too large, a sub-encoding that cannot carry alpha, bad or cut
 * pixel data. */
#include "config.h"

#include "../check.h"
#include "rfbgen.h"

int test_alpha(const char *fmt);

/* w x h premultiplied pixels: alpha from the position, colours too. */
static uint8_t *rgba_shape(uint32_t w, uint32_t h)
{
	uint8_t *p = malloc((size_t)w * h * 4);

	for (uint32_t y = 0; y < h; y++)
		for (uint32_t x = 0; x < w; x++) {
			uint8_t *q = p + ((size_t)y * w + x) * 4;
			unsigned a = (x * 37 + y * 11) % 256;

			if (x == 0)
				a = 0;
			else if (x == 1)
				a = 255;
			q[0] = (uint8_t)((x * 20 % 256) * a / 255);
			q[1] = (uint8_t)((255 - y * 9 % 256) * a / 255);
			q[2] = (uint8_t)(200 * a / 255);
			q[3] = (uint8_t)a;
		}
	return p;
}

/* What the session got must be rgba's pixels, straight, in the format:
 * each channel within the step the format's channels and the
 * un-premultiplying (255 / alpha) lose. */
static void check_shape(const struct fix *f, const uint8_t *rgba, uint32_t w,
			uint32_t h, const char *what)
{
	const struct pixfmt *pf = &f->fb.pf;
	unsigned bad = 0;

	for (size_t i = 0; i < (size_t)w * h; i++) {
		const uint8_t *q = rgba + i * 4;
		uint8_t got[3];
		unsigned a = q[3];

		if (f->cmask[i] != a) {
			if (!bad++)
				CHECK(0, "%s: alpha %zu is %u, want %u", what,
				      i, f->cmask[i], a);
			continue;
		}
		if (!a)
			continue;
		pixfmt_unpack(pf, pixfmt_load(pf, f->cpix + i * f->fb.bpp),
			      &got[0], &got[1], &got[2]);
		for (int k = 0; k < 3; k++) {
			double want = q[k] * 255.0 / a;
			double tol = 255.0 / ((1 << (k == 0   ? pf->r_bits
						     : k == 1 ? pf->g_bits
							      : pf->b_bits)) -
					      1) +
				     255.0 / a + 1;

			if (want > 255)
				want = 255;
			if ((got[k] < want - tol || got[k] > want + tol) &&
			    !bad++)
				CHECK(0,
				      "%s: pixel %zu channel %d is %u, want "
				      "%.1f",
				      what, i, k, got[k], want);
		}
	}
	checks++;
}

static void alpha_raw(struct buf *s, uint32_t xhot, uint32_t yhot, uint32_t w,
		      uint32_t h, const uint8_t *rgba)
{
	rhdr(s, xhot, yhot, w, h, RFB_ENC_CURSOR_ALPHA);
	u32(s, RFB_ENC_RAW);
	put(s, rgba, (size_t)w * h * 4);
}

static void alpha_zlib(struct buf *s, z_stream *z, uint32_t xhot,
		       uint32_t yhot, uint32_t w, uint32_t h,
		       const uint8_t *rgba)
{
	struct buf zd = {0};

	zsync(z, rgba, (size_t)w * h * 4, &zd);
	rhdr(s, xhot, yhot, w, h, RFB_ENC_CURSOR_ALPHA);
	u32(s, RFB_ENC_ZLIB);
	u32(s, (uint32_t)zd.n);
	put(s, zd.p, zd.n);
	free(zd.p);
}

/* CursorWithAlpha rectangles the reader refuses (on a 64x48 desktop): the
 * rectangle's size, the encoding it names for its pixels and what
 * follows, and the line. */
static const struct bad_alpha {
	unsigned w, h;
	int32_t enc;
	const char *bytes;
	size_t n;
	const char *why;
} bad_alpha[] = {
    {1025, 1, RFB_ENC_RAW, "", 0,
     "sent a bad CursorWithAlpha rectangle 1025x1 at 0,0: a cursor larger "
     "than 1024x1024"},
    {4, 4, RFB_ENC_COPYRECT, "\0\0\0\0", 4,
     "its pixels in encoding CopyRect, which cannot carry them"},
    {4, 4, RFB_ENC_JPEG, "", 0,
     "its pixels in encoding JPEG, which cannot carry them"},
    {4, 4, 0x4d2, "", 0, "its pixels in encoding 0x000004d2"},
    {4, 4, RFB_ENC_ZLIB, "\0\0\0\x05\x78\x9c\xff\xff\xff", 9,
     "sent a bad CursorWithAlpha rectangle 4x4 at 0,0: zlib pixels: "},
};

/* A CursorWithAlpha whose pixels are Tight's JPEG (a sub-encoding that
 * keeps alpha, with an image that has none): every pixel opaque, the
 * colour as sent. Before issue 42 the cursor's R,G,B,A took libjpeg's
 * R,G,B through the table converter, alpha 0: an invisible cursor. */
static void test_alpha_jpeg(const char *fmt)
{
	const uint32_t w = 16, h = 16;
	uint8_t rgb[16 * 16 * 3];
	struct buf s = {0}, jpg = {0};
	struct fix f;
	int transparent = 0, off = 0, tol;

	for (size_t i = 0; i < sizeof(rgb); i += 3)
		rgb[i] = 200, rgb[i + 1] = 15, rgb[i + 2] = 45;
	jpeg_rgb(rgb, w, h, TABLES_ALL, 95, 0, &jpg);
	fix_open(&f, fmt, 64, 48);
	/* JPEG's error, or a 2-bit channel's step (rgb332's blue). */
	tol = f.fb.pf.b_bits < 3 ? 48 : f.fb.pf.r_bits < 5 ? 24 : 10;
	fbu(&s, 1);
	rhdr(&s, 1, 1, w, h, RFB_ENC_CURSOR_ALPHA);
	u32(&s, RFB_ENC_TIGHT);
	u8(&s, 0x90);
	clen(&s, (uint32_t)jpg.n);
	put(&s, jpg.p, jpg.n);
	CHECK(fix_feed(&f, &s) == 1 && f.cursors == 1,
	      "alpha tight jpeg %s: %s", fmt, f.why);
	for (size_t i = 0; f.cursors == 1 && i < (size_t)w * h; i++) {
		uint8_t c[3];

		transparent += f.cmask[i] != 255;
		pixfmt_unpack(&f.fb.pf,
			      pixfmt_load(&f.fb.pf, f.cpix + i * f.fb.bpp),
			      &c[0], &c[1], &c[2]);
		off += abs(c[0] - 200) > tol || abs(c[1] - 15) > tol ||
		       abs(c[2] - 45) > tol;
	}
	CHECK(transparent == 0 && off == 0,
	      "alpha tight jpeg %s: %d pixels not opaque, %d off colour", fmt,
	      transparent, off);
	fix_free(&f);
	free(s.p);
	free(jpg.p);
}

int test_alpha(const char *fmt)
{
	struct buf s = {0};
	struct fix f;
	struct pic want;
	z_stream z;
	uint8_t *rgba = rgba_shape(24, 20), *big = rgba_shape(300, 260);
	char where[96];

	test_alpha_jpeg(fmt);
	/* Raw: the shape and its hot spot. */
	fix_open(&f, fmt, 64, 48);
	fbu(&s, 1);
	alpha_raw(&s, 3, 4, 24, 20, rgba);
	CHECK(fix_feed(&f, &s) == 1, "alpha raw %s: %s", fmt, f.why);
	CHECK(f.cursors == 1 && f.cw == 24 && f.ch == 20 && f.cx == 3 &&
		  f.cy == 4,
	      "alpha raw %s: %d cursors %dx%d hot %d,%d", fmt, f.cursors,
	      f.cw, f.ch, f.cx, f.cy);
	if (f.cursors == 1)
		check_shape(&f, rgba, 24, 20, "alpha raw");
	fix_free(&f);

	/* zlib, between two zlib rectangles on the same stream: the
	 * cursor's pixels advance it in order. */
	fix_open(&f, fmt, 64, 48);
	pic_init(&want, fmt, 64, 48);
	pic_random(&want);
	zinit(&z);
	s.n = 0;
	fbu(&s, 3);
	zlib_rect(&s, &z, &want, 0, 0, 64, 30);
	alpha_zlib(&s, &z, 23, 19, 24, 20, rgba);
	zlib_rect(&s, &z, &want, 0, 30, 64, 18);
	CHECK(fix_feed(&f, &s) == 1, "alpha zlib %s: %s", fmt, f.why);
	CHECK(fix_same(&f, &want, where, sizeof(where)),
	      "alpha zlib %s: desktop %s", fmt, where);
	CHECK(f.cursors == 1 && f.cx == 23 && f.cy == 19, "alpha zlib %s",
	      fmt);
	if (f.cursors == 1)
		check_shape(&f, rgba, 24, 20, "alpha zlib");
	deflateEnd(&z);
	fix_free(&f);
	free(want.p);

	/* 300x260, hot spot 290,5: cut to 256x256 around it. Zero-size
	 * and misplaced hot spots: read, ignored, the update goes on. */
	fix_open(&f, fmt, 64, 48);
	s.n = 0;
	fbu(&s, 4);
	alpha_raw(&s, 290, 5, 300, 260, big);
	alpha_raw(&s, 0, 0, 0, 0, NULL);
	alpha_raw(&s, 24, 0, 24, 20, rgba);
	rhdr(&s, 0, 0, 4, 4, RFB_ENC_RAW);
	put(&s, big, (size_t)16 * f.fb.bpp);
	CHECK(fix_feed(&f, &s) == 1, "alpha large %s: %s", fmt, f.why);
	CHECK(f.cursors == 1 && f.cw == 256 && f.ch == 256 &&
		  f.cx == 290 - 44 && f.cy == 5 && f.updates == 1,
	      "alpha large %s: %d cursors %dx%d hot %d,%d", fmt, f.cursors,
	      f.cw, f.ch, f.cx, f.cy);
	if (f.cursors == 1) {
		/* Alpha (0,0) of the cut is the source's (44,0). */
		CHECK(f.cmask[0] == big[44 * 4 + 3] &&
			  f.cmask[255 * 256 + 255] ==
			      big[((size_t)255 * 300 + 299) * 4 + 3],
		      "alpha large %s: cut", fmt);
	}
	fix_free(&f);

	/* The errors. */
	for (size_t i = 0; i < sizeof(bad_alpha) / sizeof(bad_alpha[0]); i++) {
		const struct bad_alpha *c = &bad_alpha[i];

		s.n = 0;
		fbu(&s, 1);
		rhdr(&s, 0, 0, c->w, c->h, RFB_ENC_CURSOR_ALPHA);
		u32(&s, (uint32_t)c->enc);
		put(&s, c->bytes, c->n);
		expect_bad(fmt, 64, 48, &s, c->why);
	}
	/* Cut short: the connection's end, not a shape of garbage. */
	fix_open(&f, fmt, 64, 48);
	s.n = 0;
	fbu(&s, 1);
	alpha_raw(&s, 0, 0, 24, 20, rgba);
	s.n -= 7;
	CHECK(fix_feed(&f, &s) < 0 && f.err == VNC_ERR_CLOSED &&
		  f.cursors == 0,
	      "alpha cut short %s: error %d, %d cursors", fmt, f.err,
	      f.cursors);
	fix_free(&f);
	free(rgba);
	free(big);
	free(s.p);
	return failures;
}
