/* netbsd/wsdisplay.c against a fake ioctl(): the order of the mode, colour
 * map and screen-switch calls, the restore on close and in the emergency
 * path, the GINFO fallback, and one-line errors naming the ioctl. The
 * "framebuffer" is a temporary file, really mapped. Built on Linux with the
 * stand-in headers in fake/. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <dev/wscons/wsconsio.h>
#include <dev/wscons/wsdisplay_usl_io.h>

#include "output/output.h"
#include "wscons.h"

#include "../check.h"

/* --- the fake device --- */

static struct {
	bool have_fbinfo;
	struct wsdisplayio_fbinfo fbi;
	struct wsdisplay_fbinfo gi;
	u_int linebytes;
	unsigned long fail_req;
	int fail_errno;
	uint8_t pal_r[256], pal_g[256], pal_b[256]; /* the hardware's */
	u_int mode;
	struct vt_mode vt;
} dev;

static char calls[4096];

#define note(...) log_append(calls, sizeof(calls), __VA_ARGS__)

int ioctl(int fd, unsigned long req, ...);
int ioctl(int fd, unsigned long req, ...)
{
	va_list ap;
	void *arg;
	struct wsdisplay_cmap *cm;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (req == dev.fail_req) {
		note("fail");
		errno = dev.fail_errno;
		return -1;
	}
	switch (req) {
	case WSDISPLAYIO_GET_FBINFO:
		note("GET_FBINFO");
		if (!dev.have_fbinfo) {
			errno = ENOTTY;
			return -1;
		}
		memcpy(arg, &dev.fbi, sizeof(dev.fbi));
		return 0;
	case WSDISPLAYIO_GINFO:
		note("GINFO");
		memcpy(arg, &dev.gi, sizeof(dev.gi));
		return 0;
	case WSDISPLAYIO_LINEBYTES:
		note("LINEBYTES");
		*(u_int *)arg = dev.linebytes;
		return 0;
	case WSDISPLAYIO_SMODE:
		dev.mode = *(u_int *)arg;
		note("SMODE=%u", dev.mode);
		return 0;
	case WSDISPLAYIO_GETCMAP:
	case WSDISPLAYIO_PUTCMAP:
		cm = arg;
		note("%s=%u+%u",
		     req == WSDISPLAYIO_GETCMAP ? "GETCMAP" : "PUTCMAP",
		     cm->index, cm->count);
		if (cm->index != 0 || cm->count != 256)
			return errno = EINVAL, -1;
		if (req == WSDISPLAYIO_GETCMAP) {
			memcpy(cm->red, dev.pal_r, 256);
			memcpy(cm->green, dev.pal_g, 256);
			memcpy(cm->blue, dev.pal_b, 256);
		} else {
			memcpy(dev.pal_r, cm->red, 256);
			memcpy(dev.pal_g, cm->green, 256);
			memcpy(dev.pal_b, cm->blue, 256);
		}
		return 0;
	case WSDISPLAYIO_GETACTIVESCREEN:
		note("GETACTIVESCREEN");
		*(int *)arg = 0;
		return 0;
	case VT_GETMODE:
		note("VT_GETMODE");
		memcpy(arg, &dev.vt, sizeof(dev.vt));
		return 0;
	case VT_SETMODE:
		memcpy(&dev.vt, arg, sizeof(dev.vt));
		note("VT_SETMODE=%d", dev.vt.mode);
		return 0;
	case VT_RELDISP:
		note("VT_RELDISP=%d", (int)(intptr_t)arg);
		return 0;
	case VT_ACTIVATE:
		note("VT_ACTIVATE=%d", (int)(intptr_t)arg);
		return 0;
	default:
		note("unknown-%#lx", req);
		errno = ENOTTY;
		return -1;
	}
}

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off);
void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	long r;

	note("mmap=%zu", len);
	r = syscall(SYS_mmap, addr, len, prot, flags, fd, off);
	if (r < 0 && r > -4096) {
		errno = (int)-r;
		return MAP_FAILED;
	}
	return (void *)r;
}

