/* Open H.264 rectangles (encoding 50): one libavcodec decoder context per
 * rectangle position, frames cropped to the rectangle and converted by
 * libswscale into the format of the job's buffer (the shadow's, the
 * wire's mirror's, a cursor's R,G,B,A: never fixed for the connection),
 * what it may write checked first (dec_bound; decode.h, dec_h264.h).
 *
 * The context table (struct dec_h264) lives with the reader's zlib
 * streams and is touched only by read(), on the main thread: it applies
 * the flags, finds or makes the rectangle's context (evicting the least
 * recently used one past DEC_H264_MAX_CTX) and hands it to the job.
 * decode() advances that context alone. Jobs of one context have the same
 * rectangle, so the pool runs them one after the other in stream order
 * (decpool.h: overlapping jobs are ordered), and contexts of rectangles
 * apart decode in parallel. A context the table lets go (reset, evicted)
 * may still have jobs in the queue: it waits on a list until its pending
 * count, which decode() lowers, is zero. */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libavcodec/avcodec.h>
#include <libavutil/error.h>
#include <libavutil/frame.h>
#include <libavutil/hwcontext.h>
#include <libavutil/imgutils.h>
#include <libavutil/log.h>
#include <libavutil/pixdesc.h>
#include <libswscale/swscale.h>

#include "decode/dec_h264.h"
#include "decode/decode_priv.h"
#include "util/log.h"
#include "wire/rfb.h"

#define FLAG_RESET 1u
#define FLAG_RESET_ALL 2u

struct dec_h264_ctx {
	struct rect r;
	uint64_t used; /* the table's clock when last given a job */
	atomic_uint pending;
	struct dec_h264_ctx *next; /* on the retired list */
	/* Decode side (the job's thread), made at the first frame. */
	AVCodecContext *av;
	AVPacket *pkt;
	AVFrame *frame, *got;
	struct SwsContext *sws;
	/* What sws was set up for: the converter is chosen again only when
	 * one of these changes. dst is the format it writes, the job's
	 * (a cursor's R,G,B,A, the shadow's, the wire's after a switch):
	 * never the connection's. */
	int sws_fmt, sws_space, sws_full, sws_cols, sws_rows, sws_dst;
	bool said; /* the path logged */
};

struct dec_h264 {
	struct dec_h264_ctx *live[DEC_H264_MAX_CTX];
	unsigned n;
	uint64_t area; /* the live contexts' pixels */
	uint64_t clock;
	struct dec_h264_ctx *retired;
	uint64_t desk; /* the desktop's pixels, at the latest read */
	atomic_bool said; /* the path logged for this connection */
};

/* libavcodec's own messages are detail for -v -v; the error that ends
 * the connection is said once, by the reader, with the decoder's first
 * complaint on this thread ("non-existing PPS 0 referenced"). */
static __thread char av_last[120];

__attribute__((format(printf, 3, 0))) static void
av_log_cb(void *avcl, int level, const char *fmt, va_list ap)
{
	char buf[LOG_TEXT_SIZE], clean[LOG_TEXT_SIZE];
	int n;

	if (level > AV_LOG_WARNING)
		return;
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	if (n <= 0)
		return;
	if ((size_t)n >= sizeof(buf))
		n = sizeof(buf) - 1;
	while (n > 0 && buf[n - 1] == '\n')
		n--;
	log_sanitize(clean, buf, (size_t)n);
	/* The first: later ones follow from it ("no frame!"). */
	if (level <= AV_LOG_ERROR && !av_last[0])
		snprintf(av_last, sizeof(av_last), "%.100s", clean);
	if (log_get_level() >= LOG_DEBUG)
		log_debug("libavcodec: %s", clean);
}

static void av_once(void)
{
	av_log_set_callback(av_log_cb);
}

static pthread_once_t av_once_ctl = PTHREAD_ONCE_INIT;

