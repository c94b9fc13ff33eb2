/* ZRLE and TRLE, by hand: every subencoding (raw, solid, packed palettes
 * of 1, 2 and 4 bits, plain RLE with long runs, palette RLE, TRLE's
 * palette reuse), partial tiles, CPIXELs of 3 bytes at either end; and
 * the errors. */
#include "config.h"

#include "../check.h"
#include "rfbgen.h"

int test_rle(const char *fmt);

struct pal {
	unsigned n;
	uint8_t c[128][4];
};

static void run_len(struct buf *d, uint32_t len)
{
	uint32_t v = len - 1;

	for (; v >= 255; v -= 255)
		u8(d, 255);
	u8(d, v);
}

static void new_pal(struct buf *d, const struct pic *want, struct pal *p,
		    unsigned n)
{
	p->n = n;
	for (unsigned i = 0; i < n; i++) {
		rndpx(&want->pf, p->c[i]);
		put_cpixel(d, want, p->c[i]);
	}
}

static void packed(struct buf *d, struct pic *want, const struct pal *p,
		   uint32_t x, uint32_t y, uint32_t tw, uint32_t th)
{
	unsigned bits = p->n <= 2 ? 1 : p->n <= 4 ? 2 : 4;

	for (uint32_t j = 0; j < th; j++) {
		unsigned acc = 0, have = 0;

		for (uint32_t i = 0; i < tw; i++) {
			unsigned v = rnd() % p->n;

			memcpy(pic_at(want, x + i, y + j), p->c[v], want->bpp);
			acc = acc << bits | v;
			have += bits;
			if (have == 8) {
				u8(d, acc);
				acc = have = 0;
			}
		}
		if (have)
			u8(d, acc << (8 - have));
	}
}

/* Runs over the tile, row-major: of CPIXELs, or of palette indices. */
static void runs(struct buf *d, struct pic *want, const struct pal *p,
		 uint32_t x, uint32_t y, uint32_t tw, uint32_t th)
{
	uint32_t left = tw * th, pos = 0;

	while (left > 0) {
		uint32_t len = 1 + rnd() % (rnd() % 4 ? 9 : 600);
		uint8_t c[4];
		unsigned v = 0;

		if (len > left)
			len = left;
		if (p) {
			v = rnd() % p->n;
			memcpy(c, p->c[v], 4);
			u8(d, v | (len > 1 ? 128 : 0));
		} else {
			rndpx(&want->pf, c);
			put_cpixel(d, want, c);
		}
		if (!p || len > 1)
			run_len(d, len);
		for (uint32_t i = 0; i < len; i++, pos++)
			memcpy(pic_at(want, x + pos % tw, y + pos / tw), c,
			       want->bpp);
		left -= len;
	}
}

static void rle_tile(struct buf *d, struct pic *want, uint32_t x, uint32_t y,
		     uint32_t tw, uint32_t th, unsigned k, bool trle,
		     struct pal *last)
{
	static const unsigned sizes[] = {2, 3, 4, 5, 16};
	unsigned kind = k % (trle ? 7 : 5);
	uint8_t c[4];

	if ((kind == 5 && (last->n == 0 || last->n > 16)) ||
	    (kind == 6 && last->n == 0))
		kind = 2;
	switch (kind) {
	case 0:
		u8(d, 0);
		for (uint32_t j = 0; j < th; j++)
			for (uint32_t i = 0; i < tw; i++) {
				rndpx(&want->pf, pic_at(want, x + i, y + j));
				put_cpixel(d, want, pic_at(want, x + i, y + j));
			}
		break;
	case 1:
		u8(d, 1);
		rndpx(&want->pf, c);
		put_cpixel(d, want, c);
		pic_fill(want, x, y, tw, th, c);
		break;
	case 2:
		u8(d, sizes[(k / 7) % 5]);
		new_pal(d, want, last, sizes[(k / 7) % 5]);
		packed(d, want, last, x, y, tw, th);
		break;
	case 3:
		u8(d, 128);
		runs(d, want, NULL, x, y, tw, th);
		break;
	case 4: {
		unsigned n = k % 3 == 0 ? 127 : 2 + k % 9;

		u8(d, 128 + n);
		new_pal(d, want, last, n);
		runs(d, want, last, x, y, tw, th);
		break;
	}
	case 5:
		u8(d, 127);
		packed(d, want, last, x, y, tw, th);
		break;
	default:
		u8(d, 129);
		runs(d, want, last, x, y, tw, th);
		break;
	}
}

