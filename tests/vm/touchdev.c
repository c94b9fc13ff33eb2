/* A multi-touch screen for the VM tests: a uinput device with type B
 * slots (ABS_MT_SLOT, ABS_MT_TRACKING_ID, ABS_MT_POSITION_X/Y, with a
 * resolution), INPUT_PROP_DIRECT, and the single-touch emulation a real
 * screen sends beside them (BTN_TOUCH, ABS_X/ABS_Y of the first
 * contact). Not part of vncfb.
 *
 *   touchdev [--slots N] [--size XMAX,YMAX] [--res UNITS_PER_MM]
 *
 * Creates the device (default 10 slots, 0..4095 x 0..3071, 16 units a
 * millimetre: 256 x 192 mm), prints "TOUCHDEV READY", then plays the
 * commands it reads on standard input as they come, one a line:
 *
 *   d SLOT X Y    a finger lands in SLOT (a new tracking id)
 *   m SLOT X Y    it moves
 *   u SLOT        it lifts
 *   s             the frame ends (SYN_REPORT)
 *   w MS          wait
 *   tap X Y       d 0 X Y, s, w 80, u 0, s
 *   echo TEXT     print TEXT (a marker for the test's log)
 *
 * Exit 0 at the end of its input, 1 when the device cannot be made. */
#include <errno.h>
#include <fcntl.h>
#include <linux/uinput.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#define MAX_SLOTS 16

static int fd = -1;
static int nslots = 10;
static int ids[MAX_SLOTS], xs[MAX_SLOTS], ys[MAX_SLOTS];
static int next_id = 1;
static int cur_slot = -1;

static void emit(int type, int code, int value)
{
	struct input_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.type = (unsigned short)type;
	ev.code = (unsigned short)code;
	ev.value = value;
	if (write(fd, &ev, sizeof(ev)) != sizeof(ev)) {
		perror("touchdev: write");
		exit(1);
	}
}

static void abs_setup(int code, int min, int max, int res)
{
	struct uinput_abs_setup a;

	memset(&a, 0, sizeof(a));
	a.code = (unsigned short)code;
	a.absinfo.minimum = min;
	a.absinfo.maximum = max;
	a.absinfo.resolution = res;
	if (ioctl(fd, UI_SET_ABSBIT, code) < 0 ||
	    ioctl(fd, UI_ABS_SETUP, &a) < 0) {
		perror("touchdev: UI_ABS_SETUP");
		exit(1);
	}
}

static void make(int xmax, int ymax, int res)
{
	struct uinput_setup us;

	fd = open("/dev/uinput", O_WRONLY | O_NONBLOCK);
	if (fd < 0) {
		perror("touchdev: /dev/uinput");
		exit(1);
	}
	if (ioctl(fd, UI_SET_EVBIT, EV_KEY) < 0 ||
	    ioctl(fd, UI_SET_KEYBIT, BTN_TOUCH) < 0 ||
	    ioctl(fd, UI_SET_EVBIT, EV_ABS) < 0 ||
	    ioctl(fd, UI_SET_PROPBIT, INPUT_PROP_DIRECT) < 0) {
		perror("touchdev: ioctl");
		exit(1);
	}
	abs_setup(ABS_X, 0, xmax, res);
	abs_setup(ABS_Y, 0, ymax, res);
	abs_setup(ABS_MT_SLOT, 0, nslots - 1, 0);
	abs_setup(ABS_MT_TRACKING_ID, 0, 65535, 0);
	abs_setup(ABS_MT_POSITION_X, 0, xmax, res);
	abs_setup(ABS_MT_POSITION_Y, 0, ymax, res);
	memset(&us, 0, sizeof(us));
	us.id.bustype = BUS_VIRTUAL;
	us.id.vendor = 0x1234;
	us.id.product = 0x5678;
	snprintf(us.name, sizeof(us.name), "vncfb-test touch");
	if (ioctl(fd, UI_DEV_SETUP, &us) < 0 || ioctl(fd, UI_DEV_CREATE) < 0) {
		perror("touchdev: UI_DEV_CREATE");
		exit(1);
	}
}

