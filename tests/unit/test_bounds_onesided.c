/* Every bounds check on network data, broken on one side only: for each
 * rectangle the reader and the decoders check, x alone, y alone, the
 * width alone and the height alone one past the limit (each refused with
 * its one line), and each edge exactly at the limit accepted, its pixels
 * compared with a picture computed here, not by the code under test. The
 * reader's own limits (desktop size, name, cut text, colour map, cursor,
 * fence payload) likewise at the limit and one past. A check that loses
 * one half, or is off by one, fails a case here (tests/mutate/). */
#include "config.h"

#include "../check.h"
#include "rfbgen.h"

#define W 60
#define H 50

static const char *const formats[] = {"xrgb8888", "rgb565"};
#define NFORMATS (sizeof(formats) / sizeof(formats[0]))

/* The fixture with the Fence and ContinuousUpdates hooks too (the
 * reader refuses a fence it did not offer). */
static int ok_fence(void *ctx, uint32_t flags, const uint8_t *payload,
		    unsigned len)
{
	struct fix *f = ctx;

	(void)payload;
	log_append(f->log, sizeof(f->log), "fence 0x%x %u", flags, len);
	return 0;
}

static int ok_continuous(void *ctx, bool enable, uint32_t w, uint32_t h)
{
	(void)ctx, (void)enable, (void)w, (void)h;
	return 0;
}

static void open_fix(struct fix *f, const char *fmt)
{
	static const struct rfb_reader_ops ops = {
	    .request = fix_request,
	    .fence = ok_fence,
	    .continuous = ok_continuous};

	fix_open_ops(f, fmt, W, H, &ops);
}

/* s fed to a fresh W x H reader in fmt: with want, every message read
 * and the framebuffer want's picture; else a protocol error whose line
 * contains why. The stream is emptied for the next case. */
static void expect(const char *what, const char *fmt, struct buf *s,
		   const struct pic *want, const char *why)
{
	struct fix f;
	char where[96];
	int got;

	open_fix(&f, fmt);
	got = fix_feed(&f, s);
	if (want) {
		CHECK(got >= 0, "%s %s: refused: %s", what, fmt, f.why);
		CHECK(got < 0 || fix_same(&f, want, where, sizeof(where)),
		      "%s %s: %s", what, fmt, where);
	} else {
		CHECK(got < 0 && f.err == VNC_ERR_PROTOCOL &&
			  strstr(f.why, why),
		      "%s %s: got \"%s\" (error %d), want \"%s\"", what, fmt,
		      got < 0 ? f.why : "accepted", f.err, why);
	}
	fix_free(&f);
	s->n = 0;
}

/* A W x H picture, black (as the reader's framebuffer starts). */
static void black(struct pic *p, const char *fmt)
{
	pic_init(p, fmt, W, H);
}

static void raw_rect(struct buf *s, const struct pic *p, uint32_t x, uint32_t y,
		     uint32_t w, uint32_t h)
{
	rhdr(s, x, y, w, h, RFB_ENC_RAW);
	for (uint32_t j = 0; j < h; j++)
		put(s, pic_at(p, x, y + j), (size_t)w * p->bpp);
}

/* --- the reader: a rectangle inside the desktop --- */

static void test_rect_edges(const char *fmt)
{
	static const struct {
		unsigned x, y, w, h;
		const char *why;
	} bad[] = {
	    {W, 0, 1, 1, "1x1 at 60,0: outside the 60x50 desktop"},
	    {0, H, 1, 1, "1x1 at 0,50: outside the 60x50 desktop"},
	    {0, 0, W + 1, 1, "61x1 at 0,0: outside the 60x50 desktop"},
	    {0, 0, 1, H + 1, "1x51 at 0,0: outside the 60x50 desktop"},
	    {W - 1, 0, 2, 1, "2x1 at 59,0: outside"},
	    {0, H - 1, 1, 2, "1x2 at 0,49: outside"},
	};
	struct buf s = {0};
	struct pic want;

	/* At the limit on every side: drawn, every pixel where it goes. */
	black(&want, fmt);
	pic_random(&want);
	fbu(&s, 4);
	raw_rect(&s, &want, 0, 0, W, H);
	raw_rect(&s, &want, W - 1, 0, 1, H);
	raw_rect(&s, &want, 0, H - 1, W, 1);
	raw_rect(&s, &want, W - 1, H - 1, 1, 1);
	expect("raw at the edges", fmt, &s, &want, NULL);
	free(want.p);

	/* One past on one side only; every encoding is checked there, the
	 * raw and a CopyRect alike. */
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		fbu(&s, 1);
		rhdr(&s, bad[i].x, bad[i].y, bad[i].w, bad[i].h, RFB_ENC_RAW);
		expect("raw past an edge", fmt, &s, NULL, bad[i].why);
		fbu(&s, 1);
		rhdr(&s, bad[i].x, bad[i].y, bad[i].w, bad[i].h,
		     RFB_ENC_COPYRECT);
		u16(&s, 0);
		u16(&s, 0);
		expect("CopyRect past an edge", fmt, &s, NULL, bad[i].why);
	}
}

