/* vncfb's decoders, each with streams made by hand here: every
 * subencoding, partial tiles at the rectangle's and the desktop's edges,
 * zero-size rectangles, streams that go on across rectangles, in every
 * shadow format; and the errors, with the line they end with. */
#include "config.h"

#include <lzo/lzo1x.h>
#include <unistd.h>

#include "../check.h"
#include "rfbgen.h"

static const char *const formats[] = {
    "xrgb8888", "bgrx8888", "xbgr8888", "rgb565", "xrgb1555", "rgb332",
};
#define NFORMATS (sizeof(formats) / sizeof(formats[0]))

void expect_decoded(struct fix *f, const struct buf *s, int updates,
		    const struct pic *want, const char *what, const char *fmt)
{
	char where[96];
	int got = fix_feed(f, s);

	CHECK(got == updates, "%s %s: %d updates, want %d: %s", what, fmt, got,
	      updates, f->why);
	CHECK(fix_same(f, want, where, sizeof(where)), "%s %s: %s", what, fmt,
	      where);
}

void expect_bad(const char *fmt, uint32_t w, uint32_t h, const struct buf *s,
		const char *why)
{
	struct fix f;

	fix_open(&f, fmt, w, h);
	CHECK(fix_feed(&f, s) < 0 && f.err == VNC_ERR_PROTOCOL &&
		  strstr(f.why, why),
	      "%s: got \"%s\" (error %d), want \"%s\"", fmt, f.why, f.err, why);
	fix_free(&f);
}

/* --- raw and CopyRect --- */

static void raw_rect(struct buf *s, const struct pic *p, uint32_t x, uint32_t y,
		     uint32_t w, uint32_t h)
{
	rhdr(s, x, y, w, h, RFB_ENC_RAW);
	for (uint32_t j = 0; j < h; j++)
		put(s, pic_at(p, x, y + j), (size_t)w * p->bpp);
}

static void test_raw(const char *fmt)
{
	struct pic want;
	struct buf s = {0};
	struct fix f;

	pic_init(&want, fmt, 50, 40);
	pic_random(&want);
	fbu(&s, 4);
	/* The whole width in one read, a part row by row, nothing. */
	raw_rect(&s, &want, 0, 0, 50, 40);
	raw_rect(&s, &want, 3, 5, 17, 9);
	raw_rect(&s, &want, 49, 39, 1, 1);
	rhdr(&s, 7, 7, 0, 0, RFB_ENC_RAW);
	fix_open(&f, fmt, 50, 40);
	expect_decoded(&f, &s, 1, &want, "raw", fmt);
	CHECK(strstr(f.log, fix_threads() >= 2
				? "request 50x40 damage 0,0,50x40 done"
				: "request 50x40 damage 0,0,50x40 damage "
				  "3,5,17x9 damage 49,39,1x1 done"),
	      "raw %s: events %s", fmt, f.log);
	fix_free(&f);
	free(want.p);
	free(s.p);
}

/* CopyRect copies as from a snapshot, overlapping or not. */
static void copy_ref(struct pic *p, uint32_t sx, uint32_t sy, uint32_t dx,
		     uint32_t dy, uint32_t w, uint32_t h)
{
	uint8_t *tmp = malloc((size_t)w * h * p->bpp);

	for (uint32_t j = 0; j < h; j++)
		memcpy(tmp + (size_t)j * w * p->bpp, pic_at(p, sx, sy + j),
		       (size_t)w * p->bpp);
	for (uint32_t j = 0; j < h; j++)
		memcpy(pic_at(p, dx, dy + j), tmp + (size_t)j * w * p->bpp,
		       (size_t)w * p->bpp);
	free(tmp);
}

static void copyrect(struct buf *s, struct pic *want, uint32_t sx, uint32_t sy,
		     uint32_t dx, uint32_t dy, uint32_t w, uint32_t h)
{
	rhdr(s, dx, dy, w, h, RFB_ENC_COPYRECT);
	u16(s, sx);
	u16(s, sy);
	copy_ref(want, sx, sy, dx, dy, w, h);
}

