/* The size checks of the decoders that hand the pixels to a library
 * (libjpeg, libavcodec), broken on one side only: an image whose width
 * alone, or height alone, differs from its rectangle's is refused with
 * its one line; one of the right size is drawn, compared by mean error
 * with the picture it was encoded from (test_bounds_onesided.c has the
 * rest; tests/mutate/ the mutants these kill). */
#include "config.h"

#include "../check.h"
#include "rfbgen.h"
#ifdef VNCFB_HAVE_H264
#include "tools/demo/h264enc.h"
#endif

/* A smooth R,G,B picture, w x h. */
static uint8_t *smooth(uint32_t w, uint32_t h)
{
	uint8_t *rgb = malloc((size_t)w * h * 3);

	for (uint32_t j = 0; j < h; j++)
		for (uint32_t i = 0; i < w; i++) {
			uint8_t *q = rgb + ((size_t)j * w + i) * 3;

			q[0] = (uint8_t)(i * 255 / w);
			q[1] = (uint8_t)(j * 255 / h);
			q[2] = (uint8_t)(200 - i - j);
		}
	return rgb;
}

/* The worst channel's mean error of f's top-left w x h against rgb. */
static double mean_error(const struct fix *f, const uint8_t *rgb, uint32_t w,
			 uint32_t h)
{
	double sum[3] = {0, 0, 0}, worst = 0;

	for (uint32_t j = 0; j < h; j++)
		for (uint32_t i = 0; i < w; i++) {
			const uint8_t *q = rgb + ((size_t)j * w + i) * 3;
			uint8_t c[3];

			pixfmt_unpack(&f->fb.pf,
				      pixfmt_load(&f->fb.pf, pic_at(&f->fb, i, j)),
				      &c[0], &c[1], &c[2]);
			for (int k = 0; k < 3; k++)
				sum[k] += abs((int)c[k] - (int)q[k]);
		}
	for (int k = 0; k < 3; k++)
		worst = sum[k] > worst ? sum[k] : worst;
	return worst / ((double)w * h);
}

/* s on a fresh 100x80 reader: with rgb, drawn and within 8 levels of it
 * (w x h); else refused with why. The stream is emptied. */
static void expect(const char *what, struct buf *s, const uint8_t *rgb,
		   uint32_t w, uint32_t h, const char *why)
{
	struct fix f;
	int got;

	fix_open(&f, "xrgb8888", 100, 80);
	got = fix_feed(&f, s);
	if (rgb) {
		double e = got < 0 ? 0 : mean_error(&f, rgb, w, h);

		CHECK(got >= 0 && e < 8, "%s: %s, mean error %.1f", what,
		      got < 0 ? f.why : "drawn", e);
	} else {
		CHECK(got < 0 && f.err == VNC_ERR_PROTOCOL &&
			  strstr(f.why, why),
		      "%s: got \"%s\", want \"%s\"", what,
		      got < 0 ? f.why : "accepted", why);
	}
	fix_free(&f);
	s->n = 0;
}

/* --- JPEG: TigerVNC's encoding 21 and Tight's JPEG --- */

static void jpeg_rect(struct buf *s, bool tight, uint32_t w, uint32_t h,
		      const struct buf *jpg)
{
	fbu(s, 1);
	rhdr(s, 0, 0, w, h, tight ? RFB_ENC_TIGHT : RFB_ENC_JPEG);
	if (tight) {
		u8(s, 0x90);
		clen(s, (uint32_t)jpg->n);
	}
	put(s, jpg->p, jpg->n);
}

static void test_jpeg(bool tight)
{
	static const uint32_t sizes[][2] = {
	    {33, 24}, {32, 25}, {31, 24}, {32, 23}};
	uint8_t *rgb = smooth(32, 24);
	struct buf s = {0}, jpg = {0};
	const char *name = tight ? "Tight JPEG" : "JPEG";
	char what[64];

	jpeg_rgb(rgb, 32, 24, TABLES_ALL, 95, 0, &jpg);
	jpeg_rect(&s, tight, 32, 24, &jpg);
	expect(name, &s, rgb, 32, 24, NULL);
	/* Wider alone, taller alone, narrower alone, shorter alone. */
	for (unsigned i = 0; i < 4; i++) {
		snprintf(what, sizeof(what), "%s in %ux%u", name, sizes[i][0],
			 sizes[i][1]);
		jpeg_rect(&s, tight, sizes[i][0], sizes[i][1], &jpg);
		expect(what, &s, NULL, 0, 0, "a 32x24 JPEG image in it");
	}
	free(jpg.p);
	free(s.p);
	free(rgb);
}

/* --- Open H.264 --- */

#ifdef VNCFB_HAVE_H264
static void h264_rect(struct buf *s, uint32_t w, uint32_t h, const uint8_t *d,
		      size_t len)
{
	fbu(s, 1);
	rhdr(s, 0, 0, w, h, RFB_ENC_H264);
	u32(s, (uint32_t)len);
	u32(s, 0);
	put(s, d, len);
}

static void test_h264(void)
{
	struct h264enc *e = h264enc_create(64, 48, 18);
	uint8_t *rgb = smooth(64, 48), *d;
	struct buf s = {0};
	const uint8_t *p;
	size_t len;

	if (!e || h264enc_frame(e, rgb, 64 * 3, true, &p, &len) < 0) {
		fprintf(stderr, "no H.264 encoder: its cases skipped\n");
		h264enc_destroy(e);
		free(rgb);
		return;
	}
	d = malloc(len);
	memcpy(d, p, len);
	h264_rect(&s, 64, 48, d, len);
	expect("H.264", &s, rgb, 64, 48, NULL);
	h264_rect(&s, 65, 48, d, len);
	expect("H.264 wider", &s, NULL, 0, 0,
	       "an H.264 frame of 64x48, smaller than its rectangle");
	h264_rect(&s, 64, 49, d, len);
	expect("H.264 taller", &s, NULL, 0, 0,
	       "an H.264 frame of 64x48, smaller than its rectangle");
	h264_rect(&s, 64, 0, d, len);
	expect("H.264 no rows", &s, NULL, 0, 0,
	       "bytes of H.264 data for an empty rectangle");
	h264_rect(&s, 0, 48, d, len);
	expect("H.264 no columns", &s, NULL, 0, 0,
	       "bytes of H.264 data for an empty rectangle");
	free(d);
	free(s.p);
	free(rgb);
	h264enc_destroy(e);
}
#endif

int main(void)
{
	test_jpeg(false);
	test_jpeg(true);
#ifdef VNCFB_HAVE_H264
	test_h264();
#endif
	return check_done("codec sizes, one side at a time");
}
