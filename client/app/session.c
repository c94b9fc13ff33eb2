/* The main loop: the only thread that talks to libvncclient. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "blit/blit.h"
#include "util/clock.h"
#include "console/console.h"
#include "platform/input.h"
#include "util/log.h"
#include "output/output.h"
#include "net/passwd.h"
#include "net/trust.h"
#include "app/pipeline.h"
#include "platform/platform.h"
#include "util/ppm.h"
#include "console/privs.h"
#include "console/sdnotify.h"
#include "placement/probe.h"
#include "app/reconnect.h"
#include "app/remote_resize.h"
#include "app/session.h"
#include "shadow/shadow.h"
#include "console/signals.h"
#include "net/vnc.h"
#include "net/vnc_enc.h"

/* Edge scrolling's step interval: about 60 steps a second, each up to
 * BLIT_EDGE_SPEED_DIV-th of the screen (a screen's width a second). */
#define EDGE_TICK_NS 16000000ull

struct session {
	struct options *opt;
	/* The service manager (Type=notify): READY=1 once the first
	 * picture is drawn (a pass after the first update: passes_at),
	 * STATUS=, and WATCHDOG=1 every ping_ns while the pipeline keeps
	 * up (next at sd_ping_at). */
	struct sdnotify sd;
	bool sd_updated, sd_stalled;
	uint64_t sd_passes_at, sd_ping_at;
	struct output out;
	struct pipeline *pipe;
	/* The pipeline's parts the session works with. */
	struct blitter *blit;
	const struct shadow *shadow;
	struct input in;
	bool have_input;
	bool local_cursor;	/* the pipeline's cursor follows the pointer */
	int px, py;		/* pointer, remote coordinates */
	double fx, fy;		/* the same with the fraction a scaled
				 * relative motion leaves */
	uint32_t buttons;
	/* Edge scrolling: an absolute pointer resting near the screen's
	 * edge pans the view a step per tick (blit_edge_pan). */
	bool edge;		/* the last motion was absolute */
	int edge_sx, edge_sy;	/* where, on the screen (the layout) */
	bool touch_missing;	/* said that --touch-head is not a head */
	uint64_t edge_next_ns;	/* next step, 0: none due */
	bool scale_other;	/* the scale hotkey's other mode is on */
	bool quit;
	bool stopping;		/* a quit signal or --exit-after cut the
				 * connection: no reconnecting */
	uint64_t end_ns;	/* --exit-after, or 0 */
	uint64_t updates;
	/* Reconnecting (reconnect.h): what to connect with, and when. */
	struct vnc_config vcfg;
	struct reconnect rc;
	uint64_t last_rx_ns;	/* last data from the server */
	uint64_t ping_ns;	/* liveness ping in flight since, or 0 */
	unsigned shown_s;	/* countdown second on the status line */
	uint64_t note_until;	/* a note is on the status line till then */
	char reason[128];	/* why the last connection or attempt failed */
	char *password;		/* read before dropping root, or NULL */
	/* --remote-resize, and the --scale it falls back to, named. */
	struct remote_resize rr;
	char scale_text[16];
	/* The output has no display (output.waiting, or unplugged): the
	 * connection stays, paused, and remote resize asks for nothing
	 * until one comes. */
	bool no_display;
};

/* --- VNC events (main thread, after the pipeline's own part) --- */

static struct vnc_client *conn(const struct session *s)
{
	return pipeline_vnc(s->pipe);
}

static void ev_resized(void *ctx, uint32_t w, uint32_t h)
{
	struct session *s = ctx;

	/* Not for the first desktop of a connection. */
	if (conn(s))
		log_info("remote desktop is now %ux%u", w, h);
	remote_resize_desktop(&s->rr, w, h);
	/* Keep the pointer inside the new desktop. */
	if (s->px >= (int)w)
		s->px = w ? (int)w - 1 : 0;
	if (s->py >= (int)h)
		s->py = h ? (int)h - 1 : 0;
	if (s->local_cursor)
		pipeline_cursor_move(s->pipe, s->px, s->py);
}

/* The server moved the pointer (another client, an application). */
static void ev_cursor_pos(void *ctx, int x, int y)
{
	struct session *s = ctx;

	s->px = x;
	s->py = y;
	if (pipeline_cursor_move(s->pipe, x, y))
		pipeline_kick(s->pipe);
}

static void ev_update_done(void *ctx)
{
	struct session *s = ctx;

	s->updates++;
	if (!s->sd_updated) {
		s->sd_updated = true;
		s->sd_passes_at = pipeline_passes(s->pipe);
	}
	remote_resize_update(&s->rr, monotonic_ns());
}

static void ev_layout(void *ctx, const struct vnc_layout *l)
{
	struct session *s = ctx;

	remote_resize_layout(&s->rr, l, monotonic_ns());
}

