/* Cursor shapes: RichCursor and XCursor bodies as shadow pixels and a
 * byte-a-pixel mask (decode.h). */
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
			mask[(size_t)y * w + x] = bit(mbits, w, x, y);
}