/* The pixel formats libswscale writes as they are. */
static enum AVPixelFormat shadow_av_fmt(const struct pixfmt *pf)
{
	static const struct {
		enum AVPixelFormat fmt;
		uint8_t bpp, rs, gs, bs, rb, gb, bb;
		bool big;
	} map[] = {
	    /* 32 bpp as little-endian values. */
	    {AV_PIX_FMT_BGR0, 32, 16, 8, 0, 8, 8, 8, false},
	    {AV_PIX_FMT_RGB0, 32, 0, 8, 16, 8, 8, 8, false},
	    {AV_PIX_FMT_0RGB, 32, 8, 16, 24, 8, 8, 8, false},
	    {AV_PIX_FMT_0BGR, 32, 24, 16, 8, 8, 8, 8, false},
	    /* The same bytes as big-endian values. */
	    {AV_PIX_FMT_BGR0, 32, 8, 16, 24, 8, 8, 8, true},
	    {AV_PIX_FMT_RGB0, 32, 24, 16, 8, 8, 8, 8, true},
	    {AV_PIX_FMT_0RGB, 32, 16, 8, 0, 8, 8, 8, true},
	    {AV_PIX_FMT_0BGR, 32, 0, 8, 16, 8, 8, 8, true},
	    {AV_PIX_FMT_RGB565LE, 16, 11, 5, 0, 5, 6, 5, false},
	    {AV_PIX_FMT_RGB565BE, 16, 11, 5, 0, 5, 6, 5, true},
	    {AV_PIX_FMT_BGR565LE, 16, 0, 5, 11, 5, 6, 5, false},
	    {AV_PIX_FMT_BGR565BE, 16, 0, 5, 11, 5, 6, 5, true},
	    {AV_PIX_FMT_RGB555LE, 16, 10, 5, 0, 5, 5, 5, false},
	    {AV_PIX_FMT_RGB555BE, 16, 10, 5, 0, 5, 5, 5, true},
	};

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (map[i].bpp == pf->bpp && map[i].rs == pf->r_shift &&
		    map[i].gs == pf->g_shift && map[i].bs == pf->b_shift &&
		    map[i].rb == pf->r_bits && map[i].gb == pf->g_bits &&
		    map[i].bb == pf->b_bits && map[i].big == pf->big_endian)
			return map[i].fmt;
	return AV_PIX_FMT_NONE;
}

/* What a job writes, from the format of the buffer it draws into (its
 * dec_fb, set per job): libswscale's name for that format (*direct), or
 * AV_PIX_FMT_RGB24 rows for the format's from_rgb converter. A
 * CursorWithAlpha's R,G,B,A (depth 32: the alpha byte is a channel)
 * comes out opaque, H.264 having no alpha. */
static enum AVPixelFormat job_av_fmt(const struct dec_fmt *f, bool *direct)
{
	enum AVPixelFormat fmt = AV_PIX_FMT_NONE;
	const struct pixfmt *pf = &f->pf;

	if (f->depth == 32 && pf->bpp == 32 && pf->r_bits == 8 &&
	    pf->g_bits == 8 && pf->b_bits == 8) {
		unsigned r = pf->r_shift / 8, g = pf->g_shift / 8,
			 b = pf->b_shift / 8;

		if (pf->big_endian)
			r = 3 - r, g = 3 - g, b = 3 - b;
		if (r == 0 && g == 1 && b == 2)
			fmt = AV_PIX_FMT_RGBA;
		else if (r == 2 && g == 1 && b == 0)
			fmt = AV_PIX_FMT_BGRA;
	} else {
		fmt = shadow_av_fmt(pf);
	}
	*direct = fmt != AV_PIX_FMT_NONE;
	return *direct ? fmt : AV_PIX_FMT_RGB24;
}

/* Bytes a pixel of fmt takes as libswscale writes it. */
static unsigned av_fmt_bytes(enum AVPixelFormat fmt)
{
	const AVPixFmtDescriptor *d = av_pix_fmt_desc_get(fmt);

	return d ? (unsigned)av_get_padded_bits_per_pixel(d) / 8 : 0;
}

const char *dec_h264_version(void)
{
	static char buf[96];
	unsigned c = avcodec_version(), s = swscale_version();

	snprintf(buf, sizeof(buf), "libavcodec %u.%u.%u, libswscale %u.%u.%u",
		 c >> 16, c >> 8 & 0xff, c & 0xff, s >> 16, s >> 8 & 0xff,
		 s & 0xff);
	return buf;
}

