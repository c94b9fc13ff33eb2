/* netbsd/wscons_input.c against fake wscons devices: FIFOs carry the
 * events, a fake ioctl() answers for the keyboard and the mouse, and
 * kqueue is emulated over poll(). Checks what reaches the session: keysyms
 * through the device's own map, lock state from and to the LEDs, pointer
 * motion and buttons, the hot keys, and letting go of the keyboard while
 * another screen is shown. Built on Linux with the stand-in headers in
 * fake/. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <dev/wscons/wsconsio.h>
#include <sys/event.h>

#include "platform/input.h"
#include "wscons.h"
#include "wskbd_map.h"

#include "../check.h"

static char dir[] = "/tmp/vncfb-wscons-XXXXXX";
static char kbd_path[PATH_MAX], mouse_path[PATH_MAX];

/* --- what the kernel side says and was told --- */

static char calls[4096];
static int leds = WSKBD_LED_CAPS;
static int mux_keyboards = 1;

#define note(...) log_append(calls, sizeof(calls), __VA_ARGS__)

/* A piece of the pckbd US map, XT keycodes. */
#define V WSKS_voidSymbol
#define E(code, cmd, a, b) [code] = {cmd, {a, b}, {a, b}}
static const struct wscons_keymap kbd_map[0x80] = {
    E(0x0e, V, 0x08, 0x08), /* BackSpace */
    E(0x1d, WSKS_Cmd1, WSKS_Control_L, WSKS_Control_L),
    E(0x1e, V, 'a', 'A'),
    E(0x2a, V, WSKS_Shift_L, WSKS_Shift_L),
    E(0x38, WSKS_Cmd2, WSKS_Alt_L, WSKS_Alt_L),
    E(0x3a, V, WSKS_Caps_Lock, WSKS_Caps_Lock),
    E(0x3c, WSKS_Cmd_Screen0 + 1, WSKS_f1 + 1, WSKS_F1 + 1), /* F2 */
};

static bool is_kbd(int fd)
{
	char link[64], target[PATH_MAX];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, target, sizeof(target) - 1);
	if (n < 0)
		return false;
	target[n] = '\0';
	return strstr(target, "wskbd") != NULL;
}

int ioctl(int fd, unsigned long req, ...);
int ioctl(int fd, unsigned long req, ...)
{
	va_list ap;
	void *arg;
	bool kbd = is_kbd(fd);

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	switch (req) {
	case WSKBDIO_SETVERSION:
	case WSMOUSEIO_SETVERSION:
		note("%s-SETVERSION=%d", kbd ? "kbd" : "mouse", *(int *)arg);
		return 0;
	case WSKBDIO_GTYPE:
		if (!kbd)
			return errno = ENOTTY, -1;
		*(u_int *)arg = WSKBD_TYPE_PC_XT;
		return 0;
	case WSKBDIO_GETENCODING:
		*(kbd_t *)arg = 0x0200; /* us */
		return 0;
	case WSKBDIO_GETMAP: {
		struct wskbd_map_data *md = arg;
		u_int n = md->maplen < 0x80 ? md->maplen : 0x80;

		note("GETMAP=%u", md->maplen);
		memcpy(md->map, kbd_map, n * sizeof(kbd_map[0]));
		md->maplen = n;
		return 0;
	}
	case WSKBDIO_GETLEDS:
		note("GETLEDS");
		*(int *)arg = leds;
		return 0;
	case WSKBDIO_SETLEDS:
		leds = *(int *)arg;
		note("SETLEDS=%d", leds);
		return 0;
	case WSMUXIO_LIST_DEVICES: {
		struct wsmux_device_list *l = arg;
		int i;

		l->ndevices = mux_keyboards;
		for (i = 0; i < mux_keyboards; i++)
			l->devices[i] = (struct wsmux_device){WSMUX_KBD, i};
		return 0;
	}
	case WSMOUSEIO_GCALIBCOORDS: {
		struct wsmouse_calibcoords *c = arg;

		c->minx = c->miny = 0;
		c->maxx = c->maxy = 1000;
		return 0;
	}
	case WSMOUSEIO_GETPARAMS:
		return errno = ENOTTY, -1;
	default:
		note("unknown-%#lx", req);
		return errno = ENOTTY, -1;
	}
}

/* --- kqueue over poll() --- */

static struct {
	int fd;
	void *udata;
} watched[16];
static int nwatched;

int kqueue1(int flags)
{
	return open("/dev/null", O_RDONLY | flags);
}

