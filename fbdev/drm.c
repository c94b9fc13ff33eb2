/* The Linux DRM/KMS output: a connector's mode on a CRTC, two dumb buffers
 * shown by page flips (or one, told its damage with DIRTYFB), the CRTC as
 * it was put back on exit, DRM master given up while another VT is shown.
 *
 * The blit thread draws into the buffer off the screen, flips, and waits
 * until the flip is done before it draws again, so nothing it writes is
 * ever on the screen half done, and no deferred-io timer stands between a
 * pass and the display. A flip is a blocking atomic commit of the primary
 * plane's FB_ID where the driver is atomic: it returns once the new
 * buffer is being scanned out (at the vblank), on the blit thread itself,
 * without waking a kernel worker and then us; elsewhere a legacy page flip
 * and its event. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <drm_fourcc.h>
#include <xf86drm.h>
#include <xf86drmMode.h>

#include "clock.h"
#include "drm.h"
#include "fbdev.h"
#include "log.h"
#include "output.h"
#include "vt.h"

/* Cards tried when no device is named: /dev/dri/card0..card15. */
#define MAX_CARDS 16
/* Connectors of one card we look at. */
#define MAX_CONNECTORS 64
/* Connectors on the CRTC we restore (clones). */
#define MAX_SAVED_CONNS 8
/* A flip event later than this is taken as lost. */
#define FLIP_TIMEOUT_MS 1000

struct drm_buf {
	uint32_t handle, fb;
	uint8_t *map;
	size_t size;
	enum output_buffer age;
};

struct drm_priv {
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
	/* Blit thread: */
	struct rect rects[DRM_MODE_FB_DIRTY_MAX_CLIPS];
	int nrects; /* what present handed over; -1: too many */
	bool flip_pending;
	bool dirty_works;  /* DIRTYFB does something (not ENOSYS) */
	bool monotonic;	   /* event times are CLOCK_MONOTONIC */
	uint64_t shown_ns; /* when the last pass reached the screen */
	bool warned;	   /* a failing flip or DIRTYFB said so once */
	/* The CRTC must be set (not flipped) by the next pass: after a VT
	 * switch back. Set on the main thread. */
	atomic_bool modeset;
	/* The CRTC as found, as the restore ioctl takes it, so the fatal
	 * signal handler and the supervisor can replay it. */
	struct drm_mode_crtc saved;
	uint32_t saved_conns[MAX_SAVED_CONNS];
	bool saved_ok;
	bool ours; /* we set the CRTC: it goes back on close */
	struct vt vt;
};

/* What the default card search and the checks say when there is none. */
#define NO_CARD                                                                \
	"no DRM card (/dev/dri/card*): is a KMS driver loaded? -o fbdev uses " \
	"a framebuffer device"

/* Say why the output cannot be used: an error, or when the default output
 * only tries it, the reason in out->why (shown under -v). */
static void fail(struct output *out, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void fail(struct output *out, const char *fmt, ...)
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

static void destroy_buf(struct drm_priv *p, struct drm_buf *b)
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

static int create_buf(struct output *out, struct drm_priv *p, struct drm_buf *b)
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
		fail(out,
		     "ioctl DRM_IOCTL_MODE_CREATE_DUMB (%ux%u, %u bpp) on "
		     "%s: %s",
		     c.width, c.height, c.bpp, p->path, strerror(err));
		return -err;
	}
	b->handle = c.handle;
	b->size = (size_t)c.size;
	if (p->pitch && c.pitch != p->pitch) {
		fail(out,
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
		fail(out, "drmModeAddFB2 (%ux%u %.4s) on %s: %s", c.width,
		     c.height, (const char *)&p->fourcc, p->path,
		     strerror(err));
		return -err;
	}
	m.handle = c.handle;
	if (drmIoctl(p->fd, DRM_IOCTL_MODE_MAP_DUMB, &m) < 0) {
		err = errno;
		fail(out, "ioctl DRM_IOCTL_MODE_MAP_DUMB on %s: %s", p->path,
		     strerror(err));
		return -err;
	}
	b->map = mmap(NULL, b->size, PROT_READ | PROT_WRITE, MAP_SHARED, p->fd,
		      (off_t)m.offset);
	if (b->map == MAP_FAILED) {
		err = errno;
		b->map = NULL;
		fail(out, "mmap of a dumb buffer of %s (%zu bytes): %s",
		     p->path, b->size, strerror(err));
		return -err;
	}
	/* Black until the first pass: never what the buffer held before. */
	memset(b->map, 0, b->size);
	b->age = OUTPUT_BUF_UNKNOWN;
	return 0;
}

