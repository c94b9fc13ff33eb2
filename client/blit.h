/* The blit worker: the one thread that writes the output mapping. It
 * takes damage, maps remote rectangles onto the screen and copies rows
 * (memcpy when the shadow is in the output's format).
 *
 * Threads: blit_start/stop/suspend/resume/set_view on the main thread;
 * the worker runs on its own (pinned) thread. */
#ifndef VNCFB_BLIT_H
#define VNCFB_BLIT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "damage.h"
#include "output.h"
#include "shadow.h"

/* Per-pass timing, for vncfb bench. */
struct blit_stats {
	uint64_t kick_ns;	/* when the oldest update in the pass ended */
	uint64_t start_ns;	/* pass start (after taking damage) */
	uint64_t end_ns;	/* last row written */
	uint64_t bytes;		/* bytes written to the mapping */
	uint32_t kicks;		/* updates folded into this pass */
	int rects;
};

struct blitter {
	struct output *out;
	struct shadow *shadow;
	struct damage *damage;
	pthread_t thread;
	bool running;
	int cpu;		/* requested core, -1: unpinned */
	atomic_int actual_cpu;	/* where the worker found itself */
	atomic_int pin_error;	/* -errno from pinning, 0 when fine */
	/* Under shadow->lock: */
	bool suspended;
	bool full;		/* redraw everything, borders too */
	int32_t ox, oy;		/* screen position of remote (0,0) */
	uint8_t *row;		/* conversion / zero row, blit thread */
	size_t row_size;
	/* Optional hook, called on the worker after each pass. */
	void (*on_pass)(void *ctx, const struct blit_stats *st);
	void *on_pass_ctx;
	atomic_uint_fast64_t passes;
	atomic_uint_fast64_t bytes_total;
};

int blit_init(struct blitter *b, struct output *out, struct shadow *sh,
	      struct damage *d, int cpu);
/* Start the worker (pinned when b->cpu >= 0). 0 or -errno (logged). */
int blit_start(struct blitter *b);
/* Stop and join the worker; then draw what is still damaged from the
 * calling thread, which owns the mapping from then on. */
void blit_stop(struct blitter *b);
void blit_finish(struct blitter *b);

/* Recompute where the remote desktop sits on the screen (after a resize)
 * and schedule a full redraw. Call with the new shadow size in place. */
void blit_reset_view(struct blitter *b);
/* Stop touching the mapping (returns once the worker is out of it). */
void blit_suspend(struct blitter *b);
void blit_resume(struct blitter *b);

/* Draw the damage set now, on the calling thread (worker, or the main
 * thread after blit_stop). Takes shadow->lock. */
void blit_pass(struct blitter *b, const struct damage_set *set,
	       struct blit_stats *st);

/* Map a screen position to remote coordinates, clamped to the desktop. */
void blit_screen_to_remote(struct blitter *b, int sx, int sy, int *rx,
			   int *ry);

/* Render what the screen shows into rgb (3 bytes/pixel, w*h of the
 * output), from the mapping when it is readable RAM, else from the shadow
 * through the same mapping. Main thread; takes shadow->lock. */
int blit_snapshot_rgb(struct blitter *b, uint8_t *rgb);

#endif
