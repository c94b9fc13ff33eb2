/* The deterministic VNC server of every test suite (libvncserver; not
 * part of vncfb): integration, bench, placement, reliability and the
 * console tests in the VM guest (tests/vm) all run this one.
 *
 * usage: testserver [--size WxH] [--password PW] [--ipv6] [--port N]
 *                   [--display] [--keep] [--timeout SECS]
 *                   [--after SECS:COMMAND]... [--delay-second MS]
 *                   [--set-desktop-size accept|prohibit|resources|invalid]
 *                   [--resize] [--colour RRGGBB] [--bars] [--depth 15|16|24]
 *                   [--cursor] [--qemu-keys] [--dump FILE.ppm] [--console]
 *
 * It listens on a free loopback port (127.0.0.1, or ::1 with --ipv6; with
 * --port N that port, SO_REUSEADDR so that a restarted server takes it
 * again; with --display the first free one of 5901-5999, a VNC display
 * number) and prints "READY <port>" on stdout once clients can connect.
 *
 * The picture (320x240 unless --size) is a fixed scene with solid blocks,
 * sharp edges, text-like glyphs on few colours and a noisy photographic
 * gradient, so that every encoding uses its solid, palette and
 * full-colour paths. --colour RRGGBB makes it one solid colour instead;
 * --bars the console tests' picture (colour bars, ramps with every
 * channel value, a texture: testserver_console.c), exactly representable
 * at --depth (default 24; 15 and 16 keep each channel to what 5/6/5 bits
 * reproduce). No cursor is drawn into it (an invisible one: see main());
 * --cursor gives an 8x8 red arrow instead.
 *
 * --dump FILE writes the picture as binary PPM and exits (for --bars
 * --depth 15 as QEMU's screendump of a guest shows it: the low bits
 * zero). --qemu-keys offers QEMU's extended key events.
 *
 * --console is the console tests' set: --bars, 1024x768, --keep,
 * --timeout 0, no cursor at all (libvncserver sends none), and their
 * forms of three lines: "GONE", "SETDESKTOPSIZE <w>x<h>" and
 * "RESIZED <w>x<h>". Options after it override it.
 *
 * Commands, one per line on stdin (or from --after once the first client
 * is connected, SECS after it connected):
 *   step N           redraw a patch chosen by N (incremental update): the
 *                    scene for odd N, a few solid boxes for even N
 *   scroll DX DY     move the whole picture by DX,DY with CopyRect and
 *                    draw the uncovered strip (incremental update)
 *   resize W H       new desktop size, scene redrawn (DesktopSize)
 *   frames N         N full-frame updates, one after the other: every
 *                    pixel changes, the next frame is drawn once the
 *                    last one is sent; then "FRAMES done N"
 *   wave N           as frames N, but the frames are tests/integration/
 *                    h264server's animation (tests/h264scene.h), frame
 *                    0 to N-1: the same pictures as its Open H.264, for
 *                    the bench's side by side (doc/performance.md)
 *   jpeg MODE Q      redraw everything as a smooth picture (seeded by the
 *                    number of jpeg commands so far), not marked
 *                    modified, and send it in JPEG encoding (21)
 *                    rectangles at quality Q to the clients that offer
 *                    it (MODE: whole, reuse, tables, notables:
 *                    testserver_jpeg.c); then "JPEG sent N" (N clients)
 *   dump FILE        write the framebuffer as binary PPM, then print
 *                    "DUMPED FILE"
 *   stats            print "STATS <encoding> <rects>" for every encoding
 *                    sent so far, then "STATS end"
 *   quit             leave (also on end of input, unless --keep)
 *
 * Lines it prints on stdout (line-buffered):
 *   READY <port>
 *   CLIENT connected | CLIENT gone
 *   SENT             after the first update sent (again after a
 *                    client has gone)
 *   KEY <down> 0x<keysym>   (down: 1 pressed, 0 released)
 *   XKEY <down> 0x<keysym> 0x<xt code>   (--qemu-keys)
 *   PTR <x> <y> <button mask>
 *   RESIZED <w> <h> | DUMPED <file> | STATS ... | FRAMES done <n>
 *   JPEG sent <n>
 *   SETDESKTOPSIZE <w> <h> <n> [<id> <x> <y> <w> <h> <flags>]...
 *                    a client's SetDesktopSize, as libvncserver read it
 *   ERROR <why>      for a command it could not run
 *
 * --timeout SECS (default 300, 0: none) ends the server regardless, so a
 * crashed test never leaves it running.
 *
 * --delay-second MS holds each client's second update back for MS. A
 * client that takes ExtendedDesktopSize gets the desktop's size alone as
 * the answer to its first (full) request, and the picture as the second
 * update: this makes the picture come late, as from a busy server.
 *
 * --set-desktop-size says how a client's SetDesktopSize is answered:
 * accept (or --resize) resizes the desktop (picture redrawn, "RESIZED"),
 * the others refuse with that status (prohibit is libvncserver's
 * default).
 *
 * TESTSERVER_VERBOSE in the environment lets libvncserver log to stderr.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <rfb/rfb.h>
#include <rfb/rfbregion.h>

#include "../h264scene.h"
#include "util/hash.h"
#include "testlib.h"
#include "testserver_console.h"
#include "testserver_jpeg.h"

#define MAX_AFTER 16

struct after {
	double secs;
	char cmd[200];
	bool done;
};

static rfbScreenInfoPtr screen;
static uint32_t *fb;
static int fb_w = 320, fb_h = 240;
static const char *passwords[2];
static struct after afters[MAX_AFTER];
static int n_afters;
static double first_client = -1;
static int clients;
/* "frames N": full frames still to send, and sent so far; "wave N":
 * the same, h264server's frames (wave_rgb: one of them, R,G,B). */
