/* vncfb's decoders of RFB rectangle encodings, straight into the shadow
 * in its own pixel format.
 *
 * A rectangle is handled in two steps, the split TigerVNC's decode
 * manager uses: read() takes the rectangle's bytes from the server into
 * the job (dec_job.data), and decode() turns them into pixels. A few
 * "direct" encodings (raw, RRE, CoRRE, hextile, TRLE) have nothing worth
 * deferring (their drawing is copies and fills) and draw while they read
 * (decode is NULL): a scheduler runs them on the reading thread once
 * whatever they overlap is drawn. Before decode runs, a job
 * says what it touches: the pixels it writes (r), the pixels it reads
 * (src: CopyRect), and the zlib streams whose state it advances
 * (streams), so that a scheduler can order jobs that overlap or share a
 * stream and run the others at once.
 *
 * Every size is checked against the rectangle (which the reader has
 * checked against the desktop) and against the caps before anything is
 * allocated or read; a bad rectangle gives DEC_BAD with the reason in
 * dec_ctx.why ("palette of 300 colours").
 *
 * Threads: read() on the thread that owns the source (the main thread).
 * decode() may run on any thread given a dec_work of its own, as long as
 * jobs sharing a stream bit, or overlapping (r against r and src), run in
 * the order they were read: the reader (rfbread.c) hands decode() to
 * the decode pool (decpool.h), which orders them so. */
#ifndef VNCFB_DECODE_H
#define VNCFB_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "shadow/pixconv.h"
#include "shadow/pixfmt.h"
#include "util/rect.h"
#include "wire/vncsrc.h"

/* Results (negative) of read() and decode(). */
enum {
	DEC_OK = 0,
	DEC_EOF = -1,	/* the source ended or failed (its owner says why) */
	DEC_BAD = -2,	/* the server's data is wrong: dec_ctx.why */
	DEC_NOMEM = -3, /* out of memory (why says for what) */
};

/* The shadow's pixel format as the decoders use it, derived once. */
struct dec_fmt {
	struct pixfmt pf;
	unsigned bpp;	/* bytes per pixel: 1, 2 or 4 */
	unsigned depth; /* what vncfb tells the server */
	/* Tight's TPIXEL and fill colours: 3 bytes R,G,B when the format
	 * is 32 bpp with depth 24 and 8-bit channels, else bpp bytes. */
	unsigned tpixel;
	/* ZRLE's and TRLE's CPIXEL: 3 bytes for 32 bpp formats whose
	 * channels fit in 3 of the 4 bytes; cpad is the memory byte left
	 * out (0 or 3). */
	unsigned cpixel, cpad;
	/* libjpeg output colour space that lands in the shadow as is, or
	 * -1: decode to R,G,B and convert with from_rgb. */
	int jpeg_space;
	struct pixconv from_rgb;    /* R,G,B bytes -> shadow pixels */
	struct pixconv from_cpixel; /* 3-byte CPIXELs -> shadow pixels */
};

/* The depth vncfb announces for f in SetPixelFormat (and that Tight and
 * ZRLE therefore key their pixel sizes on). */
unsigned rfb_depth(const struct pixfmt *f);
void dec_fmt_init(struct dec_fmt *f, const struct pixfmt *pf);

/* Where pixels go: the shadow (or, in tests, any buffer). */
struct dec_fb {
	uint8_t *pix;
	size_t stride;
	uint32_t width, height;
	const struct dec_fmt *fmt;
};

static inline uint8_t *dec_fb_at(const struct dec_fb *fb, uint32_t x,
				 uint32_t y)
{
	return fb->pix + (size_t)y * fb->stride + (size_t)x * fb->fmt->bpp;
}

/* A growable byte buffer with a hard limit. */
struct dec_buf {
	uint8_t *p;
	size_t len, cap, limit;
};

/* zlib streams, as the bits of dec_job.streams. */
enum {
	DEC_STREAM_TIGHT0 = 1u << 0, /* ... TIGHT3 = 1u << 3 */
	DEC_STREAM_ZLIB = 1u << 4,
	DEC_STREAM_ZRLE = 1u << 5,
};

/* How a stream inflates: zlib, or ISA-L's igzip where it was built
 * (about twice as fast on RFB's zlib data). Chosen once per stream, when
 * it starts (dec_zlib.c). */
struct dec_inflater;

/* One rfb zlib stream: raw deflate (the 2-byte zlib header is checked
 * and skipped once per stream, no adler32 is computed: RFB's streams
 * never end). */
struct dec_zstream {
	const struct dec_inflater *inf; /* NULL: the default, at start */
	void *st;			/* the inflater's state, once live */
	bool live;			/* st set up */
	bool ended;	  /* the deflate stream ended (RFB's do not:
			   * only what came before it counts) */
	uint8_t hdr_have; /* header bytes seen since the (re)start */
	uint8_t hdr[2];
};

struct dec_h264;
struct dec_h264_ctx;

/* State that outlives a rectangle and advances in stream order. */
struct dec_streams {
	struct dec_zstream tight[4], zlib, zrle;
	/* Open H.264's contexts (dec_h264.h), made at the first rectangle;
	 * the table itself is read()'s alone. */
	struct dec_h264 *h264;
};

struct dec_jpeg;

/* Per decoding thread: scratch memory and the JPEG decompressor. */
struct dec_work {
	uint8_t *scratch;
	size_t scratch_cap;
	struct dec_jpeg *jpeg;
};

