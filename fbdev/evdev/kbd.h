/* Keys to keysyms and scancodes through xkb, and the local hotkeys (VT
 * switch, quit, pan, scale): pure translation of EV_KEY events, kept
 * apart from the devices so it is unit-tested.
 *
 * Threads: one struct kbd per thread (the main thread's). */
#ifndef VNCFB_FBDEV_KBD_H
#define VNCFB_FBDEV_KBD_H

#include <linux/input.h> /* the key codes kbd_feed takes */
#include <stdbool.h>
#include <stdint.h>

/* The QEMU/XT scancode of an evdev key code (0xe0-prefixed codes as
 * 0x80|code), or 0 when it has none. */
uint32_t kbd_xt_scancode(unsigned code);

enum kbd_action {
	KBD_NONE,      /* nothing to send */
	KBD_SEND,      /* send keysym/scancode/down */
	KBD_VT_SWITCH, /* local hotkey: switch to VT vt */
	KBD_QUIT,      /* the quit chord */
	KBD_PAN,       /* local hotkey: pan the view by pan_dx, pan_dy */
	KBD_SCALE,     /* local hotkey: toggle the scale (input_sink.scale) */
};

struct kbd_result {
	enum kbd_action action;
	uint32_t keysym;
	uint32_t scancode;
	bool down;
	int vt;
	int pan_dx, pan_dy; /* steps of 1/8 screen (input_sink.pan) */
};

struct kbd;

/* keymap: "layout[:variant]" or NULL for $XKB_DEFAULT_LAYOUT (else us).
 * NULL on failure (logged: unknown layout, missing xkb data). */
struct kbd *kbd_create(const char *keymap);
void kbd_destroy(struct kbd *k);
/* One EV_KEY event (value 0 up, 1 down, 2 repeat). */
struct kbd_result kbd_feed(struct kbd *k, unsigned code, int value);
/* Release every key sent as down (e.g. before a VT switch), calling fn
 * for each, and forget the modifier state. */
void kbd_release_all(struct kbd *k,
		     void (*fn)(void *ctx, uint32_t keysym, uint32_t scancode),
		     void *ctx);

#endif
