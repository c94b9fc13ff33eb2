/* The uncompressed encodings: raw, CopyRect, RRE, CoRRE and hextile
 * (decode.h). */
#include "config.h"

#include <string.h>

#include "decode/decode_priv.h"
#include "wire/rfb.h"

/* Raw: rows straight from the source into the shadow, in one read when
 * they are contiguous there. */
static int raw_read(struct dec_ctx *c, struct dec_job *j)
{
	const struct dec_fb *fb = &c->fb;
	uint32_t x = (uint32_t)j->r.x, y = (uint32_t)j->r.y;
	uint32_t w = (uint32_t)j->r.w, h = (uint32_t)j->r.h;
	size_t row = (size_t)w * fb->fmt->bpp;

	if (row == 0 || h == 0)
		return DEC_OK;
	if (row == fb->stride)
		return dec_read(c, dec_fb_at(fb, x, y), row * h);
	for (uint32_t i = 0; i < h; i++)
		if (dec_read(c, dec_fb_at(fb, x, y + i), row) != DEC_OK)
			return DEC_EOF;
	return DEC_OK;
}

const struct decoder dec_raw = {
    .enc = RFB_ENC_RAW,
    .read = raw_read,
};

/* CopyRect: its source is known once read, so a scheduler can order it
 * after whatever still writes there. */
static int copyrect_read(struct dec_ctx *c, struct dec_job *j)
{
	const uint8_t *p;
	uint32_t sx, sy;
	int err;

	p = dec_take(c, j, 4, &err);
	if (!p)
		return err;
	sx = dec_be16(p);
	sy = dec_be16(p + 2);
	if (sx + (uint32_t)j->r.w > c->fb.width ||
	    sy + (uint32_t)j->r.h > c->fb.height)
		return dec_bad(c,
			       "source %dx%d at %u,%u is outside the %ux%u "
			       "desktop",
			       j->r.w, j->r.h, sx, sy, c->fb.width,
			       c->fb.height);
	j->src = (struct rect){(int32_t)sx, (int32_t)sy, j->r.w, j->r.h};
	return DEC_OK;
}

static int copyrect_decode(struct dec_ctx *c, const struct dec_job *j)
{
	const struct dec_fb *fb = &c->fb;
	size_t row = (size_t)j->r.w * fb->fmt->bpp;
	uint32_t h = (uint32_t)j->r.h;
	uint32_t sx = (uint32_t)j->src.x, sy = (uint32_t)j->src.y;
	uint32_t dx = (uint32_t)j->r.x, dy = (uint32_t)j->r.y;

	if (row == 0 || h == 0)
		return DEC_OK;
	/* Overlapping source and destination: rows in the order that reads
	 * each source row before it is overwritten; memmove within a row. */
	if (sy < dy)
		for (uint32_t i = h; i-- > 0;)
			memmove(dec_fb_at(fb, dx, dy + i),
				dec_fb_at(fb, sx, sy + i), row);
	else
		for (uint32_t i = 0; i < h; i++)
			memmove(dec_fb_at(fb, dx, dy + i),
				dec_fb_at(fb, sx, sy + i), row);
	return DEC_OK;
}

const struct decoder dec_copyrect = {
    .enc = RFB_ENC_COPYRECT,
    .read = copyrect_read,
    .decode = copyrect_decode,
};

/* RRE and CoRRE: a background and subrectangles, drawn as they arrive
 * (nothing to gain from deferring them). A subrectangle covers at least a
 * pixel, so a count beyond the rectangle's pixels is garbage: refused
 * before anything is read. */
#define RRE_BATCH 1024

static int rre_common(struct dec_ctx *c, struct dec_job *j, bool compact)
{
	const struct dec_fb *fb = &c->fb;
	const unsigned bpp = fb->fmt->bpp;
	const size_t sz = bpp + (compact ? 4 : 8);
	uint8_t head[4 + 4];
	uint64_t pixels = (uint64_t)j->r.w * (uint64_t)j->r.h;
	uint32_t n;
	uint8_t *buf;

	if (dec_read(c, head, 4 + bpp) != DEC_OK)
		return DEC_EOF;
	n = dec_be32(head);
	if (n > pixels)
		return dec_bad(c, "%u subrectangles in %llu pixels", n,
			       (unsigned long long)pixels);
	dec_fill(fb, (uint32_t)j->r.x, (uint32_t)j->r.y, (uint32_t)j->r.w,
		 (uint32_t)j->r.h, head + 4);
	buf = dec_scratch(c, RRE_BATCH * sz);
	if (!buf)
		return DEC_NOMEM;
	while (n > 0) {
		uint32_t k = n < RRE_BATCH ? n : RRE_BATCH;

		if (dec_read(c, buf, k * sz) != DEC_OK)
			return DEC_EOF;
		for (uint32_t i = 0; i < k; i++) {
			const uint8_t *s = buf + i * sz, *g = s + bpp;
			uint32_t x, y, w, h;

			if (compact) {
				x = g[0], y = g[1], w = g[2], h = g[3];
			} else {
				x = dec_be16(g), y = dec_be16(g + 2);
				w = dec_be16(g + 4), h = dec_be16(g + 6);
			}
			if (x + w > (uint32_t)j->r.w ||
			    y + h > (uint32_t)j->r.h)
				return dec_bad(c,
					       "subrectangle %ux%u at %u,%u "
					       "is outside it",
					       w, h, x, y);
			dec_fill(fb, (uint32_t)j->r.x + x, (uint32_t)j->r.y + y,
				 w, h, s);
		}
		n -= k;
	}
	return DEC_OK;
}