static void ctx_free(struct dec_h264_ctx *x)
{
	if (!x)
		return;
	avcodec_free_context(&x->av);
	av_packet_free(&x->pkt);
	av_frame_free(&x->frame);
	av_frame_free(&x->got);
	sws_freeContext(x->sws);
	free(x);
}

/* Free the retired contexts no job needs any more (main thread). */
static void sweep(struct dec_h264 *t)
{
	struct dec_h264_ctx **pp = &t->retired;

	while (*pp) {
		struct dec_h264_ctx *x = *pp;

		if (atomic_load_explicit(&x->pending, memory_order_acquire)) {
			pp = &x->next;
			continue;
		}
		*pp = x->next;
		ctx_free(x);
	}
}

static void retire(struct dec_h264 *t, unsigned i)
{
	struct dec_h264_ctx *x = t->live[i];

	t->area -= (uint64_t)x->r.w * (uint64_t)x->r.h;
	t->live[i] = t->live[--t->n];
	x->next = t->retired;
	t->retired = x;
}

void dec_h264_free(struct dec_h264 *t)
{
	if (!t)
		return;
	/* Only once no job can run (the pool is gone): pending counts of
	 * jobs dropped after a failure are never lowered. */
	while (t->n)
		retire(t, 0);
	while (t->retired) {
		struct dec_h264_ctx *x = t->retired;

		t->retired = x->next;
		ctx_free(x);
	}
	free(t);
}

static bool same_rect(const struct rect *a, const struct rect *b)
{
	return a->x == b->x && a->y == b->y && a->w == b->w && a->h == b->h;
}

static struct dec_h264 *table(struct dec_ctx *c)
{
	struct dec_h264 *t = c->zs->h264;

	if (t)
		return t;
	pthread_once(&av_once_ctl, av_once);
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	c->zs->h264 = t;
	return t;
}

/* The most data a rectangle may carry: an I frame of PCM macroblocks is
 * 1.5 bytes a pixel; several frames and parameter sets fit in 4. */
static uint64_t max_len(const struct rect *r)
{
	return (uint64_t)r->w * (uint64_t)r->h * 4 + 65536;
}

static int h264_read(struct dec_ctx *c, struct dec_job *j)
{
	struct dec_h264 *t;
	struct dec_h264_ctx *x = NULL;
	uint8_t hdr[8];
	uint32_t len, flags;
	int err;

	j->h264 = NULL;
	if (dec_read(c, hdr, 8) != DEC_OK)
		return DEC_EOF;
	len = dec_be32(hdr);
	flags = dec_be32(hdr + 4);
	if (len && (j->r.w == 0 || j->r.h == 0))
		return dec_bad(c,
			       "%u bytes of H.264 data for an empty "
			       "rectangle",
			       len);
	if (len > max_len(&j->r) || len > RFB_MAX_RECT_DATA - 64)
		return dec_bad(c,
			       "%u bytes of H.264 data, more than %llu "
			       "for its pixels",
			       len, (unsigned long long)max_len(&j->r));
	t = table(c);
	if (!t)
		return dec_bad(c, "out of memory for H.264 contexts");
	sweep(t);
	/* Both flags apply before the data (unknown bits are ignored). */
	if (flags & FLAG_RESET_ALL)
		while (t->n)
			retire(t, 0);
	for (unsigned i = 0; i < t->n; i++) {
		if (!same_rect(&t->live[i]->r, &j->r))
			continue;
		if (flags & FLAG_RESET)
			retire(t, i);
		else
			x = t->live[i];
		break;
	}
	if (len == 0)
		return DEC_OK;
	/* The data, with the zeroed padding libavcodec reads past its
	 * end. */
	if (!dec_take(c, j, len, &err))
		return err;
	if (j->data.cap - j->data.len < AV_INPUT_BUFFER_PADDING_SIZE) {
		uint8_t *p = realloc(
		    j->data.p, j->data.len + AV_INPUT_BUFFER_PADDING_SIZE);

		if (!p)
			return dec_bad(c,
				       "out of memory for %u bytes of "
				       "H.264 data",
				       len);
		j->data.p = p;
		j->data.cap = j->data.len + AV_INPUT_BUFFER_PADDING_SIZE;
	}
	memset(j->data.p + j->data.len, 0, AV_INPUT_BUFFER_PADDING_SIZE);
	if (!x) {
		/* Each context keeps its reference frames: past 64, or past
		 * DEC_H264_AREA desktops of pixels, the least recent go. */
		uint64_t a = (uint64_t)j->r.w * (uint64_t)j->r.h,
			 px = (uint64_t)c->fb.width * c->fb.height, budget;

		/* The budget is the desktop's, also while a cursor's
		 * pixels (their own R,G,B,A buffer, depth 32) are read:
		 * its few pixels would evict every desktop context. */
		if (c->fb.fmt->depth != 32 || px > t->desk)
			t->desk = px;
		budget = DEC_H264_AREA * t->desk;

		while (t->n == DEC_H264_MAX_CTX ||
		       (t->n && t->area + a > budget)) {
			unsigned lru = 0;

			for (unsigned i = 1; i < t->n; i++)
				if (t->live[i]->used < t->live[lru]->used)
					lru = i;
			retire(t, lru);
		}
		x = calloc(1, sizeof(*x));
		if (!x)
			return dec_bad(c, "out of memory for an H.264 "
					  "context");
		x->r = j->r;
		x->sws_fmt = AV_PIX_FMT_NONE;
		x->sws_dst = AV_PIX_FMT_NONE;
		t->live[t->n++] = x;
		t->area += a;
	}
	x->used = ++t->clock;
	atomic_fetch_add_explicit(&x->pending, 1, memory_order_relaxed);
	j->h264 = x;
	return DEC_OK;
}