static int frames_left, frames_sent;
static uint8_t *wave_rgb;
static int delay_second_ms;
static int sds_answer = rfbExtDesktopSize_ResizeProhibited; /* or -1 */
/* The picture: the scene, one colour, or the console tests' bars. */
static enum { PIC_SCENE, PIC_SOLID, PIC_BARS } picture = PIC_SCENE;
static unsigned long solid_colour;
static int depth = 24;
static enum { CUR_EMPTY, CUR_NONE, CUR_ARROW } cursor = CUR_EMPTY;
/* --console: the console tests' forms of some lines. */
static bool console_lines;
static bool sent_once;

static void quiet(const char *fmt, ...)
{
	(void)fmt;
}

/* libvncserver's default 32 bpp format: R in the low byte. */
static uint32_t rgb(unsigned r, unsigned g, unsigned b)
{
	return (r & 0xff) | (g & 0xff) << 8 | (b & 0xff) << 16;
}

/* The colour of scene pixel (x, y) for a desktop of w x h; seed varies
 * it (0 is the initial scene, step N uses N). Four bands, top to bottom:
 * solid blocks with 1-pixel rules, text on few colours, a noisy gradient,
 * checkerboard and stripes. */
static uint32_t scene(int x, int y, int w, int h, uint32_t seed)
{
	static const uint32_t solid[8] = {
	    0xe6194b, 0x3cb44b, 0xffe119, 0x4363d8,
	    0xf58231, 0x911eb4, 0x46f0f0, 0xfabebe,
	};
	int band = y * 4 / h;

	switch (band) {
	case 0: {
		uint32_t c = solid[(x * 8 / w + seed) % 8];

		if (x % 37 == 0 || y % 29 == 0)
			return rgb(seed * 40, 255 - seed * 40, 128);
		return rgb(c >> 16, c >> 8, c);
	}
	case 1: {
		/* Glyphs: 6x8 cells, 5x7 bits of a hash; colours from a
		 * per-row palette of four. */
		int cx = x / 6, cy = y / 8, gx = x % 6, gy = y % 8;
		uint32_t hsh = hash32((uint32_t)(cx * 131 + cy * 7919) + seed);
		unsigned bit = (unsigned)(gx * 7 + gy) % 31;
		bool on = gx < 5 && gy < 7 && (hsh >> bit & 1) &&
			  (hsh >> (bit + 1) & 1);
		unsigned p = (unsigned)(cy + seed) % 4;

		if (on)
			return p & 1 ? rgb(0, 0, 0) : rgb(250, 250, 250);
		return p < 2 ? rgb(30, 60, 200) : rgb(255, 255, 210 - p);
	}
	case 2: {
		uint32_t n = hash32((uint32_t)(y * w + x) ^ (seed * 0x9e37u));

		return rgb(x * 255 / w + (n & 15),
			   (y * 4 - h * 2) * 255 / h + ((n >> 4) & 15),
			   (x + y + seed * 20) * 255 / (w + h) +
			       ((n >> 8) & 15));
	}
	default:
		if (x < w / 2)
			return ((x / 4) + (y / 4) + seed) % 2 ? rgb(255, 0, 255)
							      : rgb(0, 128, 0);
		if ((x + y) % 11 == 0)
			return rgb(255, 255, 255);
		return (x / 3 + seed) % 3 == 0 ? rgb(200, 100, 50)
					       : rgb(20, 20, 20 + seed);
	}
}

