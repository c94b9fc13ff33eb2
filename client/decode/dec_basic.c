/* The uncompressed encodings: raw, CopyRect, RRE, CoRRE and hextile
 * (decode.h). */
#include "config.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "decode/decode_priv.h"
#include "util/stream.h"
#include "wire/rfb.h"

/* Raw: rows straight from the source into the shadow, in one read when
 * they are contiguous there, on the reading thread. Not on the pool: on
 * 2 cores a copy through the chunks and then into the shadow by a worker
 * cost 1.7x the CPU per update and 0.7x the updates/s of reading
 * straight into the shadow (doc/decode-threads.md). */
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
    .in_place = true,
};

/* RRE and CoRRE: a background and subrectangles. Their length is known
 * from the count up front: read in one piece on the reading thread, drawn
 * by the pool. A subrectangle covers at least a pixel, so a count beyond
 * the rectangle's pixels is garbage: refused before anything is read. */
static int rre_common(struct dec_ctx *c, struct dec_job *j, bool compact)
{
	const unsigned bpp = c->fb.fmt->bpp;
	const size_t sz = bpp + (compact ? 4 : 8);
	uint64_t pixels = (uint64_t)j->r.w * (uint64_t)j->r.h;
	const uint8_t *head;
	uint32_t n;
	int err;

	head = dec_take(c, j, 4 + bpp, &err);
	if (!head)
		return err;
	n = dec_be32(head);
	if (n > pixels)
		return dec_bad(c, "%u subrectangles in %llu pixels", n,
			       (unsigned long long)pixels);
	if (n && !dec_take(c, j, (size_t)n * sz, &err))
		return err;
	return DEC_OK;
}

#define RRE_CHECK_EVERY 0xffffu

