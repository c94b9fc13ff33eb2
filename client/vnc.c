/* libvncclient behind struct vnc_client: connect, handshake, formats and
 * encodings, callbacks into the session, input out. The only file that
 * includes rfb/rfbclient.h. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include <jpeglib.h>
#include <rfb/rfbclient.h>
#include <setjmp.h>
#include <turbojpeg.h>

#include "clock.h"
#include "log.h"
#include "tlsguard.h"
#include "vnc.h"

/* Remote desktops larger than this are refused: RFB allows 65535x65535,
 * which would be a 16 GiB shadow. */
#define VNC_MAX_DIM 16384
#define VNC_MAX_FB_BYTES ((uint64_t)1 << 30)
/* Cursor shapes larger than this are ignored (the server's is used). */
#define VNC_MAX_CURSOR 256

struct vnc_client {
	rfbClient *cl;
	struct vnc_events ev;
	struct vnc_config cfg;
	char peer[300];		/* "host:port" for messages */
	char *encodings;	/* the string handed to libvncclient */
	bool in_handshake;
	bool resize_failed;
	bool no_password;	/* the server asked, we had none */
	bool asked_password;	/* the server wanted VNC authentication */
	const char *tls_refused;	/* why the security type was refused */
	char refused_buf[128];	/* tls_refused's text when it is made */
	const uint32_t *schemes;	/* the security types offered */
	int nschemes;
	struct tlsguard tls;	/* what libvncclient's TLS leaves behind */
	uint64_t rx_ns;		/* socket seen readable (vnc_dispatch entry) */
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
 * libvncclient 0.9.14 always offers ExtendedDesktopSize and then ignores
 * QEMU's screen id 0, so the size stays old and the next update fails with
 * "Rect too large". Offering plain DesktopSize only makes QEMU (and every
 * other server) use the path the library handles right. */
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
	bool tight = false, zlibish = false, zywrle = false;

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

		/* ZYWRLE is lossy: without --quality, its lossless sibling
		 * ZRLE takes its place. */
		if (e && e->enc == rfbEncodingZYWRLE && vc->cfg.quality < 0)
			e = find_enc("zrle", 4);
		if (e) {
			encs[n++] = (uint32_t)e->enc;
			if (e->enc == rfbEncodingZYWRLE)
				zywrle = true;
			if (e->enc == rfbEncodingUltra)
				encs[n++] = (uint32_t)rfbEncodingUltraZip;
			if (e->enc == rfbEncodingTight)
				tight = true;
			if (e->enc == rfbEncodingTight ||
			    e->enc == rfbEncodingZlib ||
			    e->enc == rfbEncodingZRLE ||
			    e->enc == rfbEncodingZYWRLE)
				zlibish = true;
		}
		p += len;
		p += strspn(p, " ,");
	}
	if (zlibish && vc->cfg.compress >= 0)
		encs[n++] = (uint32_t)(rfbEncodingCompressLevel0 +
				       vc->cfg.compress);
	if ((tight || zywrle) && vc->cfg.quality >= 0)
		encs[n++] = (uint32_t)(rfbEncodingQualityLevel0 +
				       vc->cfg.quality);
	if (vc->cfg.local_cursor) {
		encs[n++] = (uint32_t)rfbEncodingXCursor;
		encs[n++] = (uint32_t)rfbEncodingRichCursor;
		encs[n++] = (uint32_t)rfbEncodingPointerPos;
	}
	encs[n++] = (uint32_t)rfbEncodingNewFBSize;
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

