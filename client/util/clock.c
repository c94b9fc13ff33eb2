/* Time helpers (clock.h). */
#include "config.h"

#include "util/clock.h"

uint64_t clock_ns(clockid_t c)
{
	struct timespec ts;

	if (clock_gettime(c, &ts) < 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t monotonic_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

struct timespec deadline_in_ms(clockid_t clock, int ms)
{
	struct timespec ts;
	uint64_t ns;

	clock_gettime(clock, &ts);
	ns = (uint64_t)ts.tv_nsec + (uint64_t)ms * 1000000u;
	ts.tv_sec += (time_t)(ns / 1000000000u);
	ts.tv_nsec = (long)(ns % 1000000000u);
	return ts;
}
