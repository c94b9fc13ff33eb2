/* Outputs: where the picture goes (drm, fbdev, wsdisplay, mem). Backends
 * are const ops tables.
 *
 * Threads: open/close/dispatch run on the main thread; write_row,
 * begin/present/finish, and anything else that touches the mapping, only
 * on the blit thread (or before it starts / after it stops). */
#ifndef VNCFB_OUTPUT_H
#define VNCFB_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "shadow/pixfmt.h"
#include "util/rect.h"

struct output;

/* Heads one output may span (layout.h's LAYOUT_MAX_HEADS). */
#define OUTPUT_MAX_HEADS 8
#define OUTPUT_NAME_LEN 32

/* What the buffer a blit pass draws into holds (output_impl.begin). */
enum output_buffer {
	OUTPUT_BUF_UNKNOWN,	/* anything: redraw the whole screen */
	OUTPUT_BUF_CURRENT,	/* what is on screen: draw the new damage */
	/* The screen as it was before the last pass (double buffering):
	 * draw what that pass drew as well as the new damage. */
	OUTPUT_BUF_PREVIOUS,
};

/* What an output's main-thread events (VT switches, hot-plug) ask of the
 * session, which passes them on to the blitter and the input (input.h). */
struct output_events {
	void *ctx;
	/* Another console takes the screen: stop drawing and let go of the
	 * input; returns once the blitter no longer touches the mapping. */
	void (*suspend)(void *ctx);
	/* Ours again: take the input back; drawing may resume, and the
	 * whole screen must be redrawn. */
	void (*resume)(void *ctx);
	/* The displays changed (a connector plugged in, unplugged, or given
	 * another preferred mode): stop drawing, output_reconfigure, and
	 * draw anew on what it says. 0, or -errno to end the session. NULL:
	 * the output stays as it is. */
	int (*changed)(void *ctx);
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
	/* Start a blit pass: point out->map at the buffer to draw into and
	 * say what it holds. Called before the blitter takes its locks, so
	 * it may wait (a page flip still on its way). NULL: out->map is the
	 * screen, OUTPUT_BUF_CURRENT. Blit thread only. */
	enum output_buffer (*begin)(struct output *out);
	/* End a pass that wrote rects (screen coordinates, n > 0): hand them
	 * to the display (page flip, dirty-fb ioctl, a fence for streaming
	 * stores). Inside the pass, with the blitter's locks held: must not
	 * wait for the display. Optional. Blit thread only. */
	void (*present)(struct output *out, const struct rect *rects, int n);
	/* After present, outside the locks: wait until the pass is on the
	 * display and return when it got there (monotonic ns, as the device
	 * reports it: a flip's completion event), or 0 when the output does
	 * not know. Optional. Blit thread only. */
	uint64_t (*finish)(struct output *out);
	/* Take the displays as they are now, after output_events.changed,
	 * with nothing drawing (the blitter stopped): 0 when the output is
	 * re-made (width, height, stride and map may be new, the screen is
	 * black), -ENODEV while it has no display to show on (the next
	 * changed may bring one), another -errno when it cannot go on
	 * (logged); 0 with waiting set for a stand-in display (see there).
	 * Optional. Main thread. */
	int (*reconfigure)(struct output *out);
	/* Handle readable out->fd (VT switch signals, hot-plug).
	 * Optional. */
	int (*dispatch)(struct output *out, const struct output_events *ev);
	/* Restore the console from a fatal-signal handler, or from the
	 * supervisor once vncfb has died (console/supervise.h): only
	 * async-signal-safe calls. The supervisor's out is its copy from
	 * the fork after open: what changes later (heads plugged in) must
	 * be in memory open made shared (MAP_SHARED) to reach it.
	 * Optional. */
	void (*emergency_restore)(struct output *out);
	/* Whether the default device exists at all, before the default
	 * output tries to open it: 0, or -ENOENT with a few words on what is
	 * missing in why. NULL: assume it does. Main thread. */
	int (*detect)(char *why, size_t len);
	/* Check the part of a spec after "name:" without opening anything
	 * (for usage errors): 0, or -EINVAL with why (len bytes) saying
	 * what is wrong. NULL: anything goes. */
	int (*check_arg)(const char *arg, char *why, size_t len);
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
	/* fd for the main loop to poll (VT switch and hot-plug events), or
	 * -1. */
	int fd;
	/* Core from which writes to the mapping are made uncached (mem
	 * output's slow-cpu=N), -1 for none. */
	int slow_cpu;
	/* The physical range of the video memory behind map, for the probe's
	 * report of the kernel's memory type (platform_memtype); phys_len 0
	 * when unknown or not device memory (mem, a shadow in RAM). Set by
	 * open. */
	uint64_t phys_start, phys_len;
	/* Set for open when the output is only tried (the default output
	 * with another to fall back on): then open puts its one-line reason
	 * for failing in why, at debug level, instead of logging an
	 * error. */
	bool trial;
	char why[256];
	/* The connector's name ("HDMI-A-1"), for layouts and messages; ""
	 * when the output has none. Set by open. */
	char name[OUTPUT_NAME_LEN];
	/* One desktop across several heads (drm:all, --connector A,B): this
	 * output is the first, heads[1..nheads-1] the others, each with its
	 * own geometry, mapping and pass hooks (its fd -1, no dispatch, not
	 * closed on its own: it is opened, restored and closed with this
	 * one, also by emergency_restore and reconfigure, which may change
	 * how many there are). nheads 0 or 1: this output alone. Set by open
	 * and reconfigure, main thread. */
	unsigned nheads;
	struct output *heads[OUTPUT_MAX_HEADS];
	/* Set for open (OUTPUT_OPEN_WAIT, never with trial) when the caller
	 * runs on without a display (a session): an output whose device is
	 * there but has no display connected yet may then open with
	 * waiting set, instead of failing. */
	bool may_wait;
	/* Open found no display to show on: map is a buffer of width x
	 * height that nobody sees (the probe and the blitter work on it as
	 * ever), and a later output_events.changed, whose reconfigure
	 * finds a display, brings one. After a reconfigure that returned
	 * 0: the display is a stand-in, connected but not the one asked
	 * for, to show why on, never the desktop. While waiting, why says
	 * what for (one line, for the status line). Main thread. */
	bool waiting;
	/* Clockwise quarter turns (0-3) the display itself gives the
	 * picture: DRM's plane rotation, where the driver offers the angle
	 * output_want_rotation asked of this head. width and height are
	 * the turned (upright picture's) size then, and the blitter
	 * draws upright. 0: the display shows the mapping as it is. Set
	 * by open and reconfigure. */
	unsigned turned;
	void *priv;
};

