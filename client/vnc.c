/* libvncclient behind struct vnc_client: connect, handshake (under a
 * watchdog), formats and encodings, the byte source vncfb's own message
 * reader reads through, input out. The only file that includes
 * rfb/rfbclient.h. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gnutls/gnutls.h>
#include <rfb/rfbclient.h>
#include <turbojpeg.h>

#include "clock.h"
#include "decode.h"
#include "guard.h"
#include "log.h"
#include "rfb.h"
#include "rfbread.h"
#include "tlsguard.h"
#include "vnc.h"
#include "vncsrc.h"

/* The handshake's deadline is at least this (the --timeout if longer). */
#define HANDSHAKE_MIN_S 15
/* vnc_dispatch hands the loop back after this much work at most. */
#define DISPATCH_BUDGET_NS 30000000ull
/* The reader's reads go to libvncclient in pieces this large, so that a
 * fast endless stream still sees the watchdog between them. */
#define READ_PIECE (256 * 1024)

struct vnc_client {
	rfbClient *cl;
	struct vnc_events ev;
	struct vnc_config cfg;
	char peer[300];		/* "host:port" for messages */
	char *encodings;	/* the string handed to libvncclient */
	bool in_handshake;
	enum vnc_error logged;	/* a failure already logged */
	bool no_password;	/* the server asked, we had none */
	bool asked_password;	/* the server wanted VNC authentication */
	const char *tls_refused;	/* why the security type was refused */
	char refused_buf[128];	/* tls_refused's text when it is made */
	const uint32_t *schemes;	/* the security types offered */
	int nschemes;
	struct tlsguard tls;	/* what libvncclient's TLS leaves behind */
	uint64_t rx_ns;		/* socket seen readable (vnc_dispatch entry) */
	/* vncfb's reader (NULL in the libvncclient reference mode) and the
	 * bytes it reads: libvncclient's ReadFromRFBServer. */
	struct rfb_reader *rd;
	struct vnc_source src;
	struct guard *guard;
	uint64_t handshake_end;	/* the handshake's deadline */
	int armed;		/* nesting of guarded work */
	const char *doing;	/* what the armed deadline is for */
	int doing_s;		/* and how long it was */
	bool qemu_keys;		/* the server takes QEMU extended keys */
	void (*msg_hook)(void *ctx);	/* vnc_set_message_hook */
	void *msg_ctx;
	char name[LOG_TEXT_SIZE];	/* the desktop name, made visible */
};

static int client_tag;

/* libvncclient reports through two global hooks; keep its last words to
 * explain a failure in one line of our own, and show the rest under -v.
 * Its words quote what the server sent (reasons, the version string, the
 * desktop name), so they are kept only as log_sanitize makes them. */
static char last_msg[512];
/* The first word on a certificate problem: the TLS error that follows it
 * only says "Error in the certificate". */
static char cert_msg[LOG_TEXT_SIZE];
/* The reason the server gave for refusing the connection or the
 * password, made visible; "" if it gave none. */
static char reason[LOG_TEXT_SIZE];

#define REASON_PREFIX "VNC connection failed: "

__attribute__((format(printf, 1, 0)))
static void capture(const char *fmt, va_list ap)
{
	char buf[1024];
	size_t n;

	vsnprintf(buf, sizeof(buf), fmt, ap);
	n = strlen(buf);
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
		buf[--n] = '\0';
	if (n == 0)
		return;
	log_sanitize(last_msg, buf, n);
	if (strncmp(buf, REASON_PREFIX, strlen(REASON_PREFIX)) == 0)
		log_sanitize(reason, buf + strlen(REASON_PREFIX),
			     n - strlen(REASON_PREFIX));
	if (!cert_msg[0] && strstr(buf, "The certificate") &&
	    !strstr(buf, "TLS handshake")) {
		log_sanitize(cert_msg, buf, n);
		n = strlen(cert_msg);
		while (n > 0 && cert_msg[n - 1] == '.')
			cert_msg[--n] = '\0';
	}
	log_debug("libvncclient: %s", last_msg);
}

/* The client whose InitialiseRFBConnection runs now (main thread), for
 * the log hook below; NULL outside it. */
static struct vnc_client *handshaking;

static void refuse_scheme(struct vnc_client *vc, uint32_t scheme);

__attribute__((format(printf, 1, 2)))
static void lib_log(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	capture(fmt, ap);
	va_end(ap);
	/* An RFB 3.3 server dictates the security type, and libvncclient
	 * 0.9.14 then runs whatever it names, whether vncfb offered it or
	 * not: Apple's and UltraVNC's Diffie-Hellman types hand the
	 * server's key length to libgcrypt, which abort()s on a bad one
	 * (found by the fuzzer). The library names the type here, before
	 * it acts on it: the one place vncfb can say no. */
	if (handshaking && strcmp(fmt, "Selected Security Scheme %d\n") == 0) {
		int scheme;

		va_start(ap, fmt);
		scheme = va_arg(ap, int);
		va_end(ap);
		refuse_scheme(handshaking, (uint32_t)scheme);
	}
}

static struct vnc_client *from_cl(rfbClient *cl)
{
	return rfbClientGetClientData(cl, &client_tag);
}

/* --- Deadlines: the watchdog (guard.h) bounds every blocking step --- */

static int timeout_s(const struct vnc_client *vc)
{
	return vc->cfg.read_timeout_s > 0 ? vc->cfg.read_timeout_s : 30;
}

