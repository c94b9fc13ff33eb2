/* What the DRM/KMS output's two files share: its state, and the card's
 * set-up, tear-down and checks before a run (drm_card.c) that the output
 * and its page flips (drm.c) build on.
 *
 * Threads: drm_card_open and drm_card_close, drm_fail and the checks run
 * on the main thread; the blit thread owns the fields so marked (and
 * draws into the buffers) between open and close; modeset is set by the
 * main thread and taken by the blit thread. */
#ifndef VNCFB_FBDEV_DRM_PRIV_H
#define VNCFB_FBDEV_DRM_PRIV_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <xf86drm.h>
#include <xf86drmMode.h>

#include "drm.h"
#include "drm_hotplug.h"
#include "drm_restore.h"
#include "drm_scan.h"
#include "output/output.h"
#include "util/rect.h"
#include "vt.h"

/* The buffers' size while no display is connected (drm_card_open with
 * out->may_wait), without --mode: the kernel's own fbdev default. */
#define DRM_WAIT_WIDTH 1024
#define DRM_WAIT_HEIGHT 768

struct drm_buf {
	uint32_t handle, fb;
	uint8_t *map;
	size_t size;
	enum output_buffer age;
};

struct drm_priv {
	/* The head's card (first->cards[card], its fd and path copied
	 * here). */
	int card;
	int fd;
	char path[256];
	char conn_name[32];
	uint32_t conn_id, crtc_id, fourcc;
	drmModeModeInfo mode;
	uint32_t pitch;
	struct drm_buf buf[2];
	int nbuf;
	int back; /* buffer the next pass draws into */
	/* The CRTC's primary plane and its FB_ID property: atomic flips. */
	uint32_t plane_id, fb_prop;
	bool atomic;
	/* The plane's rotation property (0: none), the DRM_MODE_ROTATE_*
	 * and REFLECT_* bits it offers and its value before vncfb; turn:
	 * the clockwise quarter turns (0-3) it gives the picture, the
	 * buffers then the turned size (drm_fb_size). */
	uint32_t rot_prop;
	uint64_t rot_offered, rot_was;
	unsigned turn;
	/* Blit thread: */
	struct rect rects[DRM_MODE_FB_DIRTY_MAX_CLIPS];
	int nrects; /* what present handed over; -1: too many */
	/* Atomic: with several heads on one card's fd, another head's
	 * thread may read this one's flip event. */
	atomic_bool flip_pending;
	bool dirty_works;  /* DIRTYFB does something (not ENOSYS) */
	bool monotonic;	   /* event times are CLOCK_MONOTONIC */
	uint64_t shown_ns; /* when the last pass reached the screen */
	bool warned;	   /* a failing flip or DIRTYFB said so once */
	/* The CRTC must be set (not flipped) by the next pass: after a VT
	 * switch back. Set on the main thread. */
	atomic_bool modeset;
	/* Every CRTC set, as it was before, each with its card's fd: the
	 * first head's, which the other heads borrow. Shared with the
	 * supervisor. */
	struct drm_restore *restore;
	struct vt vt;
	/* Hot-plug (main thread): what was asked for, the events, the fd
	 * the session polls for them and the VT's (an epoll of both), and
	 * whether the connector in use has a display now. */
	struct drm_spec spec;
	struct drm_hotplug hp;
	int epfd;
	bool has_display;
	bool standin;	/* that display only says what is waited for */
	bool hp_missed; /* an event came while switched away */
	/* The first head's: the cards of the output (one, or with a spec
	 * that spans cards and no device, every card it takes), each
	 * opened before the supervisor is forked and master until close,
	 * whether a head is on it or not. */
	struct drm_card cards[DRM_MAX_CARDS];
	int ncards;
	/* A head after the first (drm_card_open_head): its card's fd is
	 * one of the first's cards; the VT, hot-plug and the cards are the
	 * first's, which also holds the others (heads, with out->heads
	 * pointing at them). */
	bool extra;
	struct drm_priv *first;
	unsigned nmore;
	struct output *more[DRM_MAX_HEADS];
};

