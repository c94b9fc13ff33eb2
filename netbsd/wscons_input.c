/* NetBSD input: wskbd keyboards and wsmouse pointers in event mode, read
 * through one kqueue so the main loop polls a single fd. */
#include "config.h"

#include <sys/types.h>
#include <sys/event.h>
#include <sys/ioctl.h>
#include <sys/time.h>

#include <dev/wscons/wsconsio.h>
#include <dev/wscons/wsksymdef.h>

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "platform/input.h"
#include "util/log.h"
#include "wscons.h"
#include "wskbd_map.h"
#include "wsmouse_acc.h"

/* The portable helpers carry these numbers; hold them to the headers. */
#define SAME(a, b) _Static_assert((a) == (b), #a " != " #b)
SAME(WSEV_KEY_UP, WSCONS_EVENT_KEY_UP);
SAME(WSEV_KEY_DOWN, WSCONS_EVENT_KEY_DOWN);
SAME(WSEV_ALL_KEYS_UP, WSCONS_EVENT_ALL_KEYS_UP);
SAME(WSEV_MOUSE_UP, WSCONS_EVENT_MOUSE_UP);
SAME(WSEV_MOUSE_DOWN, WSCONS_EVENT_MOUSE_DOWN);
SAME(WSEV_MOUSE_DELTA_X, WSCONS_EVENT_MOUSE_DELTA_X);
SAME(WSEV_MOUSE_DELTA_Y, WSCONS_EVENT_MOUSE_DELTA_Y);
SAME(WSEV_MOUSE_ABSOLUTE_X, WSCONS_EVENT_MOUSE_ABSOLUTE_X);
SAME(WSEV_MOUSE_ABSOLUTE_Y, WSCONS_EVENT_MOUSE_ABSOLUTE_Y);
SAME(WSEV_MOUSE_DELTA_Z, WSCONS_EVENT_MOUSE_DELTA_Z);
SAME(WSEV_MOUSE_DELTA_W, WSCONS_EVENT_MOUSE_DELTA_W);
SAME(WSEV_HSCROLL, WSCONS_EVENT_HSCROLL);
SAME(WSEV_VSCROLL, WSCONS_EVENT_VSCROLL);
SAME(WSKBD_KT_PC_XT, WSKBD_TYPE_PC_XT);
SAME(WSKBD_KT_PC_AT, WSKBD_TYPE_PC_AT);
SAME(WSKBD_KT_USB, WSKBD_TYPE_USB);
SAME(WSKBD_ENC_GR, KB_GR);
SAME(WSKBD_LEDBIT_CAPS, WSKBD_LED_CAPS);
SAME(WSKBD_LEDBIT_NUM, WSKBD_LED_NUM);
SAME(WSKBD_LEDBIT_SCROLL, WSKBD_LED_SCROLL);
SAME(WSKBD_ENC_TR, KB_TR);
SAME(WSKS_BackSpace, KS_BackSpace);
SAME(WSKS_Tab, KS_Tab);
SAME(WSKS_Linefeed, KS_Linefeed);
SAME(WSKS_Clear, KS_Clear);
SAME(WSKS_Return, KS_Return);
SAME(WSKS_Escape, KS_Escape);
SAME(WSKS_space, KS_space);
SAME(WSKS_a, KS_a);
SAME(WSKS_z, KS_z);
SAME(WSKS_Delete, KS_Delete);
SAME(WSKS_agrave, KS_agrave);
SAME(WSKS_division, KS_division);
SAME(WSKS_thorn, KS_thorn);
SAME(WSKS_Shift_L, KS_Shift_L);
SAME(WSKS_Shift_R, KS_Shift_R);
SAME(WSKS_Control_L, KS_Control_L);
SAME(WSKS_Control_R, KS_Control_R);
SAME(WSKS_Caps_Lock, KS_Caps_Lock);
SAME(WSKS_Shift_Lock, KS_Shift_Lock);
SAME(WSKS_Alt_L, KS_Alt_L);
SAME(WSKS_Alt_R, KS_Alt_R);
SAME(WSKS_Multi_key, KS_Multi_key);
SAME(WSKS_Mode_switch, KS_Mode_switch);
SAME(WSKS_Num_Lock, KS_Num_Lock);
SAME(WSKS_Hold_Screen, KS_Hold_Screen);
SAME(WSKS_Cmd, KS_Cmd);
SAME(WSKS_Cmd1, KS_Cmd1);
SAME(WSKS_Cmd2, KS_Cmd2);
SAME(WSKS_Meta_L, KS_Meta_L);
SAME(WSKS_Meta_R, KS_Meta_R);
SAME(WSKS_KP_Space, KS_KP_Space);
SAME(WSKS_KP_Numbersign, KS_KP_Numbersign);
SAME(WSKS_KP_0, KS_KP_0);
SAME(WSKS_KP_Home, KS_KP_Home);
SAME(WSKS_f1, KS_f1);
SAME(WSKS_F1, KS_F1);
SAME(WSKS_Home, KS_Home);
SAME(WSKS_Cmd_Screen0, KS_Cmd_Screen0);
SAME(WSKS_Cmd_Screen9, KS_Cmd_Screen9);
SAME(WSKS_voidSymbol, KS_voidSymbol);
SAME(WSKS_dead_first, KS_dead_grave);
SAME(WSKS_GROUP_Mod, KS_GROUP_Mod);
SAME(WSKS_GROUP_Keypad, KS_GROUP_Keypad);
SAME(WSKS_GROUP_Function, KS_GROUP_Function);
SAME(WSKS_GROUP_Command, KS_GROUP_Command);
SAME(WSKS_GROUP_Internal, KS_GROUP_Internal);
_Static_assert(sizeof(struct wskbd_keymap_entry) ==
		   sizeof(struct wscons_keymap),
	       "struct wskbd_keymap_entry differs from struct wscons_keymap");

