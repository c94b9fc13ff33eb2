/* The decoders' shared parts: the shadow's format as they see it, the
 * decoder table, buffers, fills and the memory source (decode.h). */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "decode/decchunk.h"
#include "decode/decode_priv.h"
#include "util/guardmem.h"
#include "util/log.h"
#include "wire/encodings.h"
#include "wire/rfb.h"

int dec_jpeg_space(const struct pixfmt *pf);

/* The depth vncfb announces for f in SetPixelFormat (and that Tight and
 * ZRLE therefore key their pixel sizes on). */
static unsigned rfb_depth(const struct pixfmt *f)
{
	unsigned d = (unsigned)f->r_bits + f->g_bits + f->b_bits;

	return d > f->bpp ? f->bpp : d;
}

static uint32_t channel_mask(const struct pixfmt *f)
{
	return (uint32_t)(((1ull << f->r_bits) - 1) << f->r_shift) |
	       (uint32_t)(((1ull << f->g_bits) - 1) << f->g_shift) |
	       (uint32_t)(((1ull << f->b_bits) - 1) << f->b_shift);
}

void dec_fmt_init(struct dec_fmt *f, const struct pixfmt *pf)
{
	struct pixfmt rgb;
	bool big = pf->big_endian;

	memset(f, 0, sizeof(*f));
	f->pf = *pf;
	f->bpp = pf->bpp / 8;
	f->depth = rfb_depth(pf);
	f->tpixel = f->bpp;
	f->cpixel = f->bpp;
	if (f->bpp == 4 && f->depth == 24 && pf->r_bits == 8 &&
	    pf->g_bits == 8 && pf->b_bits == 8)
		f->tpixel = 3;
	if (f->bpp == 4 && f->depth <= 24) {
		uint32_t m = channel_mask(pf);
		bool ls3 = !(m & 0xff000000u), ms3 = !(m & 0xffu);

		/* The same choice as the spec's (and TigerVNC's, and
		 * libvncserver's encoder): the low three bytes first. */
		if ((ls3 && !big) || (ms3 && big)) {
			f->cpixel = 3;
			f->cpad = 3;
		} else if (ls3 || ms3) {
			f->cpixel = 3;
			f->cpad = 0;
		}
	}
	if (f->cpixel == 3) {
		/* The three bytes as a 24 bpp format of their own: the
		 * value loses its low byte where that is the one left out. */
		struct pixfmt c = *pf;
		unsigned drop = (f->cpad == 3) == !big ? 0 : 8;

		c.bpp = 24;
		c.r_shift = (uint8_t)(c.r_shift - drop);
		c.g_shift = (uint8_t)(c.g_shift - drop);
		c.b_shift = (uint8_t)(c.b_shift - drop);
		pixconv_init(&f->from_cpixel, pf, &c);
	}
	f->jpeg_space = dec_jpeg_space(pf);
	pixconv_rgb_bytes(&rgb);
	pixconv_init(&f->from_rgb, pf, &rgb);
}

/* The decoders, one per encoding (each defined in its own file): the
 * one list of the encodings vncfb decodes, in the order usage messages
 * name them. */
static const struct decoder *const all[] = {
    &dec_raw,  &dec_copyrect, &dec_rre,	 &dec_corre, &dec_hextile,
    &dec_zlib, &dec_tight,    &dec_trle, &dec_zrle,  &dec_ultra,
    &dec_jpeg_rect,
#ifdef VNCFB_HAVE_H264
    &dec_h264,
#endif
};

#define NDEC (sizeof(all) / sizeof(all[0]))

const struct decoder *decoder_find(int32_t enc)
{
	for (size_t i = 0; i < NDEC; i++)
		if (all[i]->enc == enc)
			return all[i];
	return NULL;
}

static bool named(const char *name, const char *s, size_t n)
{
	return name && strlen(name) == n && strncasecmp(name, s, n) == 0;
}

