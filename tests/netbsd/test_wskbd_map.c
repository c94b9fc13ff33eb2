/* wskbd keycode + keymap to keysym, modifiers, locks and hot keys. The map
 * below is a piece of NetBSD's pckbd US map (XT keycodes), entries filled
 * in as WSKBDIO_GETMAP returns them (both levels of each group set). */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "wskbd_map.h"

#include "../check.h"

#define V WSKS_voidSymbol
#define E(code, cmd, a, b, c, d) [code] = {cmd, {a, b}, {c, d}}

/* Keycodes (XT): */
enum {
	K_ESC = 0x01,
	K_1 = 0x02,
	K_BS = 0x0e,
	K_Q = 0x10,
	K_RET = 0x1c,
	K_CTRL = 0x1d,
	K_A = 0x1e,
	K_ACUTE = 0x28,
	K_SHIFT = 0x2a,
	K_ALT = 0x38,
	K_CAPS = 0x3a,
	K_F1 = 0x3b,
	K_F2 = 0x3c,
	K_NUM = 0x45,
	K_KP7 = 0x47,
	K_KPENTER = 0x9c,
	K_ALTGR = 0xb8,
	K_UP = 0xc8,
	K_WIN = 0xdb,
	K_EACUTE = 0x27,
	K_SCRLK = 0x46,
};

static const struct wskbd_keymap_entry pc_map[256] = {
    E(K_ESC, V, 0x1b, 0x1b, 0x1b, 0x1b),
    E(K_1, V, '1', '!', '1', '!'),
    E(K_BS, V, 0x08, 0x08, 0x08, 0x08),
    /* q, AltGr: @ (as in the German map) */
    E(K_Q, V, 'q', 'Q', '@', '@'),
    E(K_RET, V, 0x0d, 0x0d, 0x0d, 0x0d),
    E(K_CTRL, WSKS_Cmd1, WSKS_Control_L, WSKS_Control_L, WSKS_Control_L,
      WSKS_Control_L),
    E(K_A, V, 'a', 'A', 'a', 'A'),
    E(K_ACUTE, V, 0x0301, 0x0300, 0x0301, 0x0300),
    E(K_EACUTE, V, 0xe9, 0xc9, 0xe9, 0xc9),
    E(K_SHIFT, V, WSKS_Shift_L, WSKS_Shift_L, WSKS_Shift_L, WSKS_Shift_L),
    E(K_ALT, WSKS_Cmd2, WSKS_Alt_L, WSKS_Alt_L, WSKS_Alt_L, WSKS_Alt_L),
    E(K_CAPS, V, WSKS_Caps_Lock, WSKS_Caps_Lock, WSKS_Caps_Lock,
      WSKS_Caps_Lock),
    E(K_F1, WSKS_Cmd_Screen0, WSKS_f1, WSKS_F1, WSKS_f1, WSKS_F1),
    /* no command: the F key alone names the screen */
    E(K_F2, V, WSKS_f1 + 1, WSKS_F1 + 1, WSKS_f1 + 1, WSKS_F1 + 1),
    E(K_NUM, V, WSKS_Num_Lock, WSKS_Num_Lock, WSKS_Num_Lock, WSKS_Num_Lock),
    E(K_SCRLK, V, WSKS_Hold_Screen, WSKS_Hold_Screen, WSKS_Hold_Screen,
      WSKS_Hold_Screen),
    E(K_KP7, V, WSKS_KP_Home, WSKS_KP_0 + 7, WSKS_KP_Home, WSKS_KP_0 + 7),
    E(K_KPENTER, V, 0xf20d, 0xf20d, 0xf20d, 0xf20d),
    E(K_ALTGR, V, WSKS_Mode_switch, WSKS_Mode_switch, WSKS_Mode_switch,
      WSKS_Mode_switch),
    E(K_UP, V, 0xf384, 0xf384, 0xf384, 0xf384),
    E(K_WIN, V, WSKS_Meta_L, WSKS_Meta_L, WSKS_Meta_L, WSKS_Meta_L),
};

