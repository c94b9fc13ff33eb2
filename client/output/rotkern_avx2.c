/* The rotation kernel for AVX2 (built with -mavx2, called only where
 * util/cpu.h says the CPU has it): 4-byte pixels an 8 x 8 square at a
 * time and 2-byte pixels (rgb565) an 8 x 8 square in a 128-bit register
 * each row, transposed in registers; a half turn as a reversed row copy
 * (a lane permute, a byte shuffle for 2-byte pixels). Edges and 1- and
 * 3-byte pixels through the C reference (rotkern.h says what each does).
 *
 * For a quarter turn the square's rows are loaded bottom up (rot 1) so
 * that each transposed register is a destination row as it stands: no
 * reversal after the transpose. The destination is written a row of the
 * square at a time; rotate.c gives it an L1-sized tile. */
#include "config.h"

#include <immintrin.h>
#include <stdbool.h>

#include "output/rotkern.h"

rotate_block_fn rotate_block_avx2, rotate_block_avx2_nt;

/* A row of a square or a run of a reversed row: a non-temporal store
 * where the caller found every store of the pass aligned (nt). */
static inline void put256(uint8_t *d, __m256i v, bool nt)
{
	if (nt)
		_mm256_stream_si256((__m256i *)d, v);
	else
		_mm256_storeu_si256((__m256i *)d, v);
}

static inline void put128(uint8_t *d, __m128i v, bool nt)
{
	if (nt)
		_mm_stream_si128((__m128i *)d, v);
	else
		_mm_storeu_si128((__m128i *)d, v);
}

/* Whether p and every step apart from it are multiples of a. */
static inline bool aligned(const uint8_t *p, size_t step, size_t a)
{
	return !((uintptr_t)p % a) && !(step % a);
}

/* r[k] (eight 32-bit pixels) to its transpose: r[k] becomes column k. */
static inline void transpose8x32(__m256i r[8])
{
	__m256i a0 = _mm256_unpacklo_epi32(r[0], r[1]);
	__m256i a1 = _mm256_unpackhi_epi32(r[0], r[1]);
	__m256i a2 = _mm256_unpacklo_epi32(r[2], r[3]);
	__m256i a3 = _mm256_unpackhi_epi32(r[2], r[3]);
	__m256i a4 = _mm256_unpacklo_epi32(r[4], r[5]);
	__m256i a5 = _mm256_unpackhi_epi32(r[4], r[5]);
	__m256i a6 = _mm256_unpacklo_epi32(r[6], r[7]);
	__m256i a7 = _mm256_unpackhi_epi32(r[6], r[7]);
	/* b0: column 0 of rows 0-3 | column 4 of rows 0-3, and so on. */
	__m256i b0 = _mm256_unpacklo_epi64(a0, a2);
	__m256i b1 = _mm256_unpackhi_epi64(a0, a2);
	__m256i b2 = _mm256_unpacklo_epi64(a1, a3);
	__m256i b3 = _mm256_unpackhi_epi64(a1, a3);
	__m256i b4 = _mm256_unpacklo_epi64(a4, a6);
	__m256i b5 = _mm256_unpackhi_epi64(a4, a6);
	__m256i b6 = _mm256_unpacklo_epi64(a5, a7);
	__m256i b7 = _mm256_unpackhi_epi64(a5, a7);

	r[0] = _mm256_permute2x128_si256(b0, b4, 0x20);
	r[4] = _mm256_permute2x128_si256(b0, b4, 0x31);
	r[1] = _mm256_permute2x128_si256(b1, b5, 0x20);
	r[5] = _mm256_permute2x128_si256(b1, b5, 0x31);
	r[2] = _mm256_permute2x128_si256(b2, b6, 0x20);
	r[6] = _mm256_permute2x128_si256(b2, b6, 0x31);
	r[3] = _mm256_permute2x128_si256(b3, b7, 0x20);
	r[7] = _mm256_permute2x128_si256(b3, b7, 0x31);
}

/* The 8 x 8 square at p transposed into r, its rows read bottom up for
 * rot 1 (so that r[k] is a destination row as it stands). The next line
 * of each row, two squares to the right (the next tile's at its right
 * edge), is fetched meanwhile: the loads are the kernel's cost, each
 * row a stream of its own that no prefetcher follows. */
