/* A server that hangs up right after a FramebufferUpdate while the
 * decoding pool still has a long queue of its rectangles: the reader goes
 * on to the next message while the pool decodes (the hang-up reads as
 * more to come), meets the end of the stream, and the connection is torn
 * down (vnc_dispatch fails, vnc_destroy) while the workers are still
 * inflating. Each worker asks the connection's watchdog whether to
 * give up (dec_check); the watchdog was freed before the pool was
 * drained, and one run in about twenty of the fault tests under load died
 * of SIGSEGV there (CI). Here the queue is long enough that the workers
 * are always busy at the teardown: the build before the fix crashes in
 * the first cycles (a NULL or freed guard; the sanitizer build names the
 * use after free).
 *
 * The session: RFB 3.8, no security, a 1024x1024 xrgb8888 desktop, one
 * update of NRECTS Tight rectangles (basic, zlib stream 0), then the
 * server hangs up. Each cycle must end in an error from vnc_dispatch, and
 * the fds must not grow. Usage: test_midupdate [CYCLES]. */
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <zlib.h>

#include "util/log.h"
#include "shadow/pixfmt.h"
#include "net/vnc.h"

#include "cycle_sink.h"

#define W 1024
#define H 1024
#define RECT_H 16
#define NRECTS 384

struct buf {
	uint8_t *p;
	size_t len, cap;
};

static void put(struct buf *b, const void *d, size_t n)
{
	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2;
		b->p = realloc(b->p, b->cap);
		if (!b->p) {
			perror("realloc");
			exit(1);
		}
	}
	memcpy(b->p + b->len, d, n);
	b->len += n;
}

static void put8(struct buf *b, uint8_t v)
{
	put(b, &v, 1);
}

static void put16(struct buf *b, uint16_t v)
{
	uint8_t d[2] = { v >> 8, v & 0xff };

	put(b, d, 2);
}

static void put32(struct buf *b, uint32_t v)
{
	uint8_t d[4] = { v >> 24, v >> 16, v >> 8, v };

	put(b, d, 4);
}

/* Tight's compact length: 7 bits a byte, at most three bytes. */
static void put_compact(struct buf *b, size_t n)
{
	put8(b, (n & 0x7f) | (n > 0x7f ? 0x80 : 0));
	if (n > 0x7f) {
		put8(b, ((n >> 7) & 0x7f) | (n > 0x3fff ? 0x80 : 0));
		if (n > 0x3fff)
			put8(b, (n >> 14) & 0xff);
	}
}

static void build_session(struct buf *b)
{
	static const char name[] = "midupdate";
	static uint8_t rows[W * RECT_H * 3];
	static uint8_t z[sizeof(rows) + 1024];
	uint32_t seed = 12345;
	z_stream zs;
	int i;
	size_t k;

	put(b, "RFB 003.008\n", 12);
	put8(b, 1);	/* one security type: None */
	put8(b, 1);
	put32(b, 0);	/* SecurityResult OK */
	put16(b, W);
	put16(b, H);
	/* 32 bpp, depth 24, little-endian, true colour, 255 each, 16/8/0. */
	put8(b, 32);
	put8(b, 24);
	put8(b, 0);
	put8(b, 1);
	put16(b, 255);
	put16(b, 255);
	put16(b, 255);
	put8(b, 16);
	put8(b, 8);
	put8(b, 0);
	put(b, "\0\0\0", 3);
	put32(b, sizeof(name) - 1);
	put(b, name, sizeof(name) - 1);

	put8(b, 0);	/* FramebufferUpdate */
	put8(b, 0);
	put16(b, NRECTS);
	memset(&zs, 0, sizeof(zs));
	if (deflateInit(&zs, 6) != Z_OK) {
		fprintf(stderr, "deflateInit failed\n");
		exit(1);
	}
	for (i = 0; i < NRECTS; i++) {
		/* Sixteen grey levels at random: inflate decodes every
		 * byte from its Huffman codes. */
		for (k = 0; k < sizeof(rows); k++) {
			seed = seed * 1103515245u + 12345u;
			rows[k] = (uint8_t)((seed >> 24) & 0xf0);
		}
		zs.next_in = rows;
		zs.avail_in = sizeof(rows);
		zs.next_out = z;
		zs.avail_out = sizeof(z);
		if (deflate(&zs, Z_SYNC_FLUSH) != Z_OK || zs.avail_in) {
			fprintf(stderr, "deflate failed\n");
			exit(1);
		}
		put16(b, 0);
		put16(b, (uint16_t)((i * RECT_H) % H));
		put16(b, W);
		put16(b, RECT_H);
		put32(b, 7);	/* Tight */
		put8(b, 0x00);	/* stream 0, basic, copy filter */
		put_compact(b, sizeof(z) - zs.avail_out);
		put(b, z, sizeof(z) - zs.avail_out);
	}
	deflateEnd(&zs);
}

int main(int argc, char **argv)
{
	struct vnc_config cfg;
	struct ctx c = { 0 };
	struct replay_server sv = { 0 };
	struct buf session = { 0 };
	int cycles = argc > 1 ? atoi(argv[1]) : 20, i, fds0, fds1, port;

	log_set_level(LOG_SILENT);
	build_session(&session);
	sv.data = session.p;
	sv.size = session.len;
	if (replay_start(&sv, &port) < 0)
		return 1;
	cycle_config(&cfg, port);
	/* Workers whatever the machine: the race is theirs. */
	cfg.decode_threads = 3;
	fds0 = count_fds();
	for (i = 0; i < cycles; i++) {
		const struct vnc_events ev = sink_events(&c);
		enum vnc_error err;
		struct vnc_client *vc = vnc_connect(&cfg, &ev, &err);
		int tries, failed = 0;

		if (!vc) {
			fprintf(stderr, "FAIL: cycle %d: no connection\n", i);
			return 1;
		}
		for (tries = 0; tries < 400 && !failed; tries++) {
			struct pollfd p = { vnc_fd(vc), POLLIN, 0 };

			if (poll(&p, 1, 50) > 0 && vnc_dispatch(vc, &err) < 0)
				failed = 1;
		}
		vnc_destroy(vc);
		if (!failed) {
			fprintf(stderr, "FAIL: cycle %d: the hang-up was not an "
					"error\n", i);
			return 1;
		}
	}
	shutdown(sv.lfd, SHUT_RDWR);
	pthread_join(sv.thread, NULL);
	fds1 = count_fds();
	close(sv.lfd);
	free(c.fb);
	free(session.p);
	printf("%d cycles torn down with the workers busy: fds %d -> "
	       "%d\n", cycles, fds0, fds1);
	if (fds1 != fds0) {
		fprintf(stderr, "FAIL: %d fds leaked\n", fds1 - fds0);
		return 1;
	}
	return 0;
}
