/* struct pace, for pace.c and the tests that drive it with made-up
 * links (tests/unit/test_link.c); the rest of vncfb sees only pace.h.
 *
 * Threads: as pace.h. */
#ifndef VNCFB_PACE_PRIV_H
#define VNCFB_PACE_PRIV_H

#include <stdbool.h>
#include <stdint.h>

#include "net/pace.h"

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

#endif