static inline void square32(const uint8_t *p, size_t sstride, unsigned rot,
			    __m256i r[8])
{
	unsigned k;

	for (k = 0; k < 8; k++) {
		const uint8_t *q = p + (rot == 1 ? 7 - k : k) * sstride;

		r[k] = _mm256_loadu_si256((const __m256i *)q);
		_mm_prefetch((const char *)q + 64, _MM_HINT_T0);
	}
	transpose8x32(r);
}

/* Destination row k of the square at source (i, j). */
static inline uint8_t *row32(uint8_t *dst, size_t dstride, uint32_t w,
			     uint32_t h, unsigned rot, uint32_t i, uint32_t j,
			     unsigned k)
{
	if (rot == 1)
		return dst + (size_t)(i + k) * dstride + (size_t)(h - 8 - j) * 4;
	return dst + (size_t)(w - 1 - i - k) * dstride + (size_t)j * 4;
}

/* Two squares one above the other make a 64-byte run of each of their
 * eight destination rows: stored together, each run is a whole line,
 * which a write-combining or streaming store sends out at once. */
static void quarter32(uint8_t *dst, size_t dstride, const uint8_t *src,
		      size_t sstride, uint32_t w, uint32_t h, unsigned rot,
		      bool nt)
{
	uint32_t w8 = w & ~7u, h8 = h & ~7u, i, j;
	unsigned k;

	if (w8 && h8)
		nt = nt && aligned(rot == 1 ? dst + (size_t)(h - 8) * 4 : dst,
				   dstride, 32);
	for (i = 0; i < w8; i += 8) {
		for (j = 0; j + 16 <= h8; j += 16) {
			const uint8_t *p = src + (size_t)j * sstride +
					   (size_t)i * 4;
			__m256i a[8], b[8];

			square32(p, sstride, rot, a);
			square32(p + 8 * sstride, sstride, rot, b);
			for (k = 0; k < 8; k++) {
				uint8_t *d = row32(dst, dstride, w, h, rot, i,
						   j, k);

				/* rot 1: the lower square to the left. */
				if (rot == 1) {
					put256(d - 32, b[k], nt);
					put256(d, a[k], nt);
				} else {
					put256(d, a[k], nt);
					put256(d + 32, b[k], nt);
				}
			}
		}
		if (j < h8) {
			__m256i a[8];

			square32(src + (size_t)j * sstride + (size_t)i * 4,
				 sstride, rot, a);
			for (k = 0; k < 8; k++)
				put256(row32(dst, dstride, w, h, rot, i, j, k),
				       a[k], nt);
		}
	}
}

/* Eight rows of 16 16-bit pixels transposed in each 128-bit lane: r[k]
 * becomes column k (low lane) and column 8 + k (high lane). */
static inline void transpose8x16x2(__m256i r[8])
{
	__m256i a0 = _mm256_unpacklo_epi16(r[0], r[1]);
	__m256i a1 = _mm256_unpackhi_epi16(r[0], r[1]);
	__m256i a2 = _mm256_unpacklo_epi16(r[2], r[3]);
	__m256i a3 = _mm256_unpackhi_epi16(r[2], r[3]);
	__m256i a4 = _mm256_unpacklo_epi16(r[4], r[5]);
	__m256i a5 = _mm256_unpackhi_epi16(r[4], r[5]);
	__m256i a6 = _mm256_unpacklo_epi16(r[6], r[7]);
	__m256i a7 = _mm256_unpackhi_epi16(r[6], r[7]);
	__m256i b0 = _mm256_unpacklo_epi32(a0, a2);
	__m256i b1 = _mm256_unpackhi_epi32(a0, a2);
	__m256i b2 = _mm256_unpacklo_epi32(a1, a3);
	__m256i b3 = _mm256_unpackhi_epi32(a1, a3);
	__m256i b4 = _mm256_unpacklo_epi32(a4, a6);
	__m256i b5 = _mm256_unpackhi_epi32(a4, a6);
	__m256i b6 = _mm256_unpacklo_epi32(a5, a7);
	__m256i b7 = _mm256_unpackhi_epi32(a5, a7);

	r[0] = _mm256_unpacklo_epi64(b0, b4);
	r[1] = _mm256_unpackhi_epi64(b0, b4);
	r[2] = _mm256_unpacklo_epi64(b1, b5);
	r[3] = _mm256_unpackhi_epi64(b1, b5);
	r[4] = _mm256_unpacklo_epi64(b2, b6);
	r[5] = _mm256_unpackhi_epi64(b2, b6);
	r[6] = _mm256_unpacklo_epi64(b3, b7);
	r[7] = _mm256_unpackhi_epi64(b3, b7);
}

