/* vncfb bench --rotate ANGLE: the blitter's full-frame pass on a turned
 * head against the same pass upright, side by side in one run. Two
 * blitters share the output: one draws a desktop of the panel's size
 * upright, the other one of the turned size through the rotation
 * (output/rotate.h); passes alternate between them (which goes first
 * alternates too), each the whole desktop as damage, on two pictures
 * (noise, and a desktop of flat panels and text-like stripes). Reports
 * median and p99 of each and their ratios, against the target
 * (turned at most 1.5x upright), for the kernel in use and for the C
 * reference.
 *
 * Threads: main thread (the passes run on it, unpinned unless --cpu N). */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "blit/blit.h"
#include "console/console.h"
#include "config/opts.h"
#include "output/output.h"
#include "output/rotate.h"
#include "output/rotkern.h"
#include "platform/platform.h"
#include "shadow/damage.h"
#include "shadow/shadow.h"
#include "tools/bench/bench_priv.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/stats.h"

#define ROT_TARGET 1.5
#define ROT_DEFAULT_OUTPUT "mem:1920x1080:xrgb8888"

struct side {
	struct output *out;
	struct shadow sh;
	struct damage dmg;
	struct blitter *b;
	struct samples ns, cpu;	/* wall and this thread's CPU time */
};

static int side_open(struct side *s, struct output *out)
{
	struct pixfmt f;

	memset(s, 0, sizeof(*s));
	s->out = out;
	pixfmt_shadow_for(&out->fmt, &f);
	if (shadow_init(&s->sh, &f) < 0 || damage_init(&s->dmg) < 0)
		return -1;
	if (!shadow_resize(&s->sh, out->width, out->height)) {
		log_error("bench: out of memory for a %ux%u desktop",
			  out->width, out->height);
		return -1;
	}
	s->b = blit_create(out, &s->sh, &s->dmg, -1);
	if (!s->b)
		return -1;
	blit_reset_view(s->b);
	return 0;
}

static void side_close(struct side *s)
{
	blit_destroy(s->b);
	damage_finish(&s->dmg);
	shadow_finish(&s->sh);
	stats_free(&s->ns);
	stats_free(&s->cpu);
}

/* Picture 0: noise; 1: a desktop (flat panels, stripes of "text"). */
static void paint(struct side *s, int picture)
{
	unsigned bpp = pixfmt_bytes(&s->sh.fmt);
	uint32_t x, y, seed = 12345;

	for (y = 0; y < s->sh.height; y++)
		for (x = 0; x < s->sh.width; x++) {
			uint8_t r, g, b;

			seed = seed * 1103515245u + 12345u;
			if (picture == 0) {
				r = (uint8_t)(seed >> 24);
				g = (uint8_t)(seed >> 16);
				b = (uint8_t)(seed >> 8);
			} else if ((y / 16) % 3 == 1 && (x / 6) % 9 < 7 &&
				   (seed >> 28) < 6) {
				r = g = b = 20;
			} else {
				r = (uint8_t)(200 + (x / 256) * 7);
				g = (uint8_t)(210 + (y / 256) * 5);
				b = 230;
			}
			pixfmt_store(&s->sh.fmt,
				     s->sh.pix + (size_t)y * s->sh.stride +
					     (size_t)x * bpp,
				     pixfmt_pack(&s->sh.fmt, r, g, b));
		}
}

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* One full-frame pass of s's desktop as damage, timed. */
static int timed_pass(struct side *s)
{
	struct damage_set set;
	struct blit_stats st;
	uint64_t t0, c0;

	memset(&set, 0, sizeof(set));
	set.n = 1;
	set.rects[0] = (struct rect){ 0, 0, (int32_t)s->sh.width,
				      (int32_t)s->sh.height };
	c0 = thread_cpu_ns();
	t0 = monotonic_ns();
	blit_pass(s->b, &set, &st);
	if (stats_add(&s->ns, monotonic_ns() - t0) < 0)
		return -ENOMEM;
	return stats_add(&s->cpu, thread_cpu_ns() - c0);
}

