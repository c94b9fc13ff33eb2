/* The scaler's kernels in C: the specification of every path (each SIMD
 * version computes the same integers), the only set off x86-64 and
 * AArch64, and the tails of the SIMD kernels (scale_kern.h). */
#include "config.h"

#include <string.h>

#include "view/scale_kern.h"

/* Group g of the gather path in C: each output's taps, one or two pairs
 * of window pixels, times the pair's weights (the same for every
 * channel). Returns the 32-bit sums through acc[16]. */
static void gather_group_c(int32_t acc[16], const uint8_t *row,
			   const struct scale_exact *e, uint32_t g, bool wide)
{
	const uint8_t *win = row + (size_t)e->gsrc[g] * 4;
	unsigned j, p, np = e->pairs;

	memset(acc, 0, 16 * sizeof(*acc));
	for (p = 0; p < e->gpairs[g]; p++) {
		const uint32_t *idx = e->gidx + ((size_t)g * np + p) * 8;
		size_t wat = ((size_t)g * np + p) * 32;

		for (j = 0; j < 4; j++) {
			const uint8_t *t0 = win + idx[2 * j] * 4;
			const uint8_t *t1 = win + idx[2 * j + 1] * 4;
			int32_t w0 = wide ? e->gw16[wat + scale_wide_at(j)]
					  : e->gw[wat + j * 8];
			int32_t w1 = wide ? e->gw16[wat + scale_wide_at(j) + 1]
					  : e->gw[wat + j * 8 + 1];
			int32_t *o = acc + j * 4;

			o[0] += w0 * t0[0] + w1 * t1[0];
			o[1] += w0 * t0[1] + w1 * t1[1];
			o[2] += w0 * t0[2] + w1 * t1[2];
			o[3] += w0 * t0[3] + w1 * t1[3];
		}
	}
}

static void hx_group_c(int16_t *h, const uint8_t *row,
		       const struct scale_exact *e, uint32_t g)
{
	int32_t acc[16];
	unsigned i;

	gather_group_c(acc, row, e, g, false);
	for (i = 0; i < 16; i++)
		h[(size_t)g * 16 + i] = (int16_t)acc[i];
}

void scale_hx_c(int16_t *h, const uint8_t *row, uint32_t rw,
		const struct scale_exact *e, uint32_t g0, uint32_t g1)
{
	uint32_t g;

	(void)rw;
	for (g = g0; g < g1; g++)
		hx_group_c(h, row, e, g);
}

void scale_vx_c(uint8_t *out, const int16_t *const *rows, const uint16_t *w,
		unsigned n, const struct scale_exact *e, size_t from, size_t to)
{
	/* Locals: out may alias anything, e included. */
	const uint32_t bias = e->bias, magic = e->magic, sh = 16 + e->shift;
	size_t i;
	unsigned k;

	if (n == 2) {
		const int16_t *r0 = rows[0], *r1 = rows[1];
		const uint32_t w0 = w[0], w1 = w[1];

		for (i = from; i < to; i++)
			out[i - from] =
			    (uint8_t)((((uint32_t)(uint16_t)r0[i] * w0 +
					(uint32_t)(uint16_t)r1[i] * w1 + bias) *
				       magic) >>
				      sh);
		return;
	}
	for (i = from; i < to; i++) {
		uint32_t acc = bias;

		for (k = 0; k < n; k++)
			acc += (uint32_t)(uint16_t)rows[k][i] * w[k];
		out[i - from] = (uint8_t)((acc * magic) >> sh);
	}
}

/* The wide variant: h in 8.8 fixed point (uint16), from 15-bit weights;
 * vxw sums floor(h * w / 65536) over the rows and rounds to 8 bits. */
static void hxw_group_c(uint16_t *h, const uint8_t *row,
			const struct scale_exact *e, uint32_t g)
{
	int32_t acc[16];
	unsigned i;

	gather_group_c(acc, row, e, g, true);
	for (i = 0; i < 16; i++)
		h[(size_t)g * 16 + i] = (uint16_t)(acc[i] >> 7);
}

void scale_hxw_c(int16_t *h, const uint8_t *row, uint32_t rw,
		 const struct scale_exact *e, uint32_t g0, uint32_t g1)
{
	uint32_t g;

	(void)rw;
	for (g = g0; g < g1; g++)
		hxw_group_c((uint16_t *)h, row, e, g);
}

void scale_vxw_c(uint8_t *out, const int16_t *const *rows, const uint16_t *w,
		 unsigned n, const struct scale_exact *e, size_t from,
		 size_t to)
{
	size_t i;
	unsigned k;

	(void)e;
	if (n == 2) {
		const int16_t *r0 = rows[0], *r1 = rows[1];
		const uint32_t w0 = w[0], w1 = w[1];

		for (i = from; i < to; i++)
			out[i - from] =
			    (uint8_t)(((((uint32_t)(uint16_t)r0[i] * w0) >>
					16) +
				       (((uint32_t)(uint16_t)r1[i] * w1) >>
					16) +
				       128) >>
				      8);
		return;
	}
	for (i = from; i < to; i++) {
		uint32_t acc = 0;

		for (k = 0; k < n; k++)
			acc += ((uint32_t)(uint16_t)rows[k][i] * w[k]) >> 16;
		out[i - from] = (uint8_t)((acc + 128) >> 8);
	}
}