static struct wskbd_out ev(struct wskbd_map *m, unsigned code, bool down)
{
	struct wskbd_out o;

	wskbd_map_event(m, code, down, &o);
	return o;
}

static bool is_key(struct wskbd_out o, uint32_t keysym, uint32_t sc, bool down)
{
	return o.action == WSKBD_ACT_KEY && o.keysym == keysym &&
	       o.scancode == sc && o.down == down;
}

static void test_levels(void)
{
	struct wskbd_map m;
	struct wskbd_out o;

	CHECK(wskbd_map_init(&m, WSKBD_KT_PC_XT, 0x0200, pc_map, 256) == 0);
	CHECK(is_key(ev(&m, K_A, true), 'a', 0x1e, true));
	CHECK(is_key(ev(&m, K_A, false), 'a', 0x1e, false));
	/* Shift */
	CHECK(is_key(ev(&m, K_SHIFT, true), 0xffe1, 0x2a, true));
	CHECK(is_key(ev(&m, K_A, true), 'A', 0x1e, true));
	CHECK(is_key(ev(&m, K_1, true), '!', 0x02, true));
	/* Shift released first: the releases still match the presses */
	CHECK(is_key(ev(&m, K_SHIFT, false), 0xffe1, 0x2a, false));
	CHECK(is_key(ev(&m, K_A, false), 'A', 0x1e, false));
	CHECK(is_key(ev(&m, K_1, false), '!', 0x02, false));
	CHECK(is_key(ev(&m, K_1, true), '1', 0x02, true));
	ev(&m, K_1, false);
	/* Caps Lock: letters only; with Shift too they stay capitals, as on
	 * the NetBSD console (wskbd_translate) */
	CHECK(is_key(ev(&m, K_CAPS, true), 0xffe5, 0x3a, true));
	ev(&m, K_CAPS, false);
	CHECK(is_key(ev(&m, K_A, true), 'A', 0x1e, true));
	ev(&m, K_A, false);
	CHECK(is_key(ev(&m, K_EACUTE, true), 0xc9, 0x27, true));
	ev(&m, K_EACUTE, false);
	CHECK(is_key(ev(&m, K_1, true), '1', 0x02, true));
	ev(&m, K_1, false);
	ev(&m, K_SHIFT, true);
	CHECK(is_key(ev(&m, K_A, true), 'A', 0x1e, true));
	ev(&m, K_A, false);
	CHECK(is_key(ev(&m, K_1, true), '!', 0x02, true));
	ev(&m, K_1, false);
	ev(&m, K_SHIFT, false);
	ev(&m, K_CAPS, true);
	ev(&m, K_CAPS, false);
	CHECK(is_key(ev(&m, K_A, true), 'a', 0x1e, true));
	ev(&m, K_A, false);
	/* Num Lock picks the digit; Shift the other level */
	CHECK(is_key(ev(&m, K_KP7, true), 0xff95, 0x47, true));
	ev(&m, K_KP7, false);
	ev(&m, K_NUM, true);
	ev(&m, K_NUM, false);
	CHECK(is_key(ev(&m, K_KP7, true), 0xffb7, 0x47, true));
	ev(&m, K_KP7, false);
	ev(&m, K_SHIFT, true);
	CHECK(is_key(ev(&m, K_KP7, true), 0xff95, 0x47, true));
	ev(&m, K_KP7, false);
	ev(&m, K_SHIFT, false);
	/* AltGr (Mode_switch) selects group 2 and is sent as Level3 */
	CHECK(is_key(ev(&m, K_ALTGR, true), 0xfe03, 0xb8, true));
	CHECK(is_key(ev(&m, K_Q, true), '@', 0x10, true));
	ev(&m, K_Q, false);
	ev(&m, K_ALTGR, false);
	CHECK(is_key(ev(&m, K_Q, true), 'q', 0x10, true));
	ev(&m, K_Q, false);
	/* Extended keys keep the 0x80 bit as their scancode */
	CHECK(is_key(ev(&m, K_UP, true), 0xff52, 0xc8, true));
	CHECK(is_key(ev(&m, K_KPENTER, true), 0xff8d, 0x9c, true));
	CHECK(is_key(ev(&m, K_WIN, true), 0xffeb, 0xdb, true));
	/* A repeat of a held key repeats its keysym */
	CHECK(is_key(ev(&m, K_UP, true), 0xff52, 0xc8, true));
	ev(&m, K_UP, false);
	ev(&m, K_KPENTER, false);
	ev(&m, K_WIN, false);
	/* dead keys */
	CHECK(is_key(ev(&m, K_ACUTE, true), 0xfe51, 0x28, true));
	ev(&m, K_ACUTE, false);
	/* out of range and unmapped keycodes send nothing */
	o = ev(&m, 300, true);
	CHECK(o.action == WSKBD_ACT_NONE);
	o = ev(&m, 0x55, true);
	CHECK(o.action == WSKBD_ACT_NONE);
	/* a release without a press sends nothing */
	o = ev(&m, K_A, false);
	CHECK(o.action == WSKBD_ACT_NONE);
	wskbd_map_finish(&m);
}

