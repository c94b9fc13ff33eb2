/* Touch gestures (client/input/gesture.h): synthetic frames with their
 * times given, no sleeps. Each gesture of TigerVNC's mapping gives the
 * pointer events it should, at the place it should; the thresholds are
 * millimetres on the device whatever its resolution (and a guessed one
 * without); a finger that rests and trembles never drags; the wheel's
 * direction turns with --rotate. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "input/gesture.h"
#include "../check.h"
#include "../sinkrec.h"

#define MS 1000000ull

/* The device most tests use: 0..9999 both ways, 40 units a millimetre
 * (a 250 mm square). */
#define RES 40
#define MAXV 9999

/* A scripted frame: up to three fingers, id 0 for none. */
struct step {
	uint64_t ms;
	struct gesture_touch t[3];
};

static struct gesture *make(int res_x, int res_y)
{
	struct gesture_geom geom = {0, MAXV, 0, MAXV, res_x, res_y};

	return gesture_create(&geom);
}

/* Play steps on g, ticking every millisecond between frames as a timer
 * that fires on time would (the deadline's own tick, no sooner). */
static void play_on(struct gesture *g, const struct step *s, unsigned n)
{
	uint64_t now = s[0].ms * MS, due;
	unsigned i, k, cnt;

	for (i = 0; i < n; i++) {
		while ((due = gesture_deadline(g)) && due <= s[i].ms * MS) {
			CHECK(due >= now, "a deadline in the past");
			now = due;
			gesture_tick(g, now, &sinkrec);
		}
		now = s[i].ms * MS;
		for (cnt = 0, k = 0; k < 3; k++)
			if (s[i].t[k].id)
				cnt = k + 1;
		gesture_frame(g, s[i].t, cnt, now, &sinkrec);
	}
}

static const char *play(const struct step *s, unsigned n)
{
	struct gesture *g = make(RES, RES);

	sinkrec_events[0] = 0;
	play_on(g, s, n);
	gesture_destroy(g);
	return sinkrec_events;
}

#define PLAY(s) play(s, sizeof(s) / sizeof(s[0]))

static void expect(const char *got, const char *want, const char *what)
{
	CHECK(!strcmp(got, want), "%s:\n  got  %s\n  want %s", what, got, want);
}

/* The events but the pointer's places (the wheel's and the keys'), and
 * whether every place was at (x, y): a scroll and a pinch keep the
 * pointer where the fingers landed. */
static const char *wheel_only(const char *ev, int x, int y)
{
	static char out[sizeof(sinkrec_events)];
	char copy[sizeof(sinkrec_events)], at[32], *tok, *save = NULL;

	snprintf(at, sizeof(at), "at:%d,%d", x, y);
	snprintf(copy, sizeof(copy), "%s", ev);
	out[0] = 0;
	for (tok = strtok_r(copy, " ", &save); tok;
	     tok = strtok_r(NULL, " ", &save)) {
		if (strncmp(tok, "at:", 3))
			log_append(out, sizeof(out), "%s", tok);
		else
			CHECK(!strcmp(tok, at), "%s, want %s", tok, at);
	}
	return out;
}

/* mm to device units. */
#define U(mm) ((int)((mm)*RES))