#define DEFAULT_KEYBOARD "/dev/wskbd"
#define DEFAULT_MOUSE "/dev/wsmouse"
#define MAX_DEVICES 16

enum dev_kind { DEV_KBD, DEV_MOUSE };

struct wsdev {
	enum dev_kind kind;
	char *path;
	int fd; /* -1: closed (screen switched away, gone) */
	struct wskbd_map kmap;
	struct wsmouse_acc macc;
	/* Keyboards: LEDs as found (given back when we let go) and as set;
	 * setting them needs the device open for writing. */
	int leds_found;
	unsigned leds_set;
	bool leds_writable;
};

struct ws_input {
	int kq;
	struct wsdev dev[MAX_DEVICES];
	int ndev;
	bool shown;
};

static int kq_watch(struct ws_input *wi, int i, bool add)
{
	struct kevent kev;

	EV_SET(&kev, wi->dev[i].fd, EVFILT_READ, add ? EV_ADD : EV_DELETE, 0, 0,
	       (void *)(intptr_t)i);
	if (kevent(wi->kq, &kev, 1, NULL, 0, NULL) < 0) {
		log_error("kevent %s: %s", wi->dev[i].path, strerror(errno));
		return -errno;
	}
	return 0;
}

/* A multiplexer answers GTYPE and GETMAP for one of its keyboards, and its
 * events carry no keyboard id: keyboards of two types (a laptop's PC
 * keyboard and a USB one) cannot both be translated right through it. */
static void warn_mixed(const struct wsdev *d, u_int type)
{
	struct wsmux_device_list l;
	int i, kbds = 0;

	memset(&l, 0, sizeof(l));
	if (ioctl(d->fd, WSMUXIO_LIST_DEVICES, &l) < 0)
		return; /* not a multiplexer */
	for (i = 0; i < l.ndevices && i < WSMUX_MAXDEV; i++)
		kbds += l.devices[i].type == WSMUX_KBD;
	if (kbds > 1)
		log_warn("%s has %d keyboards, all read with one keyboard's "
			 "map (type %u): keys of a keyboard of another kind "
			 "(PC and USB) may come out wrong; --input "
			 "/dev/wskbdN,/dev/wsmouse reads just the one you type "
			 "on",
			 d->path, kbds, type);
}