static void test_locks_from_leds(void)
{
	struct wskbd_map m;

	CHECK(wskbd_map_init(&m, WSKBD_KT_PC_XT, 0, pc_map, 256) == 0);
	CHECK(wskbd_map_leds(&m) == 0);
	wskbd_map_set_leds(&m, WSKBD_LEDBIT_CAPS | WSKBD_LEDBIT_NUM);
	CHECK(wskbd_map_leds(&m) == (WSKBD_LEDBIT_CAPS | WSKBD_LEDBIT_NUM));
	CHECK(is_key(ev(&m, K_A, true), 'A', 0x1e, true));
	CHECK(is_key(ev(&m, K_KP7, true), 0xffb7, 0x47, true));
	ev(&m, K_A, false);
	ev(&m, K_KP7, false);
	/* the lock keys toggle what the LEDs must show */
	ev(&m, K_CAPS, true);
	CHECK(wskbd_map_leds(&m) == WSKBD_LEDBIT_NUM);
	ev(&m, K_CAPS, false);
	CHECK(wskbd_map_leds(&m) == WSKBD_LEDBIT_NUM);
	ev(&m, K_NUM, true);
	ev(&m, K_NUM, false);
	CHECK(wskbd_map_leds(&m) == 0);
	ev(&m, K_SCRLK, true);
	ev(&m, K_SCRLK, false);
	CHECK(wskbd_map_leds(&m) == WSKBD_LEDBIT_SCROLL);
	/* releasing everything keeps the locks */
	ev(&m, K_CAPS, true);
	wskbd_map_release_all(&m, NULL, 0);
	CHECK(wskbd_map_leds(&m) == (WSKBD_LEDBIT_SCROLL | WSKBD_LEDBIT_CAPS));
	wskbd_map_set_leds(&m, 0);
	CHECK(wskbd_map_leds(&m) == 0);
	CHECK(is_key(ev(&m, K_A, true), 'a', 0x1e, true));
	wskbd_map_finish(&m);
}

