/* The scaler's NEON kernels (AArch64's Advanced SIMD, so any AArch64 CPU:
 * the Raspberry Pi 3, 4 and 5 and their kin): the fixed-point path, the
 * gather path's vertical passes, the 3:2 and 2:1 paths, the 16 bpp
 * conversions and pixel doubling, each the same integers as its C
 * version in scale_c.c (tests/scale compares them). The gather path's
 * horizontal pass stays in C. Built only for AArch64 (client/meson.build).
 * The 16 bpp stores assume a little-endian CPU, as AArch64 Linux is. */
#include "config.h"

#include <arm_neon.h>
#include <string.h>

#include "view/scale_kern.h"

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "scale_neon.c: the 16 bpp kernels store little-endian pixels"
#endif

/* floor(p * 256 * w / 65536) = (p * w) >> 8 for the 8 bytes of x. */
static inline uint16x8_t vsum_tap(uint8x8_t x, uint16x4_t w)
{
	uint16x8_t p = vmovl_u8(x);

	return vcombine_u16(vshrn_n_u32(vmull_u16(vget_low_u16(p), w), 8),
			    vshrn_n_u32(vmull_u16(vget_high_u16(p), w), 8));
}

/* Columns [i, to) in steps of 16, with n a constant where inlined. */
static inline __attribute__((always_inline)) size_t
vsum_neon_run(uint16_t *v, const uint8_t *const *rows, const uint16_t *w,
	      const unsigned n, size_t i, size_t to)
{
	unsigned k;

	for (; i + 16 <= to; i += 16) {
		uint16x8_t lo = vdupq_n_u16(0), hi = vdupq_n_u16(0);

		for (k = 0; k < n; k++) {
			uint8x16_t x = vld1q_u8(rows[k] + i);
			uint16x4_t wk = vdup_n_u16(w[k]);

			lo = vaddq_u16(lo, vsum_tap(vget_low_u8(x), wk));
			hi = vaddq_u16(hi, vsum_tap(vget_high_u8(x), wk));
		}
		vst1q_u16(v + i, lo);
		vst1q_u16(v + i + 8, hi);
	}
	return i;
}

static void vsum_neon(uint16_t *v, const uint8_t *const *rows,
		      const uint16_t *w, unsigned n, size_t from, size_t to)
{
	size_t i;

	if (n == 2)
		i = vsum_neon_run(v, rows, w, 2, from, to);
	else if (n == 3)
		i = vsum_neon_run(v, rows, w, 3, from, to);
	else
		i = vsum_neon_run(v, rows, w, n, from, to);
	scale_vsum_c(v, rows, w, n, i, to);
}

/* One output's four channels: sum over the taps of (v * w) >> 16. */
static inline __attribute__((always_inline)) uint16x4_t
hsum_one(const uint16_t *s, const uint16_t *w, const unsigned taps)
{
	uint16x4_t a = vdup_n_u16(0);
	unsigned k;

	for (k = 0; k < taps; k++)
		a = vadd_u16(a, vshrn_n_u32(vmull_u16(vld1_u16(s + k * 4),
						      vld1_u16(w + k * 4)),
					    16));
	return a;
}

/* Four outputs per step, taps a constant where inlined. */
static inline __attribute__((always_inline)) uint32_t
hsum_neon_run(uint8_t *out, const uint16_t *v, const int32_t *start,
	      const uint16_t *hw, const unsigned taps, uint32_t i, uint32_t x1)
{
	for (; i + 4 <= x1; i += 4, out += 16) {
		uint16x4_t a[4];
		unsigned j;

		for (j = 0; j < 4; j++)
			a[j] = hsum_one(v + (size_t)start[i + j] * 4,
					hw + (size_t)(i + j) * taps * 4, taps);
		/* (acc + 128) >> 8, which is at most 255. */
		vst1q_u8(out,
			 vcombine_u8(
			     vmovn_u16(vrshrq_n_u16(vcombine_u16(a[0], a[1]),
						    8)),
			     vmovn_u16(vrshrq_n_u16(vcombine_u16(a[2], a[3]),
						    8))));
	}
	return i;
}

static void hsum_neon(uint8_t *out, const uint16_t *v, const int32_t *start,
		      const uint16_t *hw, unsigned taps, uint32_t x0,
		      uint32_t x1)
{
	uint32_t i;

	if (taps == 2)
		i = hsum_neon_run(out, v, start, hw, 2, x0, x1);
	else if (taps == 4)
		i = hsum_neon_run(out, v, start, hw, 4, x0, x1);
	else
		i = hsum_neon_run(out, v, start, hw, taps, x0, x1);
	scale_hsum_c(out + (size_t)(i - x0) * 4, v, start, hw, taps, i, x1);
}

