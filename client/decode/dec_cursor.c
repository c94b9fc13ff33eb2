/* Cursor shapes: RichCursor and XCursor bodies, CursorWithAlpha's RGBA
 * pixels, as shadow pixels and a byte-a-pixel alpha (decode.h). */
#include "config.h"

#include <string.h>

#include "decode/decode_priv.h"
#include "wire/rfb.h"

size_t dec_cursor_size(const struct dec_fmt *f, int32_t enc, uint32_t w,
		       uint32_t h)
{
	size_t bits = ((size_t)w + 7) / 8 * h;

	if (w == 0 || h == 0)
		return 0;
	if (enc == RFB_ENC_RICHCURSOR)
		return (size_t)w * h * f->bpp + bits;
	return 6 + 2 * bits;
}

static bool bit(const uint8_t *rows, uint32_t w, uint32_t x, uint32_t y)
{
	return rows[(size_t)y * ((w + 7) / 8) + x / 8] >> (7 - x % 8) & 1;
}

void dec_cursor_shape(const struct dec_fmt *f, int32_t enc, uint32_t w,
		      uint32_t h, const uint8_t *body, uint8_t *pix,
		      uint8_t *mask)
{
	const unsigned bpp = f->bpp;
	size_t n = (size_t)w * h;
	const uint8_t *mbits;

	if (enc == RFB_ENC_RICHCURSOR) {
		memcpy(pix, body, n * bpp);
		mbits = body + n * bpp;
	} else {
		/* Two colours (foreground first) as 8-bit R,G,B, then the
		 * shape's bitmap: set bits are the foreground. */
		uint8_t fg[4], bg[4];
		const uint8_t *img = body + 6;

		pix_store(fg, bpp, f->pf.big_endian,
			     pixfmt_pack(&f->pf, body[0], body[1], body[2]));
		pix_store(bg, bpp, f->pf.big_endian,
			     pixfmt_pack(&f->pf, body[3], body[4], body[5]));
		for (uint32_t y = 0; y < h; y++)
			for (uint32_t x = 0; x < w; x++)
				memcpy(pix + ((size_t)y * w + x) * bpp,
				       bit(img, w, x, y) ? fg : bg, bpp);
		mbits = img + ((size_t)w + 7) / 8 * h;
	}
	for (uint32_t y = 0; y < h; y++)
		for (uint32_t x = 0; x < w; x++)
			mask[(size_t)y * w + x] = bit(mbits, w, x, y) ? 255 : 0;
}

void dec_fmt_init_rgba(struct dec_fmt *f)
{
	const struct pixfmt rgba = {.bpp = 32,
				    .depth = 32,
				    .r_shift = 0,
				    .g_shift = 8,
				    .b_shift = 16,
				    .r_bits = 8,
				    .g_bits = 8,
				    .b_bits = 8,
				    .big_endian = false};

	dec_fmt_init(f, &rgba);
	/* The alpha byte is part of every pixel on the wire: depth 32, as
	 * TigerVNC's viewer decodes it, so whole 4-byte pixels wherever
	 * ZRLE or Tight would drop a padding byte. */
	f->depth = 32;
	f->tpixel = 4;
	f->cpixel = 4;
	f->cpad = 0;
	/* Tight's JPEG (dec_fmt_init's choice, JCS_EXT_RGBA): opaque. */
}

bool dec_cursor_alpha_enc(int32_t enc)
{
	const struct decoder *d = decoder_find(enc);

	return d && !(d->flags & DEC_NO_CURSOR);
}

void dec_cursor_alpha(const struct dec_fmt *f, size_t n, const uint8_t *rgba,
		      uint8_t *pix, uint8_t *alpha)
{
	const unsigned bpp = f->bpp;

	for (size_t i = 0; i < n; i++, rgba += 4) {
		unsigned a = rgba[3], c[3];

		/* Premultiplied: a channel above alpha is not a colour a
		 * server can mean; it is taken as full. */
		for (int k = 0; k < 3; k++)
			c[k] = !a ? 0
			       : rgba[k] >= a
				   ? 255
				   : (rgba[k] * 255u + a / 2) / a;
		pix_store(pix + i * bpp, bpp, f->pf.big_endian,
			  pixfmt_pack(&f->pf, (uint8_t)c[0], (uint8_t)c[1],
				      (uint8_t)c[2]));
		alpha[i] = (uint8_t)a;
	}
}
