/* Tight, by hand: fill, copy, palette (1 and 8 bits an index), gradient,
 * the four streams and their resets, data under 12 bytes sent bare,
 * libvncserver's no-zlib variant, JPEG; and the errors. */
#include "config.h"

#include "../check.h"
#include "decode/decode_priv.h"
#include "rfbgen.h"

#include <jpeglib.h>

int test_tight(const char *fmt);

struct tz {
	z_stream z[4];
};

static void tz_init(struct tz *t)
{
	for (int i = 0; i < 4; i++)
		zinit(&t->z[i]);
}

static void tz_end(struct tz *t)
{
	for (int i = 0; i < 4; i++)
		deflateEnd(&t->z[i]);
}

/* The data part: bare when short, else zlib on stream k with a compact
 * length (or, nozlib, bare with one). */
static void tight_data(struct buf *s, struct tz *t, unsigned k,
		       const struct buf *d, bool nozlib)
{
	struct buf zd = {0};

	if (d->n < 12) {
		put(s, d->p, d->n);
		return;
	}
	if (nozlib) {
		clen(s, (uint32_t)d->n);
		put(s, d->p, d->n);
		return;
	}
	zsync(&t->z[k], d->p, d->n, &zd);
	clen(s, (uint32_t)zd.n);
	put(s, zd.p, zd.n);
	free(zd.p);
}

static void tight_fill(struct buf *s, struct pic *want, uint32_t x, uint32_t y,
		       uint32_t w, uint32_t h)
{
	uint8_t px[4];

	rhdr(s, x, y, w, h, RFB_ENC_TIGHT);
	u8(s, 0x80);
	rndpx(&want->pf, px);
	put_tpixel(s, want, px);
	pic_fill(want, x, y, w, h, px);
}

/* Copy filter over what want already holds there (random). */
static void tight_copy(struct buf *s, struct tz *t, const struct pic *want,
		       uint32_t x, uint32_t y, uint32_t w, uint32_t h,
		       unsigned k, bool explicit_filter, unsigned resets,
		       bool nozlib)
{
	struct buf d = {0};

	rhdr(s, x, y, w, h, RFB_ENC_TIGHT);
	u8(s,
	   ((nozlib ? 0x0a : 0) | k | (explicit_filter ? 4 : 0)) << 4 | resets);
	if (explicit_filter)
		u8(s, 0);
	for (uint32_t j = 0; j < h; j++)
		for (uint32_t i = 0; i < w; i++)
			put_tpixel(&d, want, pic_at(want, x + i, y + j));
	tight_data(s, t, k, &d, nozlib);
	free(d.p);
}

static void tight_palette(struct buf *s, struct tz *t, struct pic *want,
			  uint32_t x, uint32_t y, uint32_t w, uint32_t h,
			  unsigned k, unsigned n)
{
	uint8_t pal[256][4];
	struct buf d = {0};

	rhdr(s, x, y, w, h, RFB_ENC_TIGHT);
	u8(s, (k | 4) << 4);
	u8(s, 1);
	u8(s, n - 1);
	for (unsigned i = 0; i < n; i++) {
		rndpx(&want->pf, pal[i]);
		put_tpixel(s, want, pal[i]);
	}
	for (uint32_t j = 0; j < h; j++) {
		uint8_t bits = 0;

		for (uint32_t i = 0; i < w; i++) {
			unsigned v = rnd() % n;

			memcpy(pic_at(want, x + i, y + j), pal[v], want->bpp);
			if (n > 2) {
				u8(&d, v);
				continue;
			}
			bits |= (uint8_t)(v << (7 - i % 8));
			if (i % 8 == 7 || i == w - 1) {
				u8(&d, bits);
				bits = 0;
			}
		}
	}
	tight_data(s, t, k, &d, false);
	free(d.p);
}

static int clampi(int v, int max)
{
	return v < 0 ? 0 : v > max ? max : v;
}