static void test_copyrect(const char *fmt)
{
	struct pic want;
	struct buf s = {0};
	struct fix f;

	pic_init(&want, fmt, 60, 50);
	pic_random(&want);
	fbu(&s, 7);
	raw_rect(&s, &want, 0, 0, 60, 50);
	copyrect(&s, &want, 2, 2, 5, 6, 20, 15);     /* down and right */
	copyrect(&s, &want, 9, 12, 3, 4, 30, 20);    /* up and left */
	copyrect(&s, &want, 0, 10, 3, 10, 40, 5);    /* along a row */
	copyrect(&s, &want, 10, 30, 10, 28, 45, 20); /* up, same x */
	copyrect(&s, &want, 0, 0, 59, 49, 1, 1);     /* to the corner */
	copyrect(&s, &want, 0, 0, 5, 5, 0, 0);	     /* nothing */
	fix_open(&f, fmt, 60, 50);
	expect_decoded(&f, &s, 1, &want, "copyrect", fmt);
	fix_free(&f);
	s.n = 0;
	fbu(&s, 1);
	rhdr(&s, 0, 0, 16, 16, RFB_ENC_COPYRECT);
	u16(&s, 50);
	u16(&s, 40);
	expect_bad(fmt, 60, 50, &s,
		   "bad CopyRect rectangle 16x16 at 0,0: source 16x16 at "
		   "50,40 is outside the 60x50 desktop");
	free(want.p);
	free(s.p);
}

/* --- RRE, CoRRE --- */

static void rre_rect(struct buf *s, struct pic *want, uint32_t x, uint32_t y,
		     uint32_t w, uint32_t h, bool compact, unsigned n)
{
	uint8_t bg[4], px[4];

	rhdr(s, x, y, w, h, compact ? RFB_ENC_CORRE : RFB_ENC_RRE);
	u32(s, n);
	rndpx(&want->pf, bg);
	put_px(s, want, bg);
	pic_fill(want, x, y, w, h, bg);
	for (unsigned i = 0; i < n; i++) {
		/* The last one reaches the far corner exactly. */
		uint32_t sw = 1 + rnd() % w, sh = 1 + rnd() % h;
		uint32_t sx = i == n - 1 ? w - sw : rnd() % (w - sw + 1);
		uint32_t sy = i == n - 1 ? h - sh : rnd() % (h - sh + 1);

		rndpx(&want->pf, px);
		put_px(s, want, px);
		if (compact) {
			u8(s, sx), u8(s, sy), u8(s, sw), u8(s, sh);
		} else {
			u16(s, sx), u16(s, sy), u16(s, sw), u16(s, sh);
		}
		pic_fill(want, x + sx, y + sy, sw, sh, px);
	}
}

static void test_rre(const char *fmt)
{
	struct pic want;
	struct buf s = {0};
	struct fix f;
	uint8_t px[4] = {0};

	pic_init(&want, fmt, 300, 80);
	fbu(&s, 5);
	rre_rect(&s, &want, 0, 0, 300, 80, false, 1500);
	rre_rect(&s, &want, 5, 7, 40, 30, true, 50);
	rre_rect(&s, &want, 299, 79, 1, 1, false, 1);
	rre_rect(&s, &want, 10, 10, 0, 0, false, 0);
	rre_rect(&s, &want, 100, 10, 190, 60, true, 9);
	fix_open(&f, fmt, 300, 80);
	expect_decoded(&f, &s, 1, &want, "rre", fmt);
	fix_free(&f);
	/* More subrectangles than pixels; one past the rectangle. */
	s.n = 0;
	fbu(&s, 1);
	rhdr(&s, 0, 0, 4, 4, RFB_ENC_RRE);
	u32(&s, 17);
	put(&s, px, want.bpp);
	expect_bad(fmt, 300, 80, &s,
		   "bad RRE rectangle 4x4 at 0,0: 17 subrectangles in 16 "
		   "pixels");
	s.n = 0;
	fbu(&s, 1);
	rhdr(&s, 0, 0, 4, 4, RFB_ENC_CORRE);
	u32(&s, 1);
	put(&s, px, want.bpp);
	put(&s, px, want.bpp);
	u8(&s, 1), u8(&s, 1), u8(&s, 4), u8(&s, 1);
	expect_bad(fmt, 300, 80, &s,
		   "bad CoRRE rectangle 4x4 at 0,0: subrectangle 4x1 at 1,1 is "
		   "outside it");
	free(want.p);
	free(s.p);
}

/* --- hextile --- */