/* Lock state from the LEDs, so Caps/Num/Scroll Lock start as shown. */
static void read_leds(struct wsdev *d)
{
	int leds = 0;

	d->leds_found = -1;
	if (ioctl(d->fd, WSKBDIO_GETLEDS, &leds) < 0)
		return;
	d->leds_found = leds;
	d->leds_set = (unsigned)leds;
	wskbd_map_set_leds(&d->kmap, (unsigned)leds);
}

/* In event mode the kernel leaves the LEDs alone: show our locks. */
static void update_leds(struct wsdev *d)
{
	int leds = (int)wskbd_map_leds(&d->kmap);

	if (!d->leds_writable || (unsigned)leds == d->leds_set)
		return;
	d->leds_set = (unsigned)leds;
	if (ioctl(d->fd, WSKBDIO_SETLEDS, &leds) < 0) {
		log_debug("ioctl WSKBDIO_SETLEDS: %s (%s)", strerror(errno),
			  d->path);
		d->leds_writable = false;
	}
}

/* The keyboard's own map; GETMAP shortens maplen to what it has. */
static int load_keymap(struct wsdev *d)
{
	struct wskbd_map_data md;
	struct wscons_keymap *map = NULL;
	u_int type = 0, want = 512;
	kbd_t enc = 0;
	int ret;

	if (ioctl(d->fd, WSKBDIO_GTYPE, &type) < 0) {
		log_error("ioctl WSKBDIO_GTYPE: %s (%s)", strerror(errno),
			  d->path);
		return -errno;
	}
	if (ioctl(d->fd, WSKBDIO_GETENCODING, &enc) < 0) {
		log_info("ioctl WSKBDIO_GETENCODING: %s (%s); assuming "
			 "Latin-1 keysyms",
			 strerror(errno), d->path);
		enc = 0;
	}
	for (;;) {
		struct wscons_keymap *n = realloc(map, want * sizeof(*map));

		if (!n) {
			free(map);
			return -ENOMEM;
		}
		map = n;
		md.maplen = want;
		md.map = map;
		if (ioctl(d->fd, WSKBDIO_GETMAP, &md) < 0) {
			ret = -errno;
			log_error("ioctl WSKBDIO_GETMAP: %s (%s)",
				  strerror(errno), d->path);
			free(map);
			return ret;
		}
		if (md.maplen < want || want >= WSKBDIO_MAXMAPLEN)
			break;
		want *= 4;
		if (want > WSKBDIO_MAXMAPLEN)
			want = WSKBDIO_MAXMAPLEN;
	}
	if (md.maplen == 0) {
		log_error("%s: the keyboard map is empty", d->path);
		free(map);
		return -EINVAL;
	}
	ret = wskbd_map_init(&d->kmap, type, KB_ENCODING(enc),
			     (const struct wskbd_keymap_entry *)map, md.maplen);
	free(map);
	if (ret < 0)
		return ret;
	read_leds(d);
	warn_mixed(d, type);
	log_debug("%s: keyboard type %u, encoding %#x, %u keys", d->path, type,
		  (unsigned)enc, md.maplen);
	return 0;
}

