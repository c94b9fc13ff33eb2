/* Touch gestures to pointer events: TigerVNC's recogniser and mapping,
 * in millimetres (gesture.h). */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "input/gesture.h"

/* X11's Control_L and its XT scancode: a pinch is Ctrl+wheel. */
#define KEYSYM_CONTROL_L 0xffe3u
#define SCANCODE_CONTROL_L 0x1du

#define MS 1000000ull

/* What a gesture may still turn out to be: a set of these. One bit left
 * is a gesture found (a tap also needs every finger up); none is no
 * gesture until every finger has lifted. */
enum {
	G_ONETAP = 1 << 0,
	G_TWOTAP = 1 << 1,
	G_THREETAP = 1 << 2,
	G_DRAG = 1 << 3,
	G_LONGPRESS = 1 << 4,
	G_TWODRAG = 1 << 5,
	G_PINCH = 1 << 6,
	G_ANY = (1 << 7) - 1,
	G_TAPS = G_ONETAP | G_TWOTAP | G_THREETAP,
};

enum phase { BEGIN, UPDATE, END };

struct contact {
	int id;
	bool active;   /* still down */
	double x0, y0; /* where it landed, device units */
	double x, y;   /* where it is */
	double angle;  /* direction of travel, degrees */
	uint64_t started;
};

struct gesture {
	/* The device. */
	double min_x, min_y, span_x, span_y;
	double upmm_x, upmm_y; /* units per millimetre */
	bool guessed;
	uint64_t now; /* the latest time seen */

	/* The recogniser. */
	unsigned state;
	bool waiting_release; /* a finger lifted before any gesture */
	uint64_t release_start;
	struct contact c[GESTURE_MAX_TOUCHES];
	unsigned nc;
	int ignored[GESTURE_MAX_TOUCHES]; /* down, but no gesture's */
	unsigned nignored;
	uint64_t longpress_at, twotouch_at; /* 0: not waiting */

	/* The mapping. */
	int held;		 /* button a drag or long press holds, 0 none */
	double wheel_x, wheel_y; /* scroll: upright mm, notched */
	double span;		 /* pinch: mm, notched */
	bool follow;		 /* a long press's finger has left its place */
	double hold_x, hold_y;	 /* where the long press began */
	uint64_t tap_at;	 /* the last tap, 0 none */
	unsigned tap_kind;
	double tap_x, tap_y; /* where that kind's first tap was */
};

static double units_per_mm(int res, int other, double guess)
{
	if (res > 0)
		return res;
	if (other > 0)
		return other; /* most devices' units are square */
	return guess;
}

struct gesture *gesture_create(const struct gesture_geom *geom)
{
	struct gesture *g = calloc(1, sizeof(*g));
	double wide, guess;

	if (!g)
		return NULL;
	g->min_x = geom->min_x;
	g->min_y = geom->min_y;
	g->span_x = (double)geom->max_x - geom->min_x;
	g->span_y = (double)geom->max_y - geom->min_y;
	wide = g->span_x > g->span_y ? g->span_x : g->span_y;
	guess = wide > 0 ? wide / GESTURE_GUESS_WIDTH_MM : 1;
	g->guessed = geom->res_x <= 0 && geom->res_y <= 0;
	g->upmm_x = units_per_mm(geom->res_x, geom->res_y, guess);
	g->upmm_y = units_per_mm(geom->res_y, geom->res_x, guess);
	g->state = G_ANY;
	return g;
}

void gesture_destroy(struct gesture *g)
{
	free(g);
}

bool gesture_guessed(const struct gesture *g)
{
	return g->guessed;
}

/* --- geometry --- */

static double mm_between(const struct gesture *g, double x0, double y0,
			 double x1, double y1)
{
	return hypot((x1 - x0) / g->upmm_x, (y1 - y0) / g->upmm_y);
}

static double moved_mm(const struct gesture *g, const struct contact *c)
{
	return mm_between(g, c->x0, c->y0, c->x, c->y);
}

/* The fingers' mean position, where they landed or where they are. */
static void mean_pos(const struct gesture *g, bool first, double *x, double *y)
{
	double sx = 0, sy = 0;
	unsigned i;

	for (i = 0; i < g->nc; i++) {
		sx += first ? g->c[i].x0 : g->c[i].x;
		sy += first ? g->c[i].y0 : g->c[i].y;
	}
	*x = g->nc ? sx / g->nc : 0;
	*y = g->nc ? sy / g->nc : 0;
}

