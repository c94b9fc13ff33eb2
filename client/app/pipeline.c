/* The data path, built and torn down in one place (pipeline.h). */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
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
#include "shadow/shadow.h"
#include "net/vnc.h"

/* How long the worker may take to show up on its core. */
#define VERIFY_NS 2000000000ull

struct pipeline {
	struct pipeline_config cfg;
	int cpu;    /* asked of the worker, -1: unpinned */
	bool drawn; /* damage and blitter exist (not DECODE) */
	struct shadow shadow;
	struct damage damage;
	struct blitter *blit;
	struct cursor cursor; /* drawn over the shadow by the blitter */
	struct vnc_client *vnc;
	bool stopped;
	/* Pixels the update being decoded has touched so far (main
	 * thread). */
	uint64_t upd_px;
};

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
	if (p->drawn)
		blit_reset_view(p->blit);
	if (p->cfg.ev.resized)
		p->cfg.ev.resized(p->cfg.ev.ctx, w, h);
	return pix;
}

/* Pixels of one update that wake the blitter before the update ends. */
#define PIPELINE_EARLY_PX (128u * 1024u)

static void ev_damage(void *ctx, const struct rect *r)
{
	struct pipeline *p = ctx;

	p->upd_px += (uint64_t)rect_area(r);
	if (p->drawn)
		damage_add(&p->damage, r);
}

static void ev_update_done(void *ctx)
{
	struct pipeline *p = ctx;

	if (p->cfg.ev.update_done)
		p->cfg.ev.update_done(p->cfg.ev.ctx);
	p->upd_px = 0;
	if (p->drawn)
		damage_kick(&p->damage);
}

static void ev_cursor_shape(void *ctx, int xhot, int yhot, int w, int h,
			    const uint8_t *pixels, const uint8_t *mask)
{
	struct pipeline *p = ctx;

	if (cursor_set_shape(&p->cursor, &p->shadow, xhot, yhot, w, h, pixels,
			     mask) == 0 &&
	    p->drawn)
		damage_kick(&p->damage);
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

	if (p->cfg.ev.layout)
		p->cfg.ev.layout(p->cfg.ev.ctx, l);
}

/* --- the blit worker and its core --- */

/* Start the worker where it was asked to run. A pin that fails is an
 * error for a core the user named; for the probe's choice the worker
 * then runs unpinned. 0 or -1 (logged; no worker left running). */
static int start_worker(struct pipeline *p)
{
	char why[PROBE_PIN_REASON_LEN];
	int perr;

	if (blit_start(p->blit) == 0)
		return 0;
	perr = blit_pin_error(p->blit);
	if (!perr)
		return -1; /* no thread (logged) */
	if (!p->cfg.choose_cpu) {
		log_error("cannot pin the blit thread to core %d: %s", p->cpu,
			  probe_pin_reason(perr, why, sizeof(why)));
		blit_stop(p->blit);
		return -1;
	}
	log_warn("cannot pin the blit thread to core %d (%s): it runs "
		 "unpinned",
		 p->cpu, probe_pin_reason(perr, why, sizeof(why)));
	p->cpu = -1;
	blit_set_cpu(p->blit, -1);
	return 0;
}

/* The worker records where it runs after each pass; blit_start kicks a
 * pass after pinning, so the pinned core shows up within a moment. */
static void verify_cpu(struct pipeline *p)
{
	uint64_t until = monotonic_ns() + VERIFY_NS;
	int cpu = p->cpu, actual;

	if (platform_current_cpu() < 0)
		return;
	for (;;) {
		actual = blit_actual_cpu(p->blit);
		if ((cpu < 0 ? actual >= 0 : actual == cpu) ||
		    monotonic_ns() > until)
			break;
		usleep(1000);
	}
	if (cpu < 0)
		log_debug("blit thread runs unpinned (now on core %d)", actual);
	else if (actual == cpu)
		log_debug("blit thread runs on core %d, as pinned", actual);
	else
		log_warn("the blit thread was pinned to core %d but runs on "
			 "core %d",
			 cpu, actual);
}

/* --- building and tearing down --- */

/* The blitter's settings and its worker, at create and after the output
 * changed. 0 or -1 (logged). */
static int setup_blitter(struct pipeline *p)
{
	blit_set_scale(p->blit, p->cfg.scale, p->cfg.zoom);
	blit_set_cursor(p->blit, &p->cursor);
	if (p->cfg.on_pass)
		blit_set_on_pass(p->blit, p->cfg.on_pass, p->cfg.on_pass_ctx);
	if (p->cfg.draw == PIPELINE_BLIT) {
		if (start_worker(p) < 0)
			return -1;
		verify_cpu(p);
	}
	return 0;
}

