/* ContinuousUpdates and Fence in the message reader, on hand-built
 * streams (turned on at the server's first EndOfContinuousUpdates, no
 * requests while on, fences answered with the known flags once what came
 * before is decoded, the bad and unasked cases), decoding that goes on
 * across update boundaries, and the link meter's rules (net/pace.h) on
 * made-up links. */
#include "config.h"

#include "../check.h"
#include "rfbgen.h"
#include "net/pace.h"
#include "util/log.h"

struct lfix {
	struct fix f;
	bool more;
	int fence_answers;
};

static int lf_fence(void *ctx, uint32_t flags, const uint8_t *payload,
		    unsigned len)
{
	struct fix *f = ctx;

	log_append(f->log, sizeof(f->log), "fence 0x%x %.*s", flags, (int)len,
		   (const char *)payload);
	return 0;
}

static int lf_continuous(void *ctx, bool enable, uint32_t w, uint32_t h)
{
	struct fix *f = ctx;

	log_append(f->log, sizeof(f->log), "cu-%s %ux%u", enable ? "on" : "off",
		   w, h);
	return 0;
}

static void lf_answer(void *ctx, uint32_t flags, const uint8_t *payload,
		      unsigned len)
{
	struct lfix *l = ctx;

	l->fence_answers++;
	log_append(l->f.log, sizeof(l->f.log), "answer 0x%x %.*s", flags,
		   (int)len, (const char *)payload);
}

static bool lf_more(void *ctx)
{
	return ((struct lfix *)ctx)->more;
}

/* A reader with the extensions' hooks (fence and continuous: NULL for
 * a reader that offered neither). */
static void lf_open(struct lfix *l, uint32_t w, uint32_t h, bool ext)
{
	static const struct rfb_reader_ops ops = {.request = fix_request,
						  .qemu_keys = fix_qemu,
						  .more = lf_more,
						  .fence = lf_fence,
						  .continuous = lf_continuous,
						  .fence_answer = lf_answer};
	static const struct rfb_reader_ops plain = {.request = fix_request};
	struct vnc_events ev = {.ctx = l,
				.resize = fix_resize,
				.damage = fix_damage,
				.update_done = fix_done};

	memset(l, 0, sizeof(*l));
	pic_init(&l->f.fb, "xrgb8888", 0, 0);
	free(l->f.fb.p);
	l->f.fb.p = NULL;
	vnc_mem_source_init(&l->f.src, NULL, 0);
	l->f.r = rfb_reader_create(&l->f.fb.pf, &l->f.src.base, &ev,
				   ext ? &ops : &plain, l);
	if (!l->f.r || rfb_reader_set_threads(l->f.r, fix_threads()) < 0 ||
	    rfb_reader_start(l->f.r, w, h) < 0)
		abort();
	l->f.log[0] = '\0';
}

static void fence_msg(struct buf *s, uint32_t flags, const char *payload,
		      unsigned len)
{
	u8(s, RFB_MSG_FENCE);
	put(s, "\0\0\0", 3);
	u32(s, flags);
	u8(s, len);
	put(s, payload, len);
}

/* A raw update of one w x h rectangle at 0,0 in colour c. */
static void raw_update(struct buf *s, unsigned w, unsigned h, uint8_t c)
{
	fbu(s, 1);
	rhdr(s, 0, 0, w, h, RFB_ENC_RAW);
	for (unsigned i = 0; i < w * h; i++) {
		uint8_t px[4] = {c, c, c, 0};

		put(s, px, 4);
	}
}

