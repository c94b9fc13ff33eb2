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
	const unsigned bpp = r->fb->fmt->bpp;

	r->left -= n;
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

int dec_rle_tiles(struct dec_ctx *c, struct dec_in *in, const struct rect *r,
		  unsigned tsize, bool trle)
{
	const struct dec_fb *fb = &c->fb;
	const struct dec_fmt *f = fb->fmt;
	const unsigned cp = f->cpixel, bpp = f->bpp;
	uint8_t pal[128][4];
	unsigned npal = 0; /* TRLE: the previous tile's palette */
	uint32_t w = (uint32_t)r->w, h = (uint32_t)r->h;

#define TAKE(p, n)                                                             \
	do {                                                                   \
		(p) = dec_in_take(in, (n));                                    \
		if (!(p))                                                      \
			return in->err;                                        \
	} while (0)

	for (uint32_t ty = 0; ty < h; ty += tsize) {
		uint32_t th = h - ty < tsize ? h - ty : tsize;

		if (dec_check(c) != DEC_OK)
			return DEC_EOF;

		for (uint32_t tx = 0; tx < w; tx += tsize) {
			uint32_t tw = w - tx < tsize ? w - tx : tsize;
			uint32_t x = (uint32_t)r->x + tx,
				 y = (uint32_t)r->y + ty;
			const uint8_t *p;
			unsigned sub, bits;
			bool reuse = false;

			TAKE(p, 1);
			sub = *p;
			if (sub == 0) {
				TAKE(p, (size_t)tw * th * cp);
				raw_tile(fb, x, y, tw, th, p);
				continue;
			}
			if (sub == 1) {
				uint8_t px[4];

				TAKE(p, cp);
				cpixel(f, p, px);
				dec_fill(fb, x, y, tw, th, px);
				continue;
			}
			if (trle && (sub == 127 || sub == 129)) {
				if (npal == 0)
					return dec_bad(c,
						       "tile %u,%u reuses a "
						       "palette, but no "
						       "tile before it had "
						       "one",
						       tx, ty);
				if (sub == 127 && npal > 16)
					return dec_bad(c,
						       "tile %u,%u packs "
						       "indices into a "
						       "%u-colour palette",
						       tx, ty, npal);
				reuse = true;
			} else if ((sub > 16 && sub < 128) || sub == 129) {
				return dec_bad(c,
					       "tile %u,%u has subencoding "
					       "%u, which does not exist",
					       tx, ty, sub);
			} else if (sub != 128) {
				npal = sub < 128 ? sub : sub - 128;
			}
			if (sub != 128 && !reuse) {
				TAKE(p, (size_t)npal * cp);
				for (unsigned i = 0; i < npal; i++)
					cpixel(f, p + (size_t)i * cp, pal[i]);
			}
			if (sub <= 127) {
				/* Packed palette: 1, 2 or 4 bits an index,
				 * rows padded to a byte. */
				size_t rowb;

				bits = npal <= 2 ? 1 : npal <= 4 ? 2 : 4;
				rowb = ((size_t)tw * bits + 7) / 8;
				TAKE(p, rowb * th);
				for (uint32_t i = 0; i < th; i++, p += rowb) {
					uint8_t *d = dec_fb_at(fb, x, y + i);

					for (uint32_t k = 0; k < tw; k++) {
						unsigned pos = k * bits;
						unsigned v =
						    p[pos / 8] >>
							(8 - bits - pos % 8) &
						    ((1u << bits) - 1);

						if (v >= npal)
							return dec_bad(
							    c,
							    "index %u past the "
							    "%u-colour palette",
							    v, npal);
						put(d + (size_t)k * bpp, pal[v],
						    bpp);
					}
				}
				continue;
			}
			{
				struct run_pos rp = {fb, x, y, tw,
						     th, 0, 0, tw * th};

				while (rp.left > 0) {
					uint8_t px[4];
					const uint8_t *src = px;
					uint32_t len = 1;
					int ret;

					if (sub == 128) {
						TAKE(p, cp);
						cpixel(f, p, px);
						ret = run_length(c, in, rp.left,
								 &len);
						if (ret != DEC_OK)
							return ret;
					} else {
						unsigned v;

						TAKE(p, 1);
						v = *p & 127;
						if (v >= npal)
							return dec_bad(
							    c,
							    "index %u past the "
							    "%u-colour palette",
							    v, npal);
						src = pal[v];
						if (*p & 128) {
							ret = run_length(
							    c, in, rp.left,
							    &len);
							if (ret != DEC_OK)
								return ret;
						}
					}
					run_put(&rp, src, len);
				}
			}
		}
	}
#undef TAKE
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
		ret = dec_rle_tiles(c, &zw.in, &j->r, 64, false);
	if (ret == DEC_OK && zw.in.end != zw.in.p)
		ret = dec_bad(c, "zlib data holds more than the rectangle's "
				 "tiles");
	if (ret == DEC_OK)
		ret = dec_zstream_finish(c, &c->zs->zrle);
	return ret;
}

const struct decoder dec_zrle = {
    .enc = RFB_ENC_ZRLE,
    .read = zrle_read,
    .decode = zrle_decode,
};

/* --- TRLE: the tiles come straight from the source --- */

static int trle_read(struct dec_ctx *c, struct dec_job *j)
{
	struct dec_in in;
	int ret;

	if (dec_in_source(c, &in) != DEC_OK)
		return DEC_NOMEM;
	ret = dec_rle_tiles(c, &in, &j->r, 16, true);
	if (ret == DEC_OK)
		dec_in_source_done(&in);
	return ret;
}

const struct decoder dec_trle = {
    .enc = RFB_ENC_TRLE,
    .read = trle_read,
};