/* Gradient over what want holds there: residuals of the prediction. */
static void tight_gradient(struct buf *s, struct tz *t, const struct pic *want,
			   uint32_t x, uint32_t y, uint32_t w, uint32_t h,
			   unsigned k)
{
	const struct pixfmt *pf = &want->pf;
	const bool rgb = tpixel_size(&want->pf) == 3;
	const unsigned sh[3] = {pf->r_shift, pf->g_shift, pf->b_shift};
	const int max[3] = {rgb ? 255 : (1 << pf->r_bits) - 1,
			    rgb ? 255 : (1 << pf->g_bits) - 1,
			    rgb ? 255 : (1 << pf->b_bits) - 1};
	struct buf d = {0};
	int *c = calloc((size_t)w * h * 3, sizeof(int));

	/* Channel values: R,G,B bytes for TPIXEL formats, else the
	 * format's own. */
	for (uint32_t j = 0; j < h; j++)
		for (uint32_t i = 0; i < w; i++) {
			const uint8_t *p = pic_at(want, x + i, y + j);
			uint32_t v = pixfmt_load(pf, p);
			int *cc = c + ((size_t)j * w + i) * 3;

			for (int q = 0; q < 3; q++)
				cc[q] = (int)((v >> sh[q]) & (unsigned)max[q]);
		}
	rhdr(s, x, y, w, h, RFB_ENC_TIGHT);
	u8(s, (k | 4) << 4);
	u8(s, 2);
	for (uint32_t j = 0; j < h; j++)
		for (uint32_t i = 0; i < w; i++) {
			uint32_t out = 0;
			uint8_t tp[3], px[4] = {0};

			for (int q = 0; q < 3; q++) {
				int up =
				    j ? c[(((size_t)j - 1) * w + i) * 3 + q]
				      : 0;
				int left =
				    i ? c[((size_t)j * w + i - 1) * 3 + q] : 0;
				int ul =
				    i && j
					? c[(((size_t)j - 1) * w + i - 1) * 3 +
					    q]
					: 0;
				int est = clampi(left + up - ul, max[q]);
				int r = (c[((size_t)j * w + i) * 3 + q] - est) &
					max[q];

				tp[q] = (uint8_t)r;
				out |= (uint32_t)r << sh[q];
			}
			if (rgb) {
				put(&d, tp, 3);
			} else {
				pixfmt_store(pf, px, out);
				put(&d, px, want->bpp);
			}
		}
	tight_data(s, t, k, &d, false);
	free(d.p);
	free(c);
}

/* A JPEG of a smooth picture (libjpeg itself: libvncclient 0.9.14 exports
 * an old TurboJPEG of its own that takes over tjCompress2); want then
 * holds the source, to compare with by mean error. */
static void tight_jpeg(struct buf *s, struct pic *want, uint32_t x, uint32_t y,
		       uint32_t w, uint32_t h)
{
	uint8_t *rgb = malloc((size_t)w * h * 3);
	struct buf jpg = {0};

	for (uint32_t j = 0; j < h; j++)
		for (uint32_t i = 0; i < w; i++) {
			uint8_t *q = rgb + ((size_t)j * w + i) * 3;

			q[0] = (uint8_t)(i * 255 / w);
			q[1] = (uint8_t)(j * 255 / h);
			q[2] = (uint8_t)((i + j) * 2);
			mkpx(&want->pf, q[0], q[1], q[2],
			     pic_at(want, x + i, y + j));
		}
	jpeg_rgb(rgb, w, h, TABLES_ALL, 95, 0, &jpg);
	rhdr(s, x, y, w, h, RFB_ENC_TIGHT);
	u8(s, 0x90);
	clen(s, (uint32_t)jpg.n);
	put(s, jpg.p, jpg.n);
	free(jpg.p);
	free(rgb);
}

/* A JPEG stops soon after the connection is given up (decode.h:
 * dec_check, through libjpeg's progress hook), and draws when it is not. */
