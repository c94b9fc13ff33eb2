/* A multi-touch screen's type B slots (ABS_MT_SLOT, ABS_MT_TRACKING_ID,
 * ABS_MT_POSITION_X/Y) to frames of contacts for the gesture recogniser
 * (client/input/gesture.h), one frame a SYN_REPORT. Pure: no devices,
 * unit-tested. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "evdev/touch.h"

struct touch {
	struct gesture *g;
	int slot; /* the slot events go to, -1: one past those kept */
	unsigned nslots;
	struct {
		int id; /* tracking id, -1: no contact */
		int x, y;
	} s[TOUCH_MAX_SLOTS];
	bool mono; /* the events' times are CLOCK_MONOTONIC's */
};

struct touch *touch_create(const struct gesture_geom *geom, unsigned nslots)
{
	struct touch *t = calloc(1, sizeof(*t));
	unsigned i;

	if (!t)
		return NULL;
	t->g = gesture_create(geom);
	if (!t->g) {
		free(t);
		return NULL;
	}
	t->nslots = nslots < TOUCH_MAX_SLOTS ? nslots : TOUCH_MAX_SLOTS;
	for (i = 0; i < TOUCH_MAX_SLOTS; i++)
		t->s[i].id = -1;
	return t;
}

void touch_destroy(struct touch *t)
{
	if (!t)
		return;
	gesture_destroy(t->g);
	free(t);
}

struct gesture *touch_gesture(struct touch *t)
{
	return t->g;
}

void touch_set_slot(struct touch *t, int slot, int id, int x, int y)
{
	if (slot < 0 || (unsigned)slot >= t->nslots)
		return;
	t->s[slot].id = id;
	t->s[slot].x = x;
	t->s[slot].y = y;
}

void touch_select(struct touch *t, int slot)
{
	t->slot = slot >= 0 && (unsigned)slot < t->nslots ? slot : -1;
}

void touch_set_monotonic(struct touch *t, bool mono)
{
	t->mono = mono;
}

static void frame(struct touch *t, uint64_t now, const struct input_sink *sink)
{
	struct gesture_touch c[TOUCH_MAX_SLOTS];
	unsigned i, n = 0;

	for (i = 0; i < t->nslots; i++) {
		if (t->s[i].id < 0)
			continue;
		c[n].id = t->s[i].id;
		c[n].x = t->s[i].x;
		c[n].y = t->s[i].y;
		n++;
	}
	gesture_frame(t->g, c, n, now, sink);
}

void touch_feed(struct touch *t, const struct input_event *ev, uint64_t now,
		const struct input_sink *sink)
{
	if (t->mono)
		now = (uint64_t)ev->input_event_sec * 1000000000ull +
		      (uint64_t)ev->input_event_usec * 1000u;
	if (ev->type == EV_SYN && ev->code == SYN_REPORT) {
		frame(t, now, sink);
		return;
	}
	if (ev->type != EV_ABS)
		return;
	if (ev->code == ABS_MT_SLOT) {
		touch_select(t, ev->value);
		return;
	}
	if (t->slot < 0)
		return;
	switch (ev->code) {
	case ABS_MT_TRACKING_ID:
		/* A new id in a slot still holding one is a lift and a
		 * landing in one frame: the recogniser sees the new one. */
		t->s[t->slot].id = ev->value < 0 ? -1 : ev->value;
		break;
	case ABS_MT_POSITION_X:
		t->s[t->slot].x = ev->value;
		break;
	case ABS_MT_POSITION_Y:
		t->s[t->slot].y = ev->value;
		break;
	default:
		break;
	}
}
