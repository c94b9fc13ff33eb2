/* A multi-touch screen's type B slots to gesture frames
 * (fbdev/evdev/touch.c): raw evdev events with their own times, as a
 * kernel sends them, give the clicks and the wheel of the gestures they
 * draw; slots switched mid-frame, a contact that was down when the
 * device was opened, a slot past those followed, and frames timed by the
 * events' clock or by the time they were read. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "evdev/touch.h"
#include "../check.h"
#include "../sinkrec.h"

#define MS 1000000ull
#define MAXV 4095

/* The events' clock, ms. */
static uint64_t clock_ms;

static void ev(struct touch *t, int type, int code, int value)
{
	struct input_event e;

	memset(&e, 0, sizeof(e));
	e.input_event_sec = (time_t)(clock_ms / 1000);
	e.input_event_usec = (suseconds_t)(clock_ms % 1000 * 1000);
	e.type = (unsigned short)type;
	e.code = (unsigned short)code;
	e.value = value;
	/* Read a second later than it happened: the event's time counts. */
	touch_feed(t, &e, (clock_ms + 1000) * MS, &sinkrec);
}

static void syn(struct touch *t)
{
	ev(t, EV_SYN, SYN_REPORT, 0);
}

static void finger(struct touch *t, int slot, int id, int x, int y)
{
	ev(t, EV_ABS, ABS_MT_SLOT, slot);
	if (id != -2)
		ev(t, EV_ABS, ABS_MT_TRACKING_ID, id);
	if (id != -1) {
		ev(t, EV_ABS, ABS_MT_POSITION_X, x);
		ev(t, EV_ABS, ABS_MT_POSITION_Y, y);
	}
}

/* 4096 units over 204.8 mm: 20 a millimetre. */
static struct touch *screen(unsigned slots)
{
	struct gesture_geom g = {0, MAXV, 0, MAXV, 20, 20};
	struct touch *t = touch_create(&g, slots);

	CHECK(t != NULL);
	touch_set_monotonic(t, true);
	sinkrec_events[0] = 0;
	clock_ms = 1000;
	return t;
}

static unsigned count(const char *s, const char *what)
{
	unsigned n = 0;

	while ((s = strstr(s, what))) {
		n++;
		s += strlen(what);
	}
	return n;
}

static void expect(const char *want, const char *what)
{
	CHECK(!strcmp(sinkrec_events, want), "%s:\n  got  %s\n  want %s", what,
	      sinkrec_events, want);
}

static void test_taps(void)
{
	struct touch *t = screen(10);

	/* One finger, with the single-touch emulation a real screen
	 * sends alongside (ignored). */
	finger(t, 0, 100, 1000, 2000);
	ev(t, EV_KEY, BTN_TOUCH, 1);
	ev(t, EV_ABS, ABS_X, 1000);
	syn(t);
	clock_ms += 60;
	finger(t, 0, -1, 0, 0);
	ev(t, EV_KEY, BTN_TOUCH, 0);
	syn(t);
	expect("at:1000,2000 b1:down b1:up", "a tap");
	/* Two fingers in slots 3 and 1, lifted in two frames. */
	sinkrec_events[0] = 0;
	clock_ms += 2000;
	finger(t, 3, 101, 1000, 1000);
	finger(t, 1, 102, 2000, 3000);
	syn(t);
	clock_ms += 100;
	finger(t, 3, -1, 0, 0);
	syn(t);
	clock_ms += 20;
	finger(t, 1, -1, 0, 0);
	syn(t);
	expect("at:1500,2000 b3:down b3:up", "a two-finger tap");
	/* A position alone (no ABS_MT_SLOT) goes to the slot last
	 * selected: slot 1's finger moves. */
	sinkrec_events[0] = 0;
	clock_ms += 2000;
	finger(t, 1, 103, 2000, 2000);
	syn(t);
	clock_ms += 20;
	ev(t, EV_ABS, ABS_MT_POSITION_X, 2000 + 20 * 10);
	syn(t);
	clock_ms += 20;
	finger(t, 1, -1, 0, 0);
	syn(t);
	expect("at:2000,2000 b1:down at:2200,2000 at:2200,2000 b1:up",
	       "a drag in the selected slot");
	touch_destroy(t);
}

/* Two fingers down 30 mm together: two notches of wheel up; the long
 * press's second is the events' time, not the reading's. */
static void test_scroll_and_press(void)
{
	struct touch *t = screen(2);
	int i;

	for (i = 0; i <= 6; i++) {
		finger(t, 0, i ? -2 : 7, 1000, 1000 + i * 100);
		finger(t, 1, i ? -2 : 8, 2000, 1000 + i * 100);
		syn(t);
		clock_ms += 10;
	}
	finger(t, 0, -1, 0, 0);
	finger(t, 1, -1, 0, 0);
	syn(t);
	CHECK(count(sinkrec_events, "b4:down b4:up") == 2 &&
		  !strstr(sinkrec_events, "b1") &&
		  !strstr(sinkrec_events, "b5") &&
		  !strstr(sinkrec_events, "b6") &&
		  !strstr(sinkrec_events, "b7"),
	      "scroll: %s", sinkrec_events);
	sinkrec_events[0] = 0;
	clock_ms += 2000;
	finger(t, 0, 9, 500, 500);
	syn(t);
	/* Read a second after it happened: due at once. */
	CHECK_EQ(gesture_deadline(touch_gesture(t)), (clock_ms + 1000) * MS);
	clock_ms += 1200;
	finger(t, 0, -1, 0, 0);
	syn(t);
	expect("at:500,500 b3:down b3:up", "a long press");
	touch_destroy(t);
}

/* A contact that was down at open, a third slot on a two-slot screen,
 * and frames timed as read when the clock could not be set. */
static void test_state(void)
{
	struct touch *t = screen(2);

	touch_set_slot(t, 0, 50, 3000, 3000);
	touch_select(t, 0);
	/* Slot 5 is not followed: nothing it does counts. */
	finger(t, 5, 51, 100, 100);
	syn(t);
	clock_ms += 50;
	finger(t, 5, -1, 0, 0);
	syn(t);
	/* The finger down since open landed, as far as the recogniser
	 * knows, in the first frame: lifted 50 ms later, a tap. */
	finger(t, 0, -1, 0, 0);
	syn(t);
	expect("at:3000,3000 b1:down b1:up", "slots kept and ignored");
	touch_destroy(t);

	t = screen(2);
	touch_set_monotonic(t, false);
	finger(t, 0, 60, 100, 100);
	syn(t);
	/* Timed by the reading (a second after the event). */
	CHECK_EQ(gesture_deadline(touch_gesture(t)), (clock_ms + 2000) * MS);
	touch_destroy(t);
	touch_destroy(NULL);
}

int main(void)
{
	sinkrec_scale = MAXV;
	test_taps();
	test_scroll_and_press();
	test_state();
	return check_done("touch");
}
