/* Helpers of the decoder tests: server byte streams built by hand,
 * pictures in a pixel format, and vncfb's reader run over a stream into
 * a framebuffer of its own (tests/unit/test_decode*.c). */
#ifndef VNCFB_TESTS_RFBGEN_H
#define VNCFB_TESTS_RFBGEN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "decode/decode.h"
#include "shadow/pixfmt.h"
#include "wire/rfb.h"
#include "reader/rfbread.h"
#include "util/guardmem.h"
#include "wire/vncsrc.h"

/* --- streams --- */

struct buf {
	uint8_t *p;
	size_t n, cap;
};

static inline void put(struct buf *b, const void *d, size_t n)
{
	if (b->n + n > b->cap) {
		b->cap = (b->n + n) * 2 + 64;
		b->p = realloc(b->p, b->cap);
		if (!b->p)
			abort();
	}
	if (n)
		memcpy(b->p + b->n, d, n);
	b->n += n;
}

static inline void u8(struct buf *b, unsigned v)
{
	uint8_t c = (uint8_t)v;

	put(b, &c, 1);
}

static inline void u16(struct buf *b, unsigned v)
{
	u8(b, v >> 8);
	u8(b, v);
}

static inline void u32(struct buf *b, uint32_t v)
{
	u16(b, v >> 16);
	u16(b, v & 0xffff);
}

/* A seed of the reader fuzz target (tests/fuzz/reader.c) as the file
 * dir/name: the format byte, w, h, the server's messages, then tail
 * (NULL: none); exits on failure. For the seed tools. */
static inline void reader_seed(const char *dir, const char *name,
			       unsigned fmt, unsigned w, unsigned h,
			       const struct buf *msgs, const struct buf *tail)
{
	struct buf s = {0};
	char path[512];
	FILE *f;

	u8(&s, fmt);
	u16(&s, w);
	u16(&s, h);
	put(&s, msgs->p, msgs->n);
	if (tail)
		put(&s, tail->p, tail->n);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(s.p, 1, s.n, f) != s.n || fclose(f)) {
		perror(path);
		exit(1);
	}
	free(s.p);
}

static inline void fbu(struct buf *b, unsigned nrects)
{
	u8(b, RFB_MSG_FB_UPDATE);
	u8(b, 0);
	u16(b, nrects);
}

static inline void rhdr(struct buf *b, unsigned x, unsigned y, unsigned w,
			unsigned h, int32_t enc)
{
	u16(b, x);
	u16(b, y);
	u16(b, w);
	u16(b, h);
	u32(b, (uint32_t)enc);
}

/* Tight's compact length. */
static inline void clen(struct buf *b, uint32_t n)
{
	if (n < 128) {
		u8(b, n);
	} else if (n < 16384) {
		u8(b, (n & 0x7f) | 0x80);
		u8(b, n >> 7);
	} else {
		u8(b, (n & 0x7f) | 0x80);
		u8(b, ((n >> 7) & 0x7f) | 0x80);
		u8(b, n >> 14);
	}
}

/* Deflate in as an RFB server does: one stream, flushed per rectangle. */
static inline void zsync(z_stream *z, const void *in, size_t n, struct buf *out)
{
	uint8_t tmp[65536];

	z->next_in = (Bytef *)in;
	z->avail_in = (uInt)n;
	do {
		z->next_out = tmp;
		z->avail_out = sizeof(tmp);
		deflate(z, Z_SYNC_FLUSH);
		put(out, tmp, sizeof(tmp) - z->avail_out);
	} while (z->avail_out == 0);
}

static inline void zinit(z_stream *z)
{
	memset(z, 0, sizeof(*z));
	if (deflateInit(z, 6) != Z_OK)
		abort();
}

/* --- pictures --- */

static uint32_t rng_state = 12345;

static inline uint32_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 17;
	rng_state ^= rng_state << 5;
	return rng_state;
}