static void report_one(const char *what, const char *clock,
		       const struct samples *up, const struct samples *turned)
{
	struct summary a, b;
	double rm, rp;

	stats_summarize(up, &a);
	stats_summarize(turned, &b);
	rm = a.median ? (double)b.median / (double)a.median : 0;
	rp = a.p99 ? (double)b.p99 / (double)a.p99 : 0;
	printf("  %-22s %-4s upright median %7.3f p99 %7.3f ms | turned "
	       "median %7.3f p99 %7.3f ms | ratio median %.2f p99 %.2f "
	       "(target <= %.1f: %s; %zu passes each)\n",
	       what, clock, a.median / 1e6, a.p99 / 1e6, b.median / 1e6,
	       b.p99 / 1e6, rm, rp, ROT_TARGET,
	       rm <= ROT_TARGET && rp <= ROT_TARGET ? "met" : "not met", a.n);
}

static void report(const char *what, struct side *up, struct side *turned)
{
	report_one(what, "wall", &up->ns, &turned->ns);
	report_one(what, "cpu", &up->cpu, &turned->cpu);
	stats_free(&up->ns);
	stats_free(&turned->ns);
	stats_free(&up->cpu);
	stats_free(&turned->cpu);
}

int bench_rotate(struct options *o)
{
	static const char *const pictures[] = { "noise", "desktop" };
	const char *spec = o->output ? o->output : ROT_DEFAULT_OUTPUT;
	double seconds = o->duration > 0 ? o->duration : 3.0;
	struct output out;
	struct rotout rot;
	struct side up, turned;
	enum rotation angle;
	char why[160], what[64];
	int ret = 1, pic, k;

	if (rotate_lookup(o->rotate, NULL, &angle, why, sizeof(why)) < 0 ||
	    angle == ROT_0) {
		log_error("bench --rotate: one angle, 90, 180 or 270");
		return 2;
	}
	if (console_open(&out, spec, 0) < 0)
		return 1;
	if (output_nheads(&out) > 1)
		log_warn("bench --rotate: measuring the first head only");
	if (o->cpu >= 0 && platform_pin_thread(pthread_self(), o->cpu) < 0)
		log_warn("bench --rotate: running unpinned");
	rotout_init(&rot, &out, angle);
	if (side_open(&up, &out) < 0 || side_open(&turned, &rot.out) < 0)
		goto out;
	printf("vncfb bench --rotate %u on %s (%ux%u): a full-frame pass, "
	       "upright against turned, alternating, %.1f s a picture and "
	       "kernel\n",
	       rotate_degrees(angle), spec, out.width, out.height, seconds);
	for (k = 0; k < 2; k++) {
		const char *kern;

		if (k == 1 && rotkern_force("c") < 0)
			break;
		kern = rotkern_name();
		for (pic = 0; pic < 2; pic++) {
			uint64_t end;
			unsigned i;

			paint(&up, pic);
			paint(&turned, pic);
			/* Warm both up: the first pass draws the borders. */
			timed_pass(&up);
			timed_pass(&turned);
			stats_free(&up.ns);
			stats_free(&turned.ns);
			stats_free(&up.cpu);
			stats_free(&turned.cpu);
			end = monotonic_ns() + (uint64_t)(seconds / 4 * 1e9);
			for (i = 0; monotonic_ns() < end || i < 20; i++) {
				struct side *first = i & 1 ? &turned : &up;
				struct side *second = i & 1 ? &up : &turned;

				if (timed_pass(first) < 0 ||
				    timed_pass(second) < 0)
					goto out;
			}
			snprintf(what, sizeof(what), "%s, kernel %s",
				 pictures[pic], kern);
			report(what, &up, &turned);
		}
		/* The same damage, so the same bytes: the passes were
		 * full frames on both sides. */
		if (!strcmp(kern, "c"))
			break;
	}
	rotkern_force(NULL);
	ret = 0;
out:
	side_close(&turned);
	side_close(&up);
	console_close(&out);
	return ret;
}
