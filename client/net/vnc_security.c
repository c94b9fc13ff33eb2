/* Security types, TLS and credentials: which type vncfb chooses from
 * what the server offers (sectype.h's order, --security, --ca and
 * --insecure), a type it did not offer refused before libvncclient acts
 * on it, the CA file for X509 and the known-hosts check of a certificate
 * no CA vouches for, the user name and password asked for only on a
 * channel the policy allows. Part of the libvncclient wrapper
 * (vnc_priv.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "util/clock.h"
#include "net/guard.h"
#include "util/log.h"
#include "net/passwd.h"
#include "net/rsaaes.h"
#include "net/tlsguard.h"
#include "net/trust.h"
#include "net/vnc_priv.h"

/* Fuzz builds point this at a one-certificate file: the system bundle
 * takes tens of milliseconds to load, for each X509 handshake. */
#ifndef SYSTEM_CA_FILE
#define SYSTEM_CA_FILE "/etc/ssl/certs/ca-certificates.crt"
#endif

static bool tls_anonymous(const rfbClient *cl)
{
	if (cl->authScheme == rfbTLS)
		return true;
	return cl->authScheme == rfbVeNCrypt &&
	       (cl->subAuthScheme == rfbVeNCryptTLSNone ||
		cl->subAuthScheme == rfbVeNCryptTLSVNC ||
		cl->subAuthScheme == rfbVeNCryptTLSPlain ||
		cl->subAuthScheme == rfbVeNCryptTLSSASL);
}

static bool tls_verified(const rfbClient *cl)
{
	return cl->authScheme == rfbVeNCrypt &&
	       (cl->subAuthScheme == rfbVeNCryptX509None ||
		cl->subAuthScheme == rfbVeNCryptX509VNC ||
		cl->subAuthScheme == rfbVeNCryptX509Plain ||
		cl->subAuthScheme == rfbVeNCryptX509SASL);
}

/* RSA-AES (vnc_rsaaes.c): its types registered with libvncclient. */
static bool have_rsa(void)
{
	vnc_rsaaes_register();
	return true;
}

/* What vncfb offers: sectype_policy's list, and its first-list types
 * for libvncclient (and for vnc_refuse_scheme, should an RFB 3.3 server
 * dictate one). */
static void set_security(struct vnc_client *vc)
{
	size_t i, j;

	vc->nallowed =
	    sectype_policy(vc->cfg.security, vc->cfg.ca_file, vc->cfg.insecure,
			   have_rsa(), vc->allowed);
	vc->nschemes = 0;
	for (i = 0; i < vc->nallowed; i++) {
		uint32_t t = vc->allowed[i]->top;

		for (j = 0; j < (size_t)vc->nschemes; j++)
			if (vc->tops[j] == t)
				break;
		if (j == (size_t)vc->nschemes)
			vc->tops[vc->nschemes++] = t;
	}
	/* VeNCrypt's subtypes 1 and 2 are None and VncAuth. */
	vc->schemes = vc->tops;
	SetClientAuthSchemes(vc->cl, vc->schemes, vc->nschemes);
}

/* n bytes of what the server sent next, without taking them: read into
 * libvncclient's buffer, where its reads find them. Only before TLS (the
 * security type lists and Diffie-Hellman parameters). NULL if the
 * connection ended first (libvncclient's next read says so). */
