/* Security types, TLS and credentials: which types vncfb offers under
 * --ca and --insecure, a type it did not offer refused before
 * libvncclient acts on it, the CA file for X509, the password asked for
 * only on a channel the policy allows. Part of the libvncclient wrapper
 * (vnc_priv.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "util/clock.h"
#include "net/guard.h"
#include "util/log.h"
#include "net/tlsguard.h"
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

/* The security types we accept, in preference order. With --ca only
 * VeNCrypt (the server must prove itself); by default the classic types
 * first, VeNCrypt when the server insists; --insecure prefers any
 * encryption, anonymous included. */
static void set_security(struct vnc_client *vc)
{
	static const uint32_t verified[] = { rfbVeNCrypt, rfbTLS };
	static const uint32_t normal[] = { rfbVncAuth, rfbNoAuth, rfbVeNCrypt };
	static const uint32_t insecure[] = { rfbVeNCrypt, rfbTLS, rfbVncAuth,
					     rfbNoAuth };

	if (vc->cfg.ca_file) {
		vc->schemes = verified;
		vc->nschemes = vc->cfg.insecure ? 2 : 1;
	} else if (vc->cfg.insecure) {
		vc->schemes = insecure;
		vc->nschemes = 4;
	} else {
		vc->schemes = normal;
		vc->nschemes = 3;
	}
	SetClientAuthSchemes(vc->cl, vc->schemes, vc->nschemes);
}

static const char *scheme_name(uint32_t scheme)
{
	switch (scheme) {
	case rfbTLS:
		return "TLS";
	case rfbVeNCrypt:
		return "VeNCrypt";
	case rfbSASL:
		return "SASL";
	case rfbARD:
		return "Apple Remote Desktop";
	case rfbMSLogon:
		return "UltraVNC MS-Logon";
	case rfbUltraMSLogonII:
		return "UltraVNC MS-Logon II";
	}
	return "unknown";
}

/* A security type the server chose that vncfb did not offer ends the
 * handshake before libvncclient acts on it: what it has buffered is
 * dropped and the socket shut, and the descriptor then reads as empty,
 * so its next read fails. (Bytes the kernel already queued stay readable
 * after shutdown(): a server that sent its key at once still got it to
 * libgcrypt, found by fuzzing.) */
void vnc_refuse_scheme(struct vnc_client *vc, uint32_t scheme)
{
	int i, nul;

	if (scheme == rfbConnFailed)
		return;
	for (i = 0; i < vc->nschemes; i++)
		if (vc->schemes[i] == scheme)
			return;
	snprintf(vc->refused_buf, sizeof(vc->refused_buf),
		 "dictates security type %u (%s), which vncfb did not offer",
		 scheme, scheme_name(scheme));
	vc->tls_refused = vc->refused_buf;
	vc->cl->buffered = 0;
	shutdown(vc->cl->sock, SHUT_RDWR);
	nul = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (nul >= 0) {
		dup2(nul, vc->cl->sock);
		close(nul);
	}
}

/* What the negotiated security type is not allowed to be; NULL if fine.
 * Checked before a password goes out and after the handshake. */
static const char *security_refusal(struct vnc_client *vc)
{
	rfbClient *cl = vc->cl;

	if (tls_anonymous(cl) && !vc->cfg.insecure)
		return "offers only anonymous TLS, which cannot prove the "
		       "server's identity (give its CA with --ca, or accept "
		       "the risk with --insecure)";
	if (vc->cfg.ca_file && !tls_verified(cl) &&
	    !(tls_anonymous(cl) && vc->cfg.insecure))
		return "does not offer X509 TLS (VeNCrypt), which --ca "
		       "requires";
	return NULL;
}

static rfbCredential *cb_credential(rfbClient *cl, int type)
{
	struct vnc_client *vc = vnc_from_cl(cl);
	const char *ca = vc->cfg.ca_file ? vc->cfg.ca_file : SYSTEM_CA_FILE;
	rfbCredential *cred;

	if (type != rfbCredentialTypeX509) {
		vc->tls_refused = "asks for a user name and password "
				  "(VeNCrypt Plain), which vncfb does not "
				  "support";
		return NULL;
	}
	if (access(ca, R_OK) < 0) {
		if (vc->cfg.insecure && !vc->cfg.ca_file) {
			/* Nothing to verify against, and nothing has to be:
			 * the check finds no issuer, and says so. */
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
	char *pw = NULL;

	/* Never send a password where the policy forbids the channel. */
	vc->tls_refused = security_refusal(vc);
	if (vc->tls_refused)
		return NULL;

	vc->asked_password = true;
	if (vc->cfg.get_password) {
		/* The handshake's clock stops while someone types. */
		uint64_t t0 = monotonic_ns();

		guard_arm(vc->guard, 0);
		pw = vc->cfg.get_password(vc->cfg.password_ctx);
		vc->handshake_end += monotonic_ns() - t0;
		guard_arm(vc->guard, vc->handshake_end);
	}
	if (!pw) {
		/* libvncclient logs its own words after this; remember. */
		vc->no_password = true;
		return NULL;
	}
	return pw;
}

void vnc_security_setup(struct vnc_client *vc)
{
	vc->cl->GetPassword = cb_password;
	vc->cl->GetCredential = cb_credential;
	set_security(vc);
}

int vnc_security_check(struct vnc_client *vc)
{
	rfbClient *cl = vc->cl;

	vc->tls_refused = security_refusal(vc);
	if (vc->tls_refused)
		return -1;
	if (tls_anonymous(cl))
		log_warn("%s: TLS without certificate verification "
			 "(--insecure): anyone on the way can pose as the "
			 "server",
			 vc->peer);
	else if (tls_verified(cl) && !tlsguard_unverified(&vc->tls))
		log_debug("%s: TLS, certificate verified", vc->peer);
	return 0;
}

bool vnc_encrypted(const struct vnc_client *vc)
{
	return tls_anonymous(vc->cl) || tls_verified(vc->cl);
}
