/* Requests in flight and auto-select from the measured link (pace.h). */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "net/pace.h"
#include "net/pace_priv.h"

/* An update shorter than this says little about the link's rate (it
 * fits in a few packets). */
#define RATE_MIN_BYTES 16384
/* The least round trip is taken again every this long, so that a route
 * that got longer is seen. */
#define RTT_WINDOW_NS 10000000000ull
/* A link-limited window: this share of it spent waiting on the link. */
#define BUSY_SHARE 0.6
/* Quality moves only past the threshold by this factor (hysteresis). */
#define HYST 1.25

int pace_create(struct pace **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -ENOMEM;
}

void pace_destroy(struct pace *p)
{
	free(p);
}

void pace_init(struct pace *p, uint64_t now)
{
	memset(p, 0, sizeof(*p));
	p->target = 1;
	p->u_begin = now;
	p->rtt_win_start = now;
	p->w_start = now;
	p->quality = PACE_LOSSLESS;
	p->best = PACE_LOSSLESS;
}

void pace_set_best(struct pace *p, int q)
{
	p->best = q;
	if (q != PACE_LOSSLESS &&
	    (p->quality == PACE_LOSSLESS || p->quality > q))
		p->quality = q;
}

void pace_probe(struct pace *p, uint64_t rtt)
{
	if (!p->probe_ns || rtt < p->probe_ns)
		p->probe_ns = rtt;
}

void pace_forget(struct pace *p)
{
	p->first = 0;
	p->n = 0;
}

/* When the oldest request in flight counts as folded away unseen (ns
 * from now; 0: already): a server that folded requests it got while busy
 * answers them with one update, and vncfb, not knowing, would wait for
 * the others forever (till the liveness ping). Past two round trips and
 * STALE_NS with no update for a round trip and STALE_NS, it is dropped:
 * at worst an idle server gets one more request to fold. */
#define STALE_NS 50000000ull

static uint64_t stale_in(const struct pace *p, uint64_t now)
{
	uint64_t a, b;

	/* Before the first answer the round trip is not known. */
	if (!p->n || !p->rtt_ns)
		return UINT64_MAX;
	a = p->sent[p->first] + 2 * p->rtt_ns + STALE_NS;
	b = p->u_begin + p->rtt_ns + STALE_NS;
	a = a > b ? a : b;
	return a > now ? a - now : 0;
}

void pace_sent(struct pace *p, uint64_t now)
{
	while (p->n && stale_in(p, now) == 0) {
		p->first = (p->first + 1) % PACE_MAX_INFLIGHT;
		p->n--;
	}
	if (p->n == PACE_MAX_INFLIGHT) {
		p->first = (p->first + 1) % PACE_MAX_INFLIGHT;
		p->n--;
	}
	p->sent[(p->first + p->n) % PACE_MAX_INFLIGHT] = now;
	p->n++;
	p->last_sent = now;
}

/* The most requests worth keeping in flight. The reader asks for the
 * next update as one begins, so a request comes back a round trip after
 * it went, and each update holds the way (the link, or the server
 * sending it, or vncfb reading it) for upd_ns: the round trip over that
 * many keep the way busy with nothing waiting. One more would fill the
 * rest of a round trip, but only by queueing every update behind
 * another in the link, the picture shown that much older (at 60 ms and
 * 50 Mbit/s, frames of 175 KB: 2 requests carry 93 % of the link, 3 all
 * of it with each frame 24 ms older). So the quotient is rounded down
 * unless it is within QUEUE_SHARE of the next whole number. At least
 * one, and two under a LAN's round trip (as before the rule: the next
 * update is in the socket as the reader wants it, and waits there at
 * most one update's reading); up to PACE_MAX_INFLIGHT while no update
 * has been timed. */
#define QUEUE_SHARE 0.25

static unsigned cap(const struct pace *p)
{
	double c;

	if (p->upd_ns <= 0 || !p->rtt_ns)
		return PACE_MAX_INFLIGHT;
	c = (double)p->rtt_ns / p->upd_ns + QUEUE_SHARE;
	if (p->rtt_ns < PACE_LAN_RTT_NS && c < 2)
		return 2;
	if (c < 1)
		return 1;
	return c >= PACE_MAX_INFLIGHT ? PACE_MAX_INFLIGHT : (unsigned)c;
}

