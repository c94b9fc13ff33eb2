/* The Linux fbdev output: /dev/fbN mapped, its pixel layout handed to the
 * session, the colour map and the VT taken over and given back. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fbdev.h"
#include "util/log.h"
#include "output/output.h"
#include "vt.h"

#define CMAP_MAX 256

struct fb_priv {
	int fd;
	char *path;
	uint8_t *mem;
	size_t mem_len;
	struct fb_var_screeninfo var;
	struct fb_fix_screeninfo fix;
	/* Colour map we program (8 bpp pseudo-colour, direct colour) and
	 * the one we found, to put back. */
	bool cmap_ours;
	bool cmap_saved;
	uint32_t cmap_len;
	uint16_t new_r[CMAP_MAX], new_g[CMAP_MAX], new_b[CMAP_MAX];
	uint16_t old_r[CMAP_MAX], old_g[CMAP_MAX], old_b[CMAP_MAX];
	struct vt vt;
};

static void log_open_error(const char *path, int err)
{
	char msg[320];

	devnode_open_error(path, err, "framebuffer",
			   "is a framebuffer driver loaded? -o fbdev:DEVICE "
			   "picks another one",
			   msg, sizeof(msg));
	log_error("%s", msg);
}

static uint16_t scale16(unsigned v, unsigned max)
{
	return (uint16_t)((v * 65535u + max / 2) / max);
}

/* 8 bpp: a 3-3-2 colour cube, so the pixel is rgb332 "true colour" that
 * RFB can deliver directly and the blit stays a memcpy. */
static void cmap_fill_332(struct fb_priv *p)
{
	unsigned i;

	p->cmap_len = 256;
	for (i = 0; i < 256; i++) {
		p->new_r[i] = scale16((i >> 5) & 7, 7);
		p->new_g[i] = scale16((i >> 2) & 7, 7);
		p->new_b[i] = scale16(i & 3, 3);
	}
}

/* Direct colour: identity ramps, each channel over its own width. */
static void cmap_fill_ramps(struct fb_priv *p)
{
	const struct fb_var_screeninfo *v = &p->var;
	unsigned rn = 1u << v->red.length, gn = 1u << v->green.length;
	unsigned bn = 1u << v->blue.length, n = rn, i;

	if (gn > n)
		n = gn;
	if (bn > n)
		n = bn;
	p->cmap_len = n;
	for (i = 0; i < n; i++) {
		p->new_r[i] = scale16(i < rn ? i : rn - 1, rn - 1);
		p->new_g[i] = scale16(i < gn ? i : gn - 1, gn - 1);
		p->new_b[i] = scale16(i < bn ? i : bn - 1, bn - 1);
	}
}

static int cmap_put(struct fb_priv *p, uint16_t *r, uint16_t *g, uint16_t *b)
{
	struct fb_cmap cm = {0, p->cmap_len, r, g, b, NULL};

	return ioctl(p->fd, FBIOPUTCMAP, &cm) < 0 ? -errno : 0;
}

static int cmap_setup(struct fb_priv *p)
{
	struct fb_cmap cm = {0, 0, p->old_r, p->old_g, p->old_b, NULL};
	int ret;

	if (p->fix.visual == FB_VISUAL_PSEUDOCOLOR)
		cmap_fill_332(p);
	else if (p->fix.visual == FB_VISUAL_DIRECTCOLOR)
		cmap_fill_ramps(p);
	else
		return 0;
	cm.len = p->cmap_len;
	if (ioctl(p->fd, FBIOGETCMAP, &cm) == 0)
		p->cmap_saved = true;
	else
		log_warn("ioctl FBIOGETCMAP on %s: %s: the colour map cannot "
			 "be restored on exit",
			 p->path, strerror(errno));
	ret = cmap_put(p, p->new_r, p->new_g, p->new_b);
	if (ret < 0) {
		log_error("ioctl FBIOPUTCMAP on %s: %s", p->path,
			  strerror(-ret));
		return ret;
	}
	p->cmap_ours = true;
	return 0;
}

static void cmap_restore(struct fb_priv *p)
{
	if (p->cmap_ours && p->cmap_saved)
		cmap_put(p, p->old_r, p->old_g, p->old_b);
	p->cmap_ours = false;
}

static bool host_big_endian(void)
{
	const uint16_t one = 1;

	return *(const uint8_t *)&one == 0;
}

static const char *visual_name(uint32_t v)
{
	switch (v) {
	case FB_VISUAL_MONO01:
	case FB_VISUAL_MONO10:
		return "monochrome";
	case FB_VISUAL_TRUECOLOR:
		return "true colour";
	case FB_VISUAL_PSEUDOCOLOR:
		return "pseudo-colour";
	case FB_VISUAL_DIRECTCOLOR:
		return "direct colour";
	case FB_VISUAL_STATIC_PSEUDOCOLOR:
		return "static pseudo-colour";
	default:
		return "unknown visual";
	}
}

