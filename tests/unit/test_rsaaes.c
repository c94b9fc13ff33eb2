/* Unit test: the RSA-AES handshake's first message, as hostile servers
 * send it (client/net/rsaaes.c): key lengths outside 1024-8192 bits (0,
 * 1023, 8193, 100,000) refused before anything is allocated or read, a
 * key cut short, a modulus shorter than announced, a good key's
 * fingerprint (SHA-256 of the message as it came), and the types' names.
 * The AES-NI EAX (eax_aesni.c) against nettle's, byte for byte and tag
 * for tag, both key sizes, lengths 0 to 70 and whole frames, in place and
 * not. The whole handshake and the frames are tested against an
 * independent server in tests/integration/test_rsaaes*.py. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <nettle/sha2.h>

#include "../check.h"
#include "../ref_eax.h"
#include "net/eax_kern.h"
#include "net/rsaaes.h"
#include "util/cpu.h"

/* The server's bytes: what a test hands the session. */
struct canned {
	const uint8_t *p;
	size_t len, off;
	size_t asked;	/* the most bytes read */
};

static int canned_read(void *ctx, void *buf, size_t n)
{
	struct canned *c = ctx;

	if (c->off + n > c->len)
		return -1;
	memcpy(buf, c->p + c->off, n);
	c->off += n;
	c->asked = c->off;
	return 0;
}

static int canned_write(void *ctx, const void *buf, size_t n)
{
	return 0;
}

static int read_key(const uint8_t *msg, size_t len, uint8_t fp[32],
		    char *err, size_t errlen, size_t *asked)
{
	struct canned c = { msg, len, 0, 0 };
	struct rsaaes_io io = { canned_read, canned_write, &c };
	struct rsaaes *s = rsaaes_create(RSAAES_RA2_256, &io);
	int ret;

	if (!s)
		return -2;
	ret = rsaaes_read_key(s, fp);
	snprintf(err, errlen, "%s", rsaaes_error(s));
	rsaaes_destroy(s);
	if (asked)
		*asked = c.asked;
	return ret;
}

static void be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static void bad_length(uint32_t bits)
{
	uint8_t msg[4 + 64] = { 0 }, fp[32];
	char err[256], want[64];
	size_t asked;

	be32(msg, bits);
	CHECK_EQ(read_key(msg, sizeof(msg), fp, err, sizeof(err), &asked),
		 -1);
	snprintf(want, sizeof(want), "RSA key of %u bits", bits);
	CHECK(strstr(err, want) != NULL, "%u bits: '%s'", bits, err);
	/* Refused on the length alone. */
	CHECK_EQ(asked, 4);
}

#ifdef VNCFB_SIMD_X86
static void eax_against_nettle(void)
{
	static uint8_t src[65535], want[65535], got[65535];
	static const size_t big[] = { 8191, 8192, 8193, 65535 };
	uint8_t key[32], nonce[16], hdr[2], t1[16], t2[16];
	unsigned keylen, seed = 12345;
	struct eax_fast fk;
	struct ref_eax ref;
	size_t len, i;
	int n;

	if (!cpu_has(CPU_AES) || !cpu_has(CPU_SSSE3)) {
		printf("no AES-NI: the AES-NI EAX is not used here\n");
		return;
	}
	for (keylen = 16; keylen <= 32; keylen += 16) {
		for (n = 0; n < 71 + 4; n++) {
			len = n < 71 ? (size_t)n : big[n - 71];
			for (i = 0; i < sizeof(key); i++)
				key[i] = (uint8_t)(seed = seed * 1103515245 +
							  12345) >> 16;
			for (i = 0; i < 16; i++)
				nonce[i] = (uint8_t)(seed = seed * 1103515245 +
							    12345) >> 16;
			/* The counter's carry across 64 bits, sometimes. */
			if (n % 5 == 0)
				memset(nonce + 8, 0xff, 8);
			hdr[0] = (uint8_t)(len >> 8);
			hdr[1] = (uint8_t)len;
			for (i = 0; i < len; i++)
				src[i] = (uint8_t)(seed = seed * 1103515245 +
							  12345) >> 16;
			ref_eax_init(&ref, key, keylen);
			ref_eax_frame(&ref, true, nonce, hdr, src, want, len,
				      t1);
			eax_aesni_init(&fk, key, keylen);
			eax_aesni_frame(&fk, true, nonce, hdr, src, got, len,
					t2);
			CHECK(memcmp(got, want, len) == 0 &&
				      memcmp(t1, t2, 16) == 0,
			      "AES-%u encrypt, %zu bytes", keylen * 8, len);
			/* Decrypt in place. */
			eax_aesni_frame(&fk, false, nonce, hdr, got, got, len,
					t2);
			CHECK(memcmp(got, src, len) == 0 &&
				      memcmp(t1, t2, 16) == 0,
			      "AES-%u decrypt, %zu bytes", keylen * 8, len);
		}
	}
}

/* Two to four frames at a time (the reader's bulk path) against nettle
 * one at a time: each frame under its own nonce, a counter's 64-bit
 * carry in one of them, and a spoilt byte that spoils only its own
 * frame's tag. */
