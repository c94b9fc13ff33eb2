/* Pixel format description, negotiation helpers and row converters. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "shadow/pixfmt.h"

static bool host_big_endian(void)
{
	const uint16_t one = 1;

	return *(const uint8_t *)&one == 0;
}

struct named {
	const char *name;
	struct pixfmt f;
};

static const struct named formats[] = {
	{ "xrgb8888", { 32, 24, 16, 8, 0, 8, 8, 8, false } },
	{ "bgrx8888", { 32, 24, 8, 16, 24, 8, 8, 8, false } },
	{ "xbgr8888", { 32, 24, 0, 8, 16, 8, 8, 8, false } },
	{ "rgb565", { 16, 16, 11, 5, 0, 5, 6, 5, false } },
	{ "xrgb1555", { 16, 15, 10, 5, 0, 5, 5, 5, false } },
	{ "rgb888", { 24, 24, 16, 8, 0, 8, 8, 8, false } },
	{ "bgr888", { 24, 24, 0, 8, 16, 8, 8, 8, false } },
	{ "rgb332", { 8, 8, 5, 2, 0, 3, 3, 2, false } },
};

const char *pixfmt_name_at(size_t i)
{
	return i < sizeof(formats) / sizeof(formats[0]) ? formats[i].name
							 : NULL;
}

int pixfmt_from_name(const char *name, struct pixfmt *out)
{
	size_t i;

	for (i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
		if (strcmp(formats[i].name, name) == 0) {
			*out = formats[i].f;
			out->big_endian = host_big_endian();
			return 0;
		}
	}
	return -EINVAL;
}

const char *pixfmt_name(const struct pixfmt *f, char *buf, size_t len)
{
	size_t i;

	for (i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
		struct pixfmt g = formats[i].f;

		g.big_endian = f->big_endian;
		if (pixfmt_equal(&g, f) && f->big_endian == host_big_endian()) {
			snprintf(buf, len, "%s", formats[i].name);
			return buf;
		}
	}
	snprintf(buf, len, "%ubpp r%u@%u g%u@%u b%u@%u%s", f->bpp, f->r_bits,
		 f->r_shift, f->g_bits, f->g_shift, f->b_bits, f->b_shift,
		 f->big_endian ? " be" : "");
	return buf;
}

static uint32_t chan_mask(unsigned bits, unsigned shift)
{
	return (uint32_t)(((1ull << bits) - 1) << shift);
}

bool pixfmt_valid(const struct pixfmt *f)
{
	uint32_t r, g, b;

	if (f->bpp != 8 && f->bpp != 16 && f->bpp != 24 && f->bpp != 32)
		return false;
	if (f->r_bits < 1 || f->r_bits > 8 || f->g_bits < 1 ||
	    f->g_bits > 8 || f->b_bits < 1 || f->b_bits > 8)
		return false;
	if (f->r_shift + f->r_bits > f->bpp ||
	    f->g_shift + f->g_bits > f->bpp || f->b_shift + f->b_bits > f->bpp)
		return false;
	r = chan_mask(f->r_bits, f->r_shift);
	g = chan_mask(f->g_bits, f->g_shift);
	b = chan_mask(f->b_bits, f->b_shift);
	return !(r & g) && !(r & b) && !(g & b);
}

bool pixfmt_rfb_expressible(const struct pixfmt *f)
{
	return pixfmt_valid(f) && f->bpp != 24;
}

void pixfmt_shadow_for(const struct pixfmt *f, struct pixfmt *shadow)
{
	if (pixfmt_rfb_expressible(f)) {
		*shadow = *f;
		return;
	}
	pixfmt_from_name("xrgb8888", shadow);
}

bool pixfmt_equal(const struct pixfmt *a, const struct pixfmt *b)
{
	return a->bpp == b->bpp && a->r_shift == b->r_shift &&
	       a->g_shift == b->g_shift && a->b_shift == b->b_shift &&
	       a->r_bits == b->r_bits && a->g_bits == b->g_bits &&
	       a->b_bits == b->b_bits &&
	       (a->bpp == 8 || a->big_endian == b->big_endian);
}

static uint32_t chan_pack(uint8_t v, unsigned bits, unsigned shift)
{
	return (uint32_t)(v >> (8 - bits)) << shift;
}

static uint8_t chan_unpack(uint32_t px, unsigned bits, unsigned shift)
{
	uint32_t v = (px >> shift) & ((1u << bits) - 1);
	uint32_t out = 0;
	int pos = 8;

	/* Replicate the bits into 8: 5-bit 0x1f becomes 0xff. */
	while (pos > 0) {
		pos -= (int)bits;
		out |= pos >= 0 ? v << pos : v >> -pos;
	}
	return (uint8_t)out;
}

uint32_t pixfmt_pack(const struct pixfmt *f, uint8_t r, uint8_t g, uint8_t b)
{
	return chan_pack(r, f->r_bits, f->r_shift) |
	       chan_pack(g, f->g_bits, f->g_shift) |
	       chan_pack(b, f->b_bits, f->b_shift);
}

void pixfmt_unpack(const struct pixfmt *f, uint32_t v, uint8_t *r, uint8_t *g,
		   uint8_t *b)
{
	*r = chan_unpack(v, f->r_bits, f->r_shift);
	*g = chan_unpack(v, f->g_bits, f->g_shift);
	*b = chan_unpack(v, f->b_bits, f->b_shift);
}

uint32_t pixfmt_load(const struct pixfmt *f, const uint8_t *p)
{
	return pix_load(p, pixfmt_bytes(f), f->big_endian);
}

void pixfmt_store(const struct pixfmt *f, uint8_t *p, uint32_t v)
{
	pix_store(p, pixfmt_bytes(f), f->big_endian, v);
}

void pixfmt_convert_row(const struct pixfmt *df, uint8_t *dst,
			const struct pixfmt *sf, const uint8_t *src, size_t n)
{
	unsigned db = df->bpp / 8, sb = sf->bpp / 8;
	size_t i;

	if (pixfmt_equal(df, sf)) {
		memcpy(dst, src, n * db);
		return;
	}
	for (i = 0; i < n; i++) {
		uint8_t r, g, b;

		pixfmt_unpack(sf, pixfmt_load(sf, src + i * sb), &r, &g, &b);
		pixfmt_store(df, dst + i * db, pixfmt_pack(df, r, g, b));
	}
}
