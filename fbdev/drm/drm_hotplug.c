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
#include "drm_scan.h"
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

int drm_hotplug_open(struct drm_hotplug *h, const struct drm_card *cards,
		     int ncards)
{
	struct sockaddr_nl sa = {.nl_family = AF_NETLINK, .nl_groups = 1};
	const char *path = cards[0].path, *env;
	char why[96], devs[DRM_MAX_CARDS * 12];
	size_t used = 0;
	struct stat st;
	int k;

	h->fd = -1;
	h->polling = false;
	h->ndev = 0;
	devs[0] = '\0';
	for (k = 0; k < ncards && k < DRM_MAX_CARDS; k++) {
		if (fstat(cards[k].fd, &st) < 0) {
			log_warn("fstat %s: %s: hot-plug is not followed",
				 cards[k].path, strerror(errno));
			return -errno;
		}
		h->major[k] = major(st.st_rdev);
		h->minor[k] = minor(st.st_rdev);
		h->ndev++;
		if (used < sizeof(devs))
			used += (size_t)snprintf(
			    devs + used, sizeof(devs) - used, "%s%u:%u",
			    k ? ", " : "", h->major[k], h->minor[k]);
	}
	/* The tests' way to the poll, on a kernel that has uevents. */
	env = getenv("VNCFB_DRM_HOTPLUG");
	if (env && !strcmp(env, "poll"))
		return open_poll(h, path, "VNCFB_DRM_HOTPLUG=poll");
	/* Group 1: the kernel's own uevents, which any user may read: one
	 * socket hears every card's. */
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
	log_debug("%s: hot-plug: the kernel's uevents (card%s %s); the "
		  "connectors are read when one says they changed",
		  path, h->ndev > 1 ? "s" : "", devs);
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
		/* Only the kernel's (udev's own start with "libudev"), of
		 * one of the cards. */
		for (unsigned k = 0; k < h->ndev; k++)
			if (drm_uevent_hotplug(buf, (size_t)n, h->major[k],
					       h->minor[k]))
				any = true;
	}
	if (n < 0 && errno == ENOBUFS) {
		/* Events were lost: any of them may have been ours. */
		log_debug("uevent socket overran: reading the connectors");
		any = true;
	}
	return any;
}

/* Connector i of sc (connected) at s's mode on a CRTC, into t: ours
 * when it is on card cur_card; the one its display is on now too
 * (current), as at open, but for a stand-in. */
static void target(const struct drm_card *cards, const struct drm_scan *sc,
		   int i, const struct drm_spec *s, int cur_card,
		   uint32_t crtc_id, bool current, struct drm_target *t)
{
	const drmModeConnector *c = sc->conns[i];
	char full[48];
	int k = sc->card[i], mi;

	drm_full_name(&sc->info[i], full, sizeof(full));
	mi = drm_choose_mode(c->modes, c->count_modes, drm_spec_mode(s, full));
	t->present = true;
	t->card = k;
	t->conn_id = c->connector_id;
	drm_head_name(sc->info, sc->n, i, t->name, sizeof(t->name));
	t->crtc_id =
	    drm_pick_crtc(cards[k].fd, sc->res[k], c,
			  k == cur_card ? crtc_id : 0, current, NULL, 0);
	t->mode_found = mi >= 0;
	if (mi >= 0)
		t->mode = c->modes[mi];
	else
		snprintf(t->why, sizeof(t->why), "%s has no mode %ux%u",
			 t->name, drm_spec_mode(s, full)->width,
			 drm_spec_mode(s, full)->height);
}

int drm_hotplug_scan(const struct drm_card *cards, int ncards,
		     const struct drm_spec *s, int cur_card, uint32_t cur_id,
		     uint32_t crtc_id, struct drm_target *t)
{
	struct drm_scan sc;
	int i, ci = -1, ret;

	memset(t, 0, sizeof(*t));
	ret = drm_scan_read(&sc, cards, ncards);
	if (ret < 0) {
		drm_scan_free(&sc);
		return ret;
	}
	/* Unnamed: the one in use stays while it is there. */
	for (i = 0; i < sc.n && !s->connector[0]; i++)
		if (sc.card[i] == cur_card &&
		    sc.conns[i]->connector_id == cur_id &&
		    sc.info[i].connected && sc.conns[i]->count_modes > 0)
			ci = i;
	if (ci < 0)
		ci = drm_choose_connector(sc.info, sc.n, s->connector);
	if (ci >= 0)
		target(cards, &sc, ci, s, cur_card, crtc_id, true, t);
	else if (s->connector[0])
		snprintf(t->why, sizeof(t->why), "%s is disconnected",
			 s->connector);
	/* Not what s asks for: a display that is there says why. */
	if (t->why[0]) {
		const struct drm_spec any = {.buffers = 0};
		char why[sizeof(t->why)];
		int si = -1;

		for (i = 0; i < sc.n; i++)
			if (sc.info[i].connected &&
			    sc.conns[i]->count_modes > 0 &&
			    (si < 0 || (sc.card[i] == cur_card &&
					sc.conns[i]->connector_id == cur_id)))
				si = i;
		if (si >= 0) {
			/* Never the console's CRTC: a stand-in only says
			 * why, and the console may show there meanwhile. */
			memcpy(why, t->why, sizeof(why));
			memset(t, 0, sizeof(*t));
			target(cards, &sc, si, &any, cur_card, crtc_id, false,
			       t);
			memcpy(t->why, why, sizeof(why));
			t->standin = true;
		}
	}
	drm_scan_free(&sc);
	return 0;
}