static void test_hotkeys(void)
{
	struct wskbd_map m;
	struct wskbd_out o, ups[8];
	int n, i;
	bool saw_ctrl = false, saw_alt = false;

	CHECK(wskbd_map_init(&m, WSKBD_KT_PC_XT, 0, pc_map, 256) == 0);
	CHECK(is_key(ev(&m, K_CTRL, true), 0xffe3, 0x1d, true));
	CHECK(is_key(ev(&m, K_ALT, true), 0xffe9, 0x38, true));
	/* Cmd_Screen0 on F1: screen 0; nothing goes to the server */
	o = ev(&m, K_F1, true);
	CHECK(o.action == WSKBD_ACT_VT && o.screen == 0);
	o = ev(&m, K_F1, false);
	CHECK(o.action == WSKBD_ACT_NONE);
	/* F2 without a command in the map: screen 1 */
	o = ev(&m, K_F2, true);
	CHECK(o.action == WSKBD_ACT_VT && o.screen == 1);
	/* Ctrl+Alt+BackSpace: quit */
	o = ev(&m, K_BS, true);
	CHECK(o.action == WSKBD_ACT_QUIT);
	/* leaving: Ctrl and Alt go up on the server, the swallowed F2 and
	 * BackSpace do not */
	n = wskbd_map_release_all(&m, ups, 8);
	CHECK(n == 2);
	for (i = 0; i < n; i++) {
		CHECK(ups[i].action == WSKBD_ACT_KEY && !ups[i].down);
		saw_ctrl |= ups[i].keysym == 0xffe3 && ups[i].scancode == 0x1d;
		saw_alt |= ups[i].keysym == 0xffe9 && ups[i].scancode == 0x38;
	}
	CHECK(saw_ctrl && saw_alt);
	/* modifiers were cleared: F1 is F1 again */
	CHECK(is_key(ev(&m, K_F1, true), 0xffbe, 0x3b, true));
	ev(&m, K_F1, false);
	/* Ctrl alone + F1 is a key for the server */
	ev(&m, K_CTRL, true);
	CHECK(is_key(ev(&m, K_F1, true), 0xffbe, 0x3b, true));
	ev(&m, K_F1, false);
	/* AltGr is not Alt: Ctrl+AltGr+F2 goes to the server */
	ev(&m, K_ALTGR, true);
	CHECK(is_key(ev(&m, K_F2, true), 0xffbf, 0x3c, true));
	wskbd_map_finish(&m);
}

static void test_pan(void)
{
	static const struct wskbd_keymap_entry map[256] = {
	    E(0x1d, WSKS_Cmd1, WSKS_Control_L, WSKS_Control_L, WSKS_Control_L,
	      WSKS_Control_L),
	    E(0x2a, V, WSKS_Shift_L, WSKS_Shift_L, WSKS_Shift_L, WSKS_Shift_L),
	    E(0x38, WSKS_Cmd2, WSKS_Alt_L, WSKS_Alt_L, WSKS_Alt_L, WSKS_Alt_L),
	    E(0xcb, V, 0xf386, 0xf386, 0xf386, 0xf386), /* Left */
	    E(0xcd, V, 0xf387, 0xf387, 0xf387, 0xf387), /* Right */
	    E(0xc8, V, 0xf384, 0xf384, 0xf384, 0xf384), /* Up */
	    E(0xd0, V, 0xf385, 0xf385, 0xf385, 0xf385), /* Down */
	    E(0xc9, V, 0xf382, 0xf382, 0xf382, 0xf382), /* Prior */
	    E(0xd1, V, 0xf383, 0xf383, 0xf383, 0xf383), /* Next */
	    E(0xc7, V, 0xf381, 0xf381, 0xf381, 0xf381), /* Home */
	    E(0xcf, V, 0xf388, 0xf388, 0xf388, 0xf388), /* End */
	    /* keypad 4: KP_Left, KP_4 */
	    E(0x4b, V, 0xf296, 0xf234, 0xf296, 0xf234),
	    E(0x1f, V, 's', 'S', 's', 'S'),
	};
	static const struct {
		unsigned code;
		int dx, dy;
	} want[] = {
	    {0xcb, -1, 0},
	    {0xcd, 1, 0},
	    {0xc8, 0, -1},
	    {0xd0, 0, 1},
	    {0xc9, 0, -8},
	    {0xd1, 0, 8},
	    {0xc7, -WSKBD_PAN_EDGE, 0},
	    {0xcf, WSKBD_PAN_EDGE, 0},
	    {0x4b, -1, 0},
	};
	struct wskbd_map m;
	struct wskbd_out o;
	size_t i;

	CHECK(wskbd_map_init(&m, WSKBD_KT_PC_XT, 0, map, 256) == 0);
	/* Ctrl+Alt+arrow without Shift is a key for the server */
	ev(&m, 0x1d, true);
	ev(&m, 0x38, true);
	CHECK(is_key(ev(&m, 0xcb, true), 0xff51, 0xcb, true));
	CHECK(is_key(ev(&m, 0xcb, false), 0xff51, 0xcb, false));
	ev(&m, 0x2a, true);
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		o = ev(&m, want[i].code, true);
		CHECK(o.action == WSKBD_ACT_PAN && o.pan_dx == want[i].dx &&
		      o.pan_dy == want[i].dy);
		o = ev(&m, want[i].code, false);
		CHECK(o.action == WSKBD_ACT_NONE);
	}
	/* Ctrl+Alt+Shift+S toggles the scale, its release stays local */
	CHECK(ev(&m, 0x1f, true).action == WSKBD_ACT_SCALE);
	CHECK(ev(&m, 0x1f, false).action == WSKBD_ACT_NONE);
	/* Shift+arrow alone selects text on the server */
	ev(&m, 0x1d, false);
	CHECK(is_key(ev(&m, 0xcd, true), 0xff53, 0xcd, true));
	wskbd_map_finish(&m);
}

