/* evdev key codes to X keysyms (through an xkb keymap) and XT scancodes,
 * and the local hotkeys. Pure apart from xkbcommon; unit-tested. */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xkbcommon/xkbcommon.h>

#include "fbdev.h"
#include "util/log.h"

/* xkb key codes are evdev codes + 8 (the X11 offset). */
#define XKB_OFFSET 8

enum {
	MOD_LCTRL = 1,
	MOD_RCTRL = 2,
	MOD_LALT = 4,
	MOD_RALT = 8,
	MOD_LSHIFT = 16,
	MOD_RSHIFT = 32,
};

/* A pan step to the edge (input_sink.pan: "a large value"). */
#define PAN_EDGE 100000

struct kbd {
	struct xkb_context *ctx;
	struct xkb_keymap *keymap;
	struct xkb_state *state;
	unsigned mods;		 /* physical Ctrl/Alt held */
	uint32_t sent[KEY_CNT];	 /* keysym sent as down, 0: none */
	bool swallowed[KEY_CNT]; /* hotkey: its release stays local */
};

/* Linux key codes 1-88 are XT set 1 codes; the rest, where an XT code
 * exists, as QEMU numbers them (0xe0 prefix as 0x80|code). */
static const struct {
	uint16_t code;
	uint8_t xt;
} xt_extra[] = {
    {KEY_RO, 0x73},	    {KEY_KATAKANAHIRAGANA, 0x70},
    {KEY_HENKAN, 0x79},	    {KEY_MUHENKAN, 0x7b},
    {KEY_KPENTER, 0x9c},    {KEY_RIGHTCTRL, 0x9d},
    {KEY_KPSLASH, 0xb5},    {KEY_SYSRQ, 0xb7},
    {KEY_RIGHTALT, 0xb8},   {KEY_HOME, 0xc7},
    {KEY_UP, 0xc8},	    {KEY_PAGEUP, 0xc9},
    {KEY_LEFT, 0xcb},	    {KEY_RIGHT, 0xcd},
    {KEY_END, 0xcf},	    {KEY_DOWN, 0xd0},
    {KEY_PAGEDOWN, 0xd1},   {KEY_INSERT, 0xd2},
    {KEY_DELETE, 0xd3},	    {KEY_MUTE, 0xa0},
    {KEY_VOLUMEDOWN, 0xae}, {KEY_VOLUMEUP, 0xb0},
    {KEY_POWER, 0xde},	    {KEY_KPEQUAL, 0x59},
    {KEY_PAUSE, 0xc6},	    {KEY_KPCOMMA, 0x7e},
    {KEY_YEN, 0x7d},	    {KEY_LEFTMETA, 0xdb},
    {KEY_RIGHTMETA, 0xdc},  {KEY_COMPOSE, 0xdd},
    {KEY_STOP, 0xe8},	    {KEY_CALC, 0xa1},
    {KEY_SLEEP, 0xdf},	    {KEY_WAKEUP, 0xe3},
    {KEY_MAIL, 0xec},	    {KEY_BOOKMARKS, 0xe6},
    {KEY_COMPUTER, 0xeb},   {KEY_BACK, 0xea},
    {KEY_FORWARD, 0xe9},    {KEY_NEXTSONG, 0x99},
    {KEY_PLAYPAUSE, 0xa2},  {KEY_PREVIOUSSONG, 0x90},
    {KEY_STOPCD, 0xa4},	    {KEY_HOMEPAGE, 0xb2},
    {KEY_REFRESH, 0xe7},    {KEY_SEARCH, 0xe5},
    {KEY_MEDIA, 0xed},
};

uint32_t kbd_xt_scancode(unsigned code)
{
	size_t i;

	if (code >= 1 && code <= 88)
		return code;
	for (i = 0; i < sizeof(xt_extra) / sizeof(xt_extra[0]); i++)
		if (xt_extra[i].code == code)
			return xt_extra[i].xt;
	return 0;
}