/* The whole picture at the framebuffer's size. */
static void draw_picture(void)
{
	unsigned char c[3];
	int x, y;

	for (y = 0; y < fb_h; y++)
		for (x = 0; x < fb_w; x++) {
			uint32_t *p = &fb[(size_t)y * fb_w + x];

			if (picture == PIC_SCENE) {
				*p = scene(x, y, fb_w, fb_h, 0);
			} else if (picture == PIC_SOLID) {
				*p = rgb(solid_colour >> 16, solid_colour >> 8,
					 solid_colour);
			} else {
				console_bars(x, y, fb_w, fb_h, depth, c);
				*p = rgb(c[0], c[1], c[2]);
			}
		}
}

static void draw(int x0, int y0, int w, int h, uint32_t seed)
{
	int x, y;

	for (y = y0; y < y0 + h; y++)
		for (x = x0; x < x0 + w; x++)
			fb[(size_t)y * fb_w + x] =
			    scene(x, y, fb_w, fb_h, seed);
}

__attribute__((format(printf, 1, 2))) static void emit(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

static void on_key(rfbBool down, rfbKeySym sym, rfbClientPtr cl)
{
	emit("KEY %d 0x%lx", down ? 1 : 0, (unsigned long)sym);
}

static void on_ptr(int mask, int x, int y, rfbClientPtr cl)
{
	emit("PTR %d %d %d", x, y, mask);
	rfbDefaultPtrAddEvent(mask, x, y, cl);
}

static void on_sent(rfbClientPtr cl, int result)
{
	if (!sent_once && result) {
		sent_once = true;
		emit("SENT");
	}
}

static void add_stats(rfbClientPtr cl);

static void on_gone(rfbClientPtr cl)
{
	add_stats(cl);
	clients--;
	sent_once = false;
	emit("%s", console_lines ? "GONE" : "CLIENT gone");
}

/* Before each update to cl; the count of them rides in clientData. */
static void on_display(rfbClientPtr cl)
{
	uintptr_t n = (uintptr_t)cl->clientData + 1;

	cl->clientData = (void *)n;
	if (n == 2 && delay_second_ms > 0)
		usleep((useconds_t)delay_second_ms * 1000);
}

static enum rfbNewClientAction on_client(rfbClientPtr cl)
{
	clients++;
	cl->clientGoneHook = on_gone;
	cl->clientData = NULL;
	if (first_client < 0)
		first_client = testlib_now();
	emit("CLIENT connected");
	return RFB_CLIENT_ACCEPT;
}

/* The framebuffer as binary PPM, each channel ANDed with mask. */
static int dump(const char *path, unsigned mask)
{
	size_t i, n = (size_t)fb_w * fb_h;
	uint8_t *rgb = malloc(n * 3);
	int err;

	if (!rgb)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		rgb[3 * i] = fb[i] & mask;
		rgb[3 * i + 1] = fb[i] >> 8 & mask;
		rgb[3 * i + 2] = fb[i] >> 16 & mask;
	}
	err = testlib_ppm_write(path, fb_w, fb_h, rgb);
	free(rgb);
	return err;
}

