/* Unit test: the damage set (merge policy, cap, coverage) and the
 * hand-off (kick, take-and-clear, timeout, stop) between threads. */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../check.h"
#include "util/clock.h"
#include "shadow/damage.h"

#define GRID 256

/* Every pixel of r is inside some rectangle of s. */
static int covers(const struct damage_set *s, const struct rect *r)
{
	int32_t x, y;
	int i;

	for (y = r->y; y < r->y + r->h; y++)
		for (x = r->x; x < r->x + r->w; x++) {
			for (i = 0; i < s->n; i++) {
				const struct rect *q = &s->rects[i];

				if (x >= q->x && x < q->x + q->w && y >= q->y &&
				    y < q->y + q->h)
					break;
			}
			if (i == s->n)
				return 0;
		}
	return 1;
}

static void test_merge(void)
{
	struct damage_set s;
	struct rect a = {0, 0, 10, 10}, b = {10, 0, 10, 10};
	struct rect far = {200, 200, 10, 10}, e = {5, 5, 0, 3};
	struct rect inside = {2, 2, 3, 3};

	memset(&s, 0, sizeof(s));
	damage_set_add(&s, &e);
	CHECK_EQ(s.n, 0);
	damage_set_add(&s, &a);
	damage_set_add(&s, &b);
	/* Side by side: one rectangle, exactly their union. */
	CHECK_EQ(s.n, 1);
	CHECK(s.rects[0].x == 0 && s.rects[0].y == 0 && s.rects[0].w == 20 &&
	      s.rects[0].h == 10);
	/* Inside an existing one: no change. */
	damage_set_add(&s, &inside);
	CHECK_EQ(s.n, 1);
	CHECK_EQ(rect_area(&s.rects[0]), 200);
	/* Far away and large gap: kept apart (no overdraw of the gap). */
	damage_set_add(&s, &far);
	CHECK_EQ(s.n, 2);
	CHECK(covers(&s, &a) && covers(&s, &b) && covers(&s, &far));

	/* A rectangle bridging two merges them all. */
	memset(&s, 0, sizeof(s));
	damage_set_add(&s, &(struct rect){0, 0, 10, 10});
	damage_set_add(&s, &(struct rect){20, 0, 10, 10});
	CHECK_EQ(s.n, 2);
	damage_set_add(&s, &(struct rect){10, 0, 10, 10});
	CHECK_EQ(s.n, 1);
	CHECK_EQ(rect_area(&s.rects[0]), 300);
	/* Corners touching, the union twice their area and more: apart. */
	memset(&s, 0, sizeof(s));
	damage_set_add(&s, &(struct rect){0, 0, 100, 100});
	damage_set_add(&s, &(struct rect){100, 100, 100, 100});
	CHECK_EQ(s.n, 2);
	/* A merge that grows a rectangle over one added before, which
	 * touched neither part: scanned again, all three become one. */
	memset(&s, 0, sizeof(s));
	damage_set_add(&s, &(struct rect){100, 20, 50, 10});
	damage_set_add(&s, &(struct rect){200, 0, 10, 30});
	CHECK_EQ(s.n, 2);
	damage_set_add(&s, &(struct rect){100, 0, 101, 10});
	CHECK_EQ(s.n, 1);
	CHECK(s.rects[0].x == 100 && s.rects[0].y == 0 &&
		  s.rects[0].w == 110 && s.rects[0].h == 30,
	      "%d,%d %dx%d", s.rects[0].x, s.rects[0].y, s.rects[0].w,
	      s.rects[0].h);
}

static void test_cap(void)
{
	struct damage_set s;
	struct rect added[400];
	int i, n = 0, ok = 1;
	unsigned seed = 1;
	int64_t area = 0;

	/* Many small scattered rectangles: the set stays within its cap and
	 * still covers every one of them. */
	memset(&s, 0, sizeof(s));
	for (i = 0; i < 400; i++) {
		struct rect r;

		seed = seed * 1103515245u + 12345u;
		r.x = (int32_t)(seed >> 8) % (GRID - 8);
		seed = seed * 1103515245u + 12345u;
		r.y = (int32_t)(seed >> 8) % (GRID - 8);
		r.w = 1 + (int32_t)(seed >> 20) % 4;
		r.h = 1 + (int32_t)(seed >> 24) % 4;
		added[n++] = r;
		damage_set_add(&s, &r);
		if (s.n > DAMAGE_MAX_RECTS || s.n < 1)
			ok = 0;
	}
	CHECK(ok);
	for (i = 0; i < n; i++)
		if (!covers(&s, &added[i]))
			ok = 0;
	CHECK(ok);
	/* Coalescing never leaves the area the rectangles span. */
	for (i = 0; i < s.n; i++) {
		CHECK(s.rects[i].x >= 0 && s.rects[i].y >= 0 &&
		      s.rects[i].x + s.rects[i].w <= GRID &&
		      s.rects[i].y + s.rects[i].h <= GRID);
		area += rect_area(&s.rects[i]);
	}
	CHECK(area <= (int64_t)GRID * GRID * 2);

	/* Exactly DAMAGE_MAX_RECTS far-apart rectangles fit unmerged; one
	 * more folds into a neighbour. */
	memset(&s, 0, sizeof(s));
	for (i = 0; i < DAMAGE_MAX_RECTS; i++)
		damage_set_add(
		    &s, &(struct rect){(i % 8) * 100, (i / 8) * 100, 2, 2});
	CHECK_EQ(s.n, DAMAGE_MAX_RECTS);
	damage_set_add(&s, &(struct rect){5000, 5000, 2, 2});
	CHECK(s.n <= DAMAGE_MAX_RECTS);
	CHECK(covers(&s, &(struct rect){5000, 5000, 2, 2}));
	CHECK(covers(&s, &(struct rect){0, 0, 2, 2}));
	CHECK(covers(&s, &(struct rect){700, 300, 2, 2}));
}

