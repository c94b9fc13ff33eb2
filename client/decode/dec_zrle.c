/* ZRLE and TRLE: the same tiles (64x64 in ZRLE, inside a zlib stream;
 * 16x16 in TRLE, bare, with palette reuse), every subencoding, 3-byte
 * CPIXELs expanded on the fly (decode.h). */
#include "config.h"

#include <string.h>

#include "decode/decode_priv.h"
#include "wire/rfb.h"

/* A CPIXEL at p as a shadow pixel in out (bpp bytes). */
static inline void cpixel(const struct dec_fmt *f, const uint8_t *p,
			  uint8_t *out)
{
	if (f->cpixel == f->bpp) {
		memcpy(out, p, f->bpp);
	} else if (f->cpad == 3) {
		out[0] = p[0], out[1] = p[1], out[2] = p[2], out[3] = 0;
	} else {
		out[0] = 0, out[1] = p[0], out[2] = p[1], out[3] = p[2];
	}
}

static inline void put(uint8_t *d, const uint8_t *px, unsigned bpp)
{
	if (bpp == 4)
		memcpy(d, px, 4);
	else if (bpp == 2)
		memcpy(d, px, 2);
	else
		d[0] = px[0];
}

/* Raw tile rows: copied as they are, or expanded from 3 bytes. */
static void raw_tile(const struct dec_fb *fb, uint32_t x, uint32_t y,
		     uint32_t tw, uint32_t th, const uint8_t *p)
{
	const struct dec_fmt *f = fb->fmt;

	if (f->cpixel == f->bpp) {
		dec_copy_rows(fb, x, y, tw, th, p, (size_t)tw * f->bpp);
		return;
	}
	for (uint32_t i = 0; i < th; i++, p += (size_t)tw * 3)
		pixconv_row(&f->from_cpixel, dec_fb_at(fb, x, y + i), p, tw);
}

/* Runs over a tile: the write position, row by row. */
struct run_pos {
	const struct dec_fb *fb;
	uint32_t x, y, tw, th;
	uint32_t cx, cy; /* next pixel in the tile */
	uint32_t left;	 /* pixels not yet written */
};

static void run_put(struct run_pos *r, const uint8_t *px, uint32_t n)
{
	unsigned bpp;

	r->left -= n;
	if (!r->fb)
		return;
	bpp = r->fb->fmt->bpp;
	while (n > 0) {
		uint32_t k = r->tw - r->cx < n ? r->tw - r->cx : n;
		uint8_t *d = dec_fb_at(r->fb, r->x + r->cx, r->y + r->cy);

		for (uint32_t i = 0; i < k; i++, d += bpp)
			put(d, px, bpp);
		n -= k;
		r->cx += k;
		if (r->cx == r->tw) {
			r->cx = 0;
			r->cy++;
		}
	}
}

/* A run length: bytes of 255 and a last one, plus one. */
static int run_length(struct dec_ctx *c, struct dec_in *in, uint32_t left,
		      uint32_t *len)
{
	const uint8_t *b;
	uint32_t n = 1;

	do {
		b = dec_in_take(in, 1);
		if (!b)
			return in->err;
		n += *b;
		if (n > left)
			return dec_bad(c,
				       "a run of %u or more pixels in a "
				       "tile with %u left",
				       n, left);
	} while (*b == 255);
	*len = n;
	return DEC_OK;
}

/* What the tiles of one rectangle share: where they go (NULL: only walk
 * them), the formats, and TRLE's palette carried from tile to tile. */
struct rle {
	struct dec_ctx *c;
	struct dec_in *in;
	const struct dec_fb *fb;
	const struct dec_fmt *f;
	unsigned cp, bpp;
	bool trle;
	uint8_t pal[128][4];
	unsigned npal; /* TRLE: the previous tile's palette */
};

#define TAKE(p, n)                                                             \
	do {                                                                   \
		(p) = dec_in_take(s->in, (n));                                 \
		if (!(p))                                                      \
			return s->in->err;                                     \
	} while (0)

/* A packed-palette tile: 1, 2 or 4 bits an index, rows padded to a
 * byte. */
static int packed_tile(struct rle *s, uint32_t x, uint32_t y, uint32_t tw,
		       uint32_t th)
{
	unsigned bits = s->npal <= 2 ? 1 : s->npal <= 4 ? 2 : 4;
	size_t rowb = ((size_t)tw * bits + 7) / 8;
	const uint8_t *p;

	TAKE(p, rowb * th);
	for (uint32_t i = 0; s->fb && i < th; i++, p += rowb) {
		uint8_t *d = dec_fb_at(s->fb, x, y + i);

		for (uint32_t k = 0; k < tw; k++) {
			unsigned pos = k * bits;
			unsigned v = p[pos / 8] >> (8 - bits - pos % 8) &
				     ((1u << bits) - 1);

			if (v >= s->npal)
				return dec_bad(s->c,
					       "index %u past the %u-colour "
					       "palette",
					       v, s->npal);
			put(d + (size_t)k * s->bpp, s->pal[v], s->bpp);
		}
	}
	return DEC_OK;
}