/* --- helpers --- */

static char path[] = "/tmp/vncfb-wsdisplay-XXXXXX";
static int devfd = -1;

static void make_dev(size_t size)
{
	if (devfd >= 0)
		close(devfd);
	strcpy(path, "/tmp/vncfb-wsdisplay-XXXXXX");
	devfd = mkstemp(path);
	if (devfd < 0 || ftruncate(devfd, (off_t)size) < 0) {
		perror("temporary framebuffer");
		exit(1);
	}
}

static void rgb32(uint32_t w, uint32_t h, uint32_t stride, uint64_t off)
{
	memset(&dev, 0, sizeof(dev));
	dev.have_fbinfo = true;
	dev.fbi.fbi_width = w;
	dev.fbi.fbi_height = h;
	dev.fbi.fbi_stride = stride;
	dev.fbi.fbi_bitsperpixel = 32;
	dev.fbi.fbi_pixeltype = WSFB_RGB;
	dev.fbi.fbi_fboffset = off;
	dev.fbi.fbi_fbsize = off + (uint64_t)stride * h;
	dev.fbi.fbi_subtype.fbi_rgbmasks =
	    (struct _fbi_rgbmasks){16, 8, 8, 8, 0, 8, 24, 8};
	dev.vt.mode = VT_AUTO;
	make_dev(dev.fbi.fbi_fbsize);
}

static char errbuf[1024];
static int saved_err = -1;
static char errpath[] = "/tmp/vncfb-wsdisplay-err-XXXXXX";

static void capture_begin(void)
{
	int fd;

	strcpy(errpath, "/tmp/vncfb-wsdisplay-err-XXXXXX");
	fd = mkstemp(errpath);
	fflush(stderr);
	saved_err = dup(2);
	dup2(fd, 2);
	close(fd);
}

static void capture_end(void)
{
	FILE *f;
	size_t n;

	fflush(stderr);
	dup2(saved_err, 2);
	close(saved_err);
	f = fopen(errpath, "r");
	n = f ? fread(errbuf, 1, sizeof(errbuf) - 1, f) : 0;
	errbuf[n] = '\0';
	if (f)
		fclose(f);
	unlink(errpath);
}

static int suspended, resumed;

/* The session lets go of the input in these: the screen must still be
 * ours at suspend (nothing acknowledged yet), and acquired, its palette
 * back, at resume. */
static void ev_suspend(void *ctx)
{
	CHECK(!strstr(calls, "VT_RELDISP"), "suspended after: %s", calls);
	suspended++;
}

static void ev_resume(void *ctx)
{
	CHECK(strstr(calls, "VT_RELDISP=2") != NULL, "resumed before: %s",
	      calls);
	resumed++;
}

static int open_out(struct output *out)
{
	memset(out, 0, sizeof(*out));
	out->fd = -1;
	out->impl = &wsdisplay_output_impl;
	calls[0] = '\0';
	return wsdisplay_output_impl.open(out, path);
}

/* --- tests --- */

static void test_rgb32_and_restore(void)
{
	struct output out;
	uint8_t px[4];

	rgb32(640, 480, 2560 + 64, 8192);
	CHECK(open_out(&out) == 0);
	CHECK(strcmp(calls, "GET_FBINFO SMODE=2 mmap=1269760 VT_GETMODE "
			    "VT_SETMODE=1") == 0);
	CHECK(out.width == 640 && out.height == 480 && out.stride == 2624);
	CHECK(out.fmt.bpp == 32 && out.fmt.r_shift == 16 && out.fd >= 0);
	CHECK(dev.vt.relsig == SIGUSR2 && dev.vt.acqsig == SIGRTMIN);
	/* drawing lands at fbi_fboffset in the device */
	memset(out.map, 0, 4);
	out.map[0] = 0x56, out.map[1] = 0x34, out.map[2] = 0x12;
	CHECK(pread(devfd, px, 4, 8192) == 4);
	CHECK(px[0] == 0x56 && px[1] == 0x34 && px[2] == 0x12);
	calls[0] = '\0';
	wsdisplay_output_impl.close(&out);
	CHECK(strcmp(calls, "VT_SETMODE=0 SMODE=0") == 0);
	CHECK(dev.mode == WSDISPLAYIO_MODE_EMUL && dev.vt.mode == VT_AUTO);
	CHECK(out.priv == NULL && out.map == NULL);
	/* idempotent */
	calls[0] = '\0';
	wsdisplay_output_impl.close(&out);
	CHECK(calls[0] == '\0');
}

