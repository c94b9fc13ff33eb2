/* Bench server: libvncserver on loopback producing one deterministic frame
 * of a workload each time an update has been sent. */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rfb/rfb.h>

#include "decode/decode.h"
#include "tools/bench/benchsrv.h"
#include "wire/encodings.h"
#include "util/clock.h"
#include "util/hash.h"
#include "util/log.h"

#define LINE_H 16
#define CELL_W 8
#define TYPING_RECTS 3

static const char *const workload_names[BENCH_WORKLOADS] = {
    [BENCH_FULLFRAME] = "fullframe",
    [BENCH_SCROLL] = "scroll",
    [BENCH_TYPING] = "typing",
    [BENCH_IDLE] = "idle",
    [BENCH_FIT] = "fit",
};

struct benchsrv {
	rfbScreenInfoPtr screen;
	rfbCursorPtr cursor;
	uint32_t w, h;
	struct pixfmt fmt;
	size_t stride;
	/* fullframe alternates between two pre-drawn pictures that differ in
	 * every pixel (the server's own cost stays small and constant);
	 * the other workloads draw into pix[0]. */
	uint8_t *pix[2];
	bool pix1_ready, pix0_video, text0_ready;
	enum bench_workload wl;
	uint64_t n; /* frame number, output thread */
	atomic_uint_fast64_t frames;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int clients;			       /* under lock */
	uint64_t enc_sent[BENCHSRV_ENCODINGS]; /* under lock */
	uint64_t bytes_sent;		       /* under lock */
	uint8_t *text0; /* frame 0 of the text workloads */
};

int benchsrv_workload_from_name(const char *name, size_t len)
{
	int i;

	for (i = 0; i < BENCH_WORKLOADS; i++)
		if (strlen(workload_names[i]) == len &&
		    strncmp(workload_names[i], name, len) == 0)
			return i;
	return -1;
}

const char *benchsrv_workload_name(enum bench_workload w)
{
	return w < BENCH_WORKLOADS ? workload_names[w] : "?";
}

static void quiet_log(const char *fmt, ...)
{
	(void)fmt;
}

static void fill(struct benchsrv *s, uint8_t *pix, int x, int y, int w, int h,
		 uint32_t v)
{
	unsigned bpp = pixfmt_bytes(&s->fmt);
	int i, j;

	for (j = y; j < y + h; j++) {
		uint8_t *p = pix + (size_t)j * s->stride + (size_t)x * bpp;

		for (i = 0; i < w; i++, p += bpp)
			pixfmt_store(&s->fmt, p, v);
	}
}

/* One 8x16 character cell: an 6x11 glyph of seeded pseudo-random
 * strokes on the paper colour, or blank. */
static void draw_cell(struct benchsrv *s, uint8_t *pix, int x, int y,
		      uint32_t seed, bool blank)
{
	uint32_t paper = pixfmt_pack(&s->fmt, 250, 250, 242);
	uint32_t ink = pixfmt_pack(&s->fmt, 30, 30, 40);
	unsigned bpp = pixfmt_bytes(&s->fmt);
	int i, j;

	fill(s, pix, x, y, CELL_W, LINE_H, paper);
	if (blank)
		return;
	for (j = 3; j < 14; j++) {
		uint32_t bits = hash32(seed * 31u + (uint32_t)j);
		uint8_t *p =
		    pix + (size_t)(y + j) * s->stride + (size_t)(x + 1) * bpp;

		for (i = 0; i < 6; i++, p += bpp)
			if (bits & (1u << i))
				pixfmt_store(&s->fmt, p, ink);
	}
}

/* Text line number line at screen row y: a ragged line of glyphs. */
static void draw_line(struct benchsrv *s, uint8_t *pix, int y, uint32_t line)
{
	int cols = (int)s->w / CELL_W, c;
	int len = (int)(hash32(line) % (uint32_t)(cols + 1));

	for (c = 0; c < cols; c++) {
		uint32_t seed = hash32(line * 977u + (uint32_t)c);

		draw_cell(s, pix, c * CELL_W, y, seed,
			  c >= len || seed % 6 == 0);
	}
	if ((uint32_t)cols * CELL_W < s->w)
		fill(s, pix, cols * CELL_W, y, (int)s->w - cols * CELL_W,
		     LINE_H, pixfmt_pack(&s->fmt, 250, 250, 242));
}