static void test_continuous(void)
{
	struct buf s = {0};
	struct lfix l;

	lf_open(&l, 4, 2, true);
	/* Before the server shows it has them: requests as always. */
	raw_update(&s, 4, 2, 1);
	u8(&s, RFB_MSG_CONTINUOUS);
	raw_update(&s, 4, 2, 2);
	CHECK(fix_feed(&l.f, &s) == 3, "feed: %s", l.f.why);
	CHECK(!strcmp(l.f.log, "request 4x2 damage 0,0,4x2 done cu-on 4x2 "
			       "damage 0,0,4x2 done"),
	      "turned on: %s", l.f.log);
	CHECK(rfb_reader_continuous(l.f.r));
	/* A resize asks for all of it, and continuous updates of it. */
	s.n = 0;
	l.f.log[0] = '\0';
	fbu(&s, 1);
	rhdr(&s, 0, 0, 6, 3, RFB_ENC_DESKTOPSIZE);
	CHECK(fix_feed(&l.f, &s) == 1, "resize: %s", l.f.why);
	CHECK(!strcmp(l.f.log, "resize 6x3 request-full 6x3 cu-on 6x3 done"),
	      "resize: %s", l.f.log);
	/* Paused: off, the EndOfContinuousUpdates owed is no news, no
	 * request while away; back: all of it, and on again. */
	l.f.log[0] = '\0';
	CHECK(rfb_reader_pause(l.f.r, true) == 0);
	s.n = 0;
	u8(&s, RFB_MSG_CONTINUOUS);
	raw_update(&s, 6, 3, 3);
	CHECK(fix_feed(&l.f, &s) == 2, "paused: %s", l.f.why);
	CHECK(rfb_reader_pause(l.f.r, false) == 0);
	CHECK(!strcmp(l.f.log, "cu-off 6x3 damage 0,0,6x3 done request-full "
			       "6x3 cu-on 6x3"),
	      "pause: %s", l.f.log);
	/* One never asked for: the server stopped pushing. vncfb asks for
	 * updates from then on, and does not turn them on again. */
	l.f.log[0] = '\0';
	s.n = 0;
	u8(&s, RFB_MSG_CONTINUOUS);
	raw_update(&s, 6, 3, 4);
	u8(&s, RFB_MSG_CONTINUOUS);
	CHECK(fix_feed(&l.f, &s) == 3, "unasked end: %s", l.f.why);
	CHECK(!strcmp(l.f.log, "request 6x3 request 6x3 damage 0,0,6x3 done"),
	      "unasked end: %s", l.f.log);
	CHECK(!rfb_reader_continuous(l.f.r));
	CHECK(rfb_reader_pause(l.f.r, true) == 0 &&
		  rfb_reader_pause(l.f.r, false) == 0 &&
		  !rfb_reader_continuous(l.f.r),
	      "on again after the server ended them");
	fix_free(&l.f);
	free(s.p);
}

static void test_fences(void)
{
	struct buf s = {0};
	struct lfix l;

	lf_open(&l, 4, 2, true);
	CHECK(!rfb_reader_fences(l.f.r));
	/* BlockBefore: answered once the update before it is drawn, even
	 * when the next message is at hand. Unknown flags (bit 5) and
	 * Request cleared, the others kept, the payload returned. */
	l.more = true;
	raw_update(&s, 4, 2, 9);
	fence_msg(&s,
		  RFB_FENCE_REQUEST | RFB_FENCE_BLOCK_BEFORE |
		      RFB_FENCE_BLOCK_AFTER | RFB_FENCE_SYNC_NEXT | 1u << 5,
		  "abc", 3);
	fence_msg(&s, RFB_FENCE_REQUEST | 1u << 30, "", 0);
	fence_msg(&s, RFB_FENCE_SYNC_NEXT, "mine", 4);
	CHECK(fix_feed(&l.f, &s) == 4, "fences: %s", l.f.why);
	CHECK(!strcmp(l.f.log, "request 4x2 damage 0,0,4x2 done fence 0x7 abc "
			       "fence 0x0  answer 0x4 mine"),
	      "fences: %s", l.f.log);
	CHECK(rfb_reader_fences(l.f.r) && l.fence_answers == 1);
	/* 64 bytes are allowed, 65 are not. */
	s.n = 0;
	fence_msg(&s, RFB_FENCE_REQUEST,
		  "0123456789012345678901234567890123456789012345678901234567"
		  "890123",
		  64);
	CHECK(fix_feed(&l.f, &s) == 1, "64 bytes: %s", l.f.why);
	s.n = 0;
	fence_msg(&s, RFB_FENCE_REQUEST,
		  "0123456789012345678901234567890123456789012345678901234567"
		  "8901234",
		  65);
	CHECK(fix_feed(&l.f, &s) < 0 && l.f.err == VNC_ERR_PROTOCOL &&
		  !strcmp(l.f.why, "sent a bad ServerFence message: a "
				   "payload of 65 bytes, more than 64"),
	      "65 bytes: %s", l.f.why);
	fix_free(&l.f);

	/* A fence cut short is a closed connection. */
	lf_open(&l, 4, 2, true);
	s.n = 0;
	fence_msg(&s, RFB_FENCE_REQUEST, "abcdef", 6);
	s.n -= 2;
	CHECK(fix_feed(&l.f, &s) < 0 && l.f.err == VNC_ERR_CLOSED,
	      "short fence: %d %s", l.f.err, l.f.why);
	fix_free(&l.f);

	/* A reader that offered neither refuses both. */
	lf_open(&l, 4, 2, false);
	s.n = 0;
	fence_msg(&s, RFB_FENCE_REQUEST, "", 0);
	CHECK(fix_feed(&l.f, &s) < 0 &&
		  !strcmp(l.f.why, "sent message type 248 (ServerFence), "
				   "which vncfb did not ask for"),
	      "unasked fence: %s", l.f.why);
	s.n = 0;
	u8(&s, RFB_MSG_CONTINUOUS);
	CHECK(fix_feed(&l.f, &s) < 0 &&
		  !strcmp(l.f.why, "sent message type 150 "
				   "(EndOfContinuousUpdates), which vncfb "
				   "did not ask for"),
	      "unasked end: %s", l.f.why);
	fix_free(&l.f);
	free(s.p);
}

