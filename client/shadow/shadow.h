/* The shadow buffer: the remote desktop as decoded, in the output's
 * native pixel format where RFB can express it.
 *
 * Threads: the decoders (the main thread, and the decode pool's workers
 * between a rectangle's read and the end of its update) write pixels
 * without a lock; the blit thread reads them between shadow_lock and
 * shadow_unlock. Reallocation (desktop resize) happens on the main thread
 * with the lock held, so the blitter never sees a freed buffer. A pixel the blitter copies mid-write is damaged
 * again by the decoder and redrawn on the next pass. */
#ifndef VNCFB_SHADOW_H
#define VNCFB_SHADOW_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "shadow/pixfmt.h"

struct shadow {
	pthread_mutex_t lock;	/* private: shadow_lock, shadow_unlock */
	/* The first pixel, on a cache line's start (SHADOW_ALIGN), so that
	 * a tile or row at a multiple of 16 pixels is whole lines. */
	uint8_t *pix;
	void *mem;		/* private: what pix lies in (freed) */
	uint32_t width, height;
	size_t stride;
	struct pixfmt fmt;
	/* Bumped on every reallocation, under lock. */
	uint32_t generation;
};

#define SHADOW_ALIGN 64

int shadow_init(struct shadow *s, const struct pixfmt *fmt);
void shadow_finish(struct shadow *s);
/* Reallocate for w x h, zeroed (w or h may be 0). Takes the lock itself.
 * Returns the new pixels (non-NULL even for 0x0) or NULL (logged). */
uint8_t *shadow_resize(struct shadow *s, uint32_t w, uint32_t h);

/* Hold the pixels still: no reallocation (and no cursor change) until
 * shadow_unlock. Taken after the blitter's own lock, never before. */
void shadow_lock(struct shadow *s);
void shadow_unlock(struct shadow *s);

#endif