/* Picture k of fullframe: a gradient with texture; picture 0 and 1 differ
 * in every pixel (red moves by 64 of 255, enough for any format). */
static void draw_video(struct benchsrv *s, uint8_t *pix, unsigned k)
{
	unsigned bpp = pixfmt_bytes(&s->fmt);
	uint32_t x, y;

	for (y = 0; y < s->h; y++) {
		uint8_t *p = pix + (size_t)y * s->stride;
		unsigned g = (unsigned)(y * 255 / s->h) + 96 * k;

		for (x = 0; x < s->w; x++, p += bpp) {
			unsigned r = (unsigned)(x * 255 / s->w) + 64 * k;
			unsigned b = (x * 7 + y * 13 + ((x * y) >> 6)) + 32 * k;

			pixfmt_store(&s->fmt, p,
				     pixfmt_pack(&s->fmt, (uint8_t)r,
						 (uint8_t)g, (uint8_t)b));
		}
	}
}

static void draw_first(struct benchsrv *s)
{
	uint32_t lines = s->h / LINE_H, i;

	switch (s->wl) {
	case BENCH_FULLFRAME:
	case BENCH_FIT:
		if (!s->pix0_video)
			draw_video(s, s->pix[0], 0);
		s->pix0_video = true;
		if (!s->pix1_ready) {
			draw_video(s, s->pix[1], 1);
			s->pix1_ready = true;
		}
		break;
	case BENCH_SCROLL:
	case BENCH_TYPING:
	case BENCH_IDLE:
		/* Drawn once, copied for every connection. */
		if (!s->text0_ready) {
			for (i = 0; i < lines; i++)
				draw_line(s, s->text0, (int)(i * LINE_H), i);
			if (s->h % LINE_H)
				fill(s, s->text0, 0, (int)(lines * LINE_H),
				     (int)s->w, (int)(s->h % LINE_H),
				     pixfmt_pack(&s->fmt, 250, 250, 242));
			s->text0_ready = true;
		}
		memcpy(s->pix[0], s->text0, s->stride * s->h);
		s->pix0_video = false;
		break;
	default:
		break;
	}
	s->screen->frameBuffer = (char *)s->pix[0];
}

/* Frame s->n, on libvncserver's output thread. */
static void draw_next(struct benchsrv *s)
{
	int lines = (int)s->h / LINE_H, cols = (int)s->w / CELL_W, i;

	s->n++;
	switch (s->wl) {
	case BENCH_FULLFRAME:
	case BENCH_FIT:
		s->screen->frameBuffer = (char *)s->pix[s->n & 1];
		rfbMarkRectAsModified(s->screen, 0, 0, (int)s->w, (int)s->h);
		break;
	case BENCH_SCROLL:
		if (lines < 2)
			return;
		/* Destination rows 0..H-LINE_H come from LINE_H further
		 * down: a CopyRect for clients that take it. */
		rfbDoCopyRect(s->screen, 0, 0, (int)s->w, (lines - 1) * LINE_H,
			      0, -LINE_H);
		draw_line(s, s->pix[0], (lines - 1) * LINE_H,
			  (uint32_t)(lines + s->n));
		rfbMarkRectAsModified(s->screen, 0, (lines - 1) * LINE_H,
				      (int)s->w, lines * LINE_H);
		break;
	case BENCH_TYPING:
		if (lines < 1 || cols < 1)
			return;
		for (i = 0; i < TYPING_RECTS; i++) {
			uint32_t h = hash32(
			    (uint32_t)(s->n * TYPING_RECTS + (uint64_t)i));
			int x = (int)(h % (uint32_t)cols) * CELL_W;
			int y = (int)((h >> 12) % (uint32_t)lines) * LINE_H;

			draw_cell(s, s->pix[0], x, y, h, false);
			rfbMarkRectAsModified(s->screen, x, y, x + CELL_W,
					      y + LINE_H);
		}
		break;
	default:
		return;
	}
	atomic_fetch_add(&s->frames, 1);
}

static void on_sent(rfbClientPtr cl, int result)
{
	struct benchsrv *s = cl->screen->screenData;

	if (result && s->wl != BENCH_IDLE)
		draw_next(s);
}

