/* The DRM/KMS output's decisions kept apart from the ioctls, so they are
 * unit-tested without a device: the spec's grammar, connector names, which
 * connector, mode and pixel format to use.
 *
 * Threads: pure functions, any thread. */
#ifndef VNCFB_FBDEV_DRM_H
#define VNCFB_FBDEV_DRM_H

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

/* What "drm:ITEM,ITEM,..." asks for: items are a device path and
 * connector=NAME[+NAME...], all (every connected connector),
 * mode=MODE[ MODE...] (below), buffers=1|2, in any order. */
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
/* The mode s asks for on connector name (any case): its own item, else
 * the one for every head (width 0: the preferred mode). name NULL or
 * "": the latter. */
const struct drm_mode_want *drm_spec_mode(const struct drm_spec *s,
					  const char *name);

/* The kernel's name of a connector: type and number, "HDMI-A-1". */
void drm_connector_name(uint32_t type, uint32_t type_id, char *buf, size_t len);

/* One connector of a card, as the choice sees it. */
struct drm_conn_info {
	char name[32];
	bool connected;
	int nmodes;
};

/* The connector to drive: the one named want (any case; NULL or "": the
 * first connected one with modes). Its index, or -ENOENT (no connector of
 * that name), -ENODEV (not connected, or none is). */
int drm_choose_connector(const struct drm_conn_info *c, int n,
			 const char *want);

/* The heads of a spec that asks for several (all, or connector=A+B):
 * their indexes in c, in the order named (all: c's order), into idx.
 * Returns how many (1..DRM_MAX_HEADS), or -ENOENT (a name no connector
 * has: *bad its index in s->heads), -ENODEV (a named one not connected:
 * *bad as well; or with all, none is). Every one is connected with
 * modes. */
int drm_choose_heads(const struct drm_conn_info *c, int n,
		     const struct drm_spec *s, int *idx, int *bad);
/* Whether every connector s gives a mode of (mode=NAME:...) is one of
 * c's: -1, else the index in s->named of the first that is not. */
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

#endif
