/* nettle's AES-EAX for one key: the reference vncfb's AES-NI EAX
 * (client/net/eax_kern.h) is checked against (tests/unit/test_rsaaes.c)
 * and measured against (tests/bench/bench_eax.c). */
#ifndef VNCFB_TESTS_REF_EAX_H
#define VNCFB_TESTS_REF_EAX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <nettle/aes.h>
#include <nettle/eax.h>

struct ref_eax {
	union {
		struct aes128_ctx a128;
		struct aes256_ctx a256;
	} c;
	nettle_cipher_func *f;
	struct eax_key k;
	struct eax_ctx e;
};

/* keylen 16 or 32. */
static inline void ref_eax_init(struct ref_eax *r, const uint8_t *key,
				unsigned keylen)
{
	if (keylen == 16) {
		aes128_set_encrypt_key(&r->c.a128, key);
		r->f = (nettle_cipher_func *)aes128_encrypt;
	} else {
		aes256_set_encrypt_key(&r->c.a256, key);
		r->f = (nettle_cipher_func *)aes256_encrypt;
	}
	eax_set_key(&r->k, &r->c, r->f);
}

/* One RSA-AES frame: len bytes src -> dst, the 2-byte header hdr
 * authenticated, under nonce; its tag in tag. */
static inline void ref_eax_frame(struct ref_eax *r, bool enc,
				 const uint8_t *nonce, const uint8_t *hdr,
				 const uint8_t *src, uint8_t *dst, size_t len,
				 uint8_t *tag)
{
	eax_set_nonce(&r->e, &r->k, &r->c, r->f, 16, nonce);
	eax_update(&r->e, &r->k, &r->c, r->f, 2, hdr);
	if (enc)
		eax_encrypt(&r->e, &r->k, &r->c, r->f, len, dst, src);
	else
		eax_decrypt(&r->e, &r->k, &r->c, r->f, len, dst, src);
	eax_digest(&r->e, &r->k, &r->c, r->f, 16, tag);
}

#endif