static void test_cmap_8bpp(void)
{
	struct output out;
	unsigned i;

	memset(&dev, 0, sizeof(dev));
	dev.have_fbinfo = true;
	dev.fbi.fbi_width = 320;
	dev.fbi.fbi_height = 200;
	dev.fbi.fbi_stride = 320;
	dev.fbi.fbi_bitsperpixel = 8;
	dev.fbi.fbi_pixeltype = WSFB_CI;
	dev.fbi.fbi_subtype.fbi_cmapinfo.cmap_entries = 256;
	for (i = 0; i < 256; i++)
		dev.pal_r[i] = (uint8_t)i, dev.pal_g[i] = 7,
		dev.pal_b[i] = (uint8_t)(255 - i);
	make_dev(320 * 200);
	CHECK(open_out(&out) == 0);
	/* saved, then DUMBFB, mapped, then the 3-3-2 map */
	CHECK(strcmp(calls, "GET_FBINFO GETCMAP=0+256 SMODE=2 mmap=65536 "
			    "PUTCMAP=0+256 VT_GETMODE VT_SETMODE=1") == 0);
	CHECK(out.fmt.bpp == 8 && out.fmt.r_bits == 3 && out.fmt.b_bits == 2);
	CHECK(dev.pal_r[0xe0] == 255 && dev.pal_g[0xe0] == 0 &&
	      dev.pal_b[0xe0] == 0);
	CHECK(dev.pal_b[0x03] == 255 && dev.pal_r[0x03] == 0);

	/* switching away and back: stop (the session lets go of the input
	 * there too), ack, ...; ack, map again, go */
	{
		struct output_events ev = {NULL, ev_suspend, ev_resume};

		memset(dev.pal_r, 1, 256); /* the text screen's palette */
		calls[0] = '\0';
		raise(SIGUSR2);
		CHECK(wsdisplay_output_impl.dispatch(&out, &ev) == 0);
		CHECK(suspended == 1 && resumed == 0);
		CHECK(strcmp(calls, "VT_RELDISP=1") == 0);
		/* a second release request while away changes nothing */
		raise(SIGUSR2);
		CHECK(wsdisplay_output_impl.dispatch(&out, &ev) == 0);
		CHECK(suspended == 1);
		calls[0] = '\0';
		raise(SIGRTMIN);
		CHECK(wsdisplay_output_impl.dispatch(&out, &ev) == 0);
		CHECK(strcmp(calls, "VT_RELDISP=2 PUTCMAP=0+256") == 0);
		CHECK(resumed == 1);
		CHECK(dev.pal_r[0xe0] == 255);
		/* nothing pending: a dispatch reads nothing */
		CHECK(wsdisplay_output_impl.dispatch(&out, &ev) == 0);
		CHECK(resumed == 1);
	}

	/* Ctrl+Alt+F3 */
	calls[0] = '\0';
	CHECK(wscons_switch_screen(2) == 0);
	CHECK(strcmp(calls, "VT_ACTIVATE=3") == 0);

	/* the emergency path: text mode, the old palette, auto switching */
	calls[0] = '\0';
	wsdisplay_output_impl.emergency_restore(&out);
	CHECK(strcmp(calls, "VT_SETMODE=0 SMODE=0 PUTCMAP=0+256") == 0);
	for (i = 0; i < 256; i++)
		CHECK(dev.pal_r[i] == i && dev.pal_g[i] == 7 &&
		      dev.pal_b[i] == 255 - i);
	/* ... after which close has nothing left to restore */
	calls[0] = '\0';
	wsdisplay_output_impl.close(&out);
	CHECK(calls[0] == '\0');
	capture_begin();
	CHECK(wscons_switch_screen(1) == -ENODEV);
	capture_end();
	CHECK(strstr(errbuf, "no wsdisplay open") != NULL);
}

