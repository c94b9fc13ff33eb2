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

#include <errno.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <drm_fourcc.h>
#include <xf86drm.h>
#include <xf86drmMode.h>

#include "util/clock.h"
#include "drm.h"
#include "drm_priv.h"
#include "fbdev.h"
#include "util/log.h"
#include "output/output.h"
#include "vt.h"

/* A flip event later than this is taken as lost. */
#define FLIP_TIMEOUT_MS 1000

/* Set once the console is being put back after a fatal signal: the blit
 * threads flip no more (drm_emergency_restore). */
static atomic_bool halted;
/* How long the restore waits for a flip already past that check. */
#define HALT_SETTLE_NS 30000000L

int drm_set_rotation(struct output *out, struct drm_priv *p)
{
	uint64_t v = drm_rotation_bit(p->turn);

	if (!p->rot_prop || (!p->turn && p->rot_was == v))
		return 0;
	if (drmModeObjectSetProperty(p->fd, p->plane_id, DRM_MODE_OBJECT_PLANE,
				     p->rot_prop, v) < 0) {
		int err = errno;

		drm_fail(out,
			 "drmModeObjectSetProperty (rotation %u degrees "
			 "clockwise) on plane %u of %s (%s): %s",
			 90u * p->turn, p->plane_id, p->conn_name, p->path,
			 strerror(err));
		return -err;
	}
	return 0;
}

/* Show buffer i (a mode set): at start and after a VT switch back (the
 * console may have put the plane straight meanwhile). */