/* The fingers' mean travel since they landed, mm along the device's
 * axes. */
static void mean_travel(const struct gesture *g, double *dx, double *dy)
{
	double sx = 0, sy = 0;
	unsigned i;

	for (i = 0; i < g->nc; i++) {
		sx += (g->c[i].x - g->c[i].x0) / g->upmm_x;
		sy += (g->c[i].y - g->c[i].y0) / g->upmm_y;
	}
	*dx = g->nc ? sx / g->nc : 0;
	*dy = g->nc ? sy / g->nc : 0;
}

/* The span of the first and the last finger, mm along each axis, when
 * they landed or now. */
static void span_mm(const struct gesture *g, bool first, double *dx, double *dy)
{
	const struct contact *a = &g->c[0], *b = &g->c[g->nc - 1];

	*dx = fabs((first ? b->x0 - a->x0 : b->x - a->x) / g->upmm_x);
	*dy = fabs((first ? b->y0 - a->y0 : b->y - a->y) / g->upmm_y);
}

/* A panel direction (mm) in the upright picture, for a picture turned
 * clockwise turns quarter turns on the panel (output/rotate.h's
 * rotate_fraction, without the offset). */
static void upright(unsigned turns, double dx, double dy, double *ux,
		    double *uy)
{
	switch (turns & 3) {
	case 1:
		*ux = dy;
		*uy = -dx;
		break;
	case 2:
		*ux = -dx;
		*uy = -dy;
		break;
	case 3:
		*ux = -dy;
		*uy = dx;
		break;
	default:
		*ux = dx;
		*uy = dy;
	}
}

/* --- the mapping (BaseTouchHandler) --- */

static double fraction(double v, double min, double span)
{
	double f = span > 0 ? (v - min) / span : 0;

	return f < 0 ? 0 : f > 1 ? 1 : f;
}

static void motion(const struct gesture *g, const struct input_sink *sink,
		   double x, double y)
{
	sink->motion_abs(sink->ctx, fraction(x, g->min_x, g->span_x),
			 fraction(y, g->min_y, g->span_y));
}

static void click(const struct input_sink *sink, int button)
{
	sink->button(sink->ctx, button, true);
	sink->button(sink->ctx, button, false);
}

/* A tap of kind at (x, y): a click there, or at the first tap's place
 * when it repeats one close by (a double click stays one). */
static void tap(struct gesture *g, const struct input_sink *sink, unsigned kind,
		double x, double y, uint64_t now)
{
	int button = kind == G_ONETAP ? 1 : kind == G_TWOTAP ? 3 : 2;

	if (g->tap_at && now - g->tap_at < GESTURE_SNAP_MS * MS &&
	    g->tap_kind == kind &&
	    mm_between(g, g->tap_x, g->tap_y, x, y) < GESTURE_SNAP_MM) {
		x = g->tap_x;
		y = g->tap_y;
	} else {
		g->tap_kind = kind;
		g->tap_x = x;
		g->tap_y = y;
	}
	g->tap_at = now;
	motion(g, sink, x, y);
	click(sink, button);
}

/* Wheel notches for travel beyond *done in steps of step: pos while
 * v - *done > step, neg while below -step. */
static void notches(const struct input_sink *sink, double v, double *done,
		    double step, int pos, int neg)
{
	while (v - *done > step) {
		click(sink, pos);
		*done += step;
	}
	while (v - *done < -step) {
		click(sink, neg);
		*done -= step;
	}
}

static void scroll(struct gesture *g, const struct input_sink *sink)
{
	double dx, dy, ux, uy;

	mean_travel(g, &dx, &dy);
	upright(sink->turns ? sink->turns(sink->ctx) : 0, dx, dy, &ux, &uy);
	/* Fingers going down pull the page down: the wheel goes up (4);
	 * going right, it goes left (6). */
	notches(sink, uy, &g->wheel_y, GESTURE_SCROLL_MM, 4, 5);
	notches(sink, ux, &g->wheel_x, GESTURE_SCROLL_MM, 6, 7);
}

