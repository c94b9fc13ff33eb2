/* The DRM/KMS output's card: finding and opening it, the connector, mode,
 * CRTC and plane format it is driven with, its dumb buffers, a CRTC's state
 * kept to put back (drm_restore.h), and the checks before a run. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <drm_fourcc.h>
#include <xf86drm.h>
#include <xf86drmMode.h>

#include "drm.h"
#include "drm_priv.h"
#include "fbdev.h"
#include "util/log.h"
#include "output/output.h"

/* Cards tried when no device is named: /dev/dri/card0..card15. */
#define MAX_CARDS 16

/* What the default card search and the checks say when there is none. */
#define NO_CARD                                                                \
	"no DRM card (/dev/dri/card*): is a KMS driver loaded? -o fbdev uses " \
	"a framebuffer device"

void drm_fail(struct output *out, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(out->why, sizeof(out->why), fmt, ap);
	va_end(ap);
	if (out->trial)
		log_debug("%s", out->why);
	else
		log_error("%s", out->why);
}

void drm_buf_destroy(struct drm_priv *p, struct drm_buf *b)
{
	struct drm_mode_destroy_dumb d = {.handle = b->handle};

	if (b->map)
		munmap(b->map, b->size);
	if (b->fb)
		drmModeRmFB(p->fd, b->fb);
	if (b->handle)
		drmIoctl(p->fd, DRM_IOCTL_MODE_DESTROY_DUMB, &d);
	memset(b, 0, sizeof(*b));
}

int drm_buf_create(struct output *out, struct drm_priv *p, struct drm_buf *b)
{
	struct drm_mode_create_dumb c = {
	    .width = p->mode.hdisplay,
	    .height = p->mode.vdisplay,
	    .bpp = p->fourcc == DRM_FORMAT_RGB565 ? 16 : 32,
	};
	struct drm_mode_map_dumb m = {0};
	uint32_t handles[4] = {0}, pitches[4] = {0}, offsets[4] = {0};
	int err;

	if (drmIoctl(p->fd, DRM_IOCTL_MODE_CREATE_DUMB, &c) < 0) {
		err = errno;
		drm_fail(out,
			 "ioctl DRM_IOCTL_MODE_CREATE_DUMB (%ux%u, %u bpp) on "
			 "%s: %s",
			 c.width, c.height, c.bpp, p->path, strerror(err));
		return -err;
	}
	b->handle = c.handle;
	b->size = (size_t)c.size;
	if (p->pitch && c.pitch != p->pitch) {
		drm_fail(out,
			 "%s: the dumb buffers came with different pitches "
			 "(%u, %u bytes)",
			 p->path, p->pitch, c.pitch);
		return -EINVAL;
	}
	p->pitch = c.pitch;
	handles[0] = c.handle;
	pitches[0] = c.pitch;
	if (drmModeAddFB2(p->fd, c.width, c.height, p->fourcc, handles, pitches,
			  offsets, &b->fb, 0) < 0) {
		err = errno;
		b->fb = 0;
		drm_fail(out, "drmModeAddFB2 (%ux%u %.4s) on %s: %s", c.width,
			 c.height, (const char *)&p->fourcc, p->path,
			 strerror(err));
		return -err;
	}
	m.handle = c.handle;
	if (drmIoctl(p->fd, DRM_IOCTL_MODE_MAP_DUMB, &m) < 0) {
		err = errno;
		drm_fail(out, "ioctl DRM_IOCTL_MODE_MAP_DUMB on %s: %s",
			 p->path, strerror(err));
		return -err;
	}
	b->map = mmap(NULL, b->size, PROT_READ | PROT_WRITE, MAP_SHARED, p->fd,
		      (off_t)m.offset);
	if (b->map == MAP_FAILED) {
		err = errno;
		b->map = NULL;
		drm_fail(out, "mmap of a dumb buffer of %s (%zu bytes): %s",
			 p->path, b->size, strerror(err));
		return -err;
	}
	/* Black until the first pass: never what the buffer held before. */
	memset(b->map, 0, b->size);
	b->age = OUTPUT_BUF_UNKNOWN;
	return 0;
}

/* The buffers, on any head. */
static void drop_buffers(struct drm_priv *p)
{
	int i;

	for (i = 0; i < 2; i++)
		drm_buf_destroy(p, &p->buf[i]);
	p->nbuf = 0;
	p->pitch = 0;
}

