/* Remote-to-screen mapping: the --scale mode (parsed and named), and
 * struct view, where the remote desktop sits on the screen, how large it
 * is drawn and where it is panned to.
 *
 * Threads: plain data and pure functions, any thread. The blitter's own
 * view is written on the main thread only (blit.h). */
#ifndef VNCFB_VIEW_H
#define VNCFB_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/rect.h"

enum scale_mode {
	SCALE_NONE, /* 1:1, panned when larger than the screen */
	SCALE_FIT,  /* aspect kept, letter-boxed on black */
	SCALE_FILL, /* stretched to the whole screen */
	SCALE_ZOOM, /* integer factor, panned when larger */
};

#define SCALE_ZOOM_MAX 16

/* "none", "fit", "fill" or an integer 1..SCALE_ZOOM_MAX (1 is none).
 * 0 or -EINVAL. */
int scale_parse(const char *s, enum scale_mode *mode, unsigned *zoom);
const char *scale_name(enum scale_mode mode, unsigned zoom, char *buf,
		       size_t len);

/* Where the remote desktop (rw x rh) sits on the screen (sw x sh): it is
 * drawn dw x dh large with its top-left corner at screen (dx, dy). dx/dy
 * are centring offsets when the drawn desktop fits, else -pan_x/-pan_y.
 * Desktop pixel X (0 <= X < dw) shows remote columns
 * [X * rw / dw, (X + 1) * rw / dw), likewise for rows. */
struct view {
	enum scale_mode mode;
	unsigned zoom;
	uint32_t rw, rh;
	uint32_t sw, sh;
	uint32_t dw, dh;
	int32_t dx, dy;
	int32_t pan_x, pan_y; /* 0..dw-lw (0 when it fits) */
	/* One head of several (layout.h): the desktop is placed on the
	 * whole layout, lw x lh, of which this screen (sw x sh) is the part
	 * at (ox, oy); dx/dy are then this screen's. lw 0: the screen is
	 * all there is (lw, lh taken as sw, sh; ox, oy 0). Set by
	 * view_set_head, kept by view_update. */
	uint32_t lw, lh;
	int32_t ox, oy;
};

/* (Re)compute for the given sizes. The pan position is kept (clamped), so
 * a desktop resize does not jump the view back to the corner. */
void view_update(struct view *v, enum scale_mode mode, unsigned zoom,
		 uint32_t rw, uint32_t rh, uint32_t sw, uint32_t sh);
/* This screen is head r of a layout lw x lh (lw 0: the only one). Call
 * view_update after it. */
void view_set_head(struct view *v, const struct rect *r, uint32_t lw,
		   uint32_t lh);
/* True when the drawn desktop is larger than the screen (the layout) on
 * some axis. */
bool view_pannable(const struct view *v);
/* Pan to (px, py) (clamped). True when the view moved. */
bool view_pan_to(struct view *v, int32_t px, int32_t py);
/* Pan just enough that remote point (rx, ry) lies at least margin screen
 * pixels from each edge (the view follows the pointer continuously). True
 * when the view moved. */
bool view_follow(struct view *v, int32_t rx, int32_t ry, int32_t margin);
/* Pan so that remote point (rx, ry) is as near the screen's centre as the
 * desktop's edges allow. True when the view moved. */
bool view_center(struct view *v, int32_t rx, int32_t ry);
/* Edge scrolling, for absolute pointers (touchscreens, tablets), which
 * cannot push past the screen's edge: the pan step (screen pixels, for one
 * tick) with the pointer at screen (sx, sy). Toward each edge the point
 * lies within margin of, from 1 at the margin's inner border to max on
 * the edge itself; 0 where the view cannot move that way. True when there
 * is a step. */
bool view_edge_step(const struct view *v, int32_t sx, int32_t sy,
		    int32_t margin, int32_t max, int32_t *dx, int32_t *dy);
/* The screen rectangle that shows remote rectangle r (every screen pixel
 * whose area overlaps r), clipped to the screen. False when not visible. */
bool view_remote_to_screen(const struct view *v, const struct rect *r,
			   struct rect *out);
/* The remote pixel under the centre of screen pixel (sx, sy), clamped to
 * the desktop (a point on a border maps to the nearest edge). */
void view_screen_to_remote(const struct view *v, int32_t sx, int32_t sy,
			   int32_t *rx, int32_t *ry);
/* The part of the screen covered by the desktop. False when none. */
bool view_desktop(const struct view *v, struct rect *out);
/* True when the mapping is 1:1 (a blit is a row copy at an offset). */
bool view_identity(const struct view *v);

#endif