static const uint8_t *peek(struct vnc_client *vc, size_t n)
{
	rfbClient *cl = vc->cl;
	size_t off = (size_t)(cl->bufoutptr - cl->buf);
	ssize_t k;

	if (cl->tlsSession || n > RFB_BUF_SIZE)
		return NULL;
	if (cl->buffered >= n)
		return (const uint8_t *)cl->bufoutptr;
	if (off + n > RFB_BUF_SIZE) {
		memmove(cl->buf, cl->bufoutptr, cl->buffered);
		cl->bufoutptr = cl->buf;
	}
	while (cl->buffered < n) {
		/* The watchdog shuts the socket at the handshake's
		 * deadline, which ends this wait. */
		k = read(cl->sock, cl->bufoutptr + cl->buffered,
			 n - cl->buffered);
		if (k > 0) {
			cl->buffered += (unsigned)k;
			continue;
		}
		if (k < 0 && (errno == EAGAIN || errno == EINTR)) {
			struct pollfd p = {cl->sock, POLLIN, 0};

			poll(&p, 1, 1000);
			continue;
		}
		return NULL;
	}
	return (const uint8_t *)cl->bufoutptr;
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static const struct sectype *pick(struct vnc_client *vc, const uint32_t *t,
				  size_t n, bool sub)
{
	size_t i, j;

	for (i = 0; i < vc->nallowed; i++) {
		const struct sectype *s = vc->allowed[i];

		for (j = 0; j < n; j++) {
			if (!sub && s->top == t[j])
				return s;
			/* VeNCrypt's None and VncAuth are the classic
			 * types'. */
			if (sub &&
			    ((s->top == SEC_VENCRYPT && s->sub == t[j]) ||
			     (s->top == 1 && t[j] == 1) ||
			     (s->top == 2 && t[j] == 2)))
				return s;
		}
	}
	return NULL;
}

/* Why none of what the server offers is allowed, when a word helps. */
static const char *none_hint(struct vnc_client *vc, const uint32_t *t, size_t n,
			     bool sub)
{
	size_t i, k;
	const struct sectype *all = sectype_all(&k);
	bool anon = false, clear = false;

	for (i = 0; i < n; i++) {
		size_t j;

		for (j = 0; j < k; j++) {
			bool same = sub ? all[j].top == SEC_VENCRYPT &&
					      all[j].sub == t[i]
					: all[j].top == t[i] && !all[j].sub;

			if (!same)
				continue;
			anon |= (all[j].flags & SEC_ANON) != 0;
			clear |= (all[j].flags & SEC_CLEAR) != 0;
		}
	}
	if (vc->cfg.ca_file)
		return "; --ca requires X509 TLS (VeNCrypt)";
	if (vc->cfg.security)
		return "; --security allows only what it names";
	if (anon)
		return "; anonymous TLS cannot prove the server's identity "
		       "(accept the risk with --insecure)";
	if (clear)
		return "; Plain sends the password unencrypted (allow it "
		       "with --security Plain)";
	return "";
}

void vnc_security_list(struct vnc_client *vc, unsigned count)
{
	bool sub = vc->lists_seen++ > 0;
	size_t w = sub ? 4 : 1, i;
	uint32_t t[255];
	const struct sectype *s;
	const uint8_t *p;
	char offered[300];

	/* The second list is VeNCrypt's (4-byte subtypes); anonymous TLS's
	 * comes encrypted and libvncclient reads it its own way. */
	if (sub && vc->cl->authScheme == rfbTLS)
		return;
	if (sub && !(vc->chosen && vc->chosen->top == SEC_VENCRYPT))
		return;
	if (count == 0 || count > 255)
		return;
	p = peek(vc, count * w);
	if (!p)
		return;
	for (i = 0; i < count; i++)
		t[i] = sub ? be32(p + 4 * i) : p[i];
	sectype_describe(offered, sizeof(offered), t, count, sub);
	s = pick(vc, t, count, sub);
	if (!s) {
		snprintf(vc->refused_buf, sizeof(vc->refused_buf),
			 "offers none of the security types vncfb accepts (it "
			 "offers %s%s)%s",
			 sub ? "VeNCrypt with " : "", offered,
			 none_hint(vc, t, count, sub));
		vc->tls_refused = vc->refused_buf;
	} else if (!sub) {
		log_debug("%s offers %s; vncfb chooses %s (the first of "
			  "its list that the server offers)",
			  vc->peer, offered,
			  s->top == SEC_VENCRYPT ? "VeNCrypt" : s->name);
	} else {
		log_debug("%s offers VeNCrypt with %s; vncfb chooses %s "
			  "(the first of its list that the server offers)",
			  vc->peer, offered, s->name);
	}
	vc->chosen = s;
	if (!sub) {
		/* libvncclient takes the server's first type it knows;
		 * left with one, it takes vncfb's choice (or none). */
		uint32_t one = s ? s->top : 0;

		SetClientAuthSchemes(vc->cl, &one, s ? 1 : 0);
		if (!s)
			vc->nschemes = 0;
		return;
	}
	/* VeNCrypt's subtype: libvncclient takes the server's first
	 * encrypted one, whatever the client wants, so every other entry
	 * is made one it does not know (0) in its buffer. */
	for (i = 0; i < count; i++) {
		uint32_t want = s ? (s->top == SEC_VENCRYPT ? s->sub : s->top)
				  : 0xffffffffu;

		if (t[i] != want)
			memset(vc->cl->bufoutptr + 4 * i, 0, 4);
	}
}

/* The server's Diffie-Hellman parameters, checked before libvncclient
 * hands them to libgcrypt, which abort()s on a zero modulus (found by
 * the fuzzer). Apple's: generator and key length (2 bytes each), then
 * the prime; UltraVNC's MS-Logon II: generator, modulus, key, 8 bytes
 * each. false: refused (vc->tls_refused says why). */
static bool dh_params_ok(struct vnc_client *vc, uint32_t scheme)
{
	const uint8_t *p, *mod;
	size_t len, i;
	bool zero = true;

	if (scheme == SEC_DH) {
		p = peek(vc, 4);
		if (!p)
			return true; /* the next read fails */
		len = (size_t)p[2] << 8 | p[3];
		if (len < 16 || len > 1024) {
			snprintf(vc->refused_buf, sizeof(vc->refused_buf),
				 "sent a Diffie-Hellman key of %zu bytes "
				 "(DH, 16-1024 allowed)",
				 len);
			vc->tls_refused = vc->refused_buf;
			return false;
		}
		p = peek(vc, 4 + len);
		if (!p)
			return true;
		mod = p + 4;
	} else {
		p = peek(vc, 24);
		if (!p)
			return true;
		len = 8;
		mod = p + 8;
	}
	for (i = 0; i < len; i++)
		zero &= mod[i] == 0;
	if (zero || !(mod[len - 1] & 1)) {
		snprintf(vc->refused_buf, sizeof(vc->refused_buf),
			 "sent a Diffie-Hellman modulus that is no odd prime "
			 "(%s)",
			 scheme == SEC_DH ? "DH" : "MSLogonII");
		vc->tls_refused = vc->refused_buf;
		return false;
	}
	return true;
}

/* End the handshake before libvncclient reads further: what it has
 * buffered is dropped and the socket shut, and the descriptor then reads
 * as empty, so its next read fails. (Bytes the kernel already queued
 * stay readable after shutdown(): a server that sent its key at once
 * still got it to libgcrypt, found by fuzzing.) */
static void cut(struct vnc_client *vc)
{
	int nul;

	vc->cl->buffered = 0;
	shutdown(vc->cl->sock, SHUT_RDWR);
	nul = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (nul >= 0) {
		dup2(nul, vc->cl->sock);
		close(nul);
	}
}

/* A security type the server chose that vncfb did not offer ends the
 * handshake before libvncclient acts on it; so do Diffie-Hellman
 * parameters libgcrypt cannot take. */
void vnc_refuse_scheme(struct vnc_client *vc, uint32_t scheme)
{
	const char *name = sectype_top_name(scheme);
	int i;

	if (scheme == rfbConnFailed)
		return;
	for (i = 0; i < vc->nschemes; i++)
		if (vc->schemes[i] == scheme) {
			if ((scheme == SEC_DH || scheme == SEC_MSLOGON2) &&
			    !dh_params_ok(vc, scheme))
				cut(vc);
			return;
		}
	snprintf(vc->refused_buf, sizeof(vc->refused_buf),
		 "dictates security type %u (%s), which vncfb did not offer",
		 scheme, name ? name : "unknown");
	vc->tls_refused = vc->refused_buf;
	cut(vc);
}

/* What the negotiated security type is not allowed to be; NULL if fine.
 * Checked before a credential goes out and after the handshake. */
static const char *security_refusal(struct vnc_client *vc)
{
	rfbClient *cl = vc->cl;
	bool plain = cl->authScheme == rfbVeNCrypt &&
		     cl->subAuthScheme == rfbVeNCryptPlain;
	unsigned f = (tls_anonymous(cl) ? SEC_ANON : 0) |
		     (tls_verified(cl) ? SEC_X509 : 0) |
		     (plain ? SEC_CLEAR : 0);

	return sectype_refusal(
		f, vc->cfg.ca_file != NULL, vc->cfg.insecure,
		vc->cfg.security && vc->chosen &&
			(vc->chosen->flags & SEC_ANON),
		vc->chosen && vc->chosen->sub == rfbVeNCryptPlain);
}

/* The handshake's clock stops while someone types. */
static char *ask_untimed(struct vnc_client *vc, char *(*fn)(void *), void *ctx)
{
	uint64_t t0 = monotonic_ns();
	char *s;

	guard_arm(vc->guard, 0);
	s = fn(ctx);
	vc->handshake_end += monotonic_ns() - t0;
	guard_arm(vc->guard, vc->handshake_end);
	return s;
}

static char *user_prompt(void *ctx)
{
	return passwd_prompt(ctx, true);
}

int vnc_credentials(struct vnc_client *vc, bool need_user, char **user,
		    char **pass)
{
	const char *env = getenv("VNC_USERNAME");
	char label[400];

	*user = NULL;
	*pass = NULL;
	/* Never send a credential where the policy forbids the channel. */
	vc->tls_refused = security_refusal(vc);
	if (vc->tls_refused)
		return -1;
	vc->asked_password = true;
	if (need_user) {
		if (vc->cfg.username)
			*user = strdup(vc->cfg.username);
		else if (env && *env)
			*user = strdup(env);
		else if (vc->cfg.trust.ask) {
			snprintf(label, sizeof(label),
				 "User name for %s: ", vc->peer);
			*user = ask_untimed(vc, user_prompt, label);
		}
		if (!*user || !**user) {
			vc->no_user = true;
			goto fail;
		}
	}
	if (vc->cfg.get_password)
		*pass =
		    ask_untimed(vc, vc->cfg.get_password, vc->cfg.password_ctx);
	if (!*pass) {
		/* libvncclient logs its own words after this; remember. */
		vc->no_password = true;
		goto fail;
	}
	return 0;
fail:
	vnc_credentials_free(*user, *pass);
	*user = NULL;
	*pass = NULL;
	return -1;
}

void vnc_credentials_free(char *user, char *pass)
{
	passwd_free(user);
	passwd_free(pass);
}

/* A certificate no CA vouched for, or one --fingerprint must match: the
 * known-hosts store decides (tlsguard_set_trust). */
static int check_certificate(void *ctx, const unsigned char fp[32], bool ca_ok)
{
	struct vnc_client *vc = ctx;
	uint64_t t0 = monotonic_ns();
	int ret;

	if (ca_ok && !vc->cfg.trust.pin) {
		log_debug("%s: TLS certificate verified by a CA", vc->peer);
		return 0;
	}
	/* The handshake's clock stops while the question waits. */
	if (vc->cfg.trust.ask)
		guard_arm(vc->guard, 0);
	ret = trust_check(&vc->cfg.trust, vc->cfg.host ? vc->cfg.host : "",
			  vc->cfg.port, "certificate", fp);
	if (vc->cfg.trust.ask) {
		vc->handshake_end += monotonic_ns() - t0;
		guard_arm(vc->guard, vc->handshake_end);
	}
	if (ret == -EPERM)
		vc->logged = VNC_ERR_TRUST;
	else if (ret < 0)
		vc->logged = VNC_ERR_PROTOCOL;
	return ret;
}

static rfbCredential *user_credential(struct vnc_client *vc)
{
	rfbCredential *cred;
	char *user, *pass;

	if (vnc_credentials(vc, true, &user, &pass) < 0)
		return NULL;
	cred = calloc(1, sizeof(*cred));
	if (!cred) {
		vnc_credentials_free(user, pass);
		return NULL;
	}
	/* libvncclient frees both once written (without wiping them: the
	 * copies vncfb made along the way are wiped). */
	cred->userCredential.username = user;
	cred->userCredential.password = pass;
	return cred;
}

static rfbCredential *cb_credential(rfbClient *cl, int type)
{
	struct vnc_client *vc = vnc_from_cl(cl);
	const char *ca = vc->cfg.ca_file ? vc->cfg.ca_file : SYSTEM_CA_FILE;
	rfbCredential *cred;

	if (type == rfbCredentialTypeUser)
		return user_credential(vc);
	if (type != rfbCredentialTypeX509)
		return NULL;
	if (access(ca, R_OK) < 0) {
		if (!vc->cfg.ca_file) {
			/* No system CAs: the known-hosts store decides. */
			ca = "/dev/null";
		} else {
			vnc_failure_note("cannot read CA certificates %s: "
					 "%s (use --ca FILE)",
					 ca, strerror(errno));
			return NULL;
		}
	}
	cred = calloc(1, sizeof(*cred));
	if (!cred)
		return NULL;
	cred->x509Credential.x509CACertFile = strdup(ca);
	cred->x509Credential.x509CrlVerifyMode = rfbX509CrlVerifyNone;
	if (!cred->x509Credential.x509CACertFile) {
		free(cred);
		return NULL;
	}
	return cred;
}

static char *cb_password(rfbClient *cl)
{
	struct vnc_client *vc = vnc_from_cl(cl);
	char *user, *pass;

	if (vnc_credentials(vc, false, &user, &pass) < 0)
		return NULL;
	return pass;
}

void vnc_security_setup(struct vnc_client *vc)
{
	vc->cl->GetPassword = cb_password;
	vc->cl->GetCredential = cb_credential;
	/* --ca alone: libvncclient verifies against it, as before; else
	 * the store (or --fingerprint) decides what no CA vouches for. */
	if (!vc->cfg.ca_file || vc->cfg.trust.pin)
		tlsguard_set_trust(&vc->tls, check_certificate, vc);
	set_security(vc);
}

int vnc_security_check(struct vnc_client *vc)
{
	rfbClient *cl = vc->cl;
	const char *name = vc->chosen ? vc->chosen->name : NULL;

	vc->tls_refused = security_refusal(vc);
	if (vc->tls_refused)
		return -1;
	if (cl->authScheme == rfbVeNCrypt && !name)
		name = sectype_sub_name(cl->subAuthScheme);
	else if (!name)
		name = sectype_top_name(cl->authScheme);
	log_debug("%s: security type %s", vc->peer, name ? name : "unknown");
	if (tls_anonymous(cl))
		log_warn("%s: TLS without certificate verification%s: "
			 "anyone on the way can pose as the server",
			 vc->peer, vc->cfg.insecure ? " (--insecure)" : "");
	else if (tls_verified(cl) && !tlsguard_unverified(&vc->tls))
		log_debug("%s: TLS, certificate checked", vc->peer);
	return 0;
}

bool vnc_encrypted(const struct vnc_client *vc)
{
	return tls_anonymous(vc->cl) || tls_verified(vc->cl) ||
	       rsaaes_type_all_encrypted(vc->cl->authScheme);
}
