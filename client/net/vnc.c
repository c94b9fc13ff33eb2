/* libvncclient behind struct vnc_client: connect, handshake (under a
 * watchdog), the deadlines, the reader's callbacks, the reference mode's.
 * The wrapper's main file; the connection's bytes (vnc_source.c),
 * security, failure messages and what vncfb writes are its siblings
 * (vnc_priv.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <turbojpeg.h>

#include "util/clock.h"
#include "net/guard.h"
#include "util/log.h"
#include "wire/rfb.h"
#include "reader/rfbread.h"
#include "net/tlsguard.h"
#include "net/vnc.h"
#include "net/vnc_enc.h"
#include "net/vnc_priv.h"
#include "net/vnc_tcp.h"

/* The handshake's deadline is at least this (the --timeout if longer). */
#define HANDSHAKE_MIN_S 15
/* vnc_dispatch hands the loop back after this much work at most. */
#define DISPATCH_BUDGET_NS 30000000ull

static int client_tag;

struct vnc_client *vnc_from_cl(rfbClient *cl)
{
	return rfbClientGetClientData(cl, &client_tag);
}

/* --- Deadlines: the watchdog (guard.h) bounds every blocking step --- */

int vnc_timeout_s(const struct vnc_client *vc)
{
	return vc->cfg.read_timeout_s > 0 ? vc->cfg.read_timeout_s : 30;
}

/* The handshake's: the longer of the --timeout and HANDSHAKE_MIN_S. */
static int handshake_s(const struct vnc_client *vc)
{
	return vnc_timeout_s(vc) > HANDSHAKE_MIN_S ? vnc_timeout_s(vc)
						   : HANDSHAKE_MIN_S;
}

/* What follows until vnc_done() must be over by deadline (monotonic ns);
 * the outer deadline holds for nested calls (vnc_priv.h). */
static void begin(struct vnc_client *vc, const char *doing, uint64_t deadline,
		  int secs)
{
	if (vc->armed++ || !vc->guard)
		return;
	vc->doing = doing;
	vc->doing_s = secs;
	guard_arm(vc->guard, deadline);
}

void vnc_begin_timed(struct vnc_client *vc, const char *doing)
{
	begin(vc, doing,
	      monotonic_ns() + (uint64_t)vnc_timeout_s(vc) * 1000000000u,
	      vnc_timeout_s(vc));
}

void vnc_done(struct vnc_client *vc)
{
	if (--vc->armed == 0 && vc->guard)
		guard_arm(vc->guard, 0);
}

/* libvncclient 0.9.14 mallocs a new rcMask for every shape without
 * freeing the old one (a leak per cursor change, found by the fuzzer), so
 * the shape buffers are freed once the session has copied them (the
 * reference loop's cursor callback) and at cleanup. */
void vnc_drop_cursor_buffers(rfbClient *cl)
{
	free(cl->rcSource);
	cl->rcSource = NULL;
	free(cl->rcMask);
	cl->rcMask = NULL;
}

/* rfbClientCleanup in 0.9.14 forgets the cursor shape buffers and the
 * Tight JPEG decompressor; free them so reconnects do not leak (found by
 * the fuzz replay under LeakSanitizer, see tests/hostile-input.md). The
 * frame buffer is the session's shadow, not ours to free. */