static void rtt_sample(struct pace *p, uint64_t now, uint64_t rtt)
{
	/* Servers send updates nobody asked for (the picture after an
	 * ExtendedDesktopSize, both answering one request; requests folded
	 * while the server was busy): such an update, matched to a younger
	 * request, looks faster than the link. The first request's (sent
	 * alone, at the connection's start) bounds how fast. */
	/* A round trip of 0 (two reads in the clock's same tick) would
	 * read as "not known yet" to stale_in, which then never drops a
	 * request folded away unseen. */
	if (!rtt)
		rtt = 1;
	if (!p->rtt_first)
		p->rtt_first = rtt;
	else if (rtt < p->rtt_first / 2)
		return;
	if (!p->rtt_win || rtt < p->rtt_win)
		p->rtt_win = rtt;
	if (!p->rtt_ns || rtt < p->rtt_ns)
		p->rtt_ns = rtt;
	if (now - p->rtt_win_start >= RTT_WINDOW_NS) {
		p->rtt_ns = p->rtt_win;
		p->rtt_win = 0;
		p->rtt_win_start = now;
	}
}

/* The requests in flight sent at least a round trip (less slack)
 * before now are answered. */
static void fold(struct pace *p, uint64_t now, uint64_t slack)
{
	while (p->n && now - p->sent[p->first] + slack >= p->rtt_ns) {
		p->first = (p->first + 1) % PACE_MAX_INFLIGHT;
		p->n--;
	}
}

/* An answer this much faster than the first request's is early (that
 * one went alone, at the start: no doubt which update answered it). */
#define EARLY_SHARE 0.8

void pace_update_begin(struct pace *p, uint64_t now, bool queued)
{
	uint64_t oldest, answer, slack;
	unsigned before;
	bool quiet, folded;

	p->u_begin = now;
	p->u_queued = queued;
	p->u_took = p->n > 0;
	if (!p->n)
		return;
	oldest = p->sent[p->first];
	answer = now - oldest;
	if (p->rtt_first && !queued &&
	    (double)answer < EARLY_SHARE * (double)p->rtt_first) {
		if (!p->early) {
			/* Sooner than a round trip: it answers a request
			 * counted as answered already (retired as folded
			 * by a server that did not fold it), and the one it
			 * seems to answer is on its way. Kept, the count
			 * is true again (no request replaces it unless the
			 * target has room); else each later update would seem
			 * to answer a request younger than its own, the round
			 * trip would read that much shorter (x11vnc at
			 * 60 ms: 39 ms, and 1 request where 2 fit), and one
			 * request more than counted would stay in flight
			 * for good. */
			p->early = true;
			p->u_took = false;
			return;
		}
		/* Twice in a row: the first round trip was the slow one
		 * (the server starting up); this is the round trip. */
		p->rtt_first = answer;
		p->rtt_ns = answer;
		p->rtt_win = answer;
	}
	p->early = false;
	rtt_sample(p, now, answer);
	slack = p->rtt_ns / 4 > 2000000 ? p->rtt_ns / 4 : 2000000;
	/* A quiet wire before it (nothing arrived for a slack since the
	 * last update ended): no updates queue in the link, so this one is
	 * the server's next, and it answers every request that reached the
	 * server before it began. libvncserver (x11vnc) and QEMU fold the
	 * requests that arrive while they encode and send into the next
	 * update; counted in flight, they would make each later answer look
	 * a round trip late, and the rules below back off. */
	quiet = !queued && p->u_end && now - p->u_end > slack;
	/* The update answers the oldest request. One that waited at the
	 * server (it had nothing to send) answers every request that
	 * reached it meanwhile: a server folds requests that wait together
	 * into one (libvncserver, Xvnc and QEMU keep a region, not a
	 * count). A prompt answer folds nothing: the requests behind it may
	 * be queued behind its bytes. */
	p->first = (p->first + 1) % PACE_MAX_INFLIGHT;
	p->n--;
	/* Within slack of the round trip: the least seen may be a sample
	 * too high (the first, with the server's start-up in it), and a
	 * request kept here that this update did answer stays counted for
	 * good: each later answer is then matched one request too old,
	 * lands between a prompt and a waited answer, where no rule acts,
	 * and updates keep coming, so it never turns stale. */
	before = p->n;
	/* Not an update right behind a link-limited one: that one was
	 * late because updates queue in the link, and the requests behind
	 * it are each on their way to an update of their own (a server
	 * that answers each one); retired, each would leave an update in
	 * the link that no request accounts for, for good (the picture
	 * that much older: 2 of them at 20 ms and 50 Mbit/s, 102 ms
	 * instead of 46 from the server to the screen). */
	if (answer > 2 * p->rtt_ns + slack &&
	    !(p->last_limited && p->u_end && now - p->u_end < slack / 4))
		fold(p, now, slack);
	else if (quiet)
		/* Only what surely reached it: a request spread a quarter
		 * round trip behind may be on its way to an update of its
		 * own (a server that answers each one). */
		fold(p, now, slack / 4);
	folded = quiet && p->n < before;
	if (queued) {
		/* Updates wait for the client: more requests would only
		 * make the picture older. */
		if (p->target > 1)
			p->target--;
	} else if (answer <= p->rtt_ns + slack) {
		/* Answered at once: requests, not the server or the link,
		 * set the pace. */
		if (p->target < cap(p))
			p->target++;
	} else if (folded) {
		/* The server folded requests and then sat idle (the quiet
		 * wire): they came in a bunch. More, spread closer, keep
		 * one reaching it as each update ends; folded ones cost it
		 * nothing. */
		if (p->target < cap(p))
			p->target++;
	} else if (p->last_limited && !quiet &&
		   answer > 2 * p->rtt_ns + slack) {
		/* Updates queue in the link (not after a quiet wire: then
		 * the server, not the link, kept the request waiting). */
		if (p->target > 1)
			p->target--;
	}
	if (p->target > cap(p))
		p->target = cap(p);
}

