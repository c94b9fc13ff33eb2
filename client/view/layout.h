/* Where each output (head) sits in one remote desktop spanning several:
 * side by side in connector order, where a layout spec puts them
 * (--layout, config layout = HDMI-A-1:0,0 HDMI-A-2:1920,0), or where the
 * server's screens are when it has one screen per head. A layout that
 * cannot be shown (a name twice, an unknown name, a head left out, heads
 * overlapping, a desktop RFB cannot describe) is refused in one line.
 *
 * Threads: plain data and pure functions, any thread. */
#ifndef VNCFB_LAYOUT_H
#define VNCFB_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/rect.h"

/* Heads one desktop may span (the DRM output's, remote resize's cap). */
#define LAYOUT_MAX_HEADS 8
/* RFB's sizes are 16 bits. */
#define LAYOUT_MAX_DIM 65535
#define LAYOUT_NAME_LEN 32

/* "NAME:X,Y NAME:X,Y ..." as given, names not yet checked against the
 * heads. */
struct layout_spec {
	unsigned n;
	struct {
		char name[LAYOUT_NAME_LEN];
		uint32_t x, y;
	} at[LAYOUT_MAX_HEADS];
};

struct layout_head {
	/* The connector's, "HDMI-A-1" (with its card's, "card1:HDMI-A-1",
	 * where another card has one of that name). */
	char name[LAYOUT_NAME_LEN];
	struct rect r;		    /* in desktop pixels */
};

struct layout {
	unsigned n;
	struct layout_head head[LAYOUT_MAX_HEADS];
	uint32_t width, height; /* the desktop: every head's right/bottom */
};

/* Parse a spec: NAME:X,Y items separated by blanks, NAME a head's (it
 * may have a colon of its own: "card1:HDMI-A-1:1920,0"). An empty spec
 * (NULL, "") has no items. 0, or -EINVAL with why saying what is wrong. */
int layout_spec_parse(const char *s, struct layout_spec *spec, char *why,
		      size_t len);

/* The heads (names and sizes; n of them, 1..LAYOUT_MAX_HEADS) side by
 * side from the left, top-aligned, in the order given. 0, or -EINVAL
 * (why) when the desktop would be wider than LAYOUT_MAX_DIM. */
int layout_side_by_side(struct layout *l, const char (*names)[LAYOUT_NAME_LEN],
			const uint32_t *w, const uint32_t *h, unsigned n,
			char *why, size_t len);
/* Place l's heads where spec says (names compared in any case). Every
 * head must be named once and every name must be a head's. 0 (l
 * changed), or -EINVAL with why (l as it was). */
int layout_apply(struct layout *l, const struct layout_spec *spec, char *why,
		 size_t len);
/* Follow the server's screens (x, y, w, h each): when there is one per
 * head and screen i has head i's size, head i goes where screen i is. 0
 * (l changed), or -EINVAL when the screens are not one per head or would
 * overlap (l as it was; no message: the server's layout is only a
 * hint). */
int layout_from_screens(struct layout *l, const struct rect *screens,
			unsigned n);
/* Whether a and b place their heads alike (same count, rectangles). */
bool layout_equal(const struct layout *a, const struct layout *b);
/* The layout as a spec, "HDMI-A-1:0,0 HDMI-A-2:1920,0" (for -v and
 * messages), cut to len. */
char *layout_describe(const struct layout *l, char *buf, size_t len);

#endif