/* What follows until done() must be over by deadline (monotonic ns).
 * Nested calls keep the outer deadline: a request written while a message
 * is read belongs to the message. */
static void begin(struct vnc_client *vc, const char *doing, uint64_t deadline,
		  int secs)
{
	if (vc->armed++ || !vc->guard)
		return;
	vc->doing = doing;
	vc->doing_s = secs;
	guard_arm(vc->guard, deadline);
}

static void begin_timed(struct vnc_client *vc, const char *doing)
{
	begin(vc, doing,
	      monotonic_ns() + (uint64_t)timeout_s(vc) * 1000000000u,
	      timeout_s(vc));
}

static void done(struct vnc_client *vc)
{
	if (--vc->armed == 0 && vc->guard)
		guard_arm(vc->guard, 0);
}

static const struct vnc_client *from_src(const struct vnc_source *s)
{
	return (const struct vnc_client *)(const void *)((const char *)s -
		offsetof(struct vnc_client, src));
}

/* The reader's bytes: libvncclient's buffered reader (TLS included), in
 * pieces, stopping as soon as the watchdog fired. */
static int src_read(struct vnc_source *s, void *buf, size_t n)
{
	const struct vnc_client *vc = from_src(s);
	char *p = buf;

	while (n > 0) {
		unsigned k = n < READ_PIECE ? (unsigned)n : READ_PIECE;

		if (guard_fired(vc->guard) != GUARD_NONE ||
		    !ReadFromRFBServer(vc->cl, p, k))
			return -1;
		p += k;
		n -= k;
	}
	return 0;
}

/* Once the watchdog fired, decoding what was read stops too. */
static bool src_abandoned(const struct vnc_source *s)
{
	return guard_fired(from_src(s)->guard) != GUARD_NONE;
}

/* The bytes libvncclient's reader holds already (it reads the socket
 * or the TLS session 8 KiB at a time): tiles are parsed in place there
 * instead of being copied out first. */
static const uint8_t *src_peek(struct vnc_source *s, size_t *len)
{
	const rfbClient *cl = from_src(s)->cl;

	*len = cl->buffered;
	return (const uint8_t *)cl->bufoutptr;
}

static void src_consume(struct vnc_source *s, size_t n)
{
	rfbClient *cl = from_src(s)->cl;

	cl->bufoutptr += n;
	cl->buffered -= (unsigned)n;
}

static const struct vnc_source_ops src_ops = {
	.read = src_read,
	.abandoned = src_abandoned,
	.peek = src_peek,
	.consume = src_consume,
};

const char *vnc_library_version(void)
{
	return LIBVNCSERVER_PACKAGE_VERSION;
}

struct enc_name {
	const char *name;
	int32_t enc;
	const char *lib;	/* the name libvncclient knows, or NULL */
};

static const struct enc_name enc_names[] = {
	{ "raw", rfbEncodingRaw, "raw" },
	{ "copyrect", rfbEncodingCopyRect, "copyrect" },
	{ "rre", rfbEncodingRRE, "rre" },
	{ "corre", rfbEncodingCoRRE, "corre" },
	{ "hextile", rfbEncodingHextile, "hextile" },
	{ "zlib", rfbEncodingZlib, "zlib" },
	{ "tight", rfbEncodingTight, "tight" },
	{ "trle", rfbEncodingTRLE, "trle" },
	{ "zrle", rfbEncodingZRLE, "zrle" },
	{ "zywrle", rfbEncodingZYWRLE, "zywrle" },
	{ "ultra", rfbEncodingUltra, "ultra" },
};

#define DEFAULT_ENCODINGS "copyrect tight zrle hextile zlib corre rre raw"

static const struct enc_name *find_enc(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < sizeof(enc_names) / sizeof(enc_names[0]); i++)
		if (strlen(enc_names[i].name) == n &&
		    strncasecmp(enc_names[i].name, s, n) == 0)
			return &enc_names[i];
	return NULL;
}

int vnc_check_encodings(const char *list, const char **bad)
{
	static char badbuf[32];
	const char *p = list;
	int count = 0;

	while (p && *p) {
		size_t n = strcspn(p, " ,");

		if (n > 0) {
			if (!find_enc(p, n)) {
				snprintf(badbuf, sizeof(badbuf), "%.*s",
					 (int)(n < 31 ? n : 31), p);
				*bad = badbuf;
				return -EINVAL;
			}
			count++;
		}
		p += n;
		p += strspn(p, " ,");
	}
	if (count == 0) {
		*bad = "";
		return -EINVAL;
	}
	return 0;
}

const char *vnc_default_encodings(void)
{
	return DEFAULT_ENCODINGS;
}

/* SetPixelFormat + SetEncodings written by us, not SetFormatAndEncodings:
 * libvncclient 0.9.14 always offers ExtendedDesktopSize and then, when it
 * decodes, ignores QEMU's screen id 0. vncfb's reader handles both
 * DesktopSize and ExtendedDesktopSize, whatever the screen ids. */
