/* RSA-AES (RA2 and its kin): the client's handshake and the AES-EAX
 * framed stream, with nettle's RSA, AES, EAX, SHA-1 and SHA-256 (see
 * rsaaes.h). */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include <nettle/aes.h>
#include <nettle/bignum.h>
#include <nettle/eax.h>
#include <nettle/memops.h>
#include <nettle/rsa.h>
#include <nettle/sha1.h>
#include <nettle/sha2.h>

#include "net/eax_kern.h"
#include "net/rsaaes.h"
#include "util/cpu.h"

#define KEY_MIN_BITS 1024
#define KEY_MAX_BITS 8192
/* The client's own key: only the server's random is ever encrypted to
 * it, and made once a process, so that a reconnecting kiosk on a small
 * board does not pay for a new one each time. */
#define CLIENT_KEY_BITS 2048
#define CLIENT_KEY_BYTES (CLIENT_KEY_BITS / 8)
/* What one frame we send carries at most (TigerVNC's size). */
#define SEND_MAX 8192

struct rsaaes {
	uint32_t type;
	unsigned keylen;	/* 16 (RA2, RA2ne) or 32 */
	struct rsaaes_io io;
	char err[200];
	bool ready;		/* the session keys are set */
	int sub;		/* the subtype the server asked for */

	/* The server's key, as it came: bits, modulus, exponent. */
	uint32_t srv_bits;
	size_t srv_size;	/* bytes of each of n and e */
	uint8_t *srv_n, *srv_e;
	struct rsa_public_key srv;
	bool srv_init;

	uint8_t crandom[32], srandom[32];

	/* The two directions' AES-EAX: a key, its cipher and the frame
	 * counter (the nonce, 16 bytes little-endian). */
	struct eax_dir {
		union {
			struct aes128_ctx a128;
			struct aes256_ctx a256;
		} cipher;
		nettle_cipher_func *f;
		struct eax_key key;
		struct eax_ctx eax;
		uint8_t nonce[16];
		/* AES-NI's, when the CPU has it (eax_kern.h). */
		struct eax_fast fast;
		bool use_fast;
	} in, out;

	/* Decrypted bytes of the last frame not yet taken. */
	uint8_t plain[RSAAES_FRAME_MAX];
	size_t plain_off, plain_len;
	/* A frame on its way out (header, data, MAC). */
	uint8_t frame[RSAAES_HDR + SEND_MAX + RSAAES_MAC];
};

/* The client's key pair (made by the first handshake). */
static pthread_mutex_t ckey_lock = PTHREAD_MUTEX_INITIALIZER;
static bool ckey_made;
static struct rsa_public_key ckey_pub;
static struct rsa_private_key ckey_priv;
static uint8_t ckey_msg[4 + 2 * CLIENT_KEY_BYTES]; /* as sent */

void rsaaes_wipe(void *p, size_t n)
{
	/* memset at its speed (a volatile byte loop took 8 % of a raw
	 * replay), kept by the barrier: the compiler must assume the
	 * zeroes are read. */
	memset(p, 0, n);
	__asm__ __volatile__("" : : "r"(p) : "memory");
}

bool rsaaes_type_known(uint32_t type)
{
	return rsaaes_type_name(type) != NULL;
}

const char *rsaaes_type_name(uint32_t type)
{
	switch (type) {
	case RSAAES_RA2:
		return "RA2";
	case RSAAES_RA2NE:
		return "RA2ne";
	case RSAAES_RA2_256:
		return "RA2_256";
	case RSAAES_RA2NE_256:
		return "RA2ne_256";
	}
	return NULL;
}

bool rsaaes_type_all_encrypted(uint32_t type)
{
	return type == RSAAES_RA2 || type == RSAAES_RA2_256;
}

void rsaaes_fail(struct rsaaes *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s->err, sizeof(s->err), fmt, ap);
	va_end(ap);
}

const char *rsaaes_error(const struct rsaaes *s)
{
	return s->err;
}

/* nettle's randomness: the kernel's. Nothing sensible is left to do if
 * the kernel cannot give any, so a failure ends the process. */
static void random_fill(void *ctx, size_t n, uint8_t *dst)
{
	while (n > 0) {
		ssize_t k = getrandom(dst, n, 0);

		if (k < 0) {
			if (errno == EINTR)
				continue;
			perror("vncfb: getrandom");
			abort();
		}
		dst += k;
		n -= (size_t)k;
	}
}

