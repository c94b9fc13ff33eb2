/* AES-EAX on AES-NI (see eax_kern.h). EAX (Bellare, Rogaway, Wagner):
 * N = OMAC0(nonce), H = OMAC1(header), C = CTR from N, tag = N ^ H ^
 * OMAC2(C), with OMACt the CMAC of the block [t] followed by the data. */
#include "config.h"

#include <string.h>

#include <immintrin.h>

#include "net/eax_kern.h"

#define ASSIST128(i, rcon)                                                  \
	do {                                                                \
		__m128i t = _mm_aeskeygenassist_si128(rk[i - 1], rcon);     \
		rk[i] = spread(rk[i - 1], _mm_shuffle_epi32(t, 0xff));       \
	} while (0)

/* AES-256: the even round keys from the two before with rcon, the odd
 * ones without. */
#define ASSIST256(i, rcon)                                                  \
	do {                                                                \
		__m128i t = _mm_aeskeygenassist_si128(rk[i - 1], rcon);     \
		rk[i] = spread(rk[i - 2], _mm_shuffle_epi32(t, 0xff));       \
		if (i + 1 < 15) {                                           \
			t = _mm_aeskeygenassist_si128(rk[i], 0);            \
			rk[i + 1] = spread(rk[i - 1],                       \
					   _mm_shuffle_epi32(t, 0xaa));     \
		}                                                           \
	} while (0)

/* A key schedule word chain: each word XORed with all before it, then
 * with the assist's word. */
static __m128i spread(__m128i k, __m128i w)
{
	k = _mm_xor_si128(k, _mm_slli_si128(k, 4));
	k = _mm_xor_si128(k, _mm_slli_si128(k, 4));
	k = _mm_xor_si128(k, _mm_slli_si128(k, 4));
	return _mm_xor_si128(k, w);
}

static __m128i enc_block(const struct eax_fast *k, __m128i x)
{
	const __m128i *rk = (const __m128i *)(const void *)k->rk;
	int i;

	x = _mm_xor_si128(x, _mm_load_si128(&rk[0]));
	for (i = 1; i < k->rounds; i++)
		x = _mm_aesenc_si128(x, _mm_load_si128(&rk[i]));
	return _mm_aesenclast_si128(x, _mm_load_si128(&rk[k->rounds]));
}

/* CMAC's doubling in GF(2^128), big-endian. */
static void dbl(uint8_t out[16], const uint8_t in[16])
{
	uint8_t carry = in[0] >> 7;
	int i;

	for (i = 0; i < 15; i++)
		out[i] = (uint8_t)(in[i] << 1 | in[i + 1] >> 7);
	out[15] = (uint8_t)(in[15] << 1) ^ (carry ? 0x87 : 0);
}

void eax_aesni_init(struct eax_fast *k, const uint8_t *key, unsigned keylen)
{
	__m128i rk[15];
	uint8_t l[16];
	int i;

	rk[0] = _mm_loadu_si128((const void *)key);
	if (keylen == 16) {
		k->rounds = 10;
		ASSIST128(1, 0x01);
		ASSIST128(2, 0x02);
		ASSIST128(3, 0x04);
		ASSIST128(4, 0x08);
		ASSIST128(5, 0x10);
		ASSIST128(6, 0x20);
		ASSIST128(7, 0x40);
		ASSIST128(8, 0x80);
		ASSIST128(9, 0x1b);
		ASSIST128(10, 0x36);
	} else {
		k->rounds = 14;
		rk[1] = _mm_loadu_si128((const void *)(key + 16));
		ASSIST256(2, 0x01);
		ASSIST256(4, 0x02);
		ASSIST256(6, 0x04);
		ASSIST256(8, 0x08);
		ASSIST256(10, 0x10);
		ASSIST256(12, 0x20);
		ASSIST256(14, 0x40);
	}
	for (i = 0; i <= k->rounds; i++)
		_mm_store_si128((__m128i *)(void *)k->rk[i], rk[i]);
	_mm_storeu_si128((void *)l, enc_block(k, _mm_setzero_si128()));
	dbl(k->b, l);
	dbl(k->p, k->b);
	for (i = 0; i < 3; i++) {
		uint8_t blk[16] = { 0 };

		blk[15] = (uint8_t)i;
		_mm_storeu_si128((void *)k->t[i],
				 enc_block(k, _mm_loadu_si128((void *)blk)));
	}
	memset(l, 0, sizeof(l));
	memset(rk, 0, sizeof(rk));
}

