/* The scaler: C, SSE2, SSSE3 and AVX2 kernels, set-up (filter tables,
 * the path for a ratio, the kernel set for the CPU) and drawing rows. */
#include "config.h"

#include <assert.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__)
#include <immintrin.h>
#define SCALE_X86 1
#endif

#include "scale.h"

/* Filter tables for one axis: output i is the sum over k < taps of
 * w[i * taps + k] * source[start[i] + k] / 65536. */
struct scale_axis {
	uint32_t src, dst;
	unsigned taps;
	unsigned real_taps; /* taps before padding to even */
	uint32_t unit;	    /* src / gcd(src, dst): what wi sum to */
	int32_t *start;
	uint16_t *w;
	uint16_t *wi; /* exact overlaps, in 1/unit of an output */
};

/* The gather path, for reductions up to about 5:3 (and any enlargement):
 * a horizontal pass per source row (cached) in groups of 4 outputs, each
 * group gathering its taps from one 8-pixel window, then a vertical pass
 * per output row. Exact (byte weights, one rounded division by unit_x *
 * unit_y) where the ratio's reduced terms are small, as 1080p to 720p
 * (3:2 on both axes); wide (below) otherwise. */
struct scale_exact {
	uint32_t groups; /* ceil(dw / 4) */
	int32_t *gsrc;	 /* per group: first pixel of its window */
	uint32_t *gidx;	 /* per group and pair: 8 window indices */
	int8_t *gw;	 /* per group and pair: 32 weights */
	/* wide: ratios too fine for byte weights. The same windows with
	 * 15-bit weights (gw16, 32 per group, summing to 32768), the rows
	 * in 8.8 fixed point and the vertical weights of y.w: within 1 of
	 * the box filter instead of exact. */
	bool wide;
	int16_t *gw16;
	unsigned pairs;	      /* tap pairs per output: gidx, gw and gw16 hold
			       * this many sets of 8 / 32 / 32 per group */
	uint8_t *gpairs;      /* per group: the sets it needs (1 or 2) */
	uint32_t uniform;     /* groups [0, uniform) repeat group 0... */
	uint32_t step;	      /* ...each window step pixels further */
	size_t ahead;	      /* bytes to the source row to prefetch */
	uint16_t bias, magic; /* round(x / N) = (x + bias) * magic >> */
	unsigned shift;	      /* (16 + shift) */
	unsigned slots;	      /* cached horizontal rows */
	int16_t *h;
	const int16_t **hrows;
	uint8_t *line;	     /* groups * 16 bytes */
	int32_t *tag;	     /* source row held by each slot, -1: none */
	const uint8_t *csrc; /* what the cache was computed for */
	uint32_t cg0, cg1;
};

/* Integer ratios on both axes (zoom, identity) replicate pixels in any
 * format; anything else averages areas on 8-bit channels (32 bpp formats
 * with byte channels directly, others through xrgb8888 and back):
 * through the gather path where it applies and the kernels have it
 * (exact), else a vertical then horizontal fixed-point filter (vsum,
 * hsum). */
struct scaler {
	struct pixfmt fmt;
	uint32_t rw, rh, dw, dh;
	bool replicate;
	bool bytewise; /* 32 bpp, channels on byte boundaries */
	bool fast16;   /* 16 bpp little-endian, 4..8 bits a channel */
	struct scale_axis x, y;
	const struct kernels *kern; /* the set chosen at creation */
	bool exact; /* use the gather path e (struct scale_exact) */
	struct scale_exact e;
	uint16_t *hw;	      /* x weights, each repeated per channel */
	uint16_t *vsum;	      /* vertical sums, 4 per source pixel */
	uint8_t *conv;	      /* source rows as xrgb8888 (!bytewise) */
	uint8_t *line;	      /* one output row as xrgb8888 (!bytewise) */
	uint32_t *lut;	      /* 8/16 bpp value -> xrgb8888 */
	uint32_t *pack;	      /* 3 x 256: channel value -> its bits */
	const uint8_t **rowp; /* per-row tap lists, y.taps long */
	uint16_t *roww;
	/* Both axes exactly 3:2 and bytewise, with kernels that have it:
	 * output rows 2k and 2k+1 come together from source rows 3k..3k+2
	 * (see p32 below) and are kept for the next call. */
	bool p32;
	uint8_t *p32_line[2];	 /* rows 2k, 2k+1; dw pixels each */
	const uint8_t *p32_src;	 /* the picture they were drawn from */
	int64_t p32_pair;	 /* k, -1: none */
	uint32_t p32_g0, p32_g1; /* output pairs drawn */
	/* Both axes exactly 2:1 and bytewise: each output row from two
	 * source rows in one pass (the p21 kernels). */
	bool p21;
};

/* --- Kernels ---
 *
 * Each path is specified by its C version; the SIMD versions compute the
 * same integers, so they agree bit for bit (the tests check it).
 *
 * Fixed point (vsum, hsum): a vertical sum holds a channel value times
 * 256 (8.8), each tap contributing floor(p * 256 * w / 65536); the
 * horizontal pass sums floor(v * w / 65536) and rounds to 8 bits. Weights
 * sum to 65536 (65535 for a lone tap, which still reproduces p exactly),
 * so the result is within 1 of the exact box filter: the floors lose
 * under taps/256.
 *
 * Gather path, exact (hx, vx): integer weights; sums exact in 16 bits,
 * one division rounded to nearest. Wide (hxw, vxw): 15-bit horizontal
 * weights, >> 7 to 8.8, then the fixed-point vertical sum. */

/* The gather path: hx fills groups [g0, g1) of a horizontal row (16
 * int16 per group: 4 outputs x 4 channels, sums of weight x channel);
 * vx combines n such rows and divides, values [from, to) (multiples of
 * 16), into out[0 .. to - from). */
typedef void (*hx_fn)(int16_t *h, const uint8_t *row, uint32_t rw,
		      const struct scale_exact *e, uint32_t g0, uint32_t g1);
typedef void (*vx_fn)(uint8_t *out, const int16_t *const *rows,
		      const uint16_t *w, unsigned n,
		      const struct scale_exact *e, size_t from, size_t to);

/* Where output j (0..3) of a group keeps its 8 weights among a pair's 32
 * in gw16: outputs 0, 2, 1, 3, as hxw_avx2 multiplies them (one lane of
 * a register holds output 0 or 1, the other output 2 or 3). */
static inline unsigned wide_at(unsigned j)
{
	return (j & 1) * 16 + (j >> 1) * 8;
}

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
			int32_t w0 = wide ? e->gw16[wat + wide_at(j)]
					  : e->gw[wat + j * 8];
			int32_t w1 = wide ? e->gw16[wat + wide_at(j) + 1]
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

static void hx_c(int16_t *h, const uint8_t *row, uint32_t rw,
		 const struct scale_exact *e, uint32_t g0, uint32_t g1)
{
	uint32_t g;

	(void)rw;
	for (g = g0; g < g1; g++)
		hx_group_c(h, row, e, g);
}

static void vx_c(uint8_t *out, const int16_t *const *rows, const uint16_t *w,
		 unsigned n, const struct scale_exact *e, size_t from,
		 size_t to)
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

static void hxw_c(int16_t *h, const uint8_t *row, uint32_t rw,
		  const struct scale_exact *e, uint32_t g0, uint32_t g1)
{
	uint32_t g;

	(void)rw;
	for (g = g0; g < g1; g++)
		hxw_group_c((uint16_t *)h, row, e, g);
}

