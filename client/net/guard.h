/* Deadlines for a connection's blocking reads and writes. libvncclient
 * reads inside InitialiseRFBConnection and ReadFromRFBServer blocks until
 * its bytes are all there, so nothing on the reading thread can stop a
 * server that trickles: a watchdog thread shuts the socket down (and a
 * blocked read or write returns at once) when the armed deadline passes,
 * when the abort fd becomes readable (a terminating signal arrived) or
 * when the session's end time (--exit-after) comes. The connection is
 * then dead; guard_fired() says why.
 *
 * Threads: guard_start/arm/fired/stop on the connection's thread (the
 * main thread); the watchdog only calls shutdown() on the socket and
 * shares atomics and a wake-up pipe. */
#ifndef VNCFB_GUARD_H
#define VNCFB_GUARD_H

#include <stdint.h>

enum guard_why {
	GUARD_NONE = 0,
	GUARD_DEADLINE, /* the armed deadline passed */
	GUARD_ABORT,	/* abort_fd became readable */
	GUARD_END,	/* end_ns came */
};

struct guard;

/* Watch fd. abort_fd: readable when everything must stop (<= 0: none; it
 * is polled, never read). end_ns: monotonic time at which everything
 * stops (0: never). NULL when the thread cannot start (logged). */
struct guard *guard_start(int fd, int abort_fd, uint64_t end_ns);
/* Stop the watchdog (joined); NULL is a no-op. */
void guard_stop(struct guard *g);
/* The deadline for what the connection does next (monotonic ns), or 0
 * for none. Cheap: an atomic store, a wake-up only when the watchdog
 * sleeps past it. */
void guard_arm(struct guard *g, uint64_t deadline_ns);
enum guard_why guard_fired(const struct guard *g);

/* Whether abort_fd is readable or end_ns has come, without a watchdog:
 * for the waits vncfb does itself (connect). */
enum guard_why guard_check(int abort_fd, uint64_t end_ns);

#endif
