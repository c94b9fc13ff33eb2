/* TigerVNC's JPEG encoding (21): a rectangle is a JPEG image and nothing
 * else, no length up front, and an image may leave out its Huffman (DHT)
 * or quantisation (DQT) tables, which are then the last ones sent
 * (rfbproto, "JPEG Encoding"). read() walks the image segment by segment
 * from the source (parsed in place, dec_in_source), keeps the tables it
 * defines in the reader's streams and puts the kept ones back in front
 * of the first scan of an image without them, so that decode() has a
 * whole JPEG and runs on any worker, drawn by dec_jpeg.c as Tight's JPEG
 * is. A datastream of tables alone (SOI, DQT/DHT, EOI: libjpeg's
 * jpeg_write_tables) sets the tables and draws nothing. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "decode/decode_priv.h"
#include "wire/rfb.h"

/* The tables kept, as whole segments (marker, length, body), of each
 * kind: at most 4 quantisation and 8 Huffman tables are in use at once,
 * a few hundred bytes each. */
#define JT_MAX 8192

struct dec_jpeg_tables {
	uint8_t seg[2][JT_MAX]; /* [0] DQT, [1] DHT */
	size_t len[2];
};

enum {
	M_SOI = 0xd8,
	M_EOI = 0xd9,
	M_SOS = 0xda,
	M_DQT = 0xdb,
	M_DHT = 0xc4,
};

static const char *const kind_name[2] = {"quantisation", "Huffman"};

/* Bytes of JPEG data a w x h rectangle may take: well past what any
 * quality gives (about 1.2 bytes a pixel of noise at quality 100, 4:4:4)
 * plus room for a server's own segments. */
static size_t jpeg_cap(const struct rect *r)
{
	return (size_t)r->w * (size_t)r->h * 8 + ((size_t)1 << 20);
}

/* Make n (small) bytes readable at in->p. */
static int need(struct dec_in *in, size_t n)
{
	if ((size_t)(in->end - in->p) >= n)
		return DEC_OK;
	return in->err = in->refill(in, n);
}

/* n bytes from the source onto the image, in pieces the source holds. */
static int copy(struct dec_ctx *c, struct dec_job *j, struct dec_in *in,
		size_t n)
{
	while (n > 0) {
		size_t k = (size_t)(in->end - in->p);
		int ret;

		if (k == 0) {
			ret = need(in, 1);
			if (ret != DEC_OK)
				return ret;
			k = (size_t)(in->end - in->p);
		}
		if (k > n)
			k = n;
		ret = dec_put(c, j, in->p, k);
		if (ret != DEC_OK)
			return ret;
		in->p += k;
		n -= k;
	}
	return DEC_OK;
}

/* The next marker's type, past fill bytes (0xff runs). */
static int marker(struct dec_ctx *c, struct dec_in *in, size_t at,
		  uint8_t *type)
{
	int ret = need(in, 1);

	if (ret != DEC_OK)
		return ret;
	if (in->p[0] != 0xff)
		return dec_bad(
		    c, "JPEG data without a marker at byte %zu (0x%02x)", at,
		    in->p[0]);
	do {
		in->p++;
		ret = need(in, 1);
		if (ret != DEC_OK)
			return ret;
	} while (in->p[0] == 0xff);
	*type = *in->p++;
	return DEC_OK;
}

/* A scan's entropy-coded data onto the image, up to the marker after it
 * (0xff followed by neither a stuffed 0 nor a restart marker), which is
 * left to read. */
static int entropy(struct dec_ctx *c, struct dec_job *j, struct dec_in *in)
{
	for (;;) {
		const uint8_t *ff;
		size_t k;
		int ret = need(in, 1);

		if (ret != DEC_OK)
			return ret;
		k = (size_t)(in->end - in->p);
		ff = memchr(in->p, 0xff, k);
		k = ff ? (size_t)(ff - in->p) : k;
		ret = dec_put(c, j, in->p, k);
		if (ret != DEC_OK)
			return ret;
		in->p += k;
		if (!ff)
			continue;
		ret = need(in, 2);
		if (ret != DEC_OK)
			return ret;
		if (in->p[1] != 0 && (in->p[1] < 0xd0 || in->p[1] > 0xd7))
			return DEC_OK;
		ret = dec_put(c, j, in->p, 2);
		if (ret != DEC_OK)
			return ret;
		in->p += 2;
	}
}

/* A table segment (marker, length, body as it is on the image's end):
 * the image's first of its kind replaces the kept ones. */
static int keep(struct dec_ctx *c, struct dec_jpeg_tables *t, int kind,
		bool *seen, const uint8_t *seg, size_t n)
{
	if (!*seen)
		t->len[kind] = 0;
	*seen = true;
	if (n > JT_MAX - t->len[kind])
		return dec_bad(c, "JPEG %s tables of more than %d bytes",
			       kind_name[kind], JT_MAX);
	memcpy(t->seg[kind] + t->len[kind], seg, n);
	t->len[kind] += n;
	return DEC_OK;
}