static void vxw_c(uint8_t *out, const int16_t *const *rows, const uint16_t *w,
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

typedef void (*vsum_fn)(uint16_t *v, const uint8_t *const *rows,
			const uint16_t *w, unsigned n, size_t from, size_t to);
typedef void (*hsum_fn)(uint8_t *out, const uint16_t *v, const int32_t *start,
			const uint16_t *hw, unsigned taps, uint32_t x0,
			uint32_t x1);

static void vsum_c(uint16_t *v, const uint8_t *const *rows, const uint16_t *w,
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

static void hsum_c(uint8_t *out, const uint16_t *v, const int32_t *start,
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

#ifdef SCALE_X86
/* Columns [i, to) in steps of 16, with n a constant where inlined: the
 * row pointers and weights then stay in registers. Returns where it
 * stopped. */
static inline __attribute__((always_inline)) size_t
vsum_sse2_run(uint16_t *v, const uint8_t *const *rows, const uint16_t *w,
	      const unsigned n, size_t i, size_t to)
{
	const __m128i zero = _mm_setzero_si128();
	unsigned k;

	for (; i + 16 <= to; i += 16) {
		__m128i lo = zero, hi = zero;

		for (k = 0; k < n; k++) {
			__m128i x =
			    _mm_loadu_si128((const __m128i *)(rows[k] + i));
			__m128i wk = _mm_set1_epi16((short)w[k]);

			/* unpack with zero below: p * 256 per lane */
			lo = _mm_add_epi16(
			    lo,
			    _mm_mulhi_epu16(_mm_unpacklo_epi8(zero, x), wk));
			hi = _mm_add_epi16(
			    hi,
			    _mm_mulhi_epu16(_mm_unpackhi_epi8(zero, x), wk));
		}
		_mm_storeu_si128((__m128i *)(v + i), lo);
		_mm_storeu_si128((__m128i *)(v + i + 8), hi);
	}
	return i;
}

static void vsum_sse2(uint16_t *v, const uint8_t *const *rows,
		      const uint16_t *w, unsigned n, size_t from, size_t to)
{
	size_t i;

	if (n == 2)
		i = vsum_sse2_run(v, rows, w, 2, from, to);
	else if (n == 3)
		i = vsum_sse2_run(v, rows, w, 3, from, to);
	else
		i = vsum_sse2_run(v, rows, w, n, from, to);
	vsum_c(v, rows, w, n, i, to);
}

/* Four outputs per step: two taps (8 lanes) per 128-bit multiply.
 * Outputs [i, x1), with taps a constant where inlined, so that the tap
 * loop unrolls. Returns where it stopped. */
static inline __attribute__((always_inline)) uint32_t
hsum_sse2_run(uint8_t *out, const uint16_t *v, const int32_t *start,
	      const uint16_t *hw, const unsigned taps, uint32_t i, uint32_t x1)
{
	const __m128i round = _mm_set1_epi16(128);
	unsigned k, j;

	for (; i + 4 <= x1; i += 4, out += 16) {
		__m128i a[4], s01, s23;

		for (j = 0; j < 4; j++) {
			const uint16_t *s = v + (size_t)start[i + j] * 4;
			const uint16_t *w = hw + (size_t)(i + j) * taps * 4;

			a[j] = _mm_setzero_si128();
			for (k = 0; k < taps; k += 2)
				a[j] = _mm_add_epi16(
				    a[j],
				    _mm_mulhi_epu16(
					_mm_loadu_si128(
					    (const __m128i *)(s + k * 4)),
					_mm_loadu_si128(
					    (const __m128i *)(w + k * 4))));
		}
		s01 = _mm_add_epi16(_mm_unpacklo_epi64(a[0], a[1]),
				    _mm_unpackhi_epi64(a[0], a[1]));
		s23 = _mm_add_epi16(_mm_unpacklo_epi64(a[2], a[3]),
				    _mm_unpackhi_epi64(a[2], a[3]));
		s01 = _mm_srli_epi16(_mm_add_epi16(s01, round), 8);
		s23 = _mm_srli_epi16(_mm_add_epi16(s23, round), 8);
		_mm_storeu_si128((__m128i *)out, _mm_packus_epi16(s01, s23));
	}
	return i;
}

static void hsum_sse2(uint8_t *out, const uint16_t *v, const int32_t *start,
		      const uint16_t *hw, unsigned taps, uint32_t x0,
		      uint32_t x1)
{
	uint32_t i;

	/* The common tap counts (every enlargement and reductions up to
	 * 3:1 have 2 or 4) unrolled. */
	if (taps == 2)
		i = hsum_sse2_run(out, v, start, hw, 2, x0, x1);
	else if (taps == 4)
		i = hsum_sse2_run(out, v, start, hw, 4, x0, x1);
	else
		i = hsum_sse2_run(out, v, start, hw, taps, x0, x1);
	hsum_c(out + (size_t)(i - x0) * 4, v, start, hw, taps, i, x1);
}

__attribute__((target("avx2"))) static void
vsum_avx2(uint16_t *v, const uint8_t *const *rows, const uint16_t *w,
	  unsigned n, size_t from, size_t to)
{
	const __m256i zero = _mm256_setzero_si256();
	size_t i = from;
	unsigned k;

	for (; i + 32 <= to; i += 32) {
		__m256i lo = zero, hi = zero;

		for (k = 0; k < n; k++) {
			__m256i x =
			    _mm256_loadu_si256((const __m256i *)(rows[k] + i));
			__m256i wk = _mm256_set1_epi16((short)w[k]);

			lo = _mm256_add_epi16(
			    lo, _mm256_mulhi_epu16(
				    _mm256_unpacklo_epi8(zero, x), wk));
			hi = _mm256_add_epi16(
			    hi, _mm256_mulhi_epu16(
				    _mm256_unpackhi_epi8(zero, x), wk));
		}
		/* unpack works per 128-bit lane: put bytes back in order */
		_mm256_storeu_si256((__m256i *)(v + i),
				    _mm256_permute2x128_si256(lo, hi, 0x20));
		_mm256_storeu_si256((__m256i *)(v + i + 16),
				    _mm256_permute2x128_si256(lo, hi, 0x31));
	}
	vsum_sse2(v, rows, w, n, i, to);
}

/* Eight outputs per step; lane 0 takes outputs 0,1,2,3 and lane 1 takes
 * 4,5,6,7 so that the final pack leaves them in order. */
__attribute__((target("avx2"))) static void
hsum_avx2(uint8_t *out, const uint16_t *v, const int32_t *start,
	  const uint16_t *hw, unsigned taps, uint32_t x0, uint32_t x1)
{
	const __m256i round = _mm256_set1_epi16(128);
	uint32_t i = x0;
	unsigned k, j;

	for (; i + 8 <= x1; i += 8, out += 32) {
		__m256i a[4], s01, s23;

		for (j = 0; j < 4; j++) {
			const uint16_t *sl = v + (size_t)start[i + j] * 4;
			const uint16_t *sh = v + (size_t)start[i + j + 4] * 4;
			const uint16_t *wl = hw + (size_t)(i + j) * taps * 4;
			const uint16_t *wh = wl + (size_t)4 * taps * 4;

			a[j] = _mm256_setzero_si256();
			for (k = 0; k < taps; k += 2) {
				__m256i px = _mm256_inserti128_si256(
				    _mm256_castsi128_si256(_mm_loadu_si128(
					(const __m128i *)(sl + k * 4))),
				    _mm_loadu_si128(
					(const __m128i *)(sh + k * 4)),
				    1);
				__m256i wt = _mm256_inserti128_si256(
				    _mm256_castsi128_si256(_mm_loadu_si128(
					(const __m128i *)(wl + k * 4))),
				    _mm_loadu_si128(
					(const __m128i *)(wh + k * 4)),
				    1);

				a[j] = _mm256_add_epi16(
				    a[j], _mm256_mulhi_epu16(px, wt));
			}
		}
		s01 = _mm256_add_epi16(_mm256_unpacklo_epi64(a[0], a[1]),
				       _mm256_unpackhi_epi64(a[0], a[1]));
		s23 = _mm256_add_epi16(_mm256_unpacklo_epi64(a[2], a[3]),
				       _mm256_unpackhi_epi64(a[2], a[3]));
		s01 = _mm256_srli_epi16(_mm256_add_epi16(s01, round), 8);
		s23 = _mm256_srli_epi16(_mm256_add_epi16(s23, round), 8);
		_mm256_storeu_si256((__m256i *)out,
				    _mm256_packus_epi16(s01, s23));
	}
	hsum_sse2(out, v, start, hw, taps, i, x1);
}
#endif

#ifdef SCALE_X86
/* pshufb control: in each lane of 4 pixels (p0..p3), per channel the
 * bytes of p0 and p1 side by side, then those of p2 and p3, for
 * pmaddubsw to weigh and add in pairs. */
__attribute__((target("avx2"))) static inline __m256i pair_bytes(void)
{
	return _mm256_setr_epi8(0, 4, 1, 5, 2, 6, 3, 7, 8, 12, 9, 13, 10, 14,
				11, 15, 0, 4, 1, 5, 2, 6, 3, 7, 8, 12, 9, 13,
				10, 14, 11, 15);
}

/* One group of 4 outputs per step: gather each output's two taps of a
 * pair into place (vpermd across the 8-pixel window), pair their
 * channels (pshufb), multiply-add with the byte weights (pmaddubsw); a
 * second pair of taps (3 or 4 taps an output) adds another round. */
/* The 8-pixel window at pixel x of a row rw pixels long; past the end
 * (the last group or two) from a zero-padded copy, never reading beyond
 * the picture. */
__attribute__((target("avx2"))) static inline __m256i
load_window(const uint8_t *row, uint32_t rw, int32_t x)
{
	uint8_t tail[32] = {0};

	if ((uint32_t)x + 8 <= rw)
		return _mm256_loadu_si256(
		    (const __m256i *)(row + (size_t)x * 4));
	memcpy(tail, row + (size_t)x * 4, (size_t)(rw - (uint32_t)x) * 4);
	return _mm256_loadu_si256((const __m256i *)tail);
}

__attribute__((target("avx2"))) static inline __m256i
hx_pair(__m256i px, const uint32_t *idx, const int8_t *w, __m256i pairs)
{
	return _mm256_maddubs_epi16(
	    _mm256_shuffle_epi8(
		_mm256_permutevar8x32_epi32(
		    px, _mm256_loadu_si256((const __m256i *)idx)),
		pairs),
	    _mm256_loadu_si256((const __m256i *)w));
}

/* Group g's 16 sums from its window px: np tap pairs (idx, w at the
 * group's first), all done (absent taps weigh 0, cheaper than a branch
 * that mispredicts). Inlined with np a constant where it can be. */
__attribute__((target("avx2"), always_inline)) static inline __m256i
hx_group(__m256i px, const uint32_t *idx, const int8_t *w, const unsigned np,
	 __m256i pairs)
{
	__m256i acc = hx_pair(px, idx, w, pairs);

	if (np == 2)
		acc = _mm256_add_epi16(acc, hx_pair(px, idx + 8, w + 32, pairs));
	return acc;
}

/* Groups [g, end), whose windows lie whole in the row, each with its own
 * indices and weights. The tables come as locals: h may alias anything,
 * so e's fields would be loaded again for every group. */
__attribute__((target("avx2"), always_inline)) static inline void
hx_whole(int16_t *h, const uint8_t *row, const int32_t *gsrc,
	 const uint32_t *gidx, const int8_t *gw, uint32_t g, uint32_t end,
	 const unsigned np, __m256i pairs)
{
	for (; g < end; g++)
		_mm256_storeu_si256(
		    (__m256i *)(h + (size_t)g * 16),
		    hx_group(_mm256_loadu_si256(
				 (const __m256i *)(row + (size_t)gsrc[g] * 4)),
			     gidx + (size_t)g * np * 8, gw + (size_t)g * np * 32,
			     np, pairs));
}

__attribute__((target("avx2"))) static void
hx_avx2(int16_t *h, const uint8_t *row, uint32_t rw,
	const struct scale_exact *e, uint32_t g0, uint32_t g1)
{
	const __m256i pairs = pair_bytes();
	const int32_t *gsrc = e->gsrc;
	const uint32_t *gidx = e->gidx;
	const int8_t *gw = e->gw;
	unsigned np = e->pairs;
	uint32_t g, end = g1;

	/* The uniform loop loads whole windows: it stops before the first
	 * that would reach past the row (gsrc only grows); load_window
	 * takes the rest. */
	while (end > g0 && (uint32_t)gsrc[end - 1] + 8 > rw)
		end--;
	g = g0;
	if (g < e->uniform && e->gpairs[0] == 1) {
		/* Every group alike (3:2, 2:1): indices and weights stay in
		 * registers, windows advance by a constant step. */
		const __m256i idx = _mm256_loadu_si256((const __m256i *)gidx);
		const __m256i w = _mm256_loadu_si256((const __m256i *)gw);
		size_t st = (size_t)e->step * 4;
		const uint8_t *p =
		    row + ((size_t)gsrc[0] + (size_t)g * e->step) * 4;
		uint32_t uend = end < e->uniform ? end : e->uniform;

		for (; g + 2 <= uend; g += 2, p += 2 * st) {
			__m256i a;

			_mm_prefetch((const char *)p + e->ahead, _MM_HINT_T0);
			a = _mm256_loadu_si256((const __m256i *)p);
			__m256i b =
			    _mm256_loadu_si256((const __m256i *)(p + st));

			a = _mm256_shuffle_epi8(
			    _mm256_permutevar8x32_epi32(a, idx), pairs);
			b = _mm256_shuffle_epi8(
			    _mm256_permutevar8x32_epi32(b, idx), pairs);
			_mm256_storeu_si256((__m256i *)(h + (size_t)g * 16),
					    _mm256_maddubs_epi16(a, w));
			_mm256_storeu_si256(
			    (__m256i *)(h + (size_t)g * 16 + 16),
			    _mm256_maddubs_epi16(b, w));
		}
		for (; g < uend; g++, p += st) {
			__m256i px = _mm256_loadu_si256((const __m256i *)p);

			px = _mm256_shuffle_epi8(
			    _mm256_permutevar8x32_epi32(px, idx), pairs);
			_mm256_storeu_si256((__m256i *)(h + (size_t)g * 16),
					    _mm256_maddubs_epi16(px, w));
		}
	}
	/* The rest: every group its own indices and weights. */
	if (np == 2)
		hx_whole(h, row, gsrc, gidx, gw, g, end, 2, pairs);
	else
		hx_whole(h, row, gsrc, gidx, gw, g, end, 1, pairs);
	for (g = end; g < g1; g++)
		_mm256_storeu_si256(
		    (__m256i *)(h + (size_t)g * 16),
		    hx_group(load_window(row, rw, gsrc[g]),
			     gidx + (size_t)g * np * 8, gw + (size_t)g * np * 32,
			     np, pairs));
}

__attribute__((target("avx2"))) static void
vx_avx2(uint8_t *out, const int16_t *const *rows, const uint16_t *w, unsigned n,
	const struct scale_exact *e, size_t from, size_t to)
{
	const __m256i bias = _mm256_set1_epi16((short)e->bias);
	const __m256i magic = _mm256_set1_epi16((short)e->magic);
	const __m128i shift = _mm_cvtsi32_si128((int)e->shift);
	size_t i = from;
	unsigned k;

	if (n == 2) {
		/* The common case (a 3:2 row mixes two source rows), with
		 * everything in registers. */
		const int16_t *r0 = rows[0], *r1 = rows[1];
		const __m256i w0 = _mm256_set1_epi16((short)w[0]);
		const __m256i w1 = _mm256_set1_epi16((short)w[1]);
		uint8_t *o = out;

		for (; i + 32 <= to; i += 32, o += 32) {
			__m256i lo = _mm256_add_epi16(
			    _mm256_add_epi16(_mm256_mullo_epi16(
						 _mm256_loadu_si256(
						     (const __m256i *)(r0 + i)),
						 w0),
					     _mm256_mullo_epi16(
						 _mm256_loadu_si256(
						     (const __m256i *)(r1 + i)),
						 w1)),
			    bias);
			__m256i hi = _mm256_add_epi16(
			    _mm256_add_epi16(
				_mm256_mullo_epi16(
				    _mm256_loadu_si256(
					(const __m256i *)(r0 + i + 16)),
				    w0),
				_mm256_mullo_epi16(
				    _mm256_loadu_si256(
					(const __m256i *)(r1 + i + 16)),
				    w1)),
			    bias);

			lo = _mm256_srl_epi16(_mm256_mulhi_epu16(lo, magic),
					      shift);
			hi = _mm256_srl_epi16(_mm256_mulhi_epu16(hi, magic),
					      shift);
			_mm256_storeu_si256(
			    (__m256i *)o,
			    _mm256_permute4x64_epi64(
				_mm256_packus_epi16(lo, hi), 0xd8));
		}
		vx_c(out + (i - from), rows, w, n, e, i, to);
		return;
	}
	for (; i + 32 <= to; i += 32) {
		__m256i lo = bias, hi = bias;

		for (k = 0; k < n; k++) {
			__m256i wk = _mm256_set1_epi16((short)w[k]);

			lo = _mm256_add_epi16(
			    lo, _mm256_mullo_epi16(
				    _mm256_loadu_si256(
					(const __m256i *)(rows[k] + i)),
				    wk));
			hi = _mm256_add_epi16(
			    hi, _mm256_mullo_epi16(
				    _mm256_loadu_si256(
					(const __m256i *)(rows[k] + i + 16)),
				    wk));
		}
		lo = _mm256_srl_epi16(_mm256_mulhi_epu16(lo, magic), shift);
		hi = _mm256_srl_epi16(_mm256_mulhi_epu16(hi, magic), shift);
		/* packus works per lane: put the quadwords back in order */
		_mm256_storeu_si256((__m256i *)(out + (i - from)),
				    _mm256_permute4x64_epi64(
					_mm256_packus_epi16(lo, hi), 0xd8));
	}
	vx_c(out + (i - from), rows, w, n, e, i, to);
}

/* Wide: the same gather (vpermd), then one pshufb per output pair that
 * both pairs and widens the channels to 16 bits (zeros from the 0x80
 * bytes), and pmaddwd with 15-bit weights into 32-bit sums: register a
 * holds outputs 0 and 2 (a lane each), b outputs 1 and 3, so that
 * packusdw of the two, after >> 7 to 8.8, leaves 0, 1 | 2, 3 in order.
 * Shuffles are what limits it, hence no vpmovzx and no lane fix-up after
 * the pack (spreading compact weights with pshufd measured slower than
 * loading them whole). Every group does all its pairs: absent taps
 * weigh 0, cheaper than a branch that mispredicts. */
__attribute__((target("avx2"))) static inline void
hxw_pair(__m256i px, const uint32_t *idx, const int16_t *w, __m256i *a,
	 __m256i *b)
{
	const __m256i first = _mm256_setr_epi8(
	    0, -128, 4, -128, 1, -128, 5, -128, 2, -128, 6, -128, 3, -128, 7,
	    -128, 0, -128, 4, -128, 1, -128, 5, -128, 2, -128, 6, -128, 3, -128,
	    7, -128);
	const __m256i second = _mm256_setr_epi8(
	    8, -128, 12, -128, 9, -128, 13, -128, 10, -128, 14, -128, 11, -128,
	    15, -128, 8, -128, 12, -128, 9, -128, 13, -128, 10, -128, 14, -128,
	    11, -128, 15, -128);

	px = _mm256_permutevar8x32_epi32(
	    px, _mm256_loadu_si256((const __m256i *)idx));
	*a = _mm256_add_epi32(
	    *a, _mm256_madd_epi16(_mm256_shuffle_epi8(px, first),
				  _mm256_loadu_si256((const __m256i *)w)));
	*b = _mm256_add_epi32(
	    *b,
	    _mm256_madd_epi16(_mm256_shuffle_epi8(px, second),
			      _mm256_loadu_si256((const __m256i *)(w + 16))));
}

/* Group g's 16 values (8.8) into hg from its window px, as hx_group. */
__attribute__((target("avx2"), always_inline)) static inline void
hxw_group(int16_t *hg, __m256i px, const uint32_t *idx, const int16_t *w,
	  const unsigned np)
{
	__m256i a = _mm256_setzero_si256(), b = a;

	hxw_pair(px, idx, w, &a, &b);
	if (np == 2)
		hxw_pair(px, idx + 8, w + 32, &a, &b);
	_mm256_storeu_si256((__m256i *)hg,
			    _mm256_packus_epi32(_mm256_srli_epi32(a, 7),
						_mm256_srli_epi32(b, 7)));
}

/* Groups [g, end), whose windows lie whole in the row, as hx_whole. */
__attribute__((target("avx2"), always_inline)) static inline void
hxw_whole(int16_t *h, const uint8_t *row, const int32_t *gsrc,
	  const uint32_t *gidx, const int16_t *gw16, size_t ahead, uint32_t g,
	  uint32_t end, const unsigned np)
{
	for (; g < end; g++) {
		const uint8_t *p = row + (size_t)gsrc[g] * 4;

		_mm_prefetch((const char *)p + ahead, _MM_HINT_T0);
		hxw_group(h + (size_t)g * 16,
			  _mm256_loadu_si256((const __m256i *)p),
			  gidx + (size_t)g * np * 8, gw16 + (size_t)g * np * 32,
			  np);
	}
}

__attribute__((target("avx2"))) static void
hxw_avx2(int16_t *h, const uint8_t *row, uint32_t rw,
	 const struct scale_exact *e, uint32_t g0, uint32_t g1)
{
	const int32_t *gsrc = e->gsrc;
	const uint32_t *gidx = e->gidx;
	const int16_t *gw16 = e->gw16;
	unsigned np = e->pairs;
	uint32_t g, end = g1;

	/* Whole windows in the loop, load_window for the last ones. */
	while (end > g0 && (uint32_t)gsrc[end - 1] + 8 > rw)
		end--;
	if (np == 2)
		hxw_whole(h, row, gsrc, gidx, gw16, e->ahead, g0, end, 2);
	else
		hxw_whole(h, row, gsrc, gidx, gw16, e->ahead, g0, end, 1);
	for (g = end; g < g1; g++)
		hxw_group(h + (size_t)g * 16, load_window(row, rw, gsrc[g]),
			  gidx + (size_t)g * np * 8, gw16 + (size_t)g * np * 32,
			  np);
}

__attribute__((target("avx2"))) static void
vxw_avx2(uint8_t *out, const int16_t *const *rows, const uint16_t *w,
	 unsigned n, const struct scale_exact *e, size_t from, size_t to)
{
	const __m256i round = _mm256_set1_epi16(128);
	size_t i = from;
	unsigned k;

	for (; i + 32 <= to; i += 32) {
		__m256i lo = round, hi = round;

		for (k = 0; k < n; k++) {
			__m256i wk = _mm256_set1_epi16((short)w[k]);

			lo = _mm256_add_epi16(
			    lo, _mm256_mulhi_epu16(
				    _mm256_loadu_si256(
					(const __m256i *)(rows[k] + i)),
				    wk));
			hi = _mm256_add_epi16(
			    hi, _mm256_mulhi_epu16(
				    _mm256_loadu_si256(
					(const __m256i *)(rows[k] + i + 16)),
				    wk));
		}
		_mm256_storeu_si256(
		    (__m256i *)(out + (i - from)),
		    _mm256_permute4x64_epi64(
			_mm256_packus_epi16(_mm256_srli_epi16(lo, 8),
					    _mm256_srli_epi16(hi, 8)),
			0xd8));
	}
	vxw_c(out + (i - from), rows, w, n, e, i, to);
}
#endif

/* The 3:2 path: both axes exactly 3:2 (1080p to 720p, 4K to 1440p), 32 bpp
 * with byte channels. Source pixels 3g..3g+2 make outputs 2g and 2g+1
 * with weights (2, 1) and (1, 2) on each axis, so a 3x3 block makes a 2x2
 * one, each output sum(wy * wx * p) / 9 rounded: the exact path's
 * integers. One pass over three source rows writes both output rows, so
 * every source pixel is read once and no intermediate row goes through
 * memory: the general path reads each row into a horizontal row, stores
 * it and loads it back, and its vertical pass runs per output row.
 * p32 writes pairs [g0, g1) of output rows o0 and o1 (pixels 2 * g0 ..
 * 2 * g1 - 1) from source rows r0, r1, r2; all pointers at pixel 0. */
typedef void (*p32_fn)(uint8_t *o0, uint8_t *o1, const uint8_t *r0,
		       const uint8_t *r1, const uint8_t *r2, uint32_t g0,
		       uint32_t g1, bool nt);

/* One pair: p, q the two outputs of each row, a, b, d the three source
 * pixels of each row. */
static void p32_one(uint8_t *p, uint8_t *q, const uint8_t *a,
		    const uint8_t *b, const uint8_t *d)
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

static void p32_c(uint8_t *o0, uint8_t *o1, const uint8_t *r0,
		  const uint8_t *r1, const uint8_t *r2, uint32_t g0,
		  uint32_t g1, bool nt)
{
	uint32_t g;

	(void)nt;
	for (g = g0; g < g1; g++)
		p32_one(o0 + (size_t)g * 8, o1 + (size_t)g * 8,
			r0 + (size_t)g * 12, r1 + (size_t)g * 12,
			r2 + (size_t)g * 12);
}

/* The 2:1 path: both axes exactly 2:1 (4K to 1080p), 32 bpp with byte
 * channels: each output the rounded mean of a 2x2 block, (sum + 2) / 4,
 * the exact path's integers. One output row from source rows a and b:
 * n outputs into o from 2n pixels of each (all at their first pixel). */
typedef void (*p21_fn)(uint8_t *o, const uint8_t *a, const uint8_t *b,
		       uint32_t n, bool nt);

static void p21_c(uint8_t *o, const uint8_t *a, const uint8_t *b, uint32_t n,
		  bool nt)
{
	uint32_t i;
	unsigned c;

	(void)nt;
	for (i = 0; i < n; i++, o += 4, a += 8, b += 8)
		for (c = 0; c < 4; c++)
			o[c] = (uint8_t)((a[c] + a[4 + c] + b[c] + b[4 + c] +
					  2) / 4);
}

#ifdef SCALE_X86
/* pshufb control for a lane whose 3 pixels start at byte o: per channel
 * the byte pairs (p0, p1) then (p1, p2), for pmaddubsw. */
#define P32_CTL(o)                                                      \
	(o) + 0, (o) + 4, (o) + 1, (o) + 5, (o) + 2, (o) + 6, (o) + 3,  \
	    (o) + 7, (o) + 4, (o) + 8, (o) + 5, (o) + 9, (o) + 6,       \
	    (o) + 10, (o) + 7, (o) + 11

/* 12 source pixels of one row across: ha holds outputs 0, 1 | 4, 5 and
 * hb outputs 2, 3 | 6, 7 (4 channels each, 16 bits), the lane order that
 * packus_epi16(ha, hb) turns into outputs 0..7. Every load stays inside
 * the 12 pixels (hb's high lane loads pixels 8..11 and skips the first). */
__attribute__((target("avx2"))) static inline void
p32_across(const uint8_t *s, __m256i *ha, __m256i *hb)
{
	const __m256i ca = _mm256_setr_epi8(P32_CTL(0), P32_CTL(0));
	const __m256i cb = _mm256_setr_epi8(P32_CTL(0), P32_CTL(4));
	const __m256i w = _mm256_setr_epi8(2, 1, 2, 1, 2, 1, 2, 1, 1, 2, 1, 2,
					   1, 2, 1, 2, 2, 1, 2, 1, 2, 1, 2, 1,
					   1, 2, 1, 2, 1, 2, 1, 2);
	__m256i a = _mm256_inserti128_si256(
	    _mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)s)),
	    _mm_loadu_si128((const __m128i *)(s + 24)), 1);
	__m256i b = _mm256_inserti128_si256(
	    _mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)(s + 12))),
	    _mm_loadu_si128((const __m128i *)(s + 32)), 1);

	*ha = _mm256_maddubs_epi16(_mm256_shuffle_epi8(a, ca), w);
	*hb = _mm256_maddubs_epi16(_mm256_shuffle_epi8(b, cb), w);
}

