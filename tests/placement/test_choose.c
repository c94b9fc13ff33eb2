/* The placement choice and the warnings, on made-up probe results: ties,
 * slow cores, offline cores, no pinning, a mapping uncached on every core
 * with and without the kernel's memory type. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "placement/probe.h"
#include "../check.h"

static struct probe_core cores[8];

static void setup(struct probe_result *r, int n, int main_cpu)
{
	int i;

	memset(r, 0, sizeof(*r));
	memset(cores, 0, sizeof(cores));
	r->ncores = n;
	r->cores = cores;
	r->main_cpu = main_cpu;
	for (i = 0; i < n; i++) {
		cores[i].cpu = i;
		cores[i].state = PROBE_MEASURED;
		cores[i].ran_on = i;
		cores[i].samples = 9;
	}
}

static void core(int i, double fb, double ram)
{
	cores[i].fb_ms = fb;
	cores[i].ram_ms = ram;
	cores[i].ratio = fb / ram;
	cores[i].frame_ms = fb * 8;
	cores[i].ram_frame_ms = ram * 8;
}

int main(void)
{
	struct probe_result r;
	char w[512];

	/* Equal cores: not the main thread's core. */
	setup(&r, 2, 0);
	core(0, 1.00, 1.00);
	core(1, 1.02, 1.00);
	probe_choose(&r);
	CHECK(r.chosen == 1, "tie, main on 0: chose %d", r.chosen);
	CHECK(!probe_warning(&r, w, sizeof(w)), "tie warned: %s", w);
	setup(&r, 2, 1);
	core(0, 1.02, 1.00);
	core(1, 1.00, 1.00);
	probe_choose(&r);
	CHECK(r.chosen == 0, "tie, main on 1: chose %d", r.chosen);

	/* Outside the tie margin the fastest wins even on the main core. */
	setup(&r, 2, 0);
	core(0, 1.00, 1.00);
	core(1, 1.00 * (1 + PROBE_TIE) * 1.05, 1.00);
	probe_choose(&r);
	CHECK(r.chosen == 0, "no tie: chose %d", r.chosen);
	CHECK(!probe_warning(&r, w, sizeof(w)), "mild difference warned");

	/* The NetBSD report: CPU 1 51.79 ms, CPU 0 4.72 ms, RAM 3.59 ms. */
	setup(&r, 2, 1);
	core(0, 4.72, 3.59);
	core(1, 51.79, 3.59);
	probe_choose(&r);
	CHECK(r.chosen == 0, "slow core 1: chose %d", r.chosen);
	CHECK(cores[1].slow && !cores[0].slow, "slow flags %d %d",
	      cores[0].slow, cores[1].slow);
	CHECK(probe_warning(&r, w, sizeof(w)), "no warning for 11x");
	CHECK(strstr(w, "core 1") && strstr(w, "PAT") &&
		      strstr(w, "from core 0") && strstr(w, "avoids it"),
	      "warning text: %s", w);
	CHECK(strstr(w, "11x") != NULL, "warning factor: %s", w);

	/* Several slow cores: one warning naming all of them. */
	setup(&r, 4, 0);
	core(0, 2.0, 1.0);
	core(1, 40.0, 1.0);
	core(2, 2.05, 1.0);
	core(3, 60.0, 1.0);
	probe_choose(&r);
	CHECK(r.chosen == 2, "4 cores: chose %d", r.chosen);
	CHECK(probe_warning(&r, w, sizeof(w)) && strstr(w, "cores 1, 3") &&
		      strstr(w, "avoids them"),
	      "4 cores warning: %s", w);

	/* A slow fb that is slow on every core is not a per-core problem:
	 * the whole mapping looks uncached. */
	setup(&r, 2, 0);
	core(0, 50.0, 1.0);
	core(1, 52.0, 1.0);
	probe_choose(&r);
	CHECK(probe_uncached(&r), "50x on every core: not uncached");
	CHECK(!cores[0].slow && !cores[1].slow, "uniform: slow flags");
	CHECK(probe_warning(&r, w, sizeof(w)), "uniformly slow: no warning");
	CHECK(strstr(w, "looks uncached") && strstr(w, "52x") &&
		      strstr(w, "chosen core 1: 416.0 ms a frame") &&
		      strstr(w, platform_uncached_hint()) &&
		      !strstr(w, "kernel maps") && !strstr(w, "slower still"),
	      "uncached warning: %s", w);
	CHECK(strlen(w) < PROBE_WARNING_LEN - 1, "warning cut: %zu bytes",
	      strlen(w));

	/* The threshold: write-combining's 1-3x and a margin are not. */
	setup(&r, 2, 0);
	core(0, PROBE_UNCACHED_RATIO * 0.95, 1.0);
	core(1, PROBE_UNCACHED_RATIO * 0.97, 1.0);
	probe_choose(&r);
	CHECK(!probe_uncached(&r) && !probe_warning(&r, w, sizeof(w)),
	      "just below the threshold warned: %s", w);
	core(0, PROBE_UNCACHED_RATIO * 1.05, 1.0);
	core(1, PROBE_UNCACHED_RATIO * 1.07, 1.0);
	probe_choose(&r);
	CHECK(probe_uncached(&r), "just above the threshold: not uncached");

	/* The kernel's word is quoted. */
	setup(&r, 2, 0);
	core(0, 40.0, 1.0);
	core(1, 41.0, 1.0);
	r.phys_start = 0xfd000000;
	r.phys_len = 6u << 20;
	r.memtype.kind = MEMTYPE_UNCACHED_MINUS;
	snprintf(r.memtype.name, sizeof(r.memtype.name), "uncached-minus");
	probe_choose(&r);
	CHECK(probe_warning(&r, w, sizeof(w)) && strstr(w, "looks uncached") &&
		      strstr(w, "the kernel maps it uncached-minus;"),
	      "uncached-minus warning: %s", w);
	/* ... and when it says write-combining, the mapping is not blamed. */
	r.memtype.kind = MEMTYPE_WRITE_COMBINING;
	snprintf(r.memtype.name, sizeof(r.memtype.name), "write-combining");
	CHECK(probe_warning(&r, w, sizeof(w)) &&
		      !strstr(w, "looks uncached") &&
		      strstr(w, "although the kernel maps it "
				"write-combining") &&
		      strstr(w, "41x"),
	      "write-combining warning: %s", w);
	/* Unknown (unreadable) is not quoted. */
	r.memtype_err = -EACCES;
	CHECK(probe_warning(&r, w, sizeof(w)) && strstr(w, "looks uncached") &&
		      !strstr(w, "kernel maps"),
	      "unreadable memtype quoted: %s", w);

	/* Uncached everywhere and one core far worse still: one warning
	 * saying both. */
	setup(&r, 4, 0);
	core(0, 20.0, 1.0);
	core(1, 21.0, 1.0);
	core(2, 20.5, 1.0);
	core(3, 200.0, 1.0);
	probe_choose(&r);
	CHECK(probe_warning(&r, w, sizeof(w)) && strstr(w, "looks uncached") &&
		      strstr(w, "core 3 slower still (up to 10x), avoided"),
	      "uncached and slow: %s", w);
	CHECK(strlen(w) < PROBE_WARNING_LEN - 1, "warning cut: %zu bytes",
	      strlen(w));

	/* Offline and unpinnable cores are never chosen. */
	setup(&r, 3, 0);
	core(0, 5.0, 1.0);
	core(1, 1.0, 1.0);
	core(2, 0.5, 1.0);
	cores[1].state = PROBE_OFFLINE;
	cores[2].state = PROBE_PIN_FAILED;
	cores[2].pin_error = -EINVAL;
	probe_choose(&r);
	CHECK(r.chosen == 0, "offline/pin-failed: chose %d", r.chosen);

	/* An early-stopped core still counts as measured (and slow). */
	setup(&r, 2, 0);
	core(0, 1.0, 1.0);
	core(1, 80.0, 1.0);
	cores[1].state = PROBE_STOPPED;
	probe_choose(&r);
	CHECK(r.chosen == 0 && cores[1].slow, "stopped: chose %d", r.chosen);

	/* No pinning at all: unpinned, no choice, no warning. */
	setup(&r, 1, 0);
	cores[0].cpu = -1;
	core(0, 1.0, 1.0);
	r.pin_denied = true;
	r.pin_error = -EPERM;
	probe_choose(&r);
	CHECK(r.chosen == -1, "pin denied: chose %d", r.chosen);
	CHECK(strstr(r.reason, "not permitted") != NULL, "reason %s",
	      r.reason);
	CHECK(!probe_warning(&r, w, sizeof(w)), "pin denied warned");
	/* ... but an uncached mapping shows in the unpinned measurement. */
	core(0, 30.0, 1.0);
	probe_choose(&r);
	CHECK(probe_uncached(&r) && probe_warning(&r, w, sizeof(w)) &&
		      strstr(w, "(unpinned: 240.0 ms a frame"),
	      "pin denied, uncached: %s", w);

	if (failures)
		fprintf(stderr, "%d check(s) failed\n", failures);
	return failures ? 1 : 0;
}