static int rr_send(void *ctx, uint32_t w, uint32_t h,
		   const struct vnc_screen *scr, unsigned n)
{
	struct session *s = ctx;

	return conn(s) ? vnc_set_desktop_size(conn(s), w, h, scr, n) : -1;
}

/* The status line. On a stand-in display (output.waiting after a
 * reconfigure) what is waited for stays on it, over every other
 * message: it is the one thing a kiosk user there needs to know. */
static void set_status(struct session *s, const char *text)
{
	char conn_text[160];
	const char *shown = s->no_display && s->out.waiting ? s->out.why : text;

	pipeline_set_status(s->pipe, shown);
	/* The service manager hears the same; no line: connected. */
	if (!shown || !*shown) {
		snprintf(conn_text, sizeof(conn_text), "connected to %s",
			 s->opt->target ? s->opt->target : s->opt->host);
		shown = conn_text;
	}
	sdnotify_status(&s->sd, shown);
}

/* READY=1 once a pass has followed the first update, and the watchdog's
 * pings while every blitter takes its kicks within a ping's time: a
 * pipeline that stalls (a hung driver, a blocked page flip) stops them,
 * and the service manager restarts vncfb. That this loop runs at all is
 * the connection thread's progress. */
static void sd_tick(struct session *s, uint64_t now)
{
	uint64_t every = sdnotify_ping_ns(&s->sd);

	if (!sdnotify_active(&s->sd))
		return;
	if (s->sd_updated && !s->sd.ready &&
	    pipeline_passes(s->pipe) > s->sd_passes_at)
		sdnotify_ready(&s->sd);
	if (!every || now < s->sd_ping_at)
		return;
	s->sd_ping_at = now + every;
	if (pipeline_progressing(s->pipe, now, every)) {
		sdnotify_watchdog(&s->sd);
		s->sd_stalled = false;
	} else if (!s->sd_stalled) {
		log_warn("the picture has not been drawn for %llu ms: no "
			 "watchdog pings until it is",
			 (unsigned long long)(every / 1000000u));
		s->sd_stalled = true;
	}
}

/* Auto-select changed the quality: said on the status line a while. */
#define NOTE_NS 5000000000ull

static void ev_note(void *ctx, const char *text)
{
	struct session *s = ctx;

	set_status(s, text);
	s->note_until = monotonic_ns() + NOTE_NS;
}

/* --- Input sink (main thread) --- */

static void send_pointer(struct session *s)
{
	if (conn(s))
		vnc_send_pointer(conn(s), s->px, s->py, s->buttons);
	/* The local cursor follows at once, without a round trip. */
	if (s->local_cursor && pipeline_cursor_move(s->pipe, s->px, s->py))
		pipeline_kick(s->pipe);
}

static void in_key(void *ctx, uint32_t keysym, uint32_t scancode, bool down)
{
	struct session *s = ctx;

	if (conn(s))
		vnc_send_key(conn(s), keysym, scancode, down);
}

static void in_motion_rel(void *ctx, int dx, int dy)
{
	struct session *s = ctx;
	int w = (int)s->shadow->width, h = (int)s->shadow->height;
	struct view v;

	/* Motion is in screen pixels: on a scaled desktop one of them is
	 * rw/dw remote pixels; keep the fraction for the next event. */
	pipeline_get_view(s->pipe, &v);
	if ((int)floor(s->fx) != s->px || (int)floor(s->fy) != s->py) {
		s->fx = s->px + 0.5;
		s->fy = s->py + 0.5;
	}
	s->fx += v.dw ? dx * (double)v.rw / v.dw : dx;
	s->fy += v.dh ? dy * (double)v.rh / v.dh : dy;
	if (s->fx >= w)
		s->fx = w - 0.5;
	if (s->fy >= h)
		s->fy = h - 0.5;
	if (s->fx < 0)
		s->fx = 0;
	if (s->fy < 0)
		s->fy = 0;
	s->px = (int)floor(s->fx);
	s->py = (int)floor(s->fy);
	s->edge = false;
	send_pointer(s);
	pipeline_follow(s->pipe, s->px, s->py);
}

/* A step of edge scrolling when one is due: the view pans under the
 * resting pointer, which then points at another remote pixel. */
static void edge_tick(struct session *s, uint64_t now)
{
	if (!s->edge_next_ns || now < s->edge_next_ns)
		return;
	s->edge_next_ns = 0;
	if (!s->edge || !pipeline_edge_pan(s->pipe, s->edge_sx, s->edge_sy))
		return;
	pipeline_screen_to_remote(s->pipe, s->edge_sx, s->edge_sy, &s->px,
				  &s->py);
	send_pointer(s);
	s->edge_next_ns = now + EDGE_TICK_NS;
}

/* Where an absolute device points: the head --touch-head names, else
 * the whole screen (every head's layout), as X and wlroots map a tablet
 * that is not mapped to an output. */