/* The device's layout as a pixfmt. 0 or -ENOTSUP (logged). */
static int read_format(struct fb_priv *p, struct pixfmt *f)
{
	const struct fb_var_screeninfo *v = &p->var;
	unsigned bpp = v->bits_per_pixel;

	memset(f, 0, sizeof(*f));
	if (p->fix.type != FB_TYPE_PACKED_PIXELS) {
		log_error("%s: planar or interleaved framebuffers (type %u) "
			  "are not supported",
			  p->path, p->fix.type);
		return -ENOTSUP;
	}
	if (bpp == 8 && p->fix.visual == FB_VISUAL_PSEUDOCOLOR) {
		return fbdev_format_from_bitfields(8, 5, 3, 2, 3, 0, 2, f);
	}
	if (p->fix.visual != FB_VISUAL_TRUECOLOR &&
	    p->fix.visual != FB_VISUAL_DIRECTCOLOR) {
		log_error("%s: %u bpp %s is not supported (true colour at "
			  "15/16/24/32 bpp or 8 bpp pseudo-colour)",
			  p->path, bpp, visual_name(p->fix.visual));
		return -ENOTSUP;
	}
	if (v->red.msb_right || v->green.msb_right || v->blue.msb_right ||
	    fbdev_format_from_bitfields(
		bpp, v->red.offset, v->red.length, v->green.offset,
		v->green.length, v->blue.offset, v->blue.length, f) < 0) {
		log_error("%s: unsupported pixel layout: %u bpp, red %u@%u "
			  "green %u@%u blue %u@%u",
			  p->path, bpp, v->red.length, v->red.offset,
			  v->green.length, v->green.offset, v->blue.length,
			  v->blue.offset);
		return -ENOTSUP;
	}
	return 0;
}

int fbdev_format_from_bitfields(unsigned bpp, unsigned r_off, unsigned r_len,
				unsigned g_off, unsigned g_len, unsigned b_off,
				unsigned b_len, struct pixfmt *f)
{
	memset(f, 0, sizeof(*f));
	if (bpp != 8 && bpp != 16 && bpp != 24 && bpp != 32)
		return -ENOTSUP;
	if (r_off > 31 || g_off > 31 || b_off > 31 || r_len > 8 || g_len > 8 ||
	    b_len > 8)
		return -ENOTSUP;
	f->bpp = (uint8_t)bpp;
	f->r_shift = (uint8_t)r_off;
	f->g_shift = (uint8_t)g_off;
	f->b_shift = (uint8_t)b_off;
	f->r_bits = (uint8_t)r_len;
	f->g_bits = (uint8_t)g_len;
	f->b_bits = (uint8_t)b_len;
	f->depth = (uint8_t)(r_len + g_len + b_len);
	f->big_endian = host_big_endian();
	return pixfmt_valid(f) ? 0 : -ENOTSUP;
}

static int map_device(struct output *out, struct fb_priv *p)
{
	const struct fb_var_screeninfo *v = &p->var;
	long page = sysconf(_SC_PAGESIZE);
	size_t pgoff, Bpp = v->bits_per_pixel / 8, line, need;

	line = p->fix.line_length ? p->fix.line_length
				  : (size_t)v->xres_virtual * Bpp;
	/* The visible area must lie inside video memory; a driver that says
	 * otherwise would have us write past the mapping. */
	need = ((size_t)v->yoffset + v->yres - 1) * line +
	       ((size_t)v->xoffset + v->xres) * Bpp;
	if (p->fix.smem_len == 0 || v->xres == 0 || v->yres == 0 ||
	    line < (size_t)v->xres * Bpp || need > p->fix.smem_len) {
		log_error("%s: inconsistent geometry (%ux%u at %u,%u, line "
			  "%zu bytes, %u bytes of video memory)",
			  p->path, v->xres, v->yres, v->xoffset, v->yoffset,
			  line, p->fix.smem_len);
		return -EINVAL;
	}
	/* smem_start need not be page aligned; mmap starts at its page. */
	pgoff = page > 0
		    ? (size_t)(p->fix.smem_start & (unsigned long)(page - 1))
		    : 0;
	p->mem_len = p->fix.smem_len + pgoff;
	p->mem = mmap(NULL, p->mem_len, PROT_READ | PROT_WRITE, MAP_SHARED,
		      p->fd, 0);
	if (p->mem == MAP_FAILED) {
		int err = errno;

		p->mem = NULL;
		log_error("mmap %s (%zu bytes): %s", p->path, p->mem_len,
			  strerror(err));
		return -err;
	}
	out->width = v->xres;
	out->height = v->yres;
	out->stride = line;
	out->map = p->mem + pgoff + (size_t)v->yoffset * line +
		   (size_t)v->xoffset * Bpp;
	out->readable = false;
	/* Deferred-io drivers (the DRM fbdev emulation) report 0: a shadow
	 * in RAM, no device range. */
	if (p->fix.smem_start) {
		out->phys_start = p->fix.smem_start;
		out->phys_len = p->fix.smem_len;
	}
	return 0;
}