static int set_crtc(struct output *out, struct drm_priv *p, int i)
{
	int ret = drm_set_rotation(out, p);

	if (ret < 0)
		return ret;
	if (drmModeSetCrtc(p->fd, p->crtc_id, p->buf[i].fb, 0, 0, &p->conn_id,
			   1, &p->mode) < 0) {
		int err = errno;

		drm_fail(out, "drmModeSetCrtc (%s, %ux%u@%u) on %s: %s",
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

	/* Heads share the card's fd: another head's thread may read this
	 * event. What it shows is set before the flag lets go of it. */
	shown(p, p->back, ns);
	atomic_store_explicit(&p->flip_pending, false, memory_order_release);
}

/* Wait for the pending flip's event. */
static void wait_flip(struct drm_priv *p)
{
	drmEventContext ev = {.version = 2, .page_flip_handler = on_flip};
	struct pollfd pfd = {.fd = p->fd, .events = POLLIN};
	uint64_t deadline = monotonic_ns() + FLIP_TIMEOUT_MS * 1000000ull;
	/* With several heads another head's thread may take this one's
	 * event from the shared fd: look at the flag every few ms. */
	int slice = p->extra || p->nmore ? 4 : FLIP_TIMEOUT_MS + 1;

	while (atomic_load_explicit(&p->flip_pending, memory_order_acquire)) {
		uint64_t now = monotonic_ns();
		int left = (int)((deadline - now) / 1000000u) + 1;
		int r = now < deadline
			    ? poll(&pfd, 1, left < slice ? left : slice)
			    : 0;

		if (r == 0 && now < deadline && slice < left)
			continue;
		if (r > 0) {
			/* The fd is non-blocking (open_kms): when another
			 * head's thread took the event first, this read
			 * finds nothing rather than waiting for a flip
			 * that may never come (a blocked head's thread
			 * hung the pipeline's stop for good). */
			drmHandleEvent(p->fd, &ev);
		} else if (r == 0 || errno != EINTR) {
			/* A lost event must not stop the picture: take the
			 * flip as done (a next one that finds it pending
			 * waits again). */
			log_warn("%s: no page flip event within %d ms", p->path,
				 FLIP_TIMEOUT_MS);
			shown(p, p->back, 0);
			atomic_store(&p->flip_pending, false);
		}
	}
}

static enum output_buffer drm_begin(struct output *out)
{
	struct drm_priv *p = out->priv;

	if (atomic_load(&p->flip_pending))
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
	drm_buf_destroy(p, &p->buf[1]);
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

/* How the head's passes reach its display, for -v. */
static const char *buffers_said(const struct drm_priv *p)
{
	return p->nbuf == 1 ? "one buffer, dirty-fb"
	       : p->atomic  ? "two buffers, page flips (atomic)"
			    : "two buffers, page flips (events)";
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
	/* The console is being put back (drm_emergency_restore): no flip
	 * may show a buffer over it again. */
	if (atomic_load(&halted))
		return 0;
	/* Opened with no display: the buffers are nobody's screen (the
	 * main thread changes has_display only with the blitter stopped). */
	if (!p->has_display)
		return 0;
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
		atomic_store(&p->flip_pending, true);
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

/* Put crtc_id of the card fd back as it was before vncfb
 * (drm_restore_put_back), saying so when that fails. */
static void put_back(struct drm_priv *p, int fd, uint32_t crtc_id)
{
	int ret = drm_restore_put_back(p->restore, fd, crtc_id);
	int k;

	for (k = 0; ret < 0 && ret != -ENOENT && k < p->ncards; k++)
		if (p->cards[k].fd == fd)
			log_warn("drmModeSetCrtc on %s (CRTC %u): %s: the "
				 "display is not as it was",
				 p->cards[k].path, crtc_id, strerror(-ret));
}

/* The heads after the first: each CRTC put back as it was (off, if it
 * was), buffers freed. */
static void close_more(struct output *out, struct drm_priv *p)
{
	while (p->nmore > 0) {
		struct output *o = p->more[--p->nmore];
		struct drm_priv *hp = o->priv;

		if (atomic_load(&hp->flip_pending))
			wait_flip(hp);
		put_back(p, hp->fd, hp->crtc_id);
		drm_card_close_head(hp);
		free(hp);
		free(o);
		p->more[p->nmore] = NULL;
	}
	memset(out->heads, 0, sizeof(out->heads));
	out->nheads = 0;
}

/* A head's output as the pipeline sees it, its CRTC set. */
static void head_fill(struct output *o, struct drm_priv *p)
{
	p->has_display = true;
	p->back = p->nbuf == 2 ? 1 : 0;
	o->map = p->buf[0].map;
	drm_fb_size(p, &o->width, &o->height);
	o->turned = p->turn;
	o->stride = p->pitch;
	o->readable = false;
	drm_format_pixfmt(p->fourcc, &o->fmt);
	snprintf(o->name, sizeof(o->name), "%s", p->conn_name);
}

static void priv_init(struct drm_priv *p)
{
	int k;

	for (k = 0; k < DRM_MAX_CARDS; k++)
		p->cards[k].fd = -1;
	p->fd = -1;
	p->epfd = -1;
	p->hp.fd = -1;
	p->vt.fd = -1;
	p->vt.pipe[0] = p->vt.pipe[1] = -1;
	p->dirty_works = true;
	atomic_init(&p->modeset, false);
}

/* Whether --mode gives connector name a mode of its own. */
static bool mode_named(const struct drm_spec *s, const char *name)
{
	return drm_spec_mode(s, name) != &s->mode;
}

/* The other heads p->spec asks for (all, connector=A+B), each on a CRTC
 * of its own, on its own card's. A named one that cannot be shown is an error;
 * with all it is left out, with a warning, unless at the start --mode gives it
 * a mode of its own (a display plugged in later with another monitor is left
 * out all the same). 0 or -errno (said). */
static int open_more(struct output *out, struct drm_priv *p, bool start)
{
	char names[DRM_MAX_HEADS][32];
	int i, k, ret;

	if (!p->spec.all && p->spec.nheads < 2)
		return 0;
	k = drm_card_more_heads(p, &p->spec, names, NULL);
	if (k < 0)
		return k;
	for (i = 0; i < k && 1 + p->nmore < DRM_MAX_HEADS; i++) {
		struct output *o = calloc(1, sizeof(*o));
		struct drm_priv *hp = calloc(1, sizeof(*hp));
		bool leave_out =
		    p->spec.all && !(start && mode_named(&p->spec, names[i]));

		if (!o || !hp) {
			free(o);
			free(hp);
			log_error("cannot allocate a head of %s", p->path);
			return -ENOMEM;
		}
		priv_init(hp);
		hp->first = p;
		o->impl = out->impl;
		o->fd = -1;
		o->slow_cpu = -1;
		o->priv = hp;
		o->trial = leave_out;
		ret = drm_card_open_head(o, hp, p, names[i], &p->spec);
		if (ret == 0) {
			/* Kept before it is set: a SIGKILL from here on
			 * finds it in the supervisor's list. */
			drm_card_keep_crtc(hp, p->restore);
			ret = set_crtc(o, hp, 0);
			if (ret < 0)
				put_back(p, hp->fd, hp->crtc_id);
		}
		if (ret < 0) {
			if (leave_out)
				log_warn("%s: %s is left out: %s", p->path,
					 names[i], o->why);
			drm_card_close_head(hp);
			free(hp);
			free(o);
			if (!leave_out)
				return ret;
			continue;
		}
		head_fill(o, hp);
		log_debug("%s: head %s, %ux%u@%u, CRTC %u", hp->path,
			  hp->conn_name, hp->mode.hdisplay, hp->mode.vdisplay,
			  drm_mode_hz(&hp->mode), hp->crtc_id);
		p->more[p->nmore++] = o;
	}
	out->heads[0] = out;
	for (i = 0; i < (int)p->nmore; i++)
		out->heads[1 + i] = p->more[i];
	out->nheads = 1 + p->nmore;
	return 0;
}

static void drm_close(struct output *out)
{
	struct drm_priv *p = out->priv;
	uint32_t ids[DRM_RESTORE_MAX];
	int fds[DRM_RESTORE_MAX], i, n;

	/* A head after the first is closed with the first. */
	if (!p || p->extra)
		return;
	close_more(out, p);
	if (p->fd >= 0 && atomic_load(&p->flip_pending))
		wait_flip(p);
	/* The first head's CRTC, and any it left for another (hot-plug),
	 * each on its card: the list a SIGKILL would leave to the
	 * supervisor. Switched away, the display belongs to the VT on
	 * screen: only forgotten. */
	n = p->restore ? drm_restore_list(p->restore, fds, ids, DRM_RESTORE_MAX)
		       : 0;
	for (i = 0; i < n; i++)
		put_back(p, fds[i], ids[i]);
	vt_close(&p->vt);
	drm_hotplug_close(&p->hp);
	if (p->epfd >= 0)
		close(p->epfd);
	drm_card_close(p);
	drm_restore_destroy(p->restore);
	free(p);
	out->priv = NULL;
	out->map = NULL;
	out->fd = -1;
}

/* Hot-plug events and the VT's, behind the one fd the session polls.
 * Without them the output works as before: its display stays. */
static void watch_hotplug(struct output *out, struct drm_priv *p)
{
	struct epoll_event e = {.events = EPOLLIN};
	int vfd = vt_event_fd(&p->vt);

	if (drm_hotplug_open(&p->hp, p->cards, p->ncards) < 0)
		return;
	p->epfd = epoll_create1(EPOLL_CLOEXEC);
	e.data.fd = p->hp.fd;
	if (p->epfd < 0 ||
	    epoll_ctl(p->epfd, EPOLL_CTL_ADD, p->hp.fd, &e) < 0 ||
	    (vfd >= 0 && (e.data.fd = vfd,
			  epoll_ctl(p->epfd, EPOLL_CTL_ADD, vfd, &e) < 0))) {
		log_warn("epoll for %s's hot-plug events: %s: displays plugged "
			 "in later are not seen",
			 p->path, strerror(errno));
		drm_hotplug_close(&p->hp);
		if (p->epfd >= 0)
			close(p->epfd);
		p->epfd = -1;
		return;
	}
	out->fd = p->epfd;
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
	priv_init(p);
	out->priv = p;
	/* Before console_open forks the supervisor, which must share it. */
	p->restore = drm_restore_create();
	if (!p->restore) {
		ret = -errno;
		log_error("mmap of the DRM restore list: %s", strerror(-ret));
		goto fail;
	}
	ret = drm_card_open(out, p, &s);
	if (ret < 0)
		goto fail;
	ret = drm_format_pixfmt(p->fourcc, &out->fmt);
	if (ret < 0)
		goto fail;
	ret = vt_open(&p->vt);
	if (ret < 0 && ret != -ENODEV)
		goto fail;
	/* No display yet: nothing set until the hot-plug brings one. */
	if (p->has_display) {
		drm_card_keep_crtc(p, p->restore);
		ret = set_crtc(out, p, 0);
		if (ret < 0)
			goto fail;
	}
	out->waiting = !p->has_display;
	p->back = p->nbuf == 2 ? 1 : 0;
	/* Until the first pass: the buffer on the screen, for the probe,
	 * which writes what is there already. */
	out->map = p->buf[0].map;
	drm_fb_size(p, &out->width, &out->height);
	out->turned = p->turn;
	out->stride = p->pitch;
	out->readable = false;
	out->fd = vt_event_fd(&p->vt);
	p->spec = s;
	snprintf(out->name, sizeof(out->name), "%s", p->conn_name);
	/* The other heads, once the first shows the desktop. */
	ret = p->has_display ? open_more(out, p, true) : 0;
	if (ret < 0)
		goto fail;
	watch_hotplug(out, p);
	log_debug("%s: %s, %ux%u@%u%s, CRTC %u, %.4s, %s", p->path,
		  p->conn_name, p->mode.hdisplay, p->mode.vdisplay,
		  drm_mode_hz(&p->mode),
		  p->mode.type & DRM_MODE_TYPE_PREFERRED ? " (preferred)" : "",
		  p->crtc_id, (const char *)&p->fourcc, buffers_said(p));
	return 0;
fail:
	drm_close(out);
	return ret;
}

static void drm_release(void *ctx)
{
	struct drm_priv *p = ctx;
	int k;

	/* The other VT's fbcon or display server takes the displays only
	 * once we let go of every card. */
	for (k = 0; k < p->ncards; k++)
		if (drmDropMaster(p->cards[k].fd) < 0)
			log_warn("drmDropMaster on %s: %s", p->cards[k].path,
				 strerror(errno));
	drm_restore_set_away(p->restore, true);
}

static void drm_acquire(void *ctx)
{
	struct drm_priv *p = ctx;
	int k;

	for (k = 0; k < p->ncards; k++)
		if (drmSetMaster(p->cards[k].fd) < 0)
			log_warn("drmSetMaster on %s: %s: the picture cannot "
				 "come back",
				 p->cards[k].path, strerror(errno));
	drm_restore_set_away(p->restore, false);
	/* Someone else had the CRTCs meanwhile. */
	atomic_store(&p->modeset, true);
	for (unsigned i = 0; i < p->nmore; i++)
		atomic_store(&((struct drm_priv *)p->more[i]->priv)->modeset,
			     true);
}

/* Whether a head at mode a shows what one at b does. */
static bool same_mode(const drmModeModeInfo *a, const drmModeModeInfo *b)
{
	return a->hdisplay == b->hdisplay && a->vdisplay == b->vdisplay &&
	       a->clock == b->clock && drm_mode_hz(a) == drm_mode_hz(b);
}

/* Whether what the connectors ask for (t) is not what is shown. */
static bool differs(const struct drm_priv *p, const struct drm_target *t)
{
	if (!t->present || !t->mode_found || !t->crtc_id)
		return p->has_display;
	return !p->has_display || t->standin != p->standin ||
	       t->card != p->card || t->conn_id != p->conn_id ||
	       t->crtc_id != p->crtc_id || !same_mode(&t->mode, &p->mode);
}

/* Whether the heads after the first are not the ones the connectors ask
 * for now (one plugged in or unplugged, or a monitor with another mode
 * in place of one). */
static bool heads_differ(struct drm_priv *p)
{
	char names[DRM_MAX_HEADS][32];
	drmModeModeInfo modes[DRM_MAX_HEADS];
	int i, k;

	if (!p->spec.all && p->spec.nheads < 2)
		return false;
	k = drm_card_more_heads(p, &p->spec, names, modes);
	if (k < 0)
		return false;
	if (k != (int)p->nmore)
		return true;
	for (i = 0; i < k; i++) {
		const struct drm_priv *h = p->more[i]->priv;

		/* The names connector= gives may have their cards'. */
		if (!drm_name_eq(names[i], p->more[i]->name) ||
		    !same_mode(&modes[i], &h->mode))
			return true;
	}
	return false;
}

/* A hot-plug event came (or one came while switched away and we are
 * back): when the connectors ask for something else, tell the session. */
static int hotplug_dispatch(struct output *out, struct drm_priv *p,
			    const struct output_events *ev)
{
	struct drm_target t;

	/* Switched away, the screen is not ours to set: looked at after
	 * the switch back. */
	if (p->vt.fd >= 0 && !p->vt.active) {
		p->hp_missed = true;
		return 0;
	}
	p->hp_missed = false;
	if (drm_hotplug_scan(p->cards, p->ncards, &p->spec, p->card, p->conn_id,
			     p->crtc_id, &t) < 0 ||
	    (!differs(p, &t) && !heads_differ(p)))
		return 0;
	if (!ev->changed)
		return 0;
	return ev->changed(ev->ctx);
}

static int drm_dispatch(struct output *out, const struct output_events *ev)
{
	struct drm_priv *p = out->priv;
	const struct vt_switch sw = {
	    .ctx = p, .release = drm_release, .acquire = drm_acquire};
	struct pollfd pfd[2] = {{.fd = vt_event_fd(&p->vt), .events = POLLIN},
				{.fd = p->hp.fd, .events = POLLIN}};
	int ret;

	if (p->epfd < 0)
		return vt_dispatch(&p->vt, ev, &sw);
	/* Which of the two woke the epoll fd. */
	if (poll(pfd, 2, 0) < 0)
		return 0;
	if (pfd[0].revents & POLLIN) {
		ret = vt_dispatch(&p->vt, ev, &sw);
		if (ret < 0)
			return ret;
	}
	if (((pfd[1].revents & POLLIN) && drm_hotplug_take(&p->hp)) ||
	    (p->hp_missed && p->vt.active))
		return hotplug_dispatch(out, p, ev);
	return 0;
}

/* output_impl.reconfigure: the connector the scan finds, at its mode, on
 * our CRTC, with new buffers; or none, and wait. */
static int drm_reconfigure(struct output *out)
{
	struct drm_priv *p = out->priv;
	struct drm_target t;
	int i, ret, nbuf = p->nbuf;

	if (atomic_load(&p->flip_pending))
		wait_flip(p);
	/* The other heads are made again after the first. */
	close_more(out, p);
	ret = drm_hotplug_scan(p->cards, p->ncards, &p->spec, p->card,
			       p->conn_id, p->crtc_id, &t);
	if (ret < 0) {
		log_error("drmModeGetResources on %s: %s", p->path,
			  strerror(-ret));
		return ret;
	}
	if (!t.present || !t.mode_found || !t.crtc_id) {
		/* In why while waiting: what for (output.h). */
		if (t.why[0])
			snprintf(out->why, sizeof(out->why),
				 "%s: waiting for a display", t.why);
		else
			snprintf(out->why, sizeof(out->why),
				 "%s%s: waiting for a display",
				 t.present ? t.name : p->conn_name,
				 !t.present	 ? " is disconnected"
				 : !t.mode_found ? " has not the mode asked for"
						 : " has no free CRTC");
		if (p->has_display)
			log_info("%s: %s", p->path, out->why);
		p->has_display = false;
		p->standin = false;
		out->waiting = true;
		return -ENODEV;
	}
	for (i = 0; i < 2; i++)
		drm_buf_destroy(p, &p->buf[i]);
	/* Nothing to draw into until the new buffers are there (a failure
	 * below ends the session). */
	out->map = NULL;
	p->nbuf = 0;
	p->pitch = 0;
	atomic_store(&p->flip_pending, false);
	p->mode = t.mode;
	p->conn_id = t.conn_id;
	if (t.card != p->card || t.crtc_id != p->crtc_id) {
		/* The old CRTC is left off; the console's comes back on
		 * close (p->restore keeps both, each with its card). */
		if (p->crtc_id)
			drmModeSetCrtc(p->fd, p->crtc_id, 0, 0, 0, NULL, 0,
				       NULL);
		if (t.card != p->card) {
			const struct drm_card *c = &p->cards[t.card];

			p->card = t.card;
			p->fd = c->fd;
			p->monotonic = c->monotonic;
			snprintf(p->path, sizeof(p->path), "%s", c->path);
		}
		p->crtc_id = t.crtc_id;
		/* The primary plane found at open was the old CRTC's. */
		drm_card_find_plane(p);
	}
	snprintf(p->conn_name, sizeof(p->conn_name), "%s", t.name);
	drm_card_pick_turn(p);
	ret = drm_buf_create(out, p, &p->buf[0]);
	if (ret < 0)
		return ret;
	p->nbuf = 1;
	/* As many buffers as before (one after a driver refused flips). */
	if (nbuf == 2 && drm_buf_create(out, p, &p->buf[1]) == 0)
		p->nbuf = 2;
	else
		drm_buf_destroy(p, &p->buf[1]);
	/* A CRTC new to vncfb (the head moved, or came after a start
	 * without a display) is kept as it is before it is set. */
	drm_card_keep_crtc(p, p->restore);
	ret = set_crtc(out, p, 0);
	if (ret < 0)
		return ret;
	shown(p, 0, monotonic_ns());
	p->back = p->nbuf == 2 ? 1 : 0;
	atomic_store(&p->modeset, false);
	out->map = p->buf[0].map;
	drm_fb_size(p, &out->width, &out->height);
	out->turned = p->turn;
	out->stride = p->pitch;
	p->has_display = true;
	snprintf(out->name, sizeof(out->name), "%s", p->conn_name);
	p->standin = t.standin;
	out->waiting = t.standin;
	if (t.standin) {
		snprintf(out->why, sizeof(out->why),
			 "%s: waiting for a display", t.why);
		log_info("%s: %s: waiting for a display; saying so on %s at "
			 "%ux%u",
			 p->path, t.why, p->conn_name, p->mode.hdisplay,
			 p->mode.vdisplay);
		return 0;
	}
	log_info("%s: %s at %ux%u@%u", p->path, p->conn_name, p->mode.hdisplay,
		 p->mode.vdisplay, drm_mode_hz(&p->mode));
	log_debug("%s: %s: CRTC %u, %s", p->path, p->conn_name, p->crtc_id,
		  buffers_said(p));
	return open_more(out, p, false);
}

/* Also what the supervisor runs once vncfb is gone (SIGKILL): its copy of
 * p is from just after open, but p->restore is the mapping it shares with
 * vncfb, which holds the CRTCs as vncfb last changed them (every head,
 * those plugged in or moved since included), each with its card's fd:
 * every card is opened at open, before the fork, so the supervisor holds
 * the same open file at that number, which stays the card's master
 * while either process holds it. */
static void drm_emergency_restore(struct output *out)
{
	struct drm_priv *p = out->priv;
	const struct timespec settle = {0, HALT_SETTLE_NS};

	if (!p || p->extra)
		return;
	/* In vncfb's own fatal-signal handler the blit threads still run:
	 * one that flipped after the restore showed its buffer again, which
	 * the exit then took away, leaving the head dark (seen once in 7 runs
	 * of vm-drm-heads-kill's SIGABRT case). They flip no more from
	 * here; one already past the check has made its ioctl within the
	 * pause, and the restore's SETCRTC comes after it. (In the
	 * supervisor, after vncfb is gone, this is only a pause.) */
	atomic_store(&halted, true);
	nanosleep(&settle, NULL);
	drm_restore_run(p->restore);
	vt_emergency_restore(&p->vt);
}

const struct output_impl drm_output_impl = {
    .name = "drm",
    .open = drm_open,
    .close = drm_close,
    .begin = drm_begin,
    .present = drm_present,
    .finish = drm_finish,
    .dispatch = drm_dispatch,
    .reconfigure = drm_reconfigure,
    .emergency_restore = drm_emergency_restore,
    .detect = drm_detect,
    .check_arg = drm_check_arg,
    .check = drm_check,
};
