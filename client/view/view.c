/* The view: --scale parsing and naming, and the remote-to-screen mapping
 * (sizes, centring, panning, pointer and rectangle mapping). */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "view/view.h"

/* --- Options --- */

int scale_parse(const char *s, enum scale_mode *mode, unsigned *zoom)
{
	char *end;
	unsigned long n;

	*zoom = 1;
	if (!strcmp(s, "none")) {
		*mode = SCALE_NONE;
		return 0;
	}
	if (!strcmp(s, "fit")) {
		*mode = SCALE_FIT;
		return 0;
	}
	if (!strcmp(s, "fill")) {
		*mode = SCALE_FILL;
		return 0;
	}
	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	n = strtoul(s, &end, 10);
	if (errno || *end || n < 1 || n > SCALE_ZOOM_MAX)
		return -EINVAL;
	*mode = n == 1 ? SCALE_NONE : SCALE_ZOOM;
	*zoom = (unsigned)n;
	return 0;
}

const char *scale_name(enum scale_mode mode, unsigned zoom, char *buf,
		       size_t len)
{
	switch (mode) {
	case SCALE_FIT:
		snprintf(buf, len, "fit");
		break;
	case SCALE_FILL:
		snprintf(buf, len, "fill");
		break;
	case SCALE_ZOOM:
		snprintf(buf, len, "%u", zoom);
		break;
	default:
		snprintf(buf, len, "none");
		break;
	}
	return buf;
}

/* --- The view --- */

/* Centre when it fits, else keep the pan inside [0, d - s]. */
static void axis_place(uint32_t d, uint32_t s, int32_t *pan, int32_t *off)
{
	if (d <= s) {
		*pan = 0;
		*off = (int32_t)((s - d) / 2);
		return;
	}
	if (*pan < 0)
		*pan = 0;
	if ((uint32_t)*pan > d - s)
		*pan = (int32_t)(d - s);
	*off = -*pan;
}

/* The screen the desktop is placed on: the layout, or the screen. */
static uint32_t lay_w(const struct view *v)
{
	return v->lw ? v->lw : v->sw;
}

static uint32_t lay_h(const struct view *v)
{
	return v->lw ? v->lh : v->sh;
}

static void view_place(struct view *v)
{
	axis_place(v->dw, lay_w(v), &v->pan_x, &v->dx);
	axis_place(v->dh, lay_h(v), &v->pan_y, &v->dy);
	if (v->lw) {
		v->dx -= v->ox;
		v->dy -= v->oy;
	}
}

void view_set_head(struct view *v, const struct rect *r, uint32_t lw,
		   uint32_t lh)
{
	v->lw = lw && lh ? lw : 0;
	v->lh = v->lw ? lh : 0;
	v->ox = v->lw ? r->x : 0;
	v->oy = v->lw ? r->y : 0;
}

void view_update(struct view *v, enum scale_mode mode, unsigned zoom,
		 uint32_t rw, uint32_t rh, uint32_t screen_w, uint32_t screen_h)
{
	uint32_t sw, sh;

	v->sw = screen_w;
	v->sh = screen_h;
	/* Sized for the layout; shown through this screen. */
	sw = lay_w(v);
	sh = lay_h(v);
	v->mode = mode;
	v->zoom = mode == SCALE_ZOOM && zoom >= 1 ? zoom : 1;
	v->rw = rw;
	v->rh = rh;
	if (!rw || !rh || !sw || !sh) {
		v->dw = v->dh = 0;
	} else if (mode == SCALE_FILL) {
		v->dw = sw;
		v->dh = sh;
	} else if (mode == SCALE_FIT) {
		/* Round to the nearest size; a 1-pixel aspect error beats a
		 * black line. */
		if ((uint64_t)sw * rh <= (uint64_t)sh * rw) {
			v->dw = sw;
			v->dh = (uint32_t)(((uint64_t)rh * sw + rw / 2) / rw);
		} else {
			v->dh = sh;
			v->dw = (uint32_t)(((uint64_t)rw * sh + rh / 2) / rh);
		}
		if (v->dw < 1)
			v->dw = 1;
		if (v->dh < 1)
			v->dh = 1;
	} else {
		v->dw = rw * v->zoom;
		v->dh = rh * v->zoom;
	}
	view_place(v);
}

bool view_pannable(const struct view *v)
{
	return v->dw > lay_w(v) || v->dh > lay_h(v);
}

bool view_pan_to(struct view *v, int32_t px, int32_t py)
{
	int32_t ox = v->pan_x, oy = v->pan_y;

	v->pan_x = px;
	v->pan_y = py;
	view_place(v);
	return v->pan_x != ox || v->pan_y != oy;
}

/* Desktop pixels [*a, *b) showing remote [lo, hi) on an axis. */
static void axis_to_screen(uint32_t n, uint32_t d, int64_t lo, int64_t hi,
			   int64_t *a, int64_t *b)
{
	*a = lo * d / n;
	*b = (hi * d + n - 1) / n;
}

