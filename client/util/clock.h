/* Time helpers: the monotonic clock in nanoseconds, and deadlines for
 * timed waits on condition variables. Any thread. */
#ifndef VNCFB_CLOCK_H
#define VNCFB_CLOCK_H

#include <stdint.h>
#include <time.h>

/* Clock c (CLOCK_MONOTONIC, a thread's or the process's CPU clock, ...)
 * in nanoseconds; 0 when it cannot be read (a thread that is gone). */
uint64_t clock_ns(clockid_t c);
/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t monotonic_ns(void);
/* ms milliseconds (>= 0) from now on clock, as pthread_cond_timedwait
 * wants it (for a condition variable on that clock). */
struct timespec deadline_in_ms(clockid_t clock, int ms);

#endif