static struct rect touch_area(struct session *s)
{
	const char *name = s->opt->touch_head;
	struct rect r = {0, 0, 0, 0};
	uint32_t w, h;

	if (name && pipeline_head_rect(s->pipe, name, &r)) {
		s->touch_missing = false;
		return r;
	}
	if (name && !s->touch_missing) {
		log_warn("--touch-head %s: no such head now: tablets and touch "
			 "screens point on the whole desktop",
			 name);
		s->touch_missing = true;
	}
	pipeline_screen_size(s->pipe, &w, &h);
	r.w = (int32_t)w;
	r.h = (int32_t)h;
	return r;
}

/* The turn of the head absolute devices point on (touch_area's). */
static enum rotation touch_rotation(struct session *s)
{
	return pipeline_head_rotation(
	    s->pipe, s->touch_missing ? NULL : s->opt->touch_head);
}

static unsigned in_turns(void *ctx)
{
	struct session *s = ctx;

	return (unsigned)touch_rotation(s);
}

static void in_motion_abs(void *ctx, double fx, double fy)
{
	struct session *s = ctx;
	struct rect a = touch_area(s);
	struct view v;
	int sx, sy;

	if (!(fx >= 0))
		fx = 0;
	if (!(fy >= 0))
		fy = 0;
	if (fx > 1)
		fx = 1;
	if (fy > 1)
		fy = 1;
	/* The device lies on the panel: where it points, upright. */
	rotate_fraction(touch_rotation(s), fx, fy, &fx, &fy);
	sx = a.x + (int)lround(fx * (a.w > 0 ? a.w - 1 : 0));
	sy = a.y + (int)lround(fy * (a.h > 0 ? a.h - 1 : 0));
	pipeline_screen_to_remote(s->pipe, sx, sy, &s->px, &s->py);
	send_pointer(s);
	pipeline_get_view(s->pipe, &v);
	s->edge = true;
	s->edge_sx = sx;
	s->edge_sy = sy;
	if (!s->edge_next_ns && view_pannable(&v))
		s->edge_next_ns = monotonic_ns() + EDGE_TICK_NS;
}

static void in_button(void *ctx, int button, bool down)
{
	struct session *s = ctx;
	uint32_t bit;

	if (button < 1 || button > 9)
		return;
	bit = 1u << (button - 1);
	if (down)
		s->buttons |= bit;
	else
		s->buttons &= ~bit;
	send_pointer(s);
}

/* The scale hotkey: the configured --scale and its other in turn, 1:1
 * for fit and fill, fit for 1:1 and zoom. Going to 1:1 centres the view
 * on the pointer, to read what it points at. */
static void in_scale(void *ctx)
{
	struct session *s = ctx;
	enum scale_mode mode = (enum scale_mode)s->opt->scale_mode;
	unsigned zoom = s->opt->scale_zoom;
	char name[16];

	s->scale_other = !s->scale_other;
	if (s->scale_other) {
		mode = mode == SCALE_FIT || mode == SCALE_FILL ? SCALE_NONE
							       : SCALE_FIT;
		zoom = 1;
	}
	pipeline_set_scale(s->pipe, mode, zoom);
	if (s->shadow->pix) {
		pipeline_center(s->pipe, s->px, s->py);
		pipeline_kick(s->pipe);
	}
	log_info("scale %s (Ctrl+Alt+Shift+S)",
		 scale_name(mode, zoom, name, sizeof(name)));
}

static void in_pan(void *ctx, int dx, int dy)
{
	struct session *s = ctx;
	struct view v0, v1;
	uint32_t w, h;
	int sx, sy;

	if (dx > 1000 || dx < -1000)
		dx = dx > 0 ? 1000 : -1000;
	if (dy > 1000 || dy < -1000)
		dy = dy > 0 ? 1000 : -1000;
	/* A step is a part of the screen (the layout) panned over. */
	pipeline_screen_size(s->pipe, &w, &h);
	sx = (int)w / BLIT_PAN_STEP_DIV;
	sy = (int)h / BLIT_PAN_STEP_DIV;
	pipeline_get_view(s->pipe, &v0);
	if (!pipeline_pan(s->pipe, dx * sx, dy * sy))
		return;
	/* The pointer keeps its place on the screen, so it scrolls with the
	 * view (else the view would follow it straight back). */
	pipeline_get_view(s->pipe, &v1);
	if (!v1.dw || !v1.dh)
		return;
	s->px += (int)lround((double)(v1.pan_x - v0.pan_x) * v1.rw / v1.dw);
	s->py += (int)lround((double)(v1.pan_y - v0.pan_y) * v1.rh / v1.dh);
	if (s->px >= (int)v1.rw)
		s->px = (int)v1.rw - 1;
	if (s->py >= (int)v1.rh)
		s->py = (int)v1.rh - 1;
	if (s->px < 0)
		s->px = 0;
	if (s->py < 0)
		s->py = 0;
	send_pointer(s);
}

