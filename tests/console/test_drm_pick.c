/* The DRM output's choices without a device (fbdev/drm.h): the spec's
 * grammar, the kernel's connector names, which connector, mode and format,
 * and the mode list an error message shows. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <drm_fourcc.h>

#include "drm.h"
#include "../check.h"

static drmModeModeInfo mode(uint16_t w, uint16_t h, uint32_t hz, bool pref,
			    bool interlace)
{
	drmModeModeInfo m;

	memset(&m, 0, sizeof(m));
	m.hdisplay = w;
	m.vdisplay = h;
	m.vrefresh = hz;
	m.type = pref ? DRM_MODE_TYPE_PREFERRED : DRM_MODE_TYPE_DRIVER;
	m.flags = interlace ? DRM_MODE_FLAG_INTERLACE : 0;
	snprintf(m.name, sizeof(m.name), "%ux%u", w, h);
	return m;
}

/* drm_choose_mode for --mode WxH@HZ (0: not given). */
static int pick(const drmModeModeInfo *m, int n, uint32_t w, uint32_t h,
		uint32_t hz)
{
	const struct drm_mode_want want = {w, h, hz};

	return drm_choose_mode(m, n, &want);
}

static void test_spec(void)
{
	struct drm_spec s;
	char why[128];

	CHECK(drm_spec_parse(NULL, &s, why, sizeof(why)) == 0);
	CHECK(!s.device[0] && !s.connector[0] && !s.mode.width && !s.nnamed &&
	      !s.buffers);
	CHECK(drm_spec_parse("/dev/dri/card1", &s, why, sizeof(why)) == 0);
	CHECK(!strcmp(s.device, "/dev/dri/card1"));
	CHECK(drm_spec_parse("connector=HDMI-A-1,mode=1920x1080@60", &s, why,
			     sizeof(why)) == 0);
	CHECK(!s.device[0] && !strcmp(s.connector, "HDMI-A-1"));
	CHECK(s.mode.width == 1920 && s.mode.height == 1080 &&
	      s.mode.hz == 60 && !s.nnamed);
	/* Items in any order, the device among them, empty ones skipped
	 * (what opts_output.c composes: "drm:,mode=..."). */
	CHECK(drm_spec_parse(",mode=800x600,/dev/dri/card2,buffers=1", &s, why,
			     sizeof(why)) == 0);
	CHECK(!strcmp(s.device, "/dev/dri/card2") && s.mode.width == 800 &&
	      s.mode.height == 600 && s.mode.hz == 0 && s.buffers == 1);
	CHECK(drm_spec_parse("mode=800x600x", &s, why, sizeof(why)) ==
		      -EINVAL &&
		  strstr(why, "bad mode '800x600x': WIDTHxHEIGHT[@HZ]"),
	      "why: %s", why);
	CHECK(drm_spec_parse("buffers=3", &s, why, sizeof(why)) == -EINVAL);
	CHECK(drm_spec_parse("connector=", &s, why, sizeof(why)) == -EINVAL);
	CHECK(drm_spec_parse("vsync=1", &s, why, sizeof(why)) == -EINVAL &&
		  strstr(why, "unknown drm option 'vsync'"),
	      "why: %s", why);

	/* Several heads: connector=A+B (what --connector A,B composes), or
	 * all. */
	CHECK(drm_spec_parse("connector=HDMI-A-1", &s, why, sizeof(why)) == 0);
	CHECK(s.nheads == 1 && !s.all && !strcmp(s.heads[0], "HDMI-A-1"));
	CHECK(drm_spec_parse("connector=Virtual-2+Virtual-1", &s, why,
			     sizeof(why)) == 0);
	CHECK(s.nheads == 2 && !strcmp(s.heads[0], "Virtual-2") &&
	      !strcmp(s.heads[1], "Virtual-1") &&
	      !strcmp(s.connector, "Virtual-2"));
	CHECK(drm_spec_parse("/dev/dri/card1,all", &s, why, sizeof(why)) == 0);
	CHECK(s.all && !s.nheads && !strcmp(s.device, "/dev/dri/card1"));
	CHECK(drm_spec_parse("connector=A+a", &s, why, sizeof(why)) ==
		      -EINVAL &&
		  strstr(why, "connector A given twice"),
	      "why: %s", why);
	CHECK(drm_spec_parse("connector=A++B", &s, why, sizeof(why)) ==
	      -EINVAL);
	CHECK(drm_spec_parse("connector=A+", &s, why, sizeof(why)) == -EINVAL);
	CHECK(drm_spec_parse("connector=A+B+C+D+E+F+G+H+I", &s, why,
			     sizeof(why)) == -EINVAL &&
		  strstr(why, "at most 8"),
	      "why: %s", why);
	CHECK(drm_spec_parse("all,connector=A", &s, why, sizeof(why)) ==
		      -EINVAL &&
		  strstr(why, "exclude each other"),
	      "why: %s", why);
	CHECK(drm_spec_parse("connector=A,all", &s, why, sizeof(why)) ==
	      -EINVAL);
}