/* The --rotate spec (rotate.h's grammar, checked) for outputs that can
 * turn the scanout to look up their heads' angles in at open; NULL:
 * none. Main thread, before output_open. */
void output_want_rotation(const char *spec);
const char *output_wanted_rotation(void);

/* Head i of out (0: out itself), i < output_nheads(out). */
struct output *output_head(struct output *out, unsigned i);
unsigned output_nheads(const struct output *out);

/* output_open_flags: a session that may wait for a display (may_wait). */
#define OUTPUT_OPEN_WAIT 1u

/* Parse "name[:arg]" and open that output. "default" (or a NULL spec) is
 * the platform's console output: the first of platform_outputs that is
 * present and opens (-v says which and why); none is an error. "auto" is
 * the same, except that a machine with no console output at all gets mem
 * (the demo). Returns 0 or -errno (logged). */
int output_open(struct output *out, const char *spec);
/* output_open with OUTPUT_OPEN_* flags. With OUTPUT_OPEN_WAIT, the
 * default output ("default", not "auto") opens one that has no display
 * yet (it failed its trial with -ENXIO) waiting for one, when no other
 * console output is there at all. */
int output_open_flags(struct output *out, const char *spec, unsigned flags);
void output_close(struct output *out);
/* impl->reconfigure (see there); -ENOTSUP for an output without it. */
int output_reconfigure(struct output *out);
/* The spec grammar check alone (no device opened), for usage errors.
 * 0, or -errno with why (len bytes) saying what the backend refused
 * ("" when it did not say). */
int output_check_spec(const char *spec, char *why, size_t len);
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
/* Whether what the blitter writes is on the screen as it is written (the
 * mapping is the scanout: fbdev, wsdisplay, mem), rather than shown a
 * pass at a time (a page flip). */
bool output_live(const struct output *out);
/* The pass hooks (output_impl.begin/present/finish) with their defaults.
 * Blit thread only. */
enum output_buffer output_begin(struct output *out);
void output_present(struct output *out, const struct rect *rects, int n);
uint64_t output_finish(struct output *out);

/* Row copy with non-temporal (streaming) stores where the CPU has them,
 * memcpy elsewhere and for short rows: for write-only mappings (a
 * framebuffer nobody reads back). Call output_copy_stream_end() once after
 * the last row of a pass (e.g. from the present hook) to order the stores.
 * Blit thread. */
void output_copy_stream(uint8_t *dst, const uint8_t *src, size_t len);
void output_copy_stream_end(void);

extern const struct output_impl output_mem_impl;

/* Largest side of a mem output. */
#define OUTPUT_MEM_MAX_DIM 8192

/* mem output spec helper: "WxH[:FORMAT][,slow-cpu=N][,uncached]". */
int output_mem_parse(const char *arg, uint32_t *w, uint32_t *h,
		     struct pixfmt *fmt, int *slow_cpu, bool *uncached);

#endif
