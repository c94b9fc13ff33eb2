/* The scaler's SSSE3 kernels: the 3:2 and 2:1 paths for CPUs with SSSE3
 * but no AVX2 (the Atom and Celeron class of kiosk and embedded boxes:
 * Bay Trail, Apollo and Gemini Lake), one 16-byte lane at a time, the
 * same integers as scale_p32_c and scale_p21_c. Built with -mssse3;
 * picked at run time only where the CPU has SSSE3 (scale.c). */
#include "config.h"

#include <immintrin.h>

#include "view/scale_kern.h"
#include "view/scale_x86.h"

#define P32_CTL16(o)                                                           \
	(char)((o) + 0), (char)((o) + 4), (char)((o) + 1), (char)((o) + 5),    \
	    (char)((o) + 2), (char)((o) + 6), (char)((o) + 3),                 \
	    (char)((o) + 7), (char)((o) + 4), (char)((o) + 8),                 \
	    (char)((o) + 5), (char)((o) + 9), (char)((o) + 6),                 \
	    (char)((o) + 10), (char)((o) + 7), (char)((o) + 11)

/* Outputs 2k, 2k + 1 of a row across (16 bits a channel), from the 16
 * bytes at s with ctl picking the three pixels. */
static inline __m128i p32_pair_ssse3(const uint8_t *s, __m128i ctl)
{
	const __m128i w =
	    _mm_setr_epi8(2, 1, 2, 1, 2, 1, 2, 1, 1, 2, 1, 2, 1, 2, 1, 2);

	return _mm_maddubs_epi16(
	    _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)s), ctl), w);
}

/* Pairs g, g+1 (4 outputs of each row) from source byte s = 12 * g; at
 * most 24 bytes past s + 16 are read, all inside the 6 pixels. */
static inline void p32_block_ssse3(const uint8_t *r0, const uint8_t *r1,
				   const uint8_t *r2, size_t s, __m128i *top,
				   __m128i *bottom)
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

static inline void store16(uint8_t *p, __m128i v, bool nt)
{
	if (nt)
		_mm_stream_si128((__m128i *)p, v);
	else
		_mm_storeu_si128((__m128i *)p, v);
}

/* As p32_avx2: a whole cache line of each output row per step. */
static void p32_ssse3(uint8_t *o0, uint8_t *o1, const uint8_t *r0,
		      const uint8_t *r1, const uint8_t *r2, uint32_t g0,
		      uint32_t g1, bool nt)
{
	uint32_t g = g0;
	unsigned k;
	__m128i t, b;

	nt = scale_p32_head(o0, o1, r0, r1, r2, &g, g1, nt);
	for (; g + 8 <= g1; g += 8) {
		size_t at = (size_t)g * 12 + SCALE_AHEAD;

		scale_ahead(r0 + at);
		scale_ahead(r1 + at);
		scale_ahead(r2 + at);
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
	scale_p32_c(o0, o1, r0, r1, r2, g, g1, false);
}

/* Outputs i..i+3 of the 2:1 path. */
static inline __m128i p21_block_ssse3(const uint8_t *a, const uint8_t *b,
				      size_t i)
{
	const __m128i pairs =
	    _mm_setr_epi8(0, 4, 1, 5, 2, 6, 3, 7, 8, 12, 9, 13, 10, 14, 11, 15);
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
static void p21_ssse3(uint8_t *o, const uint8_t *a, const uint8_t *b,
		      uint32_t n, bool nt)
{
	uint32_t i = scale_p21_head(o, a, b, n, &nt);
	unsigned k;

	for (; i + 16 <= n; i += 16) {
		size_t at = (size_t)i * 8 + SCALE_AHEAD;

		scale_ahead(a + at);
		scale_ahead(b + at);
		for (k = 0; k < 16; k += 4)
			store16(o + (size_t)(i + k) * 4,
				p21_block_ssse3(a, b, i + k), nt);
	}
	for (; i + 4 <= n; i += 4)
		store16(o + (size_t)i * 4, p21_block_ssse3(a, b, i), nt);
	scale_p21_c(o + (size_t)i * 4, a + (size_t)i * 8, b + (size_t)i * 8,
		    n - i, false);
}

/* SSSE3 (pshufb, pmaddubsw) without AVX2: the exact 3:2 and 2:1 paths,
 * fixed point elsewhere (the gather needs vpermd). */
const struct scale_kernels scale_kernels_ssse3 = {
    .name = "ssse3",
    .vsum = scale_vsum_sse2,
    .hsum = scale_hsum_sse2,
    .unpack16 = scale_unpack16_sse2,
    .pack16 = scale_pack16_sse2,
    .p32 = p32_ssse3,
    .p21 = p21_ssse3,
    .dup2 = scale_dup2_sse2,
};