/* The card head p is on. */
static inline struct drm_card *drm_head_card(struct drm_priv *p)
{
	return &(p->extra ? p->first : p)->cards[p->card];
}

/* The buffers' size: the mode's, turned by the plane's turn. */
static inline void drm_fb_size(const struct drm_priv *p, uint32_t *w,
			       uint32_t *h)
{
	*w = p->turn & 1 ? p->mode.vdisplay : p->mode.hdisplay;
	*h = p->turn & 1 ? p->mode.hdisplay : p->mode.vdisplay;
}

/* Decide p->turn for --rotate on p's connector (output_wanted_rotation):
 * the whole angle where p's plane offers it, else 0 (the blitter
 * turns). Before the buffers are made. */
void drm_card_pick_turn(struct drm_priv *p);
/* Set p's plane's rotation to p->turn (straight when 0 and vncfb found
 * it turned); nothing when the plane has no such property. Before each
 * mode set. 0 or -errno (said). The restore list puts it back. */
int drm_set_rotation(struct output *out, struct drm_priv *p);

/* Say why the output cannot be used: an error, or when the default output
 * only tries it, the reason in out->why (shown under -v). */
void drm_fail(struct output *out, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Open the cards s asks for (p->cards) and the first head on one of
 * them: everything up to the buffers (p->buf, p->nbuf), the CRTC chosen
 * but not yet set. The cards: the device s names; else, when s spans
 * cards (all, or connector=A+B), every card vncfb can be the master of
 * (all: each left out with a warning that cannot be had; connector=:
 * those of the connectors named, each an error when it cannot be had);
 * else the first of /dev/dri/card0..15 with a display. The first head:
 * s's first connector, else the first connected one, in card order.
 * With out->may_wait, no display connected (on the one named, or at
 * all) opens with p->has_display false: master, no connector or CRTC,
 * buffers nobody sees. 0 or -errno (said; -ENXIO: no display
 * connected). */
int drm_card_open(struct output *out, struct drm_priv *p,
		  const struct drm_spec *s);
/* Undo what drm_card_open did on p (buffers, master, every card's fd). */
void drm_card_close(struct drm_priv *p);
/* The connectors s asks for besides first's (connector=A+B: the others
 * named; all: every other connected one of first's cards, in card order,
 * then each card's) into names (head names), and when modes is not NULL
 * the mode s picks on each (hdisplay 0: disconnected, or none fits).
 * How many, or -errno (logged). */
int drm_card_more_heads(struct drm_priv *first, const struct drm_spec *s,
			char (*names)[32], drmModeModeInfo *modes);
/* Another head of first's desktop, on the card of first's that has
 * connector name (its fd; the restore list is first's): at s's mode, on
 * a CRTC no other head of the card has (first's and first->more's), with
 * its own plane and buffers, not yet set. p fresh (fd -1). 0 or -errno
 * (said, p closed again). */
int drm_card_open_head(struct output *out, struct drm_priv *p,
		       struct drm_priv *first, const char *name,
		       const struct drm_spec *s);
/* Undo drm_card_open_head: the buffers (the fd stays the card's). */
void drm_card_close_head(struct drm_priv *p);
/* Keep p's CRTC in r as it is now, with the connectors on it, before
 * vncfb sets it (drm_restore_keep: nothing when r has it already). 0 or
 * -errno (said as a warning: the display then is not put back). */
int drm_card_keep_crtc(const struct drm_priv *p, struct drm_restore *r);
/* The primary plane of p's CRTC after the head moved to another one (a
 * hot-plug), for atomic flips; none found: legacy flips. */
void drm_card_find_plane(struct drm_priv *p);
void drm_buf_destroy(struct drm_priv *p, struct drm_buf *b);
/* A dumb buffer of p->mode's size in p->fourcc, black, mapped; its pitch
 * must match p->pitch once that is set. 0 or -errno (said). */
int drm_buf_create(struct output *out, struct drm_priv *p, struct drm_buf *b);

/* The output's checks before a run (output_impl detect, check_arg,
 * check): they change nothing on the screen and need no DRM master. */
int drm_detect(char *why, size_t len);
int drm_check_arg(const char *arg, char *why, size_t len);
int drm_check(const char *arg);

#endif
