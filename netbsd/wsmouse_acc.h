/* wsmouse events to pointer motion, buttons and wheel clicks: one read's
 * events are summed and sent as one motion, flushed before each button so
 * a click lands where the pointer was. No NetBSD headers (the event type
 * numbers are carried here; wscons_input.c checks them). Main thread. */
#ifndef VNCFB_NETBSD_WSMOUSE_ACC_H
#define VNCFB_NETBSD_WSMOUSE_ACC_H

#include <stdbool.h>
#include <stdint.h>

#include "platform/input.h"

/* WSCONS_EVENT_* of <dev/wscons/wsconsio.h>. */
enum {
	WSEV_KEY_UP = 1,
	WSEV_KEY_DOWN = 2,
	WSEV_ALL_KEYS_UP = 3,
	WSEV_MOUSE_UP = 4,
	WSEV_MOUSE_DOWN = 5,
	WSEV_MOUSE_DELTA_X = 6,
	WSEV_MOUSE_DELTA_Y = 7,
	WSEV_MOUSE_ABSOLUTE_X = 8,
	WSEV_MOUSE_ABSOLUTE_Y = 9,
	WSEV_MOUSE_DELTA_Z = 10,
	WSEV_MOUSE_ABSOLUTE_Z = 11,
	WSEV_SCREEN_SWITCH = 12,
	WSEV_ASCII = 13,
	WSEV_MOUSE_DELTA_W = 14,
	WSEV_MOUSE_ABSOLUTE_W = 15,
	WSEV_HSCROLL = 16,
	WSEV_VSCROLL = 17,
};

struct wsmouse_acc {
	/* Absolute range (WSMOUSEIO_GCALIBCOORDS); max <= min: unknown. */
	int minx, maxx, miny, maxy;
	bool swapxy;
	/* Precision-scroll units per wheel click (WSMOUSECFG_*SCROLLDIST). */
	int hscroll_dist, vscroll_dist;
	/* pending */
	int dx, dy; /* screen pixels, y down */
	bool abs_pending;
	int ax, ay; /* last absolute position, device units */
	bool have_ax, have_ay;
	int hscroll, vscroll; /* precision-scroll remainders */
};

void wsmouse_acc_init(struct wsmouse_acc *m);
/* Feed one wscons event; sends what must go out now (buttons, wheel
 * clicks, motion before them). */
void wsmouse_acc_event(struct wsmouse_acc *m, unsigned type, int value,
		       const struct input_sink *sink);
/* Send pending motion (end of a read). */
void wsmouse_acc_flush(struct wsmouse_acc *m, const struct input_sink *sink);

#endif
