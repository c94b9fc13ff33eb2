/* Requests in flight: how many FramebufferUpdateRequests to keep in
 * flight for a server without continuous updates, from what the link
 * carries, measured while the session runs; and (when the user chose
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

struct pace;

/* A pace, to pace_init before use: 0 or -ENOMEM. */
int pace_create(struct pace **out);
void pace_destroy(struct pace *p);

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
/* Another request may go now that one is asked for (an update arrived):
 * fewer are in flight than the target. */
bool pace_may_request(const struct pace *p);
/* An update's header was read at now, as pace_update_begin, of an
 * update that answers no request of vncfb's pacing (continuous updates,
 * or a pause): its round trip is timed, the target stays. */
void pace_update_pushed(struct pace *p, uint64_t now, bool queued);
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
/* What the pace knows, for the trace and the log: requests in flight,
 * the target, the least round trip (ns), the link's rate (bytes/s), when
 * the update being read began, whether the last one waited for the
 * link. */
unsigned pace_inflight(const struct pace *p);
unsigned pace_target(const struct pace *p);
uint64_t pace_rtt_ns(const struct pace *p);
double pace_rate(const struct pace *p);
uint64_t pace_update_began(const struct pace *p);
bool pace_last_limited(const struct pace *p);
/* Auto-select may choose 8-bit colour (the server has fences, the user
 * chose no format); whether it is in force; auto-select stops (the
 * server could not take a change). */
void pace_allow_low(struct pace *p, bool ok);
bool pace_low(const struct pace *p);
void pace_auto_stop(struct pace *p);
/* Auto-select starts at quality q; its measurements start again at now
 * (after a change took effect). */
void pace_auto_start(struct pace *p, int q, uint64_t now);

#endif