void drm_card_close(struct drm_priv *p)
{
	drop_buffers(p);
	p->plane_id = p->fb_prop = 0;
	p->atomic = false;
	if (p->fd >= 0)
		close(p->fd);
	p->fd = -1;
}

/* The connectors of res, for the choice; conns[i] stays open. */
static int list_connectors(struct output *out, struct drm_priv *p,
			   drmModeRes *res, drmModeConnector **conns,
			   struct drm_conn_info *info, char *names, size_t nlen)
{
	int i, n = drm_read_connectors(p->fd, res, conns, info);
	size_t used = 0;

	names[0] = '\0';
	for (i = 0; i < n; i++) {
		if (used + 1 < nlen)
			used += (size_t)snprintf(
			    names + used, nlen - used, "%s%s %s",
			    used ? ", " : "", info[i].name,
			    info[i].connected ? "connected" : "disconnected");
		if (used >= nlen)
			used = nlen - 1;
	}
	return n;
}

/* The pixel format the CRTC's primary plane takes (drm_choose_format). */
static uint32_t pick_format(struct drm_priv *p, drmModeRes *res)
{
	drmModePlaneRes *pr;
	uint32_t fourcc = DRM_FORMAT_XRGB8888, i, k;
	int index = -1;

	for (k = 0; k < (uint32_t)res->count_crtcs; k++)
		if (res->crtcs[k] == p->crtc_id)
			index = (int)k;
	pr = index >= 0 ? drmModeGetPlaneResources(p->fd) : NULL;
	for (i = 0; pr && i < pr->count_planes; i++) {
		drmModePlane *pl = drmModeGetPlane(p->fd, pr->planes[i]);
		drmModeObjectProperties *props;
		uint32_t fb_prop = 0;
		bool primary = false;

		if (!pl)
			continue;
		props = drmModeObjectGetProperties(p->fd, pl->plane_id,
						   DRM_MODE_OBJECT_PLANE);
		for (k = 0; props && k < props->count_props; k++) {
			drmModePropertyRes *pp =
			    drmModeGetProperty(p->fd, props->props[k]);

			if (pp && !strcmp(pp->name, "type"))
				primary = props->prop_values[k] ==
					  DRM_PLANE_TYPE_PRIMARY;
			if (pp && !strcmp(pp->name, "FB_ID"))
				fb_prop = pp->prop_id;
			drmModeFreeProperty(pp);
		}
		drmModeFreeObjectProperties(props);
		if (primary && (pl->possible_crtcs & (1u << index)) &&
		    !p->plane_id) {
			fourcc = drm_choose_format(pl->formats,
						   (int)pl->count_formats);
			p->plane_id = pl->plane_id;
			p->fb_prop = fb_prop;
		}
		drmModeFreePlane(pl);
	}
	drmModeFreePlaneResources(pr);
	return fourcc;
}

int drm_card_keep_crtc(const struct drm_priv *p, struct drm_restore *r)
{
	struct drm_mode_crtc c = {.crtc_id = p->crtc_id};
	uint32_t conns[DRM_RESTORE_CONNS], k = 0;
	drmModeRes *res = NULL;
	drmModeCrtc *cr;
	int i, ret;

	if (drm_restore_find(r, p->crtc_id))
		return 0;
	cr = drmModeGetCrtc(p->fd, p->crtc_id);
	if (!cr) {
		ret = -errno;
		log_warn("drmModeGetCrtc on %s: %s: the display is not put "
			 "back as it was on exit",
			 p->path, strerror(-ret));
		return ret;
	}
	c.fb_id = cr->buffer_id;
	c.x = cr->x;
	c.y = cr->y;
	c.mode_valid = cr->mode_valid;
	memcpy(&c.mode, &cr->mode, sizeof(c.mode));
	drmModeFreeCrtc(cr);
	/* The connectors it shows on; an unlit CRTC is put back with none
	 * (off). The current state, without a probe of the connectors. */
	if (c.fb_id)
		res = drmModeGetResources(p->fd);
	for (i = 0; res && i < res->count_connectors && k < DRM_RESTORE_CONNS;
	     i++) {
		drmModeConnector *cn =
		    drmModeGetConnectorCurrent(p->fd, res->connectors[i]);
		drmModeEncoder *e =
		    cn && cn->encoder_id
			? drmModeGetEncoder(p->fd, cn->encoder_id)
			: NULL;

		if (e && e->crtc_id == p->crtc_id)
			conns[k++] = cn->connector_id;
		drmModeFreeEncoder(e);
		drmModeFreeConnector(cn);
	}
	drmModeFreeResources(res);
	ret = drm_restore_keep(r, &c, conns, k);
	if (ret < 0)
		log_warn("%s: CRTC %u: %s: the display is not put back as it "
			 "was on exit",
			 p->path, p->crtc_id, strerror(-ret));
	return ret;
}