/* The encodings the server counts, in its tables' order. */
static const int32_t enc_counted[] = {
    rfbEncodingCopyRect, rfbEncodingRaw,     rfbEncodingRRE,
    rfbEncodingCoRRE,    rfbEncodingHextile, rfbEncodingZlib,
    rfbEncodingTight,    rfbEncodingZRLE,    rfbEncodingZYWRLE,
    rfbEncodingTRLE,     rfbEncodingUltra,   (int32_t)rfbEncodingUltraZip,
    rfbEncodingZlibHex,
};

_Static_assert(sizeof(enc_counted) / sizeof(enc_counted[0]) ==
		   BENCHSRV_ENCODINGS,
	       "BENCHSRV_ENCODINGS");

const char *benchsrv_encoding_name(int i)
{
	const struct decoder *d;
	const struct rfb_encoding *e;

	if (i < 0 || i >= BENCHSRV_ENCODINGS)
		return "?";
	d = decoder_find(enc_counted[i]);
	if (d)
		return d->name;
	e = rfb_encoding_by_number(enc_counted[i]);
	return e ? e->option : "?";
}

static void on_gone(rfbClientPtr cl)
{
	struct benchsrv *s = cl->screen->screenData;
	uint64_t counts[BENCHSRV_ENCODINGS], bytes = 0;
	int i;

	for (i = 0; i < BENCHSRV_ENCODINGS; i++) {
		rfbStatList *st = rfbStatLookupEncoding(cl, (uint32_t)enc_counted[i]);

		counts[i] = st ? st->sentCount : 0;
	}
	for (rfbStatList *st = cl->statEncList; st; st = st->Next)
		bytes += st->bytesSent;
	pthread_mutex_lock(&s->lock);
	for (i = 0; i < BENCHSRV_ENCODINGS; i++)
		s->enc_sent[i] += counts[i];
	s->bytes_sent += bytes;
	s->clients--;
	pthread_cond_broadcast(&s->cond);
	pthread_mutex_unlock(&s->lock);
}

static enum rfbNewClientAction on_new_client(rfbClientPtr cl)
{
	struct benchsrv *s = cl->screen->screenData;

	pthread_mutex_lock(&s->lock);
	s->clients++;
	pthread_mutex_unlock(&s->lock);
	cl->clientGoneHook = on_gone;
	return RFB_CLIENT_ACCEPT;
}

static void set_server_format(rfbScreenInfoPtr scr, const struct pixfmt *f)
{
	rfbPixelFormat *pf = &scr->serverFormat;

	/* The client's format, so the server sends pixels untranslated,
	 * as a server drawing in that format natively would. */
	pf->bitsPerPixel = f->bpp;
	pf->depth = (uint8_t)(f->r_bits + f->g_bits + f->b_bits);
	pf->bigEndian = f->big_endian;
	pf->trueColour = TRUE;
	pf->redMax = (uint16_t)((1u << f->r_bits) - 1);
	pf->greenMax = (uint16_t)((1u << f->g_bits) - 1);
	pf->blueMax = (uint16_t)((1u << f->b_bits) - 1);
	pf->redShift = f->r_shift;
	pf->greenShift = f->g_shift;
	pf->blueShift = f->b_shift;
}

/* What benchsrv_start made, in reverse: the screen with its cursor (taken
 * off the screen first, so that libvncserver does not free it too), then
 * the pictures, the lock and s itself. benchsrv_start's ladder and
 * benchsrv_stop share them. */
static void screen_free(struct benchsrv *s)
{
	s->screen->cursor = NULL;
	rfbScreenCleanup(s->screen);
	if (s->cursor)
		rfbFreeCursor(s->cursor);
}