int kevent(int kq, const struct kevent *ch, size_t nch, struct kevent *ev,
	   size_t nev, const struct timespec *ts)
{
	size_t i;
	int j, n = 0;

	for (i = 0; i < nch; i++) {
		for (j = 0; j < nwatched; j++)
			if (watched[j].fd == (int)ch[i].ident)
				break;
		if (ch[i].flags & EV_DELETE) {
			if (j < nwatched)
				watched[j] = watched[--nwatched];
			continue;
		}
		if (j == nwatched)
			nwatched++;
		watched[j].fd = (int)ch[i].ident;
		watched[j].udata = ch[i].udata;
	}
	for (j = 0; j < nwatched && (size_t)n < nev; j++) {
		struct pollfd p = {watched[j].fd, POLLIN, 0};

		/* A closed fd drops out of a real kqueue by itself. */
		if (poll(&p, 1, 0) == 1 && (p.revents & (POLLIN | POLLHUP)) &&
		    !(p.revents & POLLNVAL)) {
			memset(&ev[n], 0, sizeof(ev[n]));
			ev[n].ident = (uintptr_t)watched[j].fd;
			ev[n].udata = watched[j].udata;
			n++;
		}
	}
	return n;
}

/* --- the wsdisplay side --- */

static int switched_to = -1;

int wscons_switch_screen(int n)
{
	switched_to = n;
	return 0;
}

/* --- the session side --- */

static char got[4096];

#define put(...) log_append(got, sizeof(got), __VA_ARGS__)

static void s_key(void *c, uint32_t k, uint32_t sc, bool d)
{
	put("k%c%#x/%#x", d ? '+' : '-', k, sc);
}

static void s_rel(void *c, int dx, int dy)
{
	put("r%d,%d", dx, dy);
}

static void s_abs(void *c, double fx, double fy)
{
	put("a%.2f,%.2f", fx, fy);
}

static void s_button(void *c, int b, bool d)
{
	put("b%d%c", b, d ? '+' : '-');
}

static void s_quit(void *c)
{
	put("quit");
}

static void s_pan(void *c, int dx, int dy)
{
	put("pan%d,%d", dx, dy);
}

static const struct input_sink sink = {NULL,	 s_key,	 s_rel, s_abs,
				       s_button, s_quit, s_pan};

static int kbd_w = -1, mouse_w = -1;

static void send_ev(int fd, unsigned type, int value)
{
	struct wscons_event e = {type, value, {0, 0}};

	if (write(fd, &e, sizeof(e)) != sizeof(e)) {
		perror("write event");
		exit(1);
	}
}

static void key(unsigned code, bool down)
{
	send_ev(kbd_w, down ? WSCONS_EVENT_KEY_DOWN : WSCONS_EVENT_KEY_UP,
		(int)code);
}

static void expect(struct input *in, const char *want)
{
	got[0] = '\0';
	CHECK(wscons_input_impl.dispatch(in, &sink) == 0);
	if (strcmp(got, want) != 0) {
		fprintf(stderr, "got  '%s'\nwant '%s'\n", got, want);
		failures++;
	}
}

