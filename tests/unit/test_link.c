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
#include "net/pace_priv.h"
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

static int lf_answer(void *ctx, uint32_t flags, const uint8_t *payload,
		     unsigned len)
{
	struct lfix *l = ctx;

	l->fence_answers++;
	log_append(l->f.log, sizeof(l->f.log), "answer 0x%x %.*s", flags,
		   (int)len, (const char *)payload);
	/* As vnc.c does: the answer marks where the wire's format changes. */
	if (len == 3 && !memcmp(payload, "low", 3)) {
		struct pixfmt f;

		pixfmt_from_name("rgb332", &f);
		return rfb_reader_set_wire(l->f.r, &f);
	}
	if (len == 4 && !memcmp(payload, "full", 4))
		return rfb_reader_set_wire(l->f.r, NULL);
	return 0;
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
/* The shadow's pixel value at x,y. */
static uint32_t lf_px(const struct lfix *l, uint32_t x, uint32_t y)
{
	return pixfmt_load(&l->f.fb.pf, pic_at(&l->f.fb, x, y));
}

/* Auto-select's 8-bit colour in the reader: rectangles after the fence
 * answer that marks the change come in rgb332 (raw, CopyRect within
 * them, a cursor shape's pixels) and land in the xrgb8888 shadow
 * converted; after the answer back, full colour straight in again. */
static void test_low_colour(void)
{
	struct buf s = {0};
	struct lfix l;
	bool ok = true;

	lf_open(&l, 4, 2, true);
	raw_update(&s, 4, 2, 9);
	fence_msg(&s, RFB_FENCE_SYNC_NEXT, "low", 3);
	fbu(&s, 3);
	rhdr(&s, 0, 0, 4, 2, RFB_ENC_RAW);
	for (unsigned i = 0; i < 8; i++)
		u8(&s, i % 4 < 2 ? 0xe0 : 0x1c); /* red, green */
	/* A 2x1 RichCursor: 2 pixels of 1 byte, then a byte of mask. */
	rhdr(&s, 0, 0, 2, 1, RFB_ENC_RICHCURSOR);
	put(&s, "\x03\x03\xc0", 3);
	rhdr(&s, 2, 1, 2, 1, RFB_ENC_COPYRECT);
	u16(&s, 0);
	u16(&s, 0);
	CHECK(fix_feed(&l.f, &s) == 3, "low colour: %s", l.f.why);
	for (uint32_t y = 0; y < 2; y++)
		for (uint32_t x = 0; x < 4; x++)
			ok &= lf_px(&l, x, y) ==
			      (x < 2 || y == 1 ? 0xff0000u : 0x00ff00u);
	CHECK(ok, "8-bit pixels in the shadow: %06x %06x %06x %06x",
	      lf_px(&l, 0, 0), lf_px(&l, 2, 0), lf_px(&l, 2, 1),
	      lf_px(&l, 3, 1));
	s.n = 0;
	fence_msg(&s, RFB_FENCE_SYNC_NEXT, "full", 4);
	raw_update(&s, 4, 2, 0x42);
	CHECK(fix_feed(&l.f, &s) == 2, "full colour again: %s", l.f.why);
	CHECK(lf_px(&l, 0, 0) == 0x424242u && lf_px(&l, 3, 1) == 0x424242u,
	      "full colour: %06x", lf_px(&l, 3, 1));
	fix_free(&l.f);
	free(s.p);
}

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

/* Up to four auto-select windows from lossless, each 90 % busy with
 * one link-limited update of bytes: the quality chosen. */
static int busy_windows(struct pace *p, uint64_t bytes, char *why, size_t len)
{
	uint64_t t = 0;
	int q = PACE_LOSSLESS;

	while (t < 4 * PACE_WINDOW_NS && q == PACE_LOSSLESS) {
		pace_update_begin(p, t, false);
		pace_update_end(p, t + 1800 * MS, bytes, bytes, 1800 * MS);
		t += 2000 * MS;
		q = pace_choose(p, t, why, len);
	}
	return q;
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
	CHECK(n == 2, "in flight at the BDP: %u (rate %.0f)", n, p.rate);
	CHECK(p.rate > 0.9e6 && p.rate < 1.1e6, "rate %.0f", p.rate);
	/* Issue 23's link, 50 Mbit/s, frames of 175 KB (28 ms on the
	 * wire): as many as keep the link busy without queueing a frame
	 * behind another, 2 at 60 ms (93 % of the link) and 5 at 150;
	 * one where a frame takes longer than the round trip. */
	{
		static const unsigned rtt_ms[] = {5, 20, 60, 150};
		static const unsigned want[] = {1, 1, 2, 5};

		for (unsigned i = 0; i < 4; i++) {
			n = simulate(&p, rtt_ms[i] * MS, 50e6 / 8, 175000, 10,
				     false);
			CHECK(n == want[i], "%u ms, 50 Mbit/s: %u in flight",
			      rtt_ms[i], n);
		}
		/* Under a LAN's round trip, two as before; over 5 ms, one,
		 * for updates of 4 ms answered at once. */
		for (int lan = 0; lan < 2; lan++) {
			uint64_t rtt = lan ? MS / 10 : 5 * MS;

			pace_init(&p, 0);
			p.rtt_ns = rtt;
			p.upd_ns = 4e6;
			pace_sent(&p, 0);
			pace_update_begin(&p, rtt, false);
			pace_update_end(&p, rtt + 4 * MS, 100000, 90000,
					4 * MS);
			pace_sent(&p, rtt + 4 * MS);
			pace_update_begin(&p, 2 * rtt + 4 * MS, false);
			CHECK(p.target == (lan ? 2u : 1u),
			      "round trip %llu ns: target %u",
			      (unsigned long long)rtt, p.target);
		}
	}
	/* An update late only because it queued in the link right behind
	 * a link-limited one folds nothing: the requests behind it each
	 * have an update of their own on the way. Retired, each would
	 * leave an update in the link that no request accounts for. After
	 * a gap on the wire, the server did fold them. */
	for (int gap = 0; gap < 2; gap++) {
		pace_init(&p, 0);
		p.rtt_ns = 20 * MS;
		p.target = 3;
		pace_sent(&p, 0);
		pace_sent(&p, 10 * MS);
		pace_sent(&p, 30 * MS);
		p.last_limited = true;
		p.u_end = gap ? 50 * MS : 66 * MS;
		pace_update_begin(&p, 66 * MS, false);
		CHECK(p.n == (gap ? 0u : 2u), "late answer, gap %d: %u left",
		      gap, p.n);
	}

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
	/* An update sooner than a round trip after the request it seems
	 * to answer answers an older one, counted answered already (the
	 * count is one short): the request stays in flight, so that none
	 * follows this update. Twice in a row, the first round trip (the
	 * reference) was the slow one: the new one is the round trip. */
	for (int twice = 0; twice < 2; twice++) {
		uint64_t first = twice ? 300 * MS : 60 * MS;

		pace_init(&p, 0);
		pace_sent(&p, 0);
		pace_update_begin(&p, first, false);
		pace_update_end(&p, first + MS, 1000, 0, 0);
		pace_sent(&p, first + 10 * MS);
		pace_update_begin(&p, first + 40 * MS, false);
		CHECK(p.n == 1, "early answer: %u in flight", p.n);
		pace_update_end(&p, first + 41 * MS, 1000, 0, 0);
		pace_update_begin(&p, first + 70 * MS, false);
		CHECK(p.n == 0 && p.rtt_ns == 60 * MS,
		      "%s: %u in flight, rtt %llu",
		      twice ? "early twice" : "then on time", p.n,
		      (unsigned long long)p.rtt_ns);
	}
	/* A desktop size alone (libvncserver's answer to the first request,
	 * the picture following in an update of its own) answers nothing:
	 * the request is in flight again, for the picture. */
	pace_init(&p, 0);
	pace_sent(&p, 0);
	pace_update_begin(&p, 60 * MS, false);
	CHECK_EQ(p.n, 0);
	pace_update_void(&p);
	pace_update_end(&p, 60 * MS, 0, 0, 0);
	CHECK(p.n == 1 && p.sent[p.first] == 0, "void: %u in flight", p.n);
	CHECK(p.upd_ns == 0, "void timed: %g", p.upd_ns);
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
		int q = PACE_LOSSLESS;

		pace_init(&p, 0);
		pace_auto_start(&p, PACE_LOSSLESS, 0);
		p.rtt_ns = 40 * MS;
		pace_probe(&p, MS / 5);
		pace_probe(&p, 30 * MS);
		CHECK(p.probe_ns == MS / 5);
		q = busy_windows(&p, 1800000, why, sizeof(why));
		CHECK(q == PACE_LOSSLESS, "loopback left lossless: %s", why);
	}
	/* A server that folds (x11vnc, QEMU): B and C, 5 ms apart, reach
	 * it together and get one update, after a quiet wire: both are
	 * answered. Not when the update was queued behind the last (it may
	 * be B's own), nor for a request sent too late to have reached the
	 * server before it began. */
	for (unsigned k = 0; k < 3; k++) {
		static const uint64_t c_at[] = {105 * MS, 105 * MS, 130 * MS};
		static const unsigned left[] = {0, 1, 1};

		pace_init(&p, 0);
		pace_sent(&p, 0);
		pace_update_begin(&p, 60 * MS, false);
		pace_update_end(&p, 70 * MS, 100000, 50000, 8 * MS);
		pace_sent(&p, 100 * MS);
		pace_sent(&p, c_at[k]);
		unsigned t0 = p.target;

		pace_update_begin(&p, 170 * MS, k == 1);
		CHECK(p.n == left[k], "fold case %u: %u left in flight", k,
		      p.n);
		/* Folded, then idle: more requests, spread closer. */
		CHECK(k || p.target == t0 + 1, "fold: target %u from %u",
		      p.target, t0);
	}
	/* Under 256 kbit/s: 8-bit colour where the server has fences,
	 * else quality 2; back to full colour only above twice that. */
	for (int ok = 0; ok < 2; ok++) {
		int q = PACE_LOSSLESS;

		pace_init(&p, 0);
		pace_auto_start(&p, PACE_LOSSLESS, 0);
		p.rtt_ns = 60 * MS;
		p.low_ok = ok;
		q = busy_windows(&p, 45000, why, sizeof(why));
		CHECK(q == 2 && p.low == ok,
		      "200 kbit/s, fences %d: q %d%s (%s)", ok, q,
		      p.low ? " 8-bit" : "", why);
		CHECK(!ok || strstr(why, "8-bit colour"), "why: %s", why);
	}
	{
		/* From 8-bit: 300 to 500 kbit/s keep it, 600 leaves. */
		static const double kbit[] = {300, 400, 500, 600};
		uint64_t t = 0;
		int q = 2;

		for (unsigned i = 0; i < 4; i++) {
			p.rate = kbit[i] * 1e3 / 8;
			t += PACE_WINDOW_NS;
			q = pace_choose(&p, t, why, sizeof(why));
			CHECK(p.low == (i < 3), "%g kbit/s: %s", kbit[i],
			      p.low ? "8-bit" : "full colour");
		}
		CHECK(q == 6 && strstr(why, "full colour, JPEG quality 6"),
		      "back: q %d (%s)", q, why);
	}
	{
		/* Hysteresis between JPEG qualities, and back to lossless
		 * only at twice what lossless needs: each threshold just
		 * inside it (kept) and just past it (changed). */
		static const struct {
			int from;
			double rate;
			int want;
		} hy[] = {
		    {8, PACE_Q8_BPS * 0.85, 8},
		    {8, PACE_Q8_BPS * 0.75, 6},
		    {6, PACE_Q8_BPS * 1.2, 6},
		    {6, PACE_Q8_BPS * 1.3, 8},
		    {8, PACE_LOSSLESS_MIN_BPS * 1.9, 8},
		    {8, PACE_LOSSLESS_MIN_BPS * 2, PACE_LOSSLESS},
		    {6, PACE_SLOW_BPS * 1.3, 6},
		    {2, PACE_SLOW_BPS * 1.2, 2},
		    {2, PACE_SLOW_BPS * 1.3, 6},
		};

		for (unsigned i = 0; i < sizeof(hy) / sizeof(hy[0]); i++) {
			int q;

			pace_init(&p, 0);
			pace_auto_start(&p, hy[i].from, 0);
			p.rtt_ns = 60 * MS;
			p.rate = hy[i].rate;
			why[0] = '\0';
			q = pace_choose(&p, PACE_WINDOW_NS, why, sizeof(why));
			CHECK(q == hy[i].want,
			      "from %d at %.3g Mbit/s: %d, want %d (%s)",
			      hy[i].from, hy[i].rate * 8 / 1e6, q, hy[i].want,
			      why);
		}
	}
	for (int fast = 0; fast < 2; fast++) {
		/* In 8-bit colour: 37 KB updates, 5 a second, of which 3.3 KB
		 * come while the reader waits, in 12 ms (20 Mbit/s: the rest
		 * was there already) or 130 ms (200 kbit/s). No update is a
		 * sample of its own; the window's together are. */
		uint64_t t = 0, wait = fast ? 12 * MS : 130 * MS;

		pace_init(&p, 0);
		pace_auto_start(&p, 2, 0);
		p.low = p.low_ok = true;
		p.rtt_ns = 20 * MS;
		p.rate = 160e3 / 8;
		for (unsigned i = 0; i < 10; i++) {
			pace_update_begin(&p, t, true);
			pace_update_end(&p, t + wait + MS, 37000, 3300, wait);
			t += 200 * MS;
		}
		pace_choose(&p, t, why, sizeof(why));
		CHECK(p.low == !fast, "8-bit, %s link: %s (%s)",
		      fast ? "20 Mbit/s" : "200 kbit/s",
		      p.low ? "stayed" : "left", why);
	}
	{
		/* A link that swings around the threshold (200 and 450
		 * kbit/s, window by window) changes once, not each time. */
		uint64_t t = 0;
		int q = PACE_LOSSLESS, changes = 0;
		bool low = false;

		pace_init(&p, 0);
		pace_auto_start(&p, PACE_LOSSLESS, 0);
		p.rtt_ns = 60 * MS;
		p.low_ok = true;
		for (unsigned i = 0; i < 20; i++) {
			double r = i % 2 ? 450e3 / 8 : 200e3 / 8;
			uint64_t b = (uint64_t)(r * 1.8);
			int nq;

			pace_update_begin(&p, t, false);
			pace_update_end(&p, t + 1800 * MS, b, b, 1800 * MS);
			t += 2000 * MS;
			nq = pace_choose(&p, t, why, sizeof(why));
			changes += nq != q || p.low != low;
			q = nq;
			low = p.low;
		}
		CHECK(changes == 1 && low, "%d changes around 256 kbit/s",
		      changes);
	}
	/* Back to lossless only once the link carries far more. */
	pace_init(&p, 0);
	pace_auto_start(&p, 8, 0);
	p.rate = 3 * PACE_LOSSLESS_MIN_BPS;
	CHECK(pace_choose(&p, PACE_WINDOW_NS, why, sizeof(why)) ==
		  PACE_LOSSLESS,
	      "back to lossless: %s", why);
	/* A server that serves no lossless picture (PiKVM): the best
	 * quality is 8; a fast link goes back to it, a slow one below. */
	{
		static const double mbit[] = {400, 5, 400};
		static const int want[] = {8, 6, 8};
		uint64_t t = 0;

		pace_init(&p, 0);
		pace_set_best(&p, 8);
		pace_auto_start(&p, 8, 0);
		p.rtt_ns = 60 * MS;
		for (unsigned i = 0; i < 3; i++) {
			int q;

			p.rate = mbit[i] * 1e6 / 8;
			t += PACE_WINDOW_NS;
			q = pace_choose(&p, t, why, sizeof(why));
			CHECK(q == want[i], "best 8 at %g Mbit/s: q %d (%s)",
			      mbit[i], q, why);
		}
		/* Started lossless (before it was known), it moves to 8. */
		pace_init(&p, 0);
		pace_auto_start(&p, PACE_LOSSLESS, 0);
		pace_set_best(&p, 8);
		CHECK(p.quality == 8, "set_best: quality %d", p.quality);
	}
}