static int av_bad(struct dec_ctx *c, const char *what, int ret)
{
	char e[AV_ERROR_MAX_STRING_SIZE];

	if (ret == AVERROR(ENOMEM))
		return dec_bad(c, "out of memory in libavcodec (%s)", what);
	av_strerror(ret, e, sizeof(e));
	if (av_last[0])
		return dec_bad(c, "bad H.264 data (%s: %s: %s)", what, e,
			       av_last);
	return dec_bad(c, "bad H.264 data (%s: %s)", what, e);
}

/* Why the hardware decoder is not used, for the -v line: VAAPI's
 * device opened and closed again. The copy-free DRM PRIME path is not
 * built (no VAAPI or V4L2 decoder to test it on), so even a device that
 * opens leaves the software path on. */
static void hw_reason(char *why, size_t n)
{
	AVBufferRef *dev = NULL;
	int ret = av_hwdevice_ctx_create(&dev, AV_HWDEVICE_TYPE_VAAPI, NULL,
					 NULL, 0);

	if (ret < 0) {
		char e[64];

		av_strerror(ret, e, sizeof(e));
		snprintf(why, n, "no VAAPI device: %s", e);
		return;
	}
	av_buffer_unref(&dev);
	snprintf(why, n, "a VAAPI device opens, but the copy-free path is "
			 "not built");
}

static int ctx_open(struct dec_ctx *c, struct dec_h264_ctx *x)
{
	const AVCodec *codec = avcodec_find_decoder(AV_CODEC_ID_H264);
	int ret;

	if (!codec)
		return dec_bad(c, "libavcodec has no H.264 decoder");
	x->av = avcodec_alloc_context3(codec);
	x->pkt = av_packet_alloc();
	x->frame = av_frame_alloc();
	x->got = av_frame_alloc();
	if (!x->av || !x->pkt || !x->frame || !x->got)
		return dec_bad(c, "out of memory for an H.264 decoder");
	/* A frame out for every frame in: the pool, not libavcodec's
	 * frame threads (which hold frames back), decodes in parallel. */
	x->av->flags |= AV_CODEC_FLAG_LOW_DELAY;
	x->av->thread_count = 1;
	/* Frames may be larger than the rectangle (they are cropped), not
	 * without bound: libavcodec refuses an SPS past this before it
	 * allocates its pictures. */
	x->av->max_pixels = (int64_t)(x->r.w + 256) * (x->r.h + 256);
	ret = avcodec_open2(x->av, codec, NULL);
	if (ret < 0) {
		avcodec_free_context(&x->av);
		return av_bad(c, "avcodec_open2", ret);
	}
	return DEC_OK;
}

