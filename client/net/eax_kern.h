/* AES-EAX for RSA-AES's frames on AES-NI (x86-64, eax_aesni.c, built
 * with -maes -mssse3 and called only where util/cpu.h says the CPU has
 * both): nettle's EAX calls its block cipher one 16-byte block at a time
 * and runs at about 200 MB/s with AES-256, a third of what vncfb decodes
 * a lossless stream at; this one keeps the keys in registers and lets
 * the CTR blocks run beside the MAC's chain. Specified by nettle's EAX:
 * tests/unit/test_rsaaes.c checks both give the same bytes and tags.
 *
 * Threads: any; a key is read-only once made. */
#ifndef VNCFB_EAX_KERN_H
#define VNCFB_EAX_KERN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct eax_fast {
	uint8_t rk[15][16] __attribute__((aligned(16)));
	int rounds;		/* 10 (AES-128) or 14 (AES-256) */
	/* CMAC's subkeys (B for a whole last block, P for a padded one)
	 * and the cipher of the tweaks [0], [1], [2]. */
	uint8_t b[16], p[16], t[3][16];
};

/* keylen 16 or 32. */
void eax_aesni_init(struct eax_fast *k, const uint8_t *key, unsigned keylen);
/* One frame: len bytes src -> dst (encrypted if enc, else decrypted; dst
 * may be src), authenticated with the 2-byte header hdr under nonce; its
 * tag in tag. */
void eax_aesni_frame(const struct eax_fast *k, bool enc,
		     const uint8_t nonce[16], const uint8_t hdr[2],
		     const uint8_t *src, uint8_t *dst, size_t len,
		     uint8_t tag[16]);
/* nf frames (1 to EAX_OPEN_MAX) of the same length (at least 1 byte)
 * decrypted in place, buf[i] under nonce[i] and hdr[i], their tags in
 * tag: the frames' MAC chains run side by side, so that four cost about
 * what one does alone. */
#define EAX_OPEN_MAX 4
void eax_aesni_open(const struct eax_fast *k, int nf,
		    const uint8_t nonce[][16], const uint8_t hdr[][2],
		    uint8_t *const buf[], size_t len, uint8_t tag[][16]);

#endif