void pace_update_pushed(struct pace *p, uint64_t now, bool queued)
{
	unsigned target = p->target;

	pace_update_begin(p, now, queued);
	p->target = target;
}

void pace_update_void(struct pace *p)
{
	if (p->u_took && p->n < PACE_MAX_INFLIGHT) {
		p->first =
		    (p->first + PACE_MAX_INFLIGHT - 1) % PACE_MAX_INFLIGHT;
		p->n++;
	}
	p->u_took = false;
	p->u_queued = true;
}

void pace_update_end(struct pace *p, uint64_t now, uint64_t bytes,
		     uint64_t waited, uint64_t wait_ns)
{
	uint64_t d = now - p->u_begin;

	p->u_end = now;

	p->upd_bytes = p->upd_bytes > 0 ? (3 * p->upd_bytes + (double)bytes) / 4
					: (double)bytes;
	/* Bytes that were waiting read faster than the way brings them. */
	if (!p->u_queued)
		p->upd_ns =
		    p->upd_ns > 0 ? (3 * p->upd_ns + (double)d) / 4 : (double)d;
	/* Half its time waiting on the socket: the link set its pace. */
	p->last_limited = d > 0 && 2 * wait_ns >= d;
	if (p->last_limited) {
		p->w_waited += waited;
		p->w_wait += wait_ns;
	}
	if (p->last_limited && waited >= RATE_MIN_BYTES) {
		double r = (double)waited * 1e9 / (double)wait_ns;
		/* The whole update over its time, when more: the bytes that
		 * came during a wait are only those of the read that ended
		 * it; the link went on delivering into the socket while
		 * they were handled, and the next reads found those there
		 * (x11vnc at 60 ms: 180 KB in 28 ms, 51 Mbit/s, of which
		 * 21 KB came "waited", 6 Mbit/s, which capped the requests
		 * in flight at 2). */
		double whole = (double)bytes * 1e9 / (double)d;

		if (whole > r)
			r = whole;
		p->rate = p->rate > 0 ? (3 * p->rate + r) / 4 : r;
		p->w_busy += d;
	}
}

bool pace_may_request(const struct pace *p)
{
	return p->n < p->target;
}

bool pace_request_due(const struct pace *p, uint64_t now)
{
	return pace_next_ns(p, now) == 0;
}

uint64_t pace_next_ns(const struct pace *p, uint64_t now)
{
	uint64_t gap, due;

	if (!pace_may_request(p))
		return stale_in(p, now);
	if (!p->n)
		return 0;
	/* Spread over the round trip. */
	gap = p->rtt_ns / p->target;
	due = p->last_sent + gap;
	return due > now ? due - now : 0;
}

void pace_auto_start(struct pace *p, int q, uint64_t now)
{
	p->auto_on = true;
	p->quality = q;
	p->w_start = now;
	p->w_busy = 0;
	p->w_waited = 0;
	p->w_wait = 0;
}

static double mbit(double bps)
{
	return bps * 8 / 1e6;
}

/* Full colour again from 8-bit at rate r: the quality the rate calls
 * for. */
static int full_quality(double r)
{
	if (r >= 2 * PACE_LOSSLESS_MIN_BPS)
		return PACE_LOSSLESS;
	return r > PACE_Q8_BPS * HYST ? 8 : 6;
}

