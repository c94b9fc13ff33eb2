/* RFB's RSA-AES security types (the community specification's RA2 5,
 * RA2ne 6, RA2_256 129, RA2ne_256 130): the client's side of the
 * handshake and the AES-EAX framed stream it ends in, over any byte
 * transport handed in as two callbacks. No libvncclient here: the glue
 * that puts it under libvncclient is vnc_rsaaes.c.
 *
 * The handshake: the server's RSA public key (its length checked, 1024 to
 * 8192 bits), the client's own key (2048 bits, made once a process), each
 * side's random encrypted to the other's key (PKCS#1 v1.5), two session
 * keys (SHA-1 for the 128-bit types, SHA-256 for the 256-bit ones), then
 * AES-EAX frames: a hash of both keys each way, the server's subtype
 * (user name and password, or password only), the credentials. After
 * that, RA2 and RA2_256 frame every byte both ways; RA2ne and RA2ne_256
 * go on in the clear.
 *
 * Every failure leaves one line in rsaaes_error() (what the server sent
 * wrong, never a secret); secrets are wiped as soon as they are used.
 *
 * Threads: a session belongs to one thread at a time (the main loop's).
 * The client key is made on the first handshake of the process under a
 * lock. */
#ifndef VNCFB_RSAAES_H
#define VNCFB_RSAAES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define RSAAES_RA2 5
#define RSAAES_RA2NE 6
#define RSAAES_RA2_256 129
#define RSAAES_RA2NE_256 130

/* The subtypes the server asks for (what rsaaes_exchange returns). */
#define RSAAES_USER_PASS 1
#define RSAAES_PASS 2

/* A frame carries at most this many bytes (its length is 16 bits). */
#define RSAAES_FRAME_MAX 65535
/* A frame's header (its length) and its MAC. */
#define RSAAES_HDR 2
#define RSAAES_MAC 16

struct rsaaes_io {
	/* Exactly n bytes: 0, or -1 (the connection ended or failed; the
	 * callback may say why with rsaaes_fail, else the session says
	 * the server closed it). */
	int (*read)(void *ctx, void *buf, size_t n);
	int (*write)(void *ctx, const void *buf, size_t n);
	void *ctx;
};

struct rsaaes;

/* Whether type is one of the four. */
bool rsaaes_type_known(uint32_t type);
/* "RA2", "RA2ne", "RA2_256", "RA2ne_256" (NULL for another type). */
const char *rsaaes_type_name(uint32_t type);
/* Whether the type frames everything after the handshake. */
bool rsaaes_type_all_encrypted(uint32_t type);

/* A session of the given type over io (copied). NULL: out of memory. */
struct rsaaes *rsaaes_create(uint32_t type, const struct rsaaes_io *io);
/* Wipes every key and buffer. NULL is a no-op. */
void rsaaes_destroy(struct rsaaes *s);

/* Step 1: the server's public key, checked; fp receives the SHA-256 of
 * the message as it came (its 4-byte length in bits, modulus, exponent),
 * what the trust store knows the server by. 0 or -1 (rsaaes_error). */
int rsaaes_read_key(struct rsaaes *s, uint8_t fp[32]);
/* Step 2: the client's key and random out, the server's random in, the
 * session keys, the hashes of both keys checked, the subtype read.
 * Returns RSAAES_USER_PASS or RSAAES_PASS, or -1 (rsaaes_error). */
int rsaaes_exchange(struct rsaaes *s);
/* Step 3: the credentials, framed (user is ignored for RSAAES_PASS; NULL
 * is empty). Each at most 255 bytes. 0 or -1 (rsaaes_error). The caller
 * wipes its copies; the session wipes its own. */
int rsaaes_send_credentials(struct rsaaes *s, const char *user,
			    const char *pass);

/* After step 3 (and for the all-encrypted types, until the end): between
 * 1 and n bytes of the server's stream, read a frame at a time as
 * needed; -1 on failure (rsaaes_error), 0 only for n == 0. */
ssize_t rsaaes_recv(struct rsaaes *s, void *buf, size_t n);
/* n bytes to the server in frames of at most 8 KiB (as TigerVNC writes
 * them). 0 or -1 (rsaaes_error). */
int rsaaes_send(struct rsaaes *s, const void *buf, size_t n);
/* Bytes of the server's stream decrypted and not yet taken. */
size_t rsaaes_pending(const struct rsaaes *s);

/* Why the last call failed: one line without the peer's name, "" if
 * none did. */
const char *rsaaes_error(const struct rsaaes *s);
/* For the transport's callbacks: the reason the next failure reports
 * (printf-style), when they know better than "closed the connection". */
__attribute__((format(printf, 2, 3)))
void rsaaes_fail(struct rsaaes *s, const char *fmt, ...);

/* Overwrite n bytes at p, in a way the compiler keeps. */
void rsaaes_wipe(void *p, size_t n);

#endif