/* The gather path's vertical pass, exact: ((sum r * w + bias) * magic)
 * >> (16 + shift), in 32-bit lanes that wrap as scale_vx_c's do, 8
 * values a step. */
static void vx_neon(uint8_t *out, const int16_t *const *rows,
		    const uint16_t *w, unsigned n, const struct scale_exact *e,
		    size_t from, size_t to)
{
	/* Locals: out may alias anything, e included. */
	const uint32_t bias = e->bias, magic = e->magic;
	const int32x4_t sh = vdupq_n_s32(-(int32_t)(16 + e->shift));
	const struct scale_exact copy = *e;
	size_t i = from;
	unsigned k;

	for (; i + 8 <= to; i += 8) {
		uint32x4_t lo = vdupq_n_u32(bias), hi = lo;

		for (k = 0; k < n; k++) {
			uint16x8_t r =
			    vld1q_u16((const uint16_t *)rows[k] + i);

			lo = vmlal_n_u16(lo, vget_low_u16(r), w[k]);
			hi = vmlal_n_u16(hi, vget_high_u16(r), w[k]);
		}
		lo = vshlq_u32(vmulq_n_u32(lo, magic), sh);
		hi = vshlq_u32(vmulq_n_u32(hi, magic), sh);
		/* (uint8_t) of each: the low byte. */
		vst1_u8(out + (i - from),
			vmovn_u16(vcombine_u16(vmovn_u32(lo), vmovn_u32(hi))));
	}
	scale_vx_c(out + (i - from), rows, w, n, &copy, i, to);
}

/* The wide variant: sum of (r * w) >> 16, then (acc + 128) >> 8. */
static void vxw_neon(uint8_t *out, const int16_t *const *rows,
		     const uint16_t *w, unsigned n,
		     const struct scale_exact *e, size_t from, size_t to)
{
	size_t i = from;
	unsigned k;

	for (; i + 8 <= to; i += 8) {
		uint32x4_t lo = vdupq_n_u32(128), hi = lo;

		for (k = 0; k < n; k++) {
			uint16x8_t r =
			    vld1q_u16((const uint16_t *)rows[k] + i);

			lo = vsraq_n_u32(
			    lo, vmull_n_u16(vget_low_u16(r), w[k]), 16);
			hi = vsraq_n_u32(
			    hi, vmull_n_u16(vget_high_u16(r), w[k]), 16);
		}
		vst1_u8(out + (i - from),
			vmovn_u16(vcombine_u16(vshrn_n_u32(lo, 8),
					       vshrn_n_u32(hi, 8))));
	}
	scale_vxw_c(out + (i - from), rows, w, n, e, i, to);
}

/* (x + 4) / 9 for x + 4 below 2^16 as (x + 4) * 7282 >> 16, exact there
 * (as p32_block_ssse3), then to bytes. */
static inline uint8x8_t div9(uint16x8_t x)
{
	const uint16x4_t ninth = vdup_n_u16(7282);

	x = vaddq_u16(x, vdupq_n_u16(4));
	return vmovn_u16(
	    vcombine_u16(vshrn_n_u32(vmull_u16(vget_low_u16(x), ninth), 16),
			 vshrn_n_u32(vmull_u16(vget_high_u16(x), ninth), 16)));
}

/* One row across of the 3:2 path, 4 groups: x0 = 2 * p0 + p1 and
 * x1 = p1 + 2 * p2 per channel byte, low (lo) and high (hi) halves. */
struct p32_row {
	uint16x8_t x0lo, x0hi, x1lo, x1hi;
};

static inline struct p32_row p32_across(const uint8_t *s)
{
	/* Pixels 3g, 3g + 1, 3g + 2 of the 4 groups, one register each. */
	uint32x4x3_t px = vld3q_u32((const uint32_t *)(const void *)s);
	uint8x16_t p0 = vreinterpretq_u8_u32(px.val[0]);
	uint8x16_t p1 = vreinterpretq_u8_u32(px.val[1]);
	uint8x16_t p2 = vreinterpretq_u8_u32(px.val[2]);
	struct p32_row r;

	r.x0lo = vaddw_u8(vshll_n_u8(vget_low_u8(p0), 1), vget_low_u8(p1));
	r.x0hi = vaddw_high_u8(vshll_high_n_u8(p0, 1), p1);
	r.x1lo = vaddw_u8(vshll_n_u8(vget_low_u8(p2), 1), vget_low_u8(p1));
	r.x1hi = vaddw_high_u8(vshll_high_n_u8(p2, 1), p1);
	return r;
}