/* --- CopyRect's source --- */

static void test_copyrect_source(const char *fmt)
{
	struct buf s = {0};
	struct pic want;

	black(&want, fmt);
	pic_random(&want);
	/* The bottom right 10x10 to the top left: the source's right and
	 * bottom edges at the desktop's. */
	fbu(&s, 2);
	raw_rect(&s, &want, 0, 0, W, H);
	rhdr(&s, 0, 0, 10, 10, RFB_ENC_COPYRECT);
	u16(&s, W - 10);
	u16(&s, H - 10);
	for (uint32_t j = 0; j < 10; j++)
		memcpy(pic_at(&want, 0, j), pic_at(&want, W - 10, H - 10 + j),
		       10 * want.bpp);
	expect("CopyRect from the corner", fmt, &s, &want, NULL);
	free(want.p);

	fbu(&s, 1);
	rhdr(&s, 0, 0, 10, 10, RFB_ENC_COPYRECT);
	u16(&s, W - 9);
	u16(&s, 0);
	expect("CopyRect source x", fmt, &s, NULL,
	       "source 10x10 at 51,0 is outside the 60x50 desktop");
	fbu(&s, 1);
	rhdr(&s, 0, 0, 10, 10, RFB_ENC_COPYRECT);
	u16(&s, 0);
	u16(&s, H - 9);
	expect("CopyRect source y", fmt, &s, NULL,
	       "source 10x10 at 0,41 is outside the 60x50 desktop");
}

/* --- RRE, CoRRE --- */

static void rre_head(struct buf *s, const struct pic *p, unsigned x, unsigned y,
		     unsigned w, unsigned h, bool compact, unsigned n,
		     const uint8_t *bg)
{
	rhdr(s, x, y, w, h, compact ? RFB_ENC_CORRE : RFB_ENC_RRE);
	u32(s, n);
	put_px(s, p, bg);
}

static void rre_sub(struct buf *s, const struct pic *p, bool compact,
		    const uint8_t *px, unsigned x, unsigned y, unsigned w,
		    unsigned h)
{
	put_px(s, p, px);
	if (compact) {
		u8(s, x), u8(s, y), u8(s, w), u8(s, h);
	} else {
		u16(s, x), u16(s, y), u16(s, w), u16(s, h);
	}
}