static void test_usb(void)
{
	static const struct wskbd_keymap_entry usb_map[232] = {
	    E(4, V, 'a', 'A', 'a', 'A'),
	    E(0x52, V, 0xf384, 0xf384, 0xf384, 0xf384),
	    E(0xe0, WSKS_Cmd1, WSKS_Control_L, WSKS_Control_L, WSKS_Control_L,
	      WSKS_Control_L),
	    E(0xe6, V, WSKS_Alt_R, WSKS_Multi_key, WSKS_Alt_R, WSKS_Multi_key),
	};
	struct wskbd_map m;

	CHECK(wskbd_map_init(&m, WSKBD_KT_USB, 0, usb_map, 232) == 0);
	/* HID usages become the XT scancodes QEMU expects */
	CHECK(is_key(ev(&m, 4, true), 'a', 0x1e, true));
	CHECK(is_key(ev(&m, 0x52, true), 0xff52, 0xc8, true));
	CHECK(is_key(ev(&m, 0xe0, true), 0xffe3, 0x1d, true));
	CHECK(is_key(ev(&m, 0xe6, true), 0xffea, 0xb8, true));
	wskbd_map_finish(&m);
	CHECK(wskbd_scancode(WSKBD_KT_USB, 0x28) == 0x1c); /* Enter */
	CHECK(wskbd_scancode(WSKBD_KT_USB, 0x29) == 0x01); /* Esc */
	CHECK(wskbd_scancode(WSKBD_KT_USB, 0x4c) == 0xd3); /* Delete */
	CHECK(wskbd_scancode(WSKBD_KT_USB, 0x58) == 0x9c); /* KP Enter */
	CHECK(wskbd_scancode(WSKBD_KT_USB, 0x64) == 0x56); /* 102nd */
	CHECK(wskbd_scancode(WSKBD_KT_USB, 0xe7) == 0xdc); /* RGUI */
	CHECK(wskbd_scancode(WSKBD_KT_USB, 0x3000) == 0);
	CHECK(wskbd_scancode(WSKBD_KT_PC_XT, 0x1e) == 0x1e);
	CHECK(wskbd_scancode(1 /* LK201 */, 0x1e) == 0);
}

