/* Open H.264 (encoding 50) through vncfb's reader: streams made by
 * libavcodec's encoder (client/tools/demo/h264enc.h), pictures compared with
 * their source within a stated error, and the hostile cases of
 * tests/hostile-input.md: a stream cut short, resets, 65 contexts, frames
 * bigger and smaller than their rectangle, bad data. */
#include "config.h"

#include "../check.h"

#ifndef VNCFB_HAVE_H264
CHECK_SKIP_MAIN("vncfb was built without libavcodec (no Open H.264)")
#else

#include <math.h>

#include "tools/demo/h264enc.h"
#include "decode/dec_h264.h"
#include "rfbgen.h"
#include "../h264scene.h"

/* Mean absolute error per channel allowed against the source, in 8-bit
 * levels. On this scene red and green come out within 2 and blue within
 * 5: libswscale's fast converter (TigerVNC's too) takes each 2x2 block's
 * chroma sample as it is, and the wave changes blue by up to 7 levels a
 * pixel; x264's crf 18 adds under 1 (crf 2 gives nearly the same). */
#define MAX_MAE 6.0

/* A frame of the animation: gradients, a wave and a box with sharp
 * edges that moves with t; R,G,B bytes. */
static void scene(uint8_t *rgb, int w, int h, int t)
{
	int bx = (t * 3) % (w > 16 ? w - 16 : 1);

	h264scene_wave(rgb, w, h, (long)t * 2, 9.0);
	for (int y = h / 4; y < h && y < h / 4 + 16; y++)
		for (int x = bx; x < w && x < bx + 16; x++) {
			uint8_t *p = rgb + ((size_t)y * w + x) * 3;

			p[0] = 240;
			p[1] = 32;
			p[2] = 32;
		}
}

/* One Open H.264 rectangle. */
static void h264_rect(struct buf *s, unsigned x, unsigned y, unsigned w,
		      unsigned h, uint32_t flags, const uint8_t *data,
		      size_t len)
{
	rhdr(s, x, y, w, h, RFB_ENC_H264);
	u32(s, (uint32_t)len);
	u32(s, flags);
	put(s, data, len);
}

/* The mean absolute error per channel of f's w x h at x,y against the
 * R,G,B picture src (pitch sw pixels), worst channel. */
static double mae(const struct fix *f, uint32_t x, uint32_t y, uint32_t w,
		  uint32_t h, const uint8_t *src, uint32_t sw)
{
	double sum[3] = {0, 0, 0}, worst = 0;

	for (uint32_t j = 0; j < h; j++)
		for (uint32_t i = 0; i < w; i++) {
			uint32_t v = pixfmt_load(&f->fb.pf,
						 pic_at(&f->fb, x + i, y + j));
			const uint8_t *s = src + ((size_t)j * sw + i) * 3;
			uint8_t c[3];

			pixfmt_unpack(&f->fb.pf, v, &c[0], &c[1], &c[2]);
			for (int k = 0; k < 3; k++)
				sum[k] += fabs((double)c[k] - s[k]);
		}
	for (int k = 0; k < 3; k++)
		if (sum[k] / ((double)w * h) > worst)
			worst = sum[k] / ((double)w * h);
	return worst;
}

static struct h264enc *enc_new(int w, int h)
{
	struct h264enc *e = h264enc_create(w, h, 18);

	if (!e) {
		fprintf(stderr, "FAIL: no H.264 encoder in libavcodec "
				"(.ci/packages installs libavcodec with "
				"libx264)\n");
		exit(1);
	}
	return e;
}

/* Encode frame t of the scene: the Annex B bytes, copied into *out. */
static size_t enc_frame(struct h264enc *e, uint8_t *rgb, int w, int h, int t,
			bool idr, uint8_t **out)
{
	const uint8_t *p;
	size_t n;

	scene(rgb, w, h, t);
	if (h264enc_frame(e, rgb, (size_t)w * 3, idr, &p, &n) < 0)
		abort();
	*out = malloc(n);
	memcpy(*out, p, n);
	return n;
}

static int feed_one(struct fix *f, const struct buf *s)
{
	return fix_feed(f, s);
}