/* Pairs g..g+3: 8 outputs of each row, from source byte s = 12 * g. */
__attribute__((target("avx2"))) static inline void
p32_block_avx2(const uint8_t *r0, const uint8_t *r1, const uint8_t *r2,
	       size_t s, __m256i *top, __m256i *bottom)
{
	/* round(x / 9) = (x + 4) * 7282 >> 16 for x + 4 <= 2299. */
	const __m256i four = _mm256_set1_epi16(4);
	const __m256i ninth = _mm256_set1_epi16(7282);
	__m256i a0, b0, a1, b1, a2, b2, x, y;

	p32_across(r0 + s, &a0, &b0);
	p32_across(r1 + s, &a1, &b1);
	p32_across(r2 + s, &a2, &b2);
	a1 = _mm256_add_epi16(a1, four);
	b1 = _mm256_add_epi16(b1, four);
	x = _mm256_mulhi_epu16(_mm256_add_epi16(_mm256_add_epi16(a0, a0), a1),
			       ninth);
	y = _mm256_mulhi_epu16(_mm256_add_epi16(_mm256_add_epi16(b0, b0), b1),
			       ninth);
	*top = _mm256_packus_epi16(x, y);
	x = _mm256_mulhi_epu16(_mm256_add_epi16(_mm256_add_epi16(a2, a2), a1),
			       ninth);
	y = _mm256_mulhi_epu16(_mm256_add_epi16(_mm256_add_epi16(b2, b2), b1),
			       ninth);
	*bottom = _mm256_packus_epi16(x, y);
}