static void rle_rect(struct buf *s, z_stream *z, struct pic *want, uint32_t x,
		     uint32_t y, uint32_t w, uint32_t h, unsigned k0)
{
	const unsigned ts = z ? 64 : 16;
	struct pal last = {0};
	struct buf d = {0}, zd = {0};
	unsigned k = k0;

	for (uint32_t ty = 0; ty < h; ty += ts)
		for (uint32_t tx = 0; tx < w; tx += ts)
			rle_tile(&d, want, x + tx, y + ty,
				 w - tx < ts ? w - tx : ts,
				 h - ty < ts ? h - ty : ts, k++, !z, &last);
	rhdr(s, x, y, w, h, z ? RFB_ENC_ZRLE : RFB_ENC_TRLE);
	if (z) {
		zsync(z, d.p, d.n, &zd);
		u32(s, (uint32_t)zd.n);
		put(s, zd.p, zd.n);
	} else {
		put(s, d.p, d.n);
	}
	free(d.p);
	free(zd.p);
}

/* A ZRLE rectangle whose zlib data is tile bytes t (n of them). */
static void zrle_raw(struct buf *s, uint32_t w, uint32_t h, const void *t,
		     size_t n)
{
	struct buf zd = {0};
	z_stream z;

	zinit(&z);
	zsync(&z, t, n, &zd);
	fbu(s, 1);
	rhdr(s, 0, 0, w, h, RFB_ENC_ZRLE);
	u32(s, (uint32_t)zd.n);
	put(s, zd.p, zd.n);
	deflateEnd(&z);
	free(zd.p);
}

