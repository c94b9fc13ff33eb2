/* wsmouse event accumulation (portable). */
#include "config.h"

#include <limits.h>
#include <string.h>

#include "wsmouse_acc.h"

/* Absolute range assumed when the driver reports no calibration: the
 * 15-bit range USB tablets (and QEMU's) use. */
#define DEFAULT_ABS_MAX 32767
#define DEFAULT_SCROLL_DIST 12

void wsmouse_acc_init(struct wsmouse_acc *m)
{
	memset(m, 0, sizeof(*m));
	m->maxx = m->maxy = DEFAULT_ABS_MAX;
	m->hscroll_dist = m->vscroll_dist = DEFAULT_SCROLL_DIST;
}

static int add_sat(int a, int b)
{
	long long s = (long long)a + b;

	if (s > INT_MAX / 2)
		return INT_MAX / 2;
	if (s < INT_MIN / 2)
		return INT_MIN / 2;
	return (int)s;
}

static double frac(int v, int lo, int hi)
{
	if (hi <= lo)
		return 0;
	if (v <= lo)
		return 0;
	if (v >= hi)
		return 1;
	return (double)(v - lo) / (double)(hi - lo);
}

void wsmouse_acc_flush(struct wsmouse_acc *m, const struct input_sink *sink)
{
	if (m->dx || m->dy) {
		sink->motion_rel(sink->ctx, m->dx, m->dy);
		m->dx = m->dy = 0;
	}
	if (m->abs_pending && m->have_ax && m->have_ay) {
		double fx = frac(m->ax, m->minx, m->maxx);
		double fy = frac(m->ay, m->miny, m->maxy);

		if (m->swapxy)
			sink->motion_abs(sink->ctx, fy, fx);
		else
			sink->motion_abs(sink->ctx, fx, fy);
	}
	m->abs_pending = false;
}

static void click(const struct input_sink *sink, int button)
{
	sink->button(sink->ctx, button, true);
	sink->button(sink->ctx, button, false);
}

/* Wheel: negative Z is away from the user (RFB button 4, up), negative W
 * is left (button 6), as X's wsmouse driver maps them. */
static void wheel(const struct input_sink *sink, int v, int neg, int pos)
{
	int n = v < 0 ? -v : v;

	if (n > 64)
		n = 64; /* a runaway value must not flood the server */
	while (n-- > 0)
		click(sink, v < 0 ? neg : pos);
}

static void scroll(int *acc, int dist, int v, const struct input_sink *sink,
		   int neg, int pos)
{
	*acc = add_sat(*acc, v);
	if (dist <= 0)
		dist = DEFAULT_SCROLL_DIST;
	while (*acc >= dist) {
		*acc -= dist;
		click(sink, pos);
	}
	while (*acc <= -dist) {
		*acc += dist;
		click(sink, neg);
	}
}

void wsmouse_acc_event(struct wsmouse_acc *m, unsigned type, int value,
		       const struct input_sink *sink)
{
	switch (type) {
	case WSEV_MOUSE_DELTA_X:
		m->dx = add_sat(m->dx, value);
		break;
	case WSEV_MOUSE_DELTA_Y:
		/* wscons Y grows upwards, the screen's downwards. */
		m->dy = add_sat(m->dy, value == INT_MIN ? INT_MAX : -value);
		break;
	case WSEV_MOUSE_ABSOLUTE_X:
		m->ax = value;
		m->have_ax = true;
		m->abs_pending = true;
		break;
	case WSEV_MOUSE_ABSOLUTE_Y:
		m->ay = value;
		m->have_ay = true;
		m->abs_pending = true;
		break;
	case WSEV_MOUSE_DOWN:
	case WSEV_MOUSE_UP:
		wsmouse_acc_flush(m, sink);
		/* wscons numbers buttons from 0 (left, middle, right, then
		 * the side buttons, as ums(4) passes on a mouse's HID
		 * buttons 4 and 5: back, forward); RFB from 1, 4..7 being
		 * wheel directions, 8 and 9 back and forward. */
		if (value >= 0 && value <= 2)
			sink->button(sink->ctx, value + 1,
				     type == WSEV_MOUSE_DOWN);
		else if (value == 3 || value == 4)
			sink->button(sink->ctx, value + 5,
				     type == WSEV_MOUSE_DOWN);
		break;
	case WSEV_MOUSE_DELTA_Z:
		wsmouse_acc_flush(m, sink);
		wheel(sink, value, 4, 5);
		break;
	case WSEV_MOUSE_DELTA_W:
		wsmouse_acc_flush(m, sink);
		wheel(sink, value, 6, 7);
		break;
	case WSEV_VSCROLL:
		wsmouse_acc_flush(m, sink);
		scroll(&m->vscroll, m->vscroll_dist, value, sink, 4, 5);
		break;
	case WSEV_HSCROLL:
		wsmouse_acc_flush(m, sink);
		scroll(&m->hscroll, m->hscroll_dist, value, sink, 6, 7);
		break;
	default:
		/* ABSOLUTE_Z/W (tablet pressure, wheels that report a
		 * position) carry no RFB meaning. */
		break;
	}
}
