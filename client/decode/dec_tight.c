/* Tight: fill, JPEG, and basic compression with the copy, palette and
 * gradient filters over four zlib streams (with their resets), including
 * data under 12 bytes sent bare and libvncserver's "no zlib" variant
 * (decode.h). */
#include "config.h"

#include <string.h>

#include "decode/decode_priv.h"
#include "wire/rfb.h"

enum { T_FILL, T_JPEG, T_BASIC };
enum { F_COPY = 0, F_PALETTE = 1, F_GRADIENT = 2 };

/* Data this short is sent without zlib (and without a length). */
#define TIGHT_MIN_TO_COMPRESS 12
/* libvncserver's compression control bits for "basic, no zlib". */
#define TIGHT_NO_ZLIB 0x0a

/* The control part of a Tight rectangle, parsed. */
struct tight_head {
	unsigned resets; /* streams reset first (bits 0-3) */
	int kind;
	unsigned stream;
	bool compressed; /* payload goes through stream */
	unsigned filter;
	unsigned npal;
	size_t pal_off;
	unsigned bits; /* per pixel, after the filter */
	size_t rowsize;
	uint64_t datasize; /* rowsize * h */
	size_t payload_off, payload_len;
};

/* A compact length (1 to 3 bytes) at p[off]: its value, or how many
 * bytes the header needs at least. */
static long compact_len(const uint8_t *p, size_t len, size_t off, uint32_t *val,
			size_t *used)
{
	uint32_t v = 0;

	for (unsigned i = 0; i < 3; i++) {
		if (off + i >= len)
			return (long)(off + i + 1);
		v |= (uint32_t)(i < 2 ? p[off + i] & 0x7f : p[off + i])
		     << (7 * i);
		if (i < 2 && !(p[off + i] & 0x80)) {
			*used = i + 1;
			*val = v;
			return 0;
		}
	}
	*used = 3;
	*val = v;
	return 0;
}

/* Parse what there is of the control part. 0 with *h complete; a number
 * above len: the bytes it needs at least; or DEC_BAD. */
static long tight_head(struct dec_ctx *c, const struct rect *r,
		       const uint8_t *p, size_t len, struct tight_head *h)
{
	const struct dec_fmt *f = c->fb.fmt;
	unsigned ctl, sub;
	bool nozlib = false, explicit_filter;
	size_t off = 1, used;
	uint32_t clen;
	long need;

	if (len < 1)
		return 1;
	memset(h, 0, sizeof(*h));
	ctl = p[0];
	h->resets = ctl & 0x0f;
	sub = ctl >> 4;
	if (sub == 8) {
		h->kind = T_FILL;
		h->payload_off = 1;
		h->payload_len = f->tpixel;
		return 0;
	}
	if (sub == 9) {
		h->kind = T_JPEG;
		need = compact_len(p, len, 1, &clen, &used);
		if (need)
			return need;
		if (clen == 0)
			return dec_bad(c, "JPEG data of 0 bytes");
		h->payload_off = 1 + used;
		h->payload_len = clen;
		return 0;
	}
	if ((sub & TIGHT_NO_ZLIB) == TIGHT_NO_ZLIB) {
		nozlib = true;
		sub &= ~TIGHT_NO_ZLIB;
	}
	if (sub > 7)
		return dec_bad(c, "compression control 0x%02x", ctl);
	h->kind = T_BASIC;
	h->stream = sub & 3;
	explicit_filter = sub & 4;
	h->filter = F_COPY;
	if (explicit_filter) {
		if (len < off + 1)
			return (long)(off + 1);
		h->filter = p[off++];
		if (h->filter > F_GRADIENT)
			return dec_bad(c, "filter %u", h->filter);
	}
	h->bits = f->tpixel * 8;
	if (h->filter == F_PALETTE) {
		if (len < off + 1)
			return (long)(off + 1);
		h->npal = p[off++] + 1u;
		h->pal_off = off;
		off += (size_t)h->npal * f->tpixel;
		if (len < off)
			return (long)off;
		h->bits = h->npal <= 2 ? 1 : 8;
	}
	h->rowsize = ((size_t)r->w * h->bits + 7) / 8;
	h->datasize = (uint64_t)h->rowsize * (uint64_t)r->h;
	if (h->datasize < TIGHT_MIN_TO_COMPRESS) {
		h->payload_off = off;
		h->payload_len = (size_t)h->datasize;
		return 0;
	}
	need = compact_len(p, len, off, &clen, &used);
	if (need)
		return need;
	if (nozlib && clen != h->datasize)
		return dec_bad(c,
			       "%u bytes of uncompressed data where %llu "
			       "are needed",
			       clen, (unsigned long long)h->datasize);
	if (!nozlib && (clen == 0 || clen > dec_zlib_bound(h->datasize)))
		return dec_bad(c, "%u bytes of zlib data for %llu bytes", clen,
			       (unsigned long long)h->datasize);
	h->compressed = !nozlib;
	h->payload_off = off + used;
	h->payload_len = clen;
	return 0;
}

