/* The data path, built and torn down in one place (pipeline.h). */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "blit/blit.h"
#include "util/clock.h"
#include "blit/cursor.h"
#include "shadow/damage.h"
#include "decode/decpool.h"
#include "util/log.h"
#include "config/opts.h"
#include "net/passwd.h"
#include "app/pipeline.h"
#include "platform/platform.h"
#include "placement/probe.h"
#include "output/rotate.h"
#include "output/rotkern.h"
#include "shadow/shadow.h"
#include "view/layout.h"
#include "net/vnc.h"
#include "wire/rfb.h"

/* How long the worker may take to show up on its core. */
#define VERIFY_NS 2000000000ull

/* One head of the output: its own damage set, blitter (a worker pinned
 * to the core that writes its mapping fastest) and cursor. */
struct pipeline_head {
	/* What the blitter draws on: the head's output, or rot.out when
	 * --rotate turns it (rot.phys the head's output then). */
	struct output *out;
	struct rotout rot;
	int cpu; /* asked of the worker, -1: unpinned */
	struct damage damage;
	struct blitter *blit;
	struct cursor cursor; /* drawn over the shadow by the blitter */
	/* The head as it was made (out may be gone after a reconfigure). */
	char name[OUTPUT_NAME_LEN];
	uint32_t w, h;
};

struct pipeline {
	struct pipeline_config cfg;
	bool drawn; /* damage and blitters exist (not DECODE) */
	/* The scale mode now (cfg's, or what the scale hotkey chose). */
	enum scale_mode scale;
	unsigned zoom;
	struct shadow shadow;
	unsigned nheads; /* with damage and blitter (drawn), else 0 */
	struct pipeline_head head[OUTPUT_MAX_HEADS];
	/* Where the heads sit in the desktop; following the server's
	 * screens when no layout was given and it has one per head. */
	struct layout layout;
	struct layout_spec spec;
	/* The heads before the output changed: one that is still there at
	 * the same size keeps the core the probe chose for it. */
	struct {
		char name[OUTPUT_NAME_LEN];
		uint32_t w, h;
		int cpu;
	} prev[OUTPUT_MAX_HEADS];
	unsigned nprev;
	struct vnc_client *vnc;
	bool stopped;
	/* Pixels the update being decoded has touched so far (main
	 * thread). */
	uint64_t upd_px;
};

/* Wake every head's worker. */
static void kick_all(struct pipeline *p)
{
	unsigned i;

	for (i = 0; i < p->nheads; i++)
		damage_kick(&p->head[i].damage);
}

/* Each head's view for the layout (several heads) and the shadow's
 * size. */
static void reset_views(struct pipeline *p)
{
	unsigned i;

	for (i = 0; i < p->nheads; i++) {
		blit_set_head(p->head[i].blit, &p->layout.head[i].r,
			      p->nheads > 1 ? p->layout.width : 0,
			      p->layout.height);
		if (p->shadow.pix)
			blit_reset_view(p->head[i].blit);
	}
}

/* --- VNC events (main thread) --- */

static uint8_t *ev_resize(void *ctx, uint32_t w, uint32_t h)
{
	struct pipeline *p = ctx;
	uint8_t *pix;

	/* Same size (a reconnect): keep the last picture until the full
	 * update replaces it. */
	if (p->shadow.pix && w == p->shadow.width && h == p->shadow.height)
		return p->shadow.pix;
	pix = shadow_resize(&p->shadow, w, h);
	if (!pix)
		return NULL;
	reset_views(p);
	if (p->cfg.ev.resized)
		p->cfg.ev.resized(p->cfg.ev.ctx, w, h);
	return pix;
}

/* Pixels of one update that wake the blitter before the update ends. */
#define PIPELINE_EARLY_PX (128u * 1024u)

static void ev_damage(void *ctx, const struct rect *r)
{
	struct pipeline *p = ctx;
	unsigned i;

	p->upd_px += (uint64_t)rect_area(r);
	/* Each head's blitter draws what of it falls on its head. */
	for (i = 0; i < p->nheads; i++)
		damage_add(&p->head[i].damage, r);
}