/* With the next message at hand the pool is not drained per update:
 * every update is still reported whole, in order, and the picture is
 * the last one's once flushed. */
static void test_overlap(void)
{
	struct buf s = {0};
	struct lfix l;
	struct pic want;
	char where[64];

	lf_open(&l, 64, 32, true);
	l.more = true;
	pic_init(&want, "xrgb8888", 64, 32);
	for (int i = 0; i < 20; i++) {
		fbu(&s, 2);
		pic_random(&want);
		rhdr(&s, 0, 0, 64, 16, RFB_ENC_RAW);
		for (uint32_t y = 0; y < 16; y++)
			put(&s, pic_at(&want, 0, y), 64 * 4);
		rhdr(&s, 0, 16, 64, 16, RFB_ENC_RAW);
		for (uint32_t y = 16; y < 32; y++)
			put(&s, pic_at(&want, 0, y), 64 * 4);
	}
	CHECK(fix_feed(&l.f, &s) == 20, "feed: %s", l.f.why);
	CHECK(rfb_reader_flush(l.f.r) == 0);
	CHECK_EQ(l.f.updates, 20);
	CHECK(fix_same(&l.f, &want, where, sizeof(where)), "picture: %s",
	      where);
	fix_free(&l.f);
	free(want.p);
	free(s.p);
}

/* --- the link meter --- */

#define MS 1000000ull

/* A server that answers every request at once with an update of bytes,
 * over a link of rtt and rate (bytes/s, 0: unlimited), for secs of
 * simulated time: the requests the client keeps in flight at the end. */
static unsigned simulate(struct pace *p, uint64_t rtt, double rate,
			 uint64_t bytes, double secs, bool queued)
{
	uint64_t now = 1000 * MS, end = now + (uint64_t)(secs * 1e9);
	/* Arrival times of the answers on their way. */
	uint64_t arrive[PACE_MAX_INFLIGHT * 4];
	unsigned na = 0;
	uint64_t link_free = 0;

	pace_init(p, now);
	pace_sent(p, now);
	arrive[na++] = now + rtt;
	while (now < end) {
		uint64_t next = UINT64_MAX, wait = pace_next_ns(p, now);
		uint64_t dur = rate > 0 ? (uint64_t)(bytes / rate * 1e9) : 0;
		unsigned i, k = 0;

		for (i = 0; i < na; i++)
			if (arrive[i] < arrive[k])
				k = i;
		if (na)
			next = arrive[k];
		if (wait != UINT64_MAX && now + wait < next) {
			now += wait;
			pace_sent(p, now);
			/* The link carries one update at a time. */
			link_free = link_free > now + rtt / 2 ? link_free
							      : now + rtt / 2;
			link_free += dur;
			arrive[na++] = link_free + rtt / 2 - dur;
			continue;
		}
		if (next == UINT64_MAX)
			break;
		now = next;
		arrive[k] = arrive[--na];
		pace_update_begin(p, now, queued);
		now += dur;
		pace_update_end(p, now, bytes, bytes, dur);
	}
	return p->target;
}

