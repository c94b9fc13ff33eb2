/* The CRTCs the DRM output has set, each as it was just before vncfb first
 * set it: what every exit puts back (drm_close, the fatal-signal handler,
 * the supervisor after SIGKILL), so that the user gets the same display
 * back however vncfb ended.
 *
 * Each CRTC is kept with its card's file, so one list serves the heads of
 * every card. The list lives in a shared anonymous mapping made at open, before
 * console_open forks the supervisor (client/console/supervise.h). Both
 * processes see it at the same address, so the supervisor replays the
 * CRTCs as they are when vncfb dies (heads plugged in later, made again,
 * moved to another CRTC), not a copy from the fork. An entry is written
 * while unused and marked used last, and unused only once its CRTC is
 * back: a SIGKILL or a fault in the middle of a change never leaves a
 * half-written entry to replay.
 *
 * Threads: the main thread changes the list (drm_restore_create, _destroy,
 * _keep, _put_back, _set_away); drm_restore_find and drm_restore_list
 * read it there. drm_restore_run runs in any thread or process, from a
 * fatal-signal handler too: atomic loads and one ioctl per CRTC, all
 * async-signal-safe. */
#ifndef VNCFB_FBDEV_DRM_RESTORE_H
#define VNCFB_FBDEV_DRM_RESTORE_H

#include <stdbool.h>
#include <stdint.h>

#include <xf86drm.h>

/* CRTCs kept at most, every card's together (one card may have 32: the
 * kernel's possible_crtcs is 32 bits). */
#define DRM_RESTORE_MAX 64
/* Connectors kept per CRTC (clones). */
#define DRM_RESTORE_CONNS 8

struct drm_restore;

/* An empty list in a shared mapping, or NULL with errno set. */
struct drm_restore *drm_restore_create(void);
/* Unmap it (in this process; NULL: nothing). */
void drm_restore_destroy(struct drm_restore *r);

/* Remember crtc of the card fd as c says it is, with the connectors
 * conns[0..n) on it (at most DRM_RESTORE_CONNS are kept), unless that
 * CRTC is remembered already: the first state is the one from before
 * vncfb. fd must stay open, at that number, in vncfb and in the
 * supervisor, while it is remembered. 0, or -ENOSPC when the list is
 * full. */
int drm_restore_keep(struct drm_restore *r, int fd,
		     const struct drm_mode_crtc *c, const uint32_t *conns,
		     uint32_t n);
/* With crtc_id's entry (drm_restore_keep first): put the rotation
 * property prop of its plane plane_id back to value before the CRTC (a
 * plane vncfb turned). 0, or -ENOENT when the CRTC is not remembered. */
int drm_restore_keep_rotation(struct drm_restore *r, int fd,
			      uint32_t crtc_id, uint32_t plane_id,
			      uint32_t prop, uint64_t value);
/* crtc_id of the card fd as remembered (set_connectors_ptr points into
 * the list), or NULL when it is not. */
const struct drm_mode_crtc *drm_restore_find(const struct drm_restore *r,
					     int fd, uint32_t crtc_id);
/* Put crtc_id back as remembered, on the card fd, then forget it; while
 * another VT is shown it is only forgotten (the display is that VT's).
 * 0, -ENOENT when it is not remembered, or -errno of the ioctl (it is
 * forgotten all the same). */
int drm_restore_put_back(struct drm_restore *r, int fd, uint32_t crtc_id);
/* Another VT is shown (away) or ours again: the CRTCs are not ours to
 * set meanwhile (DRM master is given up). */
void drm_restore_set_away(struct drm_restore *r, bool away);
/* The remembered CRTCs' cards and ids, at most max into fds and ids. How
 * many. */
int drm_restore_list(const struct drm_restore *r, int *fds, uint32_t *ids,
		     int max);
/* Put every remembered CRTC back on its card, unless another VT is shown;
 * forgets nothing. Async-signal-safe. */
void drm_restore_run(const struct drm_restore *r);

#endif