/* mode= with a mode per connector: "NAME:WxH[@HZ] ...", blank-separated
 * as --layout's items, with at most one bare WxH[@HZ] for the others. */
static void test_head_modes(void)
{
	struct drm_spec s;
	const struct drm_mode_want *w;
	char why[256];

	CHECK(
	    drm_spec_parse("all,mode=HDMI-A-1:1920x1080@60 HDMI-A-2:1280x1024",
			   &s, why, sizeof(why)) == 0,
	    "why: %s", why);
	CHECK(s.all && s.nnamed == 2 && !s.mode.width);
	w = drm_spec_mode(&s, "hdmi-a-1");
	CHECK(w->width == 1920 && w->height == 1080 && w->hz == 60);
	w = drm_spec_mode(&s, "HDMI-A-2");
	CHECK(w->width == 1280 && w->height == 1024 && w->hz == 0);
	/* Not named: the preferred mode. */
	w = drm_spec_mode(&s, "DP-1");
	CHECK(w == &s.mode && !w->width);
	CHECK(drm_spec_mode(&s, NULL) == &s.mode);
	/* A bare item anywhere among them is every other head's; blanks
	 * and tabs around the items. */
	CHECK(drm_spec_parse("mode= DP-1:800x600\t1024x768@75  ", &s, why,
			     sizeof(why)) == 0,
	      "why: %s", why);
	CHECK(s.nnamed == 1 && s.mode.width == 1024 && s.mode.hz == 75);
	w = drm_spec_mode(&s, "Virtual-1");
	CHECK(w->width == 1024 && w->height == 768);
	w = drm_spec_mode(&s, "dp-1");
	CHECK(w->width == 800 && w->height == 600);
	/* One bare item alone is what it always was. */
	CHECK(drm_spec_parse("mode=640x480", &s, why, sizeof(why)) == 0 &&
	      !s.nnamed && s.mode.width == 640 &&
	      drm_spec_mode(&s, "Virtual-1") == &s.mode);
	/* With connector= the names are among its. */
	CHECK(drm_spec_parse("connector=A+B,mode=b:800x600 a:640x480", &s, why,
			     sizeof(why)) == 0,
	      "why: %s", why);
	CHECK(drm_spec_parse("mode=C:800x600,connector=A+B", &s, why,
			     sizeof(why)) == -EINVAL &&
		  strstr(why, "a mode for C, which is not a connector named "
			      "(A, B)"),
	      "why: %s", why);
	CHECK(drm_spec_parse("connector=A,mode=B:800x600", &s, why,
			     sizeof(why)) == -EINVAL &&
		  strstr(why, "not a connector named (A)"),
	      "why: %s", why);
	/* Refused, each saying what. */
	CHECK(drm_spec_parse("mode=A:800x600 a:640x480", &s, why,
			     sizeof(why)) == -EINVAL &&
		  strstr(why, "a mode for A given twice"),
	      "why: %s", why);
	CHECK(drm_spec_parse("mode=800x600 640x480", &s, why, sizeof(why)) ==
		      -EINVAL &&
		  strstr(why, "two modes for every head (800x600 and "
			      "640x480)"),
	      "why: %s", why);
	CHECK(drm_spec_parse("mode=A:800y600", &s, why, sizeof(why)) ==
		      -EINVAL &&
		  strstr(why, "bad mode 'A:800y600'"),
	      "why: %s", why);
	CHECK(drm_spec_parse("mode=:800x600", &s, why, sizeof(why)) == -EINVAL);
	CHECK(drm_spec_parse("mode=A:", &s, why, sizeof(why)) == -EINVAL);
	CHECK(drm_spec_parse("mode=A:B:800x600", &s, why, sizeof(why)) ==
	      -EINVAL);
	CHECK(drm_spec_parse("mode=A-very-long-connector-name-of-40-chars:"
			     "800x600",
			     &s, why, sizeof(why)) == -EINVAL);
	CHECK(drm_spec_parse("mode=", &s, why, sizeof(why)) == -EINVAL &&
		  strstr(why, "no mode given"),
	      "why: %s", why);
	CHECK(drm_spec_parse("mode=   ", &s, why, sizeof(why)) == -EINVAL);
	CHECK(drm_spec_parse("mode=A:1x1 B:1x1 C:1x1 D:1x1 E:1x1 F:1x1 "
			     "G:1x1 H:1x1 I:1x1",
			     &s, why, sizeof(why)) == -EINVAL &&
		  strstr(why, "at most 8"),
	      "why: %s", why);
	CHECK(drm_spec_parse("mode=A:1x1 B:1x1 C:1x1 D:1x1 E:1x1 F:1x1 "
			     "G:1x1 H:1x1 9x9",
			     &s, why, sizeof(why)) == 0 &&
		  s.nnamed == 8 && s.mode.width == 9,
	      "why: %s", why);
	/* A later mode= replaces an earlier one whole. */
	CHECK(drm_spec_parse("mode=A:800x600,mode=1024x768", &s, why,
			     sizeof(why)) == 0 &&
	      !s.nnamed && s.mode.width == 1024);
}