static void ev_update_done(void *ctx)
{
	struct pipeline *p = ctx;

	if (p->cfg.ev.update_done)
		p->cfg.ev.update_done(p->cfg.ev.ctx);
	p->upd_px = 0;
	kick_all(p);
}

static void ev_cursor_shape(void *ctx, int xhot, int yhot, int w, int h,
			    const uint8_t *pixels, const uint8_t *mask)
{
	struct pipeline *p = ctx;
	unsigned i;

	for (i = 0; i < p->nheads || (!i && !p->drawn); i++)
		if (cursor_set_shape(&p->head[i].cursor, &p->shadow, xhot, yhot,
				     w, h, pixels, mask) == 0 &&
		    p->drawn)
			damage_kick(&p->head[i].damage);
}

/* The server moved the pointer (another client, an application). */
static void ev_cursor_pos(void *ctx, int x, int y)
{
	struct pipeline *p = ctx;

	if (x < 0 || y < 0 || x >= (int)p->shadow.width ||
	    y >= (int)p->shadow.height)
		return;
	if (p->cfg.ev.cursor_pos)
		p->cfg.ev.cursor_pos(p->cfg.ev.ctx, x, y);
}

static void ev_layout(void *ctx, const struct vnc_layout *l)
{
	struct pipeline *p = ctx;
	struct rect screens[RFB_MAX_SCREENS];
	struct layout t = p->layout;
	char d[160];
	unsigned i;

	/* The server's screens, one per head of the same sizes, place the
	 * heads, unless a layout was given. */
	if (p->nheads > 1 && !p->spec.n && l->status == RFB_EDS_OK &&
	    l->n <= RFB_MAX_SCREENS) {
		for (i = 0; i < l->n; i++)
			screens[i] =
			    (struct rect){l->screens[i].x, l->screens[i].y,
					  l->screens[i].w, l->screens[i].h};
		if (layout_from_screens(&t, screens, l->n) == 0 &&
		    !layout_equal(&t, &p->layout)) {
			p->layout = t;
			log_info("heads placed as the server's screens: %s",
				 layout_describe(&t, d, sizeof(d)));
			reset_views(p);
			kick_all(p);
		}
	}
	if (p->cfg.ev.layout)
		p->cfg.ev.layout(p->cfg.ev.ctx, l);
}

/* --- the blit workers and their cores --- */

/* Start head h's worker where it was asked to run. A pin that fails is
 * an error for a core the user named; for the probe's choice the worker
 * then runs unpinned. 0 or -1 (logged; no worker left running). */
static int start_worker(struct pipeline *p, struct pipeline_head *h)
{
	char why[PROBE_PIN_REASON_LEN];
	int perr;

	if (blit_start(h->blit) == 0)
		return 0;
	perr = blit_pin_error(h->blit);
	if (!perr)
		return -1; /* no thread (logged) */
	if (!p->cfg.choose_cpu) {
		log_error("cannot pin the blit thread to core %d: %s", h->cpu,
			  probe_pin_reason(perr, why, sizeof(why)));
		blit_stop(h->blit);
		return -1;
	}
	log_warn("cannot pin the blit thread to core %d (%s): it runs "
		 "unpinned",
		 h->cpu, probe_pin_reason(perr, why, sizeof(why)));
	h->cpu = -1;
	blit_set_cpu(h->blit, -1);
	return 0;
}

/* The worker records where it runs after each pass; blit_start kicks a
 * pass after pinning, so the pinned core shows up within a moment. */
