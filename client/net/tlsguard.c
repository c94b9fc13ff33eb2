/* libvncclient's GnuTLS leftovers and certificate policy (tlsguard.h). */
#include "config.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gnutls/gnutls.h>
#include <gnutls/x509.h>

#include "util/log.h"
#include "net/tlsguard.h"

enum kind { CERT_CRED, ANON_CRED, X509_CRT };

/* The GnuTLS functions behind the ones defined here. */
static struct {
	int (*cert_alloc)(gnutls_certificate_credentials_t *);
	void (*cert_free)(gnutls_certificate_credentials_t);
	int (*anon_alloc)(gnutls_anon_client_credentials_t *);
	void (*anon_free)(gnutls_anon_client_credentials_t);
	int (*crt_init)(gnutls_x509_crt_t *);
	void (*crt_deinit)(gnutls_x509_crt_t);
	void (*set_verify)(gnutls_certificate_credentials_t,
			   gnutls_certificate_verify_function *);
	void *gnutls_base;	/* where libgnutls is loaded */
} real;
static pthread_once_t real_once = PTHREAD_ONCE_INIT;

/* This thread's guards, and the armed one. */
static _Thread_local struct tlsguard *live;
static _Thread_local struct tlsguard *armed;

void *tlsguard_next_sym(const char *name)
{
	void *p = dlsym(RTLD_NEXT, name);

	if (!p) {
		/* Only GnuTLS's own users call these, so it is loaded. */
		fprintf(stderr, "vncfb: dlsym %s: %s\n", name, dlerror());
		abort();
	}
	return p;
}

static void resolve(void)
{
	Dl_info di;

	real.cert_alloc =
		tlsguard_next_sym("gnutls_certificate_allocate_credentials");
	real.cert_free =
		tlsguard_next_sym("gnutls_certificate_free_credentials");
	real.anon_alloc =
		tlsguard_next_sym("gnutls_anon_allocate_client_credentials");
	real.anon_free =
		tlsguard_next_sym("gnutls_anon_free_client_credentials");
	real.crt_init = tlsguard_next_sym("gnutls_x509_crt_init");
	real.crt_deinit = tlsguard_next_sym("gnutls_x509_crt_deinit");
	real.set_verify =
		tlsguard_next_sym("gnutls_certificate_set_verify_function");
	if (dladdr((void *)real.cert_alloc, &di))
		real.gnutls_base = di.dli_fbase;
}

static void need_real(void)
{
	pthread_once(&real_once, resolve);
}

/* The armed guard when the call came from outside GnuTLS on this thread:
 * then libvncclient made it (nothing else runs here during its
 * handshake); GnuTLS's calls to itself are its own business. */
static struct tlsguard *caller_guard(void *ret_addr)
{
	Dl_info di;

	if (!armed)
		return NULL;
	if (dladdr(ret_addr, &di) && di.dli_fbase == real.gnutls_base)
		return NULL;
	return armed;
}

static void record(struct tlsguard *g, enum kind kind, void *obj)
{
	if (!g || !obj)
		return;
	if (g->n == TLSGUARD_MAX) {
		log_debug("tlsguard: record full, %p not tracked", obj);
		return;
	}
	g->obj[g->n] = obj;
	g->kind[g->n] = (unsigned char)kind;
	g->n++;
}

/* obj is being freed by whoever holds it: it is no longer a leftover. */
static void forget(void *obj)
{
	struct tlsguard *g;
	int i;

	for (g = live; g; g = g->next)
		for (i = 0; i < g->n; i++)
			if (g->obj[i] == obj) {
				g->obj[i] = g->obj[--g->n];
				g->kind[i] = g->kind[g->n];
				return;
			}
}

int gnutls_certificate_allocate_credentials(
	gnutls_certificate_credentials_t *res)
{
	struct tlsguard *g;
	int ret;

	need_real();
	g = caller_guard(__builtin_return_address(0));
	ret = real.cert_alloc(res);
	if (ret >= 0)
		record(g, CERT_CRED, *res);
	return ret;
}

void gnutls_certificate_free_credentials(gnutls_certificate_credentials_t sc)
{
	need_real();
	forget(sc);
	real.cert_free(sc);
}

int gnutls_anon_allocate_client_credentials(
	gnutls_anon_client_credentials_t *sc)
{
	struct tlsguard *g;
	int ret;

	need_real();
	g = caller_guard(__builtin_return_address(0));
	ret = real.anon_alloc(sc);
	if (ret >= 0)
		record(g, ANON_CRED, *sc);
	return ret;
}

void gnutls_anon_free_client_credentials(gnutls_anon_client_credentials_t sc)
{
	need_real();
	forget(sc);
	real.anon_free(sc);
}

int gnutls_x509_crt_init(gnutls_x509_crt_t *cert)
{
	struct tlsguard *g;
	int ret;

	need_real();
	g = caller_guard(__builtin_return_address(0));
	ret = real.crt_init(cert);
	if (ret >= 0)
		record(g, X509_CRT, *cert);
	return ret;
}

void gnutls_x509_crt_deinit(gnutls_x509_crt_t cert)
{
	need_real();
	if (live)
		forget(cert);
	real.crt_deinit(cert);
}