const struct decoder *decoder_by_name(const char *s, size_t n)
{
	for (size_t i = 0; i < NDEC; i++)
		if (named(all[i]->name, s, n) || named(all[i]->alias, s, n))
			return all[i];
	return NULL;
}

const struct decoder *decoder_at(size_t i)
{
	return i < NDEC ? all[i] : NULL;
}

const char *decoder_missing(const struct decoder *d)
{
	if (!d->name || !d->name[0])
		return "name";
	if (!d->label)
		return "label";
	if (!d->read)
		return "read";
	return NULL;
}

int decoders_check(void)
{
	for (size_t i = 0; i < NDEC; i++) {
		const char *miss = decoder_missing(all[i]);
		const struct decoder *first;

		if (miss) {
			log_error("decoder of encoding %d has no %s",
				  (int)all[i]->enc, miss);
			return -EINVAL;
		}
		/* The first of the list with this one's name or number: it
		 * must be this one. */
		first = decoder_by_name(all[i]->name, strlen(all[i]->name));
		for (size_t k = 0; k < i; k++)
			if (all[k]->enc == all[i]->enc)
				first = all[k];
		if (first != all[i]) {
			log_error("decoders %s and %s share a number or a name",
				  first->name, all[i]->name);
			return -EINVAL;
		}
	}
	return 0;
}

const char *decoder_name(int32_t enc, char *buf, size_t len)
{
	const struct decoder *d = decoder_find(enc);

	return d ? d->label : rfb_encoding_label(enc, buf, len);
}

void dec_ctx_init(struct dec_ctx *c, struct vnc_source *src,
		  const struct dec_fmt *fmt)
{
	memset(c, 0, sizeof(*c));
	c->src = src;
	c->zs = &c->streams;
	c->fb.fmt = fmt;
}

void dec_ctx_init_worker(struct dec_ctx *c, const struct dec_ctx *owner)
{
	memset(c, 0, sizeof(*c));
	c->src = owner->src;
	c->zs = owner->zs;
	c->fb = owner->fb;
}

void dec_ctx_finish(struct dec_ctx *c)
{
	/* The streams are their owner's to end. */
	if (c->zs == &c->streams) {
		for (int i = 0; i < 4; i++)
			dec_zstream_end(&c->zs->tight[i]);
		dec_zstream_end(&c->zs->zlib);
		dec_zstream_end(&c->zs->zrle);
		free(c->zs->jpeg_tables);
		c->zs->jpeg_tables = NULL;
#ifdef VNCFB_HAVE_H264
		dec_h264_free(c->zs->h264);
#endif
		c->zs->h264 = NULL;
	}
	guard_free(c->work.scratch);
	c->work.scratch = NULL;
	c->work.scratch_cap = 0;
	dec_jpeg_free(c->work.jpeg);
	c->work.jpeg = NULL;
}

static uint8_t empty[1];

/* The open span's bytes become its job's (all of them on success,
 * none after a failure), in the chunk it holds a reference on. */
static int span_end(struct dec_ctx *c, int ret)
{
	struct dec_job *j = c->span;
	uint8_t *p = NULL;

	if (!j)
		return ret;
	c->span = NULL;
	j->chunk =
	    dec_chunks_close(c->chunks, ret == DEC_OK ? j->data.len : 0, &p);
	/* An empty job's data is not NULL: decoders may add 0 to it. */
	j->data.p = j->chunk ? p : empty;
	if (!j->chunk)
		j->data.len = 0;
	return ret;
}

static void job_begin(struct dec_ctx *c, struct dec_job *j)
{
	c->why[0] = '\0';
	dec_job_unref(j);
	j->data.len = 0;
	j->data.limit = RFB_MAX_RECT_DATA;
	j->src = (struct rect){0, 0, 0, 0};
	j->streams = 0;
}