static void zoom(struct gesture *g, const struct input_sink *sink)
{
	double dx, dy, span;

	span_mm(g, false, &dx, &dy);
	span = hypot(dx, dy);
	if (fabs(span - g->span) <= GESTURE_ZOOM_MM)
		return;
	sink->key(sink->ctx, KEYSYM_CONTROL_L, SCANCODE_CONTROL_L, true);
	notches(sink, span, &g->span, GESTURE_ZOOM_MM, 4, 5);
	sink->key(sink->ctx, KEYSYM_CONTROL_L, SCANCODE_CONTROL_L, false);
}

/* A gesture's step: the state holds the one gesture found. */
static void emit(struct gesture *g, enum phase ph, uint64_t now,
		 const struct input_sink *sink)
{
	unsigned kind = g->state;
	double x, y, dx, dy;

	if (!sink)
		return;
	/* Drags and presses start where the fingers landed (the first
	 * millimetres were spent telling the gesture); the wheel turns
	 * where they landed throughout. */
	mean_pos(g, ph == BEGIN || kind == G_TWODRAG || kind == G_PINCH, &x,
		 &y);
	switch (kind) {
	case G_ONETAP:
	case G_TWOTAP:
	case G_THREETAP:
		if (ph == BEGIN)
			tap(g, sink, kind, x, y, now);
		break;
	case G_DRAG:
	case G_LONGPRESS:
		if (ph == BEGIN) {
			g->held = kind == G_DRAG ? 1 : 3;
			g->follow = kind == G_DRAG;
			g->hold_x = x;
			g->hold_y = y;
			motion(g, sink, x, y);
			sink->button(sink->ctx, g->held, true);
			break;
		}
		/* A long press follows its finger once it has left the
		 * place it was held at: a resting finger's tremble does
		 * not drag. */
		if (!g->follow && mm_between(g, g->hold_x, g->hold_y, x, y) >=
				      GESTURE_MOVE_MM)
			g->follow = true;
		if (g->follow)
			motion(g, sink, x, y);
		if (ph == END && g->held) {
			sink->button(sink->ctx, g->held, false);
			g->held = 0;
		}
		break;
	case G_TWODRAG:
		if (ph == END)
			break;
		/* The pointer is put back each time: something else may
		 * have moved it. */
		motion(g, sink, x, y);
		if (ph == BEGIN)
			g->wheel_x = g->wheel_y = 0;
		else if (ph == UPDATE)
			scroll(g, sink);
		break;
	case G_PINCH:
		if (ph == END)
			break;
		if (ph == BEGIN) {
			span_mm(g, true, &dx, &dy);
			g->span = hypot(dx, dy);
		}
		motion(g, sink, x, y);
		if (ph == UPDATE)
			zoom(g, sink);
		break;
	}
}

/* --- the recogniser (GestureHandler) --- */

static bool found(const struct gesture *g)
{
	unsigned i;

	if (!g->state || (g->state & (g->state - 1)))
		return false;
	/* A tap is a tap once every finger is up. */
	if (g->state & G_TAPS)
		for (i = 0; i < g->nc; i++)
			if (g->c[i].active)
				return false;
	return true;
}

static struct contact *find(struct gesture *g, int id)
{
	unsigned i;

	for (i = 0; i < g->nc; i++)
		if (g->c[i].id == id)
			return &g->c[i];
	return NULL;
}

static int ignored_at(const struct gesture *g, int id)
{
	unsigned i;

	for (i = 0; i < g->nignored; i++)
		if (g->ignored[i] == id)
			return (int)i;
	return -1;
}

static void ignore(struct gesture *g, int id)
{
	if (ignored_at(g, id) < 0 && g->nignored < GESTURE_MAX_TOUCHES)
		g->ignored[g->nignored++] = id;
}

static void unignore(struct gesture *g, int i)
{
	g->ignored[i] = g->ignored[--g->nignored];
}

/* Every finger up: ready for the next gesture. */
static void maybe_idle(struct gesture *g)
{
	if (!g->nignored && !g->nc) {
		g->state = G_ANY;
		g->waiting_release = false;
	}
}

