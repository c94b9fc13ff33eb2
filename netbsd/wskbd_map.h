/* wskbd keycodes to X keysyms through the keyboard's own wscons keymap
 * (WSKBDIO_GETMAP), with the modifier and lock state a console keeps, plus
 * the hot keys. No NetBSD headers: the KS_* values it needs are carried here
 * and wscons_input.c checks them against <dev/wscons/wsksymdef.h> when it
 * is compiled on NetBSD. Main thread. */
#ifndef VNCFB_NETBSD_WSKBD_MAP_H
#define VNCFB_NETBSD_WSKBD_MAP_H

#include <stdbool.h>
#include <stdint.h>

/* One keymap entry, laid out as struct wscons_keymap. */
struct wskbd_keymap_entry {
	uint16_t command;
	uint16_t group1[2];
	uint16_t group2[2];
};

/* WSKBDIO_GTYPE values vncfb knows the keycodes of. */
enum {
	WSKBD_KT_PC_XT = 3, /* XT scancodes, 0xe0-prefixed as 0x80|code */
	WSKBD_KT_PC_AT = 4,
	WSKBD_KT_USB = 5, /* USB HID usages (page 7) */
};

/* KS_* values of <dev/wscons/wsksymdef.h> used by the translation. */
enum {
	WSKS_BackSpace = 0x08,
	WSKS_Tab = 0x09,
	WSKS_Linefeed = 0x0a,
	WSKS_Clear = 0x0b,
	WSKS_Return = 0x0d,
	WSKS_Escape = 0x1b,
	WSKS_space = 0x20,
	WSKS_a = 0x61,
	WSKS_z = 0x7a,
	WSKS_Delete = 0x7f,
	WSKS_agrave = 0xe0,
	WSKS_division = 0xf7,
	WSKS_thorn = 0xfe,
	WSKS_dead_first = 0x0300,
	WSKS_dead_last = 0x036f,
	WSKS_Shift_L = 0xf101,
	WSKS_Shift_R = 0xf102,
	WSKS_Control_L = 0xf103,
	WSKS_Control_R = 0xf104,
	WSKS_Caps_Lock = 0xf105,
	WSKS_Shift_Lock = 0xf106,
	WSKS_Alt_L = 0xf107,
	WSKS_Alt_R = 0xf108,
	WSKS_Multi_key = 0xf109,
	WSKS_Mode_switch = 0xf10a,
	WSKS_Num_Lock = 0xf10b,
	WSKS_Hold_Screen = 0xf10c,
	WSKS_Cmd = 0xf10d,
	WSKS_Cmd1 = 0xf10e,
	WSKS_Cmd2 = 0xf10f,
	WSKS_Meta_L = 0xf110,
	WSKS_Meta_R = 0xf111,
	WSKS_KP_Space = 0xf220,
	WSKS_KP_Numbersign = 0xf223,
	WSKS_KP_0 = 0xf230,
	WSKS_KP_Home = 0xf295,
	WSKS_f1 = 0xf300,
	WSKS_F1 = 0xf340,
	WSKS_Home = 0xf381,
	WSKS_Cmd_Screen0 = 0xf400,
	WSKS_Cmd_Screen9 = 0xf409,
	WSKS_voidSymbol = 0xf500,
	WSKS_GROUP_Mod = 0xf100,
	WSKS_GROUP_Keypad = 0xf200,
	WSKS_GROUP_Function = 0xf300,
	WSKS_GROUP_Command = 0xf400,
	WSKS_GROUP_Internal = 0xf500,
};

/* KB_* encodings whose 0xa0..0xff keysyms are not ISO 8859-1. */
enum {
	WSKBD_ENC_GR = 0x1400, /* ISO 8859-7 */
	WSKBD_ENC_TR = 0x1700, /* ISO 8859-9 */
};

enum wskbd_action {
	WSKBD_ACT_NONE = 0, /* nothing to send (unmapped, swallowed) */
	WSKBD_ACT_KEY,	    /* send keysym/scancode, down or up */
	WSKBD_ACT_VT,	    /* hot key: switch to wscons screen `screen` */
	WSKBD_ACT_QUIT,	    /* hot key: the quit chord */
	WSKBD_ACT_PAN,	    /* hot key: pan by (pan_dx, pan_dy) */
	WSKBD_ACT_SCALE,    /* hot key: toggle the scale (input_sink.scale) */
};

/* Pan steps of Ctrl+Alt+Shift+Home/End: past any edge (the session caps
 * them). */
#define WSKBD_PAN_EDGE 1000

struct wskbd_out {
	enum wskbd_action action;
	uint32_t keysym;   /* X11 keysym */
	uint32_t scancode; /* XT scancode (0x80|code for 0xe0 keys), 0 */
	bool down;
	int screen; /* WSKBD_ACT_VT: 0-based (ttyE0 is 0) */
	/* WSKBD_ACT_PAN: steps of 1/8 screen (input_sink.pan's unit) */
	int pan_dx, pan_dy;
};

struct wskbd_map {
	struct wskbd_keymap_entry *map;
	unsigned maplen;
	unsigned type;	   /* WSKBD_KT_* or another WSKBD_TYPE_* */
	uint32_t encoding; /* KB_ENCODING() of WSKBDIO_GETENCODING */
	unsigned mods;
	/* Per keycode: the keysym sent at press (so the release matches it
	 * whatever the modifiers are by then), 0 when up; a key swallowed by
	 * a hot key is marked so its release is swallowed too. */
	uint32_t *sent;
};

/* Copy n entries of the keyboard's map. 0 or -ENOMEM / -EINVAL (n 0 or
 * above 65536). */
int wskbd_map_init(struct wskbd_map *m, unsigned type, uint32_t encoding,
		   const struct wskbd_keymap_entry *entries, unsigned n);
void wskbd_map_finish(struct wskbd_map *m);
/* WSKBD_LED_* bits of <dev/wscons/wsconsio.h>. */
enum {
	WSKBD_LEDBIT_CAPS = 0x01,
	WSKBD_LEDBIT_NUM = 0x02,
	WSKBD_LEDBIT_SCROLL = 0x04,
};

/* Lock state from the LEDs (WSKBDIO_GETLEDS), so Caps/Num/Scroll Lock
 * agree with what the keyboard shows. */
void wskbd_map_set_leds(struct wskbd_map *m, unsigned leds);
/* The LEDs for the lock state now (for WSKBDIO_SETLEDS: in event mode the
 * kernel leaves them alone). */
unsigned wskbd_map_leds(const struct wskbd_map *m);

/* One key event. Hot keys (with Control and Alt held): F1..F12 or a key
 * whose map command is Cmd_ScreenN switch screens; BackSpace quits; with
 * Shift too, the arrows pan by a step, Prior/Next by a screen height and
 * Home/End to the left/right edge. */
void wskbd_map_event(struct wskbd_map *m, unsigned keycode, bool down,
		     struct wskbd_out *out);
/* Release every key held (WSCONS_EVENT_ALL_KEYS_UP, leaving the screen):
 * fills up to max key-up events into out, returns how many. Modifier
 * state is cleared; locks stay. */
int wskbd_map_release_all(struct wskbd_map *m, struct wskbd_out *out, int max);

/* A wscons keysym as an X11 keysym (0 when it has none). */
uint32_t wskbd_ks_to_keysym(uint16_t ks, uint32_t encoding);
/* The XT scancode of a keycode of keyboard type type, 0 when unknown. */
uint32_t wskbd_scancode(unsigned type, unsigned keycode);

#endif