static int read_with(struct dec_ctx *c, const struct decoder *d,
		     struct dec_job *j,
		     int (*read)(struct dec_ctx *c, struct dec_job *j))
{
	job_begin(c, j);
	j->in_place = d->in_place && c->chunks;
	/* Its bytes stay in the chunks: a buffer of its own is not needed
	 * (a job's buffer goes back to the reader's free list with it). */
	if (j->in_place && j->data.cap)
		dec_buf_free(&j->data);
	return span_end(c, read(c, j));
}

int dec_read_job(struct dec_ctx *c, const struct decoder *d, struct dec_job *j)
{
	return read_with(c, d, j, d->read);
}

int dec_rect(struct dec_ctx *c, const struct decoder *d, struct dec_job *j)
{
	int ret;

	if (d->read_draw)
		return read_with(c, d, j, d->read_draw);
	ret = dec_read_job(c, d, j);

	if (ret == DEC_OK && d->decode)
		ret = d->decode(c, j);
	return ret;
}

void dec_job_unref(struct dec_job *j)
{
	dec_chunk_put(j->chunk);
	j->chunk = NULL;
	if (!j->data.cap) {
		j->data.p = NULL;
		j->data.len = 0;
	}
}

int dec_bad(struct dec_ctx *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->why, sizeof(c->why), fmt, ap);
	va_end(ap);
	return DEC_BAD;
}

int dec_read(struct dec_ctx *c, void *buf, size_t n)
{
	return vnc_source_read(c->src, buf, n) < 0 ? DEC_EOF : DEC_OK;
}

int dec_check(const struct dec_ctx *c)
{
	return vnc_source_abandoned(c->src) ? DEC_EOF : DEC_OK;
}

int dec_read_u32(struct dec_ctx *c, uint32_t *v)
{
	uint8_t b[4];

	if (dec_read(c, b, 4) != DEC_OK)
		return DEC_EOF;
	*v = dec_be32(b);
	return DEC_OK;
}

static int nomem(struct dec_ctx *c, size_t n)
{
	snprintf(c->why, sizeof(c->why), "out of memory for %zu bytes", n);
	return DEC_NOMEM;
}

/* Room for n more bytes at the end of j->data (not yet counted in
 * len), or NULL with *err set. */
static uint8_t *grow(struct dec_ctx *c, struct dec_job *j, size_t n, int *err)
{
	struct dec_buf *b = &j->data;
	size_t need = b->len + n;
	uint8_t *p;

	/* The chunks' bytes are not the job's to grow. */
	if (j->in_place) {
		*err = dec_bad(c, "internal: bytes put into the shared buffer");
		return NULL;
	}
	if (need < n || (b->limit && need > b->limit)) {
		*err = dec_bad(c, "more than %zu bytes of data", b->limit);
		return NULL;
	}
	if (need > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;

		while (cap < need)
			cap = cap > SIZE_MAX / 2 ? need : cap * 2;
		if (b->limit && cap > b->limit)
			cap = b->limit;
		p = realloc(b->p, cap);
		if (!p) {
			*err = nomem(c, cap);
			return NULL;
		}
		b->p = p;
		b->cap = cap;
	}
	return b->p + b->len;
}

/* Open a span for j at the next byte: DEC_OK or an error. */
static int span_open(struct dec_ctx *c, struct dec_job *j, uint64_t most)
{
	if (c->span || j->data.len)
		return dec_bad(c, "internal: a span opened twice");
	if (dec_chunks_open(c->chunks, most) < 0)
		return nomem(c, DEC_CHUNK_SIZE);
	c->span = j;
	j->data.p = NULL;
	j->data.len = 0;
	return DEC_OK;
}

/* The span of j grown to n bytes: its first byte (j->data.p, updated),
 * with *have bytes there, or NULL with *err set. */
static uint8_t *span_need(struct dec_ctx *c, struct dec_job *j, size_t n,
			  size_t *have, int *err)
{
	uint8_t *p;

	if (j->data.limit && n > j->data.limit) {
		*err = dec_bad(c, "more than %zu bytes of data", j->data.limit);
		return NULL;
	}
	p = dec_chunks_need(c->chunks, n, have, err);
	if (!p) {
		*err = *err == -ENOMEM ? nomem(c, n) : DEC_EOF;
		return NULL;
	}
	j->data.p = p;
	return p;
}