static void in_quit(void *ctx)
{
	struct session *s = ctx;

	log_info("quit chord pressed");
	s->quit = true;
}

/* --- Output events (VT switching) --- */

/* Another console takes the screen: the blitter leaves the mapping, the
 * input lets go of the devices that console needs. */
static void out_suspend(void *ctx)
{
	struct session *s = ctx;

	pipeline_suspend(s->pipe);
	if (s->have_input && s->in.impl->suspend)
		s->in.impl->suspend(&s->in);
	/* Nothing is shown: the server need not send anything. A failed
	 * write shows at the next vnc_tick. */
	if (conn(s))
		vnc_pause(conn(s), true);
}

static void out_resume(void *ctx)
{
	struct session *s = ctx;

	if (s->have_input && s->in.impl->resume)
		s->in.impl->resume(&s->in);
	pipeline_resume(s->pipe);
	if (conn(s) && !s->no_display)
		vnc_pause(conn(s), false);
}

/* A connection made while there is no display: paused from the start. */
static void pause_if_no_display(struct session *s)
{
	if (conn(s) && s->no_display)
		vnc_pause(conn(s), true);
}

static int rr_heads(struct session *s);

/* The displays changed (hot-plug, output.h): the blitter stops; the
 * output re-made at its new mode gets a new blitter (its core probed
 * again) that redraws everything, and remote resize asks for the new
 * size once; no display left: the connection stays, paused, until one
 * comes back. */
static int out_changed(void *ctx)
{
	struct session *s = ctx;
	int ret;

	pipeline_stop(s->pipe);
	ret = output_reconfigure(&s->out);
	if (ret < 0 && ret != -ENODEV)
		return -1;
	/* Heads the output let go of are no longer drawn on. */
	if (ret == -ENODEV)
		pipeline_heads_gone(s->pipe);
	/* A display to draw on, for the desktop or as a stand-in. */
	if (ret == 0 && pipeline_output_changed(s->pipe) < 0) {
		/* No blitter is left: nothing draws from then on. */
		s->blit = NULL;
		return -1;
	}
	s->blit = pipeline_blitter(s->pipe);
	s->no_display = ret == -ENODEV || s->out.waiting;
	if (s->no_display) {
		/* A stand-in shows why on black; without one, nothing is
		 * drawn. The display that comes is a new target, asked for
		 * once. */
		blit_set_blank(s->blit, true);
		set_status(s, "no display: waiting for one");
		pause_if_no_display(s);
		remote_resize_clear_heads(&s->rr);
		return 0;
	}
	if (conn(s))
		vnc_pause(conn(s), false);
	return rr_heads(s);
}

/* What the heads show, each where it sits in the layout (black between
 * them), as one picture. */
static int take_screenshot(struct session *s, const char *path)
{
	struct rect heads[OUTPUT_MAX_HEADS];
	unsigned i, n = pipeline_layout(s->pipe, heads);
	uint32_t w = 0, h = 0;
	uint8_t *rgb, *part;
	size_t size;
	int ret;

	for (i = 0; i < n; i++) {
		if ((uint32_t)(heads[i].x + heads[i].w) > w)
			w = (uint32_t)(heads[i].x + heads[i].w);
		if ((uint32_t)(heads[i].y + heads[i].h) > h)
			h = (uint32_t)(heads[i].y + heads[i].h);
	}
	if (!n)
		return -ENODEV;
	size = (size_t)w * h * 3;
	rgb = calloc(1, size);
	part = n > 1 ? malloc((size_t)heads[0].w * heads[0].h * 3) : rgb;
	if (!rgb || !part) {
		log_error("cannot allocate %zu bytes for a screenshot", size);
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < n; i++) {
		const struct rect *r = &heads[i];
		uint8_t *tmp = part;
		int32_t y;

		if (n > 1 && i > 0 &&
		    (r->w != heads[0].w || r->h != heads[0].h) &&
		    !(tmp = malloc((size_t)r->w * r->h * 3))) {
			ret = -ENOMEM;
			goto out;
		}
		blit_snapshot_rgb(pipeline_head_blitter(s->pipe, i), tmp);
		for (y = 0; n > 1 && y < r->h; y++)
			memcpy(rgb +
				   ((size_t)(r->y + y) * w + (size_t)r->x) * 3,
			       tmp + (size_t)y * r->w * 3, (size_t)r->w * 3);
		if (tmp != part)
			free(tmp);
	}
	ret = image_write(path, w, h, rgb);
	if (ret == 0)
		log_debug("screenshot written to %s", path);
out:
	if (part != rgb)
		free(part);
	free(rgb);
	return ret;
}

/* --- Reconnect and liveness (main thread) --- */

static const char *server_name(const struct session *s)
{
	return s->opt->target ? s->opt->target : s->opt->host;
}

