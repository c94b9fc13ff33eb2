/* Rectangle arithmetic in 64 bits so hostile values cannot overflow. */
#include "config.h"

#include "util/rect.h"

static int64_t max64(int64_t a, int64_t b)
{
	return a > b ? a : b;
}

static int64_t min64(int64_t a, int64_t b)
{
	return a < b ? a : b;
}

bool rect_clip(struct rect *r, int32_t w, int32_t h)
{
	int64_t x0 = max64(r->x, 0), y0 = max64(r->y, 0);
	int64_t x1 = min64((int64_t)r->x + r->w, w);
	int64_t y1 = min64((int64_t)r->y + r->h, h);

	if (r->w <= 0 || r->h <= 0 || x1 <= x0 || y1 <= y0) {
		*r = (struct rect){ 0, 0, 0, 0 };
		return false;
	}
	r->x = (int32_t)x0;
	r->y = (int32_t)y0;
	r->w = (int32_t)(x1 - x0);
	r->h = (int32_t)(y1 - y0);
	return true;
}

bool rect_intersect(const struct rect *a, const struct rect *b,
		    struct rect *out)
{
	int64_t x0 = max64(a->x, b->x), y0 = max64(a->y, b->y);
	int64_t x1 = min64((int64_t)a->x + a->w, (int64_t)b->x + b->w);
	int64_t y1 = min64((int64_t)a->y + a->h, (int64_t)b->y + b->h);

	if (rect_empty(a) || rect_empty(b) || x1 <= x0 || y1 <= y0) {
		*out = (struct rect){ 0, 0, 0, 0 };
		return false;
	}
	*out = (struct rect){ (int32_t)x0, (int32_t)y0, (int32_t)(x1 - x0),
			      (int32_t)(y1 - y0) };
	return true;
}

void rect_union(const struct rect *a, const struct rect *b, struct rect *out)
{
	int64_t x0, y0, x1, y1;

	if (rect_empty(a)) {
		*out = *b;
		return;
	}
	if (rect_empty(b)) {
		*out = *a;
		return;
	}
	x0 = min64(a->x, b->x);
	y0 = min64(a->y, b->y);
	x1 = max64((int64_t)a->x + a->w, (int64_t)b->x + b->w);
	y1 = max64((int64_t)a->y + a->h, (int64_t)b->y + b->h);
	*out = (struct rect){ (int32_t)x0, (int32_t)y0, (int32_t)(x1 - x0),
			      (int32_t)(y1 - y0) };
}

bool rect_touch(const struct rect *a, const struct rect *b)
{
	if (rect_empty(a) || rect_empty(b))
		return false;
	return (int64_t)a->x <= (int64_t)b->x + b->w &&
	       (int64_t)b->x <= (int64_t)a->x + a->w &&
	       (int64_t)a->y <= (int64_t)b->y + b->h &&
	       (int64_t)b->y <= (int64_t)a->y + a->h;
}
