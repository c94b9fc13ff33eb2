/* wskbd keycodes to X keysyms through the keyboard's own map (portable). */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "wskbd_map.h"

/* Modifier and lock bits, as wskbd(4) keeps them. */
enum {
	M_SHIFT_L = 1u << 0,
	M_SHIFT_R = 1u << 1,
	M_CTRL_L = 1u << 2,
	M_CTRL_R = 1u << 3,
	M_ALT_L = 1u << 4,
	M_ALT_R = 1u << 5,
	M_MODESHIFT = 1u << 6,
	M_META_L = 1u << 7,
	M_META_R = 1u << 8,
	M_CAPS = 1u << 9,
	M_SHIFTLOCK = 1u << 10,
	M_NUM = 1u << 11,
	M_SCROLL = 1u << 12,
};
#define M_LOCKS (M_CAPS | M_SHIFTLOCK | M_NUM | M_SCROLL)
#define M_ANYSHIFT (M_SHIFT_L | M_SHIFT_R | M_SHIFTLOCK)
#define M_CTRL (M_CTRL_L | M_CTRL_R)
#define M_ALT (M_ALT_L | M_ALT_R)

/* sent[] value of a key whose press a hot key swallowed. */
#define SWALLOWED 0xffffffffu

#define WSKBD_MAXMAPLEN 65536

int wskbd_map_init(struct wskbd_map *m, unsigned type, uint32_t encoding,
		   const struct wskbd_keymap_entry *entries, unsigned n)
{
	memset(m, 0, sizeof(*m));
	if (n == 0 || n > WSKBD_MAXMAPLEN)
		return -EINVAL;
	m->map = malloc(n * sizeof(*m->map));
	m->sent = calloc(n, sizeof(*m->sent));
	if (!m->map || !m->sent) {
		wskbd_map_finish(m);
		return -ENOMEM;
	}
	memcpy(m->map, entries, n * sizeof(*m->map));
	m->maplen = n;
	m->type = type;
	m->encoding = encoding & 0xff00;
	return 0;
}

void wskbd_map_finish(struct wskbd_map *m)
{
	free(m->map);
	free(m->sent);
	m->map = NULL;
	m->sent = NULL;
	m->maplen = 0;
}

void wskbd_map_set_leds(struct wskbd_map *m, unsigned leds)
{
	m->mods &= ~(M_CAPS | M_SHIFTLOCK | M_NUM | M_SCROLL);
	if (leds & WSKBD_LEDBIT_CAPS)
		m->mods |= M_CAPS;
	if (leds & WSKBD_LEDBIT_NUM)
		m->mods |= M_NUM;
	if (leds & WSKBD_LEDBIT_SCROLL)
		m->mods |= M_SCROLL;
}

unsigned wskbd_map_leds(const struct wskbd_map *m)
{
	unsigned leds = 0;

	/* wskbd(4) lights Caps for Shift Lock too. */
	if (m->mods & (M_CAPS | M_SHIFTLOCK))
		leds |= WSKBD_LEDBIT_CAPS;
	if (m->mods & M_NUM)
		leds |= WSKBD_LEDBIT_NUM;
	if (m->mods & M_SCROLL)
		leds |= WSKBD_LEDBIT_SCROLL;
	return leds;
}

/* --- keysym tables --- */

static uint32_t dead_keysym(uint16_t ks)
{
	switch (ks) {
	case 0x0300:
		return 0xfe50; /* dead_grave */
	case 0x0301:
		return 0xfe51; /* dead_acute */
	case 0x0302:
		return 0xfe52; /* dead_circumflex */
	case 0x0303:
		return 0xfe53; /* dead_tilde */
	case 0x0304:
		return 0xfe54; /* dead_macron */
	case 0x0306:
		return 0xfe55; /* dead_breve */
	case 0x0307:
		return 0xfe56; /* dead_abovedot */
	case 0x0308:
		return 0xfe57; /* dead_diaeresis */
	case 0x030a:
		return 0xfe58; /* dead_abovering */
	case 0x030b:
		return 0xfe59; /* dead_doubleacute */
	case 0x030c:
		return 0xfe5a; /* dead_caron */
	case 0x0327:
		return 0xfe5b; /* dead_cedilla */
	case 0x0328:
		return 0xfe5c; /* dead_ogonek (also KS_dead_semi) */
	case 0x0337:
		return 0xfe63; /* dead_stroke */
	default:
		return 0;
	}
}