static void say(char *why, size_t len, int q, bool low, bool was_lossless,
		bool was_low, double r, double busy)
{
	char what[48];

	if (low)
		snprintf(what, sizeof(what), "8-bit colour");
	else if (q == PACE_LOSSLESS)
		snprintf(what, sizeof(what), "%slossless",
			 was_low ? "full colour, " : "");
	else
		snprintf(what, sizeof(what), "%sJPEG quality %d",
			 was_low ? "full colour, " : "", q);
	if (low)
		snprintf(why, len,
			 "%s: the link carries %.3g Mbit/s, under %.3g", what,
			 mbit(r), mbit(PACE_SLOW_BPS));
	else if (q == PACE_LOSSLESS)
		snprintf(why, len,
			 "%s: the link carries %.0f Mbit/s, enough "
			 "for it",
			 what, mbit(r));
	else if (was_lossless)
		snprintf(why, len,
			 "%s: lossless filled the link (%.3g Mbit/s, busy "
			 "%.0f%% of the time)",
			 what, mbit(r), busy * 100);
	else
		snprintf(why, len, "%s: the link carries %.3g Mbit/s", what,
			 mbit(r));
}

int pace_choose(struct pace *p, uint64_t now, char *why, size_t len)
{
	double busy, r = p->rate;
	int q = p->quality, want = q;
	bool low = p->low;

	if (!p->auto_on || now - p->w_start < PACE_WINDOW_NS)
		return q;
	busy = (double)p->w_busy / (double)(now - p->w_start);
	/* 8-bit updates on a link that got faster arrive mostly at once,
	 * too few bytes waited for for a sample each: the window's add up. */
	if (p->low && p->w_waited >= RATE_MIN_BYTES && p->w_wait)
		r = (double)p->w_waited * 1e9 / (double)p->w_wait;
	p->w_start = now;
	p->w_busy = 0;
	p->w_waited = 0;
	p->w_wait = 0;
	if (p->low) {
		/* The measured rate is the link's, whatever the format:
		 * back only well above the threshold. */
		if (r > PACE_FULL_BPS) {
			low = false;
			want = full_quality(r);
		}
	} else if (q == PACE_LOSSLESS) {
		/* Lossless while the link carries it: a link that is busy
		 * all the time at a rate below a LAN's holds it back. */
		if (busy >= BUSY_SHARE && r > 0 && r < PACE_LOSSLESS_MIN_BPS &&
		    (p->probe_ns ? p->probe_ns : p->rtt_ns) >= PACE_LAN_RTT_NS)
			want = r < PACE_SLOW_BPS ? 2 : r > PACE_Q8_BPS ? 8 : 6;
		low = want == 2 && p->low_ok;
	} else if (r >= 2 * PACE_LOSSLESS_MIN_BPS) {
		want = PACE_LOSSLESS;
	} else if (r > 0) {
		if (q < 8 && r > PACE_Q8_BPS * HYST)
			want = 8;
		else if (q == 8 && r < PACE_Q8_BPS / HYST)
			want = 6;
		else if (r < PACE_SLOW_BPS / HYST && (q > 2 || p->low_ok))
			want = 2;
		else if (q == 2 && r > PACE_SLOW_BPS * HYST)
			want = 6;
		low = want == 2 && p->low_ok;
	}
	/* A server that serves no lossless picture: its best instead. */
	if (p->best != PACE_LOSSLESS &&
	    (want == PACE_LOSSLESS || want > p->best))
		want = p->best;
	if (want == q && low == p->low)
		return q;
	say(why, len, want, low, q == PACE_LOSSLESS, p->low, r, busy);
	p->quality = want;
	p->low = low;
	return want;
}

unsigned pace_inflight(const struct pace *p)
{
	return p->n;
}

unsigned pace_target(const struct pace *p)
{
	return p->target;
}

uint64_t pace_rtt_ns(const struct pace *p)
{
	return p->rtt_ns;
}

double pace_rate(const struct pace *p)
{
	return p->rate;
}

uint64_t pace_update_began(const struct pace *p)
{
	return p->u_begin;
}

bool pace_last_limited(const struct pace *p)
{
	return p->last_limited;
}

void pace_allow_low(struct pace *p, bool ok)
{
	p->low_ok = ok;
}

bool pace_low(const struct pace *p)
{
	return p->low;
}

void pace_auto_stop(struct pace *p)
{
	p->auto_on = false;
}