static int tight_read(struct dec_ctx *c, struct dec_job *j)
{
	struct tight_head h;
	long need;
	int err;

	while ((need = tight_head(c, &j->r, j->data.p, j->data.len, &h)) > 0)
		if (!dec_take(c, j, (size_t)need - j->data.len, &err))
			return err;
	if (need < 0)
		return (int)need;
	if (h.payload_len && !dec_take(c, j, h.payload_len, &err))
		return err;
	j->streams = h.resets | (h.compressed ? 1u << h.stream : 0);
	return DEC_OK;
}

/* A TPIXEL (3 bytes R,G,B, or a shadow pixel) as a shadow pixel. */
static void tpixel(const struct dec_fmt *f, const uint8_t *p, uint8_t *out)
{
	if (f->tpixel == f->bpp)
		memcpy(out, p, f->bpp);
	else
		pixconv_row(&f->from_rgb, out, p, 1);
}

/* Where the filter's input rows come from: memory, or a zlib stream
 * into a buffer. */
struct rows {
	const uint8_t *mem;
	struct dec_zstream *z;
	uint8_t *buf;
	size_t rowsize;
};

static const uint8_t *rows_next(struct dec_ctx *c, struct rows *rs, uint32_t n,
				int *err)
{
	const uint8_t *p;

	if (!rs->z) {
		p = rs->mem;
		rs->mem += (size_t)n * rs->rowsize;
		return p;
	}
	*err = dec_zstream_inflate(c, rs->z, rs->buf, (size_t)n * rs->rowsize);
	return *err == DEC_OK ? rs->buf : NULL;
}

static int palette_row(struct dec_ctx *c, uint8_t *d, const uint8_t *src,
		       uint32_t w, const uint8_t (*pal)[4], unsigned npal)
{
	const unsigned bpp = c->fb.fmt->bpp;

	if (npal <= 2) {
		for (uint32_t x = 0; x < w; x++) {
			unsigned v = src[x / 8] >> (7 - x % 8) & 1;

			if (v >= npal)
				return dec_bad(c,
					       "index %u past the %u-colour "
					       "palette",
					       v, npal);
			memcpy(d + (size_t)x * bpp, pal[v], bpp);
		}
		return DEC_OK;
	}
	{
		unsigned max = 0;

		for (uint32_t x = 0; x < w; x++)
			max = src[x] > max ? src[x] : max;
		if (max >= npal)
			return dec_bad(c, "index %u past the %u-colour palette",
				       max, npal);
	}
	if (bpp == 4)
		for (uint32_t x = 0; x < w; x++)
			memcpy(d + (size_t)x * 4, pal[src[x]], 4);
	else if (bpp == 2)
		for (uint32_t x = 0; x < w; x++)
			memcpy(d + (size_t)x * 2, pal[src[x]], 2);
	else
		for (uint32_t x = 0; x < w; x++)
			d[x] = pal[src[x]][0];
	return DEC_OK;
}

static inline int clamp(int v, int max)
{
	return v < 0 ? 0 : v > max ? max : v;
}

/* Gradient on R,G,B bytes (TPIXEL formats): cur becomes the row. */
static void gradient_rgb(const uint8_t *src, const uint8_t *prev, uint8_t *cur,
			 uint32_t w)
{
	for (uint32_t x = 0; x < w; x++)
		for (unsigned k = 0; k < 3; k++) {
			size_t i = (size_t)x * 3 + k;
			int left = x ? cur[i - 3] : 0;
			int ul = x ? prev[i - 3] : 0;
			int est = clamp(left + prev[i] - ul, 255);

			cur[i] = (uint8_t)(est + src[i]);
		}
}

/* Gradient on the channels of the pixel format itself. */
static void gradient_px(const struct dec_fmt *f, uint8_t *d, const uint8_t *src,
			const uint16_t *prev, uint16_t *cur, uint32_t w)
{
	const unsigned bpp = f->bpp;
	const bool big = f->pf.big_endian;
	const unsigned sh[3] = {f->pf.r_shift, f->pf.g_shift, f->pf.b_shift};
	const int max[3] = {(1 << f->pf.r_bits) - 1, (1 << f->pf.g_bits) - 1,
			    (1 << f->pf.b_bits) - 1};

	for (uint32_t x = 0; x < w; x++) {
		uint32_t v = pix_load(src + (size_t)x * bpp, bpp, big);
		uint32_t out = 0;

		for (unsigned k = 0; k < 3; k++) {
			size_t i = (size_t)x * 3 + k;
			int left = x ? cur[i - 3] : 0;
			int ul = x ? prev[i - 3] : 0;
			int est = clamp(left + prev[i] - ul, max[k]);
			unsigned pix =
			    ((v >> sh[k]) + (unsigned)est) & (unsigned)max[k];

			cur[i] = (uint16_t)pix;
			out |= (uint32_t)pix << sh[k];
		}
		pix_store(d + (size_t)x * bpp, bpp, big, out);
	}
}