static void test_keysyms(void)
{
	CHECK(wskbd_ks_to_keysym(0x0d, 0) == 0xff0d);
	CHECK(wskbd_ks_to_keysym(0x1b, 0) == 0xff1b);
	CHECK(wskbd_ks_to_keysym(0x7f, 0) == 0xffff);
	CHECK(wskbd_ks_to_keysym(0x09, 0) == 0xff09);
	CHECK(wskbd_ks_to_keysym(' ', 0) == ' ');
	CHECK(wskbd_ks_to_keysym('~', 0) == '~');
	CHECK(wskbd_ks_to_keysym(0xe9, 0) == 0xe9);
	CHECK(wskbd_ks_to_keysym(0x05, 0) == 0);
	CHECK(wskbd_ks_to_keysym(0x85, 0) == 0);
	/* Latin-2 keysyms are Unicode code points */
	CHECK(wskbd_ks_to_keysym(0x017d, 0) == 0x100017d);
	/* Greek and Turkish encodings */
	CHECK(wskbd_ks_to_keysym(0xe1, WSKBD_ENC_GR) == 0x10003b1);
	CHECK(wskbd_ks_to_keysym(0xc1, WSKBD_ENC_GR | 0x01) == 0x1000391);
	CHECK(wskbd_ks_to_keysym(0xbb, WSKBD_ENC_GR) == 0xbb);
	CHECK(wskbd_ks_to_keysym(0xfd, WSKBD_ENC_TR) == 0x1000131);
	CHECK(wskbd_ks_to_keysym(0xfd, 0) == 0xfd);
	/* dead keys */
	CHECK(wskbd_ks_to_keysym(0x0300, 0) == 0xfe50);
	CHECK(wskbd_ks_to_keysym(0x0308, 0) == 0xfe57);
	CHECK(wskbd_ks_to_keysym(0x0327, 0) == 0xfe5b);
	/* function group */
	CHECK(wskbd_ks_to_keysym(WSKS_f1 + 4, 0) == 0xffc2);
	CHECK(wskbd_ks_to_keysym(WSKS_F1 + 11, 0) == 0xffc9);
	CHECK(wskbd_ks_to_keysym(0xf3c2, 0) == 0xff61);
	CHECK(wskbd_ks_to_keysym(0xf3c1, 0) == 0xff13);
	CHECK(wskbd_ks_to_keysym(0xf388, 0) == 0xff57);
	CHECK(wskbd_ks_to_keysym(0xf389, 0) == 0xff63);
	/* keypad group */
	CHECK(wskbd_ks_to_keysym(0xf22a, 0) == 0xffaa);
	CHECK(wskbd_ks_to_keysym(WSKS_KP_Space, 0) == 0xff80);
	CHECK(wskbd_ks_to_keysym(0xf29f, 0) == 0xff9f);
	CHECK(wskbd_ks_to_keysym(0xf23d, 0) == 0xffbd);
	/* modifiers */
	CHECK(wskbd_ks_to_keysym(WSKS_Num_Lock, 0) == 0xff7f);
	CHECK(wskbd_ks_to_keysym(WSKS_Hold_Screen, 0) == 0xff14);
	CHECK(wskbd_ks_to_keysym(WSKS_Cmd1, 0) == 0);
	/* commands, voidSymbol and raw keycodes are not keysyms */
	CHECK(wskbd_ks_to_keysym(WSKS_Cmd_Screen0, 0) == 0);
	CHECK(wskbd_ks_to_keysym(WSKS_voidSymbol, 0) == 0);
	CHECK(wskbd_ks_to_keysym(0xe012, 0) == 0);
}

static void test_init_errors(void)
{
	struct wskbd_map m;

	CHECK(wskbd_map_init(&m, 3, 0, pc_map, 0) < 0);
	CHECK(wskbd_map_init(&m, 3, 0, pc_map, 65537) < 0);
	wskbd_map_finish(&m); /* harmless after a failed init */
}

int main(void)
{
	test_levels();
	test_locks_from_leds();
	test_hotkeys();
	test_pan();
	test_usb();
	test_keysyms();
	test_init_errors();
	if (failures) {
		fprintf(stderr, "%d checks failed\n", failures);
		return 1;
	}
	printf("wskbd_map: all checks passed\n");
	return 0;
}