/* An animation of n frames in fmt: every frame within MAX_MAE. */
static void test_picture(const char *fmt, int n, double max)
{
	const int w = 96, h = 64;
	struct h264enc *e = enc_new(w, h);
	uint8_t *rgb = malloc((size_t)w * h * 3), *d;
	double worst = 0;
	struct fix f;

	fix_open(&f, fmt, w, h);
	for (int t = 0; t < n; t++) {
		struct buf s = {0};
		size_t len = enc_frame(e, rgb, w, h, t, t == 0, &d);
		double m;

		fbu(&s, 1);
		h264_rect(&s, 0, 0, w, h, 0, d, len);
		CHECK(feed_one(&f, &s) == 1, "%s frame %d: %s", fmt, t, f.why);
		m = mae(&f, 0, 0, w, h, rgb, w);
		if (m > worst)
			worst = m;
		free(s.p);
		free(d);
	}
	CHECK(worst <= max, "%s: mean absolute error %.2f, more than %.1f", fmt,
	      worst, max);
	printf("%s: %d frames, worst mean absolute error per channel %.2f "
	       "(limit %.1f)\n",
	       fmt, n, worst, max);
	fix_free(&f);
	free(rgb);
	h264enc_destroy(e);
}

/* Several frames in one rectangle: the last one is shown. */
static void test_several(void)
{
	const int w = 64, h = 48;
	struct h264enc *e = enc_new(w, h);
	uint8_t *rgb = malloc((size_t)w * h * 3), *d;
	struct buf s = {0};
	struct fix f;

	fix_open(&f, "xrgb8888", w, h);
	fbu(&s, 1);
	{
		struct buf all = {0};

		for (int t = 0; t < 4; t++) {
			size_t len = enc_frame(e, rgb, w, h, t * 5, t == 0, &d);

			put(&all, d, len);
			free(d);
		}
		h264_rect(&s, 0, 0, w, h, 0, all.p, all.n);
		free(all.p);
	}
	CHECK(fix_feed(&f, &s) == 1, "several frames: %s", f.why);
	CHECK(mae(&f, 0, 0, w, h, rgb, w) <= MAX_MAE,
	      "several frames: the last not shown (error %.2f)",
	      mae(&f, 0, 0, w, h, rgb, w));
	free(s.p);
	fix_free(&f);
	free(rgb);
	h264enc_destroy(e);
}

/* A frame larger than its rectangle is cropped to it (rfbproto: the
 * right and bottom go); one smaller is a bad rectangle. */
static void test_sizes(void)
{
	struct h264enc *e = enc_new(64, 48);
	uint8_t *rgb = malloc(64 * 48 * 3), *d;
	struct buf s = {0};
	size_t len;
	struct fix f;
	bool outside_clean = true;

	len = enc_frame(e, rgb, 64, 48, 3, true, &d);
	fix_open(&f, "xrgb8888", 80, 60);
	fbu(&s, 1);
	h264_rect(&s, 10, 5, 50, 41, 0, d, len);
	CHECK(fix_feed(&f, &s) == 1, "larger frame: %s", f.why);
	CHECK(mae(&f, 10, 5, 50, 41, rgb, 64) <= MAX_MAE,
	      "larger frame: not its top-left part (error %.2f)",
	      mae(&f, 10, 5, 50, 41, rgb, 64));
	for (uint32_t y = 0; y < 60; y++)
		for (uint32_t x = 0; x < 80; x++)
			if ((x < 10 || x >= 60 || y < 5 || y >= 46) &&
			    memcmp(pic_at(&f.fb, x, y), "\0\0\0\0", 4))
				outside_clean = false;
	CHECK(outside_clean, "larger frame: drawn outside its rectangle");
	fix_free(&f);
	free(s.p);

	s = (struct buf){0};
	fix_open(&f, "xrgb8888", 80, 60);
	fbu(&s, 1);
	h264_rect(&s, 0, 0, 70, 40, 0, d, len);
	CHECK(fix_feed(&f, &s) < 0 && f.err == VNC_ERR_PROTOCOL &&
		  strstr(f.why, "bad Open H.264 rectangle 70x40 at 0,0: an "
				"H.264 frame of 64x48, smaller than its "
				"rectangle"),
	      "smaller frame: \"%s\"", f.why);
	fix_free(&f);
	free(s.p);
	free(d);
	free(rgb);
	h264enc_destroy(e);
}

/* Feed s to a fresh 32x32 desktop: it must fail with err, its line
 * holding why; where may_draw, drawing the update is as good. */
static void expect_h264_bad(const struct buf *s, enum vnc_error err,
			    const char *why, bool may_draw, const char *what)
{
	struct fix f;
	int got;

	fix_open(&f, "xrgb8888", 32, 32);
	got = fix_feed(&f, s);
	CHECK((may_draw && got == 1) ||
		  (got < 0 && f.err == err && strstr(f.why, why)),
	      "%s: error %d \"%s\", want %d \"%s\"", what, f.err, f.why, err,
	      why);
	fix_free(&f);
}

