/* Write the reader fuzz target's cursor and format-switch seeds
 * (tests/fuzz/reader.c's layout: format byte, width, height, the server's
 * messages, and optionally the 'W' trailer that switches the wire's
 * format) into DIR: a CursorWithAlpha whose pixels come in each encoding
 * vncfb decodes (raw, RRE, CoRRE, hextile, zlib, Tight's fill, basic and
 * JPEG, ZRLE, TRLE, Ultra, Open H.264, and JPEG, which it refuses), then
 * desktop rectangles in the same encoding, in an rgb565 shadow and with
 * the wire switched after every message (issue 42). Run by hand (usage:
 * mkcursorseeds DIR); the output is committed in tests/fuzz/reader-corpus,
 * so that fuzz-replay-reader plays them under ASan and UBSan. */
#include "config.h"

#include <lzo/lzo1x.h>
#include <stdio.h>

#include <jpeglib.h>

#include "../check.h"
#include "../unit/rfbgen.h"
#ifdef VNCFB_HAVE_H264
#include "../h264scene.h"
#include "tools/demo/h264enc.h"
#endif

#define CW 16
#define CH 16
/* The reader target's format bytes (reader.c's formats[]). */
#define F_XRGB 0
#define F_RGB565 1
#define F_BGRX 2
#define F_RGB332 4

/* The cursor: premultiplied R,G,B,A, an opaque disc on a clear square. */
static void cursor_rgba(uint8_t *p)
{
	for (int y = 0; y < CH; y++)
		for (int x = 0; x < CW; x++, p += 4) {
			int dx = 2 * x - CW + 1, dy = 2 * y - CH + 1;
			unsigned a = dx * dx + dy * dy < CW * CW ? 255 : 0;

			p[0] = (uint8_t)(200 * a / 255);
			p[1] = (uint8_t)(15 * a / 255);
			p[2] = (uint8_t)(45 * a / 255);
			p[3] = (uint8_t)a;
		}
}

static void zlib_data(z_stream *z, const uint8_t *raw, size_t n, struct buf *s,
		      bool tight)
{
	struct buf zd = {0};

	zsync(z, raw, n, &zd);
	if (tight)
		clen(s, (uint32_t)zd.n);
	else
		u32(s, (uint32_t)zd.n);
	put(s, zd.p, zd.n);
	free(zd.p);
}

/* The R,G,B of rgba as a JPEG image (libjpeg's own API: libvncclient
 * brings an old TurboJPEG of its own that takes over tjCompress2). */
static void jpeg_data(const uint8_t *rgba, struct buf *s)
{
	struct jpeg_compress_struct ci;
	struct jpeg_error_mgr err;
	unsigned char *out = NULL;
	unsigned long n = 0;
	uint8_t row[CW * 3];

	ci.err = jpeg_std_error(&err);
	jpeg_create_compress(&ci);
	jpeg_mem_dest(&ci, &out, &n);
	ci.image_width = CW;
	ci.image_height = CH;
	ci.input_components = 3;
	ci.in_color_space = JCS_RGB;
	jpeg_set_defaults(&ci);
	jpeg_set_quality(&ci, 90, TRUE);
	jpeg_start_compress(&ci, TRUE);
	while (ci.next_scanline < CH) {
		JSAMPROW rp = row;

		for (int x = 0; x < CW; x++)
			memcpy(row + x * 3,
			       rgba + ((size_t)ci.next_scanline * CW + x) * 4, 3);
		jpeg_write_scanlines(&ci, &rp, 1);
	}
	jpeg_finish_compress(&ci);
	put(s, out, n);
	free(out);
	jpeg_destroy_compress(&ci);
}

/* One ZRLE/TRLE tile of raw 4-byte CPIXELs (the cursor's format). */
static void rle_tile(const uint8_t *rgba, struct buf *t)
{
	u8(t, 0);
	put(t, rgba, CW * CH * 4);
}