static void touch_begin(struct gesture *g, const struct gesture_touch *t,
			uint64_t now, const struct input_sink *sink)
{
	struct contact *c;

	/* A finger that lands during a gesture, after a dead end, while
	 * the console is away or while fingers lift is nobody's. */
	if (!sink || found(g) || !g->state) {
		ignore(g, t->id);
		return;
	}
	if ((g->nc && now - g->c[0].started > GESTURE_MULTITOUCH_MS * MS) ||
	    g->waiting_release || g->nc == GESTURE_MAX_TOUCHES) {
		g->state = 0;
		ignore(g, t->id);
		return;
	}
	c = &g->c[g->nc++];
	c->id = t->id;
	c->active = true;
	c->x0 = c->x = t->x;
	c->y0 = c->y = t->y;
	c->angle = 0;
	c->started = now;
	switch (g->nc) {
	case 1:
		g->longpress_at = now + GESTURE_LONGPRESS_MS * MS;
		break;
	case 2:
		g->state &= ~(unsigned)(G_ONETAP | G_DRAG | G_LONGPRESS);
		g->longpress_at = 0;
		break;
	case 3:
		g->state &= ~(unsigned)(G_TWOTAP | G_TWODRAG | G_PINCH);
		break;
	default:
		g->state = 0;
	}
}

/* Two fingers, one of them c moved past the threshold: a pinch when
 * they go opposite ways, a scroll when they go the same way, and when
 * the other has not moved yet, wait a little for it. */
static void two_fingers(struct gesture *g, const struct contact *c,
			uint64_t now)
{
	const struct contact *o = c == &g->c[0] ? &g->c[1] : &g->c[0];
	double d;

	if (moved_mm(g, o) > GESTURE_MOVE_MM) {
		d = fabs(c->angle - o->angle);
		d = fabs(fmod(d + 180, 360) - 180);
		if (d > 90)
			g->state &= ~(unsigned)G_TWODRAG;
		else
			g->state &= ~(unsigned)G_PINCH;
		g->twotouch_at = 0;
	} else if (!g->twotouch_at) {
		g->twotouch_at = now + GESTURE_TWOTOUCH_MS * MS;
	}
}

static void touch_move(struct gesture *g, const struct gesture_touch *t,
		       uint64_t now, const struct input_sink *sink)
{
	struct contact *c = find(g, t->id);

	if (!c || (c->x == t->x && c->y == t->y))
		return;
	c->x = t->x;
	c->y = t->y;
	if (c->x != c->x0 || c->y != c->y0)
		c->angle = atan2((c->y - c->y0) / g->upmm_y,
				 (c->x - c->x0) / g->upmm_x) *
			   180 / M_PI;
	if (!found(g)) {
		if (moved_mm(g, c) < GESTURE_MOVE_MM)
			return;
		/* It moved: no tap, no long press. */
		g->state &= ~(unsigned)(G_TAPS | G_LONGPRESS);
		g->longpress_at = 0;
		if (g->nc != 1)
			g->state &= ~(unsigned)G_DRAG;
		if (g->nc != 2)
			g->state &= ~(unsigned)(G_TWODRAG | G_PINCH);
		if (g->nc == 2)
			two_fingers(g, c, now);
		if (!found(g))
			return;
		emit(g, BEGIN, now, sink);
	}
	emit(g, UPDATE, now, sink);
}

static void touch_end(struct gesture *g, int id, uint64_t now,
		      const struct input_sink *sink)
{
	int ig = ignored_at(g, id);
	struct contact *c;
	unsigned i;

	if (ig >= 0) {
		unignore(g, ig);
		maybe_idle(g);
		return;
	}
	c = find(g, id);
	if (!c)
		return;
	/* Lifted while pinch and scroll were still being told apart:
	 * neither. */
	if (!found(g) && g->twotouch_at) {
		g->twotouch_at = 0;
		g->state = 0;
	}
	if (!found(g)) {
		/* What is left are taps. */
		g->state &=
		    ~(unsigned)(G_DRAG | G_TWODRAG | G_PINCH | G_LONGPRESS);
		g->longpress_at = 0;
		if (!g->waiting_release) {
			g->release_start = now;
			g->waiting_release = true;
			if (g->nc == 1)
				g->state &= ~(unsigned)(G_TWOTAP | G_THREETAP);
			else if (g->nc == 2)
				g->state &= ~(unsigned)(G_ONETAP | G_THREETAP);
		}
	}
	if (g->waiting_release) {
		/* A tap's fingers lift together, and soon. */
		if (now - g->release_start > GESTURE_MULTITOUCH_MS * MS)
			g->state = 0;
		for (i = 0; i < g->nc; i++)
			if (now - g->c[i].started > GESTURE_TAP_MS * MS)
				g->state = 0;
		c->active = false;
		if (found(g))
			emit(g, BEGIN, now, sink);
		else if (g->state)
			return; /* more fingers to lift */
	}
	if (found(g))
		emit(g, END, now, sink);
	/* The fingers still down are no gesture's now. */
	for (i = 0; i < g->nc; i++)
		if (g->c[i].active && g->c[i].id != id)
			ignore(g, g->c[i].id);
	g->nc = 0;
	g->state = 0;
	g->longpress_at = g->twotouch_at = 0;
	maybe_idle(g);
}