/* n coloured subrectangles of a tw x th tile at x,y, drawn into want:
 * small, most of them 2x2 and less (text's), else of any size. */
static void hex_coloured(struct buf *s, struct pic *want, uint32_t x,
			 uint32_t y, uint32_t tw, uint32_t th, uint8_t *fg,
			 unsigned n, bool small)
{
	u8(s, n);
	for (unsigned i = 0; i < n; i++) {
		uint32_t most = small && rnd() % 8 ? 2 : 16;
		uint32_t sw = 1 + rnd() % (tw < most ? tw : most);
		uint32_t sh = 1 + rnd() % (th < most ? th : most);
		uint32_t sx = rnd() % (tw - sw + 1), sy = rnd() % (th - sh + 1);

		rndpx(&want->pf, fg);
		put_px(s, want, fg);
		u8(s, sx << 4 | sy);
		u8(s, (sw - 1) << 4 | (sh - 1));
		pic_fill(want, x + sx, y + sy, sw, sh, fg);
	}
}

/* One tile of kind k at x,y (tw x th), drawn into want as encoded. */
static void hex_tile(struct buf *s, struct pic *want, uint32_t x, uint32_t y,
		     uint32_t tw, uint32_t th, unsigned k, uint8_t *bg,
		     uint8_t *fg)
{
	unsigned n;

	switch (k % 7) {
	case 0: /* raw */
		u8(s, 1);
		for (uint32_t j = 0; j < th; j++)
			for (uint32_t i = 0; i < tw; i++) {
				rndpx(&want->pf, pic_at(want, x + i, y + j));
				put_px(s, want, pic_at(want, x + i, y + j));
			}
		return;
	case 1: /* background only */
		u8(s, 2);
		rndpx(&want->pf, bg);
		put_px(s, want, bg);
		pic_fill(want, x, y, tw, th, bg);
		return;
	case 2: /* nothing said: the last background */
		u8(s, 0);
		pic_fill(want, x, y, tw, th, bg);
		return;
	case 3: /* new foreground, mono subrectangles */
	case 4: /* the last foreground */
		u8(s, (k % 7 == 3 ? 4 : 0) | 8);
		if (k % 7 == 3) {
			rndpx(&want->pf, fg);
			put_px(s, want, fg);
		}
		pic_fill(want, x, y, tw, th, bg);
		n = 1 + rnd() % 20;
		u8(s, n);
		for (unsigned i = 0; i < n; i++) {
			uint32_t sw = 1 + rnd() % tw, sh = 1 + rnd() % th;
			uint32_t sx = rnd() % (tw - sw + 1),
				 sy = rnd() % (th - sh + 1);

			u8(s, sx << 4 | sy);
			u8(s, (sw - 1) << 4 | (sh - 1));
			pic_fill(want, x + sx, y + sy, sw, sh, fg);
		}
		return;
	case 5: /* text: up to 255 coloured subrectangles, most of one to
		 * four pixels (each shape of 2x2 and less), overlapping */
		u8(s, 8 | 16);
		pic_fill(want, x, y, tw, th, bg);
		hex_coloured(s, want, x, y, tw, th, fg, 1 + rnd() % 255, true);
		return;
	default: /* coloured subrectangles, with a new background */
		u8(s, 2 | 8 | 16);
		rndpx(&want->pf, bg);
		put_px(s, want, bg);
		pic_fill(want, x, y, tw, th, bg);
		hex_coloured(s, want, x, y, tw, th, fg, 1 + rnd() % 30, false);
		return;
	}
}

static void hextile_rect(struct buf *s, struct pic *want, uint32_t x,
			 uint32_t y, uint32_t w, uint32_t h, unsigned k0)
{
	uint8_t bg[4] = {0}, fg[4] = {0};
	unsigned k = k0;

	rhdr(s, x, y, w, h, RFB_ENC_HEXTILE);
	for (uint32_t ty = 0; ty < h; ty += 16)
		for (uint32_t tx = 0; tx < w; tx += 16) {
			uint32_t tw = w - tx < 16 ? w - tx : 16;
			uint32_t th = h - ty < 16 ? h - ty : 16;

			/* The first tile sets a background. */
			hex_tile(s, want, x + tx, y + ty, tw, th,
				 tx == 0 && ty == 0 && k % 7 == 2 ? k + 1 : k,
				 bg, fg);
			k++;
		}
}

