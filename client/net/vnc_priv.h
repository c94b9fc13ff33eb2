/* What the files of the libvncclient wrapper share: struct vnc_client and
 * the calls between vnc.c (the connection, its deadlines, the reader's
 * callbacks), vnc_source.c (the connection's bytes both ways),
 * vnc_security.c (security types, TLS, credentials), vnc_rsaaes.c
 * (RSA-AES under libvncclient), vnc_failure.c (libvncclient's words made one line of ours) and
 * vnc_send.c (the messages vncfb writes). It includes rfb/rfbclient.h
 * for them, and no other file includes either header
 * (tests/integration/test_rfbclient_rule.sh): the rest of vncfb sees the
 * connection only through vnc.h.
 *
 * Threads: main thread only, as everything in vnc.h. */
#ifndef VNCFB_VNC_PRIV_H
#define VNCFB_VNC_PRIV_H

#include <stdbool.h>
#include <stdint.h>

#include <rfb/rfbclient.h>

#include "util/log.h"
#include "net/pace.h"
#include "net/sectype.h"
#include "net/tlsguard.h"
#include "net/vnc.h"
#include "net/vnc_source.h"

struct guard;
struct rfb_reader;

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
	char refused_buf[512];	/* tls_refused's text when it is made */
	const uint32_t *schemes;	/* the security types offered */
	int nschemes;
	/* What the policy allows (sectype_policy), in order; its distinct
	 * first-list types are schemes[]; the type chosen, once it is. */
	const struct sectype *allowed[SECTYPE_MAX];
	size_t nallowed;
	uint32_t tops[SECTYPE_MAX];
	const struct sectype *chosen;
	int lists_seen;		/* security type lists read so far */
	bool no_user;		/* asked for a user name, we had none */
	struct tlsguard tls;	/* what libvncclient's TLS leaves behind */
	uint64_t rx_ns;		/* socket seen readable (vnc_dispatch entry) */
	/* vncfb's reader (NULL in the libvncclient reference mode) and the
	 * connection's bytes both ways (vnc_source.h). */
	struct rfb_reader *rd;
	struct vnc_stream stream;
	struct guard *guard;
	uint64_t handshake_end;	/* the handshake's deadline */
	int armed;		/* nesting of guarded work */
	const char *doing;	/* what the armed deadline is for */
	int doing_s;		/* and how long it was */
	bool qemu_keys;		/* the server takes QEMU extended keys */
	bool ext_mouse;		/* it confirmed ExtendedMouseButtons */
	void (*msg_hook)(void *ctx);	/* vnc_set_message_hook */
	void *msg_ctx;
	char name[LOG_TEXT_SIZE];	/* the desktop name, made visible */
	/* The link meter (pace.h): the stream's bytes, wait and bytes
	 * arrived while waiting when the update began; whether the next
	 * message was at hand when the last update ended. */
	struct pace *pace;
	uint64_t u_bytes0, u_wait0, u_waited0;
	/* Rectangle payload of the updates read so far (their bytes less
	 * the headers), and the reader's header count when one began. */
	uint64_t payload_bytes, u_hdr0;
	bool last_more;
	bool write_failed;	/* a paced write failed: dispatch says so */
	int fence_q;		/* quality our fence carries, -2: none */
	/* Auto-select's 8-bit colour: asked of the server (SetPixelFormat
	 * sent); in force in the reader (the answer to the fence before it
	 * came). */
	bool low, wire_low;
	/* VNCFB_PACE_TRACE set: one line on stderr per request and update
	 * (doc/network.md), times from trace0. */
	bool trace;
	uint64_t trace0;
	uint64_t ping_next;	/* next fence ping (auto-select) */
	/* The last SetEncodings in words (vnc_enc_describe) and whether it
	 * had a JPEG quality level: what a server that closes at once was
	 * offered. */
	char offered[256];
	bool offered_q;
	bool closed_early;	/* it closed before sending anything */
};

/* vnc.c: free the cursor shape libvncclient left in cl. */
void vnc_drop_cursor_buffers(rfbClient *cl);
/* vnc.c: the wrapper a libvncclient callback is for. */
struct vnc_client *vnc_from_cl(rfbClient *cl);
/* vnc.c: a message (or a write) must be over this many seconds after it
 * began (--timeout, 30 s by default). */
int vnc_timeout_s(const struct vnc_client *vc);
/* vnc.c: what follows until vnc_done() must be over within
 * vnc_timeout_s(); doing names it in the message if it is not. Nested
 * calls keep the outer deadline: a request written while a message is
 * read belongs to the message. */