static void test_rre(const char *fmt, bool compact)
{
	/* A 20x10 rectangle at 5,5. */
	static const struct {
		unsigned x, y, w, h;
		const char *why;
	} bad[] = {
	    {20, 0, 1, 1, "subrectangle 1x1 at 20,0 is outside it"},
	    {0, 10, 1, 1, "subrectangle 1x1 at 0,10 is outside it"},
	    {0, 0, 21, 1, "subrectangle 21x1 at 0,0 is outside it"},
	    {0, 0, 1, 11, "subrectangle 1x11 at 0,0 is outside it"},
	    {19, 0, 2, 1, "subrectangle 2x1 at 19,0 is outside it"},
	    {0, 9, 1, 2, "subrectangle 1x2 at 0,9 is outside it"},
	};
	const char *name = compact ? "CoRRE" : "RRE";
	uint8_t bg[4], a[4], b[4], c[4];
	struct buf s = {0};
	struct pic want;

	black(&want, fmt);
	mkpx(&want.pf, 10, 20, 30, bg);
	mkpx(&want.pf, 250, 0, 0, a);
	mkpx(&want.pf, 0, 250, 0, b);
	mkpx(&want.pf, 0, 0, 250, c);
	/* Subrectangles on the right, the bottom, and the whole. */
	fbu(&s, 1);
	rre_head(&s, &want, 5, 5, 20, 10, compact, 3, bg);
	rre_sub(&s, &want, compact, a, 0, 0, 20, 10);
	rre_sub(&s, &want, compact, b, 19, 0, 1, 10);
	rre_sub(&s, &want, compact, c, 0, 9, 19, 1);
	pic_fill(&want, 5, 5, 20, 10, a);
	pic_fill(&want, 24, 5, 1, 10, b);
	pic_fill(&want, 5, 14, 19, 1, c);
	expect(name, fmt, &s, &want, NULL);
	free(want.p);

	black(&want, fmt);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		fbu(&s, 1);
		rre_head(&s, &want, 5, 5, 20, 10, compact, 1, bg);
		rre_sub(&s, &want, compact, a, bad[i].x, bad[i].y, bad[i].w,
			bad[i].h);
		expect(name, fmt, &s, NULL, bad[i].why);
	}

	/* As many subrectangles as pixels, and one more. */
	black(&want, fmt);
	fbu(&s, 1);
	rre_head(&s, &want, 0, 0, 2, 2, compact, 4, bg);
	for (unsigned i = 0; i < 4; i++)
		rre_sub(&s, &want, compact, i & 1 ? a : b, i % 2, i / 2, 1, 1);
	pic_fill(&want, 0, 0, 1, 1, b);
	pic_fill(&want, 1, 0, 1, 1, a);
	pic_fill(&want, 0, 1, 1, 1, b);
	pic_fill(&want, 1, 1, 1, 1, a);
	expect(name, fmt, &s, &want, NULL);
	fbu(&s, 1);
	rre_head(&s, &want, 0, 0, 2, 2, compact, 5, bg);
	expect(name, fmt, &s, NULL, "5 subrectangles in 4 pixels");
	free(want.p);
}

/* --- hextile --- */

/* A 26x23 rectangle at 2,3: tiles of 16x16, 10x16, 16x7 and 10x7; the
 * first three a background, the last a subrectangle at sx,sy (sw x sh). */
static void hextile(struct buf *s, const struct pic *p, const uint8_t *bg,
		    const uint8_t *fg, unsigned sx, unsigned sy, unsigned sw,
		    unsigned sh)
{
	fbu(s, 1);
	rhdr(s, 2, 3, 26, 23, RFB_ENC_HEXTILE);
	u8(s, 2); /* background */
	put_px(s, p, bg);
	u8(s, 0);
	u8(s, 0);
	u8(s, 4 | 8); /* foreground, subrectangles */
	put_px(s, p, fg);
	u8(s, 1);
	u8(s, sx << 4 | sy);
	u8(s, (sw - 1) << 4 | (sh - 1));
}

static void test_hextile(const char *fmt)
{
	static const struct {
		unsigned x, y, w, h;
		const char *why;
	} bad[] = {
	    {10, 0, 1, 1, "subrectangle 1x1 at 10,0 is outside its 10x7 tile "
			  "at 16,16"},
	    {0, 7, 1, 1, "subrectangle 1x1 at 0,7 is outside its 10x7 tile"},
	    {0, 0, 11, 1, "subrectangle 11x1 at 0,0 is outside its 10x7"},
	    {0, 0, 1, 8, "subrectangle 1x8 at 0,0 is outside its 10x7"},
	    {9, 0, 2, 1, "subrectangle 2x1 at 9,0 is outside"},
	    {0, 6, 1, 2, "subrectangle 1x2 at 0,6 is outside"},
	};
	uint8_t bg[4], fg[4];
	struct buf s = {0};
	struct pic want;

	black(&want, fmt);
	mkpx(&want.pf, 40, 80, 120, bg);
	mkpx(&want.pf, 240, 200, 0, fg);
	/* At the last tile's right and bottom edges, and all of it. */
	hextile(&s, &want, bg, fg, 9, 6, 1, 1);
	pic_fill(&want, 2, 3, 26, 23, bg);
	pic_fill(&want, 2 + 16 + 9, 3 + 16 + 6, 1, 1, fg);
	expect("hextile at the edges", fmt, &s, &want, NULL);
	hextile(&s, &want, bg, fg, 0, 0, 10, 7);
	pic_fill(&want, 2 + 16, 3 + 16, 10, 7, fg);
	expect("hextile, the whole tile", fmt, &s, &want, NULL);
	free(want.p);

	black(&want, fmt);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		hextile(&s, &want, bg, fg, bad[i].x, bad[i].y, bad[i].w,
			bad[i].h);
		expect("hextile", fmt, &s, NULL, bad[i].why);
	}
	free(want.p);
}

