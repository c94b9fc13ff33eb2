/* A multi-touch screen's type B slots, frame by frame, into the gesture
 * recogniser (client/input/gesture.h); pure, kept apart from the device
 * so it is unit-tested.
 *
 * Threads: one struct touch per thread (the main thread's). */
#ifndef VNCFB_FBDEV_TOUCH_H
#define VNCFB_FBDEV_TOUCH_H

#include <linux/input.h>
#include <stdbool.h>
#include <stdint.h>

#include "input/gesture.h"
#include "platform/input.h"

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
