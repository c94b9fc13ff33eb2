/* The Linux input source: keyboards, pointers and touch screens under
 * /dev/input through libevdev, grabbed, drained through one epoll fd,
 * hot-plugged through inotify; a timerfd in the same set wakes the touch
 * gestures that wait for time. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libevdev/libevdev.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "evdev/evdev.h"
#include "evdev/kbd.h"
#include "evdev/ptr.h"
#include "evdev/touch.h"
#include "util/clock.h"
#include "util/log.h"
#include "vt/vt.h"

#define INPUT_DIR "/dev/input"
#define MAX_DEVICES 64
/* At most one SYN_DROPPED line per this many seconds. */
#define DROP_LOG_INTERVAL 5
/* How long to wait for held keys before grabbing a keyboard. */
#define KEY_WAIT_MS 2000

struct edev {
	struct edev *next;
	char *path;
	int fd;
	struct libevdev *dev;
	bool keyboard, pointer, grabbed;
	bool heard; /* an event came from it (logged once) */
	struct ptr ptr;
	struct touch *touch; /* a touch screen's gestures, else NULL */
};

struct evdev_in {
	int epfd;
	int inofd;
	int tfd; /* the gestures' timer */
	uint64_t armed; /* its deadline, 0: disarmed */
	enum input_touch touch_mode;
	struct kbd *kbd;
	struct edev *devs;
	int ndevs;
	bool grab;
	bool suspended;
	bool have_sink;
	struct input_sink sink;
	unsigned long drops;
	time_t drop_logged;
};

static bool is_event_node(const char *name)
{
	unsigned long n;
	char *end;

	if (strncmp(name, "event", 5) != 0 || !name[5])
		return false;
	n = strtoul(name + 5, &end, 10);
	return *end == '\0' && n < 4096;
}

static bool has_key(struct libevdev *d, unsigned code)
{
	return libevdev_has_event_code(d, EV_KEY, code);
}

/* The epoll tag of the timer (inotify's is NULL, a device's its edev). */
static char timer_tag;

/* A screen that reports two fingers or more in type B slots: gestures.
 * A pen (a tablet, a screen's stylus) and a single-touch screen stay
 * absolute pointers; a touchpad is no screen. Only the first
 * TOUCH_MAX_SLOTS slots are followed. */
static bool is_touch_screen(struct libevdev *d)
{
	const struct input_absinfo *slot;

	if (!libevdev_has_property(d, INPUT_PROP_DIRECT) ||
	    has_key(d, BTN_TOOL_PEN) ||
	    !libevdev_has_event_code(d, EV_ABS, ABS_MT_POSITION_X) ||
	    !libevdev_has_event_code(d, EV_ABS, ABS_MT_POSITION_Y) ||
	    !libevdev_has_event_code(d, EV_ABS, ABS_MT_TRACKING_ID))
		return false;
	slot = libevdev_get_abs_info(d, ABS_MT_SLOT);
	return slot && slot->minimum == 0 && slot->maximum >= 1;
}

/* The touch screen's recogniser, primed with the contacts down now. */
static int touch_open(struct edev *e)
{
	struct libevdev *d = e->dev;
	const struct input_absinfo *ax, *ay, *slot;
	struct gesture_geom geom;
	int i, n, ret;

	ax = libevdev_get_abs_info(d, ABS_MT_POSITION_X);
	ay = libevdev_get_abs_info(d, ABS_MT_POSITION_Y);
	slot = libevdev_get_abs_info(d, ABS_MT_SLOT);
	geom = (struct gesture_geom){ax->minimum,    ax->maximum,
				     ay->minimum,    ay->maximum,
				     ax->resolution, ay->resolution};
	n = slot->maximum + 1;
	e->touch = touch_create(&geom, (unsigned)n);
	if (!e->touch)
		return -ENOMEM;
	/* Its times and the timer's on one clock. */
	ret = libevdev_set_clock_id(d, CLOCK_MONOTONIC);
	if (ret < 0)
		log_debug("%s: EVIOCSCLOCKID: %s: gestures timed as read",
			  e->path, strerror(-ret));
	touch_set_monotonic(e->touch, ret == 0);
	for (i = 0; i < n && i < TOUCH_MAX_SLOTS; i++)
		touch_set_slot(e->touch, i,
			       libevdev_get_slot_value(d, (unsigned)i,
						       ABS_MT_TRACKING_ID),
			       libevdev_get_slot_value(d, (unsigned)i,
						       ABS_MT_POSITION_X),
			       libevdev_get_slot_value(d, (unsigned)i,
						       ABS_MT_POSITION_Y));
	touch_select(e->touch, libevdev_get_current_slot(d));
	if (gesture_guessed(touch_gesture(e->touch)))
		log_debug("%s: no resolution reported: gestures take it to "
			  "be %.0f mm wide",
			  e->path, GESTURE_GUESS_WIDTH_MM);
	if (n > TOUCH_MAX_SLOTS)
		log_debug("%s: %d slots, the first %d followed", e->path, n,
			  TOUCH_MAX_SLOTS);
	return 0;
}