static const struct {
	uint32_t enc;
	const char *name;
} enc_names[] = {
    {rfbEncodingRaw, "raw"},	       {rfbEncodingCopyRect, "copyrect"},
    {rfbEncodingRRE, "rre"},	       {rfbEncodingCoRRE, "corre"},
    {rfbEncodingHextile, "hextile"},   {rfbEncodingZlib, "zlib"},
    {rfbEncodingTight, "tight"},       {rfbEncodingZRLE, "zrle"},
    {rfbEncodingZYWRLE, "zywrle"},     {rfbEncodingUltra, "ultra"},
    {rfbEncodingTRLE, "trle"},	       {rfbEncodingNewFBSize, "desktopsize"},
    {rfbEncodingLastRect, "lastrect"},
};

#define N_ENC (sizeof(enc_names) / sizeof(enc_names[0]))

/* Rectangles sent per encoding by clients that have gone (libvncserver
 * frees a client's statistics with it). */
static unsigned long gone_sent[N_ENC];

static void count_stats(rfbClientPtr cl, unsigned long *sent)
{
	rfbStatList *s;
	size_t i;

	for (s = cl->statEncList; s; s = s->Next)
		for (i = 0; i < N_ENC; i++)
			if (enc_names[i].enc == s->type)
				sent[i] += s->sentCount;
}

static void add_stats(rfbClientPtr cl)
{
	count_stats(cl, gone_sent);
}

static void stats(void)
{
	rfbClientIteratorPtr it = rfbGetClientIterator(screen);
	unsigned long sent[N_ENC];
	rfbClientPtr cl;
	size_t i;

	memcpy(sent, gone_sent, sizeof(sent));
	while ((cl = rfbClientIteratorNext(it)))
		count_stats(cl, sent);
	rfbReleaseClientIterator(it);
	for (i = 0; i < N_ENC; i++)
		if (sent[i])
			emit("STATS %s %lu", enc_names[i].name, sent[i]);
	emit("STATS end");
}

static int resize(int w, int h)
{
	uint32_t *nfb, *old = fb;

	if (w < 1 || h < 1 || w > 8192 || h > 8192)
		return -EINVAL;
	nfb = calloc((size_t)w * h, 4);
	if (!nfb)
		return -ENOMEM;
	fb = nfb;
	fb_w = w;
	fb_h = h;
	draw_picture();
	rfbNewFramebuffer(screen, (char *)fb, w, h, 8, 3, 4);
	free(old);
	return 0;
}

static int on_set_desktop_size(int w, int h, int n,
			       struct rfbExtDesktopScreen *s, rfbClientPtr cl)
{
	char line[200 + 16 * 64];
	int len;

	(void)cl;
	if (console_lines)
		len = snprintf(line, sizeof(line), "SETDESKTOPSIZE %dx%d", w, h);
	else
		len = snprintf(line, sizeof(line), "SETDESKTOPSIZE %d %d %d", w,
			       h, n);
	for (int i = 0; i < n && i < 16 && !console_lines; i++)
		len += snprintf(line + len, sizeof(line) - (size_t)len,
				" %u %u %u %u %u %u", s[i].id, s[i].x, s[i].y,
				s[i].width, s[i].height, s[i].flags);
	emit("%s", line);
	if (sds_answer >= 0)
		return sds_answer;
	if (resize(w, h) < 0)
		return rfbExtDesktopSize_OutOfResources;
	if (console_lines)
		emit("RESIZED %dx%d", w, h);
	else
		emit("RESIZED %d %d", w, h);
	return rfbExtDesktopSize_Success;
}

/* Move the picture by dx,dy with CopyRect; the uncovered strip gets new
 * content. */