static uint32_t mod_keysym(uint16_t ks)
{
	switch (ks) {
	case WSKS_Shift_L:
		return 0xffe1;
	case WSKS_Shift_R:
		return 0xffe2;
	case WSKS_Control_L:
		return 0xffe3;
	case WSKS_Control_R:
		return 0xffe4;
	case WSKS_Caps_Lock:
		return 0xffe5;
	case WSKS_Shift_Lock:
		return 0xffe6;
	case WSKS_Alt_L:
		return 0xffe9;
	case WSKS_Alt_R:
		return 0xffea;
	case WSKS_Multi_key:
		return 0xff20;
	/* wscons layouts put AltGr on Mode_switch; X servers and QEMU's
	 * keymaps know AltGr as ISO_Level3_Shift. */
	case WSKS_Mode_switch:
		return 0xfe03;
	case WSKS_Num_Lock:
		return 0xff7f;
	case WSKS_Hold_Screen:
		return 0xff14; /* Scroll_Lock */
	/* wscons maps the Windows keys to Meta_L/R; X calls them Super. */
	case WSKS_Meta_L:
		return 0xffeb;
	case WSKS_Meta_R:
		return 0xffec;
	case 0xf112:
		return 0xff2a; /* Zenkaku_Hankaku */
	case 0xf113:
		return 0xff27; /* Hiragana_Katakana */
	case 0xf114:	       /* Henkan_Mode */
	case 0xf115:
		return 0xff23; /* Henkan */
	case 0xf116:
		return 0xff22; /* Muhenkan */
	default:
		return 0; /* Cmd, Cmd1, Cmd2: wscons only */
	}
}

static uint32_t keypad_keysym(uint16_t ks)
{
	unsigned l = ks & 0xff;

	/* KP_F1..KP_Delete share X's low byte (0xff91..0xff9f). */
	if (l >= 0x91 && l <= 0x9f)
		return 0xff00 | l;
	if (ks == WSKS_KP_Space)
		return 0xff80;
	if (ks == WSKS_KP_Numbersign)
		return '#';
	/* KP_Tab, KP_Enter, operators, digits, KP_Equal: X's keypad keysyms
	 * are the ASCII value plus 0xff80. */
	if (l == 0x09 || l == 0x0d || (l >= 0x2a && l <= 0x39) || l == 0x3d)
		return 0xff80 + l;
	return 0;
}