static int classify(struct evdev_in *in, struct edev *e)
{
	struct libevdev *d = e->dev;
	const struct input_absinfo *ax, *ay;
	bool joystick = has_key(d, BTN_JOYSTICK) || has_key(d, BTN_GAMEPAD);

	e->keyboard =
	    has_key(d, KEY_A) || has_key(d, KEY_ENTER) || has_key(d, KEY_KP0);
	if (libevdev_has_event_code(d, EV_REL, REL_X) &&
	    libevdev_has_event_code(d, EV_REL, REL_Y)) {
		e->pointer = true;
		ptr_init_rel(&e->ptr);
		return 0;
	}
	if (joystick)
		return 0;
	if (in->touch_mode == INPUT_TOUCH_GESTURES && is_touch_screen(d)) {
		e->pointer = true;
		return touch_open(e);
	}
	ax = libevdev_get_abs_info(d, ABS_X);
	ay = libevdev_get_abs_info(d, ABS_Y);
	/* A finger on something that is not the screen: a touchpad moves
	 * the pointer like a mouse. */
	if (ax && ay && has_key(d, BTN_TOOL_FINGER) &&
	    !libevdev_has_property(d, INPUT_PROP_DIRECT)) {
		e->pointer = true;
		ptr_init_touchpad(&e->ptr, ax->minimum, ax->maximum,
				  ax->resolution, ay->minimum, ay->maximum,
				  ay->resolution);
		return 0;
	}
	if (ax && ay) {
		e->pointer = true;
		ptr_init_abs(&e->ptr, ABS_X, ax->minimum, ax->maximum, ABS_Y,
			     ay->minimum, ay->maximum);
		return 0;
	}
	ax = libevdev_get_abs_info(d, ABS_MT_POSITION_X);
	ay = libevdev_get_abs_info(d, ABS_MT_POSITION_Y);
	if (ax && ay) {
		e->pointer = true;
		ptr_init_abs(&e->ptr, ABS_MT_POSITION_X, ax->minimum,
			     ax->maximum, ABS_MT_POSITION_Y, ay->minimum,
			     ay->maximum);
	}
	return 0;
}

static void dev_free(struct edev *e)
{
	if (!e)
		return;
	if (e->dev) {
		if (e->grabbed)
			libevdev_grab(e->dev, LIBEVDEV_UNGRAB);
		libevdev_free(e->dev);
	}
	if (e->fd >= 0)
		close(e->fd);
	touch_destroy(e->touch);
	free(e->path);
	free(e);
}

static struct edev *find_dev(struct evdev_in *in, const char *path)
{
	struct edev *e;

	for (e = in->devs; e; e = e->next)
		if (strcmp(e->path, path) == 0)
			return e;
	return NULL;
}

/* Grabbing a keyboard while a key is down (the Enter that started vncfb)
 * would leave that key held in the console underneath, its release going
 * to us alone. So wait, briefly, until nothing is held. */
static void wait_keys_released(struct edev *e)
{
	unsigned long bits[KEY_CNT / (8 * sizeof(long)) + 1];
	size_t i;
	int tries;
	bool held;

	for (tries = 0; tries < KEY_WAIT_MS / 10; tries++) {
		memset(bits, 0, sizeof(bits));
		if (ioctl(e->fd, EVIOCGKEY(sizeof(bits)), bits) < 0)
			return;
		held = false;
		for (i = 0; i < sizeof(bits) / sizeof(bits[0]); i++)
			held = held || bits[i];
		if (!held)
			return;
		usleep(10000);
	}
	log_warn("%s: keys still held after %d ms; grabbing anyway", e->path,
		 KEY_WAIT_MS);
}