/* dec_take from the shared chunks: the bytes stay where they were read. */
static uint8_t *take_span(struct dec_ctx *c, struct dec_job *j, size_t n,
			  int *err)
{
	size_t len = j->data.len, have;
	uint8_t *p;

	if (c->span != j && (*err = span_open(c, j, n)) != DEC_OK)
		return NULL;
	if (len + n < n) {
		*err = dec_bad(c, "more than %zu bytes of data", j->data.limit);
		return NULL;
	}
	p = span_need(c, j, len + n, &have, err);
	if (!p)
		return NULL;
	j->data.len = len + n;
	return p + len;
}

uint8_t *dec_take(struct dec_ctx *c, struct dec_job *j, size_t n, int *err)
{
	uint8_t *p;

	if (j->in_place)
		return take_span(c, j, n, err);
	p = grow(c, j, n, err);

	if (!p)
		return NULL;
	if (dec_read(c, p, n) != DEC_OK) {
		*err = DEC_EOF;
		return NULL;
	}
	j->data.len += n;
	return p;
}

int dec_put(struct dec_ctx *c, struct dec_job *j, const void *src, size_t n)
{
	int err;
	uint8_t *p = n ? grow(c, j, n, &err) : NULL;

	if (n && !p)
		return err;
	if (n)
		memcpy(p, src, n);
	j->data.len += n;
	return DEC_OK;
}

uint8_t *dec_scratch(struct dec_ctx *c, size_t n)
{
	struct dec_work *w = &c->work;
	uint8_t *p;

	if (n <= w->scratch_cap)
		return w->scratch;
	/* Guarded (guardmem.h): its end at a guard page, its start 8-byte
	 * aligned for the decoders' rows of uint16_t and wider. */
	if (guard_pages())
		n = (n + 7) & ~(size_t)7;
	p = guard_realloc(w->scratch, n);
	if (!p) {
		nomem(c, n);
		return NULL;
	}
	w->scratch = p;
	w->scratch_cap = n;
	return p;
}

/* Whether [p, p + n) lies in [base, base + size). */
static bool within(const uint8_t *p, size_t n, const uint8_t *base, size_t size)
{
	return base && p >= base && (size_t)(p - base) <= size &&
	       n <= size - (size_t)(p - base);
}

int dec_bound(struct dec_ctx *c, const char *call, const struct rect *r,
	      const void *pv, size_t pitch, size_t rows, size_t row)
{
	const struct dec_fb *fb = &c->fb;
	const size_t bpp = fb->fmt->bpp;
	const size_t fbsize = fb->stride * fb->height;
	const uint8_t *p = pv;
	size_t span;

	if (rows == 0 || row == 0)
		return DEC_OK;
	if (rows > 1 && (pitch < row || (rows - 1) > (SIZE_MAX - row) / pitch))
		goto bad;
	span = (rows - 1) * pitch + row;
	if (!r) {
		if (within(p, span, fb->pix, fbsize) ||
		    within(p, span, c->work.scratch, c->work.scratch_cap))
			return DEC_OK;
		goto bad;
	}
	/* Each row inside the rectangle's columns, the rows inside its
	 * rows, in the format in force. */
	if (r->x < 0 || r->y < 0 || r->w < 0 || r->h < 0 ||
	    (uint64_t)r->x + (uint64_t)r->w > fb->width ||
	    (uint64_t)r->y + (uint64_t)r->h > fb->height ||
	    !within(p, span, fb->pix, fbsize) ||
	    (rows > 1 && pitch != fb->stride))
		goto bad;
	{
		size_t off = (size_t)(p - fb->pix), y = off / fb->stride,
		       col = off % fb->stride;

		if (col >= (size_t)r->x * bpp &&
		    col + row <= ((size_t)r->x + (size_t)r->w) * bpp &&
		    y >= (size_t)r->y &&
		    y + rows <= (size_t)r->y + (size_t)r->h)
			return DEC_OK;
	}
bad:
	if (r)
		return dec_bad(c,
			       "refused: %s would write %zu rows of %zu bytes, "
			       "%zu apart, not inside the %dx%d at %d,%d of "
			       "%u bytes a pixel",
			       call, rows, row, pitch, r->w, r->h, r->x, r->y,
			       fb->fmt->bpp);
	return dec_bad(c,
		       "refused: %s would write %zu rows of %zu bytes, %zu "
		       "apart, outside vncfb's buffers",
		       call, rows, row, pitch);
}