/* The SHA-256 of the certificate the server sent: 0, or -1 (logged). */
static int peer_fingerprint(const struct tlsguard *g,
			    gnutls_session_t session, unsigned char fp[32])
{
	const gnutls_datum_t *certs;
	unsigned int ncerts = 0;
	size_t fplen = 32;

	certs = gnutls_certificate_get_peers(session, &ncerts);
	if (!certs || ncerts == 0) {
		log_error("%s sent no TLS certificate", g->peer);
		return -1;
	}
	if (gnutls_fingerprint(GNUTLS_DIG_SHA256, &certs[0], fp, &fplen) < 0 ||
	    fplen != 32) {
		log_error("%s: cannot hash its TLS certificate", g->peer);
		return -1;
	}
	return 0;
}

/* --insecure's check: run GnuTLS's verification for the message, and
 * accept whatever it says. */
static int accept_unverified(gnutls_session_t session)
{
	struct tlsguard *g = armed;
	unsigned int status = 0;
	unsigned char fp[32];
	char hex[2 * sizeof(fp) + 1], why[256];
	gnutls_datum_t text = { NULL, 0 };
	size_t i, n;
	int ret;

	if (!g || peer_fingerprint(g, session, fp) < 0)
		return GNUTLS_E_CERTIFICATE_ERROR;
	ret = gnutls_certificate_verify_peers3(session, g->host, &status);
	if (ret == 0 && status == 0) {
		log_debug("%s: TLS certificate verified", g->peer);
		return 0;
	}
	if (ret < 0)
		snprintf(why, sizeof(why), "%s", gnutls_strerror(ret));
	else if (gnutls_certificate_verification_status_print(
			 status, GNUTLS_CRT_X509, &text, 0) == 0 &&
		 text.data)
		snprintf(why, sizeof(why), "%s", (const char *)text.data);
	else
		snprintf(why, sizeof(why), "status %#x", status);
	gnutls_free(text.data);
	n = strlen(why);
	while (n > 0 && (why[n - 1] == ' ' || why[n - 1] == '.'))
		why[--n] = '\0';
	for (i = 0; i < sizeof(fp); i++)
		snprintf(hex + 2 * i, 3, "%02x", fp[i]);
	g->unverified = true;
	log_warn("%s: TLS certificate accepted without verification "
		 "(--insecure): %s; SHA-256 %s",
		 g->peer, why, hex);
	return 0;
}

/* The trust store's check (tlsguard_set_trust): what GnuTLS makes of the
 * certificate, and its fingerprint, decide through g->check. */
static int trust_verify(gnutls_session_t session)
{
	struct tlsguard *g = armed;
	unsigned int status = 0;
	unsigned char fp[32];
	int ret;

	if (!g || !g->check)
		return GNUTLS_E_CERTIFICATE_ERROR;
	if (peer_fingerprint(g, session, fp) < 0)
		return GNUTLS_E_CERTIFICATE_ERROR;
	ret = gnutls_certificate_verify_peers3(session, g->host, &status);
	return g->check(g->check_ctx, fp, ret == 0 && status == 0) == 0
		       ? 0
		       : GNUTLS_E_CERTIFICATE_ERROR;
}

void gnutls_certificate_set_verify_function(
	gnutls_certificate_credentials_t cred,
	gnutls_certificate_verify_function *func)
{
	struct tlsguard *g;

	need_real();
	g = caller_guard(__builtin_return_address(0));
	if (g && g->skip_verify)
		func = accept_unverified;
	else if (g && g->check)
		func = trust_verify;
	real.set_verify(cred, func);
}

void tlsguard_init(struct tlsguard *g, const char *host, const char *peer,
		   bool skip_verify)
{
	memset(g, 0, sizeof(*g));
	g->host = host;
	g->peer = peer;
	g->skip_verify = skip_verify;
	g->next = live;
	live = g;
}

void tlsguard_set_trust(struct tlsguard *g,
			int (*check)(void *ctx, const unsigned char fp[32],
				     bool ca_ok),
			void *ctx)
{
	g->check = check;
	g->check_ctx = ctx;
}

void tlsguard_arm(struct tlsguard *g)
{
	need_real();
	g->unverified = false;
	g->armed = true;
	armed = g;
}

void tlsguard_disarm(struct tlsguard *g)
{
	g->armed = false;
	if (armed == g)
		armed = NULL;
}

bool tlsguard_unverified(const struct tlsguard *g)
{
	return g->unverified;
}

void tlsguard_finish(struct tlsguard *g)
{
	struct tlsguard **pp;
	int i;

	tlsguard_disarm(g);
	for (pp = &live; *pp; pp = &(*pp)->next)
		if (*pp == g) {
			*pp = g->next;
			break;
		}
	g->next = NULL;
	/* Credentials after the session that used them (gone with the
	 * client); GnuTLS's own objects were never recorded. */
	for (i = 0; i < g->n; i++) {
		switch ((enum kind)g->kind[i]) {
		case CERT_CRED:
			real.cert_free(g->obj[i]);
			break;
		case ANON_CRED:
			real.anon_free(g->obj[i]);
			break;
		case X509_CRT:
			real.crt_deinit(g->obj[i]);
			break;
		}
	}
	if (g->n)
		log_debug("%s: freed %d TLS object%s libvncclient left behind",
			  g->peer, g->n, g->n == 1 ? "" : "s");
	g->n = 0;
}
