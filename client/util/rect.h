/* Rectangles and clipping. Pure functions, any thread. */
#ifndef VNCFB_RECT_H
#define VNCFB_RECT_H

#include <stdbool.h>
#include <stdint.h>

struct rect {
	int32_t x, y, w, h;
};

static inline bool rect_empty(const struct rect *r)
{
	return r->w <= 0 || r->h <= 0;
}

static inline int64_t rect_area(const struct rect *r)
{
	return rect_empty(r) ? 0 : (int64_t)r->w * r->h;
}

/* Clip r to [0,w)x[0,h). Returns false when nothing is left. Safe for any
 * input values (no overflow). */
bool rect_clip(struct rect *r, int32_t w, int32_t h);
/* Intersection of a and b into out; false when empty. */
bool rect_intersect(const struct rect *a, const struct rect *b,
		    struct rect *out);
/* Smallest rectangle holding both. */
void rect_union(const struct rect *a, const struct rect *b, struct rect *out);
/* True when a and b overlap or share an edge. */
bool rect_touch(const struct rect *a, const struct rect *b);

#endif