void scale_vsum_c(uint16_t *v, const uint8_t *const *rows, const uint16_t *w,
		  unsigned n, size_t from, size_t to)
{
	size_t i;
	unsigned k;

	for (i = from; i < to; i++) {
		uint32_t acc = 0;

		for (k = 0; k < n; k++)
			acc += ((uint32_t)rows[k][i] * 256u * w[k]) >> 16;
		v[i] = (uint16_t)acc;
	}
}

void scale_hsum_c(uint8_t *out, const uint16_t *v, const int32_t *start,
		  const uint16_t *hw, unsigned taps, uint32_t x0, uint32_t x1)
{
	uint32_t i;
	unsigned k, c;

	for (i = x0; i < x1; i++, out += 4) {
		const uint16_t *s = v + (size_t)start[i] * 4;
		const uint16_t *w = hw + (size_t)i * taps * 4;

		for (c = 0; c < 4; c++) {
			uint32_t acc = 0;

			for (k = 0; k < taps; k++)
				acc +=
				    ((uint32_t)s[k * 4 + c] * w[k * 4 + c]) >>
				    16;
			out[c] = (uint8_t)((acc + 128) >> 8);
		}
	}
}

void scale_p32_one(uint8_t *p, uint8_t *q, const uint8_t *a, const uint8_t *b,
		   const uint8_t *d)
{
	unsigned c;

	for (c = 0; c < 4; c++) {
		/* Each row across, then down; 9 * 255 + 4 fits 16 bits. */
		unsigned a0 = 2u * a[c] + a[4 + c],
			 a1 = a[4 + c] + 2u * a[8 + c];
		unsigned b0 = 2u * b[c] + b[4 + c],
			 b1 = b[4 + c] + 2u * b[8 + c];
		unsigned d0 = 2u * d[c] + d[4 + c],
			 d1 = d[4 + c] + 2u * d[8 + c];

		p[c] = (uint8_t)((2 * a0 + b0 + 4) / 9);
		p[4 + c] = (uint8_t)((2 * a1 + b1 + 4) / 9);
		q[c] = (uint8_t)((b0 + 2 * d0 + 4) / 9);
		q[4 + c] = (uint8_t)((b1 + 2 * d1 + 4) / 9);
	}
}

void scale_p32_c(uint8_t *o0, uint8_t *o1, const uint8_t *r0, const uint8_t *r1,
		 const uint8_t *r2, uint32_t g0, uint32_t g1, bool nt)
{
	uint32_t g;

	(void)nt;
	for (g = g0; g < g1; g++)
		scale_p32_one(o0 + (size_t)g * 8, o1 + (size_t)g * 8,
			      r0 + (size_t)g * 12, r1 + (size_t)g * 12,
			      r2 + (size_t)g * 12);
}

void scale_p21_c(uint8_t *o, const uint8_t *a, const uint8_t *b, uint32_t n,
		 bool nt)
{
	uint32_t i;
	unsigned c;

	(void)nt;
	for (i = 0; i < n; i++, o += 4, a += 8, b += 8)
		for (c = 0; c < 4; c++)
			o[c] =
			    (uint8_t)((a[c] + a[4 + c] + b[c] + b[4 + c] + 2) /
				      4);
}

static uint32_t expand(uint32_t c, unsigned bits)
{
	return (c << (8 - bits) | c >> (2 * bits - 8)) & 0xff;
}

static uint32_t round_to(uint32_t v, unsigned bits)
{
	return ((v & 0xff) * ((1u << bits) - 1) + 127) / 255;
}

void scale_unpack16_c(uint32_t *d, const uint8_t *src, uint32_t n,
		      const struct pixfmt *f)
{
	uint32_t i;

	for (i = 0; i < n; i++) {
		uint32_t v = src[2 * i] | (uint32_t)src[2 * i + 1] << 8;

		d[i] = expand((v >> f->r_shift) & ((1u << f->r_bits) - 1),
			      f->r_bits)
			   << 16 |
		       expand((v >> f->g_shift) & ((1u << f->g_bits) - 1),
			      f->g_bits)
			   << 8 |
		       expand((v >> f->b_shift) & ((1u << f->b_bits) - 1),
			      f->b_bits);
	}
}

void scale_pack16_c(uint8_t *out, const uint32_t *s, uint32_t n,
		    const struct pixfmt *f)
{
	uint32_t i;

	for (i = 0; i < n; i++) {
		uint32_t v = round_to(s[i] >> 16, f->r_bits) << f->r_shift |
			     round_to(s[i] >> 8, f->g_bits) << f->g_shift |
			     round_to(s[i], f->b_bits) << f->b_shift;

		out[2 * i] = (uint8_t)v;
		out[2 * i + 1] = (uint8_t)(v >> 8);
	}
}

const struct scale_kernels scale_kernels_c = {
    .name = "c",
    .vsum = scale_vsum_c,
    .hsum = scale_hsum_c,
    .hx = scale_hx_c,
    .vx = scale_vx_c,
    .hxw = scale_hxw_c,
    .vxw = scale_vxw_c,
    .unpack16 = scale_unpack16_c,
    .pack16 = scale_pack16_c,
    .p32 = scale_p32_c,
    .p21 = scale_p21_c,
};
