/* Outputs: where the picture goes (fbdev, wsdisplay, mem). Backends are
 * const ops tables.
 *
 * Threads: open/close/dispatch/set_active run on the main thread;
 * write_rows, and anything else that touches the mapping, only on the blit
 * thread (or before it starts / after it stops). */
#ifndef VNCFB_OUTPUT_H
#define VNCFB_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pixfmt.h"
#include "rect.h"

struct output;

/* What an output's main-thread events (VT switches) ask of the session. */
struct output_events {
	void *ctx;
	/* Stop drawing; returns once the blitter no longer touches the
	 * mapping. */
	void (*suspend)(void *ctx);
	/* Drawing may resume; the whole screen must be redrawn. */
	void (*resume)(void *ctx);
};

struct output_impl {
	const char *name;
	/* Open from the part of the spec after "name:" (may be NULL). Fills
	 * width, height, stride, fmt and map. Returns 0 or -errno, having
	 * logged why. Required. */
	int (*open)(struct output *out, const char *arg);
	/* Undo open and restore the device (console mode, colour map).
	 * Idempotent. Required. */
	void (*close)(struct output *out);
	/* Copy one row of len bytes into the mapping at dst. NULL: memcpy.
	 * Blit thread only. */
	void (*write_row)(struct output *out, uint8_t *dst, const uint8_t *src,
			  size_t len);
	/* Whether the blit thread, where it runs now, may store pixels
	 * straight into the mapping (streaming stores, as
	 * output_copy_stream) instead of through write_row. NULL: when
	 * write_row is NULL. Blit thread only. */
	bool (*direct)(struct output *out);
	/* Called after a blit pass with the output rectangles written (e.g.
	 * to flush a deferred-io device). Optional. Blit thread only. */
	void (*flush)(struct output *out, const struct rect *rects, int n);
	/* Handle readable out->fd (VT switch signals). Optional. */
	int (*dispatch)(struct output *out, const struct output_events *ev);
	/* Restore the console from a fatal-signal handler: only
	 * async-signal-safe calls. Optional. */
	void (*emergency_restore)(struct output *out);
	/* Whether open(arg) would find its device and may use it, without
	 * touching the console (--check-config, the checks before a run).
	 * 0 or -errno, logged as open would. Optional. */
	int (*check)(const char *arg);
};

struct output {
	const struct output_impl *impl;
	uint32_t width, height;
	size_t stride;		/* bytes per row of the mapping */
	struct pixfmt fmt;
	uint8_t *map;		/* first visible pixel */
	/* Reading the mapping is cheap (RAM) and allowed: mem output. */
	bool readable;
	/* fd for the main loop to poll (VT switch events), or -1. */
	int fd;
	/* Core from which writes to the mapping are made uncached (mem
	 * output's slow-cpu=N), -1 for none. */
	int slow_cpu;
	void *priv;
};

/* Parse "name[:arg]" and open that output. name "default" (or NULL spec)
 * picks the platform's console output when it can be opened, else mem.
 * Returns 0 or -errno (logged). */
int output_open(struct output *out, const char *spec);
void output_close(struct output *out);
/* The spec grammar check alone (no device opened), for usage errors. */
int output_check_spec(const char *spec);
/* Whether a named output's device is there and usable (impl->check); the
 * default output is not checked here (its open decides). 0 or -errno,
 * logged. */
int output_check_device(const char *spec);
/* This platform's outputs as specs for messages and --help, the default
 * one first: "fbdev[:DEVICE]" on Linux, "wsdisplay[:DEVICE]" on NetBSD,
 * several joined by ", ". Fills buf (size bytes) and returns it. */
char *output_platform_specs(char *buf, size_t size);

void output_write_row(struct output *out, uint8_t *dst, const uint8_t *src,
		      size_t len);
/* See output_impl.direct. Blit thread only. */
bool output_direct(struct output *out);

/* Row copy with non-temporal (streaming) stores where the CPU has them,
 * memcpy elsewhere and for short rows: for write-only mappings (a
 * framebuffer nobody reads back). Call output_copy_stream_end() once after
 * the last row of a pass (e.g. from the flush hook) to order the stores.
 * Blit thread. */
void output_copy_stream(uint8_t *dst, const uint8_t *src, size_t len);
void output_copy_stream_end(void);

extern const struct output_impl output_mem_impl;

/* Largest side of a mem output. */
#define OUTPUT_MEM_MAX_DIM 8192

/* mem output spec helper: "WxH[:FORMAT][,slow-cpu=N]". */
int output_mem_parse(const char *arg, uint32_t *w, uint32_t *h,
		     struct pixfmt *fmt, int *slow_cpu);

#endif