static void test_ginfo_fallback(void)
{
	struct output out;

	memset(&dev, 0, sizeof(dev));
	dev.gi = (struct wsdisplay_fbinfo){600, 800, 16, 0};
	dev.linebytes = 1664;
	make_dev(1664 * 600);
	capture_begin();
	CHECK(open_out(&out) == 0);
	capture_end();
	CHECK(strncmp(calls, "GET_FBINFO GINFO LINEBYTES SMODE=2", 34) == 0);
	CHECK(out.width == 800 && out.height == 600 && out.stride == 1664);
	CHECK(out.fmt.bpp == 16 && out.fmt.r_shift == 11 &&
	      out.fmt.g_bits == 6);
	CHECK(strstr(errbuf, "ioctl WSDISPLAYIO_GET_FBINFO: ") != NULL);
	wsdisplay_output_impl.close(&out);
}

static void test_errors(void)
{
	struct output out;

	/* DUMBFB refused: named, nothing to undo but closing */
	rgb32(640, 480, 2560, 0);
	dev.fail_req = WSDISPLAYIO_SMODE;
	dev.fail_errno = EPERM;
	capture_begin();
	CHECK(open_out(&out) == -EPERM);
	capture_end();
	CHECK(strcmp(calls, "GET_FBINFO fail") == 0);
	CHECK(strstr(errbuf, "ioctl WSDISPLAYIO_SMODE: Operation not "
			     "permitted") != NULL);
	CHECK(out.priv == NULL);

	/* no VT switching in the kernel: warned, drawing still works */
	rgb32(640, 480, 2560, 0);
	dev.fail_req = VT_SETMODE;
	dev.fail_errno = ENOTTY;
	capture_begin();
	CHECK(open_out(&out) == 0);
	capture_end();
	CHECK(strstr(errbuf, "ioctl VT_SETMODE: ") != NULL);
	CHECK(out.fd == -1);
	calls[0] = '\0';
	wsdisplay_output_impl.close(&out);
	CHECK(strcmp(calls, "SMODE=0") == 0);

	/* a layout vncfb cannot draw: said, console untouched */
	rgb32(640, 480, 2560, 0);
	dev.fbi.fbi_pixeltype = WSFB_GREYSCALE;
	capture_begin();
	CHECK(open_out(&out) == -ENOTSUP);
	capture_end();
	CHECK(strcmp(calls, "GET_FBINFO") == 0);
	CHECK(strstr(errbuf, "greyscale") != NULL);

	/* a mode larger than the framebuffer */
	rgb32(640, 480, 2560, 0);
	dev.fbi.fbi_fbsize = 2560 * 479;
	capture_begin();
	CHECK(open_out(&out) == -EINVAL);
	capture_end();
	CHECK(strstr(errbuf, "does not fit") != NULL);

	/* no such device */
	strcpy(path, "/nonexistent/ttyE9");
	capture_begin();
	CHECK(open_out(&out) == -ENOENT);
	capture_end();
	CHECK(strstr(errbuf, "/nonexistent/ttyE9: No such file") != NULL);
}

int main(void)
{
	test_rgb32_and_restore();
	test_cmap_8bpp();
	test_ginfo_fallback();
	test_errors();
	if (devfd >= 0)
		close(devfd);
	unlink(path);
	if (failures) {
		fprintf(stderr, "%d checks failed (calls: %s)\n", failures,
			calls);
		return 1;
	}
	printf("wsdisplay: all checks passed\n");
	return 0;
}