static bool send_format_and_encodings(struct vnc_client *vc)
{
	/* rfbClientSwap*IfLE expect a variable named client. */
	rfbClient *client = vc->cl, *cl = client;
	rfbSetPixelFormatMsg spf;
	union {
		char bytes[sz_rfbSetEncodingsMsg + 64 * 4];
		rfbSetEncodingsMsg msg;
	} buf;
	uint32_t encs[64];
	int n = 0, i;
	const char *p = vc->encodings;
	bool tight = false, zlibish = false;

	memset(&spf, 0, sizeof(spf));
	spf.type = rfbSetPixelFormat;
	spf.format = cl->format;
	spf.format.redMax = rfbClientSwap16IfLE(spf.format.redMax);
	spf.format.greenMax = rfbClientSwap16IfLE(spf.format.greenMax);
	spf.format.blueMax = rfbClientSwap16IfLE(spf.format.blueMax);
	if (!WriteToRFBServer(cl, (char *)&spf, sz_rfbSetPixelFormatMsg))
		return false;

	while (*p && n < 40) {
		size_t len = strcspn(p, " ,");
		const struct enc_name *e = len ? find_enc(p, len) : NULL;

		/* ZYWRLE (ZRLE after a lossy wavelet) has no decoder in
		 * vncfb: its lossless sibling ZRLE takes its place. */
		if (e && e->enc == rfbEncodingZYWRLE)
			e = find_enc("zrle", 4);
		if (e) {
			encs[n++] = (uint32_t)e->enc;
			if (e->enc == rfbEncodingTight)
				tight = true;
			if (e->enc == rfbEncodingTight ||
			    e->enc == rfbEncodingZlib ||
			    e->enc == rfbEncodingZRLE)
				zlibish = true;
		}
		p += len;
		p += strspn(p, " ,");
	}
	if (zlibish && vc->cfg.compress >= 0)
		encs[n++] = (uint32_t)(rfbEncodingCompressLevel0 +
				       vc->cfg.compress);
	if (tight && vc->cfg.quality >= 0)
		encs[n++] = (uint32_t)(rfbEncodingQualityLevel0 +
				       vc->cfg.quality);
	if (vc->cfg.local_cursor) {
		encs[n++] = (uint32_t)rfbEncodingXCursor;
		encs[n++] = (uint32_t)rfbEncodingRichCursor;
		encs[n++] = (uint32_t)rfbEncodingPointerPos;
	}
	encs[n++] = (uint32_t)rfbEncodingNewFBSize;
	/* vncfb's reader takes QEMU's screen id 0 (libvncclient 0.9.14
	 * does not: the reference mode goes without) and desktop names. */
	if (vc->rd) {
		encs[n++] = (uint32_t)RFB_ENC_EXTDESKTOPSIZE;
		encs[n++] = (uint32_t)RFB_ENC_DESKTOPNAME;
	}
	encs[n++] = (uint32_t)rfbEncodingLastRect;
	encs[n++] = (uint32_t)rfbEncodingKeyboardLedState;
	if (!vc->cfg.view_only)
		encs[n++] = (uint32_t)rfbEncodingQemuExtendedKeyEvent;

	memset(&buf, 0, sizeof(buf));
	buf.msg.type = rfbSetEncodings;
	buf.msg.nEncodings = rfbClientSwap16IfLE((uint16_t)n);
	for (i = 0; i < n; i++) {
		uint32_t v = rfbClientSwap32IfLE(encs[i]);

		memcpy(&buf.bytes[sz_rfbSetEncodingsMsg + i * 4], &v, 4);
	}
	return WriteToRFBServer(cl, buf.bytes, sz_rfbSetEncodingsMsg + n * 4);
}

/* The reference mode's desktop buffer (and its resizes). */
static rfbBool cb_malloc_fb(rfbClient *cl)
{
	struct vnc_client *vc = from_cl(cl);
	char why[200];
	enum vnc_error e;
	uint8_t *buf;

	e = cl->width < 0 || cl->height < 0
		    ? VNC_ERR_PROTOCOL
		    : rfb_check_desktop((uint32_t)cl->width,
					(uint32_t)cl->height,
					cl->format.bitsPerPixel / 8, why,
					sizeof(why));
	if (e != VNC_OK) {
		log_error("%s %s", vc->peer, why);
		vc->logged = e;
		return FALSE;
	}
	buf = vc->ev.resize(vc->ev.ctx, (uint32_t)cl->width,
			    (uint32_t)cl->height);
	if (!buf) {
		vc->logged = VNC_ERR_RESOURCE;
		return FALSE;
	}
	cl->frameBuffer = buf;
	/* libvncclient's update region for the first request. */
	cl->updateRect.x = 0;
	cl->updateRect.y = 0;
	cl->updateRect.w = cl->width;
	cl->updateRect.h = cl->height;
	return TRUE;
}

static void cb_update(rfbClient *cl, int x, int y, int w, int h)
{
	struct vnc_client *vc = from_cl(cl);
	struct rect r = { x, y, w, h };

	if (rect_clip(&r, cl->width, cl->height))
		vc->ev.damage(vc->ev.ctx, &r);
}

static void cb_finished(rfbClient *cl)
{
	struct vnc_client *vc = from_cl(cl);

	vc->ev.update_done(vc->ev.ctx);
}