/* We must be the card's master to set modes; a compositor or X server
 * may be. */
static int take_master(struct output *out, struct drm_priv *p)
{
	if (drmIsMaster(p->fd) || drmSetMaster(p->fd) == 0)
		return 0;
	drm_fail(out,
		 "%s: another program is the DRM master (a compositor or X "
		 "server?): stop it, or start vncfb on a VT of its own",
		 p->path);
	return -EBUSY;
}

/* Open a card and read its KMS resources: the fd, with *res to free, or
 * -errno with why saying what is wrong (one line, not logged). Nothing
 * on the screen changes and no DRM master is needed. */
static int open_kms(const char *path, drmModeRes **res, char *why, size_t len)
{
	/* Non-blocking: the heads of one card share the fd, and each
	 * head's thread reads its flip events after a poll, which another
	 * thread's read may have emptied meanwhile (wait_flip). */
	int fd = open(path, O_RDWR | O_CLOEXEC | O_NONBLOCK), ret;

	if (fd < 0) {
		ret = -errno;
		devnode_open_error(path, errno, "DRM device",
				   "is a KMS driver loaded? -o drm:DEVICE "
				   "picks another card",
				   why, len);
		return ret;
	}
	*res = drmModeGetResources(fd);
	if (!*res) {
		snprintf(why, len,
			 "%s: not a KMS display device (drmModeGetResources: "
			 "%s)",
			 path, strerror(errno));
		close(fd);
		return -ENODEV;
	}
	return fd;
}

/* The buffers of n (1 or 2, as s asks) of p->mode's size. 0 or -errno
 * (said). */
static int make_buffers(struct output *out, struct drm_priv *p,
			const struct drm_spec *s)
{
	int ret = drm_buf_create(out, p, &p->buf[0]);

	if (ret < 0)
		return ret;
	p->nbuf = 1;
	if (s->buffers != 1) {
		/* Short of video memory, one buffer still shows the picture
		 * (DIRTYFB). */
		char why[sizeof(out->why)];
		bool trial = out->trial;

		memcpy(why, out->why, sizeof(why));
		out->trial = true;
		if (drm_buf_create(out, p, &p->buf[1]) == 0)
			p->nbuf = 2;
		else
			drm_buf_destroy(p, &p->buf[1]);
		out->trial = trial;
		memcpy(out->why, why, sizeof(why));
	}
	return 0;
}

/* No display on the card yet: master (so that the hot-plug path can set
 * a mode), and buffers nobody sees for the probe and the blitter until
 * drm_reconfigure finds a display. No CRTC is chosen, none saved. */
static int wait_for_display(struct output *out, struct drm_priv *p,
			    const struct drm_spec *s)
{
	const struct drm_mode_want *want;
	int ret = take_master(out, p);

	if (ret < 0)
		return ret;
	p->conn_id = p->crtc_id = 0;
	snprintf(p->conn_name, sizeof(p->conn_name), "%s",
		 s->connector[0] ? s->connector : "no display");
	/* Every primary plane takes XRGB8888 (a display plugged in later
	 * whose plane does not gets "no mode" from the reconfigure). */
	p->fourcc = DRM_FORMAT_XRGB8888;
	memset(&p->mode, 0, sizeof(p->mode));
	want = drm_spec_mode(s, s->connector);
	p->mode.hdisplay = want->width ? (uint16_t)want->width : DRM_WAIT_WIDTH;
	p->mode.vdisplay =
	    want->height ? (uint16_t)want->height : DRM_WAIT_HEIGHT;
	p->has_display = false;
	return make_buffers(out, p, s);
}

/* Everything up to the buffers for connector conns[ci] on the open
 * card: mode, CRTC (none of taken), format, buffers.
 * first: another head of the same desktop was set up before (its master,
 * atomic cap and format are this one's); NULL for the first. 0 or -errno
 * (said). */