__attribute__((format(printf, 3, 0))) static void
xkb_log(struct xkb_context *ctx, enum xkb_log_level level, const char *fmt,
	va_list ap)
{
	char buf[512];

	vsnprintf(buf, sizeof(buf), fmt, ap);
	/* xkbcommon is chatty about data files; its errors end up in our
	 * one-line message, the details under -v. */
	log_debug("xkbcommon: %s", buf);
}

struct kbd *kbd_create(const char *keymap)
{
	struct xkb_rule_names names = {0};
	char *layout = NULL, *variant;
	struct kbd *k = calloc(1, sizeof(*k));

	if (!k)
		return NULL;
	if (keymap && *keymap) {
		layout = strdup(keymap);
		if (!layout)
			goto fail;
		variant = strchr(layout, ':');
		if (variant) {
			*variant++ = '\0';
			names.variant = variant;
		}
		names.layout = layout;
	}
	k->ctx = xkb_context_new(XKB_CONTEXT_NO_FLAGS);
	if (!k->ctx) {
		log_error("xkb_context_new failed");
		goto fail;
	}
	xkb_context_set_log_fn(k->ctx, xkb_log);
	k->keymap = xkb_keymap_new_from_names(k->ctx, &names,
					      XKB_KEYMAP_COMPILE_NO_FLAGS);
	if (!k->keymap) {
		const char *env = getenv("XKB_DEFAULT_LAYOUT");

		log_error("keymap '%s': cannot be compiled (unknown layout or "
			  "variant, or no xkb data in /usr/share/X11/xkb)",
			  keymap && *keymap ? keymap
			  : env && *env	    ? env
					    : "us");
		goto fail;
	}
	k->state = xkb_state_new(k->keymap);
	if (!k->state) {
		log_error("xkb_state_new failed");
		goto fail;
	}
	free(layout);
	return k;
fail:
	free(layout);
	kbd_destroy(k);
	return NULL;
}

void kbd_destroy(struct kbd *k)
{
	if (!k)
		return;
	xkb_state_unref(k->state);
	xkb_keymap_unref(k->keymap);
	xkb_context_unref(k->ctx);
	free(k);
}

static unsigned mod_bit(unsigned code)
{
	switch (code) {
	case KEY_LEFTCTRL:
		return MOD_LCTRL;
	case KEY_RIGHTCTRL:
		return MOD_RCTRL;
	case KEY_LEFTALT:
		return MOD_LALT;
	case KEY_RIGHTALT:
		return MOD_RALT;
	case KEY_LEFTSHIFT:
		return MOD_LSHIFT;
	case KEY_RIGHTSHIFT:
		return MOD_RSHIFT;
	default:
		return 0;
	}
}

/* Ctrl+Alt+F1..F12: the VT number, else 0. */
static int vt_hotkey(unsigned code)
{
	if (code >= KEY_F1 && code <= KEY_F10)
		return (int)(code - KEY_F1) + 1;
	if (code == KEY_F11)
		return 11;
	if (code == KEY_F12)
		return 12;
	return 0;
}

/* Ctrl+Alt+Shift+arrows, PgUp/PgDn, Home/End: pan the view. */
static bool pan_hotkey(unsigned code, int *dx, int *dy)
{
	*dx = *dy = 0;
	switch (code) {
	case KEY_LEFT:
		*dx = -1;
		break;
	case KEY_RIGHT:
		*dx = 1;
		break;
	case KEY_UP:
		*dy = -1;
		break;
	case KEY_DOWN:
		*dy = 1;
		break;
	case KEY_PAGEUP:
		*dy = -8;
		break;
	case KEY_PAGEDOWN:
		*dy = 8;
		break;
	case KEY_HOME:
		*dx = -PAN_EDGE;
		break;
	case KEY_END:
		*dx = PAN_EDGE;
		break;
	default:
		return false;
	}
	return true;
}

struct kbd_result kbd_feed(struct kbd *k, unsigned code, int value)
{
	struct kbd_result r = {KBD_NONE, 0, 0, false, 0, 0, 0};
	xkb_keycode_t kc = code + XKB_OFFSET;
	xkb_keysym_t sym;
	unsigned bit;
	bool chord, shift;

