/* Unit test: the layout of several heads in one desktop: the spec's
 * grammar, side by side, a spec applied, the server's screens followed,
 * and every refusal's one line. */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "../check.h"
#include "view/layout.h"

static const char names[3][LAYOUT_NAME_LEN] = {"HDMI-A-1", "HDMI-A-2", "DP-1"};

static void two_heads(struct layout *l)
{
	static const uint32_t w[] = {1920, 1024}, h[] = {1080, 768};
	char why[160];

	CHECK_EQ(layout_side_by_side(l, names, w, h, 2, why, sizeof(why)), 0);
}

static bool at(const struct layout *l, unsigned i, int32_t x, int32_t y,
	       int32_t w, int32_t h)
{
	const struct rect *r = &l->head[i].r;

	return r->x == x && r->y == y && r->w == w && r->h == h;
}

static void test_parse(void)
{
	struct layout_spec s;
	char why[160];

	CHECK_EQ(layout_spec_parse("HDMI-A-1:0,0 HDMI-A-2:1920,0", &s, why,
				   sizeof(why)),
		 0);
	CHECK_EQ(s.n, 2);
	CHECK(!strcmp(s.at[1].name, "HDMI-A-2") && s.at[1].x == 1920 &&
	      s.at[1].y == 0);
	CHECK_EQ(layout_spec_parse("  Virtual-1:0,768\tVirtual-2:0,0  ", &s,
				   why, sizeof(why)),
		 0);
	CHECK(s.n == 2 && s.at[0].y == 768 &&
	      !strcmp(s.at[1].name, "Virtual-2"));
	/* A head's name with its card's. */
	CHECK_EQ(layout_spec_parse("card1:HDMI-A-1:1920,0 HDMI-A-1:0,0", &s,
				   why, sizeof(why)),
		 0);
	CHECK(s.n == 2 && !strcmp(s.at[0].name, "card1:HDMI-A-1") &&
	      s.at[0].x == 1920 && !strcmp(s.at[1].name, "HDMI-A-1"));
	CHECK_EQ(layout_spec_parse("", &s, why, sizeof(why)), 0);
	CHECK_EQ(s.n, 0);
	CHECK_EQ(layout_spec_parse(NULL, &s, why, sizeof(why)), 0);

	CHECK_EQ(layout_spec_parse("HDMI-A-1", &s, why, sizeof(why)), -EINVAL);
	CHECK(strstr(why, "'HDMI-A-1' is not NAME:X,Y"), "why: %s", why);
	CHECK_EQ(layout_spec_parse(":0,0", &s, why, sizeof(why)), -EINVAL);
	CHECK_EQ(layout_spec_parse("A:0", &s, why, sizeof(why)), -EINVAL);
	CHECK(strstr(why, "X,Y are two numbers"), "why: %s", why);
	CHECK_EQ(layout_spec_parse("A:-1,0", &s, why, sizeof(why)), -EINVAL);
	CHECK_EQ(layout_spec_parse("A:0,0x", &s, why, sizeof(why)), -EINVAL);
	CHECK_EQ(layout_spec_parse("A:65536,0", &s, why, sizeof(why)), -EINVAL);
	CHECK_EQ(
	    layout_spec_parse("A:99999999999999999999,0", &s, why, sizeof(why)),
	    -EINVAL);
	CHECK_EQ(layout_spec_parse("A:0,0,B:1,1", &s, why, sizeof(why)),
		 -EINVAL);
	CHECK_EQ(layout_spec_parse("A:1,1 B:2,2 C:3,3 D:4,4 E:5,5 F:6,6 G:7,7 "
				   "H:8,8 I:9,9",
				   &s, why, sizeof(why)),
		 -EINVAL);
	CHECK(strstr(why, "more than 8 heads"), "why: %s", why);
	CHECK_EQ(layout_spec_parse("AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA:0,0",
				   &s, why, sizeof(why)),
		 -EINVAL);
	CHECK(strstr(why, "too long"), "why: %s", why);
}

static void test_side_by_side(void)
{
	static const uint32_t w[] = {1024, 1024, 800}, h[] = {768, 768, 600},
			      big[] = {40000, 30000};
	char why[160];
	struct layout l;

	CHECK_EQ(layout_side_by_side(&l, names, w, h, 3, why, sizeof(why)), 0);
	CHECK(at(&l, 0, 0, 0, 1024, 768) && at(&l, 1, 1024, 0, 1024, 768) &&
	      at(&l, 2, 2048, 0, 800, 600));
	CHECK(l.width == 2848 && l.height == 768);
	CHECK(!strcmp(l.head[2].name, "DP-1"));

	CHECK_EQ(layout_side_by_side(&l, names, big, h, 2, why, sizeof(why)),
		 -EINVAL);
	CHECK(strstr(why, "wider than RFB's 65535"), "why: %s", why);
	CHECK_EQ(l.width, 2848);
	CHECK_EQ(layout_side_by_side(&l, names, w, h, 0, why, sizeof(why)),
		 -EINVAL);
	CHECK_EQ(layout_side_by_side(&l, names, w, h, LAYOUT_MAX_HEADS + 1, why,
				     sizeof(why)),
		 -EINVAL);
	{
		static const char same[2][LAYOUT_NAME_LEN] = {"VGA-1", "vga-1"};

		CHECK_EQ(
		    layout_side_by_side(&l, same, w, h, 2, why, sizeof(why)),
		    -EINVAL);
		CHECK(strstr(why, "given twice"), "why: %s", why);
	}
}