/* Destination row k of the 2-byte square at source (i, j). */
static inline uint8_t *row16(uint8_t *dst, size_t dstride, uint32_t w,
			     uint32_t h, unsigned rot, uint32_t i, uint32_t j,
			     unsigned k)
{
	if (rot == 1)
		return dst + (size_t)(i + k) * dstride + (size_t)(h - 8 - j) * 2;
	return dst + (size_t)(w - 1 - i - k) * dstride + (size_t)j * 2;
}

/* The 16 x 8 pixels at p transposed (transpose8x16x2), rows bottom up
 * for rot 1, the next line of each row fetched meanwhile. */
static inline void square16x2(const uint8_t *p, size_t sstride,
			      unsigned rot, __m256i r[8])
{
	unsigned k;

	for (k = 0; k < 8; k++) {
		const uint8_t *q = p + (rot == 1 ? 7 - k : k) * sstride;

		r[k] = _mm256_loadu_si256((const __m256i *)q);
		_mm_prefetch((const char *)q + 64, _MM_HINT_T0);
	}
	transpose8x16x2(r);
}

/* 16 x 32 source pixels at (i, j): 16 destination rows of 64 bytes, a
 * whole line each. Four register sets' worth, more than the registers
 * hold: turned into a cached stage first, then each row's line stored
 * at once (16-byte stores of the squares straight to the panel would
 * leave 16 lines open at a time, which the write-combining buffers
 * flush half-full). */
static void lines16(uint8_t *dst, size_t dstride, const uint8_t *src,
		    size_t sstride, uint32_t w, uint32_t h, unsigned rot,
		    uint32_t i, uint32_t j, bool nt)
{
	uint8_t stage[16][64] __attribute__((aligned(64)));
	unsigned s, k;

	for (s = 0; s < 4; s++) {
		/* rot 1: the lowest square leftmost. */
		unsigned at = (rot == 1 ? 3 - s : s) * 16;
		__m256i r[8];

		square16x2(src + (size_t)(j + 8 * s) * sstride +
				   (size_t)i * 2,
			   sstride, rot, r);
		for (k = 0; k < 8; k++) {
			_mm_store_si128((__m128i *)&stage[k][at],
					_mm256_castsi256_si128(r[k]));
			_mm_store_si128((__m128i *)&stage[8 + k][at],
					_mm256_extracti128_si256(r[k], 1));
		}
	}
	for (k = 0; k < 16; k++) {
		/* rot 1: the stage's row starts at the lowest square's
		 * place; rot 3 at the first's. */
		uint8_t *d = row16(dst, dstride, w, h, rot, i, j + (rot == 1
									 ? 24
									 : 0),
				   k);

		put256(d, _mm256_load_si256((const __m256i *)&stage[k][0]),
		       nt);
		put256(d + 32,
		       _mm256_load_si256((const __m256i *)&stage[k][32]), nt);
	}
}

/* 16 x 8 pixels a register set (two 8 x 8 squares side by side, one a
 * lane), then the odd 8 columns a square in 128-bit registers. */
static void quarter16(uint8_t *dst, size_t dstride, const uint8_t *src,
		      size_t sstride, uint32_t w, uint32_t h, unsigned rot,
		      bool nt)
{
	uint32_t w8 = w & ~7u, h8 = h & ~7u, i, j;
	unsigned k;
	/* The lines' 32-byte stores: where the first of each is. */
	bool nt32 = nt && h8 >= 32 &&
		    aligned(rot == 1 ? dst + (size_t)(h - 32) * 2 : dst, dstride,
			    32);

	if (w8 && h8)
		nt = nt && aligned(rot == 1 ? dst + (size_t)(h - 8) * 2 : dst,
				   dstride, 16);
	for (i = 0; i + 16 <= w8; i += 16) {
		for (j = 0; j + 32 <= h8; j += 32)
			lines16(dst, dstride, src, sstride, w, h, rot, i, j,
				nt32);
		for (; j < h8; j += 8) {
			__m256i r[8];

			square16x2(src + (size_t)j * sstride + (size_t)i * 2,
				   sstride, rot, r);
			for (k = 0; k < 8; k++) {
				put128(row16(dst, dstride, w, h, rot, i, j, k),
				       _mm256_castsi256_si128(r[k]), nt);
				put128(row16(dst, dstride, w, h, rot, i + 8, j,
					     k),
				       _mm256_extracti128_si256(r[k], 1), nt);
			}
		}
	}
	for (; i < w8; i += 8) {
		for (j = 0; j < h8; j += 8) {
			const uint8_t *p = src + (size_t)j * sstride +
					   (size_t)i * 2;
			__m256i r[8];

			/* The low lanes alone: the row may end here. */
			for (k = 0; k < 8; k++)
				r[k] = _mm256_castsi128_si256(_mm_loadu_si128(
					(const __m128i *)(p +
							  (rot == 1 ? 7 - k : k) *
								  sstride)));
			transpose8x16x2(r);
			for (k = 0; k < 8; k++)
				put128(row16(dst, dstride, w, h, rot, i, j, k),
				       _mm256_castsi256_si128(r[k]), nt);
		}
	}
}

