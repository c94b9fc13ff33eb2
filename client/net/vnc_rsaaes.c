/* RSA-AES under libvncclient: the four types registered as a
 * libvncclient protocol extension (its handleAuthentication runs the
 * handshake of rsaaes.c over the library's own reads and writes), the
 * server's key put to the trust store, and for RA2 and RA2_256 the framed
 * stream put where libvncclient keeps a TLS session.
 *
 * libvncclient reads and writes a connection with TLS through
 * gnutls_record_recv and gnutls_record_send on cl->tlsSession, from the
 * SecurityResult on: its ServerInit, vncfb's reader (vnc.c's byte
 * source) and every message vncfb writes. So a link of ours stands in
 * cl->tlsSession and this file defines those GnuTLS functions (the
 * dynamic linker binds libvncclient's calls to an executable's
 * definitions first, as tlsguard.c relies on): on a link of ours they
 * read and write AES-EAX frames, on anything else they are GnuTLS's. The
 * reader, the decoders and the pool never know.
 *
 * Part of the libvncclient wrapper (vnc_priv.h). Threads: the handshake
 * runs on the main thread; the GnuTLS functions may be called from any
 * thread and act on our links only for the thread that made them (the
 * main loop's). */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gnutls/gnutls.h>

#include "net/guard.h"
#include "net/rsaaes.h"
#include "net/tlsguard.h"
#include "net/trust.h"
#include "net/vnc_priv.h"
#include "util/clock.h"

/* What the link reads from the socket at a time, once the handshake is
 * over: frames of up to 64 KiB, several a read. */
#define RAW_SIZE (128 * 1024)

struct ra2_link {
	struct vnc_client *vc;
	struct rsaaes *s;
	/* After the handshake (all-encrypted types): the socket's bytes,
	 * read RAW_SIZE at a time; before it, libvncclient's reads. */
	bool direct;
	int fd;
	uint8_t *raw;
	size_t raw_off, raw_len;
	struct ra2_link *next;
};

/* The links standing in for TLS sessions now (one a connection). */
static pthread_mutex_t links_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ra2_link *links;
static atomic_int nlinks;

static struct ra2_link *link_find(void *session)
{
	struct ra2_link *l;

	if (atomic_load_explicit(&nlinks, memory_order_acquire) == 0)
		return NULL;
	pthread_mutex_lock(&links_lock);
	for (l = links; l && (void *)l != session; l = l->next)
		;
	pthread_mutex_unlock(&links_lock);
	return l;
}

static void link_add(struct ra2_link *l)
{
	pthread_mutex_lock(&links_lock);
	l->next = links;
	links = l;
	atomic_fetch_add(&nlinks, 1);
	pthread_mutex_unlock(&links_lock);
}

static void link_free(struct ra2_link *l)
{
	struct ra2_link **p;

	if (!l)
		return;
	pthread_mutex_lock(&links_lock);
	for (p = &links; *p; p = &(*p)->next)
		if (*p == l) {
			*p = l->next;
			atomic_fetch_sub(&nlinks, 1);
			break;
		}
	pthread_mutex_unlock(&links_lock);
	rsaaes_destroy(l->s);
	if (l->raw) {
		rsaaes_wipe(l->raw, RAW_SIZE);
		free(l->raw);
	}
	free(l);
}

/* Wait for the socket; the watchdog's shutdown() ends the wait. */
static int wait_fd(int fd, short events)
{
	struct pollfd p = { .fd = fd, .events = events };

	while (poll(&p, 1, -1) < 0)
		if (errno != EINTR)
			return -1;
	return 0;
}