static __m128i ld(const uint8_t *p)
{
	return _mm_loadu_si128((const void *)p);
}

/* OMACt of one block m after [t] (k->t[t] is its cipher): whole or
 * padded. */
static __m128i omac1(const struct eax_fast *k, int t, __m128i m, bool whole)
{
	return enc_block(k, _mm_xor_si128(_mm_xor_si128(ld(k->t[t]), m),
					  ld(whole ? k->b : k->p)));
}

void eax_aesni_frame(const struct eax_fast *k, bool enc,
		     const uint8_t nonce[16], const uint8_t hdr[2],
		     const uint8_t *src, uint8_t *dst, size_t len,
		     uint8_t tag[16])
{
	const __m128i bswap = _mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
					   11, 12, 13, 14, 15);
	uint8_t h[16] = { hdr[0], hdr[1], 0x80 }, last[16];
	__m128i n, hm, x, ks, c;
	uint64_t hi, lo;
	size_t off = 0;

	n = omac1(k, 0, ld(nonce), true);
	hm = omac1(k, 1, ld(h), false);
	/* The counter: N as a big-endian 128-bit number. */
	c = _mm_shuffle_epi8(n, bswap);
	lo = (uint64_t)_mm_cvtsi128_si64(c);
	hi = (uint64_t)_mm_cvtsi128_si64(_mm_unpackhi_epi64(c, c));
	if (len == 0) {
		/* OMAC2 of nothing: [2] is the whole last block. */
		x = enc_block(k, _mm_xor_si128(_mm_set_epi8(2, 0, 0, 0, 0, 0,
							    0, 0, 0, 0, 0, 0,
							    0, 0, 0, 0),
					       ld(k->b)));
		goto done;
	}
	x = ld(k->t[2]);
	/* Whole blocks but the last: the CTR block of each runs beside the
	 * MAC's chain (independent, so the CPU overlaps them). */
	while (len - off > 16) {
		__m128i in = ld(src + off), out;

		ks = enc_block(k, _mm_shuffle_epi8(
					  _mm_set_epi64x((long long)hi,
							 (long long)lo),
					  bswap));
		if (++lo == 0)
			hi++;
		out = _mm_xor_si128(in, ks);
		x = enc_block(k, _mm_xor_si128(x, enc ? out : in));
		_mm_storeu_si128((void *)(dst + off), out);
		off += 16;
	}
	/* The last block, whole or not (dst may be src: the ciphertext is
	 * kept for the MAC before the plaintext goes over it). */
	{
		size_t r = len - off;
		uint8_t cin[16] = { 0 };
		__m128i out;

		memcpy(cin, src + off, r);
		ks = enc_block(k, _mm_shuffle_epi8(
					  _mm_set_epi64x((long long)hi,
							 (long long)lo),
					  bswap));
		out = _mm_xor_si128(ld(cin), ks);
		_mm_storeu_si128((void *)last, out);
		memcpy(dst + off, last, r);
		if (!enc)
			memcpy(last, cin, 16);
		memset(last + r, 0, 16 - r);
		if (r < 16)
			last[r] = 0x80;
		x = enc_block(k, _mm_xor_si128(_mm_xor_si128(x, ld(last)),
					       ld(r == 16 ? k->b : k->p)));
		memset(last, 0, sizeof(last));
		memset(cin, 0, sizeof(cin));
	}
done:
	_mm_storeu_si128((void *)tag,
			 _mm_xor_si128(_mm_xor_si128(n, hm), x));
}