/* A half turn: each row reversed into its mirror row, n pixels of the
 * register at a time (8 of 4 bytes, 16 of 2 bytes); returns the pixels
 * of each row done. */
static uint32_t half(uint8_t *dst, size_t dstride, const uint8_t *src,
		     size_t sstride, uint32_t w, uint32_t h, unsigned bpp,
		     bool nt)
{
	const __m256i rev32 = _mm256_setr_epi32(7, 6, 5, 4, 3, 2, 1, 0);
	const __m256i rev16 = _mm256_setr_epi8(
		14, 15, 12, 13, 10, 11, 8, 9, 6, 7, 4, 5, 2, 3, 0, 1, 14, 15,
		12, 13, 10, 11, 8, 9, 6, 7, 4, 5, 2, 3, 0, 1);
	uint32_t n = 32 / bpp, wn = w - w % n, i, j;

	if (wn)
		nt = nt && aligned(dst + (size_t)(w - n) * bpp, dstride, 32);

	for (j = 0; j < h; j++) {
		const uint8_t *s = src + (size_t)j * sstride;
		uint8_t *d = dst + (size_t)(h - 1 - j) * dstride;

		for (i = 0; i < wn; i += n) {
			__m256i v = _mm256_loadu_si256(
				(const __m256i *)(s + (size_t)i * bpp));

			if (bpp == 4)
				v = _mm256_permutevar8x32_epi32(v, rev32);
			else
				v = _mm256_permute4x64_epi64(
					_mm256_shuffle_epi8(v, rev16), 0x4e);
			put256(d + (size_t)(w - n - i) * bpp, v, nt);
		}
	}
	return wn;
}

static void turn(uint8_t *dst, size_t dstride, const uint8_t *src,
		 size_t sstride, uint32_t w, uint32_t h, unsigned bpp,
		 unsigned rot, bool nt)
{
	rot &= 3;
	if ((bpp != 4 && bpp != 2) || rot == 0) {
		rotate_block_c(dst, dstride, src, sstride, w, h, bpp, rot);
		return;
	}
	if (rot == 2) {
		uint32_t done = half(dst, dstride, src, sstride, w, h, bpp, nt);

		rotate_part(dst, dstride, src, sstride, w, h, bpp, rot, done,
			    0, w - done, h);
		_mm256_zeroupper();
		return;
	}
	if (bpp == 4)
		quarter32(dst, dstride, src, sstride, w, h, rot, nt);
	else
		quarter16(dst, dstride, src, sstride, w, h, rot, nt);
	_mm256_zeroupper();
	rotate_part(dst, dstride, src, sstride, w, h, bpp, rot, w & ~7u, 0,
		    w - (w & ~7u), h);
	rotate_part(dst, dstride, src, sstride, w, h, bpp, rot, 0, h & ~7u,
		    w & ~7u, h - (h & ~7u));
}

void rotate_block_avx2(uint8_t *dst, size_t dstride, const uint8_t *src,
		       size_t sstride, uint32_t w, uint32_t h, unsigned bpp,
		       unsigned rot)
{
	turn(dst, dstride, src, sstride, w, h, bpp, rot, false);
}

void rotate_block_avx2_nt(uint8_t *dst, size_t dstride, const uint8_t *src,
			  size_t sstride, uint32_t w, uint32_t h, unsigned bpp,
			  unsigned rot)
{
	turn(dst, dstride, src, sstride, w, h, bpp, rot, true);
}
