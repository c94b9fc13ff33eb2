/* vncfb bench: render latency per framebuffer update, from the arrival of
 * its first byte to its last rectangle in the output mapping, with the
 * references (memcpy of the same bytes, a bare decode loop, every core)
 * measured in the same run. Main thread. */
#ifndef VNCFB_BENCH_H
#define VNCFB_BENCH_H

#include "config/opts.h"

/* Run the benchmark described by o (mode MODE_BENCH). Returns the exit
 * status: 0 done, 1 runtime failure, 2 usage error. */
int bench_run(struct options *o);

#endif
