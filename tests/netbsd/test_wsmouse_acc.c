/* wsmouse events to pointer motion, buttons and wheel clicks. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "platform/input.h"
#include "wsmouse_acc.h"

#include "../check.h"

/* What the sink saw, as text: "r5,-3 b1+ b1- a0.50,1.00 ..." */
static char log_buf[4096];

static void put(const char *s)
{
	size_t n = strlen(log_buf);

	snprintf(log_buf + n, sizeof(log_buf) - n, "%s%s", n ? " " : "", s);
}

static void s_key(void *c, uint32_t k, uint32_t sc, bool d)
{
	put("key");
}

static void s_rel(void *c, int dx, int dy)
{
	char b[32];

	snprintf(b, sizeof(b), "r%d,%d", dx, dy);
	put(b);
}

static void s_abs(void *c, double fx, double fy)
{
	char b[32];

	snprintf(b, sizeof(b), "a%.2f,%.2f", fx, fy);
	put(b);
}

static void s_button(void *c, int button, bool down)
{
	char b[16];

	snprintf(b, sizeof(b), "b%d%c", button, down ? '+' : '-');
	put(b);
}

static void s_quit(void *c)
{
	put("quit");
}

static const struct input_sink sink = {NULL,  s_key,	s_rel,
				       s_abs, s_button, s_quit};

static void feed(struct wsmouse_acc *m, unsigned type, int value)
{
	wsmouse_acc_event(m, type, value, &sink);
}

static void expect(const char *want)
{
	if (strcmp(log_buf, want) != 0) {
		fprintf(stderr, "got  '%s'\nwant '%s'\n", log_buf, want);
		failures++;
	}
	log_buf[0] = '\0';
}

int main(void)
{
	struct wsmouse_acc m;
	int i;

	wsmouse_acc_init(&m);

	/* one read: deltas summed, Y flipped to screen direction */
	feed(&m, WSEV_MOUSE_DELTA_X, 5);
	feed(&m, WSEV_MOUSE_DELTA_Y, 3);
	feed(&m, WSEV_MOUSE_DELTA_X, 2);
	feed(&m, WSEV_MOUSE_DELTA_Y, -10);
	expect("");
	wsmouse_acc_flush(&m, &sink);
	expect("r7,7");
	wsmouse_acc_flush(&m, &sink);
	expect("");

	/* motion before a click goes out first */
	feed(&m, WSEV_MOUSE_DELTA_X, -4);
	feed(&m, WSEV_MOUSE_DOWN, 0);
	feed(&m, WSEV_MOUSE_UP, 0);
	feed(&m, WSEV_MOUSE_DOWN, 2);
	feed(&m, WSEV_MOUSE_DOWN, 1);
	feed(&m, WSEV_MOUSE_UP, 1);
	feed(&m, WSEV_MOUSE_UP, 2);
	wsmouse_acc_flush(&m, &sink);
	expect("r-4,0 b1+ b1- b3+ b2+ b2- b3-");

	/* side buttons (back, forward) and unknown buttons */
	feed(&m, WSEV_MOUSE_DOWN, 3);
	feed(&m, WSEV_MOUSE_DOWN, 4);
	feed(&m, WSEV_MOUSE_UP, 4);
	feed(&m, WSEV_MOUSE_DOWN, 7);
	feed(&m, WSEV_MOUSE_DOWN, -1);
	expect("b8+ b9+ b9-");

	/* wheel: Z negative is up (4), W positive is right (7) */
	feed(&m, WSEV_MOUSE_DELTA_Z, -2);
	expect("b4+ b4- b4+ b4-");
	feed(&m, WSEV_MOUSE_DELTA_Z, 1);
	expect("b5+ b5-");
	feed(&m, WSEV_MOUSE_DELTA_W, 1);
	feed(&m, WSEV_MOUSE_DELTA_W, -1);
	expect("b7+ b7- b6+ b6-");
	/* a runaway wheel value is capped */
	feed(&m, WSEV_MOUSE_DELTA_Z, 1000000);
	for (i = 0; log_buf[i]; i++)
		;
	CHECK(i == 64 * 8 - 1);
	log_buf[0] = '\0';

	/* precision scrolling: whole clicks, remainder kept */
	m.vscroll_dist = 12;
	feed(&m, WSEV_VSCROLL, 30);
	expect("b5+ b5- b5+ b5-");
	feed(&m, WSEV_VSCROLL, 6);
	expect("b5+ b5-");
	feed(&m, WSEV_VSCROLL, -11);
	expect("");
	feed(&m, WSEV_VSCROLL, -1);
	expect("b4+ b4-");
	m.hscroll_dist = 0; /* nonsense from a driver: default used */
	feed(&m, WSEV_HSCROLL, -12);
	expect("b6+ b6-");

	/* absolute: default 0..32767 range, both axes needed */
	feed(&m, WSEV_MOUSE_ABSOLUTE_X, 16384);
	wsmouse_acc_flush(&m, &sink);
	expect("");
	feed(&m, WSEV_MOUSE_ABSOLUTE_Y, 32767);
	wsmouse_acc_flush(&m, &sink);
	expect("a0.50,1.00");
	/* one axis moves: the other keeps its place */
	feed(&m, WSEV_MOUSE_ABSOLUTE_X, 0);
	feed(&m, WSEV_MOUSE_DOWN, 0);
	expect("a0.00,1.00 b1+");
	/* calibrated range, clamped outside it */
	m.minx = 100;
	m.maxx = 300;
	m.miny = 0;
	m.maxy = 100;
	feed(&m, WSEV_MOUSE_ABSOLUTE_X, 150);
	feed(&m, WSEV_MOUSE_ABSOLUTE_Y, 500);
	wsmouse_acc_flush(&m, &sink);
	expect("a0.25,1.00");
	feed(&m, WSEV_MOUSE_ABSOLUTE_X, -5);
	wsmouse_acc_flush(&m, &sink);
	expect("a0.00,1.00");
	m.swapxy = true;
	feed(&m, WSEV_MOUSE_ABSOLUTE_Y, 50);
	wsmouse_acc_flush(&m, &sink);
	expect("a0.50,0.00");

	/* events that mean nothing to RFB */
	feed(&m, WSEV_MOUSE_ABSOLUTE_Z, 3);
	feed(&m, 99, 3);
	wsmouse_acc_flush(&m, &sink);
	expect("");

	/* huge deltas saturate instead of overflowing */
	feed(&m, WSEV_MOUSE_DELTA_X, 2000000000);
	feed(&m, WSEV_MOUSE_DELTA_X, 2000000000);
	feed(&m, WSEV_MOUSE_DELTA_Y, -2147483647 - 1);
	wsmouse_acc_flush(&m, &sink);
	expect("r1073741823,1073741823");

	if (failures) {
		fprintf(stderr, "%d checks failed\n", failures);
		return 1;
	}
	printf("wsmouse_acc: all checks passed\n");
	return 0;
}