struct rsaaes *rsaaes_create(uint32_t type, const struct rsaaes_io *io)
{
	struct rsaaes *s;

	if (!rsaaes_type_known(type))
		return NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->type = type;
	s->keylen = type == RSAAES_RA2 || type == RSAAES_RA2NE ? 16 : 32;
	s->io = *io;
	return s;
}

void rsaaes_destroy(struct rsaaes *s)
{
	if (!s)
		return;
	if (s->srv_init)
		rsa_public_key_clear(&s->srv);
	free(s->srv_n);
	free(s->srv_e);
	rsaaes_wipe(s, sizeof(*s));
	free(s);
}

/* The transport's read, with the words for a connection that ended. */
static int get(struct rsaaes *s, void *buf, size_t n, const char *what)
{
	s->err[0] = '\0';
	if (s->io.read(s->io.ctx, buf, n) == 0)
		return 0;
	if (!s->err[0])
		rsaaes_fail(s, "closed the connection in the RSA-AES handshake "
			       "(%s)", what);
	return -1;
}

static int put(struct rsaaes *s, const void *buf, size_t n)
{
	s->err[0] = '\0';
	if (s->io.write(s->io.ctx, buf, n) == 0)
		return 0;
	if (!s->err[0])
		rsaaes_fail(s, "writing to the server failed (RSA-AES)");
	return -1;
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

int rsaaes_read_key(struct rsaaes *s, uint8_t fp[32])
{
	struct sha256_ctx h;
	uint8_t len[4];

	if (get(s, len, 4, "its RSA key") < 0)
		return -1;
	s->srv_bits = be32(len);
	if (s->srv_bits < KEY_MIN_BITS || s->srv_bits > KEY_MAX_BITS) {
		rsaaes_fail(s, "sent an RSA key of %u bits (vncfb takes %d "
			       "to %d)",
			    s->srv_bits, KEY_MIN_BITS, KEY_MAX_BITS);
		return -1;
	}
	s->srv_size = (s->srv_bits + 7) / 8;
	s->srv_n = malloc(s->srv_size);
	s->srv_e = malloc(s->srv_size);
	if (!s->srv_n || !s->srv_e) {
		rsaaes_fail(s, "out of memory for the server's RSA key");
		return -1;
	}
	if (get(s, s->srv_n, s->srv_size, "its RSA key") < 0 ||
	    get(s, s->srv_e, s->srv_size, "its RSA key") < 0)
		return -1;
	rsa_public_key_init(&s->srv);
	s->srv_init = true;
	nettle_mpz_set_str_256_u(s->srv.n, s->srv_size, s->srv_n);
	nettle_mpz_set_str_256_u(s->srv.e, s->srv_size, s->srv_e);
	/* nettle checks the modulus is usable; the modulus must also be as
	 * long as announced, or "2048 bits" could hide a toy key. */
	if (!rsa_public_key_prepare(&s->srv) ||
	    mpz_sizeinbase(s->srv.n, 2) + 7 < s->srv_bits ||
	    mpz_sizeinbase(s->srv.n, 2) < KEY_MIN_BITS) {
		rsaaes_fail(s, "sent an invalid RSA key (%u bits announced)",
			    s->srv_bits);
		return -1;
	}
	sha256_init(&h);
	sha256_update(&h, 4, len);
	sha256_update(&h, s->srv_size, s->srv_n);
	sha256_update(&h, s->srv_size, s->srv_e);
	sha256_digest(&h, 32, fp);
	return 0;
}

static int client_key(struct rsaaes *s)
{
	int ret = 0;

	pthread_mutex_lock(&ckey_lock);
	if (!ckey_made) {
		rsa_public_key_init(&ckey_pub);
		rsa_private_key_init(&ckey_priv);
		mpz_set_ui(ckey_pub.e, 65537);
		if (!rsa_generate_keypair(&ckey_pub, &ckey_priv, NULL,
					  random_fill, NULL, NULL,
					  CLIENT_KEY_BITS, 0)) {
			rsa_public_key_clear(&ckey_pub);
			rsa_private_key_clear(&ckey_priv);
			rsaaes_fail(s, "cannot make an RSA key (nettle)");
			ret = -1;
		} else {
			put_be32(ckey_msg, CLIENT_KEY_BITS);
			nettle_mpz_get_str_256(CLIENT_KEY_BYTES, ckey_msg + 4,
					       ckey_pub.n);
			nettle_mpz_get_str_256(CLIENT_KEY_BYTES,
					       ckey_msg + 4 + CLIENT_KEY_BYTES,
					       ckey_pub.e);
			ckey_made = true;
		}
	}
	pthread_mutex_unlock(&ckey_lock);
	return ret;
}

/* Our random, encrypted to the server's key. */
static int send_random(struct rsaaes *s)
{
	uint8_t *msg = malloc(2 + s->srv_size);
	mpz_t x;
	int ret = -1;

	if (!msg) {
		rsaaes_fail(s, "out of memory for the RSA-AES handshake");
		return -1;
	}
	random_fill(NULL, s->keylen, s->crandom);
	mpz_init(x);
	if (!rsa_encrypt(&s->srv, NULL, random_fill, s->keylen, s->crandom,
			 x)) {
		rsaaes_fail(s, "cannot encrypt to the server's RSA key");
		goto out;
	}
	msg[0] = (uint8_t)(s->srv_size >> 8);
	msg[1] = (uint8_t)s->srv_size;
	nettle_mpz_get_str_256(s->srv_size, msg + 2, x);
	ret = put(s, msg, 2 + s->srv_size);
out:
	mpz_clear(x);
	free(msg);
	return ret;
}

/* The server's random, decrypted with our key. */
static int read_random(struct rsaaes *s)
{
	uint8_t len[2], buf[CLIENT_KEY_BYTES];
	mpz_t x;
	int ok;

	if (get(s, len, 2, "its random") < 0)
		return -1;
	if ((len[0] << 8 | len[1]) != CLIENT_KEY_BYTES) {
		rsaaes_fail(s, "sent an encrypted random of %d bytes (our "
			       "key's %d expected)",
			    len[0] << 8 | len[1], CLIENT_KEY_BYTES);
		return -1;
	}
	if (get(s, buf, sizeof(buf), "its random") < 0)
		return -1;
	nettle_mpz_init_set_str_256_u(x, sizeof(buf), buf);
	ok = rsa_sec_decrypt(&ckey_pub, &ckey_priv, NULL, random_fill,
			     s->keylen, s->srandom, x);
	mpz_clear(x);
	if (!ok) {
		rsaaes_fail(s, "sent a random that does not decrypt with "
			       "our RSA key");
		return -1;
	}
	return 0;
}

static void dir_init(struct eax_dir *d, unsigned keylen, const uint8_t *key)
{
	if (keylen == 16) {
		aes128_set_encrypt_key(&d->cipher.a128, key);
		d->f = (nettle_cipher_func *)aes128_encrypt;
	} else {
		aes256_set_encrypt_key(&d->cipher.a256, key);
		d->f = (nettle_cipher_func *)aes256_encrypt;
	}
	eax_set_key(&d->key, &d->cipher, d->f);
	memset(d->nonce, 0, sizeof(d->nonce));
#ifdef VNCFB_SIMD_X86
	d->use_fast = cpu_has(CPU_AES) && cpu_has(CPU_SSSE3);
	if (d->use_fast)
		eax_aesni_init(&d->fast, key, keylen);
#endif
}

/* One frame of len bytes, src -> dst (may be the same), its MAC in mac. */
static void eax_frame(struct eax_dir *d, bool enc, const uint8_t *hdr,
		      const uint8_t *src, uint8_t *dst, size_t len,
		      uint8_t *mac)
{
#ifdef VNCFB_SIMD_X86
	if (d->use_fast) {
		eax_aesni_frame(&d->fast, enc, d->nonce, hdr, src, dst, len,
				mac);
		return;
	}
#endif
	eax_set_nonce(&d->eax, &d->key, &d->cipher, d->f, 16, d->nonce);
	eax_update(&d->eax, &d->key, &d->cipher, d->f, RSAAES_HDR, hdr);
	if (enc)
		eax_encrypt(&d->eax, &d->key, &d->cipher, d->f, len, dst, src);
	else
		eax_decrypt(&d->eax, &d->key, &d->cipher, d->f, len, dst, src);
	eax_digest(&d->eax, &d->key, &d->cipher, d->f, RSAAES_MAC, mac);
}

/* Our key to read with hashes our random first; the server's, its own. */
static void session_keys(struct rsaaes *s)
{
	uint8_t key[SHA256_DIGEST_SIZE];
	const uint8_t *a = s->crandom, *b = s->srandom;
	int i;

	for (i = 0; i < 2; i++) {
		if (s->keylen == 16) {
			struct sha1_ctx h;

			sha1_init(&h);
			sha1_update(&h, 16, a);
			sha1_update(&h, 16, b);
			sha1_digest(&h, SHA1_DIGEST_SIZE, key);
			rsaaes_wipe(&h, sizeof(h));
		} else {
			struct sha256_ctx h;

			sha256_init(&h);
			sha256_update(&h, 32, a);
			sha256_update(&h, 32, b);
			sha256_digest(&h, SHA256_DIGEST_SIZE, key);
			rsaaes_wipe(&h, sizeof(h));
		}
		dir_init(i == 0 ? &s->in : &s->out, s->keylen, key);
		a = s->srandom;
		b = s->crandom;
	}
	rsaaes_wipe(key, sizeof(key));
	rsaaes_wipe(s->crandom, sizeof(s->crandom));
	rsaaes_wipe(s->srandom, sizeof(s->srandom));
	s->ready = true;
}

static void nonce_next(uint8_t nonce[16])
{
	int i;

	for (i = 0; i < 16; i++)
		if (++nonce[i] != 0)
			break;
}

/* One frame of the server's as it came: its header, its bytes into dst
 * (room for RSAAES_FRAME_MAX), its MAC; its length, or -1. */
static ssize_t take_frame(struct rsaaes *s, uint8_t hdr[RSAAES_HDR],
			  uint8_t *dst, uint8_t mac[RSAAES_MAC])
{
	size_t len;

	s->err[0] = '\0';
	if (s->io.read(s->io.ctx, hdr, RSAAES_HDR) < 0) {
		if (!s->err[0])
			rsaaes_fail(s, "closed the connection");
		return -1;
	}
	len = (size_t)hdr[0] << 8 | hdr[1];
	if (s->io.read(s->io.ctx, dst, len) < 0 ||
	    s->io.read(s->io.ctx, mac, RSAAES_MAC) < 0) {
		if (!s->err[0])
			rsaaes_fail(s, "closed the connection in the middle "
				       "of an RSA-AES frame (%zu bytes "
				       "announced)",
				    len);
		return -1;
	}
	return (ssize_t)len;
}

static int mac_check(struct rsaaes *s, const uint8_t *mac,
		     const uint8_t *want, size_t len)
{
	if (memeql_sec(mac, want, RSAAES_MAC))
		return 0;
	rsaaes_fail(s, "sent an RSA-AES frame whose MAC does not match (%zu "
		       "bytes; corrupted or forged)",
		    len);
	return -1;
}

/* One frame of the server's into dst (room for RSAAES_FRAME_MAX):
 * its length, or -1. */
static ssize_t read_frame(struct rsaaes *s, uint8_t *dst)
{
	uint8_t hdr[RSAAES_HDR], mac[RSAAES_MAC], want[RSAAES_MAC];
	struct eax_dir *d = &s->in;
	ssize_t len = take_frame(s, hdr, dst, mac);

	if (len < 0)
		return -1;
	eax_frame(d, false, hdr, dst, dst, (size_t)len, want);
	if (mac_check(s, mac, want, (size_t)len) < 0) {
		rsaaes_wipe(dst, (size_t)len);
		return -1;
	}
	nonce_next(d->nonce);
	return len;
}

/* Frames for a caller that wants n >= RSAAES_FRAME_MAX bytes in dst:
 * on AES-NI, up to four read at once, whole ones straight into dst and
 * the one the caller needs only a part of (the last) into s->plain, its
 * rest kept there; four full frames, or two or three, are decrypted
 * together, their MACs' chains side by side (eax_kern.h). Every frame
 * read holds bytes the caller needs, so waiting for it is no stall.
 * Without AES-NI one frame. The bytes given to dst, or -1. */
static ssize_t read_frames(struct rsaaes *s, uint8_t *dst, size_t n)
{
#ifdef VNCFB_SIMD_X86
	uint8_t hdr[EAX_OPEN_MAX][RSAAES_HDR], mac[EAX_OPEN_MAX][RSAAES_MAC];
	uint8_t want[EAX_OPEN_MAX][RSAAES_MAC], nonce[EAX_OPEN_MAX][16];
	uint8_t *at[EAX_OPEN_MAX];
	struct eax_dir *d = &s->in;
	size_t total = 0, len[EAX_OPEN_MAX], k;
	bool tail = false, full = true;
	int i, nf = 0;

	if (!d->use_fast)
		return read_frame(s, dst);
	while (nf < EAX_OPEN_MAX && total < n) {
		ssize_t got;

		tail = n - total < RSAAES_FRAME_MAX;
		at[nf] = tail ? s->plain : dst + total;
		got = take_frame(s, hdr[nf], at[nf], mac[nf]);
		if (got < 0)
			goto bad;
		len[nf] = (size_t)got;
		full = full && len[nf] == RSAAES_FRAME_MAX;
		nf++;
		if (tail || !full)
			break;
		total += (size_t)got;
	}
	if (full && nf > 1) {
		for (i = 0; i < nf; i++) {
			memcpy(nonce[i], d->nonce, 16);
			nonce_next(d->nonce);
		}
		eax_aesni_open(&d->fast, nf, (const uint8_t(*)[16])nonce,
			       (const uint8_t(*)[2])hdr, at, RSAAES_FRAME_MAX,
			       want);
	} else {
		for (i = 0; i < nf; i++) {
			eax_frame(d, false, hdr[i], at[i], at[i], len[i],
				  want[i]);
			nonce_next(d->nonce);
		}
	}
	for (i = 0; i < nf; i++)
		if (mac_check(s, mac[i], want[i], len[i]) < 0)
			goto bad;
	if (!tail)
		return (ssize_t)(total + (full ? 0 : len[nf - 1]));
	/* The last frame went to plain: what the caller wants of it. */
	k = n - total < len[nf - 1] ? n - total : len[nf - 1];
	memcpy(dst + total, s->plain, k);
	rsaaes_wipe(s->plain, k);
	s->plain_off = k;
	s->plain_len = len[nf - 1] - k;
	return (ssize_t)(total + k);
bad:
	/* Decrypted, not authenticated: none of it stays. */
	rsaaes_wipe(dst, n < total + RSAAES_FRAME_MAX
				 ? n
				 : total + RSAAES_FRAME_MAX);
	rsaaes_wipe(s->plain, sizeof(s->plain));
	return -1;
#else
	(void)n;
	return read_frame(s, dst);
#endif
}

ssize_t rsaaes_recv(struct rsaaes *s, void *buf, size_t n)
{
	size_t k;

	if (n == 0)
		return 0;
	while (s->plain_len == 0) {
		ssize_t got;

		/* A whole frame that fits goes straight to the caller
		 * (most of an update's bytes); a frame that does not
		 * fit, or whose length is not known yet, goes through
		 * the buffer. */
		if (n >= RSAAES_FRAME_MAX) {
			got = read_frames(s, buf, n);
			if (got < 0)
				return -1;
			if (got > 0)
				return got;
			continue;
		}
		got = read_frame(s, s->plain);
		if (got < 0)
			return -1;
		s->plain_off = 0;
		s->plain_len = (size_t)got;
	}
	k = n < s->plain_len ? n : s->plain_len;
	memcpy(buf, s->plain + s->plain_off, k);
	rsaaes_wipe(s->plain + s->plain_off, k);
	s->plain_off += k;
	s->plain_len -= k;
	return (ssize_t)k;
}

/* Exactly n bytes of the server's stream (the handshake's messages). */
static int recv_all(struct rsaaes *s, void *buf, size_t n, const char *what)
{
	uint8_t *p = buf;

	while (n > 0) {
		ssize_t k = rsaaes_recv(s, p, n);

		if (k < 0) {
			if (strcmp(s->err, "closed the connection") == 0)
				rsaaes_fail(s, "closed the connection in the "
					       "RSA-AES handshake (%s)",
					    what);
			return -1;
		}
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

int rsaaes_send(struct rsaaes *s, const void *buf, size_t n)
{
	const uint8_t *p = buf;
	struct eax_dir *d = &s->out;

	do {
		size_t k = n < SEND_MAX ? n : SEND_MAX;
		int ret;

		s->frame[0] = (uint8_t)(k >> 8);
		s->frame[1] = (uint8_t)k;
		eax_frame(d, true, s->frame, p, s->frame + RSAAES_HDR, k,
			  s->frame + RSAAES_HDR + k);
		nonce_next(d->nonce);
		ret = put(s, s->frame, RSAAES_HDR + k + RSAAES_MAC);
		rsaaes_wipe(s->frame, RSAAES_HDR + k);
		if (ret < 0)
			return -1;
		p += k;
		n -= k;
	} while (n > 0);
	return 0;
}

size_t rsaaes_pending(const struct rsaaes *s)
{
	return s->plain_len;
}

/* The hash of both keys, the first one's owner's first: what the server
 * must prove it saw (ours) and what we prove we saw (the server's). */
static void keys_hash(const struct rsaaes *s, bool server_first,
		      uint8_t *out)
{
	uint8_t slen[4];
	const uint8_t *parts[2][3] = {
		{ slen, s->srv_n, s->srv_e },
		{ ckey_msg, ckey_msg + 4, ckey_msg + 4 + CLIENT_KEY_BYTES },
	};
	size_t sizes[2][3] = {
		{ 4, s->srv_size, s->srv_size },
		{ 4, CLIENT_KEY_BYTES, CLIENT_KEY_BYTES },
	};
	struct sha1_ctx h1;
	struct sha256_ctx h256;
	int i, j, who;

	put_be32(slen, s->srv_bits);
	sha1_init(&h1);
	sha256_init(&h256);
	for (i = 0; i < 2; i++) {
		who = server_first ? i : 1 - i;
		for (j = 0; j < 3; j++) {
			if (s->keylen == 16)
				sha1_update(&h1, sizes[who][j],
					    parts[who][j]);
			else
				sha256_update(&h256, sizes[who][j],
					      parts[who][j]);
		}
	}
	if (s->keylen == 16)
		sha1_digest(&h1, SHA1_DIGEST_SIZE, out);
	else
		sha256_digest(&h256, SHA256_DIGEST_SIZE, out);
}

int rsaaes_exchange(struct rsaaes *s)
{
	uint8_t ours[32], theirs[32], want[32], sub;
	size_t hlen = s->keylen == 16 ? SHA1_DIGEST_SIZE : SHA256_DIGEST_SIZE;

	if (!s->srv_init) {
		rsaaes_fail(s, "RSA-AES: no server key read");
		return -1;
	}
	if (client_key(s) < 0 || put(s, ckey_msg, sizeof(ckey_msg)) < 0 ||
	    send_random(s) < 0 || read_random(s) < 0)
		return -1;
	session_keys(s);
	keys_hash(s, false, ours);
	if (rsaaes_send(s, ours, hlen) < 0 ||
	    recv_all(s, theirs, hlen, "its hash of the keys") < 0)
		return -1;
	keys_hash(s, true, want);
	if (!memeql_sec(theirs, want, hlen)) {
		rsaaes_fail(s, "sent a hash of the RSA keys that does not "
			       "match: the key exchange was tampered with");
		return -1;
	}
	if (recv_all(s, &sub, 1, "its subtype") < 0)
		return -1;
	if (sub != RSAAES_USER_PASS && sub != RSAAES_PASS) {
		rsaaes_fail(s, "asks for RSA-AES subtype %u, which vncfb "
			       "does not know",
			    sub);
		return -1;
	}
	s->sub = sub;
	return sub;
}

int rsaaes_send_credentials(struct rsaaes *s, const char *user,
			    const char *pass)
{
	size_t ul = user ? strlen(user) : 0, pl = pass ? strlen(pass) : 0;
	uint8_t buf[2 + 255 + 255];
	int ret;

	if (s->sub == RSAAES_PASS) {
		user = NULL;
		ul = 0;
	}
	if (!s->ready) {
		rsaaes_fail(s, "RSA-AES: no session keys");
		return -1;
	}
	if (ul > 255 || pl > 255) {
		rsaaes_fail(s, "the %s is longer than RSA-AES can carry "
			       "(255 bytes)",
			    ul > 255 ? "user name" : "password");
		return -1;
	}
	buf[0] = (uint8_t)ul;
	memcpy(buf + 1, user ? user : "", ul);
	buf[1 + ul] = (uint8_t)pl;
	memcpy(buf + 2 + ul, pass ? pass : "", pl);
	ret = rsaaes_send(s, buf, 2 + ul + pl);
	rsaaes_wipe(buf, sizeof(buf));
	return ret;
}
