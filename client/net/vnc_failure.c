/* libvncclient's words made one line of ours: its two global log hooks
 * keep its last message, and a failure is explained from it and from
 * what the wrapper knows (the watchdog, the security policy, the
 * password). Part of the libvncclient wrapper (vnc_priv.h). */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "net/guard.h"
#include "net/vnc_enc.h"
#include "util/log.h"
#include "net/vnc_priv.h"

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
		vnc_refuse_scheme(handshaking, (uint32_t)scheme);
	}
	/* The server's list of security types follows: vncfb chooses from
	 * it (libvncclient would take the server's first). */
	if (handshaking &&
	    strcmp(fmt, "We have %d security types to read\n") == 0) {
		int count;

		va_start(ap, fmt);
		count = va_arg(ap, int);
		va_end(ap);
		vnc_security_list(handshaking, (unsigned)count);
	}
}

void vnc_failure_reset(void)
{
	rfbClientLog = lib_log;
	rfbClientErr = lib_log;
	last_msg[0] = '\0';
	cert_msg[0] = '\0';
	reason[0] = '\0';
}

void vnc_failure_forget(void)
{
	last_msg[0] = '\0';
}

void vnc_failure_note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last_msg, sizeof(last_msg), fmt, ap);
	va_end(ap);
}

void vnc_failure_handshaking(struct vnc_client *vc)
{
	handshaking = vc;
}

/* What the watchdog made of the connection, logged once: a quit signal
 * or --exit-after (the session's orderly end, not an error), the
 * deadline of what it was doing, or VNC_OK when it did not fire. */
static enum vnc_error guard_error(struct vnc_client *vc)
{
	enum guard_why g = vc->guard ? guard_fired(vc->guard) : GUARD_NONE;

	if (g == GUARD_ABORT || g == GUARD_END)
		return VNC_ERR_INTERRUPTED;
	if (g == GUARD_DEADLINE) {
		log_error("%s: %s not finished after %d s", vc->peer,
			  vc->doing ? vc->doing : "handshake", vc->doing_s);
		return VNC_ERR_CLOSED;
	}
	return VNC_OK;
}

enum vnc_error vnc_write_error(struct vnc_client *vc)
{
	enum vnc_error e = guard_error(vc);

	if (e != VNC_OK)
		return e;
	log_error("%s: writing to the server failed", vc->peer);
	return VNC_ERR_CLOSED;
}

bool vnc_wants_jpeg(const struct vnc_client *vc)
{
	return vc->closed_early && vc->cfg.auto_select && !vc->offered_q;
}

/* The server closed the connection before a message of its own, right
 * after the handshake (SetEncodings went with it): PiKVM's kvmd does so
 * to a client that offers no JPEG quality level. What vncfb offered, and
 * under auto-select the next connection offers one (the session). */
static enum vnc_error closed_at_once(struct vnc_client *vc)
{
	const char *what = "closed the connection right after the "
			   "handshake, before sending anything";

	vc->closed_early = true;
	if (vnc_wants_jpeg(vc))
		log_warn("%s %s, when offered %s (PiKVM closes so): "
			 "connecting again with JPEG quality %d%s",
			 vc->peer, what, vc->offered, VNC_JPEG_NEEDED_Q,
			 vnc_encodings_name(vc->encodings, "h264")
			     ? " and Open H.264"
			     : "");
	else
		log_error("%s %s; vncfb offered %s%s", vc->peer, what,
			  vc->offered,
			  vc->offered_q ? ""
					: " (PiKVM requires Tight with a JPEG "
					  "quality level: --quality N)");
	return VNC_ERR_CLOSED;
}

/* Turn libvncclient's last words into our one line. */
enum vnc_error vnc_failure_classify(struct vnc_client *vc, bool handshake)
{
	const char *m = last_msg;
	enum vnc_error e = guard_error(vc);

	if (e != VNC_OK)
		return e;
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
	if (vc->no_user) {
		log_error("%s asks for a user name and none was given (use "
			  "--username NAME or VNC_USERNAME)",
			  vc->peer);
		return VNC_ERR_AUTH;
	}
	if (vc->no_password) {
		log_error("%s asks for a password and none was given (use "
			  "--password-file FILE, --passwd FILE or "
			  "VNCFB_PASSWORD)",
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
			  vnc_timeout_s(vc),
			  handshake ? " during the handshake" : "");
		return VNC_ERR_CLOSED;
	}
	if (strstr(m, "closed connection") || strstr(m, "read (") ||
	    m[0] == '\0') {
		if (!handshake && vc->rd && !vc->stream.rx_bytes)
			return closed_at_once(vc);
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
