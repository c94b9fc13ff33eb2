/* Ultra: one LZO1X block of raw pixels a rectangle (decode.h). */
#include "config.h"

#include <lzo/lzo1x.h>
#include <string.h>

#include "decode/decode_priv.h"
#include "wire/rfb.h"

/* LZO's worst case for incompressible data. */
static size_t lzo_bound(size_t raw)
{
	return raw + raw / 16 + 64 + 3;
}

static int ultra_read(struct dec_ctx *c, struct dec_job *j)
{
	size_t raw = (size_t)j->r.w * (size_t)j->r.h * c->fb.fmt->bpp;
	uint32_t len;
	int err;

	if (dec_read_u32(c, &len) != DEC_OK)
		return DEC_EOF;
	if (len > lzo_bound(raw))
		return dec_bad(c,
			       "%u bytes of LZO data for %zu bytes of pixels",
			       len, raw);
	if (len && !dec_take(c, j, len, &err))
		return err;
	return DEC_OK;
}

static int ultra_decode(struct dec_ctx *c, const struct dec_job *j)
{
	const struct dec_fb *fb = &c->fb;
	size_t row = (size_t)j->r.w * fb->fmt->bpp;
	size_t raw = row * (size_t)j->r.h;
	uint32_t x = (uint32_t)j->r.x, y = (uint32_t)j->r.y;
	bool direct = row == fb->stride;
	uint8_t *out;
	lzo_uint got = raw;
	int ret;

	if (raw == 0)
		return DEC_OK;
	if (lzo_init() != LZO_E_OK)
		return dec_bad(c, "the LZO library does not work");
	out = direct ? dec_fb_at(fb, x, y) : dec_scratch(c, raw);
	if (!out)
		return DEC_NOMEM;
	/* lzo1x_decompress_safe writes at most got bytes. */
	ret = direct ? dec_bound(c, "lzo1x_decompress_safe", &j->r, out, row,
				 (size_t)j->r.h, row)
		     : dec_bound(c, "lzo1x_decompress_safe", NULL, out, raw, 1,
				 raw);
	if (ret != DEC_OK)
		return ret;
	ret = lzo1x_decompress_safe(j->data.p, j->data.len, out, &got, NULL);
	if (ret != LZO_E_OK || got != raw)
		return dec_bad(c,
			       "invalid LZO data (error %d, %lu of %zu bytes)",
			       ret, (unsigned long)got, raw);
	if (!direct)
		dec_copy_rows(fb, x, y, (uint32_t)j->r.w, (uint32_t)j->r.h, out,
			      row);
	return DEC_OK;
}

const struct decoder dec_ultra = {
    .enc = RFB_ENC_ULTRA,
    .name = "ultra",
    .label = "Ultra",
    .read = ultra_read,
    .decode = ultra_decode,
    .in_place = true,
};
