/* DRM hot-plug detection and the connectors' re-scan (drm_hotplug.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <linux/netlink.h>
#include <xf86drm.h>
#include <xf86drmMode.h>

#include "drm.h"
#include "drm_hotplug.h"
#include "util/log.h"

bool drm_uevent_hotplug(const char *msg, size_t len, unsigned major,
			unsigned minor)
{
	bool drm = false, hotplug = false, maj = false, min = false;
	size_t i = 0;

	while (i < len) {
		const char *kv = msg + i;
		size_t n = strnlen(kv, len - i);
		char want[32];

		if (n == 13 && !memcmp(kv, "SUBSYSTEM=drm", 13))
			drm = true;
		else if (n == 9 && !memcmp(kv, "HOTPLUG=1", 9))
			hotplug = true;
		snprintf(want, sizeof(want), "MAJOR=%u", major);
		if (n == strlen(want) && !memcmp(kv, want, n))
			maj = true;
		snprintf(want, sizeof(want), "MINOR=%u", minor);
		if (n == strlen(want) && !memcmp(kv, want, n))
			min = true;
		i += n + 1;
	}
	return drm && hotplug && maj && min;
}

/* No uevents (why): a timer for drm_hotplug_take's poll. */
static int open_poll(struct drm_hotplug *h, const char *path, const char *why)
{
	struct itimerspec its = {
	    .it_interval = {DRM_HOTPLUG_POLL_MS / 1000,
			    (DRM_HOTPLUG_POLL_MS % 1000) * 1000000L},
	};

	its.it_value = its.it_interval;
	h->fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (h->fd < 0 || timerfd_settime(h->fd, 0, &its, NULL) < 0) {
		int err = errno;

		log_warn("%s: no hot-plug uevents (%s) and no timer to poll "
			 "the connectors (timerfd: %s): displays plugged in "
			 "later are not seen",
			 path, why, strerror(err));
		if (h->fd >= 0)
			close(h->fd);
		h->fd = -1;
		return -err;
	}
	h->polling = true;
	log_debug("%s: hot-plug: no uevents (%s): the connectors are read "
		  "every %d ms",
		  path, why, DRM_HOTPLUG_POLL_MS);
	return 0;
}

int drm_hotplug_open(struct drm_hotplug *h, int card_fd, const char *path)
{
	struct sockaddr_nl sa = {.nl_family = AF_NETLINK, .nl_groups = 1};
	struct stat st;
	const char *env;
	char why[96];

	h->fd = -1;
	h->polling = false;
	if (fstat(card_fd, &st) < 0) {
		log_warn("fstat %s: %s: hot-plug is not followed", path,
			 strerror(errno));
		return -errno;
	}
	h->major = major(st.st_rdev);
	h->minor = minor(st.st_rdev);
	/* The tests' way to the poll, on a kernel that has uevents. */
	env = getenv("VNCFB_DRM_HOTPLUG");
	if (env && !strcmp(env, "poll"))
		return open_poll(h, path, "VNCFB_DRM_HOTPLUG=poll");
	/* Group 1: the kernel's own uevents, which any user may read. */
	h->fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
		       NETLINK_KOBJECT_UEVENT);
	if (h->fd < 0 || bind(h->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		snprintf(why, sizeof(why), "%s NETLINK_KOBJECT_UEVENT: %s",
			 h->fd < 0 ? "socket" : "bind", strerror(errno));
		if (h->fd >= 0)
			close(h->fd);
		h->fd = -1;
		return open_poll(h, path, why);
	}
	log_debug("%s: hot-plug: the kernel's uevents (card %u:%u); the "
		  "connectors are read when one says they changed",
		  path, h->major, h->minor);
	return 0;
}

void drm_hotplug_close(struct drm_hotplug *h)
{
	if (h->fd >= 0)
		close(h->fd);
	h->fd = -1;
}

bool drm_hotplug_take(struct drm_hotplug *h)
{
	char buf[8192];
	bool any = false;
	ssize_t n;

	if (h->fd < 0)
		return false;
	if (h->polling) {
		uint64_t ticks;

		return read(h->fd, &ticks, sizeof(ticks)) == sizeof(ticks);
	}
	/* Drain: one scan for a burst of events. */
	while ((n = recv(h->fd, buf, sizeof(buf), 0)) > 0) {
		/* Only the kernel's (udev's own start with "libudev"). */
		if (drm_uevent_hotplug(buf, (size_t)n, h->major, h->minor))
			any = true;
	}
	if (n < 0 && errno == ENOBUFS) {
		/* Events were lost: any of them may have been ours. */
		log_debug("uevent socket overran: reading the connectors");
		any = true;
	}
	return any;
}

/* The CRTCs c's encoders reach, as a mask of indices in res. */
static uint32_t reach(int fd, const drmModeConnector *c)
{
	uint32_t crtcs = 0;
	int i;

	for (i = 0; i < c->count_encoders; i++) {
		drmModeEncoder *e = drmModeGetEncoder(fd, c->encoders[i]);

		if (e)
			crtcs |= e->possible_crtcs;
		drmModeFreeEncoder(e);
	}
	return crtcs;
}

