/* The bench server: an embedded libvncserver on loopback that serves
 * deterministic workloads for vncfb bench, one new frame per update
 * request, so the client sets the pace and the same stream can be replayed
 * for the pipeline and for the bare decode loop.
 *
 * Threads: benchsrv_* calls are main-thread only; frames are produced on
 * libvncserver's per-client output thread, right after an update is sent. */
#ifndef VNCFB_BENCHSRV_H
#define VNCFB_BENCHSRV_H

#include <stddef.h>
#include <stdint.h>

#include "shadow/pixfmt.h"

enum bench_workload {
	BENCH_FULLFRAME, /* every pixel changes each frame (video) */
	BENCH_SCROLL,	 /* text scrolls a line up (CopyRect + 1 line) */
	BENCH_TYPING,	 /* a few glyph-sized rects change */
	BENCH_IDLE,	 /* nothing changes */
	/* fullframe's frames, which vncfb bench serves both from a desktop
	 * 3/2 the output's size (drawn scaled to fit) and from one of the
	 * output's size (1:1), to price the scaler against a plain blit. */
	BENCH_FIT,
	BENCH_WORKLOADS
};

struct benchsrv;

/* Name <-> workload. -1 for an unknown name. */
int benchsrv_workload_from_name(const char *name, size_t len);
const char *benchsrv_workload_name(enum bench_workload w);

/* Serve a w x h desktop in fmt (true colour, 8/16/32 bpp) on 127.0.0.1,
 * on a free port. NULL on failure (logged). */
struct benchsrv *benchsrv_start(uint32_t w, uint32_t h,
				const struct pixfmt *fmt);
int benchsrv_port(const struct benchsrv *s);
/* Wait until no client is connected (timeout_ms), then reset the scene to
 * frame 0 of w for the next client. 0 or -ETIMEDOUT (logged). */
int benchsrv_prepare(struct benchsrv *s, enum bench_workload w, int timeout_ms);
/* Encodings the server counts rectangles for (index 0..BENCHSRV_ENCODINGS-1).
 */
#define BENCHSRV_ENCODINGS 13
const char *benchsrv_encoding_name(int i);
/* Wait for the last client to go, then add the rectangles it was sent per
 * encoding to counts[] and the bytes it was sent to *bytes. */
void benchsrv_take_stats(struct benchsrv *s,
			 uint64_t counts[BENCHSRV_ENCODINGS], uint64_t *bytes);
void benchsrv_stop(struct benchsrv *s);

#endif