static void client_cleanup(rfbClient *cl)
{
	struct vnc_client *vc = vnc_from_cl(cl);

	vnc_drop_cursor_buffers(cl);
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

	vnc_failure_reset();

	vc = calloc(1, sizeof(*vc));
	if (!vc)
		goto err_nomem;
	vc->cfg = *cfg;
	vc->ev = *ev;
	vnc_tcp_peer(vc->peer, sizeof(vc->peer), cfg->host ? cfg->host : "",
		     cfg->port);
	/* A server that closed on a list without a JPEG quality level
	 * (vnc_wants_jpeg) is offered one from the start. */
	if (cfg->jpeg_needed && cfg->auto_select && cfg->quality < 0)
		vc->cfg.quality = VNC_JPEG_NEEDED_Q;
	vc->encodings = strdup(cfg->encodings ? cfg->encodings
					      : vnc_default_encodings());
	if (!vc->encodings)
		goto err_free_vc;
	if (pace_create(&vc->pace) < 0)
		goto err_free_encodings;
	tlsguard_init(&vc->tls, cfg->host ? cfg->host : "", vc->peer,
		      cfg->insecure);
	return vc;

err_free_encodings:
	free(vc->encodings);
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
	pace_destroy(vc->pace);
	vnc_stream_free(&vc->stream);
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

/* --- vncfb's reader's hooks into the connection --- */

/* VNCFB_PACE_TRACE's line at now: "pace T.TTT EVENT ...", then the
 * pacer's state. */
__attribute__((format(printf, 3, 4))) static void
trace(struct vnc_client *vc, uint64_t now, const char *fmt, ...)
{
	const struct pace *p = vc->pace;
	char what[120];
	va_list ap;

	if (!vc->trace)
		return;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	fprintf(stderr,
		"pace %.3f %s in-flight %u target %u rtt %.1f ms rate %.3g "
		"Mbit/s\n",
		(double)(now - vc->trace0) / 1e9, what, pace_inflight(p),
		pace_target(p), (double)pace_rtt_ns(p) / 1e6,
		pace_rate(p) * 8 / 1e6);
}

/* A request, counted in flight. */
static int send_request(struct vnc_client *vc, bool incremental)
{
	uint64_t now;

	if (vnc_request(vc, 0, 0, (int)vnc_width(vc), (int)vnc_height(vc),
			incremental) < 0)
		return -1;
	now = monotonic_ns();
	pace_sent(vc->pace, now);
	trace(vc, now, "request%s", incremental ? "" : " full");
	return 0;
}

/* The reader asks for the next update as one arrives: that replaces the
 * request it answers, unless the requests still in flight are as many
 * as the link needs (the pacer); vnc_tick sends the others, spread. */
static int rd_request(void *ctx, bool incremental, uint32_t w, uint32_t h)
{
	struct vnc_client *vc = ctx;

	(void)w;
	(void)h;
	if (incremental && !vc->cfg.wrap_fd && !pace_may_request(vc->pace))
		return 0;
	return send_request(vc, incremental);
}

/* Bytes of the next message are at hand: libvncclient or TLS holds some,
 * or the socket is readable. */
static bool rd_more(void *ctx)
{
	struct vnc_client *vc = ctx;
	struct pollfd pfd = { .fd = vc->cl->sock, .events = POLLIN };

	vc->last_more = vnc_pending(vc) || poll(&pfd, 1, 0) > 0;
	return vc->last_more;
}

static int rd_fence(void *ctx, uint32_t flags, const uint8_t *payload,
		    unsigned len)
{
	return vnc_send_fence(ctx, flags, payload, len);
}

static int rd_continuous(void *ctx, bool enable, uint32_t w, uint32_t h)
{
	struct vnc_client *vc = ctx;

	/* The requests in flight stay counted: the first update answers
	 * the first request, the one round trip continuous updates let
	 * vncfb time (auto-select needs it); no more are sent. */
	return vnc_send_continuous(vc, enable, w, h);
}

/* Our fences carry this tag and the quality they announce. */
static const uint8_t fence_tag[5] = { 'v', 'n', 'c', 'f', 'b' };

/* Auto-select's fence pings, this often: the tag, 'p', the send time. */
#define PING_NS 1000000000ull

/* Auto-select's 8-bit colour on the wire. */
static void low_format(struct pixfmt *f)
{
	pixfmt_from_name("rgb332", f);
}

/* The answer to the fence sent before SetPixelFormat: rectangles from
 * here on are in the new format. The picture in it is asked for whole
 * (the server's region of what changed was in the old format). 0 or
 * -1. */
static int wire_switch(struct vnc_client *vc, bool low)
{
	struct pixfmt f;

	if (low == vc->wire_low)
		return 0;
	low_format(&f);
	if (rfb_reader_set_wire(vc->rd, low ? &f : NULL) < 0)
		return -1;
	vc->wire_low = low;
	return send_request(vc, false) < 0 ? -1 : 0;
}

static int rd_fence_answer(void *ctx, uint32_t flags, const uint8_t *payload,
			   unsigned len)
{
	struct vnc_client *vc = ctx;

	(void)flags;
	if (len == sizeof(fence_tag) + 9 &&
	    !memcmp(payload, fence_tag, sizeof(fence_tag)) &&
	    payload[sizeof(fence_tag)] == 'p') {
		uint64_t sent = 0, now = monotonic_ns();

		for (unsigned i = 0; i < 8; i++)
			sent = sent << 8 | payload[sizeof(fence_tag) + 1 + i];
		if (sent <= now)
			pace_probe(vc->pace, now - sent);
		return 0;
	}
	if (len != sizeof(fence_tag) + 2 ||
	    memcmp(payload, fence_tag, sizeof(fence_tag)) != 0 ||
	    (int8_t)payload[len - 2] != vc->fence_q)
		return 0;
	if (wire_switch(vc, payload[len - 1] == '8') < 0)
		return -1;
	/* Updates from here on are in the new setting: measure those. */
	vc->fence_q = -2;
	pace_auto_start(vc->pace, vc->cfg.quality, monotonic_ns());
	return 0;
}

static void rd_update_begin(void *ctx)
{
	struct vnc_client *vc = ctx;
	unsigned before = pace_target(vc->pace);

	uint64_t now = monotonic_ns();
	unsigned n = pace_inflight(vc->pace);

	/* Pushed updates (or none asked for while paused) time the round
	 * trip of what was in flight, but no requests follow from them. */
	if (rfb_reader_asks(vc->rd))
		pace_update_begin(vc->pace, now, vc->last_more);
	else
		pace_update_pushed(vc->pace, now, vc->last_more);
	trace(vc, now, "update-begin%s retired %u",
	      vc->last_more ? " queued" : "", n - pace_inflight(vc->pace));
	if (pace_target(vc->pace) != before)
		log_debug("%u update requests in flight (round trip %.1f ms, "
			  "%.3g Mbit/s)",
			  pace_target(vc->pace),
			  (double)pace_rtt_ns(vc->pace) / 1e6,
			  pace_rate(vc->pace) * 8 / 1e6);
	vc->u_bytes0 = vc->stream.rx_bytes;
	vc->u_waited0 = vc->stream.waited_bytes;
	vc->u_wait0 = vc->stream.wait_ns;
}

/* Auto-select moved to quality q, in 8-bit colour or not (low):
 * SetPixelFormat when that changed, and SetEncodings, behind a fence of
 * ours when the server has fences, so that the measurements start again
 * with the first update in the new setting (SyncNext: the server answers
 * once it has taken the message after the fence). A format changes only
 * behind one (pace.low_ok): updates before the answer are in the old
 * format, those after it in the new. */
static void set_quality(struct vnc_client *vc, int q, bool low, const char *why)
{
	uint8_t payload[sizeof(fence_tag) + 2];
	bool fence = vc->rd && rfb_reader_fences(vc->rd);
	struct pixfmt f;
	bool ok;

	log_info("%s: %s", vc->peer, why);
	if (vc->ev.note)
		vc->ev.note(vc->ev.ctx, why);
	vc->cfg.quality = q;
	memcpy(payload, fence_tag, sizeof(fence_tag));
	payload[sizeof(fence_tag)] = (uint8_t)(int8_t)q;
	payload[sizeof(fence_tag) + 1] = low ? '8' : 'f';
	if (fence &&
	    vnc_send_fence(vc, RFB_FENCE_REQUEST | RFB_FENCE_SYNC_NEXT,
			   payload, sizeof(payload)) < 0)
		vc->write_failed = true;
	vnc_begin_timed(vc, "write");
	if (fence && low != vc->low) {
		low_format(&f);
		vnc_set_format(vc->cl, low ? &f : &vc->cfg.fmt);
		vc->low = low;
		ok = vnc_send_format(vc);
	} else {
		ok = vnc_send_encodings(vc);
	}
	if (!ok)
		vc->write_failed = true;
	vnc_done(vc);
	if (fence) {
		vc->fence_q = q;
		pace_auto_stop(vc->pace);
	} else {
		pace_auto_start(vc->pace, q, monotonic_ns());
	}
}

static void rd_update_end(void *ctx, bool answers)
{
	struct vnc_client *vc = ctx;
	uint64_t now = monotonic_ns();
	char why[160];
	int q;

	if (!answers) {
		pace_update_void(vc->pace);
		trace(vc, now, "update-void");
	}

	pace_update_end(vc->pace, now, vc->stream.rx_bytes - vc->u_bytes0,
			vc->stream.waited_bytes - vc->u_waited0,
			vc->stream.wait_ns - vc->u_wait0);
	trace(vc, now,
	      "update-end %llu bytes over %.1f ms waited %llu in %.1f ms%s",
	      (unsigned long long)(vc->stream.rx_bytes - vc->u_bytes0),
	      (double)(now - pace_update_began(vc->pace)) / 1e6,
	      (unsigned long long)(vc->stream.waited_bytes - vc->u_waited0),
	      (double)(vc->stream.wait_ns - vc->u_wait0) / 1e6,
	      pace_last_limited(vc->pace) ? " limited" : "");
	if (!vc->cfg.auto_select)
		return;
	/* 8-bit colour needs a fence to mark where the format changes,
	 * and a user who did not ask for full colour. */
	pace_allow_low(vc->pace, rfb_reader_fences(vc->rd) &&
				     !vc->cfg.full_colour);
	q = pace_choose(vc->pace, now, why, sizeof(why));
	if (q != vc->cfg.quality || pace_low(vc->pace) != vc->low)
		set_quality(vc, q, pace_low(vc->pace), why);
}

static void rd_qemu_keys(void *ctx)
{
	struct vnc_client *vc = ctx;

	if (!vc->qemu_keys)
		log_debug("%s takes QEMU extended key events", vc->peer);
	vc->qemu_keys = true;
}

static void rd_ext_mouse(void *ctx)
{
	struct vnc_client *vc = ctx;

	if (!vc->ext_mouse)
		log_debug("%s takes back and forward buttons "
			  "(ExtendedMouseButtons)",
			  vc->peer);
	vc->ext_mouse = true;
}

static const struct rfb_reader_ops rd_ops = {
	.request = rd_request,
	.qemu_keys = rd_qemu_keys,
	.more = rd_more,
	.fence = rd_fence,
	.continuous = rd_continuous,
	.fence_answer = rd_fence_answer,
	.update_begin = rd_update_begin,
	.update_end = rd_update_end,
	.ext_mouse = rd_ext_mouse,
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
	vnc_stream_init(&vc->stream, cl, vc->guard);
	if (vc->cfg.reference) {
		if (vc->cfg.reference->start(vc) < 0) {
			*err = vnc_failure_classify(vc, true);
			return -1;
		}
	} else {
		vc->rd = rfb_reader_create(&vc->cfg.fmt,
					   vnc_stream_in(&vc->stream), &vc->ev,
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
		rfb_reader_set_copies_direct(vc->rd, vc->cfg.copies_direct);
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
	pace_init(vc->pace, monotonic_ns());
	if (vc->cfg.jpeg_needed)
		pace_set_best(vc->pace, VNC_JPEG_NEEDED_Q);
	vc->trace = getenv("VNCFB_PACE_TRACE") != NULL;
	vc->trace0 = pace_update_began(vc->pace);
	vc->fence_q = -2;
	/* A new connection starts in the shadow's format (handshake). */
	vc->low = vc->wire_low = false;
	if (vc->cfg.auto_select && vc->rd) {
		pace_auto_start(vc->pace, vc->cfg.quality, monotonic_ns());
		if (vc->cfg.jpeg_needed)
			log_info("%s: JPEG quality %d to start with; "
				 "auto-select follows the link up to it (the "
				 "server closed on a lossless offer)",
				 vc->peer, VNC_JPEG_NEEDED_Q);
		else
			log_info("%s: %s to start with; auto-select follows "
				 "the link (no --encodings or --quality "
				 "given)",
				 vc->peer,
				 vc->cfg.quality < 0 ? "lossless" : "JPEG");
	}
	ok = vnc_send_format(vc) &&
	     vnc_request(vc, 0, 0, cl->width, cl->height, false) == 0;
	if (ok)
		pace_sent(vc->pace, monotonic_ns());
	if (!ok) {
		*err = vnc_failure_classify(vc, true);
		return -1;
	}
	return 0;
}

static void close_client(struct vnc_client *vc)
{
	/* The reader first: its pool's workers may still be decoding, and
	 * each asks the watchdog whether to give up (vnc_source.c). Then
	 * the watchdog, before the fd is closed: it must never shut down a
	 * reused fd. (The other way round, a worker read the freed guard:
	 * a SIGSEGV in CI when a server went away mid-update.) */
	rfb_reader_destroy(vc->rd);
	vc->rd = NULL;
	guard_stop(vc->guard);
	vc->guard = NULL;
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
	vnc_set_format(cl, &cfg->fmt);
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
	vnc_security_setup(vc);
	if (cfg->reference)
		cfg->reference->setup(vc);

	vc->guard = guard_start(fd, cfg->abort_fd, cfg->end_ns);
	if (!vc->guard) {
		*err = VNC_ERR_RESOURCE;
		goto err_client;
	}
	vc->in_handshake = true;
	begin(vc, "handshake", vc->handshake_end, handshake_s(vc));
	tlsguard_arm(&vc->tls);
	vnc_failure_handshaking(vc);
	ok = InitialiseRFBConnection(cl);
	vnc_failure_handshaking(NULL);
	tlsguard_disarm(&vc->tls);
	if (!ok) {
		*err = vnc_failure_classify(vc, true);
		goto err_client;
	}
	if (vnc_security_check(vc) < 0) {
		*err = vnc_failure_classify(vc, true);
		goto err_client;
	}
	if (start_session(vc, err) < 0)
		goto err_client;
	vnc_done(vc);
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

static uint64_t handshake_deadline(const struct vnc_client *vc)
{
	return monotonic_ns() + (uint64_t)handshake_s(vc) * 1000000000u;
}

struct vnc_client *vnc_connect(const struct vnc_config *cfg,
			       const struct vnc_events *ev,
			       enum vnc_error *err)
{
	int connect_ms =
	    cfg->connect_timeout_ms > 0 ? cfg->connect_timeout_ms : 15000;
	struct vnc_tcp_dest dst = { cfg->host, cfg->port, cfg->abort_fd,
				    cfg->end_ns };
	struct vnc_client *vc;
	int fd;

	*err = VNC_OK;
	vc = client_new(cfg, ev);
	if (!vc) {
		*err = VNC_ERR_RESOURCE;
		return NULL;
	}
	vc->handshake_end = handshake_deadline(vc);
	fd = vnc_tcp_connect(&dst, connect_ms, vc->peer, err);
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
	vc->handshake_end = handshake_deadline(vc);
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

/* Whether vncfb's requests set the pace (not continuous updates, not
 * paused, not the reference mode, not vncfb bench --record: a recording
 * keeps one request in flight, so that each update is what the server
 * had when the last one was decoded, as the replay tables assume). */
static bool paced(const struct vnc_client *vc)
{
	return vc->rd && !vc->cfg.wrap_fd && rfb_reader_asks(vc->rd);
}

int vnc_poll_timeout(const struct vnc_client *vc, int timeout_ms)
{
	uint64_t next;

	if (vnc_pending(vc) || vc->write_failed)
		return 0;
	if (vc->cfg.auto_select && vc->rd && rfb_reader_fences(vc->rd)) {
		uint64_t now = monotonic_ns();
		int p = vc->ping_next > now
				? (int)((vc->ping_next - now) / 1000000u) + 1
				: 0;

		if (timeout_ms < 0 || p < timeout_ms)
			timeout_ms = p;
	}
	if (!paced(vc))
		return timeout_ms;
	next = pace_next_ns(vc->pace, monotonic_ns());
	if (next == UINT64_MAX)
		return timeout_ms;
	next = (next + 999999) / 1000000;
	return timeout_ms >= 0 && (uint64_t)timeout_ms < next ? timeout_ms
							      : (int)next;
}

/* Auto-select tells the wire from a busy server by the round trip of
 * fences with no flags, which a server answers as soon as it reads them
 * (pace.h): one a second. */
static void ping(struct vnc_client *vc, uint64_t now)
{
	uint8_t m[sizeof(fence_tag) + 9];

	if (!vc->cfg.auto_select || !vc->rd || !rfb_reader_fences(vc->rd) ||
	    now < vc->ping_next)
		return;
	vc->ping_next = now + PING_NS;
	memcpy(m, fence_tag, sizeof(fence_tag));
	m[sizeof(fence_tag)] = 'p';
	for (unsigned i = 0; i < 8; i++)
		m[sizeof(fence_tag) + 1 + i] = (uint8_t)(now >> (56 - 8 * i));
	if (vnc_send_fence(vc, RFB_FENCE_REQUEST, m, sizeof(m)) < 0)
		vc->write_failed = true;
}

int vnc_tick(struct vnc_client *vc, enum vnc_error *err)
{
	ping(vc, monotonic_ns());
	while (!vc->write_failed && paced(vc) &&
	       pace_request_due(vc->pace, monotonic_ns()))
		if (send_request(vc, true) < 0)
			vc->write_failed = true;
	if (!vc->write_failed)
		return 0;
	*err = vnc_write_error(vc);
	return -1;
}

int vnc_pause(struct vnc_client *vc, bool pause)
{
	int ret = 0;

	if (!vc->rd || rfb_reader_paused(vc->rd) == pause)
		return 0;
	pace_forget(vc->pace);
	vnc_begin_timed(vc, "write");
	if (rfb_reader_pause(vc->rd, pause) < 0) {
		vc->write_failed = true;
		ret = -1;
	}
	vnc_done(vc);
	return ret;
}

bool vnc_poll_ready(const struct vnc_client *vc, short revents)
{
	return (revents & (POLLIN | POLLHUP | POLLERR | POLLNVAL)) ||
	       vnc_pending(vc);
}

int vnc_fd(const struct vnc_client *vc)
{
	return vc->cl->sock;
}

bool vnc_pending(const struct vnc_client *vc)
{
	return vnc_stream_pending(&vc->stream);
}

/* One server message, under its deadline. */
static int one_message(struct vnc_client *vc, enum vnc_error *err)
{
	const char *why;
	bool ok;

	vnc_failure_forget();
	vnc_begin_timed(vc, "message");
	if (vc->rd)
		ok = rfb_reader_message(vc->rd) == 0;
	else
		ok = vc->cfg.reference->message(vc);
	vnc_done(vc);
	if (ok)
		return 0;
	if (!vc->rd) {
		*err = vnc_failure_classify(vc, false);
		return -1;
	}
	*err = rfb_reader_error(vc->rd, &why);
	if (*err == VNC_ERR_CLOSED && !why[0])
		*err = vnc_failure_classify(vc, false);
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
	return vnc_stream_unread(&vc->stream);
}

uint64_t vnc_update_rx_ns(const struct vnc_client *vc)
{
	return vc->rx_ns;
}

uint64_t vnc_payload_bytes(const struct vnc_client *vc)
{
	return vc->rd ? rfb_reader_payload_bytes(vc->rd) : 0;
}

uint64_t vnc_rx_bytes(const struct vnc_client *vc)
{
	return vc->stream.rx_bytes;
}

uint64_t vnc_decode_cpu_ns(const struct vnc_client *vc)
{
	return vc->rd ? rfb_reader_cpu_ns(vc->rd) : 0;
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
