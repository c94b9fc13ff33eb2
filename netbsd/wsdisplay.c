/* NetBSD wsdisplay output: the framebuffer of a wscons screen in DUMBFB
 * mode, with process-controlled screen switching and one restore path. */
#include "config.h"

#include <sys/types.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include <dev/wscons/wsconsio.h>
#include <dev/wscons/wsdisplay_usl_io.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/log.h"
#include "output/output.h"
#include "wscons.h"
#include "wsfb_format.h"

#define DEFAULT_DEVICE "/dev/ttyE0"
/* Release and acquire come as two signals, so a stray one cannot turn the
 * state around. Not SIGUSR1: that one asks the session for a screenshot. */
#define REL_SIG SIGUSR2
#define ACQ_SIG SIGRTMIN

_Static_assert(WSFB_FMT_RGB == WSFB_RGB && WSFB_FMT_CI == WSFB_CI &&
		   WSFB_FMT_GREYSCALE == WSFB_GREYSCALE &&
		   WSFB_FMT_YUV == WSFB_YUV,
	       "wsfb_format.h pixel types differ from wsconsio.h");

struct ws_priv {
	int fd;
	const char *path;
	char pathbuf[256];
	uint8_t *base;
	size_t maplen;
	bool dumbfb;   /* we set DUMBFB: EMUL must come back */
	bool cmap_set; /* we programmed the colour map */
	bool cmap_saved;
	uint8_t old_r[256], old_g[256], old_b[256];
	bool vt_process; /* we set VT_PROCESS */
	struct vt_mode old_vt;
	bool shown;
	int pipe[2];
	struct sigaction old_rel, old_acq;
};

/* The open output, for screen switches asked by the input and for the
 * signal handler. */
static struct ws_priv *cur;
static volatile int sig_wfd = -1;

int wscons_switch_screen(int n)
{
	int fd = cur ? cur->fd : -1;
	int err;

	if (fd < 0) {
		log_warn("cannot switch to screen %d: no wsdisplay open", n);
		return -ENODEV;
	}
	/* USL numbers screens from 1. */
	if (ioctl(fd, VT_ACTIVATE, n + 1) < 0) {
		err = errno;
		log_warn("ioctl VT_ACTIVATE: %s (screen %d)", strerror(err), n);
		return -err;
	}
	return 0;
}

static void on_switch(int signo)
{
	int saved = errno;
	char c = signo == REL_SIG ? 'R' : 'A';

	if (sig_wfd >= 0 && write(sig_wfd, &c, 1) < 0) {
		/* Pipe full: a switch is pending already. */
	}
	errno = saved;
}

/* The screen vncfb was started on when that is a wscons screen (a login
 * on ttyE2 draws on ttyE2), else ttyE0. */
static const char *default_device(void)
{
	const char *t = ttyname(STDIN_FILENO);
	size_t n = strlen("/dev/ttyE");

	if (t && strncmp(t, "/dev/ttyE", n) == 0 && t[n] >= '0' &&
	    t[n] <= '9' && strspn(t + n, "0123456789") == strlen(t + n))
		return t;
	return DEFAULT_DEVICE;
}

static int put_cmap(int fd, uint8_t *r, uint8_t *g, uint8_t *b)
{
	struct wsdisplay_cmap cm = {
	    .index = 0,
	    .count = 256,
	    .red = r,
	    .green = g,
	    .blue = b,
	};

	return ioctl(fd, WSDISPLAYIO_PUTCMAP, &cm);
}

static int program_cmap(struct ws_priv *p)
{
	uint8_t r[256], g[256], b[256];

	wsfb_cmap_332(r, g, b);
	if (put_cmap(p->fd, r, g, b) < 0) {
		log_error("ioctl WSDISPLAYIO_PUTCMAP: %s", strerror(errno));
		return -errno;
	}
	p->cmap_set = true;
	return 0;
}