/* --- Tight's palette --- */

/* A 4x2 Tight rectangle at 0,0 with the palette filter, uncompressed
 * (under 12 bytes): npal colours, then the indices as given. */
static void tight_pal(struct buf *s, const struct pic *p, unsigned npal,
		      const uint8_t (*pal)[4], const uint8_t *idx, size_t n)
{
	fbu(s, 1);
	rhdr(s, 0, 0, 4, 2, RFB_ENC_TIGHT);
	u8(s, 0x40); /* basic, stream 0, a filter */
	u8(s, 1);    /* palette */
	u8(s, npal - 1);
	for (unsigned i = 0; i < npal; i++)
		put_tpixel(s, p, pal[i]);
	put(s, idx, n);
}

static void test_tight_palette(const char *fmt)
{
	uint8_t pal[3][4];
	struct buf s = {0};
	struct pic want;

	black(&want, fmt);
	mkpx(&want.pf, 255, 0, 0, pal[0]);
	mkpx(&want.pf, 0, 255, 0, pal[1]);
	mkpx(&want.pf, 0, 0, 255, pal[2]);
	/* Three colours, 8-bit indices: 2 the last there is. */
	{
		static const uint8_t idx[8] = {0, 1, 2, 2, 2, 1, 0, 2};

		tight_pal(&s, &want, 3, (const uint8_t(*)[4])pal, idx, 8);
		for (unsigned i = 0; i < 8; i++)
			pic_fill(&want, i % 4, i / 4, 1, 1, pal[idx[i]]);
		expect("Tight palette", fmt, &s, &want, NULL);
	}
	{
		static const uint8_t idx[8] = {0, 1, 2, 3, 0, 0, 0, 0};

		tight_pal(&s, &want, 3, (const uint8_t(*)[4])pal, idx, 8);
		expect("Tight palette", fmt, &s, NULL,
		       "index 3 past the 3-colour palette");
	}
	/* One colour, 1-bit indices: 0 only. */
	{
		static const uint8_t idx[2] = {0x00, 0x00};

		black(&want, fmt);
		tight_pal(&s, &want, 1, (const uint8_t(*)[4])pal, idx, 2);
		pic_fill(&want, 0, 0, 4, 2, pal[0]);
		expect("Tight one colour", fmt, &s, &want, NULL);
	}
	{
		static const uint8_t idx[2] = {0x00, 0x10};

		tight_pal(&s, &want, 1, (const uint8_t(*)[4])pal, idx, 2);
		expect("Tight one colour", fmt, &s, NULL,
		       "index 1 past the 1-colour palette");
	}
	free(want.p);
}

/* --- zlib: exactly the rectangle's bytes inflated --- */

/* A zlib rectangle of 5x3 at 2,1 whose data inflates to the rectangle's
 * bytes and extra more (or fewer when negative): p's pixels, then 0x5a
 * bytes. */
static void zlib_sized(struct buf *s, const struct pic *p, int extra)
{
	struct buf raw = {0}, zd = {0};
	size_t n = (size_t)5 * 3 * p->bpp;
	z_stream z;

	for (uint32_t j = 0; j < 3; j++)
		put(&raw, pic_at(p, 2, 1 + j), (size_t)5 * p->bpp);
	for (int i = 0; i < extra; i++)
		u8(&raw, 0x5a);
	if (extra < 0)
		raw.n = n - (size_t)-extra;
	zinit(&z);
	zsync(&z, raw.p, raw.n, &zd);
	deflateEnd(&z);
	fbu(s, 1);
	rhdr(s, 2, 1, 5, 3, RFB_ENC_ZLIB);
	u32(s, (uint32_t)zd.n);
	put(s, zd.p, zd.n);
	free(raw.p);
	free(zd.p);
}

