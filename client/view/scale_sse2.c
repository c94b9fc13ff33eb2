/* The scaler's SSE2 kernels (x86-64's baseline, so any x86-64 CPU): the
 * fixed-point path, the 16 bpp conversions and pixel doubling, each the
 * same integers as its C version in scale_c.c. Built with -msse2. */
#include "config.h"

#include <immintrin.h>
#include <string.h>

#include "view/scale_kern.h"

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

void scale_vsum_sse2(uint16_t *v, const uint8_t *const *rows, const uint16_t *w,
		     unsigned n, size_t from, size_t to)
{
	size_t i;

	if (n == 2)
		i = vsum_sse2_run(v, rows, w, 2, from, to);
	else if (n == 3)
		i = vsum_sse2_run(v, rows, w, 3, from, to);
	else
		i = vsum_sse2_run(v, rows, w, n, from, to);
	scale_vsum_c(v, rows, w, n, i, to);
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

void scale_hsum_sse2(uint8_t *out, const uint16_t *v, const int32_t *start,
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
	scale_hsum_c(out + (size_t)(i - x0) * 4, v, start, hw, taps, i, x1);
}

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

void scale_unpack16_sse2(uint32_t *d, const uint8_t *src, uint32_t n,
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
		__m128i gb = _mm_or_si128(
		    expand_sse2(v, &b), _mm_slli_epi16(expand_sse2(v, &g), 8));

		_mm_storeu_si128((__m128i *)(d + i),
				 _mm_unpacklo_epi16(gb, rr));
		_mm_storeu_si128((__m128i *)(d + i + 4),
				 _mm_unpackhi_epi16(gb, rr));
	}
	scale_unpack16_c(d + i, src + (size_t)i * 2, n - i, f);
}

/* As round_avx2 (scale_avx2.c), for 8 pixels (packs_epi32 is safe: the
 * values are masked to 0..255). */
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

void scale_pack16_sse2(uint8_t *out, const uint32_t *s, uint32_t n,
		       const struct pixfmt *f)
{
	const struct chan16_sse2 r = chan16_sse2(f->r_bits, f->r_shift),
				 g = chan16_sse2(f->g_bits, f->g_shift),
				 b = chan16_sse2(f->b_bits, f->b_shift);
	uint32_t i = 0;

	for (; i + 8 <= n; i += 8) {
		__m128i lo = _mm_loadu_si128((const __m128i *)(s + i));
		__m128i hi = _mm_loadu_si128((const __m128i *)(s + i + 4));
		__m128i v =
		    _mm_or_si128(_mm_or_si128(round_sse2(lo, hi, 2, &r),
					      round_sse2(lo, hi, 1, &g)),
				 round_sse2(lo, hi, 0, &b));

		_mm_storeu_si128((__m128i *)(out + (size_t)i * 2), v);
	}
	scale_pack16_c(out + (size_t)i * 2, s + i, n - i, f);
}

void scale_dup2_sse2(uint8_t *out, const uint8_t *src, uint32_t n)
{
	/* Pixel doubling, the common zoom: 4 pixels to 8 per step. */
	const uint8_t *s = src;
	uint32_t i;

	for (i = 0; i + 8 <= n; i += 8, s += 16) {
		__m128i p = _mm_loadu_si128((const __m128i *)s);

		_mm_storeu_si128((__m128i *)(out + (size_t)i * 4),
				 _mm_unpacklo_epi32(p, p));
		_mm_storeu_si128((__m128i *)(out + (size_t)i * 4 + 16),
				 _mm_unpackhi_epi32(p, p));
	}
	for (; i < n; i++)
		memcpy(out + (size_t)i * 4, src + (size_t)(i / 2) * 4, 4);
}

/* pshufb/pmaddubsw need SSSE3 and the gather AVX2: SSE2 alone takes the
 * fixed-point path, but 3:2 and 2:1 in C, which measured faster than
 * that (doc/performance.md). */
const struct scale_kernels scale_kernels_sse2 = {
    .name = "sse2",
    .vsum = scale_vsum_sse2,
    .hsum = scale_hsum_sse2,
    .unpack16 = scale_unpack16_sse2,
    .pack16 = scale_pack16_sse2,
    .p32 = scale_p32_c,
    .p21 = scale_p21_c,
    .dup2 = scale_dup2_sse2,
};