struct pic {
	struct pixfmt pf;
	struct dec_fmt df;
	unsigned bpp;
	uint32_t w, h;
	uint8_t *p;
};

static inline void pic_init(struct pic *p, const char *fmt, uint32_t w,
			    uint32_t h)
{
	if (pixfmt_from_name(fmt, &p->pf) < 0)
		abort();
	dec_fmt_init(&p->df, &p->pf);
	p->bpp = p->pf.bpp / 8;
	p->w = w;
	p->h = h;
	p->p = calloc(1, (size_t)w * h * p->bpp + 1);
}

static inline uint8_t *pic_at(const struct pic *p, uint32_t x, uint32_t y)
{
	return p->p + ((size_t)y * p->w + x) * p->bpp;
}

/* Mean and largest error per channel, 8-bit, between two pictures over a
 * rectangle: how close a lossy (JPEG) decode came to its source. */
static inline void pic_errors(const struct pic *a, const struct pic *b,
			      uint32_t x, uint32_t y, uint32_t w, uint32_t h,
			      double *mean, int *max)
{
	double sum = 0;

	*max = 0;
	for (uint32_t j = 0; j < h; j++)
		for (uint32_t i = 0; i < w; i++) {
			uint8_t c1[3], c2[3];

			pixfmt_unpack(
			    &a->pf,
			    pixfmt_load(&a->pf, pic_at(a, x + i, y + j)),
			    &c1[0], &c1[1], &c1[2]);
			pixfmt_unpack(
			    &b->pf,
			    pixfmt_load(&b->pf, pic_at(b, x + i, y + j)),
			    &c2[0], &c2[1], &c2[2]);
			for (int q = 0; q < 3; q++) {
				int e = abs((int)c1[q] - (int)c2[q]);

				sum += e;
				*max = e > *max ? e : *max;
			}
		}
	*mean = sum / ((double)w * h * 3);
}

/* A pixel of the format as its bytes (bpp of them). */
static inline void mkpx(const struct pixfmt *pf, uint8_t r, uint8_t g,
			uint8_t b, uint8_t *out)
{
	pixfmt_store(pf, out, pixfmt_pack(pf, r, g, b));
}

static inline void rndpx(const struct pixfmt *pf, uint8_t *out)
{
	uint32_t v = rnd();

	mkpx(pf, (uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), out);
}

static inline void pic_fill(struct pic *p, uint32_t x, uint32_t y, uint32_t w,
			    uint32_t h, const uint8_t *px)
{
	for (uint32_t j = 0; j < h; j++)
		for (uint32_t i = 0; i < w; i++)
			memcpy(pic_at(p, x + i, y + j), px, p->bpp);
}

static inline void pic_random(struct pic *p)
{
	for (uint32_t y = 0; y < p->h; y++)
		for (uint32_t x = 0; x < p->w; x++)
			rndpx(&p->pf, pic_at(p, x, y));
}

/* The wire bytes of a pixel: raw, as a CPIXEL, as a TPIXEL. The sizes
 * follow the specifications here, not decode.h's dec_fmt. */
/* A zlib rectangle of p at x,y (w x h), through the stream z. */
static inline void zlib_rect(struct buf *s, z_stream *z, const struct pic *p,
			     uint32_t x, uint32_t y, uint32_t w, uint32_t h)
{
	struct buf raw = {0}, zd = {0};

	for (uint32_t j = 0; j < h; j++)
		put(&raw, pic_at(p, x, y + j), (size_t)w * p->bpp);
	zsync(z, raw.p, raw.n, &zd);
	rhdr(s, x, y, w, h, RFB_ENC_ZLIB);
	u32(s, (uint32_t)zd.n);
	put(s, zd.p, zd.n);
	free(raw.p);
	free(zd.p);
}

static inline void put_px(struct buf *b, const struct pic *p, const uint8_t *px)
{
	put(b, px, p->bpp);
}

/* ZRLE: 3 bytes for 32 bpp, depth <= 24, with the channels in the low
 * or the high three bytes; the byte left out is the unused one. */