static void test_zlib_length(const char *fmt)
{
	struct buf s = {0};
	struct pic want, src;

	black(&want, fmt);
	black(&src, fmt);
	pic_random(&src);
	for (uint32_t j = 0; j < 3; j++)
		memcpy(pic_at(&want, 2, 1 + j), pic_at(&src, 2, 1 + j),
		       (size_t)5 * want.bpp);
	zlib_sized(&s, &src, 0);
	expect("zlib, exactly", fmt, &s, &want, NULL);
	zlib_sized(&s, &src, 1);
	expect("zlib, a byte more", fmt, &s, NULL,
	       "zlib data holds more than the rectangle's pixels");
	zlib_sized(&s, &src, -1);
	expect("zlib, a byte less", fmt, &s, NULL,
	       "zlib data ends 1 bytes short");
	free(want.p);
	free(src.p);
	free(s.p);
}

/* --- TRLE: packed indices into a reused palette of at most 16 --- */

/* A 32x1 TRLE rectangle: a palette RLE tile of npal colours (pixel i
 * colour i % npal), then a tile reusing it with packed indices 0-15 (4
 * bits each). */
static void trle_reuse(struct buf *s, struct pic *want, unsigned npal)
{
	uint8_t pal[17][4];

	fbu(s, 1);
	rhdr(s, 0, 0, 32, 1, RFB_ENC_TRLE);
	u8(s, 128 + npal);
	for (unsigned i = 0; i < npal; i++) {
		mkpx(&want->pf, (uint8_t)(i * 15), (uint8_t)(255 - i * 15),
		     (uint8_t)(i * 7), pal[i]);
		put_cpixel(s, want, pal[i]);
	}
	for (unsigned i = 0; i < 16; i++) {
		u8(s, 0x80 | (i % npal));
		u8(s, 0); /* a run of 1 */
		pic_fill(want, i, 0, 1, 1, pal[i % npal]);
	}
	u8(s, 127);
	for (unsigned i = 0; i < 16; i += 2)
		u8(s, i << 4 | (i + 1));
	for (unsigned i = 0; i < 16; i++)
		pic_fill(want, 16 + i, 0, 1, 1, pal[i]);
}

static void test_trle_reuse(const char *fmt)
{
	struct buf s = {0};
	struct pic want;

	black(&want, fmt);
	trle_reuse(&s, &want, 16);
	expect("TRLE packed reuse of 16", fmt, &s, &want, NULL);
	trle_reuse(&s, &want, 17);
	expect("TRLE packed reuse of 17", fmt, &s, NULL,
	       "tile 16,0 packs indices into a 17-colour palette");
	free(want.p);
	free(s.p);
}

/* --- Ultra: at most LZO's worst case of data --- */

static void test_ultra_length(const char *fmt)
{
	struct buf s = {0};
	struct pic want;
	size_t raw, bound;
	char why[100];

	black(&want, fmt);
	raw = (size_t)4 * 2 * want.bpp;
	bound = raw + raw / 16 + 64 + 3;
	/* The most there may be: read, and found not to be LZO. */
	fbu(&s, 1);
	rhdr(&s, 0, 0, 4, 2, RFB_ENC_ULTRA);
	u32(&s, (uint32_t)bound);
	for (size_t i = 0; i < bound; i++)
		u8(&s, 0xff);
	expect("Ultra at the bound", fmt, &s, NULL, "invalid LZO data");
	fbu(&s, 1);
	rhdr(&s, 0, 0, 4, 2, RFB_ENC_ULTRA);
	u32(&s, (uint32_t)bound + 1);
	snprintf(why, sizeof(why), "%zu bytes of LZO data for %zu bytes of "
		 "pixels", bound + 1, raw);
	expect("Ultra past the bound", fmt, &s, NULL, why);
	free(want.p);
	free(s.p);
}

/* --- the reader's limits --- */