static void test_pace(void)
{
	struct pace p;
	unsigned n;
	char why[160] = "";

	/* 100 ms, small updates answered at once: requests set the pace,
	 * so more go out, up to the cap. */
	n = simulate(&p, 100 * MS, 0, 1000, 5, false);
	CHECK(n > 4, "in flight over 100 ms: %u", n);
	CHECK(p.rtt_ns >= 100 * MS && p.rtt_ns < 110 * MS, "rtt %llu",
	      (unsigned long long)p.rtt_ns);
	/* Updates waiting at the client: one in flight, as before. */
	n = simulate(&p, 100 * MS, 0, 1000, 5, true);
	CHECK_EQ(n, 1);
	/* A 100 ms link of 1 MB/s and updates of 50 kB: the link carries
	 * 2 a round trip; the bandwidth-delay product bounds the requests. */
	n = simulate(&p, 100 * MS, 1e6, 50000, 10, false);
	CHECK(n >= 2 && n <= 4, "in flight at the BDP: %u (rate %.0f)", n,
	      p.rate);
	CHECK(p.rate > 0.9e6 && p.rate < 1.1e6, "rate %.0f", p.rate);

	/* A server folds requests that wait together: an update that
	 * arrives after a quiet time retires all that reached it. */
	pace_init(&p, 0);
	p.rtt_ns = 50 * MS;
	p.target = 4;
	pace_sent(&p, 0);
	pace_sent(&p, 10 * MS);
	pace_sent(&p, 20 * MS);
	p.u_begin = 980 * MS; /* an update lately: none is stale yet */
	pace_sent(&p, 990 * MS);
	pace_update_begin(&p, 1000 * MS, false);
	CHECK_EQ(p.n, 1);
	/* The least round trip can be too high (the first sample, with
	 * the server's start-up in it: 146 ms where the link's cycle is
	 * 132). When a waited answer folds requests, the one this update
	 * did answer, sent 132 ms ago, must go too: kept, it stays counted
	 * for good, every later answer is matched one request too old (264
	 * ms, between prompt and waited: no rule acts) and the count stays
	 * at 2 with one really in flight (link-testserver's slow
	 * connections). */
	pace_init(&p, 0);
	pace_sent(&p, 0);
	pace_update_begin(&p, 146 * MS, false);
	pace_update_end(&p, 147 * MS, 32, 0, 0);
	CHECK_EQ(p.rtt_ns, 146 * MS);
	p.target = 3;
	pace_sent(&p, 692 * MS);
	pace_sent(&p, 828 * MS);
	pace_sent(&p, 959 * MS);
	p.u_begin = 959 * MS;
	pace_update_begin(&p, 1091 * MS, false);
	pace_update_end(&p, 1103 * MS, 70000, 70000, 12 * MS);
	CHECK_EQ(p.n, 0);
	/* Then each request is answered a cycle later, at once: the
	 * pacer sees it and asks for more. */
	for (uint64_t t = 1091 * MS; t < 1091 * MS + 6 * 132 * MS;
	     t += 132 * MS) {
		pace_sent(&p, t + MS);
		pace_update_begin(&p, t + 132 * MS, false);
		pace_update_end(&p, t + 144 * MS, 70000, 70000, 12 * MS);
	}
	CHECK(p.target >= 3, "target %u", p.target);
	CHECK(p.rtt_ns <= 132 * MS, "rtt %llu", (unsigned long long)p.rtt_ns);
	/* A round trip timed as 0 (same clock tick) still lets the oldest
	 * request go stale: otherwise a request folded away unseen would
	 * be waited for forever. */
	pace_init(&p, 0);
	pace_sent(&p, 5 * MS);
	pace_update_begin(&p, 5 * MS, false);
	pace_update_end(&p, 5 * MS, 100, 0, 0);
	p.target = 1;
	pace_sent(&p, 6 * MS);
	CHECK(pace_next_ns(&p, 6 * MS) != UINT64_MAX, "never stale");
	CHECK(pace_request_due(&p, 200 * MS));
	/* With all its requests folded away unseen, vncfb does not wait
	 * for them: past two round trips with no update, one more goes. */
	pace_init(&p, 0);
	p.rtt_ns = 50 * MS;
	p.target = 2;
	pace_sent(&p, 0);
	pace_sent(&p, 25 * MS);
	CHECK(pace_next_ns(&p, 30 * MS) == 120 * MS, "stale in %llu",
	      (unsigned long long)pace_next_ns(&p, 30 * MS));
	CHECK(pace_request_due(&p, 150 * MS));
	pace_sent(&p, 150 * MS);
	CHECK_EQ(p.n, 2);

	/* Auto-select: a busy 50 Mbit/s link moves lossless to quality 8,
	 * a busy 8 Mbit/s one to 6, loopback rates stay lossless, and so
	 * does a slow link that is mostly idle. */
	struct {
		double rate, busy;
		uint64_t rtt;
		int want;
	} cases[] = {
	    {50e6 / 8, 0.9, 60 * MS, 8},
	    {8e6 / 8, 0.9, 60 * MS, 6},
	    {100e3 / 8, 0.9, 60 * MS, 2},
	    {2e9 / 8, 1.0, 60 * MS, PACE_LOSSLESS},
	    {8e6 / 8, 0.2, 60 * MS, PACE_LOSSLESS},
	    /* Loopback with a slow server, or no round trip known yet. */
	    {8e6 / 8, 0.9, MS / 10, PACE_LOSSLESS},
	    {8e6 / 8, 0.9, 0, PACE_LOSSLESS},
	};
	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t t = 0, step = 2000 * MS;
		int q = PACE_LOSSLESS;

		pace_init(&p, 0);
		pace_auto_start(&p, PACE_LOSSLESS, 0);
		p.rtt_ns = cases[i].rtt;
		why[0] = '\0';
		while (t < 4 * PACE_WINDOW_NS) {
			uint64_t d = (uint64_t)(step * cases[i].busy);
			uint64_t b = (uint64_t)(cases[i].rate * d / 1e9);

			pace_update_begin(&p, t, false);
			pace_update_end(&p, t + d, b, b, d);
			t += step;
			q = pace_choose(&p, t, why, sizeof(why));
			if (q != PACE_LOSSLESS)
				break;
		}
		CHECK(q == cases[i].want, "case %u: quality %d, want %d (%s)",
		      i, q, cases[i].want, why);
		if (cases[i].want != PACE_LOSSLESS)
			CHECK(strstr(why, "lossless filled the link"),
			      "why: %s", why);
	}
	/* Requests answered slowly by a busy encoder on loopback: the fence
	 * pings' round trip says it is no wire. */
	{
		uint64_t t = 0;
		int q = PACE_LOSSLESS;

		pace_init(&p, 0);
		pace_auto_start(&p, PACE_LOSSLESS, 0);
		p.rtt_ns = 40 * MS;
		pace_probe(&p, MS / 5);
		pace_probe(&p, 30 * MS);
		CHECK(p.probe_ns == MS / 5);
		while (t < 4 * PACE_WINDOW_NS && q == PACE_LOSSLESS) {
			pace_update_begin(&p, t, false);
			pace_update_end(&p, t + 1800 * MS, 1800000, 1800000,
					1800 * MS);
			t += 2000 * MS;
			q = pace_choose(&p, t, why, sizeof(why));
		}
		CHECK(q == PACE_LOSSLESS, "loopback left lossless: %s", why);
	}
	/* Back to lossless only once the link carries far more. */
	pace_init(&p, 0);
	pace_auto_start(&p, 8, 0);
	p.rate = 3 * PACE_LOSSLESS_MIN_BPS;
	CHECK(pace_choose(&p, PACE_WINDOW_NS, why, sizeof(why)) ==
		  PACE_LOSSLESS,
	      "back to lossless: %s", why);
}

