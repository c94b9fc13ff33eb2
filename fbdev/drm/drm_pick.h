/* The DRM/KMS output's decisions kept apart from the ioctls, so they are
 * unit-tested without a device: the spec's grammar, connector names, which
 * connector, mode and pixel format to use.
 *
 * Threads: pure functions, any thread. */
#ifndef VNCFB_FBDEV_DRM_PICK_H
#define VNCFB_FBDEV_DRM_PICK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <xf86drmMode.h>

#include "shadow/pixfmt.h"

/* Heads one desktop may span (client/view/layout.h's cap). */
#define DRM_MAX_HEADS 8

/* A mode asked for: WxH[@HZ]. */
struct drm_mode_want {
	uint32_t width, height; /* 0: the connector's preferred mode */
	uint32_t hz;		/* 0: any refresh rate */
};

/* Cards one desktop may span: /dev/dri/card0..card15. */
#define DRM_MAX_CARDS 16

/* What "drm:ITEM,ITEM,..." asks for: items are a device path and
 * connector=NAME[+NAME...], all (every connected connector of every
 * card, or of the device named), mode=MODE[ MODE...] (below),
 * buffers=1|2, in any order. A connector's NAME anywhere (connector=,
 * mode=) is the kernel's ("HDMI-A-1", any case), or CARD:NAME, CARD
 * being cardN for /dev/dri/cardN ("card1:HDMI-A-1"): which card's,
 * where more than one has a connector of that name. */
struct drm_spec {
	char device[256];   /* "": the first card with a display */
	char connector[32]; /* "": the first connected one */
	/* Several heads: connector=A+B names them in order (connector is
	 * then the first), or all takes every connected one. nheads 1 for
	 * one named connector, 0 for none named. */
	char heads[DRM_MAX_HEADS][32];
	int nheads;
	bool all;
	/* mode=: blank-separated items, WxH[@HZ] for every head not named
	 * (at most one such item), NAME:WxH[@HZ] for connector NAME's
	 * head (names in any case, each once; with connector= one of
	 * those). */
	struct drm_mode_want mode;
	struct {
		char name[32];
		struct drm_mode_want want;
	} named[DRM_MAX_HEADS];
	int nnamed;
	int buffers; /* 0: two, one where the driver cannot flip */
};

/* Parse the part of the spec after "drm:" (NULL: all defaults). 0, or
 * -EINVAL with why saying what is wrong. */
int drm_spec_parse(const char *arg, struct drm_spec *s, char *why, size_t len);
/* "WxH" or "WxH@HZ". 0 or -EINVAL. */
int drm_mode_parse(const char *v, uint32_t *w, uint32_t *h, uint32_t *hz);
/* The mode s asks for on connector name ([CARD:]NAME, drm_name_eq): its
 * own item, else the one for every head (width 0: the preferred mode).
 * name NULL or "": the latter. */
const struct drm_mode_want *drm_spec_mode(const struct drm_spec *s,
					  const char *name);

/* The kernel's name of a connector: type and number, "HDMI-A-1". */
void drm_connector_name(uint32_t type, uint32_t type_id, char *buf, size_t len);

/* Whether names a and b, each [CARD:]NAME, may be one connector's: the
 * same NAME (any case), and the same CARD where both have one. */
bool drm_name_eq(const char *a, const char *b);

/* One connector of the cards a desktop looks at, as the choice sees it. */
struct drm_conn_info {
	char name[32]; /* the kernel's: "HDMI-A-1" */
	char card[16]; /* its card's: "card1" */
	bool connected;
	int nmodes;
};

/* The one connector want names: its index, -ENOENT (none), -ENOTUNIQ
 * (want has no CARD, and connectors of several cards have its NAME). */
int drm_find_connector(const struct drm_conn_info *c, int n, const char *want);
/* Connector i's name as a head's (layouts, messages): the kernel's, or
 * CARD:NAME where a connector of another card has the same NAME. */
void drm_head_name(const struct drm_conn_info *c, int n, int i, char *buf,
		   size_t len);
/* Connector c's CARD:NAME (NAME without a card), for drm_spec_mode. */
void drm_full_name(const struct drm_conn_info *c, char *buf, size_t len);

/* The connector to drive: the one named want (drm_find_connector; NULL or
 * "": the first connected one with modes). Its index, or -ENOENT (no
 * connector of that name), -ENOTUNIQ (several), -ENODEV (not connected,
 * or none is). */
int drm_choose_connector(const struct drm_conn_info *c, int n,
			 const char *want);

/* The heads of a spec that asks for several (all, or connector=A+B):
 * their indexes in c, in the order named (all: c's order), into idx.
 * Returns how many (1..DRM_MAX_HEADS), or -ENOENT (a name no connector
 * has: *bad its index in s->heads), -ENOTUNIQ (a name several cards
 * have: *bad as well), -ENODEV (a named one not connected: *bad as well;
 * or with all, none is). Every one is connected with modes. */
int drm_choose_heads(const struct drm_conn_info *c, int n,
		     const struct drm_spec *s, int *idx, int *bad);
/* Whether every connector s gives a mode of (mode=NAME:...) is one of
 * c's, and only one: -1, else the index in s->named of the first that is
 * not (drm_find_connector says why). */
int drm_unknown_mode_name(const struct drm_conn_info *c, int n,
			  const struct drm_spec *s);

/* The mode to set: w's size (and refresh rate, when given; else the
 * preferred mode of that size, else the fastest), or without a size the
 * preferred mode (else the first). Interlaced modes only when nothing
 * else fits. Its index, or -ENOENT. */
int drm_choose_mode(const drmModeModeInfo *modes, int n,
		    const struct drm_mode_want *w);
/* A mode's refresh rate in Hz, rounded, from its clock and timings where
 * the driver left vrefresh 0. */
uint32_t drm_mode_hz(const drmModeModeInfo *m);
/* The modes as "1280x800@75 (preferred), 1024x768@60, ..." for an error
 * message, cut to len. */
void drm_describe_modes(const drmModeModeInfo *modes, int n, char *buf,
			size_t len);

/* The buffers' format from a primary plane's list: XRGB8888, else
 * RGB565; an empty list (no plane information) counts as XRGB8888. The
 * DRM fourcc, or 0 when the plane takes neither. */
uint32_t drm_choose_format(const uint32_t *formats, int n);
/* A fourcc drm_choose_format returns, as a pixfmt. 0 or -ENOTSUP. */
int drm_format_pixfmt(uint32_t fourcc, struct pixfmt *f);

/* DRM's rotation bit for a clockwise turn of the picture by quarter
 * turns (0-3): DRM_MODE_ROTATE_N turns the plane N degrees counter-
 * clockwise (drm_blend.c's "rotate-<degrees>"), so a clockwise quarter
 * is ROTATE_270. */
uint64_t drm_rotation_bit(unsigned turn);
/* The quarter turns (0-3) the plane gives for a wanted clockwise turn:
 * all of it when the plane has a rotation property (has) offering
 * that bit (offered: DRM_MODE_ROTATE_* bits), else 0 (the blitter turns
 * the picture). */
unsigned drm_choose_turn(bool has, uint64_t offered, unsigned want);

#endif