/* The modes' names against a card's connectors. */
static void test_mode_names(void)
{
	const struct drm_conn_info c[] = {
	    {.name = "Virtual-1", .connected = true, .nmodes = 5},
	    {.name = "Virtual-2", .connected = false, .nmodes = 0},
	};
	struct drm_spec s;
	char why[256];

	drm_spec_parse("mode=800x600", &s, why, sizeof(why));
	CHECK(drm_unknown_mode_name(c, 2, &s) == -1);
	/* A connector with no display yet may get one. */
	drm_spec_parse("mode=virtual-2:800x600 VIRTUAL-1:640x480", &s, why,
		       sizeof(why));
	CHECK(drm_unknown_mode_name(c, 2, &s) == -1);
	drm_spec_parse("mode=Virtual-1:800x600 HDMI-A-1:640x480", &s, why,
		       sizeof(why));
	CHECK(drm_unknown_mode_name(c, 2, &s) == 1);
	CHECK(drm_unknown_mode_name(c, 0, &s) == 0);
}

/* Each head's mode chosen from its own list by what is asked of it. */
static void test_head_mode_choice(void)
{
	drmModeModeInfo a[] = {
	    mode(1920, 1080, 60, true, false),
	    mode(1280, 1024, 60, false, false),
	    mode(1024, 768, 60, false, false),
	};
	drmModeModeInfo b[] = {
	    mode(1280, 1024, 75, true, false),
	    mode(1280, 1024, 60, false, false),
	    mode(800, 600, 60, false, false),
	};
	struct drm_spec s;
	char why[256];

	drm_spec_parse("mode=HDMI-A-2:1280x1024@60", &s, why, sizeof(why));
	CHECK(drm_choose_mode(a, 3, drm_spec_mode(&s, "HDMI-A-1")) == 0);
	CHECK(drm_choose_mode(b, 3, drm_spec_mode(&s, "hdmi-a-2")) == 1);
	drm_spec_parse("mode=HDMI-A-2:800x600 1024x768", &s, why, sizeof(why));
	CHECK(drm_choose_mode(a, 3, drm_spec_mode(&s, "HDMI-A-1")) == 2);
	CHECK(drm_choose_mode(b, 3, drm_spec_mode(&s, "HDMI-A-2")) == 2);
	/* The default that one display lacks: no mode for it. */
	CHECK(drm_choose_mode(b, 3, drm_spec_mode(&s, "HDMI-A-3")) == -ENOENT);
}