static void verify_cpu(struct pipeline_head *h)
{
	uint64_t until = monotonic_ns() + VERIFY_NS;
	int cpu = h->cpu, actual;
	const char *name = h->out->name;

	if (platform_current_cpu() < 0)
		return;
	for (;;) {
		actual = blit_actual_cpu(h->blit);
		if ((cpu < 0 ? actual >= 0 : actual == cpu) ||
		    monotonic_ns() > until)
			break;
		usleep(1000);
	}
	if (cpu < 0)
		log_debug("blit thread%s%s runs unpinned (now on core %d)",
			  *name ? " of " : "", name, actual);
	else if (actual == cpu)
		log_debug("blit thread%s%s runs on core %d, as pinned",
			  *name ? " of " : "", name, actual);
	else
		log_warn("the blit thread%s%s was pinned to core %d but runs "
			 "on core %d",
			 *name ? " of " : "", name, cpu, actual);
}

/* --- building and tearing down --- */

/* The layout of the output's heads: the spec given, else side by side
 * (the server's screens may move them later). 0 or -1 (logged). */
/* The turn --rotate asks of head o (the spec was checked with the
 * options: a bad one is no turn). */
static enum rotation asked_rotation(const struct pipeline *p,
				    const struct output *o)
{
	enum rotation rot;
	char why[160];

	if (rotate_lookup(p->cfg.rotate, o->name, &rot, why, sizeof(why)) < 0)
		return ROT_0;
	return rot;
}

/* What of it the blitter turns: what the display does not (a DRM plane
 * turns the whole angle, o's size the turned one already, or none). */
static enum rotation head_rotation(const struct pipeline *p,
				   const struct output *o)
{
	return (enum rotation)(((unsigned)asked_rotation(p, o) + 4 -
				o->turned) & 3);
}

static int make_layout(struct pipeline *p)
{
	char names[OUTPUT_MAX_HEADS][LAYOUT_NAME_LEN], why[192], d[160];
	uint32_t w[OUTPUT_MAX_HEADS], h[OUTPUT_MAX_HEADS];
	unsigned i, n = output_nheads(p->cfg.out);

	for (i = 0; i < n; i++) {
		struct output *o = output_head(p->cfg.out, i);

		snprintf(names[i], sizeof(names[i]), "%s",
			 o->name[0] ? o->name : "screen");
		rotate_size(head_rotation(p, o), o->width, o->height, &w[i],
			    &h[i]);
	}
	if (layout_side_by_side(&p->layout, names, w, h, n, why, sizeof(why)) <
		0 ||
	    (p->spec.n &&
	     layout_apply(&p->layout, &p->spec, why, sizeof(why)) < 0)) {
		log_error("%s", why);
		return -1;
	}
	if (n > 1)
		log_debug("%u heads, one %ux%u desktop: %s", n, p->layout.width,
			  p->layout.height,
			  layout_describe(&p->layout, d, sizeof(d)));
	return 0;
}

static void head_destroy(struct pipeline_head *h)
{
	blit_destroy(h->blit);
	h->blit = NULL;
	damage_finish(&h->damage);
}

#define CPU_PROBE (-2)

/* The core head o had before the output changed (the same connector at
 * the same size: the same kind of memory), else CPU_PROBE. */
static int prev_cpu(const struct pipeline *p, const struct output *o)
{
	unsigned i;

	/* One output alone is probed again whatever changed. */
	if (output_nheads(p->cfg.out) < 2)
		return CPU_PROBE;
	for (i = 0; i < p->nprev; i++)
		if (!strcmp(p->prev[i].name, o->name) && o->name[0] &&
		    p->prev[i].w == o->width && p->prev[i].h == o->height)
			return p->prev[i].cpu;
	return CPU_PROBE;
}

/* Head i's damage and blitter on its output, its core chosen (the
 * probe writes into the mapping: nobody else does yet). 0 or -1
 * (logged, nothing left). */
