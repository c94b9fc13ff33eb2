/* Unit test: RFB's zlib streams (client/decode/dec_zlib.c) through every
 * inflater this build has, on the same data: one stream across many
 * rectangles, each a sync-flushed piece, drawn into buffers of their own
 * in pieces of every size (down to one byte, so the inflater holds
 * output back with no input left); corrupt data, data past a
 * rectangle's pixels and a short rectangle are errors. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "../check.h"
#include "decode/decode_priv.h"
#include "shadow/pixfmt.h"
#include "wire/vncsrc.h"

#define NRECT 60
#define MAXRECT 40000

struct stream {
	uint8_t *z;		     /* compressed, zlib header first */
	size_t zoff[NRECT + 1];	     /* each rectangle's compressed bytes */
	uint8_t *raw;		     /* what they inflate to */
	size_t roff[NRECT + 1];
};

static uint32_t seed = 1;

static uint32_t rnd(void)
{
	seed = seed * 1103515245u + 12345u;
	return seed >> 8;
}

/* Rows of a picture: runs, repeats of earlier rows (long matches, far
 * and near) and noise, as a desktop and a photograph mix them. */
static void picture(uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n;) {
		size_t run = 1 + rnd() % 3000;

		if (run > n - i)
			run = n - i;
		switch (rnd() % 3) {
		case 0:
			memset(p + i, (int)(rnd() & 0xff), run);
			break;
		case 1:
			if (i > 40000) {
				size_t from = i - 1 - rnd() % 32000;

				for (size_t k = 0; k < run; k++)
					p[i + k] = p[from + k];
				break;
			}
			/* fall through */
		default:
			for (size_t k = 0; k < run; k++)
				p[i + k] = (uint8_t)rnd();
		}
		i += run;
	}
}

static void make_stream(struct stream *s)
{
	size_t total = 0, cap;
	z_stream z;

	for (int i = 0; i < NRECT; i++) {
		s->roff[i] = total;
		total += 1 + rnd() % MAXRECT;
	}
	s->roff[NRECT] = total;
	s->raw = malloc(total);
	picture(s->raw, total);
	cap = compressBound(total) + 16 * NRECT;
	s->z = malloc(cap);
	memset(&z, 0, sizeof(z));
	deflateInit(&z, 6);
	z.next_out = s->z;
	z.avail_out = (uInt)cap;
	for (int i = 0; i < NRECT; i++) {
		s->zoff[i] = cap - z.avail_out;
		z.next_in = s->raw + s->roff[i];
		z.avail_in = (uInt)(s->roff[i + 1] - s->roff[i]);
		deflate(&z, Z_SYNC_FLUSH);
	}
	s->zoff[NRECT] = cap - z.avail_out;
	deflateEnd(&z);
}

/* One rectangle's bytes inflated in pieces of at most piece bytes
 * (0: random sizes) into a buffer of its own. */
static int rect_out(struct dec_ctx *c, struct dec_zstream *zs,
		    const struct stream *s, int i, size_t piece, uint8_t *out)
{
	size_t want = s->roff[i + 1] - s->roff[i], got = 0;
	int ret;

	ret = dec_zstream_begin(c, zs, s->z + s->zoff[i],
				s->zoff[i + 1] - s->zoff[i]);
	while (ret == DEC_OK && got < want) {
		size_t n = piece ? piece : 1 + rnd() % 9000, k;

		if (n > want - got)
			n = want - got;
		ret = dec_zstream_some(c, zs, out + got, n, &k);
		if (ret == DEC_OK && k < n) {
			snprintf(c->why, sizeof(c->why), "%zu bytes short",
				 want - got - k);
			return DEC_BAD;
		}
		got += k;
	}
	if (ret == DEC_OK)
		ret = dec_zstream_finish(c, zs);
	return ret;
}

static void run_inflater(const struct dec_inflater *inf,
			 const struct stream *s, size_t piece)
{
	struct vnc_mem_source m;
	struct dec_zstream zs = {.inf = inf};
	struct dec_ctx c;
	struct dec_fmt df;
	struct pixfmt pf;
	uint8_t *out = malloc(MAXRECT + 64);
	int bad = 0;

	pixfmt_from_name("xrgb8888", &pf);
	dec_fmt_init(&df, &pf);
	vnc_mem_source_init(&m, NULL, 0);
	dec_ctx_init(&c, &m.base, &df);
	/* out is where the decoders may write (dec_bound). */
	c.fb = (struct dec_fb){out, MAXRECT + 64, (MAXRECT + 64) / 4, 1, &df};
	for (int i = 0; i < NRECT && !bad; i++) {
		size_t want = s->roff[i + 1] - s->roff[i];
		/* Each rectangle somewhere else: the history is the
		 * inflater's to keep. */
		uint8_t *dst = out + rnd() % 64;
		int ret;

		memset(out, 0xa5, MAXRECT + 64);
		ret = rect_out(&c, &zs, s, i, piece, dst);
		CHECK(ret == DEC_OK, "%s, pieces of %zu: rectangle %d: %s",
		      dec_inflater_name(inf), piece, i, c.why);
		CHECK(ret != DEC_OK || !memcmp(dst, s->raw + s->roff[i], want),
		      "%s, pieces of %zu: rectangle %d: wrong bytes",
		      dec_inflater_name(inf), piece, i);
		bad = ret != DEC_OK;
	}
	dec_zstream_end(&zs);
	dec_ctx_finish(&c);
	free(out);
}

