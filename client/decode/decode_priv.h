/* What the decoders share among themselves (decode.c, dec_*.c): the
 * reading helpers, the zlib streams, the tile parsers, the JPEG path.
 * Nothing outside client/decode/ includes it (the unit tests of these
 * helpers do); the reader has decode.h.
 *
 * Threads: as decode.h: read-side helpers on the thread that owns the
 * source, decode-side ones on the thread decoding the job. */
#ifndef VNCFB_DECODE_PRIV_H
#define VNCFB_DECODE_PRIV_H

#include "decode/decode.h"

__attribute__((format(printf, 2, 3))) int dec_bad(struct dec_ctx *c,
						  const char *fmt, ...);
/* Exactly n bytes from the source. */
int dec_read(struct dec_ctx *c, void *buf, size_t n);
/* DEC_OK while the connection is wanted, DEC_EOF once the source's owner
 * gave it up (vnc_source_abandoned). Decoding from memory asks between
 * pieces of work (DEC_PIECE bytes of inflated output, a row of tiles,
 * JPEG_ROWS rows), so that no rectangle outlasts --exit-after or a quit
 * signal by more than a few ms, however large. Any thread. */
int dec_check(const struct dec_ctx *c);
#define DEC_PIECE ((size_t)1 << 20)


/* A big-endian 32-bit number from the source (the length before zlib,
 * ZRLE and Ultra data). */
int dec_read_u32(struct dec_ctx *c, uint32_t *v);

/* Fill a rectangle (inside fb) with one pixel given as bpp bytes. Inline:
 * hextile and RRE fill millions of 1x1 subrectangles a second. */
static inline void dec_fill(const struct dec_fb *fb, uint32_t x, uint32_t y,
			    uint32_t w, uint32_t h, const uint8_t *pixel)
{
	const unsigned bpp = fb->fmt->bpp;
	uint8_t *first = dec_fb_at(fb, x, y);

	if (w == 0 || h == 0)
		return;
	if (bpp == 1) {
		for (uint32_t i = 0; i < h; i++)
			memset(first + (size_t)i * fb->stride, pixel[0], w);
		return;
	}
	/* memcpy per pixel: stores of the right width, whatever the
	 * buffer's alignment. */
	for (uint32_t j = 0; j < h; j++) {
		uint8_t *row = first + (size_t)j * fb->stride;

		if (bpp == 2)
			for (uint32_t i = 0; i < w; i++)
				memcpy(row + (size_t)i * 2, pixel, 2);
		else
			for (uint32_t i = 0; i < w; i++)
				memcpy(row + (size_t)i * 4, pixel, 4);
	}
}
/* h rows of w pixels at src (pitch spitch) into fb at x,y. */
void dec_copy_rows(const struct dec_fb *fb, uint32_t x, uint32_t y, uint32_t w,
		   uint32_t h, const uint8_t *src, size_t spitch);

/* A reader over bytes that may be refilled (the inflated ZRLE stream,
 * the source): take() is a pointer bump while the bytes are there. */
struct dec_in {
	const uint8_t *p, *end;
	/* Make end - p >= need (need is small): DEC_OK or an error. */
	int (*refill)(struct dec_in *in, size_t need);
	void *ctx;
	int err; /* the refill's error once it failed */
};

static inline const uint8_t *dec_in_take(struct dec_in *in, size_t n)
{
	const uint8_t *q;

	if ((size_t)(in->end - in->p) < n) {
		if (!in->refill || (in->err = in->refill(in, n)) != DEC_OK)
			return NULL;
	}
	q = in->p;
	in->p += n;
	return q;
}

/* A dec_in over the source that keeps every byte it takes in j->data,
 * for the encodings without a length up front (hextile, TRLE), so that
 * their tiles can be drawn later, on any thread. A job in place
 * (dec_job.in_place) walks the bytes in the reader's chunks, which read
 * them in large pieces; what it read past its last tile stays there for
 * the next message. Otherwise the source is read in large pieces
 * (vnc_source_read_some: what has arrived, up to DEC_AHEAD bytes past
 * what the parser needs), straight into j->data, and dec_in_job_done
 * gives the source back what was read past the rectangle's last tile.
 * Either way j->data is then that rectangle's bytes. */
