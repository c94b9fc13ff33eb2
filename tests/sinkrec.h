/* An input_sink (platform/input.h) for the tests of what input events
 * become: each call is appended to sinkrec_events (check.h's log_append)
 * as "key:SYM:SCAN:down|up", "rel:DX,DY", "at:X,Y" (the fractions times
 * sinkrec_scale, rounded, so a test reads its device's units again) or
 * "bN:down|up"; turns() answers sinkrec_turns. Include after check.h. */
#ifndef VNCFB_TESTS_SINKREC_H
#define VNCFB_TESTS_SINKREC_H

#include "platform/input.h"

static char sinkrec_events[8192];
static double sinkrec_scale = 1;
static unsigned sinkrec_turns;

static void sinkrec_key(void *ctx, uint32_t keysym, uint32_t scancode,
			bool down)
{
	(void)ctx;
	log_append(sinkrec_events, sizeof(sinkrec_events), "key:%x:%x:%s",
		   keysym, scancode, down ? "down" : "up");
}

static void sinkrec_rel(void *ctx, int dx, int dy)
{
	(void)ctx;
	log_append(sinkrec_events, sizeof(sinkrec_events), "rel:%d,%d", dx, dy);
}

static void sinkrec_abs(void *ctx, double fx, double fy)
{
	(void)ctx;
	log_append(sinkrec_events, sizeof(sinkrec_events), "at:%.0f,%.0f",
		   fx * sinkrec_scale, fy * sinkrec_scale);
}

static void sinkrec_button(void *ctx, int button, bool down)
{
	(void)ctx;
	log_append(sinkrec_events, sizeof(sinkrec_events), "b%d:%s", button,
		   down ? "down" : "up");
}

static void sinkrec_quit(void *ctx)
{
	(void)ctx;
}

static unsigned sinkrec_turns_of(void *ctx)
{
	(void)ctx;
	return sinkrec_turns;
}

static const struct input_sink sinkrec = {
    .key = sinkrec_key,
    .motion_rel = sinkrec_rel,
    .motion_abs = sinkrec_abs,
    .button = sinkrec_button,
    .quit = sinkrec_quit,
    .turns = sinkrec_turns_of,
};

#endif