/* 2 * a + b over a row's halves, divided: the outputs 2g (x0) and 2g + 1
 * (x1) of the 4 groups, interleaved into 8 pixels at o. */
static inline void p32_out(uint8_t *o, const struct p32_row *a,
			   const struct p32_row *b)
{
	uint32x4x2_t px;

	px.val[0] = vreinterpretq_u32_u8(vcombine_u8(
	    div9(vaddq_u16(vshlq_n_u16(a->x0lo, 1), b->x0lo)),
	    div9(vaddq_u16(vshlq_n_u16(a->x0hi, 1), b->x0hi))));
	px.val[1] = vreinterpretq_u32_u8(vcombine_u8(
	    div9(vaddq_u16(vshlq_n_u16(a->x1lo, 1), b->x1lo)),
	    div9(vaddq_u16(vshlq_n_u16(a->x1hi, 1), b->x1hi))));
	vst2q_u32((uint32_t *)(void *)o, px);
}

/* Four pairs (g .. g + 3) a step: 48 source bytes of each row, 32 output
 * bytes of each output row. nt has no NEON equivalent worth its
 * alignment rules: plain stores. */
static void p32_neon(uint8_t *o0, uint8_t *o1, const uint8_t *r0,
		     const uint8_t *r1, const uint8_t *r2, uint32_t g0,
		     uint32_t g1, bool nt)
{
	uint32_t g = g0;

	(void)nt;
	for (; g + 4 <= g1; g += 4) {
		size_t s = (size_t)g * 12;
		struct p32_row a = p32_across(r0 + s);
		struct p32_row b = p32_across(r1 + s);
		struct p32_row d = p32_across(r2 + s);

		p32_out(o0 + (size_t)g * 8, &a, &b);
		p32_out(o1 + (size_t)g * 8, &d, &b);
	}
	scale_p32_c(o0, o1, r0, r1, r2, g, g1, false);
}

/* Four outputs a step: the even and odd pixels of 8 from each row,
 * summed in 16 bits, (sum + 2) >> 2. */
static void p21_neon(uint8_t *o, const uint8_t *a, const uint8_t *b,
		     uint32_t n, bool nt)
{
	uint32_t i = 0;

	(void)nt;
	for (; i + 4 <= n; i += 4) {
		uint32x4x2_t pa =
		    vld2q_u32((const uint32_t *)(const void *)(a + i * 8));
		uint32x4x2_t pb =
		    vld2q_u32((const uint32_t *)(const void *)(b + i * 8));
		uint8x16_t ae = vreinterpretq_u8_u32(pa.val[0]);
		uint8x16_t ao = vreinterpretq_u8_u32(pa.val[1]);
		uint8x16_t be = vreinterpretq_u8_u32(pb.val[0]);
		uint8x16_t bo = vreinterpretq_u8_u32(pb.val[1]);
		uint16x8_t lo =
		    vaddq_u16(vaddl_u8(vget_low_u8(ae), vget_low_u8(ao)),
			      vaddl_u8(vget_low_u8(be), vget_low_u8(bo)));
		uint16x8_t hi = vaddq_u16(vaddl_high_u8(ae, ao),
					  vaddl_high_u8(be, bo));

		vst1q_u8(o + (size_t)i * 4,
			 vcombine_u8(vrshrn_n_u16(lo, 2), vrshrn_n_u16(hi, 2)));
	}
	scale_p21_c(o + (size_t)i * 4, a + (size_t)i * 8, b + (size_t)i * 8,
		    n - i, false);
}

/* A 16 bpp channel: value bits (v >> shift) & mask, expanded to 8 bits
 * by left (8 - bits) | right (2 * bits - 8), as scale_c.c's expand. */
struct chan16_neon {
	int16x8_t down, left, right; /* shifts: negative is right */
	uint16x8_t mask;
	uint16x4_t max; /* mask, for rounding */
	int16x8_t up;	/* the channel's shift, for packing */
};

static struct chan16_neon chan16_neon(unsigned bits, unsigned shift)
{
	struct chan16_neon c;

	c.down = vdupq_n_s16(-(int16_t)shift);
	c.left = vdupq_n_s16((int16_t)(8 - bits));
	c.right = vdupq_n_s16((int16_t)(8 - 2 * (int)bits));
	c.mask = vdupq_n_u16((uint16_t)((1u << bits) - 1));
	c.max = vdup_n_u16((uint16_t)((1u << bits) - 1));
	c.up = vdupq_n_s16((int16_t)shift);
	return c;
}