void vnc_begin_timed(struct vnc_client *vc, const char *doing);
void vnc_done(struct vnc_client *vc);

/* vnc_security.c: the security types vncfb offers and the credential
 * and password hooks, set on vc->cl before the handshake. */
void vnc_security_setup(struct vnc_client *vc);
/* vnc_rsaaes.c: RSA-AES (RA2, RA2ne, RA2_256, RA2ne_256) made known to
 * libvncclient, once a process. */
void vnc_rsaaes_register(void);

/* vnc_security.c: a security type the server chose that vncfb did not
 * offer ends the handshake before libvncclient acts on it. */
void vnc_refuse_scheme(struct vnc_client *vc, uint32_t scheme);
/* vnc_security.c: after the handshake, -1 if the negotiated security is
 * not allowed (vc->tls_refused says why); else 0, with a warning for TLS
 * that cannot prove the server's identity. */
int vnc_security_check(struct vnc_client *vc);

/* vnc_security.c: the user name and password for a type that takes
 * both (VeNCrypt Plain, Apple DH, MS-Logon II, RSA-AES's user-name
 * subtype); need_user false: the password alone (RSA-AES without a user
 * name). From --username / $VNC_USERNAME / the terminal and
 * $VNCFB_PASSWORD / $VNC_PASSWORD / --password-file / the terminal, only
 * when the negotiated channel may carry them (else vc->tls_refused says
 * why). 0 with *user (NULL when !need_user) and *pass malloc'd, to be
 * wiped and freed with vnc_credentials_free; or -1, logged or with
 * vc->tls_refused / vc->no_password set. */
int vnc_credentials(struct vnc_client *vc, bool need_user, char **user,
		    char **pass);
void vnc_credentials_free(char *user, char *pass);

/* vnc_failure.c: libvncclient's log hooks installed and its last words
 * forgotten, for a new connection. */
void vnc_failure_reset(void);
/* vnc_failure.c: only its last message forgotten (before each server
 * message, so a failure is explained by what was said about it). */
void vnc_failure_forget(void);
/* vnc_failure.c: vncfb's own last word, standing in for libvncclient's. */
__attribute__((format(printf, 1, 2)))
void vnc_failure_note(const char *fmt, ...);
/* vnc_security.c: libvncclient said "We have N security types to read"
 * (vnc_failure.c's log hook): the list is in the socket; choose. */
void vnc_security_list(struct vnc_client *vc, unsigned count);

/* vnc_failure.c: vc's InitialiseRFBConnection runs from now (NULL: it is
 * over), so that the log hook can refuse a security type the server
 * dictates (vnc_refuse_scheme). */
void vnc_failure_handshaking(struct vnc_client *vc);
/* vnc_failure.c: why the connection failed, logged in one line (unless
 * it already was, or it was interrupted), as the error sessions act on. */
enum vnc_error vnc_failure_classify(struct vnc_client *vc, bool handshake);
/* vnc_failure.c: a write that failed (vnc_tick, vnc_ping), as
 * vnc_failure_classify sees the watchdog: VNC_ERR_INTERRUPTED, not
 * logged, when a quit signal or --exit-after shut the socket under it;
 * else VNC_ERR_CLOSED, logged ("write not finished after N s" at its
 * deadline). */
enum vnc_error vnc_write_error(struct vnc_client *vc);

/* vnc_send.c: cl's pixel format is f (written to the server by
 * vnc_send_format). */
void vnc_set_format(rfbClient *cl, const struct pixfmt *f);
/* vnc_send.c: SetPixelFormat and SetEncodings; false if a write failed. */
bool vnc_send_format(struct vnc_client *vc);
/* vnc_send.c: SetEncodings alone (vc->cfg.quality changed). */
bool vnc_send_encodings(struct vnc_client *vc);
/* vnc_send.c: ClientFence and EnableContinuousUpdates. 0 or -1. */
int vnc_send_fence(struct vnc_client *vc, uint32_t flags,
		   const uint8_t *payload, unsigned len);
int vnc_send_continuous(struct vnc_client *vc, bool enable, uint32_t w,
			uint32_t h);
/* vnc_send.c: a FramebufferUpdateRequest under a write deadline. 0 or
 * -1. */
int vnc_request(struct vnc_client *vc, int x, int y, int w, int h,
		bool incremental);

#endif