static int set_grab(struct edev *e, bool grab)
{
	int ret;

	if (e->grabbed == grab)
		return 0;
	ret = libevdev_grab(e->dev, grab ? LIBEVDEV_GRAB : LIBEVDEV_UNGRAB);
	if (ret < 0)
		return ret;
	e->grabbed = grab;
	return 0;
}

static const char *pointer_kind(const struct edev *e)
{
	if (!e->pointer)
		return "";
	if (e->touch)
		return " touch screen (gestures)";
	if (e->ptr.touchpad)
		return " touchpad";
	return e->ptr.absolute ? " absolute pointer" : " pointer";
}

static void open_error(const char *path, int err)
{
	if (err == EACCES || err == EPERM)
		log_error("%s: permission denied (add the user to the 'input' "
			  "group, then log in again)",
			  path);
	else
		log_error("open %s: %s", path, strerror(err));
}

/* Open one device node. explicit: named with --input (then every failure
 * is an error, and a device that is neither keyboard nor pointer too).
 * Returns 0, 1 when skipped (not an input we use), or -errno. */
static int dev_add(struct evdev_in *in, const char *path, bool explicit)
{
	struct edev *e;
	struct epoll_event ev;
	int ret;

	if (find_dev(in, path))
		return 0;
	if (in->ndevs >= MAX_DEVICES) {
		log_warn("%s: more than %d input devices; ignored", path,
			 MAX_DEVICES);
		return 1;
	}
	e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	e->fd = -1;
	e->path = strdup(path);
	if (!e->path) {
		ret = -ENOMEM;
		goto fail;
	}
	e->fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (e->fd < 0) {
		ret = -errno;
		if (explicit)
			open_error(path, errno);
		goto fail;
	}
	ret = libevdev_new_from_fd(e->fd, &e->dev);
	if (ret < 0) {
		e->dev = NULL;
		if (explicit)
			log_error("%s is not an evdev input device: %s", path,
				  strerror(-ret));
		goto fail;
	}
	ret = classify(in, e);
	if (ret < 0) {
		log_error("%s: %s", path, strerror(-ret));
		goto fail;
	}
	if (!e->keyboard && !e->pointer) {
		if (explicit) {
			log_error("%s (%s) is neither a keyboard nor a pointer",
				  path, libevdev_get_name(e->dev));
			ret = -ENODEV;
			goto fail;
		}
		dev_free(e);
		return 1;
	}
	if (in->grab && !in->suspended) {
		/* Grabbed, the keys stop reaching the shell underneath. */
		if (e->keyboard)
			wait_keys_released(e);
		ret = set_grab(e, true);
		if (ret < 0) {
			log_warn("%s (%s): cannot grab it (%s): another "
				 "program reads it too; ignored",
				 path, libevdev_get_name(e->dev),
				 strerror(-ret));
			if (explicit)
				goto fail;
			dev_free(e);
			return 1;
		}
	}
	memset(&ev, 0, sizeof(ev));
	ev.events = EPOLLIN;
	ev.data.ptr = e;
	if (epoll_ctl(in->epfd, EPOLL_CTL_ADD, e->fd, &ev) < 0) {
		ret = -errno;
		log_error("epoll_ctl %s: %s", path, strerror(errno));
		goto fail;
	}
	e->next = in->devs;
	in->devs = e;
	in->ndevs++;
	log_info("input: %s (%s)%s%s", path, libevdev_get_name(e->dev),
		 e->keyboard ? " keyboard" : "", pointer_kind(e));
	return 0;
fail:
	dev_free(e);
	return ret;
}

static void release_key(void *ctx, uint32_t keysym, uint32_t scancode)
{
	struct evdev_in *in = ctx;

	if (in->have_sink)
		in->sink.key(in->sink.ctx, keysym, scancode, false);
}

static void dev_remove(struct evdev_in *in, struct edev *e)
{
	struct edev **pp;

	for (pp = &in->devs; *pp; pp = &(*pp)->next) {
		if (*pp == e) {
			*pp = e->next;
			break;
		}
	}
	in->ndevs--;
	log_info("input: %s removed", e->path);
	/* Keys and buttons it held must not stay down on the server. */
	if (e->keyboard)
		kbd_release_all(in->kbd, release_key, in);
	if (e->touch)
		gesture_reset(touch_gesture(e->touch),
			      in->have_sink && !in->suspended ? &in->sink
							      : NULL);
	epoll_ctl(in->epfd, EPOLL_CTL_DEL, e->fd, NULL);
	dev_free(e);
}