/* 32 bytes at p, streaming (nt: p 32-byte aligned) or not. */
__attribute__((target("avx2"))) static inline void store32(uint8_t *p,
							   __m256i v, bool nt)
{
	if (nt)
		_mm256_stream_si256((__m256i *)p, v);
	else
		_mm256_storeu_si256((__m256i *)p, v);
}

/* The pairs before the first whole cache line of o0 (nt), and whether
 * streaming stores can be used at all: they need 32-byte alignment, so
 * rows whose distance is not a multiple of 32 bytes, or pixels off 8-byte
 * alignment, take plain stores. */
static bool p32_head(uint8_t *o0, uint8_t *o1, const uint8_t *r0,
		     const uint8_t *r1, const uint8_t *r2, uint32_t *g,
		     uint32_t g1, bool nt)
{
	if (!nt || ((uintptr_t)o0 | (uintptr_t)o1) & 7 ||
	    ((uintptr_t)o0 ^ (uintptr_t)o1) & 31)
		return false;
	for (; *g < g1 && ((uintptr_t)(o0 + (size_t)*g * 8) & 63); (*g)++)
		p32_one(o0 + (size_t)*g * 8, o1 + (size_t)*g * 8,
			r0 + (size_t)*g * 12, r1 + (size_t)*g * 12,
			r2 + (size_t)*g * 12);
	return true;
}

/* How far ahead in each source row to prefetch. In the live pipeline
 * (vncfb bench --workload fit) the decoder and the server stream the next
 * frame through memory on the other core while this runs, and 640 bytes
 * (10 lines) ahead brought the scaled blit from 1.73-1.92 to 1.54-1.62
 * times the unscaled one (3 runs each, interleaved); 384 and 1024 did
 * less. With a cache-warm source (bench_scale) it gains about 4%. */
#define P32_AHEAD 640

/* A step reads at most 1.5 lines of each source row: two lines at p keep
 * every line asked for. A prefetch never faults, so past the picture's
 * end is harmless. */
static inline void ahead(const uint8_t *p)
{
	_mm_prefetch((const char *)p, _MM_HINT_T0);
	_mm_prefetch((const char *)p + 64, _MM_HINT_T0);
}

/* The three source rows of pairs g.. of the 3:2 path, P32_AHEAD on. */
static inline void p32_ahead(const uint8_t *r0, const uint8_t *r1,
			     const uint8_t *r2, uint32_t g)
{
	size_t at = (size_t)g * 12 + P32_AHEAD;

	ahead(r0 + at);
	ahead(r1 + at);
	ahead(r2 + at);
}

/* nt: o0 and o1 are the mapping (write-only, see output.h): streaming
 * stores, a whole cache line of each row per step (storing lines in
 * halves, the rows alternating, measured about 10% slower). */
__attribute__((target("avx2"))) static void
p32_avx2(uint8_t *o0, uint8_t *o1, const uint8_t *r0, const uint8_t *r1,
	 const uint8_t *r2, uint32_t g0, uint32_t g1, bool nt)
{
	uint32_t g = g0;
	__m256i t0, b0, t1, b1;

	nt = p32_head(o0, o1, r0, r1, r2, &g, g1, nt);
	for (; g + 8 <= g1; g += 8) {
		p32_ahead(r0, r1, r2, g);
		p32_block_avx2(r0, r1, r2, (size_t)g * 12, &t0, &b0);
		p32_block_avx2(r0, r1, r2, (size_t)g * 12 + 48, &t1, &b1);
		store32(o0 + (size_t)g * 8, t0, nt);
		store32(o0 + (size_t)g * 8 + 32, t1, nt);
		store32(o1 + (size_t)g * 8, b0, nt);
		store32(o1 + (size_t)g * 8 + 32, b1, nt);
	}
	for (; g + 4 <= g1; g += 4) {
		p32_block_avx2(r0, r1, r2, (size_t)g * 12, &t0, &b0);
		store32(o0 + (size_t)g * 8, t0, nt);
		store32(o1 + (size_t)g * 8, b0, nt);
	}
	p32_c(o0, o1, r0, r1, r2, g, g1, false);
}
#undef P32_CTL

/* 8 pixels of a row (a lane of 4 each) to the channel sums of each pair:
 * pshufb puts a pair's bytes of one channel side by side, pmaddubsw by
 * ones adds them. */
__attribute__((target("avx2"))) static inline __m256i
p21_across(const uint8_t *s)
{
	return _mm256_maddubs_epi16(
	    _mm256_shuffle_epi8(_mm256_loadu_si256((const __m256i *)s),
				pair_bytes()),
	    _mm256_set1_epi8(1));
}

/* Outputs i..i+7. */
__attribute__((target("avx2"))) static inline __m256i
p21_block_avx2(const uint8_t *a, const uint8_t *b, size_t i)
{
	const __m256i two = _mm256_set1_epi16(2);
	__m256i lo = _mm256_add_epi16(p21_across(a + i * 8),
				      p21_across(b + i * 8));
	__m256i hi = _mm256_add_epi16(p21_across(a + i * 8 + 32),
				      p21_across(b + i * 8 + 32));

	lo = _mm256_srli_epi16(_mm256_add_epi16(lo, two), 2);
	hi = _mm256_srli_epi16(_mm256_add_epi16(hi, two), 2);
	/* packus interleaves the lanes: outputs 0-1, 4-5, 2-3, 6-7. */
	return _mm256_permute4x64_epi64(_mm256_packus_epi16(lo, hi), 0xd8);
}

/* The outputs before o's first whole cache line (nt), in C; *nt stays
 * only where the pixels are 4-byte aligned. Returns the next output. */
static uint32_t p21_head(uint8_t *o, const uint8_t *a, const uint8_t *b,
			 uint32_t n, bool *nt)
{
	uint32_t i = 0;

	if (*nt && ((uintptr_t)o & 3))
		*nt = false;
	for (; *nt && i < n && ((uintptr_t)(o + (size_t)i * 4) & 63); i++)
		p21_c(o + (size_t)i * 4, a + (size_t)i * 8, b + (size_t)i * 8,
		      1, false);
	return i;
}

/* nt as for p32_avx2: streaming stores from the first whole cache line,
 * two blocks a line; the same prefetch distance. */
__attribute__((target("avx2"))) static void
p21_avx2(uint8_t *o, const uint8_t *a, const uint8_t *b, uint32_t n, bool nt)
{
	uint32_t i = p21_head(o, a, b, n, &nt);

	for (; i + 16 <= n; i += 16) {
		size_t at = (size_t)i * 8 + P32_AHEAD;

		ahead(a + at);
		ahead(b + at);
		store32(o + (size_t)i * 4, p21_block_avx2(a, b, i), nt);
		store32(o + (size_t)i * 4 + 32, p21_block_avx2(a, b, i + 8),
			nt);
	}
	for (; i + 8 <= n; i += 8)
		store32(o + (size_t)i * 4, p21_block_avx2(a, b, i), nt);
	p21_c(o + (size_t)i * 4, a + (size_t)i * 8, b + (size_t)i * 8, n - i,
	      false);
}

/* The same two paths for CPUs with SSSE3 but no AVX2 (the Atom and
 * Celeron class of kiosk and embedded boxes: Bay Trail, Apollo and
 * Gemini Lake): one 16-byte lane at a time, the same integers. */
#define P32_CTL16(o)                                                    \
	(char)((o) + 0), (char)((o) + 4), (char)((o) + 1),              \
	    (char)((o) + 5), (char)((o) + 2), (char)((o) + 6),          \
	    (char)((o) + 3), (char)((o) + 7), (char)((o) + 4),          \
	    (char)((o) + 8), (char)((o) + 5), (char)((o) + 9),          \
	    (char)((o) + 6), (char)((o) + 10), (char)((o) + 7),         \
	    (char)((o) + 11)

/* Outputs 2k, 2k + 1 of a row across (16 bits a channel), from the 16
 * bytes at s with ctl picking the three pixels. */
__attribute__((target("ssse3"))) static inline __m128i
p32_pair_ssse3(const uint8_t *s, __m128i ctl)
{
	const __m128i w = _mm_setr_epi8(2, 1, 2, 1, 2, 1, 2, 1, 1, 2, 1, 2, 1,
					2, 1, 2);

	return _mm_maddubs_epi16(
	    _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)s), ctl), w);
}

/* Pairs g, g+1 (4 outputs of each row) from source byte s = 12 * g; at
 * most 24 bytes past s + 16 are read, all inside the 6 pixels. */
__attribute__((target("ssse3"))) static inline void
p32_block_ssse3(const uint8_t *r0, const uint8_t *r1, const uint8_t *r2,
		size_t s, __m128i *top, __m128i *bottom)
{
	const __m128i c0 = _mm_setr_epi8(P32_CTL16(0));
	const __m128i c4 = _mm_setr_epi8(P32_CTL16(4));
	const __m128i four = _mm_set1_epi16(4);
	const __m128i ninth = _mm_set1_epi16(7282);
	/* Pixels 0..2 from the load at s, 3..5 from the one at s + 8
	 * (skipping its first two): nothing past the 24 bytes. */
	__m128i a0 = p32_pair_ssse3(r0 + s, c0);
	__m128i b0 = p32_pair_ssse3(r0 + s + 8, c4);
	__m128i a1 = _mm_add_epi16(p32_pair_ssse3(r1 + s, c0), four);
	__m128i b1 = _mm_add_epi16(p32_pair_ssse3(r1 + s + 8, c4), four);
	__m128i a2 = p32_pair_ssse3(r2 + s, c0);
	__m128i b2 = p32_pair_ssse3(r2 + s + 8, c4);

	*top = _mm_packus_epi16(
	    _mm_mulhi_epu16(_mm_add_epi16(_mm_add_epi16(a0, a0), a1), ninth),
	    _mm_mulhi_epu16(_mm_add_epi16(_mm_add_epi16(b0, b0), b1), ninth));
	*bottom = _mm_packus_epi16(
	    _mm_mulhi_epu16(_mm_add_epi16(_mm_add_epi16(a2, a2), a1), ninth),
	    _mm_mulhi_epu16(_mm_add_epi16(_mm_add_epi16(b2, b2), b1), ninth));
}
#undef P32_CTL16

