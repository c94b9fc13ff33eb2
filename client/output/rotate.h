/* Rotated outputs (--rotate): a head whose picture the blitter turns by
 * 90, 180 or 270 degrees clockwise as it writes. A struct output of the
 * turned (logical) size stands in for the physical one: the blitter, the
 * cursor, the status line, the view and the layout see the logical size
 * and write logical rows; its write_row puts each row where it goes on
 * the panel, its present hands the panel's rectangles on. The bulk of a
 * pass goes through rotate_block, a cache-blocked copy (rotkern.h).
 *
 * Also the geometry every user of a turned head needs (rectangles and
 * touch positions), and the --rotate spec.
 *
 * Threads: rotout_init/rotout_sync and the parsing on the main thread
 * (with nothing drawing); the output hooks on the blit thread, as any
 * output's. The geometry is pure. */
#ifndef VNCFB_ROTATE_H
#define VNCFB_ROTATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "output/output.h"
#include "util/rect.h"

/* Clockwise quarter turns of the picture on the panel. */
enum rotation {
	ROT_0 = 0,
	ROT_90 = 1,
	ROT_180 = 2,
	ROT_270 = 3,
};

/* The angle for head name (NULL or "": a head without one) in spec: "90"
 * for every head, or "NAME:ANGLE ..." (blank-separated, at most one bare
 * ANGLE for the heads not named; names compared without case). NULL
 * spec: ROT_0. 0, or -EINVAL with why (len bytes) saying what is
 * wrong. */
int rotate_lookup(const char *spec, const char *name, enum rotation *rot,
		  char *why, size_t len);
/* The spec's grammar alone (--rotate, rotate=): 0 or -EINVAL with why. */
int rotate_check(const char *spec, char *why, size_t len);
/* Degrees for messages. */
unsigned rotate_degrees(enum rotation rot);

/* The logical size of a panel pw x ph turned by rot. */
void rotate_size(enum rotation rot, uint32_t pw, uint32_t ph, uint32_t *lw,
		 uint32_t *lh);
/* Logical rectangle r (of a lw x lh picture) on the panel. */
struct rect rotate_rect(enum rotation rot, uint32_t lw, uint32_t lh,
			const struct rect *r);
/* A position on the panel as fractions of its sides (0..1, a touch
 * screen's or a tablet's) to fractions of the upright picture. */
void rotate_fraction(enum rotation rot, double px, double py, double *lx,
		     double *ly);

/* The stand-in for a panel: embeds the logical output first. */
struct rotout {
	struct output out;	/* logical: width, height turned */
	struct output *phys;	/* the panel's own (the caller's) */
	enum rotation rot;
	unsigned bpp;
};

extern const struct output_impl rotout_impl, rotout_live_impl;

/* Set r up as phys turned by rot (not ROT_0). Nothing to free. */
void rotout_init(struct rotout *r, struct output *phys, enum rotation rot);
/* The rotout behind o, NULL when o is no rotated output. */
static inline struct rotout *rotout_of(struct output *o)
{
	return o && (o->impl == &rotout_impl || o->impl == &rotout_live_impl)
		       ? (struct rotout *)o
		       : NULL;
}
/* Write the logical w x h pixels at src (rows sstride bytes apart) at
 * logical (x, y), turned, onto the panel, a cache-sized tile at a time
 * through the panel's write_row. Blit thread. */
void rotout_put(struct rotout *r, int32_t x, int32_t y, const uint8_t *src,
		size_t sstride, uint32_t w, uint32_t h);

#endif