/* --- Security types and TLS --- */

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
static void refuse_scheme(struct vnc_client *vc, uint32_t scheme)
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
	struct vnc_client *vc = from_cl(cl);
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
			snprintf(last_msg, sizeof(last_msg),
				 "cannot read CA certificates %s: %s (use "
				 "--ca FILE)",
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
	struct vnc_client *vc = from_cl(cl);
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

/* libvncclient 0.9.14 mallocs a new rcMask for every shape without
 * freeing the old one (a leak per cursor change, found by the fuzzer), so
 * the shape buffers are freed here once the session has copied them. */
static void drop_cursor_buffers(rfbClient *cl)
{
	free(cl->rcSource);
	cl->rcSource = NULL;
	free(cl->rcMask);
	cl->rcMask = NULL;
}

static void cb_cursor_shape(rfbClient *cl, int xhot, int yhot, int w, int h,
			    int bpp)
{
	struct vnc_client *vc = from_cl(cl);

	if (!vc->ev.cursor_shape || !cl->rcSource || !cl->rcMask)
		goto out;
	if (w <= 0 || h <= 0 || w > RFB_MAX_CURSOR || h > RFB_MAX_CURSOR ||
	    bpp != cl->format.bitsPerPixel / 8 || xhot < 0 || yhot < 0 ||
	    xhot >= w || yhot >= h) {
		log_debug("ignoring cursor shape %dx%d hot %d,%d", w, h, xhot,
			  yhot);
		goto out;
	}
	vc->ev.cursor_shape(vc->ev.ctx, xhot, yhot, w, h, cl->rcSource,
			    cl->rcMask);
out:
	drop_cursor_buffers(cl);
}

static rfbBool cb_cursor_pos(rfbClient *cl, int x, int y)
{
	struct vnc_client *vc = from_cl(cl);

	if (vc->ev.cursor_pos)
		vc->ev.cursor_pos(vc->ev.ctx, x, y);
	return TRUE;
}

static void cb_bell(rfbClient *cl)
{
	struct vnc_client *vc = from_cl(cl);

	if (vc->ev.bell)
		vc->ev.bell(vc->ev.ctx);
}

static void cb_cut_text(rfbClient *cl, const char *text, int len)
{
	/* Clipboard has nowhere to go on a console; drop it. */
	(void)cl;
	(void)text;
	(void)len;
}

static void format_peer(char *buf, size_t len, const char *host, int port)
{
	if (strchr(host, ':'))
		snprintf(buf, len, "[%s]:%d", host, port);
	else
		snprintf(buf, len, "%s:%d", host, port);
}

/* TCP connect with a timeout, trying every address. Returns fd or -1 with
 * the reason logged. */
static int tcp_connect(const struct vnc_config *cfg, int timeout_ms,
		       const char *peer, enum vnc_error *err)
{
	const char *host = cfg->host;
	int port = cfg->port;
	struct addrinfo hints, *res, *ai;
	char portstr[16];
	int fd = -1, ret, saved = ECONNREFUSED;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_ADDRCONFIG;
	snprintf(portstr, sizeof(portstr), "%d", port);
	ret = getaddrinfo(host, portstr, &hints, &res);
	if (ret == EAI_ADDRFAMILY || ret == EAI_NONAME || ret == EAI_FAIL ||
	    ret == EAI_AGAIN) {
		/* AI_ADDRCONFIG hides ::1 on hosts with only loopback. */
		hints.ai_flags = 0;
		ret = getaddrinfo(host, portstr, &hints, &res);
	}
	if (ret != 0) {
		log_error("cannot resolve %s: %s", host,
			  ret == EAI_SYSTEM ? strerror(errno)
					    : gai_strerror(ret));
		*err = VNC_ERR_RESOLVE;
		return -1;
	}
	for (ai = res; ai; ai = ai->ai_next) {
		struct pollfd pfd[2];
		int flags, soerr = 0, wait;
		uint64_t until = monotonic_ns() + (uint64_t)timeout_ms * 1000000u;
		socklen_t sl = sizeof(soerr);

		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC,
			    ai->ai_protocol);
		if (fd < 0) {
			saved = errno;
			continue;
		}
		flags = fcntl(fd, F_GETFL);
		fcntl(fd, F_SETFL, flags | O_NONBLOCK);
		if (connect(fd, ai->ai_addr, ai->ai_addrlen) < 0 &&
		    errno != EINPROGRESS) {
			saved = errno;
			goto next;
		}
		/* Waits that a quit signal or --exit-after cut short. */
		pfd[0] = (struct pollfd){ .fd = fd, .events = POLLOUT };
		pfd[1] = (struct pollfd){ .fd = cfg->abort_fd, .events = POLLIN };
		do {
			uint64_t now = monotonic_ns(), end = until;

			if (cfg->end_ns && cfg->end_ns < end)
				end = cfg->end_ns;
			wait = end > now ? (int)((end - now + 999999) / 1000000)
					 : 0;
			ret = poll(pfd, cfg->abort_fd > 0 ? 2 : 1, wait);
			if (guard_check(cfg->abort_fd, cfg->end_ns) !=
			    GUARD_NONE) {
				close(fd);
				freeaddrinfo(res);
				*err = VNC_ERR_INTERRUPTED;
				return -1;
			}
		} while ((ret < 0 && errno == EINTR) ||
			 (ret > 0 && !(pfd[0].revents)));
		if (ret == 0) {
			saved = ETIMEDOUT;
			goto next;
		}
		if (ret < 0 ||
		    getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) < 0) {
			saved = errno;
			goto next;
		}
		if (soerr) {
			saved = soerr;
			goto next;
		}
		fcntl(fd, F_SETFL, flags);
		{
			int one = 1;

			setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one,
				   sizeof(one));
		}
		freeaddrinfo(res);
		return fd;
next:
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	log_error("cannot connect to %s: %s", peer, strerror(saved));
	*err = VNC_ERR_CONNECT;
	return -1;
}

