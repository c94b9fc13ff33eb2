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

#include "shadow/damage.h"
#include "output/output.h"
#include "shadow/pixconv.h"
#include "shadow/shadow.h"
#include "view/view.h"

struct cursor;
struct scaler;

/* Per-pass timing, for vncfb bench. */
struct blit_stats {
	uint64_t kick_ns;	/* when the oldest update in the pass ended */
	uint64_t start_ns;	/* pass start (after taking damage) */
	uint64_t end_ns;	/* last row written */
	/* When the pass reached the display, as the output reports it (the
	 * drm output's page flip event), 0 when it does not say: a page
	 * flip took shown_ns - end_ns. */
	uint64_t shown_ns;
	uint64_t bytes;		/* bytes written to the mapping */
	uint32_t kicks;		/* updates folded into this pass */
	int rects;
};

/* Screen rectangles one pass changed, kept for the next: a double-buffered
 * output's back buffer missed them (OUTPUT_BUF_PREVIOUS). The new damage,
 * the cursor's old and new places, the status line. */
#define BLIT_MAX_CHANGED (DAMAGE_MAX_RECTS + 3)

/* Opaque: made by blit_create, owned by whoever made it. */
struct blitter;


/* A blitter that draws sh onto out as d says, on core cpu (-1:
 * unpinned) once started. NULL when out of memory (logged). Main
 * thread. */
struct blitter *blit_create(struct output *out, struct shadow *sh,
			    struct damage *d, int cpu);
/* Stop the worker if it runs, free; NULL is a no-op. Main thread. */
void blit_destroy(struct blitter *b);

/* Before blit_start (main thread): what the worker draws over the
 * picture, and who hears about each pass (vncfb bench). */
void blit_set_cursor(struct blitter *b, struct cursor *c);
void blit_set_on_pass(struct blitter *b,
		      void (*fn)(void *ctx, const struct blit_stats *st),
		      void *ctx);
/* The core the worker is asked to run on (-1: unpinned). Main thread,
 * before blit_start, or after a failed pin to record that it runs
 * unpinned. */
void blit_set_cpu(struct blitter *b, int cpu);
/* After blit_start: -errno from pinning (0: fine), and the core the
 * worker last found itself on (-1: unknown). Any thread. */
int blit_pin_error(struct blitter *b);
int blit_actual_cpu(struct blitter *b);
/* The worker's CPU-time clock (pthread_getcpuclockid), for vncfb bench.
 * 0, or -ESRCH when no worker runs. */
int blit_cpu_clock(struct blitter *b, clockid_t *id);
/* Passes drawn so far (the first picture is on the screen once one
 * follows it). Any thread. */
uint64_t blit_passes(struct blitter *b);
/* Start the worker (pinned when its core is set). 0 or -errno (logged). */
int blit_start(struct blitter *b);
/* Stop and join the worker; then draw what is still damaged from the
 * calling thread, which owns the mapping from then on. */
void blit_stop(struct blitter *b);

/* This output is head r of a layout lw x lh of several (view_set_head;
 * lw 0: the only one), which blit_reset_view applies. Main thread. */
void blit_set_head(struct blitter *b, const struct rect *r, uint32_t lw,
		   uint32_t lh);
/* The scale mode blit_reset_view applies (main thread). */
void blit_set_scale(struct blitter *b, enum scale_mode mode, unsigned zoom);
/* Recompute where the remote desktop sits on the screen and how it is
 * scaled (after a resize), and schedule a full redraw. Call with the new
 * shadow size in place. Main thread. */
void blit_reset_view(struct blitter *b);

/* Panning (main thread), for a desktop drawn larger than the screen
 * (--scale none or N). Each returns true when the view moved; the
 * redraw is then scheduled and the worker kicked.
 * blit_pan: by (dx, dy) screen pixels (keyboard hotkeys; see
 * BLIT_PAN_STEP_DIV for a step).
 * blit_follow: just enough that remote point (rx, ry) stays
 * BLIT_PAN_MARGIN_DIV-th of the screen (the layout) away from each edge,
 * so the view follows the pointer smoothly. */
#define BLIT_PAN_STEP_DIV 8
#define BLIT_PAN_MARGIN_DIV 16
bool blit_pan(struct blitter *b, int dx, int dy);
/* To pan position (px, py) (struct view's pan_x, pan_y; clamped): the
 * other heads of a layout follow the first's pan. */
bool blit_pan_to(struct blitter *b, int px, int py);
bool blit_follow(struct blitter *b, int rx, int ry);
/* Edge scrolling for an absolute pointer at screen (sx, sy): pan one
 * tick's step (view_edge_step, within the follow margin, up to
 * BLIT_EDGE_SPEED_DIV-th of the screen; on a head of several, of the
 * layout's edges and size). True when the view moved. Main thread. */
#define BLIT_EDGE_SPEED_DIV 64
bool blit_edge_pan(struct blitter *b, int sx, int sy);
/* Pan remote point (rx, ry) to the screen's centre, as far as the
 * desktop's edges allow. True when the view moved. Main thread. */
bool blit_center(struct blitter *b, int rx, int ry);

/* A copy of the mapping (struct view in view.h). Main thread, or with
 * the blitter's lock held (blit thread). */
void blit_get_view(struct blitter *b, struct view *out);
/* The screen rectangle showing remote rectangle r, clipped to the screen
 * (e.g. where to draw a local cursor). False when not visible. Same
 * threads as blit_get_view. */
bool blit_remote_to_screen(struct blitter *b, const struct rect *r,
			   struct rect *out);
/* Redraw screen rectangle scr from the shadow through the mapping (black
 * outside the desktop), e.g. to restore what an overlay covered. Blit
 * thread (or after blit_stop) inside a pass (both locks held). Returns
 * bytes written. */
uint64_t blit_draw_screen(struct blitter *b, const struct rect *scr);
/* Show text in a status line along the bottom of the screen over the
 * picture (statusline.h), or remove it (NULL or ""), and kick the worker.
 * Main thread. */
void blit_set_status(struct blitter *b, const char *text);
/* Show black instead of the desktop and its cursor (the status line
 * still over it), or the desktop again: a display that must not show
 * the desktop, only why (a stand-in, output.h). Schedules a full redraw
 * and kicks the worker. Main thread. */
void blit_set_blank(struct blitter *b, bool blank);
/* Stop touching the mapping (returns once the worker is out of it). */
void blit_suspend(struct blitter *b);
void blit_resume(struct blitter *b);

/* Draw the damage set now, on the calling thread (worker, or the main
 * thread after blit_stop). Takes the blitter's lock, then the shadow's lock. */
void blit_pass(struct blitter *b, const struct damage_set *set,
	       struct blit_stats *st);

/* Map a screen position to remote coordinates, clamped to the desktop:
 * the remote pixel under the centre of screen pixel (sx, sy). Main
 * thread. */
void blit_screen_to_remote(struct blitter *b, int sx, int sy, int *rx,
			   int *ry);
/* Whether a full redraw is scheduled (after a pan or a view reset) and
 * no pass has drawn it yet. For tests: main thread, with no worker
 * running (it reads without the lock). */
bool blit_full_pending(struct blitter *b);

/* Render what the screen shows into rgb (3 bytes/pixel, w*h of the
 * output), from the mapping when it is readable RAM, else from the shadow
 * through the same mapping. Main thread; takes both locks. */
int blit_snapshot_rgb(struct blitter *b, uint8_t *rgb);

#endif
