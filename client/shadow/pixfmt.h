/* Pixel formats: the output's native layout, what RFB can express of it,
 * and the converters for what it cannot (24 bpp packed). Pure, any thread. */
#ifndef VNCFB_PIXFMT_H
#define VNCFB_PIXFMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* True-colour layout of a pixel value (after loading it in the pixel's byte
 * order): channel c occupies bits [c_shift, c_shift + c_bits). bpp is 8, 16,
 * 24 or 32. */
struct pixfmt {
	uint8_t bpp;
	uint8_t depth;
	uint8_t r_shift, g_shift, b_shift;
	uint8_t r_bits, g_bits, b_bits;
	bool big_endian;
};

/* Named formats: xrgb8888, bgrx8888, rgb565, rgb888 (24 bpp packed, R in the
 * top byte of the 24-bit value, i.e. bytes B,G,R in memory on little endian),
 * bgr888, xrgb1555, rgb332. Returns 0 or -EINVAL. */
int pixfmt_from_name(const char *name, struct pixfmt *out);
/* The i-th of those names, or NULL past the last (for messages). */
const char *pixfmt_name_at(size_t i);
/* Writes a short name ("xrgb8888") or a descriptive one into buf. */
const char *pixfmt_name(const struct pixfmt *f, char *buf, size_t len);
/* Sanity of a layout (from a device or the network): channels fit in bpp,
 * do not overlap, 1..8 bits each. */
bool pixfmt_valid(const struct pixfmt *f);
/* True when RFB's SetPixelFormat can describe f exactly, so the shadow can
 * be in f and a blit is a row memcpy. */
bool pixfmt_rfb_expressible(const struct pixfmt *f);
/* The format the shadow buffer uses for an output in f. */
void pixfmt_shadow_for(const struct pixfmt *f, struct pixfmt *shadow);
bool pixfmt_equal(const struct pixfmt *a, const struct pixfmt *b);

static inline unsigned pixfmt_bytes(const struct pixfmt *f)
{
	return f->bpp / 8;
}

/* A pixel value of n (1-4) bytes in either byte order: the one load and
 * store every converter and pixfmt_load/pixfmt_store build on. */
static inline uint32_t pix_load(const uint8_t *p, unsigned n, bool big)
{
	uint32_t v = 0;

	if (big)
		for (unsigned i = 0; i < n; i++)
			v = v << 8 | p[i];
	else
		for (unsigned i = n; i-- > 0;)
			v = v << 8 | p[i];
	return v;
}

static inline void pix_store(uint8_t *p, unsigned n, bool big, uint32_t v)
{
	if (big)
		for (unsigned i = n; i-- > 0; v >>= 8)
			p[i] = (uint8_t)v;
	else
		for (unsigned i = 0; i < n; i++, v >>= 8)
			p[i] = (uint8_t)v;
}

/* Pack/unpack 8-bit channels (exact bit replication on unpack). */
uint32_t pixfmt_pack(const struct pixfmt *f, uint8_t r, uint8_t g, uint8_t b);
void pixfmt_unpack(const struct pixfmt *f, uint32_t v, uint8_t *r, uint8_t *g,
		   uint8_t *b);
uint32_t pixfmt_load(const struct pixfmt *f, const uint8_t *p);
void pixfmt_store(const struct pixfmt *f, uint8_t *p, uint32_t v);

/* Convert n pixels from src (format sf) to dst (format df). */
void pixfmt_convert_row(const struct pixfmt *df, uint8_t *dst,
			const struct pixfmt *sf, const uint8_t *src, size_t n);

#endif