/* Lengths: cut short, more than the pixels can need, data for an empty
 * rectangle, garbage. */
static void test_lengths(void)
{
	struct h264enc *e = enc_new(32, 32);
	uint8_t *rgb = malloc(32 * 32 * 3), *d;
	size_t len = enc_frame(e, rgb, 32, 32, 0, true, &d);
	uint8_t junk[300];
	struct buf s = {0};

	/* The connection ends inside the data. */
	fbu(&s, 1);
	h264_rect(&s, 0, 0, 32, 32, 0, d, len);
	s.n -= len / 2;
	expect_h264_bad(&s, VNC_ERR_CLOSED, "", false, "cut short");

	/* Inside the 8-byte header. */
	s.n = 0;
	fbu(&s, 1);
	rhdr(&s, 0, 0, 32, 32, RFB_ENC_H264);
	u32(&s, 100);
	expect_h264_bad(&s, VNC_ERR_CLOSED, "", false, "cut in the header");

	/* A length no 32x32 picture needs: refused before it is read. */
	s.n = 0;
	fbu(&s, 1);
	rhdr(&s, 0, 0, 32, 32, RFB_ENC_H264);
	u32(&s, 0x7fffffff);
	u32(&s, 0);
	expect_h264_bad(&s, VNC_ERR_PROTOCOL,
			"2147483647 bytes of H.264 data, more than 69632 for "
			"its pixels",
			false, "huge length");

	/* Data for a rectangle of no pixels. */
	s.n = 0;
	fbu(&s, 1);
	h264_rect(&s, 4, 4, 0, 8, 0, d, len);
	expect_h264_bad(&s, VNC_ERR_PROTOCOL,
			"bytes of H.264 data for an empty rectangle", false,
			"empty rectangle");

	/* The frame's slice cut in half (the length says so): libavcodec
	 * conceals or refuses, vncfb goes on or says so in one line. */
	s.n = 0;
	fbu(&s, 1);
	h264_rect(&s, 0, 0, 32, 32, 0, d, len * 2 / 3);
	expect_h264_bad(&s, VNC_ERR_PROTOCOL,
			"bad Open H.264 rectangle 32x32 at 0,0: ", true,
			"truncated slice");

	/* Start codes followed by junk NAL units. */
	for (size_t i = 0; i < sizeof(junk); i++)
		junk[i] = (uint8_t)(i % 7 == 0 ? 0 : rnd());
	junk[0] = junk[1] = 0;
	junk[2] = 1;
	junk[3] = 0x65; /* an IDR slice header, then noise */
	s.n = 0;
	fbu(&s, 1);
	h264_rect(&s, 0, 0, 32, 32, 0, junk, sizeof(junk));
	expect_h264_bad(&s, VNC_ERR_PROTOCOL,
			"bad Open H.264 rectangle 32x32 at 0,0: ", true,
			"junk");
	free(s.p);
	free(d);
	free(rgb);
	h264enc_destroy(e);
}

/* ResetContext with a new stream mid-way, ResetAllContexts as a control
 * message (length 0), and a P frame after a reset (its references are
 * gone). */
static void test_reset(void)
{
	const int w = 48, h = 32;
	struct h264enc *a = enc_new(w, h), *b = enc_new(w, h);
	uint8_t *rgb = malloc((size_t)w * h * 3), *d;
	struct buf s = {0};
	size_t len;
	struct fix f;

	fix_open(&f, "xrgb8888", w, h);
	for (int t = 0; t < 3; t++) {
		len = enc_frame(a, rgb, w, h, t, t == 0, &d);
		fbu(&s, 1);
		h264_rect(&s, 0, 0, w, h, 0, d, len);
		free(d);
	}
	/* A new encoder (its own SPS, frame numbers from 0) after a reset. */
	len = enc_frame(b, rgb, w, h, 20, true, &d);
	fbu(&s, 1);
	h264_rect(&s, 0, 0, w, h, 1, d, len);
	free(d);
	CHECK(fix_feed(&f, &s) == 4, "reset: %s", f.why);
	CHECK(mae(&f, 0, 0, w, h, rgb, w) <= MAX_MAE,
	      "after ResetContext: error %.2f", mae(&f, 0, 0, w, h, rgb, w));
	free(s.p);

	/* All contexts go; then a P frame of the old stream. */
	s = (struct buf){0};
	fbu(&s, 1);
	rhdr(&s, 0, 0, w, h, RFB_ENC_H264);
	u32(&s, 0);
	u32(&s, 2 | 0xf0); /* unknown bits are ignored */
	CHECK(fix_feed(&f, &s) == 1, "ResetAllContexts alone: %s", f.why);
	free(s.p);
	s = (struct buf){0};
	len = enc_frame(b, rgb, w, h, 21, false, &d);
	fbu(&s, 1);
	h264_rect(&s, 0, 0, w, h, 0, d, len);
	CHECK(fix_feed(&f, &s) == 1 ||
		  (f.err == VNC_ERR_PROTOCOL &&
		   strstr(f.why, "bad Open H.264 rectangle 48x32 at 0,0: ")),
	      "P frame after a reset: error %d \"%s\"", f.err, f.why);
	printf("P frame after ResetAllContexts: %s\n",
	       f.why[0] ? f.why : "nothing drawn");
	free(d);
	free(s.p);
	fix_free(&f);
	free(rgb);
	h264enc_destroy(a);
	h264enc_destroy(b);
}

