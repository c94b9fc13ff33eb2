/* TLS reconnects must not grow memory. Sessions through vnc_connect/
 * vnc_dispatch/vnc_destroy, what a reconnect does, against a VeNCrypt
 * server thread in this process that sends one update and then closes the
 * session itself: CYCLES X509None sessions verified with --ca, CYCLES
 * anonymous TLSNone sessions (--insecure), and CYCLES / 4 each of X509
 * handshakes that fail (a CA that did not sign the certificate; a
 * certificate for another name) and of X509 accepted unverified
 * (--insecure). Between cycle WARMUP and the end of each, heap in use
 * (mallinfo2, plain build) must not grow by more than 64 KiB and the
 * resident set by more than RSS-SLACK KiB; the sanitizer build
 * (tls-cycles-lsan) adds LeakSanitizer's verdict at exit.
 * Usage: test_tls_cycles CERT-DIR [CYCLES [RSS-SLACK-KIB]], CERT-DIR as
 * tests/reliability/certs.py makes it. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdbool.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gnutls/gnutls.h>

#include "util/log.h"
#include "util/be.h"
#include "shadow/pixfmt.h"
#include "net/vnc.h"

#include "cycle_sink.h"

#define WARMUP 20
#define SUB_X509NONE 260
#define SUB_TLSNONE 257

struct server {
	int lfd;
	pthread_t thread;
	gnutls_certificate_credentials_t x509[2];	/* srv, wrong */
	gnutls_anon_server_credentials_t anon;
	int subtype;		/* offered to the next connection */
	int cert;		/* which x509[] it gets */
	int handled;		/* connections torn down */
	int sessions;		/* of which served to the end */
};

static int put(int fd, const void *p, size_t n)
{
	return send(fd, p, n, MSG_NOSIGNAL) == (ssize_t)n ? 0 : -1;
}

static int get(int fd, void *p, size_t n)
{
	size_t off = 0;

	while (off < n) {
		ssize_t k = read(fd, (char *)p + off, n - off);

		if (k <= 0)
			return -1;
		off += (size_t)k;
	}
	return 0;
}

/* The whole of n bytes over TLS, either way. */
static int tls_io(gnutls_session_t s, void *p, size_t n, bool out)
{
	size_t off = 0;

	while (off < n) {
		ssize_t k = out ? gnutls_record_send(s, (char *)p + off, n - off)
				: gnutls_record_recv(s, (char *)p + off, n - off);

		if (k == GNUTLS_E_AGAIN || k == GNUTLS_E_INTERRUPTED)
			continue;
		if (k <= 0)
			return -1;
		off += (size_t)k;
	}
	return 0;
}

static int tls_put(gnutls_session_t s, const void *p, size_t n)
{
	return tls_io(s, (void *)p, n, true);
}

static int tls_get(gnutls_session_t s, void *p, size_t n)
{
	return tls_io(s, p, n, false);
}

/* After TLS: SecurityResult, ServerInit, the client's format, encodings
 * and update request, one raw update, then the server hangs up. */
static int session_tls(gnutls_session_t s)
{
	static uint8_t fbu[4 + 12 + 32 * 24 * 4];
	uint8_t b[64], ci;
	const char *name = "tls cycles";
	unsigned n;

	be32_put(b, 0);
	if (tls_put(s, b, 4) < 0 || tls_get(s, &ci, 1) < 0)
		return -1;
	memset(b, 0, sizeof(b));
	be16_put(b, 32);
	be16_put(b + 2, 24);
	b[4] = 32;	/* bpp */
	b[5] = 24;	/* depth */
	b[7] = 1;	/* true colour */
	be16_put(b + 8, 255);
	be16_put(b + 10, 255);
	be16_put(b + 12, 255);
	b[14] = 16;
	b[15] = 8;
	be32_put(b + 20, (uint32_t)strlen(name));
	memcpy(b + 24, name, strlen(name));
	if (tls_put(s, b, 24 + strlen(name)) < 0)
		return -1;
	/* SetPixelFormat, SetEncodings, FramebufferUpdateRequest. */
	if (tls_get(s, b, 20) < 0 || tls_get(s, b, 4) < 0)
		return -1;
	for (n = (unsigned)b[2] << 8 | b[3]; n > 0; n--)
		if (tls_get(s, b, 4) < 0)
			return -1;
	if (tls_get(s, b, 10) < 0)
		return -1;
	memset(fbu, 0x5a, sizeof(fbu));
	memset(fbu, 0, 16);
	be16_put(fbu + 2, 1);
	be16_put(fbu + 8, 32);
	be16_put(fbu + 10, 24);
	return tls_put(s, fbu, sizeof(fbu));
}