static int basic(struct dec_ctx *c, const struct dec_job *j,
		 const struct tight_head *h, const uint8_t *payload)
{
	const struct dec_fb *fb = &c->fb;
	const struct dec_fmt *f = fb->fmt;
	uint32_t x = (uint32_t)j->r.x, y = (uint32_t)j->r.y;
	uint32_t w = (uint32_t)j->r.w, hh = (uint32_t)j->r.h;
	struct dec_zstream *z = h->compressed ? &c->zs->tight[h->stream] : NULL;
	struct rows rs = {payload, z, NULL, h->rowsize};
	uint8_t pal[256][4];
	uint32_t batch, done;
	size_t prevsz = 0, rowsz;
	uint8_t *prev = NULL, *cur = NULL;
	int ret = DEC_OK;

	if (w == 0 || hh == 0)
		return DEC_OK;
	if (z) {
		ret = dec_zstream_begin(c, z, payload, h->payload_len);
		if (ret != DEC_OK)
			return ret;
	}
	if (h->filter == F_COPY && f->tpixel == f->bpp) {
		/* The wire's rows are the shadow's. */
		if (z)
			ret = dec_zstream_rows(c, z, x, y, w, hh);
		else
			dec_copy_rows(fb, x, y, w, hh, payload, h->rowsize);
		goto out;
	}
	if (h->filter == F_PALETTE)
		for (unsigned i = 0; i < h->npal; i++)
			tpixel(f,
			       j->data.p + h->pal_off + (size_t)i * f->tpixel,
			       pal[i]);
	batch = (uint32_t)(65536 / h->rowsize);
	if (batch < 1)
		batch = 1;
	if (batch > hh)
		batch = hh;
	if (h->filter == F_GRADIENT)
		prevsz = (size_t)w * 3 * (f->tpixel == 3 ? 1 : 2);
	/* The previous rows after the batch, aligned for uint16_t. */
	rowsz = ((size_t)batch * h->rowsize + 7) & ~(size_t)7;
	rs.buf = dec_scratch(c, rowsz + 2 * prevsz);
	if (!rs.buf)
		return DEC_NOMEM;
	if (prevsz) {
		prev = rs.buf + rowsz;
		cur = prev + prevsz;
		memset(prev, 0, prevsz);
	}
	for (done = 0; done < hh && ret == DEC_OK; done += batch) {
		uint32_t n = hh - done < batch ? hh - done : batch;
		const uint8_t *src = rows_next(c, &rs, n, &ret);

		for (uint32_t i = 0; src && i < n && ret == DEC_OK; i++) {
			uint8_t *d = dec_fb_at(fb, x, y + done + i);
			const uint8_t *row = src + (size_t)i * h->rowsize;

			if (h->filter == F_COPY) {
				pixconv_row(&f->from_rgb, d, row, w);
			} else if (h->filter == F_PALETTE) {
				ret = palette_row(c, d, row, w,
						  (const uint8_t(*)[4])pal,
						  h->npal);
			} else if (f->tpixel == 3) {
				gradient_rgb(row, prev, cur, w);
				pixconv_row(&f->from_rgb, d, cur, w);
			} else {
				gradient_px(f, d, row, (const uint16_t *)prev,
					    (uint16_t *)cur, w);
			}
			if (prev) {
				uint8_t *t = prev;

				prev = cur;
				cur = t;
			}
		}
	}
out:
	if (ret == DEC_OK && z)
		ret = dec_zstream_finish(c, z);
	return ret;
}

static int tight_decode(struct dec_ctx *c, const struct dec_job *j)
{
	struct tight_head h;
	const uint8_t *payload;
	long ret;

	ret = tight_head(c, &j->r, j->data.p, j->data.len, &h);
	if (ret != 0)
		return ret < 0 ? (int)ret : dec_bad(c, "Tight data ends early");
	if (j->data.len < h.payload_off + h.payload_len)
		return dec_bad(c, "Tight data ends early");
	for (unsigned i = 0; i < 4; i++)
		if (h.resets & (1u << i))
			dec_zstream_reset(&c->zs->tight[i]);
	payload = j->data.p + h.payload_off;
	if (h.kind == T_FILL) {
		uint8_t px[4];

		tpixel(c->fb.fmt, payload, px);
		dec_fill(&c->fb, (uint32_t)j->r.x, (uint32_t)j->r.y,
			 (uint32_t)j->r.w, (uint32_t)j->r.h, px);
		return DEC_OK;
	}
	if (h.kind == T_JPEG)
		return j->r.w && j->r.h
			   ? dec_jpeg_draw(c, payload, h.payload_len, &j->r)
			   : DEC_OK;
	return basic(c, j, &h, payload);
}

const struct decoder dec_tight = {
    .enc = RFB_ENC_TIGHT,
    .name = "tight",
    .label = "Tight",
    .rank = 3,
    .flags = DEC_ZLIB | DEC_QUALITY,
    .read = tight_read,
    .decode = tight_decode,
    .in_place = true,
};