static inline unsigned cpixel_size(const struct pixfmt *f, unsigned *skip)
{
	uint32_t m = (uint32_t)(((1ull << f->r_bits) - 1) << f->r_shift) |
		     (uint32_t)(((1ull << f->g_bits) - 1) << f->g_shift) |
		     (uint32_t)(((1ull << f->b_bits) - 1) << f->b_shift);
	unsigned depth = f->r_bits + f->g_bits + f->b_bits;
	bool low = !(m & 0xff000000u), high = !(m & 0xffu);

	if (f->bpp != 32 || depth > 24 || (!low && !high))
		return f->bpp / 8;
	/* Memory byte of the pixel's low byte: 0 little-endian. */
	*skip = (low && !f->big_endian) || (high && f->big_endian) ? 3 : 0;
	return 3;
}

static inline void put_cpixel(struct buf *b, const struct pic *p,
			      const uint8_t *px)
{
	unsigned skip = 0, n = cpixel_size(&p->pf, &skip);

	if (n == p->bpp)
		put(b, px, p->bpp);
	else
		put(b, px + (skip == 0), 3);
}

/* Tight: R,G,B for 32 bpp, depth 24, 8-bit channels. */
static inline unsigned tpixel_size(const struct pixfmt *f)
{
	return f->bpp == 32 && f->r_bits == 8 && f->g_bits == 8 &&
		       f->b_bits == 8
		   ? 3
		   : f->bpp / 8;
}

static inline void put_tpixel(struct buf *b, const struct pic *p,
			      const uint8_t *px)
{
	const struct pixfmt *f = &p->pf;
	uint8_t rgb[3];

	if (tpixel_size(f) != 3) {
		put(b, px, p->bpp);
		return;
	}
	pixfmt_unpack(f, pixfmt_load(f, px), &rgb[0], &rgb[1], &rgb[2]);
	put(b, rgb, 3);
}

/* --- JPEG (test_decode_jpeg.c) --- */

/* What jpeg_rgb writes: a whole JPEG, one without its tables, or the
 * tables alone (an abbreviated table-specification stream). */
enum { TABLES_ALL, TABLES_NONE, TABLES_ONLY };

/* rgb (w x h, R,G,B bytes, rows packed) encoded by libjpeg at quality,
 * restart markers every restart MCU rows (0: none), appended to out. */
void jpeg_rgb(const uint8_t *rgb, uint32_t w, uint32_t h, int tables,
	      int quality, unsigned restart, struct buf *out);

/* --- the reader over a stream --- */

struct fix {
	struct pic fb; /* what the reader draws into */
	struct rfb_reader *r;
	struct vnc_mem_source src;
	char log[8192]; /* events in order */
	int updates, requests_inc, requests_full, bells, qemu;
	int cursors, cw, ch, cx, cy;
	uint8_t *cpix, *cmask;
	int pointer_x, pointer_y;
	/* Optional: called with each ExtendedDesktopSize rectangle, after
	 * it is logged as "layout REASON/STATUS WxH N". */
	void (*on_layout)(void *ctx, const struct vnc_layout *l);
	void *layout_ctx;
	enum vnc_error err;
	char why[400];
};

static uint8_t *fix_resize(void *ctx, uint32_t w, uint32_t h)
{
	struct fix *f = ctx;

	guard_free(f->fb.p);
	f->fb.w = w;
	f->fb.h = h;
	/* Its end at a guard page in a guard-page build (guardmem.h). */
	f->fb.p = guard_calloc((size_t)w * h * f->fb.bpp);
	log_append(f->log, sizeof(f->log), "resize %ux%u", w, h);
	return f->fb.p;
}

static void fix_damage(void *ctx, const struct rect *r)
{
	struct fix *f = ctx;

	log_append(f->log, sizeof(f->log), "damage %d,%d,%dx%d", r->x, r->y,
		   r->w, r->h);
}

