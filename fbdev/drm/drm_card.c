/* The DRM/KMS output's card: finding and opening it, the connector, mode,
 * CRTC and plane format it is driven with, its dumb buffers, a CRTC's state
 * kept to put back (drm_restore.h), and the checks before a run. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
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
#include "output/rotate.h"

/* Cards tried when no device is named: /dev/dri/card0..card15. */
#define MAX_CARDS DRM_MAX_CARDS

/* A reason, as out->why holds it. */
#define WHY_LEN sizeof(((struct output *)0)->why)

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
	    .bpp = p->fourcc == DRM_FORMAT_RGB565 ? 16 : 32,
	};
	struct drm_mode_map_dumb m = {0};
	uint32_t handles[4] = {0}, pitches[4] = {0}, offsets[4] = {0};
	int err;

	drm_fb_size(p, &c.width, &c.height);
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

/* Close card c (its fd; the master goes with it). */
static void card_close(struct drm_card *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
}

void drm_card_close(struct drm_priv *p)
{
	int k;

	drop_buffers(p);
	p->plane_id = p->fb_prop = 0;
	p->atomic = false;
	for (k = 0; k < p->ncards; k++)
		card_close(&p->cards[k]);
	p->ncards = 0;
	p->fd = -1;
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
		uint32_t fb_prop = 0, rot_prop = 0;
		uint64_t rot_offered = 0, rot_was = 0;
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
			if (pp && !strcmp(pp->name, "rotation") &&
			    drm_property_type_is(pp, DRM_MODE_PROP_BITMASK)) {
				int e;

				rot_prop = pp->prop_id;
				rot_was = props->prop_values[k];
				/* A bitmask's enums are bit numbers. */
				for (e = 0; e < pp->count_enums; e++)
					if (pp->enums[e].value < 64)
						rot_offered |=
							1ull << pp->enums[e].value;
			}
			drmModeFreeProperty(pp);
		}
		drmModeFreeObjectProperties(props);
		if (primary && (pl->possible_crtcs & (1u << index)) &&
		    !p->plane_id) {
			fourcc = drm_choose_format(pl->formats,
						   (int)pl->count_formats);
			p->plane_id = pl->plane_id;
			p->fb_prop = fb_prop;
			p->rot_prop = rot_prop;
			p->rot_offered = rot_offered;
			p->rot_was = rot_was;
		}
		drmModeFreePlane(pl);
	}
	drmModeFreePlaneResources(pr);
	return fourcc;
}

void drm_card_find_plane(struct drm_priv *p)
{
	drmModeRes *res = drmModeGetResources(p->fd);

	p->plane_id = p->fb_prop = p->rot_prop = 0;
	p->atomic = false;
	if (!res)
		return;
	/* Its format stays the one the head was opened with. */
	(void)pick_format(p, res);
	drmModeFreeResources(res);
	p->atomic = p->plane_id && p->fb_prop && drm_head_card(p)->atomic;
}

void drm_card_pick_turn(struct drm_priv *p)
{
	enum rotation rot;
	char why[160];

	p->turn = 0;
	if (rotate_lookup(output_wanted_rotation(), p->conn_name, &rot, why,
			  sizeof(why)) < 0 ||
	    rot == ROT_0)
		return;
	p->turn = drm_choose_turn(p->rot_prop != 0, p->rot_offered,
				  (unsigned)rot);
	if (p->turn)
		return;
	log_debug("%s: %s: the display plane %s %u degrees: the blitter "
		  "turns the picture",
		  p->path, p->conn_name,
		  p->rot_prop ? "does not turn" : "has no rotation, not",
		  rotate_degrees(rot));
}