/* Where the access unit that starts at p ends (Annex B: each NAL unit
 * after a start code). A new unit starts at an access unit delimiter,
 * SEI or parameter set, or at the first slice of a picture
 * (first_mb_in_slice 0: its ue(v) is a single 1 bit), once the current
 * one has a slice. */
size_t dec_h264_au_end(const uint8_t *p, size_t n)
{
	bool vcl = false;
	size_t i = 0;

	for (;;) {
		size_t s;
		unsigned type;

		/* The next start code (00 00 01) at or after i. */
		while (i + 3 <= n &&
		       !(p[i] == 0 && p[i + 1] == 0 && p[i + 2] == 1))
			i++;
		if (i + 3 > n)
			return n;
		s = i;
		i += 3;
		if (i >= n)
			return n;
		type = p[i] & 0x1f;
		if (type == 1 || type == 5) {
			bool first = i + 1 < n && (p[i + 1] & 0x80);

			if (vcl && first)
				return s > 0 && p[s - 1] == 0 ? s - 1 : s;
			vcl = true;
		} else if (vcl &&
			   (type == 6 || type == 7 || type == 8 || type == 9)) {
			return s > 0 && p[s - 1] == 0 ? s - 1 : s;
		}
	}
}

/* Hand one access unit to the decoder and take what it gives. */
static int feed(struct dec_ctx *c, struct dec_h264_ctx *x, uint8_t *p, size_t n,
		unsigned *frames)
{
	int ret;

	av_last[0] = '\0';
	x->pkt->data = p;
	x->pkt->size = (int)n;
	ret = avcodec_send_packet(x->av, x->pkt);
	if (ret < 0)
		return av_bad(c, "avcodec_send_packet", ret);
	for (;;) {
		ret = avcodec_receive_frame(x->av, x->got);
		if (ret == AVERROR(EAGAIN) || ret == AVERROR_EOF)
			return DEC_OK;
		if (ret < 0)
			return av_bad(c, "avcodec_receive_frame", ret);
		av_frame_unref(x->frame);
		av_frame_move_ref(x->frame, x->got);
		(*frames)++;
	}
}

static enum AVPixelFormat plain_yuv(int fmt, int *full)
{
	switch (fmt) {
	case AV_PIX_FMT_YUVJ420P:
		*full = 1;
		return AV_PIX_FMT_YUV420P;
	case AV_PIX_FMT_YUVJ422P:
		*full = 1;
		return AV_PIX_FMT_YUV422P;
	case AV_PIX_FMT_YUVJ444P:
		*full = 1;
		return AV_PIX_FMT_YUV444P;
	default:
		return (enum AVPixelFormat)fmt;
	}
}

/* The converter for this frame into dst: the same one while the
 * frame's format, matrix and range (the SPS's) and dst stay, chosen
 * again when one changes. */