int main(void)
{
	struct input in = {&wscons_input_impl, -1, NULL};
	struct input_config cfg = {NULL, NULL, true};
	char devs[2 * PATH_MAX + 2];

	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(kbd_path, sizeof(kbd_path), "%s/wskbd", dir);
	snprintf(mouse_path, sizeof(mouse_path), "%s/wsmouse", dir);
	if (mkfifo(kbd_path, 0600) < 0 || mkfifo(mouse_path, 0600) < 0) {
		perror("mkfifo");
		return 1;
	}
	snprintf(devs, sizeof(devs), "%s,%s", kbd_path, mouse_path);
	cfg.devices = devs;

	/* open: event mode, the map, the LEDs (Caps on) */
	CHECK(wscons_input_impl.open(&in, &cfg) == 0);
	CHECK(in.fd >= 0);
	CHECK(wscons_input_impl.suspend && wscons_input_impl.resume);
	CHECK(strcmp(calls, "kbd-SETVERSION=1 GETMAP=512 GETLEDS "
			    "mouse-SETVERSION=1") == 0);
	kbd_w = open(kbd_path, O_WRONLY | O_NONBLOCK);
	mouse_w = open(mouse_path, O_WRONLY | O_NONBLOCK);
	CHECK(kbd_w >= 0 && mouse_w >= 0);

	/* Caps Lock from the LEDs; turning it off sets them */
	key(0x1e, true);
	key(0x1e, false);
	expect(&in, "k+0x41/0x1e k-0x41/0x1e");
	calls[0] = '\0';
	key(0x3a, true);
	key(0x3a, false);
	key(0x1e, true);
	key(0x1e, false);
	expect(&in, "k+0xffe5/0x3a k-0xffe5/0x3a k+0x61/0x1e k-0x61/0x1e");
	CHECK(strcmp(calls, "SETLEDS=0") == 0);

	/* the mouse: deltas summed per read, Y flipped, click after motion,
	 * absolute positions over the calibrated range */
	send_ev(mouse_w, WSCONS_EVENT_MOUSE_DELTA_X, 3);
	send_ev(mouse_w, WSCONS_EVENT_MOUSE_DELTA_Y, 2);
	send_ev(mouse_w, WSCONS_EVENT_MOUSE_DELTA_X, 4);
	send_ev(mouse_w, WSCONS_EVENT_MOUSE_DOWN, 0);
	send_ev(mouse_w, WSCONS_EVENT_MOUSE_UP, 0);
	send_ev(mouse_w, WSCONS_EVENT_MOUSE_ABSOLUTE_X, 500);
	send_ev(mouse_w, WSCONS_EVENT_MOUSE_ABSOLUTE_Y, 1000);
	send_ev(mouse_w, WSCONS_EVENT_MOUSE_DELTA_Z, -1);
	expect(&in, "r7,-2 b1+ b1- a0.50,1.00 b4+ b4-");

	/* Ctrl+Alt+F2: Ctrl and Alt go up on the server, screen 1 shown */
	key(0x1d, true);
	key(0x38, true);
	key(0x3c, true);
	key(0x3c, false);
	expect(&in, "k+0xffe3/0x1d k+0xffe9/0x38 k-0xffe3/0x1d "
		    "k-0xffe9/0x38");
	CHECK(switched_to == 1);

	/* the screen goes away (the session passes the output's suspend
	 * on): the keyboard is let go, with its LEDs as the console had
	 * them; the mouse is ignored meanwhile */
	calls[0] = '\0';
	wscons_input_impl.suspend(&in);
	CHECK(strcmp(calls, "SETLEDS=1") == 0);
	send_ev(mouse_w, WSCONS_EVENT_MOUSE_DELTA_X, 5);
	expect(&in, "");
	/* back: the keyboard again, its locks re-read */
	calls[0] = '\0';
	leds = WSKBD_LED_NUM;
	wscons_input_impl.resume(&in);
	CHECK(strcmp(calls, "kbd-SETVERSION=1 GETLEDS") == 0);
	close(kbd_w);
	kbd_w = open(kbd_path, O_WRONLY | O_NONBLOCK);
	CHECK(kbd_w >= 0);
	key(0x1e, true);
	key(0x1e, false);
	expect(&in, "k+0x61/0x1e k-0x61/0x1e");

	/* Ctrl+Alt+Backspace quits; the held modifiers are released */
	key(0x1d, true);
	key(0x38, true);
	key(0x0e, true);
	expect(&in, "k+0xffe3/0x1d k+0xffe9/0x38 k-0xffe3/0x1d "
		    "k-0xffe9/0x38 quit");
	key(0x0e, false);
	key(0x38, false);
	key(0x1d, false);
	expect(&in, "");

	/* all keys up from the kernel (e.g. a keyboard detached) */
	key(0x2a, true);
	send_ev(kbd_w, WSCONS_EVENT_ALL_KEYS_UP, 0);
	expect(&in, "k+0xffe1/0x2a k-0xffe1/0x2a");

	/* the mouse unplugged: going on without it */
	close(mouse_w);
	mouse_w = -1;
	expect(&in, "");
	key(0x1e, true);
	expect(&in, "k+0x61/0x1e");

	wscons_input_impl.close(&in);
	CHECK(in.priv == NULL && in.fd == -1);

	/* a multiplexer with two keyboards is worth a warning; no devices
	 * at all is an error */
	mux_keyboards = 2;
	CHECK(wscons_input_impl.open(&in, &cfg) == 0);
	wscons_input_impl.close(&in);
	cfg.devices = "/nonexistent/wskbd9";
	CHECK(wscons_input_impl.open(&in, &cfg) == -ENOENT);
	CHECK(in.priv == NULL);

	close(kbd_w);
	unlink(kbd_path);
	unlink(mouse_path);
	rmdir(dir);
	if (failures) {
		fprintf(stderr, "%d checks failed (calls: %s)\n", failures,
			calls);
		return 1;
	}
	printf("wscons_input: all checks passed\n");
	return 0;
}
