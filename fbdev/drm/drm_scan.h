/* The cards of the DRM output and their connectors, read as one list (in
 * card order, then each card's own), and the CRTC a connector is driven
 * on: what the open path and the hot-plug path both choose from.
 *
 * Threads: main thread only. */
#ifndef VNCFB_FBDEV_DRM_SCAN_H
#define VNCFB_FBDEV_DRM_SCAN_H

#include <stdbool.h>
#include <stdint.h>

#include <xf86drmMode.h>

#include "drm.h"

/* One card of the output: its file, DRM master from open to close, which
 * every head on the card shares. Every card is opened at open, before
 * console_open forks the supervisor, so that the supervisor holds the
 * same files (drm_restore.h puts each CRTC back on its own card's). */
struct drm_card {
	int fd; /* -1: none */
	char path[256];
	char name[16];	/* "card1": what qualifies its connectors' names */
	bool monotonic; /* its flip events' times are CLOCK_MONOTONIC */
	bool atomic;	/* the atomic client cap is set (the driver is atomic) */
};

/* The most connectors one scan looks at, every card's together. */
#define DRM_MAX_CONNECTORS 64

/* The connectors of the cards, each left open for drm_scan_free. */
struct drm_scan {
	int n;
	drmModeConnector *conns[DRM_MAX_CONNECTORS];
	/* Their names (with their cards' names), connection states and
	 * mode counts, for drm.h's choices. */
	struct drm_conn_info info[DRM_MAX_CONNECTORS];
	int card[DRM_MAX_CONNECTORS];	/* each one's card: an index of cards */
	drmModeRes *res[DRM_MAX_CARDS]; /* each card's; NULL: unreadable */
};

/* Read the connectors of cards[0..ncards) (a probe: drmModeGetConnector);
 * one that cannot be read is left out, and so is a card whose resources
 * cannot be read. 0, or -errno when no card's can (sc is empty then, and
 * still freed with drm_scan_free). */
int drm_scan_read(struct drm_scan *sc, const struct drm_card *cards,
		  int ncards);
void drm_scan_free(struct drm_scan *sc);
/* The connectors as "Virtual-1 connected, Virtual-2 disconnected" (head
 * names, drm_head_name) for an error message, cut to len. */
void drm_scan_describe(const struct drm_scan *sc, char *buf, size_t len);

/* The CRTC to drive connector c with (res the card's, fd's), one its
 * encoders reach and none of taken[0..ntaken) (other heads' on the card):
 * ours (the one the head shows on now) when it can; else, with current,
 * the one c's display is on now (the console's: at open and when
 * hot-plug makes a head on c, as at open); else a free (unlit) one. 0
 * when there is none. The one choice of the open path and the hot-plug
 * path. */
uint32_t drm_pick_crtc(int fd, const drmModeRes *res, const drmModeConnector *c,
		       uint32_t ours, bool current, const uint32_t *taken,
		       int ntaken);

#endif