/* A stream that goes wrong: every inflater says so, in one line. */
static void run_errors(const struct dec_inflater *inf, const struct stream *s)
{
	const char *name = dec_inflater_name(inf);
	struct vnc_mem_source m;
	struct dec_zstream zs = {.inf = inf};
	struct dec_ctx c;
	struct dec_fmt df;
	struct pixfmt pf;
	uint8_t *out = malloc(2 * MAXRECT), *junk;
	size_t want = s->roff[1], n0 = s->zoff[1], k;
	int ret;

	pixfmt_from_name("xrgb8888", &pf);
	dec_fmt_init(&df, &pf);
	vnc_mem_source_init(&m, NULL, 0);
	dec_ctx_init(&c, &m.base, &df);
	/* out is where the decoders may write (dec_bound). */
	c.fb = (struct dec_fb){out, 2 * MAXRECT, 2 * MAXRECT / 4, 1, &df};

	/* The first rectangle's data asked for one byte less: the byte
	 * left over is more than the rectangle's pixels. */
	ret = dec_zstream_begin(&c, &zs, s->z, n0);
	if (ret == DEC_OK)
		ret = dec_zstream_inflate(&c, &zs, out, want - 1);
	if (ret == DEC_OK)
		ret = dec_zstream_finish(&c, &zs);
	CHECK(ret == DEC_BAD && strstr(c.why, "more than the rectangle"),
	      "%s: extra pixels: %d %s", name, ret, c.why);
	dec_zstream_end(&zs);

	/* One byte more than it holds: short. */
	zs = (struct dec_zstream){.inf = inf};
	ret = dec_zstream_begin(&c, &zs, s->z, n0);
	if (ret == DEC_OK)
		ret = dec_zstream_inflate(&c, &zs, out, want + 1);
	CHECK(ret == DEC_BAD && strstr(c.why, "1 bytes short"),
	      "%s: short: %d %s", name, ret, c.why);
	dec_zstream_end(&zs);

	/* After a good header, noise. */
	junk = malloc(4096);
	memcpy(junk, s->z, 2);
	for (int i = 2; i < 4096; i++)
		junk[i] = (uint8_t)rnd();
	zs = (struct dec_zstream){.inf = inf};
	ret = dec_zstream_begin(&c, &zs, junk, 4096);
	for (int i = 0; ret == DEC_OK && i < 64; i++)
		ret = dec_zstream_some(&c, &zs, out, 2 * MAXRECT, &k);
	CHECK(ret == DEC_BAD && strstr(c.why, "invalid zlib data"),
	      "%s: noise: %d %s", name, ret, c.why);
	dec_zstream_end(&zs);

	/* Not a zlib header at all. */
	zs = (struct dec_zstream){.inf = inf};
	junk[0] = 0x79;
	ret = dec_zstream_begin(&c, &zs, junk, 4096);
	CHECK(ret == DEC_BAD && strstr(c.why, "not a zlib header"),
	      "%s: header: %d %s", name, ret, c.why);
	dec_zstream_end(&zs);

	free(junk);
	dec_ctx_finish(&c);
	free(out);
}

int main(void)
{
	static const size_t pieces[] = {0, 1, 7, 4096, 1 << 20};
	struct stream s;
	int n = 0;

	make_stream(&s);
	for (const struct dec_inflater *const *inf = dec_inflaters; *inf;
	     inf++, n++) {
		for (size_t p = 0; p < sizeof(pieces) / sizeof(pieces[0]); p++)
			run_inflater(*inf, &s, pieces[p]);
		run_errors(*inf, &s);
	}
#ifdef VNCFB_HAVE_ISAL
	/* Built with ISA-L: it is what every stream uses. */
	CHECK(n == 2 && !strcmp(dec_inflater_name(dec_inflaters[0]), "isa-l"),
	      "the default inflater is %s", dec_inflater_name(dec_inflaters[0]));
#else
	CHECK(n == 1);
#endif
	free(s.z);
	free(s.raw);
	return check_done("inflate");
}