static void scroll(int dx, int dy)
{
	int x1 = dx > 0 ? dx : 0, y1 = dy > 0 ? dy : 0;
	int x2 = fb_w + (dx < 0 ? dx : 0), y2 = fb_h + (dy < 0 ? dy : 0);

	if (x2 <= x1 || y2 <= y1)
		return;
	rfbDoCopyRect(screen, x1, y1, x2, y2, dx, dy);
	if (dx > 0) {
		draw(0, 0, dx, fb_h, 5);
		rfbMarkRectAsModified(screen, 0, 0, dx, fb_h);
	} else if (dx < 0) {
		draw(fb_w + dx, 0, -dx, fb_h, 5);
		rfbMarkRectAsModified(screen, fb_w + dx, 0, fb_w, fb_h);
	}
	if (dy > 0) {
		draw(0, 0, fb_w, dy, 6);
		rfbMarkRectAsModified(screen, 0, 0, fb_w, dy);
	} else if (dy < 0) {
		draw(0, fb_h + dy, fb_w, -dy, 6);
		rfbMarkRectAsModified(screen, 0, fb_h + dy, fb_w, fb_h);
	}
}

/* A patch whose place and size depend on n, drawn with seed n. */
static void step(unsigned n)
{
	uint32_t hsh = hash32(n + 1);
	int w = fb_w / 4 + (int)(hsh % (unsigned)(fb_w / 3 + 1));
	int h = fb_h / 4 + (int)((hsh >> 8) % (unsigned)(fb_h / 3 + 1));
	int x = (int)((hsh >> 16) % (unsigned)(fb_w - w + 1));
	int y = (int)((hsh >> 24) % (unsigned)(fb_h - h + 1));

	if (n % 2) {
		draw(x, y, w, h, n);
	} else {
		/* Calm patch: one colour with a few boxes, what RRE and the
		 * solid/subrect paths of hextile, tight and zrle are for. */
		int i, yy, xx;

		for (i = 0; i < 6; i++) {
			uint32_t hh = hash32(n * 16 + (unsigned)i);
			uint32_t c = rgb(hh, hh >> 8, hh >> 16);
			int bw = i ? 1 + (int)(hh >> 3) % (w / 3) : w;
			int bh = i ? 1 + (int)(hh >> 11) % (h / 3) : h;
			int bx = i ? x + (int)(hh >> 19) % (w - bw + 1) : x;
			int by = i ? y + (int)(hh >> 25) % (h - bh + 1) : y;

			for (yy = by; yy < by + bh; yy++)
				for (xx = bx; xx < bx + bw; xx++)
					fb[(size_t)yy * fb_w + xx] = c;
		}
	}
	rfbMarkRectAsModified(screen, x, y, x + w, y + h);
}

/* Whether every client has been sent all that was marked modified. */
static bool all_sent(void)
{
	rfbClientIteratorPtr it = rfbGetClientIterator(screen);
	rfbClientPtr cl;
	bool sent = true;

	while ((cl = rfbClientIteratorNext(it)))
		if (!sraRgnEmpty(cl->modifiedRegion))
			sent = false;
	rfbReleaseClientIterator(it);
	return sent;
}

/* The next full frame of a "frames N" run, once the last one is out:
 * every pixel flips some bits, so every encoding sends the whole screen
 * (and it costs little to draw in a slow VM). */
static void next_frame(void)
{
	uint32_t mask;
	size_t i, n = (size_t)fb_w * fb_h;

	if (!frames_left || !all_sent())
		return;
	if (frames_sent) {
		frames_left--;
		if (!frames_left) {
			emit("FRAMES done %d", frames_sent);
			return;
		}
	}
	if (!clients) {
		emit("ERROR frames: no client");
		frames_left = 0;
		return;
	}
	if (wave_rgb) {
		h264scene_frame(wave_rgb, fb_w, fb_h, (unsigned long)frames_sent);
		for (i = 0; i < n; i++)
			fb[i] = rgb(wave_rgb[3 * i], wave_rgb[3 * i + 1],
				    wave_rgb[3 * i + 2]);
	} else {
		mask = (hash32((uint32_t)frames_sent) & 0xffffff) | 0x010101;
		for (i = 0; i < n; i++)
			fb[i] ^= mask;
	}
	rfbMarkRectAsModified(screen, 0, 0, fb_w, fb_h);
	frames_sent++;
}