/* Undo what open_card did on p (buffers, master, the fd). */
static void close_card(struct drm_priv *p)
{
	int i;

	for (i = 0; i < 2; i++)
		destroy_buf(p, &p->buf[i]);
	p->nbuf = 0;
	p->pitch = 0;
	p->saved_ok = false;
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
	int i, n = 0;
	size_t used = 0;

	names[0] = '\0';
	for (i = 0; i < res->count_connectors && i < MAX_CONNECTORS; i++) {
		drmModeConnector *c =
		    drmModeGetConnector(p->fd, res->connectors[i]);

		if (!c)
			continue;
		conns[n] = c;
		drm_connector_name(c->connector_type, c->connector_type_id,
				   info[n].name, sizeof(info[n].name));
		info[n].connected = c->connection == DRM_MODE_CONNECTED;
		info[n].nmodes = c->count_modes;
		if (used + 1 < nlen)
			used += (size_t)snprintf(
			    names + used, nlen - used, "%s%s %s",
			    used ? ", " : "", info[n].name,
			    info[n].connected ? "connected" : "disconnected");
		if (used >= nlen)
			used = nlen - 1;
		n++;
	}
	return n;
}

/* The CRTC to drive c with: the one it is on now (the console's), else a
 * free one its encoders can reach. 0 when there is none. */
