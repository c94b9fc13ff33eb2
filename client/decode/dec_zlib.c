/* RFB's zlib streams (raw inflate, the header checked once, no adler32)
 * and the zlib encoding (decode.h). */
#include "config.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#ifdef VNCFB_HAVE_ISAL
#include <isa-l/igzip_lib.h>
#endif

#include "decode/decode_priv.h"
#include "wire/rfb.h"

/* --- Inflaters: one ops table each, the state behind a pointer --- */

struct dec_inflater {
	const char *name;
	void *(*open)(void); /* NULL: out of memory */
	void (*reset)(void *st);
	void (*close)(void *st);
	void (*feed)(void *st, const uint8_t *in, uint32_t len);
	uint32_t (*avail_in)(const void *st);
	/* Inflate into out[0, n): *got bytes, *end once the deflate stream
	 * ended. 0, or -1 with a few words in why. */
	int (*run)(void *st, uint8_t *out, uint32_t n, uint32_t *got,
		   bool *end, const char **why);
};

static void *zl_open(void)
{
	z_stream *z = calloc(1, sizeof(*z));

	/* Raw deflate: RFB's streams never end, so their adler32 would be
	 * computed and never checked. */
	if (z && inflateInit2(z, -15) != Z_OK) {
		free(z);
		z = NULL;
	}
	return z;
}

static void zl_reset(void *st)
{
	inflateReset(st);
}

static void zl_close(void *st)
{
	inflateEnd(st);
	free(st);
}

static void zl_feed(void *st, const uint8_t *in, uint32_t len)
{
	z_stream *z = st;

	z->next_in = (Bytef *)in;
	z->avail_in = len;
}

static uint32_t zl_avail_in(const void *st)
{
	return ((const z_stream *)st)->avail_in;
}

static int zl_run(void *st, uint8_t *out, uint32_t n, uint32_t *got,
		  bool *end, const char **why)
{
	z_stream *z = st;
	int ret;

	z->next_out = out;
	z->avail_out = n;
	ret = inflate(z, Z_NO_FLUSH);
	*got = n - z->avail_out;
	if (ret == Z_STREAM_END)
		*end = true;
	if (ret == Z_OK || ret == Z_STREAM_END || ret == Z_BUF_ERROR)
		return 0;
	*why = ret == Z_MEM_ERROR ? "out of memory in inflate"
	       : z->msg	       ? z->msg
				       : "no detail";
	return -1;
}

static const struct dec_inflater inflate_zlib = {
    .name = "zlib",
    .open = zl_open,
    .reset = zl_reset,
    .close = zl_close,
    .feed = zl_feed,
    .avail_in = zl_avail_in,
    .run = zl_run,
};

#ifdef VNCFB_HAVE_ISAL
/* ISA-L's igzip: the same raw deflate, decoded about twice as fast. It
 * keeps the 32 KiB of history itself, so the output may go anywhere. */
static void *isal_open(void)
{
	struct inflate_state *st = malloc(sizeof(*st));

	if (st) {
		isal_inflate_init(st);
		st->crc_flag = ISAL_DEFLATE;
	}
	return st;
}

static void isal_reset(void *st)
{
	isal_inflate_reset(st);
}

static void isal_close(void *st)
{
	free(st);
}

static void isal_feed(void *p, const uint8_t *in, uint32_t len)
{
	struct inflate_state *st = p;

	st->next_in = (uint8_t *)in;
	st->avail_in = len;
}

static uint32_t isal_avail_in(const void *st)
{
	return ((const struct inflate_state *)st)->avail_in;
}

static int isal_run(void *p, uint8_t *out, uint32_t n, uint32_t *got,
		    bool *end, const char **why)
{
	struct inflate_state *st = p;
	int ret;

	st->next_out = out;
	st->avail_out = n;
	ret = isal_inflate(st);
	*got = n - st->avail_out;
	if (st->block_state == ISAL_BLOCK_FINISH)
		*end = true;
	if (ret >= 0)
		return 0;
	*why = ret == ISAL_INVALID_BLOCK    ? "invalid block"
	       : ret == ISAL_INVALID_SYMBOL ? "invalid symbol"
	       : ret == ISAL_INVALID_LOOKBACK
		   ? "distance too far back"
		   : "invalid data";
	return -1;
}