static int setup_head(struct output *out, struct drm_priv *p, drmModeRes *res,
		      drmModeConnector **conns,
		      const struct drm_conn_info *info, int ci,
		      const struct drm_spec *s, const uint32_t *taken,
		      int ntaken, const struct drm_priv *first)
{
	const struct drm_mode_want *want = drm_spec_mode(s, info[ci].name);
	const char *path = p->path;
	char modes[192];
	drmModeConnector *c;
	int mi, ret;

	c = conns[ci];
	snprintf(p->conn_name, sizeof(p->conn_name), "%s", info[ci].name);
	p->conn_id = c->connector_id;
	mi = drm_choose_mode(c->modes, c->count_modes, want);
	if (mi < 0) {
		drm_describe_modes(c->modes, c->count_modes, modes,
				   sizeof(modes));
		if (want->hz)
			drm_fail(out,
				 "%s: %s has no mode %ux%u@%u (it has %s): "
				 "--mode picks one of these",
				 path, p->conn_name, want->width, want->height,
				 want->hz, modes);
		else
			drm_fail(out,
				 "%s: %s has no mode %ux%u (it has %s): "
				 "--mode picks one of these",
				 path, p->conn_name, want->width, want->height,
				 modes);
		return -EINVAL;
	}
	p->mode = c->modes[mi];
	p->crtc_id = drm_pick_crtc(p->fd, res, c, 0, true, taken, ntaken);
	if (!p->crtc_id) {
		drm_fail(out, "%s: no display controller (CRTC) is free for %s",
			 path, p->conn_name);
		return -EBUSY;
	}
	p->fourcc = pick_format(p, res);
	if (!p->fourcc) {
		drm_fail(out,
			 "%s: the display plane of %s takes neither XRGB8888 "
			 "nor RGB565",
			 path, p->conn_name);
		return -ENOTSUP;
	}
	if (!first) {
		ret = take_master(out, p);
		if (ret < 0)
			return ret;
		/* Legacy ioctls keep working with the atomic cap set. */
		p->atomic =
		    p->plane_id && p->fb_prop &&
		    drmSetClientCap(p->fd, DRM_CLIENT_CAP_ATOMIC, 1) == 0;
	} else if (p->fourcc != first->fourcc) {
		drm_fail(out,
			 "%s: %s takes another pixel format (%.4s) than %s "
			 "(%.4s): one desktop needs one",
			 path, p->conn_name, (const char *)&p->fourcc,
			 first->conn_name, (const char *)&first->fourcc);
		return -ENOTSUP;
	} else {
		p->atomic = p->plane_id && p->fb_prop && first->atomic;
	}
	return make_buffers(out, p, s);
}

/* Everything up to the buffers, on one card; with wait, a card with no
 * display connected is opened to wait for one (p->has_display false).
 * 0 or -errno (said): -ENXIO for no display. */
