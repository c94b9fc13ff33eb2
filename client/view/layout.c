/* Where each head sits in a desktop spanning several: the spec's
 * grammar, the placements and the checks every placement passes. */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "view/layout.h"

static bool blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n';
}

/* A decimal coordinate of at most LAYOUT_MAX_DIM: its end, or NULL. */
static const char *coord(const char *s, uint32_t *out)
{
	unsigned long v = 0;

	if (*s < '0' || *s > '9')
		return NULL;
	for (; *s >= '0' && *s <= '9'; s++) {
		v = v * 10 + (unsigned long)(*s - '0');
		if (v > LAYOUT_MAX_DIM)
			return NULL;
	}
	*out = (uint32_t)v;
	return s;
}

int layout_spec_parse(const char *s, struct layout_spec *spec, char *why,
		      size_t len)
{
	spec->n = 0;
	while (s && *s) {
		const char *item, *colon;
		size_t nlen;

		while (blank(*s))
			s++;
		if (!*s)
			break;
		item = s;
		/* The item's last colon: a head's name may have one of
		 * its own ("card1:HDMI-A-1", view/layout.h). */
		colon = NULL;
		for (const char *c = item; *c && !blank(*c); c++)
			if (*c == ':')
				colon = c;
		nlen = colon ? (size_t)(colon - item) : 0;
		if (!colon || !nlen || memchr(item, ',', nlen)) {
			snprintf(why, len,
				 "layout item '%.*s' is not NAME:X,Y (e.g. "
				 "HDMI-A-2:1920,0)",
				 (int)strcspn(item, " \t\n"), item);
			return -EINVAL;
		}
		if (nlen >= LAYOUT_NAME_LEN) {
			snprintf(why, len,
				 "layout: connector name '%.*s' is "
				 "too long",
				 (int)nlen, item);
			return -EINVAL;
		}
		if (spec->n == LAYOUT_MAX_HEADS) {
			snprintf(why, len, "layout: more than %d heads",
				 LAYOUT_MAX_HEADS);
			return -EINVAL;
		}
		s = coord(colon + 1, &spec->at[spec->n].x);
		if (s && *s == ',')
			s = coord(s + 1, &spec->at[spec->n].y);
		else
			s = NULL;
		if (!s || (*s && !blank(*s))) {
			snprintf(why, len,
				 "layout item '%.*s': X,Y are two numbers "
				 "0..%d (e.g. %.*s:1920,0)",
				 (int)strcspn(item, " \t\n"), item,
				 LAYOUT_MAX_DIM, (int)nlen, item);
			return -EINVAL;
		}
		memcpy(spec->at[spec->n].name, item, nlen);
		spec->at[spec->n].name[nlen] = '\0';
		spec->n++;
	}
	return 0;
}

/* What every placement must pass; sets l's desktop size. */
static int check(struct layout *l, char *why, size_t len)
{
	uint64_t w = 0, h = 0;
	unsigned i, j;

	for (i = 0; i < l->n; i++) {
		const struct rect *a = &l->head[i].r;
		struct rect o;

		if (rect_empty(a) || a->x < 0 || a->y < 0) {
			snprintf(why, len, "layout: %s has no place",
				 l->head[i].name);
			return -EINVAL;
		}
		for (j = 0; j < i; j++)
			if (rect_intersect(a, &l->head[j].r, &o)) {
				snprintf(why, len,
					 "layout: %s (%dx%d at %d,%d) overlaps "
					 "%s (%dx%d at %d,%d)",
					 l->head[i].name, a->w, a->h, a->x,
					 a->y, l->head[j].name, l->head[j].r.w,
					 l->head[j].r.h, l->head[j].r.x,
					 l->head[j].r.y);
				return -EINVAL;
			}
		if ((uint64_t)a->x + (uint64_t)a->w > w)
			w = (uint64_t)a->x + (uint64_t)a->w;
		if ((uint64_t)a->y + (uint64_t)a->h > h)
			h = (uint64_t)a->y + (uint64_t)a->h;
	}
	if (w > LAYOUT_MAX_DIM || h > LAYOUT_MAX_DIM) {
		snprintf(why, len,
			 "layout: the desktop would be %llux%llu, more than "
			 "RFB's %d on a side",
			 (unsigned long long)w, (unsigned long long)h,
			 LAYOUT_MAX_DIM);
		return -EINVAL;
	}
	l->width = (uint32_t)w;
	l->height = (uint32_t)h;
	return 0;
}