static int read_fbinfo(struct ws_priv *p, struct wsfb_info *fi)
{
	struct wsdisplayio_fbinfo fbi;
	struct wsdisplay_fbinfo gi;
	u_int linebytes = 0;
	int err;

	memset(&fbi, 0, sizeof(fbi));
	if (ioctl(p->fd, WSDISPLAYIO_GET_FBINFO, &fbi) == 0) {
		memset(fi, 0, sizeof(*fi));
		fi->fbsize = fbi.fbi_fbsize;
		fi->fboffset = fbi.fbi_fboffset;
		fi->width = fbi.fbi_width;
		fi->height = fbi.fbi_height;
		fi->stride = fbi.fbi_stride;
		fi->bpp = fbi.fbi_bitsperpixel;
		fi->pixeltype = fbi.fbi_pixeltype;
		fi->flags = fbi.fbi_flags;
		if (fbi.fbi_pixeltype == WSFB_RGB) {
			const struct _fbi_rgbmasks *m =
			    &fbi.fbi_subtype.fbi_rgbmasks;

			fi->r_off = m->red_offset;
			fi->r_size = m->red_size;
			fi->g_off = m->green_offset;
			fi->g_size = m->green_size;
			fi->b_off = m->blue_offset;
			fi->b_size = m->blue_size;
		} else if (fbi.fbi_pixeltype == WSFB_CI) {
			fi->cmap_entries =
			    fbi.fbi_subtype.fbi_cmapinfo.cmap_entries;
		}
		return 0;
	}
	/* Older drivers: the GINFO + LINEBYTES pair, as xf86-video-wsfb
	 * falls back to. */
	log_info("ioctl WSDISPLAYIO_GET_FBINFO: %s; using "
		 "WSDISPLAYIO_GINFO",
		 strerror(errno));
	if (ioctl(p->fd, WSDISPLAYIO_GINFO, &gi) < 0) {
		err = errno;
		log_error("ioctl WSDISPLAYIO_GINFO: %s", strerror(err));
		return -err;
	}
	if (ioctl(p->fd, WSDISPLAYIO_LINEBYTES, &linebytes) < 0) {
		log_info("ioctl WSDISPLAYIO_LINEBYTES: %s; assuming rows "
			 "of width * bytes per pixel",
			 strerror(errno));
		linebytes = 0;
	}
	wsfb_from_ginfo(gi.width, gi.height, gi.depth, gi.cmsize, linebytes,
			fi);
	return 0;
}

/* Our screen must be the one shown before we draw: the framebuffer is
 * shared by all screens. wsdisplay minors are unit << 8 | screen. */
static void bring_to_front(struct ws_priv *p)
{
	struct stat st;
	int active = -1, ours, i;

	if (fstat(p->fd, &st) < 0 || !S_ISCHR(st.st_mode))
		return;
	ours = (int)(minor(st.st_rdev) & 0xff);
	if (ioctl(p->fd, WSDISPLAYIO_GETACTIVESCREEN, &active) < 0) {
		log_debug("ioctl WSDISPLAYIO_GETACTIVESCREEN: %s",
			  strerror(errno));
		return;
	}
	if (active == ours)
		return;
	log_info("%s is not the screen shown (screen %d is); switching to it",
		 p->path, active);
	/* USL numbers screens from 1. */
	if (ioctl(p->fd, VT_ACTIVATE, ours + 1) < 0) {
		log_warn("ioctl VT_ACTIVATE: %s", strerror(errno));
		return;
	}
	/* Not VT_WAITACTIVE: it would wait for good if the screen shown now
	 * refuses to let go (an X server in process mode). */
	for (i = 0; i < 20; i++) {
		if (ioctl(p->fd, WSDISPLAYIO_GETACTIVESCREEN, &active) == 0 &&
		    active == ours)
			return;
		usleep(100 * 1000);
	}
	log_warn("%s: screen %d still shown after 2 s; drawing anyway", p->path,
		 active);
}

