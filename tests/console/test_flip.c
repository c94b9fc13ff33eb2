/* The blitter over a double-buffered output (the drm output's page flips,
 * here two buffers in RAM): after every pass the buffer shown is exactly
 * what a full redraw gives (the picture, borders, the local cursor, the
 * status line), although each pass draws only its damage and what that
 * buffer missed; and passes stay small. Random updates, fixed seed. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blit/blit.h"
#include "blit/cursor.h"
#include "shadow/damage.h"
#include "output/output.h"
#include "shadow/shadow.h"
#include "../check.h"

#define SW 96 /* screen */
#define SH 64
#define DW 80 /* desktop, centred: borders on every side */
#define DH 56
#define CW 6
#define CH 5
#define PASSES 600

/* --- a double-buffered output in RAM --- */

struct flip {
	uint8_t *buf[2];
	enum output_buffer age[2];
	int back;
	int presented;
	bool single; /* present without swapping: DIRTYFB-like */
};

static int flip_open(struct output *out, const char *arg)
{
	struct flip *f = calloc(1, sizeof(*f));
	int i;

	out->width = SW;
	out->height = SH;
	pixfmt_from_name("xrgb8888", &out->fmt);
	out->stride = SW * 4;
	for (i = 0; i < 2; i++) {
		/* Garbage until drawn: an unknown buffer must be redrawn. */
		f->buf[i] = malloc(out->stride * SH);
		memset(f->buf[i], 0x5a + i, out->stride * SH);
		f->age[i] = OUTPUT_BUF_UNKNOWN;
	}
	f->back = 1;
	f->single = arg && !strcmp(arg, "single");
	out->map = f->buf[0];
	out->priv = f;
	return 0;
}

static void flip_close(struct output *out)
{
	struct flip *f = out->priv;

	free(f->buf[0]);
	free(f->buf[1]);
	free(f);
}

static enum output_buffer flip_begin(struct output *out)
{
	struct flip *f = out->priv;

	out->map = f->buf[f->back];
	return f->age[f->back];
}

static void flip_present(struct output *out, const struct rect *rects, int n)
{
	struct flip *f = out->priv;

	f->presented = f->back;
	f->age[f->back] = OUTPUT_BUF_CURRENT;
	if (f->single)
		return;
	f->age[!f->back] = OUTPUT_BUF_PREVIOUS;
	f->back = !f->back;
}

static const struct output_impl flip_impl = {
    .name = "flip",
    .open = flip_open,
    .close = flip_close,
    .begin = flip_begin,
    .present = flip_present,
};

/* --- the scenario --- */

static uint32_t rng = 12345;

static uint32_t rnd(uint32_t n)
{
	rng = rng * 1103515245u + 12345u;
	return (rng >> 8) % n;
}

struct side {
	struct output out;
	struct damage dmg;
	struct blitter *b;
	struct cursor c;
};

static void side_init(struct side *s, struct shadow *sh, bool ref,
		      const char *arg, const uint8_t *pix, const uint8_t *mask)
{
	memset(s, 0, sizeof(*s));
	if (ref) {
		output_open(&s->out, "mem:96x64");
	} else {
		s->out.impl = &flip_impl;
		s->out.fd = -1;
		flip_impl.open(&s->out, arg);
	}
	damage_init(&s->dmg);
	s->b = blit_create(&s->out, sh, &s->dmg, -1);
	blit_reset_view(s->b);
	cursor_init(&s->c);
	blit_set_cursor(s->b, &s->c);
	cursor_set_shape(&s->c, sh, 2, 1, CW, CH, pix, mask);
}

static void side_finish(struct side *s)
{
	cursor_finish(&s->c);
	blit_destroy(s->b);
	damage_finish(&s->dmg);
	if (s->out.impl == &flip_impl)
		flip_impl.close(&s->out);
	else
		output_close(&s->out);
}

static void fill(struct shadow *sh, const struct rect *r, uint32_t v)
{
	int32_t x, y;

	for (y = r->y; y < r->y + r->h; y++)
		for (x = r->x; x < r->x + r->w; x++)
			pixfmt_store(&sh->fmt,
				     sh->pix + (size_t)y * sh->stride +
					 (size_t)x * 4,
				     v);
}

