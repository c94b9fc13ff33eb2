/* The scaler's AVX2 kernels: every path (fixed point, the gather's exact
 * and wide variants, 3:2, 2:1, the 16 bpp conversions), each the same
 * integers as its C version in scale_c.c. Built with -mavx2; picked at
 * run time only where the CPU has AVX2 (scale.c). */
#include "config.h"

#include <immintrin.h>
#include <string.h>

#include "view/scale_kern.h"
#include "view/scale_x86.h"

static void vsum_avx2(uint16_t *v, const uint8_t *const *rows,
		      const uint16_t *w, unsigned n, size_t from, size_t to)
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
	scale_vsum_sse2(v, rows, w, n, i, to);
}

/* Eight outputs per step; lane 0 takes outputs 0,1,2,3 and lane 1 takes
 * 4,5,6,7 so that the final pack leaves them in order. */
static void hsum_avx2(uint8_t *out, const uint16_t *v, const int32_t *start,
		      const uint16_t *hw, unsigned taps, uint32_t x0,
		      uint32_t x1)
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
	scale_hsum_sse2(out, v, start, hw, taps, i, x1);
}

/* pshufb control: in each lane of 4 pixels (p0..p3), per channel the
 * bytes of p0 and p1 side by side, then those of p2 and p3, for
 * pmaddubsw to weigh and add in pairs. */
static inline __m256i pair_bytes(void)
{
	return _mm256_setr_epi8(0, 4, 1, 5, 2, 6, 3, 7, 8, 12, 9, 13, 10, 14,
				11, 15, 0, 4, 1, 5, 2, 6, 3, 7, 8, 12, 9, 13,
				10, 14, 11, 15);
}

/* The 8-pixel window at pixel x of a row rw pixels long; past the end
 * (the last group or two) from a zero-padded copy, never reading beyond
 * the picture. */
static inline __m256i load_window(const uint8_t *row, uint32_t rw, int32_t x)
{
	uint8_t tail[32] = {0};

	if ((uint32_t)x + 8 <= rw)
		return _mm256_loadu_si256(
		    (const __m256i *)(row + (size_t)x * 4));
	memcpy(tail, row + (size_t)x * 4, (size_t)(rw - (uint32_t)x) * 4);
	return _mm256_loadu_si256((const __m256i *)tail);
}

/* One group of 4 outputs per step: gather each output's two taps of a
 * pair into place (vpermd across the 8-pixel window), pair their
 * channels (pshufb), multiply-add with the byte weights (pmaddubsw); a
 * second pair of taps (3 or 4 taps an output) adds another round. */
static inline __m256i hx_pair(__m256i px, const uint32_t *idx, const int8_t *w,
			      __m256i pairs)
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
static inline __attribute__((always_inline)) __m256i
hx_group(__m256i px, const uint32_t *idx, const int8_t *w, const unsigned np,
	 __m256i pairs)
{
	__m256i acc = hx_pair(px, idx, w, pairs);

	if (np == 2)
		acc =
		    _mm256_add_epi16(acc, hx_pair(px, idx + 8, w + 32, pairs));
	return acc;
}

/* Groups [g, end), whose windows lie whole in the row, each with its own
 * indices and weights. The tables come as locals: h may alias anything,
 * so e's fields would be loaded again for every group. */
static inline __attribute__((always_inline)) void
hx_whole(int16_t *h, const uint8_t *row, const int32_t *gsrc,
	 const uint32_t *gidx, const int8_t *gw, uint32_t g, uint32_t end,
	 const unsigned np, __m256i pairs)
{
	for (; g < end; g++)
		_mm256_storeu_si256(
		    (__m256i *)(h + (size_t)g * 16),
		    hx_group(_mm256_loadu_si256(
				 (const __m256i *)(row + (size_t)gsrc[g] * 4)),
			     gidx + (size_t)g * np * 8,
			     gw + (size_t)g * np * 32, np, pairs));
}

static void hx_avx2(int16_t *h, const uint8_t *row, uint32_t rw,
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
		_mm256_storeu_si256((__m256i *)(h + (size_t)g * 16),
				    hx_group(load_window(row, rw, gsrc[g]),
					     gidx + (size_t)g * np * 8,
					     gw + (size_t)g * np * 32, np,
					     pairs));
}