/* 65 contexts in 16x16 rectangles: the least recently used one goes,
 * the others keep their state (their P frames decode). */
static void test_contexts(void)
{
	enum { N = DEC_H264_MAX_CTX + 1, S = 16 };
	struct h264enc *e[N];
	uint8_t *rgb = malloc(S * S * 3), *d;
	struct buf s = {0};
	size_t len;
	struct fix f;
	double m;

	fix_open(&f, "xrgb8888", S * 16, S * 5);
	/* Contexts 0..63, then 0 used again: 1 is the least recent. */
	for (int i = 0; i < N; i++) {
		int k = i < N - 1 ? i : 0;

		if (i < N - 1)
			e[k] = enc_new(S, S);
		len = enc_frame(e[k], rgb, S, S, i, i < N - 1, &d);
		fbu(&s, 1);
		h264_rect(&s, (unsigned)(k % 16) * S, (unsigned)(k / 16) * S, S,
			  S, 0, d, len);
		free(d);
	}
	/* Context 64 evicts 1, not 0 (the first made). */
	e[N - 1] = enc_new(S, S);
	len = enc_frame(e[N - 1], rgb, S, S, 99, true, &d);
	fbu(&s, 1);
	h264_rect(&s, 0, 4 * S, S, S, 0, d, len);
	free(d);
	CHECK(fix_feed(&f, &s) == N + 1, "65 contexts: %s", f.why);
	free(s.p);

	/* 0 and 64 go on from their state. */
	for (int k = 0; k < N; k += N - 1) {
		const unsigned x = 0, y = k == N - 1 ? 4 * S : 0;

		s = (struct buf){0};
		len = enc_frame(e[k], rgb, S, S, 40 + k, false, &d);
		fbu(&s, 1);
		h264_rect(&s, x, y, S, S, 0, d, len);
		CHECK(fix_feed(&f, &s) == 1, "context %d: %s", k, f.why);
		m = mae(&f, x, y, S, S, rgb, S);
		CHECK(m <= MAX_MAE, "context %d lost its state: error %.2f", k,
		      m);
		free(d);
		free(s.p);
	}
	/* 1 was evicted: its P frame has nothing to refer to, so it is
	 * refused or shows nothing of frame 50. */
	s = (struct buf){0};
	len = enc_frame(e[1], rgb, S, S, 50, false, &d);
	fbu(&s, 1);
	h264_rect(&s, S, 0, S, S, 0, d, len);
	if (fix_feed(&f, &s) == 1) {
		m = mae(&f, S, 0, S, S, rgb, S);
		printf("evicted context: nothing drawn (error %.1f)\n", m);
		CHECK(m > MAX_MAE, "context 1 was not evicted (error %.2f)", m);
	} else {
		printf("evicted context: %s\n", f.why);
		CHECK(f.err == VNC_ERR_PROTOCOL &&
			  strstr(f.why, "bad Open H.264 rectangle 16x16 at "
					"16,0: "),
		      "evicted context: error %d \"%s\"", f.err, f.why);
	}
	free(d);
	free(s.p);
	fix_free(&f);
	for (int i = 0; i < N; i++)
		h264enc_destroy(e[i]);
	free(rgb);
}

/* The contexts' pixels are bounded (DEC_H264_AREA desktops): on a 96x64
 * desktop, a fifth context of about its size evicts the least recent.
 * And a frame far larger than its rectangle is refused by libavcodec
 * before it allocates its pictures. */