static void name_msg(struct buf *s, uint32_t len)
{
	fbu(s, 1);
	rhdr(s, 0, 0, 0, 0, RFB_ENC_DESKTOPNAME);
	u32(s, len);
	for (uint32_t i = 0; i < len; i++)
		u8(s, 'a' + i % 26);
}

static void test_limits(void)
{
	const char *fmt = "xrgb8888";
	struct buf s = {0};
	struct pic want;
	char why[200];

	black(&want, fmt);
	name_msg(&s, RFB_MAX_NAME);
	expect("a name at the limit", fmt, &s, &want, NULL);
	name_msg(&s, RFB_MAX_NAME + 1);
	expect("a name past the limit", fmt, &s, NULL,
	       "sent a desktop name of 4097 bytes (more than 4096)");

	/* ServerCutText of 16 MiB, and a byte more. */
	for (uint32_t extra = 0; extra < 2; extra++) {
		uint32_t len = RFB_MAX_CUT_TEXT + extra;

		u8(&s, RFB_MSG_CUT_TEXT);
		u8(&s, 0), u8(&s, 0), u8(&s, 0);
		u32(&s, len);
		if (!extra) {
			char *t = calloc(1, len);

			put(&s, t, len);
			free(t);
		}
		expect("cut text", fmt, &s, extra ? NULL : &want,
		       "sent a bad ServerCutText message: 16777217 bytes of "
		       "text, more than the 16 MiB limit");
	}

	/* SetColourMapEntries up to colour 65535, and past it. */
	u8(&s, RFB_MSG_COLOUR_MAP);
	u8(&s, 0);
	u16(&s, 65535);
	u16(&s, 1);
	put(&s, "\0\0\0\0\0\0", 6);
	expect("colour map", fmt, &s, &want, NULL);
	u8(&s, RFB_MSG_COLOUR_MAP);
	u8(&s, 0);
	u16(&s, 65535);
	u16(&s, 2);
	expect("colour map", fmt, &s, NULL,
	       "sent a bad SetColourMapEntries message: colours 65535 to "
	       "65536, past 65535");

	/* A ServerFence's payload of 64 bytes, and of 65. */
	for (unsigned len = RFB_FENCE_MAX_PAYLOAD;
	     len <= RFB_FENCE_MAX_PAYLOAD + 1; len++) {
		u8(&s, RFB_MSG_FENCE);
		u8(&s, 0), u8(&s, 0), u8(&s, 0);
		u32(&s, 0);
		u8(&s, len);
		for (unsigned i = 0; i < len; i++)
			u8(&s, i);
		expect("fence payload", fmt, &s,
		       len == RFB_FENCE_MAX_PAYLOAD ? &want : NULL,
		       "sent a bad ServerFence message: a payload of 65 bytes, "
		       "more than 64");
	}

	/* A cursor of the largest size read, on each side one more. */
	{
		static const unsigned sz[][2] = {{1024, 1024},
						 {1025, 1},
						 {1, 1025}};

		for (unsigned i = 0; i < 3; i++) {
			uint32_t w = sz[i][0], h = sz[i][1];
			size_t n = (size_t)w * h * 4 + (size_t)(w + 7) / 8 * h;

			fbu(&s, 1);
			rhdr(&s, 0, 0, w, h, RFB_ENC_RICHCURSOR);
			if (i == 0) {
				uint8_t *b = calloc(1, n);

				put(&s, b, n);
				free(b);
			}
			snprintf(why, sizeof(why),
				 "rectangle %ux%u at 0,0: a cursor larger than "
				 "1024x1024",
				 w, h);
			expect("cursor size", fmt, &s, i ? NULL : &want, why);
		}
	}
	free(want.p);
	free(s.p);
}

/* A cursor shape fed alone: how many were shown, with the hot spot. */
static int cursors_shown(struct buf *s, int *hx, int *hy, char *why,
			 size_t len)
{
	struct fix f;
	int n;

	open_fix(&f, "xrgb8888");
	n = fix_feed(&f, s) < 0 ? -1 : f.cursors;
	*hx = f.cx, *hy = f.cy;
	snprintf(why, len, "%s", f.why);
	fix_free(&f);
	s->n = 0;
	return n;
}