static void vx_avx2(uint8_t *out, const int16_t *const *rows, const uint16_t *w,
		    unsigned n, const struct scale_exact *e, size_t from,
		    size_t to)
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
		scale_vx_c(out + (i - from), rows, w, n, e, i, to);
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
	scale_vx_c(out + (i - from), rows, w, n, e, i, to);
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
static inline void hxw_pair(__m256i px, const uint32_t *idx, const int16_t *w,
			    __m256i *a, __m256i *b)
{
	const __m256i first =
	    _mm256_setr_epi8(0, -128, 4, -128, 1, -128, 5, -128, 2, -128, 6,
			     -128, 3, -128, 7, -128, 0, -128, 4, -128, 1, -128,
			     5, -128, 2, -128, 6, -128, 3, -128, 7, -128);
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
static inline __attribute__((always_inline)) void
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
static inline __attribute__((always_inline)) void
hxw_whole(int16_t *h, const uint8_t *row, const int32_t *gsrc,
	  const uint32_t *gidx, const int16_t *gw16, size_t ahead, uint32_t g,
	  uint32_t end, const unsigned np)
{
	for (; g < end; g++) {
		const uint8_t *p = row + (size_t)gsrc[g] * 4;

		_mm_prefetch((const char *)p + ahead, _MM_HINT_T0);
		hxw_group(
		    h + (size_t)g * 16, _mm256_loadu_si256((const __m256i *)p),
		    gidx + (size_t)g * np * 8, gw16 + (size_t)g * np * 32, np);
	}
}

static void hxw_avx2(int16_t *h, const uint8_t *row, uint32_t rw,
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

static void vxw_avx2(uint8_t *out, const int16_t *const *rows,
		     const uint16_t *w, unsigned n, const struct scale_exact *e,
		     size_t from, size_t to)
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
	scale_vxw_c(out + (i - from), rows, w, n, e, i, to);
}

/* pshufb control for a lane whose 3 pixels start at byte o: per channel
 * the byte pairs (p0, p1) then (p1, p2), for pmaddubsw. */
#define P32_CTL(o)                                                             \
	(o) + 0, (o) + 4, (o) + 1, (o) + 5, (o) + 2, (o) + 6, (o) + 3,         \
	    (o) + 7, (o) + 4, (o) + 8, (o) + 5, (o) + 9, (o) + 6, (o) + 10,    \
	    (o) + 7, (o) + 11

/* 12 source pixels of one row across: ha holds outputs 0, 1 | 4, 5 and
 * hb outputs 2, 3 | 6, 7 (4 channels each, 16 bits), the lane order that
 * packus_epi16(ha, hb) turns into outputs 0..7. Every load stays inside
 * the 12 pixels (hb's high lane loads pixels 8..11 and skips the first). */
static inline void p32_across(const uint8_t *s, __m256i *ha, __m256i *hb)
{
	const __m256i ca = _mm256_setr_epi8(P32_CTL(0), P32_CTL(0));
	const __m256i cb = _mm256_setr_epi8(P32_CTL(0), P32_CTL(4));
	const __m256i w =
	    _mm256_setr_epi8(2, 1, 2, 1, 2, 1, 2, 1, 1, 2, 1, 2, 1, 2, 1, 2, 2,
			     1, 2, 1, 2, 1, 2, 1, 1, 2, 1, 2, 1, 2, 1, 2);
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
static inline void p32_block_avx2(const uint8_t *r0, const uint8_t *r1,
				  const uint8_t *r2, size_t s, __m256i *top,
				  __m256i *bottom)
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
static inline void store32(uint8_t *p, __m256i v, bool nt)
{
	if (nt)
		_mm256_stream_si256((__m256i *)p, v);
	else
		_mm256_storeu_si256((__m256i *)p, v);
}

/* nt: o0 and o1 are the mapping (write-only, see output.h): streaming
 * stores, a whole cache line of each row per step (storing lines in
 * halves, the rows alternating, measured slower: doc/performance.md). */
static void p32_avx2(uint8_t *o0, uint8_t *o1, const uint8_t *r0,
		     const uint8_t *r1, const uint8_t *r2, uint32_t g0,
		     uint32_t g1, bool nt)
{
	uint32_t g = g0;
	__m256i t0, b0, t1, b1;

	nt = scale_p32_head(o0, o1, r0, r1, r2, &g, g1, nt);
	for (; g + 8 <= g1; g += 8) {
		size_t at = (size_t)g * 12 + SCALE_AHEAD;

		scale_ahead(r0 + at);
		scale_ahead(r1 + at);
		scale_ahead(r2 + at);
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
	scale_p32_c(o0, o1, r0, r1, r2, g, g1, false);
}
#undef P32_CTL

/* 8 pixels of a row (a lane of 4 each) to the channel sums of each pair:
 * pshufb puts a pair's bytes of one channel side by side, pmaddubsw by
 * ones adds them. */
static inline __m256i p21_across(const uint8_t *s)
{
	return _mm256_maddubs_epi16(
	    _mm256_shuffle_epi8(_mm256_loadu_si256((const __m256i *)s),
				pair_bytes()),
	    _mm256_set1_epi8(1));
}

/* Outputs i..i+7. */
static inline __m256i p21_block_avx2(const uint8_t *a, const uint8_t *b,
				     size_t i)
{
	const __m256i two = _mm256_set1_epi16(2);
	__m256i lo =
	    _mm256_add_epi16(p21_across(a + i * 8), p21_across(b + i * 8));
	__m256i hi = _mm256_add_epi16(p21_across(a + i * 8 + 32),
				      p21_across(b + i * 8 + 32));

	lo = _mm256_srli_epi16(_mm256_add_epi16(lo, two), 2);
	hi = _mm256_srli_epi16(_mm256_add_epi16(hi, two), 2);
	/* packus interleaves the lanes: outputs 0-1, 4-5, 2-3, 6-7. */
	return _mm256_permute4x64_epi64(_mm256_packus_epi16(lo, hi), 0xd8);
}

/* nt as for p32_avx2: streaming stores from the first whole cache line,
 * two blocks a line; the same prefetch distance. */
static void p21_avx2(uint8_t *o, const uint8_t *a, const uint8_t *b, uint32_t n,
		     bool nt)
{
	uint32_t i = scale_p21_head(o, a, b, n, &nt);

	for (; i + 16 <= n; i += 16) {
		size_t at = (size_t)i * 8 + SCALE_AHEAD;

		scale_ahead(a + at);
		scale_ahead(b + at);
		store32(o + (size_t)i * 4, p21_block_avx2(a, b, i), nt);
		store32(o + (size_t)i * 4 + 32, p21_block_avx2(a, b, i + 8),
			nt);
	}
	for (; i + 8 <= n; i += 8)
		store32(o + (size_t)i * 4, p21_block_avx2(a, b, i), nt);
	scale_p21_c(o + (size_t)i * 4, a + (size_t)i * 8, b + (size_t)i * 8,
		    n - i, false);
}

/* Per channel constants, loaded once: the stores below may alias the
 * pixfmt (vector stores alias anything), so the loops must not read it. */
struct chan16 {
	__m128i shift, left, right;
	__m256i mask; /* the channel's largest value too */
};

static struct chan16 chan16(unsigned bits, unsigned shift)
{
	struct chan16 c;

	c.shift = _mm_cvtsi32_si128((int)shift);
	c.left = _mm_cvtsi32_si128((int)(8 - bits));
	c.right = _mm_cvtsi32_si128((int)(2 * bits - 8));
	c.mask = _mm256_set1_epi16((short)((1 << bits) - 1));
	return c;
}

static inline __m256i expand_avx2(__m256i v, const struct chan16 *k)
{
	__m256i c = _mm256_and_si256(_mm256_srl_epi16(v, k->shift), k->mask);

	return _mm256_or_si256(_mm256_sll_epi16(c, k->left),
			       _mm256_srl_epi16(c, k->right));
}

static void unpack16_avx2(uint32_t *d, const uint8_t *src, uint32_t n,
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
	scale_unpack16_c(d + i, src + (size_t)i * 2, n - i, f);
}

/* The channel at byte `byte` of 16 xrgb pixels, rounded to k's bits and
 * shifted into place, in 16-bit lanes in pixel order. */
static inline __m256i round_avx2(__m256i a, __m256i b, int byte,
				 const struct chan16 *k)
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

static void pack16_avx2(uint8_t *out, const uint32_t *s, uint32_t n,
			const struct pixfmt *f)
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
	scale_pack16_c(out + (size_t)i * 2, s + i, n - i, f);
}

const struct scale_kernels scale_kernels_avx2 = {
    .name = "avx2",
    .vsum = vsum_avx2,
    .hsum = hsum_avx2,
    .hx = hx_avx2,
    .vx = vx_avx2,
    .hxw = hxw_avx2,
    .vxw = vxw_avx2,
    .unpack16 = unpack16_avx2,
    .pack16 = pack16_avx2,
    .p32 = p32_avx2,
    .p21 = p21_avx2,
    .dup2 = scale_dup2_sse2,
};