/* What of an update is not payload (vncfb bench's pixel share): 4 bytes
 * an update, 12 a rectangle, pseudo-rectangles and LastRect included;
 * nothing of other messages. */
static void test_header_bytes(void)
{
	struct buf s = {0};
	struct lfix l;

	lf_open(&l, 4, 2, true);
	CHECK(rfb_reader_header_bytes(l.f.r) == 0);
	raw_update(&s, 4, 2, 1);
	fence_msg(&s, RFB_FENCE_REQUEST, "ab", 2);
	fbu(&s, 0xffff);
	rhdr(&s, 0, 0, 2, 1, RFB_ENC_RAW);
	put(&s, "\1\1\1\0\2\2\2\0", 8);
	rhdr(&s, 0, 0, 0, 0, RFB_ENC_LASTRECT);
	CHECK(fix_feed(&l.f, &s) == 3, "feed: %s", l.f.why);
	CHECK(rfb_reader_header_bytes(l.f.r) == 4 + 12 + 4 + 12 + 12,
	      "header bytes %llu, not 44",
	      (unsigned long long)rfb_reader_header_bytes(l.f.r));
	fix_free(&l.f);
	free(s.p);
}

int main(void)
{
	log_set_level(LOG_ERROR);
	test_header_bytes();
	test_continuous();
	test_fences();
	test_overlap();
	test_pace();
	return check_done("link");
}