static int raw_read(void *ctx, void *buf, size_t n)
{
	struct ra2_link *l = ctx;
	uint8_t *p = buf;

	if (!l->direct) {
		/* libvncclient's reader, as the handshake before this. */
		while (n > 0) {
			unsigned k = n > 65536 ? 65536 : (unsigned)n;

			if (!ReadFromRFBServer(l->vc->cl, (char *)p, k))
				return -1;
			p += k;
			n -= k;
		}
		return 0;
	}
	while (n > 0) {
		size_t k;

		if (l->raw_len == 0) {
			ssize_t got = recv(l->fd, l->raw, RAW_SIZE, 0);

			if (got < 0 && (errno == EAGAIN || errno == EINTR ||
					errno == EWOULDBLOCK)) {
				if (wait_fd(l->fd, POLLIN) < 0)
					return -1;
				continue;
			}
			if (got <= 0)
				return -1;
			l->raw_off = 0;
			l->raw_len = (size_t)got;
		}
		k = n < l->raw_len ? n : l->raw_len;
		memcpy(p, l->raw + l->raw_off, k);
		l->raw_off += k;
		l->raw_len -= k;
		p += k;
		n -= k;
	}
	return 0;
}

static int raw_write(void *ctx, const void *buf, size_t n)
{
	struct ra2_link *l = ctx;
	const uint8_t *p = buf;

	if (!l->direct)
		return WriteToRFBServer(l->vc->cl, (const char *)buf,
					(unsigned)n)
			       ? 0
			       : -1;
	while (n > 0) {
		ssize_t k = send(l->fd, p, n, MSG_NOSIGNAL);

		if (k < 0 && (errno == EAGAIN || errno == EINTR ||
			      errno == EWOULDBLOCK)) {
			if (wait_fd(l->fd, POLLOUT) < 0)
				return -1;
			continue;
		}
		if (k <= 0)
			return -1;
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

/* A failure of ours, in the words vnc_failure_classify logs. */
static rfbBool refuse(struct vnc_client *vc, const char *why)
{
	snprintf(vc->refused_buf, sizeof(vc->refused_buf), "%s", why);
	vc->tls_refused = vc->refused_buf;
	return FALSE;
}

/* The server's key against the store; when a terminal may be asked, the
 * handshake's clock stops while someone reads the fingerprint. */
static int check_key(struct vnc_client *vc, const uint8_t fp[32])
{
	uint64_t t0 = monotonic_ns();
	int ret;

	if (vc->cfg.trust.ask)
		guard_arm(vc->guard, 0);
	ret = trust_check(&vc->cfg.trust, vc->cfg.host ? vc->cfg.host : "",
			  vc->cfg.port, "RSA key", fp);
	if (vc->cfg.trust.ask) {
		vc->handshake_end += monotonic_ns() - t0;
		guard_arm(vc->guard, vc->handshake_end);
	}
	return ret;
}

static rfbBool handle_auth(rfbClient *cl, uint32_t type)
{
	struct vnc_client *vc = vnc_from_cl(cl);
	struct rsaaes_io io = { raw_read, raw_write, NULL };
	char *user = NULL, *pass = NULL;
	uint8_t fp[32];
	struct ra2_link *l;
	int sub, ret;

	l = calloc(1, sizeof(*l));
	if (!l)
		return refuse(vc, "out of memory for RSA-AES");
	l->vc = vc;
	l->fd = cl->sock;
	io.ctx = l;
	l->s = rsaaes_create(type, &io);
	if (!l->s) {
		free(l);
		return refuse(vc, "out of memory for RSA-AES");
	}
	log_debug("%s: security type %s (RSA-AES)", vc->peer,
		  rsaaes_type_name(type));
	if (rsaaes_read_key(l->s, fp) < 0)
		goto fail;
	ret = check_key(vc, fp);
	if (ret == -EPERM) {
		vc->logged = VNC_ERR_TRUST;
		goto out;
	}
	if (ret < 0) {
		vc->logged = VNC_ERR_PROTOCOL;
		goto out;
	}
	sub = rsaaes_exchange(l->s);
	if (sub < 0)
		goto fail;
	if (vnc_credentials(vc, sub == RSAAES_USER_PASS, &user, &pass) < 0)
		goto out;
	ret = rsaaes_send_credentials(l->s, user, pass);
	vnc_credentials_free(user, pass);
	if (ret < 0)
		goto fail;
	if (!rsaaes_type_all_encrypted(type)) {
		link_free(l);
		return TRUE;
	}
	/* From the SecurityResult on, everything is framed: what
	 * libvncclient read ahead of the handshake is the first of it. */
	l->raw = malloc(RAW_SIZE);
	if (!l->raw) {
		refuse(vc, "out of memory for RSA-AES");
		goto out;
	}
	if (cl->buffered > RAW_SIZE) {
		refuse(vc, "sent more than RSA-AES can hold at once");
		goto out;
	}
	memcpy(l->raw, cl->bufoutptr, cl->buffered);
	l->raw_len = cl->buffered;
	cl->buffered = 0;
	cl->bufoutptr = cl->buf;
	l->direct = true;
	link_add(l);
	cl->tlsSession = l;
	return TRUE;
fail:
	refuse(vc, rsaaes_error(l->s));
out:
	link_free(l);
	return FALSE;
}

static const uint32_t ra2_types[] = {
	RSAAES_RA2_256, RSAAES_RA2, RSAAES_RA2NE_256, RSAAES_RA2NE, 0
};

static rfbClientProtocolExtension ra2_ext = {
	.securityTypes = ra2_types,
	.handleAuthentication = handle_auth,
};

static void register_ext(void)
{
	rfbClientRegisterExtension(&ra2_ext);
}

void vnc_rsaaes_register(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, register_ext);
}

/* --- GnuTLS's record functions, ours on a link of ours --- */

/* A failure on the link after the handshake: the words for
 * vnc_failure_classify (libvncclient only says "Error reading from
 * TLS"). */
static void link_failed(struct ra2_link *l)
{
	struct vnc_client *vc = l->vc;

	if (!vc->tls_refused) {
		snprintf(vc->refused_buf, sizeof(vc->refused_buf), "%s",
			 rsaaes_error(l->s));
		vc->tls_refused = vc->refused_buf;
	}
}

ssize_t gnutls_record_recv(gnutls_session_t session, void *data,
			   size_t data_size)
{
	static ssize_t (*real)(gnutls_session_t, void *, size_t);
	struct ra2_link *l = link_find(session);
	ssize_t n;

	if (!l) {
		if (!real)
			real = tlsguard_next_sym("gnutls_record_recv");
		return real(session, data, data_size);
	}
	n = rsaaes_recv(l->s, data, data_size);
	if (n >= 0)
		return n;
	/* A server that closed between frames: libvncclient's own words
	 * for an end of stream. */
	if (strcmp(rsaaes_error(l->s), "closed the connection") == 0)
		return 0;
	link_failed(l);
	return GNUTLS_E_DECRYPTION_FAILED;
}

ssize_t gnutls_record_send(gnutls_session_t session, const void *data,
			   size_t data_size)
{
	static ssize_t (*real)(gnutls_session_t, const void *, size_t);
	struct ra2_link *l = link_find(session);

	if (!l) {
		if (!real)
			real = tlsguard_next_sym("gnutls_record_send");
		return real(session, data, data_size);
	}
	if (rsaaes_send(l->s, data, data_size) < 0)
		return GNUTLS_E_PUSH_ERROR;
	return (ssize_t)data_size;
}

/* vnc.c asks whether bytes are at hand that poll() cannot see: decrypted
 * ones, and frames read from the socket and not decrypted yet. */
size_t gnutls_record_check_pending(gnutls_session_t session)
{
	static size_t (*real)(gnutls_session_t);
	struct ra2_link *l = link_find(session);

	if (!l) {
		if (!real)
			real = tlsguard_next_sym("gnutls_record_check_pending");
		return real(session);
	}
	return rsaaes_pending(l->s) + l->raw_len;
}

/* libvncclient's FreeTLS, as rfbClientCleanup tears the client down. */
void gnutls_deinit(gnutls_session_t session)
{
	static void (*real)(gnutls_session_t);
	struct ra2_link *l = link_find(session);

	if (!l) {
		if (!real)
			real = tlsguard_next_sym("gnutls_deinit");
		real(session);
		return;
	}
	link_free(l);
}