static void test_mode_parse(void)
{
	uint32_t w, h, hz;

	CHECK(drm_mode_parse("1024x768", &w, &h, &hz) == 0 && w == 1024 &&
	      h == 768 && hz == 0);
	CHECK(drm_mode_parse("640X480@75", &w, &h, &hz) == 0 && w == 640 &&
	      h == 480 && hz == 75);
	CHECK(drm_mode_parse("0x480", &w, &h, &hz) < 0);
	CHECK(drm_mode_parse("640x", &w, &h, &hz) < 0);
	CHECK(drm_mode_parse("640x480@", &w, &h, &hz) < 0);
	CHECK(drm_mode_parse("640x480@0", &w, &h, &hz) < 0);
	CHECK(drm_mode_parse("99999x480", &w, &h, &hz) < 0);
	CHECK(drm_mode_parse("-640x480", &w, &h, &hz) < 0);
	CHECK(drm_mode_parse("640x480@60Hz", &w, &h, &hz) < 0);
	CHECK(drm_mode_parse("4294967296x1", &w, &h, &hz) < 0);
}

static void test_names(void)
{
	char b[32];

	drm_connector_name(DRM_MODE_CONNECTOR_HDMIA, 1, b, sizeof(b));
	CHECK(!strcmp(b, "HDMI-A-1"), "got %s", b);
	drm_connector_name(DRM_MODE_CONNECTOR_eDP, 2, b, sizeof(b));
	CHECK(!strcmp(b, "eDP-2"), "got %s", b);
	drm_connector_name(DRM_MODE_CONNECTOR_VIRTUAL, 1, b, sizeof(b));
	CHECK(!strcmp(b, "Virtual-1"), "got %s", b);
	drm_connector_name(DRM_MODE_CONNECTOR_USB, 3, b, sizeof(b));
	CHECK(!strcmp(b, "USB-3"), "got %s", b);
	drm_connector_name(999, 1, b, sizeof(b));
	CHECK(!strcmp(b, "Unknown-1"), "got %s", b);
}

static void test_connector(void)
{
	const struct drm_conn_info c[] = {
	    {.name = "VGA-1", .connected = false, .nmodes = 0},
	    {.name = "HDMI-A-1", .connected = true, .nmodes = 5},
	    {.name = "DP-1", .connected = true, .nmodes = 3},
	    {.name = "DP-2",
	     .connected = true,
	     .nmodes = 0}, /* connected, no modes: unusable */
	};

	CHECK(drm_choose_connector(c, 4, NULL) == 1);
	CHECK(drm_choose_connector(c, 4, "") == 1);
	CHECK(drm_choose_connector(c, 4, "dp-1") == 2);
	CHECK(drm_choose_connector(c, 4, "VGA-1") == -ENODEV);
	CHECK(drm_choose_connector(c, 4, "DP-2") == -ENODEV);
	CHECK(drm_choose_connector(c, 4, "HDMI-A-2") == -ENOENT);
	CHECK(drm_choose_connector(c, 1, NULL) == -ENODEV);
	CHECK(drm_choose_connector(c, 0, NULL) == -ENODEV);
}

static void test_heads(void)
{
	const struct drm_conn_info c[] = {
	    {.name = "VGA-1", .connected = false, .nmodes = 0},
	    {.name = "HDMI-A-1", .connected = true, .nmodes = 5},
	    {.name = "DP-1", .connected = true, .nmodes = 3},
	    {.name = "DP-2", .connected = true, .nmodes = 0},
	};
	struct drm_spec s;
	char why[128];
	int idx[DRM_MAX_HEADS], bad = -1;

	drm_spec_parse("all", &s, why, sizeof(why));
	CHECK(drm_choose_heads(c, 4, &s, idx, &bad) == 2 && idx[0] == 1 &&
	      idx[1] == 2);
	CHECK(drm_choose_heads(c, 1, &s, idx, &bad) == -ENODEV);
	drm_spec_parse("connector=dp-1+HDMI-A-1", &s, why, sizeof(why));
	CHECK(drm_choose_heads(c, 4, &s, idx, &bad) == 2 && idx[0] == 2 &&
	      idx[1] == 1);
	drm_spec_parse("connector=DP-1+HDMI-A-9", &s, why, sizeof(why));
	CHECK(drm_choose_heads(c, 4, &s, idx, &bad) == -ENOENT && bad == 1);
	drm_spec_parse("connector=VGA-1+DP-1", &s, why, sizeof(why));
	CHECK(drm_choose_heads(c, 4, &s, idx, &bad) == -ENODEV && bad == 0);
}