static void set_format(rfbClient *cl, const struct pixfmt *f)
{
	cl->format.bitsPerPixel = f->bpp;
	cl->format.depth = (uint8_t)(f->r_bits + f->g_bits + f->b_bits);
	if (cl->format.depth > f->bpp)
		cl->format.depth = f->bpp;
	cl->format.bigEndian = f->big_endian;
	cl->format.trueColour = 1;
	cl->format.redMax = (uint16_t)((1u << f->r_bits) - 1);
	cl->format.greenMax = (uint16_t)((1u << f->g_bits) - 1);
	cl->format.blueMax = (uint16_t)((1u << f->b_bits) - 1);
	cl->format.redShift = f->r_shift;
	cl->format.greenShift = f->g_shift;
	cl->format.blueShift = f->b_shift;
}

/* Turn libvncclient's last words into our one line. */
static enum vnc_error classify_failure(struct vnc_client *vc, bool handshake)
{
	const char *m = last_msg;
	enum guard_why g = vc->guard ? guard_fired(vc->guard) : GUARD_NONE;

	if (g == GUARD_ABORT || g == GUARD_END)
		return VNC_ERR_INTERRUPTED;
	if (g == GUARD_DEADLINE) {
		log_error("%s: %s not finished after %d s", vc->peer,
			  vc->doing ? vc->doing : "handshake", vc->doing_s);
		return VNC_ERR_CLOSED;
	}
	if (vc->logged)
		return vc->logged;
	if (vc->tls_refused) {
		log_error("%s %s", vc->peer, vc->tls_refused);
		return VNC_ERR_PROTOCOL;
	}
	/* It quotes the server's first 12 bytes, which must not steer what
	 * follows (a "version" holding the word "password"). */
	if (strncmp(m, "Not a valid VNC server", 22) == 0) {
		log_error("VNC handshake with %s failed: %s", vc->peer, m);
		return VNC_ERR_PROTOCOL;
	}
	if (strstr(m, "Unknown authentication scheme") ||
	    strstr(m, "Unknown VeNCrypt authentication")) {
		log_error("%s offers none of the security types vncfb accepts "
			  "(it offers %s)%s",
			  vc->peer, strchr(m, ':') ? strchr(m, ':') + 2 : m,
			  vc->cfg.ca_file ? "; --ca requires X509 TLS "
					    "(VeNCrypt)"
					  : "");
		return VNC_ERR_PROTOCOL;
	}
	if (strcasestr(m, "certificate") || strstr(m, "TLS handshake") ||
	    strstr(m, "CA certificates")) {
		if (cert_msg[0])
			log_error("TLS with %s failed: %s (--ca FILE names "
				  "the CA that signed the server's "
				  "certificate)",
				  vc->peer, cert_msg);
		else
			log_error("TLS with %s failed: %s", vc->peer, m);
		return VNC_ERR_PROTOCOL;
	}
	if (reason[0]) {
		/* After the password went out, a refusal is the password's. */
		if (handshake && vc->asked_password) {
			log_error("authentication failed for %s (wrong "
				  "password?); the server says: %s",
				  vc->peer, reason);
			return VNC_ERR_AUTH;
		}
		log_error("%s refused the connection; the server says: %s",
			  vc->peer, reason);
		return VNC_ERR_PROTOCOL;
	}
	if (vc->no_password) {
		log_error("%s asks for a password and none was given (use "
			  "--passwd FILE or VNCFB_PASSWORD)",
			  vc->peer);
		return VNC_ERR_AUTH;
	}
	/* A handshake that fails after the password went out is an auth
	 * failure whatever the server's reason text says: retrying it could
	 * lock the account. ("Server refused VeNCrypt authentication N" is
	 * the server turning down the sub-type it offered, before any
	 * password.) */
	if ((strcasestr(m, "authentication") && !strstr(m, "VeNCrypt")) ||
	    strcasestr(m, "password") || (handshake && vc->asked_password)) {
		if (strcasestr(m, "too many"))
			log_error("%s refused the connection: %s", vc->peer,
				  m);
		else
			log_error("authentication failed for %s (wrong "
				  "password?)",
				  vc->peer);
		return VNC_ERR_AUTH;
	}
	if (strstr(m, "timed out")) {
		log_error("%s stopped responding (nothing for %d s)%s", vc->peer,
			  vc->cfg.read_timeout_s > 0 ? vc->cfg.read_timeout_s : 30,
			  handshake ? " during the handshake" : "");
		return VNC_ERR_CLOSED;
	}
	if (strstr(m, "closed connection") || strstr(m, "read (") ||
	    m[0] == '\0') {
		log_error("%s closed the connection%s", vc->peer,
			  handshake ? " during the handshake" : "");
		return VNC_ERR_CLOSED;
	}
	if (strstr(m, "Rect too large"))
		log_error("%s sent a rectangle outside the desktop (%s)",
			  vc->peer, m);
	else if (handshake)
		log_error("VNC handshake with %s failed: %s", vc->peer, m);
	else
		log_error("connection to %s failed: %s", vc->peer, m);
	return VNC_ERR_PROTOCOL;
}

/* rfbClientCleanup in 0.9.14 forgets the cursor shape buffers and the
 * Tight JPEG decompressor; free them so reconnects do not leak (found by
 * the fuzz replay under LeakSanitizer, see tests/hostile-input.md). The
 * frame buffer is the session's shadow, not ours to free. */