__attribute__((target("ssse3"))) static inline void
store16(uint8_t *p, __m128i v, bool nt)
{
	if (nt)
		_mm_stream_si128((__m128i *)p, v);
	else
		_mm_storeu_si128((__m128i *)p, v);
}

/* As p32_avx2: a whole cache line of each output row per step. */
__attribute__((target("ssse3"))) static void
p32_ssse3(uint8_t *o0, uint8_t *o1, const uint8_t *r0, const uint8_t *r1,
	  const uint8_t *r2, uint32_t g0, uint32_t g1, bool nt)
{
	uint32_t g = g0;
	unsigned k;
	__m128i t, b;

	nt = p32_head(o0, o1, r0, r1, r2, &g, g1, nt);
	for (; g + 8 <= g1; g += 8) {
		p32_ahead(r0, r1, r2, g);
		for (k = 0; k < 8; k += 2) {
			p32_block_ssse3(r0, r1, r2, (size_t)(g + k) * 12, &t,
					&b);
			store16(o0 + (size_t)(g + k) * 8, t, nt);
			store16(o1 + (size_t)(g + k) * 8, b, nt);
		}
	}
	for (; g + 2 <= g1; g += 2) {
		p32_block_ssse3(r0, r1, r2, (size_t)g * 12, &t, &b);
		store16(o0 + (size_t)g * 8, t, nt);
		store16(o1 + (size_t)g * 8, b, nt);
	}
	p32_c(o0, o1, r0, r1, r2, g, g1, false);
}

/* Outputs i..i+3 of the 2:1 path. */
__attribute__((target("ssse3"))) static inline __m128i
p21_block_ssse3(const uint8_t *a, const uint8_t *b, size_t i)
{
	const __m128i pairs = _mm_setr_epi8(0, 4, 1, 5, 2, 6, 3, 7, 8, 12, 9,
					    13, 10, 14, 11, 15);
	const __m128i one = _mm_set1_epi8(1), two = _mm_set1_epi16(2);
	__m128i lo = _mm_add_epi16(
	    _mm_maddubs_epi16(
		_mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(a + i * 8)),
				 pairs),
		one),
	    _mm_maddubs_epi16(
		_mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(b + i * 8)),
				 pairs),
		one));
	__m128i hi = _mm_add_epi16(
	    _mm_maddubs_epi16(
		_mm_shuffle_epi8(
		    _mm_loadu_si128((const __m128i *)(a + i * 8 + 16)), pairs),
		one),
	    _mm_maddubs_epi16(
		_mm_shuffle_epi8(
		    _mm_loadu_si128((const __m128i *)(b + i * 8 + 16)), pairs),
		one));

	return _mm_packus_epi16(_mm_srli_epi16(_mm_add_epi16(lo, two), 2),
				_mm_srli_epi16(_mm_add_epi16(hi, two), 2));
}

/* As p21_avx2. */
__attribute__((target("ssse3"))) static void
p21_ssse3(uint8_t *o, const uint8_t *a, const uint8_t *b, uint32_t n, bool nt)
{
	uint32_t i = p21_head(o, a, b, n, &nt);
	unsigned k;

	for (; i + 16 <= n; i += 16) {
		size_t at = (size_t)i * 8 + P32_AHEAD;

		ahead(a + at);
		ahead(b + at);
		for (k = 0; k < 16; k += 4)
			store16(o + (size_t)(i + k) * 4,
				p21_block_ssse3(a, b, i + k), nt);
	}
	for (; i + 4 <= n; i += 4)
		store16(o + (size_t)i * 4, p21_block_ssse3(a, b, i), nt);
	p21_c(o + (size_t)i * 4, a + (size_t)i * 8, b + (size_t)i * 8, n - i,
	      false);
}
#endif

/* 16 bpp little-endian formats with 4..8 bits per channel (rgb565,
 * xrgb1555) to and from xrgb8888, n pixels. Bit replication on the way
 * in and rounding on the way out, the same integers as pixfmt_unpack and
 * chan_round. */
typedef void (*unpack16_fn)(uint32_t *d, const uint8_t *src, uint32_t n,
			    const struct pixfmt *f);
typedef void (*pack16_fn)(uint8_t *out, const uint32_t *s, uint32_t n,
			  const struct pixfmt *f);

static uint32_t expand(uint32_t c, unsigned bits)
{
	return (c << (8 - bits) | c >> (2 * bits - 8)) & 0xff;
}

static uint32_t round_to(uint32_t v, unsigned bits)
{
	return ((v & 0xff) * ((1u << bits) - 1) + 127) / 255;
}