static uint32_t function_keysym(uint16_t ks)
{
	static const struct {
		uint16_t ks;
		uint32_t x;
	} tab[] = {
	    {0xf36d, 0x1008ff2a}, /* Power: XF86PowerOff */
	    {0xf381, 0xff50},	  /* Home */
	    {0xf382, 0xff55},	  /* Prior */
	    {0xf383, 0xff56},	  /* Next */
	    {0xf384, 0xff52},	  /* Up */
	    {0xf385, 0xff54},	  /* Down */
	    {0xf386, 0xff51},	  /* Left */
	    {0xf387, 0xff53},	  /* Right */
	    {0xf388, 0xff57},	  /* End */
	    {0xf389, 0xff63},	  /* Insert */
	    {0xf38a, 0xff6a},	  /* Help */
	    {0xf38b, 0xff62},	  /* Execute */
	    {0xf38c, 0xff68},	  /* Find */
	    {0xf38d, 0xff60},	  /* Select */
	    {0xf38e, 0xff66},	  /* Again: Redo */
	    {0xf38f, 0x1005ff70}, /* Props: SunProps */
	    {0xf390, 0xff65},	  /* Undo */
	    {0xf391, 0x1005ff71}, /* Front: SunFront */
	    {0xf392, 0x1008ff57}, /* Copy: XF86Copy */
	    {0xf393, 0x1008ff6b}, /* Open: XF86Open */
	    {0xf394, 0x1008ff6d}, /* Paste: XF86Paste */
	    {0xf395, 0x1008ff58}, /* Cut: XF86Cut */
	    {0xf396, 0xff69},	  /* Stop: Cancel */
	    {0xf3c0, 0xff67},	  /* Menu */
	    {0xf3c1, 0xff13},	  /* Pause */
	    {0xf3c2, 0xff61},	  /* Print_Screen: Print */
	};
	size_t i;

	/* f1..f20 and F1..F20 (the shifted level) are both X's F1..F20. */
	if (ks >= WSKS_f1 && ks < WSKS_f1 + 20)
		return 0xffbe + (ks - WSKS_f1);
	if (ks >= WSKS_F1 && ks < WSKS_F1 + 20)
		return 0xffbe + (ks - WSKS_F1);
	for (i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
		if (tab[i].ks == ks)
			return tab[i].x;
	return 0;
}

/* 0xa0..0xff in the keyboard encoding's 8-bit character set. */
static uint32_t latin_keysym(uint16_t ks, uint32_t encoding)
{
	if (encoding == WSKBD_ENC_GR && ks >= 0xb4 && ks != 0xb7 &&
	    ks != 0xbb && ks != 0xbd && ks != 0xd2 && ks != 0xff)
		/* ISO 8859-7 letters and accents sit at U+0384..U+03CE. */
		return 0x1000000 | (ks + 0x2d0u);
	if (encoding == WSKBD_ENC_TR) {
		switch (ks) {
		case 0xd0:
			return 0x1000000 | 0x011e; /* G breve */
		case 0xdd:
			return 0x1000000 | 0x0130; /* I dot */
		case 0xde:
			return 0x1000000 | 0x015e; /* S cedilla */
		case 0xf0:
			return 0x1000000 | 0x011f;
		case 0xfd:
			return 0x1000000 | 0x0131; /* dotless i */
		case 0xfe:
			return 0x1000000 | 0x015f;
		}
	}
	/* ISO 8859-1 keysyms equal their code points. */
	return ks;
}

uint32_t wskbd_ks_to_keysym(uint16_t ks, uint32_t encoding)
{
	encoding &= 0xff00;
	switch (ks) {
	case WSKS_BackSpace:
		return 0xff08;
	case WSKS_Tab:
		return 0xff09;
	case WSKS_Linefeed:
		return 0xff0a;
	case WSKS_Clear:
		return 0xff0b;
	case WSKS_Return:
		return 0xff0d;
	case WSKS_Escape:
		return 0xff1b;
	case WSKS_Delete:
		return 0xffff;
	}
	if (ks < 0x20 || (ks > 0x7e && ks < 0xa0))
		return 0;
	if (ks < 0x7f)
		return ks;
	if (ks < 0x100)
		return latin_keysym(ks, encoding);
	if (ks >= WSKS_dead_first && ks <= WSKS_dead_last)
		return dead_keysym(ks);
	if ((ks & 0xf000) == 0xe000)
		return 0; /* KS_KEYCODE(): a raw keycode, not a symbol */
	if ((ks & 0xf800) == 0xf000) {
		switch (ks & 0xff00) {
		case WSKS_GROUP_Mod:
			return mod_keysym(ks);
		case WSKS_GROUP_Keypad:
			return keypad_keysym(ks);
		case WSKS_GROUP_Function:
			return function_keysym(ks);
		default:
			return 0; /* commands, voidSymbol */
		}
	}
	/* Other plain keysyms are Unicode code points (Latin-2 etc.). */
	return 0x1000000 | ks;
}

/* USB HID usage (keyboard page) to XT set 1, 0xe0 keys as 0x80|code. */
static const uint8_t usb_xt[0xe8] = {
    [0x04] = 0x1e, [0x05] = 0x30, [0x06] = 0x2e, [0x07] = 0x20, [0x08] = 0x12,
    [0x09] = 0x21, [0x0a] = 0x22, [0x0b] = 0x23, [0x0c] = 0x17, [0x0d] = 0x24,
    [0x0e] = 0x25, [0x0f] = 0x26, [0x10] = 0x32, [0x11] = 0x31, [0x12] = 0x18,
    [0x13] = 0x19, [0x14] = 0x10, [0x15] = 0x13, [0x16] = 0x1f, [0x17] = 0x14,
    [0x18] = 0x16, [0x19] = 0x2f, [0x1a] = 0x11, [0x1b] = 0x2d, [0x1c] = 0x15,
    [0x1d] = 0x2c, [0x1e] = 0x02, [0x1f] = 0x03, [0x20] = 0x04, [0x21] = 0x05,
    [0x22] = 0x06, [0x23] = 0x07, [0x24] = 0x08, [0x25] = 0x09, [0x26] = 0x0a,
    [0x27] = 0x0b, [0x28] = 0x1c, [0x29] = 0x01, [0x2a] = 0x0e, [0x2b] = 0x0f,
    [0x2c] = 0x39, [0x2d] = 0x0c, [0x2e] = 0x0d, [0x2f] = 0x1a, [0x30] = 0x1b,
    [0x31] = 0x2b, [0x32] = 0x2b, [0x33] = 0x27, [0x34] = 0x28, [0x35] = 0x29,
    [0x36] = 0x33, [0x37] = 0x34, [0x38] = 0x35, [0x39] = 0x3a, [0x3a] = 0x3b,
    [0x3b] = 0x3c, [0x3c] = 0x3d, [0x3d] = 0x3e, [0x3e] = 0x3f, [0x3f] = 0x40,
    [0x40] = 0x41, [0x41] = 0x42, [0x42] = 0x43, [0x43] = 0x44, [0x44] = 0x57,
    [0x45] = 0x58, [0x46] = 0xb7, [0x47] = 0x46, [0x48] = 0xc6, [0x49] = 0xd2,
    [0x4a] = 0xc7, [0x4b] = 0xc9, [0x4c] = 0xd3, [0x4d] = 0xcf, [0x4e] = 0xd1,
    [0x4f] = 0xcd, [0x50] = 0xcb, [0x51] = 0xd0, [0x52] = 0xc8, [0x53] = 0x45,
    [0x54] = 0xb5, [0x55] = 0x37, [0x56] = 0x4a, [0x57] = 0x4e, [0x58] = 0x9c,
    [0x59] = 0x4f, [0x5a] = 0x50, [0x5b] = 0x51, [0x5c] = 0x4b, [0x5d] = 0x4c,
    [0x5e] = 0x4d, [0x5f] = 0x47, [0x60] = 0x48, [0x61] = 0x49, [0x62] = 0x52,
    [0x63] = 0x53, [0x64] = 0x56, [0x65] = 0xdd, [0x66] = 0xde, [0x67] = 0x59,
    [0x68] = 0x64, [0x69] = 0x65, [0x6a] = 0x66, [0x6b] = 0x67, [0x6c] = 0x68,
    [0x6d] = 0x69, [0x6e] = 0x6a, [0x6f] = 0x6b, [0x70] = 0x6c, [0x71] = 0x6d,
    [0x72] = 0x6e, [0x73] = 0x76, [0x7f] = 0xa0, [0x80] = 0xb0, [0x81] = 0xae,
    [0x85] = 0x7e, [0x87] = 0x73, [0x88] = 0x70, [0x89] = 0x7d, [0x8a] = 0x79,
    [0x8b] = 0x7b, [0xe0] = 0x1d, [0xe1] = 0x2a, [0xe2] = 0x38, [0xe3] = 0xdb,
    [0xe4] = 0x9d, [0xe5] = 0x36, [0xe6] = 0xb8, [0xe7] = 0xdc,
};

uint32_t wskbd_scancode(unsigned type, unsigned keycode)
{
	switch (type) {
	case WSKBD_KT_PC_XT:
		/* pckbd(4) already reports 0xe0-prefixed keys as 0x80|code,
		 * QEMU's convention too. */
		return keycode < 0x100 ? keycode : 0;
	case WSKBD_KT_USB:
		return keycode < sizeof(usb_xt) ? usb_xt[keycode] : 0;
	default:
		return 0;
	}
}

/* --- state machine --- */

static void update_mods(struct wskbd_map *m, uint16_t ks, bool down)
{
	unsigned bit = 0, toggle = 0;

	switch (ks) {
	case WSKS_Shift_L:
		bit = M_SHIFT_L;
		break;
	case WSKS_Shift_R:
		bit = M_SHIFT_R;
		break;
	case WSKS_Control_L:
		bit = M_CTRL_L;
		break;
	case WSKS_Control_R:
		bit = M_CTRL_R;
		break;
	case WSKS_Alt_L:
		bit = M_ALT_L;
		break;
	case WSKS_Alt_R:
		bit = M_ALT_R;
		break;
	case WSKS_Meta_L:
		bit = M_META_L;
		break;
	case WSKS_Meta_R:
		bit = M_META_R;
		break;
	case WSKS_Mode_switch:
		bit = M_MODESHIFT;
		break;
	case WSKS_Caps_Lock:
		toggle = M_CAPS;
		break;
	case WSKS_Shift_Lock:
		toggle = M_SHIFTLOCK;
		break;
	case WSKS_Num_Lock:
		toggle = M_NUM;
		break;
	case WSKS_Hold_Screen:
		toggle = M_SCROLL;
		break;
	default:
		return;
	}
	if (toggle) {
		if (down)
			m->mods ^= toggle;
	} else if (down) {
		m->mods |= bit;
	} else {
		m->mods &= ~bit;
	}
}

/* The level wskbd(4) would pick (its wskbd_translate()). */
static uint16_t pick_level(const struct wskbd_map *m,
			   const struct wskbd_keymap_entry *e)
{
	const uint16_t *g = (m->mods & M_MODESHIFT) ? e->group2 : e->group1;
	uint16_t ks;

	if ((m->mods & M_NUM) && (g[1] & 0xff00) == WSKS_GROUP_Keypad &&
	    (g[1] & 0xf800) == 0xf000)
		return (m->mods & M_ANYSHIFT) ? g[0] : g[1];
	if (!(m->mods & (M_ANYSHIFT | M_CAPS)))
		return g[0];
	if (m->mods & M_CAPS) {
		ks = (m->mods & (M_SHIFT_L | M_SHIFT_R)) ? g[1] : g[0];
		if (ks >= WSKS_a && ks <= WSKS_z)
			ks -= 0x20;
		else if (ks >= WSKS_agrave && ks <= WSKS_thorn &&
			 ks != WSKS_division)
			ks -= 0x20;
		return ks;
	}
	return g[1];
}

/* Screen for Ctrl+Alt+key, or -1. The map's own Cmd_ScreenN command wins
 * (it is what the console itself would do); F1..F12 otherwise. */
static int hot_screen(const struct wskbd_keymap_entry *e)
{
	uint16_t ks = e->group1[0];

	if (e->command >= WSKS_Cmd_Screen0 && e->command <= WSKS_Cmd_Screen9)
		return e->command - WSKS_Cmd_Screen0;
	if (ks >= WSKS_f1 && ks < WSKS_f1 + 12)
		return ks - WSKS_f1;
	if (ks >= WSKS_F1 && ks < WSKS_F1 + 12)
		return ks - WSKS_F1;
	return -1;
}

/* Ctrl+Alt+Shift+key: the pan step for key, false when it is none. */
static bool hot_pan(uint16_t ks, int *dx, int *dy)
{
	/* The keypad's navigation keys count too. */
	static const uint16_t kp[] = {
	    0xf381, 0xf386, 0xf384, 0xf387, /* KP_Home Left Up Right */
	    0xf385, 0xf382, 0xf383, 0xf388, /* KP_Down Prior Next End */
	};

	if (ks >= WSKS_KP_Home && ks < WSKS_KP_Home + 8)
		ks = kp[ks - WSKS_KP_Home];
	*dx = *dy = 0;
	switch (ks) {
	case 0xf386: /* Left */
		*dx = -1;
		break;
	case 0xf387: /* Right */
		*dx = 1;
		break;
	case 0xf384: /* Up */
		*dy = -1;
		break;
	case 0xf385: /* Down */
		*dy = 1;
		break;
	case 0xf382: /* Prior */
		*dy = -8;
		break;
	case 0xf383: /* Next */
		*dy = 8;
		break;
	case 0xf381: /* Home */
		*dx = -WSKBD_PAN_EDGE;
		break;
	case 0xf388: /* End */
		*dx = WSKBD_PAN_EDGE;
		break;
	default:
		return false;
	}
	return true;
}

void wskbd_map_event(struct wskbd_map *m, unsigned keycode, bool down,
		     struct wskbd_out *out)
{
	const struct wskbd_keymap_entry *e;
	uint32_t sent, x;
	int screen;

	memset(out, 0, sizeof(*out));
	if (keycode >= m->maplen)
		return;
	e = &m->map[keycode];
	update_mods(m, e->group1[0], down);
	out->scancode = wskbd_scancode(m->type, keycode);
	out->down = down;
	if (!down) {
		sent = m->sent[keycode];
		m->sent[keycode] = 0;
		if (sent == 0 || sent == SWALLOWED)
			return;
		out->action = WSKBD_ACT_KEY;
		out->keysym = sent;
		return;
	}
	if (m->sent[keycode] == SWALLOWED)
		return;
	if ((m->mods & M_CTRL) && (m->mods & M_ALT)) {
		screen = hot_screen(e);
		if (screen >= 0) {
			out->action = WSKBD_ACT_VT;
			out->screen = screen;
		} else if (e->group1[0] == WSKS_BackSpace) {
			out->action = WSKBD_ACT_QUIT;
		} else if ((m->mods & (M_SHIFT_L | M_SHIFT_R)) &&
			   hot_pan(e->group1[0], &out->pan_dx, &out->pan_dy)) {
			out->action = WSKBD_ACT_PAN;
		} else if ((m->mods & (M_SHIFT_L | M_SHIFT_R)) &&
			   (e->group1[0] == 's' || e->group1[0] == 'S')) {
			out->action = WSKBD_ACT_SCALE;
		}
		if (out->action != WSKBD_ACT_NONE) {
			m->sent[keycode] = SWALLOWED;
			return;
		}
	}
	/* A held key repeats with the keysym it went down with. */
	x = m->sent[keycode];
	if (!x)
		x = wskbd_ks_to_keysym(pick_level(m, e), m->encoding);
	if (!x)
		return;
	m->sent[keycode] = x;
	out->action = WSKBD_ACT_KEY;
	out->keysym = x;
}

int wskbd_map_release_all(struct wskbd_map *m, struct wskbd_out *out, int max)
{
	unsigned k;
	int n = 0;

	for (k = 0; k < m->maplen; k++) {
		uint32_t s = m->sent[k];

		if (!s)
			continue;
		m->sent[k] = 0;
		if (s == SWALLOWED || n >= max)
			continue;
		memset(&out[n], 0, sizeof(out[n]));
		out[n].action = WSKBD_ACT_KEY;
		out[n].keysym = s;
		out[n].scancode = wskbd_scancode(m->type, k);
		out[n].down = false;
		n++;
	}
	m->mods &= M_LOCKS;
	return n;
}
