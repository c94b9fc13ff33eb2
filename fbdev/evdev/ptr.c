/* evdev pointer events to RFB motion and buttons, one frame (SYN_REPORT)
 * at a time. Pure: no devices, unit-tested. */
#include "config.h"

#include <string.h>

#include "fbdev.h"

int ptr_button(unsigned code)
{
	switch (code) {
	case BTN_LEFT:
	case BTN_TOUCH: /* touch screens, pen tips */
		return 1;
	case BTN_MIDDLE:
		return 2;
	case BTN_RIGHT:
	case BTN_STYLUS: /* pen side button: context menu */
		return 3;
	/* Back and forward: mice report the side buttons, some the
	 * dedicated codes. They reach the server only in
	 * ExtendedMouseButtons' PointerEvent (net/vnc_msg.h). */
	case BTN_SIDE:
	case BTN_BACK:
		return 8;
	case BTN_EXTRA:
	case BTN_FORWARD:
		return 9;
	default:
		return 0;
	}
}

double ptr_fraction(int value, int min, int max)
{
	if (max <= min)
		return 0;
	if (value <= min)
		return 0;
	if (value >= max)
		return 1;
	return (double)((long long)value - min) / ((long long)max - min);
}

void ptr_init_rel(struct ptr *p)
{
	memset(p, 0, sizeof(*p));
}

void ptr_init_abs(struct ptr *p, int x_code, int min_x, int max_x, int y_code,
		  int min_y, int max_y)
{
	memset(p, 0, sizeof(*p));
	p->absolute = true;
	p->abs_x_code = x_code;
	p->abs_y_code = y_code;
	p->min_x = min_x;
	p->max_x = max_x;
	p->min_y = min_y;
	p->max_y = max_y;
	p->x = min_x;
	p->y = min_y;
}

/* Pointer pixels per millimetre of finger travel. */
#define TOUCHPAD_PX_PER_MM 6.0
/* Without a resolution: the pad's width is this many pixels. */
#define TOUCHPAD_WIDTH_PX 1200.0

static double pad_scale(int min, int max, int res)
{
	if (res > 0)
		return TOUCHPAD_PX_PER_MM / res;
	if (max > min)
		return TOUCHPAD_WIDTH_PX / ((double)max - min);
	return 1.0;
}

void ptr_init_touchpad(struct ptr *p, int min_x, int max_x, int res_x,
		       int min_y, int max_y, int res_y)
{
	ptr_init_abs(p, ABS_X, min_x, max_x, ABS_Y, min_y, max_y);
	p->absolute = false;
	p->touchpad = true;
	p->scale_x = pad_scale(min_x, max_x, res_x);
	/* Without resolutions, the same scale both ways keeps a circle
	 * round (most pads have square units). */
	p->scale_y = res_y > 0 && res_x > 0 ? pad_scale(min_y, max_y, res_y)
					    : p->scale_x;
}

/* Finger motion on a touchpad, in device units, to whole pixels. The
 * position is tracked all the time; it moves the pointer only while a
 * finger is down, and not in the frame where it lands (whether the kernel
 * reports the landing point before or after BTN_TOUCH). */
static void pad_move(struct ptr *p, int code, int value)
{
	bool x = code == ABS_X;
	int *last = x ? &p->x : &p->y;
	double *rem = x ? &p->rem_x : &p->rem_y;
	double v;

	if (p->touching && !p->landing) {
		v = (double)(value - *last) * (x ? p->scale_x : p->scale_y) +
		    *rem;
		if (x)
			p->dx += (int)v;
		else
			p->dy += (int)v;
		*rem = v - (int)v;
	}
	*last = value;
}

static void queue_button(struct ptr *p, int button, bool down)
{
	/* A frame holds a handful of button changes; more than that is a
	 * broken device, and the extra ones are dropped. */
	if (p->nbtn >= PTR_MAX_QUEUED)
		return;
	p->btn[p->nbtn].button = (uint8_t)button;
	p->btn[p->nbtn].down = down;
	p->nbtn++;
}

static void clicks(const struct input_sink *sink, int n, int neg, int pos)
{
	int b = n < 0 ? neg : pos;

	if (n < 0)
		n = -n;
	/* Bounded: a burst of notches in one frame is still a few. */
	if (n > 32)
		n = 32;
	while (n-- > 0) {
		sink->button(sink->ctx, b, true);
		sink->button(sink->ctx, b, false);
	}
}

static void flush_frame(struct ptr *p, const struct input_sink *sink)
{
	int i;

	if (p->dx || p->dy)
		sink->motion_rel(sink->ctx, p->dx, p->dy);
	if (p->moved_abs)
		sink->motion_abs(sink->ctx,
				 ptr_fraction(p->x, p->min_x, p->max_x),
				 ptr_fraction(p->y, p->min_y, p->max_y));
	for (i = 0; i < p->nbtn; i++)
		sink->button(sink->ctx, p->btn[i].button, p->btn[i].down);
	/* REL_WHEEL: positive is away from the user = up = button 4.
	 * REL_HWHEEL: positive is right = button 7. */
	clicks(sink, p->wheel_v, 5, 4);
	clicks(sink, p->wheel_h, 6, 7);
	p->dx = p->dy = 0;
	p->moved_abs = false;
	p->nbtn = 0;
	p->wheel_v = p->wheel_h = 0;
}

void ptr_feed(struct ptr *p, const struct input_event *ev,
	      const struct input_sink *sink)
{
	int b;

	switch (ev->type) {
	case EV_REL:
		if (ev->code == REL_X)
			p->dx += ev->value;
		else if (ev->code == REL_Y)
			p->dy += ev->value;
		else if (ev->code == REL_WHEEL)
			p->wheel_v += ev->value;
		else if (ev->code == REL_HWHEEL)
			p->wheel_h += ev->value;
		break;
	case EV_ABS:
		if (p->touchpad && (ev->code == ABS_X || ev->code == ABS_Y)) {
			pad_move(p, ev->code, ev->value);
			break;
		}
		if (!p->absolute)
			break;
		if (ev->code == p->abs_x_code) {
			p->x = ev->value;
			p->moved_abs = true;
		} else if (ev->code == p->abs_y_code) {
			p->y = ev->value;
			p->moved_abs = true;
		}
		break;
	case EV_KEY:
		if (p->touchpad && ev->code == BTN_TOUCH) {
			/* A new touch starts where the finger lands. */
			p->touching = ev->value != 0;
			p->landing = p->touching;
			p->rem_x = p->rem_y = 0;
			break;
		}
		b = ptr_button(ev->code);
		/* value 2 (autorepeat) is not a new press. */
		if (b && ev->value != 2)
			queue_button(p, b, ev->value != 0);
		break;
	case EV_SYN:
		if (ev->code == SYN_REPORT) {
			flush_frame(p, sink);
			p->landing = false;
		}
		break;
	default:
		break;
	}
}