static void state_free(struct benchsrv *s)
{
	free(s->pix[0]);
	free(s->pix[1]);
	free(s->text0);
	pthread_cond_destroy(&s->cond);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

struct benchsrv *benchsrv_start(uint32_t w, uint32_t h,
				const struct pixfmt *fmt)
{
	struct benchsrv *s;
	unsigned bpp = pixfmt_bytes(fmt);
	int argc = 0;
	size_t size;

	if ((bpp != 1 && bpp != 2 && bpp != 4) || w == 0 || h == 0) {
		log_error("bench server: cannot serve %u bpp", fmt->bpp);
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (!s)
		goto err_nomem;
	s->w = w;
	s->h = h;
	s->fmt = *fmt;
	s->stride = (size_t)w * bpp;
	size = s->stride * h;
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->cond, NULL);
	s->pix[0] = calloc(1, size);
	s->pix[1] = calloc(1, size);
	s->text0 = calloc(1, size);
	if (!s->pix[0] || !s->pix[1] || !s->text0)
		goto err_pix;
	rfbLog = quiet_log;
	rfbErr = quiet_log;
	s->screen = rfbGetScreen(&argc, NULL, (int)w, (int)h, 8, 3, (int)bpp);
	if (!s->screen)
		goto err_pix;
	set_server_format(s->screen, fmt);
	s->screen->screenData = s;
	s->screen->desktopName = "vncfb bench";
	s->screen->frameBuffer = (char *)s->pix[0];
	s->screen->alwaysShared = TRUE;
	s->screen->autoPort = TRUE;
	s->screen->listenInterface = htonl(INADDR_LOOPBACK);
	s->screen->ipv6port = 0; /* IPv4 loopback only */
	s->screen->listen6Interface = "::1";
	s->screen->httpDir = NULL;
	/* libvncserver waits 5 ms before each update by default to batch
	 * changes; the bench measures the client, so send at once. */
	s->screen->deferUpdateTime = 0;
	s->screen->newClientHook = on_new_client;
	s->screen->displayFinishedHook = on_sent;
	/* An invisible cursor: libvncserver dereferences the cursor when
	 * scheduling CopyRects for clients without cursor shapes, and a
	 * visible one would be drawn into every frame. */
	s->cursor = rfbMakeXCursor(1, 1, " ", " ");
	if (!s->cursor)
		goto err_screen;
	s->screen->cursor = s->cursor;
	rfbInitServer(s->screen);
	if (s->screen->listenSock == RFB_INVALID_SOCKET) {
		log_error("bench server: cannot listen on 127.0.0.1 (ports "
			  "5900-5999 busy?)");
		goto err_screen;
	}
	rfbRunEventLoop(s->screen, -1, TRUE);
	log_debug("bench server on 127.0.0.1:%d, %ux%u", s->screen->port, w, h);
	return s;

err_screen:
	screen_free(s);
err_pix:
	state_free(s);
	return NULL;
err_nomem:
	log_error("bench server: out of memory");
	return NULL;
}

int benchsrv_port(const struct benchsrv *s)
{
	return s->screen->port;
}

static int wait_no_clients(struct benchsrv *s, int timeout_ms)
{
	struct timespec dl = deadline_in_ms(CLOCK_REALTIME, timeout_ms);
	int ret = 0;

	pthread_mutex_lock(&s->lock);
	while (s->clients > 0 && ret == 0)
		ret = pthread_cond_timedwait(&s->cond, &s->lock, &dl);
	ret = s->clients > 0 ? -ETIMEDOUT : 0;
	pthread_mutex_unlock(&s->lock);
	return ret;
}

int benchsrv_prepare(struct benchsrv *s, enum bench_workload w, int timeout_ms)
{
	if (wait_no_clients(s, timeout_ms) < 0) {
		log_error("bench server: the previous client did not leave "
			  "within %d ms",
			  timeout_ms);
		return -ETIMEDOUT;
	}
	/* No client: no output thread reads the picture now. */
	s->wl = w;
	s->n = 0;
	atomic_store(&s->frames, 0);
	draw_first(s);
	return 0;
}

void benchsrv_take_stats(struct benchsrv *s,
			 uint64_t counts[BENCHSRV_ENCODINGS], uint64_t *bytes)
{
	int i;

	wait_no_clients(s, 2000);
	pthread_mutex_lock(&s->lock);
	for (i = 0; i < BENCHSRV_ENCODINGS; i++) {
		counts[i] += s->enc_sent[i];
		s->enc_sent[i] = 0;
	}
	*bytes += s->bytes_sent;
	s->bytes_sent = 0;
	pthread_mutex_unlock(&s->lock);
}

void benchsrv_stop(struct benchsrv *s)
{
	if (!s)
		return;
	rfbShutdownServer(s->screen, TRUE);
	/* Client threads call on_gone() as their sockets close; they touch
	 * s, so it lives until they are done (and leaks if one hangs). */
	if (wait_no_clients(s, 5000) < 0) {
		log_warn("bench server: a client thread did not finish");
		return;
	}
	screen_free(s);
	state_free(s);
}
