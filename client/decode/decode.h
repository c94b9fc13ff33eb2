/* vncfb's decoders of RFB rectangle encodings, straight into the shadow
 * in its own pixel format.
 *
 * A rectangle is handled in two steps, the split TigerVNC's decode
 * manager uses: read() takes the rectangle's bytes from the server into
 * the job (dec_job.data), and decode() turns them into pixels. With the
 * reader's shared chunks (dec_ctx.chunks, decchunk.h), the job of a
 * decoder marked in_place keeps no copy: its data points into the chunk
 * the bytes were read into, and the job holds a reference on it until
 * dec_job_unref. The one "direct" encoding (raw) draws while it reads,
 * straight from the socket into the shadow (decode is NULL: measured, a
 * copy through the chunks and a worker costs more than it gains): a
 * scheduler runs it on the reading thread once whatever it overlaps is
 * drawn. The encodings without a length up front (hextile, TRLE) walk
 * their tiles while reading, to find where they end, keeping the bytes
 * for decode(). Before decode runs, a job
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
 * Threads: read() on the thread that owns the source (the main thread);
 * dec_job_unref on any (a job's last user).
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

struct dec_jpeg_tables;
struct dec_h264;
struct dec_h264_ctx;

/* State that outlives a rectangle and advances in stream order: the zlib
 * streams, the JPEG encoding's tables (dec_jpeg_rect.c, on the reading
 * thread only: read() puts them back into the images that come without
 * them, so decode() needs nothing but the job), and Open H.264's
 * contexts (dec_h264.h), made at the first rectangle; that table is
 * read()'s alone. */
struct dec_streams {
	struct dec_zstream tight[4], zlib, zrle;
	struct dec_jpeg_tables *jpeg_tables;
	struct dec_h264 *h264;
};

struct dec_jpeg;

/* Per decoding thread: scratch memory and the JPEG decompressor. */
struct dec_work {
	uint8_t *scratch;
	size_t scratch_cap;
	struct dec_jpeg *jpeg;
};

struct dec_chunk;
struct dec_chunks;

struct dec_job {
	int32_t enc;
	struct rect r;	     /* pixels written, inside the desktop */
	struct rect src;     /* pixels read (CopyRect), else empty */
	uint32_t streams;    /* DEC_STREAM_* advanced by decode() */
	struct dec_buf data; /* the bytes read() kept for decode() */
	/* With the reader's chunks (dec_ctx.chunks) and a decoder whose
	 * data are the rectangle's bytes as they came (decoder.in_place):
	 * data points into chunk, which the job holds a reference on
	 * (data.cap 0: not the job's to free) until dec_job_unref. */
	bool in_place;
	struct dec_chunk *chunk;
	/* Open H.264: the context decode() advances (jobs of a context
	 * share r, so they run in order), or NULL. */
	struct dec_h264_ctx *h264;
};

struct dec_ctx {
	struct vnc_source *src; /* read side */
	/* The reader's shared buffer of the server's bytes, src reading
	 * through it (decchunk.h), or NULL: every job its own copy. */
	struct dec_chunks *chunks;
	struct dec_job *span; /* the job whose bytes a span is taking */
	/* Ordered by stream: the reader's own (streams), which the
	 * contexts of its decoding threads share (dec_ctx_init_worker). */
	struct dec_streams *zs;
	struct dec_streams streams;
	struct dec_work work; /* decode side, one per thread */
	struct dec_fb fb;
	char why[200];
};

/* What an encoding is, beside its decoding (struct decoder's flags). */
enum {
	/* Lossy: the default list offers it only with --quality. */
	DEC_LOSSY = 1u << 0,
	/* Its rectangles come through zlib streams: a compression level
	 * (--compress) is offered with it. */
	DEC_ZLIB = 1u << 1,
	/* It takes a JPEG quality level (--quality). */
	DEC_QUALITY = 1u << 2,
	/* Offered after the list whenever a quality level is: TigerVNC
	 * prefers it to Tight's JPEG when it comes first. */
	DEC_AFTER_QUALITY = 1u << 3,
	/* libvncclient has no decoder for it: never offered in the
	 * reference mode (bench's), which decodes with libvncclient. */
	DEC_OWN = 1u << 4,
	/* A cursor shape (CursorWithAlpha) never comes in it. */
	DEC_NO_CURSOR = 1u << 5,
};