static void fbdev_close(struct output *out)
{
	struct fb_priv *p = out->priv;

	if (!p)
		return;
	/* Switched away, the colour map belongs to the VT on screen. */
	if (p->vt.fd < 0 || p->vt.active)
		cmap_restore(p);
	vt_close(&p->vt);
	if (p->mem)
		munmap(p->mem, p->mem_len);
	if (p->fd >= 0)
		close(p->fd);
	free(p->path);
	free(p);
	out->priv = NULL;
	out->map = NULL;
	out->fd = -1;
}

/* DEVICE, else $FRAMEBUFFER, else /dev/fb0. */
static const char *device_path(const char *arg)
{
	const char *path = arg && *arg ? arg : getenv("FRAMEBUFFER");

	return path && *path ? path : "/dev/fb0";
}

/* Opening the node and asking what it is changes nothing on the screen. */
static int fbdev_check(const char *arg)
{
	const char *path = device_path(arg);
	struct fb_fix_screeninfo fix;
	int fd, ret = 0;

	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		log_open_error(path, errno);
		return ret;
	}
	if (ioctl(fd, FBIOGET_FSCREENINFO, &fix) < 0) {
		ret = -errno;
		log_error("%s is not a framebuffer device (ioctl "
			  "FBIOGET_FSCREENINFO: %s)",
			  path, strerror(errno));
	}
	close(fd);
	return ret;
}

static int fbdev_open(struct output *out, const char *arg)
{
	const char *path = device_path(arg);
	struct fb_priv *p;
	int ret;

	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->fd = -1;
	p->vt.fd = -1;
	p->vt.pipe[0] = p->vt.pipe[1] = -1;
	out->priv = p;
	p->path = strdup(path);
	if (!p->path) {
		ret = -ENOMEM;
		goto fail;
	}
	p->fd = open(path, O_RDWR | O_CLOEXEC);
	if (p->fd < 0) {
		ret = -errno;
		log_open_error(path, errno);
		goto fail;
	}
	if (ioctl(p->fd, FBIOGET_FSCREENINFO, &p->fix) < 0) {
		ret = -errno;
		if (errno == ENOTTY || errno == EINVAL)
			log_error("%s is not a framebuffer device (ioctl "
				  "FBIOGET_FSCREENINFO: %s)",
				  path, strerror(errno));
		else
			log_error("ioctl FBIOGET_FSCREENINFO on %s: %s", path,
				  strerror(errno));
		goto fail;
	}
	if (ioctl(p->fd, FBIOGET_VSCREENINFO, &p->var) < 0) {
		ret = -errno;
		log_error("ioctl FBIOGET_VSCREENINFO on %s: %s", path,
			  strerror(errno));
		goto fail;
	}
	ret = read_format(p, &out->fmt);
	if (ret < 0)
		goto fail;
	ret = map_device(out, p);
	if (ret < 0)
		goto fail;
	ret = vt_open(&p->vt);
	if (ret < 0 && ret != -ENODEV)
		goto fail;
	ret = cmap_setup(p);
	if (ret < 0)
		goto fail;
	/* A blanked console stays dark in graphics mode otherwise. */
	ioctl(p->fd, FBIOBLANK, FB_BLANK_UNBLANK);
	out->fd = vt_event_fd(&p->vt);
	log_debug("%s: %s, %ux%u, %u bpp, line %zu, %u KiB at offset %u,%u",
		  path, p->fix.id, p->var.xres, p->var.yres,
		  p->var.bits_per_pixel, out->stride, p->fix.smem_len >> 10,
		  p->var.xoffset, p->var.yoffset);
	return 0;
fail:
	fbdev_close(out);
	return ret;
}

/* The text console on the other VT loaded its own palette. */
static void fbdev_acquire(void *ctx)
{
	struct fb_priv *p = ctx;

	if (p->cmap_ours)
		cmap_put(p, p->new_r, p->new_g, p->new_b);
}

static int fbdev_dispatch(struct output *out, const struct output_events *ev)
{
	struct fb_priv *p = out->priv;
	const struct vt_switch sw = {.ctx = p, .acquire = fbdev_acquire};

	return vt_dispatch(&p->vt, ev, &sw);
}

/* The default output looks for the framebuffer only where there is one. */
static int fbdev_detect(char *why, size_t len)
{
	const char *path = device_path(NULL);
	struct stat st;

	if (stat(path, &st) == 0 || errno != ENOENT)
		return 0;
	snprintf(why, len, "no %s", path);
	return -ENOENT;
}

static void fbdev_emergency_restore(struct output *out)
{
	struct fb_priv *p = out->priv;

	if (!p)
		return;
	if (p->cmap_ours && p->cmap_saved && (p->vt.fd < 0 || p->vt.active))
		cmap_put(p, p->old_r, p->old_g, p->old_b);
	vt_emergency_restore(&p->vt);
}

const struct output_impl fbdev_output_impl = {
    .name = "fbdev",
    .open = fbdev_open,
    .close = fbdev_close,
    .dispatch = fbdev_dispatch,
    .emergency_restore = fbdev_emergency_restore,
    .detect = fbdev_detect,
    .check = fbdev_check,
};
