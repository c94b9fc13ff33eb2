/* The pipeline: one viewer's data path from the server to the screen, VNC
 * client -> shadow -> damage -> blitter (with the local cursor, and the
 * scaler the blitter sets up for the view) -> an open output, together
 * with the choice of the blit thread's core. The session (view and demo)
 * and vncfb bench build it, connect it and tear it down here, the same
 * way; the output stays the caller's (console.h).
 *
 * Threads: everything here is main-thread only, and the VNC events
 * (pipeline_events) come on the main thread, inside pipeline_connect and
 * the caller's vnc_dispatch(pipeline_vnc()). The pipeline starts the blit
 * worker, the only other thread, which calls cfg->on_pass. */
#ifndef VNCFB_PIPELINE_H
#define VNCFB_PIPELINE_H

#include <stdbool.h>
#include <stdint.h>

#include "blit/blit.h"
#include "shadow/damage.h"
#include "output/output.h"
#include "output/rotate.h"
#include "view/view.h"
#include "shadow/shadow.h"
#include "net/vnc.h"

struct options;
struct pipeline;

/* Who draws the shadow into the output. */
enum pipeline_draw {
	/* The blit worker, started (and pinned) by pipeline_create. */
	PIPELINE_BLIT,
	/* The caller, from the damage (pipeline_damage): the blitter is set
	 * up for the view but not started (vncfb bench's memcpy
	 * reference). */
	PIPELINE_CALLER,
	/* Nobody: decode into the shadow only, no damage (vncfb bench's
	 * bare decode loop). */
	PIPELINE_DECODE,
};

/* What the pipeline's owner hears of the connection, after the pipeline
 * has done its own part. All optional. */
struct pipeline_events {
	void *ctx;
	/* The remote desktop is now w x h: the shadow and the view are
	 * resized (not called when a reconnect finds the same size, which
	 * keeps the last picture). */
	void (*resized)(void *ctx, uint32_t w, uint32_t h);
	/* A whole update is decoded; the worker is kicked right after. */
	void (*update_done)(void *ctx);
	/* The server moved the pointer to (x, y), inside the desktop. */
	void (*cursor_pos)(void *ctx, int x, int y);
	/* An ExtendedDesktopSize rectangle (vnc_events.layout), after the
	 * resize it brought. */
	void (*layout)(void *ctx, const struct vnc_layout *l);
	/* Optional: a line for the status line (vnc_events.note). */
	void (*note)(void *ctx, const char *text);
};

struct pipeline_config {
	struct output *out; /* open (console_open); the caller's */
	enum pipeline_draw draw;
	/* The blit worker's core: >= 0 that core (a pin that fails is an
	 * error), -1 unpinned. */
	int cpu;
	/* --cpu auto: the core probe (probe_pick_core, samples per core)
	 * picks cpu instead, and a pin that fails leaves the worker
	 * unpinned: unpinned beats no picture. */
	bool choose_cpu;
	int samples;
	enum scale_mode scale; /* blit_set_scale */
	unsigned zoom;
	/* Where the output's heads sit ("NAME:X,Y ...", layout.h); NULL:
	 * side by side, or as the server's screens are. */
	const char *layout;
	/* --rotate: how each head is turned (rotate.h's spec), NULL: none. */
	const char *rotate;
	/* Optional: called on the worker after each pass (vncfb bench). */
	void (*on_pass)(void *ctx, const struct blit_stats *st);
	void *on_pass_ctx;
	struct pipeline_events ev;
};

/* Build the pipeline on cfg->out: the core choice, shadow, damage,
 * blitter and cursor, then (PIPELINE_BLIT) start the worker and check
 * where it runs. NULL on failure (logged), with nothing left behind. */
struct pipeline *pipeline_create(const struct pipeline_config *cfg);
/* Disconnect, stop the worker (pipeline_stop) and free everything but
 * the output. NULL: no-op. */
void pipeline_destroy(struct pipeline *p);

/* The connection settings the options ask for, in the shadow's pixel
 * format: server, encodings and quality, password, timeouts, TLS. The
 * caller adjusts what is its own (the local cursor, view-only). */
void pipeline_vnc_config(const struct pipeline *p, const struct options *o,
			 struct vnc_config *v);
/* The same for a client without a pipeline, in fmt (vncfb bench
 * --record). */
void pipeline_vnc_config_fmt(const struct options *o, const struct pixfmt *fmt,
			     struct vnc_config *v);
/* Connect with cfg (copied by the client). 0, or -1 with *err set (the
 * reason logged). Only while disconnected. */
int pipeline_connect(struct pipeline *p, const struct vnc_config *cfg,
		     enum vnc_error *err);