static int converter(struct dec_ctx *c, struct dec_h264 *t,
		     struct dec_h264_ctx *x, const AVFrame *f, int cols,
		     int rows, enum AVPixelFormat dst, bool direct)
{
	int full = f->color_range == AVCOL_RANGE_JPEG;
	enum AVPixelFormat src = plain_yuv(f->format, &full);
	int space = f->colorspace;
	const int *coef;

	if (x->sws && src == x->sws_fmt && space == x->sws_space &&
	    full == x->sws_full && cols == x->sws_cols && rows == x->sws_rows &&
	    dst == x->sws_dst)
		return DEC_OK;
	sws_freeContext(x->sws);
	x->sws_dst = AV_PIX_FMT_NONE;
	x->sws = sws_getContext(cols, rows, src, cols, rows, dst,
				SWS_POINT, NULL, NULL, NULL);
	if (!x->sws)
		return dec_bad(
		    c,
		    "libswscale cannot convert H.264 frames "
		    "in %s",
		    av_get_pix_fmt_name(src) ? av_get_pix_fmt_name(src) : "?");
	/* Unspecified is BT.601, as for every other decoder. */
	coef = sws_getCoefficients(
	    space == AVCOL_SPC_UNSPECIFIED ? SWS_CS_DEFAULT : space);
	sws_setColorspaceDetails(x->sws, coef, full,
				 sws_getCoefficients(SWS_CS_DEFAULT), 1, 0,
				 1 << 16, 1 << 16);
	x->sws_fmt = src;
	x->sws_space = space;
	x->sws_full = full;
	x->sws_cols = cols;
	x->sws_rows = rows;
	x->sws_dst = dst;
	if (!atomic_exchange(&t->said, true)) {
		char why[96];

		hw_reason(why, sizeof(why));
		log_debug(
		    "H.264: decoding in software (libavcodec %s; %s), "
		    "converting %s %s-range %s to %s with libswscale%s",
		    x->av->codec->name, why,
		    av_get_pix_fmt_name(src) ? av_get_pix_fmt_name(src) : "?",
		    full ? "full" : "limited",
		    av_color_space_name(space) ? av_color_space_name(space)
					       : "?",
		    av_get_pix_fmt_name(dst),
		    direct ? " into the shadow" : " and a table");
	}
	return DEC_OK;
}

/* libswscale's SIMD converters store whole groups of pixels, up to 15
 * past the width: only a rectangle whose width is a multiple of 16 is
 * converted in place; others go through scratch rows with room to spare
 * and are copied. And its C converters into 15 and 16 bits (rgb565,
 * bgr565, rgb555: all of them on arm64, bgr565 on x86-64 too) write
 * whole groups of 8 pixels and leave the last 1-7 of a width unwritten
 * (doc/testing.md), so scratch rows are converted SWS_GROUP pixels at a
 * time, from columns the decoder's picture has past the rectangle (its
 * coded width is whole macroblocks). */
#define SWS_GROUP 16

/* Whether each plane of f holds cols x rows from its top-left: the
 * bytes read lie in the plane's buffer. */
static bool frame_holds(const AVFrame *f, int cols, int rows)
{
	const AVPixFmtDescriptor *d = av_pix_fmt_desc_get(f->format);

	if (!d || cols > f->width + SWS_GROUP || rows > f->height + 1)
		return false;
	for (int p = 0; p < 4 && f->data[p]; p++) {
		AVBufferRef *b = av_frame_get_plane_buffer((AVFrame *)f, p);
		int bytes = av_image_get_linesize(f->format, cols, p);
		int n = p == 1 || p == 2 ? AV_CEIL_RSHIFT(rows, d->log2_chroma_h)
					 : rows;
		const uint8_t *end;

		if (!b || bytes <= 0 || f->linesize[p] < bytes ||
		    f->data[p] < b->data)
			return false;
		end = f->data[p] + (size_t)(n - 1) * (size_t)f->linesize[p] +
		      (size_t)bytes;
		if (end > b->data + b->size)
			return false;
	}
	return true;
}