static void open_against_nettle(int nf)
{
	static uint8_t plain[4][65535], buf[4][65535];
	static const size_t lens[] = { 1, 15, 16, 17, 32, 33, 8192, 65535 };
	uint8_t key[32], nonce[4][16], hdr[4][2], want[4][16], got[4][16];
	uint8_t *at[4] = { buf[0], buf[1], buf[2], buf[3] };
	unsigned keylen, seed = 777;
	struct eax_fast fk;
	struct ref_eax ref;
	size_t l, i;
	int f;

	if (!cpu_has(CPU_AES) || !cpu_has(CPU_SSSE3))
		return;
	for (keylen = 16; keylen <= 32; keylen += 16) {
		for (l = 0; l < sizeof(lens) / sizeof(lens[0]); l++) {
			size_t len = lens[l];

			for (i = 0; i < sizeof(key); i++)
				key[i] = (uint8_t)(seed = seed * 1103515245 +
							  12345) >> 16;
			ref_eax_init(&ref, key, keylen);
			eax_aesni_init(&fk, key, keylen);
			for (f = 0; f < 4; f++) {
				for (i = 0; i < 16; i++)
					nonce[f][i] = (uint8_t)(
						seed = seed * 1103515245 +
						       12345) >> 16;
				if (f == 2)
					memset(nonce[f], 0xff, 8);
				hdr[f][0] = (uint8_t)(len >> 8);
				hdr[f][1] = (uint8_t)len;
				for (i = 0; i < len; i++)
					plain[f][i] = (uint8_t)(
						seed = seed * 1103515245 +
						       12345) >> 16;
				ref_eax_frame(&ref, true, nonce[f], hdr[f],
					      plain[f], buf[f], len, want[f]);
			}
			if (len == 8192)
				buf[nf - 1][100] ^= 1;
			eax_aesni_open(&fk, nf, (const uint8_t(*)[16])nonce,
				       (const uint8_t(*)[2])hdr, at, len, got);
			for (f = 0; f < nf; f++) {
				bool spoilt = len == 8192 && f == nf - 1;

				CHECK(spoilt || memcmp(buf[f], plain[f],
						       len) == 0,
				      "AES-%u open %d: frame %d, %zu bytes",
				      keylen * 8, nf, f, len);
				CHECK((memcmp(got[f], want[f], 16) == 0) ==
					      !spoilt,
				      "AES-%u open %d: tag %d, %zu bytes",
				      keylen * 8, nf, f, len);
			}
		}
	}
}
#endif

int main(void)
{
	/* A 1024-bit modulus: 0xC0 then 127 bytes of 0x01 ... odd. */
	uint8_t key[4 + 2 * 128], fp[32], want[32];
	struct sha256_ctx h;
	char err[256];

	bad_length(0);
	bad_length(1023);
	bad_length(8193);
	bad_length(100000);
	bad_length(0xffffffffu);

	memset(key, 0, sizeof(key));
	be32(key, 1024);
	key[4] = 0xc0;
	memset(key + 5, 0x5b, 127);
	key[4 + 127] |= 1;			/* odd modulus */
	key[4 + 2 * 128 - 3] = 0x01;		/* e = 65537 */
	key[4 + 2 * 128 - 1] = 0x01;

	/* Cut short: the connection ends inside the key. */
	CHECK_EQ(read_key(key, 4 + 100, fp, err, sizeof(err), NULL), -1);
	CHECK(strstr(err, "closed the connection in the RSA-AES handshake"),
	      "'%s'", err);

	/* A good one: the fingerprint is the message's SHA-256. */
	CHECK_EQ(read_key(key, sizeof(key), fp, err, sizeof(err), NULL), 0);
	sha256_init(&h);
	sha256_update(&h, sizeof(key), key);
	sha256_digest(&h, sizeof(want), want);
	CHECK(memcmp(fp, want, 32) == 0, "fingerprint differs");

	/* "1024 bits" announced, 16 bits of modulus sent in the 128
	 * bytes: a toy key in disguise. */
	memset(key + 4, 0, 126);
	CHECK_EQ(read_key(key, sizeof(key), fp, err, sizeof(err), NULL), -1);
	CHECK(strstr(err, "invalid RSA key"), "'%s'", err);

	CHECK(strcmp(rsaaes_type_name(RSAAES_RA2), "RA2") == 0);
	CHECK(strcmp(rsaaes_type_name(RSAAES_RA2NE_256), "RA2ne_256") == 0);
	CHECK(rsaaes_type_name(7) == NULL);
	CHECK(!rsaaes_type_known(2));
	CHECK(rsaaes_type_all_encrypted(RSAAES_RA2_256));
	CHECK(!rsaaes_type_all_encrypted(RSAAES_RA2NE));
	CHECK(rsaaes_create(2, &(struct rsaaes_io){ 0 }) == NULL);
#ifdef VNCFB_SIMD_X86
	eax_against_nettle();
	open_against_nettle(2);
	open_against_nettle(3);
	open_against_nettle(4);
#endif
	return check_done("rsaaes");
}