/* A run-length tile: plain (sub 128: a pixel and a length a run) or of
 * the palette (an index a run, with a length when its top bit is set). */
static int run_tile(struct rle *s, unsigned sub, uint32_t x, uint32_t y,
		    uint32_t tw, uint32_t th)
{
	struct run_pos rp = {s->fb, x, y, tw, th, 0, 0, tw * th};

	while (rp.left > 0) {
		uint8_t px[4];
		const uint8_t *src = px, *p;
		uint32_t len = 1;
		int ret;

		if (sub == 128) {
			TAKE(p, s->cp);
			cpixel(s->f, p, px);
			ret = run_length(s->c, s->in, rp.left, &len);
			if (ret != DEC_OK)
				return ret;
		} else {
			unsigned v;

			TAKE(p, 1);
			v = *p & 127;
			if (v >= s->npal)
				return dec_bad(s->c,
					       "index %u past the %u-colour "
					       "palette",
					       v, s->npal);
			src = s->pal[v];
			if (*p & 128) {
				ret = run_length(s->c, s->in, rp.left, &len);
				if (ret != DEC_OK)
					return ret;
			}
		}
		run_put(&rp, src, len);
	}
	return DEC_OK;
}

/* The tile at tx,ty of the rectangle (x,y on the desktop), tw x th. */
static int one_tile(struct rle *s, uint32_t tx, uint32_t ty, uint32_t x,
		    uint32_t y, uint32_t tw, uint32_t th)
{
	const uint8_t *p;
	unsigned sub;
	bool reuse = false;

	TAKE(p, 1);
	sub = *p;
	if (sub == 0) {
		TAKE(p, (size_t)tw * th * s->cp);
		if (s->fb)
			raw_tile(s->fb, x, y, tw, th, p);
		return DEC_OK;
	}
	if (sub == 1) {
		uint8_t px[4];

		TAKE(p, s->cp);
		cpixel(s->f, p, px);
		if (s->fb)
			dec_fill(s->fb, x, y, tw, th, px);
		return DEC_OK;
	}
	if (s->trle && (sub == 127 || sub == 129)) {
		if (s->npal == 0)
			return dec_bad(s->c,
				       "tile %u,%u reuses a palette, but no "
				       "tile before it had one",
				       tx, ty);
		if (sub == 127 && s->npal > 16)
			return dec_bad(s->c,
				       "tile %u,%u packs indices into a "
				       "%u-colour palette",
				       tx, ty, s->npal);
		reuse = true;
	} else if ((sub > 16 && sub < 128) || sub == 129) {
		return dec_bad(s->c,
			       "tile %u,%u has subencoding %u, which does "
			       "not exist",
			       tx, ty, sub);
	} else if (sub != 128) {
		s->npal = sub < 128 ? sub : sub - 128;
	}
	if (sub != 128 && !reuse) {
		TAKE(p, (size_t)s->npal * s->cp);
		for (unsigned i = 0; i < s->npal; i++)
			cpixel(s->f, p + (size_t)i * s->cp, s->pal[i]);
	}
	if (sub <= 127)
		return packed_tile(s, x, y, tw, th);
	return run_tile(s, sub, x, y, tw, th);
}

#undef TAKE

/* The ZRLE/TRLE tile decoder over in, for tiles of tsize; without draw,
 * it only walks the tiles (to find where they end). */
static int dec_rle_tiles(struct dec_ctx *c, struct dec_in *in,
			 const struct rect *r, unsigned tsize, bool trle,
			 bool draw)
{
	struct rle s = {
		.c = c,
		.in = in,
		.fb = draw ? &c->fb : NULL,
		.f = c->fb.fmt,
		.cp = c->fb.fmt->cpixel,
		.bpp = c->fb.fmt->bpp,
		.trle = trle,
	};
	uint32_t w = (uint32_t)r->w, h = (uint32_t)r->h;

	for (uint32_t ty = 0; ty < h; ty += tsize) {
		uint32_t th = h - ty < tsize ? h - ty : tsize;

		if (dec_check(c) != DEC_OK)
			return DEC_EOF;
		for (uint32_t tx = 0; tx < w; tx += tsize) {
			uint32_t tw = w - tx < tsize ? w - tx : tsize;
			int ret = one_tile(&s, tx, ty, (uint32_t)r->x + tx,
					   (uint32_t)r->y + ty, tw, th);

			if (ret != DEC_OK)
				return ret;
		}
	}
	return DEC_OK;
}

