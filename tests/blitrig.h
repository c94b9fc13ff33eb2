/* For the C tests of the blitter: a mem output (turned or not), a
 * shadow of the remote desktop's size and a blitter between them, and
 * one pass over given damage on the calling thread. */
#ifndef VNCFB_TESTS_BLITRIG_H
#define VNCFB_TESTS_BLITRIG_H

#include <stdlib.h>
#include <string.h>

#include "blit/blit.h"
#include "output/output.h"
#include "output/rotate.h"
#include "shadow/damage.h"
#include "shadow/shadow.h"
#include "view/view.h"

struct rig {
	struct output out;	/* the panel */
	struct rotout rot;	/* what the blitter draws on when turned */
	struct shadow sh;
	struct damage dmg;
	struct blitter *b;
};

static inline void rig_open_rot(struct rig *r, const char *spec,
				enum rotation rot, uint32_t rw, uint32_t rh,
				enum scale_mode mode, unsigned zoom)
{
	struct output *o = &r->out;
	struct pixfmt f;

	memset(r, 0, sizeof(*r));
	if (output_open(o, spec) < 0)
		exit(1);
	if (rot != ROT_0) {
		rotout_init(&r->rot, &r->out, rot);
		o = &r->rot.out;
	}
	pixfmt_shadow_for(&o->fmt, &f);
	if (shadow_init(&r->sh, &f) < 0 || damage_init(&r->dmg) < 0 ||
	    !shadow_resize(&r->sh, rw, rh) ||
	    !(r->b = blit_create(o, &r->sh, &r->dmg, -1)))
		exit(1);
	blit_set_scale(r->b, mode, zoom);
	blit_reset_view(r->b);
}

static inline void rig_open(struct rig *r, const char *spec, uint32_t rw,
			    uint32_t rh, enum scale_mode mode, unsigned zoom)
{
	rig_open_rot(r, spec, ROT_0, rw, rh, mode, zoom);
}

static inline void rig_close(struct rig *r)
{
	blit_destroy(r->b);
	damage_finish(&r->dmg);
	shadow_finish(&r->sh);
	output_close(&r->out);
}

static inline void pass(struct rig *r, const struct rect *rects, int n)
{
	struct damage_set set;
	struct blit_stats st;
	int i;

	memset(&set, 0, sizeof(set));
	for (i = 0; i < n; i++)
		set.rects[i] = rects[i];
	set.n = n;
	blit_pass(r->b, &set, &st);
}

#endif