static void test_taps(void)
{
	static const struct step one[] = {
	    {0, {{1, 1000, 2000}}},
	    {80, {{1, 1010, 2010}}}, /* within the threshold */
	    {120, {{0}}},
	};
	static const struct step two[] = {
	    {0, {{1, 1000, 2000}}},
	    {30, {{1, 1000, 2000}, {2, 3000, 2000}}},
	    {150, {{2, 3000, 2000}}},
	    {170, {{0}}},
	};
	static const struct step three[] = {
	    {0, {{1, 1000, 2000}, {2, 2000, 2000}}},
	    {40, {{1, 1000, 2000}, {2, 2000, 2000}, {3, 3000, 5000}}},
	    {200, {{0}}},
	};
	/* Lifted 300 ms apart: no tap. */
	static const struct step apart[] = {
	    {0, {{1, 1000, 2000}, {2, 3000, 2000}}},
	    {100, {{2, 3000, 2000}}},
	    {400, {{0}}},
	};
	/* The second finger 300 ms after the first: no gesture. */
	static const struct step late[] = {
	    {0, {{1, 1000, 2000}}},
	    {300, {{1, 1000, 2000}, {2, 3000, 2000}}},
	    {350, {{0}}},
	};
	struct gesture *g;

	expect(PLAY(one), "at:1000,2000 b1:down b1:up", "one-finger tap");
	expect(PLAY(two), "at:2000,2000 b3:down b3:up", "two-finger tap");
	expect(PLAY(three), "at:2000,3000 b2:down b2:up", "three-finger tap");
	expect(PLAY(apart), "", "fingers lifted 300 ms apart");
	expect(PLAY(late), "", "a second finger 300 ms late");
	/* A fourth finger: build it by hand (steps hold three). */
	g = make(RES, RES);
	sinkrec_events[0] = 0;
	{
		struct gesture_touch t4[4] = {
		    {1, 100, 100}, {2, 200, 200}, {3, 300, 300}, {4, 400, 400}};

		gesture_frame(g, t4, 3, 0, &sinkrec);
		gesture_frame(g, t4, 4, 10 * MS, &sinkrec);
		gesture_frame(g, t4, 0, 20 * MS, &sinkrec);
	}
	expect(sinkrec_events, "", "four fingers");
	/* And the next tap is a tap again. */
	{
		struct gesture_touch t = {9, 500, 500};

		gesture_frame(g, &t, 1, 100 * MS, &sinkrec);
		gesture_frame(g, &t, 0, 150 * MS, &sinkrec);
	}
	expect(sinkrec_events, "at:500,500 b1:down b1:up", "a tap after four");
	gesture_destroy(g);
}

static void test_tap_timing(void)
{
	/* Held 900 ms, barely moving: still a tap (no long press yet). */
	static const struct step slow[] = {
	    {0, {{1, 1000, 1000}}},
	    {900, {{1, 1000 + U(2), 1000}}},
	    {950, {{0}}},
	};
	/* A double tap a little apart clicks the first place twice. */
	static const struct step dbl[] = {
	    {0, {{1, 1000, 1000}}},
	    {60, {{0}}},
	    {200, {{2, 1000 + U(3), 1000 + U(2)}}},
	    {260, {{0}}},
	};
	/* Far apart: two places. */
	static const struct step far[] = {
	    {0, {{1, 1000, 1000}}},
	    {60, {{0}}},
	    {200, {{2, 1000 + U(20), 1000}}},
	    {260, {{0}}},
	};
	/* A second later: its own place. */
	static const struct step later[] = {
	    {0, {{1, 1000, 1000}}},
	    {60, {{0}}},
	    {1200, {{2, 1000 + U(3), 1000}}},
	    {1260, {{0}}},
	};

	expect(PLAY(slow), "at:1000,1000 b1:down b1:up", "a 950 ms tap");
	expect(PLAY(dbl),
	       "at:1000,1000 b1:down b1:up at:1000,1000 b1:down b1:up",
	       "a double tap");
	expect(PLAY(far),
	       "at:1000,1000 b1:down b1:up at:1800,1000 b1:down b1:up",
	       "two taps 20 mm apart");
	expect(PLAY(later),
	       "at:1000,1000 b1:down b1:up at:1120,1000 b1:down b1:up",
	       "two taps a second apart");
}

static void test_drag(void)
{
	/* Left-button drag from where the finger landed; nothing before
	 * it has travelled 5 mm. */
	static const struct step drag[] = {
	    {0, {{1, 1000, 1000}}},
	    {20, {{1, 1000 + U(4), 1000}}},
	    {40, {{1, 1000 + U(6), 1000}}},
	    {60, {{1, 1000 + U(30), 1000 + U(10)}}},
	    {80, {{0}}},
	};

	expect(PLAY(drag),
	       "at:1000,1000 b1:down at:1240,1000 at:2200,1400 at:2200,1400 "
	       "b1:up",
	       "one-finger drag");
}