static void test_take(void)
{
	struct damage d;
	struct damage_set out;
	struct rect a = {1, 2, 3, 4};
	uint64_t t0;

	CHECK_EQ(damage_init(&d), 0);
	/* Added but not kicked: nothing to take yet. */
	damage_add(&d, &a);
	CHECK_EQ(damage_take(&d, &out, 0), 0);
	CHECK_EQ(out.n, 0);
	/* Timeout is honoured (not much shorter). */
	t0 = monotonic_ns();
	CHECK_EQ(damage_take(&d, &out, 30), 0);
	CHECK(monotonic_ns() - t0 >= 25000000u);

	damage_kick(&d);
	damage_add_kick(&d, &(struct rect){100, 100, 5, 5});
	CHECK_EQ(damage_take(&d, &out, -1), 2);
	CHECK_EQ(out.kicks, 2);
	CHECK(out.kick_ns != 0);
	CHECK(covers(&out, &a));
	/* Taken means cleared. */
	CHECK_EQ(damage_take(&d, &out, 0), 0);
	CHECK_EQ(out.n, 0);
	CHECK_EQ(d.set.n, 0);
	CHECK_EQ(d.set.kicks, 0);

	/* A kick with no rectangles still wakes the taker. */
	damage_kick(&d);
	CHECK_EQ(damage_take(&d, &out, 0), 0);
	CHECK_EQ(out.kicks, 1);

	damage_add_kick(&d, &a);
	damage_stop(&d);
	CHECK_EQ(damage_take(&d, &out, -1), -1);
	CHECK_EQ(damage_take(&d, &out, 0), -1);
	damage_finish(&d);
}

/* Early wake-ups: enough pixels of an unfinished update wake the taker,
 * without counting as a kick (an update's end); none without the
 * threshold; what was taken starts the count again. */
static void test_early(void)
{
	struct damage d;
	struct damage_set out;

	CHECK_EQ(damage_init(&d), 0);
	damage_add(&d, &(struct rect){0, 0, 100, 100});
	CHECK_EQ(damage_take(&d, &out, 0), 0);
	damage_drain(&d, &out);

	damage_set_early(&d, 1000);
	damage_add(&d, &(struct rect){0, 0, 10, 50});
	CHECK_EQ(damage_take(&d, &out, 0), 0);
	damage_add(&d, &(struct rect){0, 50, 10, 50});
	CHECK_EQ(damage_take(&d, &out, 0), 1);
	CHECK_EQ(out.kicks, 0);
	CHECK_EQ(out.kick_ns, 0);
	CHECK(covers(&out, &(struct rect){0, 0, 10, 100}));
	/* Counted again from zero. */
	damage_add(&d, &(struct rect){0, 0, 10, 99});
	CHECK_EQ(damage_take(&d, &out, 0), 0);
	damage_add_kick(&d, &(struct rect){50, 50, 1, 1});
	CHECK_EQ(damage_take(&d, &out, 0), 2);
	CHECK_EQ(out.kicks, 1);

	damage_set_early(&d, 0);
	damage_add(&d, &(struct rect){0, 0, 1000, 1000});
	CHECK_EQ(damage_take(&d, &out, 0), 0);
	damage_finish(&d);
}

struct waiter {
	struct damage *d;
	int ret;
	struct damage_set got;
};

static void *wait_take(void *arg)
{
	struct waiter *w = arg;

	w->ret = damage_take(w->d, &w->got, -1);
	return NULL;
}

static void test_threads(void)
{
	struct damage d;
	struct waiter w;
	pthread_t t;

	/* A blocked taker is woken by a kick from another thread ... */
	CHECK_EQ(damage_init(&d), 0);
	memset(&w, 0, sizeof(w));
	w.d = &d;
	CHECK_EQ(pthread_create(&t, NULL, wait_take, &w), 0);
	usleep(20000);
	damage_add_kick(&d, &(struct rect){0, 0, 8, 8});
	pthread_join(t, NULL);
	CHECK_EQ(w.ret, 1);
	CHECK_EQ(rect_area(&w.got.rects[0]), 64);

	/* ... and by stop. */
	memset(&w, 0, sizeof(w));
	w.d = &d;
	CHECK_EQ(pthread_create(&t, NULL, wait_take, &w), 0);
	usleep(20000);
	damage_stop(&d);
	pthread_join(t, NULL);
	CHECK_EQ(w.ret, -1);
	damage_finish(&d);
}

int main(void)
{
	test_merge();
	test_cap();
	test_take();
	test_early();
	test_threads();
	return check_done("damage");
}