int test_rle(const char *fmt)
{
	struct pic want;
	struct buf s = {0}, t = {0};
	struct fix f;
	char where[96];
	z_stream z;

	/* Black, as the reader's new desktop starts. */
	pic_init(&want, fmt, 200, 100);
	zinit(&z);
	/* ZRLE: 3x2 tiles with partial ones at the right and bottom, the
	 * stream going on into more rectangles. */
	for (unsigned round = 0; round < 6; round++) {
		s.n = 0;
		fbu(&s, 3);
		rle_rect(&s, &z, &want, 1, 2, 130, 70, round * 6);
		rle_rect(&s, &z, &want, 199, 99, 1, 1, round);
		rle_rect(&s, &z, &want, 133, 10, 67, 90, round * 5 + 1);
		if (round == 0)
			fix_open(&f, fmt, 200, 100);
		CHECK(fix_feed(&f, &s) == 1, "zrle %s round %u: %s", fmt, round,
		      f.why);
		CHECK(fix_same(&f, &want, where, sizeof(where)),
		      "zrle %s round %u: %s", fmt, round, where);
	}
	/* TRLE: the same tiles, 16x16, with palette reuse. */
	for (unsigned round = 0; round < 6; round++) {
		s.n = 0;
		fbu(&s, 2);
		rle_rect(&s, NULL, &want, 3, 1, 40, 37, round * 7);
		rle_rect(&s, NULL, &want, 100, 50, 100, 50, round * 3 + 2);
		CHECK(fix_feed(&f, &s) == 1, "trle %s round %u: %s", fmt, round,
		      f.why);
		CHECK(fix_same(&f, &want, where, sizeof(where)),
		      "trle %s round %u: %s", fmt, round, where);
	}
	fix_free(&f);
	deflateEnd(&z);

	/* A stream that ends (as zlib.compress makes them) still counts up
	 * to its end, adler32 left unread. */
	{
		uint8_t tile[1 + 4], out[64];
		z_stream e;

		fix_open(&f, fmt, 200, 100);
		tile[0] = 1;
		mkpx(&want.pf, 9, 99, 199, tile + 1);
		memset(&e, 0, sizeof(e));
		deflateInit(&e, 9);
		e.next_in = tile;
		e.avail_in = 1 + cpixel_size(&want.pf, &(unsigned){0});
		if (cpixel_size(&want.pf, &(unsigned){0}) == 3 &&
		    want.df.cpad == 0)
			memmove(tile + 1, tile + 2, 3);
		e.next_out = out;
		e.avail_out = sizeof(out);
		deflate(&e, Z_FINISH);
		s.n = 0;
		fbu(&s, 1);
		rhdr(&s, 0, 0, 3, 2, RFB_ENC_ZRLE);
		u32(&s, (uint32_t)(sizeof(out) - e.avail_out));
		put(&s, out, sizeof(out) - e.avail_out);
		deflateEnd(&e);
		CHECK(fix_feed(&f, &s) == 1, "finished zlib stream %s: %s", fmt,
		      f.why);
		fix_free(&f);
	}

	/* Errors. A 3-colour palette has 2-bit indices up to 3. */
	s.n = 0;
	t.n = 0;
	u8(&t, 3);
	for (int i = 0; i < 3 * 4; i++)
		u8(&t, 0);
	t.n -= 3 * (4 - cpixel_size(&want.pf, &(unsigned){0}));
	u8(&t, 0x1b); /* 0 1 2 3 */
	zrle_raw(&s, 4, 1, t.p, t.n);
	expect_bad(fmt, 200, 100, &s, "index 3 past the 3-colour palette");
	t.n = 0;
	u8(&t, 130);
	for (int i = 0; i < 2 * 4; i++)
		u8(&t, 0);
	t.n -= 2 * (4 - cpixel_size(&want.pf, &(unsigned){0}));
	u8(&t, 0x85);
	u8(&t, 2);
	s.n = 0;
	zrle_raw(&s, 4, 1, t.p, t.n);
	expect_bad(fmt, 200, 100, &s, "index 5 past the 2-colour palette");
	s.n = 0;
	zrle_raw(&s, 4, 1, "\x11", 1);
	expect_bad(fmt, 200, 100, &s,
		   "tile 0,0 has subencoding 17, which does not exist");
	s.n = 0;
	zrle_raw(&s, 4, 1, "\x81", 1);
	expect_bad(fmt, 200, 100, &s,
		   "tile 0,0 has subencoding 129, which does not exist");
	t.n = 0;
	u8(&t, 128);
	for (int i = 0; i < 4; i++)
		u8(&t, 0);
	t.n -= 4 - cpixel_size(&want.pf, &(unsigned){0});
	u8(&t, 4); /* a run of 5 in 4 pixels */
	s.n = 0;
	zrle_raw(&s, 4, 1, t.p, t.n);
	expect_bad(fmt, 200, 100, &s,
		   "a run of 5 or more pixels in a tile with 4 left");
	t.n = 0;
	u8(&t, 1);
	for (int i = 0; i < 4; i++)
		u8(&t, 0);
	t.n -= 4 - cpixel_size(&want.pf, &(unsigned){0});
	u8(&t, 1); /* one byte too many */
	s.n = 0;
	zrle_raw(&s, 4, 1, t.p, t.n);
	expect_bad(fmt, 200, 100, &s,
		   "zlib data holds more than the rectangle's tiles");
	s.n = 0;
	zrle_raw(&s, 4, 100, "\x01", 1);
	expect_bad(fmt, 200, 100, &s, "zlib data ends inside a tile");
	s.n = 0;
	fbu(&s, 1);
	rhdr(&s, 0, 0, 16, 16, RFB_ENC_TRLE);
	u8(&s, 129);
	expect_bad(fmt, 200, 100, &s,
		   "tile 0,0 reuses a palette, but no tile before it had");
	s.n = 0;
	fbu(&s, 1);
	rhdr(&s, 0, 0, 32, 1, RFB_ENC_TRLE);
	u8(&s, 128 + 20);
	for (int i = 0; i < 20 * 4; i++)
		u8(&s, 0);
	s.n -= 20 * (4 - cpixel_size(&want.pf, &(unsigned){0}));
	for (int i = 0; i < 16; i++)
		u8(&s, 0x80 | (i % 20)), u8(&s, 0);
	u8(&s, 127);
	expect_bad(fmt, 200, 100, &s,
		   "tile 16,0 packs indices into a 20-colour palette");
	free(want.p);
	free(s.p);
	free(t.p);
	return failures;
}