static void test_longpress(void)
{
	/* Held still 1 s: right button down where it landed, up when it
	 * lifts. */
	static const struct step press[] = {
	    {0, {{1, 4000, 4000}}},
	    {1500, {{0}}},
	};
	/* Then moved: a right-button drag. */
	static const struct step rdrag[] = {
	    {0, {{1, 4000, 4000}}},
	    {1100, {{1, 4000 + U(2), 4000}}}, /* tremble: held in place */
	    {1200, {{1, 4000 + U(10), 4000}}},
	    {1300, {{1, 4000 + U(12), 4000 + U(1)}}},
	    {1400, {{0}}},
	};
	/* 999 ms is no long press. */
	static const struct step short_[] = {
	    {0, {{1, 4000, 4000}}},
	    {999, {{0}}},
	};
	struct gesture *g = make(RES, RES);
	struct gesture_touch t = {1, 4000, 4000};

	expect(PLAY(press), "at:4000,4000 b3:down b3:up", "a long press");
	expect(PLAY(rdrag),
	       "at:4000,4000 b3:down at:4400,4000 at:4480,4040 at:4480,4040 "
	       "b3:up",
	       "a long press, then moved");
	expect(PLAY(short_), "at:4000,4000 b1:down b1:up", "a 999 ms press");
	/* The deadline is the long press's, and the tick at it presses. */
	sinkrec_events[0] = 0;
	gesture_frame(g, &t, 1, 5000 * MS, &sinkrec);
	CHECK_EQ(gesture_deadline(g), 6000 * MS);
	gesture_tick(g, 5999 * MS, &sinkrec);
	expect(sinkrec_events, "", "a tick before the long press");
	gesture_tick(g, 6000 * MS, &sinkrec);
	expect(sinkrec_events, "at:4000,4000 b3:down", "the long press's tick");
	CHECK_EQ(gesture_deadline(g), 0);
	/* The device goes away: the button goes up, and the finger still
	 * down is no gesture when it lifts. */
	gesture_reset(g, &sinkrec);
	expect(sinkrec_events, "at:4000,4000 b3:down b3:up", "reset");
	gesture_frame(g, &t, 0, 6100 * MS, &sinkrec);
	expect(sinkrec_events, "at:4000,4000 b3:down b3:up",
	       "lifted after reset");
	gesture_destroy(g);
}

/* A resting finger: it trembles up to 4 mm around where it landed for
 * three seconds. Never a left button, no motion before the long press,
 * and the long press does not wander. */
static void test_resting(void)
{
	struct gesture *g = make(RES, RES);
	struct gesture_touch t = {7, 5000, 5000};
	unsigned i;
	static const int wob[][2] = {
	    {1, 0}, {3, 1}, {-2, 3}, {4, 0}, {0, -4}, {-3, -2}, {2, 2},
	};

	sinkrec_events[0] = 0;
	gesture_frame(g, &t, 1, 0, &sinkrec);
	for (i = 1; i < 300; i++) {
		uint64_t now = i * 10 * MS;

		if (gesture_deadline(g) && gesture_deadline(g) <= now)
			gesture_tick(g, gesture_deadline(g), &sinkrec);
		t.x = 5000 + U(wob[i % 7][0]) * 9 / 10;
		t.y = 5000 + U(wob[i % 7][1]) * 9 / 10;
		gesture_frame(g, &t, 1, now, &sinkrec);
	}
	gesture_frame(g, &t, 0, 3000 * MS, &sinkrec);
	expect(sinkrec_events, "at:5000,5000 b3:down b3:up",
	       "a resting finger");
	gesture_destroy(g);
}