static rfbBool cb_malloc_fb(rfbClient *cl)
{
	struct vnc_client *vc = from_cl(cl);
	uint64_t bytes;
	uint8_t *buf;

	if (cl->width < 0 || cl->height < 0 || cl->width > VNC_MAX_DIM ||
	    cl->height > VNC_MAX_DIM) {
		log_error("%s: remote desktop %dx%d is larger than vncfb "
			  "supports (%dx%d)",
			  vc->peer, cl->width, cl->height, VNC_MAX_DIM,
			  VNC_MAX_DIM);
		vc->resize_failed = true;
		return FALSE;
	}
	if (cl->width == 0 || cl->height == 0) {
		/* libvncclient 0.9.14 spins forever on some rectangles in a
		 * desktop with no pixels (found by the fuzzer). */
		snprintf(last_msg, sizeof(last_msg),
			 "the server announced an empty %dx%d desktop",
			 cl->width, cl->height);
		return FALSE;
	}
	bytes = (uint64_t)cl->width * (uint64_t)cl->height *
		(cl->format.bitsPerPixel / 8);
	if (bytes > VNC_MAX_FB_BYTES) {
		log_error("%s: remote desktop %dx%d needs %llu MiB, more than "
			  "the %llu MiB limit",
			  vc->peer, cl->width, cl->height,
			  (unsigned long long)(bytes >> 20),
			  (unsigned long long)(VNC_MAX_FB_BYTES >> 20));
		vc->resize_failed = true;
		return FALSE;
	}
	buf = vc->ev.resize(vc->ev.ctx, (uint32_t)cl->width,
			    (uint32_t)cl->height);
	if (!buf) {
		vc->resize_failed = true;
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

struct jpeg_guard {
	struct jpeg_error_mgr mgr;
	jmp_buf env;
};

static void jpeg_fail(j_common_ptr ci)
{
	struct jpeg_guard *g = (struct jpeg_guard *)ci->err;

	longjmp(g->env, 1);
}

static void jpeg_quiet(j_common_ptr ci, int level)
{
}

/* Tight JPEG rectangles, decoded here instead of by libvncclient: its
 * bundled TurboJPEG wrapper (0.9.14) underflows bytes_in_buffer when a
 * marker's length runs past the data, and libjpeg then reads wild memory
 * (a 100-byte rectangle crashes the client; tests/hostile-input.md), and
 * its 16 bpp path decodes w*h*3 bytes into a 300 KiB buffer. libjpeg's
 * own memory source is safe. The library hands us buffer to free. */
static rfbBool cb_jpeg(rfbClient *cl, const uint8_t *buffer, int length,
		       int x, int y, int w, int h)
{
	struct vnc_client *vc = from_cl(cl);
	struct jpeg_decompress_struct ci;
	struct jpeg_guard g;
	struct pixfmt bgr;
	size_t bpp = cl->format.bitsPerPixel / 8;
	size_t pitch = (size_t)cl->width * bpp;
	uint8_t *volatile row = NULL;
	rfbBool ok = FALSE;

	pixfmt_from_name("rgb888", &bgr);	/* B,G,R bytes in memory */
	ci.err = jpeg_std_error(&g.mgr);
	g.mgr.error_exit = jpeg_fail;
	g.mgr.emit_message = jpeg_quiet;
	jpeg_create_decompress(&ci);
	if (setjmp(g.env)) {
		char why[JMSG_LENGTH_MAX];

		g.mgr.format_message((j_common_ptr)&ci, why);
		snprintf(last_msg, sizeof(last_msg),
			 "invalid JPEG data in a Tight rectangle: %s", why);
		goto out;
	}
	if (length <= 0 || !cl->frameBuffer || x < 0 || y < 0 || w <= 0 ||
	    h <= 0 || x + w > cl->width || y + h > cl->height) {
		snprintf(last_msg, sizeof(last_msg),
			 "Tight JPEG rectangle %dx%d at %d,%d is outside the "
			 "desktop", w, h, x, y);
		goto out;
	}
	jpeg_mem_src(&ci, (unsigned char *)buffer, (unsigned long)length);
	jpeg_read_header(&ci, TRUE);
	if (ci.image_width != (JDIMENSION)w ||
	    ci.image_height != (JDIMENSION)h) {
		snprintf(last_msg, sizeof(last_msg),
			 "Tight JPEG image is %ux%u in a %dx%d rectangle",
			 (unsigned)ci.image_width, (unsigned)ci.image_height, w,
			 h);
		goto out;
	}
	ci.out_color_space = JCS_EXT_BGR;
	jpeg_start_decompress(&ci);
	if (ci.output_components != 3 || ci.output_width != (JDIMENSION)w) {
		snprintf(last_msg, sizeof(last_msg),
			 "Tight JPEG image has an unexpected layout");
		goto out;
	}
	row = malloc((size_t)w * 3);
	if (!row) {
		snprintf(last_msg, sizeof(last_msg), "out of memory");
		goto out;
	}
	while (ci.output_scanline < ci.output_height) {
		JSAMPROW rp = row;
		size_t line = ci.output_scanline;

		if (jpeg_read_scanlines(&ci, &rp, 1) != 1)
			break;
		pixfmt_convert_row(&vc->cfg.fmt,
				   cl->frameBuffer + (size_t)(y + line) * pitch +
					   (size_t)x * bpp,
				   &bgr, row, (size_t)w);
	}
	jpeg_finish_decompress(&ci);
	ok = TRUE;
out:
	jpeg_destroy_decompress(&ci);
	free(row);
	free((void *)buffer);
	return ok;
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
 * dropped and the socket shut, so its next read fails. */
static void refuse_scheme(struct vnc_client *vc, uint32_t scheme)
{
	int i;

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
	if (vc->cfg.get_password)
		pw = vc->cfg.get_password(vc->cfg.password_ctx);
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
	if (w <= 0 || h <= 0 || w > VNC_MAX_CURSOR || h > VNC_MAX_CURSOR ||
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
static int tcp_connect(const char *host, int port, int timeout_ms,
		       const char *peer, enum vnc_error *err)
{
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
		struct pollfd pfd;
		int flags, soerr = 0;
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
		pfd.fd = fd;
		pfd.events = POLLOUT;
		do
			ret = poll(&pfd, 1, timeout_ms);
		while (ret < 0 && errno == EINTR);
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

	if (vc->resize_failed)
		return VNC_ERR_RESOURCE;
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

/* A stalled server (stopped, or a dead link) must not block a read
 * forever. libvncclient 0.9.14 gives up after readTimeout * 10 + 1 reads
 * that return EAGAIN, sleeping 100 ms after each; on a non-blocking socket
 * that sleep would delay every message split across packets. So the
 * socket stays blocking (a read returns as soon as data is there) with a
 * receive timeout of a 11th of the limit, and readTimeout is 1: 11 such
 * reads make about secs. */
static void set_read_timeout(rfbClient *cl, int fd, int secs)
{
	long ms = (long)secs * 1000 / 11;
	struct timeval tv;

	if (ms < 100)
		ms = 100;
	tv.tv_sec = ms / 1000;
	tv.tv_usec = (ms % 1000) * 1000;
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0)
		log_warn("setsockopt SO_RCVTIMEO: %s", strerror(errno));
	cl->readTimeout = 1;
}

/* A read on a socket with SO_RCVTIMEO is not restarted after a signal
 * handler (SA_RESTART or not), and libvncclient takes the EINTR for a
 * broken connection. So signals stay blocked on this thread while
 * libvncclient reads; they wait (at most the read timeout) and then reach
 * their handlers, which only write to a pipe. Faults are never blocked. */
static void hold_signals(sigset_t *old)
{
	sigset_t set;

	sigfillset(&set);
	sigdelset(&set, SIGSEGV);
	sigdelset(&set, SIGBUS);
	sigdelset(&set, SIGILL);
	sigdelset(&set, SIGFPE);
	sigdelset(&set, SIGABRT);
	pthread_sigmask(SIG_BLOCK, &set, old);
}

static void release_signals(const sigset_t *old)
{
	pthread_sigmask(SIG_SETMASK, old, NULL);
}

/* The RFB handshake over a connected fd (owned from here on). 0, or -1
 * with the reason logged and *err set; then fd is closed. */
static int handshake(struct vnc_client *vc, int fd, enum vnc_error *err)
{
	const struct vnc_config *cfg = &vc->cfg;
	rfbClient *cl;
	sigset_t sigs;
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
	set_read_timeout(cl, fd, cfg->read_timeout_s > 0 ? cfg->read_timeout_s
							 : 30);
	set_format(cl, &cfg->fmt);
	cl->sock = fd;
	free(cl->serverHost);
	cl->serverHost = strdup(cfg->host ? cfg->host : "");
	cl->serverPort = cfg->port;
	cl->canHandleNewFBSize = TRUE;
	cl->appData.encodingsString = vc->encodings;
	cl->appData.compressLevel = cfg->compress;
	/* libvncclient derives the ZYWRLE level it decodes with from this
	 * (3 - q / 3); libvncserver encodes with 3 for q 0-2, 2 for 3-5 and
	 * 1 for 6-9. They agree for 0-8 only, and tight JPEG ignores it. */
	cl->appData.qualityLevel = cfg->quality >= 0 && cfg->quality < 9
					   ? cfg->quality
					   : 8;
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
	cl->GotJpeg = cb_jpeg;
	cl->GotCursorShape = cb_cursor_shape;
	cl->HandleCursorPos = cb_cursor_pos;
	cl->Bell = cb_bell;
	cl->GotXCutText = cb_cut_text;

	vc->in_handshake = true;
	tlsguard_arm(&vc->tls);
	hold_signals(&sigs);
	handshaking = vc;
	ok = InitialiseRFBConnection(cl);
	handshaking = NULL;
	release_signals(&sigs);
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
	cl->width = cl->si.framebufferWidth;
	cl->height = cl->si.framebufferHeight;
	if (!cl->MallocFrameBuffer(cl)) {
		*err = classify_failure(vc, true);
		goto err_client;
	}
	if (!send_format_and_encodings(vc) ||
	    !SendFramebufferUpdateRequest(cl, 0, 0, cl->width, cl->height,
					  FALSE)) {
		*err = classify_failure(vc, true);
		goto err_client;
	}
	vc->in_handshake = false;
	log_sanitize(vc->name, cl->desktopName ? cl->desktopName : "",
		     cl->desktopName ? strlen(cl->desktopName) : 0);
	log_info("connected to %s (\"%s\", %dx%d)", vc->peer, vc->name,
		 cl->width, cl->height);
	return 0;

err_client:
	client_cleanup(cl);
	vc->cl = NULL;
	if (*err == VNC_OK)
		*err = VNC_ERR_RESOURCE;
	return -1;
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
	fd = tcp_connect(cfg->host, cfg->port,
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
	client_cleanup(vc->cl);
	client_free(vc);
}

int vnc_fd(const struct vnc_client *vc)
{
	return vc->cl->sock;
}

int vnc_dispatch(struct vnc_client *vc, enum vnc_error *err)
{
	rfbClient *cl = vc->cl;
	sigset_t sigs;

	/* Called when poll() saw the socket readable: the first byte of what
	 * follows has arrived. Messages decoded from bytes buffered during
	 * this call get the same (earlier, so conservative) time. */
	vc->rx_ns = monotonic_ns();
	/* One message per call, then whatever libvncclient already has in
	 * its buffer: poll() cannot see those bytes. */
	hold_signals(&sigs);
	do {
		last_msg[0] = '\0';
		if (!HandleRFBServerMessage(cl)) {
			release_signals(&sigs);
			*err = classify_failure(vc, false);
			return -1;
		}
		if (vc->msg_hook)
			vc->msg_hook(vc->msg_ctx);
	} while (cl->buffered > 0);
	release_signals(&sigs);
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

int vnc_ping(struct vnc_client *vc)
{
	/* Non-incremental, so the server has to answer even when nothing
	 * changed. */
	return SendFramebufferUpdateRequest(vc->cl, 0, 0, 1, 1, FALSE) ? 0
									 : -1;
}

uint32_t vnc_width(const struct vnc_client *vc)
{
	return (uint32_t)vc->cl->width;
}

uint32_t vnc_height(const struct vnc_client *vc)
{
	return (uint32_t)vc->cl->height;
}

const char *vnc_desktop_name(const struct vnc_client *vc)
{
	return vc->name;
}

int vnc_send_key(struct vnc_client *vc, uint32_t keysym, uint32_t scancode,
		 bool down)
{
	if (vc->cfg.view_only)
		return 0;
	/* SendExtendedKeyEvent fails when the server never offered QEMU
	 * extended keys; then the keysym alone goes. */
	if (scancode &&
	    SendExtendedKeyEvent(vc->cl, keysym, scancode, down ? TRUE : FALSE))
		return 0;
	return SendKeyEvent(vc->cl, keysym, down ? TRUE : FALSE) ? 0 : -1;
}

int vnc_send_pointer(struct vnc_client *vc, int x, int y, uint32_t buttons)
{
	if (vc->cfg.view_only)
		return 0;
	return SendPointerEvent(vc->cl, x, y, (int)buttons) ? 0 : -1;
}

int vnc_request_full(struct vnc_client *vc)
{
	return SendFramebufferUpdateRequest(vc->cl, 0, 0, vc->cl->width,
					    vc->cl->height, FALSE)
		       ? 0
		       : -1;
}
