/* The security types vncfb knows, by TigerVNC's SecurityTypes names:
 * which ones it offers, in which order, and the words for what a server
 * offers. Pure tables and parsing, no connection: unit-tested.
 *
 * Threads: any; nothing here has state. */
#ifndef VNCFB_SECTYPE_H
#define VNCFB_SECTYPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* RFB security type numbers libvncclient has no name for. */
#define SEC_RA2 5
#define SEC_RA2NE 6
#define SEC_VENCRYPT 19
#define SEC_DH 30
#define SEC_MSLOGON2 113
#define SEC_RA2_256 129
#define SEC_RA2NE_256 130

enum sec_flag {
	SEC_X509 = 1 << 0,	/* TLS with a certificate (CA or known_hosts) */
	SEC_ANON = 1 << 1,	/* anonymous TLS: encrypted, nobody proven */
	SEC_USER = 1 << 2,	/* asks for a user name and a password */
	SEC_PASSWORD = 1 << 3,	/* asks for a password */
	SEC_CLEAR = 1 << 4,	/* the password goes in the clear */
	SEC_RSA = 1 << 5,	/* RSA-AES (the server's key in known_hosts) */
	SEC_ENCRYPTED = 1 << 6,	/* the session is encrypted */
};

struct sectype {
	const char *name;	/* TigerVNC's name */
	uint32_t top;		/* the type in the server's first list */
	uint32_t sub;		/* VeNCrypt's subtype, 0 for none */
	unsigned flags;
};

#define SECTYPE_MAX 24

/* Every type vncfb knows, in its default order: encrypted and
 * authenticated first, as TigerVNC's viewer orders them. */
const struct sectype *sectype_all(size_t *n);
/* By name, case-insensitive; NULL if none. */
const struct sectype *sectype_by_name(const char *name);

/* A --security list ("X509Plain,VncAuth", commas or spaces): 0 with
 * out[0..*n) in the list's order, or -EINVAL with *bad the first name
 * vncfb does not know (static storage) or "" for an empty list. */
int sectype_parse(const char *list, const struct sectype *out[SECTYPE_MAX],
		  size_t *n, const char **bad);

/* What vncfb offers, in order: the --security list (NULL: the default
 * order), less what the policy forbids: with ca, X509 only (and
 * anonymous TLS under insecure); anonymous TLS only under insecure or
 * when list names it; a password in the clear only when list names it;
 * RSA-AES only when have_rsa. Returns the count. */
size_t sectype_policy(const char *list, bool ca, bool insecure,
		      bool have_rsa, const struct sectype *out[SECTYPE_MAX]);

/* The policy's second line, on what was negotiated whatever was
 * offered (libvncclient chooses some types itself): NULL if it may go
 * on, else why not, in words. got: SEC_ANON, SEC_X509 and SEC_CLEAR of
 * the negotiated type; ca, insecure: the options; anon_named: --security
 * named the anonymous type chosen; clear_named: the chosen type is
 * Plain (offered only when --security names it). */
const char *sectype_refusal(unsigned got, bool ca, bool insecure,
			    bool anon_named, bool clear_named);

/* The name of a type a server offers in its first list ("VeNCrypt",
 * "RA2", "Apple ARD", ...) or of a VeNCrypt subtype; NULL if unknown. */
const char *sectype_top_name(uint32_t top);
const char *sectype_sub_name(uint32_t sub);
/* "VeNCrypt (19), RA2 (5)" into buf: types as a server listed them
 * (sub: VeNCrypt subtypes). */
void sectype_describe(char *buf, size_t len, const uint32_t *types,
		      size_t n, bool sub);

#endif