static void jpeg_abandon(const char *fmt)
{
	struct pic want;
	struct buf s = {0};
	struct quit_source q;
	struct dec_ctx c;
	struct dec_job j = {0};
	unsigned left;
	size_t stride;

	pic_init(&want, fmt, 256, 128);
	stride = (size_t)want.w * want.bpp;
	tight_jpeg(&s, &want, 0, 0, 256, 128);
	j.r = (struct rect){0, 0, 256, 128};
	for (int run = 0; run < 2; run++) {
		/* After the 12-byte rectangle header. */
		left = run ? 100000 : 0;
		quit_source_init(&q, s.p + 12, s.n - 12, &left);
		dec_ctx_init(&c, &q.m.base, &want.df);
		memset(want.p, 0, stride * want.h);
		c.fb = (struct dec_fb){want.p, stride, 256, 128, &want.df};
		if (run)
			CHECK(dec_rect(&c, &dec_tight, &j) == DEC_OK &&
				  pic_at(&want, 255, 127)[0] |
				      pic_at(&want, 255, 127)[1],
			      "%s: JPEG not given up: %s", fmt, c.why);
		else
			CHECK(dec_rect(&c, &dec_tight, &j) == DEC_EOF &&
				  !(pic_at(&want, 255, 127)[0] |
				    pic_at(&want, 255, 127)[1]),
			      "%s: JPEG given up", fmt);
		dec_ctx_finish(&c);
	}
	dec_buf_free(&j.data);
	free(want.p);
	free(s.p);
}

/* Updates of many overlapping rectangles over the four streams, each
 * filter and fills: what the pool's workers draw (unit-decode-threads)
 * is what the serial decode draws, whatever the order they finish in. */
static void tight_many(const char *fmt)
{
	enum { W = 200, H = 150, N = 150 };
	struct pic want;
	struct buf s = {0};
	struct fix f;
	struct tz t;

	pic_init(&want, fmt, W, H);
	pic_random(&want);
	tz_init(&t);
	fix_open(&f, fmt, W, H);
	fbu(&s, 1);
	tight_copy(&s, &t, &want, 0, 0, W, H, 0, false, 0, false);
	for (int u = 0; u < 4; u++) {
		fbu(&s, N);
		for (int i = 0; i < N; i++) {
			uint32_t w = 1 + rnd() % 60, h = 1 + rnd() % 60;
			uint32_t x = rnd() % (W - w + 1),
				 y = rnd() % (H - h + 1);
			unsigned k = rnd() % 4;

			switch (rnd() % 4) {
			case 0:
				tight_copy(&s, &t, &want, x, y, w, h, k, false,
					   0, false);
				break;
			case 1:
				tight_fill(&s, &want, x, y, w, h);
				break;
			case 2:
				tight_palette(&s, &t, &want, x, y, w, h, k,
					      2 + rnd() % 30);
				break;
			default:
				tight_gradient(&s, &t, &want, x, y, w, h, k);
			}
		}
	}
	expect_decoded(&f, &s, 5, &want, "tight many", fmt);
	fix_free(&f);
	tz_end(&t);
	free(want.p);
	free(s.p);
}