static int draw(struct dec_ctx *c, struct dec_h264_ctx *x)
{
	struct dec_h264 *t = c->zs->h264;
	const AVFrame *f = x->frame;
	const struct dec_fb *fb = &c->fb;
	const struct rect *r = &x->r;
	/* An odd height takes libswscale's slow path, whose chroma is a
	 * row off (the error doubles): convert one row more, which the
	 * decoder's picture (in whole macroblocks) has, and leave it. */
	int rows = r->h + (r->h & 1 && x->av->coded_height > r->h);
	/* Scratch rows in whole groups (an odd width's last column too:
	 * libswscale's 0RGB converter got its colour wrong). */
	int cols = (r->w + SWS_GROUP - 1) / SWS_GROUP * SWS_GROUP;
	bool direct;
	enum AVPixelFormat fmt = job_av_fmt(fb->fmt, &direct);
	bool in_place = direct && r->w % SWS_GROUP == 0 && rows == r->h;
	/* What libswscale writes a pixel, from the format it is given. */
	unsigned obpp;
	uint8_t *dst[4] = {NULL};
	int stride[4] = {0};
	uint8_t *tmp = NULL;
	int ret;

	if (f->width < r->w || f->height < r->h)
		return dec_bad(c,
			       "an H.264 frame of %dx%d, smaller than its "
			       "rectangle",
			       f->width, f->height);
	if (!frame_holds(f, cols, rows)) {
		/* A picture cropped on the left (only a server that means
		 * it sends one): the rectangle's own columns, as RGB24,
		 * which every libswscale path writes whole. */
		cols = r->w;
		if (!frame_holds(f, cols, rows))
			rows = r->h;
		in_place = false;
		if (direct)
			fmt = AV_PIX_FMT_RGB24, direct = false;
	}
	obpp = av_fmt_bytes(fmt);
	if (direct && obpp != fb->fmt->bpp)
		return dec_bad(c,
			       "internal: libswscale's %s is %u bytes a pixel, "
			       "the buffer's format %u",
			       av_get_pix_fmt_name(fmt), obpp, fb->fmt->bpp);
	ret = converter(c, t, x, f, cols, rows, fmt, direct);
	if (ret != DEC_OK)
		return ret;
	if (in_place) {
		dst[0] = dec_fb_at(fb, (uint32_t)r->x, (uint32_t)r->y);
		stride[0] = (int)fb->stride;
	} else {
		size_t pitch = ((size_t)cols + SWS_GROUP) * obpp;

		tmp = dec_scratch(c, pitch * (size_t)rows + 64);
		if (!tmp)
			return DEC_NOMEM;
		dst[0] = tmp;
		stride[0] = (int)pitch;
	}
	/* Cropped: the top-left r->w x r->h of the frame, rows of r->w
	 * pixels of obpp bytes (scratch rows: up to SWS_GROUP more). */
	ret = in_place ? dec_bound(c, "sws_scale", r, dst[0], (size_t)stride[0],
				   (size_t)rows, (size_t)r->w * obpp)
		       : dec_bound(c, "sws_scale", NULL, dst[0],
				   (size_t)stride[0], (size_t)rows,
				   (size_t)stride[0]);
	if (ret != DEC_OK)
		return ret;
	sws_scale(x->sws, (const uint8_t *const *)f->data, f->linesize, 0, rows,
		  dst, stride);
	if (in_place)
		return DEC_OK;
	for (int32_t y = 0; y < r->h; y++) {
		uint8_t *d =
		    dec_fb_at(fb, (uint32_t)r->x, (uint32_t)(r->y + y));
		const uint8_t *s = tmp + (size_t)y * (size_t)stride[0];

		if (direct)
			memcpy(d, s, (size_t)r->w * obpp);
		else
			pixconv_row(&fb->fmt->from_rgb, d, s, (size_t)r->w);
	}
	return DEC_OK;
}

static int decode_data(struct dec_ctx *c, struct dec_h264_ctx *x, uint8_t *p,
		       size_t n)
{
	unsigned frames = 0;
	int ret;

	if (!x->av && (ret = ctx_open(c, x)) != DEC_OK)
		return ret;
	/* Every frame of the rectangle, then the last one shown. */
	while (n > 0) {
		size_t k = dec_h264_au_end(p, n);

		if (dec_check(c) != DEC_OK)
			return DEC_EOF;
		ret = feed(c, x, p, k, &frames);
		if (ret != DEC_OK)
			return ret;
		p += k;
		n -= k;
	}
	return frames ? draw(c, x) : DEC_OK;
}

static int h264_decode(struct dec_ctx *c, const struct dec_job *j)
{
	struct dec_h264_ctx *x = j->h264;
	int ret;

	if (!x)
		return DEC_OK;
	ret = decode_data(c, x, j->data.p, j->data.len);
	/* The last use of x by this job: the table may free it now. */
	atomic_fetch_sub_explicit(&x->pending, 1, memory_order_release);
	return ret;
}

/* First after CopyRect in the default list: a server that sends it
 * chooses it for video-like content. Lossy, so offered from the default
 * list only with --quality. */
const struct decoder dec_h264 = {
    .enc = RFB_ENC_H264,
    .name = "h264",
    .label = "Open H.264",
    .rank = 2,
    .flags = DEC_LOSSY | DEC_OWN,
    .read = h264_read,
    .decode = h264_decode,
};