static void serve_one(struct server *sv, int c)
{
	static const uint8_t sec[2] = { 1, 19 }, ver[2] = { 0, 2 };
	uint8_t b[16];
	int sub = __atomic_load_n(&sv->subtype, __ATOMIC_ACQUIRE);
	int cert = __atomic_load_n(&sv->cert, __ATOMIC_ACQUIRE);
	gnutls_session_t s;
	char sink[256];
	bool ok = false;

	if (put(c, "RFB 003.008\n", 12) < 0 || get(c, b, 12) < 0 ||
	    put(c, sec, 2) < 0 || get(c, b, 1) < 0 || put(c, ver, 2) < 0 ||
	    get(c, b, 2) < 0)
		goto out;
	b[0] = 0;	/* version accepted */
	b[1] = 1;	/* one sub-type */
	be32_put(b + 2, (uint32_t)sub);
	if (put(c, b, 6) < 0 || get(c, b, 4) < 0)
		goto out;
	b[0] = 1;	/* ack */
	if (put(c, b, 1) < 0)
		goto out;
	if (gnutls_init(&s, GNUTLS_SERVER) < 0)
		goto out;
	if (sub == SUB_X509NONE) {
		gnutls_priority_set_direct(s, "NORMAL", NULL);
		gnutls_credentials_set(s, GNUTLS_CRD_CERTIFICATE,
				       sv->x509[cert]);
	} else {
		gnutls_priority_set_direct(s, "NORMAL:+ANON-ECDH:+ANON-DH",
					   NULL);
		gnutls_credentials_set(s, GNUTLS_CRD_ANON, sv->anon);
	}
	gnutls_transport_set_int(s, c);
	gnutls_handshake_set_timeout(s, 10000);
	if (gnutls_handshake(s) == 0 && session_tls(s) == 0) {
		gnutls_bye(s, GNUTLS_SHUT_WR);
		ok = true;
	}
	shutdown(c, SHUT_WR);
	/* Until the client has closed its end. */
	while (read(c, sink, sizeof(sink)) > 0)
		;
	gnutls_deinit(s);
	if (ok)
		__atomic_fetch_add(&sv->sessions, 1, __ATOMIC_RELEASE);
out:
	__atomic_fetch_add(&sv->handled, 1, __ATOMIC_RELEASE);
}

static void *serve(void *arg)
{
	struct server *sv = arg;

	for (;;) {
		int c = accept(sv->lfd, NULL, NULL), one = 1;

		if (c < 0)
			break;
		/* The handshake is many small writes: no Nagle delays. */
		setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		serve_one(sv, c);
		close(c);
	}
	return NULL;
}

static int start_server(struct server *sv, const char *dir, int *port)
{
	static const char *const names[2] = { "srv", "wrong" };
	char cert[4096], key[4096];
	int i, ret;

	for (i = 0; i < 2; i++) {
		snprintf(cert, sizeof(cert), "%s/%s.crt", dir, names[i]);
		snprintf(key, sizeof(key), "%s/%s.key", dir, names[i]);
		if (gnutls_certificate_allocate_credentials(&sv->x509[i]) < 0)
			return -1;
		ret = gnutls_certificate_set_x509_key_file(
			sv->x509[i], cert, key, GNUTLS_X509_FMT_PEM);
		if (ret < 0) {
			fprintf(stderr, "%s: %s\n", cert, gnutls_strerror(ret));
			return -1;
		}
		gnutls_certificate_set_known_dh_params(
			sv->x509[i], GNUTLS_SEC_PARAM_MEDIUM);
	}
	if (gnutls_anon_allocate_server_credentials(&sv->anon) < 0)
		return -1;
	gnutls_anon_set_server_known_dh_params(sv->anon,
					       GNUTLS_SEC_PARAM_MEDIUM);
	return serve_loopback(&sv->lfd, &sv->thread, serve, sv, port);
}

/* One session: connect, take the update, see the server hang up (0); or
 * a handshake refused as a protocol error (1); -1 for anything else. */
static int cycle(const struct vnc_config *cfg, struct ctx *c)
{
	const struct vnc_events ev = sink_events(c);
	enum vnc_error err = VNC_OK;
	struct vnc_client *vc = vnc_connect(cfg, &ev, &err);
	int tries;

	if (!vc)
		return err == VNC_ERR_PROTOCOL ? 1 : -1;
	c->done = 0;
	for (tries = 0; tries < 200; tries++) {
		struct pollfd p = { vnc_fd(vc), POLLIN, 0 };

		if (poll(&p, 1, 50) > 0 && vnc_dispatch(vc, &err) < 0)
			break;
	}
	vnc_destroy(vc);
	return c->done >= 1 && err == VNC_ERR_CLOSED ? 0 : -1;
}

/* The server thread's memory is counted too: sample only once it has
 * torn down every connection the client finished. */
static int handled(struct server *sv, int want)
{
	int i, n = 0;

	for (i = 0; i < 1000; i++) {
		n = __atomic_load_n(&sv->handled, __ATOMIC_ACQUIRE);
		if (n >= want)
			break;
		usleep(1000);
	}
	return n;
}