static void test_cursors(void)
{
	static const struct {
		unsigned hx, hy;
		int shown;
	} hot[] = {{3, 2, 1}, {0, 0, 1}, {4, 0, 0}, {0, 3, 0}, {4, 3, 0}};
	struct buf s = {0};
	char why[400];
	int hx, hy, n;

	/* The hot spot inside the 4x3 shape, on its last column and row;
	 * one past on one axis: ignored (no shape shown, no error). */
	for (unsigned i = 0; i < sizeof(hot) / sizeof(hot[0]); i++) {
		uint8_t px[4 * 3 * 4] = {0}, mask[3] = {0xf0, 0xf0, 0xf0};

		fbu(&s, 1);
		rhdr(&s, hot[i].hx, hot[i].hy, 4, 3, RFB_ENC_RICHCURSOR);
		put(&s, px, sizeof(px));
		put(&s, mask, sizeof(mask));
		n = cursors_shown(&s, &hx, &hy, why, sizeof(why));
		CHECK(n == hot[i].shown &&
			  (!n || (hx == (int)hot[i].hx && hy == (int)hot[i].hy)),
		      "hot spot %u,%u in 4x3: %d shown at %d,%d (%s)",
		      hot[i].hx, hot[i].hy, n, hx, hy, why);
	}
	/* CursorWithAlpha of the largest size read, and each side one
	 * more. */
	{
		static const unsigned sz[][2] = {{1024, 1024},
						 {1025, 1},
						 {1, 1025}};

		for (unsigned i = 0; i < 3; i++) {
			uint32_t w = sz[i][0], h = sz[i][1];
			char want[100];

			fbu(&s, 1);
			rhdr(&s, 0, 0, w, h, RFB_ENC_CURSOR_ALPHA);
			u32(&s, RFB_ENC_RAW);
			if (i == 0) {
				uint8_t *b = calloc(1, (size_t)w * h * 4);

				put(&s, b, (size_t)w * h * 4);
				free(b);
			}
			n = cursors_shown(&s, &hx, &hy, why, sizeof(why));
			snprintf(want, sizeof(want),
				 "rectangle %ux%u at 0,0: a cursor larger "
				 "than 1024x1024",
				 w, h);
			CHECK(i == 0 ? n == 1 : n < 0 && strstr(why, want),
			      "CursorWithAlpha %ux%u: %d shown (%s)", w, h, n,
			      why);
		}
	}
	free(s.p);
}

/* The desktop sizes a server may announce: each side alone one past. */
static void test_desktop_size(void)
{
	char why[200];

	CHECK_EQ(rfb_check_desktop(16384, 16384, 4, why, sizeof(why)), VNC_OK);
	CHECK_EQ(rfb_check_desktop(1, 1, 4, why, sizeof(why)), VNC_OK);
	CHECK_EQ(rfb_check_desktop(16385, 1, 4, why, sizeof(why)),
		 VNC_ERR_RESOURCE);
	CHECK(strstr(why, "announced a 16385x1 desktop, larger than vncfb "
			  "supports (16384x16384)"),
	      "%s", why);
	CHECK_EQ(rfb_check_desktop(1, 16385, 4, why, sizeof(why)),
		 VNC_ERR_RESOURCE);
	CHECK_EQ(rfb_check_desktop(0, 1, 4, why, sizeof(why)),
		 VNC_ERR_PROTOCOL);
	CHECK_EQ(rfb_check_desktop(1, 0, 4, why, sizeof(why)),
		 VNC_ERR_PROTOCOL);
	CHECK(strstr(why, "announced an empty 1x0 desktop"), "%s", why);
}

int main(void)
{
	for (size_t i = 0; i < NFORMATS; i++) {
		test_rect_edges(formats[i]);
		test_copyrect_source(formats[i]);
		test_rre(formats[i], false);
		test_rre(formats[i], true);
		test_hextile(formats[i]);
		test_tight_palette(formats[i]);
		test_zlib_length(formats[i]);
		test_trle_reuse(formats[i]);
		test_ultra_length(formats[i]);
	}
	test_limits();
	test_cursors();
	test_desktop_size();
	return check_done("bounds, one side at a time");
}