static void client_cleanup(rfbClient *cl)
{
	struct vnc_client *vc = from_cl(cl);

	drop_cursor_buffers(cl);
	if (cl->tjhnd) {
		tjDestroy(cl->tjhnd);
		cl->tjhnd = NULL;
	}
	cl->frameBuffer = NULL;
	rfbClientCleanup(cl);
	/* Its TLS session is gone: now its credentials may go. */
	tlsguard_finish(&vc->tls);
}

/* Allocate the wrapper for cfg; NULL when out of memory (logged). */
static struct vnc_client *client_new(const struct vnc_config *cfg,
				     const struct vnc_events *ev)
{
	struct vnc_client *vc;

	rfbClientLog = lib_log;
	rfbClientErr = lib_log;
	last_msg[0] = '\0';
	cert_msg[0] = '\0';
	reason[0] = '\0';

	vc = calloc(1, sizeof(*vc));
	if (!vc)
		goto err_nomem;
	vc->cfg = *cfg;
	vc->ev = *ev;
	format_peer(vc->peer, sizeof(vc->peer), cfg->host ? cfg->host : "",
		    cfg->port);
	vc->encodings = strdup(cfg->encodings ? cfg->encodings
					      : DEFAULT_ENCODINGS);
	if (!vc->encodings)
		goto err_free_vc;
	tlsguard_init(&vc->tls, cfg->host ? cfg->host : "", vc->peer,
		      cfg->insecure);
	return vc;

err_free_vc:
	free(vc);
err_nomem:
	log_error("out of memory");
	return NULL;
}

static void client_free(struct vnc_client *vc)
{
	tlsguard_finish(&vc->tls);
	free(vc->encodings);
	free(vc);
}

/* Blocking reads and writes; the watchdog, not a socket timeout, bounds
 * them. Without SO_RCVTIMEO a read interrupted by a signal handler
 * (SA_RESTART, signals.c) is restarted, so signals need not be held off
 * while libvncclient reads. */
static void set_blocking(int fd)
{
	int flags = fcntl(fd, F_GETFL);

	if (flags >= 0 && (flags & O_NONBLOCK))
		fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
}

/* A client message through libvncclient, under a write deadline. */
static int request(struct vnc_client *vc, int x, int y, int w, int h,
		   bool incremental)
{
	rfbBool ok;

	begin_timed(vc, "write");
	ok = SendFramebufferUpdateRequest(vc->cl, x, y, w, h,
					  incremental ? TRUE : FALSE);
	done(vc);
	return ok ? 0 : -1;
}

/* --- vncfb's reader's hooks into the connection --- */

static int rd_request(void *ctx, bool incremental, uint32_t w, uint32_t h)
{
	return request(ctx, 0, 0, (int)w, (int)h, incremental);
}

static void rd_qemu_keys(void *ctx)
{
	struct vnc_client *vc = ctx;

	if (!vc->qemu_keys)
		log_debug("%s takes QEMU extended key events", vc->peer);
	vc->qemu_keys = true;
}

static const struct rfb_reader_ops rd_ops = {
	.request = rd_request,
	.qemu_keys = rd_qemu_keys,
};

/* After ServerInit: the desktop, the formats and the first request, with
 * vncfb's reader or (reference mode) libvncclient's. */
static int start_session(struct vnc_client *vc, enum vnc_error *err)
{
	rfbClient *cl = vc->cl;
	const char *why;
	bool ok;
	int e;

	cl->width = cl->si.framebufferWidth;
	cl->height = cl->si.framebufferHeight;
	if (vc->cfg.libvnc_reference) {
		if (!cl->MallocFrameBuffer(cl)) {
			*err = classify_failure(vc, true);
			return -1;
		}
	} else {
		vc->src.ops = &src_ops;
		vc->rd = rfb_reader_create(&vc->cfg.fmt, &vc->src, &vc->ev,
					   &rd_ops, vc);
		if (!vc->rd) {
			log_error("out of memory");
			*err = VNC_ERR_RESOURCE;
			return -1;
		}
		e = rfb_reader_set_threads(vc->rd, vc->cfg.decode_threads);
		if (e < 0) {
			log_error("cannot start %u decoding threads: %s",
				  vc->cfg.decode_threads, strerror(-e));
			*err = VNC_ERR_RESOURCE;
			return -1;
		}
		if (rfb_reader_threads(vc->rd))
			log_debug("%u threads decode rectangles",
				  rfb_reader_threads(vc->rd));
		if (rfb_reader_start(vc->rd, (uint32_t)cl->width,
				     (uint32_t)cl->height) < 0) {
			*err = rfb_reader_error(vc->rd, &why);
			if (why[0])
				log_error("%s %s", vc->peer, why);
			return -1;
		}
	}
	ok = send_format_and_encodings(vc) &&
	     SendFramebufferUpdateRequest(cl, 0, 0, cl->width, cl->height,
					  FALSE);
	if (!ok) {
		*err = classify_failure(vc, true);
		return -1;
	}
	return 0;
}

static void close_client(struct vnc_client *vc)
{
	/* The watchdog first: it must never shut down a reused fd. */
	guard_stop(vc->guard);
	vc->guard = NULL;
	rfb_reader_destroy(vc->rd);
	vc->rd = NULL;
	if (vc->cl)
		client_cleanup(vc->cl);
	vc->cl = NULL;
}

/* The RFB handshake over a connected fd (owned from here on). 0, or -1
 * with the reason logged and *err set; then fd is closed. */