static int head_create(struct pipeline *p, unsigned i)
{
	struct pipeline_head *h = &p->head[i];
	int err;

	struct output *phys = output_head(p->cfg.out, i);
	enum rotation rot = head_rotation(p, phys);

	h->out = phys;
	h->cpu = p->cfg.choose_cpu ? prev_cpu(p, phys) : p->cfg.cpu;
	if (h->cpu == CPU_PROBE)
		h->cpu = probe_pick_core(phys, p->cfg.samples);
	memcpy(h->name, phys->name, sizeof(h->name));
	h->w = phys->width;
	h->h = phys->height;
	if (phys->turned)
		log_debug("%s%s%u x %u turned %u degrees by the display "
			  "plane (the scanout turns it, the blitter draws "
			  "upright)",
			  phys->name, *phys->name ? ": " : "", phys->width,
			  phys->height, 90u * phys->turned);
	if (rot != ROT_0) {
		rotout_init(&h->rot, phys, rot);
		h->out = &h->rot.out;
		log_debug("%s%s%u x %u turned %u degrees by the blitter "
			  "(kernel %s): %u x %u",
			  phys->name, *phys->name ? ": " : "", phys->width,
			  phys->height, rotate_degrees(rot), rotkern_name(),
			  h->out->width, h->out->height);
	}
	err = damage_init(&h->damage);
	if (err < 0) {
		log_error("cannot set up the damage set: %s", strerror(-err));
		return -1;
	}
	h->blit = blit_create(h->out, &p->shadow, &h->damage, h->cpu);
	if (!h->blit) {
		damage_finish(&h->damage);
		return -1;
	}
	/* On a screen that shows the mapping as it is written, a long
	 * update is drawn while it is decoded, an eighth of a megapixel at
	 * a time: the blitter copies rows still in the cache, on its own
	 * core, instead of the whole update after its end (and a slow link
	 * shows the picture as it comes, as the classic viewers did). A
	 * flipped output shows whole updates. */
	if (output_live(h->out))
		damage_set_early(&h->damage, PIPELINE_EARLY_PX);
	blit_set_scale(h->blit, p->scale, p->zoom);
	blit_set_cursor(h->blit, &h->cursor);
	if (p->cfg.on_pass && i == 0)
		blit_set_on_pass(h->blit, p->cfg.on_pass, p->cfg.on_pass_ctx);
	return 0;
}

/* Every head of the output (its layout first), each worker started
 * (PIPELINE_BLIT), drawing the whole picture. 0 or -1 (logged: no head
 * left, no worker running). */
static int heads_create(struct pipeline *p)
{
	unsigned i, n = output_nheads(p->cfg.out);

	if (make_layout(p) < 0)
		return -1;
	for (i = 0; i < n; i++)
		if (head_create(p, i) < 0)
			goto fail;
	p->nheads = n;
	reset_views(p);
	for (i = 0; p->cfg.draw == PIPELINE_BLIT && i < n; i++) {
		if (start_worker(p, &p->head[i]) < 0)
			goto fail_started;
		verify_cpu(&p->head[i]);
	}
	p->stopped = false;
	kick_all(p);
	return 0;

fail_started:
	while (i-- > 0)
		blit_stop(p->head[i].blit);
	i = n;
fail:
	while (i-- > 0)
		head_destroy(&p->head[i]);
	p->nheads = 0;
	p->stopped = true;
	return -1;
}

int pipeline_output_changed(struct pipeline *p)
{
	unsigned i;

	if (!p->drawn)
		return 0;
	pipeline_stop(p);
	p->nprev = 0;
	for (i = 0; i < p->nheads; i++) {
		memcpy(p->prev[i].name, p->head[i].name,
		       sizeof(p->prev[i].name));
		p->prev[i].w = p->head[i].w;
		p->prev[i].h = p->head[i].h;
		p->prev[i].cpu = p->head[i].cpu;
		p->nprev++;
	}
	for (i = 0; i < p->nheads; i++)
		head_destroy(&p->head[i]);
	p->nheads = 0;
	return heads_create(p);
}

void pipeline_heads_gone(struct pipeline *p)
{
	unsigned n = output_nheads(p->cfg.out);

	pipeline_stop(p);
	while (p->nheads > n)
		head_destroy(&p->head[--p->nheads]);
}