/* --- ZRLE: the tiles come out of the connection's zlib stream --- */

#define ZRLE_WINDOW (128 * 1024)

struct zwin {
	struct dec_in in;
	struct dec_ctx *c;
	uint8_t *buf;
};

/* Keep what is left, inflate behind it. */
static int zwin_refill(struct dec_in *in, size_t need)
{
	struct zwin *zw = in->ctx;
	size_t have = (size_t)(in->end - in->p), got;
	int ret;

	memmove(zw->buf, in->p, have);
	ret = dec_zstream_some(zw->c, &zw->c->zs->zrle, zw->buf + have,
			       ZRLE_WINDOW - have, &got);
	in->p = zw->buf;
	in->end = zw->buf + have + got;
	if (ret != DEC_OK)
		return ret;
	if (have + got < need)
		return dec_bad(zw->c, "zlib data ends inside a tile");
	return DEC_OK;
}

static int zrle_read(struct dec_ctx *c, struct dec_job *j)
{
	const struct dec_fmt *f = c->fb.fmt;
	uint64_t tiles =
	    (((uint64_t)j->r.w + 63) / 64) * (((uint64_t)j->r.h + 63) / 64);
	/* A tile is never bigger than raw CPIXELs or than RLE of one
	 * pixel a run; palettes add at most 127 CPIXELs. */
	uint64_t inflated = (uint64_t)j->r.w * j->r.h * (f->cpixel + 1) +
			    tiles * (1 + 127 * f->cpixel);
	uint32_t len;
	int err;

	if (dec_read_u32(c, &len) != DEC_OK)
		return DEC_EOF;
	if (len > dec_zlib_bound((size_t)inflated))
		return dec_bad(c, "%u bytes of zlib data for %llu tiles", len,
			       (unsigned long long)tiles);
	j->streams = DEC_STREAM_ZRLE;
	if (len && !dec_take(c, j, len, &err))
		return err;
	return DEC_OK;
}

static int zrle_decode(struct dec_ctx *c, const struct dec_job *j)
{
	struct zwin zw = {.c = c};
	int ret;

	zw.buf = dec_scratch(c, ZRLE_WINDOW);
	if (!zw.buf)
		return DEC_NOMEM;
	zw.in = (struct dec_in){
	    .p = zw.buf, .end = zw.buf, .refill = zwin_refill, .ctx = &zw};
	ret = dec_zstream_begin(c, &c->zs->zrle, j->data.p, j->data.len);
	if (ret == DEC_OK)
		ret = dec_rle_tiles(c, &zw.in, &j->r, 64, false, true);
	if (ret == DEC_OK && zw.in.end != zw.in.p)
		ret = dec_bad(c, "zlib data holds more than the rectangle's "
				 "tiles");
	if (ret == DEC_OK)
		ret = dec_zstream_finish(c, &c->zs->zrle);
	return ret;
}

/* ZYWRLE (ZRLE after a lossy wavelet) has no decoder in vncfb: the name
 * offers its lossless sibling ZRLE instead. */
const struct decoder dec_zrle = {
    .enc = RFB_ENC_ZRLE,
    .name = "zrle",
    .alias = "zywrle",
    .label = "ZRLE",
    .rank = 4,
    .flags = DEC_ZLIB,
    .read = zrle_read,
    .decode = zrle_decode,
    .in_place = true,
};

/* --- TRLE: the tiles come straight from the source --- */

/* Read: the tiles walked as they arrive, in large reads, into the job
 * (TRLE has no length up front); drawn later by the pool. */
static int trle_read(struct dec_ctx *c, struct dec_job *j)
{
	const uint64_t cp = c->fb.fmt->cpixel;
	/* A tile holds at most a palette and a pixel and a run length for
	 * each of its pixels. */
	uint64_t tiles =
	    (((uint64_t)j->r.w + 15) / 16) * (((uint64_t)j->r.h + 15) / 16);
	struct dec_in_job ij;
	int ret =
	    dec_in_job(c, j, tiles * (1 + 127 * cp + 256 * (cp + 1)), &ij);

	if (ret == DEC_OK)
		ret = dec_rle_tiles(c, &ij.in, &j->r, 16, true, false);
	if (ret == DEC_OK)
		ret = dec_in_job_done(&ij);
	return ret;
}

static int trle_decode(struct dec_ctx *c, const struct dec_job *j)
{
	struct dec_in in;

	dec_in_mem(&in, j->data.p, j->data.len);
	return dec_rle_tiles(c, &in, &j->r, 16, true, true);
}

const struct decoder dec_trle = {
    .enc = RFB_ENC_TRLE,
    .name = "trle",
    .label = "TRLE",
    .read = trle_read,
    .decode = trle_decode,
    .in_place = true,
};
