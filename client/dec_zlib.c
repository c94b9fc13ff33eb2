/* RFB's zlib streams (raw inflate, the header checked once, no adler32)
 * and the zlib encoding (decode.h). */
#include "config.h"

#include <limits.h>
#include <string.h>

#include "decode.h"
#include "rfb.h"

void dec_zstream_reset(struct dec_zstream *s)
{
	if (s->live)
		inflateReset(&s->z);
	s->hdr_have = 0;
	s->ended = false;
}

void dec_zstream_end(struct dec_zstream *s)
{
	if (s->live)
		inflateEnd(&s->z);
	s->live = false;
	s->hdr_have = 0;
	s->ended = false;
}

static int zerr(struct dec_ctx *c, struct dec_zstream *s, int ret)
{
	if (ret == Z_MEM_ERROR)
		return dec_bad(c, "out of memory in inflate");
	return dec_bad(c, "invalid zlib data (%s)",
		       s->z.msg ? s->z.msg : "no detail");
}

int dec_zstream_begin(struct dec_ctx *c, struct dec_zstream *s,
		      const uint8_t *in, size_t len)
{
	if (!s->live) {
		memset(&s->z, 0, sizeof(s->z));
		/* Raw deflate: RFB's streams never end, so their adler32
		 * would be computed and never checked. */
		if (inflateInit2(&s->z, -15) != Z_OK)
			return dec_bad(c, "out of memory for a zlib stream");
		s->live = true;
		s->hdr_have = 0;
	}
	while (s->hdr_have < 2 && len > 0) {
		s->hdr[s->hdr_have++] = *in++;
		len--;
		if (s->hdr_have == 2) {
			unsigned cmf = s->hdr[0], flg = s->hdr[1];

			if ((cmf & 0x0f) != 8 || (cmf >> 4) > 7 ||
			    ((cmf << 8) | flg) % 31 != 0 || (flg & 0x20))
				return dec_bad(c,
					       "zlib stream starts with "
					       "0x%02x%02x, not a zlib "
					       "header",
					       cmf, flg);
		}
	}
	if (len > UINT_MAX)
		return dec_bad(c, "%zu bytes of zlib data", len);
	s->z.next_in = (Bytef *)in;
	s->z.avail_in = (uInt)len;
	return DEC_OK;
}

/* One inflate() pass into out[0, n): *got bytes. */
static int step(struct dec_ctx *c, struct dec_zstream *s, uint8_t *out,
		size_t n, size_t *got)
{
	int ret;

	*got = 0;
	if (n > DEC_PIECE)
		n = DEC_PIECE;
	if (s->z.avail_in == 0)
		return DEC_OK;
	if (s->ended)
		return dec_bad(c, "data after the end of the zlib stream");
	s->z.next_out = out;
	s->z.avail_out = (uInt)n;
	ret = inflate(&s->z, Z_NO_FLUSH);
	*got = n - s->z.avail_out;
	if (ret == Z_OK || (ret == Z_BUF_ERROR && *got > 0))
		return DEC_OK;
	if (ret == Z_STREAM_END) {
		s->ended = true;
		return DEC_OK;
	}
	if (ret == Z_BUF_ERROR)
		return DEC_OK;
	return zerr(c, s, ret);
}

int dec_zstream_some(struct dec_ctx *c, struct dec_zstream *s, uint8_t *out,
		     size_t n, size_t *got)
{
	size_t k;
	int ret;

	*got = 0;
	while (*got < n && s->z.avail_in > 0) {
		ret = dec_check(c);
		if (ret == DEC_OK)
			ret = step(c, s, out + *got, n - *got, &k);
		if (ret != DEC_OK)
			return ret;
		*got += k;
		if (s->ended)
			break;
		if (k == 0 && s->z.avail_in > 0 && s->z.avail_out > 0) {
			/* No progress with room on both sides cannot
			 * happen; do not spin if it does. */
			return dec_bad(c, "inflate made no progress");
		}
	}
	return DEC_OK;
}

