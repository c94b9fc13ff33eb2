/* Input sources: local keyboards and pointers, turned into keysyms and
 * pointer motion for the session. Main thread only. */
#ifndef VNCFB_INPUT_H
#define VNCFB_INPUT_H

#include <stdbool.h>
#include <stdint.h>

/* Where input events go. Coordinates are in output (screen) pixels; the
 * session maps them to the remote desktop. */
struct input_sink {
	void *ctx;
	/* keysym: X11 keysym; scancode: XT/QEMU scancode (0xe0 prefix as
	 * 0x80|code) or 0 when unknown. */
	void (*key)(void *ctx, uint32_t keysym, uint32_t scancode, bool down);
	/* Relative motion in screen pixels. */
	void (*motion_rel)(void *ctx, int dx, int dy);
	/* Absolute position as a fraction of the screen, 0..1. */
	void (*motion_abs)(void *ctx, double fx, double fy);
	/* RFB button number 1..9 (1 left, 2 middle, 3 right, 4/5 wheel
	 * up/down, 6/7 wheel left/right, 8/9 back/forward). */
	void (*button)(void *ctx, int button, bool down);
	/* The quit chord. */
	void (*quit)(void *ctx);
	/* Pan the view (a desktop larger than the screen) by (dx, dy)
	 * steps of 1/8 of the screen: the pan hotkeys. 8 is a screen, a
	 * large value goes to the edge. Optional (may be NULL). */
	void (*pan)(void *ctx, int dx, int dy);
	/* The scale hotkey: switch between the configured --scale and 1:1
	 * (see session.c). Optional (may be NULL). */
	void (*scale)(void *ctx);
	/* Clockwise quarter turns (0-3) of the picture on the panel that
	 * absolute devices point on (--rotate): a touch gesture's
	 * direction turns with it. Optional (NULL: upright). */
	unsigned (*turns)(void *ctx);
};

/* What a multi-touch screen is (--touch). */
enum input_touch {
	INPUT_TOUCH_GESTURES, /* taps, drags, scroll, pinch: input/gesture.h */
	INPUT_TOUCH_POINTER,  /* an absolute pointer, a touch is button 1 */
};

struct input_config {
	const char *devices;	/* comma-separated paths, NULL: autodetect */
	const char *keymap;	/* "layout[:variant]", NULL: default */
	bool grab;
	enum input_touch touch;
};

struct input;

struct input_impl {
	const char *name;
	/* Open devices. 0 or -errno (logged). Required. */
	int (*open)(struct input *in, const struct input_config *cfg);
	void (*close)(struct input *in);
	/* Drain everything pending on in->fd into the sink. 0 or -errno
	 * (fatal). Required. */
	int (*dispatch)(struct input *in, const struct input_sink *sink);
	/* The console was switched away (the output's suspend, which the
	 * session passes on): let go of what the console now shown needs
	 * (grabs, keyboards), leave no key down on the server, and pass
	 * nothing on until resume. Optional. */
	void (*suspend)(struct input *in);
	/* Back on our console (the output's resume): take the devices
	 * again. Optional. */
	void (*resume)(struct input *in);
	/* Whether open(cfg) would work, grabbing nothing: the keymap
	 * compiles (-EINVAL), the listed devices open (-errno). Logged.
	 * Optional. */
	int (*check)(const struct input_config *cfg);
};

struct input {
	const struct input_impl *impl;
	int fd;		/* one fd for the main loop to poll, -1 for none */
	void *priv;
};

/* The hook impl lacks of those it must have ("open"), or NULL. The
 * session checks its input source with it once, where it takes it
 * into use. */
static inline const char *input_impl_missing(const struct input_impl *impl)
{
	if (!impl->name)
		return "name";
	if (!impl->open)
		return "open";
	if (!impl->close)
		return "close";
	if (!impl->dispatch)
		return "dispatch";
	return NULL;
}

/* The platform's input source, or NULL where there is none. */
extern const struct input_impl *const platform_input;

#endif
