/* Keys and certificates no CA vouches for, checked the way OpenSSH checks
 * host keys (known_hosts, with its accept-new on first contact when
 * nobody can be asked).
 *
 * The store is a text file, $XDG_CONFIG_HOME/vncfb/known_hosts (default
 * ~/.config/vncfb/known_hosts), one line per host and port:
 *
 *     HOST:PORT SHA256:<64 lower-case hex digits>
 *
 * (an IPv6 host in brackets, "[::1]:5900"). Lines starting with '#' and
 * blank lines are kept as they are. A fingerprint is the SHA-256 of what
 * identifies the server: the DER certificate for TLS, the key bytes of
 * RSA-AES's ServerPublicKey. It is shown as "SHA256:" and 64 lower-case
 * hex digits.
 *
 * Threads: main thread only (it may ask on the terminal and writes the
 * store); the functions keep no state between calls. */
#ifndef VNCFB_TRUST_H
#define VNCFB_TRUST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TRUST_FP_LEN 32
/* "SHA256:" + 64 hex digits + NUL */
#define TRUST_FP_TEXT 72

/* Filled from the configuration (vnc_config.trust). */
struct trust_opts {
	/* The store's path (--known-hosts); NULL: the default above. */
	const char *store;
	/* --fingerprint SHA256:HEX: accept this key and nothing else (the
	 * store is neither read nor written). NULL: none. */
	const char *pin;
	/* --insecure: accept anything, with a warning naming the
	 * fingerprint; the store is not written. */
	bool insecure;
	/* A terminal may be asked on first contact (else: accept-new). */
	bool ask;
};

/* fp: SHA-256 of what identifies the server (the DER certificate for
 * TLS; the RA2 ServerPublicKey's key bytes for RSA-AES); what names it in
 * messages ("RSA key", "certificate").
 * 0: accepted (known, pinned, newly recorded with a warning line, or the
 *    user said yes on the terminal, or --insecure);
 * -EPERM: refused (one line already logged naming host, both
 *    fingerprints, the store's file and line); the connection must end
 *    with a non-zero exit and NO reconnect (VNC_ERR_TRUST);
 * other -errno: the store could not be read/written (logged). */
int trust_check(const struct trust_opts *o, const char *host, int port,
		const char *what, const uint8_t fp[TRUST_FP_LEN]);

/* "SHA256:hex" into out (TRUST_FP_TEXT bytes). */
void trust_format(const uint8_t fp[TRUST_FP_LEN], char out[TRUST_FP_TEXT]);
/* Parse "SHA256:hex" (64 hex digits, either case). 0 or -EINVAL. */
int trust_parse(const char *text, uint8_t fp[TRUST_FP_LEN]);

/* The store's path for o into buf (len bytes). 0, or -ENAMETOOLONG /
 * -ENOENT (no $HOME nor $XDG_CONFIG_HOME). */
int trust_store_path(const struct trust_opts *o, char *buf, size_t len);
/* Open the store (made if need be) before a privilege drop, so that the
 * user vncfb becomes can still read and extend it; trust_check then
 * uses it for that path. Nothing with a pin or --insecure. 0 or -errno
 * (logged). */
int trust_open(const struct trust_opts *o);
/* --check-config: the store's path and its entries, on stdout. 0 or
 * -errno (a store that does not exist yet is not an error). */
int trust_show(const struct trust_opts *o);

#endif