static void unpack16_c(uint32_t *d, const uint8_t *src, uint32_t n,
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

static void pack16_c(uint8_t *out, const uint32_t *s, uint32_t n,
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

#ifdef SCALE_X86
/* The same in SSE2 (baseline on x86-64), 8 pixels a step: the CPUs
 * without AVX2 (kiosk Atoms and Celerons) often drive 16 bpp panels, and
 * the fixed-point filter converts every source row it reads. The
 * channel constants are locals: the stores may alias the pixfmt. */
struct chan16_sse2 {
	/* mask is also the channel's largest value (round_sse2) */
	__m128i shift, left, right, mask;
};

static struct chan16_sse2 chan16_sse2(unsigned bits, unsigned shift)
{
	struct chan16_sse2 c;

	c.shift = _mm_cvtsi32_si128((int)shift);
	c.left = _mm_cvtsi32_si128((int)(8 - bits));
	c.right = _mm_cvtsi32_si128((int)(2 * bits - 8));
	c.mask = _mm_set1_epi16((short)((1 << bits) - 1));
	return c;
}

static inline __m128i expand_sse2(__m128i v, const struct chan16_sse2 *k)
{
	__m128i c = _mm_and_si128(_mm_srl_epi16(v, k->shift), k->mask);

	return _mm_or_si128(_mm_sll_epi16(c, k->left),
			    _mm_srl_epi16(c, k->right));
}

static void unpack16_sse2(uint32_t *d, const uint8_t *src, uint32_t n,
			  const struct pixfmt *f)
{
	const struct chan16_sse2 r = chan16_sse2(f->r_bits, f->r_shift),
				 g = chan16_sse2(f->g_bits, f->g_shift),
				 b = chan16_sse2(f->b_bits, f->b_shift);
	uint32_t i = 0;

	for (; i + 8 <= n; i += 8) {
		__m128i v =
		    _mm_loadu_si128((const __m128i *)(src + (size_t)i * 2));
		__m128i rr = expand_sse2(v, &r);
		__m128i gb = _mm_or_si128(expand_sse2(v, &b),
					  _mm_slli_epi16(expand_sse2(v, &g), 8));

		_mm_storeu_si128((__m128i *)(d + i), _mm_unpacklo_epi16(gb, rr));
		_mm_storeu_si128((__m128i *)(d + i + 4),
				 _mm_unpackhi_epi16(gb, rr));
	}
	unpack16_c(d + i, src + (size_t)i * 2, n - i, f);
}

/* As round_avx2, for 8 pixels (packs_epi32 is safe: the values are
 * masked to 0..255). */
static inline __m128i round_sse2(__m128i a, __m128i b, int byte,
				 const struct chan16_sse2 *k)
{
	const __m128i ff = _mm_set1_epi32(0xff);
	__m128i sh = _mm_cvtsi32_si128(byte * 8);
	__m128i c = _mm_packs_epi32(_mm_and_si128(_mm_srl_epi32(a, sh), ff),
				    _mm_and_si128(_mm_srl_epi32(b, sh), ff));

	c = _mm_add_epi16(_mm_mullo_epi16(c, k->mask), _mm_set1_epi16(127));
	c = _mm_srli_epi16(_mm_mulhi_epu16(c, _mm_set1_epi16((short)0x8081)),
			   7);
	return _mm_sll_epi16(c, k->shift);
}

static void pack16_sse2(uint8_t *out, const uint32_t *s, uint32_t n,
			const struct pixfmt *f)
{
	const struct chan16_sse2 r = chan16_sse2(f->r_bits, f->r_shift),
				 g = chan16_sse2(f->g_bits, f->g_shift),
				 b = chan16_sse2(f->b_bits, f->b_shift);
	uint32_t i = 0;

	for (; i + 8 <= n; i += 8) {
		__m128i lo = _mm_loadu_si128((const __m128i *)(s + i));
		__m128i hi = _mm_loadu_si128((const __m128i *)(s + i + 4));
		__m128i v = _mm_or_si128(_mm_or_si128(round_sse2(lo, hi, 2, &r),
						      round_sse2(lo, hi, 1, &g)),
					 round_sse2(lo, hi, 0, &b));

		_mm_storeu_si128((__m128i *)(out + (size_t)i * 2), v);
	}
	pack16_c(out + (size_t)i * 2, s + i, n - i, f);
}

/* Per channel constants, loaded once: the stores below may alias the
 * pixfmt (vector stores alias anything), so the loops must not read it. */
struct chan16 {
	__m128i shift, left, right;
	__m256i mask; /* the channel's largest value too */
};

__attribute__((target("avx2"))) static struct chan16 chan16(unsigned bits,
							    unsigned shift)
{
	struct chan16 c;

	c.shift = _mm_cvtsi32_si128((int)shift);
	c.left = _mm_cvtsi32_si128((int)(8 - bits));
	c.right = _mm_cvtsi32_si128((int)(2 * bits - 8));
	c.mask = _mm256_set1_epi16((short)((1 << bits) - 1));
	return c;
}

__attribute__((target("avx2"))) static inline __m256i
expand_avx2(__m256i v, const struct chan16 *k)
{
	__m256i c = _mm256_and_si256(_mm256_srl_epi16(v, k->shift), k->mask);

	return _mm256_or_si256(_mm256_sll_epi16(c, k->left),
			       _mm256_srl_epi16(c, k->right));
}

__attribute__((target("avx2"))) static void
unpack16_avx2(uint32_t *d, const uint8_t *src, uint32_t n,
	      const struct pixfmt *f)
{
	const struct chan16 r = chan16(f->r_bits, f->r_shift),
			    g = chan16(f->g_bits, f->g_shift),
			    b = chan16(f->b_bits, f->b_shift);
	uint32_t i = 0;

	for (; i + 16 <= n; i += 16) {
		__m256i v =
		    _mm256_loadu_si256((const __m256i *)(src + (size_t)i * 2));
		__m256i rr = expand_avx2(v, &r);
		__m256i gb =
		    _mm256_or_si256(expand_avx2(v, &b),
				    _mm256_slli_epi16(expand_avx2(v, &g), 8));
		__m256i lo = _mm256_unpacklo_epi16(gb, rr);
		__m256i hi = _mm256_unpackhi_epi16(gb, rr);

		_mm256_storeu_si256((__m256i *)(d + i),
				    _mm256_permute2x128_si256(lo, hi, 0x20));
		_mm256_storeu_si256((__m256i *)(d + i + 8),
				    _mm256_permute2x128_si256(lo, hi, 0x31));
	}
	unpack16_c(d + i, src + (size_t)i * 2, n - i, f);
}

/* The channel at byte `byte` of 16 xrgb pixels, rounded to k's bits and
 * shifted into place, in 16-bit lanes in pixel order. */
__attribute__((target("avx2"))) static inline __m256i
round_avx2(__m256i a, __m256i b, int byte, const struct chan16 *k)
{
	const __m256i ff = _mm256_set1_epi32(0xff);
	__m128i sh = _mm_cvtsi32_si128(byte * 8);
	__m256i c = _mm256_permute4x64_epi64(
	    _mm256_packus_epi32(_mm256_and_si256(_mm256_srl_epi32(a, sh), ff),
				_mm256_and_si256(_mm256_srl_epi32(b, sh), ff)),
	    0xd8);

	/* (c * max + 127) / 255, the division as * 0x8081 >> 23 */
	c = _mm256_add_epi16(_mm256_mullo_epi16(c, k->mask),
			     _mm256_set1_epi16(127));
	c = _mm256_srli_epi16(
	    _mm256_mulhi_epu16(c, _mm256_set1_epi16((short)0x8081)), 7);
	return _mm256_sll_epi16(c, k->shift);
}

__attribute__((target("avx2"))) static void
pack16_avx2(uint8_t *out, const uint32_t *s, uint32_t n, const struct pixfmt *f)
{
	const struct chan16 r = chan16(f->r_bits, f->r_shift),
			    g = chan16(f->g_bits, f->g_shift),
			    b = chan16(f->b_bits, f->b_shift);
	uint32_t i = 0;

	for (; i + 16 <= n; i += 16) {
		__m256i lo = _mm256_loadu_si256((const __m256i *)(s + i));
		__m256i hi = _mm256_loadu_si256((const __m256i *)(s + i + 8));
		__m256i v =
		    _mm256_or_si256(_mm256_or_si256(round_avx2(lo, hi, 2, &r),
						    round_avx2(lo, hi, 1, &g)),
				    round_avx2(lo, hi, 0, &b));

		_mm256_storeu_si256((__m256i *)(out + (size_t)i * 2), v);
	}
	pack16_c(out + (size_t)i * 2, s + i, n - i, f);
}
#endif

struct kernels {
	const char *name;
	vsum_fn vsum;
	hsum_fn hsum;
	hx_fn hx; /* NULL: no exact path with these kernels */
	vx_fn vx;
	hx_fn hxw; /* NULL: no wide path */
	vx_fn vxw;
	unpack16_fn unpack16;
	pack16_fn pack16;
	p32_fn p32; /* NULL: 3:2 through the general path */
	p21_fn p21; /* NULL: 2:1 likewise */
};

static const struct kernels kernels_c = {
    "c",   vsum_c,	  hsum_c,    hx_c,  vx_c,
    hxw_c, vxw_c, unpack16_c, pack16_c, p32_c, p21_c};
#ifdef SCALE_X86
/* pshufb/pmaddubsw need SSSE3 and the gather AVX2: SSE2 alone takes the
 * fixed-point path, but 3:2 and 2:1 in C, which is faster than that
 * (bench_scale 1080p to 720p: 10 against 12.7 times an unscaled blit). */
static const struct kernels kernels_sse2 = {
    "sse2", vsum_sse2,	hsum_sse2, NULL, NULL, NULL, NULL, unpack16_sse2,
    pack16_sse2, p32_c, p21_c};
/* SSSE3 (pshufb, pmaddubsw) without AVX2: the exact 3:2 and 2:1 paths,
 * fixed point elsewhere (the gather needs vpermd). */
static const struct kernels kernels_ssse3 = {
    "ssse3", vsum_sse2,	    hsum_sse2,	   NULL,      NULL, NULL,
    NULL,    unpack16_sse2, pack16_sse2, p32_ssse3, p21_ssse3};
static const struct kernels kernels_avx2 = {
    "avx2",   vsum_avx2, hsum_avx2,	hx_avx2,    vx_avx2,
    hxw_avx2, vxw_avx2,	 unpack16_avx2, pack16_avx2, p32_avx2, p21_avx2};
#endif
static const struct kernels *kern;

#ifdef SCALE_X86
/* __builtin_cpu_supports wants a literal: one function per feature. */
static bool has_ssse3(void)
{
	__builtin_cpu_init();
	return __builtin_cpu_supports("ssse3");
}

static bool has_avx2(void)
{
	__builtin_cpu_init();
	return __builtin_cpu_supports("avx2");
}
#endif

/* Every set by name, and what it needs of the CPU (NULL: nothing). */
static const struct {
	const struct kernels *k;
	bool (*usable)(void);
} kernel_sets[] = {
    {&kernels_c, NULL},
#ifdef SCALE_X86
    {&kernels_sse2, NULL},
    {&kernels_ssse3, has_ssse3},
    {&kernels_avx2, has_avx2},
#endif
};

#define KERNEL_SETS (sizeof(kernel_sets) / sizeof(kernel_sets[0]))

/* The last usable set: they are listed from the slowest. */
static const struct kernels *kernels_best(void)
{
	size_t i = KERNEL_SETS;

	while (--i > 0 && kernel_sets[i].usable && !kernel_sets[i].usable())
		;
	return kernel_sets[i].k;
}

int scale_simd_set(const char *name)
{
	size_t i;

	if (!strcmp(name, "auto")) {
		kern = kernels_best();
		return 0;
	}
	for (i = 0; i < KERNEL_SETS; i++) {
		if (strcmp(name, kernel_sets[i].k->name))
			continue;
		if (kernel_sets[i].usable && !kernel_sets[i].usable())
			return -ENOTSUP;
		kern = kernel_sets[i].k;
		return 0;
	}
	return -ENOTSUP;
}

const char *scale_simd_name(void)
{
	if (!kern)
		kern = kernels_best();
	return kern->name;
}

/* --- Scaler set-up --- */

/* Box filter weights for n source pixels onto d outputs. In units of 1/d
 * source pixel, source pixel i spans [i*d, (i+1)*d) and output o spans
 * [o*n, (o+1)*n); a tap weighs its overlap. Weights are quantised from
 * the cumulative sum so that each output's weights add up to 65536. */
static int axis_init(struct scale_axis *a, uint32_t n, uint32_t d,
		     bool even_taps)
{
	unsigned taps = 1, k;
	uint32_t o, g = n, r = d;

	while (r) {
		uint32_t t = g % r;

		g = r;
		r = t;
	}
	a->src = n;
	a->dst = d;
	a->unit = n / g;
	for (o = 0; o < d; o++) {
		uint64_t lo = (uint64_t)o * n, hi = lo + n;
		unsigned t = (unsigned)((hi + d - 1) / d - lo / d);

		if (t > taps)
			taps = t;
	}
	a->real_taps = taps;
	if (even_taps && (taps & 1))
		taps++;
	a->taps = taps;
	a->start = calloc(d, sizeof(*a->start));
	a->w = calloc((size_t)d * taps, sizeof(*a->w));
	a->wi = calloc((size_t)d * taps, sizeof(*a->wi));
	if (!a->start || !a->w || !a->wi)
		return -ENOMEM;
	for (o = 0; o < d; o++) {
		uint64_t lo = (uint64_t)o * n, hi = lo + n, cum = 0, prev = 0;
		uint64_t first = lo / d, end = (hi + d - 1) / d;

		a->start[o] = (int32_t)first;
		for (k = 0; k < taps && first + k < end; k++) {
			uint64_t p0 = (first + k) * d, p1 = p0 + d, q, ov;

			/* Overlaps are differences of multiples of n and d,
			 * so multiples of their gcd. */
			ov = (p1 < hi ? p1 : hi) - (p0 > lo ? p0 : lo);
			a->wi[(size_t)o * taps + k] = (uint16_t)(ov / g);
			cum += ov;
			q = (cum * 65536 + n / 2) / n;
			a->w[(size_t)o * taps + k] =
			    (uint16_t)(q - prev > 65535 ? 65535 : q - prev);
			prev = q;
		}
	}
	return 0;
}

static void axis_finish(struct scale_axis *a)
{
	free(a->start);
	free(a->w);
	free(a->wi);
	a->start = NULL;
	a->w = NULL;
	a->wi = NULL;
}

static bool fmt_bytewise(const struct pixfmt *f)
{
	return f->bpp == 32 && f->r_bits == 8 && f->g_bits == 8 &&
	       f->b_bits == 8 && !(f->r_shift % 8) && !(f->g_shift % 8) &&
	       !(f->b_shift % 8);
}

/* 8-bit channel to bits wide, rounded: averaging then truncating would
 * darken every filtered pixel. */
static uint32_t chan_round(uint32_t v, unsigned bits)
{
	uint32_t max = (1u << bits) - 1;

	return ((v & 0xff) * max + 127) / 255;
}

static uint32_t xrgb(const struct pixfmt *f, uint32_t px)
{
	uint8_t r, g, b;

	pixfmt_unpack(f, px, &r, &g, &b);
	return (uint32_t)r << 16 | (uint32_t)g << 8 | b;
}

/* round(x / n) = (x + n / 2) * magic >> (16 + shift) for every sum the
 * exact path can make; searched and checked here rather than trusted. */
static bool find_magic(struct scale_exact *e, uint32_t n)
{
	uint32_t s, x, top = 255 * n + n / 2;

	if (top > 65535)
		return false;
	for (s = 0; s < 16; s++) {
		uint64_t m = ((1ull << (16 + s)) + n - 1) / n;

		if (m > 65535)
			break;
		for (x = n / 2; x <= top; x++)
			if (((x * m) >> (16 + s)) != x / n)
				break;
		if (x > top) {
			e->bias = (uint16_t)(n / 2);
			e->magic = (uint16_t)m;
			e->shift = s;
			return true;
		}
	}
	return false;
}

static void exact_finish(struct scale_exact *e)
{
	free(e->gsrc);
	free(e->gidx);
	free(e->gpairs);
	free(e->gw);
	free(e->gw16);
	free(e->h);
	free(e->hrows);
	free(e->line);
	free(e->tag);
	memset(e, 0, sizeof(*e));
}

/* Set up the exact path when the ratio allows it: at most 4 taps per
 * output across (1 or 2 pairs), the 4 outputs of a group within an
 * 8-pixel window. Byte weights and one exact division where the ratio's
 * terms are small (unit_x <= 127, unit_x * unit_y <= 256), 15-bit
 * weights (wide) otherwise. 0 when set up, 1 when the ratio does not
 * qualify, -ENOMEM. */
static int exact_init(struct scaler *sc)
{
	struct scale_exact *e = &sc->e;
	const struct scale_axis *ax = &sc->x;
	uint32_t G, j, c, i, k, np;
	size_t hbytes;

	memset(e, 0, sizeof(*e));
	if (!sc->kern->hx || ax->real_taps > 4)
		return 1;
	np = ax->taps / 2;
	e->wide = ax->unit > 127 || (uint64_t)ax->unit * sc->y.unit > 256 ||
		  !find_magic(e, ax->unit * sc->y.unit);
	if (e->wide && !sc->kern->hxw)
		return 1;
	e->pairs = np;
	e->groups = (sc->dw + 3) / 4;
	e->gsrc = calloc(e->groups, sizeof(*e->gsrc));
	e->gidx = calloc((size_t)e->groups * np * 8, sizeof(*e->gidx));
	e->gpairs = calloc(e->groups, 1);
	if (e->wide)
		e->gw16 = calloc((size_t)e->groups * np * 32, sizeof(*e->gw16));
	else
		e->gw = calloc((size_t)e->groups * np * 32, sizeof(*e->gw));
	e->slots = sc->y.real_taps;
	/* Cache-line aligned: every 32-byte store of the horizontal pass
	 * and load of the vertical one stays within one line (calloc's
	 * 16-byte alignment split every other one across two). */
	hbytes = (size_t)e->slots * e->groups * 16 * sizeof(*e->h);
	hbytes = (hbytes + 63) & ~(size_t)63;
	e->h = aligned_alloc(64, hbytes);
	if (e->h)
		memset(e->h, 0, hbytes);
	e->hrows = calloc(e->slots, sizeof(*e->hrows));
	e->line = calloc((size_t)e->groups * 16, 1);
	e->tag = malloc(e->slots * sizeof(*e->tag));
	if (!e->gsrc || !e->gidx || !e->gpairs || (!e->gw && !e->gw16) ||
	    !e->h || !e->hrows || !e->line || !e->tag) {
		exact_finish(e);
		return -ENOMEM;
	}
	for (i = 0; i < e->slots; i++)
		e->tag[i] = -1;
	for (G = 0; G < e->groups; G++) {
		int32_t base = ax->start[G * 4];

		e->gsrc[G] = base;
		e->gpairs[G] = 1;
		for (j = 0; j < 4; j++) {
			uint32_t o = G * 4 + j, s0, cum = 0, q0 = 0;
			const uint16_t *wi = ax->wi + (size_t)o * ax->taps;

			if (o >= sc->dw)
				continue; /* index 0, weight 0 */
			s0 = (uint32_t)(ax->start[o] - base);
			for (k = 0; k < ax->taps; k++) {
				size_t at = ((size_t)G * np + k / 2) * 8 +
					    2 * j + k % 2;
				size_t wat = ((size_t)G * np + k / 2) * 32 +
					     j * 8 + k % 2;
				int32_t w = wi[k];

				if (!wi[k]) {
					e->gidx[at] = s0; /* weight 0 */
					continue;
				}
				if (s0 + k > 7) {
					exact_finish(e);
					return 1;
				}
				if (k >= 2)
					e->gpairs[G] = 2;
				e->gidx[at] = s0 + k;
				if (e->wide) {
					/* Cumulative rounding to 1/32768:
					 * the weights sum to 32768, a lone
					 * tap's capped to 32767. */
					uint32_t q;

					cum += wi[k];
					q = (cum * 32768 + ax->unit / 2) /
					    ax->unit;
					w = (int32_t)(q - q0);
					q0 = q;
					if (w > 32767)
						w = 32767;
				}
				for (c = 0; c < 4; c++) {
					if (e->wide)
						e->gw16[wat - j * 8 +
							wide_at(j) + 2 * c] =
						    (int16_t)w;
					else
						e->gw[wat + 2 * c] = (int8_t)w;
				}
			}
		}
	}
	/* How many leading groups repeat group 0 at a constant step. */
	e->step = e->groups > 1 ? (uint32_t)(ax->start[4] - ax->start[0]) : 0;
	e->uniform = 1;
	while (e->uniform < e->groups &&
	       (uint32_t)e->uniform * 4 + 4 <= sc->dw &&
	       e->gsrc[e->uniform] ==
		   e->gsrc[0] + (int32_t)(e->uniform * e->step) &&
	       e->gpairs[e->uniform] == e->gpairs[0] &&
	       !memcmp(e->gidx + (size_t)e->uniform * np * 8, e->gidx,
		       np * 8 * sizeof(*e->gidx)) &&
	       (e->wide ? !memcmp(e->gw16 + (size_t)e->uniform * np * 32,
				  e->gw16, np * 32 * sizeof(*e->gw16))
			: !memcmp(e->gw + (size_t)e->uniform * np * 32, e->gw,
				  np * 32)))
		e->uniform++;
	return 0;
}

static uint32_t field(uint32_t v, unsigned bits, unsigned shift)
{
	return (v >> shift) & ((1u << bits) - 1);
}

/* 8/16 bpp to xrgb8888 in small (L1-sized) tables: the channel fields of
 * a pixel are the OR of those of its two bytes (shifts and masks
 * distribute over OR), so lut[0..255] and lut[256..511] give the raw
 * fields of the low and high byte packed as r << 16 | g << 8 | b, and
 * lut[512..1279] expand raw r, g, b to 8 bits. */
static int lut_init(struct scaler *sc)
{
	const struct pixfmt *f = &sc->fmt;
	uint32_t i, b;

	sc->lut = malloc(1280 * sizeof(*sc->lut));
	if (!sc->lut)
		return -ENOMEM;
	for (b = 0; b < 2; b++) {
		for (i = 0; i < 256; i++) {
			uint32_t v = i << (8 * b);

			sc->lut[b * 256 + i] =
			    field(v, f->r_bits, f->r_shift) << 16 |
			    field(v, f->g_bits, f->g_shift) << 8 |
			    field(v, f->b_bits, f->b_shift);
		}
	}
	for (i = 0; i < 256; i++) {
		uint8_t r, g, b8;

		pixfmt_unpack(f,
			      (i & ((1u << f->r_bits) - 1)) << f->r_shift |
				  (i & ((1u << f->g_bits) - 1)) << f->g_shift |
				  (i & ((1u << f->b_bits) - 1)) << f->b_shift,
			      &r, &g, &b8);
		sc->lut[512 + i] = (uint32_t)r << 16;
		sc->lut[768 + i] = (uint32_t)g << 8;
		sc->lut[1024 + i] = b8;
	}
	return 0;
}

/* Everything the filtering paths need (not replicate). 0 or -ENOMEM; the
 * caller frees what was made either way. */
static int filter_init(struct scaler *sc)
{
	const struct pixfmt *fmt = &sc->fmt;
	uint32_t rw = sc->rw, rh = sc->rh, dw = sc->dw, dh = sc->dh;
	size_t i;
	unsigned k;
	int err;

	sc->bytewise = fmt_bytewise(fmt);
	sc->fast16 = fmt->bpp == 16 && !fmt->big_endian && fmt->r_bits >= 4 &&
		     fmt->g_bits >= 4 && fmt->b_bits >= 4;
	if (axis_init(&sc->x, rw, dw, true) < 0 ||
	    axis_init(&sc->y, rh, dh, false) < 0)
		return -ENOMEM;
	sc->hw = malloc((size_t)dw * sc->x.taps * 4 * sizeof(*sc->hw));
	/* Padding taps (weight 0) may read past the last pixel. */
	sc->vsum = calloc(((size_t)rw + sc->x.taps + 4) * 4, sizeof(*sc->vsum));
	sc->rowp = calloc(sc->y.taps, sizeof(*sc->rowp));
	sc->roww = calloc(sc->y.taps, sizeof(*sc->roww));
	if (!sc->hw || !sc->vsum || !sc->rowp || !sc->roww)
		return -ENOMEM;
	for (i = 0; i < (size_t)dw * sc->x.taps; i++)
		for (k = 0; k < 4; k++)
			sc->hw[i * 4 + k] = sc->x.w[i];
	err = exact_init(sc);
	if (err < 0)
		return -ENOMEM;
	sc->exact = err == 0;
	sc->p32 = sc->bytewise && sc->kern->p32 &&
		  (uint64_t)rw * 2 == (uint64_t)dw * 3 &&
		  (uint64_t)rh * 2 == (uint64_t)dh * 3;
	if (sc->p32) {
		/* Whole cache lines: the kernel stores 32 bytes at a time. */
		size_t lb = ((size_t)dw * 4 + 63) & ~(size_t)63;

		sc->p32_line[0] = aligned_alloc(64, lb);
		sc->p32_line[1] = aligned_alloc(64, lb);
		if (!sc->p32_line[0] || !sc->p32_line[1])
			return -ENOMEM;
		sc->p32_pair = -1;
	}
	sc->p21 = sc->bytewise && sc->kern->p21 && (uint64_t)rw == 2ull * dw &&
		  (uint64_t)rh == 2ull * dh;
	if (!sc->bytewise) {
		sc->conv = malloc((size_t)rw * 4 * sc->y.taps);
		sc->line = malloc((size_t)dw * 4);
		if (!sc->conv || !sc->line)
			return -ENOMEM;
		sc->pack = malloc(3 * 256 * sizeof(*sc->pack));
		if (!sc->pack)
			return -ENOMEM;
		for (i = 0; i < 256; i++) {
			sc->pack[i] = chan_round((uint32_t)i, fmt->r_bits)
				      << fmt->r_shift;
			sc->pack[256 + i] = chan_round((uint32_t)i, fmt->g_bits)
					    << fmt->g_shift;
			sc->pack[512 + i] = chan_round((uint32_t)i, fmt->b_bits)
					    << fmt->b_shift;
		}
		if (fmt->bpp <= 16 && lut_init(sc) < 0)
			return -ENOMEM;
	}
	return 0;
}

int scaler_create(struct scaler **out, const struct pixfmt *fmt, uint32_t rw,
		  uint32_t rh, uint32_t dw, uint32_t dh)
{
	struct scaler *sc;
	int err;

	*out = NULL;
	if (!rw || !rh || !dw || !dh)
		return -EINVAL;
	sc = calloc(1, sizeof(*sc));
	if (!sc)
		return -ENOMEM;
	if (!kern)
		kern = kernels_best();
	/* Required of every set; the other kernels are optional. */
	assert(kern->vsum && kern->hsum && kern->unpack16 && kern->pack16);
	sc->fmt = *fmt;
	sc->rw = rw;
	sc->rh = rh;
	sc->dw = dw;
	sc->dh = dh;
	sc->kern = kern;
	sc->replicate = dw % rw == 0 && dh % rh == 0;
	if (!sc->replicate) {
		err = filter_init(sc);
		if (err < 0) {
			scaler_destroy(sc);
			return err;
		}
	}
	*out = sc;
	return 0;
}

void scaler_destroy(struct scaler *sc)
{
	if (!sc)
		return;
	exact_finish(&sc->e);
	axis_finish(&sc->x);
	axis_finish(&sc->y);
	free(sc->hw);
	free(sc->vsum);
	free(sc->conv);
	free(sc->line);
	free(sc->lut);
	free(sc->pack);
	free(sc->rowp);
	free(sc->roww);
	free(sc->p32_line[0]);
	free(sc->p32_line[1]);
	free(sc);
}

enum scaler_path scaler_path(const struct scaler *sc)
{
	/* In the order scaler_row tries them. */
	if (sc->replicate)
		return SCALER_REPLICATE;
	if (sc->p32)
		return SCALER_PAIR32;
	if (sc->p21)
		return SCALER_PAIR21;
	if (sc->exact)
		return sc->e.wide ? SCALER_WIDE : SCALER_EXACT;
	return SCALER_GENERAL;
}

const char *scaler_kernels(const struct scaler *sc)
{
	return sc->kern->name;
}

/* --- Drawing --- */

static void replicate_row(const struct scaler *sc, const uint8_t *src,
			  size_t stride, uint32_t y, uint32_t x0, uint32_t x1,
			  uint8_t *out)
{
	unsigned bpp = pixfmt_bytes(&sc->fmt), fx = sc->dw / sc->rw;
	const uint8_t *row = src + (size_t)(y / (sc->dh / sc->rh)) * stride;
	uint32_t x;

	if (fx == 1) {
		memcpy(out, row + (size_t)x0 * bpp, (size_t)(x1 - x0) * bpp);
		return;
	}
#ifdef SCALE_X86
	if (bpp == 4 && fx == 2 && x0 % 2 == 0) {
		/* Pixel doubling, the common zoom: 4 pixels to 8 per step. */
		const uint8_t *s = row + (size_t)(x0 / 2) * 4;
		uint32_t n = x1 - x0, i;

		for (i = 0; i + 8 <= n; i += 8, s += 16) {
			__m128i p = _mm_loadu_si128((const __m128i *)s);

			_mm_storeu_si128((__m128i *)(out + (size_t)i * 4),
					 _mm_unpacklo_epi32(p, p));
			_mm_storeu_si128((__m128i *)(out + (size_t)i * 4 + 16),
					 _mm_unpackhi_epi32(p, p));
		}
		for (; i < n; i++)
			memcpy(out + (size_t)i * 4,
			       row + (size_t)((x0 + i) / 2) * 4, 4);
		return;
	}
#endif
	if (bpp == 4) {
		uint32_t *o = (uint32_t *)(void *)out;
		const uint8_t *s = row + (size_t)(x0 / fx) * 4;
		uint32_t run = fx - x0 % fx; /* copies left of *s */

		/* Source pixel by source pixel, no division per output. */
		for (x = x0; x < x1; s += 4, run = fx) {
			uint32_t p, k;

			memcpy(&p, s, 4);
			if (run > x1 - x)
				run = x1 - x;
			for (k = 0; k < run; k++)
				*o++ = p;
			x += run;
		}
		return;
	}
	for (x = x0; x < x1; x++, out += bpp)
		memcpy(out, row + (size_t)(x / fx) * bpp, bpp);
}

static void to_xrgb(const struct scaler *sc, const uint8_t *src, uint32_t a,
		    uint32_t b, uint8_t *dst)
{
	const struct pixfmt *f = &sc->fmt;
	unsigned bpp = pixfmt_bytes(f);
	uint32_t x, *d = (uint32_t *)(void *)dst;

	const uint32_t *lo = sc->lut, *hi = lo + 256, *er = lo + 512,
		       *eg = lo + 768, *eb = lo + 1024;

	if (sc->fast16) {
		sc->kern->unpack16(d + a, src + (size_t)a * 2, b - a, f);
		return;
	}

	if (bpp <= 2) {
		/* Byte order: which byte holds the value's low bits. */
		unsigned l = bpp == 2 && f->big_endian ? 1 : 0;

		for (x = a; x < b; x++) {
			const uint8_t *p = src + (size_t)x * bpp;
			uint32_t t = lo[p[l]] | (bpp == 2 ? hi[p[1 - l]] : 0);

			d[x] = er[t >> 16] | eg[(t >> 8) & 0xff] | eb[t & 0xff];
		}
		return;
	}
	for (x = a; x < b; x++)
		d[x] = xrgb(f, pixfmt_load(f, src + (size_t)x * bpp));
}

static void from_xrgb(const struct scaler *sc, const uint8_t *line, uint32_t n,
		      uint8_t *out)
{
	const struct pixfmt *f = &sc->fmt;
	unsigned bpp = pixfmt_bytes(f);
	const uint32_t *s = (const uint32_t *)(const void *)line;
	const uint32_t *pr = sc->pack, *pg = pr + 256, *pb = pr + 512;
	uint32_t i;

	if (sc->fast16) {
		sc->kern->pack16(out, s, n, f);
		return;
	}

	for (i = 0; i < n; i++, out += bpp) {
		uint32_t v = s[i];

		v = pr[(v >> 16) & 0xff] | pg[(v >> 8) & 0xff] | pb[v & 0xff];
		if (bpp == 2 && !f->big_endian) {
			out[0] = (uint8_t)v;
			out[1] = (uint8_t)(v >> 8);
		} else if (bpp == 1) {
			out[0] = (uint8_t)v;
		} else {
			pixfmt_store(f, out, v);
		}
	}
}

void scaler_start(struct scaler *sc)
{
	unsigned i;

	for (i = 0; i < sc->e.slots; i++)
		sc->e.tag[i] = -1;
	sc->e.csrc = NULL;
	sc->p32_pair = -1;
}

/* Both rows of y's pair, for the whole groups of 4 pairs that cover
 * [x0, x1) (the kernel's step), unless the last call drew them. */
static const uint8_t *p32_row(struct scaler *sc, const uint8_t *src,
			      size_t stride, uint32_t y, uint32_t x0,
			      uint32_t x1)
{
	uint32_t k = y / 2, g0 = (x0 / 2) & ~3u, g1 = ((x1 + 1) / 2 + 3) & ~3u;

	if (g1 > sc->dw / 2)
		g1 = sc->dw / 2;
	if (src != sc->p32_src || (int64_t)k != sc->p32_pair ||
	    g0 < sc->p32_g0 || g1 > sc->p32_g1) {
		const uint8_t *r0 = src + (size_t)3 * k * stride;

		sc->kern->p32(sc->p32_line[0], sc->p32_line[1], r0, r0 + stride,
			      r0 + 2 * stride, g0, g1, false);
		sc->p32_src = src;
		sc->p32_pair = k;
		sc->p32_g0 = g0;
		sc->p32_g1 = g1;
	}
	return sc->p32_line[y & 1] + (size_t)x0 * 4;
}

static void exact_row(struct scaler *sc, const uint8_t *src, size_t stride,
		      uint32_t y, uint32_t x0, uint32_t x1, uint8_t *out)
{
	const struct kernels *k_ = sc->kern;
	struct scale_exact *e = &sc->e;
	hx_fn hx = e->wide ? k_->hxw : k_->hx;
	vx_fn vx = e->wide ? k_->vxw : k_->vx;
	const uint16_t *wy =
	    (e->wide ? sc->y.w : sc->y.wi) + (size_t)y * sc->y.taps;
	uint32_t g0 = x0 / 4, g1 = (x1 + 3) / 4;
	uint32_t first = (uint32_t)sc->y.start[y], r, cx0, cx1;
	unsigned k, n = 0;

	if (src != e->csrc || g0 != e->cg0 || g1 != e->cg1) {
		scaler_start(sc);
		e->csrc = src;
		e->cg0 = g0;
		e->cg1 = g1;
	}
	/* Every pixel the groups' windows may read. */
	cx0 = (uint32_t)e->gsrc[g0];
	cx1 = (uint32_t)e->gsrc[g1 - 1] + 8;
	if (cx1 > sc->rw)
		cx1 = sc->rw;
	for (k = 0; k < sc->y.taps; k++) {
		unsigned slot;
		int16_t *h;

		if (!wy[k])
			continue;
		r = first + k;
		/* An output row's taps are consecutive rows: distinct
		 * slots. */
		slot = r % e->slots;
		h = e->h + (size_t)slot * e->groups * 16;
		if (e->tag[slot] != (int32_t)r) {
			const uint8_t *row = src + (size_t)r * stride;

			if (!sc->bytewise) {
				to_xrgb(sc, row, cx0, cx1, sc->conv);
				row = sc->conv;
			}
			/* The decoder has just written the shadow on
			 * another core: fetch two rows ahead. */
			e->ahead =
			    sc->bytewise && r + 2 < sc->rh ? 2 * stride : 0;
			hx(h, row, sc->rw, e, g0, g1);
			e->tag[slot] = (int32_t)r;
		}
		e->hrows[n] = h;
		sc->roww[n++] = wy[k];
	}
	if (sc->bytewise && x0 % 4 == 0) {
		/* Whole groups straight into out, the last partial one
		 * through the line buffer. */
		uint32_t gfull = x1 / 4;

		if (gfull > g0)
			vx(out, e->hrows, sc->roww, n, e, (size_t)g0 * 16,
			   (size_t)gfull * 16);
		if (gfull < g1) {
			vx(e->line, e->hrows, sc->roww, n, e,
			   (size_t)gfull * 16, (size_t)g1 * 16);
			memcpy(out + (size_t)(gfull - g0) * 16, e->line,
			       (size_t)(x1 - gfull * 4) * 4);
		}
		return;
	}
	vx(e->line, e->hrows, sc->roww, n, e, (size_t)g0 * 16, (size_t)g1 * 16);
	if (sc->bytewise)
		memcpy(out, e->line + (size_t)(x0 - g0 * 4) * 4,
		       (size_t)(x1 - x0) * 4);
	else
		from_xrgb(sc, e->line + (size_t)(x0 - g0 * 4) * 4, x1 - x0,
			  out);
}

static void p32_direct(struct scaler *sc, const uint8_t *src, size_t stride,
		       uint32_t y, uint32_t x0, uint32_t x1, uint8_t *out0,
		       uint8_t *out1)
{
	const uint8_t *r0 = src + (size_t)3 * (y / 2) * stride;
	const uint8_t *r1 = r0 + stride, *r2 = r1 + stride;
	uint8_t p[8], q[8];
	uint32_t g0, g1;

	/* An odd column at either end is half a pair: drawn aside, and
	 * only its own pixel stored. */
	if (x0 % 2) {
		p32_one(p, q, r0 + (size_t)(x0 / 2) * 12,
			r1 + (size_t)(x0 / 2) * 12, r2 + (size_t)(x0 / 2) * 12);
		memcpy(out0, p + 4, 4);
		memcpy(out1, q + 4, 4);
	}
	g0 = (x0 + 1) / 2;
	g1 = x1 / 2;
	if (g1 > g0)
		sc->kern->p32(out0 - (size_t)x0 * 4, out1 - (size_t)x0 * 4, r0,
			      r1, r2, g0, g1, true);
	if (x1 % 2 && x1 - 1 >= x0 + x0 % 2) {
		p32_one(p, q, r0 + (size_t)g1 * 12, r1 + (size_t)g1 * 12,
			r2 + (size_t)g1 * 12);
		memcpy(out0 + (size_t)(x1 - 1 - x0) * 4, p, 4);
		memcpy(out1 + (size_t)(x1 - 1 - x0) * 4, q, 4);
	}
}

unsigned scaler_direct(struct scaler *sc, const uint8_t *src, size_t stride,
		       uint32_t y, uint32_t x0, uint32_t x1, uint8_t *out,
		       size_t ostride, uint32_t rows)
{
	if (x1 > sc->dw || x0 >= x1 || y >= sc->dh || !rows)
		return 0;
	if (sc->p32 && y % 2 == 0 && y + 1 < sc->dh && rows >= 2) {
		p32_direct(sc, src, stride, y, x0, x1, out, out + ostride);
		return 2;
	}
	if (sc->p21) {
		const uint8_t *a =
		    src + (size_t)2 * y * stride + (size_t)x0 * 8;

		sc->kern->p21(out, a, a + stride, x1 - x0, true);
		return 1;
	}
	return 0;
}

const uint8_t *scaler_row(struct scaler *sc, const uint8_t *src, size_t stride,
			  uint32_t y, uint32_t x0, uint32_t x1, uint8_t *out)
{
	const uint8_t **rows = sc->rowp;
	uint16_t *wts = sc->roww;
	const uint16_t *wy;
	uint32_t cx0, cx1, first;
	unsigned k, n = 0, taps;

	if (x1 > sc->dw)
		x1 = sc->dw;
	if (x0 >= x1 || y >= sc->dh)
		return out;
	if (sc->replicate) {
		replicate_row(sc, src, stride, y, x0, x1, out);
		return out;
	}
	if (sc->p32)
		return p32_row(sc, src, stride, y, x0, x1);
	if (sc->p21) {
		const uint8_t *a =
		    src + (size_t)2 * y * stride + (size_t)x0 * 8;

		sc->kern->p21(out, a, a + stride, x1 - x0, false);
		return out;
	}
	if (sc->exact) {
		exact_row(sc, src, stride, y, x0, x1, out);
		return out;
	}
	/* Source columns under outputs [x0, x1), padding taps excluded. */
	cx0 = (uint32_t)sc->x.start[x0];
	cx1 = (uint32_t)sc->x.start[x1 - 1] + sc->x.taps;
	if (cx1 > sc->rw)
		cx1 = sc->rw;
	first = (uint32_t)sc->y.start[y];
	wy = sc->y.w + (size_t)y * sc->y.taps;
	taps = sc->y.taps;
	for (k = 0; k < taps; k++) {
		const uint8_t *row;

		if (!wy[k])
			continue;
		row = src + (size_t)(first + k) * stride;
		if (!sc->bytewise) {
			uint8_t *c = sc->conv + (size_t)n * sc->rw * 4;

			to_xrgb(sc, row, cx0, cx1, c);
			row = c;
		}
		rows[n] = row;
		wts[n++] = wy[k];
	}
	sc->kern->vsum(sc->vsum, rows, wts, n, (size_t)cx0 * 4,
		       (size_t)cx1 * 4);
	if (sc->bytewise) {
		sc->kern->hsum(out, sc->vsum, sc->x.start, sc->hw, sc->x.taps,
			       x0, x1);
		return out;
	}
	sc->kern->hsum(sc->line, sc->vsum, sc->x.start, sc->hw, sc->x.taps, x0,
		       x1);
	from_xrgb(sc, sc->line, x1 - x0, out);
	return out;
}