static int open_card(struct output *out, struct drm_priv *p, const char *path,
		     const struct drm_spec *s, bool wait)
{
	drmModeConnector *conns[DRM_MAX_CONNECTORS];
	struct drm_conn_info info[DRM_MAX_CONNECTORS];
	char names[192], msg[sizeof(out->why)];
	drmModeRes *res = NULL;
	uint64_t cap = 0;
	int i, n = 0, ci, ret;

	snprintf(p->path, sizeof(p->path), "%s", path);
	ret = open_kms(path, &res, msg, sizeof(msg));
	if (ret < 0) {
		drm_fail(out, "%s", msg);
		return ret;
	}
	p->fd = ret;
	if (drmGetCap(p->fd, DRM_CAP_DUMB_BUFFER, &cap) < 0 || !cap) {
		drm_fail(out, "%s: the driver has no dumb buffers", path);
		ret = -ENODEV;
		goto out;
	}
	cap = 0;
	p->monotonic =
	    drmGetCap(p->fd, DRM_CAP_TIMESTAMP_MONOTONIC, &cap) == 0 && cap;
	/* The primary plane's format list; without it XRGB8888. */
	drmSetClientCap(p->fd, DRM_CLIENT_CAP_UNIVERSAL_PLANES, 1);
	n = list_connectors(out, p, res, conns, info, names, sizeof(names));
	ci = drm_choose_connector(info, n, s->connector);
	if (ci == -ENOENT) {
		drm_fail(out,
			 "%s: no connector %s (%s): --connector names one of "
			 "these",
			 path, s->connector, n ? names : "none");
		ret = -ENODEV;
		goto out;
	}
	/* A mode for a connector the card does not have is a typo, not a
	 * display still to come. */
	i = drm_unknown_mode_name(info, n, s);
	if (i >= 0) {
		drm_fail(out,
			 "%s: no connector %s (%s): --mode NAME:WIDTHxHEIGHT "
			 "names one of these",
			 path, s->named[i].name, n ? names : "none");
		ret = -ENODEV;
		goto out;
	}
	if (ci < 0 && wait) {
		/* In why while waiting: what for (output.h). */
		if (s->connector[0])
			snprintf(out->why, sizeof(out->why),
				 "connector %s has no display connected (%s): "
				 "waiting for one",
				 s->connector, names);
		else
			snprintf(out->why, sizeof(out->why),
				 "no display connected (%s): waiting for one",
				 n ? names : "no connectors");
		log_info("%s: %s", path, out->why);
		ret = wait_for_display(out, p, s);
		goto out;
	}
	if (ci < 0 && s->connector[0]) {
		drm_fail(out, "%s: connector %s has no display connected (%s)",
			 path, s->connector, names);
		ret = -ENXIO;
		goto out;
	}
	if (ci < 0) {
		drm_fail(out, "%s: no display connected (%s): plug one in",
			 path, n ? names : "no connectors");
		ret = -ENXIO;
		goto out;
	}
	ret = setup_head(out, p, res, conns, info, ci, s, NULL, 0, NULL);
	if (ret < 0)
		goto out;
	p->has_display = true;
out:
	for (i = 0; i < n; i++)
		drmModeFreeConnector(conns[i]);
	drmModeFreeResources(res);
	if (ret < 0)
		drm_card_close(p);
	return ret;
}

/* How far a card got: a failure further on is the one worth reporting
 * (a card with no display got further than one that is not KMS). */
static int rank(int err)
{
	return err == -ENOENT ? 0 : err == -ENODEV ? 1 : err == -ENXIO ? 2 : 3;
}

/* No card named: the first of /dev/dri/card0..15 with a display. */
static int open_first_card(struct output *out, struct drm_priv *p,
			   const struct drm_spec *s)
{
	char best[sizeof(out->why)] = "", path[32], best_path[32] = "";
	int i, ret, best_ret = -ENOENT;
	bool any = false;

	for (i = 0; i < MAX_CARDS; i++) {
		bool trial = out->trial;

		snprintf(path, sizeof(path), "/dev/dri/card%d", i);
		if (access(path, F_OK) < 0)
			continue;
		any = true;
		/* Each card only tried: the best reason is told at the
		 * end. */
		out->trial = true;
		ret = open_card(out, p, path, s, false);
		out->trial = trial;
		if (ret == 0)
			return 0;
		if (!best[0] || rank(ret) > rank(best_ret)) {
			memcpy(best, out->why, sizeof(best));
			memcpy(best_path, path, sizeof(best_path));
			best_ret = ret;
		}
	}
	if (!any) {
		drm_fail(out, "%s", NO_CARD);
		return -ENOENT;
	}
	/* No card has a display: the first that got that far waits. */
	if (best_ret == -ENXIO && out->may_wait)
		return open_card(out, p, best_path, s, true);
	/* Each card said why already (at debug level). */
	if (out->trial)
		memcpy(out->why, best, sizeof(best));
	else
		log_error("%s", best);
	return best_ret;
}

int drm_card_open(struct output *out, struct drm_priv *p,
		  const struct drm_spec *s)
{
	return s->device[0] ? open_card(out, p, s->device, s, out->may_wait)
			    : open_first_card(out, p, s);
}