static long rss_kib(void)
{
	long pages = 0, rss = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	if (!f)
		return -1;
	if (fscanf(f, "%ld %ld", &pages, &rss) != 2)
		rss = -1;
	fclose(f);
	return rss < 0 ? -1 : rss * (sysconf(_SC_PAGESIZE) / 1024);
}

/* cycles connections with cfg to a server offering sub-type sub with
 * certificate cert; want: what cycle() must return every time. */
static int run(const char *what, struct server *sv, int sub, int cert,
	       const struct vnc_config *cfg, int want, int cycles,
	       long slack_kib)
{
	struct ctx c = { 0 };
	size_t heap0 = 0, heap1;
	long rss0 = 0, rss1;
	int i, n, ok, got, seen0 = handled(sv, 0);
	int ok0 = __atomic_load_n(&sv->sessions, __ATOMIC_ACQUIRE);

	__atomic_store_n(&sv->subtype, sub, __ATOMIC_RELEASE);
	__atomic_store_n(&sv->cert, cert, __ATOMIC_RELEASE);
	for (i = 0; i < cycles; i++) {
		got = cycle(cfg, &c);
		if (got != want) {
			fprintf(stderr, "FAIL %s: cycle %d %s\n", what, i,
				got == 0   ? "connected"
				: got == 1 ? "was refused"
					   : "failed otherwise");
			return 1;
		}
		if (i == WARMUP - 1) {
			handled(sv, seen0 + WARMUP);
			heap0 = heap_in_use();
			rss0 = rss_kib();
		}
	}
	n = handled(sv, seen0 + cycles) - seen0;
	ok = __atomic_load_n(&sv->sessions, __ATOMIC_ACQUIRE) - ok0;
	heap1 = heap_in_use();
	rss1 = rss_kib();
	free(c.fb);
	printf("%s: %d connections, %d sessions; from cycle %d to %d: heap "
	       "%+ld KiB, RSS %ld -> %ld KiB (%+ld)\n",
	       what, n, ok, WARMUP, cycles, ((long)heap1 - (long)heap0) / 1024,
	       rss0, rss1, rss1 - rss0);
	if (n != cycles || ok != (want == 0 ? cycles : 0)) {
		fprintf(stderr, "FAIL %s: the server saw %d connections and "
			"finished %d sessions\n", what, n, ok);
		return 1;
	}
	if ((long)heap1 - (long)heap0 > 64 * 1024) {
		fprintf(stderr, "FAIL %s: heap in use grew by %ld KiB\n", what,
			((long)heap1 - (long)heap0) / 1024);
		return 1;
	}
	if (rss1 - rss0 > slack_kib) {
		fprintf(stderr, "FAIL %s: RSS grew by %ld KiB (limit %ld)\n",
			what, rss1 - rss0, slack_kib);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct vnc_config cfg;
	struct server sv;
	char ca[4096], other[4096];
	int cycles, few, port, fails = 0;
	long slack;

	if (argc < 2) {
		fprintf(stderr, "usage: test_tls_cycles CERT-DIR [CYCLES "
				"[RSS-SLACK-KIB]]\n");
		return 2;
	}
	cycles = argc > 2 ? atoi(argv[2]) : 200;
	slack = argc > 3 ? atol(argv[3]) : 4096;
	few = cycles / 4;
	if (few <= WARMUP) {
		fprintf(stderr, "test_tls_cycles: CYCLES must be more than "
				"%d\n", 4 * WARMUP);
		return 2;
	}
	snprintf(ca, sizeof(ca), "%s/ca.crt", argv[1]);
	snprintf(other, sizeof(other), "%s/other.crt", argv[1]);
	log_set_level(getenv("VNCFB_TEST_VERBOSE") ? LOG_DEBUG : LOG_SILENT);
	memset(&sv, 0, sizeof(sv));
	if (start_server(&sv, argv[1], &port) < 0)
		return 1;
	cycle_config(&cfg, port);

	cfg.ca_file = ca;
	fails += run("X509 verified (--ca)", &sv, SUB_X509NONE, 0, &cfg, 0,
		     cycles, slack);
	fails += run("X509 for another name (--ca)", &sv, SUB_X509NONE, 1,
		     &cfg, 1, few, slack);
	cfg.ca_file = other;
	fails += run("X509 from another CA (--ca)", &sv, SUB_X509NONE, 0,
		     &cfg, 1, few, slack);
	cfg.insecure = true;
	fails += run("X509 unverified (--insecure)", &sv, SUB_X509NONE, 0,
		     &cfg, 0, few, slack);
	cfg.ca_file = NULL;
	fails += run("anonymous TLS (--insecure)", &sv, SUB_TLSNONE, 0, &cfg,
		     0, cycles, slack);

	shutdown(sv.lfd, SHUT_RDWR);
	close(sv.lfd);
	pthread_join(sv.thread, NULL);
	gnutls_certificate_free_credentials(sv.x509[0]);
	gnutls_certificate_free_credentials(sv.x509[1]);
	gnutls_anon_free_server_credentials(sv.anon);
	return fails ? 1 : 0;
}
