/* What the Linux console parts share among themselves and with their unit
 * tests: the drm and fbdev outputs, the evdev input, and the pure
 * translation of evdev events (keys through xkb, pointer motion and
 * buttons, a multi-touch screen's slots).
 *
 * Threads: main thread only. */
#ifndef VNCFB_FBDEV_H
#define VNCFB_FBDEV_H

#include <linux/input.h>
#include <stdbool.h>
#include <stdint.h>

#include "input/gesture.h"
#include "platform/input.h"
#include "output/output.h"
#include "shadow/pixfmt.h"

extern const struct output_impl drm_output_impl;
extern const struct output_impl fbdev_output_impl;
extern const struct input_impl evdev_input_impl;

/* Why open(path) failed with err, as one line for the user (devnode.c):
 * what the node should be ("framebuffer"), what to check when it is
 * missing, the group to join when access is denied. */
void devnode_open_error(const char *path, int err, const char *what,
			const char *absent_hint, char *buf, size_t len);

/* A framebuffer's bitfields as a pixfmt (host byte order). 0 or
 * -ENOTSUP. */
int fbdev_format_from_bitfields(unsigned bpp, unsigned r_off, unsigned r_len,
				unsigned g_off, unsigned g_len, unsigned b_off,
				unsigned b_len, struct pixfmt *f);

/* --- keyboard translation (kbd.c) --- */

/* The QEMU/XT scancode of an evdev key code (0xe0-prefixed codes as
 * 0x80|code), or 0 when it has none. */
uint32_t kbd_xt_scancode(unsigned code);

enum kbd_action {
	KBD_NONE,      /* nothing to send */
	KBD_SEND,      /* send keysym/scancode/down */
	KBD_VT_SWITCH, /* local hotkey: switch to VT vt */
	KBD_QUIT,      /* the quit chord */
	KBD_PAN,       /* local hotkey: pan the view by pan_dx, pan_dy */
	KBD_SCALE,     /* local hotkey: toggle the scale (input_sink.scale) */
};

struct kbd_result {
	enum kbd_action action;
	uint32_t keysym;
	uint32_t scancode;
	bool down;
	int vt;
	int pan_dx, pan_dy; /* steps of 1/8 screen (input_sink.pan) */
};

struct kbd;

/* keymap: "layout[:variant]" or NULL for $XKB_DEFAULT_LAYOUT (else us).
 * NULL on failure (logged: unknown layout, missing xkb data). */
struct kbd *kbd_create(const char *keymap);
void kbd_destroy(struct kbd *k);
/* One EV_KEY event (value 0 up, 1 down, 2 repeat). */
struct kbd_result kbd_feed(struct kbd *k, unsigned code, int value);
/* Release every key sent as down (e.g. before a VT switch), calling fn
 * for each, and forget the modifier state. */
void kbd_release_all(struct kbd *k,
		     void (*fn)(void *ctx, uint32_t keysym, uint32_t scancode),
		     void *ctx);

/* --- pointer translation (ptr.c) --- */

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

/* --- multi-touch slots (touch.c) --- */

/* Slots followed; a device's further ones are left alone. */
#define TOUCH_MAX_SLOTS GESTURE_MAX_TOUCHES

/* A type B multi-touch screen: its slots, and the recogniser they feed. */
struct touch;

/* nslots: ABS_MT_SLOT's maximum + 1. NULL when out of memory. */
struct touch *touch_create(const struct gesture_geom *geom, unsigned nslots);
void touch_destroy(struct touch *t);
struct gesture *touch_gesture(struct touch *t);
/* The device's state when it was opened (libevdev's): the slot events
 * go to, and each slot's contact (id -1: none). */
void touch_select(struct touch *t, int slot);
void touch_set_slot(struct touch *t, int slot, int id, int x, int y);
/* The events' own times are CLOCK_MONOTONIC's (EVIOCSCLOCKID took):
 * frames are timed by them, else by the now touch_feed is given. */
void touch_set_monotonic(struct touch *t, bool mono);
/* Feed one event read at now (monotonic ns); on SYN_REPORT the contacts
 * go to the recogniser as a frame, with sink (NULL: the console is
 * away). */
void touch_feed(struct touch *t, const struct input_event *ev, uint64_t now,
		const struct input_sink *sink);

#endif