#define DEC_AHEAD ((size_t)256 << 10)
struct dec_in_job {
	struct dec_in in;
	struct dec_ctx *c;
	struct dec_job *j;
	uint64_t most; /* the most bytes the rectangle can have */
	/* The parser draws as it takes (read_draw): what it has taken is
	 * done with once it asks for more (dec_chunks_consume). */
	bool drawn;
	size_t consumed; /* bytes of the rectangle given up so */
};
/* most: an upper bound on the rectangle's bytes, so that the source is
 * not read further past its end than the rectangle can reach (what is
 * read past it is copied twice: given back, then read again). */
int dec_in_job(struct dec_ctx *c, struct dec_job *j, uint64_t most,
	       struct dec_in_job *ij);
int dec_in_job_done(struct dec_in_job *ij);
/* A dec_in over bytes in memory (no refill). */
static inline void dec_in_mem(struct dec_in *in, const uint8_t *p, size_t n)
{
	/* An empty job's data may be NULL: no arithmetic on it. */
	if (!p)
		p = (const uint8_t *)"";
	*in = (struct dec_in){.p = p, .end = p + n};
}

/* zlib streams (dec_zlib.c). */
void dec_zstream_reset(struct dec_zstream *s);
void dec_zstream_end(struct dec_zstream *s);
/* The inflaters this build has, best first, NULL-terminated; the first
 * is every stream's default. Set s->inf to one of them before the
 * stream's first data to use another (the tests compare them). */
extern const struct dec_inflater *const dec_inflaters[];
const char *dec_inflater_name(const struct dec_inflater *inf);
/* Start a rectangle's compressed data on s (the header is checked and
 * skipped when the stream has just started). */
int dec_zstream_begin(struct dec_ctx *c, struct dec_zstream *s,
		      const uint8_t *in, size_t len);
/* Exactly n inflated bytes into out. */
int dec_zstream_inflate(struct dec_ctx *c, struct dec_zstream *s, uint8_t *out,
			size_t n);
/* Up to n inflated bytes (fewer only when the input is used up). */
int dec_zstream_some(struct dec_ctx *c, struct dec_zstream *s, uint8_t *out,
		     size_t n, size_t *got);
/* The rectangle's input must be used up without giving more output. */
int dec_zstream_finish(struct dec_ctx *c, struct dec_zstream *s);
/* Inflate h rows of w pixels straight into fb at x,y. */
int dec_zstream_rows(struct dec_ctx *c, struct dec_zstream *s, uint32_t x,
		     uint32_t y, uint32_t w, uint32_t h);

/* Before every call into a library vncfb's sanitizers do not see
 * (libswscale, libjpeg-turbo, zlib, ISA-L, LZO): where the call may write,
 * rows of row bytes, pitch apart, from p, computed from what the call
 * itself is told (its output format, its avail_out), must lie inside the
 * job's rectangle r of c->fb in the format in force for the job
 * (c->fb.fmt), or, with r NULL, inside c->fb's pixels or this thread's
 * scratch. DEC_OK, or DEC_BAD naming the call and the sizes: the
 * connection ends with that line, and nothing is written. */
int dec_bound(struct dec_ctx *c, const char *call, const struct rect *r,
	      const void *p, size_t pitch, size_t rows, size_t row);

/* The most compressed bytes raw bytes can take: deflate's worst case is a
 * few bytes per 64 KiB stored block, plus flush markers and the header. */
size_t dec_zlib_bound(size_t raw);

/* n bytes from src appended to j->data: DEC_OK or an error (the limit,
 * memory). */
int dec_put(struct dec_ctx *c, struct dec_job *j, const void *src, size_t n);

/* JPEG (dec_jpeg.c): the image must be exactly r. */
int dec_jpeg_draw(struct dec_ctx *c, const uint8_t *data, size_t len,
		  const struct rect *r);
void dec_jpeg_free(struct dec_jpeg *j);


/* Open H.264's context table (dec_h264.c, built with libavcodec): freed
 * with the connection's streams, once no job can run. */
void dec_h264_free(struct dec_h264 *t);

/* The decoders, each in its own file, listed in decode.c's table. */
extern const struct decoder dec_raw, dec_copyrect, dec_rre, dec_corre,
    dec_hextile, dec_zlib, dec_tight, dec_zrle, dec_trle, dec_ultra,
    dec_jpeg_rect, dec_h264;

#endif
