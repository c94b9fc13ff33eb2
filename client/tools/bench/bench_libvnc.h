/* vncfb bench's reference loop: libvncclient's own decoders in place of
 * vncfb's reader, for the "bare" runs (bench_libvnc.c).
 *
 * Threads: main thread, as the connection it is set in. */
#ifndef VNCFB_BENCH_LIBVNC_H
#define VNCFB_BENCH_LIBVNC_H

#include "net/vnc.h"

/* For vnc_config.reference. */
extern const struct vnc_reference bench_libvnc_reference;

#endif