int test_tight(const char *fmt)
{
	struct pic want;
	struct buf s = {0};
	struct fix f;
	struct tz t;
	double err;
	int max;

	pic_init(&want, fmt, 90, 70);
	pic_random(&want);
	tz_init(&t);
	fbu(&s, 14);
	tight_copy(&s, &t, &want, 0, 0, 90, 70, 0, false, 0, false);
	tight_fill(&s, &want, 2, 3, 40, 20);
	tight_fill(&s, &want, 89, 69, 1, 1);
	tight_copy(&s, &t, &want, 5, 5, 2, 1, 1, true, 0, false); /* bare */
	tight_palette(&s, &t, &want, 10, 10, 11, 9, 1, 2);	  /* 1 bit */
	tight_palette(&s, &t, &want, 30, 12, 13, 7, 2, 5);	  /* 8 bits */
	tight_palette(&s, &t, &want, 0, 60, 3, 2, 3, 2);	  /* bare */
	tight_palette(&s, &t, &want, 50, 40, 40, 30, 3, 256);
	tight_gradient(&s, &t, &want, 60, 2, 17, 9, 3);
	tight_gradient(&s, &t, &want, 0, 30, 90, 40, 2);
	/* Stream 0 reset: a new deflate stream, its header again. */
	deflateEnd(&t.z[0]);
	zinit(&t.z[0]);
	tight_copy(&s, &t, &want, 20, 40, 30, 20, 0, false, 1, false);
	/* Resets of streams the rectangle does not use. */
	deflateEnd(&t.z[2]);
	zinit(&t.z[2]);
	tight_copy(&s, &t, &want, 3, 50, 8, 8, 1, false, 4, false);
	tight_copy(&s, &t, &want, 70, 60, 9, 5, 0, false, 0, true); /* 0xa0 */
	tight_copy(&s, &t, &want, 7, 7, 0, 0, 0, false, 0, false);
	fix_open(&f, fmt, 90, 70);
	expect_decoded(&f, &s, 1, &want, "tight", fmt);
	/* Stream 2 goes on from its reset. */
	s.n = 0;
	fbu(&s, 2);
	tight_palette(&s, &t, &want, 1, 1, 20, 20, 2, 7);
	tight_gradient(&s, &t, &want, 60, 40, 30, 30, 2);
	expect_decoded(&f, &s, 1, &want, "tight (2)", fmt);
	/* JPEG, lossy: close to the source. */
	s.n = 0;
	fbu(&s, 2);
	tight_jpeg(&s, &want, 0, 0, 90, 70);
	tight_jpeg(&s, &want, 33, 21, 17, 13);
	CHECK(fix_feed(&f, &s) == 1, "tight jpeg %s: %s", fmt, f.why);
	pic_errors(&f.fb, &want, 0, 0, 90, 70, &err, &max);
	/* 3-3-2 pixels move a whole step when JPEG crosses a boundary. */
	CHECK(err < (want.bpp == 1 ? 12.0 : 4.0),
	      "tight jpeg %s: mean error %.2f", fmt, err);
	fix_free(&f);
	tz_end(&t);

	/* The errors, each with its reason. */
	s.n = 0;
	fbu(&s, 1);
	rhdr(&s, 0, 0, 1000, 1000, RFB_ENC_TIGHT);
	u8(&s, 0xa0);
	clen(&s, 16);
	put(&s, "0123456789abcdef", 16);
	expect_bad(fmt, 1000, 1000, &s,
		   tpixel_size(&want.pf) == 3
		       ? "bad Tight rectangle 1000x1000 at 0,0: 16 bytes of "
			 "uncompressed data where 3000000 are needed"
		       : "bad Tight rectangle 1000x1000 at 0,0: 16 bytes of "
			 "uncompressed data where");
	s.n = 0;
	fbu(&s, 1);
	rhdr(&s, 0, 0, 4, 1, RFB_ENC_TIGHT);
	u8(&s, 0x40);
	u8(&s, 1);
	u8(&s, 2); /* 3 colours */
	for (int i = 0; i < 3 * 4; i++)
		u8(&s, 0);
	s.n -= 3 * (4 - tpixel_size(&want.pf));
	put(&s, "\0\1\2\3", 4); /* bare: 4 bytes */
	expect_bad(fmt, 1000, 1000, &s, "index 3 past the 3-colour palette");
	s.n = 0;
	fbu(&s, 1);
	rhdr(&s, 0, 0, 9, 1, RFB_ENC_TIGHT);
	u8(&s, 0x40);
	u8(&s, 1);
	u8(&s, 0); /* 1 colour, 1 bit an index */
	put(&s, "\0\0\0\0", tpixel_size(&want.pf));
	put(&s, "\x00\x80", 2);
	expect_bad(fmt, 1000, 1000, &s, "index 1 past the 1-colour palette");
	s.n = 0;
	fbu(&s, 1);
	rhdr(&s, 0, 0, 4, 4, RFB_ENC_TIGHT);
	u8(&s, 0xc0);
	expect_bad(fmt, 1000, 1000, &s, "compression control 0xc0");
	s.n = 0;
	fbu(&s, 1);
	rhdr(&s, 0, 0, 4, 4, RFB_ENC_TIGHT);
	u8(&s, 0x40);
	u8(&s, 3);
	expect_bad(fmt, 1000, 1000, &s, "filter 3");
	s.n = 0;
	fbu(&s, 1);
	tight_jpeg(&s, &want, 0, 0, 16, 8);
	/* The JPEG says 16x8; the rectangle says 16x9. */
	s.p[4 + 6 + 1] = 9;
	expect_bad(fmt, 1000, 1000, &s, "a 16x8 JPEG image in it");
	free(want.p);
	free(s.p);
	jpeg_abandon(fmt);
	tight_many(fmt);
	return failures;
}