int drm_card_keep_crtc(const struct drm_priv *p, struct drm_restore *r)
{
	struct drm_mode_crtc c = {.crtc_id = p->crtc_id};
	uint32_t conns[DRM_RESTORE_CONNS], k = 0;
	drmModeRes *res = NULL;
	drmModeCrtc *cr;
	int i, ret;

	if (drm_restore_find(r, p->fd, p->crtc_id))
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
	ret = drm_restore_keep(r, p->fd, &c, conns, k);
	/* A turned plane is put straight first: the old buffer fits the
	 * mode upright. */
	if (ret == 0 && p->rot_prop)
		drm_restore_keep_rotation(r, p->fd, p->crtc_id, p->plane_id,
					  p->rot_prop, p->rot_was);
	if (ret < 0)
		log_warn("%s: CRTC %u: %s: the display is not put back as it "
			 "was on exit",
			 p->path, p->crtc_id, strerror(-ret));
	return ret;
}

/* We must be the card's master to set modes; a compositor or X server
 * may be. */
static int take_master(struct output *out, const struct drm_card *c)
{
	if (drmIsMaster(c->fd) || drmSetMaster(c->fd) == 0)
		return 0;
	drm_fail(out,
		 "%s: another program is the DRM master (a compositor or X "
		 "server?): stop it, or start vncfb on a VT of its own",
		 c->path);
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

/* Open card path into c: KMS, with dumb buffers; its caps read, no
 * master yet. 0, or -errno with why saying what is wrong (one line, not
 * logged). */
static int card_open(struct drm_card *c, const char *path, char *why,
		     size_t len)
{
	char real[PATH_MAX];
	const char *base;
	drmModeRes *res;
	uint64_t cap = 0;
	int fd = open_kms(path, &res, why, len);

	if (fd < 0)
		return fd;
	drmModeFreeResources(res);
	if (drmGetCap(fd, DRM_CAP_DUMB_BUFFER, &cap) < 0 || !cap) {
		snprintf(why, len, "%s: the driver has no dumb buffers", path);
		close(fd);
		return -ENODEV;
	}
	cap = 0;
	c->monotonic =
	    drmGetCap(fd, DRM_CAP_TIMESTAMP_MONOTONIC, &cap) == 0 && cap;
	/* The primary plane's format list; without it XRGB8888. */
	drmSetClientCap(fd, DRM_CLIENT_CAP_UNIVERSAL_PLANES, 1);
	/* Flips as atomic commits where the driver is atomic. Set before
	 * the planes are read: their FB_ID property is shown only to a
	 * client with this cap. Legacy ioctls keep working with it. */
	c->atomic = drmSetClientCap(fd, DRM_CLIENT_CAP_ATOMIC, 1) == 0;
	c->fd = fd;
	snprintf(c->path, sizeof(c->path), "%s", path);
	/* Its name, what qualifies a connector's ("card1:HDMI-A-1"): the
	 * device node's, also when path is a link to it
	 * (/dev/dri/by-path/...). */
	base = realpath(path, real) ? real : path;
	base = strrchr(base, '/') ? strrchr(base, '/') + 1 : base;
	snprintf(c->name, sizeof(c->name), "%.15s", base);
	return 0;
}

/* Head p is on card k of first's cards from now on (first may be p). */
static void use_card(struct drm_priv *p, struct drm_priv *first, int k)
{
	const struct drm_card *c = &first->cards[k];

	p->card = k;
	p->fd = c->fd;
	p->monotonic = c->monotonic;
	snprintf(p->path, sizeof(p->path), "%s", c->path);
}

/* Where a choice among cards[0..n) looked, for a message: the path, or
 * the paths. */
static void describe_cards(const struct drm_card *cards, int n, char *buf,
			   size_t len)
{
	size_t used = 0;
	int k;

	buf[0] = '\0';
	for (k = 0; k < n && used + 1 < len; k++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s",
					 k ? ", " : "", cards[k].path);
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
	int ret = take_master(out, drm_head_card(p));

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

/* Everything up to the buffers for connector ci of sc: its card, mode,
 * CRTC (none of taken, the other heads' on that card), format, buffers.
 * first: another head of the same desktop was set up before (its format
 * is this one's; the cards are its); NULL for the first (p's cards).
 * 0 or -errno (said). */
static int setup_head(struct output *out, struct drm_priv *p,
		      const struct drm_scan *sc, int ci,
		      const struct drm_spec *s, const uint32_t *taken,
		      int ntaken, struct drm_priv *first)
{
	struct drm_priv *owner = first ? first : p;
	struct drm_card *card = &owner->cards[sc->card[ci]];
	const struct drm_mode_want *want;
	drmModeConnector *c = sc->conns[ci];
	char modes[192], full[48];
	int mi, ret;

	use_card(p, owner, sc->card[ci]);
	drm_head_name(sc->info, sc->n, ci, p->conn_name, sizeof(p->conn_name));
	drm_full_name(&sc->info[ci], full, sizeof(full));
	want = drm_spec_mode(s, full);
	p->conn_id = c->connector_id;
	mi = drm_choose_mode(c->modes, c->count_modes, want);
	if (mi < 0) {
		drm_describe_modes(c->modes, c->count_modes, modes,
				   sizeof(modes));
		if (want->hz)
			drm_fail(out,
				 "%s: %s has no mode %ux%u@%u (it has %s): "
				 "--mode picks one of these",
				 p->path, p->conn_name, want->width,
				 want->height, want->hz, modes);
		else
			drm_fail(out,
				 "%s: %s has no mode %ux%u (it has %s): "
				 "--mode picks one of these",
				 p->path, p->conn_name, want->width,
				 want->height, modes);
		return -EINVAL;
	}
	p->mode = c->modes[mi];
	p->crtc_id = drm_pick_crtc(p->fd, sc->res[sc->card[ci]], c, 0, true,
				   taken, ntaken);
	if (!p->crtc_id) {
		drm_fail(out, "%s: no display controller (CRTC) is free for %s",
			 p->path, p->conn_name);
		return -EBUSY;
	}
	p->fourcc = pick_format(p, sc->res[sc->card[ci]]);
	if (!p->fourcc) {
		drm_fail(out,
			 "%s: the display plane of %s takes neither XRGB8888 "
			 "nor RGB565",
			 p->path, p->conn_name);
		return -ENOTSUP;
	}
	if (!first) {
		ret = take_master(out, card);
		if (ret < 0)
			return ret;
	} else if (p->fourcc != first->fourcc) {
		drm_fail(out,
			 "%s: %s takes another pixel format (%.4s) than %s "
			 "(%.4s): one desktop needs one",
			 p->path, p->conn_name, (const char *)&p->fourcc,
			 first->conn_name, (const char *)&first->fourcc);
		return -ENOTSUP;
	}
	p->atomic = p->plane_id && p->fb_prop && card->atomic;
	drm_card_pick_turn(p);
	return make_buffers(out, p, s);
}

/* The first head on p's cards, scanned into sc (where: the cards, for
 * messages): s's first connector, else the first connected one; with
 * wait and no display (the one named, or any), opened to wait for one
 * (p->has_display false). 0 or -errno (said): -ENXIO for no display. */
static int first_head(struct output *out, struct drm_priv *p,
		      const struct drm_scan *sc, const struct drm_spec *s,
		      bool wait, const char *where)
{
	char names[192];
	int i, ci, ret;

	drm_scan_describe(sc, names, sizeof(names));
	ci = drm_choose_connector(sc->info, sc->n, s->connector);
	if (ci == -ENOENT) {
		drm_fail(out,
			 "%s: no connector %s (%s): --connector names one of "
			 "these",
			 where, s->connector, sc->n ? names : "none");
		return -ENODEV;
	}
	if (ci == -ENOTUNIQ) {
		drm_fail(out,
			 "%s: connector %s is on several cards (%s): "
			 "--connector cardN:%s says which",
			 where, s->connector, names, s->connector);
		return -ENODEV;
	}
	/* A mode for a connector the cards do not have is a typo, not a
	 * display still to come. */
	i = drm_unknown_mode_name(sc->info, sc->n, s);
	if (i >= 0 && drm_find_connector(sc->info, sc->n, s->named[i].name) ==
			  -ENOTUNIQ) {
		drm_fail(out,
			 "%s: connector %s is on several cards (%s): --mode "
			 "cardN:%s:WIDTHxHEIGHT says which",
			 where, s->named[i].name, names, s->named[i].name);
		return -ENODEV;
	}
	if (i >= 0) {
		drm_fail(out,
			 "%s: no connector %s (%s): --mode NAME:WIDTHxHEIGHT "
			 "names one of these",
			 where, s->named[i].name, sc->n ? names : "none");
		return -ENODEV;
	}
	if (ci < 0 && wait) {
		/* In why while waiting: what for (output.h). */
		int n;

		if (s->connector[0])
			n = snprintf(out->why, sizeof(out->why),
				     "connector %s has no display connected "
				     "(%s): waiting for one",
				     s->connector, names);
		else
			n = snprintf(out->why, sizeof(out->why),
				     "no display connected (%s): waiting for "
				     "one",
				     sc->n ? names : "no connectors");
		/* Many connectors' names: say that the line was cut. */
		if (n >= (int)sizeof(out->why))
			memcpy(out->why + sizeof(out->why) - 4, "...", 4);
		log_info("%s: %s", where, out->why);
		/* On the named connector's card, else the first. */
		i = drm_find_connector(sc->info, sc->n, s->connector);
		use_card(p, p, i >= 0 ? sc->card[i] : 0);
		return wait_for_display(out, p, s);
	}
	if (ci < 0 && s->connector[0]) {
		drm_fail(out, "%s: connector %s has no display connected (%s)",
			 where, s->connector, names);
		return -ENXIO;
	}
	if (ci < 0) {
		drm_fail(out, "%s: no display connected (%s): plug one in",
			 where, sc->n ? names : "no connectors");
		return -ENXIO;
	}
	ret = setup_head(out, p, sc, ci, s, NULL, 0, NULL);
	if (ret < 0)
		return ret;
	p->has_display = true;
	return 0;
}

/* The first head on one card, path; with wait, a card with no display
 * connected is opened to wait for one (p->has_display false). 0 or
 * -errno (said): -ENXIO for no display. */
static int open_card(struct output *out, struct drm_priv *p, const char *path,
		     const struct drm_spec *s, bool wait)
{
	char msg[sizeof(out->why)];
	struct drm_scan sc;
	int ret;

	snprintf(p->path, sizeof(p->path), "%s", path);
	ret = card_open(&p->cards[0], path, msg, sizeof(msg));
	if (ret < 0) {
		drm_fail(out, "%s", msg);
		return ret;
	}
	p->ncards = 1;
	use_card(p, p, 0);
	ret = drm_scan_read(&sc, p->cards, 1);
	if (ret < 0)
		drm_fail(out, "drmModeGetResources on %s: %s", path,
			 strerror(-ret));
	else
		ret = first_head(out, p, &sc, s, wait, path);
	drm_scan_free(&sc);
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

/* An unnamed connector s names on more than one card is an error: say
 * so. -ENODEV when it is (said), else 0 (nothing said: a card that does
 * not open is the search's to report). */
static int one_card_has(struct output *out, const struct drm_spec *s)
{
	struct drm_card cards[MAX_CARDS];
	char path[32], msg[sizeof(out->why)], names[192];
	struct drm_scan sc;
	int i, n = 0, ret = 0;

	if (!s->connector[0] || strchr(s->connector, ':'))
		return 0;
	for (i = 0; i < MAX_CARDS; i++) {
		snprintf(path, sizeof(path), "/dev/dri/card%d", i);
		if (access(path, F_OK) == 0 &&
		    card_open(&cards[n], path, msg, sizeof(msg)) == 0)
			n++;
	}
	if (n > 1 && drm_scan_read(&sc, cards, n) == 0 &&
	    drm_find_connector(sc.info, sc.n, s->connector) == -ENOTUNIQ) {
		drm_scan_describe(&sc, names, sizeof(names));
		describe_cards(cards, n, msg, sizeof(msg));
		drm_fail(out,
			 "%s: connector %s is on several cards (%s): "
			 "--connector cardN:%s says which",
			 msg, s->connector, names, s->connector);
		ret = -ENODEV;
	}
	if (n > 1)
		drm_scan_free(&sc);
	for (i = 0; i < n; i++)
		card_close(&cards[i]);
	return ret;
}

/* No card named: the first of /dev/dri/card0..15 with a display. */
static int open_first_card(struct output *out, struct drm_priv *p,
			   const struct drm_spec *s)
{
	char best[sizeof(out->why)] = "", path[32], best_path[32] = "";
	int i, ret, best_ret = -ENOENT;
	bool any = false;

	ret = one_card_has(out, s);
	if (ret < 0)
		return ret;
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

/* Drop p's card k (left out): closed, the others moved down. */
static void drop_card(struct drm_priv *p, int k)
{
	card_close(&p->cards[k]);
	memmove(&p->cards[k], &p->cards[k + 1],
		(size_t)(p->ncards - k - 1) * sizeof(p->cards[0]));
	p->ncards--;
}

/* The cards of the connectors s names (connector=A+B): the others are
 * dropped. 0 or -errno (said: a name no card has, or several have; then
 * why the nleft cards in left would not open, which may be why). */
static int keep_named_cards(struct output *out, struct drm_priv *p,
			    const struct drm_spec *s, char (*left)[WHY_LEN],
			    int nleft)
{
	bool used[DRM_MAX_CARDS] = {false};
	char names[192], where[sizeof(out->why)];
	struct drm_scan sc;
	int i, k, ret = drm_scan_read(&sc, p->cards, p->ncards);

	describe_cards(p->cards, p->ncards, where, sizeof(where));
	if (ret < 0)
		drm_fail(out, "drmModeGetResources on %s: %s", where,
			 strerror(-ret));
	drm_scan_describe(&sc, names, sizeof(names));
	for (i = 0; ret == 0 && i < s->nheads; i++) {
		k = drm_find_connector(sc.info, sc.n, s->heads[i]);
		if (k >= 0) {
			used[sc.card[k]] = true;
			continue;
		}
		if (k == -ENOTUNIQ) {
			drm_fail(out,
				 "%s: connector %s is on several cards (%s): "
				 "--connector cardN:%s says which",
				 where, s->heads[i], names, s->heads[i]);
		} else {
			for (k = 0; k < nleft && !out->trial; k++)
				log_warn("%s", left[k]);
			drm_fail(out,
				 "%s: no connector %s (%s): --connector names "
				 "one of these",
				 where, s->heads[i], sc.n ? names : "none");
		}
		ret = -ENODEV;
	}
	drm_scan_free(&sc);
	for (k = p->ncards - 1; ret == 0 && k >= 0; k--)
		if (!used[k])
			drop_card(p, k);
	return ret;
}

/* A spec that spans cards (all, connector=A+B) with no device named:
 * every card that opens (one that does not is left out, with a warning);
 * with connector=, those of the connectors named; the master of each
 * (all: a card another program is the master of is left out, with a
 * warning; connector=: an error); then the first head on one of them. */
static int open_cards(struct output *out, struct drm_priv *p,
		      const struct drm_spec *s)
{
	char best[sizeof(out->why)] = "", path[32], where[sizeof(out->why)];
	char left[MAX_CARDS][WHY_LEN];
	struct drm_scan sc;
	int i, k, nleft = 0, ret, best_ret = -ENOENT;
	bool any = false;

	p->ncards = 0;
	for (i = 0; i < MAX_CARDS; i++) {
		snprintf(path, sizeof(path), "/dev/dri/card%d", i);
		if (access(path, F_OK) < 0)
			continue;
		any = true;
		ret = card_open(&p->cards[p->ncards], path, left[nleft],
				sizeof(left[0]));
		if (ret == 0) {
			p->ncards++;
			continue;
		}
		if (!best[0] || rank(ret) > rank(best_ret)) {
			memcpy(best, left[nleft], sizeof(best));
			best_ret = ret;
		}
		nleft++;
	}
	if (!any) {
		drm_fail(out, "%s", NO_CARD);
		return -ENOENT;
	}
	if (!p->ncards) {
		drm_fail(out, "%s", best);
		return best_ret;
	}
	/* With all, the desktop is the other cards'; with connector=, one
	 * of them may have had a connector named (said if one is not
	 * found). */
	for (i = 0; s->all && i < nleft && !out->trial; i++)
		log_warn("%s: that card is left out", left[i]);
	ret = s->all ? 0 : keep_named_cards(out, p, s, left, nleft);
	if (ret < 0)
		goto fail;
	/* Master of every card before the first head is chosen: with all,
	 * a card another program has is left out, and the first head is
	 * another card's display. */
	nleft = 0;
	for (k = 0; k < p->ncards;) {
		bool trial = out->trial;

		out->trial = s->all;
		ret = take_master(out, &p->cards[k]);
		out->trial = trial;
		if (ret == 0) {
			k++;
			continue;
		}
		if (!s->all || (p->ncards == 1 && !nleft)) {
			/* Named, or the only card: as one card says it. */
			if (s->all && !out->trial)
				log_error("%s", out->why);
			goto fail;
		}
		memcpy(left[nleft++], out->why, sizeof(left[0]));
		drop_card(p, k);
	}
	if (!p->ncards) {
		if (!out->trial)
			log_error("%s", left[0]);
		memcpy(out->why, left[0], sizeof(out->why));
		ret = -EBUSY;
		goto fail;
	}
	for (i = 0; i < nleft && !out->trial; i++)
		log_warn("%s: that card is left out", left[i]);
	use_card(p, p, 0);
	ret = drm_scan_read(&sc, p->cards, p->ncards);
	describe_cards(p->cards, p->ncards, where, sizeof(where));
	if (ret < 0)
		drm_fail(out, "drmModeGetResources on %s: %s", where,
			 strerror(-ret));
	else
		ret = first_head(out, p, &sc, s, out->may_wait, where);
	drm_scan_free(&sc);
	if (ret == 0)
		return 0;
fail:
	drm_card_close(p);
	return ret;
}

/* The length of name's card ("card1" of "card1:HDMI-A-1"), 0 without
 * one. */
static int card_len_of(const char *name)
{
	const char *colon = strchr(name, ':');

	return colon ? (int)(colon - name) : 0;
}

int drm_card_open(struct output *out, struct drm_priv *p,
		  const struct drm_spec *s)
{
	if (s->device[0])
		return open_card(out, p, s->device, s, out->may_wait);
	if (s->all || s->nheads > 1)
		return open_cards(out, p, s);
	if (card_len_of(s->connector)) {
		/* cardN:NAME names the card too. */
		char path[32];

		snprintf(path, sizeof(path), "/dev/dri/%.*s",
			 card_len_of(s->connector), s->connector);
		return open_card(out, p, path, s, out->may_wait);
	}
	return open_first_card(out, p, s);
}

int drm_card_more_heads(struct drm_priv *first, const struct drm_spec *s,
			char (*names)[32], drmModeModeInfo *modes)
{
	struct drm_scan sc;
	int idx[DRM_MAX_HEADS], i, k = 0, got, bad = 0, ret;

	if (!s->all) {
		for (i = 1; i < s->nheads; i++)
			memcpy(names[k++], s->heads[i], sizeof(names[0]));
		if (!modes)
			return k;
	}
	ret = drm_scan_read(&sc, first->cards, first->ncards);
	if (ret < 0) {
		log_error("drmModeGetResources on %s: %s", first->path,
			  strerror(-ret));
		drm_scan_free(&sc);
		return ret;
	}
	if (s->all) {
		got = drm_choose_heads(sc.info, sc.n, s, idx, &bad);
		for (i = 0; i < got; i++)
			if (sc.card[idx[i]] != first->card ||
			    sc.conns[idx[i]]->connector_id != first->conn_id)
				drm_head_name(sc.info, sc.n, idx[i], names[k++],
					      sizeof(names[0]));
	}
	for (i = 0; modes && i < k; i++) {
		int ci = drm_choose_connector(sc.info, sc.n, names[i]), mi = -1;
		char full[48];

		if (ci >= 0) {
			drm_full_name(&sc.info[ci], full, sizeof(full));
			mi = drm_choose_mode(sc.conns[ci]->modes,
					     sc.conns[ci]->count_modes,
					     drm_spec_mode(s, full));
		}
		memset(&modes[i], 0, sizeof(modes[i]));
		if (mi >= 0)
			modes[i] = sc.conns[ci]->modes[mi];
	}
	drm_scan_free(&sc);
	return k;
}

int drm_card_open_head(struct output *out, struct drm_priv *p,
		       struct drm_priv *first, const char *name,
		       const struct drm_spec *s)
{
	uint32_t taken[DRM_MAX_HEADS];
	char names[192];
	struct drm_scan sc;
	int i, ci, ret, ntaken = 0;

	p->restore = first->restore;
	p->extra = true;
	p->first = first;
	snprintf(p->path, sizeof(p->path), "%s", first->path);
	ret = drm_scan_read(&sc, first->cards, first->ncards);
	if (ret < 0) {
		drm_fail(out, "drmModeGetResources on %s: %s", p->path,
			 strerror(-ret));
		drm_scan_free(&sc);
		return ret;
	}
	drm_scan_describe(&sc, names, sizeof(names));
	ci = drm_choose_connector(sc.info, sc.n, name);
	/* Where it is, when it is on one card: that card's message. */
	i = drm_find_connector(sc.info, sc.n, name);
	if (i >= 0)
		use_card(p, first, sc.card[i]);
	else
		describe_cards(first->cards, first->ncards, p->path,
			       sizeof(p->path));
	if (ci < 0) {
		drm_fail(out,
			 ci == -ENOENT
			     ? "%s: no connector %s (%s): --connector names "
			       "one of these"
			 : ci == -ENOTUNIQ
			     ? "%s: connector %s is on several cards (%s): "
			       "cardN:NAME says which"
			     : "%s: connector %s has no display connected (%s)",
			 p->path, name, names);
		ret = -ENODEV;
	} else {
		/* The CRTCs of the other heads on its card. */
		if (first->card == sc.card[ci])
			taken[ntaken++] = first->crtc_id;
		for (i = 0; i < (int)first->nmore; i++) {
			const struct drm_priv *h = first->more[i]->priv;

			if (h->card == sc.card[ci])
				taken[ntaken++] = h->crtc_id;
		}
		ret = setup_head(out, p, &sc, ci, s, taken, ntaken, first);
	}
	drm_scan_free(&sc);
	if (ret < 0)
		drm_card_close_head(p);
	return ret;
}

void drm_card_close_head(struct drm_priv *p)
{
	drop_buffers(p);
	/* The fd is its card's, and the restore list the first head's. */
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

/* Each card a connector's name in s names (cardN:NAME) is there. 0 or
 * -ENOENT (logged). */
static int check_card_names(const struct drm_spec *s)
{
	const char *names[2 * DRM_MAX_HEADS];
	char path[32];
	int i, n = 0;

	for (i = 0; i < s->nheads; i++)
		names[n++] = s->heads[i];
	for (i = 0; i < s->nnamed; i++)
		names[n++] = s->named[i].name;
	for (i = 0; i < n; i++) {
		const char *colon = strchr(names[i], ':');

		if (!colon)
			continue;
		snprintf(path, sizeof(path), "/dev/dri/%.*s",
			 (int)(colon - names[i]), names[i]);
		if (access(path, F_OK) < 0) {
			log_error("%s: no such device (%s names it: is its KMS "
				  "driver loaded?)",
				  path, names[i]);
			return -ENOENT;
		}
	}
	return 0;
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
		if (ret < 0) {
			log_error("%s", NO_CARD);
			return ret;
		}
		return check_card_names(&s);
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