static void test_scroll(void)
{
	/* Two fingers down 40 mm together: 3 notches up (13 mm each), the
	 * pointer where they landed. */
	static const struct step down[] = {
	    {0, {{1, 2000, 2000}, {2, 3000, 2000}}},
	    {20, {{1, 2000, 2000 + U(6)}, {2, 3000, 2000 + U(6)}}},
	    {40, {{1, 2000, 2000 + U(20)}, {2, 3000, 2000 + U(20)}}},
	    {60, {{1, 2000, 2000 + U(40)}, {2, 3000, 2000 + U(40)}}},
	    {80, {{0}}},
	};
	/* Left 30 mm: 2 notches right (7). */
	static const struct step left[] = {
	    {0, {{1, 5000, 2000}, {2, 5000, 3000}}},
	    {20, {{1, 5000 - U(30), 2000}, {2, 5000 - U(30), 3000}}},
	    {40, {{0}}},
	};
	/* One finger moves first, the other follows within 50 ms: told
	 * apart by the timer, still a scroll (up 27 mm: 2 notches down). */
	static const struct step lag[] = {
	    {0, {{1, 2000, 6000}, {2, 3000, 6000}}},
	    {10, {{1, 2000, 6000 - U(6)}, {2, 3000, 6000}}},
	    {30, {{1, 2000, 6000 - U(8)}, {2, 3000, 6000 - U(2)}}},
	    {100, {{1, 2000, 6000 - U(27)}, {2, 3000, 6000 - U(27)}}},
	    {120, {{0}}},
	};

	expect(wheel_only(PLAY(down), 2500, 2000),
	       "b4:down b4:up b4:down b4:up b4:down b4:up", "two fingers down");
	expect(wheel_only(PLAY(left), 5000, 2500),
	       "b7:down b7:up b7:down b7:up", "two fingers left");
	expect(wheel_only(PLAY(lag), 2500, 6000), "b5:down b5:up b5:down b5:up",
	       "two fingers, one a little late");
}

static void test_pinch(void)
{
	/* Apart 20 mm to 40 mm along x: 2 notches of Ctrl+up (8 mm). */
	static const struct step spread[] = {
	    {0, {{1, 4000, 4000}, {2, 4000 + U(20), 4000}}},
	    {20, {{1, 4000 - U(10), 4000}, {2, 4000 + U(30), 4000}}},
	    {40, {{0}}},
	};
	/* 60 mm to 25 mm diagonally: 4 notches of Ctrl+down. */
	static const struct step close[] = {
	    {0, {{1, 2000, 2000}, {2, 2000 + U(42.4), 2000 + U(42.4)}}},
	    {20,
	     {{1, 2000 + U(12.4), 2000 + U(12.4)},
	      {2, 2000 + U(30.1), 2000 + U(30.1)}}},
	    {40, {{0}}},
	};

	expect(PLAY(spread),
	       "at:4400,4000 at:4400,4000 key:ffe3:1d:down b4:down b4:up "
	       "b4:down b4:up key:ffe3:1d:up",
	       "spread");
	expect(wheel_only(PLAY(close), 2000 + U(21.2), 2000 + U(21.2)),
	       "key:ffe3:1d:down b5:down b5:up b5:down b5:up b5:down b5:up "
	       "b5:down b5:up key:ffe3:1d:up",
	       "pinch");
}

/* The thresholds are millimetres: 6 mm drags and 4 mm does not, on a
 * device of 10 units a millimetre as on one of 40, and on one with x and
 * y of different resolutions; without a resolution the device is taken
 * to be 300 mm wide. */