static int handshake(struct vnc_client *vc, int fd, enum vnc_error *err)
{
	const struct vnc_config *cfg = &vc->cfg;
	rfbClient *cl;
	rfbBool ok;

	cl = rfbGetClient(8, 3, 4);
	if (!cl) {
		close(fd);
		log_error("out of memory");
		*err = VNC_ERR_RESOURCE;
		return -1;
	}
	vc->cl = cl;
	rfbClientSetClientData(cl, &client_tag, vc);
	set_blocking(fd);
	set_format(cl, &cfg->fmt);
	cl->sock = fd;
	free(cl->serverHost);
	cl->serverHost = strdup(cfg->host ? cfg->host : "");
	cl->serverPort = cfg->port;
	cl->canHandleNewFBSize = TRUE;
	cl->appData.encodingsString = vc->encodings;
	cl->appData.compressLevel = cfg->compress;
	cl->appData.qualityLevel = cfg->quality >= 0 ? cfg->quality : 8;
	cl->appData.enableJPEG = cfg->quality >= 0;
	cl->appData.useRemoteCursor = cfg->local_cursor;
	cl->appData.viewOnly = cfg->view_only;
	cl->appData.shareDesktop = TRUE;
	cl->MallocFrameBuffer = cb_malloc_fb;
	cl->GotFrameBufferUpdate = cb_update;
	cl->FinishedFrameBufferUpdate = cb_finished;
	cl->GetPassword = cb_password;
	cl->GetCredential = cb_credential;
	set_security(vc);
	cl->GotCursorShape = cb_cursor_shape;
	cl->HandleCursorPos = cb_cursor_pos;
	cl->Bell = cb_bell;
	cl->GotXCutText = cb_cut_text;

	vc->guard = guard_start(fd, cfg->abort_fd, cfg->end_ns);
	if (!vc->guard) {
		*err = VNC_ERR_RESOURCE;
		goto err_client;
	}
	vc->in_handshake = true;
	begin(vc, "handshake", vc->handshake_end,
	      timeout_s(vc) > HANDSHAKE_MIN_S ? timeout_s(vc)
					      : HANDSHAKE_MIN_S);
	tlsguard_arm(&vc->tls);
	handshaking = vc;
	ok = InitialiseRFBConnection(cl);
	handshaking = NULL;
	tlsguard_disarm(&vc->tls);
	if (!ok) {
		*err = classify_failure(vc, true);
		goto err_client;
	}
	vc->tls_refused = security_refusal(vc);
	if (vc->tls_refused) {
		*err = classify_failure(vc, true);
		goto err_client;
	}
	if (tls_anonymous(cl))
		log_warn("%s: TLS without certificate verification "
			 "(--insecure): anyone on the way can pose as the "
			 "server",
			 vc->peer);
	else if (tls_verified(cl) && !tlsguard_unverified(&vc->tls))
		log_debug("%s: TLS, certificate verified", vc->peer);
	if (start_session(vc, err) < 0)
		goto err_client;
	done(vc);
	vc->in_handshake = false;
	log_sanitize(vc->name, cl->desktopName ? cl->desktopName : "",
		     cl->desktopName ? strlen(cl->desktopName) : 0);
	log_info("connected to %s (\"%s\", %dx%d)", vc->peer, vc->name,
		 cl->width, cl->height);
	return 0;

err_client:
	close_client(vc);
	if (*err == VNC_OK)
		*err = VNC_ERR_RESOURCE;
	return -1;
}

static uint64_t handshake_deadline(const struct vnc_config *cfg)
{
	int s = cfg->read_timeout_s > 0 ? cfg->read_timeout_s : 30;

	if (s < HANDSHAKE_MIN_S)
		s = HANDSHAKE_MIN_S;
	return monotonic_ns() + (uint64_t)s * 1000000000u;
}

struct vnc_client *vnc_connect(const struct vnc_config *cfg,
			       const struct vnc_events *ev,
			       enum vnc_error *err)
{
	struct vnc_client *vc;
	int fd;

	*err = VNC_OK;
	vc = client_new(cfg, ev);
	if (!vc) {
		*err = VNC_ERR_RESOURCE;
		return NULL;
	}
	vc->handshake_end = handshake_deadline(cfg);
	fd = tcp_connect(cfg,
			 cfg->connect_timeout_ms > 0 ? cfg->connect_timeout_ms
						     : 15000,
			 vc->peer, err);
	if (fd >= 0 && cfg->wrap_fd) {
		fd = cfg->wrap_fd(cfg->wrap_ctx, fd);
		if (fd < 0)
			*err = VNC_ERR_RESOURCE;
	}
	if (fd < 0 || handshake(vc, fd, err) < 0) {
		client_free(vc);
		return NULL;
	}
	return vc;
}

struct vnc_client *vnc_connect_fd(const struct vnc_config *cfg,
				  const struct vnc_events *ev, int fd,
				  enum vnc_error *err)
{
	struct vnc_client *vc;

	*err = VNC_OK;
	vc = client_new(cfg, ev);
	if (!vc) {
		close(fd);
		*err = VNC_ERR_RESOURCE;
		return NULL;
	}
	vc->handshake_end = handshake_deadline(cfg);
	if (handshake(vc, fd, err) < 0) {
		client_free(vc);
		return NULL;
	}
	return vc;
}

void vnc_destroy(struct vnc_client *vc)
{
	if (!vc)
		return;
	close_client(vc);
	client_free(vc);
}