int layout_side_by_side(struct layout *l, const char (*names)[LAYOUT_NAME_LEN],
			const uint32_t *w, const uint32_t *h, unsigned n,
			char *why, size_t len)
{
	struct layout t = {.n = n};
	uint64_t x = 0;
	unsigned i, j;

	if (!n || n > LAYOUT_MAX_HEADS) {
		snprintf(why, len, "layout: %u heads (1 to %d can be shown)", n,
			 LAYOUT_MAX_HEADS);
		return -EINVAL;
	}
	for (i = 0; i < n; i++) {
		if (w[i] > LAYOUT_MAX_DIM || h[i] > LAYOUT_MAX_DIM ||
		    x + w[i] > LAYOUT_MAX_DIM) {
			snprintf(why, len,
				 "layout: the heads side by side are wider "
				 "than RFB's %d",
				 LAYOUT_MAX_DIM);
			return -EINVAL;
		}
		snprintf(t.head[i].name, sizeof(t.head[i].name), "%s",
			 names[i]);
		for (j = 0; j < i; j++)
			if (!strcasecmp(t.head[j].name, t.head[i].name)) {
				snprintf(why, len,
					 "layout: head %s given twice",
					 names[i]);
				return -EINVAL;
			}
		t.head[i].r =
		    (struct rect){(int32_t)x, 0, (int32_t)w[i], (int32_t)h[i]};
		x += w[i];
	}
	if (check(&t, why, len) < 0)
		return -EINVAL;
	*l = t;
	return 0;
}

int layout_apply(struct layout *l, const struct layout_spec *spec, char *why,
		 size_t len)
{
	struct layout t = *l;
	bool placed[LAYOUT_MAX_HEADS] = {false};
	unsigned i, j;

	for (i = 0; i < spec->n; i++) {
		for (j = 0; j < t.n; j++)
			if (!strcasecmp(spec->at[i].name, t.head[j].name))
				break;
		if (j == t.n) {
			char names[160];

			layout_describe(l, names, sizeof(names));
			snprintf(why, len, "layout: no head %s (the heads: %s)",
				 spec->at[i].name, names);
			return -EINVAL;
		}
		if (placed[j]) {
			snprintf(why, len, "layout: %s is placed twice",
				 t.head[j].name);
			return -EINVAL;
		}
		placed[j] = true;
		t.head[j].r.x = (int32_t)spec->at[i].x;
		t.head[j].r.y = (int32_t)spec->at[i].y;
	}
	for (j = 0; j < t.n; j++)
		if (!placed[j]) {
			snprintf(why, len,
				 "layout: %s is left out (every head needs "
				 "NAME:X,Y)",
				 t.head[j].name);
			return -EINVAL;
		}
	if (check(&t, why, len) < 0)
		return -EINVAL;
	*l = t;
	return 0;
}

int layout_from_screens(struct layout *l, const struct rect *screens,
			unsigned n)
{
	struct layout t = *l;
	char why[160];
	unsigned i;

	if (n != t.n)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		if (screens[i].w != t.head[i].r.w ||
		    screens[i].h != t.head[i].r.h)
			return -EINVAL;
		t.head[i].r = screens[i];
	}
	if (check(&t, why, sizeof(why)) < 0)
		return -EINVAL;
	*l = t;
	return 0;
}

bool layout_equal(const struct layout *a, const struct layout *b)
{
	unsigned i;

	if (a->n != b->n)
		return false;
	for (i = 0; i < a->n; i++)
		if (memcmp(&a->head[i].r, &b->head[i].r, sizeof(struct rect)))
			return false;
	return true;
}

char *layout_describe(const struct layout *l, char *buf, size_t len)
{
	size_t at = 0;
	unsigned i;

	if (len)
		buf[0] = '\0';
	for (i = 0; i < l->n && at < len; i++) {
		int k =
		    snprintf(buf + at, len - at, "%s%s:%d,%d", i ? " " : "",
			     l->head[i].name, l->head[i].r.x, l->head[i].r.y);

		if (k < 0)
			break;
		at += (size_t)k;
	}
	return buf;
}