static void test_hextile(const char *fmt)
{
	struct pic want;
	struct buf s = {0};
	struct fix f;

	pic_init(&want, fmt, 100, 70);
	pic_random(&want);
	fbu(&s, 4);
	/* Partial tiles at the right and bottom, at the desktop's edge. */
	hextile_rect(&s, &want, 0, 0, 100, 70, 0);
	hextile_rect(&s, &want, 3, 5, 37, 20, 1);
	hextile_rect(&s, &want, 99, 69, 1, 1, 5);
	hextile_rect(&s, &want, 50, 50, 0, 0, 0);
	fix_open(&f, fmt, 100, 70);
	expect_decoded(&f, &s, 1, &want, "hextile", fmt);
	fix_free(&f);
	/* A subrectangle past its (partial) tile. */
	s.n = 0;
	fbu(&s, 1);
	rhdr(&s, 0, 0, 20, 20, RFB_ENC_HEXTILE);
	u8(&s, 1);
	for (int i = 0; i < 16 * 16 * 4; i++)
		u8(&s, 0);
	s.n -= (4 - want.bpp) * 256;
	u8(&s, 2 | 8);
	put(&s, "\0\0\0\0", want.bpp);
	u8(&s, 1);
	u8(&s, 0x20);
	u8(&s, 0x2f);
	u8(&s, 0);
	u8(&s, 0);
	expect_bad(fmt, 100, 70, &s,
		   "subrectangle 3x16 at 2,0 is outside its 4x16 tile at "
		   "16,0");
	free(want.p);
	free(s.p);
}

/* --- zlib --- */

static void test_zlib(const char *fmt)
{
	struct pic want;
	struct buf s = {0}, zd = {0};
	struct fix f;
	z_stream z;

	pic_init(&want, fmt, 64, 40);
	pic_random(&want);
	zinit(&z);
	/* One stream across rectangles and updates. */
	fbu(&s, 2);
	zlib_rect(&s, &z, &want, 0, 0, 64, 40);
	zlib_rect(&s, &z, &want, 10, 3, 13, 29);
	fbu(&s, 2);
	zlib_rect(&s, &z, &want, 63, 39, 1, 1);
	zlib_rect(&s, &z, &want, 5, 5, 0, 3);
	fix_open(&f, fmt, 64, 40);
	expect_decoded(&f, &s, 2, &want, "zlib", fmt);
	fix_free(&f);
	/* Short, and more than the pixels. */
	zinit(&z);
	s.n = 0;
	fbu(&s, 1);
	zsync(&z, want.p, 4 * 4 * want.bpp - 3, &zd);
	rhdr(&s, 0, 0, 4, 4, RFB_ENC_ZLIB);
	u32(&s, (uint32_t)zd.n);
	put(&s, zd.p, zd.n);
	expect_bad(fmt, 64, 40, &s, "zlib data ends 3 bytes short");
	deflateEnd(&z);
	zinit(&z);
	s.n = zd.n = 0;
	fbu(&s, 1);
	zsync(&z, want.p, 4 * 4 * want.bpp + 1, &zd);
	rhdr(&s, 0, 0, 4, 4, RFB_ENC_ZLIB);
	u32(&s, (uint32_t)zd.n);
	put(&s, zd.p, zd.n);
	expect_bad(fmt, 64, 40, &s, "zlib data holds more than the");
	deflateEnd(&z);
	free(want.p);
	free(s.p);
	free(zd.p);
}

/* --- order --- */

/* What the reader draws itself (raw; hextile when copies are direct)
 * lands on top of a rectangle under it that a worker is still decoding:
 * a large zlib rectangle, then a raw and a hextile one over it, then a
 * zlib one over those, four updates in a row. */
static void order_from(struct pic *want, const struct pic *src, uint32_t x,
		       uint32_t y, uint32_t w, uint32_t h)
{
	for (uint32_t j = 0; j < h; j++)
		memcpy(pic_at(want, x, y + j), pic_at(src, x, y + j),
		       (size_t)w * want->bpp);
}

