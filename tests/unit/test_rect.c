/* Unit test: rectangle clipping, intersection, union and touching,
 * including hostile values at the int32 extremes. */
#include "config.h"

#include <stdint.h>

#include "../check.h"
#include "util/rect.h"

static int rect_is(const struct rect *r, int32_t x, int32_t y, int32_t w,
		   int32_t h)
{
	return r->x == x && r->y == y && r->w == w && r->h == h;
}

static void test_clip(void)
{
	struct rect r;

	r = (struct rect){10, 20, 30, 40};
	CHECK(rect_clip(&r, 100, 100) && rect_is(&r, 10, 20, 30, 40));
	r = (struct rect){-5, -7, 30, 40};
	CHECK(rect_clip(&r, 100, 100) && rect_is(&r, 0, 0, 25, 33));
	r = (struct rect){90, 95, 30, 40};
	CHECK(rect_clip(&r, 100, 100) && rect_is(&r, 90, 95, 10, 5));
	/* Touching the edge from outside is empty, and zeroed. */
	r = (struct rect){100, 0, 5, 5};
	CHECK(!rect_clip(&r, 100, 100) && rect_is(&r, 0, 0, 0, 0));
	r = (struct rect){-5, 0, 5, 5};
	CHECK(!rect_clip(&r, 100, 100));
	r = (struct rect){10, 10, 0, 5};
	CHECK(!rect_clip(&r, 100, 100));
	r = (struct rect){10, 10, 5, -5};
	CHECK(!rect_clip(&r, 100, 100));
	r = (struct rect){0, 0, 1, 1};
	CHECK(!rect_clip(&r, 0, 0));
	r = (struct rect){0, 0, 1, 1};
	CHECK(!rect_clip(&r, -10, 10));

	/* Hostile values: no overflow, sane results. */
	r = (struct rect){INT32_MIN, INT32_MIN, INT32_MAX, INT32_MAX};
	CHECK(!rect_clip(&r, 100, 100));
	r = (struct rect){INT32_MAX, INT32_MAX, INT32_MAX, INT32_MAX};
	CHECK(!rect_clip(&r, 100, 100));
	r = (struct rect){-10, -10, INT32_MAX, INT32_MAX};
	CHECK(rect_clip(&r, 100, 100) && rect_is(&r, 0, 0, 100, 100));
	r = (struct rect){50, 60, INT32_MAX, INT32_MAX};
	CHECK(rect_clip(&r, 100, 100) && rect_is(&r, 50, 60, 50, 40));
	r = (struct rect){INT32_MIN, 0, INT32_MAX, 10};
	CHECK(!rect_clip(&r, 100, 100));
	r = (struct rect){INT32_MIN + 1, 0, INT32_MAX, 10};
	CHECK(!rect_clip(&r, 100, 100));
	r = (struct rect){0, 0, INT32_MIN, INT32_MIN};
	CHECK(!rect_clip(&r, 100, 100));
	r = (struct rect){0, 0, INT32_MAX, INT32_MAX};
	CHECK(rect_clip(&r, INT32_MAX, INT32_MAX) &&
	      rect_is(&r, 0, 0, INT32_MAX, INT32_MAX));
	r = (struct rect){INT32_MAX - 1, INT32_MAX - 1, INT32_MAX, INT32_MAX};
	CHECK(rect_clip(&r, INT32_MAX, INT32_MAX) &&
	      rect_is(&r, INT32_MAX - 1, INT32_MAX - 1, 1, 1));
	/* Every result lies inside the bounds, for a spread of values. */
	{
		static const int32_t v[] = {INT32_MIN, INT32_MIN + 1,
					    -65536,    -1,
					    0,	       1,
					    7,	       99,
					    100,       101,
					    65535,     INT32_MAX - 1,
					    INT32_MAX};
		size_t a, b, c, d, n = sizeof(v) / sizeof(v[0]);
		int bad = 0;

		for (a = 0; a < n; a++)
			for (b = 0; b < n; b++)
				for (c = 0; c < n; c++)
					for (d = 0; d < n; d++) {
						r = (struct rect){v[a], v[b],
								  v[c], v[d]};
						if (rect_clip(&r, 100, 50) &&
						    (r.x < 0 || r.y < 0 ||
						     r.w <= 0 || r.h <= 0 ||
						     r.x + r.w > 100 ||
						     r.y + r.h > 50))
							bad++;
					}
		CHECK_EQ(bad, 0);
	}
}

static void test_intersect_union_touch(void)
{
	struct rect a = {0, 0, 10, 10}, b = {5, 5, 10, 10}, o;
	struct rect c = {10, 0, 5, 5}, d = {11, 0, 5, 5};
	struct rect e = {0, 0, 0, 0};
	struct rect big1 = {INT32_MIN, INT32_MIN, INT32_MAX, INT32_MAX};
	struct rect big2 = {-5, -5, INT32_MAX, INT32_MAX};

	CHECK(rect_intersect(&a, &b, &o) && rect_is(&o, 5, 5, 5, 5));
	CHECK(!rect_intersect(&a, &c, &o) && rect_empty(&o));
	CHECK(!rect_intersect(&a, &e, &o));
	CHECK(rect_intersect(&big2, &a, &o) && rect_is(&o, 0, 0, 10, 10));
	CHECK(!rect_intersect(&big1, &a, &o));

	rect_union(&a, &b, &o);
	CHECK(rect_is(&o, 0, 0, 15, 15));
	rect_union(&a, &e, &o);
	CHECK(rect_is(&o, 0, 0, 10, 10));
	rect_union(&e, &b, &o);
	CHECK(rect_is(&o, 5, 5, 10, 10));

	CHECK(rect_touch(&a, &b));
	CHECK(rect_touch(&a, &c));  /* shares the edge x = 10 */
	CHECK(!rect_touch(&a, &d)); /* one pixel gap */
	CHECK(!rect_touch(&a, &e));
	CHECK(rect_touch(&big2, &a));

	CHECK_EQ(rect_area(&a), 100);
	CHECK_EQ(rect_area(&e), 0);
	CHECK_EQ(rect_area(&big2), (int64_t)INT32_MAX * INT32_MAX);
}

int main(void)
{
	test_clip();
	test_intersect_union_touch();
	return check_done("rect");
}
