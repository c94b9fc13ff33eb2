/* vncfb bench: render latency per framebuffer update, from the arrival of
 * its first byte to its last rectangle in the output mapping, with the
 * references (memcpy of the same bytes, a bare decode loop, every core)
 * measured in the same run. Main thread. */
#ifndef VNCFB_BENCH_H
#define VNCFB_BENCH_H

#include <stddef.h>
#include <stdint.h>

#include "opts.h"

/* Run the benchmark described by o (mode MODE_BENCH). Returns the exit
 * status: 0 done, 1 runtime failure, 2 usage error. */
int bench_run(struct options *o);

/* Nearest-rank quantile (0 < q <= 1) of n sorted values; 0 when n == 0.
 * Exposed for tests. */
uint64_t bench_quantile(const uint64_t *sorted, size_t n, double q);

#endif