int drm_card_more_heads(const struct drm_priv *first, const struct drm_spec *s,
			char (*names)[32], drmModeModeInfo *modes)
{
	drmModeConnector *conns[DRM_MAX_CONNECTORS];
	struct drm_conn_info info[DRM_MAX_CONNECTORS];
	int idx[DRM_MAX_HEADS], i, n, k = 0, got, bad = 0;
	drmModeRes *res;

	if (!s->all) {
		for (i = 1; i < s->nheads; i++)
			memcpy(names[k++], s->heads[i], sizeof(names[0]));
		if (!modes)
			return k;
	}
	res = drmModeGetResources(first->fd);
	if (!res) {
		log_error("drmModeGetResources on %s: %s", first->path,
			  strerror(errno));
		return -errno;
	}
	n = drm_read_connectors(first->fd, res, conns, info);
	if (s->all) {
		got = drm_choose_heads(info, n, s, idx, &bad);
		for (i = 0; i < got; i++)
			if (strcasecmp(info[idx[i]].name, first->conn_name))
				snprintf(names[k++], sizeof(names[0]), "%s",
					 info[idx[i]].name);
	}
	for (i = 0; modes && i < k; i++) {
		int ci = drm_choose_connector(info, n, names[i]), mi = -1;

		if (ci >= 0)
			mi = drm_choose_mode(conns[ci]->modes,
					     conns[ci]->count_modes,
					     drm_spec_mode(s, names[i]));
		memset(&modes[i], 0, sizeof(modes[i]));
		if (mi >= 0)
			modes[i] = conns[ci]->modes[mi];
	}
	for (i = 0; i < n; i++)
		drmModeFreeConnector(conns[i]);
	drmModeFreeResources(res);
	return k;
}

int drm_card_open_head(struct output *out, struct drm_priv *p,
		       const struct drm_priv *first, const char *name,
		       const struct drm_spec *s, const uint32_t *taken,
		       int ntaken)
{
	drmModeConnector *conns[DRM_MAX_CONNECTORS];
	struct drm_conn_info info[DRM_MAX_CONNECTORS];
	char names[192];
	drmModeRes *res;
	int i, n, ci, ret;

	p->fd = first->fd;
	p->restore = first->restore;
	p->extra = true;
	p->monotonic = first->monotonic;
	snprintf(p->path, sizeof(p->path), "%s", first->path);
	res = drmModeGetResources(p->fd);
	if (!res) {
		ret = -errno;
		drm_fail(out, "drmModeGetResources on %s: %s", p->path,
			 strerror(errno));
		return ret;
	}
	n = list_connectors(out, p, res, conns, info, names, sizeof(names));
	ci = drm_choose_connector(info, n, name);
	if (ci < 0) {
		drm_fail(out,
			 ci == -ENOENT
			     ? "%s: no connector %s (%s): --connector names "
			       "one of these"
			     : "%s: connector %s has no display connected (%s)",
			 p->path, name, names);
		ret = -ENODEV;
	} else {
		ret = setup_head(out, p, res, conns, info, ci, s, taken, ntaken,
				 first);
	}
	for (i = 0; i < n; i++)
		drmModeFreeConnector(conns[i]);
	drmModeFreeResources(res);
	if (ret < 0)
		drm_card_close_head(p);
	return ret;
}

void drm_card_close_head(struct drm_priv *p)
{
	drop_buffers(p);
	/* The fd and the restore list are the first head's. */
	p->fd = -1;
	p->restore = NULL;
}

int drm_detect(char *why, size_t len)
{
	DIR *d = opendir("/dev/dri");
	struct dirent *e;
	bool any = false;

	while (d && !any && (e = readdir(d)))
		any = !strncmp(e->d_name, "card", 4);
	if (d)
		closedir(d);
	if (any)
		return 0;
	snprintf(why, len, "no /dev/dri/card*");
	return -ENOENT;
}

int drm_check_arg(const char *arg, char *why, size_t len)
{
	struct drm_spec s;

	return drm_spec_parse(arg, &s, why, len);
}

/* Opening the card and asking for its resources changes nothing on the
 * screen and needs no DRM master. */
int drm_check(const char *arg)
{
	struct drm_spec s;
	char why[256];
	drmModeRes *res;
	int ret;

	if (drm_spec_parse(arg, &s, why, sizeof(why)) < 0) {
		log_error("bad drm output '%s': %s", arg, why);
		return -EINVAL;
	}
	if (!s.device[0]) {
		ret = drm_detect(why, sizeof(why));
		if (ret < 0)
			log_error("%s", NO_CARD);
		return ret;
	}
	ret = open_kms(s.device, &res, why, sizeof(why));
	if (ret < 0) {
		log_error("%s", why);
		return ret;
	}
	drmModeFreeResources(res);
	close(ret);
	return 0;
}