/* The body of CW x CH pixels rgba in enc (after its encoding number). */
static void body(int32_t enc, const uint8_t *rgba, struct buf *s, z_stream *z)
{
	switch (enc) {
	case RFB_ENC_RAW:
		put(s, rgba, CW * CH * 4);
		break;
	case RFB_ENC_RRE:
	case RFB_ENC_CORRE:
		/* The clear background, the disc's middle as one square. */
		u32(s, 1);
		put(s, rgba, 4);
		put(s, rgba + ((CH / 2) * CW + CW / 2) * 4, 4);
		if (enc == RFB_ENC_RRE) {
			u16(s, 4), u16(s, 4), u16(s, 8), u16(s, 8);
		} else {
			u8(s, 4), u8(s, 4), u8(s, 8), u8(s, 8);
		}
		break;
	case RFB_ENC_HEXTILE:
		u8(s, 1);
		put(s, rgba, CW * CH * 4);
		break;
	case RFB_ENC_ZLIB:
		zlib_data(z, rgba, CW * CH * 4, s, false);
		break;
	case RFB_ENC_TIGHT:
		/* Basic on stream 0, no filter. */
		u8(s, 0x00);
		zlib_data(z, rgba, CW * CH * 4, s, true);
		break;
	case RFB_ENC_ZRLE: {
		struct buf t = {0};

		rle_tile(rgba, &t);
		zlib_data(z, t.p, t.n, s, false);
		free(t.p);
		break;
	}
	case RFB_ENC_TRLE:
		rle_tile(rgba, s);
		break;
	case RFB_ENC_ULTRA: {
		static uint8_t wrk[LZO1X_1_MEM_COMPRESS];
		uint8_t out[CW * CH * 4 + CW * CH * 4 / 16 + 64 + 3];
		lzo_uint n = 0;

		if (lzo_init() != LZO_E_OK ||
		    lzo1x_1_compress(rgba, CW * CH * 4, out, &n, wrk) !=
			LZO_E_OK)
			abort();
		u32(s, (uint32_t)n);
		put(s, out, n);
		break;
	}
	case RFB_ENC_JPEG:
		jpeg_data(rgba, s);
		break;
	default:
		abort();
	}
}

static void cursor(struct buf *s, int32_t enc, const uint8_t *rgba,
		   z_stream *z)
{
	fbu(s, 1);
	rhdr(s, 3, 4, CW, CH, RFB_ENC_CURSOR_ALPHA);
	u32(s, (uint32_t)enc);
	body(enc, rgba, s, z);
}

static void seed(const char *dir, const char *name, unsigned fmt, unsigned w,
		 unsigned h, const struct buf *msgs, int switch_every)
{
	struct buf tail = {0};

	/* reader.c's wire switch: after every switch_every-th message. */
	u8(&tail, 'W');
	u8(&tail, (unsigned)switch_every);
	u8(&tail, F_RGB332);
	reader_seed(dir, name, fmt, w, h, msgs, switch_every ? &tail : NULL);
	free(tail.p);
}

#ifdef VNCFB_HAVE_H264
/* One frame of w x h (even) of the scene: Annex B bytes into s as an
 * Open H.264 body (length, flags, data). */
static void h264_body(struct buf *s, int w, int h, int t)
{
	struct h264enc *e = h264enc_create(w, h, 23);
	uint8_t *rgb = malloc((size_t)w * h * 3);
	const uint8_t *d;
	size_t n;

	if (!e)
		exit(1);
	h264scene_wave(rgb, w, h, t, 7.0);
	if (h264enc_frame(e, rgb, (size_t)w * 3, true, &d, &n) < 0)
		abort();
	u32(s, (uint32_t)n);
	u32(s, 0);
	put(s, d, n);
	h264enc_destroy(e);
	free(rgb);
}

/* The case: a cursor in H.264 first, then desktop rectangles on
 * the bottom rows, w wide and one narrower. */