static uint32_t pick_crtc(struct drm_priv *p, drmModeRes *res,
			  drmModeConnector *c)
{
	drmModeEncoder *e;
	uint32_t crtc = 0;
	int i, k;

	if (c->encoder_id && (e = drmModeGetEncoder(p->fd, c->encoder_id))) {
		crtc = e->crtc_id;
		drmModeFreeEncoder(e);
		if (crtc)
			return crtc;
	}
	for (i = 0; i < c->count_encoders && !crtc; i++) {
		e = drmModeGetEncoder(p->fd, c->encoders[i]);
		if (!e)
			continue;
		for (k = 0; k < res->count_crtcs && !crtc; k++) {
			drmModeCrtc *cr;

			if (!(e->possible_crtcs & (1u << k)))
				continue;
			cr = drmModeGetCrtc(p->fd, res->crtcs[k]);
			if (cr && !cr->buffer_id)
				crtc = cr->crtc_id;
			drmModeFreeCrtc(cr);
		}
		drmModeFreeEncoder(e);
	}
	return crtc;
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

/* Remember the CRTC as it is, with the connectors on it, to put it back. */
static void save_crtc(struct drm_priv *p, drmModeConnector **conns, int n)
{
	drmModeCrtc *cr = drmModeGetCrtc(p->fd, p->crtc_id);
	uint32_t k = 0;
	int i;

	if (!cr) {
		log_warn("drmModeGetCrtc on %s: %s: the display is not put "
			 "back as it was on exit",
			 p->path, strerror(errno));
		return;
	}
	memset(&p->saved, 0, sizeof(p->saved));
	p->saved.crtc_id = cr->crtc_id;
	p->saved.fb_id = cr->buffer_id;
	p->saved.x = cr->x;
	p->saved.y = cr->y;
	p->saved.mode_valid = cr->mode_valid;
	memcpy(&p->saved.mode, &cr->mode, sizeof(p->saved.mode));
	drmModeFreeCrtc(cr);
	for (i = 0; i < n && k < MAX_SAVED_CONNS && p->saved.fb_id; i++) {
		drmModeEncoder *e =
		    conns[i]->encoder_id
			? drmModeGetEncoder(p->fd, conns[i]->encoder_id)
			: NULL;

		if (e && e->crtc_id == p->crtc_id)
			p->saved_conns[k++] = conns[i]->connector_id;
		drmModeFreeEncoder(e);
	}
	p->saved.set_connectors_ptr = (uint64_t)(uintptr_t)p->saved_conns;
	p->saved.count_connectors = k;
	p->saved_ok = true;
}

/* We must be the card's master to set modes; a compositor or X server
 * may be. */
static int take_master(struct output *out, struct drm_priv *p)
{
	if (drmIsMaster(p->fd) || drmSetMaster(p->fd) == 0)
		return 0;
	fail(out,
	     "%s: another program is the DRM master (a compositor or X "
	     "server?): stop it, or start vncfb on a VT of its own",
	     p->path);
	return -EBUSY;
}

/* Everything up to the buffers, on one card. 0 or -errno (said). */
/* Open a card and read its KMS resources: the fd, with *res to free, or
 * -errno with why saying what is wrong (one line, not logged). Nothing
 * on the screen changes and no DRM master is needed. */
static int open_kms(const char *path, drmModeRes **res, char *why, size_t len)
{
	int fd = open(path, O_RDWR | O_CLOEXEC), ret;

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

static int open_card(struct output *out, struct drm_priv *p, const char *path,
		     const struct drm_spec *s)
{
	drmModeConnector *conns[MAX_CONNECTORS];
	struct drm_conn_info info[MAX_CONNECTORS];
	char names[192], modes[192], msg[sizeof(out->why)];
	drmModeRes *res = NULL;
	drmModeConnector *c;
	uint64_t cap = 0;
	int i, n = 0, ci, mi, ret;

	snprintf(p->path, sizeof(p->path), "%s", path);
	ret = open_kms(path, &res, msg, sizeof(msg));
	if (ret < 0) {
		fail(out, "%s", msg);
		return ret;
	}
	p->fd = ret;
	if (drmGetCap(p->fd, DRM_CAP_DUMB_BUFFER, &cap) < 0 || !cap) {
		fail(out, "%s: the driver has no dumb buffers", path);
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
		fail(out,
		     "%s: no connector %s (%s): --connector names one of "
		     "these",
		     path, s->connector, n ? names : "none");
		ret = -ENODEV;
		goto out;
	}
	if (ci < 0 && s->connector[0]) {
		fail(out, "%s: connector %s has no display connected (%s)",
		     path, s->connector, names);
		ret = -ENODEV;
		goto out;
	}
	if (ci < 0) {
		fail(out, "%s: no display connected (%s): plug one in", path,
		     n ? names : "no connectors");
		ret = -ENODEV;
		goto out;
	}
	c = conns[ci];
	snprintf(p->conn_name, sizeof(p->conn_name), "%s", info[ci].name);
	p->conn_id = c->connector_id;
	mi = drm_choose_mode(c->modes, c->count_modes, s);
	if (mi < 0) {
		drm_describe_modes(c->modes, c->count_modes, modes,
				   sizeof(modes));
		if (s->hz)
			fail(out,
			     "%s: %s has no mode %ux%u@%u (it has %s): "
			     "--mode picks one of these",
			     path, p->conn_name, s->width, s->height, s->hz,
			     modes);
		else
			fail(out,
			     "%s: %s has no mode %ux%u (it has %s): "
			     "--mode picks one of these",
			     path, p->conn_name, s->width, s->height, modes);
		ret = -EINVAL;
		goto out;
	}
	p->mode = c->modes[mi];
	p->crtc_id = pick_crtc(p, res, c);
	if (!p->crtc_id) {
		fail(out, "%s: no display controller (CRTC) is free for %s",
		     path, p->conn_name);
		ret = -EBUSY;
		goto out;
	}
	p->fourcc = pick_format(p, res);
	if (!p->fourcc) {
		fail(out,
		     "%s: the display plane of %s takes neither XRGB8888 "
		     "nor RGB565",
		     path, p->conn_name);
		ret = -ENOTSUP;
		goto out;
	}
	ret = take_master(out, p);
	if (ret < 0)
		goto out;
	/* Legacy ioctls keep working with the atomic cap set. */
	p->atomic = p->plane_id && p->fb_prop &&
		    drmSetClientCap(p->fd, DRM_CLIENT_CAP_ATOMIC, 1) == 0;
	save_crtc(p, conns, n);
	ret = create_buf(out, p, &p->buf[0]);
	if (ret < 0)
		goto out;
	p->nbuf = 1;
	if (s->buffers != 1) {
		/* Short of video memory, one buffer still shows the picture
		 * (DIRTYFB). */
		char why[sizeof(out->why)];
		bool trial = out->trial;

		memcpy(why, out->why, sizeof(why));
		out->trial = true;
		if (create_buf(out, p, &p->buf[1]) == 0)
			p->nbuf = 2;
		else
			destroy_buf(p, &p->buf[1]);
		out->trial = trial;
		memcpy(out->why, why, sizeof(why));
	}
	ret = 0;
out:
	for (i = 0; i < n; i++)
		drmModeFreeConnector(conns[i]);
	drmModeFreeResources(res);
	if (ret < 0)
		close_card(p);
	return ret;
}

/* How far a card got: a failure further on is the one worth reporting. */
static int rank(int err)
{
	return err == -ENOENT ? 0 : err == -ENODEV ? 1 : 2;
}

/* No card named: the first of /dev/dri/card0..15 with a display. */
static int open_first_card(struct output *out, struct drm_priv *p,
			   const struct drm_spec *s)
{
	char best[sizeof(out->why)] = "", path[32];
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
		ret = open_card(out, p, path, s);
		out->trial = trial;
		if (ret == 0)
			return 0;
		if (!best[0] || rank(ret) > rank(best_ret)) {
			memcpy(best, out->why, sizeof(best));
			best_ret = ret;
		}
	}
	if (!any) {
		fail(out, "%s", NO_CARD);
		return -ENOENT;
	}
	/* Each card said why already (at debug level). */
	if (out->trial)
		memcpy(out->why, best, sizeof(best));
	else
		log_error("%s", best);
	return best_ret;
}

/* Show buffer i (a mode set): at start and after a VT switch back. */
static int set_crtc(struct output *out, struct drm_priv *p, int i)
{
	if (drmModeSetCrtc(p->fd, p->crtc_id, p->buf[i].fb, 0, 0, &p->conn_id,
			   1, &p->mode) < 0) {
		int err = errno;

		fail(out, "drmModeSetCrtc (%s, %ux%u@%u) on %s: %s",
		     p->conn_name, p->mode.hdisplay, p->mode.vdisplay,
		     drm_mode_hz(&p->mode), p->path, strerror(err));
		return -err;
	}
	return 0;
}

/* Buffer i is on the screen now; the other one holds the screen before. */
static void shown(struct drm_priv *p, int i, uint64_t ns)
{
	p->buf[i].age = OUTPUT_BUF_CURRENT;
	if (p->nbuf == 2) {
		p->buf[!i].age = OUTPUT_BUF_PREVIOUS;
		p->back = !i;
	}
	p->shown_ns = ns;
}

static void on_flip(int fd, unsigned int seq, unsigned int sec,
		    unsigned int usec, void *data)
{
	struct drm_priv *p = data;
	uint64_t ns = p->monotonic
			  ? (uint64_t)sec * 1000000000u + (uint64_t)usec * 1000u
			  : monotonic_ns();

	p->flip_pending = false;
	shown(p, p->back, ns);
}

/* Wait for the pending flip's event. */
static void wait_flip(struct drm_priv *p)
{
	drmEventContext ev = {.version = 2, .page_flip_handler = on_flip};
	struct pollfd pfd = {.fd = p->fd, .events = POLLIN};
	uint64_t deadline = monotonic_ns() + FLIP_TIMEOUT_MS * 1000000ull;

	while (p->flip_pending) {
		uint64_t now = monotonic_ns();
		int r =
		    now < deadline
			? poll(&pfd, 1, (int)((deadline - now) / 1000000u) + 1)
			: 0;

		if (r > 0) {
			drmHandleEvent(p->fd, &ev);
		} else if (r == 0 || errno != EINTR) {
			/* A lost event must not stop the picture: take the
			 * flip as done (a next one that finds it pending
			 * waits again). */
			log_warn("%s: no page flip event within %d ms", p->path,
				 FLIP_TIMEOUT_MS);
			p->flip_pending = false;
			shown(p, p->back, 0);
		}
	}
}

static enum output_buffer drm_begin(struct output *out)
{
	struct drm_priv *p = out->priv;

	if (p->flip_pending)
		wait_flip(p);
	out->map = p->buf[p->back].map;
	return p->buf[p->back].age;
}

/* The driver cannot flip: from now on one buffer, the one just drawn,
 * and DIRTYFB. */
static void go_single(struct output *out, struct drm_priv *p, int err)
{
	int b = p->back;

	log_info("%s cannot page flip (%s): drawing into the buffer on the "
		 "screen",
		 p->path, strerror(err));
	if (set_crtc(out, p, b) < 0)
		return;
	if (b != 0) {
		struct drm_buf t = p->buf[0];

		p->buf[0] = p->buf[1];
		p->buf[1] = t;
	}
	destroy_buf(p, &p->buf[1]);
	p->nbuf = 1;
	p->back = 0;
	out->map = p->buf[0].map;
	shown(p, 0, monotonic_ns());
}

static void dirty(struct drm_priv *p)
{
	drmModeClip clips[DRM_MODE_FB_DIRTY_MAX_CLIPS];
	int i, k = p->nrects > 0 ? p->nrects : 0;
	int ret;

	/* More than the ioctl takes: the whole buffer (no clips). */
	for (i = 0; i < k; i++) {
		const struct rect *r = &p->rects[i];

		clips[i] = (drmModeClip){(uint16_t)r->x, (uint16_t)r->y,
					 (uint16_t)(r->x + r->w),
					 (uint16_t)(r->y + r->h)};
	}
	ret =
	    drmModeDirtyFB(p->fd, p->buf[0].fb, k ? clips : NULL, (uint32_t)k);
	/* ENOSYS: the driver scans out of the buffer itself. */
	if (ret == -ENOSYS)
		p->dirty_works = false;
	else if (ret < 0 && ret != -EACCES && !p->warned) {
		log_warn("drmModeDirtyFB on %s: %s", p->path, strerror(-ret));
		p->warned = true;
	}
}

/* Show buffer b with a blocking atomic commit of the primary plane's
 * FB_ID. 0 or -errno. */
static int atomic_flip(struct drm_priv *p, int b)
{
	drmModeAtomicReq *req = drmModeAtomicAlloc();
	int ret;

	if (!req)
		return -ENOMEM;
	ret = drmModeAtomicAddProperty(req, p->plane_id, p->fb_prop,
				       p->buf[b].fb) < 0
		  ? -EINVAL
		  : drmModeAtomicCommit(p->fd, req, 0, NULL);
	drmModeAtomicFree(req);
	return ret < 0 ? ret : 0;
}

/* The pass drew rects: the display work is done in finish, outside the
 * blitter's locks, because it waits for the display. */
static void drm_present(struct output *out, const struct rect *rects, int n)
{
	struct drm_priv *p = out->priv;

	if (n > DRM_MODE_FB_DIRTY_MAX_CLIPS) {
		p->nrects = -1;
		return;
	}
	memcpy(p->rects, rects, (size_t)n * sizeof(*rects));
	p->nrects = n;
}

static uint64_t drm_finish(struct output *out)
{
	struct drm_priv *p = out->priv;
	int b = p->back, ret;

	p->shown_ns = 0;
	if (atomic_exchange(&p->modeset, false)) {
		if (set_crtc(out, p, b) == 0)
			shown(p, b, monotonic_ns());
		return p->shown_ns;
	}
	if (p->nbuf == 1) {
		if (p->dirty_works)
			dirty(p);
		shown(p, 0, monotonic_ns());
		return p->shown_ns;
	}
	if (p->atomic) {
		ret = atomic_flip(p, b);
		if (ret == 0) {
			shown(p, b, monotonic_ns());
			return p->shown_ns;
		}
		if (ret == -EACCES || ret == -EPERM)
			return 0;
		log_debug("atomic flip on %s: %s: legacy page flips from now on",
			  p->path, strerror(-ret));
		p->atomic = false;
	}
	ret = drmModePageFlip(p->fd, p->crtc_id, p->buf[b].fb,
			      DRM_MODE_PAGE_FLIP_EVENT, p) < 0
		  ? -errno
		  : 0;
	if (ret == 0) {
		p->flip_pending = true;
		wait_flip(p);
		return p->shown_ns;
	}
	if (ret == -EINVAL || ret == -ENOSYS || ret == -EOPNOTSUPP) {
		go_single(out, p, -ret);
	} else if (ret != -EACCES && ret != -EPERM && !p->warned) {
		/* EACCES: master went with a VT switch under way; the
		 * switch back redraws. */
		log_warn("page flip on %s: %s", p->path, strerror(-ret));
		p->warned = true;
	}
	return p->shown_ns;
}

static void drm_close(struct output *out)
{
	struct drm_priv *p = out->priv;

	if (!p)
		return;
	if (p->fd >= 0 && p->flip_pending)
		wait_flip(p);
	/* Switched away, the display belongs to the VT on screen. */
	if (p->ours && p->saved_ok && (p->vt.fd < 0 || p->vt.active) &&
	    drmIoctl(p->fd, DRM_IOCTL_MODE_SETCRTC, &p->saved) < 0)
		log_warn("drmModeSetCrtc on %s: %s: the display is not as it "
			 "was",
			 p->path, strerror(errno));
	vt_close(&p->vt);
	close_card(p);
	free(p);
	out->priv = NULL;
	out->map = NULL;
	out->fd = -1;
}

static int drm_open(struct output *out, const char *arg)
{
	struct drm_priv *p;
	struct drm_spec s;
	int ret;

	if (drm_spec_parse(arg, &s, out->why, sizeof(out->why)) < 0) {
		log_error("bad drm output '%s': %s", arg, out->why);
		return -EINVAL;
	}
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->fd = -1;
	p->vt.fd = -1;
	p->vt.pipe[0] = p->vt.pipe[1] = -1;
	p->dirty_works = true;
	atomic_init(&p->modeset, false);
	out->priv = p;
	ret = s.device[0] ? open_card(out, p, s.device, &s)
			  : open_first_card(out, p, &s);
	if (ret < 0)
		goto fail;
	ret = drm_format_pixfmt(p->fourcc, &out->fmt);
	if (ret < 0)
		goto fail;
	ret = vt_open(&p->vt);
	if (ret < 0 && ret != -ENODEV)
		goto fail;
	ret = set_crtc(out, p, 0);
	if (ret < 0)
		goto fail;
	p->ours = true;
	p->back = p->nbuf == 2 ? 1 : 0;
	/* Until the first pass: the buffer on the screen, for the probe,
	 * which writes what is there already. */
	out->map = p->buf[0].map;
	out->width = p->mode.hdisplay;
	out->height = p->mode.vdisplay;
	out->stride = p->pitch;
	out->readable = false;
	out->fd = vt_event_fd(&p->vt);
	log_debug("%s: %s, %ux%u@%u%s, CRTC %u, %.4s, %s", p->path,
		  p->conn_name, p->mode.hdisplay, p->mode.vdisplay,
		  drm_mode_hz(&p->mode),
		  p->mode.type & DRM_MODE_TYPE_PREFERRED ? " (preferred)" : "",
		  p->crtc_id, (const char *)&p->fourcc,
		  p->nbuf == 1 ? "one buffer, dirty-fb"
		  : p->atomic  ? "two buffers, page flips (atomic)"
			       : "two buffers, page flips (events)");
	return 0;
fail:
	drm_close(out);
	return ret;
}

static void drm_release(void *ctx)
{
	struct drm_priv *p = ctx;

	/* The other VT's fbcon or display server takes the display only
	 * once we let go of it. */
	if (drmDropMaster(p->fd) < 0)
		log_warn("drmDropMaster on %s: %s", p->path, strerror(errno));
}

static void drm_acquire(void *ctx)
{
	struct drm_priv *p = ctx;

	if (drmSetMaster(p->fd) < 0)
		log_warn("drmSetMaster on %s: %s: the picture cannot come back",
			 p->path, strerror(errno));
	/* Someone else had the CRTC meanwhile. */
	atomic_store(&p->modeset, true);
}

static int drm_dispatch(struct output *out, const struct output_events *ev)
{
	struct drm_priv *p = out->priv;
	const struct vt_switch sw = {
	    .ctx = p, .release = drm_release, .acquire = drm_acquire};

	return vt_dispatch(&p->vt, ev, &sw);
}

/* Also what the supervisor runs once vncfb is gone (SIGKILL): its copy of
 * p is from just after open, and its fd the same open file, which stays
 * the card's master while either process holds it. */
static void drm_emergency_restore(struct output *out)
{
	struct drm_priv *p = out->priv;

	if (!p)
		return;
	if (p->ours && p->saved_ok && (p->vt.fd < 0 || p->vt.active))
		ioctl(p->fd, DRM_IOCTL_MODE_SETCRTC, &p->saved);
	vt_emergency_restore(&p->vt);
}

static int drm_detect(char *why, size_t len)
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

static int drm_check_arg(const char *arg)
{
	struct drm_spec s;
	char why[128];

	return drm_spec_parse(arg, &s, why, sizeof(why));
}

/* Opening the card and asking for its resources changes nothing on the
 * screen and needs no DRM master. */
static int drm_check(const char *arg)
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

const struct output_impl drm_output_impl = {
    .name = "drm",
    .open = drm_open,
    .close = drm_close,
    .begin = drm_begin,
    .present = drm_present,
    .finish = drm_finish,
    .dispatch = drm_dispatch,
    .emergency_restore = drm_emergency_restore,
    .detect = drm_detect,
    .check_arg = drm_check_arg,
    .check = drm_check,
};
