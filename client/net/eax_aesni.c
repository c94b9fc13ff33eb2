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

/* Counter block (hi, lo) as AES's input: big-endian. */
static __m128i ctr_block(uint64_t hi, uint64_t lo)
{
	const __m128i bswap = _mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
					   11, 12, 13, 14, 15);

	return _mm_shuffle_epi8(_mm_set_epi64x((long long)hi, (long long)lo),
				bswap);
}

/* A frame's start: N and H, the counter from N, the MAC's chain on [2]. */
struct frame_state {
	__m128i n, hm, x;
	uint64_t hi, lo;
};

static void frame_start(const struct eax_fast *k, const uint8_t nonce[16],
			const uint8_t hdr[2], struct frame_state *f)
{
	const __m128i bswap = _mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
					   11, 12, 13, 14, 15);
	uint8_t h[16] = { hdr[0], hdr[1], 0x80 };
	__m128i c;

	f->n = omac1(k, 0, ld(nonce), true);
	f->hm = omac1(k, 1, ld(h), false);
	/* The counter: N as a big-endian 128-bit number. */
	c = _mm_shuffle_epi8(f->n, bswap);
	f->lo = (uint64_t)_mm_cvtsi128_si64(c);
	f->hi = (uint64_t)_mm_cvtsi128_si64(_mm_unpackhi_epi64(c, c));
	f->x = ld(k->t[2]);
}

/* The last block, whole or not (1 to 16 bytes; dst may be src: the
 * ciphertext is kept for the MAC before the plaintext goes over it), and
 * the tag. */
static void frame_finish(const struct eax_fast *k, bool enc,
			 struct frame_state *f, const uint8_t *src,
			 uint8_t *dst, size_t r, uint8_t tag[16])
{
	uint8_t cin[16] = { 0 }, last[16];
	__m128i out, x;

	memcpy(cin, src, r);
	out = _mm_xor_si128(ld(cin), enc_block(k, ctr_block(f->hi, f->lo)));
	_mm_storeu_si128((void *)last, out);
	memcpy(dst, last, r);
	if (!enc)
		memcpy(last, cin, 16);
	memset(last + r, 0, 16 - r);
	if (r < 16)
		last[r] = 0x80;
	x = enc_block(k, _mm_xor_si128(_mm_xor_si128(f->x, ld(last)),
				       ld(r == 16 ? k->b : k->p)));
	_mm_storeu_si128((void *)tag,
			 _mm_xor_si128(_mm_xor_si128(f->n, f->hm), x));
	memset(last, 0, sizeof(last));
	memset(cin, 0, sizeof(cin));
}

void eax_aesni_frame(const struct eax_fast *k, bool enc,
		     const uint8_t nonce[16], const uint8_t hdr[2],
		     const uint8_t *src, uint8_t *dst, size_t len,
		     uint8_t tag[16])
{
	struct frame_state f;
	size_t off = 0;

	frame_start(k, nonce, hdr, &f);
	if (len == 0) {
		/* OMAC2 of nothing: [2] is the whole last block. */
		__m128i x = enc_block(
			k, _mm_xor_si128(_mm_set_epi8(2, 0, 0, 0, 0, 0, 0, 0,
						      0, 0, 0, 0, 0, 0, 0, 0),
					 ld(k->b)));

		_mm_storeu_si128((void *)tag,
				 _mm_xor_si128(_mm_xor_si128(f.n, f.hm), x));
		return;
	}
	/* Whole blocks but the last: the CTR block of each runs beside the
	 * MAC's chain (independent, so the CPU overlaps them). */
	while (len - off > 16) {
		__m128i in = ld(src + off), out;

		out = _mm_xor_si128(in, enc_block(k, ctr_block(f.hi, f.lo)));
		if (++f.lo == 0)
			f.hi++;
		f.x = enc_block(k, _mm_xor_si128(f.x, enc ? out : in));
		_mm_storeu_si128((void *)(dst + off), out);
		off += 16;
	}
	frame_finish(k, enc, &f, src + off, dst + off, len - off, tag);
}

/* nf frames (a constant where it is inlined, so that the chains stay in
 * registers). */
static inline __attribute__((always_inline)) void
open_n(const struct eax_fast *k, int nf, const uint8_t nonce[][16],
       const uint8_t hdr[][2], uint8_t *const buf[], size_t len,
       uint8_t tag[][16])
{
	const __m128i *rk = (const __m128i *)(const void *)k->rk;
	struct frame_state f[EAX_OPEN_MAX];
	size_t off, last = (len - 1) / 16 * 16;
	int i, j;

	for (i = 0; i < nf; i++)
		frame_start(k, nonce[i], hdr[i], &f[i]);
	/* 2 * nf independent chains a block: the frames' CTR blocks and
	 * their MACs, each a chain of AES rounds that cannot overlap
	 * itself; together they fill the AES unit's pipeline. */
	for (off = 0; off < last; off += 16) {
		__m128i in[EAX_OPEN_MAX], s[2 * EAX_OPEN_MAX];
		__m128i r0 = _mm_load_si128(&rk[0]);

#pragma GCC unroll 4
		for (i = 0; i < nf; i++) {
			in[i] = ld(buf[i] + off);
			s[i] = _mm_xor_si128(ctr_block(f[i].hi, f[i].lo), r0);
			if (++f[i].lo == 0)
				f[i].hi++;
			s[nf + i] = _mm_xor_si128(
				_mm_xor_si128(f[i].x, in[i]), r0);
		}
#pragma GCC unroll 14
		for (j = 1; j < k->rounds; j++) {
			__m128i r = _mm_load_si128(&rk[j]);

#pragma GCC unroll 8
			for (i = 0; i < 2 * nf; i++)
				s[i] = _mm_aesenc_si128(s[i], r);
		}
#pragma GCC unroll 8
		for (i = 0; i < 2 * nf; i++)
			s[i] = _mm_aesenclast_si128(
				s[i], _mm_load_si128(&rk[k->rounds]));
#pragma GCC unroll 4
		for (i = 0; i < nf; i++) {
			_mm_storeu_si128((void *)(buf[i] + off),
					 _mm_xor_si128(in[i], s[i]));
			f[i].x = s[nf + i];
		}
	}
	for (i = 0; i < nf; i++)
		frame_finish(k, false, &f[i], buf[i] + last, buf[i] + last,
			     len - last, tag[i]);
}

void eax_aesni_open(const struct eax_fast *k, int nf,
		    const uint8_t nonce[][16], const uint8_t hdr[][2],
		    uint8_t *const buf[], size_t len, uint8_t tag[][16])
{
	switch (nf) {
	case 4:
		open_n(k, 4, nonce, hdr, buf, len, tag);
		break;
	case 3:
		open_n(k, 3, nonce, hdr, buf, len, tag);
		break;
	case 2:
		open_n(k, 2, nonce, hdr, buf, len, tag);
		break;
	default:
		eax_aesni_frame(k, false, nonce[0], hdr[0], buf[0], buf[0],
				len, tag[0]);
		break;
	}
}