/* Connectors of two cards: a name one card has, a name both have. */
static void test_cards(void)
{
	const struct drm_conn_info c[] = {
	    {.name = "eDP-1", .card = "card0", .connected = true, .nmodes = 2},
	    {.name = "HDMI-A-1", .card = "card0", .connected = false},
	    {.name = "HDMI-A-1",
	     .card = "card1",
	     .connected = true,
	     .nmodes = 4},
	    {.name = "DVI-I-1",
	     .card = "card1",
	     .connected = true,
	     .nmodes = 3},
	};
	struct drm_spec s;
	char why[256], b[32];
	int idx[DRM_MAX_HEADS], bad = -1;

	CHECK(drm_find_connector(c, 4, "edp-1") == 0);
	CHECK(drm_find_connector(c, 4, "card0:eDP-1") == 0);
	CHECK(drm_find_connector(c, 4, "card1:eDP-1") == -ENOENT);
	CHECK(drm_find_connector(c, 4, "HDMI-A-1") == -ENOTUNIQ);
	CHECK(drm_find_connector(c, 4, "CARD1:hdmi-a-1") == 2);
	CHECK(drm_choose_connector(c, 4, "HDMI-A-1") == -ENOTUNIQ);
	CHECK(drm_choose_connector(c, 4, "card0:HDMI-A-1") == -ENODEV);
	CHECK(drm_choose_connector(c, 4, "card1:HDMI-A-1") == 2);
	CHECK(drm_choose_connector(c, 4, NULL) == 0);
	/* A head's name has its card's only where another card has the
	 * name too. */
	drm_head_name(c, 4, 0, b, sizeof(b));
	CHECK(!strcmp(b, "eDP-1"), "got %s", b);
	drm_head_name(c, 4, 2, b, sizeof(b));
	CHECK(!strcmp(b, "card1:HDMI-A-1"), "got %s", b);
	drm_head_name(c, 3, 1, b, sizeof(b));
	CHECK(!strcmp(b, "card0:HDMI-A-1"), "got %s", b);
	drm_head_name(c, 2, 1, b, sizeof(b));
	CHECK(!strcmp(b, "HDMI-A-1"), "got %s", b);
	drm_full_name(&c[3], b, sizeof(b));
	CHECK(!strcmp(b, "card1:DVI-I-1"), "got %s", b);
	/* all: card order, then each card's. */
	drm_spec_parse("all", &s, why, sizeof(why));
	CHECK(drm_choose_heads(c, 4, &s, idx, &bad) == 3 && idx[0] == 0 &&
	      idx[1] == 2 && idx[2] == 3);
	CHECK(drm_spec_parse("connector=DVI-I-1+card1:HDMI-A-1+eDP-1", &s, why,
			     sizeof(why)) == 0);
	CHECK(drm_choose_heads(c, 4, &s, idx, &bad) == 3 && idx[0] == 3 &&
	      idx[1] == 2 && idx[2] == 0);
	drm_spec_parse("connector=eDP-1+HDMI-A-1", &s, why, sizeof(why));
	CHECK(drm_choose_heads(c, 4, &s, idx, &bad) == -ENOTUNIQ && bad == 1);
	/* Modes: by the name with its card, or without where it is one
	 * card's; the card's name, where given, must match. */
	CHECK(drm_spec_parse("mode=card1:HDMI-A-1:800x600 dvi-i-1:640x480 "
			     "1024x768",
			     &s, why, sizeof(why)) == 0);
	CHECK(drm_unknown_mode_name(c, 4, &s) == -1);
	CHECK(drm_spec_mode(&s, "card1:HDMI-A-1")->width == 800);
	CHECK(drm_spec_mode(&s, "card0:HDMI-A-1")->width == 1024);
	CHECK(drm_spec_mode(&s, "card1:DVI-I-1")->width == 640);
	CHECK(drm_spec_mode(&s, "DVI-I-1")->width == 640);
	drm_spec_parse("mode=HDMI-A-1:800x600", &s, why, sizeof(why));
	CHECK(drm_unknown_mode_name(c, 4, &s) == 0);
	drm_spec_parse("mode=card2:DVI-I-1:800x600", &s, why, sizeof(why));
	CHECK(drm_unknown_mode_name(c, 4, &s) == 0);
	CHECK(drm_name_eq("card1:DP-1", "dp-1") &&
	      drm_name_eq("DP-1", "CARD1:dp-1") &&
	      !drm_name_eq("card1:DP-1", "card0:DP-1") &&
	      !drm_name_eq("DP-1", "DP-2"));
	/* The grammar: a card is cardN, 0..15. */
	CHECK(drm_spec_parse("connector=card1:HDMI-A-1+card15:DP-2", &s, why,
			     sizeof(why)) == 0);
	CHECK(!strcmp(s.connector, "card1:HDMI-A-1") && s.nheads == 2);
	CHECK(drm_spec_parse("connector=HDMI-A-1:1920x1080", &s, why,
			     sizeof(why)) == -EINVAL);
	CHECK(strstr(why, "cardN"), "why: %s", why);
	CHECK(drm_spec_parse("connector=card16:DP-1", &s, why, sizeof(why)) ==
	      -EINVAL);
	CHECK(drm_spec_parse("connector=card01:DP-1", &s, why, sizeof(why)) ==
	      -EINVAL);
	CHECK(drm_spec_parse("connector=card1:", &s, why, sizeof(why)) ==
	      -EINVAL);
	CHECK(drm_spec_parse("connector=card1:a:b", &s, why, sizeof(why)) ==
	      -EINVAL);
	CHECK(drm_spec_parse("connector=card1:DP-1+dp-1", &s, why,
			     sizeof(why)) == -EINVAL);
	CHECK(drm_spec_parse("connector=card1:DP-1+card0:DP-1", &s, why,
			     sizeof(why)) == 0);
	CHECK(drm_spec_parse("mode=gpu1:DP-1:800x600", &s, why, sizeof(why)) ==
	      -EINVAL);
	CHECK(drm_spec_parse("connector=card0:DP-1+DP-2,mode=DP-1:800x600 "
			     "card0:DP-2:640x480",
			     &s, why, sizeof(why)) == 0);
	CHECK(drm_spec_parse("connector=card0:DP-1,mode=card1:DP-1:800x600", &s,
			     why, sizeof(why)) == -EINVAL);
}