static int scan_dir(struct evdev_in *in, int *denied)
{
	struct dirent **names;
	char path[PATH_MAX];
	int n, i, ret;

	n = scandir(INPUT_DIR, &names, NULL, versionsort);
	if (n < 0) {
		int err = errno;

		log_warn("%s: %s: no local keyboard or mouse", INPUT_DIR,
			 strerror(err));
		return -err;
	}
	for (i = 0; i < n; i++) {
		if (is_event_node(names[i]->d_name)) {
			snprintf(path, sizeof(path), "%s/%s", INPUT_DIR,
				 names[i]->d_name);
			ret = dev_add(in, path, false);
			if (ret == -EACCES || ret == -EPERM)
				(*denied)++;
		}
		free(names[i]);
	}
	free(names);
	return 0;
}

static int add_listed(struct evdev_in *in, const char *list)
{
	char *copy = strdup(list), *tok, *save = NULL;
	int ret = 0;

	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, ",", &save); tok && ret == 0;
	     tok = strtok_r(NULL, ",", &save)) {
		if (!*tok)
			continue;
		ret = dev_add(in, tok, true);
	}
	free(copy);
	return ret < 0 ? ret : 0;
}

static void evdev_close(struct input *inp)
{
	struct evdev_in *in = inp->priv;
	struct edev *e;

	if (!in)
		return;
	while ((e = in->devs)) {
		in->devs = e->next;
		dev_free(e);
	}
	if (in->inofd >= 0)
		close(in->inofd);
	if (in->tfd >= 0)
		close(in->tfd);
	if (in->epfd >= 0)
		close(in->epfd);
	kbd_destroy(in->kbd);
	free(in);
	inp->priv = NULL;
	inp->fd = -1;
}

static int evdev_open(struct input *inp, const struct input_config *cfg)
{
	struct evdev_in *in = calloc(1, sizeof(*in));
	struct epoll_event ev;
	int ret, denied = 0;

	if (!in)
		return -ENOMEM;
	in->epfd = -1;
	in->inofd = -1;
	in->tfd = -1;
	in->grab = cfg->grab;
	in->touch_mode = cfg->touch;
	inp->priv = in;
	in->kbd = kbd_create(cfg->keymap);
	if (!in->kbd) {
		ret = -EINVAL;
		goto fail;
	}
	in->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (in->epfd < 0) {
		ret = -errno;
		log_error("epoll_create1: %s", strerror(errno));
		goto fail;
	}
	in->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (in->tfd < 0) {
		ret = -errno;
		log_error("timerfd_create: %s", strerror(errno));
		goto fail;
	}
	memset(&ev, 0, sizeof(ev));
	ev.events = EPOLLIN;
	ev.data.ptr = &timer_tag;
	if (epoll_ctl(in->epfd, EPOLL_CTL_ADD, in->tfd, &ev) < 0) {
		ret = -errno;
		log_error("epoll_ctl timerfd: %s", strerror(errno));
		goto fail;
	}
	if (cfg->devices) {
		ret = add_listed(in, cfg->devices);
		if (ret < 0)
			goto fail;
	} else {
		ret = scan_dir(in, &denied);
		if (ret < 0)
			goto fail;
		/* New devices, and devices whose permissions udev fixes
		 * after they appear. */
		in->inofd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
		if (in->inofd < 0 ||
		    inotify_add_watch(in->inofd, INPUT_DIR,
				      IN_CREATE | IN_ATTRIB) < 0) {
			log_warn("inotify on %s: %s: devices plugged in later "
				 "are not used",
				 INPUT_DIR, strerror(errno));
		} else {
			memset(&ev, 0, sizeof(ev));
			ev.events = EPOLLIN;
			ev.data.ptr = NULL;
			epoll_ctl(in->epfd, EPOLL_CTL_ADD, in->inofd, &ev);
		}
		if (!in->devs && denied)
			log_warn("%s: permission denied on %d input devices "
				 "(add the user to the 'input' group, then log "
				 "in again)",
				 INPUT_DIR, denied);
		else if (!in->devs)
			log_warn("no keyboard or mouse under %s yet",
				 INPUT_DIR);
	}
	inp->fd = in->epfd;
	return 0;
fail:
	evdev_close(inp);
	return ret;
}