static void test_order(const char *fmt)
{
	struct pic want, src;
	struct buf s = {0};
	struct fix f;
	z_stream z;

	pic_init(&want, fmt, 512, 384);
	pic_init(&src, fmt, 512, 384);
	zinit(&z);
	for (unsigned u = 0; u < 4; u++) {
		fbu(&s, 4);
		pic_random(&src);
		zlib_rect(&s, &z, &src, 0, 0, 512, 384);
		order_from(&want, &src, 0, 0, 512, 384);
		pic_random(&src);
		raw_rect(&s, &src, 100 + u, 50, 60, 40);
		order_from(&want, &src, 100 + u, 50, 60, 40);
		hextile_rect(&s, &want, 120, 60 + u, 200, 150, u);
		zlib_rect(&s, &z, &src, 300, 200, 20, 20);
		order_from(&want, &src, 300, 200, 20, 20);
	}
	fix_open(&f, fmt, 512, 384);
	expect_decoded(&f, &s, 4, &want, "order", fmt);
	fix_free(&f);
	deflateEnd(&z);
	free(want.p);
	free(src.p);
	free(s.p);
}

/* A large hextile update where the reader draws hextile itself (copies
 * direct, as on 2 cores): while a worker is idle it takes one of the
 * rectangles, so both cores draw (the workers' CPU time grows, from
 * nothing while they were asleep), and the picture is the same. */
static void test_hextile_shared(const char *fmt)
{
	struct pic want;
	struct buf s = {0};
	struct fix f;
	uint64_t before;

	if (!fix_threads() || !fix_copies_direct())
		return;
	pic_init(&want, fmt, 512, 384);
	fbu(&s, 12);
	for (unsigned i = 0; i < 12; i++)
		hextile_rect(&s, &want, (i % 4) * 128, (i / 4) * 128, 128, 128,
			     i);
	fix_open(&f, fmt, 512, 384);
	/* The workers asleep, their start-up's CPU time counted. */
	usleep(50 * 1000);
	before = rfb_reader_cpu_ns(f.r);
	expect_decoded(&f, &s, 1, &want, "hextile shared", fmt);
	CHECK(rfb_reader_cpu_ns(f.r) > before,
	      "hextile shared %s: no worker drew a rectangle", fmt);
	fix_free(&f);
	free(want.p);
	free(s.p);
}

/* --- Ultra --- */

static void test_ultra(const char *fmt)
{
	struct pic want;
	struct buf s = {0};
	struct fix f;
	static uint8_t wrk[LZO1X_1_MEM_COMPRESS];
	const uint32_t rects[3][4] = {
	    {0, 0, 48, 30}, {3, 4, 20, 9}, {47, 29, 1, 1}};

	CHECK(lzo_init() == LZO_E_OK);
	pic_init(&want, fmt, 48, 30);
	pic_random(&want);
	fbu(&s, 3);
	for (int i = 0; i < 3; i++) {
		uint32_t x = rects[i][0], y = rects[i][1], w = rects[i][2],
			 h = rects[i][3];
		struct buf raw = {0};
		uint8_t *out = malloc(48 * 30 * 4 * 2);
		lzo_uint n = 0;

		for (uint32_t j = 0; j < h; j++)
			put(&raw, pic_at(&want, x, y + j),
			    (size_t)w * want.bpp);
		lzo1x_1_compress(raw.p, raw.n, out, &n, wrk);
		rhdr(&s, x, y, w, h, RFB_ENC_ULTRA);
		u32(&s, (uint32_t)n);
		put(&s, out, n);
		free(out);
		free(raw.p);
	}
	fix_open(&f, fmt, 48, 30);
	expect_decoded(&f, &s, 1, &want, "ultra", fmt);
	fix_free(&f);
	free(want.p);
	free(s.p);
}

int test_tight(const char *fmt);
int test_rle(const char *fmt);
int test_messages(void);
int test_alpha(const char *fmt);
int test_jpeg_rect(const char *fmt);

int main(void)
{
	for (size_t i = 0; i < NFORMATS; i++) {
		test_raw(formats[i]);
		test_copyrect(formats[i]);
		test_rre(formats[i]);
		test_hextile(formats[i]);
		test_zlib(formats[i]);
		test_order(formats[i]);
		test_hextile_shared(formats[i]);
		test_ultra(formats[i]);
		failures += test_tight(formats[i]);
		failures += test_rle(formats[i]);
		failures += test_alpha(formats[i]);
		failures += test_jpeg_rect(formats[i]);
	}
	failures += test_messages();
	return failures != 0;
}