static void mouse_params(struct wsdev *d)
{
	struct wsmouse_calibcoords cc;
	struct wsmouse_param prm[2] = {
	    {.key = WSMOUSECFG_HORIZSCROLLDIST},
	    {.key = WSMOUSECFG_VERTSCROLLDIST},
	};
	struct wsmouse_parameters ps = {.params = prm, .nparams = 2};

	wsmouse_acc_init(&d->macc);
	memset(&cc, 0, sizeof(cc));
	if (ioctl(d->fd, WSMOUSEIO_GCALIBCOORDS, &cc) == 0 &&
	    cc.maxx > cc.minx && cc.maxy > cc.miny) {
		d->macc.minx = cc.minx;
		d->macc.maxx = cc.maxx;
		d->macc.miny = cc.miny;
		d->macc.maxy = cc.maxy;
	}
	if (ioctl(d->fd, WSMOUSEIO_GETPARAMS, &ps) == 0) {
		if (prm[0].value > 0)
			d->macc.hscroll_dist = prm[0].value;
		if (prm[1].value > 0)
			d->macc.vscroll_dist = prm[1].value;
	}
}

/* Open (or reopen) one device in event mode. */
static int dev_open(struct wsdev *d, bool first)
{
	int version = WSEVENT_VERSION, ret;
	unsigned long req =
	    d->kind == DEV_KBD ? WSKBDIO_SETVERSION : WSMOUSEIO_SETVERSION;

	/* Keyboards for writing too, to set the LEDs; reading is enough. */
	d->fd = -1;
	d->leds_writable = false;
	if (d->kind == DEV_KBD) {
		d->fd = open(d->path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
		d->leds_writable = d->fd >= 0;
	}
	if (d->fd < 0)
		d->fd = open(d->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (d->fd < 0) {
		ret = -errno;
		log_error("%s: %s", d->path, strerror(errno));
		return ret;
	}
	if (ioctl(d->fd, req, &version) < 0) {
		ret = -errno;
		log_error("ioctl %s: %s (%s)",
			  d->kind == DEV_KBD ? "WSKBDIO_SETVERSION"
					     : "WSMOUSEIO_SETVERSION",
			  strerror(errno), d->path);
		goto fail;
	}
	if (!first) {
		/* Back from another screen, whose console may have toggled
		 * Caps or Num Lock. */
		if (d->kind == DEV_KBD)
			read_leds(d);
		return 0;
	}
	if (d->kind == DEV_KBD) {
		ret = load_keymap(d);
		if (ret < 0)
			goto fail;
	} else {
		mouse_params(d);
	}
	return 0;
fail:
	close(d->fd);
	d->fd = -1;
	return ret;
}

static void dev_close(struct ws_input *wi, int i)
{
	struct wsdev *d = &wi->dev[i];

	if (d->fd < 0)
		return;
	/* The console's own lock state is what it was when we took the
	 * keyboard: so must its LEDs be. */
	if (d->kind == DEV_KBD && d->leds_writable && d->leds_found >= 0 &&
	    (unsigned)d->leds_found != d->leds_set)
		ioctl(d->fd, WSKBDIO_SETLEDS, &d->leds_found);
	close(d->fd); /* also drops its kevent */
	d->fd = -1;
}

/* Keyboard or mouse: by name when it says, else by asking the device. */
static int classify(const char *path, enum dev_kind *kind)
{
	u_int type;
	int fd, ret = -ENODEV;

	if (strstr(path, "wsmouse")) {
		*kind = DEV_MOUSE;
		return 0;
	}
	if (strstr(path, "wskbd")) {
		*kind = DEV_KBD;
		return 0;
	}
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		log_error("%s: %s", path, strerror(errno));
		return ret;
	}
	if (ioctl(fd, WSKBDIO_GTYPE, &type) == 0) {
		*kind = DEV_KBD;
		ret = 0;
	} else if (ioctl(fd, WSMOUSEIO_GTYPE, &type) == 0) {
		*kind = DEV_MOUSE;
		ret = 0;
	} else {
		log_error("%s: neither a wskbd nor a wsmouse device", path);
	}
	close(fd);
	return ret;
}

static int add_device(struct ws_input *wi, const char *path, size_t len,
		      bool required)
{
	struct wsdev *d;
	int ret;

	if (wi->ndev >= MAX_DEVICES) {
		log_error("too many input devices (at most %d)", MAX_DEVICES);
		return -E2BIG;
	}
	d = &wi->dev[wi->ndev];
	memset(d, 0, sizeof(*d));
	d->fd = -1;
	d->path = strndup(path, len);
	if (!d->path)
		return -ENOMEM;
	ret = classify(d->path, &d->kind);
	if (ret == 0)
		ret = dev_open(d, true);
	if (ret < 0) {
		free(d->path);
		d->path = NULL;
		return required ? ret : 0;
	}
	wi->ndev++;
	return kq_watch(wi, wi->ndev - 1, true);
}

/* vncfb's screen is shown (true) or another one is (false). */
static void set_shown(struct ws_input *wi, bool shown)
{
	int i;

	wi->shown = shown;
	for (i = 0; i < wi->ndev; i++) {
		struct wsdev *d = &wi->dev[i];

		/* While another screen is shown its console needs the
		 * keyboard: an open event-mode keyboard would take every key
		 * away from it. */
		if (d->kind != DEV_KBD)
			continue;
		if (!shown) {
			dev_close(wi, i);
		} else if (d->fd < 0) {
			if (dev_open(d, false) == 0)
				kq_watch(wi, i, true);
		}
	}
}

static void ws_in_close(struct input *in)
{
	struct ws_input *wi = in->priv;
	int i;

	if (!wi)
		return;
	for (i = 0; i < wi->ndev; i++) {
		dev_close(wi, i);
		if (wi->dev[i].kind == DEV_KBD)
			wskbd_map_finish(&wi->dev[i].kmap);
		free(wi->dev[i].path);
	}
	if (wi->kq >= 0)
		close(wi->kq);
	free(wi);
	in->priv = NULL;
	in->fd = -1;
}

static int ws_in_open(struct input *in, const struct input_config *cfg)
{
	struct ws_input *wi;
	const char *p, *comma;
	int ret = 0;

	wi = calloc(1, sizeof(*wi));
	if (!wi)
		return -ENOMEM;
	in->priv = wi;
	in->fd = -1;
	wi->shown = true;
	wi->kq = kqueue1(O_CLOEXEC);
	if (wi->kq < 0) {
		ret = -errno;
		log_error("kqueue: %s", strerror(errno));
		goto fail;
	}
	if (cfg && cfg->keymap)
		log_warn("--keymap is ignored on NetBSD: keys are translated "
			 "through the keyboard's own wscons map "
			 "(wsconsctl -k -w encoding=...)");
	if (cfg && cfg->devices) {
		for (p = cfg->devices; *p; p = comma ? comma + 1 : "") {
			comma = strchr(p, ',');
			size_t len = comma ? (size_t)(comma - p) : strlen(p);

			if (len == 0)
				continue;
			ret = add_device(wi, p, len, true);
			if (ret < 0)
				goto fail;
		}
	} else {
		/* The multiplexers: every keyboard and mouse, hot-plugged
		 * ones too. A machine without a mouse is fine. */
		ret = add_device(wi, DEFAULT_KEYBOARD, strlen(DEFAULT_KEYBOARD),
				 false);
		if (ret < 0)
			goto fail;
		ret =
		    add_device(wi, DEFAULT_MOUSE, strlen(DEFAULT_MOUSE), false);
		if (ret < 0)
			goto fail;
	}
	if (wi->ndev == 0) {
		ret = -ENODEV;
		goto fail;
	}
	in->fd = wi->kq;
	return 0;
fail:
	ws_in_close(in);
	return ret;
}

static void send_key(const struct wskbd_out *o, const struct input_sink *sink)
{
	sink->key(sink->ctx, o->keysym, o->scancode, o->down);
}

static void release_all(struct wsdev *d, const struct input_sink *sink)
{
	struct wskbd_out ups[64];
	int n, i;

	do {
		n = wskbd_map_release_all(&d->kmap, ups, 64);
		for (i = 0; i < n; i++)
			send_key(&ups[i], sink);
	} while (n == 64);
}

static void key_event(struct wsdev *d, const struct wscons_event *e,
		      const struct input_sink *sink)
{
	struct wskbd_out o;

	if (e->type == WSCONS_EVENT_ALL_KEYS_UP) {
		release_all(d, sink);
		return;
	}
	if (e->type != WSCONS_EVENT_KEY_DOWN && e->type != WSCONS_EVENT_KEY_UP)
		return;
	if (e->value < 0)
		return;
	wskbd_map_event(&d->kmap, (unsigned)e->value,
			e->type == WSCONS_EVENT_KEY_DOWN, &o);
	switch (o.action) {
	case WSKBD_ACT_KEY:
		send_key(&o, sink);
		break;
	case WSKBD_ACT_VT:
		/* The remote must not see Ctrl and Alt stuck down. */
		release_all(d, sink);
		wscons_switch_screen(o.screen);
		break;
	case WSKBD_ACT_PAN:
		if (sink->pan)
			sink->pan(sink->ctx, o.pan_dx, o.pan_dy);
		break;
	case WSKBD_ACT_SCALE:
		if (sink->scale)
			sink->scale(sink->ctx);
		break;
	case WSKBD_ACT_QUIT:
		release_all(d, sink);
		sink->quit(sink->ctx);
		break;
	case WSKBD_ACT_NONE:
		break;
	}
	update_leds(d);
}

/* Read everything pending on one device. */
static int drain(struct ws_input *wi, int i, const struct input_sink *sink)
{
	struct wsdev *d = &wi->dev[i];
	struct wscons_event ev[64];
	ssize_t n;
	size_t k, cnt;

	while (d->fd >= 0) {
		n = read(d->fd, ev, sizeof(ev));
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			break;
		if (n <= 0) {
			/* Unplugged (ENXIO/EIO) or closed under us: carry on
			 * without it. */
			log_warn("%s: %s; going on without it", d->path,
				 n < 0 ? strerror(errno) : "end of file");
			dev_close(wi, i);
			break;
		}
		cnt = (size_t)n / sizeof(ev[0]);
		for (k = 0; k < cnt; k++) {
			if (!wi->shown)
				continue;
			if (d->kind == DEV_KBD)
				key_event(d, &ev[k], sink);
			else
				wsmouse_acc_event(&d->macc, ev[k].type,
						  ev[k].value, sink);
		}
		if (d->kind == DEV_MOUSE && wi->shown)
			wsmouse_acc_flush(&d->macc, sink);
		if ((size_t)n < sizeof(ev))
			break;
	}
	return 0;
}

static int ws_in_dispatch(struct input *in, const struct input_sink *sink)
{
	struct ws_input *wi = in->priv;
	struct kevent kev[MAX_DEVICES];
	const struct timespec zero = {0, 0};
	int n, j;

	n = kevent(wi->kq, NULL, 0, kev, MAX_DEVICES, &zero);
	if (n < 0) {
		if (errno == EINTR)
			return 0;
		log_error("kevent: %s", strerror(errno));
		return -errno;
	}
	for (j = 0; j < n; j++) {
		int i = (int)(intptr_t)kev[j].udata;

		if (i >= 0 && i < wi->ndev)
			drain(wi, i, sink);
	}
	return 0;
}

static void ws_in_suspend(struct input *in)
{
	set_shown(in->priv, false);
}

static void ws_in_resume(struct input *in)
{
	set_shown(in->priv, true);
}

const struct input_impl wscons_input_impl = {
    .name = "wscons",
    .open = ws_in_open,
    .close = ws_in_close,
    .dispatch = ws_in_dispatch,
    .suspend = ws_in_suspend,
    .resume = ws_in_resume,
};