int vnc_fd(const struct vnc_client *vc)
{
	return vc->cl->sock;
}

bool vnc_pending(const struct vnc_client *vc)
{
	const rfbClient *cl = vc->cl;

	if (cl->buffered > 0)
		return true;
	/* GnuTLS may hold decrypted bytes of a record already read. */
	return cl->tlsSession &&
	       gnutls_record_check_pending((gnutls_session_t)cl->tlsSession) >
		       0;
}

/* One server message, under its deadline. */
static int one_message(struct vnc_client *vc, enum vnc_error *err)
{
	const char *why;
	bool ok;

	last_msg[0] = '\0';
	begin_timed(vc, "message");
	if (vc->rd)
		ok = rfb_reader_message(vc->rd) == 0;
	else
		ok = HandleRFBServerMessage(vc->cl);
	done(vc);
	if (ok)
		return 0;
	if (!vc->rd) {
		*err = classify_failure(vc, false);
		return -1;
	}
	*err = rfb_reader_error(vc->rd, &why);
	if (*err == VNC_ERR_CLOSED && !why[0])
		*err = classify_failure(vc, false);
	else if (why[0])
		log_error("%s %s", vc->peer, why);
	return -1;
}

int vnc_dispatch(struct vnc_client *vc, enum vnc_error *err)
{
	uint64_t until;

	/* Called when poll() saw the socket readable: the first byte of what
	 * follows has arrived. Messages decoded from bytes buffered during
	 * this call get the same (earlier, so conservative) time. */
	vc->rx_ns = monotonic_ns();
	until = vc->rx_ns + DISPATCH_BUDGET_NS;
	/* Then whatever libvncclient or TLS already has, which poll()
	 * cannot see, for a while: vnc_pending() says if more is left. */
	do {
		if (one_message(vc, err) < 0)
			return -1;
		if (vc->msg_hook)
			vc->msg_hook(vc->msg_ctx);
	} while (vnc_pending(vc) && monotonic_ns() < until);
	return 0;
}

void vnc_set_message_hook(struct vnc_client *vc, void (*fn)(void *ctx),
			  void *ctx)
{
	vc->msg_hook = fn;
	vc->msg_ctx = ctx;
}

size_t vnc_unread(const struct vnc_client *vc)
{
	return vc->cl->buffered;
}

bool vnc_encrypted(const struct vnc_client *vc)
{
	return tls_anonymous(vc->cl) || tls_verified(vc->cl);
}

uint64_t vnc_update_rx_ns(const struct vnc_client *vc)
{
	return vc->rx_ns;
}

uint64_t vnc_decode_cpu_ns(const struct vnc_client *vc)
{
	return vc->rd ? rfb_reader_cpu_ns(vc->rd) : 0;
}

int vnc_ping(struct vnc_client *vc)
{
	/* Non-incremental, so the server has to answer even when nothing
	 * changed. */
	return request(vc, 0, 0, 1, 1, false);
}

uint32_t vnc_width(const struct vnc_client *vc)
{
	return vc->rd ? rfb_reader_width(vc->rd) : (uint32_t)vc->cl->width;
}

uint32_t vnc_height(const struct vnc_client *vc)
{
	return vc->rd ? rfb_reader_height(vc->rd) : (uint32_t)vc->cl->height;
}

const char *vnc_desktop_name(const struct vnc_client *vc)
{
	const char *n = vc->rd ? rfb_reader_name(vc->rd) : NULL;

	return n ? n : vc->name;
}

/* QEMU's extended key event, written here: libvncclient only sends it
 * once its own decoder has seen the pseudo-encoding. */
static bool qemu_key(struct vnc_client *vc, uint32_t keysym,
		     uint32_t scancode, bool down)
{
	uint8_t m[12] = { RFB_MSG_QEMU, RFB_QEMU_KEY, 0, down ? 1 : 0 };

	for (int i = 0; i < 4; i++) {
		m[4 + i] = (uint8_t)(keysym >> (24 - 8 * i));
		m[8 + i] = (uint8_t)(scancode >> (24 - 8 * i));
	}
	return WriteToRFBServer(vc->cl, (const char *)m, sizeof(m));
}

int vnc_send_key(struct vnc_client *vc, uint32_t keysym, uint32_t scancode,
		 bool down)
{
	rfbBool ok;

	if (vc->cfg.view_only)
		return 0;
	begin_timed(vc, "write");
	/* Without QEMU extended keys, the keysym alone goes. */
	if (scancode && vc->rd && vc->qemu_keys)
		ok = qemu_key(vc, keysym, scancode, down);
	else if (scancode && !vc->rd &&
		 SendExtendedKeyEvent(vc->cl, keysym, scancode,
				      down ? TRUE : FALSE))
		ok = TRUE;
	else
		ok = SendKeyEvent(vc->cl, keysym, down ? TRUE : FALSE);
	done(vc);
	return ok ? 0 : -1;
}

int vnc_send_pointer(struct vnc_client *vc, int x, int y, uint32_t buttons)
{
	rfbBool ok;

	if (vc->cfg.view_only)
		return 0;
	begin_timed(vc, "write");
	ok = SendPointerEvent(vc->cl, x, y, (int)buttons);
	done(vc);
	return ok ? 0 : -1;
}

int vnc_request_full(struct vnc_client *vc)
{
	return request(vc, 0, 0, (int)vnc_width(vc), (int)vnc_height(vc),
		       false);
}