static void test_mode_choice(void)
{
	drmModeModeInfo m[] = {
	    mode(1920, 1080, 60, false, true),
	    mode(1920, 1080, 50, false, false),
	    mode(1280, 800, 75, true, false),
	    mode(1920, 1080, 60, false, false),
	    mode(1024, 768, 60, false, false),
	    mode(1024, 768, 75, false, false),
	};
	char buf[256];

	CHECK(pick(m, 6, 0, 0, 0) == 2);
	/* A size: progressive before interlaced, then the fastest. */
	CHECK(pick(m, 6, 1920, 1080, 0) == 3);
	CHECK(pick(m, 6, 1920, 1080, 50) == 1);
	CHECK(pick(m, 6, 1024, 768, 0) == 5);
	CHECK(pick(m, 6, 1024, 768, 60) == 4);
	CHECK(pick(m, 6, 800, 600, 0) == -ENOENT);
	/* Nothing preferred: the first, as the driver lists the best
	 * first. */
	CHECK(pick(m + 3, 3, 0, 0, 0) == 0);
	CHECK(pick(m, 0, 0, 0, 0) == -ENOENT);
	/* vrefresh 0: from the clock (kHz) and totals. */
	m[0].vrefresh = 0;
	m[0].clock = 148500;
	m[0].htotal = 2200;
	m[0].vtotal = 1125;
	CHECK(drm_mode_hz(&m[0]) == 60, "hz %u", drm_mode_hz(&m[0]));

	drm_describe_modes(m, 6, buf, sizeof(buf));
	CHECK(!strcmp(buf, "1920x1080@60i, 1920x1080@50, 1280x800@75 "
			   "(preferred), 1920x1080@60, 1024x768@60, "
			   "1024x768@75"),
	      "got %s", buf);
	/* The same mode twice is listed once; a cut ends in "...". */
	m[5] = m[4];
	drm_describe_modes(m, 6, buf, sizeof(buf));
	CHECK(strstr(buf, "1024x768@60") && !strstr(buf, "@75,") &&
		  !strstr(buf, "1024x768@60, 1024x768@60"),
	      "got %s", buf);
	drm_describe_modes(m, 6, buf, 40);
	CHECK(strlen(buf) < 40 && strstr(buf, ", ..."), "got %s", buf);
}

