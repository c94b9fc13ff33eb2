/* The pixel converters' SSSE3 kernels (pixconv_kern.h). */
#include "config.h"

#include <immintrin.h>

#include "shadow/pixconv_kern.h"

void pixconv_shuffle_3_4_ssse3(const struct pixconv *c, uint8_t *dst,
			       const uint8_t *src, size_t n)
{
	const __m128i ctl =
	    _mm_loadu_si128((const __m128i *)(const void *)c->ctl);
	size_t i = 0;

	/* Each load takes 16 bytes for 12: stop 2 pixels early. */
	for (; i + 6 <= n; i += 4, src += 12, dst += 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)src);

		_mm_storeu_si128((__m128i *)(void *)dst,
				 _mm_shuffle_epi8(v, ctl));
	}
	c->row_c(c, dst, src, n - i);
}