/* Before an image's first scan: the tables it did not define, kept. */
static int put_back(struct dec_ctx *c, struct dec_job *j,
		    const struct dec_jpeg_tables *t, const bool seen[2])
{
	for (int kind = 0; kind < 2; kind++) {
		int ret;

		if (seen[kind])
			continue;
		if (!t->len[kind])
			return dec_bad(c,
				       "a JPEG image without %s tables, and "
				       "none came before",
				       kind_name[kind]);
		ret = dec_put(c, j, t->seg[kind], t->len[kind]);
		if (ret != DEC_OK)
			return ret;
	}
	return DEC_OK;
}

static int walk(struct dec_ctx *c, struct dec_job *j, struct dec_in *in,
		struct dec_jpeg_tables *t)
{
	bool seen[2] = {false, false}, scanned = false;
	uint8_t type;
	int ret;

	ret = marker(c, in, 0, &type);
	if (ret != DEC_OK)
		return ret;
	if (type != M_SOI)
		return dec_bad(c,
			       "JPEG data starting with marker 0x%02x, not "
			       "SOI",
			       type);
	if ((ret = dec_put(c, j, (const uint8_t[]){0xff, M_SOI}, 2)) != DEC_OK)
		return ret;
	for (;;) {
		size_t at = j->data.len, len;
		const uint8_t *seg;

		ret = marker(c, in, at, &type);
		if (ret != DEC_OK)
			return ret;
		if (type == M_SOI)
			return dec_bad(c, "a second SOI in JPEG data");
		/* Markers without a length: restarts, TEM, EOI. */
		if (type == 0x01 || (type >= 0xd0 && type <= M_EOI)) {
			ret = dec_put(c, j, (const uint8_t[]){0xff, type}, 2);
			if (ret != DEC_OK || type != M_EOI)
				goto next;
			/* Tables alone: nothing to draw. */
			if (!scanned)
				j->data.len = 0;
			return DEC_OK;
		}
		ret = need(in, 2);
		if (ret != DEC_OK)
			return ret;
		len = dec_be16(in->p);
		if (len < 2)
			return dec_bad(c, "a JPEG segment 0x%02x of length %zu",
				       type, len);
		if (type == M_SOS && !scanned) {
			ret = put_back(c, j, t, seen);
			if (ret != DEC_OK)
				return ret;
			scanned = true;
			at = j->data.len;
		}
		if ((ret = dec_put(c, j, (const uint8_t[]){0xff, type}, 2)) ||
		    (ret = copy(c, j, in, len)))
			return ret;
		seg = j->data.p + at;
		if (type == M_DQT || type == M_DHT) {
			int kind = type == M_DHT;

			ret = keep(c, t, kind, &seen[kind], seg, len + 2);
			if (ret != DEC_OK)
				return ret;
		}
		if (type == M_SOS)
			ret = entropy(c, j, in);
	next:
		if (ret != DEC_OK)
			return ret;
	}
}

static int jpeg_read(struct dec_ctx *c, struct dec_job *j)
{
	struct dec_jpeg_tables *t = c->zs->jpeg_tables;
	struct dec_job raw = { .enc = j->enc, .r = j->r };
	struct dec_in_job ij;
	int ret;

	if (!t) {
		t = calloc(1, sizeof(*t));
		if (!t)
			return dec_bad(c, "out of memory for JPEG tables");
		c->zs->jpeg_tables = t;
	}
	if (j->data.limit > jpeg_cap(&j->r))
		j->data.limit = jpeg_cap(&j->r);
	/* The source is read in large pieces into a buffer of its own (the
	 * image is rebuilt into j->data, tables put back), and what was
	 * read past EOI is given back to the next message. */
	raw.data.limit = j->data.limit;
	ret = dec_in_job(c, &raw, jpeg_cap(&j->r), &ij);
	if (ret == DEC_OK)
		ret = walk(c, j, &ij.in, t);
	if (ret == DEC_OK)
		ret = dec_in_job_done(&ij);
	dec_buf_free(&raw.data);
	return ret;
}

static int jpeg_decode(struct dec_ctx *c, const struct dec_job *j)
{
	if (j->data.len == 0)
		return DEC_OK;
	return dec_jpeg_draw(c, j->data.p, j->data.len, &j->r);
}

const struct decoder dec_jpeg_rect = {
    .enc = RFB_ENC_JPEG,
    .name = "jpeg",
    .label = "JPEG",
    .flags = DEC_LOSSY | DEC_AFTER_QUALITY | DEC_OWN | DEC_NO_CURSOR,
    .read = jpeg_read,
    .decode = jpeg_decode,
};