int dec_zstream_inflate(struct dec_ctx *c, struct dec_zstream *s, uint8_t *out,
			size_t n)
{
	size_t got;
	int ret = dec_zstream_some(c, s, out, n, &got);

	if (ret != DEC_OK)
		return ret;
	if (got < n)
		return dec_bad(c, "zlib data ends %zu bytes short", n - got);
	return DEC_OK;
}

int dec_zstream_finish(struct dec_ctx *c, struct dec_zstream *s)
{
	uint8_t sink[64];
	size_t got;
	int ret;

	/* A stream that ended may leave its adler32, which raw inflate
	 * does not read. */
	if (s->ended && s->z.avail_in <= 4)
		s->z.avail_in = 0;
	/* What is left is normally the end of a flushed block (an empty
	 * stored block): no pixels. */
	while (s->z.avail_in > 0) {
		ret = step(c, s, sink, sizeof(sink), &got);
		if (ret != DEC_OK)
			return ret;
		if (got > 0)
			return dec_bad(c, "zlib data holds more than the "
					  "rectangle's pixels");
		if (s->z.avail_in > 0 && s->z.avail_out > 0) {
			/* Consumed nothing: inflate buffered the rest. */
			break;
		}
	}
	s->z.next_in = NULL;
	s->z.avail_in = 0;
	return DEC_OK;
}

int dec_zstream_rows(struct dec_ctx *c, struct dec_zstream *s, uint32_t x,
		     uint32_t y, uint32_t w, uint32_t h)
{
	const struct dec_fb *fb = &c->fb;
	size_t row = (size_t)w * fb->fmt->bpp, got = 0;
	int ret = DEC_OK;

	if (row == 0 || h == 0)
		return DEC_OK;
	if (row == fb->stride) {
		ret =
		    dec_zstream_some(c, s, dec_fb_at(fb, x, y), row * h, &got);
	} else {
		for (uint32_t i = 0; i < h && ret == DEC_OK; i++) {
			size_t k;

			ret = dec_zstream_some(c, s, dec_fb_at(fb, x, y + i),
					       row, &k);
			got += k;
			if (k < row)
				break;
		}
	}
	if (ret != DEC_OK)
		return ret;
	if (got < row * h)
		return dec_bad(c, "zlib data ends %zu bytes short",
			       row * h - got);
	return DEC_OK;
}

size_t dec_zlib_bound(size_t raw)
{
	return raw + raw / 64 + 1024;
}

static int zlib_read(struct dec_ctx *c, struct dec_job *j)
{
	size_t raw = (size_t)j->r.w * (size_t)j->r.h * c->fb.fmt->bpp;
	uint32_t len;
	int err;

	if (dec_read_u32(c, &len) != DEC_OK)
		return DEC_EOF;
	if (len > dec_zlib_bound(raw))
		return dec_bad(c,
			       "%u bytes of zlib data for %zu bytes of "
			       "pixels",
			       len, raw);
	j->streams = DEC_STREAM_ZLIB;
	if (len && !dec_take(c, j, len, &err))
		return err;
	return DEC_OK;
}

static int zlib_decode(struct dec_ctx *c, const struct dec_job *j)
{
	struct dec_zstream *s = &c->zs->zlib;
	int ret;

	ret = dec_zstream_begin(c, s, j->data.p, j->data.len);
	if (ret == DEC_OK)
		ret = dec_zstream_rows(c, s, (uint32_t)j->r.x, (uint32_t)j->r.y,
				       (uint32_t)j->r.w, (uint32_t)j->r.h);
	if (ret == DEC_OK)
		ret = dec_zstream_finish(c, s);
	return ret;
}

const struct decoder dec_zlib = {
    .enc = RFB_ENC_ZLIB,
    .name = "zlib",
    .read = zlib_read,
    .decode = zlib_decode,
};