/* A smooth picture (JPEG's kind of content) drawn for "jpeg", not
 * marked modified: only the JPEG rectangles can bring it to a client. */
static void jpeg(const char *mode, int quality)
{
	static unsigned seed;
	int n;

	seed++;
	for (int y = 0; y < fb_h; y++)
		for (int x = 0; x < fb_w; x++)
			fb[(size_t)y * fb_w + x] =
			    rgb((unsigned)(x * 255 / fb_w),
				(unsigned)(y * 255 / fb_h),
				(unsigned)((x + y) * 127 / (fb_w + fb_h) +
					   seed * 40));
	n = jpeg_send(screen, fb, fb_w, fb_h, mode, quality);
	if (n < 0)
		emit("ERROR jpeg %s: bad mode or no memory", mode);
	else
		emit("JPEG sent %d", n);
}

/* Returns false to quit. */
static bool command(char *line)
{
	char arg[200];
	int a, b;

	line[strcspn(line, "\r\n")] = '\0';
	if (sscanf(line, "step %d", &a) == 1) {
		step((unsigned)a);
	} else if (sscanf(line, "scroll %d %d", &a, &b) == 2) {
		scroll(a, b);
	} else if (sscanf(line, "frames %d", &a) == 1 && a > 0) {
		free(wave_rgb);
		wave_rgb = NULL;
		frames_left = a;
		frames_sent = 0;
		next_frame();
	} else if (sscanf(line, "wave %d", &a) == 1 && a > 0) {
		free(wave_rgb);
		wave_rgb = malloc((size_t)fb_w * fb_h * 3);
		if (!wave_rgb) {
			emit("ERROR wave: no memory");
			return true;
		}
		frames_left = a;
		frames_sent = 0;
		next_frame();
	} else if (sscanf(line, "resize %d %d", &a, &b) == 2) {
		if (resize(a, b) < 0)
			emit("ERROR cannot resize to %dx%d", a, b);
		else
			emit("RESIZED %d %d", a, b);
	} else if (sscanf(line, "jpeg %15s %d", arg, &a) == 2) {
		jpeg(arg, a);
	} else if (sscanf(line, "dump %199s", arg) == 1) {
		int err = dump(arg, 0xff);

		if (err)
			emit("ERROR dump %s: %s", arg, strerror(-err));
		else
			emit("DUMPED %s", arg);
	} else if (strcmp(line, "stats") == 0) {
		stats();
	} else if (strcmp(line, "quit") == 0) {
		return false;
	} else if (line[0]) {
		emit("ERROR unknown command: %s", line);
	}
	return true;
}

/* A display's port, 5900 + N for the first free N in 1-99. */
static int listen_display(bool v6, int *port)
{
	for (int n = 1; n < 100; n++) {
		int fd;

		*port = 5900 + n;
		fd = testlib_listen(v6, port);
		if (fd != -EADDRINUSE)
			return fd;
	}
	return -EADDRINUSE;
}

static void usage(void)
{
	fprintf(stderr, "usage: testserver [--size WxH] [--password PW] "
			"[--ipv6] [--port N] [--display] [--keep] "
			"[--timeout SECS] [--after SECS:COMMAND]... "
			"[--delay-second MS] [--set-desktop-size accept|"
			"prohibit|resources|invalid] [--resize] "
			"[--colour RRGGBB] [--bars] [--depth 15|16|24] "
			"[--cursor] [--qemu-keys] [--dump FILE.ppm] "
			"[--console]\n");
	exit(2);
}