int pipeline_output_changed(struct pipeline *p)
{
	struct blitter *b;
	int cpu;

	if (!p->drawn)
		return 0;
	pipeline_stop(p);
	/* The probe writes into the new mapping: nobody else does now. */
	cpu = p->cfg.choose_cpu ? probe_pick_core(p->cfg.out, p->cfg.samples)
				: p->cfg.cpu;
	b = blit_create(p->cfg.out, &p->shadow, &p->damage, cpu);
	if (!b)
		return -1;
	blit_destroy(p->blit);
	p->blit = b;
	p->cpu = cpu;
	p->stopped = false;
	damage_restart(&p->damage);
	if (setup_blitter(p) < 0) {
		p->stopped = true;
		return -1;
	}
	if (p->shadow.pix)
		blit_reset_view(p->blit);
	damage_kick(&p->damage);
	return 0;
}

struct pipeline *pipeline_create(const struct pipeline_config *cfg)
{
	struct pipeline *p = calloc(1, sizeof(*p));
	struct pixfmt sfmt;
	int err;

	if (!p) {
		log_error("cannot allocate the pipeline");
		return NULL;
	}
	p->cfg = *cfg;
	p->drawn = cfg->draw != PIPELINE_DECODE;
	/* Before the blitter owns the output: the probe writes into it. */
	p->cpu = cfg->choose_cpu ? probe_pick_core(cfg->out, cfg->samples)
				 : cfg->cpu;
	pixfmt_shadow_for(&cfg->out->fmt, &sfmt);
	err = shadow_init(&p->shadow, &sfmt);
	if (err < 0) {
		log_error("cannot set up the shadow buffer: %s",
			  strerror(-err));
		goto fail_free;
	}
	cursor_init(&p->cursor);
	if (!p->drawn)
		return p;
	err = damage_init(&p->damage);
	if (err < 0) {
		log_error("cannot set up the damage set: %s", strerror(-err));
		goto fail_shadow;
	}
	p->blit = blit_create(cfg->out, &p->shadow, &p->damage, p->cpu);
	if (!p->blit)
		goto fail_damage;
	/* On a screen that shows the mapping as it is written, a long
	 * update is drawn while it is decoded, an eighth of a megapixel at
	 * a time: the blitter copies rows still in the cache, on its own
	 * core, instead of the whole update after its end (and a slow link
	 * shows the picture as it comes, as the classic viewers did). A
	 * flipped output shows whole updates. */
	if (output_live(cfg->out))
		damage_set_early(&p->damage, PIPELINE_EARLY_PX);
	if (setup_blitter(p) < 0)
		goto fail_blit;
	return p;

fail_blit:
	blit_destroy(p->blit);
fail_damage:
	damage_finish(&p->damage);
fail_shadow:
	cursor_finish(&p->cursor);
	shadow_finish(&p->shadow);
fail_free:
	free(p);
	return NULL;
}

void pipeline_stop(struct pipeline *p)
{
	if (p->stopped || !p->drawn)
		return;
	blit_stop(p->blit);
	p->stopped = true;
}

void pipeline_destroy(struct pipeline *p)
{
	if (!p)
		return;
	pipeline_disconnect(p);
	pipeline_stop(p);
	if (p->drawn) {
		blit_destroy(p->blit);
		damage_finish(&p->damage);
	}
	cursor_finish(&p->cursor);
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
	v->get_password = passwd_get;
	v->password_ctx = o->passwd_file;
	v->read_timeout_s = o->timeout;
	v->decode_threads =
	    o->decode_threads != DECODE_THREADS_AUTO
		? (unsigned)o->decode_threads
		: decpool_auto_threads(probe_online_count(), blit_cpu);
	v->ca_file = o->ca_file;
	v->insecure = o->insecure;
}

void pipeline_vnc_config(const struct pipeline *p, const struct options *o,
			 struct vnc_config *v)
{
	vnc_config_fill(o, &p->shadow.fmt, p->cpu, v);
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
	return p->drawn ? p->blit : NULL;
}

struct shadow *pipeline_shadow(struct pipeline *p)
{
	return &p->shadow;
}

struct damage *pipeline_damage(struct pipeline *p)
{
	return p->drawn ? &p->damage : NULL;
}

bool pipeline_cursor_move(struct pipeline *p, int x, int y)
{
	cursor_move(&p->cursor, &p->shadow, x, y);
	return cursor_dirty(&p->cursor, &p->shadow);
}

void pipeline_kick(struct pipeline *p)
{
	if (p->drawn)
		damage_kick(&p->damage);
}