void dec_buf_free(struct dec_buf *b)
{
	/* cap 0: nothing of its own (a view into the chunks). */
	if (b->cap)
		free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
}

void dec_copy_rows(const struct dec_fb *fb, uint32_t x, uint32_t y, uint32_t w,
		   uint32_t h, const uint8_t *src, size_t spitch)
{
	size_t row = (size_t)w * fb->fmt->bpp;
	uint8_t *d = dec_fb_at(fb, x, y);

	if (row == 0)
		return;
	if (row == fb->stride && spitch == row) {
		memcpy(d, src, row * h);
		return;
	}
	for (uint32_t i = 0; i < h; i++)
		memcpy(d + (size_t)i * fb->stride, src + (size_t)i * spitch,
		       row);
}

/* The parser needs need bytes at p, fewer are in j->data: read at least
 * the rest, and what else has arrived up to DEC_AHEAD more, behind them. */
static int job_refill(struct dec_in *in, size_t need)
{
	struct dec_in_job *ij = in->ctx;
	struct dec_ctx *c = ij->c;
	struct dec_buf *b = &ij->j->data;
	size_t off = (size_t)(in->p - b->p), have = b->len - off;
	size_t min = need - have, room;
	ptrdiff_t got;

	if (b->limit && (b->len + min < min || b->len + min > b->limit))
		return dec_bad(c, "more than %zu bytes of data", b->limit);
	if (b->cap - b->len < min) {
		size_t cap = b->cap;
		uint8_t *p;

		while (cap < b->len + min + DEC_AHEAD && cap <= SIZE_MAX / 2)
			cap *= 2;
		if (b->limit && cap > b->limit)
			cap = b->limit;
		p = realloc(b->p, cap);
		if (!p)
			return nomem(c, cap);
		b->p = p;
		b->cap = cap;
	}
	room = b->cap - b->len;
	if (room > min + DEC_AHEAD)
		room = min + DEC_AHEAD;
	if (ij->most > b->len && room > ij->most - b->len)
		room = (size_t)(ij->most - b->len);
	if (room < min)
		room = min;
	got = vnc_source_read_some(c->src, b->p + b->len, min, room);
	if (got < 0)
		return DEC_EOF;
	b->len += (size_t)got;
	in->p = b->p + off;
	in->end = b->p + b->len;
	return DEC_OK;
}

/* The parser needs need bytes at p: the span grown to hold them. */
static int span_refill(struct dec_in *in, size_t need)
{
	struct dec_in_job *ij = in->ctx;
	struct dec_job *j = ij->j;
	size_t off = (size_t)(in->p - j->data.p), have;
	int err;
	uint8_t *p;

	/* A drawn parser is done with what it took: only the rest moves,
	 * and the chunk is read through again from its start. */
	if (ij->drawn && off) {
		/* off was within the span, which span_need kept within
		 * the limit with what was consumed before. */
		dec_chunks_consume(ij->c->chunks, off);
		ij->consumed += off;
		j->data.p += off;
		off = 0;
		if (j->data.limit && need > j->data.limit - ij->consumed)
			return dec_bad(ij->c, "more than %zu bytes of data",
				       j->data.limit);
	}
	if (off + need < need)
		return dec_bad(ij->c, "more than %zu bytes of data",
			       j->data.limit);
	p = span_need(ij->c, j, off + need, &have, &err);
	if (!p)
		return err;
	in->p = p + off;
	in->end = p + have;
	return DEC_OK;
}

