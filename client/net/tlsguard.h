/* libvncclient's GnuTLS layer, contained: what it allocates for a
 * connection and never frees is freed when the connection is gone, and
 * --insecure's "no certificate verification" is made true for X509.
 *
 * libvncclient (0.9.14, and 0.9.15 the same) allocates GnuTLS
 * certificate credentials for every X509 handshake (about 3.5 MB with the
 * system's CA bundle) and anonymous credentials for every anonymous one,
 * and frees neither; its certificate check leaks a certificate object on
 * a name mismatch; and it always verifies an X509 certificate, whatever
 * the application wants. vnc.c cannot reach those objects through the
 * library's API, so this module stands between libvncclient and GnuTLS:
 * it defines the few GnuTLS functions involved, which the dynamic linker
 * then binds libvncclient's calls to (an executable's definitions come
 * first), records what libvncclient itself allocated while a guard is
 * armed, forwards to GnuTLS, and frees the leftovers once the library has
 * torn its client down. Objects GnuTLS allocates for itself are never
 * recorded, and anything the library frees drops out of the record, so a
 * libvncclient that stops leaking makes this a no-op.
 *
 * Threads: a guard belongs to the thread that owns libvncclient (the main
 * loop) and acts only on calls made on that thread; the GnuTLS functions
 * defined here may be called from any thread and pass straight through
 * elsewhere (a test's in-process TLS server, for one). */
#ifndef VNCFB_TLSGUARD_H
#define VNCFB_TLSGUARD_H

#include <stdbool.h>

#define TLSGUARD_MAX 8

struct tlsguard {
	/* Private to tlsguard.c. */
	void *obj[TLSGUARD_MAX];
	unsigned char kind[TLSGUARD_MAX];
	int n;
	bool armed;
	bool skip_verify;
	bool unverified;	/* a certificate was accepted unchecked */
	const char *host;	/* the name the certificate should carry */
	const char *peer;	/* "host:port" for messages */
	/* tlsguard_set_trust */
	int (*check)(void *ctx, const unsigned char fp[32], bool ca_ok);
	void *check_ctx;
	struct tlsguard *next;	/* this thread's live guards */
};

/* Start guarding a libvncclient client: g records from here until
 * tlsguard_finish. Arm it around each libvncclient call that may set up
 * TLS (the handshake). skip_verify: accept any X509 certificate (the
 * check still runs, and what it found is warned about); otherwise
 * libvncclient verifies as it always does. host and peer must outlive g. */
void tlsguard_init(struct tlsguard *g, const char *host, const char *peer,
		   bool skip_verify);
void tlsguard_arm(struct tlsguard *g);
void tlsguard_disarm(struct tlsguard *g);
/* Decide about every X509 certificate (unless skip_verify): check gets
 * its SHA-256 fingerprint and whether GnuTLS verified it against the CA
 * file libvncclient loaded and the host name; 0 accepts it, anything
 * else ends the handshake. Without it libvncclient verifies. */
void tlsguard_set_trust(struct tlsguard *g,
			int (*check)(void *ctx, const unsigned char fp[32],
				     bool ca_ok),
			void *ctx);
/* Whether the last handshake accepted a certificate without (or despite)
 * verification. */
bool tlsguard_unverified(const struct tlsguard *g);
/* libvncclient's client is gone (rfbClientCleanup returned, so its TLS
 * session is too): free what it left behind. Idempotent. */
void tlsguard_finish(struct tlsguard *g);

/* GnuTLS's own definition of name, which a definition of vncfb's stands
 * in front of (here and in vnc_rsaaes.c); aborts if there is none. */
void *tlsguard_next_sym(const char *name);

#endif