struct pipeline *pipeline_create(const struct pipeline_config *cfg)
{
	struct pipeline *p = calloc(1, sizeof(*p));
	struct pixfmt sfmt;
	char why[192];
	unsigned i;
	int err;

	if (!p) {
		log_error("cannot allocate the pipeline");
		return NULL;
	}
	p->cfg = *cfg;
	p->drawn = cfg->draw != PIPELINE_DECODE;
	p->scale = cfg->scale;
	p->zoom = cfg->zoom;
	p->stopped = true;
	if (layout_spec_parse(cfg->layout, &p->spec, why, sizeof(why)) < 0) {
		log_error("%s", why);
		goto fail_free;
	}
	/* The blit worker's core stands for the decoding workers' too. */
	p->head[0].cpu = cfg->choose_cpu && !p->drawn
			     ? probe_pick_core(cfg->out, cfg->samples)
			     : cfg->cpu;
	pixfmt_shadow_for(&cfg->out->fmt, &sfmt);
	err = shadow_init(&p->shadow, &sfmt);
	if (err < 0) {
		log_error("cannot set up the shadow buffer: %s",
			  strerror(-err));
		goto fail_free;
	}
	for (i = 0; i < OUTPUT_MAX_HEADS; i++)
		cursor_init(&p->head[i].cursor);
	if (!p->drawn)
		return p;
	if (heads_create(p) < 0)
		goto fail_shadow;
	return p;

fail_shadow:
	for (i = 0; i < OUTPUT_MAX_HEADS; i++)
		cursor_finish(&p->head[i].cursor);
	shadow_finish(&p->shadow);
fail_free:
	free(p);
	return NULL;
}

void pipeline_stop(struct pipeline *p)
{
	unsigned i;

	if (p->stopped || !p->drawn)
		return;
	for (i = 0; i < p->nheads; i++)
		blit_stop(p->head[i].blit);
	p->stopped = true;
}

void pipeline_destroy(struct pipeline *p)
{
	unsigned i;

	if (!p)
		return;
	pipeline_disconnect(p);
	pipeline_stop(p);
	for (i = 0; i < p->nheads; i++)
		head_destroy(&p->head[i]);
	for (i = 0; i < OUTPUT_MAX_HEADS; i++)
		cursor_finish(&p->head[i].cursor);
	shadow_finish(&p->shadow);
	free(p);
}

/* --- the connection --- */

/* blit_cpu: the blit thread's core, which the decoding workers keep off
 * where there are cores to spare; -1 for none. */
static void vnc_config_fill(const struct options *o, const struct pixfmt *fmt,
			    int blit_cpu, struct vnc_config *v)
{
	memset(v, 0, sizeof(*v));
	v->host = o->host;
	v->port = o->port;
	v->encodings = o->encodings;
	v->quality = o->quality;
	/* Neither chosen (command line, config file, TigerVNC's
	 * parameters): the link decides. */
	v->auto_select = !opts_origin(o, "encodings") &&
			 !opts_origin(o, "quality") &&
			 !opts_from_cli(o, "encodings") &&
			 !opts_from_cli(o, "quality");
	v->compress = o->compress;
	v->full_colour = o->full_colour;
	v->view_only = o->view_only;
	v->fmt = *fmt;
	if (o->password_file) {
		v->get_password = passwd_get_plain;
		v->password_ctx = o->password_file;
	} else {
		v->get_password = passwd_get;
		v->password_ctx = o->passwd_file;
	}
	v->username = o->username;
	v->security = o->security;
	v->read_timeout_s = o->timeout;
	v->decode_threads =
	    o->decode_threads != DECODE_THREADS_AUTO
		? (unsigned)o->decode_threads
		: decpool_auto_threads(probe_online_count(), blit_cpu);
	v->copies_direct = decpool_copies_direct(probe_online_count());
	v->ca_file = o->ca_file;
	v->insecure = o->insecure;
	v->trust.pin = o->fingerprint;
	v->trust.store = o->known_hosts;
	v->trust.insecure = o->insecure;
	/* Someone to ask (a first certificate, a user name) only when
	 * vncfb was started from a terminal; a unit or a kiosk is not. */
	v->trust.ask = isatty(STDIN_FILENO) && isatty(STDERR_FILENO);
}

