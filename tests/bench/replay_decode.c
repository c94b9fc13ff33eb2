/* Benchmark: a recorded server stream (record_rfb.py) read and decoded by
 * vncfb's reader from memory, with each number of decoding threads asked
 * for, while a blit thread pinned to the last online core copies each
 * update's damage into a second buffer, as the real pipeline does (so a
 * 2-core machine has the main thread, the blitter and the workers on its
 * two cores). No server runs during the measurement.
 *
 * usage: replay_decode FILE RUNS THREADS...
 *
 * FILE is either record_rfb.py's ("WxH\n", then the server's bytes) or a
 * vncfb recording (vncfb bench --record, replay_record.py; layout at the
 * top of client/tools/replay/recording.c), whose messages are played in
 * order; its client pixel format must be xrgb8888, as the reader's is.
 *
 * For each thread count, RUNS runs of the whole recording, interleaved
 * (1, 2, 3, 1, 2, 3, ...) so that a noisy neighbour hurts all alike; per
 * thread count: updates/s (median of the runs) and its ratio to the first
 * thread count's, CPU per update (all threads, median), and the time
 * each update took from its first byte to its last pixel (median and p99
 * over every run). */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "util/clock.h"
#include "shadow/damage.h"
#include "shadow/shadow.h"
#include "platform/platform.h"
#include "reader/rfbread.h"
#include "util/stats.h"
#include "wire/vncsrc.h"

#define MAX_T 8
#define MAX_RUNS 64

struct replay {
	uint32_t w, h;
	uint8_t *pix, *out;
	struct damage damage;
	pthread_t blit;
	uint64_t t_prev;
	struct samples upd; /* ns per update */
	unsigned updates;
};

static uint8_t *ev_resize(void *ctx, uint32_t w, uint32_t h)
{
	struct replay *r = ctx;

	if (w != r->w || h != r->h)
		return NULL;
	return r->pix;
}

static void ev_damage(void *ctx, const struct rect *rc)
{
	struct replay *r = ctx;

	damage_add(&r->damage, rc);
}

static void ev_done(void *ctx)
{
	struct replay *r = ctx;
	uint64_t now = monotonic_ns();

	damage_kick(&r->damage);
	stats_add(&r->upd, now - r->t_prev);
	r->t_prev = now;
	r->updates++;
}

static int op_request(void *ctx, bool inc, uint32_t w, uint32_t h)
{
	return 0;
}

/* The blitter's work: damaged rows copied out. */
static void *blit_main(void *arg)
{
	struct replay *r = arg;
	struct damage_set s;
	size_t stride = (size_t)r->w * 4;

	platform_name_thread("replay-blit");
	while (damage_take(&r->damage, &s, -1) >= 0) {
		for (int i = 0; i < s.n; i++) {
			const struct rect *d = &s.rects[i];

			for (int32_t y = d->y; y < d->y + d->h; y++)
				memcpy(r->out + (size_t)y * stride +
					   (size_t)d->x * 4,
				       r->pix + (size_t)y * stride +
					   (size_t)d->x * 4,
				       (size_t)d->w * 4);
		}
	}
	return NULL;
}