static void show_countdown(struct session *s, uint64_t now)
{
	unsigned left = 0;
	char text[128];

	if (s->rc.next_ns > now)
		left = (unsigned)((s->rc.next_ns - now + 999999999u) /
				  1000000000u);
	if (left == s->shown_s)
		return;
	s->shown_s = left;
	reconnect_status(text, sizeof(text), server_name(s), s->reason, left);
	set_status(s, text);
}

/* The connection is gone or an attempt failed (err says why, already
 * logged). 0: a retry is scheduled; 1: the session ends. */
static int session_lost(struct session *s, enum vnc_error err,
			bool established)
{
	bool jpeg = conn(s) && vnc_wants_jpeg(conn(s));
	unsigned d;

	pipeline_disconnect(s->pipe);
	remote_resize_disconnected(&s->rr);
	/* The loop sees the signal or the deadline next. */
	if (err == VNC_ERR_INTERRUPTED) {
		s->stopping = true;
		return 0;
	}
	/* A server that wants a JPEG quality level (PiKVM) is asked again
	 * at once with one: part of connecting, not a reconnect. */
	if (jpeg && !s->vcfg.jpeg_needed) {
		s->vcfg.jpeg_needed = true;
		s->rc.next_ns = monotonic_ns();
		return 0;
	}
	if (!reconnect_again(&s->rc, err, established))
		return 1;
	/* Why, for the status line: what the failing call logged. */
	log_take_error(s->reason, sizeof(s->reason));
	d = reconnect_schedule(&s->rc, monotonic_ns());
	log_info("reconnecting to %s in %u s", server_name(s), d);
	s->shown_s = 0;
	show_countdown(s, monotonic_ns());
	return 0;
}

static int session_reconnect(struct session *s)
{
	enum vnc_error err;
	char text[128];

	snprintf(text, sizeof(text), "connecting to %s ...", server_name(s));
	set_status(s, text);
	/* The reason shown next is this attempt's. */
	log_take_error(text, sizeof(text));
	if (pipeline_connect(s->pipe, &s->vcfg, &err) < 0)
		return session_lost(s, err, false);
	remote_resize_connected(&s->rr, s->shadow->width, s->shadow->height);
	pause_if_no_display(s);
	reconnect_done(&s->rc);
	set_status(s, NULL);
	s->last_rx_ns = monotonic_ns();
	s->ping_ns = 0;
	return 0;
}

/* Timers: the next reconnect attempt and countdown tick, or the liveness
 * ping and its deadline. Returns 0, or 1 when the session ends. */
static int session_tick(struct session *s)
{
	uint64_t now = monotonic_ns();
	uint64_t idle = (uint64_t)s->vcfg.read_timeout_s * 1000000000u;
	uint64_t wait = (uint64_t)s->vcfg.read_timeout_s * 1000000000u;
	enum vnc_error err;

	sd_tick(s, now);
	edge_tick(s, now);
	if (!conn(s)) {
		if (s->stopping)
			return 0;
		if (now >= s->rc.next_ns)
			return session_reconnect(s);
		show_countdown(s, now);
		return 0;
	}
	if (s->note_until && now >= s->note_until) {
		s->note_until = 0;
		set_status(s, NULL);
	}
	if (vnc_tick(conn(s), &err) < 0)
		return session_lost(s, err, true);
	if (s->ping_ns && now - s->ping_ns >= wait) {
		log_error("%s stopped responding (no answer for %d s)",
			  server_name(s), s->vcfg.read_timeout_s);
		return session_lost(s, VNC_ERR_CLOSED, true);
	}
	remote_resize_tick(&s->rr, now);
	if (!s->ping_ns && now - s->last_rx_ns >= idle) {
		if (vnc_ping(conn(s), &err) < 0)
			return session_lost(s, err, true);
		s->ping_ns = now;
	}
	return 0;
}

/* Milliseconds until session_tick has work, capped by timeout (-1: no
 * cap). */
static int session_timeout(const struct session *s, int timeout)
{
	uint64_t now = monotonic_ns(), due;
	uint64_t ms;

	if (!conn(s)) {
		/* The next countdown second, or the attempt. */
		due = s->rc.next_ns > now ? s->rc.next_ns - now : 0;
		due %= 1000000000u;
	} else if (s->ping_ns) {
		due = s->ping_ns +
		      (uint64_t)s->vcfg.read_timeout_s * 1000000000u;
		due = due > now ? due - now : 0;
	} else {
		due = s->last_rx_ns +
		      (uint64_t)s->vcfg.read_timeout_s * 1000000000u;
		due = due > now ? due - now : 0;
	}
	if (s->edge_next_ns) {
		uint64_t e = s->edge_next_ns > now ? s->edge_next_ns - now : 0;

		if (e < due)
			due = e;
	}
	if (conn(s) && remote_resize_due(&s->rr)) {
		uint64_t r = remote_resize_due(&s->rr);

		r = r > now ? r - now : 0;
		if (r < due)
			due = r;
	}
	if (s->note_until && conn(s)) {
		uint64_t e = s->note_until > now ? s->note_until - now : 0;

		if (e < due)
			due = e;
	}
	if (sdnotify_ping_ns(&s->sd)) {
		uint64_t e = s->sd_ping_at > now ? s->sd_ping_at - now : 0;

		if (e < due)
			due = e;
	}
	/* The first picture's pass, soon after its update. */
	if (sdnotify_active(&s->sd) && s->sd_updated && !s->sd.ready &&
	    due > 20000000u)
		due = 20000000u;
	ms = due / 1000000u + 1;
	if (timeout >= 0 && (uint64_t)timeout < ms)
		return timeout;
	return (int)ms;
}

