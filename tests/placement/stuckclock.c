/* LD_PRELOAD shim for the tests: a thread CPU clock that stops on core 0,
 * as a guest's per-core sched_clock can (seen in CI under QEMU's TCG:
 * every probe sample on core 0 read 0 ns). Only threads pinned to core 0
 * alone see it; the main thread, unpinned, keeps the real clock.
 * STUCKCLOCK_AFTER=N: the clock stops after N reads in that thread (0:
 * from the first), so both the probe's clock check and its samples can be
 * made to meet it. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <sched.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>

typedef int (*gettime_fn)(clockid_t, struct timespec *);

static __thread unsigned long reads;
static __thread bool frozen;
static __thread struct timespec frozen_at;

static bool pinned_to_core0(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set) != 0)
		return false;
	return CPU_COUNT(&set) == 1 && CPU_ISSET(0, &set);
}

int clock_gettime(clockid_t id, struct timespec *ts)
{
	static gettime_fn real;
	const char *after;
	int ret;

	if (!real)
		real = (gettime_fn)dlsym(RTLD_NEXT, "clock_gettime");
	if (id != CLOCK_THREAD_CPUTIME_ID || !pinned_to_core0())
		return real(id, ts);
	if (frozen) {
		*ts = frozen_at;
		return 0;
	}
	ret = real(id, ts);
	after = getenv("STUCKCLOCK_AFTER");
	if (ret == 0 && reads++ >= (after ? strtoul(after, NULL, 10) : 0)) {
		frozen = true;
		frozen_at = *ts;
	}
	return ret;
}
