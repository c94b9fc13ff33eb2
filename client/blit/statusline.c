/* Status line rendering: a bar along the bottom of the output. */
#include "config.h"

#include <string.h>

#include "blit/font.h"
#include "shadow/pixfmt.h"
#include "blit/statusline.h"

#define PAD 2	/* font pixels of bar around the text */

int statusline_scale(const struct output *out)
{
	/* About 1/60 of the screen height per line, at least 1x. */
	int s = (int)(out->height / ((FONT_H + 2 * PAD) * 60));

	return s < 1 ? 1 : s > 8 ? 8 : s;
}

void statusline_rect(const struct output *out, struct rect *r)
{
	int32_t h = (FONT_H + 2 * PAD) * statusline_scale(out);

	if (h > (int32_t)out->height)
		h = (int32_t)out->height;
	*r = (struct rect){ 0, (int32_t)out->height - h, (int32_t)out->width,
			    h };
}

uint64_t statusline_draw(struct output *out, const char *text, uint8_t *row)
{
	unsigned bpp = pixfmt_bytes(&out->fmt);
	uint32_t bg = pixfmt_pack(&out->fmt, STATUS_BG_R, STATUS_BG_G,
				  STATUS_BG_B);
	uint32_t fg = pixfmt_pack(&out->fmt, STATUS_FG_R, STATUS_FG_G,
				  STATUS_FG_B);
	int scale = statusline_scale(out);
	size_t len = strlen(text), rowlen = (size_t)out->width * bpp;
	struct rect r;
	uint64_t bytes = 0;
	int32_t y;

	statusline_rect(out, &r);
	for (y = 0; y < r.h; y++) {
		/* Font row under this screen row, or -1 in the padding. */
		int fy = y / scale - PAD;
		uint32_t x;

		for (x = 0; x < out->width; x++)
			pixfmt_store(&out->fmt, row + (size_t)x * bpp, bg);
		if (fy >= 0 && fy < FONT_H) {
			size_t i;

			for (i = 0; i < len; i++) {
				uint8_t bits = font_glyph(text[i])[fy];
				int gx;

				for (gx = 0; gx < FONT_W; gx++) {
					int k;

					if (!(bits & (1u << (FONT_W - 1 - gx))))
						continue;
					for (k = 0; k < scale; k++) {
						size_t px =
							(size_t)((PAD + i *
								  FONT_ADVANCE +
								  gx) *
								 scale + k);

						if (px < out->width)
							pixfmt_store(
								&out->fmt,
								row + px * bpp,
								fg);
					}
				}
			}
		}
		output_write_row(out,
				 out->map + (size_t)(r.y + y) * out->stride,
				 row, rowlen);
		bytes += rowlen;
	}
	return bytes;
}
