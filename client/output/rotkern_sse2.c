/* The rotation kernel for SSE2 (built with -msse2; every x86-64 has it):
 * 4-byte pixels a 4 x 4 square at a time (a transposition in registers),
 * the rest through the C reference (rotkern.h says what each does). */
#include "config.h"

#include <emmintrin.h>

#include "output/rotkern.h"

rotate_block_fn rotate_block_sse2;

/* Four pixels in reverse order. */
static inline __m128i reverse4(__m128i v)
{
	return _mm_shuffle_epi32(v, _MM_SHUFFLE(0, 1, 2, 3));
}

void rotate_block_sse2(uint8_t *dst, size_t dstride, const uint8_t *src,
		       size_t sstride, uint32_t w, uint32_t h, unsigned bpp,
		       unsigned rot)
{
	uint32_t w4 = w & ~3u, h4 = h & ~3u, i, j;

	rot &= 3;
	if (bpp != 4 || rot == 0) {
		rotate_block_c(dst, dstride, src, sstride, w, h, bpp, rot);
		return;
	}
	if (rot == 2) {
		for (j = 0; j < h; j++) {
			const uint8_t *s = src + (size_t)j * sstride;
			uint8_t *d = dst + (size_t)(h - 1 - j) * dstride;

			for (i = 0; i < w4; i += 4)
				_mm_storeu_si128(
					(__m128i *)(d + (size_t)(w - 4 - i) * 4),
					reverse4(_mm_loadu_si128(
						(const __m128i *)(s + i * 4))));
		}
		rotate_part(dst, dstride, src, sstride, w, h, 4, rot, w4, 0, w - w4, h);
		return;
	}
	for (j = 0; j < h4; j += 4) {
		const uint8_t *s = src + (size_t)j * sstride;

		for (i = 0; i < w4; i += 4) {
			const uint8_t *p = s + (size_t)i * 4;
			__m128i r0 = _mm_loadu_si128((const __m128i *)p);
			__m128i r1 = _mm_loadu_si128(
				(const __m128i *)(p + sstride));
			__m128i r2 = _mm_loadu_si128(
				(const __m128i *)(p + 2 * sstride));
			__m128i r3 = _mm_loadu_si128(
				(const __m128i *)(p + 3 * sstride));
			/* Transpose: t[k] is the square's column k, top
			 * down. */
			__m128i a = _mm_unpacklo_epi32(r0, r1);
			__m128i b = _mm_unpacklo_epi32(r2, r3);
			__m128i c = _mm_unpackhi_epi32(r0, r1);
			__m128i d = _mm_unpackhi_epi32(r2, r3);
			__m128i t[4] = {
				_mm_unpacklo_epi64(a, b),
				_mm_unpackhi_epi64(a, b),
				_mm_unpacklo_epi64(c, d),
				_mm_unpackhi_epi64(c, d),
			};
			unsigned k;

			for (k = 0; k < 4; k++) {
				if (rot == 1)
					_mm_storeu_si128(
						(__m128i *)(dst +
							    (size_t)(i + k) *
								    dstride +
							    (size_t)(h - 4 - j) *
								    4),
						reverse4(t[k]));
				else
					_mm_storeu_si128(
						(__m128i *)(dst +
							    (size_t)(w - 1 - i -
								     k) *
								    dstride +
							    (size_t)j * 4),
						t[k]);
			}
		}
	}
	rotate_part(dst, dstride, src, sstride, w, h, 4, rot, w4, 0, w - w4, h);
	rotate_part(dst, dstride, src, sstride, w, h, 4, rot, 0, h4, w4, h - h4);
}