static void test_units(void)
{
	static const struct {
		int rx, ry;
		double dx_mm, dy_mm;
		bool drags;
	} cases[] = {
	    {10, 10, 4, 0, false}, {10, 10, 6, 0, true},  {40, 40, 4, 0, false},
	    {40, 40, 6, 0, true},  {40, 10, 0, 4, false}, {40, 10, 0, 6, true},
	    {40, 10, 4, 0, false}, {40, 10, 6, 0, true},  {0, 20, 4, 0, false},
	    {0, 20, 0, 6, true},
	};
	struct gesture_touch t;
	struct gesture *g;
	unsigned i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		g = make(cases[i].rx, cases[i].ry);
		CHECK(!gesture_guessed(g));
		sinkrec_events[0] = 0;
		t = (struct gesture_touch){1, 100, 100};
		gesture_frame(g, &t, 1, 0, &sinkrec);
		t.x += (int)(cases[i].dx_mm *
			     (cases[i].rx ? cases[i].rx : cases[i].ry));
		t.y += (int)(cases[i].dy_mm * cases[i].ry);
		gesture_frame(g, &t, 1, 100 * MS, &sinkrec);
		CHECK(!!strstr(sinkrec_events, "b1:down") == cases[i].drags,
		      "res %d/%d, %.0f,%.0f mm: %s", cases[i].rx, cases[i].ry,
		      cases[i].dx_mm, cases[i].dy_mm, sinkrec_events);
		gesture_destroy(g);
	}
	/* No resolution: 9999 units are 300 mm, 33.33 a millimetre. */
	g = make(0, 0);
	CHECK(gesture_guessed(g));
	sinkrec_events[0] = 0;
	t = (struct gesture_touch){1, 100, 100};
	gesture_frame(g, &t, 1, 0, &sinkrec);
	t.y += 4 * 33;
	gesture_frame(g, &t, 1, 50 * MS, &sinkrec);
	expect(sinkrec_events, "", "4 mm of a guessed resolution");
	t.y += 2 * 34;
	gesture_frame(g, &t, 1, 60 * MS, &sinkrec);
	expect(sinkrec_events, "at:100,100 b1:down at:100,300",
	       "6 mm of a guessed resolution");
	gesture_destroy(g);
}

/* --rotate: the two-finger drag's direction in the upright picture.
 * Fingers move down the panel (+y) by 30 mm: upright, that is down at
 * 0, right at 90 (the picture's top is on the panel's right edge, its
 * right on the panel's bottom), up at 180, left at 270; the content
 * follows the fingers, so the wheel goes up, left, down, right. */
static void test_rotation(void)
{
	static const struct step down[] = {
	    {0, {{1, 2000, 2000}, {2, 3000, 2000}}},
	    {20, {{1, 2000, 2000 + U(30)}, {2, 3000, 2000 + U(30)}}},
	    {40, {{0}}},
	};
	static const char *const want[4] = {
	    "b4:down b4:up b4:down b4:up",
	    "b6:down b6:up b6:down b6:up",
	    "b5:down b5:up b5:down b5:up",
	    "b7:down b7:up b7:down b7:up",
	};
	/* A tap's place is the panel's: the session turns it with every
	 * absolute device's (output/rotate.h's rotate_fraction). */
	static const struct step one[] = {
	    {0, {{1, 1000, 2000}}},
	    {50, {{0}}},
	};
	char want_full[200];

	for (sinkrec_turns = 0; sinkrec_turns < 4; sinkrec_turns++) {
		snprintf(want_full, sizeof(want_full),
			 "at:2500,2000 at:2500,2000 %s", want[sinkrec_turns]);
		expect(PLAY(down), want_full, "scroll, turned");
		expect(PLAY(one), "at:1000,2000 b1:down b1:up", "tap, turned");
	}
	sinkrec_turns = 0;
}

/* The console away (NULL sink): nothing is sent, and a finger that
 * landed meanwhile is no gesture when it lifts back here. */
static void test_away(void)
{
	struct gesture *g = make(RES, RES);
	struct gesture_touch t = {3, 1000, 1000}, u = {4, 2000, 2000};

	sinkrec_events[0] = 0;
	gesture_frame(g, &t, 1, 0, NULL);
	CHECK_EQ(gesture_deadline(g), 0);
	gesture_frame(g, &t, 1, 2000 * MS, &sinkrec);
	gesture_frame(g, &t, 0, 2100 * MS, &sinkrec);
	expect(sinkrec_events, "", "a finger from while away");
	gesture_frame(g, &u, 1, 2200 * MS, &sinkrec);
	gesture_frame(g, &u, 0, 2250 * MS, &sinkrec);
	expect(sinkrec_events, "at:2000,2000 b1:down b1:up", "a tap after");
	gesture_destroy(g);
}

int main(void)
{
	sinkrec_scale = MAXV;
	test_taps();
	test_tap_timing();
	test_drag();
	test_longpress();
	test_resting();
	test_scroll();
	test_pinch();
	test_units();
	test_rotation();
	test_away();
	return check_done("gesture");
}