/* Close the connection; the picture stays. No-op when disconnected. */
void pipeline_disconnect(struct pipeline *p);
/* The connection (vnc_fd, vnc_dispatch, vnc_send_*), NULL while there is
 * none (also inside pipeline_connect's own events). */
struct vnc_client *pipeline_vnc(const struct pipeline *p);
/* Inside update_done: the pixels the update's rectangles covered (their
 * areas, clipped, added up). 0 for an update of pseudo-rectangles only,
 * such as libvncserver's answer to a full request, which brings only
 * the desktop's size and leaves the picture to the next update. */
uint64_t pipeline_update_pixels(const struct pipeline *p);

/* The parts, for what is the caller's to do with them. The blitter,
 * damage and cursor are the first head's (pipeline_blitter: NULL when
 * nothing is drawn); an output of several heads has one of each per
 * head. */
struct blitter *pipeline_blitter(struct pipeline *p);
struct blitter *pipeline_head_blitter(struct pipeline *p, unsigned i);
/* The heads' rectangles in the desktop (one per head, room
 * for OUTPUT_MAX_HEADS), what remote resize asks for. Returns how many. */
unsigned pipeline_layout(const struct pipeline *p, struct rect *heads);
/* Every head's blitter: blit_suspend, blit_resume (VT switches). */
void pipeline_suspend(struct pipeline *p);
void pipeline_resume(struct pipeline *p);
struct shadow *pipeline_shadow(struct pipeline *p);
struct damage *pipeline_damage(struct pipeline *p);

/* The pointer is at remote (x, y): the local cursor goes there. True when
 * the worker has something to redraw (then pipeline_kick). */
bool pipeline_cursor_move(struct pipeline *p, int x, int y);
/* Wake the worker: the shadow, the view or the cursor changed. */
void pipeline_kick(struct pipeline *p);

/* The view of the desktop (main thread). On several heads the scale
 * mode, the pan and where the pointer is are the layout's: each head
 * shows its part of one picture, so each of these acts on every head
 * alike. Screen points are the layout's pixels (on one output, its
 * screen's), pipeline_screen_size large. Those returning bool say
 * whether the view moved (the redraw scheduled, the workers kicked). */
void pipeline_screen_size(const struct pipeline *p, uint32_t *w,
			  uint32_t *h);
/* Head name's rectangle in the layout (names in any case). False when
 * no head has that name. */
bool pipeline_head_rect(const struct pipeline *p, const char *name,
			struct rect *r);
/* The first head's view (struct view: its sizes and pan are every
 * head's). */
/* How the head a touch screen or tablet lies on is turned (--rotate):
 * the head named (NULL: the only one; on several, none is turned for a
 * device that spans them all). */
enum rotation pipeline_head_rotation(const struct pipeline *p,
				     const char *name);
/* Whether every head's blitter keeps up: none has left a kick waiting
 * since before now - limit_ns (the service watchdog pings only then). */
bool pipeline_progressing(struct pipeline *p, uint64_t now,
			  uint64_t limit_ns);
/* Passes the first head has drawn (0 with none). */
uint64_t pipeline_passes(struct pipeline *p);
void pipeline_get_view(const struct pipeline *p, struct view *v);
/* The scale mode (blit_set_scale), kept for heads made later (a
 * hot-plug); with a desktop, every head's view recomputed. */
void pipeline_set_scale(struct pipeline *p, enum scale_mode mode,
			unsigned zoom);
bool pipeline_pan(struct pipeline *p, int dx, int dy);
bool pipeline_follow(struct pipeline *p, int rx, int ry);
bool pipeline_center(struct pipeline *p, int rx, int ry);
bool pipeline_edge_pan(struct pipeline *p, int sx, int sy);
/* The remote pixel under screen point (sx, sy) (view_screen_to_remote). */
void pipeline_screen_to_remote(const struct pipeline *p, int sx, int sy,
			       int *rx, int *ry);
/* The status line on every head (blit_set_status). */
void pipeline_set_status(struct pipeline *p, const char *text);
/* The output was re-made (output_reconfigure, with the workers
 * stopped), perhaps with other heads: the layout made again, a new
 * blitter for each head, its core chosen again as at create (the probe),
 * started, drawing the whole picture. 0, or -1 (logged: then no worker
 * runs, and no blitter is left). */
int pipeline_output_changed(struct pipeline *p);
/* The output lost heads without being re-made (output_reconfigure
 * returned -ENODEV: no display left): the blitters of the heads gone are
 * freed, the first one's kept, stopped. */
void pipeline_heads_gone(struct pipeline *p);
/* Stop the worker, which draws what is still damaged first; from then on
 * the calling thread owns the mapping (blit_pass, blit_snapshot_rgb). A
 * PIPELINE_CALLER caller stops its own drawing thread before this.
 * Idempotent. */
void pipeline_stop(struct pipeline *p);

#endif
