/* TigerVNC's JPEG encoding (21), by hand with libjpeg: whole images,
 * images without their tables after ones with them or after a
 * tables-only datastream (jpeg_write_tables, jpeg_suppress_tables),
 * fill bytes and restart markers, several in one update (on the pool's
 * workers in unit-decode-threads, through a 61-byte window in
 * unit-decode-window); pixels within a stated error of the source. And
 * the errors: missing tables, a stream cut short, no SOI, junk where a
 * marker belongs, the wrong size, too much data. */
#include "config.h"

#include "../check.h"
#include "rfbgen.h"

#include <jpeglib.h>

int test_jpeg_rect(const char *fmt);

/* A smooth picture at x,y (w x h) into want, as JPEG bytes in *out:
 * a whole image, one without tables, or the tables alone; restart
 * markers every restart MCU rows (0: none). */
static void jpeg_bytes(struct pic *want, uint32_t x, uint32_t y, uint32_t w,
		       uint32_t h, int tables, int quality, unsigned restart,
		       struct buf *out)
{
	uint8_t *rgb = malloc((size_t)w * h * 3 + 1);

	for (uint32_t j = 0; j < h; j++)
		for (uint32_t i = 0; i < w; i++) {
			uint8_t *q = rgb + ((size_t)j * w + i) * 3;

			q[0] = (uint8_t)((x + i) * 255 / 300);
			q[1] = (uint8_t)((y + j) * 255 / 200);
			q[2] = (uint8_t)((x + i + y + j) * 255 / 500);
			if (tables != TABLES_ONLY)
				mkpx(&want->pf, q[0], q[1], q[2],
				     pic_at(want, x + i, y + j));
		}
	jpeg_rgb(rgb, w, h, tables, quality, restart, out);
	free(rgb);
}

static void jpeg_rect(struct buf *s, struct pic *want, uint32_t x, uint32_t y,
		      uint32_t w, uint32_t h, int tables, int quality,
		      unsigned restart)
{
	rhdr(s, x, y, w, h, RFB_ENC_JPEG);
	jpeg_bytes(want, x, y, w, h, tables, quality, restart, s);
}

/* The desktop must be within the error JPEG at quality 90 gives this
 * smooth picture: a mean of 3 (8-bit steps; 12 in 3-3-2, whose steps
 * are 36 wide) and at most 40 anywhere (90 in 3-3-2: a pixel near a
 * boundary of its 2-bit blue moves a whole step of 85). */
static void expect_close(const struct fix *f, const struct pic *want,
			 const char *what)
{
	double mean;
	int max;

	pic_errors(&f->fb, want, 0, 0, want->w, want->h, &mean, &max);
	CHECK(mean < (want->bpp == 1 ? 12.0 : 3.0) &&
		  max <= (want->bpp == 1 ? 90 : 40),
	      "%s %s: mean error %.2f, largest %d", what,
	      pixfmt_name(&want->pf, (char[32]){0}, 32), mean, max);
}

/* JPEG data a 16x8 rectangle may not carry, and the line it ends with. */
static const struct bad_jpeg {
	const char *bytes;
	size_t n;
	const char *why;
} bad_jpeg[] = {
    {"\xff\xd9", 2, "JPEG data starting with marker 0xd9, not SOI"},
    {"\xff\xd8\x12", 3, "JPEG data without a marker at byte 2 (0x12)"},
    {"\xff\xd8\xff\xe0\x00\x01", 6, "a JPEG segment 0xe0 of length 1"},
};