static int rre_read(struct dec_ctx *c, struct dec_job *j)
{
	return rre_common(c, j, false);
}

static int corre_read(struct dec_ctx *c, struct dec_job *j)
{
	return rre_common(c, j, true);
}

const struct decoder dec_rre = {
    .enc = RFB_ENC_RRE,
    .read = rre_read,
};

const struct decoder dec_corre = {
    .enc = RFB_ENC_CORRE,
    .read = corre_read,
};

/* Hextile: 16x16 tiles, row by row, the last column and row partial. */
enum {
	HEX_RAW = 1,
	HEX_BG = 2,
	HEX_FG = 4,
	HEX_SUBRECTS = 8,
	HEX_COLOURED = 16,
};

/* Drawn as the tiles come, like RRE: buffering them first costs a copy
 * and a second parse, and their drawing is a copy too. */
static int hextile_read(struct dec_ctx *c, struct dec_job *j)
{
	const struct dec_fb *fb = &c->fb;
	const unsigned bpp = fb->fmt->bpp;
	uint32_t w = (uint32_t)j->r.w, h = (uint32_t)j->r.h;
	uint32_t x0 = (uint32_t)j->r.x, y0 = (uint32_t)j->r.y;
	uint8_t bg[4] = {0}, fg[4] = {0};
	struct dec_in in;
	const uint8_t *p;

#define TAKE(n)                                                                \
	do {                                                                   \
		p = dec_in_take(&in, (n));                                     \
		if (!p)                                                        \
			return in.err;                                         \
	} while (0)

	if (dec_in_source(c, &in) != DEC_OK)
		return DEC_NOMEM;
	for (uint32_t ty = 0; ty < h; ty += 16) {
		uint32_t th = h - ty < 16 ? h - ty : 16;

		for (uint32_t tx = 0; tx < w; tx += 16) {
			uint32_t tw = w - tx < 16 ? w - tx : 16;
			uint32_t x = x0 + tx, y = y0 + ty;
			unsigned sub, n;

			TAKE(1);
			sub = *p;
			if (sub & HEX_RAW) {
				TAKE((size_t)tw * th * bpp);
				dec_copy_rows(fb, x, y, tw, th, p,
					      (size_t)tw * bpp);
				continue;
			}
			if (sub & HEX_BG) {
				TAKE(bpp);
				memcpy(bg, p, bpp);
			}
			if (sub & HEX_FG) {
				TAKE(bpp);
				memcpy(fg, p, bpp);
			}
			dec_fill(fb, x, y, tw, th, bg);
			if (!(sub & HEX_SUBRECTS))
				continue;
			TAKE(1);
			n = *p;
			if (n == 0)
				continue;
			TAKE((size_t)n * (sub & HEX_COLOURED ? bpp + 2 : 2));
			for (; n > 0; n--) {
				uint32_t sx, sy, sw, sh;

				if (sub & HEX_COLOURED) {
					/* As TigerVNC and libvncclient do:
					 * the last subrectangle's colour is
					 * the next tile's foreground. */
					memcpy(fg, p, bpp);
					p += bpp;
				}
				sx = p[0] >> 4, sy = p[0] & 15;
				sw = (p[1] >> 4) + 1u, sh = (p[1] & 15) + 1u;
				p += 2;
				if (sx + sw > tw || sy + sh > th)
					return dec_bad(
					    c,
					    "subrectangle %ux%u at %u,%u is "
					    "outside its %ux%u tile at %u,%u",
					    sw, sh, sx, sy, tw, th, tx, ty);
				dec_fill(fb, x + sx, y + sy, sw, sh, fg);
			}
		}
	}
#undef TAKE
	dec_in_source_done(&in);
	return DEC_OK;
}

const struct decoder dec_hextile = {
    .enc = RFB_ENC_HEXTILE,
    .read = hextile_read,
};