void pipeline_vnc_config(const struct pipeline *p, const struct options *o,
			 struct vnc_config *v)
{
	vnc_config_fill(o, &p->shadow.fmt, p->head[0].cpu, v);
}

void pipeline_vnc_config_fmt(const struct options *o, const struct pixfmt *fmt,
			     struct vnc_config *v)
{
	vnc_config_fill(o, fmt, -1, v);
}

static void ev_note(void *ctx, const char *text)
{
	struct pipeline *p = ctx;

	if (p->cfg.ev.note)
		p->cfg.ev.note(p->cfg.ev.ctx, text);
}

int pipeline_connect(struct pipeline *p, const struct vnc_config *cfg,
		     enum vnc_error *err)
{
	const struct vnc_events ev = {
	    .ctx = p,
	    .resize = ev_resize,
	    .damage = ev_damage,
	    .update_done = ev_update_done,
	    .cursor_shape = ev_cursor_shape,
	    .cursor_pos = ev_cursor_pos,
	    .layout = ev_layout,
	    .note = ev_note,
	};

	p->vnc = vnc_connect(cfg, &ev, err);
	return p->vnc ? 0 : -1;
}

void pipeline_disconnect(struct pipeline *p)
{
	vnc_destroy(p->vnc);
	p->vnc = NULL;
	p->upd_px = 0;
}

uint64_t pipeline_update_pixels(const struct pipeline *p)
{
	return p->upd_px;
}

struct vnc_client *pipeline_vnc(const struct pipeline *p)
{
	return p->vnc;
}

/* --- the parts --- */

struct blitter *pipeline_blitter(struct pipeline *p)
{
	return p->nheads ? p->head[0].blit : NULL;
}

struct blitter *pipeline_head_blitter(struct pipeline *p, unsigned i)
{
	return i < p->nheads ? p->head[i].blit : NULL;
}

unsigned pipeline_layout(const struct pipeline *p, struct rect *heads)
{
	unsigned i;

	for (i = 0; i < p->nheads; i++)
		heads[i] = p->layout.head[i].r;
	return p->nheads;
}

struct shadow *pipeline_shadow(struct pipeline *p)
{
	return &p->shadow;
}

struct damage *pipeline_damage(struct pipeline *p)
{
	return p->nheads ? &p->head[0].damage : NULL;
}

bool pipeline_cursor_move(struct pipeline *p, int x, int y)
{
	bool dirty = false;
	unsigned i;

	for (i = 0; i < p->nheads || (!i && !p->drawn); i++) {
		cursor_move(&p->head[i].cursor, &p->shadow, x, y);
		dirty |= cursor_dirty(&p->head[i].cursor, &p->shadow);
	}
	return dirty;
}

void pipeline_kick(struct pipeline *p)
{
	kick_all(p);
}

void pipeline_suspend(struct pipeline *p)
{
	unsigned i;

	for (i = 0; i < p->nheads; i++)
		blit_suspend(p->head[i].blit);
}

void pipeline_resume(struct pipeline *p)
{
	unsigned i;

	for (i = 0; i < p->nheads; i++)
		blit_resume(p->head[i].blit);
}

/* --- the view, every head alike (main thread) --- */

void pipeline_screen_size(const struct pipeline *p, uint32_t *w,
			  uint32_t *h)
{
	const struct output *o = p->cfg.out;

	if (p->nheads > 1) {
		*w = p->layout.width;
		*h = p->layout.height;
		return;
	}
	rotate_size(head_rotation(p, o), o->width, o->height, w, h);
}

bool pipeline_head_rect(const struct pipeline *p, const char *name,
			struct rect *r)
{
	unsigned i;

