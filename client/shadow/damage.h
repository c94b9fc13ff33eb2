/* Damage: the rectangle set handed from the decoder (main thread) to the
 * blitter. The decoder adds and kicks; the blitter takes-and-clears. A slow
 * blitter makes rectangles coalesce, never queue. Thread-safe. */
#ifndef VNCFB_DAMAGE_H
#define VNCFB_DAMAGE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "util/rect.h"

#define DAMAGE_MAX_RECTS 32

struct damage_set {
	struct rect rects[DAMAGE_MAX_RECTS];
	int n;
	/* Monotonic time (ns) of the oldest kick this set holds, 0 if none. */
	uint64_t kick_ns;
	/* Number of kicks (complete server updates) folded into this set. */
	uint32_t kicks;
};

struct damage {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct damage_set set;
	bool kicked;
	bool stop;
	/* Pixels added since the blitter last took the set, and how many
	 * wake it before the update ends (0: only kicks do). */
	uint64_t pending_px, early_px;
};

int damage_init(struct damage *d);
void damage_finish(struct damage *d);

/* Add a rectangle (already clipped by the caller). Merges touching
 * rectangles when that costs little, and folds into the cheapest neighbour
 * when the set is full. Does not wake the blitter. */
void damage_add(struct damage *d, const struct rect *r);
/* Let damage_add wake the blitter, without counting a kick, once px
 * pixels wait (0: never): an output that shows its mapping as it is
 * written then draws a long update while it is decoded, behind the
 * decoder and from rows still in the cache, instead of all of it after
 * the update's end. Set before the blitter starts. */
void damage_set_early(struct damage *d, uint64_t px);
/* Wake the blitter: a complete update is in the shadow. */
void damage_kick(struct damage *d);
/* add + kick in one locked step. */
void damage_add_kick(struct damage *d, const struct rect *r);
/* When the oldest kick the blitter has not taken yet came (monotonic
 * ns), 0 when none waits: a blitter that leaves one waiting long has
 * stalled (the service watchdog's test). Any thread. */
uint64_t damage_waiting_since(struct damage *d);
/* Ask damage_take to return -1 from now on. */
void damage_stop(struct damage *d);

/* Block until kicked (or stopped, or timeout_ms passes when >= 0), then move
 * the set into *out and clear it. Returns the number of rectangles (0 on
 * timeout), or -1 when stopped. */
int damage_take(struct damage *d, struct damage_set *out, int timeout_ms);

/* Move the set into *out and clear it now, kicked or not, stopped or not:
 * what is left for the caller that drew the last pass itself. */
void damage_drain(struct damage *d, struct damage_set *out);

/* The merge policy alone, for tests and for callers with their own lock. */
void damage_set_add(struct damage_set *s, const struct rect *r);

#endif