static void slot(int s)
{
	if (s != cur_slot)
		emit(EV_ABS, ABS_MT_SLOT, s);
	cur_slot = s;
}

/* SYN_REPORT, after the single-touch emulation: BTN_TOUCH while any
 * finger is down, ABS_X/Y the lowest slot's. */
static void frame(void)
{
	static bool touching;
	bool any = false;
	int s;

	for (s = 0; s < nslots; s++) {
		if (ids[s] < 0)
			continue;
		if (!any) {
			emit(EV_ABS, ABS_X, xs[s]);
			emit(EV_ABS, ABS_Y, ys[s]);
		}
		any = true;
	}
	if (any != touching)
		emit(EV_KEY, BTN_TOUCH, any);
	touching = any;
	emit(EV_SYN, SYN_REPORT, 0);
}

static void wait_ms(int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000};

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static bool play(const char *line)
{
	char cmd[16];
	int s, x, y, n;

	n = sscanf(line, "%15s %d %d %d", cmd, &s, &x, &y);
	if (n < 1)
		return true;
	if (!strcmp(cmd, "echo")) {
		printf("%s", line + 5);
		return true;
	}
	if (!strcmp(cmd, "s") && n == 1) {
		frame();
	} else if (!strcmp(cmd, "w") && n == 2) {
		wait_ms(s);
	} else if (!strcmp(cmd, "tap") && n == 3) {
		char d[64];

		snprintf(d, sizeof(d), "d 0 %d %d\n", s, x);
		play(d);
		frame();
		wait_ms(80);
		play("u 0\n");
		frame();
	} else if (n >= 2 && s >= 0 && s < nslots &&
		   ((!strcmp(cmd, "d") && n == 4) ||
		    (!strcmp(cmd, "m") && n == 4))) {
		slot(s);
		if (cmd[0] == 'd') {
			ids[s] = next_id++ & 0xffff;
			emit(EV_ABS, ABS_MT_TRACKING_ID, ids[s]);
		}
		xs[s] = x;
		ys[s] = y;
		emit(EV_ABS, ABS_MT_POSITION_X, x);
		emit(EV_ABS, ABS_MT_POSITION_Y, y);
	} else if (!strcmp(cmd, "u") && n == 2 && s >= 0 && s < nslots) {
		slot(s);
		ids[s] = -1;
		emit(EV_ABS, ABS_MT_TRACKING_ID, -1);
	} else {
		fprintf(stderr, "touchdev: bad command: %s", line);
		return false;
	}
	return true;
}

int main(int argc, char **argv)
{
	int xmax = 4095, ymax = 3071, res = 16, i;
	char line[256];

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--slots") && i + 1 < argc &&
		    sscanf(argv[++i], "%d", &nslots) == 1 && nslots >= 1 &&
		    nslots <= MAX_SLOTS) {
		} else if (!strcmp(argv[i], "--size") && i + 1 < argc &&
			   sscanf(argv[++i], "%d,%d", &xmax, &ymax) == 2) {
		} else if (!strcmp(argv[i], "--res") && i + 1 < argc &&
			   sscanf(argv[++i], "%d", &res) == 1) {
		} else {
			fprintf(stderr, "usage: touchdev [--slots N] "
					"[--size XMAX,YMAX] [--res N]\n");
			return 2;
		}
	}
	for (i = 0; i < MAX_SLOTS; i++)
		ids[i] = -1;
	setvbuf(stdout, NULL, _IOLBF, 0);
	make(xmax, ymax, res);
	printf("TOUCHDEV READY\n");
	while (fgets(line, sizeof(line), stdin))
		if (!play(line))
			return 1;
	ioctl(fd, UI_DEV_DESTROY);
	close(fd);
	return 0;
}