/* One encoding: its number and names, what the options and the
 * SetEncodings message need to know of it, and its decoding. Each is
 * defined in its decoder's file and listed once in decode.c's table
 * (only where built: Open H.264 with libavcodec); everything else
 * (--encodings' names and default list, vnc_send.c's lossy, zlib and
 * quality rules, the cursor's) reads it from there (doc/design.md, "How
 * to add an encoding"). */
struct decoder {
	int32_t enc;
	const char *name;  /* as --encodings names it, lower case */
	const char *alias; /* another name --encodings takes for it, or NULL */
	const char *label; /* as messages say it: "Tight" */
	/* Its place in the default list, 1 first; 0: not in it. */
	unsigned rank;
	unsigned flags; /* DEC_LOSSY, ... */
	/* Required: the rectangle's bytes into the job (a direct encoding
	 * also draws them). */
	int (*read)(struct dec_ctx *c, struct dec_job *j);
	int (*decode)(struct dec_ctx *c, const struct dec_job *j);
	/* Optional: read() and decode() in one walk over the bytes as they
	 * come in, for a rectangle drawn by the thread that reads it
	 * (dec_rect): the bytes are touched once, while in this core's
	 * cache. */
	int (*read_draw)(struct dec_ctx *c, struct dec_job *j);
	/* read() keeps the rectangle's bytes as they came, and nothing
	 * else, in data: they may stay in the reader's chunks. */
	bool in_place;
	/* Drawing it costs about what reading its bytes does (its tiles
	 * are copies and fills): on a worker its bytes would cross to
	 * another core's cache for as much work as that saves. Where no
	 * core is free for a worker (decpool_copies_direct), the reader
	 * draws it itself, as it reads it. */
	bool copy_bound;
};

/* The decoder of an encoding, or NULL. */
const struct decoder *decoder_find(int32_t enc);
/* The decoder --encodings names as the n bytes at s (its name or alias,
 * any case), or NULL. */
const struct decoder *decoder_by_name(const char *s, size_t n);
/* The i-th decoder of the table (decode.c's order), NULL past the last. */
const struct decoder *decoder_at(size_t i);
/* The hook or field d lacks ("read", "name"), or NULL when it has all it
 * must. */
const char *decoder_missing(const struct decoder *d);
/* Every decoder of the table checked (decoder_missing, numbers and
 * names unique): 0, or -EINVAL, logged. Where the decoders are taken
 * into use (the reader's creation). */
int decoders_check(void);
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
/* Reads and decodes one rectangle (serially, with read_draw where the
 * decoder has one): DEC_OK or an error. */
int dec_rect(struct dec_ctx *c, const struct decoder *d, struct dec_job *j);
/* The job's hold on the chunks, if any, given up (any thread): its data
 * is empty after. A job of its own buffer keeps it. */
void dec_job_unref(struct dec_job *j);

/* --- for the reader too --- */

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

/* Cursor shapes (dec_cursor.c): the body of a RichCursor or XCursor
 * pseudo-rectangle of w x h is dec_cursor_size() bytes; as shadow pixels
 * (w*h*bpp) and an alpha byte a pixel (0 transparent, 255 opaque). */
size_t dec_cursor_size(const struct dec_fmt *f, int32_t enc, uint32_t w,
		       uint32_t h);
void dec_cursor_shape(const struct dec_fmt *f, int32_t enc, uint32_t w,
		      uint32_t h, const uint8_t *body, uint8_t *pix,
		      uint8_t *mask);
/* CursorWithAlpha: its pixels come in a sub-encoding, in a format of
 * their own: 32 bits, bytes R,G,B,A, alpha premultiplied, "depth 32"
 * (so 4-byte CPIXELs and TPIXELs). f is set up as that format, for the
 * decoders to draw the shape into a buffer of its own. */
void dec_fmt_init_rgba(struct dec_fmt *f);
/* Whether a CursorWithAlpha's pixels may come in enc: an encoding vncfb
 * decodes that keeps the alpha byte (not CopyRect, not JPEG). */
bool dec_cursor_alpha_enc(int32_t enc);
/* n premultiplied R,G,B,A pixels as shadow pixels of the straight
 * colour (pix, n*bpp) and their alpha (alpha, n bytes). */
void dec_cursor_alpha(const struct dec_fmt *f, size_t n, const uint8_t *rgba,
		      uint8_t *pix, uint8_t *alpha);

#endif