static void longpress_due(struct gesture *g, uint64_t now,
			  const struct input_sink *sink)
{
	g->longpress_at = 0;
	/* Not after a dead end (a finger that came too late). */
	if (!(g->state & G_LONGPRESS))
		return;
	g->state = G_LONGPRESS;
	emit(g, BEGIN, now, sink);
}

/* Neither finger went far enough to tell by their directions: a pinch
 * when the distance between them changed more than either moved on
 * average, else a scroll. */
static void twotouch_due(struct gesture *g, uint64_t now,
			 const struct input_sink *sink)
{
	double mx, my, fx, fy, lx, ly, dspan;

	g->twotouch_at = 0;
	/* A third finger landed meanwhile: no two-finger gesture. */
	if (g->nc != 2 || !(g->state & (G_TWODRAG | G_PINCH)))
		return;
	mean_travel(g, &mx, &my);
	span_mm(g, true, &fx, &fy);
	span_mm(g, false, &lx, &ly);
	dspan = fabs(hypot(fx, fy) - hypot(lx, ly));
	g->state = fabs(mx) < dspan && fabs(my) < dspan ? G_PINCH : G_TWODRAG;
	emit(g, BEGIN, now, sink);
	emit(g, UPDATE, now, sink);
}

uint64_t gesture_deadline(const struct gesture *g)
{
	uint64_t a = g->longpress_at, b = g->twotouch_at;

	if (!a || (b && b < a))
		return b;
	return a;
}

void gesture_tick(struct gesture *g, uint64_t now,
		  const struct input_sink *sink)
{
	/* The ticks' clock and the events' may cross a little: time only
	 * goes forward here. */
	if (now > g->now)
		g->now = now;
	now = g->now;
	if (g->longpress_at && now >= g->longpress_at)
		longpress_due(g, now, sink);
	if (g->twotouch_at && now >= g->twotouch_at)
		twotouch_due(g, now, sink);
}

static bool listed(const struct gesture_touch *t, unsigned n, int id)
{
	unsigned j;

	for (j = 0; j < n; j++)
		if (t[j].id == id)
			return true;
	return false;
}

void gesture_frame(struct gesture *g, const struct gesture_touch *t, unsigned n,
		   uint64_t now, const struct input_sink *sink)
{
	int lifted[2 * GESTURE_MAX_TOUCHES];
	unsigned i, j, nl = 0;

	if (n > GESTURE_MAX_TOUCHES)
		n = GESTURE_MAX_TOUCHES;
	/* What fell due before this frame happened first. */
	gesture_tick(g, now, sink);
	now = g->now;
	/* Lifted: down before, missing now. Listed first, as ending one
	 * moves the others to the ignored. */
	for (i = 0; i < g->nc; i++)
		if (g->c[i].active && !listed(t, n, g->c[i].id))
			lifted[nl++] = g->c[i].id;
	for (i = 0; i < g->nignored; i++)
		if (!listed(t, n, g->ignored[i]))
			lifted[nl++] = g->ignored[i];
	for (i = 0; i < nl; i++)
		touch_end(g, lifted[i], now, sink);
	/* Landed, then moved. */
	for (j = 0; j < n; j++)
		if (!find(g, t[j].id) && ignored_at(g, t[j].id) < 0)
			touch_begin(g, &t[j], now, sink);
	for (j = 0; j < n; j++)
		touch_move(g, &t[j], now, sink);
}

void gesture_reset(struct gesture *g, const struct input_sink *sink)
{
	unsigned i;

	if (g->held && sink)
		sink->button(sink->ctx, g->held, false);
	g->held = 0;
	for (i = 0; i < g->nc; i++)
		if (g->c[i].active)
			ignore(g, g->c[i].id);
	g->nc = 0;
	g->state = 0;
	g->longpress_at = g->twotouch_at = 0;
	maybe_idle(g);
}