static double cpu_s(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

struct result {
	double ups[MAX_RUNS], cpu_ms[MAX_RUNS];
	struct samples upd;
	unsigned updates;
};

static int run(const uint8_t *data, size_t len, uint32_t w, uint32_t h,
	       unsigned threads, int blit_cpu, struct result *res, int k)
{
	static const struct pixfmt xrgb = {.bpp = 32,
					   .r_bits = 8,
					   .g_bits = 8,
					   .b_bits = 8,
					   .r_shift = 16,
					   .g_shift = 8,
					   .b_shift = 0};
	static const struct rfb_reader_ops ops = {.request = op_request};
	struct replay r = {.w = w, .h = h};
	struct vnc_events ev = {.ctx = &r,
				.resize = ev_resize,
				.damage = ev_damage,
				.update_done = ev_done};
	struct vnc_mem_source src;
	struct rfb_reader *rd;
	const char *why;
	uint64_t t0, t1;
	double c0, c1;

	/* Aligned as the shadow is (shadow.h). */
	r.pix = aligned_alloc(SHADOW_ALIGN,
			      ((size_t)w * h * 4 + SHADOW_ALIGN - 1) &
				  ~(size_t)(SHADOW_ALIGN - 1));
	if (r.pix)
		memset(r.pix, 0, (size_t)w * h * 4);
	r.out = calloc((size_t)w * h, 4);
	if (!r.pix || !r.out || damage_init(&r.damage) < 0)
		return -1;
	pthread_create(&r.blit, NULL, blit_main, &r);
	if (blit_cpu >= 0)
		platform_pin_thread(r.blit, blit_cpu);
	vnc_mem_source_init(&src, data, len);
	rd = rfb_reader_create(&xrgb, &src.base, &ev, &ops, &r);
	if (!rd || rfb_reader_set_threads(rd, threads) < 0 ||
	    rfb_reader_start(rd, w, h) < 0)
		return -1;
	c0 = cpu_s();
	t0 = r.t_prev = monotonic_ns();
	while (rfb_reader_message(rd) == 0)
		;
	t1 = monotonic_ns();
	c1 = cpu_s();
	if (rfb_reader_error(rd, &why) != VNC_ERR_CLOSED)
		fprintf(stderr, "replay_decode: %s\n", why);
	rfb_reader_destroy(rd);
	damage_stop(&r.damage);
	pthread_join(r.blit, NULL);
	res->ups[k] = r.updates / ((double)(t1 - t0) / 1e9);
	res->cpu_ms[k] = (c1 - c0) * 1e3 / (r.updates ? r.updates : 1);
	for (size_t i = 0; i < r.upd.n; i++)
		stats_add(&res->upd, r.upd.v[i]);
	res->updates = r.updates;
	stats_free(&r.upd);
	damage_finish(&r.damage);
	free(r.pix);
	free(r.out);
	return 0;
}

static uint32_t le16(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8;
}

static uint32_t le32(const uint8_t *p)
{
	return le16(p) | le16(p + 2) << 16;
}

/* A vncfb recording: its messages moved to the front of data, end to
 * end; -1 if data is not one. */
static int from_rec(uint8_t *data, size_t *len, uint32_t *w, uint32_t *h)
{
	size_t n = *len, off, out = 0;

	if (n < 20 || memcmp(data, "VNCFBREC", 8) != 0 || le32(data + 8) != 1)
		return -1;
	off = 16 + (size_t)le32(data + 12);
	if (off < 20 || off > n)
		return -1;
	*w = le16(data + 16);
	*h = le16(data + 18);
	while (off + 16 <= n) {
		unsigned type = data[off];
		size_t l = le32(data + off + 4);

		if (l > n - off - 16)
			return -1;
		if (type == 1)
			memmove(data + out, data + off + 16, l);
		out += type == 1 ? l : 0;
		off += 16 + l;
	}
	*len = out;
	return 0;
}

/* record_rfb.py's: a "WxH\n" line, then the server's bytes. */
static int from_rfb(uint8_t *data, size_t *len, uint32_t *w, uint32_t *h)
{
	char line[32];
	size_t i;

	for (i = 0; i < *len && i < sizeof(line) - 1 && data[i] != '\n'; i++)
		line[i] = (char)data[i];
	line[i] = 0;
	if (i == *len || data[i] != '\n' || sscanf(line, "%ux%u", w, h) != 2)
		return -1;
	memmove(data, data + i + 1, *len - i - 1);
	*len -= i + 1;
	return 0;
}

int main(int argc, char **argv)
{
	static struct result res[MAX_T];
	unsigned threads[MAX_T], nt = 0;
	uint32_t w, h;
	uint8_t *data = NULL;
	size_t len = 0, cap = 0;
	int runs, blit_cpu = platform_cpu_count() - 1;
	FILE *f;

	if (argc < 4 || (runs = atoi(argv[2])) < 1 || runs > MAX_RUNS) {
		fprintf(stderr, "usage: replay_decode FILE RUNS THREADS...\n");
		return 2;
	}
	for (int i = 3; i < argc && nt < MAX_T; i++)
		threads[nt++] = (unsigned)atoi(argv[i]);
	f = fopen(argv[1], "rb");
	if (!f) {
		fprintf(stderr, "replay_decode: %s: %s\n", argv[1],
			strerror(errno));
		return 1;
	}
	for (;;) {
		size_t n;

		if (len == cap) {
			cap = cap ? cap * 2 : 1 << 20;
			data = realloc(data, cap);
			if (!data)
				return 1;
		}
		n = fread(data + len, 1, cap - len, f);
		if (!n)
			break;
		len += n;
	}
	fclose(f);
	if (from_rec(data, &len, &w, &h) < 0 &&
	    from_rfb(data, &len, &w, &h) < 0) {
		fprintf(stderr, "replay_decode: %s: not a recording\n",
			argv[1]);
		return 1;
	}
	for (int k = 0; k < runs; k++)
		for (unsigned t = 0; t < nt; t++)
			if (run(data, len, w, h, threads[t], blit_cpu, &res[t],
				k) < 0) {
				fprintf(stderr, "replay_decode: run failed\n");
				return 1;
			}
	printf("%s: %ux%u, %zu bytes, %u updates; %d online cores, blit "
	       "thread on core %d; %d runs\n",
	       argv[1], w, h, len, res[0].updates, platform_cpu_count(),
	       blit_cpu, runs);
	printf("threads  updates/s  ratio  cpu ms/update  update ms median  "
	       "p99\n");
	double base = stats_median_double(res[0].ups, (size_t)runs);
	for (unsigned t = 0; t < nt; t++) {
		struct summary s;
		double ups = stats_median_double(res[t].ups, (size_t)runs);
		double cpu = stats_median_double(res[t].cpu_ms, (size_t)runs);

		stats_summarize(&res[t].upd, &s);
		printf("%7u  %9.1f  %5.2f  %13.2f  %16.2f  %6.2f\n", threads[t],
		       ups, ups / base, cpu, s.median / 1e6, s.p99 / 1e6);
	}
	free(data);
	return 0;
}