static void test_apply(void)
{
	struct layout_spec s;
	struct layout l, before;
	char why[160], d[160];

	two_heads(&l);
	before = l;
	/* The second head above the first, names in any case. */
	CHECK_EQ(layout_spec_parse("hdmi-a-1:0,768 HDMI-A-2:0,0", &s, why,
				   sizeof(why)),
		 0);
	CHECK_EQ(layout_apply(&l, &s, why, sizeof(why)), 0);
	CHECK(at(&l, 0, 0, 768, 1920, 1080) && at(&l, 1, 0, 0, 1024, 768));
	CHECK(l.width == 1920 && l.height == 1848);
	CHECK(!layout_equal(&l, &before));
	CHECK(!strcmp(layout_describe(&l, d, sizeof(d)),
		      "HDMI-A-1:0,768 HDMI-A-2:0,0"),
	      "got %s", d);

	l = before;
	layout_spec_parse("HDMI-A-1:0,0 HDMI-A-2:1000,0", &s, why, sizeof(why));
	CHECK_EQ(layout_apply(&l, &s, why, sizeof(why)), -EINVAL);
	CHECK(strstr(why, "HDMI-A-2 (1024x768 at 1000,0) overlaps HDMI-A-1"),
	      "why: %s", why);
	CHECK(layout_equal(&l, &before));

	layout_spec_parse("HDMI-A-1:0,0 HDMI-A-2:1920,0 DP-9:0,2000", &s, why,
			  sizeof(why));
	CHECK_EQ(layout_apply(&l, &s, why, sizeof(why)), -EINVAL);
	CHECK(strstr(why, "no head DP-9 (the heads: HDMI-A-1:0,0 "
			  "HDMI-A-2:1920,0)"),
	      "why: %s", why);

	layout_spec_parse("HDMI-A-1:0,0 hdmi-a-1:1920,0", &s, why, sizeof(why));
	CHECK_EQ(layout_apply(&l, &s, why, sizeof(why)), -EINVAL);
	CHECK(strstr(why, "HDMI-A-1 is placed twice"), "why: %s", why);

	layout_spec_parse("HDMI-A-2:1920,0", &s, why, sizeof(why));
	CHECK_EQ(layout_apply(&l, &s, why, sizeof(why)), -EINVAL);
	CHECK(strstr(why, "HDMI-A-1 is left out"), "why: %s", why);

	layout_spec_parse("HDMI-A-1:0,0 HDMI-A-2:65000,0", &s, why,
			  sizeof(why));
	CHECK_EQ(layout_apply(&l, &s, why, sizeof(why)), -EINVAL);
	CHECK(strstr(why, "66024x1080, more than RFB's 65535"), "why: %s", why);
	CHECK(layout_equal(&l, &before));

	/* A gap between heads is allowed: the desktop covers it. */
	layout_spec_parse("HDMI-A-1:0,0 HDMI-A-2:2000,100", &s, why,
			  sizeof(why));
	CHECK_EQ(layout_apply(&l, &s, why, sizeof(why)), 0);
	CHECK(l.width == 3024 && l.height == 1080);
}

static void test_screens(void)
{
	struct layout l, before;
	struct rect sc[3] = {{0, 0, 1920, 1080}, {0, 1080, 1024, 768}};

	two_heads(&l);
	before = l;
	CHECK_EQ(layout_from_screens(&l, sc, 2), 0);
	CHECK(at(&l, 1, 0, 1080, 1024, 768) && l.height == 1848 &&
	      l.width == 1920);
	/* Not one screen per head, or another size, or overlapping: the
	 * layout stays. */
	l = before;
	CHECK_EQ(layout_from_screens(&l, sc, 1), -EINVAL);
	CHECK_EQ(layout_from_screens(&l, sc, 3), -EINVAL);
	sc[1].w = 1000;
	CHECK_EQ(layout_from_screens(&l, sc, 2), -EINVAL);
	sc[1] = (struct rect){100, 100, 1024, 768};
	CHECK_EQ(layout_from_screens(&l, sc, 2), -EINVAL);
	sc[1] = (struct rect){-1024, 0, 1024, 768};
	CHECK_EQ(layout_from_screens(&l, sc, 2), -EINVAL);
	CHECK(layout_equal(&l, &before));
}

int main(void)
{
	test_parse();
	test_side_by_side();
	test_apply();
	test_screens();
	return check_done("layout");
}