static void log_drop(struct evdev_in *in, struct edev *e)
{
	time_t now = time(NULL);

	in->drops++;
	if (now - in->drop_logged < DROP_LOG_INTERVAL)
		return;
	log_warn("%s: events dropped by the kernel (we fell behind); "
		 "resynced (%lu times so far)",
		 e->path, in->drops);
	in->drop_logged = now;
}

static void handle_event(struct evdev_in *in, struct edev *e,
			 const struct input_event *ev,
			 const struct input_sink *sink)
{
	struct kbd_result r;

	if (!e->heard && !in->suspended) {
		/* Which device is live, for "my mouse does nothing". */
		log_debug("%s: first event", e->path);
		e->heard = true;
	}
	/* A touch screen's slots are followed while the console is away
	 * too, so that they are right when it comes back. */
	if (e->touch) {
		touch_feed(e->touch, ev, monotonic_ns(),
			   in->suspended ? NULL : sink);
		return;
	}
	if (in->suspended)
		return;
	if (ev->type == EV_KEY && e->keyboard &&
	    !(ev->code >= BTN_MISC && ev->code < KEY_OK)) {
		r = kbd_feed(in->kbd, ev->code, ev->value);
		switch (r.action) {
		case KBD_SEND:
			sink->key(sink->ctx, r.keysym, r.scancode, r.down);
			break;
		case KBD_VT_SWITCH:
			vt_activate(r.vt);
			break;
		case KBD_QUIT:
			sink->quit(sink->ctx);
			break;
		case KBD_PAN:
			if (sink->pan)
				sink->pan(sink->ctx, r.pan_dx, r.pan_dy);
			break;
		case KBD_SCALE:
			if (sink->scale)
				sink->scale(sink->ctx);
			break;
		case KBD_NONE:
			break;
		}
		return;
	}
	if (e->pointer)
		ptr_feed(&e->ptr, ev, sink);
}

/* Read everything the device has. 0, or -ENODEV when it went away. */
static int drain_dev(struct evdev_in *in, struct edev *e,
		     const struct input_sink *sink)
{
	struct input_event ev;
	unsigned flag = LIBEVDEV_READ_FLAG_NORMAL;
	int rc;

	for (;;) {
		rc = libevdev_next_event(e->dev, flag, &ev);
		if (rc == LIBEVDEV_READ_STATUS_SYNC) {
			if (flag == LIBEVDEV_READ_FLAG_NORMAL) {
				/* SYN_DROPPED: libevdev now hands out the
				 * difference to the device's real state. */
				log_drop(in, e);
				flag = LIBEVDEV_READ_FLAG_SYNC;
				continue;
			}
			handle_event(in, e, &ev, sink);
		} else if (rc == LIBEVDEV_READ_STATUS_SUCCESS) {
			handle_event(in, e, &ev, sink);
		} else if (rc == -EAGAIN) {
			if (flag == LIBEVDEV_READ_FLAG_SYNC) {
				flag = LIBEVDEV_READ_FLAG_NORMAL;
				continue;
			}
			return 0;
		} else {
			if (rc != -ENODEV)
				log_warn("%s: %s", e->path, strerror(-rc));
			return -ENODEV;
		}
	}
}

static void drain_inotify(struct evdev_in *in)
{
	char buf[4096]
	    __attribute__((aligned(__alignof__(struct inotify_event))));
	char path[PATH_MAX];
	ssize_t n;
	char *p;

	while ((n = read(in->inofd, buf, sizeof(buf))) > 0) {
		for (p = buf; p < buf + n;) {
			const struct inotify_event *ie = (const void *)p;

			if (ie->len && is_event_node(ie->name)) {
				snprintf(path, sizeof(path), "%s/%s", INPUT_DIR,
					 ie->name);
				dev_add(in, path, false);
			}
			p += sizeof(*ie) + ie->len;
		}
	}
}

/* What the touch screens' gestures wait for, due by now; then the timer
 * set for the next of it. */