static void fix_done(void *ctx)
{
	struct fix *f = ctx;

	f->updates++;
	log_append(f->log, sizeof(f->log), "done");
}

static void fix_cursor(void *ctx, int xhot, int yhot, int w, int h,
		       const uint8_t *pix, const uint8_t *mask)
{
	struct fix *f = ctx;
	size_t n = (size_t)w * h;

	f->cursors++;
	f->cx = xhot, f->cy = yhot, f->cw = w, f->ch = h;
	free(f->cpix);
	free(f->cmask);
	f->cpix = malloc(n * f->fb.bpp);
	f->cmask = malloc(n);
	memcpy(f->cpix, pix, n * f->fb.bpp);
	memcpy(f->cmask, mask, n);
	log_append(f->log, sizeof(f->log), "cursor %dx%d@%d,%d", w, h, xhot,
		   yhot);
}

static void fix_pos(void *ctx, int x, int y)
{
	struct fix *f = ctx;

	f->pointer_x = x;
	f->pointer_y = y;
	log_append(f->log, sizeof(f->log), "pointer %d,%d", x, y);
}

static void fix_bell(void *ctx)
{
	struct fix *f = ctx;

	f->bells++;
	log_append(f->log, sizeof(f->log), "bell");
}

static void fix_layout(void *ctx, const struct vnc_layout *l)
{
	struct fix *f = ctx;

	log_append(f->log, sizeof(f->log), "layout %u/%u %ux%u %u", l->reason,
		   l->status, l->width, l->height, l->n);
	if (f->on_layout)
		f->on_layout(f->layout_ctx, l);
}

static int fix_request(void *ctx, bool incremental, uint32_t w, uint32_t h)
{
	struct fix *f = ctx;

	if (incremental)
		f->requests_inc++;
	else
		f->requests_full++;
	log_append(f->log, sizeof(f->log), "request%s %ux%u",
		   incremental ? "" : "-full", w, h);
	return 0;
}

static void fix_qemu(void *ctx)
{
	struct fix *f = ctx;

	f->qemu++;
	log_append(f->log, sizeof(f->log), "qemu-keys");
}

static void fix_ext_mouse(void *ctx)
{
	struct fix *f = ctx;

	log_append(f->log, sizeof(f->log), "ext-mouse");
}

static inline void fix_free(struct fix *f)
{
	rfb_reader_destroy(f->r);
	guard_free(f->fb.p);
	free(f->cpix);
	free(f->cmask);
	memset(f, 0, sizeof(*f));
}

/* Decoding threads for every reader (VNCFB_TEST_DECODE_THREADS; unset:
 * inline). With threads, an update's damage comes merged, once it is
 * decoded whole. */
static inline unsigned fix_threads(void)
{
	const char *t = getenv("VNCFB_TEST_DECODE_THREADS");

	return t ? (unsigned)atoi(t) : 0;
}

/* Copy-bound rectangles drawn by the reader beside the pool
 * (VNCFB_TEST_COPIES_DIRECT set: rfb_reader_set_copies_direct), as on 2
 * cores. */
static inline bool fix_copies_direct(void)
{
	return getenv("VNCFB_TEST_COPIES_DIRECT") != NULL;
}

/* How much of the stream a source offers to parse in place
 * (VNCFB_TEST_SOURCE_WINDOW; unset: all of it): small, tiles straddle
 * its end all the time, as they do libvncclient's buffer. */
static inline size_t fix_window(void)
{
	const char *t = getenv("VNCFB_TEST_SOURCE_WINDOW");

	return t ? (size_t)atoi(t) : 0;
}

/* A reader for a w x h desktop in fmt (f zeroed or freed first) with
 * the owner's hooks ops (ctx f). */