/* --- Privileges --- */

static char *cached_password(void *ctx)
{
	struct session *s = ctx;

	return strdup(s->password);
}

/* After the devices are open, before the network: no core dumps (they
 * would hold the password), and a root-started vncfb that drives a
 * console (or was given --user) becomes --user, default nobody. A --passwd
 * file is read first: the new user may not be able to. */
static int drop_privileges(struct session *s)
{
	struct options *o = s->opt;
	int ret;

	privs_no_core_dumps();
	if (!privs_are_root()) {
		if (o->user)
			log_warn("--user %s: not running as root, nothing to "
				 "drop",
				 o->user);
		return 0;
	}
	if (!o->user && s->out.impl == &output_mem_impl)
		return 0;
	if (o->password_file) {
		log_set_context(opts_origin(o, "password-file"));
		s->password = passwd_read_plain(o->password_file);
		log_set_context(NULL);
		if (!s->password)
			return -1;
	} else if (o->passwd_file) {
		log_set_context(opts_origin(o, "passwd"));
		s->password = passwd_read_file(o->passwd_file);
		log_set_context(NULL);
		if (!s->password)
			return -1;
	}
	if (o->mode == MODE_VIEW) {
		/* The user vncfb becomes may not reach the store. */
		struct trust_opts t = { .store = o->known_hosts,
					.pin = o->fingerprint,
					.insecure = o->insecure };

		log_set_context(opts_origin(o, "known-hosts"));
		ret = trust_open(&t);
		log_set_context(NULL);
		if (ret < 0)
			return -1;
	}
	log_set_context(opts_origin(o, "user"));
	ret = privs_drop(o->user);
	log_set_context(NULL);
	return ret;
}

/* --remote-resize: the desktop the screen would show 1:1 (with a zoom,
 * the screen's size divided by it). View-only sessions leave the server
 * alone, as TigerVNC's viewer does; the demo's scene has its own size. */
static int rr_heads(struct session *s)
{
	const struct options *o = s->opt;
	enum scale_mode mode = (enum scale_mode)o->scale_mode;
	unsigned zoom = mode == SCALE_ZOOM && o->scale_zoom ? o->scale_zoom : 1;
	struct rect heads[OUTPUT_MAX_HEADS];
	unsigned i, n = pipeline_layout(s->pipe, heads);

	/* One screen per head, where the layout puts it. */
	for (i = 0; i < n; i++)
		heads[i] = (struct rect){
		    heads[i].x / (int32_t)zoom, heads[i].y / (int32_t)zoom,
		    heads[i].w / (int32_t)zoom, heads[i].h / (int32_t)zoom};
	return remote_resize_set_heads(&s->rr, heads, n, monotonic_ns());
}

static int setup_remote_resize(struct session *s)
{
	const struct options *o = s->opt;
	enum scale_mode mode = (enum scale_mode)o->scale_mode;
	struct remote_resize_config cfg = {
		.enabled = o->remote_resize && !o->view_only &&
			   o->mode != MODE_DEMO,
		.server = server_name(s),
		.fallback = scale_name(mode, o->scale_zoom, s->scale_text,
				       sizeof(s->scale_text)),
		.send = rr_send,
		.ctx = s,
	};

	remote_resize_init(&s->rr, &cfg);
	/* No display yet: its arrival (out_changed) sets the target. */
	return s->no_display ? 0 : rr_heads(s);
}