static void h264_seeds(const char *dir)
{
	static const unsigned widths[] = {64, 1023, 1024};
	static const unsigned fmts[] = {F_RGB565, F_XRGB, F_BGRX};
	char name[64];

	for (size_t i = 0; i < sizeof(widths) / sizeof(widths[0]); i++)
		for (size_t k = 0; k < sizeof(fmts) / sizeof(fmts[0]); k++) {
			unsigned w = widths[i], h = 32;
			struct buf s = {0};

			fbu(&s, 1);
			rhdr(&s, 3, 4, CW, CH, RFB_ENC_CURSOR_ALPHA);
			u32(&s, RFB_ENC_H264);
			h264_body(&s, CW, CH, 0);
			fbu(&s, 2);
			rhdr(&s, 0, h - 16, w, 16, RFB_ENC_H264);
			h264_body(&s, (int)(w + 1) & ~1, 16, 1);
			rhdr(&s, 0, 0, w - 1, 16, RFB_ENC_H264);
			h264_body(&s, (int)w & ~1, 16, 2);
			snprintf(name, sizeof(name), "cursoralpha-h264-%u-%u",
				 fmts[k], w);
			seed(dir, name, fmts[k], w, h, &s, 0);
			if (k == 0) {
				snprintf(name, sizeof(name),
					 "wire-switch-h264-%u", w);
				seed(dir, name, F_XRGB, w, h, &s, 1);
			}
			free(s.p);
		}
}
#endif

int main(int argc, char **argv)
{
	static const struct {
		int32_t enc;
		const char *name;
	} encs[] = {
	    {RFB_ENC_RAW, "raw"},	{RFB_ENC_RRE, "rre"},
	    {RFB_ENC_CORRE, "corre"},	{RFB_ENC_HEXTILE, "hextile"},
	    {RFB_ENC_ZLIB, "zlib"},	{RFB_ENC_TIGHT, "tight"},
	    {RFB_ENC_ZRLE, "zrle"},	{RFB_ENC_TRLE, "trle"},
	    {RFB_ENC_ULTRA, "ultra"},	{RFB_ENC_JPEG, "jpeg"},
	};
	uint8_t rgba[CW * CH * 4];
	char name[64];

	if (argc != 2) {
		fprintf(stderr, "usage: mkcursorseeds DIR\n");
		return 2;
	}
	cursor_rgba(rgba);
	for (size_t i = 0; i < sizeof(encs) / sizeof(encs[0]); i++) {
		struct buf s = {0};
		z_stream z;

		zinit(&z);
		/* Twice: the second shares the zlib streams with the
		 * first; then a desktop of the same encoding's fill. */
		cursor(&s, encs[i].enc, rgba, &z);
		cursor(&s, encs[i].enc, rgba, &z);
		snprintf(name, sizeof(name), "cursoralpha-each-%s",
			 encs[i].name);
		seed(argv[1], name, F_RGB565, 64, 48, &s, 0);
		snprintf(name, sizeof(name), "wire-switch-cursor-%s",
			 encs[i].name);
		seed(argv[1], name, F_BGRX, 64, 48, &s, 1);
		deflateEnd(&z);
		free(s.p);
	}
	{
		/* Tight's fill and JPEG for the cursor's pixels. */
		struct buf s = {0};

		fbu(&s, 2);
		rhdr(&s, 3, 4, CW, CH, RFB_ENC_CURSOR_ALPHA);
		u32(&s, RFB_ENC_TIGHT);
		u8(&s, 0x80);
		put(&s, rgba + ((CH / 2) * CW + CW / 2) * 4, 4);
		rhdr(&s, 3, 4, CW, CH, RFB_ENC_CURSOR_ALPHA);
		u32(&s, RFB_ENC_TIGHT);
		u8(&s, 0x90);
		{
			struct buf j = {0};

			jpeg_data(rgba, &j);
			clen(&s, (uint32_t)j.n);
			put(&s, j.p, j.n);
			free(j.p);
		}
		seed(argv[1], "cursoralpha-tight-fill-jpeg", F_RGB565, 64, 48,
		     &s, 0);
		seed(argv[1], "wire-switch-tight-jpeg", F_XRGB, 64, 48, &s, 1);
		free(s.p);
	}
#ifdef VNCFB_HAVE_H264
	h264_seeds(argv[1]);
#endif
	return 0;
}