/* Rectangle payload (vncfb bench's pixel share): each rectangle's bytes
 * after its header; no update header, LastRect or other message. */
static void test_payload_bytes(void)
{
	struct buf s = {0};
	struct lfix l;

	lf_open(&l, 4, 2, true);
	CHECK(rfb_reader_payload_bytes(l.f.r) == 0);
	raw_update(&s, 4, 2, 1);
	fence_msg(&s, RFB_FENCE_REQUEST, "ab", 2);
	fbu(&s, 0xffff);
	rhdr(&s, 0, 0, 2, 1, RFB_ENC_RAW);
	put(&s, "\1\1\1\0\2\2\2\0", 8);
	rhdr(&s, 0, 0, 0, 0, RFB_ENC_LASTRECT);
	CHECK(fix_feed(&l.f, &s) == 3, "feed: %s", l.f.why);
	CHECK(rfb_reader_payload_bytes(l.f.r) == 4 * 2 * 4 + 2 * 4,
	      "payload bytes %llu, not 40",
	      (unsigned long long)rfb_reader_payload_bytes(l.f.r));
	fix_free(&l.f);
	free(s.p);
}

int main(void)
{
	log_set_level(LOG_ERROR);
	test_payload_bytes();
	test_continuous();
	test_fences();
	test_low_colour();
	test_overlap();
	test_pace();
	return check_done("link");
}