/* The three channels of a 16 bpp format. */
struct rgb16_neon {
	struct chan16_neon r, g, b;
};

static struct rgb16_neon rgb16_neon(const struct pixfmt *f)
{
	struct rgb16_neon k;

	k.r = chan16_neon(f->r_bits, f->r_shift);
	k.g = chan16_neon(f->g_bits, f->g_shift);
	k.b = chan16_neon(f->b_bits, f->b_shift);
	return k;
}

static inline uint16x8_t expand_neon(uint16x8_t v, const struct chan16_neon *k)
{
	uint16x8_t c = vandq_u16(vshlq_u16(v, k->down), k->mask);

	return vorrq_u16(vshlq_u16(c, k->left), vshlq_u16(c, k->right));
}

static void unpack16_neon(uint32_t *d, const uint8_t *src, uint32_t n,
			  const struct pixfmt *f)
{
	const struct rgb16_neon k = rgb16_neon(f);
	uint32_t i = 0;

	for (; i + 8 <= n; i += 8) {
		uint16x8_t v = vld1q_u16((const uint16_t *)(const void *)(
		    src + (size_t)i * 2));
		uint16x8_t rr = expand_neon(v, &k.r);
		uint16x8_t gb = vorrq_u16(expand_neon(v, &k.b),
					  vshlq_n_u16(expand_neon(v, &k.g), 8));

		/* Lane pairs (gb, r): g << 8 | b in the low half. */
		vst1q_u16((uint16_t *)(void *)(d + i), vzip1q_u16(gb, rr));
		vst1q_u16((uint16_t *)(void *)(d + i + 4), vzip2q_u16(gb, rr));
	}
	scale_unpack16_c(d + i, src + (size_t)i * 2, n - i, f);
}

/* round_to: (c * max + 127) / 255 as (x * 0x8081) >> 23, exact for x
 * below 2^16; at the channel's place. c: 8 channel values. */
static inline uint16x8_t round_neon(uint16x8_t c, const struct chan16_neon *k)
{
	uint16x8_t x = vmlaq_u16(vdupq_n_u16(127), c, vcombine_u16(k->max,
								   k->max));
	uint16x8_t q = vcombine_u16(
	    vshrn_n_u32(vmull_n_u16(vget_low_u16(x), 0x8081), 16),
	    vshrn_n_u32(vmull_n_u16(vget_high_u16(x), 0x8081), 16));

	return vshlq_u16(vshrq_n_u16(q, 7), k->up);
}

static void pack16_neon(uint8_t *out, const uint32_t *s, uint32_t n,
			const struct pixfmt *f)
{
	const struct rgb16_neon k = rgb16_neon(f);
	uint32_t i = 0;

	for (; i + 8 <= n; i += 8) {
		/* Byte k of each pixel in plane k (little-endian). */
		uint8x8x4_t p = vld4_u8((const uint8_t *)(const void *)(s + i));
		uint16x8_t v = vorrq_u16(
		    vorrq_u16(round_neon(vmovl_u8(p.val[2]), &k.r),
			      round_neon(vmovl_u8(p.val[1]), &k.g)),
		    round_neon(vmovl_u8(p.val[0]), &k.b));

		vst1q_u16((uint16_t *)(void *)(out + (size_t)i * 2), v);
	}
	scale_pack16_c(out + (size_t)i * 2, s + i, n - i, f);
}

static void dup2_neon(uint8_t *out, const uint8_t *src, uint32_t n)
{
	const uint8_t *s = src;
	uint32_t i;

	/* 4 pixels to 8 a step: each stored twice, interleaved. */
	for (i = 0; i + 8 <= n; i += 8, s += 16) {
		uint32x4_t p = vld1q_u32((const uint32_t *)(const void *)s);
		uint32x4x2_t pp = {{p, p}};

		vst2q_u32((uint32_t *)(void *)(out + (size_t)i * 4), pp);
	}
	for (; i < n; i++)
		memcpy(out + (size_t)i * 4, src + (size_t)(i / 2) * 4, 4);
}

/* Every path the C set has: the gather's horizontal passes are C's own,
 * so that the exact and wide paths are taken as with C. */
const struct scale_kernels scale_kernels_neon = {
    .name = "neon",
    .vsum = vsum_neon,
    .hsum = hsum_neon,
    .hx = scale_hx_c,
    .vx = vx_neon,
    .hxw = scale_hxw_c,
    .vxw = vxw_neon,
    .unpack16 = unpack16_neon,
    .pack16 = pack16_neon,
    .p32 = p32_neon,
    .p21 = p21_neon,
    .dup2 = dup2_neon,
};
