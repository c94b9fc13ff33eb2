/* What the link carries, measured while the session runs, and what
 * follows from it: how many FramebufferUpdateRequests to keep in flight
 * for a server without continuous updates, and (when the user chose
 * neither --encodings nor --quality) whether to stay lossless or move to
 * JPEG and at which quality. The rules are in doc/network.md.
 *
 * Pure: times (monotonic ns) and byte counts in, decisions out; no I/O,
 * so that tests drive it with made-up links.
 *
 * Threads: one struct pace belongs to the connection's thread. */
#ifndef VNCFB_PACE_H
#define VNCFB_PACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Requests in flight at most. */
#define PACE_MAX_INFLIGHT 16
/* Auto-select's window: a decision at most this often (ns). */
#define PACE_WINDOW_NS 2000000000ull
/* Below this rate (bytes/s) a saturated link holds lossless frames
 * back: 100 Mbit/s. At and above, lossless stays (a LAN, loopback). */
#define PACE_LOSSLESS_MIN_BPS 12500000.0
/* Nor does lossless leave under this round trip (ns; the fence pings'
 * when there are any), or while none is known: loopback and a LAN, where
 * a busy "link" is the server's encoder or vncfb itself, not the wire. */
#define PACE_LAN_RTT_NS 1000000ull
/* TigerVNC's AutoSelect thresholds: JPEG quality 8 above 16 Mbit/s, 6
 * below; under 256 kbit/s 8-bit colour (where the server has fences to
 * mark the change; else JPEG quality 2), back to full colour only above
 * twice that (PACE_FULL_BPS), so that a link near the threshold does
 * not flap between the two. */
#define PACE_Q8_BPS 2000000.0
#define PACE_SLOW_BPS 32000.0
#define PACE_FULL_BPS (2 * PACE_SLOW_BPS)
/* Lossless quality, as vnc_config.quality has it. */
#define PACE_LOSSLESS (-1)

struct pace {
	/* Send times of the requests in flight, oldest first (a ring). */
	uint64_t sent[PACE_MAX_INFLIGHT];
	unsigned first, n;
	uint64_t last_sent;
	unsigned target; /* requests to keep in flight */
	/* Round trip: the least seen (request to the first byte of its
	 * update), this window's least, when the window began. */
	uint64_t rtt_ns, rtt_win, rtt_win_start;
	uint64_t rtt_first; /* the first sample: a floor of twice less */
	/* The least round trip of fence pings (0: none): the wire's alone,
	 * where request samples also hold the server's encoding. */
	uint64_t probe_ns;
	double rate;	    /* bytes/s of link-limited updates, 0: none */
	double upd_bytes;   /* average update size */
	/* Average time from an update's first byte to its last, of those
	 * whose bytes were not already waiting (0: none yet): how long
	 * the slowest of the link, the server and vncfb takes over one
	 * update. */
	double upd_ns;
	bool u_queued;	    /* the update being read was queued */
	bool u_took;	    /* its beginning retired a request */
	bool early;	    /* the last answer came sooner than a round trip */
	bool last_limited;  /* the last update waited for the link */
	/* The update being read; when the last one ended (0: none yet). */
	uint64_t u_begin, u_end;
	/* Auto-select's window: its start, the time spent in link-limited
	 * updates, the quality in force. */
	uint64_t w_start, w_busy;
	/* This window's link-limited updates together: the bytes that
	 * arrived while waiting, and the wait (updates too small for a
	 * sample of their own add up; how 8-bit colour sees the link grow). */
	uint64_t w_waited, w_wait;
	int quality;
	bool auto_on;
	/* 8-bit colour may be chosen (the server has fences, the user
	 * chose no format); it is in force. */
	bool low_ok, low;
	int best;	    /* the best quality the server serves */
};

void pace_init(struct pace *p, uint64_t now);
/* The update being read answered no request after all (a desktop size
 * alone): the one its beginning retired is in flight again, and its
 * time says nothing of the way. */
void pace_update_void(struct pace *p);
/* A request went out at now. */
void pace_sent(struct pace *p, uint64_t now);
/* An update's header was read at now; queued: its bytes were already
 * there when the previous message ended (the client, not the link, is
 * the limit). Retires the requests it answers. */
void pace_update_begin(struct pace *p, uint64_t now, bool queued);
/* Its last byte was read at now: bytes long, wait_ns of its reading
 * spent waiting for the socket, during which waited bytes arrived. */
void pace_update_end(struct pace *p, uint64_t now, uint64_t bytes,
		     uint64_t waited, uint64_t wait_ns);
/* Requests to send now (0 or 1: they go one at a time, spread over the
 * round trip, so that the server does not fold them into one). */
bool pace_request_due(const struct pace *p, uint64_t now);
/* ns until pace_request_due may say yes (UINT64_MAX: not before an
 * update arrives). With as many in flight as the target, that is when
 * the oldest counts as folded away unseen (no update for a while). */
uint64_t pace_next_ns(const struct pace *p, uint64_t now);
/* A fence ping came back after rtt. */
void pace_probe(struct pace *p, uint64_t rtt);
/* Forget the requests in flight (continuous updates took over, a
 * reconnect, a pause). */
void pace_forget(struct pace *p);

/* Auto-select from quality q (PACE_LOSSLESS or 0-9) at now: the quality
 * to use from now on (q if nothing changes) and in p->low whether in
 * 8-bit colour, and when either changes one line in why saying what and
 * why. */
int pace_choose(struct pace *p, uint64_t now, char *why, size_t len);
/* The best quality the server serves: PACE_LOSSLESS (pace_init's), or
 * a JPEG quality 0-9 for one that serves no lossless picture (PiKVM's
 * kvmd): auto-select goes no higher than q, where it would go lossless. */
void pace_set_best(struct pace *p, int q);
/* Auto-select starts at quality q; its measurements start again at now
 * (after a change took effect). */
void pace_auto_start(struct pace *p, int q, uint64_t now);

#endif