int dec_in_job(struct dec_ctx *c, struct dec_job *j, uint64_t most,
	       struct dec_in_job *ij)
{
	*ij = (struct dec_in_job){.c = c, .j = j, .most = most};
	if (j->in_place) {
		size_t have;
		uint8_t *p;
		int ret = span_open(c, j, most);

		if (ret != DEC_OK)
			return ret;
		p = span_need(c, j, 0, &have, &ret);
		if (!p)
			return ret;
		ij->in = (struct dec_in){
		    .p = p, .end = p + have, .refill = span_refill, .ctx = ij};
		return DEC_OK;
	}
	if (!j->data.p) {
		j->data.p = malloc(64 * 1024);
		if (!j->data.p)
			return nomem(c, 64 * 1024);
		j->data.cap = 64 * 1024;
	}
	ij->in = (struct dec_in){.p = j->data.p + j->data.len,
				 .end = j->data.p + j->data.len,
				 .refill = job_refill,
				 .ctx = ij};
	return DEC_OK;
}

int dec_in_job_done(struct dec_in_job *ij)
{
	size_t extra = (size_t)(ij->in.end - ij->in.p);

	/* What was read past the rectangle stays in the chunk for the next
	 * one; the span ends with the read (dec_read_job). */
	if (ij->j->in_place) {
		ij->j->data.len = (size_t)(ij->in.p - ij->j->data.p);
		ij->in.end = ij->in.p;
		return DEC_OK;
	}

	if (vnc_source_unread(ij->c->src, ij->in.p, extra) < 0)
		return nomem(ij->c, extra);
	ij->j->data.len -= extra;
	ij->in.end = ij->in.p;
	return DEC_OK;
}

static const uint8_t *mem_peek(struct vnc_source *s, size_t *len)
{
	struct vnc_mem_source *m = (struct vnc_mem_source *)s;

	*len = m->window && m->window < m->left ? m->window : m->left;
	return m->p;
}

static void mem_consume(struct vnc_source *s, size_t n)
{
	struct vnc_mem_source *m = (struct vnc_mem_source *)s;

	m->p += n;
	m->left -= n;
	m->consumed += n;
}

static int mem_read(struct vnc_source *s, void *buf, size_t n)
{
	struct vnc_mem_source *m = (struct vnc_mem_source *)s;

	if (n > m->left) {
		mem_consume(s, m->left);
		return -1;
	}
	if (n)
		memcpy(buf, m->p, n);
	mem_consume(s, n);
	return 0;
}

static ptrdiff_t mem_read_some(struct vnc_source *s, void *buf, size_t min,
			       size_t max)
{
	struct vnc_mem_source *m = (struct vnc_mem_source *)s;
	size_t n = m->left < max ? m->left : max;

	if (m->window && n > min + m->window)
		n = min + m->window;
	if (n < min || mem_read(s, buf, n) < 0) {
		mem_consume(s, m->left);
		return -1;
	}
	return (ptrdiff_t)n;
}

/* The bytes are still there, just before p. */
static int mem_unread(struct vnc_source *s, const void *p, size_t n)
{
	struct vnc_mem_source *m = (struct vnc_mem_source *)s;

	(void)p;
	m->p -= n;
	m->left += n;
	m->consumed -= n;
	return 0;
}

static const struct vnc_source_ops mem_ops = {.read = mem_read,
					      .peek = mem_peek,
					      .consume = mem_consume,
					      .read_some = mem_read_some,
					      .unread = mem_unread};

void vnc_mem_source_init(struct vnc_mem_source *m, const void *data, size_t len)
{
	m->base.ops = &mem_ops;
	m->p = data;
	m->left = len;
	m->consumed = 0;
}