	if (code >= KEY_CNT)
		return r;
	bit = mod_bit(code);
	if (bit && value == 1)
		k->mods |= bit;
	else if (bit && value == 0)
		k->mods &= ~bit;
	chord = (k->mods & (MOD_LCTRL | MOD_RCTRL)) &&
		(k->mods & (MOD_LALT | MOD_RALT));
	shift = k->mods & (MOD_LSHIFT | MOD_RSHIFT);
	r.scancode = kbd_xt_scancode(code);

	if (value == 2 && k->swallowed[code] && chord && shift &&
	    pan_hotkey(code, &r.pan_dx, &r.pan_dy)) {
		/* A held pan key keeps panning. */
		r.action = KBD_PAN;
		return r;
	}
	if (value == 2) {
		/* Autorepeat: VNC servers do not repeat by themselves, so
		 * a held key is sent as repeated presses (not modifiers). */
		if (!k->sent[code] || !xkb_keymap_key_repeats(k->keymap, kc))
			return r;
		r.action = KBD_SEND;
		r.keysym = k->sent[code];
		r.down = true;
		return r;
	}
	if (value == 0) {
		xkb_state_update_key(k->state, kc, XKB_KEY_UP);
		if (k->swallowed[code]) {
			k->swallowed[code] = false;
			return r;
		}
		if (!k->sent[code])
			return r;
		/* The same keysym as the press, even if Shift went up in
		 * between: the server must see the key it has down go up. */
		r.action = KBD_SEND;
		r.keysym = k->sent[code];
		r.down = false;
		k->sent[code] = 0;
		return r;
	}
	if (value != 1)
		return r;
	sym = xkb_state_key_get_one_sym(k->state, kc);
	xkb_state_update_key(k->state, kc, XKB_KEY_DOWN);
	if (chord && shift && pan_hotkey(code, &r.pan_dx, &r.pan_dy)) {
		r.action = KBD_PAN;
	} else if (chord && shift &&
		   (sym == XKB_KEY_s || sym == XKB_KEY_S)) {
		/* Ctrl+Alt+Shift+S, wherever the layout has S. */
		r.action = KBD_SCALE;
	} else if (chord && vt_hotkey(code)) {
		r.action = KBD_VT_SWITCH;
		r.vt = vt_hotkey(code);
	} else if (sym >= XKB_KEY_XF86Switch_VT_1 &&
		   sym <= XKB_KEY_XF86Switch_VT_12) {
		/* Layouts that put VT switching elsewhere. */
		r.action = KBD_VT_SWITCH;
		r.vt = (int)(sym - XKB_KEY_XF86Switch_VT_1) + 1;
	} else if (chord && code == KEY_BACKSPACE) {
		r.action = KBD_QUIT;
	}
	if (r.action != KBD_NONE) {
		k->swallowed[code] = true;
		return r;
	}
	if (sym == XKB_KEY_NoSymbol && !r.scancode)
		return r;
	/* A key without a symbol in this layout still has its scancode
	 * for servers that take QEMU extended key events. */
	k->sent[code] = sym ? sym : XKB_KEY_VoidSymbol;
	r.action = KBD_SEND;
	r.keysym = k->sent[code];
	r.down = true;
	return r;
}

void kbd_release_all(struct kbd *k,
		     void (*fn)(void *ctx, uint32_t keysym, uint32_t scancode),
		     void *ctx)
{
	struct xkb_state *st;
	unsigned code;

	for (code = 0; code < KEY_CNT; code++) {
		if (k->sent[code] && fn)
			fn(ctx, k->sent[code], kbd_xt_scancode(code));
		k->sent[code] = 0;
		k->swallowed[code] = false;
	}
	k->mods = 0;
	/* Fresh state: nothing is held any more as far as xkb knows. */
	st = xkb_state_new(k->keymap);
	if (st) {
		xkb_state_unref(k->state);
		k->state = st;
	}
}