static int tick_gestures(struct evdev_in *in, const struct input_sink *sink)
{
	struct itimerspec its;
	uint64_t now = monotonic_ns(), next = 0, due;
	struct edev *e;

	for (e = in->devs; e; e = e->next) {
		if (!e->touch)
			continue;
		due = gesture_deadline(touch_gesture(e->touch));
		if (due && due <= now) {
			gesture_tick(touch_gesture(e->touch), now,
				     in->suspended ? NULL : sink);
			due = gesture_deadline(touch_gesture(e->touch));
		}
		if (due && (!next || due < next))
			next = due;
	}
	if (next == in->armed)
		return 0;
	memset(&its, 0, sizeof(its));
	its.it_value.tv_sec = (time_t)(next / 1000000000u);
	its.it_value.tv_nsec = (long)(next % 1000000000u);
	if (timerfd_settime(in->tfd, TFD_TIMER_ABSTIME, &its, NULL) < 0) {
		int err = errno;

		log_error("timerfd_settime: %s", strerror(err));
		return -err;
	}
	in->armed = next;
	return 0;
}

static int evdev_dispatch(struct input *inp, const struct input_sink *sink)
{
	struct evdev_in *in = inp->priv;
	struct epoll_event evs[16];
	uint64_t expired;
	int n, i;

	in->sink = *sink;
	in->have_sink = true;
	for (;;) {
		n = epoll_wait(in->epfd, evs, 16, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int err = errno;

			log_error("epoll_wait: %s", strerror(err));
			return -err;
		}
		if (n == 0)
			break;
		for (i = 0; i < n; i++) {
			struct edev *e = evs[i].data.ptr;

			if (!e) {
				drain_inotify(in);
				continue;
			}
			if (evs[i].data.ptr == &timer_tag) {
				/* Ticked below, after the events that came
				 * before it. */
				if (read(in->tfd, &expired,
					 sizeof(expired)) < 0 &&
				    errno != EAGAIN)
					log_warn("timerfd read: %s",
						 strerror(errno));
				in->armed = 0;
				continue;
			}
			if (drain_dev(in, e, sink) < 0)
				dev_remove(in, e);
		}
	}
	return tick_gestures(in, sink);
}

/* The VT was released (true) or acquired again (false): the input lets go
 * of its grabs and of the keys held, so the other VT gets the keyboard. */
static void set_suspended(struct evdev_in *in, bool suspended)
{
	struct edev *e;

	if (!in || in->suspended == suspended)
		return;
	in->suspended = suspended;
	if (suspended)
		kbd_release_all(in->kbd, release_key, in);
	/* A button a gesture holds goes up; the fingers down now are no
	 * gesture, here or when the console comes back. */
	for (e = in->devs; e; e = e->next)
		if (e->touch)
			gesture_reset(touch_gesture(e->touch),
				      suspended && in->have_sink ? &in->sink
								 : NULL);
	if (!in->grab)
		return;
	/* Switched away, the other VT needs the keyboard. Coming back, the
	 * keys of the switch (Ctrl+Alt+Fn) are still down: their releases
	 * must reach the console's keyboard state, not us. */
	for (e = in->devs; e; e = e->next) {
		if (!suspended && e->keyboard)
			wait_keys_released(e);
		if (set_grab(e, !suspended) < 0)
			log_warn("%s: cannot %s it", e->path,
				 suspended ? "release" : "grab");
	}
}

static void evdev_suspend(struct input *inp)
{
	set_suspended(inp->priv, true);
}

static void evdev_resume(struct input *inp)
{
	set_suspended(inp->priv, false);
}

/* The keymap compiles and each listed device opens, as evdev_open needs;
 * nothing is grabbed. */
static int evdev_check(const struct input_config *cfg)
{
	struct kbd *k = kbd_create(cfg->keymap);
	char *copy, *tok, *save = NULL;
	int fd, ret = 0;

	if (!k)
		return -EINVAL;
	kbd_destroy(k);
	if (!cfg->devices)
		return 0;
	copy = strdup(cfg->devices);
	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, ",", &save); tok && ret == 0;
	     tok = strtok_r(NULL, ",", &save)) {
		fd = open(tok, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0) {
			ret = -errno;
			open_error(tok, errno);
		} else {
			close(fd);
		}
	}
	free(copy);
	return ret;
}

const struct input_impl evdev_input_impl = {
    .name = "evdev",
    .open = evdev_open,
    .close = evdev_close,
    .dispatch = evdev_dispatch,
    .suspend = evdev_suspend,
    .resume = evdev_resume,
    .check = evdev_check,
};
