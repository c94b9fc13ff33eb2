/* The local cursor: the server's cursor shape, drawn by the blitter over
 * the shadow at the pointer position, so the shadow stays clean and the
 * pointer moves without a round trip to the server.
 *
 * Threads: cursor_set_shape/cursor_move on the main thread; they take
 * the shadow's lock, which the blitter holds while it calls cursor_blit. */
#ifndef VNCFB_CURSOR_H
#define VNCFB_CURSOR_H

#include <stdbool.h>
#include <stdint.h>

#include "util/rect.h"
#include "shadow/pixconv.h"
#include "shadow/shadow.h"

struct output;

/* Where cursor_blit draws: the blitter's output and shadow, its row
 * converter and a row of room, and the two things it asks of the view.
 * The blitter fills one in and keeps it (blit.c). */
struct cursor_target {
	struct output *out;
	struct shadow *shadow;
	const struct pixconv *conv;	/* shadow -> output pixels */
	uint8_t *row;			/* one output row, blit thread */
	void *ctx;
	/* The screen rectangle showing remote rectangle r, clipped; false
	 * when not visible (blit_remote_to_screen). */
	bool (*remote_to_screen)(void *ctx, const struct rect *r,
				 struct rect *scr);
	/* Redraw screen rectangle scr from the shadow; bytes written
	 * (blit_draw_screen). */
	uint64_t (*draw_screen)(void *ctx, const struct rect *scr);
	/* What the screen shows from the shadow at row sy, columns [sx,
	 * sx + n) inside the screen, as n shadow pixels into out (black
	 * outside the desktop, scaled as the view is): what a translucent
	 * cursor pixel is blended over, without reading the mapping. */
	void (*screen_row)(void *ctx, int32_t sx, int32_t sy, int32_t n,
			   uint8_t *out);
};

struct cursor {
	/* Under the shadow's lock: */
	int w, h, xhot, yhot;
	uint8_t *pix;		/* w*h pixels in the shadow format */
	uint8_t *mask;		/* w*h bytes of alpha: 0 transparent, 255
				 * opaque, between: blended over what
				 * the screen shows from the shadow */
	int x, y;		/* hot spot, remote coordinates */
	bool dirty;		/* shape or position changed since drawn */
	bool drawn;		/* on screen at drawn_rect */
	struct rect drawn_rect; /* screen coordinates */
	/* Blit thread (allocated with the shape): a composed run of
	 * row_size bytes (w pixels, shadow format), then as many for what
	 * the screen shows under it. */
	uint8_t *row;
	size_t row_size;
};

void cursor_init(struct cursor *c);
void cursor_finish(struct cursor *c);
/* Copy a new shape (pixels in sh's format, straight colour; mask 1 byte
 * of alpha a pixel). 0 or -ENOMEM (logged; the old shape stays). */
int cursor_set_shape(struct cursor *c, struct shadow *sh, int xhot, int yhot,
		     int w, int h, const uint8_t *pix, const uint8_t *mask);
/* The pointer is now at x,y (remote coordinates). */
void cursor_move(struct cursor *c, struct shadow *sh, int x, int y);
/* Whether the blitter has something to redraw (shape or position). */
bool cursor_dirty(struct cursor *c, struct shadow *sh);

/* Blit thread, the shadow's lock held. Where the cursor is on the screen (the
 * rectangle its shape covers), false when it is not drawn. */
bool cursor_drawn_rect(const struct cursor *c, struct rect *scr);
/* The screen under the cursor was redrawn from the shadow (a back buffer
 * catching up): the next cursor_blit draws the cursor again. */
void cursor_invalidate(struct cursor *c);

/* Blit thread, the shadow's lock held, after the pass has copied its damage:
 * redraw the cursor's old and new places when it moved, changed, or the
 * damage (remote rectangles; full: everything) overwrote it. The shape is
 * drawn 1:1 on the screen at any scale. Appends the screen rectangles
 * written to out (room for 2 more) and returns the bytes written. */
uint64_t cursor_blit(struct cursor *c, const struct cursor_target *t,
		     const struct rect *damage, int n, bool full,
		     struct rect *out, int *nout);

#endif
