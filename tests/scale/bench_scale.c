/* Benchmark, run by hand: full-frame blits through the real blitter into
 * a mem output, scaled (1920x1080 remote in fit) against unscaled
 * (1280x720 remote, 1:1) in the same run, interleaved so that noise hits
 * both alike. Prints median/p99/max per case and the ratio of medians,
 * in wall-clock time and in the thread's CPU time (which leaves out the
 * time other processes take the core away: this machine may be shared).
 *
 * usage: bench_scale [-o mem:WxH[:FMT]] [-n FRAMES] [-s c|sse2|ssse3|avx2]
 *                    [-r WxH (scaled remote)] [-m fit|fill|N] */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "blit/blit.h"
#include "util/clock.h"
#include "shadow/damage.h"
#include "util/log.h"
#include "output/output.h"
#include "platform/platform.h"
#include "view/scale.h"
#include "view/view.h"
#include "shadow/shadow.h"

struct rig {
	const char *name;
	struct shadow sh;
	struct damage dmg;
	struct blitter *b;
	uint64_t *ns;
	uint64_t *cpu_ns;
};

static uint64_t thread_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int rig_init(struct rig *r, const char *name, struct output *out,
		    uint32_t w, uint32_t h, enum scale_mode mode, unsigned zoom,
		    int frames)
{
	struct pixfmt f;
	uint8_t *pix;
	size_t i, n;
	uint32_t seed = 12345;

	r->name = name;
	pixfmt_shadow_for(&out->fmt, &f);
	if (shadow_init(&r->sh, &f) < 0 || damage_init(&r->dmg) < 0)
		return -1;
	pix = shadow_resize(&r->sh, w, h);
	if (!pix)
		return -1;
	/* Text-like noise: the filter does the same work on any content,
	 * but a flat picture would flatter the caches of nothing. */
	n = r->sh.stride * h;
	for (i = 0; i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		pix[i] = (uint8_t)(seed >> 16);
	}
	if (!(r->b = blit_create(out, &r->sh, &r->dmg, -1)))
		return -1;
	blit_set_scale(r->b, mode, zoom);
	blit_reset_view(r->b);
	r->ns = calloc((size_t)frames, sizeof(*r->ns));
	r->cpu_ns = calloc((size_t)frames, sizeof(*r->cpu_ns));
	return r->ns && r->cpu_ns ? 0 : -1;
}

static void rig_frame(struct rig *r, int i)
{
	struct damage_set set;
	struct blit_stats st;
	uint64_t t0;

	memset(&set, 0, sizeof(set));
	set.rects[0] =
	    (struct rect){0, 0, (int32_t)r->sh.width, (int32_t)r->sh.height};
	set.n = 1;
	memset(&st, 0, sizeof(st));
	t0 = thread_ns();
	blit_pass(r->b, &set, &st);
	r->cpu_ns[i] = thread_ns() - t0;
	r->ns[i] = st.end_ns - st.start_ns;
}

static void report(const char *name, uint64_t *ns, int frames, uint64_t *median)
{
	qsort(ns, (size_t)frames, sizeof(*ns), cmp_u64);
	*median = ns[frames / 2];
	printf("  %-32s median %7.3f ms  p99 %7.3f ms  max %7.3f ms\n", name,
	       ns[frames / 2] / 1e6, ns[(frames * 99) / 100] / 1e6,
	       ns[frames - 1] / 1e6);
}

int main(int argc, char **argv)
{
	const char *spec = "mem:1280x720", *simd = "auto", *mode_s = "fit";
	uint32_t rw = 1920, rh = 1080;
	int frames = 300, c, i, cpu;
	struct output out;
	struct rig plain, scaled;
	enum scale_mode mode;
	unsigned zoom;
	uint64_t m_plain, m_scaled, t0, t1;
	uint8_t *a, *bb;
	size_t bytes;
	char name[64], fname[32];

	while ((c = getopt(argc, argv, "o:n:s:r:m:")) != -1) {
		switch (c) {
		case 'o':
			spec = optarg;
			break;
		case 'n':
			frames = atoi(optarg);
			break;
		case 's':
			simd = optarg;
			break;
		case 'r':
			if (sscanf(optarg, "%ux%u", &rw, &rh) != 2 || !rw ||
			    !rh || rw > 8192 || rh > 8192) {
				fprintf(stderr, "bench_scale: bad -r %s\n",
					optarg);
				return 2;
			}
			break;
		case 'm':
			mode_s = optarg;
			break;
		default:
			fprintf(stderr, "usage: bench_scale [-o SPEC] [-n N] "
					"[-s c|sse2|ssse3|avx2] [-r WxH] "
					"[-m fit|fill|N]\n");
			return 2;
		}
	}
	if (frames < 10 || frames > 100000) {
		fprintf(stderr, "bench_scale: -n wants 10..100000\n");
		return 2;
	}
	if (scale_parse(mode_s, &mode, &zoom) < 0) {
		fprintf(stderr, "bench_scale: bad -m %s\n", mode_s);
		return 2;
	}
	if (scale_simd_set(simd) < 0) {
		fprintf(stderr, "bench_scale: kernels '%s' unavailable here\n",
			simd);
		return 1;
	}
	if (output_open(&out, spec) < 0)
		return 1;
	if (rig_init(&plain, "unscaled 1:1 (remote = output)", &out, out.width,
		     out.height, SCALE_NONE, 1, frames) < 0)
		return 1;
	snprintf(name, sizeof(name), "scaled %ux%u %s", rw, rh, mode_s);
	if (rig_init(&scaled, name, &out, rw, rh, mode, zoom, frames) < 0)
		return 1;
	cpu = platform_current_cpu();
	/* Warm up, then interleave. */
	for (i = 0; i < 10; i++) {
		rig_frame(&plain, 0);
		rig_frame(&scaled, 0);
	}
	for (i = 0; i < frames; i++) {
		rig_frame(&plain, i);
		rig_frame(&scaled, i);
	}
	printf("output %s %s, kernels %s, core %d, %d frames each\n",
	       out.impl->name, pixfmt_name(&out.fmt, fname, sizeof(fname)),
	       scale_simd_name(), cpu, frames);
	printf("wall-clock time:\n");
	report(plain.name, plain.ns, frames, &m_plain);
	report(scaled.name, scaled.ns, frames, &m_scaled);
	printf("ratio scaled/unscaled (medians, wall): %.2f\n",
	       (double)m_scaled / (double)m_plain);
	printf("thread CPU time:\n");
	report(plain.name, plain.cpu_ns, frames, &m_plain);
	report(scaled.name, scaled.cpu_ns, frames, &m_scaled);
	printf("ratio scaled/unscaled (medians, CPU): %.2f\n",
	       (double)m_scaled / (double)m_plain);
	/* The floor: memcpy of the output's bytes, RAM to RAM. */
	bytes = out.stride * out.height;
	a = malloc(bytes);
	bb = malloc(bytes);
	if (a && bb) {
		uint64_t best = UINT64_MAX;

		memset(a, 1, bytes);
		memset(bb, 2, bytes);
		for (i = 0; i < 50; i++) {
			t0 = monotonic_ns();
			memcpy(bb, a, bytes);
			t1 = monotonic_ns();
			if (t1 - t0 < best)
				best = t1 - t0;
		}
		printf("  %-32s best   %7.3f ms\n",
		       "memcpy of one output frame", best / 1e6);
	}
	free(a);
	free(bb);
	printf("target: scaled <= 2x unscaled\n");
	blit_destroy(plain.b);
	blit_destroy(scaled.b);
	output_close(&out);
	return 0;
}