static int32_t follow_axis(int32_t pan, uint32_t n, uint32_t d, uint32_t s,
			   int32_t r, int32_t margin)
{
	int64_t a, b;

	if (d <= s || n == 0)
		return pan;
	if (margin > (int32_t)(s - 1) / 2)
		margin = (int32_t)(s - 1) / 2;
	if (r < 0)
		r = 0;
	if ((uint32_t)r >= n)
		r = (int32_t)n - 1;
	axis_to_screen(n, d, r, (int64_t)r + 1, &a, &b);
	if (a - pan < margin)
		pan = (int32_t)(a - margin);
	if (b - 1 - pan > (int64_t)s - 1 - margin)
		pan = (int32_t)(b - 1 - ((int64_t)s - 1 - margin));
	return pan;
}

bool view_follow(struct view *v, int32_t rx, int32_t ry, int32_t margin)
{
	return view_pan_to(
	    v, follow_axis(v->pan_x, v->rw, v->dw, lay_w(v), rx, margin),
	    follow_axis(v->pan_y, v->rh, v->dh, lay_h(v), ry, margin));
}

static int32_t center_axis(uint32_t n, uint32_t d, uint32_t s, int32_t r)
{
	int64_t a, b;

	if (n == 0)
		return 0;
	if (r < 0)
		r = 0;
	if ((uint32_t)r >= n)
		r = (int32_t)n - 1;
	axis_to_screen(n, d, r, (int64_t)r + 1, &a, &b);
	return (int32_t)((a + b) / 2 - (int64_t)s / 2);
}

bool view_center(struct view *v, int32_t rx, int32_t ry)
{
	return view_pan_to(v, center_axis(v->rw, v->dw, lay_w(v), rx),
			   center_axis(v->rh, v->dh, lay_h(v), ry));
}

/* One axis of view_edge_step: toward the low edge negative, the high
 * edge positive, 0 outside the margins or where the view cannot move. */
static int32_t edge_axis(int32_t pan, uint32_t d, uint32_t s, int32_t p,
			 int32_t margin, int32_t max)
{
	int32_t depth, dir;

	if (d <= s || margin < 1 || max < 1)
		return 0;
	if (margin > (int32_t)s / 2)
		margin = (int32_t)s / 2 > 0 ? (int32_t)s / 2 : 1;
	if (p < margin && pan > 0) {
		depth = margin - (p < 0 ? 0 : p);
		dir = -1;
	} else if (p >= (int32_t)s - margin && pan < (int32_t)(d - s)) {
		depth = p - ((int32_t)s - margin) + 1;
		dir = 1;
	} else {
		return 0;
	}
	if (depth > margin)
		depth = margin;
	/* 1 at the margin's inner border, max on the edge pixel. */
	return dir * (1 + (int32_t)((int64_t)(depth - 1) * (max - 1) /
				    (margin > 1 ? margin - 1 : 1)));
}

bool view_edge_step(const struct view *v, int32_t sx, int32_t sy,
		    int32_t margin, int32_t max, int32_t *dx, int32_t *dy)
{
	/* On a head, the layout's edges: sx, sy are this screen's. */
	*dx = edge_axis(v->pan_x, v->dw, lay_w(v), sx + v->ox, margin, max);
	*dy = edge_axis(v->pan_y, v->dh, lay_h(v), sy + v->oy, margin, max);
	return *dx || *dy;
}

bool view_remote_to_screen(const struct view *v, const struct rect *in,
			   struct rect *out)
{
	struct rect r = *in, scr;
	int64_t x0, x1, y0, y1;

	if (!v->dw || !v->dh ||
	    !rect_clip(&r, (int32_t)v->rw, (int32_t)v->rh)) {
		*out = (struct rect){0, 0, 0, 0};
		return false;
	}
	axis_to_screen(v->rw, v->dw, r.x, (int64_t)r.x + r.w, &x0, &x1);
	axis_to_screen(v->rh, v->dh, r.y, (int64_t)r.y + r.h, &y0, &y1);
	scr = (struct rect){(int32_t)(x0 + v->dx), (int32_t)(y0 + v->dy),
			    (int32_t)(x1 - x0), (int32_t)(y1 - y0)};
	*out = scr;
	return rect_clip(out, (int32_t)v->sw, (int32_t)v->sh);
}

static int32_t axis_to_remote(uint32_t n, uint32_t d, int32_t off, int32_t s)
{
	int64_t x = (int64_t)s - off;

	if (!n || !d)
		return 0;
	if (x < 0)
		x = 0;
	if (x >= d)
		x = d - 1;
	/* The centre of desktop pixel x is at (x + 1/2) * n / d. */
	return (int32_t)(((2 * x + 1) * (int64_t)n) / (2 * (int64_t)d));
}

void view_screen_to_remote(const struct view *v, int32_t sx, int32_t sy,
			   int32_t *rx, int32_t *ry)
{
	*rx = axis_to_remote(v->rw, v->dw, v->dx, sx);
	*ry = axis_to_remote(v->rh, v->dh, v->dy, sy);
}

bool view_desktop(const struct view *v, struct rect *out)
{
	*out = (struct rect){v->dx, v->dy, (int32_t)v->dw, (int32_t)v->dh};
	return rect_clip(out, (int32_t)v->sw, (int32_t)v->sh);
}

bool view_identity(const struct view *v)
{
	return v->dw == v->rw && v->dh == v->rh;
}
