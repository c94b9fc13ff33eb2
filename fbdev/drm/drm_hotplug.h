/* DRM hot-plug: hearing that the output's cards' connectors changed (the
 * kernel's HOTPLUG=1 uevent for one of the cards on a
 * NETLINK_KOBJECT_UEVENT socket, no libudev; where no such socket can be
 * had, a poll of the connectors every DRM_HOTPLUG_POLL_MS), and what the
 * connectors then ask of the output: which connector of which card, at
 * which mode, or none.
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
#include "drm_scan.h"

/* Without uevents: how often the connectors are read. */
#define DRM_HOTPLUG_POLL_MS 2000

struct drm_hotplug {
	int fd;	      /* the uevent socket or the poll's timerfd; -1 */
	bool polling; /* fd is a timerfd */
	/* The cards' device numbers. */
	unsigned ndev, major[DRM_MAX_CARDS], minor[DRM_MAX_CARDS];
};

/* What the connectors ask of the output now. */
struct drm_target {
	bool present; /* a connector to drive is connected */
	int card;     /* its card: an index of the cards scanned */
	uint32_t conn_id;
	char name[32]; /* as a head's (drm_head_name) */
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

/* Start listening for hot-plug events of cards[0..ncards) (cards[0]'s
 * path for messages). 0, or -errno (logged as a warning: the output
 * works without). */
int drm_hotplug_open(struct drm_hotplug *h, const struct drm_card *cards,
		     int ncards);
void drm_hotplug_close(struct drm_hotplug *h);
/* fd was readable: drain it. True when the connectors may have changed
 * (a hot-plug uevent of one of the cards, or a poll tick). */
bool drm_hotplug_take(struct drm_hotplug *h);
/* Read the cards' connectors (drm_scan_read) and choose as drm_card_open
 * would: s's connector, else the one in use (cur_id of card cur_card)
 * while it is connected, else the first connected one, in card order;
 * the mode s asks for on it (drm_spec_mode); the CRTC for it as
 * drm_pick_crtc chooses, with crtc_id (the output's, on cur_card) as
 * ours. When s's connector or mode is not there but a display is, that
 * one (the one in use first) as a stand-in. 0 (t filled), or -errno when
 * no card can be read. */
int drm_hotplug_scan(const struct drm_card *cards, int ncards,
		     const struct drm_spec *s, int cur_card, uint32_t cur_id,
		     uint32_t crtc_id, struct drm_target *t);

/* Whether one uevent (NUL-separated KEY=VALUE lines after the header
 * "ACTION@DEVPATH") is a DRM hot-plug of the card major:minor. Pure. */
bool drm_uevent_hotplug(const char *msg, size_t len, unsigned major,
			unsigned minor);

#endif