static void test_format(void)
{
	const uint32_t both[] = {DRM_FORMAT_RGB565, DRM_FORMAT_XRGB8888};
	const uint32_t only565[] = {DRM_FORMAT_C8, DRM_FORMAT_RGB565};
	const uint32_t neither[] = {DRM_FORMAT_C8, DRM_FORMAT_ARGB8888};
	struct pixfmt f;

	CHECK(drm_choose_format(both, 2) == DRM_FORMAT_XRGB8888);
	CHECK(drm_choose_format(only565, 2) == DRM_FORMAT_RGB565);
	CHECK(drm_choose_format(neither, 2) == 0);
	CHECK(drm_choose_format(NULL, 0) == DRM_FORMAT_XRGB8888);
	CHECK(drm_format_pixfmt(DRM_FORMAT_XRGB8888, &f) == 0 && f.bpp == 32 &&
	      f.r_shift == 16 && f.g_shift == 8 && f.b_shift == 0 &&
	      f.r_bits == 8 && !f.big_endian);
	CHECK(drm_format_pixfmt(DRM_FORMAT_RGB565, &f) == 0 && f.bpp == 16 &&
	      f.r_shift == 11 && f.g_bits == 6 && !f.big_endian);
	CHECK(drm_format_pixfmt(DRM_FORMAT_C8, &f) == -ENOTSUP);
}

/* --rotate on a plane: DRM turns counter-clockwise, --rotate clockwise;
 * the plane takes the whole angle or none of it. */
static void test_turn(void)
{
	uint64_t all = DRM_MODE_ROTATE_0 | DRM_MODE_ROTATE_90 |
		       DRM_MODE_ROTATE_180 | DRM_MODE_ROTATE_270;
	/* What many display controllers offer: upside down, no more. */
	uint64_t flip = DRM_MODE_ROTATE_0 | DRM_MODE_ROTATE_180 |
			DRM_MODE_REFLECT_X | DRM_MODE_REFLECT_Y;

	CHECK(drm_rotation_bit(0) == DRM_MODE_ROTATE_0);
	CHECK(drm_rotation_bit(1) == DRM_MODE_ROTATE_270);
	CHECK(drm_rotation_bit(2) == DRM_MODE_ROTATE_180);
	CHECK(drm_rotation_bit(3) == DRM_MODE_ROTATE_90);
	CHECK(drm_choose_turn(true, all, 1) == 1);
	CHECK(drm_choose_turn(true, all, 3) == 3);
	CHECK(drm_choose_turn(true, flip, 2) == 2);
	CHECK(drm_choose_turn(true, flip, 1) == 0);
	CHECK(drm_choose_turn(true, flip, 3) == 0);
	CHECK(drm_choose_turn(true, DRM_MODE_ROTATE_0 | DRM_MODE_ROTATE_90, 1) ==
	      0);
	CHECK(drm_choose_turn(true, DRM_MODE_ROTATE_0 | DRM_MODE_ROTATE_90, 3) ==
	      3);
	CHECK(drm_choose_turn(false, all, 1) == 0);
	CHECK(drm_choose_turn(true, all, 0) == 0);
}

int main(void)
{
	test_spec();
	test_head_modes();
	test_mode_names();
	test_head_mode_choice();
	test_mode_parse();
	test_names();
	test_connector();
	test_heads();
	test_cards();
	test_mode_choice();
	test_format();
	test_turn();
	if (!failures)
		printf("drm choices: all passed\n");
	return failures != 0;
}