int test_jpeg_rect(const char *fmt)
{
	struct buf s = {0}, img = {0};
	struct pic want;
	struct fix f;
	char why[64];

	/* Whole images; then images without tables reuse theirs, in the
	 * same update and the next; a picture with restart markers. */
	pic_init(&want, fmt, 160, 120);
	fix_open(&f, fmt, 160, 120);
	fbu(&s, 3);
	jpeg_rect(&s, &want, 0, 0, 160, 60, TABLES_ALL, 90, 0);
	jpeg_rect(&s, &want, 0, 60, 80, 60, TABLES_NONE, 90, 0);
	jpeg_rect(&s, &want, 80, 60, 80, 60, TABLES_NONE, 90, 2);
	fbu(&s, 1);
	jpeg_rect(&s, &want, 40, 30, 33, 17, TABLES_NONE, 90, 1);
	CHECK(fix_feed(&f, &s) == 2, "jpeg %s: %s", fmt, f.why);
	expect_close(&f, &want, "jpeg, tables reused");
	fix_free(&f);

	/* A tables-only datastream draws nothing and sets the tables the
	 * images after it leave out. */
	fix_open(&f, fmt, 160, 120);
	memset(want.p, 0, (size_t)160 * 120 * want.bpp);
	s.n = 0;
	fbu(&s, 3);
	jpeg_rect(&s, &want, 0, 0, 160, 120, TABLES_ONLY, 90, 0);
	jpeg_rect(&s, &want, 0, 0, 160, 64, TABLES_NONE, 90, 0);
	jpeg_rect(&s, &want, 0, 64, 160, 56, TABLES_NONE, 90, 0);
	CHECK(fix_feed(&f, &s) == 1, "jpeg tables-only %s: %s", fmt, f.why);
	expect_close(&f, &want, "jpeg after tables-only");
	/* New tables (another quality) replace the kept ones. */
	s.n = 0;
	fbu(&s, 2);
	jpeg_rect(&s, &want, 0, 0, 160, 60, TABLES_ALL, 95, 0);
	jpeg_rect(&s, &want, 0, 60, 160, 60, TABLES_NONE, 95, 0);
	CHECK(fix_feed(&f, &s) == 1, "jpeg new tables %s: %s", fmt, f.why);
	expect_close(&f, &want, "jpeg with new tables");
	fix_free(&f);

	/* Fill bytes before a marker are no data. */
	img.n = 0;
	jpeg_bytes(&want, 0, 0, 16, 8, TABLES_ALL, 90, 0, &img);
	s.n = 0;
	fbu(&s, 1);
	rhdr(&s, 0, 0, 16, 8, RFB_ENC_JPEG);
	put(&s, img.p, 2);
	put(&s, "\xff\xff", 2);
	put(&s, img.p + 2, img.n - 2);
	fix_open(&f, fmt, 16, 8);
	CHECK(fix_feed(&f, &s) == 1, "jpeg fill bytes %s: %s", fmt, f.why);
	fix_free(&f);

	/* The errors. No tables and none before: */
	s.n = 0;
	fbu(&s, 1);
	jpeg_rect(&s, &want, 0, 0, 16, 8, TABLES_NONE, 90, 0);
	expect_bad(fmt, 160, 120, &s,
		   "sent a bad JPEG rectangle 16x8 at 0,0: a JPEG image "
		   "without quantisation tables, and none came before");
	/* Cut short, in the entropy-coded data: the connection's end. */
	s.n = 0;
	fbu(&s, 1);
	jpeg_rect(&s, &want, 0, 0, 64, 32, TABLES_ALL, 90, 0);
	s.n -= 40;
	fix_open(&f, fmt, 160, 120);
	CHECK(fix_feed(&f, &s) < 0 && f.err == VNC_ERR_CLOSED,
	      "jpeg cut short %s: error %d %s", fmt, f.err, f.why);
	fix_free(&f);
	/* Not a JPEG; junk where a marker belongs; a segment of length 1. */
	for (size_t i = 0; i < sizeof(bad_jpeg) / sizeof(bad_jpeg[0]); i++) {
		s.n = 0;
		fbu(&s, 1);
		rhdr(&s, 0, 0, 16, 8, RFB_ENC_JPEG);
		put(&s, bad_jpeg[i].bytes, bad_jpeg[i].n);
		expect_bad(fmt, 160, 120, &s, bad_jpeg[i].why);
	}
	/* The wrong size. */
	s.n = 0;
	fbu(&s, 1);
	rhdr(&s, 0, 0, 16, 9, RFB_ENC_JPEG);
	put(&s, img.p, img.n);
	expect_bad(fmt, 160, 120, &s, "a 16x8 JPEG image in it");
	/* Endless tables. */
	s.n = 0;
	fbu(&s, 1);
	rhdr(&s, 0, 0, 16, 8, RFB_ENC_JPEG);
	put(&s, "\xff\xd8", 2);
	for (int i = 0; i < 200; i++) {
		put(&s, "\xff\xdb\x00\x43\x00", 5);
		for (int k = 0; k < 64; k++)
			u8(&s, 1);
	}
	expect_bad(fmt, 160, 120, &s,
		   "JPEG quantisation tables of more than 8192 bytes");
	/* More data than any JPEG of 4x4 takes: a comment of 60 KiB, 20
	 * times (1 MiB + 128 bytes allowed). */
	s.n = 0;
	fbu(&s, 1);
	rhdr(&s, 0, 0, 4, 4, RFB_ENC_JPEG);
	put(&s, "\xff\xd8", 2);
	for (int i = 0; i < 20; i++) {
		put(&s, "\xff\xfe\xf0\x00", 4);
		for (int k = 0; k < 0xf000 - 2; k++)
			u8(&s, 'x');
	}
	snprintf(why, sizeof(why), "more than %zu bytes of data",
		 (size_t)4 * 4 * 8 + ((size_t)1 << 20));
	expect_bad(fmt, 160, 120, &s, why);
	free(img.p);
	free(want.p);
	free(s.p);
	return failures;
}
