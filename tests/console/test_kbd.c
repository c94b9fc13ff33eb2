/* Keyboard translation: evdev codes through xkb to keysyms, XT scancodes,
 * the VT and quit hotkeys, releases matching presses. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evdev/kbd.h"
#include "../check.h"

static void expect_send(struct kbd *k, unsigned code, int value, uint32_t sym,
			bool down, int line)
{
	struct kbd_result r = kbd_feed(k, code, value);

	if (r.action != KBD_SEND || r.keysym != sym || r.down != down) {
		printf("FAIL line %d: code %u value %d gave action %d keysym "
		       "0x%x down %d, expected send 0x%x down %d\n",
		       line, code, value, r.action, r.keysym, r.down, sym,
		       down);
		failures++;
	}
}

#define SEND(k, code, value, sym, down)                                        \
	expect_send(k, code, value, sym, down, __LINE__)

static int released;
static uint32_t released_syms[8];

static void on_release(void *ctx, uint32_t keysym, uint32_t scancode)
{
	if (released < 8)
		released_syms[released] = keysym;
	released++;
}

int main(void)
{
	struct kbd *k;
	struct kbd_result r;

	unsetenv("XKB_DEFAULT_LAYOUT");
	unsetenv("XKB_DEFAULT_VARIANT");

	/* XT scancodes. */
	CHECK(kbd_xt_scancode(KEY_A) == 0x1e, "KEY_A");
	CHECK(kbd_xt_scancode(KEY_ESC) == 0x01, "KEY_ESC");
	CHECK(kbd_xt_scancode(KEY_F12) == 0x58, "KEY_F12");
	CHECK(kbd_xt_scancode(KEY_UP) == 0xc8, "KEY_UP");
	CHECK(kbd_xt_scancode(KEY_RIGHTCTRL) == 0x9d, "KEY_RIGHTCTRL");
	CHECK(kbd_xt_scancode(KEY_KPENTER) == 0x9c, "KEY_KPENTER");
	CHECK(kbd_xt_scancode(KEY_LEFTMETA) == 0xdb, "KEY_LEFTMETA");
	CHECK(kbd_xt_scancode(KEY_DELETE) == 0xd3, "KEY_DELETE");
	CHECK(kbd_xt_scancode(KEY_102ND) == 0x56, "KEY_102ND");
	CHECK(kbd_xt_scancode(BTN_LEFT) == 0, "BTN_LEFT has none");

	/* Default layout (us). */
	k = kbd_create(NULL);
	if (!k) {
		printf("FAIL: no default keymap (is xkb-data installed?)\n");
		return 1;
	}
	SEND(k, KEY_A, 1, 'a', true);
	SEND(k, KEY_A, 2, 'a', true); /* autorepeat */
	SEND(k, KEY_A, 0, 'a', false);
	r = kbd_feed(k, KEY_A, 0); /* release without press */
	CHECK(r.action == KBD_NONE, "stray release sent");

	/* Shift released before the letter: the release names 'A'. */
	SEND(k, KEY_LEFTSHIFT, 1, 0xffe1, true);
	r = kbd_feed(k, KEY_LEFTSHIFT, 2);
	CHECK(r.action == KBD_NONE, "modifier autorepeat sent");
	SEND(k, KEY_A, 1, 'A', true);
	CHECK(kbd_feed(k, KEY_A, 1).scancode == 0x1e, "scancode with keysym");
	SEND(k, KEY_LEFTSHIFT, 0, 0xffe1, false);
	SEND(k, KEY_A, 0, 'A', false);

	SEND(k, KEY_1, 1, '1', true);
	SEND(k, KEY_1, 0, '1', false);
	SEND(k, KEY_ENTER, 1, 0xff0d, true);
	SEND(k, KEY_ENTER, 0, 0xff0d, false);
	SEND(k, KEY_UP, 1, 0xff52, true);
	SEND(k, KEY_UP, 0, 0xff52, false);

	/* Ctrl+Alt+F3: local VT switch, nothing of F3 to the server. */
	SEND(k, KEY_LEFTCTRL, 1, 0xffe3, true);
	SEND(k, KEY_LEFTALT, 1, 0xffe9, true);
	r = kbd_feed(k, KEY_F3, 1);
	CHECK(r.action == KBD_VT_SWITCH && r.vt == 3, "ctrl alt f3: %d %d",
	      r.action, r.vt);
	r = kbd_feed(k, KEY_F3, 0);
	CHECK(r.action == KBD_NONE, "F3 release leaked");
	r = kbd_feed(k, KEY_F12, 1);
	CHECK(r.action == KBD_VT_SWITCH && r.vt == 12, "ctrl alt f12");
	kbd_feed(k, KEY_F12, 0);
	/* The quit chord. */
	r = kbd_feed(k, KEY_BACKSPACE, 1);
	CHECK(r.action == KBD_QUIT, "ctrl alt backspace: %d", r.action);
	r = kbd_feed(k, KEY_BACKSPACE, 0);
	CHECK(r.action == KBD_NONE, "backspace release leaked");
	/* Ctrl+Alt+Shift+arrow pans (and keeps panning when held); without
	 * Shift the arrow goes to the server. */
	SEND(k, KEY_LEFT, 1, 0xff51, true);
	SEND(k, KEY_LEFT, 0, 0xff51, false);
	SEND(k, KEY_LEFTSHIFT, 1, 0xffe1, true);
	r = kbd_feed(k, KEY_LEFT, 1);
	CHECK(r.action == KBD_PAN && r.pan_dx == -1 && r.pan_dy == 0,
	      "pan left: %d %d,%d", r.action, r.pan_dx, r.pan_dy);
	r = kbd_feed(k, KEY_LEFT, 2);
	CHECK(r.action == KBD_PAN && r.pan_dx == -1, "held pan key");
	r = kbd_feed(k, KEY_LEFT, 0);
	CHECK(r.action == KBD_NONE, "pan key release leaked");
	r = kbd_feed(k, KEY_PAGEDOWN, 1);
	CHECK(r.action == KBD_PAN && r.pan_dx == 0 && r.pan_dy == 8,
	      "pan page down");
	kbd_feed(k, KEY_PAGEDOWN, 0);
	r = kbd_feed(k, KEY_END, 1);
	CHECK(r.action == KBD_PAN && r.pan_dx > 1000, "pan to the right edge");
	kbd_feed(k, KEY_END, 0);
	/* Ctrl+Alt+Shift+S toggles the scale; its release stays local. */
	r = kbd_feed(k, KEY_S, 1);
	CHECK(r.action == KBD_SCALE, "ctrl alt shift s: %d", r.action);
	r = kbd_feed(k, KEY_S, 0);
	CHECK(r.action == KBD_NONE, "scale key release leaked");
	SEND(k, KEY_LEFTSHIFT, 0, 0xffe1, false);
	/* Without Shift, Ctrl+Alt+S is the server's. */
	SEND(k, KEY_S, 1, 0x73, true);
	SEND(k, KEY_S, 0, 0x73, false);
	/* What is held is released for the VT switch. */
	released = 0;
	kbd_release_all(k, on_release, NULL);
	CHECK(released == 2 && released_syms[0] == 0xffe3 &&
		  released_syms[1] == 0xffe9,
	      "release_all: %d keys", released);
	r = kbd_feed(k, KEY_LEFTCTRL, 0);
	CHECK(r.action == KBD_NONE, "ctrl released twice");
	/* Alt alone + F2 is an ordinary key; Ctrl+Backspace too. */
	SEND(k, KEY_RIGHTALT, 1, 0xffea, true);
	SEND(k, KEY_F2, 1, 0xffbf, true);
	SEND(k, KEY_F2, 0, 0xffbf, false);
	SEND(k, KEY_RIGHTALT, 0, 0xffea, false);
	SEND(k, KEY_RIGHTCTRL, 1, 0xffe4, true);
	SEND(k, KEY_BACKSPACE, 1, 0xff08, true);
	SEND(k, KEY_BACKSPACE, 0, 0xff08, false);
	SEND(k, KEY_RIGHTCTRL, 0, 0xffe4, false);
	kbd_destroy(k);

	/* German: Y and Z swap places. */
	k = kbd_create("de");
	CHECK(k != NULL, "keymap de");
	if (k) {
		SEND(k, KEY_Y, 1, 'z', true);
		SEND(k, KEY_Y, 0, 'z', false);
		SEND(k, KEY_Z, 1, 'y', true);
		SEND(k, KEY_Z, 0, 'y', false);
		kbd_destroy(k);
	}
	/* A variant. */
	k = kbd_create("us:dvorak");
	CHECK(k != NULL, "keymap us:dvorak");
	if (k) {
		SEND(k, KEY_Q, 1, '\'', true);
		SEND(k, KEY_Q, 0, '\'', false);
		kbd_destroy(k);
	}
	/* The environment's layout when no --keymap. */
	setenv("XKB_DEFAULT_LAYOUT", "fr", 1);
	k = kbd_create(NULL);
	CHECK(k != NULL, "keymap from XKB_DEFAULT_LAYOUT");
	if (k) {
		SEND(k, KEY_Q, 1, 'a', true);
		kbd_destroy(k);
	}
	unsetenv("XKB_DEFAULT_LAYOUT");
	/* Unknown layout: an error, not a silent us. */
	k = kbd_create("no-such-layout");
	CHECK(k == NULL, "unknown layout accepted");
	kbd_destroy(k);

	if (failures) {
		printf("%d failures\n", failures);
		return 1;
	}
	printf("kbd: all passed\n");
	return 0;
}