static const struct dec_inflater inflate_isal = {
    .name = "isa-l",
    .open = isal_open,
    .reset = isal_reset,
    .close = isal_close,
    .feed = isal_feed,
    .avail_in = isal_avail_in,
    .run = isal_run,
};
#endif

const struct dec_inflater *const dec_inflaters[] = {
#ifdef VNCFB_HAVE_ISAL
    &inflate_isal,
#endif
    &inflate_zlib,
    NULL,
};

const char *dec_inflater_name(const struct dec_inflater *inf)
{
	return inf->name;
}

/* --- RFB's streams over an inflater --- */

void dec_zstream_reset(struct dec_zstream *s)
{
	if (s->live)
		s->inf->reset(s->st);
	s->hdr_have = 0;
	s->ended = false;
}

void dec_zstream_end(struct dec_zstream *s)
{
	if (s->live)
		s->inf->close(s->st);
	s->st = NULL;
	s->live = false;
	s->hdr_have = 0;
	s->ended = false;
}

static uint32_t avail_in(const struct dec_zstream *s)
{
	return s->live ? s->inf->avail_in(s->st) : 0;
}

int dec_zstream_begin(struct dec_ctx *c, struct dec_zstream *s,
		      const uint8_t *in, size_t len)
{
	if (!s->live) {
		if (!s->inf)
			s->inf = dec_inflaters[0];
		s->st = s->inf->open();
		if (!s->st)
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
	s->inf->feed(s->st, in, (uint32_t)len);
	return DEC_OK;
}

/* One inflate pass into out[0, n): *got bytes. It may give output with
 * no input left: the inflater can hold some back (the rest of a match
 * cut by the end of out, ISA-L's own buffer). */
static int step(struct dec_ctx *c, struct dec_zstream *s, uint8_t *out,
		size_t n, size_t *got)
{
	const char *why = "no detail";
	uint32_t k = 0;

	*got = 0;
	if (n > DEC_PIECE)
		n = DEC_PIECE;
	if (!s->live)
		return DEC_OK;
	if (s->ended) {
		if (avail_in(s) > 0)
			return dec_bad(c, "data after the end of the zlib "
					  "stream");
		return DEC_OK;
	}
	if (s->inf->run(s->st, out, (uint32_t)n, &k, &s->ended, &why) < 0)
		return dec_bad(c, "invalid zlib data (%s)", why);
	*got = k;
	return DEC_OK;
}

int dec_zstream_some(struct dec_ctx *c, struct dec_zstream *s, uint8_t *out,
		     size_t n, size_t *got)
{
	size_t k;
	int ret;

	*got = 0;
	/* The most the inflater is told it may write. */
	ret = dec_bound(c, s->inf ? s->inf->name : "inflate", NULL, out, n, 1,
			n);
	if (ret != DEC_OK)
		return ret;
	while (*got < n) {
		uint32_t before = avail_in(s);

		ret = dec_check(c);
		if (ret == DEC_OK)
			ret = step(c, s, out + *got, n - *got, &k);
		if (ret != DEC_OK)
			return ret;
		*got += k;
		if (s->ended)
			break;
		if (k > 0)
			continue;
		if (before == 0)
			break; /* used up, nothing held back */
		if (avail_in(s) == before) {
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

	if (!s->live)
		return DEC_OK;
	/* A stream that ended may leave its adler32, which raw inflate
	 * does not read. */
	if (s->ended && avail_in(s) <= 4)
		s->inf->feed(s->st, NULL, 0);
	/* What is left is normally the end of a flushed block (an empty
	 * stored block): no pixels. Output held back is more pixels than
	 * the rectangle has. */
	for (;;) {
		uint32_t before = avail_in(s);

		ret = step(c, s, sink, sizeof(sink), &got);
		if (ret != DEC_OK)
			return ret;
		if (got > 0)
			return dec_bad(c, "zlib data holds more than the "
					  "rectangle's pixels");
		if (before == 0 || avail_in(s) == before)
			break;
	}
	s->inf->feed(s->st, NULL, 0);
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
	ret = dec_bound(c, s->inf ? s->inf->name : "inflate",
			&(struct rect){(int32_t)x, (int32_t)y, (int32_t)w,
				       (int32_t)h},
			dec_fb_at(fb, x, y), fb->stride, h, row);
	if (ret != DEC_OK)
		return ret;
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
    .label = "zlib",
    .rank = 6,
    .flags = DEC_ZLIB,
    .read = zlib_read,
    .decode = zlib_decode,
    .in_place = true,
};