	for (i = 0; i < p->nheads; i++)
		if (!strcasecmp(p->layout.head[i].name, name)) {
			*r = p->nheads > 1
				 ? p->layout.head[i].r
				 : (struct rect){0, 0,
						 (int32_t)p->head[0].out->width,
						 (int32_t)p->head[0].out->height};
			return true;
		}
	return false;
}

bool pipeline_progressing(struct pipeline *p, uint64_t now,
			  uint64_t limit_ns)
{
	unsigned i;

	for (i = 0; i < p->nheads; i++) {
		uint64_t t = damage_waiting_since(&p->head[i].damage);

		if (t && t + limit_ns < now)
			return false;
	}
	return true;
}

uint64_t pipeline_passes(struct pipeline *p)
{
	return p->nheads ? blit_passes(p->head[0].blit) : 0;
}

enum rotation pipeline_head_rotation(const struct pipeline *p,
				     const char *name)
{
	unsigned i, n = output_nheads(p->cfg.out);

	for (i = 0; i < n; i++) {
		const struct output *o = output_head(p->cfg.out, i);

		/* The panel's whole turn, whoever makes it: a touch
		 * screen is on the panel. */
		if ((!name && n == 1) || (name && !strcasecmp(o->name, name)))
			return asked_rotation(p, o);
	}
	return ROT_0;
}

void pipeline_get_view(const struct pipeline *p, struct view *v)
{
	if (p->nheads)
		blit_get_view(p->head[0].blit, v);
	else
		memset(v, 0, sizeof(*v));
}

void pipeline_set_scale(struct pipeline *p, enum scale_mode mode,
			unsigned zoom)
{
	unsigned i;

	p->scale = mode;
	p->zoom = zoom;
	for (i = 0; i < p->nheads; i++) {
		blit_set_scale(p->head[i].blit, mode, zoom);
		if (p->shadow.pix)
			blit_reset_view(p->head[i].blit);
	}
}

/* The first head's view moved: the others pan alike (their views are
 * sized for the same layout, so the same pan is theirs too). */
static bool pan_others(struct pipeline *p, bool moved)
{
	struct view v;
	unsigned i;

	if (!moved)
		return false;
	blit_get_view(p->head[0].blit, &v);
	for (i = 1; i < p->nheads; i++)
		blit_pan_to(p->head[i].blit, v.pan_x, v.pan_y);
	return true;
}

bool pipeline_pan(struct pipeline *p, int dx, int dy)
{
	return p->nheads && pan_others(p, blit_pan(p->head[0].blit, dx, dy));
}

bool pipeline_follow(struct pipeline *p, int rx, int ry)
{
	return p->nheads &&
	       pan_others(p, blit_follow(p->head[0].blit, rx, ry));
}

bool pipeline_center(struct pipeline *p, int rx, int ry)
{
	return p->nheads &&
	       pan_others(p, blit_center(p->head[0].blit, rx, ry));
}

/* The first head's screen holds layout point (sx, sy) at (sx - ox,
 * sy - oy), inside it or not: its view maps any point of the layout. */
bool pipeline_edge_pan(struct pipeline *p, int sx, int sy)
{
	struct view v;

	if (!p->nheads)
		return false;
	blit_get_view(p->head[0].blit, &v);
	return pan_others(
	    p, blit_edge_pan(p->head[0].blit, sx - v.ox, sy - v.oy));
}

void pipeline_screen_to_remote(const struct pipeline *p, int sx, int sy,
			       int *rx, int *ry)
{
	struct view v;
	int32_t x, y;

	pipeline_get_view(p, &v);
	view_screen_to_remote(&v, sx - v.ox, sy - v.oy, &x, &y);
	*rx = x;
	*ry = y;
}

void pipeline_set_status(struct pipeline *p, const char *text)
{
	unsigned i;

	for (i = 0; i < p->nheads; i++)
		blit_set_status(p->head[i].blit, text);
}