static void test_budget(void)
{
	static const struct rect rs[5] = {{0, 0, 96, 64},
					  {0, 0, 96, 62},
					  {0, 0, 94, 64},
					  {0, 0, 94, 62},
					  {2, 2, 94, 62}};
	struct h264enc *e[5], *huge = enc_new(320, 240);
	uint8_t *rgb = malloc(320 * 240 * 3), *d;
	struct buf s = {0};
	size_t len;
	struct fix f;

	fix_open(&f, "xrgb8888", 96, 64);
	for (int i = 0; i < 5; i++) {
		e[i] = enc_new(96, 64);
		len = enc_frame(e[i], rgb, 96, 64, i, true, &d);
		fbu(&s, 1);
		h264_rect(&s, (unsigned)rs[i].x, (unsigned)rs[i].y,
			  (unsigned)rs[i].w, (unsigned)rs[i].h, 0, d, len);
		free(d);
	}
	CHECK(fix_feed(&f, &s) == 5, "five contexts: %s", f.why);
	free(s.p);
	/* The second is kept: its P frame decodes. */
	s = (struct buf){0};
	len = enc_frame(e[1], rgb, 96, 64, 20, false, &d);
	fbu(&s, 1);
	h264_rect(&s, 0, 0, 96, 62, 0, d, len);
	free(d);
	CHECK(fix_feed(&f, &s) == 1, "second context: %s", f.why);
	CHECK(mae(&f, 0, 0, 96, 62, rgb, 96) <= MAX_MAE,
	      "second context lost its state: error %.2f",
	      mae(&f, 0, 0, 96, 62, rgb, 96));
	free(s.p);
	/* The first went for the fifth. */
	s = (struct buf){0};
	len = enc_frame(e[0], rgb, 96, 64, 21, false, &d);
	fbu(&s, 1);
	h264_rect(&s, 0, 0, 96, 64, 0, d, len);
	free(d);
	CHECK(fix_feed(&f, &s) < 0 && f.err == VNC_ERR_PROTOCOL &&
		  strstr(f.why, "bad Open H.264 rectangle 96x64 at 0,0: bad "
				"H.264 data"),
	      "first context not evicted: error %d \"%s\"", f.err, f.why);
	free(s.p);
	fix_free(&f);

	s = (struct buf){0};
	fix_open(&f, "xrgb8888", 320, 240);
	len = enc_frame(huge, rgb, 320, 240, 0, true, &d);
	fbu(&s, 1);
	h264_rect(&s, 0, 0, 16, 16, 0, d, len);
	free(d);
	CHECK(fix_feed(&f, &s) < 0 && f.err == VNC_ERR_PROTOCOL &&
		  strstr(f.why, "bad Open H.264 rectangle 16x16 at 0,0: bad "
				"H.264 data"),
	      "320x240 frame for 16x16: error %d \"%s\"", f.err, f.why);
	printf("320x240 frame for a 16x16 rectangle: %s\n", f.why);
	free(s.p);
	fix_free(&f);
	for (int i = 0; i < 5; i++)
		h264enc_destroy(e[i]);
	h264enc_destroy(huge);
	free(rgb);
}

/* The access unit splitter: two pictures of one slice each, parameter
 * sets before the first, 4-byte start codes. */
static void test_au(void)
{
	static const uint8_t two[] = {
	    0, 0, 0, 1,	   0x67, 1,    2, /* SPS */
	    0, 0, 1, 0x68, 3,		  /* PPS */
	    0, 0, 1, 0x65, 0x88, 4,	  /* IDR slice, first_mb 0 */
	    0, 0, 1, 0x65, 0x20, 5,	  /* its second slice */
	    0, 0, 0, 1,	   0x41, 0x9a, 6, /* the next picture */
	};
	size_t k = dec_h264_au_end(two, sizeof(two));

	CHECK_EQ(k, 24);
	CHECK_EQ(dec_h264_au_end(two + k, sizeof(two) - k), sizeof(two) - k);
	CHECK_EQ(dec_h264_au_end(two, 3), 3);
	CHECK_EQ(dec_h264_au_end((const uint8_t *)"", 0), 0);
}

int main(void)
{
	test_au();
	test_picture("xrgb8888", 30, MAX_MAE);
	test_picture("bgrx8888", 5, MAX_MAE);
	test_picture("rgb565", 5, MAX_MAE + 4);
	/* No libswscale format: R,G,B and the table converter. */
	test_picture("rgb332", 5, MAX_MAE + 36);
	test_several();
	test_sizes();
	test_lengths();
	test_reset();
	test_contexts();
	test_budget();
	return check_done("h264");
}
#endif