static int run_loop(struct session *s, int sigfd)
{
	struct options *o = s->opt;
	uint64_t deadline = s->end_ns;
	enum vnc_error verr;

	while (!s->quit) {
		struct pollfd pfd[4];
		int n = 0, ret, timeout = -1, i_vnc, i_in = -1, i_out = -1;

		pfd[n++] = (struct pollfd){ .fd = sigfd, .events = POLLIN };
		i_vnc = -1;
		if (conn(s)) {
			i_vnc = n;
			pfd[n++] = (struct pollfd){ .fd = vnc_fd(conn(s)),
						    .events = POLLIN };
		}
		if (s->have_input && s->in.fd >= 0) {
			i_in = n;
			pfd[n++] = (struct pollfd){ .fd = s->in.fd,
						    .events = POLLIN };
		}
		if (s->out.fd >= 0) {
			i_out = n;
			pfd[n++] = (struct pollfd){ .fd = s->out.fd,
						    .events = POLLIN };
		}
		if (deadline) {
			uint64_t now = monotonic_ns();

			if (now >= deadline) {
				log_info("leaving: --exit-after %g s are over",
					 s->opt->exit_after);
				break;
			}
			timeout = (int)((deadline - now) / 1000000u) + 1;
		}
		timeout = session_timeout(s, timeout);
		if (conn(s))
			timeout = vnc_poll_timeout(conn(s), timeout);
		ret = poll(pfd, (nfds_t)n, timeout);
		if (ret < 0) {
			if (errno == EINTR)
				continue;
			log_error("poll: %s", strerror(errno));
			return 1;
		}
		if (pfd[0].revents & POLLIN) {
			bool usr1 = false;
			int sig = signals_take(sigfd, &usr1);

			if (usr1 && o->screenshot)
				take_screenshot(s, o->screenshot);
			else if (usr1)
				log_warn("SIGUSR1: no screenshot written (no "
					 "--screenshot FILE given)");
			if (sig) {
				log_info("leaving on signal %d", sig);
				s->quit = true;
			}
		}
		if (i_out >= 0 && (pfd[i_out].revents & POLLIN)) {
			struct output_events ev = { s, out_suspend,
						    out_resume, out_changed };

			if (s->out.impl->dispatch &&
			    s->out.impl->dispatch(&s->out, &ev) < 0)
				return 1;
		}
		if (i_in >= 0 && (pfd[i_in].revents & (POLLIN | POLLHUP))) {
			struct input_sink sink = {
			    s,	       in_key,	in_motion_rel, in_motion_abs,
			    in_button, in_quit, in_pan,	       in_scale,
			    in_turns,
			};

			if (s->in.impl->dispatch(&s->in, &sink) < 0)
				return 1;
		}
		if (i_vnc >= 0 && conn(s) &&
		    vnc_poll_ready(conn(s), pfd[i_vnc].revents)) {
			if (vnc_dispatch(conn(s), &verr) < 0) {
				if (session_lost(s, verr, true))
					return 1;
			} else {
				s->last_rx_ns = monotonic_ns();
				s->ping_ns = 0;
			}
		}
		if (!s->quit && session_tick(s))
			return 1;
	}
	return 0;
}

/* The pipeline on the open output, and the input devices (unless
 * view-only or mem). 0, or -1 (logged) with what was opened still to be
 * closed by the caller. */
static int open_view(struct session *s)
{
	struct options *o = s->opt;
	struct pipeline_config pcfg = {
	    .out = &s->out,
	    .draw = PIPELINE_BLIT,
	    .cpu = o->cpu,
	    .choose_cpu = o->cpu == CPU_AUTO,
	    .samples = o->samples,
	    .scale = (enum scale_mode)o->scale_mode,
	    .zoom = o->scale_zoom,
	    .layout = o->layout,
	    .rotate = o->rotate,
	    .ev = {.ctx = s,
		   .resized = ev_resized,
		   .update_done = ev_update_done,
		   .cursor_pos = ev_cursor_pos,
		   .layout = ev_layout,
		   .note = ev_note},
	};
	struct input_config icfg = { o->input, o->keymap, true,
				     (enum input_touch)o->touch };
	char fbuf[64];
	int err;

	s->pipe = pipeline_create(&pcfg);
	if (!s->pipe)
		return -1;
	s->blit = pipeline_blitter(s->pipe);
	s->shadow = pipeline_shadow(s->pipe);
	log_debug("output %s %ux%u %s, stride %zu", s->out.impl->name,
		  s->out.width, s->out.height,
		  pixfmt_name(&s->out.fmt, fbuf, sizeof(fbuf)), s->out.stride);
	if (!platform_input || o->view_only || s->out.impl == &output_mem_impl)
		return 0;
	if (input_impl_missing(platform_input)) {
		log_error("input %s has no %s hook", platform_input->name,
			  input_impl_missing(platform_input));
		return -1;
	}
	s->in.impl = platform_input;
	log_set_context(opts_origin(o, o->input ? "input" : "keymap"));
	err = platform_input->open(&s->in, &icfg);
	log_set_context(NULL);
	if (err < 0) {
		/* What the user named must work; only autodetection may come
		 * up empty. */
		if (o->input || o->keymap)
			return -1;
		log_warn("no input devices: the session is view-only");
		s->in.impl = NULL;
		return 0;
	}
	s->have_input = true;
	return 0;
}

/* The first connection: the connection config from the options (and
 * the session's own server, when it has one, already started), then
 * connect. A failure that is retried is not one here. 0 or -1 (logged). */