struct dec_job {
	int32_t enc;
	struct rect r;	     /* pixels written, inside the desktop */
	struct rect src;     /* pixels read (CopyRect), else empty */
	uint32_t streams;    /* DEC_STREAM_* advanced by decode() */
	struct dec_buf data; /* the bytes read() kept for decode() */
	/* Open H.264: the context decode() advances (jobs of a context
	 * share r, so they run in order), or NULL. */
	struct dec_h264_ctx *h264;
};

struct dec_ctx {
	struct vnc_source *src; /* read side */
	/* Ordered by stream: the reader's own (streams), which the
	 * contexts of its decoding threads share (dec_ctx_init_worker). */
	struct dec_streams *zs;
	struct dec_streams streams;
	struct dec_work work; /* decode side, one per thread */
	struct dec_fb fb;
	char why[200];
};

struct decoder {
	int32_t enc;
	const char *name; /* as in messages: "Tight" */
	int (*read)(struct dec_ctx *c, struct dec_job *j);
	int (*decode)(struct dec_ctx *c, const struct dec_job *j);
};

/* The decoder of an encoding, or NULL. */
const struct decoder *decoder_find(int32_t enc);
/* The name of any (pseudo-)encoding number for messages. */
const char *decoder_name(int32_t enc, char *buf, size_t len);

void dec_ctx_init(struct dec_ctx *c, struct vnc_source *src,
		  const struct dec_fmt *fmt);
/* A decoding thread's context: owner's streams, source (for dec_check)
 * and buffer, a work area of its own. decode() only. */
void dec_ctx_init_worker(struct dec_ctx *c, const struct dec_ctx *owner);
void dec_ctx_finish(struct dec_ctx *c);
/* Reads one rectangle into j (j->enc and j->r set): read() alone, which
 * for a direct encoding also draws it. DEC_OK or an error. */
int dec_read_job(struct dec_ctx *c, const struct decoder *d, struct dec_job *j);
/* Reads and decodes one rectangle (serially): DEC_OK or an error. */
int dec_rect(struct dec_ctx *c, const struct decoder *d, struct dec_job *j);

/* --- helpers for the decoders (decode.c, dec_zlib.c) --- */

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
/* n more bytes from the source appended to j->data; returns where they
 * are (valid until the next append), or NULL with *err set. */
uint8_t *dec_take(struct dec_ctx *c, struct dec_job *j, size_t n, int *err);
/* Scratch memory of at least n bytes (per dec_work), or NULL. */
uint8_t *dec_scratch(struct dec_ctx *c, size_t n);
void dec_buf_free(struct dec_buf *b);

/* Big-endian numbers of the wire. */
static inline uint16_t dec_be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t dec_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

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
 * TRLE's socket): take() is a pointer bump while the bytes are there. */
struct dec_in {
	const uint8_t *p, *end;
	/* Make end - p >= need (need is small): DEC_OK or an error. */
	int (*refill)(struct dec_in *in, size_t need);
	void *ctx;
	int err; /* the refill's error once it failed */
	/* Over the source: where p and end point into the bytes the source
	 * holds (vnc_source_peek), not yet consumed; NULL while they point
	 * into the scratch copy. */
	const uint8_t *win;
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

/* A dec_in over the source itself, for the encodings without a length
 * up front: takes of up to DEC_IN_SOURCE_MAX bytes, parsed in place in
 * what the source holds already (libvncclient's buffer), copied into the
 * scratch memory only where a take straddles its end, and read as they
 * are needed (never ahead, which would be the next message's).
 * dec_in_source_done gives the source back what is still unparsed: call
 * it before anything else reads the source. */
#define DEC_IN_SOURCE_MAX 4096
int dec_in_source(struct dec_ctx *c, struct dec_in *in);
void dec_in_source_done(struct dec_in *in);

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

/* The most compressed bytes raw bytes can take: deflate's worst case is a
 * few bytes per 64 KiB stored block, plus flush markers and the header. */
size_t dec_zlib_bound(size_t raw);

/* JPEG (dec_jpeg.c): the image must be exactly r. */
int dec_jpeg_draw(struct dec_ctx *c, const uint8_t *data, size_t len,
		  const struct rect *r);
void dec_jpeg_free(struct dec_jpeg *j);

/* The ZRLE/TRLE tile decoder (dec_zrle.c) over in, for tiles of tsize. */
int dec_rle_tiles(struct dec_ctx *c, struct dec_in *in, const struct rect *r,
		  unsigned tsize, bool trle);

/* Cursor shapes (dec_cursor.c): the body of a RichCursor or XCursor
 * pseudo-rectangle of w x h is dec_cursor_size() bytes; as shadow pixels
 * (w*h*bpp) and a mask of one byte a pixel (1: opaque). */
size_t dec_cursor_size(const struct dec_fmt *f, int32_t enc, uint32_t w,
		       uint32_t h);
void dec_cursor_shape(const struct dec_fmt *f, int32_t enc, uint32_t w,
		      uint32_t h, const uint8_t *body, uint8_t *pix,
		      uint8_t *mask);

extern const struct decoder dec_raw, dec_copyrect, dec_rre, dec_corre,
    dec_hextile, dec_zlib, dec_tight, dec_zrle, dec_trle, dec_ultra,
    dec_h264;

#endif
