/* Pointer events to RFB motion and buttons: mice, tablets, touchscreens
 * and touchpads, one struct ptr per device between SYN_REPORTs; pure,
 * kept apart from the devices so it is unit-tested.
 *
 * Threads: one struct ptr per thread (the main thread's). */
#ifndef VNCFB_FBDEV_PTR_H
#define VNCFB_FBDEV_PTR_H

#include <linux/input.h>
#include <stdbool.h>
#include <stdint.h>

#include "platform/input.h"

#define PTR_MAX_QUEUED 16

/* One pointing device's state between SYN_REPORTs. */
struct ptr {
	bool absolute;
	/* Touchpad: absolute positions, but finger motion moves the
	 * pointer relatively (scale pixels per device unit); BTN_TOUCH is
	 * contact, not a click. */
	bool touchpad;
	bool touching, landing;
	double scale_x, scale_y;
	double rem_x, rem_y;	    /* sub-pixel motion carried over */
	int abs_x_code, abs_y_code; /* ABS_X/ABS_Y or the MT pair */
	int min_x, max_x, min_y, max_y;
	int x, y; /* last absolute position */
	bool moved_abs;
	int dx, dy;	      /* relative motion this frame */
	int wheel_v, wheel_h; /* notches this frame */
	int nbtn;
	struct {
		uint8_t button;
		bool down;
	} btn[PTR_MAX_QUEUED];
};

/* The RFB button (1-3, 8 back, 9 forward) of an evdev button code, or 0. */
int ptr_button(unsigned code);
/* value within [min, max] as 0..1 (clamped; 0 for an empty range). */
double ptr_fraction(int value, int min, int max);
void ptr_init_rel(struct ptr *p);
void ptr_init_abs(struct ptr *p, int x_code, int min_x, int max_x, int y_code,
		  int min_y, int max_y);
/* A touchpad with ABS_X/ABS_Y ranges and resolutions (units per mm, 0 when
 * unknown). */
void ptr_init_touchpad(struct ptr *p, int min_x, int max_x, int res_x,
		       int min_y, int max_y, int res_y);
/* Feed one event; on SYN_REPORT the frame goes to sink: motion first,
 * then buttons in order, then wheel clicks (press and release of 4/5,
 * 6/7). */
void ptr_feed(struct ptr *p, const struct input_event *ev,
	      const struct input_sink *sink);

#endif
