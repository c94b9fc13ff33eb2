/* DRM hot-plug: hearing that a card's connectors changed (the kernel's
 * HOTPLUG=1 uevent for the card on a NETLINK_KOBJECT_UEVENT socket, no
 * libudev; where no such socket can be had, a poll of the connectors
 * every DRM_HOTPLUG_POLL_MS), and what the connectors then ask of the
 * output: which connector, at which mode, or none.
 *
 * Threads: main thread only (the output's open, dispatch, reconfigure
 * and close); drm_uevent_hotplug is pure, any thread. */
#ifndef VNCFB_FBDEV_DRM_HOTPLUG_H
#define VNCFB_FBDEV_DRM_HOTPLUG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <xf86drmMode.h>

#include "drm.h"

/* Without uevents: how often the connectors are read. */
#define DRM_HOTPLUG_POLL_MS 2000

struct drm_hotplug {
	int fd;		       /* the uevent socket or the poll's timerfd; -1 */
	bool polling;	       /* fd is a timerfd */
	unsigned major, minor; /* the card's device number */
};

/* What the connectors ask of the output now. */
struct drm_target {
	bool present; /* a connector to drive is connected */
	uint32_t conn_id;
	char name[32];
	drmModeModeInfo mode;
	bool mode_found; /* false: present, but no mode fits s */
	/* The CRTC to show it on (drm_pick_crtc): the one asked about when
	 * its encoders reach it, else the one its display is on now (not
	 * for a stand-in), else a free one they reach; 0 for none. */
	uint32_t crtc_id;
	/* What is waited for ("Virtual-1 is disconnected"), when the
	 * connector s names is not connected or has not s's mode. */
	char why[96];
	/* Then another display that is connected (or that one, at its
	 * preferred mode) is the target above, a stand-in to say why on
	 * (the status line), never to show the desktop. */
	bool standin;
};

/* The most connectors one card's scan looks at. */
#define DRM_MAX_CONNECTORS 64

/* Read res's connectors (at most DRM_MAX_CONNECTORS; ones that cannot be
 * read are left out) into conns, each left open for the caller to free,
 * with their names, connection state and mode counts in info. Returns
 * how many. Main thread. */
int drm_read_connectors(int fd, const drmModeRes *res, drmModeConnector **conns,
			struct drm_conn_info *info);

/* The CRTC to drive connector c with (res the card's, fd's), one its
 * encoders reach and none of taken[0..ntaken) (other heads'): ours (the
 * one the head shows on now) when it can; else, with current, the one
 * c's display is on now (the console's: at open and when hot-plug makes
 * a head on c, as at open); else a free (unlit) one. 0 when there is
 * none. The one choice of the open path and the hot-plug path. */
uint32_t drm_pick_crtc(int fd, const drmModeRes *res, const drmModeConnector *c,
		       uint32_t ours, bool current, const uint32_t *taken,
		       int ntaken);

/* Start listening for card_fd's hot-plug events (path for messages).
 * 0, or -errno (logged as a warning: the output works without). */
int drm_hotplug_open(struct drm_hotplug *h, int card_fd, const char *path);
void drm_hotplug_close(struct drm_hotplug *h);
/* fd was readable: drain it. True when the connectors may have changed
 * (a hot-plug uevent of this card, or a poll tick). */
bool drm_hotplug_take(struct drm_hotplug *h);
/* Read the connectors (a probe: drmModeGetConnector) and choose as
 * drm_card_open would: s's connector, else the one in use (cur_id) while
 * it is connected, else the first connected one; the mode s asks for on
 * it (drm_spec_mode); the CRTC for it as drm_pick_crtc chooses, with
 * crtc_id (the output's) as ours. When s's connector or mode is not there but a display is, that
 * one (the one in use first) as a stand-in. 0 (t filled), or -errno of
 * the card. */
int drm_hotplug_scan(int fd, const struct drm_spec *s, uint32_t cur_id,
		     uint32_t crtc_id, struct drm_target *t);

/* Whether one uevent (NUL-separated KEY=VALUE lines after the header
 * "ACTION@DEVPATH") is a DRM hot-plug of the card major:minor. Pure. */
bool drm_uevent_hotplug(const char *msg, size_t len, unsigned major,
			unsigned minor);

#endif