static inline void fix_open_ops(struct fix *f, const char *fmt, uint32_t w,
				uint32_t h, const struct rfb_reader_ops *ops)
{
	struct vnc_events ev = {.ctx = f,
				.resize = fix_resize,
				.damage = fix_damage,
				.update_done = fix_done,
				.cursor_shape = fix_cursor,
				.cursor_pos = fix_pos,
				.bell = fix_bell,
				.layout = fix_layout};

	memset(f, 0, sizeof(*f));
	pic_init(&f->fb, fmt, 0, 0);
	free(f->fb.p);
	f->fb.p = NULL;
	vnc_mem_source_init(&f->src, NULL, 0);
	f->r = rfb_reader_create(&f->fb.pf, &f->src.base, &ev, ops, f);
	if (!f->r || rfb_reader_set_threads(f->r, fix_threads()) < 0 ||
	    rfb_reader_start(f->r, w, h) < 0)
		abort();
	rfb_reader_set_copies_direct(f->r, fix_copies_direct());
	f->log[0] = '\0';
}

/* A reader for a w x h desktop in fmt (f zeroed or freed first). */
static inline void fix_open(struct fix *f, const char *fmt, uint32_t w,
			    uint32_t h)
{
	static const struct rfb_reader_ops ops = {.request = fix_request,
						  .qemu_keys = fix_qemu,
						  .ext_mouse = fix_ext_mouse};

	fix_open_ops(f, fmt, w, h, &ops);
}

/* Every message of s. The number read, or -1 with f->err and f->why
 * (a stream that ends inside a message is VNC_ERR_CLOSED). */
static inline int fix_feed(struct fix *f, const struct buf *s)
{
	const char *why;
	int n = 0;

	vnc_mem_source_init(&f->src, s->p, s->n);
	f->src.window = fix_window();
	while (f->src.left > 0) {
		if (rfb_reader_message(f->r) < 0) {
			f->err = rfb_reader_error(f->r, &why);
			snprintf(f->why, sizeof(f->why), "%s", why);
			return -1;
		}
		n++;
	}
	return n;
}

/* Whether the framebuffer holds want (same size) byte for byte. */
static inline bool fix_same(const struct fix *f, const struct pic *want,
			    char *where, size_t len)
{
	if (f->fb.w != want->w || f->fb.h != want->h) {
		snprintf(where, len, "size %ux%u, want %ux%u", f->fb.w, f->fb.h,
			 want->w, want->h);
		return false;
	}
	for (uint32_t y = 0; y < want->h; y++)
		for (uint32_t x = 0; x < want->w; x++)
			if (memcmp(pic_at(&f->fb, x, y), pic_at(want, x, y),
				   want->bpp)) {
				snprintf(where, len, "pixel %u,%u", x, y);
				return false;
			}
	return true;
}

/* Feed s to the open fixture f and expect it to end that many updates
 * with want's picture, pixel for pixel; what and fmt name the case in the
 * messages (test_decode.c). */
void expect_decoded(struct fix *f, const struct buf *s, int updates,
		    const struct pic *want, const char *what, const char *fmt);
/* Feed s to the reader on a w x h desktop in fmt and expect it to fail
 * with a protocol error whose reason contains why (test_decode.c). */
void expect_bad(const char *fmt, uint32_t w, uint32_t h, const struct buf *s,
		const char *why);

/* --- a source whose owner gives up --- */

/* A memory source that says it is abandoned (vnc_source_abandoned) from
 * the (*left + 1)th time it is asked on; *left counts down. */
struct quit_source {
	struct vnc_mem_source m;
	struct vnc_source_ops ops;
	unsigned *left;
};

static inline bool quit_abandoned(const struct vnc_source *s)
{
	const struct quit_source *q =
	    (const struct quit_source *)(const void *)s;

	if (*q->left == 0)
		return true;
	(*q->left)--;
	return false;
}

static inline void quit_source_init(struct quit_source *q, const void *data,
				    size_t len, unsigned *left)
{
	vnc_mem_source_init(&q->m, data, len);
	q->ops = *q->m.base.ops;
	q->ops.abandoned = quit_abandoned;
	q->m.base.ops = &q->ops;
	q->left = left;
}

#endif