/* Returns the bytes the double-buffered side wrote in all. */
static uint64_t run(const char *arg)
{
	struct shadow sh;
	struct pixfmt fmt;
	struct side flip, ref;
	uint8_t pix[CW * CH * 4], mask[CW * CH];
	uint64_t bytes = 0;
	int i, bad = 0;

	rng = 12345;
	pixfmt_from_name("xrgb8888", &fmt);
	shadow_init(&sh, &fmt);
	shadow_resize(&sh, DW, DH);
	for (i = 0; i < CW * CH; i++) {
		pixfmt_store(&fmt, pix + i * 4,
			     pixfmt_pack(&fmt, 255, (uint8_t)(i * 8), 0));
		mask[i] = (i % CW) != 3 || i < CW ? 255 : 0;
	}
	side_init(&flip, &sh, false, arg, pix, mask);
	side_init(&ref, &sh, true, NULL, pix, mask);
	for (i = 0; i < PASSES && bad < 3; i++) {
		struct damage_set set;
		struct blit_stats st;
		struct flip *f = flip.out.priv;
		int k, n = (int)rnd(3);

		memset(&set, 0, sizeof(set));
		for (k = 0; k < n; k++) {
			struct rect r = {(int32_t)rnd(DW), (int32_t)rnd(DH),
					 1 + (int32_t)rnd(20),
					 1 + (int32_t)rnd(12)};

			rect_clip(&r, DW, DH);
			fill(&sh, &r,
			     pixfmt_pack(&fmt, (uint8_t)rnd(256),
					 (uint8_t)rnd(256), (uint8_t)rnd(256)));
			damage_set_add(&set, &r);
		}
		if (rnd(3) == 0) {
			int x = (int)rnd(DW), y = (int)rnd(DH);

			cursor_move(&flip.c, &sh, x, y);
			cursor_move(&ref.c, &sh, x, y);
		}
		if (rnd(20) == 0) {
			const char *t = rnd(2) ? "" : i % 2 ? "hello" : "bye";

			blit_set_status(flip.b, t);
			blit_set_status(ref.b, t);
		}
		/* A whole-screen change now and then (a pan, a resize). */
		if (rnd(50) == 0)
			blit_reset_view(flip.b);
		/* A buffer whose contents the output cannot vouch for. */
		if (i % 97 == 50) {
			memset(f->buf[f->back], 0x33, flip.out.stride * SH);
			f->age[f->back] = OUTPUT_BUF_UNKNOWN;
		}
		memset(&st, 0, sizeof(st));
		blit_pass(flip.b, &set, &st);
		bytes += st.bytes;
		/* The reference draws everything, every time. */
		blit_reset_view(ref.b);
		blit_pass(ref.b, &set, &st);
		if (memcmp(f->buf[f->presented], ref.out.map,
			   flip.out.stride * SH)) {
			uint32_t p;

			for (p = 0; p < SW * SH; p++)
				if (memcmp(f->buf[f->presented] + p * 4,
					   ref.out.map + p * 4, 4))
					break;
			CHECK(0,
			      "%s: pass %d: the buffer shown differs from "
			      "a full redraw, first at %u,%u",
			      arg ? arg : "flip", i, p % SW, p / SW);
			bad++;
		}
	}
	side_finish(&flip);
	side_finish(&ref);
	shadow_finish(&sh);
	return bytes;
}

int main(void)
{
	uint64_t frame = (uint64_t)SW * SH * 4, flipped, single;

	flipped = run(NULL);
	single = run("single");
	/* Catching up costs a little; redrawing everything (a missed
	 * buffer taken as unknown, full redraws feeding each other) would
	 * cost a frame a pass. */
	CHECK(flipped < PASSES * frame / 4,
	      "page flips wrote %.1f frames a pass",
	      (double)flipped / frame / PASSES);
	CHECK(single < PASSES * frame / 4,
	      "one buffer wrote %.1f frames a pass",
	      (double)single / frame / PASSES);
	CHECK(flipped < 3 * single,
	      "page flips wrote %llu bytes, one "
	      "buffer %llu",
	      (unsigned long long)flipped, (unsigned long long)single);
	if (!failures)
		printf("double-buffered blits: %d passes, %.3f frames a pass "
		       "flipped, %.3f in one buffer\n",
		       PASSES, (double)flipped / frame / PASSES,
		       (double)single / frame / PASSES);
	return failures != 0;
}