static int take_switching(struct ws_priv *p)
{
	struct vt_mode vm;
	struct sigaction sa;

	if (ioctl(p->fd, VT_GETMODE, &p->old_vt) < 0) {
		log_warn("ioctl VT_GETMODE: %s: switching screens will not "
			 "stop vncfb drawing",
			 strerror(errno));
		return 0;
	}
	if (pipe2(p->pipe, O_CLOEXEC | O_NONBLOCK) < 0) {
		log_error("pipe: %s", strerror(errno));
		return -errno;
	}
	sig_wfd = p->pipe[1];
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_switch;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	sigaction(REL_SIG, &sa, &p->old_rel);
	sigaction(ACQ_SIG, &sa, &p->old_acq);
	memset(&vm, 0, sizeof(vm));
	vm.mode = VT_PROCESS;
	vm.relsig = REL_SIG;
	vm.acqsig = ACQ_SIG;
	vm.frsig = REL_SIG;
	if (ioctl(p->fd, VT_SETMODE, &vm) < 0) {
		log_warn("ioctl VT_SETMODE: %s: switching screens will not "
			 "stop vncfb drawing",
			 strerror(errno));
		sig_wfd = -1;
		sigaction(REL_SIG, &p->old_rel, NULL);
		sigaction(ACQ_SIG, &p->old_acq, NULL);
		close(p->pipe[0]);
		close(p->pipe[1]);
		p->pipe[0] = p->pipe[1] = -1;
		return 0;
	}
	p->vt_process = true;
	return 0;
}

/* Console back to how we found it. Only ioctl(): also the emergency
 * path, from a signal handler. */
static void restore(struct ws_priv *p)
{
	if (p->vt_process) {
		ioctl(p->fd, VT_SETMODE, &p->old_vt);
		p->vt_process = false;
	}
	if (p->dumbfb) {
		u_int mode = WSDISPLAYIO_MODE_EMUL;

		ioctl(p->fd, WSDISPLAYIO_SMODE, &mode);
		p->dumbfb = false;
	}
	/* After EMUL: the text mode reloads its palette on some drivers, and
	 * ours must win over what we set. */
	if (p->cmap_set && p->cmap_saved)
		put_cmap(p->fd, p->old_r, p->old_g, p->old_b);
	p->cmap_set = false;
}

static void ws_close(struct output *out)
{
	struct ws_priv *p = out->priv;

	if (!p)
		return;
	if (p->base) {
		munmap(p->base, p->maplen);
		p->base = NULL;
	}
	restore(p);
	if (p->pipe[0] >= 0) {
		sig_wfd = -1;
		sigaction(REL_SIG, &p->old_rel, NULL);
		sigaction(ACQ_SIG, &p->old_acq, NULL);
		close(p->pipe[0]);
		close(p->pipe[1]);
	}
	if (p->fd >= 0)
		close(p->fd);
	if (cur == p)
		cur = NULL;
	free(p);
	out->priv = NULL;
	out->map = NULL;
	out->fd = -1;
}

static void ws_emergency_restore(struct output *out)
{
	struct ws_priv *p = out->priv;

	if (p)
		restore(p);
}

/* Opening the screen's node changes nothing on it. */
static int ws_check(const char *arg)
{
	const char *path = arg && *arg ? arg : default_device();
	int fd = open(path, O_RDWR | O_CLOEXEC), ret;

	if (fd < 0) {
		ret = -errno;
		log_error("%s: %s", path, strerror(errno));
		return ret;
	}
	close(fd);
	return 0;
}