static void set_cursor(void)
{
	if (cursor == CUR_ARROW) {
		rfbSetCursor(screen, console_arrow(screen));
	} else if (cursor == CUR_NONE) {
		/* No cursor at all (nothing to scroll under it: the console
		 * tests' picture stays exactly the bars whether or not the
		 * client draws cursors). */
		screen->cursor = NULL;
	} else {
		/* rfbGetScreen installs its default cursor, which
		 * libvncserver would paint into the picture. A NULL cursor
		 * is not an option where pictures scroll: 0.9.14's
		 * rfbScheduleCopyRegion dereferences it for clients without
		 * cursor shape updates. So: a 1x1 cursor with an empty mask
		 * draws nothing. */
		screen->cursor = rfbMakeXCursor(1, 1, " ", " ");
	}
}

int main(int argc, char **argv)
{
	bool v6 = false, keep = false, in_open = true, display = false;
	double timeout = 300, start = testlib_now();
	int i, lfd, port = 0, argc0 = 0;
	const char *dump_path = NULL;
	bool qemu_keys = false;
	char line[256];
	size_t have = 0;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (strcmp(a, "--size") == 0 && v) {
			if (sscanf(v, "%dx%d", &fb_w, &fb_h) != 2 || fb_w < 8 ||
			    fb_h < 8 || fb_w > 8192 || fb_h > 8192)
				usage();
			i++;
		} else if (strcmp(a, "--password") == 0 && v) {
			passwords[0] = v;
			i++;
		} else if (strcmp(a, "--port") == 0 && v) {
			port = atoi(v);
			if (port < 0 || port > 65535)
				usage();
			i++;
		} else if (strcmp(a, "--timeout") == 0 && v) {
			timeout = atof(v);
			i++;
		} else if (strcmp(a, "--after") == 0 && v) {
			struct after *af = &afters[n_afters];
			const char *colon = strchr(v, ':');

			if (n_afters == MAX_AFTER || !colon)
				usage();
			af->secs = atof(v);
			snprintf(af->cmd, sizeof(af->cmd), "%s", colon + 1);
			n_afters++;
			i++;
		} else if (strcmp(a, "--delay-second") == 0 && v) {
			delay_second_ms = atoi(v);
			if (delay_second_ms < 0 || delay_second_ms > 60000)
				usage();
			i++;
		} else if (strcmp(a, "--set-desktop-size") == 0 && v) {
			if (!strcmp(v, "accept"))
				sds_answer = -1;
			else if (!strcmp(v, "prohibit"))
				sds_answer = rfbExtDesktopSize_ResizeProhibited;
			else if (!strcmp(v, "resources"))
				sds_answer = rfbExtDesktopSize_OutOfResources;
			else if (!strcmp(v, "invalid"))
				sds_answer =
				    rfbExtDesktopSize_InvalidScreenLayout;
			else
				usage();
			i++;
		} else if (strcmp(a, "--colour") == 0 && v) {
			char *end;

			solid_colour = strtoul(v, &end, 16);
			if (*end || solid_colour > 0xffffff)
				usage();
			picture = PIC_SOLID;
			i++;
		} else if (strcmp(a, "--depth") == 0 && v) {
			depth = atoi(v);
			if (depth != 15 && depth != 16 && depth != 24)
				usage();
			i++;
		} else if (strcmp(a, "--dump") == 0 && v) {
			dump_path = v;
			i++;
		} else if (strcmp(a, "--resize") == 0) {
			sds_answer = -1;
		} else if (strcmp(a, "--bars") == 0) {
			picture = PIC_BARS;
		} else if (strcmp(a, "--cursor") == 0) {
			cursor = CUR_ARROW;
		} else if (strcmp(a, "--qemu-keys") == 0) {
			qemu_keys = true;
		} else if (strcmp(a, "--console") == 0) {
			picture = PIC_BARS;
			fb_w = 1024;
			fb_h = 768;
			keep = true;
			timeout = 0;
			cursor = CUR_NONE;
			console_lines = true;
		} else if (strcmp(a, "--display") == 0) {
			display = true;
		} else if (strcmp(a, "--ipv6") == 0) {
			v6 = true;
		} else if (strcmp(a, "--keep") == 0) {
			keep = true;
		} else {
			usage();
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGPIPE, SIG_IGN);
	if (!getenv("TESTSERVER_VERBOSE")) {
		rfbLog = quiet;
		rfbErr = quiet;
	}

	fb = calloc((size_t)fb_w * fb_h, 4);
	if (!fb)
		return 1;
	draw_picture();
	if (dump_path) {
		/* QEMU's VGA draws 15 bpp lines itself with the low bits
		 * zero (31 is 248), where 16 bpp is a shared surface that
		 * expands by replication. */
		int err = dump(dump_path,
			       picture == PIC_BARS && depth == 15 ? 0xf8 : 0xff);

		if (err)
			fprintf(stderr, "testserver: %s: %s\n", dump_path,
				strerror(-err));
		free(fb);
		return err ? 1 : 0;
	}
	screen = rfbGetScreen(&argc0, NULL, fb_w, fb_h, 8, 3, 4);
	if (!screen)
		return 1;
	screen->desktopName = "vncfb test server";
	screen->frameBuffer = (char *)fb;
	screen->alwaysShared = TRUE;
	/* We listen ourselves (port 0 = any free port); libvncserver only
	 * serves the sockets we hand it. */
	screen->port = 0;
	screen->ipv6port = 0;
	screen->autoPort = FALSE;
	screen->httpDir = NULL;
	screen->kbdAddEvent = on_key;
	screen->ptrAddEvent = on_ptr;
	screen->newClientHook = on_client;
	screen->displayHook = on_display;
	screen->displayFinishedHook = on_sent;
	jpeg_register();
	if (qemu_keys)
		console_qemu_keys();
	screen->setDesktopSizeHook = on_set_desktop_size;
	if (passwords[0]) {
		screen->authPasswdData = (void *)passwords;
		screen->passwordCheck = rfbCheckPasswordByList;
	}
	rfbInitServer(screen);
	set_cursor();

	lfd = display ? listen_display(v6, &port) : testlib_listen(v6, &port);
	if (lfd < 0) {
		fprintf(stderr, "testserver: cannot listen on %s: %s\n",
			v6 ? "::1" : "127.0.0.1", strerror(-lfd));
		return 1;
	}
	emit("READY %d", port);

	for (;;) {
		struct pollfd pfd[2] = {{lfd, POLLIN, 0}, {0, POLLIN, 0}};

		if (timeout > 0 && testlib_now() - start > timeout) {
			fprintf(stderr, "testserver: timeout, leaving\n");
			break;
		}
		/* Not waiting here: libvncserver's select below waits on the
		 * clients, so that none of their messages waits for ours. */
		if (poll(pfd, in_open ? 2 : 1, 0) > 0) {
			if (pfd[0].revents & POLLIN) {
				int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);

				if (fd >= 0)
					rfbNewClient(screen, fd);
			}
			if (in_open && (pfd[1].revents & (POLLIN | POLLHUP))) {
				ssize_t k = read(0, line + have,
						 sizeof(line) - 1 - have);
				char *nl;

				if (k <= 0) {
					in_open = false;
					if (!keep)
						break;
				} else {
					have += (size_t)k;
				}
				line[have] = '\0';
				while ((nl = strchr(line, '\n'))) {
					*nl = '\0';
					if (!command(line))
						goto out;
					have -= (size_t)(nl + 1 - line);
					memmove(line, nl + 1, have + 1);
				}
				if (have == sizeof(line) - 1)
					have = 0; /* overlong line: drop */
			}
		}
		for (i = 0; i < n_afters; i++) {
			struct after *af = &afters[i];

			if (!af->done && first_client >= 0 &&
			    testlib_now() - first_client >= af->secs) {
				af->done = true;
				if (!command(af->cmd))
					goto out;
			}
		}
		/* Short, so that neither a handshake (the connect cycles
		 * make a thousand) nor a new client waits long. */
		rfbProcessEvents(screen, 2000);
		next_frame();
	}
out:
	close(lfd);
	rfbShutdownServer(screen, TRUE);
	rfbScreenCleanup(screen);
	free(fb);
	return 0;
}