static int rre_draw(struct dec_ctx *c, const struct dec_job *j, bool compact)
{
	const struct dec_fb *fb = &c->fb;
	const unsigned bpp = fb->fmt->bpp;
	const size_t sz = bpp + (compact ? 4 : 8);
	const uint8_t *p = j->data.p;
	uint32_t n = dec_be32(p);

	dec_fill(fb, (uint32_t)j->r.x, (uint32_t)j->r.y, (uint32_t)j->r.w,
		 (uint32_t)j->r.h, p + 4);
	p += 4 + bpp;
	for (uint32_t i = 0; i < n; i++, p += sz) {
		const uint8_t *g = p + bpp;
		uint32_t x, y, w, h;

		/* Millions of them take tens of ms: a quit stops them too. */
		if ((i & RRE_CHECK_EVERY) == RRE_CHECK_EVERY &&
		    dec_check(c) != DEC_OK)
			return DEC_EOF;

		if (compact) {
			x = g[0], y = g[1], w = g[2], h = g[3];
		} else {
			x = dec_be16(g), y = dec_be16(g + 2);
			w = dec_be16(g + 4), h = dec_be16(g + 6);
		}
		if (x + w > (uint32_t)j->r.w || y + h > (uint32_t)j->r.h)
			return dec_bad(c,
				       "subrectangle %ux%u at %u,%u is outside "
				       "it",
				       w, h, x, y);
		dec_fill(fb, (uint32_t)j->r.x + x, (uint32_t)j->r.y + y, w, h,
			 p);
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

static int rre_decode(struct dec_ctx *c, const struct dec_job *j)
{
	return rre_draw(c, j, false);
}

static int corre_decode(struct dec_ctx *c, const struct dec_job *j)
{
	return rre_draw(c, j, true);
}

const struct decoder dec_rre = {
    .enc = RFB_ENC_RRE,
    .read = rre_read,
    .decode = rre_decode,
    .in_place = true,
};

const struct decoder dec_corre = {
    .enc = RFB_ENC_CORRE,
    .read = corre_read,
    .decode = corre_decode,
    .in_place = true,
};

/* Hextile: 16x16 tiles, row by row, the last column and row partial. */
enum {
	HEX_RAW = 1,
	HEX_BG = 2,
	HEX_FG = 4,
	HEX_SUBRECTS = 8,
	HEX_COLOURED = 16,
};

/* A full tile's 64-byte rows, each a whole cache line of the shadow when
 * it is aligned: stored with streaming stores, which write the line
 * without reading it first. A tile row is too short for memcpy's own
 * (rep movsb) to do that, as it does for raw's long rows, and reading
 * each line of the shadow before overwriting it was most of what a raw
 * tile cost more than raw. hextile_tiles fences them (stream_fence). */
static inline bool hex_rows64(uint8_t *d, size_t stride, const uint8_t *p,
			      uint32_t th)
{
	if (!STREAM_LINES || (uintptr_t)d & 63 || stride & 63)
		return false;
	for (uint32_t i = 0; i < th; i++, d += stride, p += 64)
		stream_line(d, p);
	return true;
}

/* A tile's rows, pitch bytes apart at p, into the shadow: a raw tile's
 * (pitch its width) or a tile drawn in hex_tile's buffer (pitch 16
 * pixels); the full tiles of the common formats in fixed-size copies the
 * compiler turns into a few moves. */
static inline void hex_raw_tile(const struct dec_fb *fb, uint32_t x, uint32_t y,
				uint32_t tw, uint32_t th, const uint8_t *p,
				size_t pitch)
{
	const unsigned bpp = fb->fmt->bpp;
	uint8_t *d = dec_fb_at(fb, x, y);

	if (tw == 16 && bpp == 4) {
		if (hex_rows64(d, fb->stride, p, th))
			return;
		for (uint32_t i = 0; i < th; i++, d += fb->stride, p += 64)
			memcpy(d, p, 64);
	} else if (tw == 16 && bpp == 2) {
		for (uint32_t i = 0; i < th; i++, d += fb->stride, p += 32)
			memcpy(d, p, 32);
	} else {
		dec_copy_rows(fb, x, y, tw, th, p, pitch);
	}
}

/* A tile drawn in a buffer of its own (hex_tile), then copied to the
 * shadow as a raw tile is: its background and subrectangles are stores
 * into a 16-pixel-wide buffer in the L1 cache, with the pixel's width
 * known to the compiler, and the shadow's lines are written once each,
 * with streaming stores where they are whole (hex_rows64). Most tiles of
 * text and anti-aliased edges carry dozens of one- and two-pixel
 * coloured subrectangles: drawn by dec_fill into the shadow each cost a
 * call, a loop of memcpy per pixel and the shadow line's read. */
#define HEX_PITCH(bpp) (16u * (bpp))

/* min(k, w - 1) for a row of w = 1..4 pixels, k = 0..3: the pixels a
 * narrow subrectangle's row is stored to, the ones past its width
 * repeating its last (a second store of the same colour), so that a row
 * is four stores whatever its width, with no loop whose end mispredicts. */
static const uint8_t hex_upto4[4][4] = {
    {0, 0, 0, 0}, {0, 1, 1, 1}, {0, 1, 2, 2}, {0, 1, 2, 3}};

/* Fill sw x sh pixels at t (pitch 16 pixels) with the colour at px. */
static inline __attribute__((always_inline)) void
hex_tile_fill(uint8_t *t, unsigned bpp, uint32_t sw, uint32_t sh,
	      const uint8_t *px)
{
	if (bpp == 4) {
		uint32_t v;

		memcpy(&v, px, 4);
		if (sw <= 4) {
			/* Text's columns and small blocks: four stores a
			 * row (hex_upto4), no loop across it. */
			const uint8_t *o = hex_upto4[sw - 1];

			for (uint32_t j = 0; j < sh; j++, t += 64) {
				memcpy(t + 4u * o[3], &v, 4);
				memcpy(t + 4u * o[2], &v, 4);
				memcpy(t + 4u * o[1], &v, 4);
				memcpy(t, &v, 4);
			}
			return;
		}
		/* Wider: 16-byte stores, the last one ending at the row's
		 * end (overlapping the one before it). */
		uint32_t q[4] = {v, v, v, v};

		for (uint32_t j = 0; j < sh; j++, t += 64) {
			for (uint32_t i = 0; i + 4 < sw; i += 4)
				memcpy(t + 4 * i, q, 16);
			memcpy(t + 4 * (sw - 4), q, 16);
		}
	} else if (bpp == 2) {
		uint16_t v;

		memcpy(&v, px, 2);
		for (uint32_t j = 0; j < sh; j++, t += 32)
			for (uint32_t i = 0; i < sw; i++)
				memcpy(t + 2 * i, &v, 2);
	} else {
		for (uint32_t j = 0; j < sh; j++, t += 16)
			memset(t, px[0], sw);
	}
}

/* The n subrectangles at p into the tile buffer t of a tw x th tile,
 * coloured (each its own colour first) or all in fg; fg ends as the last
 * colour drawn. Returns n when all were inside the tile, else the index
 * of the first that was not (nothing of it drawn). */
static inline __attribute__((always_inline)) unsigned
hex_subrects(uint8_t *t, unsigned bpp, const uint8_t *p, unsigned n,
	     bool coloured, uint32_t tw, uint32_t th, uint8_t *fg)
{
	const uint8_t *col = fg;
	const size_t step = coloured ? bpp + 2u : 2u;

	for (unsigned k = 0; k < n; k++, p += step) {
		const uint8_t *g = coloured ? p + bpp : p;
		uint32_t sx = g[0] >> 4, sy = g[0] & 15;
		uint32_t sw = (g[1] >> 4) + 1u, sh = (g[1] & 15) + 1u;

		if (coloured)
			col = p;
		if (sx + sw > tw || sy + sh > th)
			return k;
		/* Up to 2x2 (nearly all of them in text): four stores at
		 * offsets computed, not chosen: a store past the
		 * subrectangle's width or height lands on its first pixel
		 * again. A loop over one or two pixels mispredicts its end
		 * half the time, and so does a branch (or the compiler's
		 * branch for a select) on the width. */
		if ((g[1] & 0xee) == 0) {
			const size_t ox = (g[1] >> 4) & 1, oy = g[1] & 1;
			uint8_t *a = t + (sy * 16u + sx) * bpp;
			/* In a register: a store through uint8_t may alias
			 * the colour's bytes, which would be read again. */
			uint32_t v = 0;

			memcpy(&v, col, bpp);
			memcpy(a + (ox & oy) * 17u * bpp, &v, bpp);
			memcpy(a + oy * 16u * bpp, &v, bpp);
			memcpy(a + ox * bpp, &v, bpp);
			memcpy(a, &v, bpp);
			continue;
		}
		hex_tile_fill(t + (sy * 16u + sx) * bpp, bpp, sw, sh, col);
	}
	/* As TigerVNC and libvncclient do: the last subrectangle's colour
	 * is the next tile's foreground. */
	if (coloured && n)
		memcpy(fg, col, bpp);
	return n;
}

/* A tile of a background and subrectangles (n of them at p, bounds
 * unchecked yet) drawn in t, for each pixel width the compiler's own
 * copy. Returns n, or the index of the first subrectangle outside the
 * tw x th tile. */
static unsigned hex_tile(uint8_t *t, unsigned bpp, const uint8_t *bg,
			 const uint8_t *p, unsigned n, bool coloured,
			 uint32_t tw, uint32_t th, uint8_t *fg)
{
	switch (bpp) {
	case 4:
		hex_tile_fill(t, 4, 16, th, bg);
		return coloured ? hex_subrects(t, 4, p, n, true, tw, th, fg)
				: hex_subrects(t, 4, p, n, false, tw, th, fg);
	case 2:
		hex_tile_fill(t, 2, 16, th, bg);
		return coloured ? hex_subrects(t, 2, p, n, true, tw, th, fg)
				: hex_subrects(t, 2, p, n, false, tw, th, fg);
	default:
		hex_tile_fill(t, 1, 16, th, bg);
		return coloured ? hex_subrects(t, 1, p, n, true, tw, th, fg)
				: hex_subrects(t, 1, p, n, false, tw, th, fg);
	}
}

/* The tiles of r from in. Reading (fb NULL) only walks them to find
 * where the rectangle ends; drawing checks the subrectangles and draws. */
static int hextile_tiles(struct dec_ctx *c, const struct dec_fb *fb,
			 struct dec_in *in, const struct rect *r)
{
	const unsigned bpp = c->fb.fmt->bpp;
	uint32_t w = (uint32_t)r->w, h = (uint32_t)r->h;
	uint32_t x0 = (uint32_t)r->x, y0 = (uint32_t)r->y;
	uint8_t bg[4] = {0}, fg[4] = {0};
	/* hex_tile's buffer: 16 x 16 pixels, on a cache line. */
	uint8_t tile[256 * 4] __attribute__((aligned(64)));
	const uint8_t *p;

#define TAKE(n)                                                                \
	do {                                                                   \
		p = dec_in_take(in, (n));                                      \
		if (!p)                                                        \
			return in->err ? in->err                               \
				       : dec_bad(c, "the data ends inside "    \
						    "a tile");                 \
	} while (0)

	for (uint32_t ty = 0; ty < h; ty += 16) {
		uint32_t th = h - ty < 16 ? h - ty : 16;

		for (uint32_t tx = 0; tx < w; tx += 16) {
			uint32_t tw = w - tx < 16 ? w - tx : 16;
			uint32_t x = x0 + tx, y = y0 + ty;
			unsigned sub, n, done;

			TAKE(1);
			sub = *p;
			if (sub & HEX_RAW) {
				TAKE((size_t)tw * th * bpp);
				if (fb)
					hex_raw_tile(fb, x, y, tw, th, p,
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
			n = 0;
			if (sub & HEX_SUBRECTS) {
				TAKE(1);
				n = *p;
				if (n)
					TAKE((size_t)n * (sub & HEX_COLOURED
							      ? bpp + 2
							      : 2));
			}
			if (!fb)
				continue;
			done = hex_tile(tile, bpp, bg, p, n,
					n && (sub & HEX_COLOURED), tw, th, fg);
			if (done < n) {
				const uint8_t *g =
				    p +
				    (size_t)done *
					(sub & HEX_COLOURED ? bpp + 2 : 2) +
				    (sub & HEX_COLOURED ? bpp : 0);
				uint32_t sx = g[0] >> 4, sy = g[0] & 15;
				uint32_t sw = (g[1] >> 4) + 1u;
				uint32_t sh = (g[1] & 15) + 1u;

				return dec_bad(c,
					       "subrectangle %ux%u at %u,%u "
					       "is outside its %ux%u tile at "
					       "%u,%u",
					       sw, sh, sx, sy, tw, th, tx, ty);
			}
			hex_raw_tile(fb, x, y, tw, th, tile, HEX_PITCH(bpp));
		}
		if (fb && dec_check(c) != DEC_OK)
			return DEC_EOF;
	}
#undef TAKE
	/* The tiles are in the shadow before anyone is told so. */
	if (fb)
		stream_fence();
	return DEC_OK;
}

/* Read: the tiles walked as they arrive, in large reads, into the job;
 * drawn later by the pool, or now (fb, read_draw), when the bytes are
 * given up as they are drawn. */
static int hextile_walk(struct dec_ctx *c, struct dec_job *j,
			const struct dec_fb *fb)
{
	const uint64_t bpp = c->fb.fmt->bpp;
	/* A tile holds at most its raw pixels, or two colours and 255
	 * coloured subrectangles. */
	const uint64_t tile =
	    1 +
	    (256 * bpp > 3 + 257 * bpp + 510 ? 256 * bpp : 3 + 257 * bpp + 510);
	uint64_t tiles =
	    (((uint64_t)j->r.w + 15) / 16) * (((uint64_t)j->r.h + 15) / 16);
	struct dec_in_job ij;
	/* Drawn as they come, the tiles need no room kept for all of them:
	 * the chunk is read through again instead (dec_chunks_consume). */
	int ret = dec_in_job(c, j, fb ? 0 : tiles * tile, &ij);

	ij.drawn = fb != NULL;
	if (ret == DEC_OK)
		ret = hextile_tiles(c, fb, &ij.in, &j->r);
	if (ret == DEC_OK)
		ret = dec_in_job_done(&ij);
	return ret;
}

static int hextile_read(struct dec_ctx *c, struct dec_job *j)
{
	return hextile_walk(c, j, NULL);
}

static int hextile_read_draw(struct dec_ctx *c, struct dec_job *j)
{
	return hextile_walk(c, j, &c->fb);
}

static int hextile_decode(struct dec_ctx *c, const struct dec_job *j)
{
	struct dec_in in;

	dec_in_mem(&in, j->data.p, j->data.len);
	return hextile_tiles(c, &c->fb, &in, &j->r);
}

const struct decoder dec_hextile = {
    .enc = RFB_ENC_HEXTILE,
    .read = hextile_read,
    .decode = hextile_decode,
    .read_draw = hextile_read_draw,
    .in_place = true,
    .copy_bound = true,
};