static int ws_open(struct output *out, const char *arg)
{
	struct ws_priv *p;
	struct wsfb_info fi;
	struct wsdisplay_cmap cm;
	char why[160];
	bool need_cmap;
	u_int mode;
	long pagesize;
	void *m;
	int ret;

	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->fd = -1;
	p->pipe[0] = p->pipe[1] = -1;
	snprintf(p->pathbuf, sizeof(p->pathbuf), "%s",
		 arg && *arg ? arg : default_device());
	p->path = p->pathbuf;
	out->priv = p;

	p->fd = open(p->path, O_RDWR | O_CLOEXEC);
	if (p->fd < 0) {
		ret = -errno;
		log_error("%s: %s", p->path, strerror(errno));
		goto fail;
	}
	ret = read_fbinfo(p, &fi);
	if (ret < 0)
		goto fail;
	ret = wsfb_pixfmt(&fi, &out->fmt, &need_cmap, why, sizeof(why));
	if (ret < 0) {
		log_error("%s: %s", p->path, why);
		goto fail;
	}
	/* Before VT_PROCESS (switching to us needs no acknowledgement then)
	 * and before the colour map is saved (it is the shown one's). */
	bring_to_front(p);
	pagesize = sysconf(_SC_PAGESIZE);
	ret = wsfb_map_len(&fi, pagesize > 0 ? (size_t)pagesize : 4096,
			   &p->maplen);
	if (ret < 0) {
		log_error("%s: mode %ux%u stride %u offset %llu does not fit "
			  "the %llu-byte framebuffer",
			  p->path, fi.width, fi.height, fi.stride,
			  (unsigned long long)fi.fboffset,
			  (unsigned long long)fi.fbsize);
		goto fail;
	}
	if (need_cmap) {
		cm = (struct wsdisplay_cmap){.index = 0,
					     .count = 256,
					     .red = p->old_r,
					     .green = p->old_g,
					     .blue = p->old_b};
		if (ioctl(p->fd, WSDISPLAYIO_GETCMAP, &cm) == 0)
			p->cmap_saved = true;
		else
			log_warn("ioctl WSDISPLAYIO_GETCMAP: %s: the text "
				 "colours may be wrong after vncfb",
				 strerror(errno));
	}
	/* mmap is refused in text mode. */
	mode = WSDISPLAYIO_MODE_DUMBFB;
	if (ioctl(p->fd, WSDISPLAYIO_SMODE, &mode) < 0) {
		ret = -errno;
		log_error("ioctl WSDISPLAYIO_SMODE: %s", strerror(errno));
		goto fail;
	}
	p->dumbfb = true;
	cur = p;
	m = mmap(NULL, p->maplen, PROT_READ | PROT_WRITE, MAP_SHARED, p->fd, 0);
	if (m == MAP_FAILED) {
		ret = -errno;
		log_error("mmap %s (%zu bytes): %s", p->path, p->maplen,
			  strerror(errno));
		goto fail;
	}
	p->base = m;
	if (need_cmap) {
		ret = program_cmap(p);
		if (ret < 0)
			goto fail;
	}
	ret = take_switching(p);
	if (ret < 0)
		goto fail;
	p->shown = true;
	out->fd = p->pipe[0];
	out->width = fi.width;
	out->height = fi.height;
	out->stride = fi.stride;
	out->map = p->base + fi.fboffset;
	out->readable = false;
	log_debug("%s: %ux%u, %u bpp, stride %u, offset %llu, flags %#x",
		  p->path, fi.width, fi.height, fi.bpp, fi.stride,
		  (unsigned long long)fi.fboffset, fi.flags);
	return 0;
fail:
	ws_close(out);
	return ret;
}

static int ws_dispatch(struct output *out, const struct output_events *ev)
{
	struct ws_priv *p = out->priv;
	char buf[16];
	ssize_t n, i;

	n = read(p->pipe[0], buf, sizeof(buf));
	if (n < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : -errno;
	for (i = 0; i < n; i++) {
		if (buf[i] == 'R' && p->shown) {
			/* Leaving: stop drawing, and let go of the keyboard,
			 * before the console gets the framebuffer back. */
			ev->suspend(ev->ctx);
			p->shown = false;
			if (ioctl(p->fd, VT_RELDISP, VT_TRUE) < 0)
				log_warn("ioctl VT_RELDISP: %s",
					 strerror(errno));
		} else if (buf[i] == 'A' && !p->shown) {
			if (ioctl(p->fd, VT_RELDISP, VT_ACKACQ) < 0)
				log_warn("ioctl VT_RELDISP: %s",
					 strerror(errno));
			p->shown = true;
			/* The text screen loaded its own palette. */
			if (p->cmap_set)
				program_cmap(p);
			ev->resume(ev->ctx);
		}
	}
	return 0;
}

const struct output_impl wsdisplay_output_impl = {
    .name = "wsdisplay",
    .open = ws_open,
    .close = ws_close,
    .dispatch = ws_dispatch,
    .emergency_restore = ws_emergency_restore,
    .check = ws_check,
};