static int first_connect(struct session *s)
{
	struct options *o = s->opt;
	enum vnc_error verr;
	char text[160];
	int err;

	pipeline_vnc_config(s->pipe, o, &s->vcfg);
	/* A local pointer gets a local cursor; without one (view-only, no
	 * input devices) the server draws it into the picture. */
	s->local_cursor = s->have_input && !o->server_cursor;
	s->vcfg.local_cursor = s->local_cursor;
	if (s->password) {
		s->vcfg.get_password = cached_password;
		s->vcfg.password_ctx = s;
	}
	/* A quit signal or the end of --exit-after stops any connection
	 * step within a few ms (guard.h); the clock starts here. */
	s->vcfg.abort_fd = signals_quit_fd();
	if (o->exit_after > 0) {
		s->end_ns = monotonic_ns() + (uint64_t)(o->exit_after * 1e9);
		log_debug("--exit-after: leaving in %g s", o->exit_after);
	}
	s->vcfg.end_ns = s->end_ns;
	reconnect_init(&s->rc, o->reconnect);
	if (setup_remote_resize(s) < 0)
		return -1;
	/* The service manager hears what a reconnect shows on the screen;
	 * a first connect leaves the screen as it is. */
	snprintf(text, sizeof(text), "connecting to %s ...", server_name(s));
	sdnotify_status(&s->sd, text);
	log_set_context(opts_origin(o, "server"));
	err = pipeline_connect(s->pipe, &s->vcfg, &verr);
	log_set_context(NULL);
	if (err == 0) {
		snprintf(text, sizeof(text), "connected to %s", server_name(s));
		sdnotify_status(&s->sd, text);
		remote_resize_connected(&s->rr, s->shadow->width,
					s->shadow->height);
		pause_if_no_display(s);
	}
	/* Reconnects give up sooner than a first connect. */
	s->vcfg.connect_timeout_ms = RECONNECT_CONNECT_TIMEOUT_MS;
	/* A kiosk may come up before its server: reconnect always waits. */
	if (err == 0)
		reconnect_done(&s->rc);
	else if (session_lost(s, verr, false))
		return -1;
	s->last_rx_ns = monotonic_ns();
	s->px = (int)s->shadow->width / 2;
	s->py = (int)s->shadow->height / 2;
	if (s->local_cursor)
		pipeline_cursor_move(s->pipe, s->px, s->py);
	return 0;
}

int session_run(struct options *o, const struct session_server *srv)
{
	struct session s;
	void *served = NULL;
	int sigfd, ret = 1, err;

	memset(&s, 0, sizeof(s));
	s.opt = o;
	s.in.fd = -1;
	sdnotify_init(&s.sd);

	/* The files, the core and the devices were checked before (see
	 * preflight.h); what still fails is named with the config file's
	 * line that asked for it. */
	sigfd = signals_setup();
	if (sigfd < 0)
		return 1;
	log_set_context(opts_origin(o, "output"));
	/* A DRM plane that turns the scanout takes --rotate itself. */
	output_want_rotation(o->rotate);
	err = console_open(&s.out, o->output, OUTPUT_OPEN_WAIT);
	log_set_context(NULL);
	if (err < 0)
		return 1;
	s.no_display = s.out.waiting;
	if (open_view(&s) < 0)
		goto out_view;
	/* Waiting: a display that is there but not the one asked for says
	 * so (a stand-in) from the start. */
	if (s.no_display && out_changed(&s) < 0)
		goto out_view;
	if (drop_privileges(&s) < 0)
		goto out_view;
	/* After the drop: setuid in a threaded process interrupts every
	 * thread's select(), which libvncserver's threads take as fatal. */
	if (srv) {
		served = srv->start(o, o->output ? o->output : s.out.impl->name,
				    &o->port);
		if (!served)
			goto out_view;
		free(o->host);
		o->host = strdup("127.0.0.1");
	}
	if (first_connect(&s) < 0)
		goto out_server;

	ret = run_loop(&s, sigfd);

	pipeline_disconnect(s.pipe);
out_server:
	if (served) {
		if (ret == 0 && srv->report)
			srv->report(served, s.updates, &s.out);
		srv->stop(served);
	}
out_view:
	if (s.have_input)
		s.in.impl->close(&s.in);
	if (s.pipe) {
		/* The stopped worker has drawn the rest: the screenshot shows
		 * the last picture. The picture asked for was not written:
		 * not a clean exit. */
		pipeline_stop(s.pipe);
		if (o->screenshot && s.shadow->pix &&
		    take_screenshot(&s, o->screenshot) < 0 && ret == 0)
			ret = 1;
		pipeline_destroy(s.pipe);
	}
	console_close(&s.out);
	if (s.password)
		passwd_free(s.password);
	sdnotify_send(&s.sd, "STOPPING=1");
	sdnotify_finish(&s.sd);
	return ret;
}