static bool crtc_taken(uint32_t crtc, const uint32_t *taken, int ntaken)
{
	int i;

	for (i = 0; i < ntaken; i++)
		if (taken[i] == crtc)
			return true;
	return false;
}

uint32_t drm_pick_crtc(int fd, const drmModeRes *res, const drmModeConnector *c,
		       uint32_t ours, bool current, const uint32_t *taken,
		       int ntaken)
{
	uint32_t mask = reach(fd, c), found = 0;
	drmModeEncoder *e;
	int i;

	for (i = 0; ours && i < res->count_crtcs && i < 32; i++)
		if ((mask & (1u << i)) && res->crtcs[i] == ours &&
		    !crtc_taken(ours, taken, ntaken))
			return ours;
	if (current && c->encoder_id &&
	    (e = drmModeGetEncoder(fd, c->encoder_id))) {
		found = e->crtc_id;
		drmModeFreeEncoder(e);
		if (found && !crtc_taken(found, taken, ntaken))
			return found;
		found = 0;
	}
	for (i = 0; i < res->count_crtcs && i < 32 && !found; i++) {
		drmModeCrtc *cr;

		if (!(mask & (1u << i)) ||
		    crtc_taken(res->crtcs[i], taken, ntaken))
			continue;
		cr = drmModeGetCrtc(fd, res->crtcs[i]);
		if (cr && !cr->buffer_id)
			found = cr->crtc_id;
		drmModeFreeCrtc(cr);
	}
	return found;
}

int drm_read_connectors(int fd, const drmModeRes *res, drmModeConnector **conns,
			struct drm_conn_info *info)
{
	int i, n = 0;

	for (i = 0; i < res->count_connectors && n < DRM_MAX_CONNECTORS; i++) {
		drmModeConnector *c =
		    drmModeGetConnector(fd, res->connectors[i]);

		if (!c)
			continue;
		conns[n] = c;
		drm_connector_name(c->connector_type, c->connector_type_id,
				   info[n].name, sizeof(info[n].name));
		info[n].connected = c->connection == DRM_MODE_CONNECTED;
		info[n].nmodes = c->count_modes;
		n++;
	}
	return n;
}

/* c (connected) at s's mode on a CRTC, into t: the one its display is
 * on now too (current), as at open, but for a stand-in. */
static void target(int fd, const drmModeRes *res, const drmModeConnector *c,
		   const char *name, const struct drm_spec *s, uint32_t crtc_id,
		   bool current, struct drm_target *t)
{
	int mi =
	    drm_choose_mode(c->modes, c->count_modes, drm_spec_mode(s, name));

	t->present = true;
	t->conn_id = c->connector_id;
	snprintf(t->name, sizeof(t->name), "%s", name);
	t->crtc_id = drm_pick_crtc(fd, res, c, crtc_id, current, NULL, 0);
	t->mode_found = mi >= 0;
	if (mi >= 0)
		t->mode = c->modes[mi];
}

int drm_hotplug_scan(int fd, const struct drm_spec *s, uint32_t cur_id,
		     uint32_t crtc_id, struct drm_target *t)
{
	struct drm_conn_info info[DRM_MAX_CONNECTORS];
	drmModeConnector *conns[DRM_MAX_CONNECTORS];
	drmModeRes *res = drmModeGetResources(fd);
	int i, n, ci = -1;

	memset(t, 0, sizeof(*t));
	if (!res)
		return -errno;
	n = drm_read_connectors(fd, res, conns, info);
	/* Unnamed: the one in use stays while it is there. */
	for (i = 0; i < n && !s->connector[0]; i++)
		if (conns[i]->connector_id == cur_id && info[i].connected &&
		    conns[i]->count_modes > 0)
			ci = i;
	if (ci < 0)
		ci = drm_choose_connector(info, n, s->connector);
	if (ci >= 0)
		target(fd, res, conns[ci], info[ci].name, s, crtc_id, true, t);
	if (ci < 0 && s->connector[0])
		snprintf(t->why, sizeof(t->why), "%s is disconnected",
			 s->connector);
	else if (ci >= 0 && !t->mode_found)
		snprintf(t->why, sizeof(t->why), "%s has no mode %ux%u",
			 t->name, drm_spec_mode(s, t->name)->width,
			 drm_spec_mode(s, t->name)->height);
	/* Not what s asks for: a display that is there says why. */
	if (t->why[0]) {
		const struct drm_spec any = {.buffers = 0};
		int si = -1;

		for (i = 0; i < n; i++)
			if (info[i].connected && conns[i]->count_modes > 0 &&
			    (si < 0 || conns[i]->connector_id == cur_id))
				si = i;
		if (si >= 0) {
			/* Never the console's CRTC: a stand-in only says
			 * why, and the console may show there meanwhile. */
			target(fd, res, conns[si], info[si].name, &any, crtc_id,
			       false, t);
			t->standin = true;
		}
	}
	for (i = 0; i < n; i++)
		drmModeFreeConnector(conns[i]);
	drmModeFreeResources(res);
	return 0;
}
